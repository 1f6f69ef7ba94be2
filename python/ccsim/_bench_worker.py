"""One benchmark run in a fresh interpreter: ``python -m ccsim._bench_worker NAME [THREADS]``.
Prints one JSON line with the measurement (see ``ccsim.bench.measure``)."""

import json
import sys

from ccsim.bench import measure
from ccsim.exceptions import SimError

if __name__ == "__main__":
    try:
        threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
        print(json.dumps(measure(sys.argv[1], threads)))
    except SimError as e:  # expected failures: the message is enough
        print(e, file=sys.stderr)
        sys.exit(1)
