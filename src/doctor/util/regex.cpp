// SPDX-License-Identifier: MIT
#include <doctor/util/regex.hpp>

#include <fmt/format.h>

#include <memory>
#include <utility>

namespace doctor {

std::string_view RegexMatch::group(std::string_view text, std::size_t index) const {
  if (index == 0 || index > groups.size()) {
    return {};
  }
  auto [b, e] = groups[index - 1];
  if (b == k_npos || e == k_npos || b > e || e > text.size()) {
    return {};
  }
  return text.substr(b, e - b);
}

namespace {

constexpr int k_max_depth = 100;
constexpr int k_max_count = 100;

bool is_word(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

unsigned char lower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

// A parsed pattern.
struct Node {
  enum class Kind { empty, set, concat, alt, repeat, group, assertion };
  Kind kind = Kind::empty;
  Regex::ByteSet set;
  bool literal = false; // a set written as one literal character
  unsigned char ch = 0; // that character
  std::vector<Node> kids;
  int min = 0;
  int max = -1; // -1: unbounded
  bool greedy = true;
  int capture = -1; // group: 1-based capture index, or -1
  Regex::Op op = Regex::Op::match;
};

} // namespace

// Parses a pattern into Nodes and compiles them into the Regex's program.
class RegexCompiler {
public:
  RegexCompiler(std::string_view pattern, Regex& re)
      : m_p(pattern)
      , m_re(re) {}

  Expected<void> run() {
    if (m_p.substr(0, 4) == "(?i)") {
      m_re.m_ignore_case = true;
      m_pos = 4;
    }
    auto root = parse_alt(0);
    if (!root) {
      return tl::unexpected(root.error());
    }
    if (m_pos < m_p.size()) {
      return fail("unbalanced ')'");
    }
    literal_of(*root);
    // Slot 0/1: the whole match.
    emit({Regex::Op::save, 0, 0});
    if (auto ok = gen(*root); !ok) {
      return ok;
    }
    emit({Regex::Op::save, 1, 0});
    emit({Regex::Op::match, 0, 0});
    if (m_re.m_program.size() > Regex::k_max_program) {
      return make_error(
          ErrorCode::too_large,
          fmt::format("the pattern compiles to {} instructions, more than the limit of {}",
                      m_re.m_program.size(),
                      Regex::k_max_program));
    }
    return {};
  }

private:
  tl::unexpected<Error> fail(std::string_view what) const {
    return make_error(ErrorCode::parse, fmt::format("offset {}: {}", m_pos, what));
  }

  bool at_end() const { return m_pos >= m_p.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(m_p[m_pos]); }

  Expected<Node> parse_alt(int depth) {
    if (depth > k_max_depth) {
      return fail("groups nested too deeply");
    }
    std::vector<Node> branches;
    for (;;) {
      auto branch = parse_concat(depth);
      if (!branch) {
        return branch;
      }
      branches.push_back(std::move(*branch));
      if (at_end() || peek() != '|') {
        break;
      }
      ++m_pos;
    }
    if (branches.size() == 1) {
      return std::move(branches.front());
    }
    Node n;
    n.kind = Node::Kind::alt;
    n.kids = std::move(branches);
    return n;
  }

  Expected<Node> parse_concat(int depth) {
    Node n;
    n.kind = Node::Kind::concat;
    while (!at_end() && peek() != '|' && peek() != ')') {
      auto atom = parse_atom(depth);
      if (!atom) {
        return atom;
      }
      auto repeated = parse_quantifier(std::move(*atom));
      if (!repeated) {
        return repeated;
      }
      n.kids.push_back(std::move(*repeated));
    }
    if (n.kids.size() == 1) {
      return std::move(n.kids.front());
    }
    if (n.kids.empty()) {
      n.kind = Node::Kind::empty;
    }
    return n;
  }

  // Reads "{n}", "{n,}" or "{n,m}" at m_pos; returns false (m_pos unchanged) if it is not one.
  bool parse_count(int& min, int& max) {
    std::size_t i = m_pos + 1;
    auto number = [&](int& out) {
      std::size_t start = i;
      long v = 0;
      while (i < m_p.size() && m_p[i] >= '0' && m_p[i] <= '9' && i - start < 6) {
        v = v * 10 + (m_p[i] - '0');
        ++i;
      }
      out = static_cast<int>(v);
      return i > start;
    };
    if (!number(min)) {
      return false;
    }
    if (i < m_p.size() && m_p[i] == '}') {
      max = min;
    } else if (i < m_p.size() && m_p[i] == ',') {
      ++i;
      if (i < m_p.size() && m_p[i] == '}') {
        max = -1;
      } else if (!number(max) || i >= m_p.size() || m_p[i] != '}') {
        return false;
      }
    } else {
      return false;
    }
    m_pos = i + 1;
    return true;
  }

