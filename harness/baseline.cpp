#include "harness/baseline.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"
#include "core/strings.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "harness/fields.hpp"
#include "harness/utilization.hpp"
#include "iterate/iteration_log.hpp"
#include "iterate/records.hpp"
#include "specs/registry.hpp"

namespace kgo::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* k_subject = "V0: baseline kernel";

// Baseline is Stage 1: only before any iteration, and only while v0 is undecided.
void require_stage_one(const fs::path& ws) {
  for (int v : core::record_versions(ws)) {
    if (v > 0) {
      throw Error("kgo baseline is Stage 1, but this workspace already has iteration record v" + std::to_string(v) +
                      "; the baseline is v0 (see `kgo memory summary`)",
                  ExitCode::record_error);
    }
    std::string gate = core::gate_result(core::read_record(ws, 0, true));
    if (gate != "PENDING") {
      throw Error("v0 is already decided (quality gate " + gate + "); the baseline was committed before — see "
                  "`git log` and baseline_report.md",
                  ExitCode::record_error);
    }
  }
}

std::vector<std::string> wiki_paths(const fs::path& ws) {
  std::vector<std::string> out;
  specs::Registry reg = specs::load_registry(ws);
  for (const auto& e : reg.specs) {
    if (e.unknown) {
      out.push_back(e.metric + ": UNKNOWN (gpu-wiki not found)");
    } else {
      out.push_back(fmt::format("{}: {} {} <- {}", e.metric, e.value, e.unit, e.citation));
    }
  }
  return out;
}

void add_file(std::vector<core::TxnFile>& files, const fs::path& ws, const std::string& rel) {
  if (auto text = core::try_read_file(ws / rel)) files.push_back({rel, *text, false});
}

void commit_baseline(const fs::path& ws, const core::WorkspaceConfig& cfg, BaselineReport& r,
                     const std::string& report_md) {
  json rec = core::read_record(ws, 0);
  std::string sha = core::sha256_file(ws / cfg.kernel_file);
  for (const char* field : {"correctness", "performance"}) {
    if (std::string(field) == "performance" && !rec["performance"].is_object()) continue;
    if (auto why = core::stamp_problem(rec, field, sha)) {
      r.refused = "quality gate: " + *why;
      return;
    }
  }
  rec["quality_gate"] = {{"result", "PASS"}, {"failure_reason", nullptr},
                         {"decided_at", core::record_time_now()}, {"kernel_sha256", sha}};
  if (rec["optimization"].value("action_description", "").empty()) {
    rec["optimization"]["action_description"] = "baseline kernel, as given to kgo init";
  }
  specs::Registry reg = specs::load_registry(ws);
  for (const auto& e : reg.specs) {
    if (e.unknown) continue;
    // The citation sits on the number's own line, the form kgo audit verifies.
    rec["references"].push_back({{"source_type", "gpu-wiki"},
                                 {"path_or_url", e.citation},
                                 {"description", fmt::format("{} = {} {} <- {}", e.metric, e.value, e.unit, e.citation)}});
  }
  core::validate_record(rec, 0);
  std::vector<iterate::Record> records = iterate::load_records(ws);
  for (auto& rr : records) {
    if (rr.n == 0) rr.j = rec;
  }
  std::string readme = iterate::readme_with_log(core::try_read_file(ws / "README.md").value_or(""), records);

  std::vector<core::TxnFile> files;
  add_file(files, ws, cfg.kernel_file);
  if (cfg.reference) add_file(files, ws, *cfg.reference);
  if (cfg.problem) add_file(files, ws, *cfg.problem);
  for (const char* rel : {"benchmark.md", "env_check.md", "specs.json", "roofline.json"}) add_file(files, ws, rel);
  files.push_back({"baseline_report.md", report_md, true});
  files.push_back({"memory/v0.json", core::dump_record(rec), true});
  files.push_back({"README.md", readme, true});
  std::string body = fmt::format("\n\nkernel: {} sha256 {}\ncorrectness: {} ({})\nperformance: {}\n", cfg.kernel_file,
                                 sha, r.check.verdict, r.check.message,
                                 r.bench ? fmt::format("{} us (mean of the per-size medians)",
                                                       jnum(r.bench->result, "final_median_us").value_or(0))
                                         : "not measured: " + r.bench_skipped);
  core::TxnCommit iteration{k_subject + body, files, {}};
  core::TxnCommit bookkeeping{"V0: record the id of its iteration commit in memory/v0.json", {}, {"memory/v0.json"}};
  core::TxnResult res = core::run_transaction(ws, "baseline v0", {iteration, bookkeeping});
  if (res.outcome != "completed") throw Error("baseline did not complete: " + res.outcome, ExitCode::git_error);
  r.committed = true;
  r.commit = res.commits.at(0);
  r.record_commit = res.commits.at(1);
}

