#!/usr/bin/env bash
# Regenerates docs/report.png, the screenshot the README shows: the two example runs of
# docs/example/ compared by `prompty report`, rendered by headless Chromium (Debian's
# `chromium`). Run from anywhere: bash docs/report-screenshot.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo build --quiet --locked --bin prompty
prompty="$root/target/debug/prompty"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
for run in before after; do
  # Exit 1 means a row failed its threshold: expected in these runs.
  "$prompty" eval "$root/prompts/coherence.prompty" --data "$root/docs/example/rows.jsonl" \
    --answers "$root/docs/example/answers-$run.jsonl" --output "$run.jsonl" 2>/dev/null || [ $? -eq 1 ]
done
"$prompty" report before.jsonl after.jsonl --data "$root/docs/example/rows.jsonl" -o report.html
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1500 \
  --screenshot="$root/docs/report.png" "file://$work/report.html" 2>/dev/null
echo "wrote docs/report.png"
