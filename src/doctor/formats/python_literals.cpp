// SPDX-License-Identifier: MIT
#include <doctor/formats/python_literals.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace doctor::formats {

namespace {

constexpr int k_max_literal_depth = 32;
constexpr std::size_t k_max_values = 100000;
// A statement longer than this many tokens is no build-info assignment; its tokens are dropped
// (and the statement skipped) so that junk input cannot make the token buffer grow without bound.
constexpr std::size_t k_max_statement_tokens = 100000;

bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_identifier_char(char c) {
  return is_identifier_start(c) || util::is_digit(c);
}

// Python's escapes may name surrogates or values past U+10FFFF: shown as "?".
void append_code_point(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    out += '?';
  } else {
    util::append_utf8(out, cp);
  }
}

// Decodes the escapes of a non-raw string body the way Python does; an unknown escape keeps its
// backslash, as Python does.
std::string decode_escapes(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  std::size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      ++i;
      continue;
    }
    const char e = body[i + 1];
    i += 2;
    switch (e) {
    case '\n':
      break;
    case '\r':
      if (i < body.size() && body[i] == '\n') {
        ++i;
      }
      break;
    case '\\':
    case '\'':
    case '"':
      out += e;
      break;
    case 'a':
      out += '\a';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'v':
      out += '\v';
      break;
    case 'x':
    case 'u':
    case 'U': {
      const std::size_t digits = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
      std::uint32_t cp = 0;
      std::size_t n = 0;
      while (n < digits && i + n < body.size() && util::hex_digit(body[i + n]) >= 0) {
        cp = cp * 16 + static_cast<std::uint32_t>(util::hex_digit(body[i + n]));
        ++n;
      }
      if (n != digits) {
        out += '\\';
        out += e;
        break;
      }
      i += n;
      append_code_point(out, cp);
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
        std::size_t n = 0;
        while (n < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7') {
          cp = cp * 8 + static_cast<std::uint32_t>(body[i] - '0');
          ++i;
          ++n;
        }
        append_code_point(out, cp);
      } else {
        out += '\\';
        out += e;
      }
      break;
    }
  }
  return out;
}

enum class TokenKind { name, number, string, op, bad };

struct Token {
  TokenKind kind = TokenKind::bad;
  std::string_view raw; // as written
  std::string value;    // a string's decoded contents
  bool fstring = false;
};

struct Statement {
  bool indented = false;
  bool overflow = false; // more than k_max_statement_tokens tokens: not an assignment we read
  std::vector<Token> tokens;
};

// Splits Python source into logical statements (a newline inside brackets or after a backslash
// continues a statement; ';' separates statements) and those into tokens. One pass over the text.
class Lexer {
public:
  explicit Lexer(std::string_view text)
      : m_text(text) {}

  // Reads the next non-empty statement into `out`; false at the end of the text.
  bool next(Statement& out) {
    out.tokens.clear();
    out.indented = false;
    out.overflow = false;
    int depth = 0;
    bool any = false;
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c == '\n') {
        ++m_pos;
        m_line_start = m_pos;
        m_after_semicolon = false;
        if (depth == 0 && any) {
          return true;
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++m_pos;
        continue;
      }
      if (c == '#') {
        while (m_pos < m_text.size() && m_text[m_pos] != '\n') {
          ++m_pos;
        }
        continue;
      }
      if (c == '\\' && continues_line()) {
        continue;
      }
      if (!any) {
        any = true;
        out.indented = m_after_semicolon ? m_semicolon_indented : m_pos > m_line_start;
      }
      if (c == ';' && depth == 0) {
        ++m_pos;
        m_after_semicolon = true;
        m_semicolon_indented = out.indented;
        return true;
      }
      Token token = read_token();
      if (token.kind == TokenKind::op && token.raw.size() == 1) {
        const char o = token.raw.front();
        if (o == '(' || o == '[' || o == '{') {
          ++depth;
        } else if ((o == ')' || o == ']' || o == '}') && depth > 0) {
          --depth;
        }
      }
      if (out.tokens.size() < k_max_statement_tokens) {
        out.tokens.push_back(std::move(token));
      } else {
        out.overflow = true;
      }
    }
    return any;
  }

