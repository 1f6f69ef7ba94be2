#!/usr/bin/env bash
# Compare the benchmark at two git revisions, side by side in one session.
#
#   bash benches/ab.sh REV_A REV_B [ROUNDS]      (default 9 rounds; REV may be HEAD, a tag…)
#   THREADS=2 bash benches/ab.sh REV_A REV_B     (two threads per run; revisions older than
#                                                 `threads` ignore it and run on one)
#
# Each revision's `bench` example is built in its own worktree under $TMPDIR, then the two
# binaries run alternately (A, B, A, B, …; each run a fresh process, both scenarios), so slow
# spells of a shared machine hit both alike. Prints median, min and max wall time per
# revision and scenario, and the B/A ratio of medians. Wall times on a shared machine vary
# by ±30 % from minute to minute: compare revisions only within one run of this script.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bash benches/ab.sh REV_A REV_B [ROUNDS]" >&2; exit 2; }
rounds=${3:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/ccsim-ab.XXXXXX")
trap 'git worktree remove --force "$work/a" 2>/dev/null || true; git worktree remove --force "$work/b" 2>/dev/null || true; rm -rf "$work"' EXIT

build() { # rev dir
  git worktree add -q --detach "$work/$2" "$1"
  (cd "$work/$2" && CARGO_TARGET_DIR="$work/target-$2" cargo build -q --release -p ccsim-core --example bench)
  cp "$work/target-$2/release/examples/bench" "$work/bench-$2"
}
echo "building $1 and $2 …" >&2
build "$1" a
build "$2" b

for _ in $(seq "$rounds"); do
  for side in a b; do
    for s in dumbbell-16 dumbbell-64-1g; do
      echo "$side $s $("$work/bench-$side" --child "$s" --threads "${THREADS:-1}" | cut -d' ' -f1)"
    done
  done
done > "$work/times"
python3 - "$1" "$2" "$work/times" <<'PY'
import statistics as st, sys
a, b, path = sys.argv[1:4]
runs = {}
for line in open(path):
    side, scen, t = line.split()
    runs.setdefault((scen, side), []).append(float(t))
print(f"{'scenario':<16}{'revision':<14}{'median s':>10}{'min s':>9}{'max s':>9}")
for scen in ("dumbbell-16", "dumbbell-64-1g"):
    med = {}
    for side, rev in (("a", a), ("b", b)):
        v = runs[(scen, side)]
        med[side] = st.median(v)
        print(f"{scen:<16}{rev[:12]:<14}{med[side]:>10.4f}{min(v):>9.4f}{max(v):>9.4f}")
    print(f"{scen:<16}{'B / A':<14}{med['b'] / med['a']:>10.3f}")
PY
