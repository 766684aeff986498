// SPDX-License-Identifier: MIT
// The checks of checks/windows_access.cpp over facts.windows.file_access as the live Windows
// collector (collect/windows/access_collector.cpp) records it, on a machine whose loader walk
// loads torch's cuDNN; and that the entries survive a snapshot.
#include "support/check_fixtures.hpp"
#include "support/windows_tree.hpp"

#include <doctor/model/facts_json.hpp>
#include <doctor/report/inventory.hpp>
#include <doctor/report/report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace doctor {
namespace {

using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::k_torch_lib;
using test::run_all;

const std::string k_cnn = k_torch_lib + "\\cudnn_cnn_infer64_8.dll";

facts::WindowsFileAccess entry(const std::string& path) {
  facts::WindowsFileAccess a;
  a.path = path;
  a.source = "api:AccessCheck";
  return a;
}

// torch 2.0.1 with its cuDNN 8.9 in torch\lib, walked and recorded, with `access` noted.
facts::Facts torch_machine(std::vector<facts::WindowsFileAccess> access) {
  test::WindowsTree t;
  test::torch_wheel(t);
  auto f = test::windows_machine(test::k_system32 + ";C:\\Windows",
                                 test::framework("torch", "2.0.1+cu118", "11.8", "8.9.2"));
  test::list_torch_lib(f, t);
  t.record(f);
  f.windows.file_access = std::move(access);
  return f;
}

TEST(check_windows_file_access, a_dll_the_user_may_not_execute_is_error_5_with_an_icacls_grant) {
  auto denied = entry(k_cnn);
  denied.executable = false;
  const auto findings = run_all(torch_machine({denied}));
  const Finding* d = find_id(findings, test::ids::k_windows_dll_access_denied);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->subject, k_cnn);
  EXPECT_NE(d->message.find("does not let this user execute it"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("error 5"), std::string::npos) << d->message;
  // The loader walk says who loads it.
  EXPECT_NE(d->message.find("torch 2.0.1+cu118"), std::string::npos) << d->message;
  EXPECT_TRUE(has_evidence(*d, "read allowed, execute denied"));
  // The path goes through PowerShell's quoting (single quotes: it has no space, but a backslash
  // is safe bare only where the quoting function says so).
  EXPECT_TRUE(has_fix_command(*d, "/grant \"$($env:USERNAME):(RX)\""));
  EXPECT_TRUE(has_fix_command(*d,
                              "icacls C:\\venv\\Lib\\site-packages\\torch\\lib\\"
                              "cudnn_cnn_infer64_8.dll /grant"))
      << d->fixes.front().command;
  EXPECT_TRUE(std::any_of(d->fixes.begin(), d->fixes.end(), [](const Fix& x) {
    return x.text.find("reinstall it as the user who runs the program") != std::string::npos;
  }));
}

TEST(check_windows_file_access, a_path_with_a_quote_is_quoted_for_powershell) {
  auto denied = entry("C:\\Users\\O'Brien\\cudnn\\bin\\cudnn64_9.dll");
  denied.readable = false;
  denied.executable = false;
  const auto findings = run_all(torch_machine({denied}));
  const Finding* d = find_id(findings, test::ids::k_windows_dll_access_denied);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("read or execute it"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("for every program that loads it"), std::string::npos) << d->message;
  EXPECT_TRUE(has_fix_command(*d, "icacls 'C:\\Users\\O''Brien\\cudnn\\bin\\cudnn64_9.dll' /grant"))
      << d->fixes.front().command;
}

TEST(check_windows_file_access, a_marked_unsigned_dll_is_a_warning_and_a_signed_one_info) {
  // The tree's DLLs carry no certificate table: unsigned, as far as the headers tell.
  auto marked = entry(k_cnn);
  marked.zone = 3;
  marked.source = "api:AccessCheck+ads:Zone.Identifier";
  auto findings = run_all(torch_machine({marked}));
  const Finding* m = find_id(findings, test::ids::k_windows_dll_marked_downloaded);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::warning);
  EXPECT_NE(m->message.find("ZoneId 3 (Internet)"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("carries no Authenticode signature"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("error 4551"), std::string::npos) << m->message;
  EXPECT_TRUE(has_fix_command(*m, "Unblock-File -LiteralPath C:\\venv\\"));
  EXPECT_TRUE(has_evidence(*m, "cudnn_cnn_infer64_8.dll:Zone.Identifier: ZoneId=3"));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_dll_access_denied));

  marked.authenticode = "valid";
  findings = run_all(torch_machine({marked}));
  m = find_id(findings, test::ids::k_windows_dll_marked_downloaded);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::info);
  EXPECT_NE(m->message.find("has a valid Authenticode signature"), std::string::npos) << m->message;

  // A DLL whose headers the facts do not hold is not called unsigned.
  auto elsewhere = entry("C:\\Downloads\\cudnn\\bin\\cudnn64_9.dll");
  elsewhere.zone = 4;
  findings = run_all(torch_machine({elsewhere}));
  m = find_id(findings, test::ids::k_windows_dll_marked_downloaded);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::info);
  EXPECT_NE(m->message.find("ZoneId 4 (Restricted sites)"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("was not examined for a signature"), std::string::npos) << m->message;

  // Zones 1 and 2 (intranet, trusted sites) are no download mark.
  marked.zone = 2;
  EXPECT_FALSE(
      has_id(run_all(torch_machine({marked})), test::ids::k_windows_dll_marked_downloaded));
}

