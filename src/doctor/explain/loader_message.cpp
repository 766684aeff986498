// SPDX-License-Identifier: MIT
#include <doctor/explain/loader_message.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace doctor::explain {

namespace {

using util::is_digit;

constexpr std::array<std::pair<LoadErrorKind, std::string_view>, 9> k_kind_names{{
    {LoadErrorKind::unknown, "unknown"},
    {LoadErrorKind::not_found, "not_found"},
    {LoadErrorKind::dependency_missing, "dependency_missing"},
    {LoadErrorKind::procedure_missing, "procedure_missing"},
    {LoadErrorKind::access_denied, "access_denied"},
    {LoadErrorKind::wrong_architecture, "wrong_architecture"},
    {LoadErrorKind::invalid_image, "invalid_image"},
    {LoadErrorKind::init_failed, "init_failed"},
    {LoadErrorKind::out_of_memory, "out_of_memory"},
}};

constexpr std::array<std::pair<LibraryRole, std::string_view>, 14> k_role_names{{
    {LibraryRole::unknown, "unknown"},
    {LibraryRole::cudnn, "cudnn"},
    {LibraryRole::cudnn_sublibrary, "cudnn_sublibrary"},
    {LibraryRole::zlib, "zlib"},
    {LibraryRole::cuda_runtime, "cuda_runtime"},
    {LibraryRole::cuda_library, "cuda_library"},
    {LibraryRole::driver, "driver"},
    {LibraryRole::nvml, "nvml"},
    {LibraryRole::msvc_runtime, "msvc_runtime"},
    {LibraryRole::openmp, "openmp"},
    {LibraryRole::tensorrt, "tensorrt"},
    {LibraryRole::framework, "framework"},
    {LibraryRole::python_extension, "python_extension"},
    {LibraryRole::gpu_module, "gpu_module"},
}};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+'
         || c == '.';
}

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

template<std::size_t N>
bool contains_any(std::string_view s, const std::array<std::string_view, N>& what) {
  return std::any_of(what.begin(), what.end(), [&](std::string_view w) { return contains(s, w); });
}

// Lower-cases ASCII, turns backslashes into slashes and repairs the typos real reports carry in
// library names: "libcudart,so.8", "libcudnn..so", "libcudart so.8.0", "ibcudart.so.10.1".
std::string normalise(std::string_view line) {
  std::string s;
  s.reserve(line.size());
  for (char c : line) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    } else if (c == '\\') {
      c = '/';
    }
    s.push_back(c);
  }
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool after_name = !out.empty() && is_alnum(out.back());
    const auto so_follows = [&](std::size_t at) {
      return s.compare(at, 2, "so") == 0 && (at + 2 == s.size() || !is_alnum(s[at + 2]));
    };
    if (c == ',' && after_name && so_follows(i + 1)) {
      out.push_back('.');
      continue;
    }
    if (c == '.' && i + 1 < s.size() && s[i + 1] == '.' && after_name
        && (so_follows(i + 2) || s.compare(i + 2, 3, "dll") == 0)) {
      continue; // the first of a doubled dot
    }
    if (c == ' ' && after_name && s.compare(i + 1, 3, "so.") == 0 && i + 4 < s.size()
        && is_digit(s[i + 4])) {
      // "libcudart so.8.0": the word before must be a library name.
      std::size_t w = out.size();
      while (w > 0 && is_name_char(out[w - 1])) {
        --w;
      }
      if (out.compare(w, 3, "lib") == 0) {
        out.push_back('.');
        continue;
      }
    }
    if (c == 'i' && s.compare(i, 4, "ibcu") == 0 && (out.empty() || !is_name_char(out.back()))) {
      out.push_back('l'); // "ibcudart.so.10.1", the l lost at a line start
    }
    out.push_back(c);
  }
  return out;
}

struct Token {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string name;
};

// The name that ends at `end` (exclusive), extended to the left over file-name characters.
std::size_t name_begin(std::string_view s, std::size_t end) {
  std::size_t b = end;
  while (b > 0 && is_name_char(s[b - 1])) {
    --b;
  }
  while (b < end && (s[b] == '.' || s[b] == '-')) {
    ++b;
  }
  return b;
}

void add_token(std::vector<Token>& tokens,
               std::string_view s,
               std::size_t b,
               std::size_t e,
               std::string name) {
  for (const Token& t : tokens) {
    if (b < t.end && t.begin < e) {
      return; // already inside a token
    }
  }
  tokens.push_back(Token{b, e, std::move(name)});
  (void)s;
}

