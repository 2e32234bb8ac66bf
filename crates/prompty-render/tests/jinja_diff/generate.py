#!/usr/bin/env python3
"""Random Jinja templates and what Python jinja2 renders from them: the golden data of
`tests/jinja_diff.rs`.

    python3 generate.py            # rewrite golden.jsonl next to this script
    python3 generate.py --stats    # also print counts per tag and per Python error class
    python3 generate.py --no-fixed --seed 7 --round3-seed 8 --out /tmp/fresh.jsonl
                                   # a fresh sample, to measure agreement on templates no fix
                                   # was made for (JINJA_DIFF_GOLDEN=/tmp/fresh.jsonl cargo test
                                   # -p prompty-render --test jinja_diff)

Every template is rendered twice, configured exactly as each reference engine does it:

  spec        the Prompty v2 Python runtime (prompty/renderers/jinja2.py):
              ImmutableSandboxedEnvironment(loader=DictLoader({"prompt": t}),
                                            keep_trailing_newline=True)
              .get_template("prompt").render(**inputs)
  promptflow  promptflow-core 1.18 (the default, sandboxed path):
              SandboxedEnvironment(trim_blocks=True, keep_trailing_newline=True)
              .from_string(t).render(**inputs)

Both use jinja2's default `Undefined` and no autoescaping.

The inputs of each template are JSON (what a caller of the renderer can pass): strings with
quotes, newlines and non-ASCII text, integers, floats from 5e-324 to 1.8e308 and -0.0, booleans,
null, lists, objects and lists of objects. `inf` and `nan` cannot travel in JSON; templates
reach them through `|float` of "inf"/"nan" strings and overflowing arithmetic.

The templates are drawn from a grammar of what prompt templates use: output of variables,
attributes and items, filters chosen by the value's type, tests, arithmetic (`//`, `%`, `**`),
comparisons, `in`, `~`, the ternary, `%` string formatting, Python string/dict methods,
if/elif/else, for loops (loop.index/index0/revindex/revindex0/length/first/last/cycle/depth,
`else`, loop filters, unpacking), set and block set, namespace, macros, filter blocks,
comments, raw blocks and whitespace control (`{%-`, `-%}`, `{%+`, `+%}`).

A second grammar (round 3, its own seed, the cases after the first grammar's) draws what larger
templates use: macros with defaults, `varargs`, `kwargs`, `*`/`**` arguments and the macro's
attributes; `call` blocks and `caller()` with arguments; `namespace()` updated in loops;
`loop.cycle/changed/previtem/nextitem/depth` and recursive loops; `for ... if ... else`; `with`
(values that read names the block binds); filter blocks with a `set` inside and filters that
return non-strings; tuple unpacking and tuple printing; slicing; string and dict methods,
including Python methods a sandbox does not have and dict views in loops; `%` with tuples and
lists; mixed int/float/bool arithmetic and integers past 64 bits; `int` of strings such as
"inf"; `range()`; `dict()` from mappings, pairs and keywords; `groupby`.

Each line of golden.jsonl after the first (a header) is one case:

  {"n": <index>, "id": "<sha1 prefix of template+inputs>", "tag": "<focus of the template>",
   "template": "...", "inputs": {...},
   "spec": {"out": "..."} | {"error": "<Python exception class>"},
   "promptflow": {"out": "..."} | {"error": "..."}}

A template whose output shows an object address (a generator or method repr, which differs
from run to run) is drawn again.
"""

import argparse
import collections
import hashlib
import json
import math
import os
import random
import re
import sys

import jinja2
from jinja2 import DictLoader
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

SEED = 20250214
COUNT = 2400
ROUND3_SEED = 20261203
ROUND3_COUNT = 600
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden.jsonl")


# ---------------------------------------------------------------------------------------------
# the two reference configurations
# ---------------------------------------------------------------------------------------------

def render_spec(template, inputs):
    env = ImmutableSandboxedEnvironment(loader=DictLoader({"prompt": template}), keep_trailing_newline=True)
    return env.get_template("prompt").render(**inputs)


PF_ENV = SandboxedEnvironment(trim_blocks=True, keep_trailing_newline=True)


def render_promptflow(template, inputs):
    return PF_ENV.from_string(template).render(**inputs)


def outcome(fn, template, inputs):
    try:
        return {"out": fn(template, json.loads(json.dumps(inputs)))}
    except Exception as e:  # the class is what the test compares
        return {"error": type(e).__name__}


# Reprs that carry an object address (generators, iterators, methods) differ from run to run,
# also after a filter rewrote them (`|replace('a', '4')` turns " at 0x" into " 4t 0x").
NONDETERMINISTIC = re.compile(r"<[\w.]+ object\b|\bt 0x[0-9a-fA-F]{6,}|<function |<built-in |<bound method")

# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------

# No role words (system, user, assistant, developer, function, tool): a value or text line such
# as "user:" would be a message boundary, which is not what this test is about.
WORDS = ["alpha", "beta", "gamma", "delta", "apple", "banana", "cherry", "red", "green", "blue", "one", "two",
         "three", "Paris", "London", "tokyo", "café", "naïve", "Zoë", "über", "東京", "data", "query", "answer",
         "note", "item", "value", "x", "y", "z"]

STRINGS = [
    "", "hello", "Hello World", "it's", 'say "hi"', "both ' and \"", "tab\there", "line1\nline2",
    "line1\r\nline2", "  padded  ", "\ttrimmed\n", "ünïcödé", "日本語のテキスト", "emoji 🎉 party", "MiXeD cAsE",
    "a,b,c", "42", "-7", "3.14", "1e5", "inf", "nan", "-inf", "True", "None", "%s %d", "100%", "{braces}",
    "back\\slash", "The quick brown fox jumps over the lazy dog", "straße", "ǅemal", "İstanbul", "ﬁne",
    "ß", "ΣΑΣ", "x" * 30, "word " * 12, "<b>bold</b> & <i>it</i>", "a\u00a0b", "   ", "\n", "é", "Ångström",
    "snake_case_name", "kebab-case-name", "CamelCase", "hello world foo", "  leading", "trailing  ",
    "multi\nline\ntext\n", "\u2028sep", "zero\u200bwidth", "\x00nul", "A", "a", "Z", "0", "00123",
]

INTS = [0, 1, -1, 2, 3, 5, 7, 10, 12, 42, 99, 100, -15, 255, 1000, 12345, 10 ** 6, 2 ** 31, -(2 ** 31),
        2 ** 53 + 1, 10 ** 15, 10 ** 18, 2 ** 63 - 1, -(2 ** 63)]

FLOATS = [0.0, -0.0, 0.5, 1.0, -1.5, 2.5, 3.5, 3.14159, 0.1, 0.30000000000000004, 1e-05, 0.0001, 0.001,
          1.5e-07, 123456.789, 1e15, 1e16, 9999999999999998.0, 1e21, 1.5e22, -1e21, 1e100, 1.7976931348623157e308,
          5e-324, 2.2250738585072014e-308, 2.675, 0.125, 100.0, 12.0, 33.333333333333336, -0.5, 1.005, 7.0,
          1234567.0, 0.1 + 0.2, 1e-10, 6.02214076e23, -273.15, 99.99, 0.999999]


def rand_string(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(STRINGS)
    if r < 0.85:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
    return rng.choice(WORDS)


def rand_float(rng):
    if rng.random() < 0.8:
        return rng.choice(FLOATS)
    m = rng.choice([-1, 1]) * rng.random() * 10
    return m * 10.0 ** rng.randint(-30, 30)


def rand_scalar(rng):
    k = rng.random()
    if k < 0.4:
        return rand_string(rng)
    if k < 0.6:
        return rng.choice(INTS)
    if k < 0.8:
        return rand_float(rng)
    if k < 0.9:
        return rng.choice([True, False])
    return None


def rand_person(rng):
    p = {"name": rng.choice(["Ada", "Bob", "Chloé", "Dan", "Émile", "Fay", "Gus", "it's me", ""]),
         "age": rng.choice([0, 7, 18, 33, 42, 65, 101]),
         "score": rand_float(rng),
         "active": rng.choice([True, False])}
    if rng.random() < 0.6:
        p["tags"] = [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        p["address"] = {"city": rng.choice(["Paris", "Köln", "Oslo", "São Paulo"]), "zip": rng.choice(["75001", "0150"])}
    if rng.random() < 0.2:
        p["nickname"] = None
    return p


def rand_value(rng, kind=None):
    kind = kind or rng.choice(["str", "str", "int", "float", "float", "bool", "none", "list_str", "list_int",
                               "list_float", "list_mixed", "dict", "obj", "objs", "nested"])
    if kind == "str":
        return rand_string(rng)
    if kind == "int":
        return rng.choice(INTS)
    if kind == "float":
        return rand_float(rng)
    if kind == "bool":
        return rng.choice([True, False])
    if kind == "none":
        return None
    n = rng.choice([0, 1, 2, 3, 3, 4, 5])
    if kind == "list_str":
        return [rand_string(rng) for _ in range(n)]
    if kind == "list_int":
        return [rng.choice(INTS[:16]) for _ in range(n)]
    if kind == "list_float":
        return [rand_float(rng) for _ in range(n)]
    if kind == "list_mixed":
        return [rand_scalar(rng) for _ in range(n)]
    if kind == "dict":
        keys = rng.sample(["a", "b", "c", "name", "count", "k1", "zeta", "Alpha", "mu", "é"], rng.randint(0, 4))
        return {k: rand_scalar(rng) for k in keys}
    if kind == "obj":
        return rand_person(rng)
    if kind == "objs":
        return [rand_person(rng) for _ in range(n)]
    if kind == "nested":
        return {"meta": {"id": rng.choice(INTS[:10]), "label": rand_string(rng)},
                "rows": [[rng.choice(INTS[:8]) for _ in range(2)] for _ in range(rng.randint(0, 3))],
                "flags": {"on": True, "off": False, "unknown": None}}
    raise ValueError(kind)


VAR_NAMES = {
    "str": ["name", "title", "text", "query", "label", "s"],
    "int": ["count", "n", "total", "age", "k"],
    "float": ["price", "ratio", "score", "temp", "f"],
    "bool": ["flag", "enabled", "ok"],
    "none": ["nothing", "empty"],
    "list_str": ["words", "tags", "names"],
    "list_int": ["nums", "ids", "counts"],
    "list_float": ["floats", "weights"],
    "list_mixed": ["mixed", "things"],
    "dict": ["d", "meta", "opts"],
    "obj": ["person", "doc", "owner"],
    "objs": ["people", "rows", "members"],
    "nested": ["ctx", "data"],
}


def rand_inputs(rng, kinds=None):
    inputs = {}
    kinds = kinds or []
    for _ in range(rng.randint(2, 5)):
        kinds.append(rng.choice(list(VAR_NAMES)))
    for kind in kinds:
        name = rng.choice(VAR_NAMES[kind])
        if name not in inputs:
            inputs[name] = rand_value(rng, kind)
    return inputs


# ---------------------------------------------------------------------------------------------
# evaluating partial expressions (to choose the next filter by the value's type)
# ---------------------------------------------------------------------------------------------

EVAL_ENV = SandboxedEnvironment()


class FakeLoop:
    index, index0, revindex, revindex0, length, first, last, depth, depth0 = 1, 0, 3, 2, 3, True, False, 1, 0
    previtem = None
    nextitem = None

    def cycle(self, *args):
        return args[0] if args else None

    def changed(self, *args):
        return True


MISSING = object()


def evaluate(src, scope):
    try:
        return EVAL_ENV.compile_expression(src, undefined_to_none=False)(**scope)
    except Exception:
        return MISSING


def kind_of(v):
    if v is MISSING or isinstance(v, jinja2.Undefined):
        return "undef"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if v is None:
        return "none"
    if isinstance(v, dict):
        return "dict"
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, dict) for x in v):
            return "objs"
        if v and all(isinstance(x, str) for x in v):
            return "list_str"
        if v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            return "list_num"
        return "list"
    return "other"


