#!/usr/bin/env node
// Random Handlebars templates and what handlebars.js renders from them: the golden data of
// `tests/hbs_diff.rs`.
//
//     npm ci                          # once, in this folder: handlebars 4.7.8 (package-lock.json)
//     node generate.js                # rewrite golden.jsonl next to this script
//     node generate.js --stats        # also print counts per tag and the reference's errors
//     node generate.js --seed 7 --out /tmp/fresh.jsonl
//                                     # a fresh sample, to measure agreement on templates no
//                                     # fix was made for (HBS_DIFF_GOLDEN=/tmp/fresh.jsonl
//                                     # cargo test -p prompty-render --test hbs_diff)
//
// The reference is handlebars.js compiled with `noEscape: true` (a `format: handlebars` body
// has escaping off) and one helper registered, `raw`, which returns its block unchanged:
// handlebars.js parses `{{{{raw}}}}...{{{{/raw}}}}` but has no such helper built in, and
// that is the helper its users register for raw blocks.
//
// Inputs are JSON with floats written as their own text (`1.0`, `-0.0`, `1e21`), which
// JavaScript would print as `1`, `0` and `1e+21`: our renderer reads that text, handlebars.js
// the number it stands for.
//
// Each line of golden.jsonl after the first (a header) is one case:
//
//   {"n": <index>, "id": "<sha1 prefix of template+inputs>", "tag": "<focus>",
//    "template": "...", "inputs": {...}, "want": {"out": "..."} | {"error": "<message>"}}

"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const Handlebars = require("handlebars");

const SEED = 20250301;
const COUNT = 2000;
const OUT = path.join(__dirname, "golden.jsonl");

function reference() {
  const hb = Handlebars.create();
  hb.registerHelper("raw", (options) => options.fn());
  return hb;
}
const HB = reference();

function render(template, inputs) {
  try {
    return { out: HB.compile(template, { noEscape: true })(inputs) };
  } catch (e) {
    return { error: String(e.message).split("\n")[0] };
  }
}

// ---------------------------------------------------------------------------------------------
// values

// mulberry32: small, seedable, the same on every platform.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

// A float with the text our renderer reads (JSON keeps `1.0`; JavaScript does not).
class Float {
  constructor(text) {
    this.text = text;
    this.value = Number(text);
  }
}

const STRINGS = ["hi", "", "a b", "x\ny", "<b>&amp;\"q\"'", "0", "false", "Zoë", "  pad  ", "abc"];
const FLOATS = ["1.0", "-0.0", "1e21", "2.5", "0.1", "1e-7", "3.14159", "-1.5", "100.0", "1.5e300"];
const INTS = [0, 1, -3, 42, 1000000, 9007199254740991];
const KEYS = ["a", "b", "k", "n", "name", "x"];

function scalar(r) {
  switch (r.int(6)) {
    case 0:
      return r.pick(STRINGS);
    case 1:
      return r.pick(INTS);
    case 2:
      return new Float(r.pick(FLOATS));
    case 3:
      return r.chance(0.5);
    case 4:
      return null;
    default:
      return r.pick(STRINGS);
  }
}

function value(r, depth) {
  const k = depth > 2 ? 0 : r.int(10);
  if (k < 5) return scalar(r);
  if (k < 7) {
    const n = r.int(4);
    return Array.from({ length: n }, () => value(r, depth + 1));
  }
  const n = r.int(4);
  const o = {};
  for (let i = 0; i < n; i++) o[r.pick(KEYS)] = value(r, depth + 1);
  return o;
}

// The inputs of every case: each name with a value of its usual kind most of the time.
function inputs(r) {
  const kind = (usual) => (r.chance(0.8) ? usual() : value(r, 1));
  const obj = () => {
    const o = {};
    for (const key of KEYS.slice(0, 1 + r.int(4))) o[key] = value(r, 2);
    return o;
  };
  return {
    s: kind(() => r.pick(STRINGS)),
    n: kind(() => r.pick(INTS)),
    f: kind(() => new Float(r.pick(FLOATS))),
    b: kind(() => r.chance(0.5)),
    z: null,
    l: kind(() => Array.from({ length: r.int(4) }, () => scalar(r))),
    o: kind(obj),
    e: r.chance(0.8) ? {} : [],
    lo: kind(() => Array.from({ length: r.int(4) }, () => ({ name: r.pick(STRINGS), n: r.pick(INTS) }))),
    no: { a: { b: kind(() => r.pick(STRINGS)), l: [1, 2] }, k: r.pick(STRINGS) },
  };
}

// The value handlebars.js renders from (floats as numbers).
function plain(v) {
  if (v instanceof Float) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}

// JSON text with floats as written.
function json(v) {
  if (v instanceof Float) return v.text;
  if (Array.isArray(v)) return "[" + v.map(json).join(", ") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ": " + json(x)).join(", ") + "}";
  }
  return JSON.stringify(v);
}

// ---------------------------------------------------------------------------------------------
// templates