private:
  // At a backslash: skips it and the line break after it and returns true, or returns false.
  bool continues_line() {
    std::size_t p = m_pos + 1;
    if (p < m_text.size() && m_text[p] == '\r') {
      ++p;
    }
    if (p < m_text.size() && m_text[p] == '\n') {
      m_pos = p + 1;
      m_line_start = m_pos;
      return true;
    }
    return false;
  }

  Token read_token() {
    const std::size_t start = m_pos;
    const char c = m_text[m_pos];
    if (is_identifier_start(c)) {
      std::size_t end = m_pos;
      while (end < m_text.size() && is_identifier_char(m_text[end])) {
        ++end;
      }
      const std::string_view word = m_text.substr(start, end - start);
      if (end < m_text.size() && (m_text[end] == '\'' || m_text[end] == '"')
          && is_string_prefix(word)) {
        m_pos = end;
        return read_string(start, util::to_lower(word));
      }
      m_pos = end;
      return Token{TokenKind::name, word, {}, false};
    }
    if (c == '\'' || c == '"') {
      return read_string(start, {});
    }
    if (util::is_digit(c)
        || (c == '.' && m_pos + 1 < m_text.size() && util::is_digit(m_text[m_pos + 1]))) {
      std::size_t end = m_pos;
      while (end < m_text.size()) {
        const char d = m_text[end];
        const bool exponent_sign =
            (d == '+' || d == '-') && end > start
            && (m_text[end - 1] == 'e' || m_text[end - 1] == 'E')
            && !(m_text.substr(start, 2) == "0x" || m_text.substr(start, 2) == "0X");
        if (!is_identifier_char(d) && d != '.' && !exponent_sign) {
          break;
        }
        ++end;
      }
      m_pos = end;
      return Token{TokenKind::number, m_text.substr(start, end - start), {}, false};
    }
    constexpr std::string_view k_operators = "()[]{},:;=.+-*/%<>!&|^~@";
    if (k_operators.find(c) != std::string_view::npos) {
      std::size_t len = 1;
      if (m_pos + 1 < m_text.size()) {
        const char d = m_text[m_pos + 1];
        if ((d == '=' && std::string_view("=!<>:+-*/%&|^@").find(c) != std::string_view::npos)
            || (c == '-' && d == '>')) {
          len = 2;
        }
      }
      m_pos += len;
      return Token{TokenKind::op, m_text.substr(start, len), {}, false};
    }
    ++m_pos;
    return Token{TokenKind::bad, m_text.substr(start, 1), {}, false};
  }

  static bool is_string_prefix(std::string_view word) {
    if (word.size() > 2) {
      return false;
    }
    const std::string lower = util::to_lower(word);
    for (std::string_view p : {"r", "u", "b", "f", "br", "rb", "fr", "rf"}) {
      if (lower == p) {
        return true;
      }
    }
    return false;
  }

  // Reads a string literal whose quote is at m_pos; `prefix` is its lower-cased prefix. A string
  // that is not closed is a bad token that ends at the line break (or, if triple-quoted, at the
  // end of the text).
  Token read_string(std::size_t start, const std::string& prefix) {
    const char q = m_text[m_pos];
    const bool triple =
        m_pos + 2 < m_text.size() && m_text[m_pos + 1] == q && m_text[m_pos + 2] == q;
    const std::size_t quote_len = triple ? 3 : 1;
    const std::size_t body_start = m_pos + quote_len;
    std::size_t i = body_start;
    bool closed = false;
    while (i < m_text.size()) {
      const char c = m_text[i];
      if (c == '\\') {
        // An escaped character, or a line continuation (also across "\r\n").
        i += (i + 2 < m_text.size() && m_text[i + 1] == '\r' && m_text[i + 2] == '\n') ? 3 : 2;
        continue;
      }
      if (c == '\n' && !triple) {
        break;
      }
      if (c == q
          && (!triple || (i + 2 < m_text.size() && m_text[i + 1] == q && m_text[i + 2] == q))) {
        closed = true;
        break;
      }
      if (c == '\n') {
        m_line_start = i + 1;
      }
      ++i;
    }
    if (!closed) {
      m_pos = std::min(i, m_text.size());
      return Token{TokenKind::bad, m_text.substr(start, m_pos - start), {}, false};
    }
    const std::string_view body = m_text.substr(body_start, i - body_start);
    m_pos = i + quote_len;
    Token token{TokenKind::string, m_text.substr(start, m_pos - start), {}, false};
    token.fstring = prefix.find('f') != std::string::npos;
    token.value = prefix.find('r') != std::string::npos ? std::string(body) : decode_escapes(body);
    return token;
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_line_start = 0;
  bool m_after_semicolon = false;
  bool m_semicolon_indented = false;
};

std::optional<std::string> key_text(const PyLiteral& v) {
  switch (v.kind) {
  case PyKind::string:
  case PyKind::number:
    return v.text;
  case PyKind::boolean:
    return std::string(v.boolean ? "True" : "False");
  case PyKind::none:
    return std::string("None");
  default:
    return std::nullopt;
  }
}

// Recursive descent over the tokens [begin, end) of one statement. Every value counts against
// k_max_values and every nesting level against k_max_literal_depth, so the work is bounded by the
// input.
class LiteralParser {
public:
  LiteralParser(const std::vector<Token>& tokens, std::size_t begin, std::size_t end)
      : m_tokens(tokens)
      , m_pos(begin)
      , m_end(end) {}