// "determinism (two runs ...); delegation (...)": the checks the harness applied, as it describes them.
std::string checks_text(const nlohmann::json& result) {
  std::vector<std::string> parts;
  for (const auto& c : jobj(result, "checks")) {
    if (jbool(c, "checked").value_or(false)) parts.push_back(jstr(c, "name") + " (" + jstr(c, "description") + ")");
  }
  return parts.empty() ? "no further checks ran" : "checks: " + join(parts, "; ");
}

}  // namespace

BaselineReport run_baseline(const fs::path& ws, const BaselineOptions& o) {
  core::LockedWorkspace guard(ws);
  core::WorkspaceConfig cfg = core::load_config(ws);
  Target target = verdict_target(ws, cfg, o.target);
  require_stage_one(ws);
  if (target.device == "cpu" && o.target.device == "auto") {
    throw Error("kgo baseline measures the kernel on a GPU and none is visible (the NVIDIA driver lists none, "
                "or CUDA_VISIBLE_DEVICES hides them); run it on the GPU machine, or pass --device cpu to commit a "
                "correctness-only baseline checked with the "
                "Triton interpreter",
                ExitCode::no_gpu);
  }
  BaselineReport r;
  r.report_path = ws / "baseline_report.md";
  r.wiki_paths = wiki_paths(ws);
  r.check = run_check(target, o.check);
  record_check(ws, r.check);
  if (!r.check.passed()) {
    r.refused = "correctness " + r.check.verdict + ": " + r.check.message;
  } else if (target.device != "cuda") {
    r.bench_skipped = "no GPU (--device cpu): performance is measured only on a GPU";
  } else {
    Target bt = target;
    bt.shapes.clear();
    for (const auto& s : o.sizes) bt.shapes.push_back(core::parse_shape(s));
    if (bt.shapes.empty()) bt.shapes = default_sizes(cfg.shapes);
    BenchReport b = run_workspace_bench(ws, bt, o.bench);
    b.utilization = utilization_for(ws, b);
    b.report_path = ws / "benchmark.md";
    core::write_file_atomic(b.report_path, render_benchmark_md(b, cfg.name + " (" + cfg.platform + ")"));
    record_bench(ws, b);
    if (!b.passed()) r.refused = "bench " + b.verdict + ": " + b.message;
    else if (!b.recorded_version) r.refused = "performance was not recorded: " + b.record_note;
    r.bench = std::move(b);
  }
  if (r.refused.empty()) {
    commit_baseline(ws, cfg, r, render_baseline_md(ws, r));
  }
  if (!r.committed) core::write_file_atomic(r.report_path, render_baseline_md(ws, r));
  return r;
}

