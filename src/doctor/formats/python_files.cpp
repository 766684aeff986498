// SPDX-License-Identifier: MIT
#include <doctor/formats/python_files.hpp>
#include <doctor/formats/python_literals.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/version.hpp>

#include <algorithm>
#include <map>

namespace doctor::formats {

namespace {

constexpr std::size_t k_max_name_length = 255;

bool all_digits(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (!util::is_digit(c)) {
      return false;
    }
  }
  return true;
}

// The text of a string or number value; nullopt for other kinds.
std::optional<std::string> as_text(const PyLiteral* v) {
  if (v != nullptr && (v->kind == PyKind::string || v->kind == PyKind::number)) {
    return v->text;
  }
  return std::nullopt;
}

// A boolean, also when written as text ('True', 'ON'), as Paddle does.
std::optional<bool> as_bool(const PyLiteral* v) {
  if (v == nullptr) {
    return std::nullopt;
  }
  if (v->kind == PyKind::boolean) {
    return v->boolean;
  }
  if (v->kind == PyKind::string) {
    const std::string lower = util::to_lower(util::trim(v->text));
    if (lower == "true" || lower == "on" || lower == "1") {
      return true;
    }
    if (lower == "false" || lower == "off" || lower == "0") {
      return false;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> as_text_list(const PyLiteral* v) {
  if (v == nullptr || v->kind != PyKind::sequence) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const PyLiteral& item : v->items) {
    if (auto text = as_text(&item)) {
      out.push_back(std::move(*text));
    }
  }
  return out;
}

const PyLiteral* lookup(const std::map<std::string, PyLiteral>& values, const std::string& key) {
  const auto it = values.find(key);
  return it == values.end() ? nullptr : &it->second;
}

// Paddle writes 'False' (and Paddle 3 'None' or None) where a CPU build has no CUDA version.
std::optional<std::string> paddle_version_text(const PyLiteral* v) {
  auto text = as_text(v);
  if (!text) {
    return std::nullopt;
  }
  const std::string lower = util::to_lower(util::trim(*text));
  if (lower.empty() || lower == "false" || lower == "none") {
    return std::nullopt;
  }
  return text;
}

bool valid_pyenv_name(std::string_view name) {
  if (name.empty() || name.size() > k_max_name_length || name.front() == '/') {
    return false;
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return false;
    }
  }
  for (std::string_view part : util::split(name, '/')) {
    if (part == "." || part == "..") {
      return false;
    }
  }
  return true;
}

} // namespace

std::optional<TorchVersionFile> parse_torch_version_py(std::string_view text) {
  auto module = read_python_assignments(text);
  const auto& values = module.values;
  TorchVersionFile out;
  for (const char* key : {"__version__", "cuda", "hip", "rocm", "git_version", "debug"}) {
    if (const auto it = module.unknown.find(key); it != module.unknown.end()) {
      out.unknown.emplace(it->first, it->second);
    }
  }
  out.version = as_text(lookup(values, "__version__"));
  if (const PyLiteral* cuda = lookup(values, "cuda")) {
    if (cuda->kind == PyKind::none) {
      out.cuda_recorded = true;
    } else if (auto version = as_text(cuda)) {
      out.cuda_recorded = true;
      out.cuda = std::move(version);
    }
  }
  if (!out.version && !out.cuda_recorded && out.unknown.count("cuda") == 0
      && out.unknown.count("__version__") == 0) {
    return std::nullopt;
  }
  out.hip = as_text(lookup(values, "hip"));
  out.rocm = as_text(lookup(values, "rocm"));
  out.git_version = as_text(lookup(values, "git_version"));
  if (const PyLiteral* debug = lookup(values, "debug"); debug && debug->kind == PyKind::boolean) {
    out.debug = debug->boolean;
  }
  return out;
}

std::string normalize_tensorflow_cuda_version(std::string_view raw) {
  if (!raw.starts_with("64_") || !all_digits(raw.substr(3))) {
    return std::string(raw);
  }
  const std::string_view digits = raw.substr(3);
  if (digits.size() >= 3) {
    return std::string(digits.substr(0, digits.size() - 1)) + "." + digits.back();
  }
  if (digits.size() == 2 && digits.front() != '1') {
    return std::string(1, digits[0]) + "." + digits[1]; // "92" -> "9.2"
  }
  return std::string(digits); // "11", "8"
}

std::string normalize_tensorflow_cudnn_version(std::string_view raw) {
  if (!raw.starts_with("64_") || !all_digits(raw.substr(3))) {
    return std::string(raw);
  }
  return std::string(raw.substr(3));
}

std::optional<TensorflowBuildInfo> parse_tensorflow_build_info(std::string_view text) {
  const auto values = parse_python_assignments(text);
  TensorflowBuildInfo out;
  const PyLiteral* dict = lookup(values, "build_info");
  const bool has_dict = dict != nullptr && dict->kind == PyKind::mapping;
  if (has_dict) {
    out.layout = text.find("OrderedDict") != std::string_view::npos ? "ordered_dict" : "dict";
  } else {
    out.layout = "variables";
  }
  // Reads `key` from the build_info dict, or the module variable `variable` (default: the key)
  // in the old layout.
  auto get = [&](const std::string& key, const std::string& variable) -> const PyLiteral* {
    if (has_dict) {
      return dict->find(key);
    }
    return lookup(values, variable.empty() ? key : variable);
  };
  out.is_cuda_build = as_bool(get("is_cuda_build", ""));
  out.is_rocm_build = as_bool(get("is_rocm_build", ""));
  out.is_tensorrt_build = as_bool(get("is_tensorrt_build", ""));
  out.cuda_version_raw = as_text(get("cuda_version", "cuda_version_number"));
  out.cudnn_version_raw = as_text(get("cudnn_version", "cudnn_version_number"));
  if (out.cuda_version_raw) {
    out.cuda_version = normalize_tensorflow_cuda_version(*out.cuda_version_raw);
  }
  if (out.cudnn_version_raw) {
    out.cudnn_version = normalize_tensorflow_cudnn_version(*out.cudnn_version_raw);
  }
  out.cuda_compute_capabilities = as_text_list(get("cuda_compute_capabilities", ""));
  out.cudart_dll_name = as_text(get("cudart_dll_name", ""));
  out.cudnn_dll_name = as_text(get("cudnn_dll_name", ""));
  out.msvcp_dll_names = as_text(get("msvcp_dll_names", ""));
  if (!out.msvcp_dll_names) {
    out.msvcp_dll_names = as_text(get("msvcp_dll_name", "")); // TF 1.x
  }
  if (!out.is_cuda_build && !out.is_rocm_build && !out.cuda_version_raw && !out.cudnn_version_raw
      && !out.cuda_compute_capabilities) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> parse_jax_version_py(std::string_view text) {
  const auto module = read_python_assignments(text);
  for (const char* key : {"_release_version", "_version", "__version__"}) {
    if (module.unknown.count(key) != 0) {
      return std::nullopt; // a later key would stand in for a value that is not known
    }
    if (auto v = as_text(lookup(module.values, key)); v && !v->empty()) {
      return v;
    }
  }
  return std::nullopt;
}

std::optional<JaxlibBuildTag> parse_jaxlib_local_version(std::string_view version) {
  const auto plus = version.find('+');
  if (plus == std::string_view::npos) {
    return std::nullopt;
  }
  JaxlibBuildTag out;
  for (std::string_view part : util::split(version.substr(plus + 1), '.')) {
    if (part.starts_with("cudnn") && all_digits(part.substr(5))) {
      const std::string_view d = part.substr(5);
      if (d.size() == 1) {
        out.cudnn = std::string(d);
      } else if (d.size() == 2) {
        out.cudnn = std::string(1, d[0]) + "." + d[1]; // "88" -> "8.8"
      } else if (d.size() == 3) {
        out.cudnn = std::string(1, d[0]) + "." + d[1] + "." + d[2]; // "805" -> "8.0.5"
      }
    } else if (part.starts_with("cuda") && all_digits(part.substr(4))) {
      const std::string_view d = part.substr(4);
      if (d.size() == 3) {
        out.cuda = std::string(d.substr(0, 2)) + "." + d[2]; // "111" -> "11.1"
      } else if (d.size() == 2 && d[0] != '1') {
        out.cuda = std::string(1, d[0]) + "." + d[1]; // "92" -> "9.2"
      } else if (d.size() <= 2) {
        out.cuda = std::string(d); // "12"
      }
    }
  }
  if (!out.cuda) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> jax_plugin_cuda_major(std::string_view package_name) {
  constexpr std::string_view k_prefix = "jax-cuda";
  if (!package_name.starts_with(k_prefix)) {
    return std::nullopt;
  }
  std::string_view rest = package_name.substr(k_prefix.size());
  std::size_t n = 0;
  while (n < rest.size() && util::is_digit(rest[n])) {
    ++n;
  }
  if (n == 0 || n > 3) {
    return std::nullopt;
  }
  const std::string_view suffix = rest.substr(n);
  if (suffix != "-plugin" && suffix != "-pjrt") {
    return std::nullopt;
  }
  return std::string(rest.substr(0, n));
}

std::optional<PaddleVersionFile> parse_paddle_version_py(std::string_view text) {
  const auto values = parse_python_assignments(text);
  PaddleVersionFile out;
  out.full_version = as_text(lookup(values, "full_version"));
  const PyLiteral* cuda = lookup(values, "cuda_version");
  out.cuda_recorded =
      cuda != nullptr && cuda->kind != PyKind::sequence && cuda->kind != PyKind::mapping;
  out.cuda_version = paddle_version_text(cuda);
  out.cudnn_version = paddle_version_text(lookup(values, "cudnn_version"));
  out.with_gpu = as_bool(lookup(values, "with_gpu"));
  out.cuda_archs = as_text_list(lookup(values, "compiled_cuda_archs"));
  out.commit = as_text(lookup(values, "commit"));
  if (!out.full_version && !lookup(values, "major") && !out.cuda_recorded) {
    return std::nullopt;
  }
  return out;
}

std::optional<OnnxruntimeBuildInfo> parse_onnxruntime_build_info(std::string_view text) {
  const auto values = parse_python_assignments(text);
  OnnxruntimeBuildInfo out;
  out.package_name = as_text(lookup(values, "package_name"));
  out.version = as_text(lookup(values, "__version__"));
  if (!out.package_name && !out.version) {
    return std::nullopt;
  }
  out.cuda_version = as_text(lookup(values, "cuda_version"));
  out.cudnn_version = as_text(lookup(values, "cudnn_version"));
  out.rocm_version = as_text(lookup(values, "rocm_version"));
  out.cudart_version = as_text(lookup(values, "cudart_version"));
  return out;
}

std::optional<std::string> parse_pyvenv_cfg_version(std::string_view text) {
  std::optional<std::string> version;
  std::optional<std::string> version_info;
  for (std::string_view line : util::split_lines(text)) {
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    const std::string key = util::to_lower(util::trim(line.substr(0, eq)));
    const std::string_view value = util::trim(line.substr(eq + 1));
    auto parsed = Version::parse_prefix(value);
    if (!parsed || parsed->size() < 2) {
      continue;
    }
    if (key == "version" && !version) {
      version = parsed->str();
    } else if (key == "version_info" && !version_info) {
      version_info = parsed->str();
    }
  }
  return version ? version : version_info;
}

bool pyvenv_cfg_includes_system_site(std::string_view text) {
  for (std::string_view line : util::split_lines(text)) {
    const auto eq = line.find('=');
    if (eq != std::string_view::npos
        && util::to_lower(util::trim(line.substr(0, eq))) == "include-system-site-packages") {
      return util::to_lower(util::trim(line.substr(eq + 1))) == "true";
    }
  }
  return false;
}

std::optional<StorePythonName> parse_store_python_folder(std::string_view name) {
  // PackageFamilyName = Name_PublisherId; PackageFullName =
  // Name_Version_Architecture_ResourceId_PublisherId, with an empty ResourceId ("__").
  constexpr std::string_view k_name = "pythonsoftwarefoundation.python.";
  const std::string lower = util::to_lower(name);
  if (!lower.starts_with(k_name) || name.size() > 255) {
    return std::nullopt;
  }
  const std::vector<std::string_view> parts =
      util::split(std::string_view(name).substr(k_name.size()), '_');
  auto is_version = [](std::string_view v, std::size_t min_parts) {
    auto parsed = Version::parse(v);
    return parsed && parsed->size() >= min_parts && parsed->str() == v;
  };
  auto is_publisher = [](std::string_view id) {
    return !id.empty() && id.size() <= 32 && std::all_of(id.begin(), id.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
  };
  StorePythonName out;
  if (parts.size() == 2 && is_version(parts[0], 2) && is_publisher(parts[1])) {
    out.minor_version = std::string(parts[0]);
    out.publisher_id = std::string(parts[1]);
    return out;
  }
  if (parts.size() == 5 && is_version(parts[0], 2) && is_version(parts[1], 2) && !parts[2].empty()
      && is_publisher(parts[2]) && parts[3].empty() && is_publisher(parts[4])) {
    out.minor_version = std::string(parts[0]);
    out.package_version = std::string(parts[1]);
    out.architecture = std::string(parts[2]);
    out.publisher_id = std::string(parts[4]);
    out.install_folder = true;
    return out;
  }
  return std::nullopt;
}

std::optional<std::string> python_version_from_conda_meta(std::string_view file_name) {
  constexpr std::string_view k_prefix = "python-";
  constexpr std::string_view k_suffix = ".json";
  if (!file_name.starts_with(k_prefix) || !file_name.ends_with(k_suffix)) {
    return std::nullopt;
  }
  std::string_view rest = file_name.substr(k_prefix.size());
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos) {
    return std::nullopt;
  }
  auto v = Version::parse(rest.substr(0, dash));
  if (!v || v->size() < 2) {
    return std::nullopt;
  }
  return v->str();
}

std::optional<std::string> python_version_from_name(std::string_view name) {
  constexpr std::string_view k_prefix = "python";
  if (!name.starts_with(k_prefix)) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(k_prefix.size());
  if (rest.ends_with("t")) {
    rest.remove_suffix(1); // free-threaded build: python3.13t
  }
  auto v = Version::parse(rest);
  if (!v || v->size() != 2) {
    return std::nullopt;
  }
  return v->str();
}

std::vector<std::string> parse_pyenv_versions(std::string_view text) {
  constexpr std::size_t k_max_names = 64;
  std::vector<std::string> out;
  for (std::string_view line : util::split_lines(text)) {
    line = util::trim(line);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    std::size_t i = 0;
    while (i < line.size() && out.size() < k_max_names) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ':')) {
        ++i;
      }
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ':') {
        ++i;
      }
      const std::string_view name = line.substr(start, i - start);
      if (valid_pyenv_name(name)) {
        out.emplace_back(name);
      }
    }
  }
  return out;
}

std::vector<std::string> parse_conda_environments_txt(std::string_view text) {
  constexpr std::size_t k_max_entries = 1024;
  std::vector<std::string> out;
  for (std::string_view line : util::split_lines(text)) {
    line = util::trim(line);
    if (line.empty() || line.front() != '/' || line.size() > 4096) {
      continue;
    }
    bool printable = true;
    for (char c : line) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        printable = false;
      }
    }
    if (!printable) {
      continue;
    }
    while (line.size() > 1 && line.back() == '/') {
      line.remove_suffix(1);
    }
    out.emplace_back(line);
    if (out.size() == k_max_entries) {
      break;
    }
  }
  return out;
}

} // namespace doctor::formats
