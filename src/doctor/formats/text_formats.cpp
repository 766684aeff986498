// SPDX-License-Identifier: MIT
#include <doctor/formats/text_formats.hpp>
#include <doctor/util/strings.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace doctor::formats {

namespace {

// Returns the first whitespace-separated token of `s` that is a dotted version with 2+ parts.
std::optional<std::string> first_version_token(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') {
      ++i;
    }
    const std::string_view token = s.substr(start, i - start);
    if (token.find('.') != std::string_view::npos && Version::parse(token)) {
      return std::string(token);
    }
  }
  return std::nullopt;
}

} // namespace

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : util::split_lines(text)) {
    line = util::trim(line);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      continue;
    }
    const std::string_view key = line.substr(0, eq);
    bool valid_key = true;
    for (char c : key) {
      if (!((c >= 'A' && c <= 'Z') || util::is_digit(c) || c == '_')) {
        valid_key = false;
      }
    }
    if (!valid_key) {
      continue;
    }
    out[std::string(key)] = std::string(util::unquote(util::trim(line.substr(eq + 1))));
  }
  return out;
}

std::optional<NvidiaModuleVersion> parse_nvidia_proc_version(std::string_view text) {
  for (std::string_view line : util::split_lines(text)) {
    line = util::trim(line);
    if (!line.starts_with("NVRM version:")) {
      continue;
    }
    const auto module = line.find("Module");
    if (module == std::string_view::npos) {
      continue;
    }
    // "… Open Kernel Module for x86_64  570.86.15 …": skip "for <arch>" before the version.
    const auto version = first_version_token(line.substr(module + 6));
    if (!version) {
      continue;
    }
    NvidiaModuleVersion out;
    out.version = *version;
    out.type = line.find("Open Kernel Module") != std::string_view::npos ? "open" : "proprietary";
    out.banner = util::sanitize(line, 300);
    return out;
  }
  return std::nullopt;
}

std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (std::string_view line : util::split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      continue;
    }
    std::string_view rest = util::trim(line.substr(colon + 1));
    std::uint64_t scale = 1;
    if (rest.ends_with(" kB")) {
      rest.remove_suffix(3);
      scale = 1024;
    }
    const auto n = util::parse_uint(util::trim(rest));
    if (!n || *n > UINT64_MAX / scale) {
      continue;
    }
    out[std::string(util::trim(line.substr(0, colon)))] = *n * scale;
  }
  return out;
}

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo out;
  std::string fallback;
  for (std::string_view line : util::split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    const std::string_view key = util::trim(line.substr(0, colon));
    const std::string_view value = util::trim(line.substr(colon + 1));
    if (key == "processor") {
      ++out.count;
    } else if (key == "model name" && out.model.empty()) {
      out.model = util::sanitize(value, 200);
    } else if ((key == "Model" || key == "cpu model" || key == "Hardware") && fallback.empty()) {
      fallback = util::sanitize(value, 200);
    }
  }
  if (out.model.empty()) {
    out.model = fallback;
  }
  return out;
}

std::vector<std::string> parse_proc_modules(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : util::split_lines(text)) {
    const auto space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    if (!name.empty() && name.size() < 64) {
      out.emplace_back(name);
    }
  }
  return out;
}

std::vector<std::string> parse_modules_dep_nvidia(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : util::split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 512) {
      continue;
    }
    const std::string_view path = line.substr(0, colon);
    std::string_view stem = path.substr(path.rfind('/') + 1);
    const auto ko = stem.find(".ko");
    if (ko == std::string_view::npos) {
      continue;
    }
    stem = stem.substr(0, ko);
    const bool driver = stem == "nvidia" || stem.starts_with("nvidia-current")
                        || stem.starts_with("nvidia-tesla") || stem.starts_with("nvidia-legacy")
                        || stem.starts_with("nvidia-open");
    // nvidia-current-uvm, nvidia-current-drm, … are the driver's helpers, not the core module.
    if (driver && stem.find("uvm") == std::string_view::npos
        && stem.find("drm") == std::string_view::npos
        && stem.find("modeset") == std::string_view::npos
        && stem.find("peermem") == std::string_view::npos) {
      out.emplace_back(util::sanitize(path, 512));
    }
  }
  return out;
}

std::optional<Version> parse_cuda_version_json(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return std::nullopt;
  }
  const auto cuda = doc.find("cuda");
  if (cuda == doc.end() || !cuda->is_object()) {
    return std::nullopt;
  }
  const auto version = cuda->find("version");
  if (version == cuda->end() || !version->is_string()) {
    return std::nullopt;
  }
  auto v = Version::parse(version->get<std::string>());
  // Runfile installs write the release date as the third part ("11.8.20220929"); package
  // installs write the update ("12.4.1"). A date is not an update: keep major.minor.
  constexpr unsigned k_date_like = 19000000;
  if (v && v->part(2) >= k_date_like) {
    return Version::from_parts({v->major(), v->minor()});
  }
  return v;
}