  // Parses one value that must use up all the tokens.
  std::optional<PyLiteral> parse_whole() {
    PyLiteral out;
    if (!value(out, 0) || m_pos != m_end) {
      return std::nullopt;
    }
    return out;
  }

private:
  bool at_op(std::string_view op) const {
    return m_pos < m_end && m_tokens[m_pos].kind == TokenKind::op && m_tokens[m_pos].raw == op;
  }

  bool at_name() const { return m_pos < m_end && m_tokens[m_pos].kind == TokenKind::name; }

  bool value(PyLiteral& out, int depth) {
    if (depth > k_max_literal_depth || ++m_values > k_max_values || m_pos >= m_end) {
      return false;
    }
    const Token& t = m_tokens[m_pos];
    switch (t.kind) {
    case TokenKind::string:
      out.kind = PyKind::string;
      // Adjacent literals concatenate: 'a' "b" == 'ab'.
      while (m_pos < m_end && m_tokens[m_pos].kind == TokenKind::string) {
        if (m_tokens[m_pos].fstring) {
          return false;
        }
        out.text += m_tokens[m_pos].value;
        ++m_pos;
      }
      return true;
    case TokenKind::number:
      out.kind = PyKind::number;
      out.text = std::string(t.raw);
      ++m_pos;
      return true;
    case TokenKind::name:
      return name_value(out, depth);
    case TokenKind::op:
      break;
    case TokenKind::bad:
      return false;
    }
    if ((t.raw == "-" || t.raw == "+") && m_pos + 1 < m_end
        && m_tokens[m_pos + 1].kind == TokenKind::number) {
      out.kind = PyKind::number;
      out.text = (t.raw == "-" ? "-" : "") + std::string(m_tokens[m_pos + 1].raw);
      m_pos += 2;
      return true;
    }
    if (t.raw == "[") {
      ++m_pos;
      out.kind = PyKind::sequence;
      return elements(out, "]", depth);
    }
    if (t.raw == "(") {
      ++m_pos;
      return parenthesized(out, depth);
    }
    if (t.raw == "{") {
      ++m_pos;
      return braced(out, depth);
    }
    return false;
  }

  bool name_value(PyLiteral& out, int depth) {
    const std::string_view word = m_tokens[m_pos].raw;
    if (word == "True" || word == "False") {
      out.kind = PyKind::boolean;
      out.boolean = word == "True";
      ++m_pos;
      return true;
    }
    if (word == "None") {
      out.kind = PyKind::none;
      ++m_pos;
      return true;
    }
    // The only call read is a dict built from pairs: OrderedDict([...]),
    // collections.OrderedDict([...]) or dict([...]).
    std::vector<std::string_view> dotted{word};
    ++m_pos;
    while (at_op(".") && m_pos + 1 < m_end && m_tokens[m_pos + 1].kind == TokenKind::name) {
      dotted.push_back(m_tokens[m_pos + 1].raw);
      m_pos += 2;
    }
    const bool ordered =
        dotted.back() == "OrderedDict"
        && (dotted.size() == 1 || (dotted.size() == 2 && dotted[0] == "collections"));
    const bool plain = dotted.size() == 1 && dotted[0] == "dict";
    if (!(ordered || plain) || !at_op("(")) {
      return false;
    }
    ++m_pos;
    out.kind = PyKind::mapping;
    if (at_op(")")) {
      ++m_pos;
      return true;
    }
    PyLiteral pairs;
    if (!value(pairs, depth + 1) || pairs.kind != PyKind::sequence) {
      return false;
    }
    if (at_op(",")) {
      ++m_pos;
    }
    if (!at_op(")")) {
      return false;
    }
    ++m_pos;
    for (PyLiteral& pair : pairs.items) {
      if (pair.kind != PyKind::sequence || pair.items.size() != 2) {
        return false;
      }
      auto key = key_text(pair.items[0]);
      if (!key) {
        return false;
      }
      out.keys.push_back(std::move(*key));
      out.items.push_back(std::move(pair.items[1]));
    }
    return true;
  }

  // After '[' (or after the first element of a tuple): elements up to `close`.
  bool elements(PyLiteral& out, std::string_view close, int depth) {
    while (true) {
      if (at_op(close)) {
        ++m_pos;
        return true;
      }
      PyLiteral item;
      if (!value(item, depth + 1)) {
        return false;
      }
      out.items.push_back(std::move(item));
      if (at_op(",")) {
        ++m_pos;
      } else if (!at_op(close)) {
        return false;
      }
    }
  }