  Expected<Node> parse_quantifier(Node atom) {
    if (at_end()) {
      return atom;
    }
    int min = 0;
    int max = -1;
    unsigned char c = peek();
    if (c == '*') {
      ++m_pos;
    } else if (c == '+') {
      min = 1;
      ++m_pos;
    } else if (c == '?') {
      max = 1;
      ++m_pos;
    } else if (c == '{') {
      std::size_t start = m_pos;
      if (!parse_count(min, max)) {
        return atom; // a literal '{', as RE2 reads it
      }
      if (min > k_max_count || max > k_max_count) {
        m_pos = start;
        return fail(fmt::format("repetition count above {}", k_max_count));
      }
      if (max != -1 && max < min) {
        m_pos = start;
        return fail("repetition {n,m} with m < n");
      }
    } else {
      return atom;
    }
    if (atom.kind == Node::Kind::empty || atom.kind == Node::Kind::assertion) {
      return fail("nothing to repeat");
    }
    Node n;
    n.kind = Node::Kind::repeat;
    n.min = min;
    n.max = max;
    if (!at_end() && peek() == '?') {
      n.greedy = false;
      ++m_pos;
    }
    if (!at_end() && (peek() == '*' || peek() == '+' || peek() == '?')) {
      return fail("repetition of a repetition");
    }
    if (!at_end() && peek() == '{') {
      std::size_t save = m_pos;
      int a = 0;
      int b = 0;
      if (parse_count(a, b)) {
        m_pos = save;
        return fail("repetition of a repetition");
      }
    }
    n.kids.push_back(std::move(atom));
    return n;
  }

  Node literal_node(unsigned char c) {
    Node n;
    n.kind = Node::Kind::set;
    n.literal = true;
    n.ch = c;
    add_char(n.set, c);
    return n;
  }

  void add_char(Regex::ByteSet& set, unsigned char c) const {
    set.add(c);
    if (m_re.m_ignore_case && c < 0x80 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      set.add(static_cast<unsigned char>(c ^ 0x20));
    }
  }

  static void add_class(Regex::ByteSet& set, char cls) {
    for (int b = 0; b < 256; ++b) {
      auto c = static_cast<unsigned char>(b);
      bool in = false;
      switch (cls) {
      case 'd':
      case 'D':
        in = c >= '0' && c <= '9';
        break;
      case 'w':
      case 'W':
        in = is_word(c);
        break;
      case 's':
      case 'S':
        in = c == ' ' || (c >= '\t' && c <= '\r');
        break;
      default:
        break;
      }
      if (cls >= 'A' && cls <= 'Z') {
        in = !in;
      }
      if (in) {
        set.add(c);
      }
    }
  }

  // Reads the escape after a backslash at m_pos (pointing past it). Sets `cls` to d/w/s/D/W/S
  // for a class escape, else returns the literal byte.
  Expected<unsigned char> parse_escape(char& cls, bool in_class) {
    if (at_end()) {
      return fail("trailing backslash");
    }
    unsigned char c = peek();
    ++m_pos;
    cls = 0;
    switch (c) {
    case 'd':
    case 'w':
    case 's':
    case 'D':
    case 'W':
    case 'S':
      cls = static_cast<char>(c);
      return 0;
    case 't':
      return '\t';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 'x': {
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') {
          return h - '0';
        }
        if (h >= 'a' && h <= 'f') {
          return h - 'a' + 10;
        }
        if (h >= 'A' && h <= 'F') {
          return h - 'A' + 10;
        }
        return -1;
      };
      if (m_pos + 2 > m_p.size() || hex(m_p[m_pos]) < 0 || hex(m_p[m_pos + 1]) < 0) {
        return fail("\\x needs two hex digits");
      }
      auto v = static_cast<unsigned char>(hex(m_p[m_pos]) * 16 + hex(m_p[m_pos + 1]));
      m_pos += 2;
      return v;
    }
    default:
      break;
    }
    if (c == 'b' && in_class) {
      return fail("\\b inside a class");
    }
    if (c < 0x80 && is_word(c)) {
      --m_pos;
      return fail(fmt::format("unknown escape \\{}", static_cast<char>(c)));
    }
    return c; // escaped punctuation (or a non-ASCII byte) stands for itself
  }

