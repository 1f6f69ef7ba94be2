#!/usr/bin/env bash
# Mutation testing of the core's transport, cc and net modules with cargo-mutants
# (https://mutants.rs): each mutant is a small deliberate change of the code (an operator
# flipped, a constant changed, a function body replaced); the core's whole test suite runs
# against it, and a mutant no test notices "survives". Slow (a build and a test run per
# mutant), so it is not part of scripts/test.sh; docs/testing.md has the last scores.
#
#   scripts/mutants.sh                      # every mutant of transport/, cc/ and net/
#   scripts/mutants.sh --sample 10          # every 10th mutant (shard 0 of 10, round robin)
#   scripts/mutants.sh --file transport/tcp/sender.rs --file cc/reno.rs
#   OUT=/tmp/m scripts/mutants.sh ...       # results in $OUT/mutants.out (default target/mutants-run)
#
# Other arguments go to cargo-mutants unchanged (e.g. --list, --shard 3/10, -j 2).
# Tests run in the `mutants` profile (optimised, no debug info: Cargo.toml) with
# cargo-nextest when it is installed. The score is printed per module at the end
# (scripts/mutants_score.py).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "cargo-mutants not found: installing it into ~/.cargo/bin (cargo install --locked)" >&2
    cargo install --locked cargo-mutants
fi

files=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --sample) extra+=(--shard "0/$2" --sharding round-robin); shift 2 ;;
        --file) files+=(-f "crates/ccsim-core/src/$2"); shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done
if [ ${#files[@]} -eq 0 ]; then
    files=(-f 'crates/ccsim-core/src/transport/**' -f 'crates/ccsim-core/src/cc/**'
           -f 'crates/ccsim-core/src/net/**')
fi
# One test is left out: it measures wall-clock phases of the two-thread schedule (sim_barrier)
# and may fail on a loaded machine, which would fail the unmutated baseline (and "catch"
# mutants at random); no mutant of transport/, cc/ or net/ can change what it checks.
wallclock=a_slow_thread_is_left_asleep_in_solo_phases
tool=cargo
skip=(-- -- --skip "$wallclock")  # after cargo-mutants's --, then cargo test's
if cargo nextest --version >/dev/null 2>&1; then
    tool=nextest
    skip=(-- -E "not test(=sim::sim_barrier::tests::$wallclock)")
fi
out="${OUT:-target/mutants-run}"
mkdir -p "$out"

# A mutant that hangs a simulation is counted apart ("timeout": a mutant the tests did stop,
# by not finishing). The test timeout is derived from the unmutated baseline (cargo-mutants:
# 5 x its test time), at least 60 s: the core's suite takes ~15 s with nextest on a quiet
# machine, so a fixed 600 s wasted ten minutes per hanging mutant. Builds keep a generous
# fixed timeout (a shared machine may be slow to link). `-t SECS` overrides both.
cargo mutants --package ccsim-core "${files[@]}" \
    --profile mutants --test-tool "$tool" \
    --minimum-test-timeout 60 --build-timeout 900 \
    --output "$out" "${extra[@]}" "${skip[@]}" || true

if [ -f "$out/mutants.out/outcomes.json" ]; then
    python3 scripts/mutants_score.py "$out/mutants.out"
fi
