#include "harness/init.hpp"

#include <gtest/gtest.h>

#include "core/resources.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {
namespace {

using test::code_of;

InitOptions options(const test::TempDir& tmp, const std::string& kernel_name) {
  InitOptions o;
  o.req.name = "t";
  o.req.kernel = tmp / kernel_name;
  test::write(o.req.kernel, "def setup(**kw):\n    return kw\n\ndef run_kernel(**kw):\n    return None\n");
  o.req.dir = tmp / "ws";
  std::filesystem::create_directories(*o.req.dir);
  o.platform = "H100";
  o.wiki = core::data_dir() / "gpu-wiki-index" / "wiki";
  return o;
}

TEST(InitTest, CudaSourceImpliesTheCudaFramework) {
  test::TempDir tmp;
  InitOptions o = options(tmp, "k.cu");
  infer_framework(o);
  EXPECT_EQ(o.req.framework, "cuda");
  InitOptions py = options(tmp, "k.py");
  infer_framework(py);
  EXPECT_EQ(py.req.framework, "triton");
}

TEST(InitTest, Opus24KernelFindsItsTestFileInTheSiblingTestsFolder) {
  test::TempDir tmp;
  std::filesystem::create_directories(tmp / "kernel");
  std::filesystem::create_directories(tmp / "tests");
  InitOptions o = options(tmp, "kernel/triton_softmax_kernel_v3.py");
  test::write(tmp / "tests" / "test_softmax_kernel.py", "def reference(x):\n    return x\n");
  infer_reference(o);
  ASSERT_TRUE(o.req.reference.has_value());
  EXPECT_EQ(*o.req.reference, tmp / "tests" / "test_softmax_kernel.py");
  InitOptions other = options(tmp, "kernel/triton_gelu_kernel_v1.py");  // no test file for gelu
  infer_reference(other);
  EXPECT_FALSE(other.req.reference.has_value());
  InitOptions given = options(tmp, "kernel/triton_softmax_kernel_v4.py");
  given.req.reference = tmp / "mine.py";  // --reference wins
  infer_reference(given);
  EXPECT_EQ(*given.req.reference, tmp / "mine.py");
}

TEST(InitTest, CudaSourceWithAnotherExplicitFrameworkIsRefused) {
  test::TempDir tmp;
  InitOptions o = options(tmp, "k.cuh");
  o.framework_given = true;
  std::string msg;
  EXPECT_EQ(code_of([&] { init_workspace(o, std::nullopt); }, &msg), ExitCode::usage);
  EXPECT_NE(msg.find("--framework cuda"), std::string::npos) << msg;
  EXPECT_TRUE(std::filesystem::is_empty(*o.req.dir));
}

TEST(InitTest, ABadNameFailsBeforeTheWikiIsRead) {
  test::TempDir tmp;
  InitOptions o = options(tmp, "k.py");
  o.req.name = "bad name";
  o.wiki = tmp / "no-such-wiki";
  EXPECT_EQ(code_of([&] { init_workspace(o, std::nullopt); }), ExitCode::bad_name);
  o.req.name = "good";
  EXPECT_EQ(code_of([&] { init_workspace(o, std::nullopt); }), ExitCode::wiki_error);
}

TEST(InitTest, CreatesTheWorkspaceAndNamesTheWikiItRead) {
  test::TempDir tmp;
  InitOptions o = options(tmp, "k.py");
  o.contract.name = "seed";
  InitReport r = init_workspace(o, tmp / "ignored-default");  // --wiki wins over the default
  EXPECT_EQ(r.created.workspace, *o.req.dir / "kernel_opt_t");
  EXPECT_TRUE(std::filesystem::is_regular_file(r.created.workspace / "kgo.json"));
  EXPECT_EQ(r.created.config.platform_input, "H100");
  EXPECT_EQ(r.created.config.arch, "Hopper");
  EXPECT_EQ(r.created.config.contract["name"], "seed");
  EXPECT_EQ(r.wiki.source, "--wiki");
  EXPECT_TRUE(std::filesystem::equivalent(r.wiki.path, *o.wiki));
  EXPECT_EQ(r.wiki.fingerprint, r.created.config.wiki_fingerprint);
  EXPECT_EQ(r.created.commit.size(), 40u);
}

}  // namespace
}  // namespace kgo::harness
