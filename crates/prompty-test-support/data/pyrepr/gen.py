#!/usr/bin/env python3
"""Golden data for Python `str()`/`repr()`: prompty-py (`repr.rs`) and
prompty-jinja (`pyrepr.rs`) are tested against it.

Writes `golden.json` next to this script: values together with what CPython's
`str()` / `repr()` makes of them. The Rust tests only read the JSON file; this
script is kept so the data can be regenerated and extended.

    python3 gen.py            # rewrite golden.json
    python3 gen.py --table    # print the non-printable boundary table for prompty-py's repr.rs

Sections of golden.json:
  cases   [value, str(value)]       JSON values (no lone surrogates); every float is written
                                    as {"$f64": "0x<bits>"} so that the test does not depend
                                    on the JSON parser rounding decimal floats correctly
  floats  ["0x<f64 bits>", repr(x)] exact doubles, independent of JSON float parsing
  ints    ["<decimal>", str(n)]     integers that fit i128 or u128
  bytes   [[b0, b1, ...], repr(b)]  byte strings
"""

import json
import math
import os
import random
import struct
import sys
import unicodedata

SEED = 20240611


def nonprintable_ranges():
    """Inclusive (start, end) ranges of code points for which str.isprintable() is False."""
    ranges = []
    start = None
    for cp in range(0x110000):
        printable = chr(cp).isprintable()
        if not printable and start is None:
            start = cp
        elif printable and start is not None:
            ranges.append((start, cp - 1))
            start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    return ranges


def print_table():
    bounds = []
    for a, b in nonprintable_ranges():
        bounds.append(a)
        bounds.append(b + 1)
    print(f"// Python {sys.version.split()[0]}, Unicode {unicodedata.unidata_version}: "
          f"{len(bounds) // 2} ranges")
    print(f"const NON_PRINTABLE_BOUNDS: [u32; {len(bounds)}] = [")
    for i in range(0, len(bounds), 12):
        print("    " + " ".join(f"0x{b:05X}," for b in bounds[i:i + 12]))
    print("];")


def bits(x):
    return "0x%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def tag_floats(v):
    """Replaces every float inside v by {"$f64": "0x<bits>"}."""
    if isinstance(v, float):
        return {"$f64": bits(v)}
    if isinstance(v, list):
        return [tag_floats(x) for x in v]
    if isinstance(v, dict):
        return {k: tag_floats(x) for k, x in v.items()}
    return v


def float_values(rng):
    edge = [
        0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, 3.0, 10.0, 100.0, 0.1, 0.2, 0.3, 0.1 + 0.2,
        1 / 3, 2 / 3, 4.35, 0.1 + 0.7, math.pi, math.e, -math.pi, 42.0, -42.5,
        1e-4, 1e-5, 9.999e-5, 0.00012345, 0.0001, 0.00009999999999999999, 1e-7, 1.2e-10,
        1e15, 1e16, 9999999999999998.0, 1e16 - 2, 1e16 + 2, 123456789012345678.0,
        1.2345678901234568e17, 1e17, 1e21, 1e22, 1e23, 1e100, 1.5e300, 1e308,
        1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -5e-324,
        2.2250738585072014e-308, 2.225073858507201e-308, 1e-320, 4.9406564584124654e-324,
        float(2 ** 52), float(2 ** 53), float(2 ** 53 + 2), float(2 ** 63), float(2 ** 64),
        float(2 ** 100), 2.0 ** -1, 2.0 ** -20, 2.0 ** -1074, 2.0 ** 1023,
        0.7, 0.07, 0.007, 0.0007, 0.00007, 7e-5, 1234.5678, 1234567890.123, 0.000123456789,
        123456789012345.6, 1234567890123456.7, 12345678901234567.0, 3.14e-5, 2.5e-5,
    ]
    out = list(edge)
    for e in range(-30, 31):
        x = float(f"1e{e}")
        out += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]
        y = float(f"9.5e{e}")
        out += [y, -y]
    for _ in range(300):
        # Random bit patterns, finite only.
        while True:
            x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if math.isfinite(x):
                break
        out.append(x)
    for _ in range(150):
        out.append(round(rng.uniform(-1e6, 1e6), rng.randint(0, 8)))
    for _ in range(100):
        out.append(rng.uniform(0, 1) * 10.0 ** rng.randint(-8, 20))
    for _ in range(50):
        out.append(float(rng.randint(-(2 ** 60), 2 ** 60)))
    return out


