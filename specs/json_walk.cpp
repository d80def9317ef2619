#include "specs/json_walk.hpp"

#include <cctype>
#include <cstdlib>

namespace kgo::specs {

namespace {

class Walker {
 public:
  Walker(std::string_view s, const std::function<void(const JsonValue&)>& visit) : m_s(s), m_visit(visit) {}

  bool document() {
    if (!value(0)) return false;
    space();
    return m_i == m_s.size();
  }

 private:
  void space() {
    while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i]))) {
      if (m_s[m_i] == '\n') ++m_line;
      ++m_i;
    }
  }

  bool string(std::string* out) {
    if (m_i >= m_s.size() || m_s[m_i] != '"') return false;
    ++m_i;
    while (m_i < m_s.size()) {
      char c = m_s[m_i++];
      if (c == '"') return true;
      if (c == '\n') return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (m_i >= m_s.size()) return false;
      char e = m_s[m_i++];
      switch (e) {
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case '"': case '\\': case '/': *out += e; break;
        case 'u':
          if (m_i + 4 > m_s.size()) return false;
          for (int k = 0; k < 4; ++k) {
            if (!std::isxdigit(static_cast<unsigned char>(m_s[m_i + k]))) return false;
          }
          m_i += 4;
          *out += '?';  // non-ASCII text is never a number or a citation
          break;
        default: return false;
      }
    }
    return false;
  }

  bool scalar_literal(std::string* out) {
    size_t b = m_i;
    while (m_i < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '-' ||
                                m_s[m_i] == '+' || m_s[m_i] == '.')) {
      ++m_i;
    }
    *out = std::string(m_s.substr(b, m_i - b));
    if (out->empty()) return false;
    if (*out == "true" || *out == "false" || *out == "null") return true;
    char* end = nullptr;
    std::strtod(out->c_str(), &end);
    return end && *end == '\0';
  }

  bool value(int depth) {
    if (depth > 200) return false;
    space();
    if (m_i >= m_s.size()) return false;
    char c = m_s[m_i];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    JsonValue v{m_path, m_line, c == '"', {}};
    if (!(c == '"' ? string(&v.text) : scalar_literal(&v.text))) return false;
    m_visit(v);
    return true;
  }

  bool object(int depth) {
    ++m_i;
    space();
    if (m_i < m_s.size() && m_s[m_i] == '}') return ++m_i, true;
    while (true) {
      space();
      std::string key;
      if (!string(&key)) return false;
      space();
      if (m_i >= m_s.size() || m_s[m_i] != ':') return false;
      ++m_i;
      m_path.push_back(key);
      bool ok = value(depth + 1);
      m_path.pop_back();
      if (!ok) return false;
      space();
      if (m_i >= m_s.size()) return false;
      if (m_s[m_i] == ',') { ++m_i; continue; }
      if (m_s[m_i] == '}') return ++m_i, true;
      return false;
    }
  }

  bool array(int depth) {
    ++m_i;
    space();
    if (m_i < m_s.size() && m_s[m_i] == ']') return ++m_i, true;
    while (true) {
      if (!value(depth + 1)) return false;
      space();
      if (m_i >= m_s.size()) return false;
      if (m_s[m_i] == ',') { ++m_i; continue; }
      if (m_s[m_i] == ']') return ++m_i, true;
      return false;
    }
  }

  std::string_view m_s;
  const std::function<void(const JsonValue&)>& m_visit;
  size_t m_i = 0;
  int m_line = 1;
  std::vector<std::string> m_path;
};

}  // namespace

bool walk_json(std::string_view text, const std::function<void(const JsonValue&)>& visit) {
  return Walker(text, visit).document();
}

}  // namespace kgo::specs
