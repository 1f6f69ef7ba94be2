#!/usr/bin/env bash
# ccsim (median of 5) and ns-3 (one run each, it is slow) on the two benchmark dumbbells,
# one after the other in one session. Usage: bash benches/side_by_side.sh [--ns3-runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${2:-1}
cargo build -q --release -p ccsim-core --example bench
echo "== ccsim =="
./target/release/examples/bench --repeat 5
echo "== ns-3 $(python3 -c 'import importlib.metadata as m; print(m.version("ns3"))') =="
for name in dumbbell-16 dumbbell-64-1g; do
  for _ in $(seq "$runs"); do
    python3 benches/ns3_dumbbell.py "$name" 2>/dev/null | grep wall_s
  done
done
echo "== ccsim again =="
./target/release/examples/bench --repeat 5
