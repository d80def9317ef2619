#include "roofline/expr.hpp"

#include <cctype>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace kgo::roofline {

namespace {

enum class Tok { number, name, op, lparen, rparen, comma, end };

struct Token {
  Tok kind;
  std::string text;
  double value = 0;
  size_t pos = 0;  // 0-based byte offset
};

const char* kAllowed =
    "allowed: numbers, variables, + - * / ^, parentheses, min(a, b, ...), max(a, b, ...), "
    "ceil(x), floor(x)";

bool is_function(const std::string& name) {
  return name == "min" || name == "max" || name == "ceil" || name == "floor";
}

// The expression as it may be echoed: control and non-ASCII bytes become '?', so the caret lines
// up and nothing the user typed is replayed to the terminal.
std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) c = '?';
  }
  return out;
}

[[noreturn]] void fail(const std::string& text, size_t pos, const std::string& reason) {
  std::string shown = printable(text.size() > 200 ? text.substr(0, 200) + "..." : text);
  std::string caret = pos < 200 ? std::string(pos, ' ') + "^" : "";
  throw Error(fmt::format("bad expression at column {}: {}\n  {}\n  {}\n{}", pos + 1, reason, shown,
                          caret, kAllowed),
              ExitCode::expression_error);
}

std::vector<Token> tokenize(const std::string& s) {
  if (s.size() > kMaxExpressionLength) {
    fail(s, kMaxExpressionLength, fmt::format("expression longer than {} characters", kMaxExpressionLength));
  }
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      size_t start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      std::string digits = s.substr(start, i - start);
      if (digits == ".") fail(s, start, "a lone '.' is not a number");
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i + 1;
        if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
        if (e >= s.size() || !std::isdigit(static_cast<unsigned char>(s[e]))) {
          fail(s, i, "exponent needs digits, e.g. 1e9");
        }
        while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
        i = e;
      }
      if (i < s.size() && s[i] == '.') fail(s, i, "a number has at most one '.'");
      std::string text = s.substr(start, i - start);
      double v = std::strtod(text.c_str(), nullptr);
      if (!std::isfinite(v)) fail(s, start, "number '" + text + "' is out of range");
      out.push_back({Tok::number, text, v, start});
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      if (i - start > 64) fail(s, start, "name longer than 64 characters");
      out.push_back({Tok::name, s.substr(start, i - start), 0, start});
    } else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '^') {
      if (c == '*' && i + 1 < s.size() && s[i + 1] == '*') fail(s, i, "'**' is not an operator; write '^'");
      out.push_back({Tok::op, std::string(1, c), 0, i++});
    } else if (c == '(') {
      out.push_back({Tok::lparen, "(", 0, i++});
    } else if (c == ')') {
      out.push_back({Tok::rparen, ")", 0, i++});
    } else if (c == ',') {
      out.push_back({Tok::comma, ",", 0, i++});
    } else {
      unsigned char u = static_cast<unsigned char>(c);
      std::string shown = (u >= 0x20 && u < 0x7f) ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
      fail(s, i, "unexpected " + shown);
    }
  }
  out.push_back({Tok::end, "", 0, s.size()});
  return out;
}

class Parser {
 public:
  Parser(const std::string& text, const Variables& vars)
      : m_text(text), m_vars(vars), m_toks(tokenize(text)) {}

  double run() {
    if (m_toks.front().kind == Tok::end) fail(m_text, 0, "empty expression");
    double v = expr(0);
    const Token& t = peek();
    if (t.kind != Tok::end) {
      fail(m_text, t.pos, t.kind == Tok::rparen ? "unbalanced ')'" : "expected an operator before '" + t.text + "'");
    }
    return v;
  }

 private:
  const Token& peek() const { return m_toks[m_i]; }
  const Token& next() { return m_toks[m_i++]; }

  double checked(double v, size_t pos, const char* what) {
    if (!std::isfinite(v)) fail(m_text, pos, std::string(what) + " gives a value that is not a finite number");
    return v;
  }

  void enter(size_t pos, int depth) {
    if (depth > kMaxExpressionDepth) fail(m_text, pos, fmt::format("nested deeper than {} levels", kMaxExpressionDepth));
  }

  double expr(int depth) {
    double v = term(depth);
    while (peek().kind == Tok::op && (peek().text == "+" || peek().text == "-")) {
      const Token& op = next();
      double r = term(depth);
      v = checked(op.text == "+" ? v + r : v - r, op.pos, op.text == "+" ? "'+'" : "'-'");
    }
    return v;
  }