  bool parenthesized(PyLiteral& out, int depth) {
    if (at_op(")")) {
      ++m_pos;
      out.kind = PyKind::sequence;
      return true;
    }
    PyLiteral first;
    if (!value(first, depth + 1)) {
      return false;
    }
    if (at_op(")")) {
      ++m_pos;
      out = std::move(first);
      return true;
    }
    if (!at_op(",")) {
      return false;
    }
    ++m_pos;
    out.kind = PyKind::sequence;
    out.items.push_back(std::move(first));
    return elements(out, ")", depth);
  }

  bool braced(PyLiteral& out, int depth) {
    if (at_op("}")) {
      ++m_pos;
      out.kind = PyKind::mapping;
      return true;
    }
    PyLiteral first;
    if (!value(first, depth + 1)) {
      return false;
    }
    if (!at_op(":")) {
      // A set literal.
      out.kind = PyKind::sequence;
      out.items.push_back(std::move(first));
      if (at_op(",")) {
        ++m_pos;
      } else if (!at_op("}")) {
        return false;
      }
      return elements(out, "}", depth);
    }
    out.kind = PyKind::mapping;
    PyLiteral key = std::move(first);
    while (true) {
      if (!at_op(":")) {
        return false;
      }
      ++m_pos;
      auto text = key_text(key);
      PyLiteral item;
      if (!text || !value(item, depth + 1)) {
        return false;
      }
      out.keys.push_back(std::move(*text));
      out.items.push_back(std::move(item));
      if (at_op(",")) {
        ++m_pos;
      } else if (!at_op("}")) {
        return false;
      }
      if (at_op("}")) {
        ++m_pos;
        return true;
      }
      key = PyLiteral{};
      if (!value(key, depth + 1)) {
        return false;
      }
    }
  }

  const std::vector<Token>& m_tokens;
  std::size_t m_pos;
  std::size_t m_end;
  std::size_t m_values = 0;
};

bool is_statement_keyword(std::string_view word) {
  constexpr std::array<std::string_view, 12> k_keywords = {"class",
                                                           "def",
                                                           "elif",
                                                           "else",
                                                           "except",
                                                           "finally",
                                                           "for",
                                                           "if",
                                                           "lambda",
                                                           "try",
                                                           "while",
                                                           "with"};
  for (std::string_view k : k_keywords) {
    if (word == k) {
      return true;
    }
  }
  return false;
}

// Returns the index of the first token of the assigned value in `name = …` or
// `name: annotation = …`, or 0 if the statement is no such assignment.
std::size_t assignment_value_start(const std::vector<Token>& tokens) {
  if (tokens.size() < 3 || tokens[0].kind != TokenKind::name || is_statement_keyword(tokens[0].raw)
      || tokens[1].kind != TokenKind::op) {
    return 0;
  }
  if (tokens[1].raw == "=") {
    return 2;
  }
  if (tokens[1].raw != ":") {
    return 0;
  }
  int depth = 0;
  for (std::size_t i = 2; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != TokenKind::op) {
      continue;
    }
    if (t.raw == "(" || t.raw == "[" || t.raw == "{") {
      ++depth;
    } else if (t.raw == ")" || t.raw == "]" || t.raw == "}") {
      --depth;
    } else if (t.raw == "=" && depth == 0) {
      return i + 1 < tokens.size() ? i + 1 : 0;
    }
  }
  return 0;
}

} // namespace

const PyLiteral* PyLiteral::find(std::string_view key) const {
  if (kind != PyKind::mapping) {
    return nullptr;
  }
  for (std::size_t i = keys.size(); i > 0; --i) {
    if (keys[i - 1] == key && i - 1 < items.size()) {
      return &items[i - 1];
    }
  }
  return nullptr;
}

std::optional<PyLiteral> parse_python_literal(std::string_view text) {
  Lexer lexer(text);
  Statement statement;
  if (!lexer.next(statement) || statement.overflow) {
    return std::nullopt;
  }
  auto value = LiteralParser(statement.tokens, 0, statement.tokens.size()).parse_whole();
  Statement extra;
  if (lexer.next(extra)) {
    return std::nullopt;
  }
  return value;
}

std::map<std::string, PyLiteral> parse_python_assignments(std::string_view source) {
  std::map<std::string, PyLiteral> out;
  Lexer lexer(source);
  Statement statement;
  while (lexer.next(statement)) {
    if (statement.indented || statement.overflow) {
      continue;
    }
    const std::size_t start = assignment_value_start(statement.tokens);
    if (start == 0) {
      continue;
    }
    auto value = LiteralParser(statement.tokens, start, statement.tokens.size()).parse_whole();
    if (value) {
      out[std::string(statement.tokens[0].raw)] = std::move(*value);
    }
  }
  return out;
}

} // namespace doctor::formats
