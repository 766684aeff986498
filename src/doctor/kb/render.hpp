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

// Builds the command of a fix from its template: the template's text is the doctor's own, a
// placeholder named in `commands` takes that command, any other takes its value from `params`,
// quoted as one word. Returns an error naming the placeholder if one has no value.
Expected<util::Command>
fill_command(std::string_view text, const Params& params, const CommandParams& commands);

// Turns a check's draft into a finding with the knowledge base's title, severity (raised, never
// lowered, by the draft), cause class, message and the fixes whose "when" tag the draft carries.
// A fix whose command cannot be quoted safely for its shell (see util::quote_argument) keeps its
// text, says why, and offers no command. Returns an error if the id is not in the knowledge base
// or a template cannot be filled.
Expected<Finding> render(const KnowledgeBase& kb, const FindingDraft& draft);

} // namespace doctor::kb
