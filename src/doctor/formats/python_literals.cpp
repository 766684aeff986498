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

namespace {

bool is_augmented(std::string_view op) {
  constexpr std::array<std::string_view, 9> k_ops = {
      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
  return std::find(k_ops.begin(), k_ops.end(), op) != k_ops.end();
}

// The source text of tokens [begin, end), cut to a few dozen bytes, for a reason.
std::string quote(const std::vector<Token>& tokens, std::size_t begin, std::size_t end) {
  if (begin >= end) {
    return "``";
  }
  const char* from = tokens[begin].raw.data();
  const char* to = tokens[end - 1].raw.data() + tokens[end - 1].raw.size();
  std::string text(from, static_cast<std::size_t>(to - from));
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    }
  }
  if (text.size() > 60) {
    text.resize(57);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) {
      text.pop_back();
    }
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) {
      text.pop_back();
    }
    text += "...";
  }
  return "`" + text + "`";
}

// Calls `at(i)` for each operator token i outside brackets, in order, until it returns true.
template<typename At>
void top_level_ops(const std::vector<Token>& tokens, At at) {
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != TokenKind::op) {
      continue;
    }
    if (t.raw == "(" || t.raw == "[" || t.raw == "{") {
      ++depth;
    } else if (t.raw == ")" || t.raw == "]" || t.raw == "}") {
      --depth;
    } else if (depth == 0 && at(i)) {
      return;
    }
  }
}

// Evaluates module-level statements the way Python would bind names, for the forms generated
// version files use, and marks every other binding of a name unknown: see the header.
class ModuleReader {
public:
  PyAssignments run(std::string_view source) {
    Lexer lexer(source);
    Statement st;
    while (lexer.next(st)) {
      if (st.tokens.empty()) {
        continue;
      }
      if (st.overflow) {
        // Too long to read: whatever it binds is not known.
        if (st.tokens[0].kind == TokenKind::name) {
          set_unknown(std::string(st.tokens[0].raw), "a statement too long to read binds it");
        }
        continue;
      }
      if (touches_namespace(st.tokens)) {
        forget_all(quote(st.tokens, 0, st.tokens.size())
                   + " may change any module-level name; it is not evaluated");
        continue;
      }
      if (st.indented) {
        indented(st.tokens);
      } else {
        top_level(st.tokens);
      }
    }
    return std::move(m_out);
  }

private:
  void set_value(const std::string& name, PyLiteral value) {
    m_out.unknown.erase(name);
    m_out.values[name] = std::move(value);
  }

  void set_unknown(const std::string& name, std::string why) {
    m_out.values.erase(name);
    m_out.unknown[name] = std::move(why);
  }

  void forget_all(const std::string& why) {
    std::vector<std::string> names;
    for (const auto& [name, value] : m_out.values) {
      names.push_back(name);
    }
    for (const std::string& name : names) {
      set_unknown(name, why);
    }
  }

  static bool touches_namespace(const std::vector<Token>& tokens) {
    for (const Token& t : tokens) {
      if (t.kind == TokenKind::name
          && (t.raw == "globals" || t.raw == "exec" || t.raw == "setattr" || t.raw == "vars"
              || t.raw == "__dict__")) {
        return true;
      }
    }
    return false;
  }

