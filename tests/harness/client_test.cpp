#include "harness/client.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::harness {

namespace {

// A stand-in interpreter: a shell script run as `<script> <harness.py> <command>`.
PythonInterpreter fake(const test::TempDir& dir, const std::string& body) {
  auto path = dir / "fakepython";
  test::write(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return {path.string(), path, "--python"};
}

HarnessCall call(const PythonInterpreter& py, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  // On the CPU: a request without a device is a GPU request, for which kgo first starts a warm judge (here the
  // fake, whose start then takes as long as the fake runs).
  return {"check", {{"kernel", "/k.py"}, {"device", "cpu"}, {"total_timeout_s", 5}}, py, timeout, {}, false};
}

}  // namespace

TEST(ClientTest, SendsRequestOnStdinAndParsesResult) {
  test::TempDir dir;
  auto got = (dir / "request").string();
  auto py = fake(dir, "cat > " + got + "\necho \"$1 $3\" > " + got + ".cmd\n"
                 "printf '{\\n \"protocol\": 1, \"command\": \"check\",\\n \"verdict\": \"FAIL\", \"message\": \"bad\"}\\n'");
  HarnessOutcome o = run_harness(call(py));
  EXPECT_EQ(o.verdict, "FAIL");
  EXPECT_FALSE(o.synthesized);
  EXPECT_EQ(o.result["message"], "bad");
  auto req = nlohmann::json::parse(test::read(got));
  EXPECT_EQ(req["protocol"], 1);
  EXPECT_EQ(req["command"], "check");
  EXPECT_EQ(req["kernel"], "/k.py");
  EXPECT_EQ(test::read(got + ".cmd"), "-I check\n");   // isolated: python -I <harness> check
}

TEST(ClientTest, StrayOutputBeforeTheResultIsSkipped) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo 'hello from a kernel'\n"
                 "printf '{\\n \"protocol\": 1, \"command\": \"check\", \"verdict\": \"PASS\", \"message\": \"ok\"\\n}\\n'");
  EXPECT_EQ(run_harness(call(py)).verdict, "PASS");
}

TEST(ClientTest, RejectedRequestThrowsWithTheHarnessError) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo '{\"protocol\":1,\"command\":\"check\",\"verdict\":\"ERROR\","
                      "\"message\":\"invalid\",\"error\":\"shapes/0: must be positive\"}'; exit 2");
  try {
    run_harness(call(py));
    FAIL() << "ERROR verdict accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::harness_error);
    EXPECT_NE(std::string(e.what()).find("shapes/0: must be positive"), std::string::npos);
  }
}

TEST(ClientTest, AHarnessTracebackGivesWayToItsMessage) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo '{\"protocol\":1,\"command\":\"check\",\"verdict\":\"ERROR\","
                      "\"message\":\"harness error: RuntimeError: the kernel process could not start\","
                      "\"error\":\"Traceback (most recent call last):  File worker.py\"}'; exit 0");
  try {
    run_harness(call(py));
    FAIL() << "ERROR verdict accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not start"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("Traceback"), std::string::npos) << e.what();
  }
}

TEST(ClientTest, NoResultThrowsWithStderrTail) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo 'ImportError: no module named torch' >&2; exit 1");
  try {
    run_harness(call(py));
    FAIL() << "missing result accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::harness_error);
    EXPECT_NE(std::string(e.what()).find("no module named torch"), std::string::npos);
  }
}

TEST(ClientTest, UnknownVerdictThrows) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo '{\"protocol\":1,\"command\":\"check\",\"verdict\":\"MAYBE\",\"message\":\"\"}'");
  EXPECT_THROW(run_harness(call(py)), Error);
}

TEST(ClientTest, HarnessKilledBySignalIsACrashVerdict) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; kill -KILL $$");
  HarnessOutcome o = run_harness(call(py));
  EXPECT_EQ(o.verdict, "CRASH");
  EXPECT_TRUE(o.synthesized);
  EXPECT_EQ(o.result["verdict"], "CRASH");
  EXPECT_NE(o.result["message"].get<std::string>().find("signal 9"), std::string::npos);
}

TEST(ClientTest, OuterTimeoutKillsAndIsATimeoutVerdict) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; sleep 30");
  HarnessOutcome o = run_harness(call(py, std::chrono::milliseconds(300)));
  EXPECT_EQ(o.verdict, "TIMEOUT_FAIL");
  EXPECT_TRUE(o.synthesized);
  EXPECT_LT(o.seconds, 5);
}

TEST(ClientTest, ForwardsOnlyProgressLines) {
  test::TempDir dir;
  auto py = fake(dir, "cat >/dev/null; echo 'kgo-harness: [1/2] check' >&2; echo 'noise' >&2\n"
                      "echo '{\"protocol\":1,\"command\":\"check\",\"verdict\":\"PASS\",\"message\":\"\"}'");
  HarnessCall c = call(py);
  c.progress = true;
  std::stringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  HarnessOutcome o = run_harness(c);
  std::cerr.rdbuf(old);
  EXPECT_EQ(captured.str(), "kgo-harness: [1/2] check\n");
  EXPECT_NE(o.stderr_tail.find("noise"), std::string::npos);
}

TEST(ClientTest, TailLines) {
  EXPECT_EQ(tail_lines("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(tail_lines("a\nb\nc", 5), "a\nb\nc");
  EXPECT_EQ(tail_lines("", 3), "");
  EXPECT_EQ(tail_lines("one\n\n", 1), "one");
}

}  // namespace kgo::harness
