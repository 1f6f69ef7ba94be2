#!/usr/bin/env bash
# The whole test suite: Rust core tests (release build) then the Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
cargo test --release -p ccsim-core
python3 -m pytest -q
