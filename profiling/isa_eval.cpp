#include "profiling/isa_eval.hpp"

#include <regex>

#include "roofline/isa_targets.hpp"

namespace kgo::profiling {

namespace {

// Sum of counts of the mnemonics matching any of `patterns`; fills `seen`.
int count_matching(const std::map<std::string, int>& mnemonics, const std::vector<std::string>& patterns,
                   std::map<std::string, int>& seen) {
  std::vector<std::regex> res;
  for (const auto& p : patterns) res.emplace_back(p, std::regex::ECMAScript);
  int total = 0;
  for (const auto& [m, n] : mnemonics) {
    for (const auto& re : res) {
      if (std::regex_search(m, re)) {
        total += n;
        seen[m] += n;
        break;
      }
    }
  }
  return total;
}

std::optional<int> spill_total(const roofline::IsaTarget& t, const std::vector<ResourceUsage>& resources) {
  if (t.compiler_counters.empty()) return std::nullopt;
  std::optional<int> total;
  for (const auto& r : resources) {
    for (auto v : {r.spill_store_bytes, r.spill_load_bytes, r.spill_count}) {
      if (v) total = total.value_or(0) + *v;
    }
  }
  return total;
}

}  // namespace

std::vector<IsaCheck> evaluate_isa(const std::string& arch, bool matmul_like, const IsaCounts* machine,
                                   const IsaCounts* ptx, const std::vector<ResourceUsage>& resources) {
  std::vector<IsaCheck> out;
  for (const roofline::IsaTarget* t : roofline::targets_for(arch, matmul_like)) {
    IsaCheck c;
    c.id = t->id;
    c.title = t->title;
    c.display = t->display;
    bool present = t->goal == roofline::IsaGoal::present;
    c.goal = present ? "present" : "absent";
    c.target = (present ? ">= 1 " : "0 ") + t->display;
    const std::vector<std::string>& pats = present ? t->wanted : t->forbidden;
    const std::vector<std::string>& ptx_pats = present ? t->wanted_ptx : t->forbidden_ptx;
    if (machine && !pats.empty()) {
      c.basis = machine->format;
      c.current = count_matching(machine->mnemonics, pats, c.matched);
      if (present) c.narrower = count_matching(machine->mnemonics, t->narrower, c.narrower_seen);
    } else if (ptx && !ptx_pats.empty()) {
      c.basis = "ptx";
      c.current = count_matching(ptx->mnemonics, ptx_pats, c.matched);
    }
    if (!present) c.spill_counter = spill_total(*t, resources);
    if (c.current) {
      c.met = present ? *c.current >= 1 : (*c.current == 0 && c.spill_counter.value_or(0) == 0);
    } else if (!present && c.spill_counter) {
      c.basis = "compiler report";
      c.met = *c.spill_counter == 0;
    }
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json to_json(const IsaCheck& c) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"id", c.id},           {"title", c.title},         {"display", c.display},
          {"goal", c.goal},       {"target", c.target},       {"basis", c.basis},
          {"current", opt(c.current)}, {"met", opt(c.met)},   {"narrower", c.narrower},
          {"matched", c.matched}, {"narrower_seen", c.narrower_seen}, {"spill_counter", opt(c.spill_counter)}};
}

nlohmann::json progress_entry(const IsaCheck& c) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json current = opt(c.current);
  if (c.spill_counter.value_or(0) > 0) {  // spills the compiler reports but the ISA count misses
    current = std::to_string(c.current.value_or(0)) + " instructions, compiler reports " +
              std::to_string(*c.spill_counter) + " spill bytes/counts";
  }
  return {{"metric", c.id}, {"target", c.target}, {"current", current}, {"met", opt(c.met)}};
}

}  // namespace kgo::profiling