const NAMES = ["s", "n", "f", "b", "z", "l", "o", "e", "lo", "no", "missing"];
const PATHS = [
  "s", "n", "f", "b", "z", "l", "o", "e", "lo", "no", "o.a", "o.k", "no.a.b", "no.a.l", "no.k",
  "l.[0]", "l.[1]", "l.[2]", "l.x", "l.length", "s.length", "s.[0]", "lo.[0].name", "lo.length",
  "o.missing", "missing.x", "this.s", "this.o.a", ".", "this", "@root.s", "@root.o.a", "@root", "e.a",
  "n.x", "z.a", "o.[a]", "no.[a].[b]",
];
const INNER = ["this", ".", "name", "n", "a", "k", "../s", "../n", "@root.s", "../o.a", "this.name", "length", "../l.length"];
const TEXT = ["", " ", "-", "\n", " | ", "\n  ", "x", ",", "\n\n"];

function out(r, paths) {
  const p = r.pick(paths);
  switch (r.int(8)) {
    case 0:
      return `{{{${p}}}}`;
    case 1:
      return `{{ ${p} }}`;
    case 2:
      return `{{~${p}~}}`;
    default:
      return `{{${p}}}`;
  }
}

function lookup(r) {
  const target = r.pick([".", "this", "o", "l", "s", "no.a", "lo", "e", "@root", "missing"]);
  const key = r.pick([`"s"`, `"a"`, `"k"`, `"n"`, "0", "1", `"length"`, `"0"`, `"missing"`, "n"]);
  return r.chance(0.8) ? `{{lookup ${target} ${key}}}` : `{{#with (lookup ${target} ${key})}}[{{this}}]{{else}}none{{/with}}`;
}

function cond(r) {
  return r.pick([...NAMES, "o.a", "l.length", "l.[0]", "@root.b", "no.a", "this", "."]);
}

function eachBody(r, depth) {
  const parts = [];
  const n = 1 + r.int(3);
  for (let i = 0; i < n; i++) {
    switch (r.int(9)) {
      case 0:
        parts.push("{{@index}}");
        break;
      case 1:
        parts.push("{{@key}}");
        break;
      case 2:
        parts.push(`{{#if @first}}F{{/if}}`);
        break;
      case 3:
        parts.push(`{{#if @last}}L{{else}},{{/if}}`);
        break;
      case 4:
        parts.push(`{{#unless @first}}/{{/unless}}`);
        break;
      case 5:
        if (depth < 2) {
          parts.push(block(r, depth + 1));
          break;
        }
      // falls through
      default:
        parts.push(out(r, INNER));
    }
    parts.push(r.pick(TEXT));
  }
  return parts.join("");
}

function block(r, depth) {
  const body = () => (depth < 2 && r.chance(0.3) ? fragment(r, depth + 1) : out(r, r.chance(0.5) ? INNER : PATHS));
  const t = (x) => (r.chance(0.3) ? `~${x}~` : x);
  switch (r.int(12)) {
    case 0: {
      const c = cond(r);
      const els = r.chance(0.5) ? `{{else}}${body()}` : "";
      return `{{#if ${c}}}${body()}${els}{{/if}}`;
    }
    case 1: {
      return `{{#if ${cond(r)}}}${body()}{{else if ${cond(r)}}}${body()}{{else}}${body()}{{/if}}`;
    }
    case 2:
      return `{{#unless ${cond(r)}}}${body()}${r.chance(0.4) ? `{{else}}${body()}` : ""}{{/unless}}`;
    case 3:
    case 4: {
      const target = r.pick(["l", "o", "lo", "e", "s", "no", "no.a", "z", "missing", "n", "b", "@root", "no.a.l"]);
      const els = r.chance(0.3) ? `{{else}}empty` : "";
      return `{{#each ${target}}}${eachBody(r, depth)}${els}{{/each}}`;
    }
    case 5: {
      const target = r.pick(["l", "o", "lo", "e", "no"]);
      const inner = r.pick(["{{i}}={{v}}", "{{v.name}}{{i}}", "{{@index}}{{v}};", "{{i}}:{{#if v}}{{v}}{{else}}-{{/if}} "]);
      return `{{#each ${target} as |v i|}}${inner}{{/each}}`;
    }
    case 6:
    case 7: {
      const target = r.pick(["o", "no", "no.a", "e", "l", "s", "z", "missing", "lo.[0]", "n"]);
      const els = r.chance(0.4) ? `{{else}}${body()}` : "";
      return `{{#with ${target}}}${eachBody(r, depth)}${els}{{/with}}`;
    }
    case 8:
      return `{{#if ${cond(r)}}}${r.pick(["{{../s}}", "{{../o.a}}", "{{this.s}}", "{{@root.n}}"])}{{/if}}`;
    case 9:
      return `{{#with ${r.pick(["o", "no"])}}}{{#if ${r.pick(["a", "k", "b"])}}}{{../s}}{{else}}{{../../n}}{{/if}}{{/with}}`;
    case 10:
      return `{{#with ${r.pick(["o", "e", "no"])} as |w|}}${r.pick(["{{w.a}}", "{{w}}", "{{w.k}}{{../s}}"])}{{/with}}`;
    default:
      return `{{${t("#each lo")}}}{{name}}${r.pick(["{{../s}}", "{{@root.n}}", "{{@index}}"])}{{${t("/each")}}}`;
  }
}

