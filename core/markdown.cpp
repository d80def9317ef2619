#include "core/markdown.hpp"

#include <vector>

namespace kgo::core {

std::string render_template(const std::string& text,
                            const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("{{", i);
    if (open == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    out.append(text, i, open - i);
    std::string key = text.substr(open + 2, close - open - 2);
    auto it = vars.find(key);
    out += (it != vars.end() && !it->second.empty()) ? it->second : "TBD";
    i = close + 2;
  }
  return out;
}

namespace {

struct Span {
  size_t body_start;  // first byte after the heading line
  size_t body_end;    // start of the next heading of level <= this one, or size
};

int heading_level(const std::string& md, size_t line_start) {
  int level = 0;
  while (line_start + level < md.size() && md[line_start + level] == '#') {
    ++level;
  }
  if (level == 0 || line_start + level >= md.size() || md[line_start + level] != ' ') {
    return 0;
  }
  return level;
}

std::optional<Span> find_section(const std::string& md, const std::string& heading) {
  const std::string want = "## " + heading;
  size_t pos = 0;
  bool in_fence = false;
  std::optional<size_t> body_start;
  while (pos <= md.size()) {
    size_t eol = md.find('\n', pos);
    size_t end = eol == std::string::npos ? md.size() : eol;
    std::string line = md.substr(pos, end - pos);
    if (line.rfind("```", 0) == 0) {
      in_fence = !in_fence;
    } else if (!in_fence) {
      int level = heading_level(md, pos);
      if (body_start && level > 0 && level <= 2) {
        return Span{*body_start, pos};
      }
      if (!body_start && level == 2) {
        std::string trimmed = line;
        while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r')) {
          trimmed.pop_back();
        }
        if (trimmed == want) {
          body_start = eol == std::string::npos ? md.size() : eol + 1;
        }
      }
    }
    if (eol == std::string::npos) {
      break;
    }
    pos = eol + 1;
  }
  if (body_start) {
    return Span{*body_start, md.size()};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> section_body(const std::string& markdown, const std::string& heading) {
  auto span = find_section(markdown, heading);
  if (!span) {
    return std::nullopt;
  }
  return markdown.substr(span->body_start, span->body_end - span->body_start);
}

std::string replace_section(const std::string& markdown, const std::string& heading,
                            const std::string& body) {
  std::string normalized = body;
  if (!normalized.empty() && normalized.back() != '\n') {
    normalized += '\n';
  }
  auto span = find_section(markdown, heading);
  if (!span) {
    std::string out = markdown;
    if (!out.empty() && out.back() != '\n') {
      out += '\n';
    }
    return out + "\n## " + heading + "\n\n" + normalized;
  }
  std::string block = "\n" + normalized;
  if (span->body_end < markdown.size()) {
    block += "\n";
  }
  return markdown.substr(0, span->body_start) + block + markdown.substr(span->body_end);
}

}  // namespace kgo::core