std::string render_baseline_md(const fs::path& ws, const BaselineReport& r) {
  core::WorkspaceConfig cfg = core::load_config(ws);
  const CheckReport& c = r.check;
  const json& env = jobj(c.result, "environment");
  std::string md = "# Baseline Report: " + cfg.name + "\n\n";
  md += r.refused.empty() ? std::string("- Status: PASS; committed as `") + k_subject + "` (v0)\n"
                          : "- Status: NOT COMMITTED — " + r.refused + "\n";
  md += "- Date: " + core::utc_now_iso() + "\n";
  md += "\n## Kernel\n\n";
  md += fmt::format("- File: {} (sha256 {})\n- Framework: {}; contract: {}; op: {}; entry: {}\n", cfg.kernel_file,
                    c.kernel_sha256, cfg.framework, jstr(c.result, "contract", c.target.contract),
                    jstr(c.result, "op", c.target.op.value_or("-")), jstr(c.result, "entry", "-"));
  md += "\n## Test\n\n";
  md += fmt::format(
      "- `kgo check` (tools/kgo_harness check): {} trial(s) per shape with fresh random inputs; output "
      "buffers NaN-filled before every run; {}; {}; per-case timeout {} s, total {} s\n",
      c.settings.trials, c.settings.edge_shapes ? "edge shapes (1, 17, 4097 on the last axis) added" : "no edge shapes",
      checks_text(c.result), c.settings.case_timeout_s, c.settings.total_timeout_s);
  if (r.bench) md += "- `kgo bench`: see Performance below and benchmark.md\n";
  md += "\n## Reference\n\n";
  md += fmt::format("- {} (reference computed in {})\n",
                    cfg.reference ? *cfg.reference : "the op table's torch reference",
                    jstr(c.result, "reference_dtype", "?"));
  md += "\n## Wiki paths used\n\n";
  md += "- gpu-wiki: " + cfg.wiki_path + (cfg.wiki_embedded ? " (embedded)" : "") + "\n";
  if (r.wiki_paths.empty()) md += "- no registered specs (run `kgo spec auto`)\n";
  for (const auto& p : r.wiki_paths) md += "- " + p + "\n";
  md += "\n## Configuration\n\n| Item | Value |\n|---|---|\n";
  md += fmt::format("| Platform | {} ({}) |\n| dtype | {} |\n| Shapes | {} |\n| Device | {} ({}) |\n", cfg.platform,
                    cfg.arch, c.target.torch_dtype, shapes_text(c.target.shapes), c.target.device,
                    jstr(env, "gpu", "no GPU"));
  md += fmt::format("| Software | Python {}, torch {}, triton {}, CUDA {}, driver {} |\n", jstr(env, "python", "?"),
                    jstr(env, "torch", "?"), jstr(env, "triton", "?"), jstr(env, "cuda", "-"), jstr(env, "driver", "-"));
  const json& tol = jobj(c.result, "tolerance");
  md += fmt::format("| Tolerance | atol {} rtol {} max rel_err {} ({}) |\n", jnum(tol, "atol").value_or(0),
                    jnum(tol, "rtol").value_or(0), jnum(tol, "max_rel_err").value_or(0), jstr(tol, "source", "?"));
  md += "\n## Correctness\n\n";
  md += "- Verdict: " + c.verdict + " — " + c.message + "\n";
  if (auto e = jnum(c.result, "max_rel_err")) md += fmt::format("- Max rel_err: {:.3g}\n", *e);
  if (auto e = max_abs_err(c.result)) md += fmt::format("- Max abs err: {:.3g}\n", *e);
  std::string table = render_cases_table(c.result);
  if (!table.empty()) md += "\n" + table;
  md += "\n## Performance\n\n";
  if (r.bench) {
    md += render_sizes_table(*r.bench);
    md += fmt::format("\n- Final (the seed's figure: mean of the per-size means): {:.2f} us\n",
                      jnum(r.bench->result, "final_mean_us").value_or(0));
    md += fmt::format("- Geometric mean speedup vs eager {:.2f}x, vs torch.compile {:.2f}x\n",
                      jnum(r.bench->result, "geomean_speedup_vs_eager").value_or(0),
                      jnum(r.bench->result, "geomean_speedup_vs_compile").value_or(0));
    md += "\n## Utilization vs roofline\n\n";
    md += r.bench->utilization.available ? "Bandwidth peak " + r.bench->utilization.bandwidth_cited +
                                               "; compute peak " + r.bench->utilization.compute_cited +
                                               "; per-size % of target in the table above.\n"
                                         : "Not computed: " + r.bench->utilization.why_not + "\n";
  } else {
    md += "Not measured: " + (r.bench_skipped.empty() ? r.refused : r.bench_skipped) + "\n";
  }
  return md;
}

std::string render_baseline_text(const BaselineReport& r) {
  std::string text = "kgo baseline: correctness " + r.check.verdict + " — " + r.check.message + "\n";
  if (r.bench) {
    text += fmt::format("  bench {}: mean of per-size medians {:.2f} us, final (seed) {:.2f} us\n", r.bench->verdict,
                        jnum(r.bench->result, "final_median_us").value_or(0),
                        jnum(r.bench->result, "final_mean_us").value_or(0));
    text += r.bench->utilization.available ? "  utilization: see benchmark.md\n"
                                           : "  utilization: " + r.bench->utilization.why_not + "\n";
  } else if (!r.bench_skipped.empty()) {
    text += "  bench skipped: " + r.bench_skipped + "\n";
  }
  text += "  wrote " + r.report_path.string() + "\n";
  if (r.committed) {
    text += fmt::format("committed {} as {} (v0 names it in {})\n", k_subject, r.commit.substr(0, 12),
                        r.record_commit.substr(0, 12));
  } else {
    text += "NOT committed: " + r.refused + "\n";
  }
  return text;
}

json to_json(const BaselineReport& r, bool detail) {
  json j = {{"committed", r.committed},
          {"commit", r.committed ? json(r.commit) : json()},
          {"record_commit", r.committed ? json(r.record_commit) : json()},
          {"refused", r.refused},
          {"report", r.report_path.string()},
          {"wiki_paths", r.wiki_paths},
          {"bench_skipped", r.bench_skipped},
          {"check", to_json(r.check, detail)},
          {"bench", r.bench ? to_json(*r.bench, detail) : json()}};
  if (!detail) j["detail"] = "--detail adds every check case and the check's and bench's harness results";
  return j;
}

}  // namespace kgo::harness
