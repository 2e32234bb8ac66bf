#!/usr/bin/env python3
"""Sorts the differences of the jinja differential test into the waiver categories.

    JINJA_DIFF_DUMP=/tmp/diff.jsonl cargo test -p prompty-render --test jinja_diff
    python3 triage.py /tmp/diff.jsonl            # print the categories and the unexplained cases
    python3 triage.py /tmp/diff.jsonl --write    # rewrite waivers.json from the categories

Each category is recognised from the template, the profile, Python's outcome (re-rendered
here to get its error message) and ours. A difference no rule explains is printed and never
written as a waiver: fix it, or add a rule with its reason (and the same reason in
docs/compatibility.md).
"""

import collections
import json
import os
import re
import sys

from jinja2 import DictLoader
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> reason (the reasons are also in docs/compatibility.md)
CATEGORIES = {
    "mutating-methods": "list.append/extend/insert/pop/remove/reverse/sort/clear and dict.update/pop/"
                        "setdefault/popitem change a value in place; template values are immutable here, so "
                        "these methods are errors. The spec reference (ImmutableSandboxedEnvironment) refuses "
                        "them too; promptflow's SandboxedEnvironment performs them.",
    "number-attributes": "Python number attributes (.real, .imag, .numerator, .denominator): minijinja has no "
                         "hook for attributes of primitive values, so they are undefined.",
    "number-methods": "float.hex(), float.as_integer_ratio() and int.to_bytes() are not provided.",
    "loop-repr": "Printing the loop object itself: Jinja2 prints <LoopContext 1/3>, minijinja's loop "
                 "object prints as a dict of its attributes.",
    "namespace-repr": "Printing a namespace() object: Jinja2 prints <Namespace {...}> in assignment order, "
                      "minijinja's namespace prints as a dict in key order.",
    "macro-varargs-kwargs": "minijinja macros have no varargs/kwargs: extra arguments are errors and the "
                            "names are undefined.",
    "pprint-wrapping": "pprint wraps values wider than 80 columns over several lines; |pprint here prints "
                       "the one-line repr (with dict keys sorted, as pprint does).",
    "wordwrap-hyphens": "wordwrap breaks lines at whitespace only; Python's textwrap also breaks after "
                        "hyphens (break_on_hyphens).",
    "complex-numbers": "A negative number to a fractional power is a complex number in Python; here it "
                       "is nan.",
    "float-overflow": "Python raises OverflowError when float ** overflows; here the result is inf.",
    "big-integers": "Integers beyond 128 bits: Python's are unbounded, minijinja's arithmetic stops at "
                    "128 bits with an error.",
    "jinja2-constant-infinity": "Jinja2 folds constant expressions that overflow to inf (1e308 * 10) and "
                                "then fails with NameError: name 'inf' is not defined; here they render inf.",
    "none-iteration": "Looping over none: Python raises TypeError, minijinja's loop treats none as empty.",
    "unicode-identifiers": "Non-ASCII variable or attribute names: minijinja's lexer accepts ASCII "
                           "identifiers only (its `unicode` feature would add two dependencies).",
    "growth-refusal": "Refused at compile time by the render budget's growth check: a loop variable or "
                      "kept value built from another built value (for x in built|batch(2)), which the "
                      "check cannot tell from a value that grows without bound (docs/performance.md).",
    "filter-block-scope": "A variable set inside {% filter %} ... {% endfilter %} stays visible after the "
                          "block here; Jinja2 scopes it to the block.",
}

MUTATING = r"\.(append|extend|insert|pop|remove|reverse|sort|clear|update|setdefault|popitem)\("


def python_error(case):
    template, inputs = case["template"], case["inputs"]
    try:
        if case["profile"] == "spec":
            env = ImmutableSandboxedEnvironment(loader=DictLoader({"prompt": template}), keep_trailing_newline=True)
            env.get_template("prompt").render(**inputs)
        else:
            SandboxedEnvironment(trim_blocks=True, keep_trailing_newline=True).from_string(template).render(**inputs)
    except Exception as e:  # noqa: BLE001 - the message is what is classified
        return f"{type(e).__name__}: {e}"
    return ""


def classify(case):
    t = case["template"]
    want, got = case["want"], case["got"]
    wout, gout = want.get("out"), got.get("out")
    gerr = got.get("error", "")
    perr = python_error(case) if "error" in want else ""
    if case["profile"] == "promptflow" and re.search(MUTATING, t) and "would change a template value" in gerr:
        return "mutating-methods"
    if re.search(r"has no method named (hex|as_integer_ratio|to_bytes)", gerr):
        return "number-methods"
    if re.match(r"NameError: name '(inf|nan)' is not defined", perr):
        return "jinja2-constant-infinity"
    if perr.startswith("OverflowError") and "**" in t:
        return "float-overflow"
    if "unable to calculate" in gerr or "integer too large" in gerr:
        return "big-integers"
    if gerr.startswith("template refused:") and wout is not None:
        return "growth-refusal"
    if "not iterable" in perr and "NoneType" in perr and re.search(r"for \w+ in (none|None|nothing|empty)\b", t):
        return "none-iteration"
    if "unexpected character" in gerr and re.search(r"[^\x00-\x7f]", t):
        return "unicode-identifiers"
    if wout is not None and "<LoopContext" in wout:
        return "loop-repr"
    if wout is not None and "<Namespace" in wout.replace("<NAMESPACE", "<Namespace"):
        return "namespace-repr"
    if re.search(r"\b(varargs|kwargs)\b", t) and "macro" in t:
        return "macro-varargs-kwargs"
    if re.search(r"\.(real|imag|numerator|denominator)\b", t):
        return "number-attributes"
    if wout is not None and re.search(r"\dj\)", wout):
        return "complex-numbers"
    if "pprint" in t and wout is not None and gout is not None:
        return "pprint-wrapping"
    if "wordwrap" in t and wout is not None and gout is not None:
        return "wordwrap-hyphens"
    if "{% filter" in t.replace("{%-", "{%").replace("{%+", "{%") and "set " in t and gout is not None:
        return "filter-block-scope"
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cases = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    found = collections.defaultdict(list)
    unexplained = []
    for case in cases:
        cat = classify(case)
        if cat is None:
            unexplained.append(case)
        else:
            found[cat].append(case)
    for cat, items in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(items):4}  {cat}")
    for case in unexplained:
        print(f"\nUNEXPLAINED {case['n']} {case['profile']} {case['tag']} {case['id']}")
        print("  template", json.dumps(case["template"], ensure_ascii=False)[:400])
        print("  inputs  ", json.dumps(case["inputs"], ensure_ascii=False)[:300])
        print("  jinja2  ", json.dumps(case["want"], ensure_ascii=False)[:300], python_error(case)[:120])
        print("  ours    ", json.dumps(case["got"], ensure_ascii=False)[:300])
    if "--write" in sys.argv:
        if unexplained:
            sys.exit(f"{len(unexplained)} differences are unexplained; waivers.json not written")
        waivers = {
            "categories": {c: CATEGORIES[c] for c in sorted(found)},
            "cases": sorted(({"id": c["id"], "profile": c["profile"], "category": cat}
                             for cat, items in found.items() for c in items),
                            key=lambda w: (w["category"], w["id"], w["profile"])),
        }
        with open(os.path.join(HERE, "waivers.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(waivers, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(f"\nwrote {len(waivers['cases'])} waivers in {len(waivers['categories'])} categories")


if __name__ == "__main__":
    main()