  Expected<Node> parse_class() {
    Node n;
    n.kind = Node::Kind::set;
    bool negate = false;
    if (!at_end() && peek() == '^') {
      negate = true;
      ++m_pos;
    }
    Regex::ByteSet set;
    bool first = true;
    for (;;) {
      if (at_end()) {
        return fail("unterminated class '['");
      }
      unsigned char c = peek();
      if (c == ']' && !first) {
        ++m_pos;
        break;
      }
      first = false;
      ++m_pos;
      unsigned char lo = c;
      if (c == '\\') {
        char cls = 0;
        auto e = parse_escape(cls, true);
        if (!e) {
          return tl::unexpected(e.error());
        }
        if (cls != 0) {
          add_class(set, cls);
          continue;
        }
        lo = *e;
      } else if (c >= 0x80) {
        --m_pos;
        return fail("non-ASCII character in a class");
      }
      unsigned char hi = lo;
      if (m_pos + 1 < m_p.size() && peek() == '-' && m_p[m_pos + 1] != ']') {
        ++m_pos;
        unsigned char h = peek();
        ++m_pos;
        if (h == '\\') {
          char cls = 0;
          auto e = parse_escape(cls, true);
          if (!e) {
            return tl::unexpected(e.error());
          }
          if (cls != 0) {
            return fail("class escape as the end of a range");
          }
          h = *e;
        } else if (h >= 0x80) {
          --m_pos;
          return fail("non-ASCII character in a class");
        }
        if (h < lo) {
          return fail("range out of order in a class");
        }
        hi = h;
      }
      for (int b = lo; b <= hi; ++b) {
        add_char(set, static_cast<unsigned char>(b));
      }
    }
    if (negate) {
      for (auto& w : set.bits) {
        w = ~w;
      }
    }
    n.set = set;
    return n;
  }

  Expected<Node> parse_atom(int depth) {
    unsigned char c = peek();
    ++m_pos;
    switch (c) {
    case '(': {
      Node g;
      g.kind = Node::Kind::group;
      if (m_p.substr(m_pos, 2) == "?:") {
        m_pos += 2;
      } else if (m_p.substr(m_pos, 2) == "?<" || m_p.substr(m_pos, 3) == "?P<") {
        m_pos += m_p[m_pos + 1] == 'P' ? 3 : 2;
        std::size_t start = m_pos;
        while (!at_end() && is_word(peek())) {
          ++m_pos;
        }
        if (at_end() || peek() != '>' || m_pos == start) {
          return fail("bad group name");
        }
        std::string name(m_p.substr(start, m_pos - start));
        for (const auto& existing : m_re.m_group_names) {
          if (existing == name) {
            return fail(fmt::format("group name '{}' used twice", name));
          }
        }
        ++m_pos;
        m_re.m_group_names.push_back(std::move(name));
        g.capture = static_cast<int>(m_re.m_group_names.size());
      } else if (!at_end() && peek() == '?') {
        return fail("unsupported group syntax '(?'");
      } else {
        m_re.m_group_names.emplace_back();
        g.capture = static_cast<int>(m_re.m_group_names.size());
      }
      auto inner = parse_alt(depth + 1);
      if (!inner) {
        return inner;
      }
      if (at_end() || peek() != ')') {
        return fail("missing ')'");
      }
      ++m_pos;
      g.kids.push_back(std::move(*inner));
      return g;
    }
    case ')':
      --m_pos;
      return fail("unbalanced ')'");
    case '[':
      return parse_class();
    case '.': {
      Node n;
      n.kind = Node::Kind::set;
      for (int b = 0; b < 256; ++b) {
        if (b != '\n') {
          n.set.add(static_cast<unsigned char>(b));
        }
      }
      return n;
    }
    case '^':
    case '$': {
      Node n;
      n.kind = Node::Kind::assertion;
      n.op = c == '^' ? Regex::Op::assert_begin : Regex::Op::assert_end;
      return n;
    }
    case '*':
    case '+':
    case '?':
      --m_pos;
      return fail("nothing to repeat");
    case '\\': {
      if (!at_end() && (peek() == 'b' || peek() == 'B')) {
        Node n;
        n.kind = Node::Kind::assertion;
        n.op = peek() == 'b' ? Regex::Op::word_boundary : Regex::Op::not_word_boundary;
        ++m_pos;
        return n;
      }
      char cls = 0;
      auto e = parse_escape(cls, false);
      if (!e) {
        return tl::unexpected(e.error());
      }
      if (cls != 0) {
        Node n;
        n.kind = Node::Kind::set;
        add_class(n.set, cls);
        return n;
      }
      return literal_node(*e);
    }
    default:
      return literal_node(c);
    }
  }

