// SPDX-License-Identifier: MIT
#include <doctor/explain/literal_set.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <tuple>

namespace doctor::explain {

namespace {

unsigned char fold(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

// The filter's bit tables: 2^17 bits (16 KB) for 8-byte q-grams, 2^14 (2 KB) for short ones
// (the few literals shorter than the stride plus 7). Sparse enough that a random q-gram passes
// well under 1 % of the time, small enough to stay in the L1 cache.
constexpr unsigned k_filter_log2 = 17;
constexpr unsigned k_short_filter_log2 = 14;
constexpr std::size_t k_max_stride = 16;
constexpr std::size_t k_long = 8;  // bytes in a long literal's q-gram
constexpr std::size_t k_short = 4; // at most, in a short literal's

// The eight bytes at `p` (fewer at the end of the text, the rest zero) as a little-endian word,
// each byte with bit 5 set: a lossy case fold (it also merges '@' with '`' and others), which
// only makes the filter pass more often; the comparison afterwards is exact.
std::uint64_t gram_word(const unsigned char* p, std::size_t avail) {
  std::uint64_t x = 0;
  std::memcpy(&x, p, std::min(avail, k_long));
  if constexpr (std::endian::native == std::endian::big) {
    x = __builtin_bswap64(x);
  }
  return x | 0x2020202020202020ULL;
}

// The same for a whole word (`p` has eight bytes).
std::uint64_t gram_word(const unsigned char* p) {
  std::uint64_t x = 0;
  std::memcpy(&x, p, k_long);
  if constexpr (std::endian::native == std::endian::big) {
    x = __builtin_bswap64(x);
  }
  return x | 0x2020202020202020ULL;
}

std::uint64_t mask_of(std::size_t bytes) {
  return bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
}

template<unsigned Log2>
std::uint32_t filter_hash(std::uint64_t key) {
  return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - Log2));
}

template<unsigned Log2>
void set_bit(std::vector<std::uint64_t>& bits, std::uint64_t key) {
  const std::uint32_t h = filter_hash<Log2>(key);
  bits[h >> 6] |= std::uint64_t{1} << (h & 63);
}

template<unsigned Log2>
std::uint64_t test_bit(const std::uint64_t* bits, std::uint64_t key) {
  const std::uint32_t h = filter_hash<Log2>(key);
  return (bits[h >> 6] >> (h & 63)) & 1U;
}

std::size_t slot_hash(std::uint64_t key, unsigned log2) {
  return static_cast<std::size_t>((key * 0xC2B2AE3D27D4EB4FULL) >> (64 - log2));
}

// How often a byte turns up in logs, roughly (0 rare .. 10 everywhere): a literal offers its
// q-grams of the rarest-looking bytes, so that ordinary lines seldom pass the filter.
int commonness(unsigned char c) {
  c = fold(c);
  if (c == ' ') {
    return 10;
  }
  if (c >= '0' && c <= '9') {
    return 6;
  }
  if (c >= 0x80) {
    return 1;
  }
  const std::string_view very("etaoinsr");
  const std::string_view often("hldcum.:/,_-=()[]'\"");
  const std::string_view sometimes("fpgwybv");
  if (very.find(static_cast<char>(c)) != std::string_view::npos) {
    return 7;
  }
  if (often.find(static_cast<char>(c)) != std::string_view::npos) {
    return 5;
  }
  if (sometimes.find(static_cast<char>(c)) != std::string_view::npos) {
    return 3;
  }
  return (c >= 'a' && c <= 'z') ? 1 : 2;
}

} // namespace

