#include "harness/record.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/resources.hpp"
#include "harness/fields.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;

RecordChoice current_record(const fs::path& workspace) {
  RecordChoice c;
  std::optional<int> latest = core::latest_version(workspace);
  if (!latest) {
    c.version = core::create_record(workspace, 0);
    c.created = true;
    return c;
  }
  nlohmann::json rec = core::read_record(workspace, *latest, true);
  std::string v = "v" + std::to_string(*latest);
  if (rec.value("masked", false)) {
    c.why_not = v + " is masked; run `kgo memory create` to start a new iteration record";
    return c;
  }
  std::string gate = core::gate_result(rec);
  bool committed = rec.contains("git_commit") && rec["git_commit"].is_string();
  if (gate != "PENDING" || committed) {
    c.why_not = v + " is already decided (quality gate " + gate +
                "); run `kgo memory create` to start the next iteration record, then check again";
    return c;
  }
  c.version = *latest;
  return c;
}

void write_environment(const fs::path& workspace, int version, const nlohmann::json& result) {
  const nlohmann::json& env = jobj(result, "environment");
  auto s = [&](const char* key) {
    std::string v = jstr(env, key);
    return v.empty() ? nlohmann::json() : nlohmann::json(v);
  };
  nlohmann::json out = {{"gpu", s("gpu")},     {"driver", s("driver")}, {"clocks", nullptr},
                        {"torch", s("torch")}, {"triton", s("triton")}, {"cuda", s("cuda")},
                        {"python", s("python")}, {"kgo_version", core::kgo_version()}};
  const nlohmann::json& before = jobj(jobj(result, "clocks"), "before");
  if (!before.empty()) {
    nlohmann::json clocks = nlohmann::json::object();
    auto num = [&](const char* from, const char* to) {
      if (auto v = jnum(before, from)) clocks[to] = *v;
    };
    num("sm_mhz", "sm_mhz");
    num("mem_mhz", "mem_mhz");
    num("sm_max_mhz", "max_sm_mhz");
    nlohmann::json events = nlohmann::json::array();
    for (const auto& n : jobj(before, "throttle_names")) {
      if (n.is_string()) events.push_back(n);
    }
    clocks["clock_events"] = events;
    out["clocks"] = clocks;
  }
  nlohmann::json rec = core::read_record(workspace, version, true);
  rec["environment"] = out;
  core::write_record(workspace, version, rec);
}

void verify_harness_hash(const fs::path& kernel, const std::string& kgo_sha, const nlohmann::json& result) {
  std::string harness_sha = jstr(result, "kernel_sha256");
  if (harness_sha.empty() && jstr(result, "verdict") != "PASS") return;
  if (harness_sha != kgo_sha) {
    throw Error("refusing the result: the harness measured kernel content with sha256 " +
                    (harness_sha.empty() ? std::string("(none)") : harness_sha.substr(0, 12)) +
                    " but kgo hashed " + kgo_sha.substr(0, 12) + " from " + kernel.string() +
                    "; the file changed during the run or the harness read another file. Run the "
                    "command again without editing the kernel meanwhile",
                ExitCode::record_error);
  }
}

void verify_kernel_unchanged(const fs::path& kernel, const std::string& kgo_sha) {
  if (core::sha256_file(kernel) != kgo_sha) {
    throw Error("refusing to record: " + kernel.string() +
                    " was modified while it was being measured; run the command again",
                ExitCode::record_error);
  }
}

nlohmann::json stamp_sources(const std::filesystem::path& workspace, const nlohmann::json& result) {
  nlohmann::json out = nlohmann::json::array();
  std::error_code ec;
  fs::path root = fs::weakly_canonical(workspace, ec);
  for (const auto& s : result.value("sources", nlohmann::json::array())) {
    if (!s.is_object() || !s.contains("path") || !s["path"].is_string()) continue;
    fs::path rel = fs::path(s["path"].get<std::string>()).lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") continue;
    out.push_back({{"path", rel.generic_string()}, {"sha256", s.value("sha256", "")}});
  }
  return out;
}

}  // namespace kgo::harness
