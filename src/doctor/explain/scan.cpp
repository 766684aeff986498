// SPDX-License-Identifier: MIT
#include <doctor/explain/hard_wrap.hpp>
#include <doctor/explain/scan.hpp>

#include <algorithm>
#include <cstring>
#include <future>
#include <optional>
#include <thread>

namespace doctor::explain {

namespace {

void merge(util::DecodeInfo& into, const util::DecodeInfo& from) {
  into.crlf_seen = into.crlf_seen || from.crlf_seen;
  into.ansi_removed = into.ansi_removed || from.ansi_removed;
  into.syslog_expanded = into.syslog_expanded || from.syslog_expanded;
  into.replacements += from.replacements;
  into.cut_lines += from.cut_lines;
}

class Scanner {
public:
  Scanner(Analysis& analysis, const ScanOptions& options)
      : m_analysis(analysis)
      , m_chunk(std::max<std::size_t>(options.chunk_bytes, util::k_sniff_bytes))
      , m_fast(options.fast_path)
      , m_threads(std::clamp<std::size_t>(options.threads, 1, 8)) {}

  Expected<void> run(const std::string& name, const ReadFn& read) {
    m_analysis.begin_input(name);
    auto status = read_all(read);
    close_head();
    m_info.wrap_width = m_wrap_width;
    m_info.wrap_joined = m_wrap_joined;
    m_analysis.end_input(m_info, m_bytes, m_next_line - 1, m_fast);
    return status;
  }

private:
  // Every decoded line goes here. The lines of the head are held until it ends, so that lines a
  // console cut at its width can be joined (hard_wrap.hpp) before they are matched; the rest go
  // to the analysis at once.
  void feed(const util::TextLine& line) {
    if (!m_head_open) {
      m_analysis.add_line(line);
      return;
    }
    m_head_buffered += line.text.size() + 1;
    m_head.push_back(line);
    if (m_head_buffered >= k_head_bytes) {
      close_head();
    }
  }

  void close_head() {
    if (!m_head_open) {
      return;
    }
    m_head_open = false;
    m_wrap_joined = join_hard_wraps(m_head, &m_wrap_width);
    join_continued_commands(m_head);
    join_form_fields(m_head);
    for (const util::TextLine& line : m_head) {
      m_analysis.add_line(line);
    }
    m_head = {};
  }

  Expected<void> read_all(const ReadFn& read) {
    // The sample decides the encoding, exactly as TextDecoder does.
    m_buf.resize(m_chunk);
    bool eof = false;
    while (m_len < util::k_sniff_bytes && !eof) {
      auto got = read(m_buf.data() + m_len, m_buf.size() - m_len);
      if (!got) {
        return finish_with(got.error());
      }
      eof = *got == 0;
      m_len += *got;
      m_bytes += *got;
    }
    util::TextDecoder probe([](const util::TextLine&) {});
    probe.feed(std::string_view(m_buf.data(), std::min(m_len, util::k_sniff_bytes)));
    if (m_len < util::k_sniff_bytes) {
      probe.finish();
    }
    m_info.encoding = probe.info().encoding;
    m_info.bom = probe.info().bom;
    m_fast = m_fast && m_info.encoding == util::Encoding::utf8;
    if (!m_fast) {
      return slow(read, eof);
    }

    std::size_t start = m_info.bom ? 3 : 0;
    if (start > 0) {
      m_buf.erase(0, start);
      m_len -= start;
    }
    for (;;) {
      if (!eof && !m_long) {
        // The next read goes on a thread while this block's lines are scanned: the copy out of
        // the page cache costs about a tenth of the scan, and would leave the other cores idle.
        const std::size_t last_lf = std::string_view(m_buf.data(), m_len).rfind('\n');
        if (last_lf != std::string_view::npos) {
          const std::size_t whole = last_lf + 1;
          const std::size_t rest = m_len - whole;
          m_spare.resize(std::max(m_spare.size(), rest + m_chunk));
          std::memcpy(m_spare.data(), m_buf.data() + whole, rest);
          auto next = std::async(std::launch::async, [&read, this, rest] {
            return read(m_spare.data() + rest, m_chunk);
          });
          whole_lines(std::string_view(m_buf.data(), whole));
          auto got = next.get();
          std::swap(m_buf, m_spare);
          m_len = rest;
          if (!took(got, eof)) {
            return tl::unexpected(got.error());
          }
          continue;
        }
      }
      process(eof);
      if (eof) {
        break;
      }
      if (m_buf.size() < m_len + m_chunk) {
        m_buf.resize(m_len + m_chunk);
      }
      auto got = read(m_buf.data() + m_len, m_chunk);
      if (!took(got, eof)) {
        return tl::unexpected(got.error());
      }
    }
    return {};
  }