// Library names with a suffix: *.dll, *.pyd, *.dylib, *.so with any version.
void suffixed_tokens(std::string_view s, std::vector<Token>& tokens) {
  constexpr std::array<std::string_view, 4> k_suffixes{".dll", ".pyd", ".dylib", ".so"};
  for (std::string_view suffix : k_suffixes) {
    for (std::size_t at = s.find(suffix); at != std::string_view::npos;
         at = s.find(suffix, at + 1)) {
      std::size_t e = at + suffix.size();
      if (e < s.size() && (is_alnum(s[e]) || s[e] == '_')) {
        continue; // ".sonnet", ".dllx"
      }
      if (suffix == ".so") {
        // Versions: ".so.8", ".so.9.1.0"; a trailing ".*" of "libcudart.so.*" is dropped.
        while (e + 1 < s.size() && s[e] == '.' && is_digit(s[e + 1])) {
          ++e;
          while (e < s.size() && is_digit(s[e])) {
            ++e;
          }
        }
      }
      const std::size_t b = name_begin(s, at);
      if (b == at) {
        continue; // nothing before the suffix
      }
      add_token(tokens, s, b, e, std::string(s.substr(b, e - b)));
    }
  }
}

// Names given without a suffix that are libraries all the same ("could not load library
// \"libcuda\"", "Unable to load DLL 'cudnn64_8'").
void bare_tokens(std::string_view s, std::vector<Token>& tokens) {
  struct Stem {
    std::string_view stem;
    bool versioned; // "_N" digits must follow
    std::string_view suffix;
  };
  constexpr std::array<Stem, 14> k_bare_stems{{
      {"nvcuda", false, ".dll"},
      {"libcuda", false, ""},
      {"zlibwapi", false, ".dll"},
      {"libcudnn", false, ".so"},
      {"libcudart", false, ".so"},
      {"cudnn64_", true, ".dll"},
      {"cudart64_", true, ".dll"},
      {"cublas64_", true, ".dll"},
      {"cublaslt64_", true, ".dll"},
      {"cufft64_", true, ".dll"},
      {"curand64_", true, ".dll"},
      {"cusolver64_", true, ".dll"},
      {"cusparse64_", true, ".dll"},
      {"nvrtc64_", true, ".dll"},
  }};
  for (const Stem& stem : k_bare_stems) {
    for (std::size_t at = s.find(stem.stem); at != std::string_view::npos;
         at = s.find(stem.stem, at + 1)) {
      if (at > 0 && is_name_char(s[at - 1]) && s[at - 1] != '.') {
        continue;
      }
      std::size_t e = at + stem.stem.size();
      if (stem.versioned) {
        const std::size_t digits = e;
        while (e < s.size() && (is_digit(s[e]) || s[e] == '_')) {
          ++e;
        }
        if (e == digits) {
          continue;
        }
      }
      if (e < s.size() && (is_alnum(s[e]) || s[e] == '_' || s[e] == '.')) {
        continue; // part of a longer name, or a suffixed one found already
      }
      add_token(tokens, s, at, e, std::string(s.substr(at, e - at)) + std::string(stem.suffix));
    }
  }
}

// .NET names the DLL it could not load in quotes and often without its suffix ("Unable to load
// DLL 'onnxruntime' or one of its dependencies", "Unable to load DLL 'cudnn64_8'"): the quoted
// name is a library, with ".dll" added where Windows would add it.
void quoted_dotnet_tokens(std::string_view s, std::vector<Token>& tokens) {
  constexpr std::array<std::string_view, 2> k_keys{"unable to load dll '",
                                                   "unable to load shared library '"};
  for (std::string_view key : k_keys) {
    const std::size_t at = s.find(key);
    if (at == std::string_view::npos) {
      continue;
    }
    const std::size_t b = at + key.size();
    std::size_t e = b;
    while (e < s.size() && e - b < 128 && (is_name_char(s[e]) || s[e] == '.')) {
      ++e;
    }
    if (e == b || e >= s.size() || s[e] != '\'') {
      continue;
    }
    std::string name(s.substr(b, e - b));
    const bool suffixed = name.find(".dll") != std::string::npos
                          || name.find(".so") != std::string::npos
                          || name.find(".dylib") != std::string::npos;
    if (!suffixed && key == k_keys[0]) {
      name += ".dll";
    }
    add_token(tokens, s, b, e, std::move(name));
  }
}

// The words that tell the kind of a load failure, and those that say only that it failed. Every
// line that parse_load_failure() accepts holds one of them or one of the number keys below, so
// together they are its prefilter triggers (load_failure_triggers()).
constexpr std::array<std::string_view, 4> k_memory{
    "paging file is too small", "页面文件太小", "页面文件太小", "auslagerungsdatei"};
constexpr std::array<std::string_view, 3> k_init{
    "initialization routine failed", "初始化例程失败", "initialisierungsroutine"};
constexpr std::array<std::string_view, 7> k_arch{"not a valid win32 application",
                                                 "不是有效的 win32 应用程序",
                                                 "不是有效的win32应用程序",
                                                 "wrong elf class",
                                                 "incompatible architecture",
                                                 "0xc000007b",
                                                 "keine zulässige win32-anwendung"};
constexpr std::array<std::string_view, 7> k_image{"invalid elf header",
                                                  "file too short",
                                                  "file truncated",
                                                  "file not recognized",
                                                  "not a valid image",
                                                  "bad exe format",
                                                  "not a mach-o file"};
