// `kgo guide op <op>`, `kgo guide template <op> [--variant V]`, `kgo guide triton [topic]`: reference
// answers from kgo's own data (op catalog, templates/ops, templates/triton/syntax.md); nothing runs.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "harness/guide.hpp"

namespace kgo::cli {

namespace {

struct GuideOptions {
  std::optional<std::string> python;
  std::string op;
  std::string variant;
  std::string topic;
};

std::optional<std::string> given(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace

void register_guide(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GuideOptions>();
  CLI::App* guide = app.add_subcommand("guide", "Reference for agents: an op, a kernel template, Triton syntax");
  guide->require_subcommand(1);
  CLI::App* op = guide->add_subcommand("op", "An op from kgo's catalog: shape, FLOPs and bytes formulas, dtypes, entry, reference");
  op->add_option("op", o->op, "Op name or alias (kgo roofline --explain lists them)")->required();
  add_python_option(op, o->python);
  op->callback([o, &ctx] {
    auto j = harness::op_guide(o->op, harness::locate_python(o->python));
    std::string text = j["op"].get<std::string>() + ": " + j["summary"].get<std::string>() + "\n  shape " +
                       j["shape"].get<std::string>() + "\n  FLOPs " + j["flops"].get<std::string>() + "\n  bytes " +
                       j["bytes"].get<std::string>() + "\n  entry " + j["entry"].get<std::string>() + " (op mode)\n";
    if (const auto& h = j["harness"]; h.is_object()) {
      text += "  signature " + h["signature"].get<std::string>() + "\n  inputs " + h["inputs"].get<std::string>() +
              "\n  shapes " + h["shape_meaning"].get<std::string>() + "\n  torch " +
              h["torch_reference"].get<std::string>() + "\n";
    }
    if (j["reference"].is_string()) text += "reference:\n" + j["reference"].get<std::string>();
    emit(ctx, j, text);
  });
  CLI::App* tmpl = guide->add_subcommand("template", "A Triton kernel template of an op (v1 baseline .. v4 optimized)");
  tmpl->add_option("op", o->op, "Op name or alias")->required();
  tmpl->add_option("--variant", o->variant, "v1..v4, or baseline, tiling, coalesced, optimized (default v1)");
  tmpl->callback([o, &ctx] {
    auto j = harness::template_guide(o->op, given(o->variant));
    emit(ctx, j, "# " + j["source"].get<std::string>() + "\n" + j["text"].get<std::string>());
  });
  CLI::App* triton = guide->add_subcommand("triton", "Triton syntax: one topic, or the list of topics");
  triton->add_option("topic", o->topic, "Topic (without one: the list)");
  triton->callback([o, &ctx] {
    auto j = harness::triton_guide(given(o->topic));
    std::string text = j["text"].get<std::string>();
    if (j["topic"].is_null()) text += "\ntopics: " + j["topics"].dump() + "\n";
    emit(ctx, j, text);
  });
}

}  // namespace kgo::cli