  // Counts what a read of the fast path appended to m_buf, or, when it failed, finishes the
  // lines already read and returns false.
  bool took(const Expected<std::size_t>& got, bool& eof) {
    if (!got) {
      process(true);
      return false;
    }
    eof = *got == 0;
    m_len += *got;
    m_bytes += *got;
    return true;
  }

  Expected<void> finish_with(const Error& e) {
    m_fast = false;
    util::TextDecoder d([this](const util::TextLine& l) { feed(l); });
    d.feed(std::string_view(m_buf.data(), m_len));
    d.finish();
    m_info = d.info();
    m_next_line = d.next_line_number();
    return tl::unexpected(e);
  }

  // Every line through the decoder: other encodings, or the fast path turned off.
  Expected<void> slow(const ReadFn& read, bool eof) {
    util::TextDecoder d([this](const util::TextLine& l) { feed(l); });
    d.feed(std::string_view(m_buf.data(), m_len));
    std::optional<Error> error;
    while (!eof) {
      auto got = read(m_buf.data(), m_buf.size());
      if (!got) {
        error = got.error();
        break;
      }
      eof = *got == 0;
      m_bytes += *got;
      d.feed(std::string_view(m_buf.data(), *got));
    }
    d.finish();
    m_info = d.info();
    m_next_line = d.next_line_number();
    if (error) {
      return tl::unexpected(*error);
    }
    return {};
  }

  // Decodes `block` (whole lines; the last may lack its LF only at the end of the input) through
  // a decoder numbering from m_next_line.
  void decode_block(std::string_view block) {
    util::TextDecoder d([this](const util::TextLine& l) { feed(l); });
    d.force_encoding(util::Encoding::utf8);
    d.set_next_line_number(m_next_line);
    d.feed(block);
    d.finish();
    m_next_line = d.next_line_number();
    merge(m_info, d.info());
  }

  // Handles the complete lines in m_buf[0, m_len); at the end of the input, the rest too.
  void process(bool eof) {
    std::string_view data(m_buf.data(), m_len);
    if (m_long) {
      // Inside a line longer than the buffer: the decoder takes it up to its LF.
      std::size_t lf = data.find('\n');
      m_long->feed(data.substr(0, lf == std::string_view::npos ? data.size() : lf + 1));
      if (lf == std::string_view::npos && !eof) {
        m_len = 0;
        return;
      }
      m_long->finish();
      m_next_line = m_long->next_line_number();
      merge(m_info, m_long->info());
      m_long.reset();
      std::size_t used = lf == std::string_view::npos ? data.size() : lf + 1;
      consume(used);
      data = std::string_view(m_buf.data(), m_len);
    }
    std::size_t last_lf = data.rfind('\n');
    std::size_t whole = last_lf == std::string_view::npos ? 0 : last_lf + 1;
    if (whole > 0) {
      whole_lines(data.substr(0, whole));
      consume(whole);
      data = std::string_view(m_buf.data(), m_len);
    }
    if (eof) {
      if (!data.empty()) {
        decode_block(data);
      }
      m_len = 0;
      return;
    }
    if (m_len >= m_chunk) {
      // One line fills the buffer: stream it through a decoder, which caps it.
      m_long.emplace([this](const util::TextLine& l) { feed(l); });
      m_long->force_encoding(util::Encoding::utf8);
      m_long->set_next_line_number(m_next_line);
      m_long->feed(data);
      m_len = 0;
    }
  }

