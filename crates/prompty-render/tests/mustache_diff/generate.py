#!/usr/bin/env python3
"""Random Mustache templates and what chevron renders from them: the golden data of
`tests/mustache_diff.rs`.

    python3 -m venv /tmp/chevron && /tmp/chevron/bin/pip install chevron==0.14.0
    /tmp/chevron/bin/python generate.py            # rewrite golden.jsonl next to this script
    /tmp/chevron/bin/python generate.py --stats    # also print counts per tag
    /tmp/chevron/bin/python generate.py --seed 7 --out /tmp/fresh.jsonl
                                   # a fresh sample, to measure agreement on templates no fix was
                                   # made for (MUSTACHE_DIFF_GOLDEN=/tmp/fresh.jsonl cargo test
                                   # -p prompty-render --test mustache_diff)

The reference is chevron 0.14.0, the Mustache engine of the Prompty Python runtime, called as
that runtime calls it: `chevron.render(template, inputs)`, here from an empty working
directory (chevron reads partials from files there; none exist, so a partial renders
nothing).

The inputs are JSON: strings with HTML characters, newlines and non-ASCII text, integers,
floats (`1.0`, `-0.0`, `1e21`), booleans, null, lists, objects, empty lists and objects.
The templates use variables (escaped and not), dotted names with numeric parts, the implicit
iterator, sections over lists, objects, empty values and falsy values, inverted sections,
comments, set-delimiter tags, partials and standalone lines.

Each line of golden.jsonl after the first (a header) is one case:

  {"n": <index>, "id": "<sha1 prefix of template+inputs>", "tag": "<focus>",
   "template": "...", "inputs": {...}, "want": {"out": "..."} | {"error": "<exception>"}}
"""

import argparse
import collections
import hashlib
import json
import os
import random
import sys
import tempfile

import chevron

SEED = 20250302
COUNT = 2000
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden.jsonl")

STRINGS = ["hi", "", "a b", "x\ny", "<b>&amp;\"q\"'", "0", "false", "Zoë", "  pad  ", "abc"]
FLOATS = [1.0, -0.0, 1e21, 2.5, 0.1, 1e-7, 3.14159, -1.5, 100.0, 0.0]
INTS = [0, 1, -3, 42, 1000000, 9007199254740991]
KEYS = ["a", "b", "k", "n", "name", "x"]


def scalar(r):
    k = r.randrange(6)
    if k == 1:
        return r.choice(INTS)
    if k == 2:
        return r.choice(FLOATS)
    if k == 3:
        return r.random() < 0.5
    if k == 4:
        return None
    return r.choice(STRINGS)


def value(r, depth):
    k = 0 if depth > 2 else r.randrange(10)
    if k < 5:
        return scalar(r)
    if k < 7:
        return [value(r, depth + 1) for _ in range(r.randrange(4))]
    return {r.choice(KEYS): value(r, depth + 1) for _ in range(r.randrange(4))}


def inputs(r):
    def kind(usual):
        return usual() if r.random() < 0.8 else value(r, 1)

    return {
        "s": kind(lambda: r.choice(STRINGS)),
        "n": kind(lambda: r.choice(INTS)),
        "f": kind(lambda: r.choice(FLOATS)),
        "b": kind(lambda: r.random() < 0.5),
        "z": None,
        "l": kind(lambda: [scalar(r) for _ in range(r.randrange(4))]),
        "o": kind(lambda: {k: value(r, 2) for k in KEYS[: 1 + r.randrange(4)]}),
        "e": {} if r.random() < 0.8 else [],
        "lo": kind(lambda: [{"name": r.choice(STRINGS), "n": r.choice(INTS)} for _ in range(r.randrange(4))]),
        "no": {"a": {"b": kind(lambda: r.choice(STRINGS)), "l": [1, 2]}, "k": r.choice(STRINGS)},
    }


PATHS = ["s", "n", "f", "b", "z", "l", "o", "e", "lo", "no", "o.a", "o.k", "no.a.b", "no.a.l", "no.k",
         "l.0", "l.1", "l.2", "s.0", "s.1", "lo.0.name", "no.a.l.1", "o.missing", "missing.x", "missing",
         "n.x", "z.a", "e.a", "o.a.b", "a", "name", "k"]
INNER = [".", "name", "n", "a", "k", "s", "b", "no.k", "0", "x"]
TEXT = ["", " ", "-", "\n", " | ", "\n  ", "x", ",", "\n\n"]
SECTIONS = ["s", "n", "f", "b", "z", "l", "o", "e", "lo", "no", "no.a", "no.a.l", "missing", "o.a", "l.0", "lo.0"]