LiteralSet::LiteralSet(const std::vector<std::string>& literals) {
  // Byte classes: every byte of a literal (either case) gets a class; all others share class 0.
  for (const std::string& lit : literals) {
    for (char ch : lit) {
      auto c = fold(static_cast<unsigned char>(ch));
      if (m_class[c] == 0) {
        auto cls = static_cast<std::uint8_t>(m_classes++);
        m_class[c] = cls;
        if (c >= 'a' && c <= 'z') {
          m_class[c - 'a' + 'A'] = cls;
        }
      }
    }
  }
  // The trie. trie[s * classes + c] = child or -1.
  std::vector<std::int32_t> trie(m_classes, -1);
  std::vector<std::vector<std::uint32_t>> own(1);
  std::size_t states = 1;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if (literals[i].empty()) {
      continue;
    }
    ++m_literal_count;
    std::size_t s = 0;
    for (char ch : literals[i]) {
      std::uint32_t c = m_class[static_cast<unsigned char>(ch)];
      std::int32_t& child = trie[s * m_classes + c];
      if (child < 0) {
        child = static_cast<std::int32_t>(states++);
        trie.resize(states * m_classes, -1);
        own.emplace_back();
      }
      s = static_cast<std::size_t>(trie[s * m_classes + c]);
    }
    own[s].push_back(static_cast<std::uint32_t>(i));
  }
  m_states = states;
  // Breadth first: failure links, the dense transitions, and each state's output list.
  std::vector<std::uint32_t> fail(states, 0);
  std::vector<std::vector<std::uint32_t>> out(states);
  std::vector<std::uint32_t> next(states * m_classes, 0);
  std::deque<std::uint32_t> queue;
  for (std::uint32_t c = 0; c < m_classes; ++c) {
    std::int32_t child = trie[c];
    if (child > 0) {
      next[c] = static_cast<std::uint32_t>(child);
      fail[static_cast<std::size_t>(child)] = 0;
      queue.push_back(static_cast<std::uint32_t>(child));
    }
  }
  out[0] = own[0];
  while (!queue.empty()) {
    std::uint32_t s = queue.front();
    queue.pop_front();
    out[s] = own[s];
    out[s].insert(out[s].end(), out[fail[s]].begin(), out[fail[s]].end());
    for (std::uint32_t c = 0; c < m_classes; ++c) {
      std::int32_t child = trie[s * m_classes + c];
      if (child > 0) {
        auto u = static_cast<std::uint32_t>(child);
        fail[u] = next[fail[s] * m_classes + c];
        next[s * m_classes + c] = u;
        queue.push_back(u);
      } else {
        next[s * m_classes + c] = next[fail[s] * m_classes + c];
      }
    }
  }
  m_table.resize(states * m_classes);
  for (std::size_t i = 0; i < next.size(); ++i) {
    std::uint32_t t = next[i];
    m_table[i] = static_cast<std::uint32_t>(t * m_classes) << 1 | (out[t].empty() ? 0U : 1U);
  }
  m_out_begin.reserve(states + 1);
  for (std::size_t s = 0; s < states; ++s) {
    m_out_begin.push_back(static_cast<std::uint32_t>(m_out.size()));
    m_out.insert(m_out.end(), out[s].begin(), out[s].end());
  }
  m_out_begin.push_back(static_cast<std::uint32_t>(m_out.size()));
  build_filter(literals);
}

void LiteralSet::build_filter(const std::vector<std::string>& literals) {
  for (const std::string& lit : literals) {
    if (lit.empty()) {
      continue;
    }
    if (lit.find('\n') != std::string::npos) {
      // Such a literal spans lines; the DFA, which does not stop at LFs, keeps its meaning.
      m_stride = 0;
      m_folded.clear();
      return;
    }
    std::string f(lit);
    for (char& c : f) {
      c = static_cast<char>(fold(static_cast<unsigned char>(c)));
    }
    m_folded.push_back(std::move(f));
  }
  if (m_folded.empty()) {
    return;
  }
  std::sort(m_folded.begin(), m_folded.end());
  m_folded.erase(std::unique(m_folded.begin(), m_folded.end()), m_folded.end());
  std::size_t shortest = m_folded.front().size();
  for (const std::string& f : m_folded) {
    shortest = std::min(shortest, f.size());
  }
  m_short = std::min(shortest, k_short);
  m_short_mask = mask_of(m_short);
  m_stride = std::min(shortest - m_short + 1, k_max_stride);

  // For each literal and each residue of an offset modulo the stride, its rarest q-gram there.
  std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>>
      grams; // key, literal, offset
  for (std::size_t i = 0; i < m_folded.size(); ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(m_folded[i].data());
    const std::size_t size = m_folded[i].size();
    const std::size_t q = size >= m_stride + k_long - 1 ? k_long : m_short;
    m_any_short = m_any_short || q != k_long;
    for (std::size_t r = 0; r < m_stride; ++r) {
      std::size_t best = r;
      int best_score = 1 << 30;
      for (std::size_t j = r; j + q <= size; j += m_stride) {
        int score = 0;
        for (std::size_t k = 0; k < q; ++k) {
          score += commonness(p[j + k]);
        }
        if (score < best_score) {
          best = j;
          best_score = score;
        }
      }
      grams.emplace_back(gram_word(p + best, size - best) & mask_of(q),
                         static_cast<std::uint32_t>(i),
                         static_cast<std::uint32_t>(best));
    }
  }
  std::sort(grams.begin(), grams.end());
  grams.erase(std::unique(grams.begin(), grams.end()), grams.end());

  std::size_t distinct = 0;
  for (std::size_t i = 0; i < grams.size(); ++i) {
    distinct += (i == 0 || std::get<0>(grams[i]) != std::get<0>(grams[i - 1])) ? 1 : 0;
  }
  m_slot_log2 = 4;
  while ((std::size_t{1} << m_slot_log2) < 2 * distinct) {
    ++m_slot_log2;
  }
  m_slots.assign(std::size_t{1} << m_slot_log2, GramSlot{});
  m_bits.assign((std::size_t{1} << k_filter_log2) / 64, 0);
  m_short_bits.assign((std::size_t{1} << k_short_filter_log2) / 64, 0);
  for (std::size_t i = 0; i < grams.size();) {
    const std::uint64_t key = std::get<0>(grams[i]);
    GramSlot slot;
    slot.key = key;
    slot.begin = static_cast<std::uint32_t>(m_refs.size());
    for (; i < grams.size() && std::get<0>(grams[i]) == key; ++i) {
      m_refs.push_back(GramRef{std::get<1>(grams[i]), std::get<2>(grams[i])});
    }
    slot.end = static_cast<std::uint32_t>(m_refs.size());
    std::size_t at = slot_hash(key, m_slot_log2);
    while (m_slots[at].begin != m_slots[at].end) {
      at = (at + 1) & (m_slots.size() - 1);
    }
    m_slots[at] = slot;
    // An 8-byte q-gram has bit 5 set in its top byte; a short one has a zero top byte.
    if ((key >> 56) != 0) {
      set_bit<k_filter_log2>(m_bits, key);
    } else {
      set_bit<k_short_filter_log2>(m_short_bits, key);
    }
  }
}

