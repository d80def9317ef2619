#pragma once
// What `kgo report` reads from a workspace: the environment, the cited roofs (roofline.json), and
// one row per iteration record with its stamped performance, its profile (profiles/v<N>/) and its
// decision. Absent figures stay nullopt and carry the reason they are absent.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kgo::report {

namespace fs = std::filesystem;

struct Cited {
  double si = 0;          // bytes/s or FLOP/s
  std::string text;       // "4.8 TB/s <- <gpu-wiki>/path:L12" (roofline.json's "cited")
  std::string citation;   // "<gpu-wiki>/path:line"
};

struct SizeRow {
  std::string shape;
  std::optional<double> latency_us, vs_eager, vs_compile, pct_of_target;
};

struct VersionRow {
  int n = 0;
  std::string gate;                  // PASS, FAIL, TIMEOUT_FAIL, PENDING
  std::string decision;              // "accepted: ..." / "rejected: <reason>" / "pending"
  std::string action, change;
  bool masked = false;
  std::optional<double> latency_us, speedup_vs_v0, pct_of_target;
  std::optional<double> bandwidth_pct, compute_pct;          // bench: % of the cited peaks
  std::optional<double> achieved_flops, achieved_bytes_per_s; // bench, headline size
  std::optional<double> ncu_memory_pct, ncu_sm_pct, occupancy_pct, registers;
  std::vector<std::pair<std::string, double>> stalls;        // top warp stalls, largest first
  std::string stall_metric;                                  // which ncu family they came from
  std::optional<double> measured_ai;                          // FLOPs / DRAM bytes from ncu
  std::string bottleneck;                                    // kgo profile's verdict
  std::string profile_note;                                  // why there is no profile, or ""
  std::string prediction;                                    // predicted vs measured, or ""
  std::vector<std::string> allowed_ops;                      // --allow-op NAMEs its verdict relied on
  std::vector<SizeRow> sizes;
};

struct ReportData {
  std::string name, platform, arch, op, dtype, framework;
  std::vector<std::pair<std::string, std::string>> environment;  // label, value (measured)
  std::optional<Cited> bandwidth, compute;
  std::optional<double> ridge, headline_ai, headline_flops, headline_bytes;
  std::string headline_shape;
  std::vector<VersionRow> versions;
  std::optional<int> best;           // index into versions
  std::string stopping_reason;
  std::string roofline_note;         // why there is no roofline, or ""
};

struct ReportOptions {
  std::optional<int> budget;         // iteration budget (default: kgo.json max_iterations); reaching it stops
};

ReportData collect(const fs::path& workspace, const ReportOptions& opts);

}  // namespace kgo::report
