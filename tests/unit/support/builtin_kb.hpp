// SPDX-License-Identifier: MIT
#pragma once

// The knowledge base built into the doctor, loaded once for the whole test binary (a failed load
// fails the test that asked first, and the tests then see an empty knowledge base).

#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <utility>

namespace doctor::test {

inline const kb::KnowledgeBase& builtin_kb() {
  static const kb::KnowledgeBase k = [] {
    auto loaded = kb::KnowledgeBase::load_embedded();
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().message);
    return loaded ? std::move(*loaded) : kb::KnowledgeBase();
  }();
  return k;
}

} // namespace doctor::test