def rand_char(rng):
    kind = rng.random()
    if kind < 0.35:
        return rng.choice("ab 'Z\"\\'\"\\")
    if kind < 0.45:
        return chr(rng.randint(0, 0x7F))
    if kind < 0.55:
        return chr(rng.randint(0x80, 0xFF))
    if kind < 0.85:
        while True:
            cp = rng.randint(0x100, 0xFFFF)
            if not 0xD800 <= cp <= 0xDFFF:
                return chr(cp)
    return chr(rng.randint(0x10000, 0x10FFFF))


def string_values(rng):
    fixed = [
        "", "a", "'", '"', "'\"", "It's", 'say "hi"', "It's \"quoted\"", "\\", "back\\slash'",
        "both ' and \" and \\", "\n", "\r\n", "\t", "a\nb\rc\td", "\x00\x01\x1f\x7f",
        "\x80\x85\x9f\xa0\xad\xff", "\u200b", "\u200e\u200f", "\ufeff", "\u2028", "\u2029",
        "\u3000", "\u00a0", "\u1680", "\u2000\u200a", "\u202f\u205f", "\u061c", "\u180e",
        "e\u0301", "a\u0308\u0323", "\U0001F600", "\U0001F44D\U0001F3FD",
        "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\u4e2d\u6587 \u65e5\u672c\u8a9e \ud55c\uad6d\uc5b4",
        "\u05e2\u05d1\u05e8\u05d9\u05ea \u0627\u0644\u0639\u0631\u0628\u064a\u0629",
        "\ue000", "\uf8ff", "\U000F0000", "\U0010FFFD", "\u0378", "\U0010FFFF", "\U000E0080",
        "\ufffe\uffff", "\ufffd", "\U000E0001", "\U000E0020\U000E007F", "\u2066\u2069",
        "\u00e9t\u00e9", "caf\u00e9 na\u00efve", "{{ query }}", "<b>&amp;</b>", "user:\n",
        "tab\there", "\x1b[31mred\x1b[0m", "\x0b\x0c", "\u0600\u0605", "\u070f", "\u08e2",
        "\U000110BD", "\U0001d173", "\U0001bca0", "\u2e2f", "\u3164", "\uffa0",
    ]
    out = list(fixed)
    for _ in range(400):
        out.append("".join(rand_char(rng) for _ in range(rng.randint(1, 12))))
    # Both sides of every printable/non-printable boundary.
    for a, b in nonprintable_ranges():
        for cp in (a - 1, a, b, b + 1):
            if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
                out.append(chr(cp))
    return out


