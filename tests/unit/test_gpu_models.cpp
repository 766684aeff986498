// SPDX-License-Identifier: MIT
// The GPU models a report names (explain/gpu_models.hpp), read against the real knowledge base's
// model names (the refinement that compares their architecture with the CUDA the report names is
// tested with the version refinements, test_explain_versions.cpp).
#include <doctor/explain/gpu_models.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace doctor::explain {
namespace {

// "name cc" for each model `line` names.
std::vector<std::string> models(std::string_view line) {
  static const auto kb = kb::KnowledgeBase::load_embedded();
  EXPECT_TRUE(kb.has_value());
  static const GpuNames names(kb ? kb->compat() : kb::CompatTables{});
  std::vector<std::string> out;
  for (const GpuMention& g : names.find(line)) {
    std::string ccs;
    for (const Version& cc : g.ccs) {
      ccs += (ccs.empty() ? "" : ",") + cc.str();
    }
    out.push_back(g.name + " " + ccs);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(GpuNames, TheWaysReportsSpellAModel) {
  EXPECT_EQ(models("I am using cuda 9.0 with a RTX 2080 Ti GPU"), V{"GeForce RTX 2080 Ti 7.5"});
  EXPECT_EQ(models("GPU: NVIDIA GeForce RTX3090"), V{"GeForce RTX 3090 8.6"});
  EXPECT_EQ(models("gtx1070ti"), V{"GeForce GTX 1070 Ti 6.1"});
  EXPECT_EQ(models("config.device is Tesla P100-PCIE-16GB"), V{"Tesla P100 PCIe 12GB 6.0"});
  EXPECT_EQ(models("|   0  NVIDIA A100-SXM4-40GB  On |"), V{"A100-SXM4-40GB 8.0"});
  EXPECT_EQ(models("Colab gives me a T4"), V{"Tesla T4 7.5"});
  // The longer name wins: a Quadro RTX 4000 is Turing, an RTX 4000 SFF Ada is not.
  EXPECT_EQ(models("Quadro RTX 4000"), V{"Quadro RTX 4000 7.5"});
  // A name several chips carry keeps all their compute capabilities.
  EXPECT_EQ(models("GT 730 2GB"), V{"GeForce GT 730 2.1,3.0,3.5"});
}

TEST(GpuNames, OtherWordsAndNumbersAreNoModel) {
  EXPECT_TRUE(models("a 100 steps took 3 s").empty());
  EXPECT_TRUE(models("GTX 10700").empty());
  EXPECT_TRUE(models("T4x and xt4 and 3t4").empty());
  EXPECT_TRUE(models("0x7fa100 rtx").empty());
  EXPECT_TRUE(models("my 3090 runs fine").empty()); // a bare number names no model
  // A cloud machine type that begins with a two-character name is no GPU of that name.
  EXPECT_TRUE(models("Using a `a2-highgpu-8g` instance works with 8 gpus").empty());
  EXPECT_EQ(models("an A2 GPU and a T4-16GB"), (V{"A2 8.6", "Tesla T4 7.5"}));
}

TEST(GpuNames, MayNameGpu) {
  EXPECT_TRUE(may_name_gpu("GPU 0: NVIDIA GeForce RTX 2060"));
  EXPECT_TRUE(may_name_gpu("device: Tesla T4"));
  EXPECT_FALSE(may_name_gpu("loss 0.25 at step 100"));
}

} // namespace
} // namespace doctor::explain
