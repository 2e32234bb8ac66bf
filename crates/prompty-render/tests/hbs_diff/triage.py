#!/usr/bin/env python3
"""Sorts the differences of the Handlebars differential test into the waiver categories.

    HBS_DIFF_DUMP=/tmp/diff.jsonl cargo test -p prompty-render --test hbs_diff
    python3 triage.py /tmp/diff.jsonl            # print the categories and the unexplained cases
    python3 triage.py /tmp/diff.jsonl --write    # rewrite waivers.json from the categories

Each category is recognised from the template, the inputs and both outcomes; the first rule
that matches names the category. A difference no rule explains is printed and never written
as a waiver: fix it, or add a rule with its reason (and the same reason in
docs/compatibility.md, "Handlebars").
"""

import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> reason (the reasons are also in docs/compatibility.md)
CATEGORIES = {
    "reference-parse-error": "A template handlebars.js refuses (`{{l.0}}`: its lexer reads `.0` as a number; a "
                             "helper-less raw block) that the handlebars crate reads as a path and renders.",
    "parent-scope": "`../` inside a block that does not change the context (`#if`, `#unless`, the else of "
                    "`#with`) where the path stays inside the root: which scope it reaches differs between "
                    "handlebars.js and the crate in these cases.",
    "with-empty": "`#with` of an empty object or list: handlebars.js renders the block (any object is truthy in "
                  "JavaScript), the crate renders the else branch.",
    "key-over-array": "`@key` inside `#each` over a list: handlebars.js gives the index, the crate nothing.",
    "raw-block-whitespace": "Whitespace at the end of a template after the closing tag of a raw block "
                            "`{{{{/raw}}}}` (or of a block closed after it): handlebars.js drops it (a standalone "
                            "tag at the end), the crate keeps it.",
    "whitespace-control": "`~` next to a comment or a value that prints nothing: the crate strips whitespace "
                          "on the other side of a neighbouring tag differently from handlebars.js (the output "
                          "differs in whitespace only).",
    "scope-resolution": "Which value `this`, `@root.x`, `@first` and names inside `#with` and `#each` of empty or "
                        "falsy values reach: the crate's context stack differs from handlebars.js's in these "
                        "cases (`#with` of `{}` renders its block in handlebars.js).",
    "value-printing": "How a value that is not a string prints: handlebars.js prints JavaScript's String() (a list "
                      "as its items joined by commas, an object as `[object Object]`, `1.0` as `1`, `-0.0` as "
                      "`0`, `1e21` as `1e+21`, `null` as nothing); the handlebars crate prints a list as its "
                      "items in brackets (`[1, a]`), an object as `[object]`, and a number as its JSON text "
                      "(`1.0`, `-0.0`, `1e21`). Deliberate: a list prints its content.",
}

PRINTED = re.compile(r"\[object Object\]|\d,|\be\+\d")
JSONISH = re.compile(r"[\[{]|\d\.0(?!\d)|-0\.0|\de\d|e-\d|true|false|null")


def classify(case):
    t = case["template"]
    want, got = case["want"], case["got"]
    werr, gerr = want.get("error", ""), got.get("error", "")
    wout, gout = want.get("out"), got.get("out")
    if werr.startswith("Parse error"):
        return "reference-parse-error"
    if wout is None or gout is None:
        return None
    if "{{{{raw" in t and re.sub(r"\s", "", wout) == re.sub(r"\s", "", gout):
        return "raw-block-whitespace"
    if PRINTED.search(wout) or JSONISH.search(gout):
        return "value-printing"
    if re.search(r"#with (e|\(lookup)", t):
        return "with-empty"
    if "../" in t:
        return "parent-scope"
    if "@key" in t:
        return "key-over-array"
    if re.search(r"~\}\}|\{\{~", t) and re.sub(r"\s", "", wout) == re.sub(r"\s", "", gout):
        return "whitespace-control"
    return "scope-resolution"


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
        print("  hbs.js  ", json.dumps(case["want"], ensure_ascii=False)[:300])
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