def nested_values(rng):
    vals = [
        [], {}, [[]], [{}], {"a": {}}, {"a": []},
        [1, 2], [1, "a"], {"a": None}, {"a": 1, "b": [1, 2]},
        {"b": 1, "a": 2, "c": 3},
        [None, True, False, 0, -1, 1.0, -0.0, 1e-05, 1e16, "x"],
        {"role": "user", "content": "It's \"quoted\"", "n": None, "ok": True},
        [{"role": "user", "content": "It's \"quoted\"", "n": None, "ok": True}],
        {"it's": 1, 'say "x"': 2, "both'\"": 3, "": 4, "\n": 5},
        [[[[[["deep"]]]]]],
        {"a": {"b": {"c": {"d": [1, {"e": None}]}}}},
        [
            {"role": "system", "content": "You are a helper."},
            {"role": "user", "content": [{"type": "text", "text": "Hi, I'm Bob.\nHelp?"}]},
            {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "call_1",
                                               "name": "f", "arguments": {"x": 1.5, "y": [True, None]}}]},
            {"role": "tool", "tool_call_id": "call_1",
             "content": [{"type": "tool_result", "tool_result": {"ok": False, "v": "\u00e9\u4e2d\U0001F600"}}]},
        ],
        [0, 1, -1, 2 ** 31, -(2 ** 31), 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1],
        {"k\u200b": "\u200b", "\u3000": ["\u2028"]},
        ["\x00", "\\", "'", '"', "\"'"],
    ]
    scalars = [None, True, False, 0, 7, -12, 2 ** 40, 0.5, 1e-7, 2.5e20, "s", "it's", 'q"', "\u00a0", "\n"]

    def build(depth):
        r = rng.random()
        if depth > 3 or r < 0.4:
            return rng.choice(scalars)
        if r < 0.7:
            return [build(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(["a", "b", "it's", "k", "\u00e9", "x y", "1"]) + str(i): build(depth + 1)
                for i in range(rng.randint(0, 4))}

    for _ in range(60):
        vals.append(build(0))
    return vals


def main():
    if "--table" in sys.argv:
        print_table()
        return
    rng = random.Random(SEED)
    floats = float_values(rng)
    strings = string_values(rng)
    nested = nested_values(rng)

    cases = []
    for v in [None, True, False, 0, 1, -1, 42, 2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1]:
        cases.append([v, str(v)])
    for x in floats[:120]:
        cases.append([x, str(x)])
    for s in strings[:20]:
        cases.append([s, str(s)])
    # Inside a list a string is shown by its repr.
    for s in strings:
        cases.append([[s], str([s])])
    for s in strings[:40]:
        cases.append([{s: s}, str({s: s})])
    for v in nested:
        cases.append([v, str(v)])

    cases = [[tag_floats(v), want] for v, want in cases]
    float_cases = [[bits(x), repr(x)] for x in floats]

    ints = [0, 2 ** 64, -(2 ** 63) - 1, 2 ** 127 - 1, -(2 ** 127), 2 ** 128 - 1, 10 ** 30, -(10 ** 30)]
    for _ in range(40):
        ints.append(rng.randint(-(2 ** 127), 2 ** 127 - 1))
    for _ in range(20):
        ints.append(rng.randint(2 ** 127, 2 ** 128 - 1))
    int_cases = [[str(n), str(n)] for n in ints]

    byte_values = [b"", b"abc", b"'", b'"', b"'\"", b"it's", b"\\", b"\x00\x7f\x80\xff", b"\t\n\r\x0b\x0c",
                   bytes(range(256))]
    for _ in range(30):
        byte_values.append(bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 10))))
    byte_cases = [[list(b), repr(b)] for b in byte_values]

    data = {
        "generator": "gen.py",
        "python": sys.version.split()[0],
        "unicode": unicodedata.unidata_version,
        "cases": cases,
        "floats": float_cases,
        "ints": int_cases,
        "bytes": byte_cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w", encoding="ascii") as f:
        f.write("{\n")
        keys = list(data)
        for ki, k in enumerate(keys):
            v = data[k]
            f.write(f" {json.dumps(k)}: ")
            if isinstance(v, list):
                f.write("[\n")
                for i, item in enumerate(v):
                    f.write("  " + json.dumps(item, ensure_ascii=True, allow_nan=False))
                    f.write(",\n" if i + 1 < len(v) else "\n")
                f.write(" ]")
            else:
                f.write(json.dumps(v))
            f.write(",\n" if ki + 1 < len(keys) else "\n")
        f.write("}\n")
    print(f"wrote {path}: {len(cases)} cases, {len(float_cases)} floats, "
          f"{len(int_cases)} ints, {len(byte_cases)} bytes")


if __name__ == "__main__":
    main()