  // The longest run of unquantified literal characters directly in the top-level sequence.
  void literal_of(const Node& root) {
    std::string best;
    std::string run;
    auto take = [&](const Node& n) {
      if (n.kind == Node::Kind::set && n.literal) {
        run.push_back(static_cast<char>(m_re.m_ignore_case ? lower(n.ch) : n.ch));
        return;
      }
      if (run.size() > best.size()) {
        best = run;
      }
      run.clear();
    };
    if (root.kind == Node::Kind::concat) {
      for (const auto& k : root.kids) {
        take(k);
      }
    } else {
      take(root);
    }
    if (run.size() > best.size()) {
      best = run;
    }
    m_re.m_literal = std::move(best);
    // The prefix: the run that starts the top-level sequence.
    std::string prefix;
    if (root.kind == Node::Kind::concat) {
      for (const auto& k : root.kids) {
        if (k.kind != Node::Kind::set || !k.literal) {
          break;
        }
        prefix.push_back(static_cast<char>(m_re.m_ignore_case ? lower(k.ch) : k.ch));
      }
    } else if (root.kind == Node::Kind::set && root.literal) {
      prefix.push_back(static_cast<char>(m_re.m_ignore_case ? lower(root.ch) : root.ch));
    }
    m_re.m_prefix = std::move(prefix);
  }

  std::uint32_t emit(Regex::Inst inst) {
    m_re.m_program.push_back(inst);
    return static_cast<std::uint32_t>(m_re.m_program.size() - 1);
  }
  std::uint32_t here() const { return static_cast<std::uint32_t>(m_re.m_program.size()); }

  Expected<void> gen(const Node& n) {
    if (m_re.m_program.size() > Regex::k_max_program) {
      return {}; // reported by run()
    }
    switch (n.kind) {
    case Node::Kind::empty:
      return {};
    case Node::Kind::set: {
      m_re.m_sets.push_back(n.set);
      emit({Regex::Op::byte_set, static_cast<std::uint32_t>(m_re.m_sets.size() - 1), 0});
      return {};
    }
    case Node::Kind::assertion:
      emit({n.op, 0, 0});
      return {};
    case Node::Kind::concat:
      for (const auto& k : n.kids) {
        if (auto ok = gen(k); !ok) {
          return ok;
        }
      }
      return {};
    case Node::Kind::group: {
      if (n.capture > 0) {
        emit({Regex::Op::save, static_cast<std::uint32_t>(2 * n.capture), 0});
      }
      if (auto ok = gen(n.kids.front()); !ok) {
        return ok;
      }
      if (n.capture > 0) {
        emit({Regex::Op::save, static_cast<std::uint32_t>(2 * n.capture + 1), 0});
      }
      return {};
    }
    case Node::Kind::alt: {
      std::vector<std::uint32_t> jumps;
      for (std::size_t i = 0; i < n.kids.size(); ++i) {
        std::uint32_t split = 0;
        bool last = i + 1 == n.kids.size();
        if (!last) {
          split = emit({Regex::Op::split, 0, 0});
        }
        if (!last) {
          m_re.m_program[split].x = here();
        }
        if (auto ok = gen(n.kids[i]); !ok) {
          return ok;
        }
        if (!last) {
          jumps.push_back(emit({Regex::Op::jump, 0, 0}));
          m_re.m_program[split].y = here();
        }
      }
      for (auto j : jumps) {
        m_re.m_program[j].x = here();
      }
      return {};
    }
    case Node::Kind::repeat:
      return gen_repeat(n);
    }
    return {};
  }

  // A split that prefers `first` when greedy.
  void set_split(std::uint32_t at, std::uint32_t body, std::uint32_t out, bool greedy) {
    m_re.m_program[at].x = greedy ? body : out;
    m_re.m_program[at].y = greedy ? out : body;
  }