bool LiteralSet::verify(std::string_view block,
                        std::size_t p,
                        std::uint64_t key,
                        std::size_t& at) const {
  std::size_t s = slot_hash(key, m_slot_log2);
  for (;; s = (s + 1) & (m_slots.size() - 1)) {
    const GramSlot& slot = m_slots[s];
    if (slot.begin == slot.end) {
      return false;
    }
    if (slot.key == key) {
      break;
    }
  }
  const GramSlot& slot = m_slots[s];
  const auto* b = reinterpret_cast<const unsigned char*>(block.data());
  for (std::uint32_t r = slot.begin; r < slot.end; ++r) {
    const GramRef ref = m_refs[r];
    const std::string& lit = m_folded[ref.literal];
    if (p < ref.offset || p - ref.offset + lit.size() > block.size()) {
      continue;
    }
    const unsigned char* t = b + (p - ref.offset);
    std::size_t k = 0;
    while (k < lit.size() && fold(t[k]) == static_cast<unsigned char>(lit[k])) {
      ++k;
    }
    if (k == lit.size()) {
      at = p - ref.offset;
      return true;
    }
  }
  return false;
}

std::size_t LiteralSet::find_first(std::string_view text) const {
  if (m_literal_count == 0) {
    return k_npos;
  }
  const std::uint32_t* table = m_table.data();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::uint32_t s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t e = table[s + m_class[p[i]]];
    s = e >> 1;
    if ((e & 1U) != 0) {
      return i + 1;
    }
  }
  return k_npos;
}

void LiteralSet::candidate_lines(std::string_view block,
                                 std::vector<std::pair<std::size_t, std::size_t>>& out) const {
  if (m_literal_count == 0 || block.empty()) {
    return;
  }
  if (m_stride == 0) {
    dfa_candidate_lines(block, out);
  } else if (m_any_short) {
    filter_candidate_lines<true>(block, out);
  } else {
    filter_candidate_lines<false>(block, out);
  }
}

// The sampling loop of the q-gram filter. `Short`: some literals offer short q-grams, so each
// sample is looked up twice, as an 8-byte and as an m_short-byte q-gram.
template<bool Short>
void LiteralSet::filter_candidate_lines(
    std::string_view block, std::vector<std::pair<std::size_t, std::size_t>>& out) const {
  const auto* b = reinterpret_cast<const unsigned char*>(block.data());
  const std::size_t n = block.size();
  const std::size_t stride = m_stride;
  const std::uint64_t* bits = m_bits.data();
  const std::uint64_t* short_bits = m_short_bits.data();
  const std::uint64_t short_mask = m_short_mask;
  auto passes = [&](std::uint64_t x) {
    if constexpr (Short) {
      return test_bit<k_filter_log2>(bits, x)
             | test_bit<k_short_filter_log2>(short_bits, x & short_mask);
    } else {
      return test_bit<k_filter_log2>(bits, x);
    }
  };
  // Whether the sample at `p` holds the q-gram of a literal that occurs there; `at`: its start.
  auto hit = [&](std::size_t p, std::size_t& at) {
    const std::uint64_t x = gram_word(b + p, n - p);
    if (test_bit<k_filter_log2>(bits, x) != 0 && verify(block, p, x, at)) {
      return true;
    }
    if constexpr (Short) {
      return test_bit<k_short_filter_log2>(short_bits, x & short_mask) != 0
             && verify(block, p, x & short_mask, at);
    }
    return false;
  };
  // Records the line holding the literal found at `at` and returns where sampling goes on: the
  // rest of the line is a candidate already, so at the start of the next one.
  auto take_line = [&](std::size_t at) {
    const std::size_t lf = at == 0 ? std::string_view::npos : block.rfind('\n', at - 1);
    const std::size_t line_start = lf == std::string_view::npos ? 0 : lf + 1;
    const std::size_t line_end = std::min(block.find('\n', at), n);
    out.emplace_back(line_start, line_end);
    return line_end + 1;
  };
  std::size_t p = 0;
  // Four samples at a time while whole words can be read; most lines pass here untouched.
  while (p + 3 * stride + k_long <= n) {
    const std::uint64_t any = passes(gram_word(b + p)) | passes(gram_word(b + p + stride)) << 1
                              | passes(gram_word(b + p + 2 * stride)) << 2
                              | passes(gram_word(b + p + 3 * stride)) << 3;
    if (any == 0) {
      p += 4 * stride;
      continue;
    }
    std::size_t next = p + 4 * stride;
    for (std::size_t k = 0; k < 4; ++k) {
      std::size_t at = 0;
      if (((any >> k) & 1U) != 0 && hit(p + k * stride, at)) {
        next = take_line(at);
        break;
      }
    }
    p = next;
  }
  // The last few samples, one at a time.
  while (p + m_short <= n) {
    std::size_t at = 0;
    if (hit(p, at)) {
      p = take_line(at);
      continue;
    }
    p += stride;
  }
}

