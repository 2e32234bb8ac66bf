#!/usr/bin/env bash
# Every measurement of docs/performance.md, in one run. Needs hyperfine and GNU time
# (`apt-get install -y hyperfine time`). Run from anywhere; results go to stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
shared="${SHARED:-$root/../shared}"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target"
# The spec fixture reads ${env:OPENAI_API_KEY}.
export OPENAI_API_KEY="${OPENAI_API_KEY:-sk-bench}"
[ -f "$shared/bench/inputs.json" ] || { echo "error: $shared/bench is missing" >&2; exit 1; }

echo "## machine"
echo "nproc: $(nproc)"
grep -m1 'model name' /proc/cpuinfo || true
rustc --version

(cd "$root" && cargo build --release -p prompty-cli)
(cd "$here" && cargo build --release --bins)
bin="$target/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "## side by side (in-process)"
(cd "$here" && "$bin/prompty-bench" "$@")

echo "## prompty check over 1,000 generated prompts"
"$bin/prompty-bench" gen-prompts "$work/many" 1000 >/dev/null
hyperfine -N --warmup 3 --runs 20 -i "$bin/prompty check $work/many"

echo "## cold process: render judge_v2 and basic"
for w in judge_v2 basic; do
  file="$("$bin/extract-inputs" "$w" "$work/$w.json")"
  hyperfine -N --warmup 20 --runs 300 \
    -n "prompty render ($w)" "$bin/prompty render $file --inputs $work/$w.json" \
    -n "official crate ($w)" "$bin/official-render $file $work/$w.json"
done

echo "## peak memory (max RSS, KB), judge_v2"
file="$("$bin/extract-inputs" judge_v2 "$work/j.json")"
for cmd in "$bin/prompty render $file --inputs $work/j.json" "$bin/official-render $file $work/j.json"; do
  /usr/bin/time -v $cmd 2>&1 >/dev/null | grep -E 'Maximum resident' | sed "s|^|$(basename "${cmd%% *}"): |"
done
