#!/usr/bin/env bash
# The main job: install ccsim from this checkout and run the dumbbell scenario, writing
# results (Parquet, JSON) and plots to out/dumbbell. Extra arguments go to `ccsim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e .
python3 -m ccsim run scenarios/dumbbell.toml --out out/dumbbell --plot "$@"