TEST(check_windows_signatures, an_invalid_nvidia_signature_is_a_warning_and_unsigned_is_none) {
  auto bad = entry(k_cnn);
  bad.authenticode = "invalid: 0x80096010 TRUST_E_BAD_DIGEST";
  auto findings = run_all(torch_machine({bad}));
  const Finding* s = find_id(findings, test::ids::k_windows_dll_signature_invalid);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::warning);
  EXPECT_NE(s->message.find("(0x80096010 TRUST_E_BAD_DIGEST)"), std::string::npos) << s->message;
  EXPECT_TRUE(std::any_of(s->fixes.begin(), s->fixes.end(), [](const Fix& x) {
    return x.text.find("altered or damaged after signing") != std::string::npos;
  }));

  bad.authenticode = "invalid: 0x800b0109 CERT_E_UNTRUSTEDROOT";
  findings = run_all(torch_machine({bad}));
  s = find_id(findings, test::ids::k_windows_dll_signature_invalid);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(std::any_of(s->fixes.begin(), s->fixes.end(), [](const Fix& x) {
    return x.text.find("lacks the root certificate") != std::string::npos;
  }));

  // Unsigned makes no finding at all (repackaged DLLs often are), and a framework's own DLL with
  // a bad signature is not NVIDIA's to judge.
  bad.authenticode = "unsigned";
  findings = run_all(torch_machine({bad}));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_dll_signature_invalid));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_dll_marked_downloaded));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_dll_access_denied));
  auto c10 = entry(k_torch_lib + "\\c10.dll");
  c10.authenticode = "invalid: 0x80096010 TRUST_E_BAD_DIGEST";
  EXPECT_FALSE(has_id(run_all(torch_machine({c10})), test::ids::k_windows_dll_signature_invalid));
}

TEST(check_windows_file_access, no_entries_change_nothing_and_linux_facts_are_not_judged) {
  const auto plain = run_all(torch_machine({}));
  // An entry with nothing to say (as an older or hand-made snapshot may hold) adds nothing.
  EXPECT_EQ(run_all(torch_machine({entry(k_cnn)})), plain);
  auto linux_facts = test::machine_without_gpu();
  const auto before = run_all(linux_facts);
  auto denied = entry("/usr/lib/libcudnn.so.9");
  denied.readable = false;
  linux_facts.windows.file_access = {denied};
  EXPECT_EQ(run_all(linux_facts), before);
}

TEST(windows_file_access_facts, entries_survive_a_snapshot_and_give_the_same_findings) {
  auto denied = entry(k_cnn);
  denied.executable = false;
  denied.zone = 3;
  denied.authenticode = "invalid: 0x80096010 TRUST_E_BAD_DIGEST";
  denied.source = "api:CreateFileW+ads:Zone.Identifier+api:WinVerifyTrust";
  denied.detail = "the security descriptor was not read (GetFileSecurityW: Access is denied.)";
  const auto original = torch_machine({denied});
  const std::string text = facts::to_json_text(original);
  auto back = facts::from_json_text(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->windows.file_access, original.windows.file_access);
  EXPECT_EQ(run_all(*back), run_all(original));
  EXPECT_TRUE(has_id(run_all(*back), test::ids::k_windows_dll_signature_invalid));
  // A snapshot written before `source` and `detail` existed still reads, with them empty.
  auto old = nlohmann::json::parse(text);
  for (auto& a : old["windows"]["file_access"]) {
    a.erase("source");
    a.erase("detail");
  }
  auto older = facts::from_json_text(old.dump());
  ASSERT_TRUE(older) << older.error().message;
  ASSERT_EQ(older->windows.file_access.size(), 1U);
  EXPECT_EQ(older->windows.file_access[0].source, "");
  EXPECT_FALSE(older->windows.file_access[0].executable);
}

// The inventory shows the entries in text and JSON, and a machine without any shows neither.
TEST(windows_file_access_inventory, entries_are_listed_and_absent_without_any) {
  auto denied = entry(k_cnn);
  denied.executable = false;
  auto signed_dll = entry(test::k_system32 + "\\nvcuda.dll");
  signed_dll.authenticode = "valid";
  signed_dll.zone = 3;
  report::Report r;
  r.tool_version = "0.1.0";
  r.kb_version = "kb";
  r.target_kind = "live";
  r.target = "/";
  const auto f = torch_machine({denied, signed_dll});
  r.inventory = report::make_inventory(f);
  r.findings = run_all(f);
  const auto j = nlohmann::json::parse(report::render_json(r));
  const auto& access = j["inventory"]["windows"]["file_access"];
  ASSERT_EQ(access.size(), 2U);
  EXPECT_EQ(access[0]["path"], k_cnn);
  EXPECT_EQ(access[0]["executable"], false);
  EXPECT_EQ(access[0]["readable"], true);
  EXPECT_EQ(access[1]["zone"], 3);
  EXPECT_EQ(access[1]["authenticode"], "valid");
  const std::string text = report::render_text(r, false);
  EXPECT_NE(text.find(k_cnn + ": not executable by this user"), std::string::npos) << text;
  EXPECT_NE(text.find("nvcuda.dll: Zone.Identifier ZoneId 3, Authenticode valid"),
            std::string::npos)
      << text;

  r.inventory = report::make_inventory(torch_machine({}));
  EXPECT_FALSE(nlohmann::json::parse(report::render_json(r))["inventory"]["windows"].contains(
      "file_access"));
  EXPECT_EQ(report::render_text(r, false).find("DLL access"), std::string::npos);
}

} // namespace
} // namespace doctor
