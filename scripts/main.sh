#!/usr/bin/env bash
# The main job: install ccsim from this checkout, run the dumbbell scenario (results and
# plots in out/dumbbell), then reproduce every registered experiment in quick mode and
# write the report to out/report/index.html. Extra arguments go to `ccsim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e .
python3 -m ccsim run scenarios/dumbbell.toml --out out/dumbbell --plot "$@"
python3 -m ccsim reproduce --quick --out out