  double term(int depth) {
    double v = unary(depth);
    while (peek().kind == Tok::op && (peek().text == "*" || peek().text == "/")) {
      const Token& op = next();
      double r = unary(depth);
      if (op.text == "/" && r == 0) fail(m_text, op.pos, "division by zero");
      v = checked(op.text == "*" ? v * r : v / r, op.pos, op.text == "*" ? "'*'" : "'/'");
    }
    return v;
  }

  double unary(int depth) {
    enter(peek().pos, depth);
    if (peek().kind == Tok::op && (peek().text == "-" || peek().text == "+")) {
      bool neg = next().text == "-";
      double v = unary(depth + 1);
      return neg ? -v : v;
    }
    return power(depth);
  }

  double power(int depth) {
    double base = primary(depth);
    if (peek().kind == Tok::op && peek().text == "^") {
      const Token& op = next();
      double exponent = unary(depth + 1);  // right-associative: 2^3^2 = 2^9
      return checked(std::pow(base, exponent), op.pos, "'^'");
    }
    return base;
  }

  double primary(int depth) {
    enter(peek().pos, depth);
    const Token& t = next();
    switch (t.kind) {
      case Tok::number:
        return t.value;
      case Tok::lparen: {
        double v = expr(depth + 1);
        if (peek().kind != Tok::rparen) fail(m_text, peek().pos, "expected ')' to close the '(' at column " + std::to_string(t.pos + 1));
        next();
        return v;
      }
      case Tok::name:
        return is_function(t.text) ? call(t, depth) : variable(t);
      case Tok::end:
        fail(m_text, t.pos, "expression ends where a number, variable or '(' is expected");
      default:
        fail(m_text, t.pos, "unexpected '" + t.text + "' where a number, variable or '(' is expected");
    }
  }

  double variable(const Token& t) {
    if (peek().kind == Tok::lparen) fail(m_text, t.pos, "unknown function '" + t.text + "'");
    auto it = m_vars.find(t.text);
    if (it == m_vars.end()) {
      std::string known;
      for (const auto& [name, value] : m_vars) known += (known.empty() ? "" : ", ") + name;
      fail(m_text, t.pos, "unknown variable '" + t.text + "' (defined: " + (known.empty() ? "none" : known) +
                              "; define one with --var NAME=VALUE)");
    }
    return it->second;
  }

  double call(const Token& name, int depth) {
    if (peek().kind != Tok::lparen) fail(m_text, name.pos, "'" + name.text + "' is a function: write " + name.text + "(...)");
    next();
    std::vector<double> args;
    if (peek().kind == Tok::rparen) fail(m_text, peek().pos, name.text + "() needs arguments");
    while (true) {
      args.push_back(expr(depth + 1));
      if (peek().kind == Tok::comma) {
        next();
        continue;
      }
      if (peek().kind != Tok::rparen) fail(m_text, peek().pos, "expected ',' or ')' in " + name.text + "(...)");
      next();
      break;
    }
    bool unary_fn = name.text == "ceil" || name.text == "floor";
    if (unary_fn && args.size() != 1) fail(m_text, name.pos, name.text + "() takes exactly one argument");
    if (!unary_fn && args.size() < 2) fail(m_text, name.pos, name.text + "() takes at least two arguments");
    if (name.text == "ceil") return std::ceil(args[0]);
    if (name.text == "floor") return std::floor(args[0]);
    double v = args[0];
    for (double a : args) v = name.text == "min" ? std::min(v, a) : std::max(v, a);
    return v;
  }

  const std::string& m_text;
  const Variables& m_vars;
  std::vector<Token> m_toks;
  size_t m_i = 0;
};

}  // namespace

double evaluate(const std::string& text, const Variables& vars) { return Parser(text, vars).run(); }

bool is_variable_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || is_function(name)) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::pair<std::string, double> parse_assignment(const std::string& text) {
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  if (eq == std::string::npos || !is_variable_name(name)) {
    throw Error("bad --var '" + printable(text) + "': write NAME=VALUE with NAME a letter or '_' followed by "
                "letters, digits or '_' (not min, max, ceil or floor), e.g. --var M=4096",
                ExitCode::expression_error);
  }
  return {name, evaluate(text.substr(eq + 1), {})};
}

}  // namespace kgo::roofline