constexpr std::array<std::string_view, 6> k_denied{"access is denied",
                                                   "拒绝访问",
                                                   "permission denied",
                                                   "application control policy has blocked",
                                                   "zugriff verweigert",
                                                   "operation not permitted"};
constexpr std::array<std::string_view, 13> k_procedure{"specified procedure could not be found",
                                                       "找不到指定的程序",
                                                       "specified program could not be found",
                                                       "undefined symbol",
                                                       "symbol lookup error",
                                                       "procedure entry point",
                                                       "无法定位程序输入点",
                                                       "entry point not found",
                                                       "not defined in file",
                                                       "cannot load symbol",
                                                       "symbol not found",
                                                       "prozedur wurde nicht gefunden",
                                                       "could not be located in the dynamic link"};
constexpr std::array<std::string_view, 5> k_dependency{"由于找不到",
                                                       "can't find dependent libraries",
                                                       "cannot find dependent",
                                                       "dependent dll",
                                                       "依赖问题"};
constexpr std::array<std::string_view, 23> k_missing{
    "specified module could not be found",
    "找不到指定的模块",
    "cannot open shared object file",
    "no such file or directory",
    "=> not found",
    "not found",
    "could not be found",
    "cannot find",
    "can't find",
    "could not find",
    "could not locate",
    "找不到",
    "不存在",
    "missing", // "cudnn64_8.dll missing", "missing libcudnn.so.8"
    "nicht gefunden",
    "image not found",
    "library not loaded",
    "dllnotfoundexception",
    "unable to find",
    "no such file",
    "not installed",
    "not available",
    "not being available"}; // "complained about VCRUNTIME140_1.dll not being available"
constexpr std::array<std::string_view, 28> k_load_words{
    "could not load",
    "couldn't load",
    "cannot load",
    "can't load",
    "unable to load",
    "failed to load",
    "failed to preload", // vs-mlrt: "failed to preload C:\\...\\cublas64_11.dll, errno 127"
    "failed to dlopen",
    "dlopen failed",
    "dlopen error",
    "error loading",
    "erro loading",
    "unsatisfiedlinkerror",
    "loadlibrary failed",
    "loadlibraryex failed",
    "dll load failed",
    "cannot be loaded",
    "could not be loaded",
    "couldn't open cuda library", // TensorFlow 0.x dso_loader
    "failed to open",
    "could not open",
    "error while loading shared libraries",
    ".dll failed", // "Load x.dll failed: C:\\..."
    "无法加载",
    "加载失败",
    "load failed",
    "loading failed",
    "is not configured correctly"};

// The Windows error numbers a loader reports, and what each means.
struct CodeMeaning {
  long code;
  LoadErrorKind kind;
};
constexpr std::array<CodeMeaning, 8> k_codes{{
    {126, LoadErrorKind::not_found},
    {127, LoadErrorKind::procedure_missing},
    {193, LoadErrorKind::wrong_architecture},
    {5, LoadErrorKind::access_denied},
    {4551, LoadErrorKind::access_denied}, // an Application Control policy blocked the file
    {1114, LoadErrorKind::init_failed},
    {1455, LoadErrorKind::out_of_memory},
    {998, LoadErrorKind::init_failed}, // invalid access to memory location, in DllMain
}};

LoadErrorKind kind_of_code(long code) {
  for (const CodeMeaning& m : k_codes) {
    if (m.code == code) {
      return m.kind;
    }
  }
  return LoadErrorKind::unknown;
}

// The keys a loader's error number follows, and the HRESULT_FROM_WIN32 and NTSTATUS values.
constexpr std::array<std::string_view, 5> k_code_keys{
    "winerror", "error code", "failed with error", "errorcode", "last error"};
constexpr std::array<std::pair<std::string_view, long>, 7> k_hex{{
    {"0x8007045a", 1114},
    {"0x8007007e", 126},
    {"0x8007007f", 127},
    {"0x800700c1", 193},
    {"0x80070005", 5},
    {"0xc0000135", 126}, // STATUS_DLL_NOT_FOUND
    {"0xc0000139", 127}, // STATUS_ENTRYPOINT_NOT_FOUND
}};

// The number after one of `keys` ("winerror 126", "error code: 126", "error code is 126").
template<class Keys>
long find_code_after(std::string_view s, const Keys& keys) {
  for (std::string_view key : keys) {
    for (std::size_t at = s.find(key); at != std::string_view::npos; at = s.find(key, at + 1)) {
      std::size_t i = at + key.size();
      while (i < s.size() && (s[i] == ' ' || s[i] == ':' || s[i] == '=' || s[i] == '(')) {
        ++i;
      }
      if (s.compare(i, 3, "is ") == 0) {
        i += 3;
      }
      std::size_t e = i;
      while (e < s.size() && is_digit(s[e]) && e - i < 6) {
        ++e;
      }
      if (e > i) {
        if (auto v = util::parse_uint(s.substr(i, e - i)); v) {
          return static_cast<long>(*v);
        }
      }
    }
  }
  return -1;
}

