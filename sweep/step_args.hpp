#pragma once
// Screens a sweep spec's extra arguments per step ("step_args"): only options that change how a step
// measures, never what it judges. The sweep's own axes (workspace, shape, size, dtype, device, --json),
// verdict-loosening options (tolerances, fewer edge shapes) and options naming programs to run
// (--python, --ncu) are refused with the reason and the fix; so is any option the step does not have.
#include <string>
#include <vector>

namespace kgo::sweep {

// Throws Error(usage) for the first refused token of `args` given to kgo `step`.
void screen_step_args(const std::string& step, const std::vector<std::string>& args);

}  // namespace kgo::sweep
