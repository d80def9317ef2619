#include "harness/guide.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/markdown.hpp"
#include "core/resources.hpp"
#include "harness/ops.hpp"
#include "roofline/catalog.hpp"

namespace kgo::harness {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path op_dir(const std::string& op) { return core::data_dir() / "templates" / "ops" / op; }

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::vector<std::string> topics(const std::string& md) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = md.find("\n## ", at)) != std::string::npos) {
    at += 4;
    out.push_back(md.substr(at, md.find('\n', at) - at));
  }
  return out;
}

}  // namespace

json op_guide(const std::string& name, const PythonInterpreter& py) {
  const roofline::OpInfo& op = roofline::find_op(name);
  json dtypes = json::array();
  for (const auto& d : roofline::dtypes()) dtypes.push_back(d.name);
  bool own = fs::is_directory(op_dir(op.name));
  auto ref = core::try_read_file((own ? op_dir(op.name) : op_dir("generic")) / "ref.py");
  json table = harness_catalog(py);
  const json* h = catalog_entry(table, op.name);
  json harness;  // null when the harness's table has no entry for the op
  if (h) {
    harness = {{"signature", h->value("signature", "")}, {"inputs", h->value("inputs", "")},
               {"shape_meaning", h->value("shape_meaning", "")}, {"torch_reference", h->value("reference", "")}};
  }
  return {{"op", op.name},
          {"aliases", op.aliases},
          {"summary", op.summary},
          {"shape", op.shape},
          {"flops", op.flops},
          {"bytes", op.bytes},
          {"choices", op.choices},
          {"matmul_like", op.matmul_like},
          {"dtypes", dtypes},
          {"entry", "triton_" + op.name},
          {"harness", harness},
          {"templates", own ? "own" : "generic"},
          {"reference", own && ref ? json(*ref) : json()},
          {"next", "kgo guide template " + op.name + "  (tool get_kernel_template); kgo roofline --op " + op.name}};
}

json template_guide(const std::string& name, const std::optional<std::string>& variant) {
  const roofline::OpInfo& op = roofline::find_op(name);
  const std::vector<std::string>& variants = op_variants();
  std::string want = variant.value_or("v1");
  std::string file;
  for (const auto& v : variants) {
    if (v == want || v.substr(0, v.find('_')) == want || v.substr(v.find('_') + 1) == want) file = v;
  }
  if (file.empty()) {
    throw Error("variant '" + want + "' is not one of " + join(variants) + " (or v1..v4, or the name after the '_')",
                ExitCode::usage);
  }
  bool own = fs::is_directory(op_dir(op.name));
  fs::path src = (own ? op_dir(op.name) : op_dir("generic")) / (file + ".py");
  std::string text = core::read_file(src);
  if (!own) text = core::render_template(text, {{"op", op.name}, {"entry", "triton_" + op.name}});
  return {{"op", op.name},        {"variant", file},
          {"variants", variants}, {"generic", !own},
          {"entry", "triton_" + op.name},
          {"source", fs::relative(src, core::data_dir()).generic_string()},
          {"text", text},
          {"next", own ? "kgo ops " + op.name + " sets up all four variants with their reference and checks them"
                       : "a generic skeleton: write the computation; kgo check fails until it is correct"}};
}

json triton_guide(const std::optional<std::string>& topic) {
  std::string md = core::read_file(core::data_file("templates/triton/syntax.md"));
  std::vector<std::string> all = topics(md);
  json j = {{"topics", all}, {"source", "templates/triton/syntax.md"}};
  if (!topic) {
    j["topic"] = nullptr;
    j["text"] = md.substr(0, md.find("\n## "));
    return j;
  }
  auto body = core::section_body(md, *topic);
  if (!body) throw Error("no Triton syntax topic '" + *topic + "'; topics: " + join(all), ExitCode::usage);
  j["topic"] = *topic;
  j["text"] = *body;
  return j;
}

}  // namespace kgo::harness
