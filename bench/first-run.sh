#!/usr/bin/env bash
# A newcomer's first green run, timed: a fresh clone of this repository built from nothing
# (a target folder of its own; the crate registry's downloads are kept, as a machine that
# has fetched the dependencies once would), then the README's two commands, then the
# release build that `cargo install` makes. Prints one line per step with its wall time.
# Takes about half an hour on a 2-core machine; run it on a quiet machine.
#
#   bench/first-run.sh            # clones HEAD of the repository this script is in
#   bench/first-run.sh COMMIT     # clones that commit
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
commit="${1:-HEAD}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The clone sits beside a link to the conformance suites, as the README's layout wants.
git clone -q "$root" "$work/main"
git -C "$work/main" checkout -q "$(git -C "$root" rev-parse "$commit")"
ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"
cd "$work/main"
unset CARGO_TARGET_DIR
export CARGO_INCREMENTAL=0
echo "## first run of $(git rev-parse --short HEAD) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
step() { # NAME COMMAND...
  local name="$1"; shift
  local started=$SECONDS
  if "$@" >"$work/$name.log" 2>&1; then
    echo "$name: $((SECONDS - started)) s"
  else
    echo "$name: FAILED after $((SECONDS - started)) s (last lines below)"
    tail -5 "$work/$name.log"
  fi
}
step "fetch" cargo fetch --locked
step "main command (build + check + snapshot)" sh -c \
  'cargo run --locked --bin prompty -- check prompts && cargo run --locked --bin prompty -- snapshot --check prompts'
step "test command" cargo test --workspace --locked
step "install (release build)" cargo install --locked --path crates/prompty-cli --root "$work/install"
echo "target folder: $(du -sh target | cut -f1)"