def var(r, names):
    p = r.choice(names)
    k = r.randrange(8)
    if k == 0:
        return "{{{%s}}}" % p
    if k == 1:
        return "{{& %s}}" % p
    if k == 2:
        return "{{ %s }}" % p
    return "{{%s}}" % p


def section(r, depth):
    name = r.choice(SECTIONS)

    def body():
        if depth < 2 and r.random() < 0.3:
            return fragment(r, depth + 1)
        return var(r, INNER if r.random() < 0.6 else PATHS) + r.choice(TEXT)

    k = r.randrange(6)
    if k == 0:
        return "{{^%s}}%s{{/%s}}" % (name, body(), name)
    if k == 1:
        return "{{#%s}}%s{{/%s}}{{^%s}}%s{{/%s}}" % (name, body(), name, name, body(), name)
    if k == 2:
        return "{{#%s}}\n%s\n{{/%s}}\n" % (name, body(), name)
    if k == 3:
        return "  {{#%s}}\n  %s\n  {{/%s}}\n" % (name, body(), name)
    return "{{#%s}}%s{{/%s}}" % (name, body(), name)


def fragment(r, depth):
    k = r.randrange(14)
    if k < 4:
        return var(r, PATHS)
    if k < 9:
        return section(r, depth)
    if k == 9:
        return r.choice(["{{! a comment }}", "{{! multi\nline }}", "\n{{! standalone }}\n", "  {{!c}}  \n"])
    if k == 10:
        return r.choice(["{{=<% %>=}}<% s %>{{s}}<%={{ }}=%>", "{{=| |=}}|#l||.| |/l|", "\n{{=[[ ]]=}}\n[[n]]\n[[={{ }}=]]\n"])
    if k == 11:
        return r.choice(["{{> part}}", "  {{> part}}\n", "{{>missing}}x"])
    if k == 12:
        return r.choice(["{{#l}}{{.}},{{/l}}", "{{#lo}}{{name}}:{{n}};{{/lo}}", "{{#o}}{{a}}{{k}}{{/o}}",
                         "{{#no.a.l}}[{{.}}]{{/no.a.l}}", "{{#b}}yes{{/b}}{{^b}}no{{/b}}", "{{#e}}E{{/e}}{{^e}}not{{/e}}",
                         "{{#s}}<{{.}}>{{/s}}", "{{#n}}({{.}}){{/n}}", "{{#f}}({{.}}){{/f}}"])
    return r.choice(TEXT) + var(r, PATHS)


TAGS = [("{{=", "delimiters"), ("{{>", "partial"), ("{{!", "comment"), ("{{^", "inverted"), ("{{#", "section"),
        ("{{{", "triple"), ("{{&", "ampersand"), (".0", "index"), (".1", "index"), (".", "dotted")]


def tag_of(f):
    for mark, tag in TAGS:
        if mark in f:
            return tag
    return "variable"


def make_case(r):
    pieces, tag = [], None
    for _ in range(1 + r.randrange(4)):
        f = fragment(r, 0)
        tag = tag or tag_of(f)
        pieces += [f, r.choice(TEXT)]
    return tag, "".join(pieces), inputs(r)


def render(template, data):
    try:
        return {"out": chevron.render(template, data)}
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--count", type=int, default=COUNT)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    r = random.Random(args.seed)
    cases, seen = [], set()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        while len(cases) < args.count:
            tag, template, data = make_case(r)
            text = json.dumps(data, ensure_ascii=False)
            cid = hashlib.sha1((template + "\0" + text).encode()).hexdigest()[:12]
            if cid in seen:
                continue
            seen.add(cid)
            want = render(template, json.loads(text))
            cases.append({"n": len(cases), "id": cid, "tag": tag, "template": template, "inputs": data, "want": want})
    header = {"generator": "generate.py", "seed": args.seed, "count": len(cases), "chevron": "0.14.0",
              "python": sys.version.split()[0]}
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(header, ensure_ascii=False) + "\n")
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} templates to {out}")
    if args.stats:
        print("tags:", dict(collections.Counter(c["tag"] for c in cases).most_common()))
        print("errors:", dict(collections.Counter(c["want"]["error"][:60] for c in cases if "error" in c["want"])))


if __name__ == "__main__":
    main()
