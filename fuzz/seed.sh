#!/usr/bin/env bash
# Copies seeds from ../shared/conformance and ../shared/bench into corpus/<target>/ at run
# time (the corpora are not committed). Needs jq.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="${SHARED:-$here/../../shared}"
conf="$shared/conformance"
[ -d "$conf" ] || { echo "error: $conf is missing" >&2; exit 1; }
for t in load render mustache extract; do mkdir -p "$here/corpus/$t"; done

# load and render: every .prompty file, and the render vectors' templates with their inputs.
i=0
while IFS= read -r -d '' f; do
  cp "$f" "$here/corpus/load/file_$i.prompty"
  cp "$f" "$here/corpus/render/file_$i.prompty"
  i=$((i + 1))
done < <(find "$conf" "$shared/bench" -name '*.prompty' -print0)
n=$(jq length "$conf/prompty-spec/vectors/render.json")
for ((k = 0; k < n; k++)); do
  jq -j ".[$k] | \"---\nname: v\ntemplate: {format: \" + (.input.engine // \"jinja2\") + \", parser: prompty}\n---\n\" + (.input.template // \"\")" \
    "$conf/prompty-spec/vectors/render.json" > "$here/corpus/render/vector_$k"
  printf '\0' >> "$here/corpus/render/vector_$k"
  jq -c ".[$k].input.inputs // {}" "$conf/prompty-spec/vectors/render.json" | tr -d '\n' >> "$here/corpus/render/vector_$k"
done
n=$(jq length "$conf/prompty-spec/vectors/parse.json")
for ((k = 0; k < n; k++)); do
  jq -j ".[$k].input | if type == \"object\" then (.text // .rendered // tostring) else tostring end" \
    "$conf/prompty-spec/vectors/parse.json" > "$here/corpus/render/parse_$k"
done

# mustache: every spec test's template, a NUL, and its data.
for spec in "$conf"/mustache-spec/specs/*.json; do
  base="$(basename "$spec" .json)"
  n=$(jq '.tests | length' "$spec")
  for ((k = 0; k < n; k++)); do
    out="$here/corpus/mustache/${base}_$k"
    jq -j ".tests[$k].template" "$spec" > "$out"
    printf '\0' >> "$out"
    jq -c ".tests[$k].data" "$spec" | tr -d '\n' >> "$out"
  done
done

# extract: the canned judge answers of the azure-eval pipeline cases.
k=0
for f in "$conf"/azure-eval/pipeline/*.json; do
  while IFS= read -r -d '' answer; do
    printf '%s' "$answer" > "$here/corpus/extract/answer_$k"
    k=$((k + 1))
  done < <(jq -j '.canned_llm_outputs[]? | (if type == "string" then . else tojson end) + "\u0000"' "$f")
done
for t in load render mustache extract; do
  echo "$t: $(find "$here/corpus/$t" -type f | wc -l) seeds"
done
