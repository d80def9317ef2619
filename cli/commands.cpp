// Every kgo command, in help order. One line per command; each lives in cli/<name>.cpp.
#include "cli/commands.hpp"

namespace kgo::cli {

void register_experience(CLI::App& app, Context& ctx);  // cli/experience.cpp
void register_report(CLI::App& app, Context& ctx);      // cli/report.cpp
void register_sweep(CLI::App& app, Context& ctx);  // cli/sweep.cpp
void register_skill(CLI::App& app, Context& ctx);  // cli/skill.cpp
void register_guide(CLI::App& app, Context& ctx);  // cli/guide.cpp

void register_all(CLI::App& app, Context& ctx) {
  register_init(app, ctx);    // create a workspace
  register_status(app, ctx);  // summarize a workspace
  register_next(app, ctx);    // the next step of the workflow
  register_env(app, ctx);     // check GPU, driver, toolchain
  register_check(app, ctx);   // correctness gate (harness)
  register_bench(app, ctx);   // timing vs PyTorch (harness)
  register_baseline(app, ctx);  // Stage 1: check + bench + V0 commit
  register_ops(app, ctx);       // seed multi-op variants workflow
  register_harness(app, ctx);   // the warm harness: start, stop, status
  register_wiki(app, ctx);    // read the gpu-wiki: products, lookup, check, index
  register_spec(app, ctx);    // cited hardware specs: add, auto, unknown, list, remove
  register_audit(app, ctx);   // re-verify citations, find uncited hardware numbers
  register_memory(app, ctx);   // iteration records: create, read, update, mask, summary, diff
  register_plan(app, ctx);     // iteration plans: new, check
  register_iterate(app, ctx);  // accept / reject an iteration (commits), verify
  register_experience(app, ctx);  // experience across workspaces: add, recommend, search, stats
  register_report(app, ctx);      // final report, benchmark table, SVG charts (and --html)
  register_propose(app, ctx);  // check + bench + compare, then accept or reject
  register_restart(app, ctx);  // partial restart: mask about half of the records
  register_roofline(app, ctx);  // roofline targets from registered specs (Stop Conditions)
  register_profile(app, ctx);   // Nsight Compute profile + bottleneck verdict
  register_asm(app, ctx);       // SASS/PTX instruction counts vs ISA targets
  register_ceiling(app, ctx);   // measured GPU maxima (optionally into the wiki)
  register_sweep(app, ctx);     // sweeps: many jobs on every local GPU or a Slurm cluster
  register_mcp(app, ctx);       // MCP server on stdio for agents
  register_skill(app, ctx);     // the skill, MCP entry and hooks in Claude Code / Codex
  register_guide(app, ctx);     // reference for agents: op, kernel template, Triton syntax
}

}  // namespace kgo::cli
