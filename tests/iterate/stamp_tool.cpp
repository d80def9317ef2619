// Test helper (never installed): writes measured fields through core::record_measurement, the
// function `kgo check` / `kgo bench` use, so CLI tests can build PASS/FAIL stamps without a GPU.
// Usage: kgo_test_stamp WORKSPACE vN STATUS [LATENCY_US [BANDWIDTH_GBPS [TFLOPS]]]
// The stamp names the sha256 of the workspace's kernel file, or $KGO_STAMP_SHA when set;
// $KGO_STAMP_PERF_JSON (a JSON object) adds fields to the performance value, as `kgo bench` writes them;
// $KGO_STAMP_ALLOWED_OPS ("exp,sum") stamps the ops as `--allow-op` would. Like kgo's verdict paths, it
// makes the stamp key first when the workspace has none (core::ensure_stamp_key).
#include <cstdlib>
#include <iostream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/stamp.hpp"
#include "core/strings.hpp"
#include "core/workspace.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: kgo_test_stamp WORKSPACE vN STATUS [LATENCY_US [BANDWIDTH_GBPS [TFLOPS]]]\n";
    return 3;
  }
  try {
    std::filesystem::path ws = argv[1];
    int n = kgo::core::parse_version(argv[2]);
    const char* forced = std::getenv("KGO_STAMP_SHA");
    std::string sha = forced ? forced : kgo::core::sha256_file(ws / kgo::core::load_config(ws).kernel_file);
    nlohmann::json one_case = {{"shape", {8, 8}}, {"trial", 0}, {"status", argv[3]}};
    nlohmann::json correctness = {{"status", argv[3]}, {"rel_err", 1e-6}, {"max_abs_err", 2e-6}, {"threshold", 1e-4},
                                  {"details", {{"cases", nlohmann::json::array({one_case})}}}};
    if (std::getenv("KGO_STAMP_NO_CASES")) correctness.erase("details");
    kgo::core::StampInputs inputs;
    if (const char* ops = std::getenv("KGO_STAMP_ALLOWED_OPS")) inputs.allowed_ops = kgo::split(ops, ',');
    kgo::core::ensure_stamp_key(ws);
    kgo::core::record_measurement(ws, n, "correctness", correctness, sha, "kgo_test_stamp", inputs);
    if (argc > 4) {
      nlohmann::json perf = {{"latency_us", std::stod(argv[4])}};
      if (argc > 5) perf["bandwidth_gbps"] = std::stod(argv[5]);
      if (argc > 6) perf["tflops"] = std::stod(argv[6]);
      if (const char* extra = std::getenv("KGO_STAMP_PERF_JSON")) perf.update(nlohmann::json::parse(extra));
      kgo::core::record_measurement(ws, n, "performance", perf, sha, "kgo_test_stamp", inputs);
    }
  } catch (const kgo::Error& e) {
    std::cerr << "kgo_test_stamp: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}
