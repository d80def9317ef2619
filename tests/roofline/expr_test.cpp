#include "roofline/expr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>

#include "core/error.hpp"

namespace kgo::roofline {
namespace {

// The 1-based column an expression error names, or -1 when it is not an expression error.
int error_column(const std::string& text, const Variables& vars = {}) {
  try {
    evaluate(text, vars);
  } catch (const Error& e) {
    if (e.code() != ExitCode::expression_error) return -1;
    static const std::regex column("at column ([0-9]+)");
    std::smatch m;
    std::string msg = e.what();
    if (std::regex_search(msg, m, column)) return std::stoi(m[1]);
    return -2;
  }
  return 0;
}

TEST(Expr, Arithmetic) {
  Variables v{{"M", 4096}, {"N", 1024}, {"K", 64}};
  EXPECT_DOUBLE_EQ(evaluate("2*M*N*K", v), 2.0 * 4096 * 1024 * 64);
  EXPECT_DOUBLE_EQ(evaluate("(M*K + K*N + M*N) * 2", v), (4096.0 * 64 + 64 * 1024 + 4096.0 * 1024) * 2);
  EXPECT_DOUBLE_EQ(evaluate("1 + 2 * 3", {}), 7);
  EXPECT_DOUBLE_EQ(evaluate("(1 + 2) * 3", {}), 9);
  EXPECT_DOUBLE_EQ(evaluate("7 - 2 - 1", {}), 4);
  EXPECT_DOUBLE_EQ(evaluate("8 / 4 / 2", {}), 1);
  EXPECT_DOUBLE_EQ(evaluate("2^3^2", {}), 512);  // right-associative
  EXPECT_DOUBLE_EQ(evaluate("-2^2", {}), -4);
  EXPECT_DOUBLE_EQ(evaluate("2^-1", {}), 0.5);
  EXPECT_DOUBLE_EQ(evaluate("--3", {}), 3);
  EXPECT_DOUBLE_EQ(evaluate("1.5e3 + .5 + 2.", {}), 1502.5);
  EXPECT_DOUBLE_EQ(evaluate("\t 4096 ", {}), 4096);
}

TEST(Expr, Functions) {
  Variables v{{"M", 1000}, {"BM", 128}};
  EXPECT_DOUBLE_EQ(evaluate("ceil(M / BM)", v), 8);
  EXPECT_DOUBLE_EQ(evaluate("floor(M / BM)", v), 7);
  EXPECT_DOUBLE_EQ(evaluate("min(3, 1, 2)", v), 1);
  EXPECT_DOUBLE_EQ(evaluate("max(3, M, 2)", v), 1000);
  EXPECT_DOUBLE_EQ(evaluate("max(min(1, 2), ceil(0.2))", v), 1);
}

TEST(Expr, Assignment) {
  EXPECT_EQ(parse_assignment("M=4096"), (std::pair<std::string, double>{"M", 4096}));
  EXPECT_EQ(parse_assignment("tile_m=2^7").second, 128);
  for (const char* bad : {"M", "=3", "1M=3", "min=3", "M-1=2", "M=N", "M=", "M=$(ls)"}) {
    EXPECT_THROW(
        try { parse_assignment(bad); } catch (const Error& e) {
          EXPECT_EQ(e.code(), ExitCode::expression_error) << bad;
          throw;
        },
        Error)
        << bad;
  }
}

TEST(Expr, RejectsMaliciousInputWithPosition) {
  Variables v{{"M", 4}};
  struct Case {
    const char* text;
    int column;
  };
  for (const Case& c : std::vector<Case>{
           {"$(rm -rf /)", 1},
           {"`ls`", 1},
           {"M; rm -rf /", 2},
           {"M && touch /tmp/x", 3},
           {"M | sh", 3},
           {"system(1)", 1},
           {"__import__(1)", 1},
           {"eval(M)", 1},
           {"exec(M)", 1},
           {"os.system", 3},
           {"M**2", 2},
           {"M % 2", 3},
           {"'M'", 1},
           {"\"M\"", 1},
           {"M[0]", 2},
           {"M{0}", 2},
           {"M = 3", 3},
           {"M > 2", 3},
           {"M\n+1", 2},
           {"M\x01", 2},
           {"M\xef\xbc\x92", 2},  // a full-width digit
           {"inf", 1},
           {"nan", 1},
           {"0x10", 2},
           {"lambda: 1", 7},
       }) {
    EXPECT_EQ(error_column(c.text, v), c.column) << c.text;
  }
}

TEST(Expr, RejectsMalformedInputWithPosition) {
  Variables v{{"M", 4}};
  struct Case {
    const char* text;
    int column;
  };
  for (const Case& c : std::vector<Case>{
           {"", 1},
           {"   ", 1},
           {"1 +", 4},
           {"(1 + 2", 7},
           {"1 + 2)", 6},
           {"()", 2},
           {"1 2", 3},
           {"M M", 3},
           {"1..2", 3},
           {"1e", 2},
           {"1e+", 2},
           {".", 1},
           {"min(1)", 1},
           {"min()", 5},
           {"ceil(1, 2)", 1},
           {"ceil", 1},
           {"floor 2", 1},
           {"max(1,,2)", 7},
           {"1 / 0", 3},
           {"1 / (M - 4)", 3},
           {"10^400", 3},
           {"(-8)^0.5", 5},
           {"X + 1", 1},
           {"M + Y", 5},
           {"foo(1)", 1},
           {",", 1},
       }) {
    EXPECT_EQ(error_column(c.text, v), c.column) << "'" << c.text << "'";
  }
}

TEST(Expr, LimitsLengthAndDepth) {
  std::string deep = std::string(kMaxExpressionDepth + 10, '(') + "1" + std::string(kMaxExpressionDepth + 10, ')');
  EXPECT_GT(error_column(deep), 0);
  std::string minus(100000, '-');
  EXPECT_GT(error_column(minus + "1"), 0);
  std::string ok = std::string(kMaxExpressionDepth / 2, '(') + "1" + std::string(kMaxExpressionDepth / 2, ')');
  EXPECT_DOUBLE_EQ(evaluate(ok, {}), 1);
  std::string longest;
  while (longest.size() + 2 <= kMaxExpressionLength) longest += "1+";
  longest += "1";
  EXPECT_EQ(error_column(longest), static_cast<int>(kMaxExpressionLength) + 1);
}

TEST(Expr, MessageNamesTheProblemAndTheGrammar) {
  try {
    evaluate("2*M$", {{"M", 1}});
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("column 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'$'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("   ^"), std::string::npos) << msg;
    EXPECT_NE(msg.find("min"), std::string::npos) << msg;
  }
  try {
    evaluate("Q*2", {{"M", 1}, {"N", 2}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("defined: M, N"), std::string::npos) << e.what();
  }
}

// Random strings over the grammar's alphabet plus hostile bytes: each either evaluates to a finite
// number or is an expression_error whose column lies inside the text (or just past it).
TEST(Expr, FuzzNeverCrashesAndAlwaysLocates) {
  const std::string alphabet = "0123456789.eE+-*/^(),MNK_minaxceilfloor \t$;`'\"|&%!<>=[]{}\\\n\x7f\xff";
  std::mt19937 rng(12345);
  Variables v{{"M", 3}, {"N", 5}, {"K", 7}};
  int ok = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    int len = std::uniform_int_distribution<int>(0, 24)(rng);
    for (int j = 0; j < len; ++j) s += alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
    try {
      double r = evaluate(s, v);
      EXPECT_TRUE(std::isfinite(r)) << s;
      ++ok;
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), ExitCode::expression_error) << s;
      int col = error_column(s, v);
      EXPECT_GE(col, 1) << s;
      EXPECT_LE(col, static_cast<int>(s.size()) + 1) << s;
      ++rejected;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace kgo::roofline
