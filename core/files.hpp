#pragma once
// Small filesystem helpers: whole-file reads, atomic writes, hashing.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kgo::core {

namespace fs = std::filesystem;

// Reads the whole file; std::nullopt when it is missing or unreadable.
std::optional<std::string> try_read_file(const fs::path& path);

// Reads the whole file or throws Error(`code`) naming the path and the reason.
std::string read_file(const fs::path& path);

// Writes `content` to `path` atomically: temp file in the same directory, fsync, rename,
// fsync of the directory. A crash leaves either the old file or the new one, never a mix.
void write_file_atomic(const fs::path& path, std::string_view content);

// Writes `content` to `path` directly (no temp file, no fsync): only for files inside a
// directory that is itself published later by an atomic rename.
void write_file(const fs::path& path, std::string_view content);

// fsyncs a directory so a rename inside it is durable.
void fsync_dir(const fs::path& dir);

// Lower-case hex SHA-256 of `data` (with the CPU's SHA instructions where it has them).
std::string sha256_hex(std::string_view data);
// The same digest from the portable code alone, for tests that compare the two paths.
std::string sha256_hex_portable(std::string_view data);

// SHA-256 of a file's content; throws when unreadable.
std::string sha256_file(const fs::path& path);

// A fresh directory under `parent` named `<prefix>XXXXXX`; throws when it cannot be made.
fs::path make_temp_dir(const fs::path& parent, const std::string& prefix);

}  // namespace kgo::core
