#pragma once
// A report's data written by hand: two cited roofs and three versions (v0 and v2 accepted, v1 rejected), as
// report::collect would read them from a workspace after a short session.
#include "report/data.hpp"

namespace kgo::report::test {

inline ReportData session() {
  ReportData d;
  d.name = "softmax <demo>";
  d.platform = "H200";
  d.op = "softmax";
  d.dtype = "fp32";
  d.environment = {{"gpu", "NVIDIA H200"}, {"driver", "580.159.04"}};
  d.bandwidth = Cited{4.8e12, "4.8 TB/s <- <gpu-wiki>/hopper.md:L110", "<gpu-wiki>/hopper.md:L110"};
  d.compute = Cited{6.7e13, "67 TFLOPS <- <gpu-wiki>/hopper.md:L80", "<gpu-wiki>/hopper.md:L80"};
  d.ridge = 6.7e13 / 4.8e12;
  d.headline_ai = 0.6;
  d.headline_flops = 8.0e7;
  d.headline_bytes = 1.34e8;
  d.headline_shape = "4096x4096";
  auto version = [](int n, const char* gate, const char* decision, std::optional<double> us) {
    VersionRow v;
    v.n = n;
    v.gate = gate;
    v.decision = decision;
    v.latency_us = us;
    if (us) v.achieved_flops = 8.0e7 / (*us * 1e-6);  // bench's figure at the headline size
    v.action = n == 0 ? "" : "row_packing";
    v.change = n == 0 ? "" : "pack rows";
    return v;
  };
  d.versions.push_back(version(0, "PASS", "accepted", 120.0));
  d.versions.push_back(version(1, "FAIL", "rejected: slower than v0", 150.0));
  d.versions.push_back(version(2, "PASS", "accepted", 60.0));
  d.versions[0].speedup_vs_v0 = 1.0;
  d.versions[1].speedup_vs_v0 = 0.8;
  d.versions[2].speedup_vs_v0 = 2.0;
  d.versions[2].sizes = {SizeRow{"1024x1024", 9.5, 1.4, 1.1, std::nullopt},
                         SizeRow{"4096x4096", 60.0, 2.1, std::nullopt, std::nullopt}};
  d.best = 2;
  d.stopping_reason = "not stopped: no budget was given";
  return d;
}

}  // namespace kgo::report::test