// The loader's error number in `s`: after a key, or as an HRESULT or NTSTATUS value.
long find_code(std::string_view s) {
  if (const long code = find_code_after(s, k_code_keys); code >= 0) {
    return code;
  }
  for (const auto& [text, code] : k_hex) {
    if (contains(s, text)) {
      return code;
    }
  }
  return -1;
}

// What the words say, most specific first.
LoadErrorKind kind_of_words(std::string_view s) {
  if (contains_any(s, k_memory)) {
    return LoadErrorKind::out_of_memory;
  }
  if (contains_any(s, k_init)) {
    return LoadErrorKind::init_failed;
  }
  if (contains_any(s, k_arch)) {
    return LoadErrorKind::wrong_architecture;
  }
  if (contains_any(s, k_image)) {
    return LoadErrorKind::invalid_image;
  }
  if (contains_any(s, k_denied)) {
    return LoadErrorKind::access_denied;
  }
  if (contains_any(s, k_procedure)
      || (contains(s, "version `") && contains(s, "' not found"))) { // glibc symbol versions
    return LoadErrorKind::procedure_missing;
  }
  if (contains_any(s, k_dependency)) {
    return LoadErrorKind::dependency_missing;
  }
  if (contains_any(s, k_missing)) {
    return LoadErrorKind::not_found;
  }
  return LoadErrorKind::unknown;
}

// Words that say a load failed without saying how.
bool says_load_failed(std::string_view s) {
  return contains_any(s, k_load_words);
}

// The token that the phrase ending at `at` introduces: the first token starting at or after it,
// within a short distance.
const Token* token_after(const std::vector<Token>& tokens, std::size_t at, std::size_t reach) {
  const Token* best = nullptr;
  for (const Token& t : tokens) {
    if (t.begin >= at && t.begin <= at + reach && (best == nullptr || t.begin < best->begin)) {
      best = &t;
    }
  }
  return best;
}

// The token that ends just before `at` (allowing a closing quote or spaces).
const Token* token_before(const std::vector<Token>& tokens, std::size_t at) {
  const Token* best = nullptr;
  for (const Token& t : tokens) {
    if (t.end <= at && at - t.end <= 3 && (best == nullptr || t.end > best->end)) {
      best = &t;
    }
  }
  return best;
}

std::string file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The symbol after "undefined symbol: ", "procedure entry point X could not", "load symbol X".
std::string find_symbol(std::string_view original, std::string_view s) {
  constexpr std::array<std::string_view, 5> k_keys{"undefined symbol: ",
                                                   "symbol not found: ",
                                                   "cannot load symbol ",
                                                   "procedure entry point ",
                                                   "无法定位程序输入点"};
  for (std::string_view key : k_keys) {
    const std::size_t at = s.find(key);
    if (at == std::string_view::npos) {
      continue;
    }
    std::size_t b = at + key.size();
    // The original line keeps the symbol's case; the normalised copy has the same offsets up to
    // the first repaired typo, so take the symbol from it only when the bytes agree.
    std::string_view from = (original.size() == s.size()) ? original : s;
    std::size_t e = b;
    while (e < from.size() && from[e] != ' ' && from[e] != ',' && from[e] != '\'' && from[e] != '"'
           && from[e] != ')' && from[e] != '`') {
      ++e;
    }
    if (e > b) {
      return std::string(from.substr(b, std::min<std::size_t>(e - b, 200)));
    }
  }
  return {};
}

bool windows_shaped(std::string_view s, long code, const std::string& library) {
  constexpr std::array<std::string_view, 9> k_marks{"winerror",
                                                    "loadlibrary",
                                                    "hresult",
                                                    "dllnotfound",
                                                    "dll load failed",
                                                    "找不到指定",
                                                    "win32",
                                                    ":/",
                                                    "error code is"};
  if (contains_any(s, k_marks) || (code > 0 && contains(s, ".dll"))) {
    return true;
  }
  return library.size() > 4
         && (library.compare(library.size() - 4, 4, ".dll") == 0
             || library.compare(library.size() - 4, 4, ".pyd") == 0);
}

} // namespace

std::string_view to_string(LoadErrorKind kind) {
  for (const auto& [k, name] : k_kind_names) {
    if (k == kind) {
      return name;
    }
  }
  return "unknown";
}

std::optional<LoadErrorKind> load_error_kind(std::string_view name) {
  for (const auto& [k, n] : k_kind_names) {
    if (n == name) {
      return k;
    }
  }
  return std::nullopt;
}

std::string_view to_string(LibraryRole role) {
  for (const auto& [r, name] : k_role_names) {
    if (r == role) {
      return name;
    }
  }
  return "unknown";
}

