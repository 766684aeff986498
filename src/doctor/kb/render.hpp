// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/finding.hpp>
#include <doctor/util/error.hpp>

#include <string>
#include <string_view>

namespace doctor::kb {

// Fills `text`'s {placeholders} from `params`. Returns an error naming the placeholder if one has
// no value.
Expected<std::string> fill(std::string_view text, const Params& params);

// Turns a check's draft into a finding with the knowledge base's title, severity (raised, never
// lowered, by the draft), cause class, message and the fixes whose "when" tag the draft carries.
// Returns an error if the id is not in the knowledge base or a template cannot be filled.
Expected<Finding> render(const KnowledgeBase& kb, const FindingDraft& draft);

} // namespace doctor::kb
