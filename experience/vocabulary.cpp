#include "experience/vocabulary.hpp"

#include <algorithm>
#include <map>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/resources.hpp"

namespace kgo::experience {

namespace {

// The closed vocabulary lives in one place, the record schema's enums; kgo reads it from there.
Vocabulary from_schema(const std::string& field) {
  static const nlohmann::json schema = [] {
    auto path = core::data_file("schemas/experience-entry.schema.json");
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }();
  const auto* values = schema.is_object() ? &schema["properties"][field]["enum"] : nullptr;
  if (values == nullptr || !values->is_array() || values->empty()) {
    throw Error("kgo's data files are damaged: schemas/experience-entry.schema.json has no enum for '" + field +
                    "' (reinstall kgo or set KGO_DATA_DIR to its source tree)",
                ExitCode::internal);
  }
  Vocabulary v{field, {}};
  for (const auto& x : *values) v.values.push_back(x.get<std::string>());
  return v;
}

}  // namespace

const Vocabulary& kernel_classes() {
  static const Vocabulary v = from_schema("kernel_class");
  return v;
}

const Vocabulary& arches() {
  static const Vocabulary v = from_schema("arch");
  return v;
}

const Vocabulary& bottlenecks() {
  static const Vocabulary v = from_schema("bottleneck");
  return v;
}

const Vocabulary& languages() {
  static const Vocabulary v = from_schema("language");
  return v;
}

const Vocabulary& dtypes() {
  static const Vocabulary v = from_schema("dtype");
  return v;
}

namespace {

std::string lower_alnum(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// An allowed value that `value` is another spelling of ("memory-bound" -> "memory").
std::optional<std::string> near_miss(const Vocabulary& v, const std::string& value) {
  std::string k = lower_alnum(value);
  for (const auto& allowed : v.values) {
    std::string a = lower_alnum(allowed);
    if (k == a || k == a + "bound" || k == a + "bottleneck") return allowed;
  }
  return std::nullopt;
}

}  // namespace

void require_known(const Vocabulary& v, const std::string& value) {
  if (std::find(v.values.begin(), v.values.end(), value) != v.values.end()) return;
  std::string list;
  for (const auto& a : v.values) list += (list.empty() ? "" : ", ") + a;
  std::string msg = v.field + " '" + value + "' is not in kgo's vocabulary (" + list + ")";
  if (auto m = near_miss(v, value)) msg += "; did you mean '" + *m + "'?";
  throw Error(msg, ExitCode::usage);
}

void require_action_category(const std::string& value) {
  // ^[a-z][a-z0-9_]{0,63}$, checked by hand: a std::regex here cost more than the rest of loading a store.
  bool ok = !value.empty() && value.size() <= 64 && value[0] >= 'a' && value[0] <= 'z';
  for (char c : value) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (!ok) {
    throw Error("action_category '" + value + "' is not a snake_case name such as vectorized_load",
                ExitCode::usage);
  }
}

std::optional<std::string> class_of_op(const std::string& op) {
  // Keys: the op catalog's names (kgo roofline --explain).
  static const std::map<std::string, std::string> m = {
      {"add", "elementwise"},        {"mul", "elementwise"},        {"relu", "elementwise"},
      {"gelu", "elementwise"},       {"silu", "elementwise"},       {"dropout", "elementwise"},
      {"softmax", "softmax"},        {"log_softmax", "softmax"},
      {"layer_norm", "normalization"}, {"rms_norm", "normalization"}, {"matmul", "gemm"},
      {"bmm", "gemm"},               {"attention", "attention"},    {"cross_entropy", "reduction"},
      {"sum", "reduction"},          {"mean", "reduction"}};
  auto it = m.find(op);
  return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<std::string> bottleneck_of_record(const std::string& t) {
  std::string b = t.size() > 6 && t.ends_with("_bound") ? t.substr(0, t.size() - 6) : t;
  const auto& v = bottlenecks().values;
  if (std::find(v.begin(), v.end(), b) == v.end()) return std::nullopt;
  return b;
}

std::optional<std::string> arch_of_compute_capability(const std::string& cc) {
  std::string digits;
  for (char c : cc) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  if (digits.empty()) return std::nullopt;
  std::string a = "sm_" + digits;
  const auto& v = arches().values;
  return std::find(v.begin(), v.end(), a) == v.end() ? std::nullopt : std::optional<std::string>(a);
}

std::optional<std::string> arch_of_family(const std::string& family) {
  // Only families whose products all share one ISA target; Ampere (sm_80/86/87), Ada vs Blackwell
  // datacenter/consumer parts differ, so those need the measured compute capability.
  static const std::map<std::string, std::string> m = {
      {"Volta", "sm_70"}, {"Turing", "sm_75"}, {"Ada", "sm_89"}, {"Hopper", "sm_90"}, {"CDNA2", "gfx90a"}};
  auto it = m.find(family);
  return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace kgo::experience
