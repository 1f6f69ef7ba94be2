#!/usr/bin/env bash
# Profile-guided build (PGO) of the simulation core, trained on the example scenarios.
#
#   bash benches/pgo.sh [BENCH ARGS]   build the `bench` example with PGO and run it
#                                      (e.g. `--repeat 5 --threads 2`)
#   bash benches/pgo.sh --install      rebuild the Python package with PGO (pip install .)
#
# 1. Build an instrumented `bench` (rustc -Cprofile-generate).
# 2. Train it: run every scenario in scenarios/*.toml to its end, on one thread and on two
#    (`bench --train`). The two benchmark scenarios are *not* part of the training, so
#    the profile is that of the example workload, not fitted to the benchmark.
# 3. Merge the raw profiles with llvm-profdata (rustup's llvm-tools component, added if
#    missing) and build again with -Cprofile-use.
# Results are identical to a plain release build (the profile only steers inlining and
# code layout); docs/performance.md gives the gain.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "adding rustup's llvm-tools component (for llvm-profdata) …" >&2
  rustup component add llvm-tools
fi

work="$PWD/target/pgo"
rm -rf "$work/profiles"
mkdir -p "$work/profiles"
echo "building the instrumented core …" >&2
RUSTFLAGS="-Cprofile-generate=$work/profiles" \
  cargo build -q --release -p ccsim-core --example bench --target-dir "$work/gen"
echo "training on scenarios/*.toml …" >&2
"$work/gen/release/examples/bench" --train scenarios/*.toml >&2
"$profdata" merge -o "$work/ccsim.profdata" "$work/profiles"
use="-Cprofile-use=$work/ccsim.profdata"

if [ "${1:-}" = "--install" ]; then
  echo "installing the Python package built with the profile …" >&2
  RUSTFLAGS="$use" python3 -m pip install -q .
  exit 0
fi
echo "building the core with the profile …" >&2
RUSTFLAGS="$use" cargo build -q --release -p ccsim-core --example bench --target-dir "$work/use"
"$work/use/release/examples/bench" "$@"
