#include "iterate/plan.hpp"

#include <algorithm>
#include <map>
#include <regex>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/memory.hpp"
#include "core/resources.hpp"
#include "core/strings.hpp"
#include "core/txn.hpp"
#include "core/workspace.hpp"
#include "iterate/hypothesis.hpp"
#include "iterate/records.hpp"

namespace kgo::iterate {

const std::vector<std::string>& plan_sections() {
  static const std::vector<std::string> s = {"Input Evidence", "Search Log", "This Iteration's Action",
                                             "Hypothesis", "Expected Impact", "Risks and Rollback"};
  return s;
}

std::string plan_relpath(int n) { return "plans/v" + std::to_string(n) + "_plan.md"; }
fs::path plan_path(const fs::path& workspace, int n) { return workspace / plan_relpath(n); }

namespace {

std::string strip_comments(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("<!--", pos);
    if (open == std::string::npos) return out + text.substr(pos);
    out += text.substr(pos, open - pos);
    size_t close = text.find("-->", open + 4);
    if (close == std::string::npos) return out;
    pos = close + 3;
  }
}

// Whitespace and the markdown emphasis (`code`, **bold**) around a plan's table cell.
constexpr std::string_view kCellNoise = " \t\r`*";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    out.push_back(text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos));
    if (eol == std::string::npos) break;
    pos = eol + 1;
  }
  return out;
}

std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string t = trim(line, kCellNoise);
  if (t.empty() || t[0] != '|') return cells;
  size_t pos = 1;
  while (pos < t.size()) {
    size_t bar = t.find('|', pos);
    if (bar == std::string::npos) bar = t.size();
    cells.push_back(trim(t.substr(pos, bar - pos), kCellNoise));
    pos = bar + 1;
  }
  return cells;
}

bool is_separator_row(const std::vector<std::string>& cells) {
  for (const auto& c : cells) {
    if (c.find_first_not_of(":- ") != std::string::npos) return false;
  }
  return !cells.empty();
}

// Lines that carry content: no blanks, no table scaffolding, no unfilled "- key:" placeholders.
std::vector<std::string> content_lines(const std::string& body) {
  static const std::regex placeholder(R"(^\s*[-*]?\s*[\w' ]+:\s*$)");
  std::vector<std::string> out;
  for (const auto& line : lines_of(strip_comments(body))) {
    if (trim(line, kCellNoise).empty() || std::regex_match(line, placeholder)) continue;
    auto cells = table_cells(line);
    if (!cells.empty()) {
      if (is_separator_row(cells) || (cells.size() > 1 && cells[0] == "Source")) continue;
      bool filled = false;
      for (size_t i = 1; i < cells.size(); ++i) filled = filled || !cells[i].empty();
      if (!filled) continue;
    }
    out.push_back(line);
  }
  return out;
}

int source_rank(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  s.erase(std::remove(s.begin(), s.end(), '['), s.end());
  s.erase(std::remove(s.begin(), s.end(), ']'), s.end());
  if (s == "gpu-wiki") return 0;
  if (s == "ref-project" || s == "reference-project" || s == "reference project") return 1;
  if (s == "public-web" || s == "web") return 2;
  return -1;
}

void check_search_log(const std::string& body, std::vector<std::string>& problems) {
  static const char* names[] = {"gpu-wiki", "ref-project", "public-web"};
  int last = 0;
  bool wiki = false;
  for (const auto& line : content_lines(body)) {
    auto cells = table_cells(line);
    if (cells.empty()) continue;
    int rank = source_rank(cells[0]);
    if (rank < 0) {
      problems.push_back("Search Log: unknown source '" + cells[0] + "' (use [gpu-wiki], [ref-project] or [public-web])");
      continue;
    }
    if (rank < last) {
      problems.push_back(std::string("Search Log: a ") + names[rank] + " search comes after a " + names[last] +
                         " search; search the gpu-wiki first, then the reference project, then the web");
    }
    last = std::max(last, rank);
    wiki = wiki || rank == 0;
  }
  if (!wiki) problems.push_back("Search Log: no gpu-wiki search recorded; the gpu-wiki is searched first");
}

void check_action(const std::string& body, PlanCheck& out) {
  static const std::regex line_re(R"(^\s*[-*]?\s*\**\s*action[_ ]categor(y|ies)\s*\**\s*:\s*(.*)$)", std::regex::icase);
  static const std::regex name_re(R"(^[a-z][a-z0-9_]*$)");
  static const std::regex many_re(R"([,;/+&]|\s(and|plus|then)\s)", std::regex::icase);
  std::vector<std::string> named;
  for (const auto& line : lines_of(strip_comments(body))) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    std::string value = trim(m[2].str(), kCellNoise);
    if (!value.empty()) named.push_back(value);
  }
  if (named.empty()) {
    out.problems.push_back("This Iteration's Action names no action category; write one line `- action_category: <name>`");
    return;
  }
  if (named.size() > 1) {
    std::string list;
    for (const auto& n : named) list += (list.empty() ? "" : ", ") + n;
    out.problems.push_back("This Iteration's Action names " + std::to_string(named.size()) + " action categories (" + list +
                           "); one change per iteration: keep one, plan the others as later iterations");
    return;
  }
  const std::string& v = named.front();
  if (std::regex_search(v, many_re) || v.find(' ') != std::string::npos) {
    out.problems.push_back("This Iteration's Action names more than one action category ('" + v +
                           "'); one change per iteration");
  } else if (!std::regex_match(v, name_re)) {
    out.problems.push_back("action category '" + v + "' is not a snake_case name such as vectorized_load");
  } else {
    out.action_category = v;
  }
}

