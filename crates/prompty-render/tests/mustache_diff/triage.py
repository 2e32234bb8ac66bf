#!/usr/bin/env python3
"""Sorts the differences of the Mustache differential test into the waiver categories.

    MUSTACHE_DIFF_DUMP=/tmp/diff.jsonl cargo test -p prompty-render --test mustache_diff
    python3 triage.py /tmp/diff.jsonl            # print the categories and the unexplained cases
    python3 triage.py /tmp/diff.jsonl --write    # rewrite waivers.json from the categories

Each category is recognised from the template, the inputs and both outcomes; the first rule
that matches names the category. A difference no rule explains is printed and never written
as a waiver: fix it, or add a rule with its reason (and the same reason in
docs/compatibility.md, "Mustache").
"""

import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> reason (the reasons are also in docs/compatibility.md)
CATEGORIES = {
    "chevron-type-error": "A numeric name part on a boolean, number or null (`{{b.0}}`): chevron raises TypeError "
                          "(`'bool' object is not subscriptable`); here, as the spec says of a broken chain, the "
                          "name is missing and prints nothing.",
    "chevron-unclosed-tag": "chevron refuses some templates the spec accepts (a section closed after a "
                            "set-delimiter tag, or a tag it reads as unclosed); here they render as the spec says.",
    "string-index": "A numeric name part on a string (`{{s.0}}`): chevron indexes the string and prints one "
                    "character; the spec reads names of objects and lists only, so here it is missing.",
    "falsy-item": "An item of a list that is falsy (`false`, `0`, `\"\"`, `null`, `[]`, `{}`): chevron skips "
                  "everything inside the section for that item (and inside nested sections under it); here the "
                  "body renders once per item, as the spec says.",
    "dotted-fallback": "A dotted name whose first part is found but not the rest (`{{a.b}}` inside a section "
                       "where `a` lacks `b`): chevron goes on to look the whole name up in outer scopes; the spec "
                       "stops at the first part's scope, and so does this engine.",
    "implicit-iterator-true": "`{{.}}` where the current item is `true`: chevron prints the enclosing scope "
                              "instead (its guard against its own inverted-section booleans); here it prints `True`.",
    "empty-tag": "A tag with an empty name (`| |` after `{{=| |=}}`): chevron prints nothing; here it is a syntax "
                 "error, as a tag that names nothing is a mistake in the template.",
    "standalone-lines": "Which lines are standalone: chevron keeps the indentation of a standalone partial tag "
                        "and of some section tags, and decides standalone-ness after a tag that closes a "
                        "section on the same line differently from the spec; here the spec's rules hold "
                        "(the output differs in whitespace only).",
}


def falsy(v):
    return v in (None, False, 0, "", [], {})


def has_falsy_item(v):
    if isinstance(v, list):
        return any(falsy(x) or has_falsy_item(x) for x in v)
    if isinstance(v, dict):
        return any(has_falsy_item(x) for x in v.values())
    return False


def classify(case):
    t, inputs = case["template"], case["inputs"]
    want, got = case["want"], case["got"]
    werr = want.get("error", "")
    wout, gout = want.get("out"), got.get("out")
    if "not subscriptable" in werr or werr.startswith(("IndexError", "KeyError")):
        return "chevron-type-error"
    if werr.startswith("ChevronError"):
        return "chevron-unclosed-tag"
    if "empty tag name" in got.get("error", ""):
        return "empty-tag"
    if wout is None or gout is None:
        return None
    if "{'s':" in wout and "{'s':" not in gout:
        return "implicit-iterator-true"
    if re.sub(r"\s", "", wout) == re.sub(r"\s", "", gout):
        return "standalone-lines"
    if re.search(r"[{|<%][#^&{]?\s*\w+(\.\w+)*\.\d", t) and any(isinstance(v, str) for v in inputs.values()):
        return "string-index"
    if re.search(r"[{|<\[%][#^]", t) and has_falsy_item(inputs):
        return "falsy-item"
    if re.search(r"\{\{[#^]", t) and re.search(r"\{\{[&{]?\s*[a-z]+\.[a-z]", t):
        return "dotted-fallback"
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cases = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    found = collections.defaultdict(list)
    unexplained = []
    for case in cases:
        cat = classify(case)
        (found[cat] if cat else unexplained).append(case)
    for cat, items in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(items):4}  {cat}")
    for case in unexplained:
        print(f"\nUNEXPLAINED {case['n']} {case['tag']} {case['id']}")
        print("  template", json.dumps(case["template"], ensure_ascii=False)[:400])
        print("  inputs  ", json.dumps(case["inputs"], ensure_ascii=False)[:300])
        print("  chevron ", json.dumps(case["want"], ensure_ascii=False)[:300])
        print("  ours    ", json.dumps(case["got"], ensure_ascii=False)[:300])
    if "--write" in sys.argv:
        if unexplained:
            sys.exit(f"{len(unexplained)} differences are unexplained; waivers.json not written")
        waivers = {
            "categories": {c: CATEGORIES[c] for c in sorted(found)},
            "cases": sorted(({"id": c["id"], "category": cat} for cat, items in found.items() for c in items),
                            key=lambda w: (w["category"], w["id"])),
        }
        with open(os.path.join(HERE, "waivers.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(waivers, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(f"\nwrote {len(waivers['cases'])} waivers in {len(waivers['categories'])} categories")


if __name__ == "__main__":
    main()
