#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks data/kb/signatures.json (the error signatures of `cudnn-doctor explain`) against
data/kb/findings.json, without the C++ build.

Usage: python3 tests/lint/check_signatures.py REPO_ROOT

What it checks, per signature: the fields and their types; a unique, well-formed id; the role,
platform and confidence ranges; that the finding exists (noise signatures use log.harmless_noise,
context signatures log.context); that every param of the finding is captured by each pattern or
given in "values"; that explained_by names findings; that each pattern stays inside the regex
dialect of src/doctor/util/regex.hpp, compiles with Python's re (after (?<name> -> (?P<name>),
and has a top-level literal of at least 4 characters and 7 bytes for the prefilter; that every
example matches one of the signature's patterns with every param filled; and that no noise
signature matches an example of a cause signature. Exits 1 listing every problem, else prints a
summary.
"""
import collections
import json
import os
import re
import sys

SPEC = "cudnn-doctor-kb/1"
ROLES = ("cause", "symptom", "noise", "context")
PLATFORMS = ("windows", "linux", "any")
FIELDS = {"id", "finding", "role", "confidence", "platform", "patterns", "values",
          "explained_by", "examples", "alternatives", "likely", "prefers", "source"}
REQUIRED = ("id", "finding", "role", "confidence", "platform", "patterns", "examples", "source")
ID_RE = re.compile(r"^[a-z0-9_]+(?:\.[a-z0-9_]+)*$")
MIN_LITERAL = 4
# The sampled prefilter steps by the shortest literal less 3 and needs a stride of 4: a
# built-in pattern's literal under 7 bytes would slow every log down.
PREFILTER_LITERAL_BYTES = 7
MAX_COUNT = 100
CLASS_ESCAPES = set("dwsDWS")
ASSERT_ESCAPES = set("bB")
CHAR_ESCAPES = {"t": "\t", "n": "\n", "r": "\r"}


class DialectError(Exception):
    pass


def parse_count(p, i):
    """If p[i] starts a counted repetition {n}, {n,} or {n,m}, returns (end index, n, m or None
    for no upper bound, or n for {n}); else None (a literal '{', as RE2 reads it)."""
    m = re.match(r"\{(\d+)(,(\d*))?\}", p[i:])
    if not m:
        return None
    lo = int(m.group(1))
    if m.group(2) is None:
        hi = lo
    elif m.group(3) == "":
        hi = None
    else:
        hi = int(m.group(3))
    return i + m.end(), lo, hi


def quantifier_at(p, i):
    """Returns the index after a quantifier (with its lazy '?') starting at p[i], or None."""
    if i >= len(p):
        return None
    if p[i] in "*+?":
        j = i + 1
    elif p[i] == "{":
        c = parse_count(p, i)
        if c is None:
            return None
        j, lo, hi = c
        if lo > MAX_COUNT or (hi is not None and hi > MAX_COUNT):
            raise DialectError(f"offset {i}: repetition count above {MAX_COUNT}")
        if hi is not None and hi < lo:
            raise DialectError(f"offset {i}: repetition {{{lo},{hi}}} has max < min")
    else:
        return None
    if j < len(p) and p[j] == "?":
        j += 1
    elif j < len(p) and p[j] in "*+":
        raise DialectError(f"offset {j}: possessive or doubled quantifier")
    return j


def skip_class(p, i):
    """p[i] == '['; returns the index after the closing ']'."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        j += 1
    first = True
    while True:
        if j >= len(p):
            raise DialectError(f"offset {i}: unterminated class '['")
        c = p[j]
        if c == "]" and not first:
            return j + 1
        first = False
        if c == "\\":
            if j + 1 >= len(p):
                raise DialectError(f"offset {j}: trailing backslash")
            e = p[j + 1]
            if e == "b":
                raise DialectError(f"offset {j}: \\b inside a class")
            check_escape(p, j)
            j += 4 if e == "x" else 2
            continue
        if c == "[" and j + 1 < len(p) and p[j + 1] == ":":
            raise DialectError(f"offset {j}: POSIX classes [:name:] are not supported")
        j += 1


def check_escape(p, j):
    """p[j] == '\\'; raises for escapes outside the dialect."""
    e = p[j + 1]
    if e in CLASS_ESCAPES or e in ASSERT_ESCAPES or e in CHAR_ESCAPES:
        return
    if e == "x":
        if not re.match(r"[0-9A-Fa-f]{2}", p[j + 2:j + 4]):
            raise DialectError(f"offset {j}: \\x needs two hex digits")
        return
    if e.isascii() and (e.isalnum() or e == "_"):
        raise DialectError(f"offset {j}: escape \\{e} is not in the dialect "
                           "(no backreferences, \\A, \\Z, \\p …)")