  Expected<void> gen_repeat(const Node& n) {
    const Node& body = n.kids.front();
    for (int i = 0; i < n.min; ++i) {
      if (auto ok = gen(body); !ok) {
        return ok;
      }
    }
    if (n.max == -1) {
      std::uint32_t loop = emit({Regex::Op::split, 0, 0});
      if (auto ok = gen(body); !ok) {
        return ok;
      }
      emit({Regex::Op::jump, loop, 0});
      set_split(loop, loop + 1, here(), n.greedy);
      return {};
    }
    std::vector<std::uint32_t> splits;
    for (int i = n.min; i < n.max; ++i) {
      std::uint32_t s = emit({Regex::Op::split, 0, 0});
      splits.push_back(s);
      if (auto ok = gen(body); !ok) {
        return ok;
      }
    }
    for (auto s : splits) {
      set_split(s, s + 1, here(), n.greedy);
    }
    return {};
  }

  std::string_view m_p;
  Regex& m_re;
  std::size_t m_pos = 0;
};

Expected<Regex> Regex::compile(std::string_view pattern) {
  Regex re;
  re.m_pattern = std::string(pattern);
  RegexCompiler compiler(pattern, re);
  if (auto ok = compiler.run(); !ok) {
    return tl::unexpected(ok.error());
  }
  return re;
}

std::size_t Regex::group_index(std::string_view name) const {
  for (std::size_t i = 0; i < m_group_names.size(); ++i) {
    if (m_group_names[i] == name) {
      return i + 1;
    }
  }
  return 0;
}

namespace {

// The Pike VM: every thread sits on a consuming instruction; all threads advance one byte
// together, so each byte costs at most one visit per instruction.
// A list of VM threads: their pcs and capture slots.
struct VmList {
  std::vector<std::uint32_t> pcs;
  std::vector<std::size_t> caps;
  std::size_t count = 0;
  std::uint64_t gen = 0; // marks the instructions already on this list
};

struct VmFrame {
  std::uint32_t pc; // PikeVm::k_restore: restore m_caps[slot] = value
  std::uint32_t slot;
  std::size_t value;
};

// The VM's working memory, kept per thread from one search to the next: once it has grown to the
// largest program, a search allocates nothing (explain runs a few patterns on every candidate
// line). Marks left by earlier searches never equal a later generation, which only grows.
struct VmScratch {
  std::vector<std::uint64_t> mark;
  std::uint64_t generation = 0;
  VmList cur;
  VmList next;
  std::vector<std::size_t> caps;
  std::vector<VmFrame> stack;

  VmScratch& fit(std::size_t program, std::size_t slots) {
    if (mark.size() < program) {
      mark.resize(program, 0);
    }
    for (VmList* l : {&cur, &next}) {
      if (l->pcs.size() < program) {
        l->pcs.resize(program);
      }
      if (l->caps.size() < program * slots) {
        l->caps.resize(program * slots);
      }
      l->count = 0;
    }
    caps.assign(slots, RegexMatch::k_npos);
    stack.clear();
    return *this;
  }
};

class PikeVm {
public:
  PikeVm(const std::vector<Regex::Inst>& prog,
         const std::vector<Regex::ByteSet>& sets,
         std::size_t slots,
         std::string_view text,
         std::string_view prefix,
         bool ignore_case,
         VmScratch& scratch)
      : m_prog(prog)
      , m_sets(sets)
      , m_slots(slots)
      , m_text(text)
      , m_prefix(prefix)
      , m_ignore_case(ignore_case)
      , m_mark(scratch.mark)
      , m_generation(scratch.generation)
      , m_cur(scratch.cur)
      , m_next(scratch.next)
      , m_caps(scratch.caps)
      , m_stack(scratch.stack) {}

  static constexpr std::uint32_t k_restore = 0xFFFFFFFF;

