// SPDX-License-Identifier: MIT
#include <doctor/formats/package_files.hpp>
#include <doctor/util/strings.hpp>

#include <nlohmann/json.hpp>

namespace doctor::formats {

std::vector<PipRecordLine> parse_pip_record(std::string_view text) {
  std::vector<PipRecordLine> out;
  for (std::string_view line : util::split_lines(text)) {
    if (line.empty() || line.front() == '"') {
      continue;
    }
    const auto fields = util::split(line, ',');
    if (fields.size() != 3 || fields[0].empty()) {
      continue;
    }
    out.push_back(
        PipRecordLine{std::string(fields[0]), std::string(fields[1]), util::parse_uint(fields[2])});
  }
  return out;
}

std::map<std::string, std::string, std::less<>> parse_dpkg_md5sums(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  for (std::string_view line : util::split_lines(text)) {
    const auto space = line.find(' ');
    if (space != 32 || line.size() < 35) {
      continue;
    }
    std::string_view file = util::trim(line.substr(space));
    if (!file.empty()) {
      out.emplace("/" + std::string(file.front() == '/' ? file.substr(1) : file),
                  util::to_lower(line.substr(0, space)));
    }
  }
  return out;
}

std::vector<std::string_view> parse_dpkg_list(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::string_view line : util::split_lines(text)) {
    if (!line.empty() && line.front() == '/') {
      out.push_back(line);
    }
  }
  return out;
}

std::map<std::string, std::string>
parse_dpkg_status_versions(std::string_view text,
                           const std::set<std::string, std::less<>>& wanted) {
  std::map<std::string, std::string> out;
  std::string_view current;
  // One line at a time, and done once every wanted package has its version: the file is often
  // megabytes, and mapped.
  for (std::string_view rest = text; !rest.empty() && out.size() < wanted.size();) {
    const std::string_view line = util::take_line(rest);
    if (line.starts_with("Package: ")) {
      current = util::trim(line.substr(9));
    } else if (line.starts_with("Version: ") && wanted.find(current) != wanted.end()) {
      out.emplace(std::string(current), std::string(util::trim(line.substr(9))));
    }
  }
  return out;
}

std::optional<CondaRecord> parse_conda_meta(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return std::nullopt;
  }
  CondaRecord out;
  if (const auto name = doc.find("name"); name != doc.end() && name->is_string()) {
    out.name = name->get<std::string>();
  }
  if (const auto version = doc.find("version"); version != doc.end() && version->is_string()) {
    out.version = version->get<std::string>();
  }
  const auto paths_data = doc.find("paths_data");
  if (paths_data != doc.end() && paths_data->is_object() && paths_data->contains("paths")
      && (*paths_data)["paths"].is_array()) {
    for (const auto& p : (*paths_data)["paths"]) {
      if (!p.is_object() || !p.contains("_path") || !p["_path"].is_string()) {
        continue;
      }
      CondaFile f{p["_path"].get<std::string>(), std::nullopt, {}};
      if (p.contains("size_in_bytes") && p["size_in_bytes"].is_number_unsigned()) {
        f.size = p["size_in_bytes"].get<std::uint64_t>();
      }
      if (p.contains("sha256") && p["sha256"].is_string()) {
        f.sha256 = p["sha256"].get<std::string>();
      }
      out.files.push_back(std::move(f));
    }
  } else if (doc.contains("files") && doc["files"].is_array()) {
    for (const auto& p : doc["files"]) {
      if (p.is_string()) {
        out.files.push_back(CondaFile{p.get<std::string>(), std::nullopt, {}});
      }
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> split_conda_meta_stem(std::string_view stem) {
  const auto last = stem.rfind('-');
  if (last == std::string_view::npos || last == 0) {
    return std::nullopt;
  }
  const auto second = stem.rfind('-', last - 1);
  if (second == std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{std::string(stem.substr(0, second)),
                   std::string(stem.substr(second + 1, last - second - 1))};
}

} // namespace doctor::formats