def scan(pattern):
    """Checks `pattern` against the dialect and returns the longest run of literal characters at
    its top level (outside every group, each not followed by a quantifier)."""
    p = pattern
    i = 0
    if p.startswith("(?i)"):
        i = 4
    depth = 0
    best = ""
    run = ""
    top_alternation = False
    while i < len(p):
        c = p[i]
        literal = None  # the literal character this atom stands for, if it is one
        nxt = i + 1
        if c == "\\":
            if i + 1 >= len(p):
                raise DialectError(f"offset {i}: trailing backslash")
            check_escape(p, i)
            e = p[i + 1]
            if e in CLASS_ESCAPES or e in ASSERT_ESCAPES:
                nxt = i + 2
            elif e in CHAR_ESCAPES:
                literal = CHAR_ESCAPES[e]
                nxt = i + 2
            elif e == "x":
                literal = chr(int(p[i + 2:i + 4], 16))
                nxt = i + 4
            else:
                literal = e
                nxt = i + 2
            if e in ASSERT_ESCAPES and quantifier_at(p, nxt) is not None:
                raise DialectError(f"offset {nxt}: nothing to repeat")
        elif c == "[":
            nxt = skip_class(p, i)
        elif c == "(":
            rest = p[i + 1:]
            if rest.startswith("?"):
                if rest.startswith("?:"):
                    nxt = i + 3
                elif re.match(r"\?P?<[A-Za-z_][A-Za-z0-9_]*>", rest):
                    nxt = i + 1 + re.match(r"\?P?<[A-Za-z_][A-Za-z0-9_]*>", rest).end()
                elif rest.startswith("?i)"):
                    raise DialectError(f"offset {i}: (?i) is allowed only at the start")
                else:
                    raise DialectError(f"offset {i}: group syntax '(?{rest[1:3]}' is not in the "
                                       "dialect (no lookaround, no inline flags)")
            depth += 1
            if depth == 1:
                if len(run) > len(best):
                    best = run
                run = ""
            i = nxt
            continue
        elif c == ")":
            if depth == 0:
                raise DialectError(f"offset {i}: unbalanced ')'")
            depth -= 1
            nxt = i + 1
            q = quantifier_at(p, nxt)
            i = q if q is not None else nxt
            continue
        elif c == "|":
            if depth == 0:
                top_alternation = True
            nxt = i + 1
        elif c in "*+?":
            raise DialectError(f"offset {i}: nothing to repeat")
        elif c == "{" and parse_count(p, i) is not None:
            raise DialectError(f"offset {i}: nothing to repeat")
        elif c in ".^$":
            nxt = i + 1
        else:
            literal = c
            nxt = i + 1
        q = quantifier_at(p, nxt)
        if depth == 0:
            if literal is not None and q is None:
                run += literal
            else:
                if len(run) > len(best):
                    best = run
                run = ""
        i = q if q is not None else nxt
    if depth != 0:
        raise DialectError("unbalanced '('")
    if len(run) > len(best):
        best = run
    if top_alternation:
        raise DialectError("alternation '|' at the top level: the prefilter needs one literal that "
                           "every match contains; split it into separate patterns")
    return best


