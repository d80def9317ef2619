// Renderers of kgo asm: --json, asm_summary.md and the text report.
#include "profiling/asm.hpp"

#include <fmt/format.h>

#include "core/memory.hpp"

namespace kgo::profiling {

nlohmann::json to_json(const AsmResult& r) {
  nlohmann::json kernels = nlohmann::json::array(), res = nlohmann::json::array(), checks = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json j = {{"name", k.name}};
    if (k.sass) j["sass"] = to_json(*k.sass);
    if (k.ptx) j["ptx"] = to_json(*k.ptx);
    if (k.amdgcn) j["amdgcn"] = to_json(*k.amdgcn);
    kernels.push_back(j);
  }
  for (const auto& x : r.resources) res.push_back(to_json(x));
  for (const auto& c : r.checks) checks.push_back(to_json(c));
  return {{"workspace", r.workspace.string()}, {"version", core::version_name(r.version)},
          {"source", r.source},                {"arch", r.arch},
          {"matmul_like", r.matmul_like},      {"matmul_why", r.matmul_why},
          {"kernels", kernels},                {"resources", res},
          {"checks", checks},                  {"notes", r.notes},
          {"files", r.files},                  {"record_updated", r.record_note.empty()},
          {"record_note", r.record_note}};
}

std::string render_markdown(const AsmResult& r) {
  auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("n/a"); };
  std::string s = fmt::format("# ISA summary ({}, {})\n\nSource: {}. Architecture: {}. Matrix kernel: {} ({}).\n",
                              core::version_name(r.version), r.workspace.filename().string(), r.source, r.arch,
                              r.matmul_like ? "yes" : "no", r.matmul_why);
  s += "\n## ISA optimization targets\n\n| Target | Goal | Basis | Current | Met | Matched |\n|---|---|---|---|---|---|\n";
  for (const auto& c : r.checks) {
    std::string matched;
    for (const auto& [m, n] : c.matched) matched += fmt::format("{}{} x{}", matched.empty() ? "" : ", ", m, n);
    if (c.narrower) matched += fmt::format("{}narrower: {}", matched.empty() ? "" : "; ", c.narrower);
    if (c.spill_counter) matched += fmt::format("{}compiler spill counters: {}", matched.empty() ? "" : "; ", *c.spill_counter);
    s += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.title, c.target, c.basis.empty() ? "n/a" : c.basis,
                     opt(c.current), c.met ? (*c.met ? "yes" : "no") : "n/a", matched.empty() ? "-" : matched);
  }
  s += "\n## Compiler resources\n\n| Kernel | Registers | Shared bytes | Stack bytes | Spill st/ld bytes | Local bytes | Source |\n|---|---|---|---|---|---|---|\n";
  for (const auto& x : r.resources) {
    s += fmt::format("| {} | {} | {} | {} | {}/{} | {} | {} |\n", x.kernel, opt(x.registers), opt(x.shared_bytes),
                     opt(x.stack_bytes), opt(x.spill_store_bytes), opt(x.spill_load_bytes), opt(x.local_bytes), x.source);
  }
  s += "\n## Instruction counts\n\n| Kernel | Format | Instructions | Categories |\n|---|---|---|---|\n";
  for (const auto& k : r.kernels) {
    for (const auto* c : {k.sass ? &*k.sass : nullptr, k.ptx ? &*k.ptx : nullptr, k.amdgcn ? &*k.amdgcn : nullptr}) {
      if (!c) continue;
      std::string cats;
      for (const auto& [name, n] : c->counts) cats += fmt::format("{}{} {}", cats.empty() ? "" : ", ", name, n);
      s += fmt::format("| {} | {} | {} | {} |\n", k.name, c->format, c->instructions, cats.empty() ? "-" : cats);
    }
  }
  for (const auto& n : r.notes) s += "\nNote: " + n + "\n";
  return s;
}

std::string render_text(const AsmResult& r) {
  std::string s = fmt::format("kgo asm {}: {} kernel(s) from {}; {} targets ({})\n", core::version_name(r.version),
                              r.kernels.size(), r.source, r.arch, r.matmul_like ? "matrix kernel" : "no matrix targets");
  for (const auto& c : r.checks) {
    s += fmt::format("  {:<4} {:<40} current {:<6} target {}\n",
                     c.met ? (*c.met ? "MET" : "MISS") : "n/a", c.title,
                     c.current ? std::to_string(*c.current) : std::string("n/a"), c.target);
  }
  for (const auto& x : r.resources) {
    s += fmt::format("  {}: {} registers, {} B shared, spills {}/{} B ({})\n", x.kernel,
                     x.registers ? std::to_string(*x.registers) : "?", x.shared_bytes ? std::to_string(*x.shared_bytes) : "?",
                     x.spill_store_bytes ? std::to_string(*x.spill_store_bytes) : "?",
                     x.spill_load_bytes ? std::to_string(*x.spill_load_bytes) : "?", x.source);
  }
  for (const auto& n : r.notes) s += "  note: " + n + "\n";
  s += "  record " + core::version_name(r.version) + ": " +
       (r.record_note.empty() ? std::string("isa_metric_progress updated") : r.record_note) + "\n";
  return s;
}

}  // namespace kgo::profiling
