#pragma once
// Null-tolerant readers for harness result fields (the protocol uses null for "not measured"),
// and how reports print them.
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kgo::harness {

inline std::string jstr(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

inline std::optional<double> jnum(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

inline std::optional<bool> jbool(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
}

inline const nlohmann::json& jobj(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && (it->is_object() || it->is_array()) ? *it : empty;
}

// Two decimals (microseconds, percentages), or "-" when not measured.
inline std::string us(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

}  // namespace kgo::harness
