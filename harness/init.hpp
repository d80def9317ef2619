#pragma once
// `kgo init` as one call: infers the framework from the kernel file, resolves the wiki and the
// platform through the wiki index, reads the contract flags, and creates the workspace
// (core::init_workspace). Throws Error for bad input before anything is written.
#include <filesystem>
#include <optional>
#include <string>

#include "core/init.hpp"
#include "gpu-wiki-index/wiki_location.hpp"
#include "harness/target.hpp"

namespace kgo::harness {

struct InitOptions {
  core::InitRequest req;   // name, kernel, framework, dtype, shapes, reference, dir, notes, force
  std::string platform;    // as typed (--platform)
  std::optional<std::filesystem::path> wiki;  // --wiki; else `default_wiki`, then the usual search
  ContractFlags contract;
  bool framework_given = false;  // --framework was passed (a .cu kernel with another one is refused)
};

struct InitReport {
  core::InitResult created;
  wiki::WikiIdentity wiki;
};

// A .cu/.cuh kernel is CUDA: sets req.framework to "cuda", or throws Error(usage) when
// --framework named another one.
void infer_framework(InitOptions& o);

// A kernel published with its test file beside it and no --reference: opus24's
// triton_<op>_kernel_v<N>.py is judged by test_<op>_kernel.py (same folder, tests/, or ../tests).
void infer_reference(InitOptions& o);

InitReport init_workspace(InitOptions o, const std::optional<std::filesystem::path>& default_wiki);

}  // namespace kgo::harness