void LiteralSet::dfa_candidate_lines(std::string_view block,
                                     std::vector<std::pair<std::size_t, std::size_t>>& out) const {
  constexpr std::size_t k_streams = 4;
  const auto* b = reinterpret_cast<const unsigned char*>(block.data());
  const std::size_t n = block.size();
  // Part k is [start[k], stop[k]); parts end after an LF, so no line is split.
  std::size_t start[k_streams];
  std::size_t stop[k_streams];
  start[0] = 0;
  for (std::size_t k = 1; k < k_streams; ++k) {
    std::size_t want = std::max(start[k - 1], n * k / k_streams);
    std::size_t lf = want == 0 ? 0 : block.find('\n', want - 1);
    start[k] = lf == std::string_view::npos ? n : lf + 1;
    stop[k - 1] = start[k];
  }
  stop[k_streams - 1] = n;
  std::size_t pos[k_streams];
  std::uint32_t state[k_streams] = {};
  std::vector<std::pair<std::size_t, std::size_t>> found[k_streams];
  for (std::size_t k = 0; k < k_streams; ++k) {
    pos[k] = start[k];
  }
  const std::uint32_t* table = m_table.data();

  // A literal ended just before pos[k]: record its line and go on after it.
  auto hit = [&](std::size_t k) {
    std::size_t last = pos[k] - 1;
    std::size_t line_start = last;
    while (line_start > start[k] && b[line_start - 1] != '\n') {
      --line_start;
    }
    std::size_t line_end = block.find('\n', last);
    found[k].emplace_back(line_start, line_end);
    pos[k] = line_end + 1;
    state[k] = 0;
  };
  for (;;) {
    std::size_t steps = static_cast<std::size_t>(-1);
    for (std::size_t k = 0; k < k_streams; ++k) {
      steps = std::min(steps, stop[k] - pos[k]);
    }
    if (steps == 0) {
      break;
    }
    bool any = false;
    for (std::size_t i = 0; i < steps && !any; ++i) {
      std::uint32_t e[k_streams];
#pragma GCC unroll 4
      for (std::size_t k = 0; k < k_streams; ++k) {
        e[k] = table[state[k] + m_class[b[pos[k]]]];
        state[k] = e[k] >> 1;
        ++pos[k];
      }
      any = ((e[0] | e[1] | e[2] | e[3]) & 1U) != 0;
      if (any) {
        for (std::size_t k = 0; k < k_streams; ++k) {
          if ((e[k] & 1U) != 0) {
            hit(k);
          }
        }
      }
    }
  }
  // The parts that are left, one at a time.
  for (std::size_t k = 0; k < k_streams; ++k) {
    while (pos[k] < stop[k]) {
      std::uint32_t e = table[state[k] + m_class[b[pos[k]]]];
      state[k] = e >> 1;
      ++pos[k];
      if ((e & 1U) != 0) {
        hit(k);
      }
    }
    out.insert(out.end(), found[k].begin(), found[k].end());
  }
}

void LiteralSet::find_all(std::string_view text, std::vector<std::uint32_t>& out) const {
  if (m_literal_count == 0) {
    return;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::uint32_t s = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::uint32_t e = m_table[s + m_class[p[i]]];
    s = e >> 1;
    if ((e & 1U) != 0) {
      std::size_t state = s / m_classes;
      for (std::uint32_t k = m_out_begin[state]; k < m_out_begin[state + 1]; ++k) {
        out.push_back(m_out[k]);
      }
    }
  }
}

} // namespace doctor::explain