  // Handles `block`, whole lines ending in LF. The input's first k_head_bytes go through the
  // decoder line by line, so that the analysis sees every line of the head (the pasted context
  // of a report: versions, nvidia-smi, pip list), not only the prefilter's candidates.
  void whole_lines(std::string_view block) {
    if (m_head_left > 0) {
      std::size_t cut = block.size();
      if (block.size() > m_head_left) {
        const std::size_t lf = block.find('\n', m_head_left - 1);
        cut = lf == std::string_view::npos ? block.size() : lf + 1;
      }
      m_head_left = cut >= m_head_left ? 0 : m_head_left - cut;
      decode_block(block.substr(0, cut));
      block.remove_prefix(cut);
      if (block.empty()) {
        return;
      }
    }
    close_head();
    if (!fast_block(block)) {
      decode_block(block);
    }
  }

  void consume(std::size_t n) {
    std::memmove(m_buf.data(), m_buf.data() + n, m_len - n);
    m_len -= n;
  }

  // Lines of `block` (ending in LF) without a candidate literal are only counted. Returns false,
  // having done nothing, when the block holds an ESC byte: the decoder must take it.
  bool fast_block(std::string_view block) {
    if (!find_candidates(block)) {
      return false;
    }
    for (const PartScan& part : m_parts) {
      for (std::size_t i = 0; i < part.lines.size(); ++i) {
        m_next_line += part.lf_before[i];
        const auto [line_start, line_end] = part.lines[i];
        if (!plain_line(block.substr(line_start, line_end - line_start))) {
          decode_block(block.substr(line_start, line_end - line_start + 1));
        }
      }
      m_next_line += part.lf_after;
    }
    return true;
  }

  // A candidate line (without its LF, in a block without ESC) that the decoder would pass
  // through unchanged but for one CR before the LF: valid UTF-8, no rsyslog #012, shorter than
  // the cap. It goes to the analysis as it is, without a decoder; false for any other line.
  bool plain_line(std::string_view raw) {
    if (raw.size() > util::k_max_line_bytes - util::k_cut_marker.size()
        || raw.find("#012") != std::string_view::npos || !util::is_valid_utf8(raw)) {
      return false;
    }
    if (raw.ends_with('\r')) {
      raw.remove_suffix(1);
      m_info.crlf_seen = true;
    }
    m_line.number = m_next_line++;
    m_line.text.assign(raw);
    feed(m_line);
    return true;
  }

  // What the prefilter found in one part of a block: its candidate lines (offsets in the block)
  // and the LFs around them, so that line numbers need no second pass over the block.
  struct PartScan {
    bool esc = false;
    std::vector<std::pair<std::size_t, std::size_t>> lines;
    std::vector<std::size_t> lf_before; // LFs between the previous candidate's LF and this line
    std::size_t lf_after = 0;           // LFs after the last candidate's LF
  };

  // Scans block[begin, end) (whole lines) into `out`: stops early at an ESC byte.
  static void scan_part(const LiteralSet& literals,
                        std::string_view block,
                        std::size_t begin,
                        std::size_t end,
                        PartScan& out) {
    out.lines.clear();
    out.lf_before.clear();
    out.lf_after = 0;
    const std::string_view part = block.substr(begin, end - begin);
    out.esc = part.find('\x1b') != std::string_view::npos;
    if (out.esc) {
      return;
    }
    literals.candidate_lines(part, out.lines);
    std::size_t counted = 0;
    for (auto& [line_start, line_end] : out.lines) {
      out.lf_before.push_back(count_lf(part.substr(counted, line_start - counted)));
      counted = line_end + 1;
      line_start += begin;
      line_end += begin;
    }
    out.lf_after = count_lf(part.substr(counted));
  }