std::optional<LibraryRole> library_role(std::string_view name) {
  for (const auto& [r, n] : k_role_names) {
    if (n == name) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<LoadErrorKind> load_error_continuation(std::string_view line) {
  // Box-drawing and quote decorations (Julia's "│", Markdown's ">") and spaces before the text.
  constexpr std::string_view k_box = "\u2502"; // │
  for (;;) {
    if (!line.empty()
        && (line.front() == ' ' || line.front() == '\t' || line.front() == '>'
            || line.front() == '|')) {
      line.remove_prefix(1);
    } else if (line.starts_with(k_box)) {
      line.remove_prefix(k_box.size());
    } else {
      break;
    }
  }
  constexpr std::size_t k_max_message = 160;
  if (line.empty() || line.size() > k_max_message || parse_load_failure(line)) {
    return std::nullopt;
  }
  const LoadErrorKind kind = kind_of_words(normalise(line));
  if (kind == LoadErrorKind::unknown) {
    return std::nullopt;
  }
  return kind;
}

const std::vector<std::string>& load_failure_triggers() {
  // A line is accepted only when kind_of_words(), kind_of_code() or says_load_failed() speaks, and
  // each of those needs one of these words (a code needs its key or its hex value). The words are
  // long; a library-name trigger such as ".so" would make the sampled prefilter look at every byte.
  static const std::vector<std::string> triggers = [] {
    std::vector<std::string> t;
    const auto add = [&t](const auto& table) { t.insert(t.end(), table.begin(), table.end()); };
    add(k_memory);
    add(k_init);
    add(k_arch);
    add(k_image);
    add(k_denied);
    add(k_procedure);
    add(k_dependency);
    add(k_missing);
    add(k_load_words);
    add(k_code_keys);
    for (const auto& [text, code] : k_hex) {
      t.emplace_back(text);
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
  }();
  return triggers;
}

std::optional<LoadFailure> parse_load_failure(std::string_view line) {
  if (line.size() > 8192) {
    line = line.substr(0, 8192); // a message names its library early
  }
  const std::string s = normalise(line);
  std::vector<Token> tokens;
  suffixed_tokens(s, tokens);
  quoted_dotnet_tokens(s, tokens);
  bare_tokens(s, tokens);
  std::sort(tokens.begin(), tokens.end(), [](const Token& a, const Token& b) {
    return a.begin < b.begin;
  });
  LoadFailure f;
  constexpr std::string_view k_import = "dll load failed while importing ";
  if (const std::size_t at = s.find(k_import); at != std::string::npos) {
    std::size_t b = at + k_import.size();
    std::size_t e = b;
    while (e < s.size() && (is_alnum(s[e]) || s[e] == '_' || s[e] == '.')) {
      ++e;
    }
    f.module = s.substr(b, e - b);
  }
  if (tokens.empty() && f.module.empty() && !contains(s, "dll load failed:")) {
    return std::nullopt;
  }
  f.code = find_code(s);
  if (f.code < 0 && contains(s, ".dll") && says_load_failed(s)) {
    // A program that reports GetLastError() as "errno" ("failed to preload x.dll, errno 127"):
    // with a DLL named, the number is Windows' (on Linux an errno is not one of Windows' numbers,
    // and the words say what failed). Only beside a failure word, which the prefilter triggers on.
    constexpr std::array<std::string_view, 1> k_errno{"errno"};
    f.code = find_code_after(s, k_errno);
  }
  const LoadErrorKind by_words = kind_of_words(s);
  const LoadErrorKind by_code = kind_of_code(f.code);
  if (by_words == LoadErrorKind::unknown && by_code == LoadErrorKind::unknown
      && !says_load_failed(s)) {
    return std::nullopt;
  }
  // The number is the surer witness, except that 126 says "this or a dependency" and the words
  // may say which.
  f.kind = by_code != LoadErrorKind::unknown ? by_code : by_words;
  if (by_code == LoadErrorKind::not_found && by_words == LoadErrorKind::dependency_missing) {
    f.kind = by_words;
  }

  // The failed library: the one the failure phrase introduces, else the first named.
  constexpr std::array<std::string_view, 17> k_introducers{"error loading",
                                                           "erro loading",
                                                           "could not load library",
                                                           "could not load dynamic library",
                                                           "failed to load library",
                                                           "unable to load dll",
                                                           "unable to load library",
                                                           "unable to load shared library",
                                                           "when trying to load",
                                                           "could not load",
                                                           "unable to load",
                                                           "failed to load",
                                                           "failed to preload",
                                                           "failed to dlopen",
                                                           "library not loaded:",
                                                           "cannot load",
                                                           "dynamic library ("};
  const Token* failed = nullptr;
  for (std::string_view intro : k_introducers) {
    if (const std::size_t at = s.find(intro); at != std::string::npos) {
      failed = token_after(tokens, at + intro.size(), 200);
      if (failed != nullptr) {
        break;
      }
    }
  }
  // The missing one: named before ": cannot open shared object file" or "=> not found", after
  // "error while loading shared libraries:" or "由于找不到".
  const Token* missing = nullptr;
  constexpr std::array<std::string_view, 6> k_after_missing{": cannot open shared object file",
                                                            " => not found",
                                                            ": no such file",
                                                            " is missing",
                                                            " missing",
                                                            " not found"};
  for (std::string_view phrase : k_after_missing) {
    for (std::size_t at = s.find(phrase); at != std::string::npos && missing == nullptr;
         at = s.find(phrase, at + 1)) {
      missing = token_before(tokens, at);
    }
  }
  constexpr std::array<std::string_view, 4> k_before_missing{
      "error while loading shared libraries:", "由于找不到", "could not find", "missing"};
  for (std::string_view phrase : k_before_missing) {
    if (missing != nullptr) {
      break;
    }
    if (const std::size_t at = s.find(phrase); at != std::string::npos) {
      missing = token_after(tokens, at + phrase.size(), 12);
    }
  }
  if (failed == nullptr) {
    failed = missing != nullptr ? missing : (tokens.empty() ? nullptr : &tokens.front());
  }
  if (failed != nullptr) {
    f.library = file_name(failed->name);
  }
  if (missing != nullptr && missing != failed) {
    f.missing = file_name(missing->name);
  }
  if (f.library.empty() && f.module.empty() && f.kind == LoadErrorKind::procedure_missing
      && contains(s, "dll load failed:")) {
    // Python 3.7 and older name neither the module nor the DLL ("ImportError: DLL load failed:
    // The specified procedure could not be found."), but an import failed: an extension module
    // whose imports the loaded DLLs do not export.
    f.unnamed_module = true;
  }
  if (f.library.empty() && f.module.empty() && !f.unnamed_module) {
    return std::nullopt;
  }
  if (f.kind == LoadErrorKind::not_found && !f.missing.empty() && f.missing != f.library) {
    f.kind = LoadErrorKind::dependency_missing;
  }
  if (f.kind == LoadErrorKind::not_found && failed != nullptr && contains(s, "one of its depend")
      && failed->begin > 0 && s[failed->begin - 1] == '/') {
    // Windows names a DLL it found by path: its own file is there, something it needs is not.
    f.kind = LoadErrorKind::dependency_missing;
  }
  f.symbol = find_symbol(line, s);
  f.windows = windows_shaped(s, f.code, f.library);
  return f;
}

namespace {

// The digits after "64_" in a Windows library name ("110" of cudart64_110.dll), or "".
std::string_view windows_number(std::string_view name) {
  const std::size_t u = name.find("64_");
  if (u == std::string_view::npos) {
    return {};
  }
  std::size_t e = u + 3;
  while (e < name.size() && is_digit(name[e])) {
    ++e;
  }
  return name.substr(u + 3, e - u - 3);
}

// "cudart64_110" -> "11.0", "cudart64_12" -> "12", "cudart64_90" -> "9.0", "nvrtc64_112_0" ->
// "11.2"; Linux "libcudart.so.10.1" -> "10.1". Only the libraries whose numbers follow CUDA's:
// cuFFT, cuRAND, cuSOLVER, cuSPARSE and NPP number their own releases from CUDA 10.1 on (CUDA 11
// ships cufft64_10.dll and libcurand.so.10), so only their older names, which still carried
// CUDA's major.minor (libcufft.so.10.0, libnppial.so.9.2, cufft64_100.dll, curand64_80.dll),
// say which CUDA they belong to.
std::string cuda_version_of(std::string_view name) {
  constexpr std::array<std::string_view, 6> k_follow_cuda{
      "cudart", "cublas", "nvrtc", "nvjitlink", "cupti", "nvjpeg"};
  constexpr std::array<std::string_view, 5> k_followed_until_10{
      "cufft", "curand", "cusolver", "cusparse", "npp"};
  std::string_view stem = name.substr(name.compare(0, 3, "lib") == 0 ? 3 : 0);
  const auto starts = [&](std::string_view p) { return stem.compare(0, p.size(), p) == 0; };
  if (std::any_of(k_followed_until_10.begin(), k_followed_until_10.end(), starts)) {
    // Exactly two numbers on Linux (a longer file name is the library's own release: CUDA 11.0
    // ships libcufft.so.10.2.1.245), three digits or a pre-10 pair on Windows.
    const std::size_t so = name.find(".so.");
    if (so != std::string_view::npos) {
      const std::string_view v = name.substr(so + 4);
      const std::size_t dot = v.find('.');
      const auto major = util::parse_uint(v.substr(0, dot));
      if (dot == std::string_view::npos || !major || *major > 10) {
        return {};
      }
      std::size_t e = dot + 1;
      while (e < v.size() && is_digit(v[e])) {
        ++e;
      }
      return e > dot + 1 && e == v.size() ? std::string(v) : std::string{};
    }
    const std::string_view d = windows_number(name);
    if (d.size() == 3 && d[0] == '1' && d[1] == '0') {
      return "10." + std::string(1, d[2]); // cufft64_100.dll
    }
    if (d.size() == 2 && d[0] >= '7' && d[0] <= '9') {
      return std::string(1, d[0]) + "." + std::string(1, d[1]); // curand64_80.dll
    }
    return {};
  }
  if (std::none_of(k_follow_cuda.begin(), k_follow_cuda.end(), starts)) {
    return {};
  }
  const std::size_t so = name.find(".so.");
  if (so != std::string_view::npos) {
    std::string_view v = name.substr(so + 4);
    // Keep major.minor: "11.0.221" -> "11.0".
    const std::size_t first = v.find('.');
    if (first != std::string_view::npos) {
      const std::size_t second = v.find('.', first + 1);
      v = v.substr(0, second);
    }
    return std::string(v);
  }
  const std::string_view d = windows_number(name);
  if (d.size() == 2) {
    const int value = (d[0] - '0') * 10 + (d[1] - '0');
    if (value >= 10 && value <= 19) {
      return std::string(d); // CUDA 11 onwards name the major only
    }
    return std::string(1, d[0]) + "." + std::string(1, d[1]);
  }
  if (d.size() == 3) {
    return std::string(d.substr(0, 2)) + "." + std::string(d.substr(2));
  }
  return {};
}

bool starts(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The name without its suffix and versions: "cudnn_cnn_infer64_8.dll" -> "cudnn_cnn_infer64_8",
// "libcudnn_ops.so.9.1.0" -> "libcudnn_ops".
std::string_view stem_of(std::string_view name) {
  for (std::string_view suffix : {".dll", ".pyd", ".dylib", ".so"}) {
    const std::size_t at = name.find(suffix);
    if (at != std::string_view::npos && at > 0) {
      return name.substr(0, at);
    }
  }
  return name;
}

// Two names of the same file: equal, or one is the other without its trailing versions
// ("libcudnn_ops.so" and "libcudnn_ops.so.9").
bool same_library(std::string_view a, std::string_view b) {
  if (a == b) {
    return true;
  }
  if (a.size() > b.size()) {
    std::swap(a, b);
  }
  return starts(b, a) && a.size() >= 3 && a.substr(a.size() - 3) == ".so" && b[a.size()] == '.';
}

unsigned major_after(std::string_view name, std::string_view key) {
  const std::size_t at = name.rfind(key);
  if (at == std::string_view::npos) {
    return 0;
  }
  unsigned v = 0;
  std::size_t i = at + key.size();
  const std::size_t b = i;
  while (i < name.size() && is_digit(name[i]) && i - b < 3) {
    v = v * 10 + static_cast<unsigned>(name[i] - '0');
    ++i;
  }
  return i > b ? v : 0;
}

// Whether a library's stem names it as a program's GPU build: a word of it ("_"/"-"/"."
// separated) is "gpu", or begins or ends with "cuda" ("yolo_cpp_dll_gpu",
// "mynteye_cudafeatures", "jcuda").
bool names_gpu_build(std::string_view stem) {
  std::size_t i = 0;
  while (i < stem.size()) {
    std::size_t j = i;
    while (j < stem.size() && stem[j] != '_' && stem[j] != '-' && stem[j] != '.') {
      ++j;
    }
    const std::string_view word = stem.substr(i, j - i);
    if (word == "gpu" || starts(word, "cuda")
        || (word.size() >= 4 && word.substr(word.size() - 4) == "cuda")) {
      return true;
    }
    i = j + 1;
  }
  return false;
}

struct RoleStem {
  std::string_view prefix;
  LibraryRole role;
};

constexpr std::array<RoleStem, 64> k_stems{{
    {"zlibwapi", LibraryRole::zlib},
    {"cudart", LibraryRole::cuda_runtime},
    {"libcudart", LibraryRole::cuda_runtime},
    {"nvcuda", LibraryRole::driver},
    {"nvml", LibraryRole::nvml},
    {"libnvidia-ml", LibraryRole::nvml},
    {"cublas", LibraryRole::cuda_library},
    {"libcublas", LibraryRole::cuda_library},
    {"cufft", LibraryRole::cuda_library},
    {"libcufft", LibraryRole::cuda_library},
    {"curand", LibraryRole::cuda_library},
    {"libcurand", LibraryRole::cuda_library},
    {"cusolver", LibraryRole::cuda_library},
    {"libcusolver", LibraryRole::cuda_library},
    {"cusparse", LibraryRole::cuda_library},
    {"libcusparse", LibraryRole::cuda_library},
    {"nvrtc", LibraryRole::cuda_library},
    {"libnvrtc", LibraryRole::cuda_library},
    {"nvjitlink", LibraryRole::cuda_library},
    {"libnvjitlink", LibraryRole::cuda_library},
    {"nvvm", LibraryRole::cuda_library}, // libnvvm.so, nvvm64_40_0.dll: the toolkit's nvvm/lib64
    {"libnvvm", LibraryRole::cuda_library},
    {"cupti", LibraryRole::cuda_library},
    {"libcupti", LibraryRole::cuda_library},
    {"nvjpeg", LibraryRole::cuda_library},
    {"libnvjpeg", LibraryRole::cuda_library},
    {"npp", LibraryRole::cuda_library},
    {"libnpp", LibraryRole::cuda_library},
    {"nvtoolsext", LibraryRole::cuda_library},
    {"libnvtoolsext", LibraryRole::cuda_library},
    {"libnccl", LibraryRole::cuda_library},
    {"cufile", LibraryRole::cuda_library},
    {"libcufile", LibraryRole::cuda_library},
    {"vcruntime", LibraryRole::msvc_runtime},
    {"msvcp", LibraryRole::msvc_runtime},
    {"msvcr", LibraryRole::msvc_runtime},
    {"concrt", LibraryRole::msvc_runtime},
    {"ucrtbase", LibraryRole::msvc_runtime},
    {"api-ms-win-crt-", LibraryRole::msvc_runtime},
    {"libomp", LibraryRole::openmp},
    {"vcomp", LibraryRole::openmp},
    {"libiomp", LibraryRole::openmp},
    {"libgomp", LibraryRole::openmp},
    {"libnvinfer", LibraryRole::tensorrt},
    {"nvinfer", LibraryRole::tensorrt},
    {"libnvonnxparser", LibraryRole::tensorrt},
    {"libnvparsers", LibraryRole::tensorrt},
    {"c10", LibraryRole::framework},
    {"libc10", LibraryRole::framework},
    {"torch", LibraryRole::framework},
    {"libtorch", LibraryRole::framework},
    {"caffe2", LibraryRole::framework},
    {"shm", LibraryRole::framework},
    {"fbgemm", LibraryRole::framework},
    {"asmjit", LibraryRole::framework},
    {"onnxruntime", LibraryRole::framework},
    {"libonnxruntime", LibraryRole::framework},
    {"libtensorflow", LibraryRole::framework},
    {"libpaddle", LibraryRole::framework},
    {"paddle", LibraryRole::framework},
    {"ctranslate2", LibraryRole::framework},
    {"libctranslate2", LibraryRole::framework},
    {"libmxnet", LibraryRole::framework},
    {"ggml", LibraryRole::framework},
}};

} // namespace

LibraryIdentity classify_library(std::string_view name,
                                 const std::vector<kb::CudnnLibrarySet>& cudnn_sets) {
  LibraryIdentity id;
  if (name.empty()) {
    return id;
  }
  if (contains(name, ".cpython-") || contains(name, ".abi3.") || contains(name, ".pyd")
      || contains(name, "_pybind11_state") || contains(name, "pywrap")) {
    id.role = LibraryRole::python_extension;
    return id;
  }
  const std::string_view stem = stem_of(name);
  // cuDNN: a member of one of the knowledge base's sets, or named like one. A name without its
  // version ("libcudnn.so") is a member of every major that ships the library, so it names a
  // major only when one major alone has it ("libcudnn_ops.so": cuDNN 9).
  bool member_found = false;
  for (const kb::CudnnLibrarySet& set : cudnn_sets) {
    for (const std::string& member : set.members) {
      const std::string lower = util::to_lower(member);
      if (!same_library(name, lower) && !(stem == name && stem == stem_of(lower))) {
        continue;
      }
      if (!member_found) {
        const std::string_view member_stem = stem_of(lower);
        const bool dispatcher = member_stem == "libcudnn" || starts(member_stem, "cudnn64_");
        id.role = dispatcher ? LibraryRole::cudnn : LibraryRole::cudnn_sublibrary;
        id.cudnn_major = set.major;
        member_found = true;
      } else if (id.cudnn_major != set.major) {
        id.cudnn_major = 0;
      }
      if (name == lower) {
        id.cudnn_major = set.major; // the exact file name carries its major
        return id;
      }
    }
  }
  if (member_found) {
    return id;
  }
  if (stem == "libcudnn" || starts(stem, "cudnn64_") || stem == "cudnn") {
    id.role = LibraryRole::cudnn;
  } else if (starts(stem, "libcudnn_") || starts(stem, "cudnn_")) {
    id.role = LibraryRole::cudnn_sublibrary;
  }
  if (id.role != LibraryRole::unknown) {
    id.cudnn_major = starts(stem, "lib") ? major_after(name, ".so.") : major_after(stem, "64_");
    return id;
  }
  if (stem == "libcuda" || stem == "cuda") {
    id.role = LibraryRole::driver;
    return id;
  }
  for (const RoleStem& r : k_stems) {
    if (starts(stem, r.prefix)) {
      id.role = r.role;
      break;
    }
  }
  if (id.role == LibraryRole::unknown && names_gpu_build(stem)) {
    id.role = LibraryRole::gpu_module;
    return id;
  }
  if (id.role == LibraryRole::cuda_runtime || id.role == LibraryRole::cuda_library) {
    id.cuda_version = cuda_version_of(name);
  }
  return id;
}

} // namespace doctor::explain
