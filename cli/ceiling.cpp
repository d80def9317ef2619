// `kgo ceiling [--record WIKI_DIR] [--platform P]`: measure this GPU's bandwidth, FP32, tensor and
// launch-latency maxima; with --record, write them into the wiki as a measured document.
#include <memory>

#include "cli/commands.hpp"
#include "profiling/ceiling.hpp"

namespace kgo::cli {

void register_ceiling(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<profiling::CeilingOptions>();
  CLI::App* sub = app.add_subcommand("ceiling", "Measure the GPU's achievable maxima (bandwidth, FLOPS, launch latency)");
  sub->add_option("--record", o->record_wiki, "Write measured/<platform>-<date>.md into this wiki directory");
  sub->add_option("--platform", o->platform, "Product name the wiki uses (default: from the GPU's name)");
  sub->add_option("--binary", o->binary, "A built kgo_ceiling to run instead of compiling tools/ceiling/*.cu")
      ->check(CLI::ExistingFile);
  sub->add_option("--bytes", o->bytes, "Bytes per bandwidth array (default 4 GiB)");
  sub->add_option("--repeats", o->repeats, "Timed repeats per figure (median reported)")->capture_default_str();
  sub->add_option("--warmup", o->warmup, "Untimed warm-up runs per figure")->capture_default_str();
  sub->add_option("--only", o->only, "Comma list of copy,read,write,triad,fma,bf16,fp16,launch (default: all)");
  sub->add_option("--gemm-sizes", o->gemm_sizes, "Square GEMM sizes for the tensor figures")->capture_default_str();
  sub->add_option("--timeout", o->timeout_s, "Seconds for the whole measurement")->capture_default_str();
  sub->callback([o, &ctx] {
    profiling::CeilingResult r = profiling::run_ceiling(*o);
    emit(ctx, profiling::to_json(r), profiling::render_text(r));
  });
}

}  // namespace kgo::cli