def to_python(pattern):
    """Rewrites (?<name> to (?P<name>, leaving escapes and classes alone."""
    out = []
    i = 0
    p = pattern
    while i < len(p):
        c = p[i]
        if c == "\\":
            out.append(p[i:i + 2])
            i += 2
        elif c == "[":
            j = skip_class(p, i)
            out.append(p[i:j])
            i = j
        elif p.startswith("(?<", i) and i + 3 < len(p) and (p[i + 3].isalpha() or p[i + 3] == "_"):
            out.append("(?P<")
            i += 3
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_alternatives(row, where, findings, err):
    """"alternatives": at most two, each another finding below the row's confidence, with a tell
    and, optionally, the one platform the cause is found on (as kb/signatures.cpp
    parse_alternatives)."""
    alts = row.get("alternatives", [])
    if not isinstance(alts, list):
        err(f'{where}: "alternatives" must be an array')
        return
    if len(alts) > 2:
        err(f'{where}: "alternatives" holds at most two')
    for k, alt in enumerate(alts):
        aw = f"{where} alternatives[{k}]"
        if not isinstance(alt, dict) or not {"finding", "confidence", "tell"} <= set(alt) \
                or not set(alt) <= {"finding", "confidence", "tell", "platform"}:
            err(f'{aw}: needs "finding", "confidence" and "tell", and may have "platform"')
            continue
        if alt.get("platform", "windows") not in ("windows", "linux", "macos"):
            err(f'{aw}: "platform" must be windows, linux or macos (absent: any)')
        if alt["finding"] not in findings:
            err(f'{aw}: finding "{alt["finding"]}" is not in findings.json')
        if alt["finding"] == row.get("finding"):
            err(f"{aw}: an alternative must name another finding")
        conf = alt["confidence"]
        if not isinstance(conf, int) or not 1 <= conf < row.get("confidence", 0):
            err(f'{aw}: "confidence" must be 1 or more and below the row\'s own')
        if not isinstance(alt["tell"], str) or not alt["tell"]:
            err(f'{aw}: "tell" must say how to tell this cause apart')


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = argv[1]
    errors = []

    def err(msg):
        errors.append(msg)

    kb = os.path.join(root, "data", "kb")
    try:
        with open(os.path.join(kb, "findings.json"), encoding="utf-8") as f:
            findings_doc = json.load(f)
        findings = {row["id"]: row for row in findings_doc["findings"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"check_signatures: cannot read findings.json: {e}", file=sys.stderr)
        return 1
    path = os.path.join(kb, "signatures.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_signatures: {path}: {e}", file=sys.stderr)
        return 1

    if not isinstance(doc, dict) or doc.get("spec") != SPEC:
        err(f'signatures.json: "spec" must be "{SPEC}"')
    if not isinstance(doc, dict) or doc.get("kind") != "signatures":
        err('signatures.json: "kind" must be "signatures"')
    rows = doc.get("signatures") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        err('signatures.json: "signatures" must be a non-empty array')
        rows = []

    seen = set()
    compiled = []  # (row, [compiled patterns])
    for n, row in enumerate(rows):
        where = f"signatures[{n}]"
        if not isinstance(row, dict):
            err(f"{where}: not an object")
            continue
        sid = row.get("id")
        if isinstance(sid, str):
            where += f" ({sid})"
        for name in sorted(set(row) - FIELDS):
            err(f'{where}: unknown field "{name}"')
        missing = [name for name in REQUIRED if name not in row]
        for name in missing:
            err(f'{where}: missing field "{name}"')
        if missing:
            continue
        if not isinstance(sid, str) or not ID_RE.match(sid):
            err(f"{where}: id must be dotted lower-case [a-z0-9_.]")
        elif sid in seen:
            err(f"{where}: duplicate id")
        else:
            seen.add(sid)
        role = row["role"]
        if role not in ROLES:
            err(f"{where}: role must be one of {', '.join(ROLES)}")
        conf = row["confidence"]
        if not isinstance(conf, int) or isinstance(conf, bool) or not 1 <= conf <= 100:
            err(f"{where}: confidence must be an integer 1..100")
        if row["platform"] not in PLATFORMS:
            err(f"{where}: platform must be one of {', '.join(PLATFORMS)}")
        if not isinstance(row["source"], str) or not row["source"].strip():
            err(f"{where}: source must be a non-empty string")
        finding = row["finding"]
        frow = findings.get(finding)
        if frow is None:
            err(f'{where}: finding "{finding}" is not in findings.json')
        if role == "noise" and finding != "log.harmless_noise":
            err(f"{where}: noise signatures use finding log.harmless_noise")
        if role == "context" and finding != "log.context":
            err(f"{where}: context signatures use finding log.context")
        if role in ("cause", "symptom") and finding in ("log.harmless_noise", "log.context"):
            err(f"{where}: a {role} signature cannot use {finding}")
        values = row.get("values", {})
        if not isinstance(values, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v for k, v in values.items()):
            err(f'{where}: "values" must map names to non-empty strings')
            values = {}
        explained = row.get("explained_by", [])
        if not isinstance(explained, list) or not all(isinstance(x, str) for x in explained):
            err(f'{where}: "explained_by" must be an array of finding ids')
            explained = []
        for x in explained:
            if x not in findings:
                err(f'{where}: explained_by "{x}" is not in findings.json')
            if x == finding:
                err(f'{where}: explained_by names the signature\'s own finding "{x}"')
        if explained and role in ("noise", "context"):
            err(f"{where}: explained_by makes no sense on a {role} signature")
        params = list(frow.get("params", [])) if frow else []
        prefers = row.get("prefers", [])
        if prefers and role != "context":
            err(f'{where}: "prefers" is for context rows')
        if not isinstance(prefers, list):
            err(f'{where}: "prefers" must be an array')
            prefers = []
        for k, pref in enumerate(prefers):
            pw = f"{where} prefers[{k}]"
            if not isinstance(pref, dict) or set(pref) != {"finding", "over", "tell"}:
                err(f'{pw}: needs exactly "finding", "over" and "tell"')
                continue
            for key in ("finding", "over"):
                if pref[key] not in findings:
                    err(f'{pw}: {key} "{pref[key]}" is not in findings.json')
            if pref["finding"] in findings and findings[pref["finding"]].get("params"):
                err(f'{pw}: finding {pref["finding"]} takes params; a context line cannot give them')
            if pref["finding"] == pref["over"] or not isinstance(pref["tell"], str) or not pref["tell"]:
                err(f'{pw}: "finding" and "over" must differ, and "tell" say how to tell them apart')

        check_alternatives(row, where, findings, err)

        patterns = row["patterns"]
        if not isinstance(patterns, list) or not patterns or not all(
                isinstance(x, str) and x for x in patterns):
            err(f'{where}: "patterns" must be a non-empty array of strings')
            continue
        res = []
        for k, pat in enumerate(patterns):
            pwhere = f"{where} patterns[{k}]"
            try:
                literal = scan(pat)
            except DialectError as e:
                err(f"{pwhere}: {e}: {pat}")
                continue
            if len(literal) < MIN_LITERAL:
                err(f"{pwhere}: needs a top-level literal of at least {MIN_LITERAL} characters "
                    f"(longest is {literal!r}): {pat}")
            elif len(literal.encode("utf-8")) < PREFILTER_LITERAL_BYTES:
                err(f"{pwhere}: its longest top-level literal {literal!r} is under "
                    f"{PREFILTER_LITERAL_BYTES} bytes, which would shorten the prefilter's stride "
                    f"(ExplainKb.BuiltinLiteralsKeepThePrefilterStride): {pat}")
            try:
                rx = re.compile(to_python(pat), re.ASCII)
            except re.error as e:
                err(f"{pwhere}: Python re rejects it ({e}): {pat}")
                continue
            for prm in params:
                if prm not in rx.groupindex and prm not in values:
                    err(f'{pwhere}: finding {finding} needs "{prm}": capture (?<{prm}>…) or give '
                        'it in "values"')
            res.append(rx)
        examples = row["examples"]
        if not isinstance(examples, list) or not 1 <= len(examples) <= 5 or not all(
                isinstance(x, str) and x for x in examples):
            err(f'{where}: "examples" must hold 1 to 5 non-empty strings')
            examples = []
        for ex in examples:
            if "\n" in ex or "\r" in ex:
                err(f"{where}: example spans several lines: {ex!r}")
                continue
            hit = None
            for rx in res:
                hit = rx.search(ex)
                if hit:
                    break
            if hit is None:
                if len(res) == len(patterns):
                    err(f"{where}: no pattern matches the example: {ex}")
                continue
            for prm in params:
                if prm in values:
                    continue
                if prm in hit.re.groupindex and not hit.group(prm):
                    err(f'{where}: the example leaves param "{prm}" empty: {ex}')
        compiled.append((row, res))

    loader_rules = doc.get("loader_rules", []) if isinstance(doc, dict) else []
    for n, row in enumerate(loader_rules if isinstance(loader_rules, list) else []):
        if isinstance(row, dict):
            check_alternatives(row, f"loader_rules[{n}] ({row.get('id')})", findings, err)

    noise = [(row, res) for row, res in compiled if row["role"] == "noise"]
    for row, _ in compiled:
        if row["role"] != "cause":
            continue
        for ex in row.get("examples", []):
            for nrow, nres in noise:
                if any(rx.search(ex) for rx in nres):
                    err(f"{row['id']}: noise signature {nrow['id']} matches its example: {ex}")

    if errors:
        for e in errors:
            print(f"check_signatures: {e}", file=sys.stderr)
        print(f"check_signatures: {len(errors)} problem(s) in {path}", file=sys.stderr)
        return 1

    by_role = collections.Counter(row["role"] for row, _ in compiled)
    by_finding = collections.Counter(row["finding"] for row, _ in compiled)
    n_patterns = sum(len(row["patterns"]) for row, _ in compiled)
    n_examples = sum(len(row["examples"]) for row, _ in compiled)
    print(f"signatures.json: {len(compiled)} signatures, {n_patterns} patterns, "
          f"{n_examples} examples: valid")
    print("per role: " + ", ".join(f"{r} {by_role[r]}" for r in ROLES))
    print("per finding:")
    for fid in sorted(by_finding):
        print(f"  {by_finding[fid]:3d}  {fid}")
    unused = sorted(f for f in findings if f.startswith("log.") and f not in by_finding)
    if unused:
        print("log.* findings without a signature: " + ", ".join(unused))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
