#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "core/error.hpp"

namespace kgo::core {

std::optional<std::string> try_read_file(const fs::path& path) {
  // Plain read(2) into a buffer sized by fstat: iostreams cost several times more, and kgo reads
  // up to a thousand records per command.
  // O_NONBLOCK and the regular-file check: a FIFO planted where a file belongs must not hang kgo.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EINVAL;
    return std::nullopt;
  }
  // Read straight into the string; the spare byte shows end of file without growing it, and a
  // file that grew since fstat (or a /proc file that reports size 0) grows it.
  out.resize(static_cast<size_t>(st.st_size) + 1);
  size_t got = 0;
  ssize_t n;
  for (;;) {
    if (got == out.size()) out.resize(out.size() + 65536);
    n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  int saved = errno;
  ::close(fd);
  errno = saved;  // read_file names the failure from errno
  if (n < 0) return std::nullopt;
  out.resize(got);
  return out;
}

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw Error("cannot read " + path.string() + ": no such file", ExitCode::failure);
  }
  auto content = try_read_file(path);
  if (!content) {
    std::string why = errno == EINVAL ? "not a regular file" : std::strerror(errno);
    throw Error("cannot read " + path.string() + ": " + why, ExitCode::failure);
  }
  return *content;
}

void write_file(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) {
    throw Error("cannot write " + path.string() + ": " + std::strerror(errno), ExitCode::not_writable);
  }
}

void fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void write_file_atomic(const fs::path& path, std::string_view content) {
  fs::path dir = path.parent_path();
  std::string tmpl = (dir.empty() ? fs::path(".") : dir).string() + "/." +
                     path.filename().string() + ".tmpXXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    throw Error("cannot write " + path.string() + ": " + std::strerror(errno),
                ExitCode::not_writable);
  }
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw Error("cannot write " + path.string() + ": " + std::strerror(err),
                  ExitCode::not_writable);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw Error("cannot write " + path.string() + ": " + std::strerror(errno),
                ExitCode::not_writable);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw Error("cannot write " + path.string() + ": " + std::strerror(err),
                ExitCode::not_writable);
  }
  fsync_dir(dir);
}

std::string sha256_file(const fs::path& path) { return sha256_hex(read_file(path)); }

fs::path make_temp_dir(const fs::path& parent, const std::string& prefix) {
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw Error("cannot create a directory in " + parent.string() + ": " + std::strerror(errno),
                ExitCode::not_writable);
  }
  return tmpl;
}

}  // namespace kgo::core
