// SPDX-License-Identifier: MIT
#include <doctor/explain/literal_set.hpp>

#include <algorithm>
#include <deque>

namespace doctor::explain {

namespace {

unsigned char fold(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
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