// "dram_pct = 41.2 (profiles/v2/profile.json), ..." from the newest profile before version n.
std::string profile_numbers_hint(const fs::path& ws, int n) {
  for (int k = n; k >= 0; --k) {
    std::string rel = "profiles/v" + std::to_string(k) + "/profile.json";
    auto text = core::try_read_file(ws / rel);
    if (!text) continue;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j["numbers"].is_object()) continue;
    std::string out;
    for (const auto& [key, v] : j["numbers"].items()) {
      if (v.is_number()) out += (out.empty() ? "" : ", ") + key + " = " + v.dump() + " (" + rel + ")";
    }
    if (!out.empty()) return out;
  }
  return "none yet (run `kgo profile`)";
}

}  // namespace

PlanCheck check_plan_text(const std::string& text, bool timed) {
  PlanCheck out;
  for (const auto& name : plan_sections()) {
    auto body = core::section_body(text, name);
    if (!body) {
      out.problems.push_back("section '## " + name + "' is missing");
      continue;
    }
    if (content_lines(*body).empty()) {
      out.problems.push_back("section '" + name + "' is empty");
      if (name == "This Iteration's Action") check_action(*body, out);
      continue;
    }
    if (name == "Search Log") check_search_log(*body, out.problems);
    if (name == "This Iteration's Action") check_action(*body, out);
    if (name == "Hypothesis") parse_hypothesis(*body, out.problems, timed);
  }
  return out;
}

PlanCheck check_plan(const fs::path& workspace, std::optional<int> n) {
  if (!n) {
    static const std::regex name(R"(^v(0|[1-9][0-9]{0,8})_plan\.md$)");
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(workspace / "plans", ec)) {
      std::smatch m;
      std::string f = e.path().filename().string();
      if (std::regex_match(f, m, name)) n = std::max(n.value_or(-1), std::stoi(m[1].str()));
    }
    if (!n) throw Error("no plan in " + (workspace / "plans").string() + "; write one with `kgo plan new`", ExitCode::plan_invalid);
  }
  auto text = core::try_read_file(plan_path(workspace, *n));
  if (!text) {
    throw Error("no plan " + plan_relpath(*n) + "; write one with `kgo plan new v" + std::to_string(*n) + "`",
                ExitCode::plan_invalid);
  }
  PlanCheck out = check_plan_text(*text, workspace_timed(workspace));
  if (auto body = core::section_body(*text, "Hypothesis")) {
    std::vector<std::string> syntax;
    verify_evidence(workspace, parse_hypothesis(*body, syntax), out.problems);
  }
  out.version = *n;
  out.path = plan_path(workspace, *n);
  return out;
}

PlanNewResult new_plan(const fs::path& workspace, std::optional<int> n, bool force, const std::string& description) {
  core::LockedWorkspace guard(workspace);
  core::WorkspaceConfig cfg = core::load_config(workspace);
  auto records = load_records(workspace);
  if (!n) {
    bool pending = !records.empty() && records.back().gate() == "PENDING";
    n = records.empty() ? 0 : (pending ? records.back().n : records.back().n + 1);
  }
  fs::path path = plan_path(workspace, *n);
  if (fs::exists(path) && !force) {
    throw Error(plan_relpath(*n) + " already exists; edit it, or pass --force to start it over", ExitCode::usage);
  }
  const Record* prev = last_accepted(records);
  std::string prev_evidence = prev ? evidence_text(prev->j) : "none yet";
  for (size_t at; (at = prev_evidence.find("-->")) != std::string::npos;) prev_evidence.replace(at, 3, "->");
  std::map<std::string, std::string> vars = {
      {"n", std::to_string(*n)},
      {"name", cfg.name},
      {"created_at", core::record_time_now()},
      {"prev", prev ? "V" + std::to_string(prev->n) : "none accepted yet"},
      {"prev_evidence", prev_evidence},
      {"profile_numbers", profile_numbers_hint(workspace, *n)}};
  std::string text = core::render_template(core::read_file(core::data_file("templates/plan.md")), vars);
  std::vector<core::TxnFile> files = {{plan_relpath(*n), text}};
  // The plan's record exists from now on, so that the next check is recorded into it.
  bool have_record = fs::exists(core::record_path(workspace, *n));
  if (!have_record || !description.empty()) {
    nlohmann::json rec = have_record ? core::read_record(workspace, *n) : core::new_record(*n);
    if (!description.empty()) {
      core::refuse_decided(rec, *n);
      rec["optimization"]["action_description"] = description;
    }
    core::validate_record(rec, *n);
    files.push_back({"memory/" + core::version_name(*n) + ".json", core::dump_record(rec)});
  }
  core::write_files(workspace, "plan new " + core::version_name(*n), files);
  return {*n, path};
}

}  // namespace kgo::iterate
