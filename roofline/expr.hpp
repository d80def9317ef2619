#pragma once
// A small safe arithmetic evaluator for `kgo roofline --flops EXPR --bytes EXPR`: numbers,
// variables, + - * / ^, parentheses, min, max, ceil, floor. Nothing else is accepted; errors are
// Error(expression_error) naming the 1-based column of the offending token. It never runs code.
#include <map>
#include <string>

namespace kgo::roofline {

using Variables = std::map<std::string, double>;

// Longest accepted expression and deepest nesting (bounds the recursion).
inline constexpr size_t kMaxExpressionLength = 4096;
inline constexpr int kMaxExpressionDepth = 64;

// Evaluates `text` with `vars`. Throws Error(expression_error) on any token outside the grammar,
// an unknown variable, a division by zero or a result that is not a finite number.
double evaluate(const std::string& text, const Variables& vars);

// Parses "M=4096" (value itself an expression of numbers only) into {name, value};
// throws Error(expression_error) when malformed.
std::pair<std::string, double> parse_assignment(const std::string& text);

// True when `name` is a valid variable name (letter or '_' first, then letters, digits, '_'),
// and not one of the function names.
bool is_variable_name(const std::string& name);

}  // namespace kgo::roofline
