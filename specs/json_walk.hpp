#pragma once
// A JSON reader that reports every scalar value with its key path and the line it starts on
// (nlohmann::json keeps no line numbers). Used by the audit to point at file:line.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kgo::specs {

struct JsonValue {
  const std::vector<std::string>& path;  // object keys from the root (array positions omitted)
  int line = 0;                   // 1-based line where the value starts
  bool is_string = false;
  std::string text;               // decoded string, or the literal (number, true, false, null)
};

// Calls `visit` for each scalar in document order; false when `text` is not valid JSON.
bool walk_json(std::string_view text, const std::function<void(const JsonValue&)>& visit);

}  // namespace kgo::specs