  bool run(std::vector<std::size_t>& best) {
    bool matched = false;
    m_cur.gen = ++m_generation;
    for (std::size_t pos = 0; pos <= m_text.size(); ++pos) {
      if (m_cur.count == 0) {
        if (matched) {
          break;
        }
        m_cur.gen = ++m_generation; // forget marks of failed starts
        // No thread alive: a match can only start where the prefix occurs.
        if (!m_prefix.empty()) {
          std::size_t next = find_prefix(pos);
          if (next == std::string_view::npos) {
            break;
          }
          pos = next;
        }
      }
      if (!matched) {
        // The unanchored start: a new thread at every position, below the older ones.
        std::fill(m_caps.begin(), m_caps.end(), RegexMatch::k_npos);
        add(m_cur, 0, pos);
      }
      if (m_cur.count == 0) {
        if (matched) {
          break;
        }
        continue;
      }
      m_next.count = 0;
      m_next.gen = ++m_generation;
      for (std::size_t t = 0; t < m_cur.count; ++t) {
        const auto& inst = m_prog[m_cur.pcs[t]];
        const std::size_t* caps = m_cur.caps.data() + t * m_slots;
        if (inst.op == Regex::Op::match) {
          best.assign(caps, caps + m_slots);
          matched = true;
          break; // lower-priority threads lose to this match
        }
        if (pos < m_text.size() && m_sets[inst.x].has(static_cast<unsigned char>(m_text[pos]))) {
          std::copy(caps, caps + m_slots, m_caps.begin());
          add(m_next, m_cur.pcs[t] + 1, pos + 1);
        }
      }
      std::swap(m_cur, m_next);
    }
    return matched;
  }

private:
  std::size_t find_prefix(std::size_t from) const {
    if (!m_ignore_case) {
      return m_text.find(m_prefix, from);
    }
    const std::size_t n = m_prefix.size();
    for (std::size_t i = from; i + n <= m_text.size(); ++i) {
      std::size_t k = 0;
      while (k < n
             && lower(static_cast<unsigned char>(m_text[i + k]))
                    == static_cast<unsigned char>(m_prefix[k])) {
        ++k;
      }
      if (k == n) {
        return i;
      }
    }
    return std::string_view::npos;
  }

  // Follows the non-consuming instructions from `start` with m_caps, adding the consuming ones
  // reached to `list` in priority order. Iterative: a stack of pcs and of capture restores.
  void add(VmList& list, std::uint32_t start, std::size_t pos) {
    m_stack.clear();
    m_stack.push_back({start, 0, 0});
    while (!m_stack.empty()) {
      VmFrame f = m_stack.back();
      m_stack.pop_back();
      if (f.pc == k_restore) {
        m_caps[f.slot] = f.value;
        continue;
      }
      std::uint32_t pc = f.pc;
      for (;;) {
        if (m_mark[pc] == list.gen) {
          break;
        }
        m_mark[pc] = list.gen;
        const auto& inst = m_prog[pc];
        bool go = true;
        switch (inst.op) {
        case Regex::Op::jump:
          pc = inst.x;
          continue;
        case Regex::Op::split:
          m_stack.push_back({inst.y, 0, 0});
          pc = inst.x;
          continue;
        case Regex::Op::save:
          m_stack.push_back({k_restore, inst.x, m_caps[inst.x]});
          m_caps[inst.x] = pos;
          ++pc;
          continue;
        case Regex::Op::assert_begin:
          go = pos == 0;
          break;
        case Regex::Op::assert_end:
          go = pos == m_text.size();
          break;
        case Regex::Op::word_boundary:
        case Regex::Op::not_word_boundary: {
          bool before = pos > 0 && is_word(static_cast<unsigned char>(m_text[pos - 1]));
          bool after = pos < m_text.size() && is_word(static_cast<unsigned char>(m_text[pos]));
          go = (before != after) == (inst.op == Regex::Op::word_boundary);
          break;
        }
        case Regex::Op::byte_set:
        case Regex::Op::match: {
          std::size_t i = list.count++;
          list.pcs[i] = pc;
          std::copy(m_caps.begin(),
                    m_caps.end(),
                    list.caps.begin() + static_cast<std::ptrdiff_t>(i * m_slots));
          go = false;
          break;
        }
        }
        if (!go) {
          break;
        }
        ++pc;
      }
    }
  }

  const std::vector<Regex::Inst>& m_prog;
  const std::vector<Regex::ByteSet>& m_sets;
  std::size_t m_slots;
  std::string_view m_text;
  std::string_view m_prefix;
  bool m_ignore_case;
  std::vector<std::uint64_t>& m_mark;
  std::uint64_t& m_generation;
  VmList& m_cur;
  VmList& m_next;
  std::vector<std::size_t>& m_caps;
  std::vector<VmFrame>& m_stack;
};

} // namespace

bool Regex::search(std::string_view text, RegexMatch* match) const {
  const std::size_t slots = 2 * (m_group_names.size() + 1);
  thread_local VmScratch scratch;
  PikeVm vm(m_program,
            m_sets,
            slots,
            text,
            m_prefix,
            m_ignore_case,
            scratch.fit(m_program.size(), slots));
  std::vector<std::size_t> best;
  if (!vm.run(best)) {
    return false;
  }
  if (match != nullptr) {
    match->begin = best[0];
    match->end = best[1];
    match->groups.clear();
    for (std::size_t g = 1; g <= m_group_names.size(); ++g) {
      match->groups.emplace_back(best[2 * g], best[2 * g + 1]);
    }
  }
  return true;
}

} // namespace doctor
