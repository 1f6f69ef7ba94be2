#!/usr/bin/env bash
# The whole test suite: Rust core tests (release build), the kernel bench emulator's unit
# tests, then the Python tests.
# PYTHON names the interpreter to install into and test with (default python3), so a
# second checkout can be tested in its own virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" -m pip install --quiet --disable-pip-version-check -e ".[test]"
cargo test --release -p ccsim-core
# the kernel bench's emulator model and replay check (benches/linux; no root, under a second)
cargo test --release -p ccsim-kernel-emu
"$PY" -m pytest -q
