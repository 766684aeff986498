// SPDX-License-Identifier: MIT
#include <doctor/kb/render.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::kb {

namespace {

// Walks a template: runs of the template's own text go to `literal`, each {name} to
// `placeholder`, which returns false when it has no value; "{{" and "}}" are literal braces.
// Returns an error for a malformed template or a placeholder without a value.
template<typename Literal, typename Placeholder>
Expected<void> walk(std::string_view text, Literal literal, Placeholder placeholder) {
  if (auto names = placeholders(text); !names) {
    return tl::unexpected(names.error());
  }
  std::string run;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      run += c;
      ++i;
      continue;
    }
    if (c != '{') {
      run += c;
      continue;
    }
    literal(run);
    run.clear();
    const auto close = text.find('}', i);
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (!placeholder(name)) {
      return make_error(ErrorCode::internal, fmt::format("no value for {{{}}}", name));
    }
    i = close;
  }
  literal(run);
  return {};
}

template<typename Pairs>
auto find_named(const Pairs& pairs, std::string_view name) {
  return std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == name; });
}

} // namespace

Expected<std::string> fill(std::string_view text, const Params& params) {
  std::string out;
  out.reserve(text.size());
  auto done = walk(
      text,
      [&](std::string_view run) { out += run; },
      [&](std::string_view name) {
        const auto it = find_named(params, name);
        if (it == params.end()) {
          return false;
        }
        out += it->second;
        return true;
      });
  if (!done) {
    return tl::unexpected(done.error());
  }
  return out;
}

Expected<util::Command>
fill_command(std::string_view text, const Params& params, const CommandParams& commands) {
  util::Command out;
  auto done = walk(
      text,
      [&](std::string_view run) {
        if (!run.empty()) {
          out.text(run);
        }
      },
      [&](std::string_view name) {
        if (const auto command = find_named(commands, name); command != commands.end()) {
          out.append(command->second);
          return true;
        }
        const auto it = find_named(params, name);
        if (it == params.end()) {
          return false;
        }
        out.value(it->second);
        return true;
      });
  if (!done) {
    return tl::unexpected(done.error());
  }
  return out;
}

namespace {

bool tagged(const FindingDraft& draft, std::string_view tag) {
  return std::find(draft.tags.begin(), draft.tags.end(), tag) != draft.tags.end();
}

// The shell a fix's command is written for: its own, else that of the platform the fix is for (a
// Windows fix is a cmd.exe command even where the report's platform is unknown and the draft's
// shell is POSIX; a Linux fix is a POSIX command), else the draft's.
util::Shell shell_of(const FixTemplate& ft, const FindingDraft& draft) {
  if (ft.shell) {
    return *ft.shell;
  }
  if (ft.when == "windows" && draft.shell == util::Shell::posix) {
    return util::Shell::cmd;
  }
  if (ft.when == "linux" && draft.shell != util::Shell::posix) {
    return util::Shell::posix;
  }
  return draft.shell;
}

// Where a draft takes the fixes of both platforms (a log that does not say which it comes from),
// a fix for one of them says so, unless its text already names it.
std::string platform_text(const FixTemplate& ft, const FindingDraft& draft, std::string text) {
  if (!tagged(draft, "windows") || !tagged(draft, "linux")) {
    return text;
  }
  const std::string_view name = ft.when == "windows" ? "Windows"
                                : ft.when == "linux" ? "Linux"
                                                     : "";
  if (name.empty() || text.find(name) != std::string::npos) {
    return text;
  }
  return fmt::format("On {}: {}", name, text);
}

} // namespace

Expected<Finding> render(const KnowledgeBase& kb, const FindingDraft& draft) {
  const FindingTemplate* t = kb.finding(draft.id);
  if (t == nullptr) {
    return make_error(ErrorCode::internal,
                      fmt::format("finding id {} is not in the knowledge base", draft.id));
  }
  Finding f;
  f.id = t->id;
  f.severity = std::max(t->severity, draft.severity.value_or(t->severity));
  f.cause_class = t->cause_class;
  f.title = t->title;
  f.subject = draft.subject;
  f.evidence = draft.evidence;
  auto message = fill(t->message, draft.params);
  if (!message) {
    return make_error(ErrorCode::internal,
                      fmt::format("{}: message: {}", t->id, message.error().message));
  }
  f.message = std::move(*message);
  for (const FixTemplate& ft : t->fixes) {
    if (!ft.when.empty() && !tagged(draft, ft.when)) {
      continue;
    }
    auto text = fill(ft.text, draft.params);
    auto command = fill_command(ft.command, draft.params, draft.commands);
    if (!text || !command) {
      return make_error(ErrorCode::internal,
                        fmt::format("{}: fix: {}",
                                    t->id,
                                    !text ? text.error().message : command.error().message));
    }
    auto line = command->render(shell_of(ft, draft));
    if (!line) {
      // The refusal is part of the advice: the reader learns why there is nothing to paste.
      f.fixes.push_back(
          Fix{fmt::format("{} ({}.)", platform_text(ft, draft, *text), line.error().message), ""});
      continue;
    }
    f.fixes.push_back(Fix{platform_text(ft, draft, std::move(*text)), std::move(*line)});
  }
  return f;
}

} // namespace doctor::kb
