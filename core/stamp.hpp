#pragma once
// Keyed stamps: every measurement kgo records carries an HMAC-SHA256 under a per-workspace secret in
// `<ws>/.kgo/stamp.key` (mode 0600, inside the git-ignored .kgo/), and the hashes of the files it judged
// (kernel, ref.py, the kernel's local imports) and the aten ops `--allow-op` let the kernel call. A stamp
// written by hand, or one whose files changed since, does not verify.
//
// The key rule: kgo trusts only a key it made itself before any kernel of the workspace ran. It makes
// the key at `kgo init` (in the workspace before it is renamed into place) or, in a workspace that has
// none, in ensure_stamp_key, which every path that runs the workspace's kernel calls before the harness
// starts, with the workspace lock held. Stamping never makes a key: a key missing after a kernel ran is
// refused, not replaced. A key is used only when it is a regular file (no link) owned by kgo's user,
// mode 0600, of 64 hex digits; and once ensure_stamp_key has read it in this process, only while it
// still holds those bytes (a key swapped during the run is refused). Anything else is Error(record_error).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgo::core {

// Makes the workspace's key when it has none (under the workspace lock), checks it as above and pins its
// bytes for this process. Call before the harness runs the workspace's kernel.
void ensure_stamp_key(const std::filesystem::path& workspace);

// Makes `<dir>/.kgo/stamp.key` (mode 0600) where none exists; for `kgo init`'s unpublished workspace.
void create_stamp_key(const std::filesystem::path& dir);

// What a measurement's stamp records besides the kernel: the judged files and the allowed aten ops.
struct StampInputs {
  nlohmann::json sources = nlohmann::json::array();  // [{path, sha256}] relative to the workspace
  std::vector<std::string> allowed_ops;              // --allow-op NAMEs; stamp.allowed_ops (MAC-covered)
};

// core::record_measurement with the stamp's "sources" and "allowed_ops" set; every stamp also gets "mac".
void record_measurement(const std::filesystem::path& workspace, int n, const std::string& field,
                        nlohmann::json value, const std::string& kernel_sha256, const std::string& tool,
                        const StampInputs& inputs);

// The aten ops a record's measurements relied on: the union of the allowed_ops of its correctness and
// performance stamps, sorted; empty when none (or when the stamps are older than the field).
std::vector<std::string> allowed_ops(const nlohmann::json& record);

// The MAC of `measurement` (its stamp.mac ignored) as field `field` of record `n`, under the key as the
// rule above allows it (never a key made here).
std::string stamp_mac(const std::filesystem::path& workspace, int n, const std::string& field,
                      const nlohmann::json& measurement);

// Why record `n`'s `field` is not a stamp kgo wrote for the files as they are now, or nullopt. A
// correctness PASS must also name at least one case.
std::optional<std::string> stamp_unverified(const std::filesystem::path& workspace, int n, const nlohmann::json& record,
                                            const std::string& field);

}  // namespace kgo::core