# ---------------------------------------------------------------------------------------------
# expressions
# ---------------------------------------------------------------------------------------------

def lit_str(rng, s=None):
    s = rand_string(rng) if s is None else s
    s = s.replace("{", "(").replace("}", ")").replace("%}", ")").replace("#}", ")")
    quote = rng.choice(["'", '"'])
    body = s.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n").replace("\t", "\\t")
    body = body.replace("\r", "\\r")
    return quote + body + quote


def lit_float(rng):
    return rng.choice(["0.0", "-0.0", "1.0", "0.1", "2.5", "1e21", "1e-5", "1.5e-7", "1e16", "1e15",
                       "123456.789", "3.14159", "1E3", "0.30000000000000004", "1e308", "2.0e0", "100.0",
                       "1_000.5", "5e-324", "5e1"])


def lit_int(rng):
    return rng.choice(["0", "1", "2", "3", "-1", "7", "10", "42", "100", "1_000", "0x1F", "0o17", "0b101",
                       "12345678901234567890", "-9"])


def literal(rng, depth=0):
    r = rng.random()
    if r < 0.3:
        return lit_str(rng)
    if r < 0.45:
        return lit_int(rng)
    if r < 0.6:
        return lit_float(rng)
    if r < 0.7:
        return rng.choice(["true", "false", "True", "False", "none", "None"])
    if r < 0.82 and depth < 2:
        return "[" + ", ".join(literal(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if r < 0.9 and depth < 2:
        items = [literal(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if depth < 2:
        return "{" + ", ".join(f"{lit_str(rng, k)}: {literal(rng, depth + 1)}"
                               for k in rng.sample(["a", "b", "c", "key"], rng.randint(0, 3))) + "}"
    return lit_int(rng)


def pick_var(rng, scope, kinds=None):
    names = [n for n in scope if n != "loop" and (kinds is None or kind_of(scope[n]) in kinds)]
    if not names:
        return None
    return rng.choice(names)


def access(rng, scope, name):
    """Attribute and item access on the value of `name`."""
    v = scope[name]
    k = kind_of(v)
    if k == "dict" or (isinstance(v, dict)):
        keys = list(v.keys())
        choices = []
        if keys:
            key = rng.choice(keys)
            if key.isidentifier():
                choices.append(f"{name}.{key}")
            choices.append(f"{name}[{lit_str(rng, key)}]")
            if isinstance(v.get(key), dict) and v[key]:
                sub = rng.choice(list(v[key]))
                choices.append(f"{name}.{key}.{sub}" if sub.isidentifier() else f"{name}.{key}[{lit_str(rng, sub)}]")
            if isinstance(v.get(key), list):
                choices.append(f"{name}.{key}[{rng.choice([0, -1, 1])}]" if key.isidentifier() else f"{name}[{lit_str(rng, key)}][0]")
        choices.append(f"{name}.missing")
        choices.append(f"{name}['missing']")
        return rng.choice(choices)
    if k in ("str", "list", "list_str", "list_num", "objs"):
        idx = rng.choice(["0", "-1", "1", "2", "10", "1:3", ":2", "::-1", "-2:", "1:"])
        base = f"{name}[{idx}]"
        if k == "objs" and ":" not in idx and rng.random() < 0.6:
            return base + rng.choice([".name", ".age", ".score", "['name']", ".tags", ".address.city", ".nickname",
                                      ".missing"])
        if rng.random() < 0.15:
            return f"{name}.{idx[0]}" if idx.isdigit() else base
        return base
    return f"{name}.real" if rare(rng) else name


STR_FILTERS = [
    "upper", "lower", "title", "capitalize", "trim", "length", "count", "wordcount", "reverse", "first", "last",
    "list", "string", "int", "float", "default('fallback')", "default('x', true)", "d('y')", "escape", "e",
    "replace('a', 'A')", "replace(' ', '_')", "replace('l', 'L', 1)", "truncate(10)", "truncate(12, true, '…')",
    "truncate(5, false, '', 0)", "center(20)", "center(3)", "indent(2)", "indent(4, true)", "indent(2, first=true, blank=true)",
    "wordwrap(12)", "striptags", "tojson", "sort", "unique", "min", "max", "join('-')", "join", "safe",
    "format", "urlencode", "forceescape", "pprint", "title|replace(' ', '')", "trim|upper", "lower|capitalize",
    "float|round(2)", "int + 1", "list|length", "length > 3", "split", "lines", "string|length",
    "batch(2)|list", "slice(2)|list", "sum", "abs",
]
NUM_FILTERS = [
    "abs", "round", "round(1)", "round(2)", "round(0, 'floor')", "round(1, 'ceil')", "round(2, 'common')",
    "int", "float", "string", "default(0)", "tojson", "filesizeformat", "filesizeformat(true)", "string|length",
    "string|list|first", "format", "string|reverse", "int|string", "float|string", "round|int", "pprint",
    "length", "upper", "e", "abs|round(3)", "float|round(1, 'floor')", "int(7)", "int('x')", "float(1.5)",
]
LIST_FILTERS = [
    "length", "count", "first", "last", "join(', ')", "join", "join('|')", "sort", "sort(reverse=true)",
    "sort(case_sensitive=true)", "unique|list", "unique(case_sensitive=true)|list", "reverse|list", "sum", "min",
    "max", "min(case_sensitive=true)", "batch(2)|list", "batch(2, 'x')|list", "slice(2)|list", "slice(3, 0)|list",
    "map('upper')|list", "map('string')|join(', ')", "map('length')|list", "map('int')|sum",
    "select|list", "select('odd')|list", "select('string')|list", "select('number')|list", "reject('none')|list",
    "reject|list", "select('greaterthan', 2)|list", "select('in', [1, 2, 'alpha'])|list", "tojson", "list",
    "string", "default([])", "random|length > 100", "first|upper", "last|string", "join(', ')|upper",
    "map('float')|sum", "map('abs')|list", "sum(start=10)", "unique|join(',')", "selectattr('odd')|list",
    "pprint", "e", "length is odd", "batch(3)|map('join', ',')|list", "reverse|join(' ')", "items",
]
OBJS_FILTERS = [
    "map(attribute='name')|list", "map(attribute='name')|join(', ')", "map(attribute='age')|sum",
    "sum(attribute='age')", "selectattr('active')|list|length", "selectattr('active')|map(attribute='name')|list",
    "rejectattr('active')|map(attribute='name')|join('/')", "selectattr('age', 'gt', 20)|list|length",
    "selectattr('age', '>', 20)|map(attribute='name')|list", "sort(attribute='age')|map(attribute='name')|list",
    "sort(attribute='name', reverse=true)|map(attribute='age')|list", "groupby('active')|list|length",
    "groupby('active')|map(attribute='grouper')|list", "map(attribute='address.city')|list",
    "map(attribute='missing', default='?')|list", "map(attribute='tags')|list", "min(attribute='age')",
    "max(attribute='age')|tojson", "unique(attribute='active')|list|length", "join(', ', attribute='name')",
    "length", "first", "tojson", "selectattr('nickname', 'none')|list|length", "map(attribute='score')|list",
    "dictsort", "first|dictsort", "first|items|list", "last|tojson", "first|attr('name')",
]
DICT_FILTERS = [
    "length", "dictsort", "dictsort(reverse=true)", "dictsort(by='value')", "dictsort(true)", "items|list",
    "list", "first", "last", "tojson", "string", "join(',')", "sort", "default({})", "xmlattr",
    "dictsort|map('first')|list", "dictsort|map('last')|list", "reverse|list", "pprint", "e", "sum", "min",
    "max", "unique|list", "map('upper')|list", "select|list", "items|map('last')|list",
]
BOOL_FILTERS = ["string", "int", "float", "lower", "upper", "default('no')", "tojson", "length", "abs", "e",
                "first", "round"]
NONE_FILTERS = ["default('none!')", "default('d', true)", "string", "lower", "tojson", "length", "list", "e",
                "int", "float", "first", "join"]
UNDEF_FILTERS = ["default('u')", "d('u', true)", "string", "length", "upper", "list", "tojson", "int", "first",
                 "join", "e", "lower"]

FILTERS_BY_KIND = {
    "str": STR_FILTERS, "int": NUM_FILTERS, "float": NUM_FILTERS, "bool": BOOL_FILTERS, "none": NONE_FILTERS,
    "undef": UNDEF_FILTERS, "dict": DICT_FILTERS, "objs": OBJS_FILTERS, "list": LIST_FILTERS,
    "list_str": LIST_FILTERS, "list_num": LIST_FILTERS, "other": ["list", "string", "length"],
}

TESTS = ["defined", "undefined", "none", "string", "number", "integer", "float", "boolean", "mapping", "sequence",
         "iterable", "odd", "even", "divisibleby(3)", "divisibleby 2", "lower", "upper", "true", "false",
         "eq(3)", "ne('a')", "gt(2)", "lt 10", "ge(0)", "in([1, 2, 'alpha'])", "in 'alphabet'", "sameas(none)",
         "sameas true", "callable", "escaped", "equalto 1", "greaterthan(1)", "filter", "test"]

STR_METHODS = ["upper()", "lower()", "strip()", "title()", "capitalize()", "split()", "split(',')",
               "split(' ', 1)", "replace('a', 'o')", "startswith('a')", "endswith('e')", "count('a')", "find('l')",
               "lstrip()", "rstrip()", "isdigit()", "isalpha()", "splitlines()", "center(9, '*')", "ljust(8, '.')",
               "rjust(6)", "zfill(6)", "swapcase()", "strip('.')", "partition(' ')", "rsplit(' ', 1)",
               "casefold()", "isupper()", "islower()", "isspace()", "index('a')", "join(['x', 'y'])",
               "format(1, 2)", "encode()", "removeprefix('he')", "removesuffix('d')", "istitle()", "isalnum()",
               "expandtabs(4)", "rfind('a')", "upper", "__class__"]
DICT_METHODS = ["items()", "keys()", "values()", "get('a')", "get('a', 'dflt')", "get('missing', 0)", "copy()",
                "items()|list", "keys()|list|length", "values()|list", "__len__()"]
LIST_METHODS = ["index(1)", "count(1)", "copy()", "__len__()", "index('alpha')"]
FLOAT_METHODS = ["is_integer()", "conjugate()"]
INT_METHODS = ["bit_length()", "conjugate()"]
# Constructs with a documented difference (docs/compatibility.md) are drawn rarely, so that
# they do not hide other differences in the same template.
MUTATING_METHODS = ["append(9)", "pop()", "sort()", "reverse()", "extend([1])", "insert(0, 1)", "update({'z': 1})",
                    "setdefault('q', 2)", "pop('a', 1)"]
RARE_NUMBER_METHODS = ["hex()", "as_integer_ratio()", "to_bytes(2, 'big')", "real", "imag", "numerator",
                       "denominator"]


def rare(rng):
    return rng.random() < 0.03


def method_call(rng, scope):
    name = pick_var(rng, scope)
    if name is None:
        return lit_str(rng) + "." + rng.choice(STR_METHODS)
    k = kind_of(scope[name])
    if k in ("dict", "list", "list_str", "list_num", "objs") and rare(rng):
        return f"{name}.{rng.choice(MUTATING_METHODS)}"
    if k in ("int", "float") and rare(rng):
        return f"{name}.{rng.choice(RARE_NUMBER_METHODS)}"
    if k == "str":
        return f"{name}.{rng.choice(STR_METHODS)}"
    if k == "dict":
        return f"{name}.{rng.choice(DICT_METHODS)}"
    if k.startswith("list") or k == "objs":
        return f"{name}.{rng.choice(LIST_METHODS)}"
    if k == "float":
        return f"{name}.{rng.choice(FLOAT_METHODS)}"
    if k == "int":
        return f"{name}.{rng.choice(INT_METHODS)}"
    r = rng.random()
    if r < 0.5:
        return lit_str(rng, rng.choice(["{} and {}", "{0}-{0}", "{x}!", "{:>6}|", "{:.2f}", "{!r}", "{}"])) + \
            f".format({name}{', ' + name if rng.random() < 0.5 else ''})"
    return f"{lit_str(rng, ', ')}.join({pick_var(rng, scope) or '[]'})"


PCT_FORMATS = ["%s", "%s items", "%d items", "%d", "%i", "%5d|", "%-5d|", "%05d", "%+d", "%x", "%X", "%o",
               "%#x", "%e", "%E", "%.2e", "%f", "%.2f", "%8.3f|", "%-8.1f|", "%g", "%.3g", "%G", "%r", "%c", "%%",
               "100%%", "%s%%", "%10s|", "%-10s|", "%.3s", "[%s]", "%s and %s", "%s: %d", "%s=%r", "%(a)s",
               "%(name)s is %(age)d", "%s %s %s", "% d", "%.0f", "%.1f%%", "%5.1f%%", "%u", "no placeholders",
               "%a", "%*d", "%.*f", "%s %"]


NUMERIC = {"int", "float", "bool"}


def typed_literal(rng, kinds):
    kind = rng.choice(sorted(kinds))
    if kind == "int":
        return lit_int(rng)
    if kind == "float":
        return lit_float(rng)
    if kind == "bool":
        return rng.choice(["true", "false"])
    if kind == "str":
        return lit_str(rng)
    if kind in ("list", "list_str", "list_num", "objs"):
        return "[" + ", ".join(typed_literal(rng, {"int", "str"}) for _ in range(rng.randint(0, 3))) + "]"
    if kind == "dict":
        return "{'a': 1, 'b': 'two'}"
    if kind == "none":
        return "none"
    return literal(rng)


def operand(rng, scope, depth=0, kinds=None, mismatch=0.08):
    """A variable, item/attribute access or literal, of one of `kinds` (any when None) except
    for a `mismatch` share of draws, which take any type (type errors are part of the test)."""
    if kinds is not None and rng.random() < mismatch:
        kinds = None
    r = rng.random()
    if r < 0.6:
        name = pick_var(rng, scope, kinds)
        if name is not None:
            if rng.random() < 0.3:
                a = access(rng, scope, name)
                if kinds is None or kind_of(evaluate(a, scope)) in kinds:
                    return a
            return name
    if r < 0.66 and (kinds is None or rng.random() < 0.3):
        return rng.choice(["missing", "undefined_var", "nope"])
    return literal(rng) if kinds is None else typed_literal(rng, kinds)


PCT_NUMERIC = set("diouxXeEfFgGc")
PCT_CONVERSION = re.compile(r"%(?:\([a-z]+\))?[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?([a-zA-Z])")


def pct_expr(rng, scope):
    fmt = rng.choice(PCT_FORMATS)
    convs = PCT_CONVERSION.findall(fmt.replace("%%", ""))

    def arg(conv):
        if conv in PCT_NUMERIC:
            return operand(rng, scope, 1, {"int"} if conv in "xXoc" else {"int", "float"})
        return operand(rng, scope, 1)

    if "%(" in fmt:
        d = pick_var(rng, scope, {"dict"})
        if d and rng.random() < 0.4:
            rhs = d
        else:
            rhs = rng.choice(["{'a': 1, 'name': 'Ann', 'age': 30}", "{'a': none, 'name': 'Bo', 'age': 2.5}",
                              "{'name': 'x'}", "{'a': [1], 'name': 'Cy', 'age': 1}"])
    elif len(convs) <= 1 and rng.random() < 0.75:
        rhs = arg(convs[0] if convs else "s")
        if rng.random() < 0.15:
            rhs = f"({rhs},)"
    else:
        k = len(convs) if rng.random() < 0.85 else rng.choice([0, 1, 2, 3])
        args = [arg(convs[i] if i < len(convs) else "s") for i in range(k)]
        rhs = "(" + ", ".join(args) + ("," if k == 1 else "") + ")"
    expr = f"{lit_str(rng, fmt)} % {rhs}"
    if rng.random() < 0.15:
        expr = f"({expr})|upper"
    elif rng.random() < 0.1:
        expr = f"{expr} ~ '!'"
    return expr


NUM_OPS = ["+", "-", "*", "/", "//", "%", "**"]
CMP_OPS = ["==", "!=", "<", "<=", ">", ">="]


def expr(rng, scope, depth=0):
    """A random expression; `scope` maps visible names to example values."""
    r = rng.random()
    if depth >= 3:
        r = rng.random() * 0.3
    if r < 0.22:
        e = operand(rng, scope, depth)
    elif r < 0.47:
        e = filtered(rng, scope, depth)
    elif r < 0.55:
        base = operand(rng, scope, depth)
        neg = rng.choice(["", "", "not "])
        e = f"{base} is {neg}{rng.choice(TESTS)}"
    elif r < 0.66:
        op = rng.choice(NUM_OPS)
        if op in ("+", "*") and rng.random() < 0.25:
            kinds = rng.choice([{"str"}, {"list", "list_str", "list_num"}])
            a = operand(rng, scope, depth, kinds)
            b = operand(rng, scope, depth, kinds if op == "+" else {"int"})
        else:
            a = operand(rng, scope, depth, NUMERIC)
            b = operand(rng, scope, depth, NUMERIC)
        e = f"{a} {op} {b}"
        if rng.random() < 0.2:
            e = f"({e}) {rng.choice(NUM_OPS)} {operand(rng, scope, depth, NUMERIC)}"
    elif r < 0.72:
        e = f"{operand(rng, scope, depth)} ~ {operand(rng, scope, depth)}"
        if rng.random() < 0.3:
            e = f"{e} ~ {lit_str(rng)}"
    elif r < 0.77:
        kinds = rng.choice([NUMERIC, {"str"}, {"list_num"}, {"list_str"}, None])
        e = f"{operand(rng, scope, depth, kinds)} {rng.choice(CMP_OPS)} {operand(rng, scope, depth, kinds)}"
    elif r < 0.81:
        container = rng.choice([{"str"}, {"list", "list_str", "list_num"}, {"dict"}])
        needle = {"str"} if container != {"list", "list_str", "list_num"} else None
        e = f"{operand(rng, scope, depth, needle)} {rng.choice(['in', 'not in'])} {operand(rng, scope, depth, container)}"
    elif r < 0.86:
        e = f"{expr(rng, scope, depth + 1)} if {cond(rng, scope, depth + 1)}" + \
            (f" else {expr(rng, scope, depth + 1)}" if rng.random() < 0.8 else "")
    elif r < 0.9:
        e = f"{operand(rng, scope, depth)} {rng.choice(['and', 'or'])} {operand(rng, scope, depth)}"
    elif r < 0.94:
        e = pct_expr(rng, scope)
    elif r < 0.97:
        e = method_call(rng, scope)
    else:
        e = rng.choice(["range(3)|list", "range(1, 10, 3)|list", "range(5)|sum", "dict(a=1, b='x')",
                        "namespace(a=1).a", "cycler('a', 'b').next()", "joiner(', ')()", "range(0)|list",
                        "[1, 2] + [3]", "'ab' * 3", "[0] * 3", "(1, 2) + (3,)", "'a' + 'b'", "-(3)",
                        "not none", "1 if none is none", "{'a': 1}.a", "[1, 2, 3][1:]", "'abc'[::-1]"])
    if rng.random() < 0.08:
        e = f"({e})"
    return e


def filtered(rng, scope, depth):
    base = operand(rng, scope, depth)
    steps = rng.choice([1, 1, 1, 2, 2, 3])
    for _ in range(steps):
        k = kind_of(evaluate(base, scope))
        if k == "undef" and rng.random() < 0.5 and not base.endswith(")"):
            k = "undef"
        options = FILTERS_BY_KIND.get(k, ["string"])
        f = rng.choice(options)
        base = f"{base}|{f}"
        if " " in f and not f.endswith(")") and rng.random() < 0.5:
            break
    return base


def cond(rng, scope, depth=0):
    r = rng.random()
    if r < 0.3:
        return operand(rng, scope, depth)
    if r < 0.5:
        return f"{operand(rng, scope, depth)} is {rng.choice(['', 'not '])}{rng.choice(TESTS)}"
    if r < 0.65:
        kinds = rng.choice([NUMERIC, NUMERIC, {"str"}, None])
        return f"{operand(rng, scope, depth, kinds)} {rng.choice(CMP_OPS)} {operand(rng, scope, depth, kinds)}"
    if r < 0.75:
        container = rng.choice([{"str"}, {"list", "list_str", "list_num"}, {"dict"}])
        needle = {"str"} if container != {"list", "list_str", "list_num"} else None
        return f"{operand(rng, scope, depth, needle)} in {operand(rng, scope, depth, container)}"
    if r < 0.85:
        return f"not {operand(rng, scope, depth)}"
    if r < 0.93:
        return f"{cond(rng, scope, depth + 1)} {rng.choice(['and', 'or'])} {cond(rng, scope, depth + 1)}" \
            if depth < 2 else operand(rng, scope, depth)
    return f"{filtered(rng, scope, depth)}"


# ---------------------------------------------------------------------------------------------
# statements
# ---------------------------------------------------------------------------------------------

def text(rng):
    r = rng.random()
    if r < 0.25:
        return rng.choice(["", " ", "\n", "\n\n", "  ", "\t"])
    parts = []
    for _ in range(rng.randint(1, 4)):
        parts.append(rng.choice(WORDS + ["-", ",", ".", ":", "|", "'", '"', "é", "→", "%", "#", "(", ")",
                                         "  ", "\n", "\n", "\n  ", "\t", " "]))
    return " ".join(parts) if rng.random() < 0.5 else "".join(parts)


def open_tag(rng):
    return rng.choice(["{%", "{%", "{%", "{%", "{%-", "{%+"])


def close_tag(rng):
    return rng.choice(["%}", "%}", "%}", "%}", "-%}", "+%}"])


def block(rng, body):
    return f"{open_tag(rng)} {body} {close_tag(rng)}"


def nl(rng):
    """Layout between block tags: trim_blocks (promptflow) removes the first newline after one."""
    return rng.choice(["", "\n", "\n", "\n  ", "  \n", " ", "\n\n", "\r\n"])


def output(rng, e):
    o = rng.choice(["{{", "{{", "{{", "{{-"])
    c = rng.choice(["}}", "}}", "}}", "-}}"])
    sp = rng.choice([" ", " ", ""])
    return f"{o}{sp}{e}{sp}{c}"


def iterable(rng, scope):
    name = pick_var(rng, scope, {"list", "list_str", "list_num", "objs", "str", "dict"})
    r = rng.random()
    if name and r < 0.55:
        v = scope[name]
        k = kind_of(v)
        if k == "dict" and rng.random() < 0.5:
            return rng.choice([f"{name}.items()", f"{name}|dictsort", f"{name}|items", f"{name}.keys()",
                               f"{name}.values()"])
        if k in ("list", "list_str", "list_num") and rng.random() < 0.3:
            return f"{name}|{rng.choice(['sort', 'reverse', 'unique', 'select', 'batch(2)', 'slice(2)'])}"
        if k == "objs" and rng.random() < 0.3:
            return f"{name}|selectattr('active')"
        return name
    if r < 0.75:
        sname = pick_var(rng, scope, {"str"})
        if sname:
            return sname
        return lit_str(rng, rng.choice(["abc", "héllo", "", "x", "日本", "a b"]))
    return rng.choice(["range(3)", "range(0)", "range(2, 5)", "[1, 2, 3]", "['a', 'b']", "[]", "'xyz'",
                       "(1, 'two', 3.0)", "{'a': 1, 'b': 2}", "{'a': 1}.items()", "[[1, 2], [3, 4]]",
                       "missing", "none", "42", "[none, 0, '', 'x']", "'日本語'", "''", "[1e21, 1e-05, -0.0]"])


LOOP_ATTRS = ["loop.index", "loop.index0", "loop.revindex", "loop.revindex0", "loop.length", "loop.first",
              "loop.last", "loop.depth", "loop.depth0", "loop.cycle('odd', 'even')", "loop.cycle(1, 2, 3)",
              "loop.previtem", "loop.nextitem", "loop.changed(1)", "loop.index is even",
              "'x' if loop.last else ', '", "loop.length - loop.index"]


def sample_item(it_src, scope):
    v = evaluate(it_src, scope)
    try:
        items = list(v) if v is not MISSING else []
    except Exception:
        items = []
    return items[0] if items else None


def statements(rng, scope, depth, budget):
    out = []
    for _ in range(budget):
        out.append(statement(rng, scope, depth))
        if rng.random() < 0.5:
            out.append(text(rng))
    return "".join(out)


def statement(rng, scope, depth):
    r = rng.random()
    if depth >= 3:
        r = rng.random() * 0.45
    if r < 0.35:
        return output(rng, expr(rng, scope))
    if r < 0.45:
        return text(rng)
    if r < 0.5:
        return comment(rng)
    if r < 0.65:
        return if_stmt(rng, scope, depth)
    if r < 0.8:
        return for_stmt(rng, scope, depth)
    if r < 0.9:
        return set_stmt(rng, scope, depth)
    if r < 0.94:
        f = rng.choice(["upper", "trim", "title", "indent(2)", 'replace("a", "4")'])
        return block(rng, f"filter {f}") + \
            nl(rng) + statements(rng, scope, depth + 1, 1) + nl(rng) + block(rng, "endfilter")
    if r < 0.97:
        return macro(rng, scope, depth)
    return rng.choice(["{% raw %}{{ not rendered }}{% endraw %}", "{%- raw -%}  {{ x }}  {%- endraw -%}",
                       "{% raw %}\n{% if %}\n{% endraw %}\n"])


def comment(rng):
    o = rng.choice(["{#", "{#", "{#-"])
    c = rng.choice(["#}", "#}", "-#}"])
    body = rng.choice(["note", "a comment {{ x }}", "multi\nline", ""])
    return f"{o} {body} {c}" + nl(rng)


def if_stmt(rng, scope, depth):
    parts = [block(rng, f"if {cond(rng, scope)}"), nl(rng), statements(rng, scope, depth + 1, rng.randint(1, 2))]
    for _ in range(rng.choice([0, 0, 1, 2])):
        parts += [nl(rng), block(rng, f"elif {cond(rng, scope)}"), nl(rng),
                  statements(rng, scope, depth + 1, 1)]
    if rng.random() < 0.5:
        parts += [nl(rng), block(rng, "else"), nl(rng), statements(rng, scope, depth + 1, 1)]
    parts += [nl(rng), block(rng, "endif"), nl(rng)]
    return "".join(parts)


def for_stmt(rng, scope, depth):
    it = iterable(rng, scope)
    sample = sample_item(it, scope)
    inner = dict(scope)
    if isinstance(sample, (list, tuple)) and len(sample) == 2 and rng.random() < 0.7:
        target = "k, v"
        inner["k"], inner["v"] = sample
    else:
        target = rng.choice(["x", "item", "c", "row"])
        inner[target] = sample
    inner["loop"] = FakeLoop()
    head = f"for {target} in {it}"
    if rng.random() < 0.12:
        head += f" if {rng.choice([target.split(',')[0], 'loop is defined', target.split(',')[0] + ' is string'])}"
    body = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.45:
            body.append(output(rng, "loop" if rare(rng) else rng.choice(LOOP_ATTRS)))
        elif r < 0.75:
            body.append(output(rng, expr(rng, inner, 1)))
        else:
            body.append(statement(rng, inner, depth + 1))
        body.append(rng.choice(["", " ", ", ", "\n", "-", ": "]))
    parts = [block(rng, head), nl(rng), "".join(body)]
    if rng.random() < 0.3:
        parts += [nl(rng), block(rng, "else"), nl(rng), text(rng) or "none"]
    parts += [nl(rng), block(rng, "endfor"), nl(rng)]
    return "".join(parts)


def set_stmt(rng, scope, depth):
    name = rng.choice(["v", "tmp", "label", "total", "acc"])
    r = rng.random()
    if r < 0.5:
        e = expr(rng, scope, 1)
        scope[name] = evaluate(e, scope)
        if scope[name] is MISSING:
            scope[name] = None
        return block(rng, f"set {name} = {e}") + nl(rng) + output(rng, rng.choice([name, f"{name}|string",
                                                                                  f"{name} ~ '|'"]))
    if r < 0.75:
        filt = rng.choice(["", "", " | upper", " | trim", " | length"])
        body = statements(rng, scope, depth + 1, 1)
        scope[name] = "text"
        return block(rng, f"set {name}{filt}") + nl(rng) + body + nl(rng) + block(rng, "endset") + nl(rng) + \
            output(rng, rng.choice([name, f"{name}|length", f"{name}|upper", f"'[' ~ {name} ~ ']'"]))
    if r < 0.9:
        it = iterable(rng, scope)
        return ("{% set ns = namespace(total=0, names=[]) %}" + nl(rng) +
                f"{{% for x in {it} %}}{{% set ns.total = ns.total + 1 %}}{{% endfor %}}" + nl(rng) +
                output(rng, "ns" if rare(rng) else rng.choice(["ns.total", "ns.names", "ns.total * 2", "ns.total ~ '|'"])))
    a, b = rng.choice([("a", "b"), ("first", "second")])
    return block(rng, f"set {a}, {b} = {rng.choice(['[1, 2]', '(3, 4)', 'ab', 'xyz', 'pair'])}") + \
        output(rng, f"{a} ~ {b}")


def macro(rng, scope, depth):
    body = output(rng, rng.choice(["varargs", "kwargs"]) if rare(rng) else
                  rng.choice(["x", "x|upper", "x ~ y", "y", "caller is defined", "x is defined"]))
    call = rng.choice(["m(1)", "m('a', 'b')", "m()", "m(x=2)", f"m({operand(rng, scope, 1)})", "m(y=1)",
                       "m(1, y=[2])"])
    return (block(rng, "macro m(x, y='d')") + body + block(rng, "endmacro") + nl(rng) +
            output(rng, call))


# ---------------------------------------------------------------------------------------------
# focused templates
# ---------------------------------------------------------------------------------------------

def t_pct(rng, scope):
    return "".join(output(rng, pct_expr(rng, scope)) + text(rng) for _ in range(rng.randint(1, 3)))


def t_strloop(rng, scope):
    name = pick_var(rng, scope, {"str"})
    it = name if name and rng.random() < 0.6 else lit_str(rng, rng.choice(["abc", "héllo", "", "x", "日本", "a b",
                                                                              "tab\t"]))
    attrs = rng.sample(LOOP_ATTRS[:11], rng.randint(1, 4))
    body = "".join(output(rng, a) + rng.choice(["", " ", ",", "|"]) for a in attrs)
    body += rng.choice(["", output(rng, "c"), output(rng, "c|upper"), output(rng, "c ~ loop.index")])
    els = rng.choice(["", "", "{% else %}empty"])
    tail = rng.choice(["", "", f"{{{{ {it}|list|length }}}}", f"{{{{ {it}|list }}}}", f"{{{{ {it}|first }}}}",
                       f"{{{{ {it}|last }}}}"])
    return f"{{% for c in {it} %}}{body}{els}{{% endfor %}}{tail}" + nl(rng)


FLOAT_PATHS = ["{x}", "{x}|string", "{x} ~ ''", "'<' ~ {x} ~ '>'", "[{x}]", "[{x}, 1]", "{{'k': {x}}}",
               "({x},)", "[{x}]|string", "[{x}]|join(',')", "{x}|tojson", "{x}|round(2)", "{x}|int",
               "{x}|abs", "-{x}", "{x} * 2", "{x} / 3", "{x} + 0.1", "{x}|string|length", "'%s' % {x}",
               "{x}|float", "[{x}]|first", "{x}|round", "{x} > 1", "{x}|round|string", "({x}, {x})|list",
               "{x}|pprint", "[{x}]|map('string')|join(' ')", "{x}|string|upper", "{x} ** 2", "{x} // 1",
               "{x} % 2", "[{x}]|sum", "{x}|default(1)", "{x}|e", "{x}|format", "'{{}}'.format({x})"]
FLOAT_SOURCES = ["1e21", "1e22", "1e-5", "1e-05", "0.0001", "1e16", "1e15", "123456789012345678.0", "-0.0",
                 "0.1", "2.5", "1.0", "100.0", "1.5e300", "5e-324", "'inf'|float", "'-inf'|float", "'nan'|float",
                 "1e308 * 10", "-1e308 * 10", "1e308 * 10 - 1e308 * 10", "10 ** 21", "2 ** 0.5", "1 / 3",
                 "7 / 2", "1e21 / 1", "12345678.9", "0.000001", "3.0e-7", "'1e21'|float", "'1e-5'|float",
                 "1.7976931348623157e308", "-1e-5", "1e100", "9007199254740993.0", "0.1 + 0.2", "1e23"]


def t_float(rng, scope):
    out = []
    for _ in range(rng.randint(1, 3)):
        fname = pick_var(rng, scope, {"float"})
        src = fname if fname and rng.random() < 0.4 else rng.choice(FLOAT_SOURCES)
        path = rng.choice(FLOAT_PATHS)
        x = f"({src})" if (" " in src or "|" in src) else src
        out.append(output(rng, path.format(x=x)) + rng.choice([" ", "\n", "|"]))
    return "".join(out)


def t_filters(rng, scope):
    return "".join(output(rng, filtered(rng, scope, 0)) + rng.choice(["\n", " ", ""]) for _ in range(rng.randint(1, 3)))


def t_methods(rng, scope):
    return "".join(output(rng, method_call(rng, scope)) + rng.choice(["\n", " "]) for _ in range(rng.randint(1, 3)))


def t_exprs(rng, scope):
    return "".join(output(rng, expr(rng, scope)) + text(rng) for _ in range(rng.randint(1, 3)))


def t_stmts(rng, scope):
    return statements(rng, scope, 0, rng.randint(1, 3))


def t_loop(rng, scope):
    return text(rng) + for_stmt(rng, scope, 0) + text(rng)


def t_if(rng, scope):
    return text(rng) + if_stmt(rng, scope, 0) + text(rng)


def t_set(rng, scope):
    return set_stmt(rng, scope, 0) + text(rng) + statement(rng, scope, 1)


def t_ws(rng, scope):
    """Block tags on their own lines with indentation: the layout trim_blocks and `-`/`+` act on."""
    lines = []
    for _ in range(rng.randint(2, 5)):
        indent = rng.choice(["", "  ", "    ", "\t"])
        r = rng.random()
        if r < 0.3:
            lines.append(indent + block(rng, f"if {cond(rng, scope)}"))
            lines.append(indent + "  " + output(rng, expr(rng, scope, 2)))
            lines.append(indent + block(rng, "endif"))
        elif r < 0.55:
            it = iterable(rng, scope)
            lines.append(indent + block(rng, f"for x in {it}"))
            lines.append(indent + "  - " + output(rng, rng.choice(["x", "loop.index", "x|string|upper"])))
            lines.append(indent + block(rng, "endfor"))
        elif r < 0.7:
            lines.append(indent + block(rng, f"set v = {expr(rng, scope, 2)}") + rng.choice(["", " ", "  x"]))
        elif r < 0.8:
            lines.append(indent + comment(rng).rstrip("\n"))
        else:
            lines.append(indent + text(rng))
    sep = rng.choice(["\n", "\n", "\r\n"])
    return sep.join(lines) + rng.choice(["", "\n", "\n\n"])


FOCUS = [("pct", t_pct, 12), ("strloop", t_strloop, 8), ("float", t_float, 12), ("filter", t_filters, 16),
         ("method", t_methods, 6), ("expr", t_exprs, 16), ("stmts", t_stmts, 12), ("loop", t_loop, 10),
         ("if", t_if, 6), ("set", t_set, 5), ("ws", t_ws, 8)]


# ---------------------------------------------------------------------------------------------
# round 3: the constructs of larger templates (macros, caller, namespace, loop helpers, with,
# filter blocks, unpacking, slicing, methods, tuples, mixed numbers, range, dict, groupby)
# ---------------------------------------------------------------------------------------------

def r3_macro(rng, scope):
    params = rng.choice(["x", "x, y='d'", "x=1, y=2", "a, b=none", "x, y=[1, 2]", "", "s='it''s'"
                         .replace("''", "\\'")])
    use = rng.choice(["x", "y", "x ~ y", "a ~ b", "varargs", "kwargs", "varargs|length", "kwargs|dictsort",
                      "varargs[0] if varargs else 'none'", "kwargs.get('z', 0)", "varargs|join('-')",
                      "x|string ~ varargs|string", "caller is defined", "m.name", "m.arguments",
                      "m.catch_varargs", "m.catch_kwargs"])
    body = output(rng, use) + rng.choice(["", "|", "\n"])
    arg = lambda: operand(rng, scope, 1)
    calls = ["m()", "m(1)", f"m({arg()})", f"m({arg()}, {arg()})", f"m(1, 2, 3)", "m(x=5)", "m(y='q')",
             f"m(1, z={arg()})", "m(1, 2, z=3, w=4)", "m(*[1, 2])", "m(**{'x': 7})", "m(x=1, x=2)",
             "m(1, x=2)", "m()|upper", "m(1) ~ m(2)", "m(1)|length"]
    call = rng.choice(calls)
    tpl = block(rng, f"macro m({params})") + body + block(rng, "endmacro") + nl(rng) + output(rng, call)
    if rng.random() < 0.3:
        tpl += output(rng, rng.choice(calls))
    return tpl


def r3_caller(rng, scope):
    inner = rng.choice(["caller()", "caller()|upper", "caller() ~ caller()", "caller(1)", "caller(x)",
                        "caller('a', 'b')", "caller()|length", "caller()|wordcount", "caller is defined"])
    params = rng.choice(["", "(v)", "(v, w='w')", "(v=2)"])
    cbody = rng.choice(["body", output(rng, "v") if "v" in params else "body {{ 1 + 1 }}", "[{{ v|default('u') }}]",
                        "{% if v is defined %}{{ v }}{% endif %}", "\n  text\n"])
    return (block(rng, "macro m(x=0)") + "<" + output(rng, inner) + ">" + block(rng, "endmacro") + nl(rng) +
            block(rng, f"call{params} m({rng.choice(['', '1', 'x=3'])})") + cbody + block(rng, "endcall") +
            nl(rng) + rng.choice(["", output(rng, "m()") if rng.random() < 0.3 else ""]))


def r3_namespace(rng, scope):
    it = iterable(rng, scope)
    init = rng.choice(["namespace()", "namespace(n=0)", "namespace(n=0, items=[])", "namespace(n=1.5, s='')",
                       "namespace({'n': 0})", "namespace(n=0, n2=none)"])
    upd = rng.choice(["ns.n = ns.n + 1", "ns.n = (ns.n or 0) + 1", "ns.s = ns.s ~ x", "ns.items = ns.items + [x]",
                      "ns.last = x", "ns.n = loop.index"])
    shown = rng.choice(["ns.n", "ns.items", "ns.s", "ns.last", "ns.n ~ '|'", "ns.missing", "ns.n * 2",
                        "ns.items|length", "ns.last|default('none')"])
    return (block(rng, f"set ns = {init}") + nl(rng) + block(rng, f"for x in {it}") + block(rng, f"set {upd}") +
            block(rng, "endfor") + nl(rng) + output(rng, shown))


R3_LOOP = ["loop.cycle('a', 'b')", "loop.cycle(*[1, 2, 3])", "loop.cycle()", "loop.changed(x)",
           "loop.changed(x, loop.index)", "loop.previtem", "loop.nextitem", "loop.previtem is defined",
           "loop.nextitem|default('end')", "loop.depth", "loop.depth0", "loop.length", "loop.revindex",
           "loop.index ~ '/' ~ loop.length", "loop.previtem ~ '>' ~ x"]


def r3_loop(rng, scope):
    it = rng.choice([iterable(rng, scope), "[1, 1, 2, 2, 3]", "'aabbc'", "[[1, 2], [3]]", "range(4)",
                     "[{'a': 1}, {'a': 1}, {'a': 2}]"])
    filt = rng.choice(["", "", " if x", " if x is number", " if loop is defined", " if not x"])
    rec = rng.random() < 0.2
    body = "".join(output(rng, rng.choice(R3_LOOP)) + rng.choice([",", " ", "|"]) for _ in range(rng.randint(1, 3)))
    if rec:
        body += rng.choice(["{% if x is iterable and x is not string %}{{ loop(x) }}{% endif %}",
                            "{% if x is sequence %}[{{ loop(x) }}]{% endif %}"])
    else:
        body += rng.choice(["", "{% for y in [0, 1] %}{{ loop.depth }}{{ loop.changed(y) }}{% endfor %}"])
    head = f"for x in {it}{filt}" + (" recursive" if rec else "")
    els = rng.choice(["", "", block(rng, "else") + "empty"])
    return block(rng, head) + body + els + block(rng, "endfor") + nl(rng)


def r3_with(rng, scope):
    a_src = rng.choice(["1", "'new'", "[1, 2]", "a ~ '!'", "none", f"{operand(rng, scope, 1)}"])
    b_src = rng.choice(["a ~ 'x'", "a", "a * 2", "(a|string) ~ b", "b", "a is defined"])
    pre = rng.choice(["", "{% set a = 'outer' %}", "{% set a = 5 %}", "{% set b = 'B' %}"])
    body = "".join(output(rng, rng.choice(["a", "b", "a ~ b", "b|string", "a|length"])) + " "
                   for _ in range(rng.randint(1, 2)))
    inner_set = rng.choice(["", "", "{% set a = 'inner' %}{{ a }}", "{% set c = 3 %}"])
    after = output(rng, rng.choice(["a", "b", "c", "a|default('u')", "b is defined", "c is defined"]))
    head = rng.choice([f"with a = {a_src}, b = {b_src}", f"with a = {a_src}", "with", f"with b = {b_src}, a = {a_src}"])
    return pre + block(rng, head) + body + inner_set + block(rng, "endwith") + nl(rng) + after


def r3_filterblock(rng, scope):
    f = rng.choice(["upper", "trim", "wordcount", "length", "title", "indent(2)", "replace('a', '4')", "list",
                    "reverse", "first", "string", "center(20)", "int", "float", "e", "lower|upper", "count",
                    "striptags", "truncate(5)", "wordwrap(5)", "format(1)", "join(',')", "tojson", "sum",
                    "d('x')", "capitalize"])
    inner = rng.choice(["hello world", "{% set v = 'in' %}{{ v }}", "{% set v = 2 %}x{{ v }}",
                        "{% for i in range(3) %}{{ i }} {% endfor %}", "", "  Spaced  Words  ",
                        output(rng, expr(rng, scope, 2))])
    after = rng.choice(["", output(rng, "v"), output(rng, "v is defined"), output(rng, "v|default('none')")])
    pre = rng.choice(["", "", "{% set v = 'outer' %}"])
    return pre + block(rng, f"filter {f}") + inner + block(rng, "endfilter") + nl(rng) + after


def r3_unpack(rng, scope):
    src = rng.choice(["[1, 2]", "(3, 4)", "'ab'", "'abc'", "[1]", "[[1, 2], [3, 4]]", "{'a': 1, 'b': 2}",
                      "{'a': 1}.items()|list|first", "range(2)", "[(1, 'x'), (2, 'y')]", "none", "5",
                      "[1, [2, 3]]"])
    r = rng.random()
    if r < 0.4:
        return block(rng, f"set a, b = {src}") + output(rng, rng.choice(["a ~ b", "[a, b]", "(a, b)", "b"]))
    if r < 0.8:
        tgt = rng.choice(["a, b", "(a, b)", "a", "a, (b, c)", "k, v"])
        return (block(rng, f"for {tgt} in {rng.choice([src, '[[1, 2], [3, 4]]', 'd.items()', '[(1, 2), (3,)]'])}")
                + output(rng, rng.choice(["a", "b", "k ~ v", "a ~ b", "c", "(a, b)"])) + ","
                + block(rng, "endfor"))
    return output(rng, rng.choice(["(1, 2)", "(1,)", "()", "((1, 2), 3)", "(1, 'a', none, true)",
                                   "[(1, 2)]", "(1, 2)|list", "(1, 2) ~ ''", "(1, 2)|string", "{'t': (1, 2)}",
                                   "(1, 2)[0]", "(1, 2) + (3,)", "(1, 2) == (1, 2)", "[1, 2] == (1, 2)",
                                   "(1, 2)|tojson", "((1, 2),)|list"]))


def r3_slice(rng, scope):
    base = rng.choice([operand(rng, scope, 1, {"str", "list", "list_str", "list_num", "objs"}), "'abcdef'",
                       "[1, 2, 3, 4, 5]", "(1, 2, 3)", "range(10)", "'héllo'", "''"])
    sl = rng.choice(["[1:]", "[:2]", "[::-1]", "[::2]", "[1:-1]", "[-2:]", "[5:1]", "[1:5:0]", "[:]", "[-1]",
                     "[0]", "[10]", "[1::-1]", "[-100:100]", "[None:2]", "[::3]", "[2:0:-1]", "['a']"])
    tail = rng.choice(["", "", "|list", "|join(',')", "|length", "|string", " ~ ''", "|first"])
    return output(rng, f"{base}{sl}{tail}")


R3_STR_METHODS = ["encode()", "encode('utf-8')", "decode()", "format_map({'a': 1})", "isnumeric()", "isdecimal()",
                  "isidentifier()", "isprintable()", "isascii()", "translate({97: 'b'})", "maketrans('a', 'b')",
                  "split(maxsplit=1)", "rsplit(',', maxsplit=1)", "splitlines(True)", "strip(' l')",
                  "count('l', 1)", "find('l', 2)", "startswith(('a', 'h'))", "endswith(('o', 'd'))",
                  "replace('l', 'L', 1)", "center(3)", "zfill(2)", "rpartition(' ')", "title()", "rindex('l')",
                  "ljust(10, '*')", "index('zz')", "upper().lower()", "split('l')|list", "__len__()", "__str__()",
                  "__contains__('l')", "mro", "__class__.__name__", "format('x')", "join('ab')", "join([1, 2])",
                  "partition('l')", "rjust(3)", "capitalize()", "swapcase()", "expandtabs()", "strip()"]
R3_DICT_METHODS = ["keys()", "values()", "items()", "keys()|list", "values()|list|length", "items()|list",
                   "get('a')", "get('zz', [])", "copy()", "keys()|sort|join(',')", "items()|map('first')|list",
                   "__contains__('a')", "fromkeys(['x'])", "keys()|first", "values()|sum", "items()|length",
                   "keys() ~ ''", "items()|string", "values()|string", "keys()|join", "__getitem__('a')",
                   "has_key('a')", "iteritems()"]


def r3_methods(rng, scope):
    out = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.4:
            s = pick_var(rng, scope, {"str"}) or lit_str(rng, rng.choice(["hello world", "a,b,c", "Hello", ""]))
            out.append(output(rng, f"{s}.{rng.choice(R3_STR_METHODS)}"))
        elif r < 0.7:
            d = pick_var(rng, scope, {"dict"}) or rng.choice(["{'a': 1, 'b': 2}", "{}", "{'b': [1], 'a': none}"])
            out.append(output(rng, f"{d}.{rng.choice(R3_DICT_METHODS)}"))
        else:
            d = pick_var(rng, scope, {"dict"}) or rng.choice(["{'a': 1, 'b': 2}", "{}", "{'b': [1], 'a': 'x'}"])
            m = rng.choice(["keys()", "values()", "items()"])
            tgt = "k, v" if m == "items()" and rng.random() < 0.7 else "k"
            out.append(block(rng, f"for {tgt} in {d}.{m}") + output(rng, rng.choice(["k", "k ~ '|'", "loop.length",
                                                                                     "v" if "v" in tgt else "k"]))
                       + "," + block(rng, "endfor"))
        out.append(rng.choice([" ", "\n", "|"]))
    return "".join(out)


def r3_pct(rng, scope):
    fmt = rng.choice(["%s", "%s-%s", "%r", "%s %r", "%d/%d", "%.1f %s", "%s%%", "(%s, %s, %s)", "%5s|%-5s"])
    n = fmt.replace("%%", "").count("%")
    args = [operand(rng, scope, 1) for _ in range(rng.choice([n, n, n, n + 1, max(n - 1, 0)]))]
    rhs = rng.choice(["(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")",
                      "[" + ", ".join(args) + "]", f"({', '.join(args)})|list" if args else "()"])
    if rng.random() < 0.2:
        rhs = rng.choice(["(1, (2, 3))", "((1, 2),)", "((1, 2))", "(none, true)", "('a', 1.0)", "([1], {'a': 1})"])
    return output(rng, f"{lit_str(rng, fmt)} % {rhs}")


R3_NUMS = ["1", "2", "0", "-3", "2.0", "0.5", "-0.0", "1e3", "true", "false", "10 ** 20", "2 ** 64", "2 ** 100",
           "-(2 ** 63)", "9223372036854775807", "9223372036854775808", "18446744073709551616",
           "12345678901234567890123", "'inf'|float", "3 // 2", "7 / 7", "'3'|int", "'2.5'|float"]


def r3_numeric(rng, scope):
    out = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        a = rng.choice(R3_NUMS + [operand(rng, scope, 1, NUMERIC)])
        b = rng.choice(R3_NUMS + [operand(rng, scope, 1, NUMERIC)])
        ap = f"({a})" if " " in a or "|" in a else a
        bp = f"({b})" if " " in b or "|" in b else b
        if r < 0.5:
            op = rng.choice(NUM_OPS + CMP_OPS)
            if op == "**":
                # a small exponent: Python computes a big integer's power exactly
                bp = rng.choice(["2", "0", "-1", "0.5", "3", "(-2)"])
            e = f"{ap} {op} {bp}"
        elif r < 0.65:
            # a repetition count stays small: Python would build the repeated value
            n = rng.choice(["2", "0", "-1", "2.0", "true", "1.5", "none", "'2'"])
            e = rng.choice([f"'a' * {n}", f"[1] * {n}", f"{n} * 'ab'", f"'x' + {ap}", f"{ap} ~ {bp}"])
        elif r < 0.85:
            e = f"{ap}|{rng.choice(['int', 'float', 'abs', 'round', 'round(1)', 'string', 'tojson', 'filesizeformat', 'string|length', 'int(base=16)'])}"
        else:
            e = rng.choice(["'inf'|int", "'nan'|int", "'1e3'|int", "'0x1A'|int(0, 16)", "'12abc'|int",
                            "'1_000'|int", "' 42 '|int", "'-7'|int", "'3.9'|int", "1e20|int", "-2.5|int",
                            "'inf'|float|int", "true|int", "none|int", "'1e400'|float", "[1, 2.5]|sum",
                            "[2 ** 64, 1]|sum", "[1, 2.0]|max", "(2 ** 64) / 2", "(2 ** 64) // 3",
                            "(10 ** 20) % 7", "-(2 ** 64)", "2 ** -1", "(-8) ** (1/3)", "0 ** 0", "5 % -3",
                            "-5 // 2", "5.5 // 2", "5.5 % 2", "1 / 0", "1 // 0", "1 % 0.0", "0.0 / 0",
                            "true + true", "true * 2.5", "1 == 1.0", "1 is sameas 1.0", "(2 ** 64)|string|length"])
        out.append(output(rng, e) + rng.choice([" ", "|", "\n"]))
    return "".join(out)


def r3_range(rng, scope):
    r = rng.choice(["range(4)", "range(0)", "range(1, 5)", "range(10, 0, -3)", "range(2, 2)", "range(0, 10, 2)",
                    "range(-3)", "range(3, 0)", "range(1, 10, 0)", "range(n % 9)", "range(words|length)", "range('3')",
                    "range(2.0)"])
    use = rng.choice(["{r}", "{r}|list", "{r}|string", "{r}|length", "{r}|sum", "{r}|join(',')", "{r} ~ ''",
                      "{r}|first", "{r}|last", "{r}|reverse|list", "{r}[1]", "{r}[1:]", "[{r}]", "{r}|tojson",
                      "{r}|pprint", "'%s' % ({r},)", "{r} == {r}", "3 in {r}", "{r}|max", "{r}|map('string')|join"])
    e = use.format(r=r)
    if rng.random() < 0.3:
        return block(rng, f"set r = {r}") + output(rng, use.format(r="r"))
    return output(rng, e)


def r3_dict(rng, scope):
    src = rng.choice(["dict()", "dict(a=1)", "dict([('a', 1), ('b', 2)])", "dict([['a', 1]])", "dict({'a': 1})",
                      "dict({'a': 1}, b=2)", "dict([('a', 1)], a=3)", "dict(d)", "dict(meta)", "dict([1, 2])",
                      "dict('ab')", "dict(['ab', 'cd'])", "dict([])", "dict(none)", "dict(1)",
                      "dict({'a': 1}.items())", "dict(zip)", "dict(range(0))", "dict([('a', 1), ('a', 2)])",
                      "dict(a=1, b=dict(c=2))"])
    use = rng.choice(["{d}", "{d}|dictsort", "{d}|length", "{d}.a", "{d}['b']", "{d}.items()|list", "{d}|tojson",
                      "{d}|list", "{d} ~ ''", "({d}).get('a', 'none')"])
    return output(rng, use.format(d=src))


def r3_groupby(rng, scope):
    objs = pick_var(rng, scope, {"objs"})
    src = objs if objs and rng.random() < 0.5 else rng.choice([
        "[{'k': 'a', 'v': 1}, {'k': 'b', 'v': 2}, {'k': 'a', 'v': 3}]", "[{'k': 1}, {'k': 2}, {'v': 3}]",
        "[{'k': 'x'}]", "[]", "[{'k': none}, {'k': none}]", "[{'k': 1}, {'k': 'a'}]", "[[2, 'b'], [1, 'a'], [2, 'c']]"])
    attr = rng.choice(["'k'", "'name'", "'age'", "'active'", "'missing'", "'address.city'", "0",
                       "'k', default='z'", "attribute='k'", "'k', case_sensitive=true", "'tags'"])
    r = rng.random()
    g = f"{src}|groupby({attr})"
    if r < 0.35:
        return output(rng, rng.choice([g, f"{g}|list", f"{g}|first", f"{g}|length", f"{g}|string",
                                       f"{g}|map('first')|list", f"{g}|map(attribute='grouper')|list", f"{g}|tojson"]))
    body = rng.choice(["{{ k }}:{{ items|length }}", "{{ k }}={{ items|map(attribute='v')|list }}",
                       "{{ g.grouper }}/{{ g.list|length }}", "{{ g }}", "{{ g[0] }}{{ g[1]|length }}",
                       "{{ g|list|length }}"])
    tgt = "g" if "g." in body or "{{ g" in body else "k, items"
    return block(rng, f"for {tgt} in {g}") + body + ";" + block(rng, "endfor")


R3_FOCUS = [("r3-macro", r3_macro, 10), ("r3-caller", r3_caller, 6), ("r3-ns", r3_namespace, 5),
            ("r3-loop", r3_loop, 8), ("r3-with", r3_with, 6), ("r3-filterblock", r3_filterblock, 7),
            ("r3-unpack", r3_unpack, 6), ("r3-slice", r3_slice, 6), ("r3-method", r3_methods, 10),
            ("r3-pct", r3_pct, 6), ("r3-num", r3_numeric, 12), ("r3-range", r3_range, 6), ("r3-dict", r3_dict, 6),
            ("r3-groupby", r3_groupby, 6)]



MESSAGES = [{"role": "system", "content": "Be \"nice\""},
            {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image", "url": "u"}]}]

# Hand-written cases for the constructs the fidelity issue names, rendered like the random ones:
# the `%` operator, loops over strings, floats on every printing path.
FOCUSED = [
    ("pct-fixed", "{{ '%s' % x }}|{{ '%d items' % n }}|{{ '%s and %s' % (a, b) }}|{{ '100%%' % () }}|{{ '%s%%' % n }}",
     {"x": "it's", "n": 3, "a": [1, "b"], "b": None}),
    ("pct-fixed", "{{ '%.2f' % f }}|{{ '%5.1f|' % f }}|{{ '%-8s|' % s }}|{{ '%05d' % n }}|{{ '%+d' % n }}|{{ '%x' % n }}",
     {"f": 2.675, "s": "ab", "n": 255}),
    ("pct-fixed", "{{ '%(name)s is %(age)d' % person }}|{{ '%r' % s }}|{{ '%s' % (s,) }}|{{ '%c' % 65 }}",
     {"person": {"name": "Ann", "age": 30}, "s": "it's"}),
    ("pct-fixed", "{{ '%e' % f }}|{{ '%g' % f }}|{{ '%G' % 1e-10 }}|{{ '%s' % f }}|{{ '%r' % [f] }}",
     {"f": 1e21}),
    ("pct-fixed", "{{ '%d' % s }}", {"s": "x"}),
    ("pct-fixed", "{{ '%s %s' % (1,) }}", {}),
    ("pct-fixed", "{{ 'no placeholders' % 5 }}", {}),
    ("pct-fixed", "{{ 'a %s' % d }}|{{ 'b' % d }}|{{ 'c' % items }}", {"d": {"k": 1}, "items": [1]}),
    ("pct-fixed", "{{ '%s' % nothing }}|{{ '%s' % missing }}|{{ '%r' % missing }}", {"nothing": None}),
    ("pct-fixed", "{{ '%.1f%%' % (ratio * 100) }} done", {"ratio": 0.4567}),
    ("strloop-fixed", "{% for c in s %}{{ loop.index }}/{{ loop.length }}:{{ c }}{{ ',' if not loop.last }}{% endfor %}",
     {"s": "héllo"}),
    ("strloop-fixed", "{% for c in 'abc' %}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.last }} {% endfor %}", {}),
    ("strloop-fixed", "{% for c in s %}{{ loop.length }}{% else %}empty{% endfor %}", {"s": ""}),
    ("strloop-fixed", "{% for c in s %}{{ loop.cycle('a', 'b') }}{{ loop.first }}{{ loop.last }}\n{% endfor %}",
     {"s": "日本"}),
    ("strloop-fixed", "{% for c in s if c != ' ' %}{{ c }}{{ loop.index }}/{{ loop.length }} {% endfor %}",
     {"s": "a b c"}),
    ("strloop-fixed", "{% for c in s %}{% for d in c %}{{ loop.depth }}{{ loop.length }}{% endfor %}{% endfor %}",
     {"s": "xy"}),
    ("float-fixed", "{{ a }} {{ b }} {{ c }} {{ d }} {{ e }} {{ f }}",
     {"a": 1e21, "b": 1e-05, "c": -0.0, "d": 1e16, "e": 0.0001, "f": 123456789.0}),
    ("float-fixed", "{{ a|string }} {{ b|string }} {{ a ~ '' }} {{ b ~ '|' }} {{ [a, b] }} {{ {'k': a} }} {{ (a,) }}",
     {"a": 1e21, "b": 1e-05}),
    ("float-fixed", "{{ 'inf'|float }} {{ '-inf'|float }} {{ 'nan'|float }} {{ ['nan'|float] }} "
                    "{{ ('inf'|float) ~ '' }} {{ ('nan'|float)|string }}", {}),
    ("float-fixed", "{{ x * 10 }} {{ -x * 10 }} {{ (x * 10 - x * 10) }} {{ [x * 10] }} {{ (x * 10)|string }}",
     {"x": 1e308}),
    ("float-fixed", "{{ 1e21 }} {{ 1e-5 }} {{ 1e21 ~ '' }} {{ [1e-5] ~ '' }} {{ 1e21|string }} {{ 0.1 + 0.2 }}", {}),
    ("float-fixed", "{{ xs|join(', ') }} {{ xs|sum }} {{ xs|max }} {{ xs|first }} {{ xs|tojson }}",
     {"xs": [1e21, 1e-05, 2.5, -0.0]}),
    ("float-fixed", "{{ x|round(2) }} {{ x|int }} {{ x|abs }} {{ '%s' % x }} {{ '{}'.format(x) }} {{ x|pprint }}",
     {"x": -1.5e-07}),
    # patterns of real prompt templates
    ("prompt-fixed", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", {"messages": MESSAGES}),
    ("prompt-fixed", "{%- set ns = namespace(found=false) -%}{%- for m in messages -%}{%- if m.role == 'user' -%}"
                     "{%- set ns.found = true -%}{%- endif -%}{%- endfor -%}{{ ns.found }}", {"messages": MESSAGES}),
    ("prompt-fixed", "{{ messages|tojson }}|{{ messages[1].content|selectattr('type', 'equalto', 'text')"
                     "|map(attribute='text')|join }}|{{ messages|last|attr('role') }}", {"messages": MESSAGES}),
    ("prompt-fixed", "{% for m in messages %}{{ loop|attr('index') }}{{ m|attr('role') }}{% endfor %}",
     {"messages": MESSAGES}),
    ("prompt-fixed", "Score: {{ '%.2f'|format(score) }} / {{ '{:.1%}'.format(score) }} / {{ (score * 100)|round|int }}%"
                     " -> {{ 'pass' if score >= threshold else 'fail' }}", {"score": 0.8567, "threshold": 0.85}),
    ("prompt-fixed", "{% if context %}Context:\n{{ context|join('\n')|indent(2, true) }}{% endif %}\n"
                     "{{ '\n'.join(examples) }}", {"context": ["a", "b\nc"], "examples": ["x", "y"]}),
]

# Hand-written cases for the classes of round 3, drawn before the round-3 grammar's.
ROUND3_FIXED = [
    ("r3-fixed", "{{ range(4) }}|{{ range(1, 10, 3) }}|{{ [range(2)] }}|{{ range(3)|list }}|{{ range(5)[-1] }}|"
                 "{{ 3 in range(4) }}|{{ range(3)|string|length }}", {}),
    ("r3-fixed", "{{ dict([('a', 1), ('b', 2)]) }}|{{ dict({'a': 1}, b=2) }}|{{ dict(['ab', 'cd']) }}|"
                 "{{ dict(pairs) }}", {"pairs": [["k", 1], ["j", [2]]]}),
    ("r3-fixed", "{{ dict([1, 2]) }}", {}),
    ("r3-fixed", "{{ dict(['abc']) }}", {}),
    ("r3-fixed", "{% macro m(x, y='d') %}{{ x }}{{ y }}{{ varargs }}{{ kwargs }}{% endmacro %}"
                 "{{ m(1) }}|{{ m(1, 2, 3, z=4) }}|{{ m(y=5) }}|{{ m.arguments }}{{ m.catch_varargs }}", {}),
    ("r3-fixed", "{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1, 2) }}", {}),
    ("r3-fixed", "{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1, z=2) }}", {}),
    ("r3-fixed", "{% macro m() %}[{{ caller(1) }}|{{ kwargs }}]{% endmacro %}"
                 "{% call(v) m(k='w') %}got {{ v }}{% endcall %}", {}),
    ("r3-fixed", "{% set a = 'outer' %}{% with a = 1, b = a ~ 'x' %}{{ a }} {{ b }}{% endwith %} {{ a }}", {}),
    ("r3-fixed", "{% filter upper %}{% set v = 'in' %}{{ v }}{% endfilter %}|{{ v }}|"
                 "{% set t %}{% set w = 1 %}{{ w }}{% endset %}{{ t }}{{ w }}", {}),
    ("r3-fixed", "{% filter wordcount %}one two three{% endfilter %}", {}),
    ("r3-fixed", "{% filter length %}abc{% endfilter %}", {}),
    ("r3-fixed", "{% filter upper|trim %} ok {% endfilter %}|{% filter tojson %}a{% endfilter %}", {}),
    ("r3-fixed", "{{ people|groupby('city')|list }}|{% for g in people|groupby('city') %}{{ g.grouper }}:"
                 "{{ g.list|map(attribute='n')|join }} {% endfor %}",
     {"people": [{"n": "a", "city": "Oslo"}, {"n": "b", "city": "Paris"}, {"n": "c", "city": "Oslo"}]}),
    ("r3-fixed", "{{ people|groupby('city') }}", {"people": [{"n": "a", "city": "Oslo"}, {"n": "b"}]}),
    ("r3-fixed", "{{ 'ab' * 2.0 }}", {}),
    ("r3-fixed", "{{ [1] * 2.0 }}", {}),
    ("r3-fixed", "{{ 'ab' * 2 }}|{{ 2 * 'ab' }}|{{ 'a' * true }}|{{ [1] * 2 }}", {}),
    ("r3-fixed", "{{ 'inf'|int }}|{{ '-inf'|int(7) }}|{{ '1e400'|int }}|{{ 'nan'|int(3) }}", {}),
    ("r3-fixed", "{{ ('inf'|float)|int }}", {}),
    ("r3-fixed", "{% for x in 'ab' %}{{ loop.cycle() }}{% endfor %}", {}),
    ("r3-fixed", "{{ 'x'.encode() }}|{{ {'a': 1}.has_key('a') }}", {}),
    ("r3-fixed", "{% for k, v in d.items() %}{{ k }}={{ v }}{{ loop.length }} {% endfor %}"
                 "{% for k in d.keys() %}{{ k }}{% endfor %}{% for v in d.values() %}{{ v }}{% endfor %}",
     {"d": {"b": 1, "a": [2]}}),
]


def focused_cases():
    for tag, template, inputs in FOCUSED:
        yield tag, template, inputs


def make_case(rng, focus=FOCUS):
    total = sum(w for _, _, w in focus)
    pick = rng.uniform(0, total)
    for tag, fn, w in focus:
        pick -= w
        if pick <= 0:
            break
    inputs = rand_inputs(rng)
    scope = dict(inputs)
    template = fn(rng, scope)
    return tag, template, inputs


def case_id(template, inputs):
    blob = json.dumps([template, inputs], ensure_ascii=False, sort_keys=True).encode()
    return hashlib.sha1(blob).hexdigest()[:12]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--count", type=int, default=COUNT, help="templates of the first grammar")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--round3-count", type=int, default=ROUND3_COUNT, help="templates of the round-3 grammar")
    ap.add_argument("--round3-seed", type=int, default=ROUND3_SEED)
    ap.add_argument("--no-fixed", action="store_true", help="leave out the hand-written cases")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    cases = []
    seen = set()
    redrawn = 0

    def draw(count, next_case):
        nonlocal redrawn
        goal = len(cases) + count
        while len(cases) < goal:
            tag, template, inputs = next_case()
            cid = case_id(template, inputs)
            if cid in seen:
                continue
            spec = outcome(render_spec, template, inputs)
            pf = outcome(render_promptflow, template, inputs)
            if any(NONDETERMINISTIC.search(o.get("out", "")) for o in (spec, pf)):
                redrawn += 1
                continue
            seen.add(cid)
            cases.append({"n": len(cases), "id": cid, "tag": tag, "template": template, "inputs": inputs,
                          "spec": spec, "promptflow": pf})

    rng = random.Random(args.seed)
    pending = [] if args.no_fixed else list(focused_cases())
    draw(args.count, lambda: pending.pop(0) if pending else make_case(rng))
    rng3 = random.Random(args.round3_seed)
    pending3 = [] if args.no_fixed else list(ROUND3_FIXED)
    draw(args.round3_count, lambda: pending3.pop(0) if pending3 else make_case(rng3, R3_FOCUS))
    header = {"generator": "generate.py", "seed": args.seed, "round3_seed": args.round3_seed, "count": len(cases),
              "jinja2": jinja2.__version__, "python": sys.version.split()[0]}
    OUT_ = args.out
    with open(OUT_, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(header, ensure_ascii=False) + "\n")
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False, allow_nan=False) + "\n")
    size = os.path.getsize(OUT_)
    print(f"wrote {len(cases)} templates ({2 * len(cases)} cases) to {os.path.relpath(OUT_)}, {size} bytes; "
          f"{redrawn} drawn again (object addresses in the output)")
    if args.stats:
        tags = collections.Counter(c["tag"] for c in cases)
        errors = collections.Counter(c[p]["error"] for c in cases for p in ("spec", "promptflow") if "error" in c[p])
        ok = sum(1 for c in cases for p in ("spec", "promptflow") if "out" in c[p])
        print("tags:", dict(tags.most_common()))
        print(f"rendered: {ok}, errors:", dict(errors.most_common()))


if __name__ == "__main__":
    main()
