#include "core/init.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/git.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

namespace {

ResolvedPlatform h100() { return {"H100", "H100 SXM", "Hopper", "/wiki", "sha256:ab", true}; }

using kgo::test::code_of;

}  // namespace

TEST(InitTest, CreatesCommittedWorkspace) {
  test::TempDir dir;
  test::write(dir / "k.py", "print('k')\n");
  InitRequest req;
  req.name = "softmax";
  req.kernel = dir / "k.py";
  req.dir = dir.path();
  req.shapes = {"4096x4096"};
  InitResult r = init_workspace(req, h100());
  EXPECT_EQ(r.workspace, dir / "kernel_opt_softmax");
  for (const char* f : {"kernel.py", "README.md", "kgo.json", ".gitignore", "memory", "plans", "profiles"}) {
    EXPECT_TRUE(fs::exists(r.workspace / f)) << f;
  }
  GitRepo repo = GitRepo::open(r.workspace);
  EXPECT_EQ(*repo.head(), r.commit);
  EXPECT_TRUE(repo.changed_paths().empty());
  std::string readme = test::read(r.workspace / "README.md");
  EXPECT_NE(readme.find("H100 SXM"), std::string::npos);
  EXPECT_EQ(readme.find("{{"), std::string::npos);
}

TEST(InitTest, BadNames) {
  for (const char* n : {"", "a/b", "..", "a..b", "x y", "semi;colon", "ü"}) {
    EXPECT_EQ(code_of([&] { validate_name(n); }), ExitCode::bad_name) << n;
  }
  EXPECT_EQ(code_of([] { validate_name("soft-max_v1.2"); }), ExitCode::ok);
}

TEST(InitTest, RefusesExistingWithoutForceAndKeepsOldWithForce) {
  test::TempDir dir;
  test::write(dir / "k.py", "k");
  InitRequest req;
  req.name = "a";
  req.kernel = dir / "k.py";
  req.dir = dir.path();
  init_workspace(req, h100());
  test::write(dir / "kernel_opt_a/user_notes.txt", "precious");
  EXPECT_EQ(code_of([&] { init_workspace(req, h100()); }), ExitCode::workspace_exists);
  req.force = true;
  InitResult r = init_workspace(req, h100());
  ASSERT_TRUE(r.previous_moved_to.has_value());
  EXPECT_EQ(test::read(*r.previous_moved_to / "user_notes.txt"), "precious");
}

TEST(InitTest, MissingKernelLeavesNothing) {
  test::TempDir dir;
  InitRequest req;
  req.name = "a";
  req.kernel = dir / "missing.py";
  req.dir = dir.path();
  EXPECT_EQ(code_of([&] { init_workspace(req, h100()); }), ExitCode::kernel_missing);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(InitTest, CarriesSetupOnlyForTheSeedAndFmh66Formats) {
  const std::string seed = "import torch\n\ndef setup(shape=(4,), **kw):\n    pass\n\ndef run_kernel(**kw):\n    pass\n";
  EXPECT_TRUE(carries_setup(seed, nullptr));
  EXPECT_FALSE(carries_setup("def triton_softmax(x):\n    pass\n", nullptr));
  EXPECT_FALSE(carries_setup("class C:\n    def setup(self):\n        pass\n    def run_kernel(self):\n        pass\n",
                             nullptr));  // methods, not module-level functions
  EXPECT_FALSE(carries_setup(seed + "class ModelNew:\n    pass\n", nullptr));
  EXPECT_FALSE(carries_setup(seed, nlohmann::json{{"name", "op"}}));
  EXPECT_TRUE(carries_setup("def run_kernel(**kw):\n    pass\n", nlohmann::json{{"name", "fmh66"}}));
}

TEST(InitTest, StoresTheBaselineOfASetupFormatAsTheProblem) {
  test::TempDir dir;
  const std::string kernel = "def setup(shape=(4,), **kw):\n    return {}\n\ndef run_kernel(**kw):\n    pass\n";
  test::write(dir / "k.py", kernel);
  InitRequest req;
  req.name = "seed";
  req.kernel = dir / "k.py";
  req.dir = dir.path();
  InitResult r = init_workspace(req, h100());
  ASSERT_EQ(r.config.problem, std::optional<std::string>(k_problem_file));
  EXPECT_EQ(test::read(r.workspace / k_problem_file), problem_file_text(kernel));
  EXPECT_TRUE(GitRepo::open(r.workspace).read_at("HEAD", k_problem_file).has_value());
  EXPECT_EQ(load_config(r.workspace).problem, r.config.problem);
}

}  // namespace kgo::core