function fragment(r, depth) {
  switch (r.int(16)) {
    case 0:
    case 1:
    case 2:
      return out(r, PATHS);
    case 3:
      return lookup(r);
    case 4:
    case 5:
    case 6:
    case 7:
      return block(r, depth);
    case 8:
      return r.pick(["{{! a comment }}", "{{!-- a {{x}} comment --}}", "{{~! c ~}}", "  {{~!-- c --~}}  ", "{{!}}", "\n{{! line }}\n"]);
    case 9:
      return r.pick([
        "{{{{raw}}}} {{s}} {{{{/raw}}}}",
        "{{{{raw}}}}\n  {{#if b}}x{{/if}}\n{{{{/raw}}}}",
        "{{{{raw}}}}{{{s}}}{{{{/raw}}}}",
        "  {{{{raw}}}}  lead{{{{/raw}}}}",
      ]);
    case 10:
      return r.pick([
        `{{#*inline "p"}}[{{s}}]{{/inline}}{{> p}}`,
        `{{#*inline "p"}}<{{a}}>{{/inline}}{{> p o}}`,
        `{{#*inline "p"}}{{this}}{{/inline}}{{#each l}}{{> p}}{{/each}}`,
        `{{#*inline "p"}}{{x}}{{/inline}}{{> p x=s}}`,
        `{{> missing_partial}}`,
      ]);
    case 11:
      return r.pick(["  {{~s}}  ", "  {{s~}}  ", "\n{{~#if b~}}\n yes \n{{~else~}}\n no \n{{~/if~}}\n", "a  {{~ n ~}}  b", "{{#if b}}\n  x\n{{/if}}\n"]);
    case 12:
      return r.pick(["{{\"lit\"}}", "{{12}}", "{{true}}", "{{null}}", "{{undefined}}", "{{lookup o \"a\"}}", "{{[s]}}", "{{l.0}}"]);
    default:
      return r.pick(TEXT) + out(r, PATHS);
  }
}

// The focus of a fragment, for the trial's name.
function tagOf(f) {
  const rules = [
    [/\{\{\{\{raw/, "raw"], [/#\*inline|\{\{>/, "partial"], [/lookup/, "lookup"], [/\{\{~?!/, "comment"],
    [/#each[^}]* as \|/, "each-as"], [/#each/, "each"], [/#with/, "with"], [/else if/, "else-if"], [/#if/, "if"],
    [/#unless/, "unless"], [/\{\{\{/, "triple"], [/\{\{["0-9]|\{\{(true|null|undefined)\}/, "literal"],
    [/~/, "whitespace"], [/@root/, "root"], [/\{\{\s*(\.|this)\s*\}\}/, "this"], [/\.length/, "length"],
    [/\.\[|\.[0-9]/, "index"], [/\./, "dotted"],
  ];
  for (const [re, tag] of rules) if (re.test(f)) return tag;
  return "path";
}

function makeCase(r) {
  const pieces = [];
  const n = 1 + r.int(4);
  let tag = null;
  for (let i = 0; i < n; i++) {
    const f = fragment(r, 0);
    tag = tag || tagOf(f);
    pieces.push(f);
    pieces.push(r.pick(TEXT));
  }
  return { tag, template: pieces.join(""), inputs: inputs(r) };
}

// ---------------------------------------------------------------------------------------------

function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const seed = Number(opt("--seed", SEED));
  const count = Number(opt("--count", COUNT));
  const outPath = opt("--out", OUT);
  const r = rng(seed);
  const seen = new Set();
  const lines = [];
  while (lines.length < count) {
    const c = makeCase(r);
    const inputsText = json(c.inputs);
    const id = crypto.createHash("sha1").update(c.template + "\0" + inputsText).digest("hex").slice(0, 12);
    if (seen.has(id)) continue;
    seen.add(id);
    const want = render(c.template, plain(c.inputs));
    const head = JSON.stringify({ n: lines.length, id, tag: c.tag, template: c.template });
    lines.push(head.slice(0, -1) + `, "inputs": ${inputsText}, "want": ${JSON.stringify(want)}}`);
  }
  const header = { generator: "generate.js", seed, count: lines.length, handlebars: Handlebars.VERSION, node: process.version };
  fs.writeFileSync(outPath, [JSON.stringify(header), ...lines].join("\n") + "\n");
  console.log(`wrote ${lines.length} templates to ${path.relative(process.cwd(), outPath)}`);
  if (args.includes("--stats")) {
    const tags = {};
    const errors = {};
    for (const l of lines) {
      const c = JSON.parse(l);
      tags[c.tag] = (tags[c.tag] || 0) + 1;
      if (c.want.error) errors[c.want.error.slice(0, 60)] = (errors[c.want.error.slice(0, 60)] || 0) + 1;
    }
    console.log("tags:", tags);
    console.log("errors:", errors);
  }
}

main();
