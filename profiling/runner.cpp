#include "profiling/runner.hpp"

#include <unistd.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/harness_protocol.hpp"
#include "core/memory.hpp"
#include "core/txn.hpp"
#include "harness/client.hpp"
#include "harness/python.hpp"
#include "roofline/catalog.hpp"

namespace kgo::profiling {

namespace fs = std::filesystem;

HarnessRun run_once(const harness::Target& target, const std::vector<long long>& shape,
                    const std::vector<std::string>& wrapper, const std::map<std::string, std::string>& env,
                    const fs::path& scratch, int warmup, int timeout_s) {
  nlohmann::json req = harness::target_request(target);
  req["protocol"] = protocol::kVersion;
  req["command"] = "run-once";
  req["tools"] = harness::cuda_tools();
  req["shapes"] = nlohmann::json::array({shape});
  req["run_once"] = {{"warmup", warmup}, {"nvtx", "kgo_run"}};
  req["case_timeout_s"] = timeout_s;
  req["total_timeout_s"] = timeout_s;
  fs::path file = scratch / "run_once_request.json";
  core::write_file_atomic(file, req.dump(2));
  HarnessRun run;
  run.argv = wrapper;
  for (const std::string& a : {target.python.resolved.string(), std::string("-I"), harness::harness_entry().string(),
                               std::string("run-once"), std::string("--request"), file.string()}) {
    run.argv.push_back(a);
  }
  core::ProcessOptions o;
  o.env = env;
  o.timeout = std::chrono::seconds(timeout_s + 60);
  run.process = core::run_process(run.argv, o);
  size_t brace = run.process.out.find('{');
  if (brace != std::string::npos) {
    run.result = nlohmann::json::parse(run.process.out.substr(brace), nullptr, false);
    if (run.result.is_discarded()) run.result = nullptr;
  }
  return run;
}

int choose_version(const fs::path& workspace, const std::optional<std::string>& version) {
  if (version) {
    int n = core::parse_version(*version);
    if (fs::exists(core::record_path(workspace, n))) {
      nlohmann::json rec = core::read_record(workspace, n, true);
      if (rec.value("masked", false)) {
        throw Error("record " + *version + " is masked; unmask it (kgo memory unmask " + *version +
                        ") or profile another version",
                    ExitCode::record_error);
      }
    }
    return n;
  }
  return core::latest_version(workspace).value_or(0);
}

std::string update_record_field(const fs::path& workspace, int n, const std::string& field,
                                const nlohmann::json& value) {
  core::LockedWorkspace lock(workspace);
  if (!fs::exists(core::record_path(workspace, n))) {
    return "no record " + core::version_name(n) + " yet: the evidence stays in profiles/" +
           core::version_name(n) + "/ only";
  }
  nlohmann::json rec = core::read_record(workspace, n, true);
  if (rec.value("masked", false)) return "record " + core::version_name(n) + " is masked: not updated";
  if (core::gate_result(rec) != "PENDING") {
    return "record " + core::version_name(n) + " is decided (final): the evidence stays in profiles/" +
           core::version_name(n) + "/ only";
  }
  rec[field] = value;
  try {
    core::write_record(workspace, n, rec);
  } catch (const Error& e) {
    return std::string("record not updated: ") + e.what();
  }
  return "";
}

std::vector<long long> first_shape(const harness::Target& target) {
  if (!target.shapes.empty()) return target.shapes.front();
  throw Error("no shape to run: pass --shape or give the workspace one (kgo init --shape)", ExitCode::usage);
}

bool matmul_kernel(const fs::path& workspace, const fs::path& kernel, std::optional<bool> forced,
                   std::string* why) {
  if (forced) {
    *why = *forced ? "--matmul" : "--no-matmul";
    return *forced;
  }
  if (auto op = harness::workspace_op(workspace)) {
    try {
      const auto& info = roofline::find_op(*op);
      *why = "op " + info.name + (info.matmul_like ? " is matmul-like" : " is not matmul-like");
      return info.matmul_like;
    } catch (const Error&) {
    }
  }
  std::string src = core::try_read_file(kernel).value_or("");
  for (const char* marker : {"tl.dot", "wgmma", "mma.sync", "wmma::", "cublas"}) {
    if (src.find(marker) != std::string::npos) {
      *why = kernel.filename().string() + " uses " + marker;
      return true;
    }
  }
  *why = kernel.filename().string() + " has no matrix-product call (tl.dot, mma, wgmma)";
  return false;
}

}  // namespace kgo::profiling