  // Marks unknown every name bound by a walrus `name :=` anywhere in the statement.
  void walrus(const std::vector<Token>& tokens, const std::string& where) {
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (tokens[i].kind == TokenKind::name && tokens[i + 1].kind == TokenKind::op
          && tokens[i + 1].raw == ":=") {
        set_unknown(std::string(tokens[i].raw),
                    "bound by " + quote(tokens, 0, tokens.size()) + where + ", not evaluated");
      }
    }
  }

  void indented(const std::vector<Token>& tokens) {
    if (m_in_function) {
      // A function's body binds its own names, except those it declares global.
      if (tokens[0].kind == TokenKind::name && tokens[0].raw == "global") {
        for (std::size_t i = 1; i < tokens.size(); ++i) {
          if (tokens[i].kind == TokenKind::name) {
            set_unknown(std::string(tokens[i].raw),
                        "a function declares it " + quote(tokens, 0, tokens.size())
                            + " and may assign it");
          }
        }
      }
      return;
    }
    // Under if/for/while/try/with: whatever it binds may or may not have been bound.
    for (const std::string& name : bound_names(tokens)) {
      set_unknown(name,
                  "assigned by " + quote(tokens, 0, tokens.size())
                      + " inside a block that runs only under a condition");
    }
    walrus(tokens, " inside a block");
  }

  // Names a statement binds, without evaluating it: assignment targets, augmented targets, the
  // bases of item and attribute targets, `for` and `as` targets, imports, def and class, del.
  static std::vector<std::string> bound_names(const std::vector<Token>& tokens) {
    std::vector<std::string> out;
    const Token& first = tokens[0];
    auto names_in = [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (tokens[i].kind == TokenKind::name) {
          out.emplace_back(tokens[i].raw);
        }
      }
    };
    if (first.kind == TokenKind::name) {
      const std::string_view w = first.raw;
      if (w == "def" || w == "class") {
        names_in(1, std::min<std::size_t>(2, tokens.size()));
        return out;
      }
      if (w == "del" || w == "global" || w == "nonlocal") {
        names_in(1, tokens.size());
        return out;
      }
      if (w == "import" || w == "from" || w == "for" || w == "with" || w == "except"
          || w == "async") {
        // Everything after `import`, `as` or `for` up to `in`: over-approximated by every name.
        names_in(1, tokens.size());
        return out;
      }
    }
    std::size_t segment = 0;
    top_level_ops(tokens, [&](std::size_t i) {
      if (tokens[i].raw == "=" || is_augmented(tokens[i].raw)) {
        names_in(segment, i);
        segment = i + 1;
      }
      return false;
    });
    return out;
  }

  void top_level(const std::vector<Token>& tokens) {
    const Token& first = tokens[0];
    const bool keyword =
        first.kind == TokenKind::name
        && (is_statement_keyword(first.raw) || first.raw == "import" || first.raw == "from"
            || first.raw == "del" || first.raw == "async" || first.raw == "global");
    const bool decorator = first.kind == TokenKind::op && first.raw == "@";
    if (keyword || decorator) {
      m_in_function =
          decorator || first.raw == "def" || first.raw == "class" || first.raw == "async";
      if (first.raw == "from" && tokens.size() >= 2 && tokens.back().raw == "*") {
        forget_all(quote(tokens, 0, tokens.size()) + " may bind any name; it is not evaluated");
        return;
      }
      const bool conditional = first.raw == "if" || first.raw == "elif" || first.raw == "else"
                               || first.raw == "try" || first.raw == "while"
                               || first.raw == "finally" || first.raw == "lambda";
      if (conditional) {
        inline_body(tokens);
      } else if (!decorator) {
        for (const std::string& name : bound_names(tokens)) {
          if (first.raw == "from" || first.raw == "import") {
            // `from typing import Optional`: only the imported names (and their `as`).
            if (name == "import" || name == "as") {
              continue;
            }
          }
          set_unknown(name, "bound by " + quote(tokens, 0, tokens.size()) + ", not evaluated");
        }
      }
      walrus(tokens, "");
      return;
    }
    m_in_function = false;
    assignment(tokens);
    walrus(tokens, "");
  }

  // `if x: a = 1`, `else: a = 2`: the statement after the header's colon binds under a
  // condition.
  void inline_body(const std::vector<Token>& tokens) {
    top_level_ops(tokens, [&](std::size_t i) {
      if (tokens[i].raw != ":") {
        return false;
      }
      const std::vector<Token> body(tokens.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                    tokens.end());
      if (!body.empty()) {
        for (const std::string& name : bound_names(body)) {
          set_unknown(name,
                      "assigned by " + quote(tokens, 0, tokens.size()) + " only under a condition");
        }
      }
      return true;
    });
  }

  // `a = b = <value>`, `a: T = <value>`, `a, b = <value>`, `a += <value>`, `a[k] = …`, or an
  // expression statement (`a.update(…)` changes a).
  void assignment(const std::vector<Token>& tokens) {
    std::vector<std::pair<std::size_t, std::size_t>> targets;
    std::size_t segment = 0;
    std::size_t augmented = 0; // index of the operator of `a += …`
    top_level_ops(tokens, [&](std::size_t i) {
      if (tokens[i].raw == "=") {
        targets.emplace_back(segment, i);
        segment = i + 1;
      } else if (is_augmented(tokens[i].raw) && targets.empty() && augmented == 0) {
        augmented = i;
      }
      return false;
    });
    const std::string whole = quote(tokens, 0, tokens.size());
    if (augmented > 0) {
      augmented_assignment(tokens, augmented, whole);
      return;
    }
    if (targets.empty()) {
      // An expression statement: a method call or item access on a name may change it.
      if (tokens.size() >= 2 && tokens[0].kind == TokenKind::name && tokens[1].kind == TokenKind::op
          && (tokens[1].raw == "." || tokens[1].raw == "[")) {
        set_unknown(std::string(tokens[0].raw), "changed by " + whole + ", not evaluated");
      }
      return;
    }
    // The value: a literal, or a name whose value is known.
    std::optional<PyLiteral> value;
    if (segment < tokens.size()) {
      if (segment + 1 == tokens.size() && tokens[segment].kind == TokenKind::name) {
        const auto it = m_out.values.find(std::string(tokens[segment].raw));
        if (it != m_out.values.end()) {
          value = it->second;
        }
      }
      if (!value) {
        value = LiteralParser(tokens, segment, tokens.size()).parse_whole();
      }
    }
    for (const auto& [begin, end] : targets) {
      bind(tokens, begin, end, value, whole);
    }
  }

  void bind(const std::vector<Token>& tokens,
            std::size_t begin,
            std::size_t end,
            const std::optional<PyLiteral>& value,
            const std::string& whole) {
    if (begin >= end) {
      return;
    }
    const Token& name = tokens[begin];
    const bool simple = name.kind == TokenKind::name && !is_statement_keyword(name.raw);
    // `a` or `a: annotation`.
    if (simple
        && (end == begin + 1
            || (tokens[begin + 1].kind == TokenKind::op && tokens[begin + 1].raw == ":"))) {
      if (value) {
        set_value(std::string(name.raw), *value);
      } else {
        set_unknown(std::string(name.raw),
                    "assigned by " + whole + ", whose value is not a literal");
      }
      return;
    }
    // `a[k] = …`, `a.b = …`: a changes.
    if (simple && tokens[begin + 1].kind == TokenKind::op
        && (tokens[begin + 1].raw == "[" || tokens[begin + 1].raw == ".")) {
      set_unknown(std::string(name.raw), "changed by " + whole + ", not evaluated");
      return;
    }
    // `a, b = …`, `(a, b) = …`, `[a, *b] = …`: each name, unless the value is a sequence of the
    // same plain names' count.
    std::vector<std::string> names;
    bool plain = true;
    for (std::size_t i = begin; i < end; ++i) {
      const Token& t = tokens[i];
      if (t.kind == TokenKind::name) {
        names.emplace_back(t.raw);
      } else if (!(t.kind == TokenKind::op
                   && (t.raw == "," || t.raw == "(" || t.raw == ")" || t.raw == "["
                       || t.raw == "]"))) {
        plain = false;
      }
    }
    const bool nested =
        std::count_if(tokens.begin() + static_cast<std::ptrdiff_t>(begin),
                      tokens.begin() + static_cast<std::ptrdiff_t>(end),
                      [](const Token& t) {
                        return t.kind == TokenKind::op && (t.raw == "(" || t.raw == "[");
                      })
        > 1;
    const bool unpack = plain && !nested && value && value->kind == PyKind::sequence
                        && value->items.size() == names.size();
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (unpack) {
        set_value(names[k], value->items[k]);
      } else {
        set_unknown(names[k], "assigned by " + whole + ", which is not evaluated");
      }
    }
  }

  // `a += <value>`: text joined to text is evaluated; anything else makes `a` unknown.
  void
  augmented_assignment(const std::vector<Token>& tokens, std::size_t op, const std::string& whole) {
    if (op != 1 || tokens[0].kind != TokenKind::name) {
      if (tokens[0].kind == TokenKind::name) {
        set_unknown(std::string(tokens[0].raw), "changed by " + whole + ", not evaluated");
      }
      return;
    }
    const std::string name(tokens[0].raw);
    const auto it = m_out.values.find(name);
    auto rhs = LiteralParser(tokens, op + 1, tokens.size()).parse_whole();
    if (tokens[op].raw == "+=" && it != m_out.values.end() && it->second.kind == PyKind::string
        && rhs && rhs->kind == PyKind::string) {
      it->second.text += rhs->text;
      return;
    }
    set_unknown(name, "changed by " + whole + ", which is not evaluated");
  }

  PyAssignments m_out;
  bool m_in_function = false; // the indented lines that follow belong to a def or class
};

} // namespace

PyAssignments read_python_assignments(std::string_view source) {
  return ModuleReader().run(source);
}

std::map<std::string, PyLiteral> parse_python_assignments(std::string_view source) {
  return read_python_assignments(source).values;
}

} // namespace doctor::formats
