#include "core/stamp.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/txn.hpp"

namespace kgo::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kBlock = 64;  // SHA-256 block size

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string hmac_sha256(std::string key, const std::string& message) {
  if (key.size() > kBlock) key = unhex(sha256_hex(key));
  key.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(key[i] ^ 0x36);
    outer[i] = static_cast<char>(key[i] ^ 0x5c);
  }
  return sha256_hex(outer + unhex(sha256_hex(inner + message)));
}

fs::path key_path(const fs::path& ws) { return ws / ".kgo" / "stamp.key"; }

std::mutex g_pins_mutex;
std::map<std::string, std::string> g_pins;  // canonical workspace -> the key ensure_stamp_key read

std::string pin_name(const fs::path& ws) {
  std::error_code ec;
  return fs::weakly_canonical(ws, ec).string();
}

struct KeyFile {
  std::optional<std::string> key;  // the key when kgo may use it
  std::string refused;             // why not, when the file exists but is not one kgo made
};

// The key as the rule in core/stamp.hpp allows it; neither set when there is no key file.
KeyFile read_key(const fs::path& ws) {
  KeyFile out;
  struct stat st {};
  if (::lstat(key_path(ws).c_str(), &st) != 0) return out;
  if (!S_ISREG(st.st_mode)) {
    out.refused = "is not a regular file (a link or special file)";
  } else if (st.st_uid != ::geteuid()) {
    out.refused = "belongs to uid " + std::to_string(st.st_uid) + ", not to kgo's user (uid " +
                  std::to_string(::geteuid()) + ")";
  } else if ((st.st_mode & 07777) != 0600) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    out.refused = std::string("has mode ") + mode + ", not the 0600 kgo gives it";
  }
  if (!out.refused.empty()) return out;
  auto key = try_read_file(key_path(ws));
  if (!key || key->size() != 64 || key->find_first_not_of("0123456789abcdef") != std::string::npos) {
    out.refused = "is not the 64 hex digits kgo writes";
    return out;
  }
  out.key = key;
  return out;
}

std::string refusal(const fs::path& ws, const std::string& why) {
  return key_path(ws).string() + " " + why + ": kgo uses only a stamp key it made itself (core/stamp.hpp). " +
         "Delete it (rm " + key_path(ws).string() + ") and run the command again; stamps made under it no longer verify";
}

// The key kgo may stamp with now: the file's, and the pinned one when this process pinned one.
std::string usable_key(const fs::path& ws) {
  KeyFile k = read_key(ws);
  if (!k.refused.empty()) throw Error(refusal(ws, k.refused), ExitCode::record_error);
  std::lock_guard<std::mutex> lock(g_pins_mutex);
  auto pin = g_pins.find(pin_name(ws));
  if (!k.key) {
    throw Error(key_path(ws).string() + (pin != g_pins.end() ? " was removed while the kernel ran" : " is missing") +
                    "; kgo makes the stamp key before any kernel runs and never after one did. Run the command "
                    "again: kgo makes a new key before the harness starts",
                ExitCode::record_error);
  }
  if (pin != g_pins.end() && pin->second != *k.key) {
    throw Error(refusal(ws, "was replaced while the kernel ran (it is not the key kgo read before the run)"),
                ExitCode::record_error);
  }
  return *k.key;
}

std::string message(int n, const std::string& field, json measurement) {
  if (measurement.contains("stamp") && measurement["stamp"].is_object()) measurement["stamp"].erase("mac");
  return "kgo-stamp-v1\n" + std::to_string(n) + "\n" + field + "\n" + measurement.dump();
}

}  // namespace

void create_stamp_key(const fs::path& dir) {
  fs::create_directories(dir / ".kgo");
  std::string raw(32, '\0');
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(raw.data(), static_cast<std::streamsize>(raw.size()))) {
    throw Error("cannot read /dev/urandom for the workspace's stamp key", ExitCode::internal);
  }
  std::string hex = sha256_hex(raw);
  int fd = ::open(key_path(dir).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;
    throw Error("cannot create " + key_path(dir).string() + ": make .kgo/ writable", ExitCode::not_writable);
  }
  bool ok = ::fchmod(fd, 0600) == 0;  // whatever the umask
  ok = ::write(fd, hex.data(), hex.size()) == static_cast<ssize_t>(hex.size()) && ok;
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok) throw Error("cannot write " + key_path(dir).string(), ExitCode::not_writable);
}

void ensure_stamp_key(const fs::path& workspace) {
  LockedWorkspace guard(workspace);
  create_stamp_key(workspace);
  KeyFile k = read_key(workspace);
  if (!k.key) throw Error(refusal(workspace, k.refused.empty() ? "could not be made" : k.refused), ExitCode::record_error);
  std::lock_guard<std::mutex> lock(g_pins_mutex);
  g_pins[pin_name(workspace)] = *k.key;
}

std::vector<std::string> allowed_ops(const json& record) {
  std::set<std::string> names;
  for (const char* field : {"correctness", "performance"}) {
    const json* ops = find_path(record, std::string(field) + ".stamp.allowed_ops");
    if (!ops || !ops->is_array()) continue;
    for (const auto& op : *ops) {
      if (op.is_string()) names.insert(op.get<std::string>());
    }
  }
  return {names.begin(), names.end()};
}

std::string stamp_mac(const fs::path& workspace, int n, const std::string& field, const json& measurement) {
  return hmac_sha256(usable_key(workspace), message(n, field, measurement));
}

std::optional<std::string> stamp_unverified(const fs::path& workspace, int n, const json& record, const std::string& field) {
  const json* m = find_path(record, field);
  if (!m || !m->is_object()) return std::nullopt;  // absence is stamp_problem's to report
  std::string tool = field == "correctness" ? "kgo check" : "kgo bench";
  KeyFile key = read_key(workspace);
  if (!key.refused.empty()) return field + "'s stamp cannot be verified: " + refusal(workspace, key.refused);
  const json* mac = find_path(*m, "stamp.mac");
  if (!mac || !mac->is_string() || !key.key || hmac_sha256(*key.key, message(n, field, *m)) != mac->get<std::string>()) {
    return field + "'s stamp was not written by kgo in this workspace (its keyed MAC does not verify); run `" +
           tool + "` again";
  }
  if (const json* sources = find_path(*m, "stamp.sources"); sources && sources->is_array()) {
    for (const auto& s : *sources) {
      std::string rel = s.value("path", "");
      auto bytes = try_read_file(workspace / rel);
      if (!bytes || sha256_hex(*bytes) != s.value("sha256", "")) {
        return rel + " changed since its " + field + " was measured; run `" + tool + "` again";
      }
    }
  }
  if (field == "correctness") {
    const json* cases = find_path(*m, "details.cases");
    if (!cases || !cases->is_array() || cases->empty()) {
      return "the correctness PASS names no case; a check that ran nothing proves nothing: run `kgo check`";
    }
  }
  return std::nullopt;
}

}  // namespace kgo::core
