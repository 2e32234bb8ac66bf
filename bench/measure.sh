#!/usr/bin/env bash
# Every measurement of docs/performance.md, in one run. Needs hyperfine, GNU time and
# valgrind (`apt-get install -y hyperfine time valgrind`). Run from anywhere; results go to
# stdout. `QUICK=1` shortens every timed section (for a smoke run, not for the figures);
# `FIRST_RUN=1` adds the fresh-clone timing of bench/first-run.sh (about half an hour).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
shared="${SHARED:-$root/../shared}"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target"
# Line tables for callgrind; the code generated is the same.
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
# The spec fixture reads ${env:OPENAI_API_KEY}.
export OPENAI_API_KEY="${OPENAI_API_KEY:-sk-bench}"
[ -f "$shared/bench/inputs.json" ] || { echo "error: $shared/bench is missing" >&2; exit 1; }
for tool in hyperfine valgrind /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing (apt-get install -y hyperfine time valgrind)" >&2; exit 1; }
done
quick="${QUICK:-}"
rounds=5; ms=300; runs=10; lsp_time=20
if [ -n "$quick" ]; then rounds=1; ms=50; runs=2; lsp_time=2; fi

echo "## machine"
echo "nproc: $(nproc)"
grep -m1 'model name' /proc/cpuinfo || true
rustc --version
echo "load at start: $(uptime)"

(cd "$root" && cargo build --release -p prompty-cli -p prompty-syntax -p prompty-render -p prompty-lsp \
  --example load_loop --example prepare_loop --example analysis_loop --bin prompty)
(cd "$here" && cargo build --release --bins)
bin="$target/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "## side by side (in-process; ratios to the official crate and to bare minijinja)"
(cd "$here" && "$bin/prompty-bench" --rounds "$rounds" --ms "$ms" "$@")

# Instructions per call: a run with N calls minus a run with none, over N (exact and
# independent of the machine's load).
instructions() { # N COMMAND...
  local n="$1"; shift
  local with without
  with=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" "$n" 2>&1 | sed -n 's/.*Collected : //p')
  without=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 0 2>&1 | sed -n 's/.*Collected : //p')
  echo $(( (with - without) / n ))
}
echo "## instructions per call (callgrind)"
for w in basic judge_v2; do
  file="$("$bin/extract-inputs" "$w" "$work/$w.json")"
  echo "$w load: $(instructions 200 "$bin/examples/load_loop" "$file")"
  echo "$w load+prepare: $(instructions 200 "$bin/examples/prepare_loop" --load "$file" "$work/$w.json")"
  echo "$w prepare: $(instructions 200 "$bin/examples/prepare_loop" "$file" "$work/$w.json")"
  echo "$w bare minijinja render+split: $(instructions 200 "$bin/examples/prepare_loop" --bare "$file" "$work/$w.json")"
  echo "$w bare minijinja compile+render+split: $(instructions 200 "$bin/examples/prepare_loop" --bare-compile "$file" "$work/$w.json")"
done
echo "1 MB document, language server analysis after a one-character edit: $(instructions 3 "$bin/examples/analysis_loop")"

echo "## prompty check over 10,000 generated prompts (I/O floor: cat of the same files)"
"$bin/prompty-bench" gen-prompts "$work/many" 10000 >/dev/null
du -sh "$work/many"
cores="$(nproc)"
all="0-$((cores - 1))"
hyperfine -N --warmup 1 --runs "$runs" -i \
  -n "check, $cores cores" "taskset -c $all $bin/prompty check -q --format concise $work/many" \
  -n "check, 1 core" "taskset -c 0 $bin/prompty check -q --format concise $work/many" \
  -n "cat (I/O floor)" "sh -c 'cat $work/many/*.prompty > /dev/null'"
/usr/bin/time -f "check, $cores cores: %e s wall, %U s user, %S s system, %M KB max RSS" \
  "$bin/prompty" check -q --format concise "$work/many" >/dev/null || true

echo "## language server: 1 MB document (analysis, load, edit to diagnostics)"
(cd "$root" && cargo bench -p prompty-lsp --bench diagnostics -- --measurement-time "$lsp_time")
echo "## check on the same 1 MB document"
"$bin/examples/analysis_loop" --write "$work/big.prompty"
hyperfine -N --warmup 2 --runs "$runs" -i "$bin/prompty check -q --format concise $work/big.prompty"

echo "## token counting: this crate's tokenizer against tiktoken-rs (first use, the corpus)"
(cd "$root" && cargo bench -p prompty-tokens --bench tokenizers -- --warm-up-time 1 --measurement-time "$lsp_time")

echo "## cold process: render judge_v2 and basic"
for w in judge_v2 basic; do
  file="$("$bin/extract-inputs" "$w" "$work/$w.json")"
  hyperfine -N --warmup 20 --runs $((runs * 30)) \
    -n "prompty render ($w)" "$bin/prompty render $file --inputs $work/$w.json" \
    -n "official crate ($w)" "$bin/official-render $file $work/$w.json"
done

echo "## peak memory (max RSS, KB), judge_v2"
file="$("$bin/extract-inputs" judge_v2 "$work/j.json")"
for cmd in "$bin/prompty render $file --inputs $work/j.json" "$bin/official-render $file $work/j.json"; do
  /usr/bin/time -v $cmd 2>&1 >/dev/null | grep -E 'Maximum resident' | sed "s|^|$(basename "${cmd%% *}"): |"
done
echo "load at end: $(uptime)"

# A newcomer's first green run (fresh clone, empty target folder; about half an hour).
if [ -n "${FIRST_RUN:-}" ]; then
  echo "## first green run from a fresh clone"
  "$here/first-run.sh"
fi