std::optional<Version> parse_cuda_version_txt(std::string_view text) {
  for (std::string_view line : util::split_lines(text)) {
    line = util::trim(line);
    constexpr std::string_view k_prefix = "CUDA Version ";
    if (line.starts_with(k_prefix)) {
      return Version::parse(util::trim(line.substr(k_prefix.size())));
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> find_define(std::string_view header, std::string_view name) {
  // One line at a time: the define is near the top of a header of a megabyte (cuda.h), which may
  // be a mapped file whose later pages are never touched.
  for (std::string_view rest = header; !rest.empty();) {
    std::string_view line = util::trim(util::take_line(rest));
    if (!line.starts_with("#")) {
      continue;
    }
    line = util::trim(line.substr(1));
    if (!line.starts_with("define")) {
      continue;
    }
    line = util::trim(line.substr(6));
    if (!line.starts_with(name) || line.size() == name.size()
        || (line[name.size()] != ' ' && line[name.size()] != '\t')) {
      continue;
    }
    std::string_view value = util::trim(line.substr(name.size()));
    const auto comment = std::min(value.find("//"), value.find("/*"));
    if (comment != std::string_view::npos) {
      value = util::trim(value.substr(0, comment));
    }
    while (!value.empty()
           && (value.back() == 'L' || value.back() == 'U' || value.back() == 'l'
               || value.back() == 'u')) {
      value.remove_suffix(1);
    }
    if (value.size() > 2 && value.front() == '(' && value.back() == ')') {
      value = util::trim(value.substr(1, value.size() - 2));
    }
    const auto n = util::parse_uint(value);
    if (n && *n < (1ULL << 62)) {
      return static_cast<std::int64_t>(*n);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Version> parse_cudnn_header(std::string_view header) {
  const auto major = find_define(header, "CUDNN_MAJOR");
  const auto minor = find_define(header, "CUDNN_MINOR");
  const auto patch = find_define(header, "CUDNN_PATCHLEVEL");
  if (!major || !minor || !patch || *major > 1000 || *minor > 1000 || *patch > 1000) {
    return std::nullopt;
  }
  return Version::from_parts({static_cast<unsigned>(*major),
                              static_cast<unsigned>(*minor),
                              static_cast<unsigned>(*patch)});
}

std::optional<Version> parse_cuda_header(std::string_view header) {
  auto v = find_define(header, "CUDA_VERSION");
  if (!v) {
    v = find_define(header, "CUDART_VERSION");
  }
  if (!v || *v < 1000 || *v > 1000000) {
    return std::nullopt;
  }
  return Version::from_parts(
      {static_cast<unsigned>(*v / 1000), static_cast<unsigned>((*v % 1000) / 10)});
}

std::string normalize_package_name(std::string_view name) {
  std::string out;
  bool in_sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      in_sep = true;
      continue;
    }
    if (in_sep && !out.empty()) {
      out += '-';
    }
    in_sep = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::optional<DistInfoName> parse_dist_info_dir(std::string_view dir_name) {
  std::string_view stem;
  if (dir_name.ends_with(".dist-info")) {
    stem = dir_name.substr(0, dir_name.size() - 10);
  } else if (dir_name.ends_with(".egg-info")) {
    stem = dir_name.substr(0, dir_name.size() - 9);
  } else {
    return std::nullopt;
  }
  // Names cannot contain '-' in a dist-info directory (it is escaped to '_'), so the first '-'
  // separates name and version. Egg-info may add "-py3.11": cut it.
  const auto dash = stem.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= stem.size()) {
    return std::nullopt;
  }
  std::string_view version = stem.substr(dash + 1);
  const auto py = version.find("-py");
  if (py != std::string_view::npos) {
    version = version.substr(0, py);
  }
  if (version.empty() || !util::is_digit(version.front())) {
    return std::nullopt;
  }
  return DistInfoName{normalize_package_name(stem.substr(0, dash)), std::string(version)};
}

std::optional<std::string> version_after_stem(std::string_view file_name, std::string_view stem) {
  std::string_view rest;
  if (!file_name.starts_with(stem) || file_name.size() <= stem.size() + 1
      || file_name[stem.size()] != '.') {
    return std::nullopt;
  }
  if (!util::starts_with_then_version(file_name, std::string(stem) + ".", rest)) {
    return std::nullopt;
  }
  return std::string(rest);
}

} // namespace doctor::formats