  // The prefilter over `block`, on up to m_threads cores: the block is cut at LFs into parts that
  // are scanned at once, each by scan_part(), into m_parts. Returns false if the block holds an
  // ESC byte.
  bool find_candidates(std::string_view block) {
    const LiteralSet& literals = m_analysis.matcher().literals();
    const std::size_t parts = block.size() < k_parallel_min ? 1 : m_threads;
    m_parts.resize(parts);
    std::vector<std::size_t> cut{0};
    for (std::size_t k = 1; k < parts; ++k) {
      std::size_t want = std::max(cut.back(), block.size() * k / parts);
      std::size_t lf = want == 0 ? 0 : block.find('\n', want - 1);
      cut.push_back(lf == std::string_view::npos ? block.size() : lf + 1);
    }
    cut.push_back(block.size());
    std::vector<std::future<void>> workers;
    for (std::size_t k = 1; k < parts; ++k) {
      workers.push_back(std::async(std::launch::async, [&, k] {
        scan_part(literals, block, cut[k], cut[k + 1], m_parts[k]);
      }));
    }
    scan_part(literals, block, cut[0], cut[1], m_parts[0]);
    for (auto& w : workers) {
      w.get();
    }
    return std::none_of(m_parts.begin(), m_parts.end(), [](const PartScan& p) { return p.esc; });
  }

  // Counts LF bytes 16 at a time with the compilers' vector extension (GCC and Clang, which
  // build every target here): a lane of `v == lf` is -1 where an LF was, so subtracting it
  // counts in each byte lane, summed before a lane could pass 255.
  static std::size_t count_lf(std::string_view s) {
    using Bytes = unsigned char __attribute__((vector_size(16)));
    constexpr std::size_t k_width = 16;
    constexpr std::size_t k_max_rounds = 255;
    Bytes lf;
    for (std::size_t k = 0; k < k_width; ++k) {
      lf[k] = '\n';
    }
    std::size_t n = 0;
    std::size_t i = 0;
    while (i + k_width <= s.size()) {
      Bytes lanes = {};
      const std::size_t rounds = std::min((s.size() - i) / k_width, k_max_rounds);
      for (std::size_t r = 0; r < rounds; ++r, i += k_width) {
        Bytes v;
        std::memcpy(&v, s.data() + i, k_width);
        lanes -= reinterpret_cast<Bytes>(v == lf);
      }
      for (std::size_t k = 0; k < k_width; ++k) {
        n += lanes[k];
      }
    }
    for (; i < s.size(); ++i) {
      n += s[i] == '\n' ? 1 : 0;
    }
    return n;
  }

  // Blocks smaller than this are scanned on one thread.
  static constexpr std::size_t k_parallel_min = std::size_t{1} << 20;

  Analysis& m_analysis;
  std::size_t m_chunk;
  bool m_fast;
  std::size_t m_head_left = k_head_bytes;
  std::size_t m_threads;
  util::DecodeInfo m_info;
  std::uint64_t m_bytes = 0;
  std::size_t m_next_line = 1;
  std::string m_buf;
  std::string m_spare; // the next read goes here while m_buf is scanned
  std::size_t m_len = 0;
  std::optional<util::TextDecoder> m_long;
  std::vector<PartScan> m_parts;
  util::TextLine m_line; // the plain candidate line being matched
  bool m_head_open = true;
  std::vector<util::TextLine> m_head; // the head's lines, until it ends (feed())
  std::size_t m_head_buffered = 0;
  std::size_t m_wrap_width = 0; // what join_hard_wraps() found in the head
  std::size_t m_wrap_joined = 0;
};

} // namespace

std::size_t default_scan_threads() {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
}

Expected<void> scan_input(const std::string& name,
                          const ReadFn& read,
                          Analysis& analysis,
                          const ScanOptions& options) {
  Scanner scanner(analysis, options);
  return scanner.run(name, read);
}

void scan_text(const std::string& name,
               std::string_view bytes,
               Analysis& analysis,
               const ScanOptions& options) {
  std::size_t offset = 0;
  ReadFn read = [&](char* buffer, std::size_t size) -> Expected<std::size_t> {
    std::size_t n = std::min(size, bytes.size() - offset);
    std::memcpy(buffer, bytes.data() + offset, n);
    offset += n;
    return n;
  };
  (void)scan_input(name, read, analysis, options);
}

} // namespace doctor::explain
