#!/usr/bin/env python3
"""`lanes compare A B`: two run reports or two scan directories side by side.

Started by `lanes compare ARGS`, or directly: .venv/bin/python tools/compare.py A B [--json]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lanes_report import comparison, inputs  # noqa: E402  (after the path is set)


def parser():
    p = inputs.OneLineParser(prog="lanes compare", allow_abbrev=False,
                             description="Compare two run reports (lanes run --report) or two scan directories "
                             "(lanes scan -o): figures side by side with ratios B/A and per-module deltas by impact; "
                             "for scans, every common point and those whose difference exceeds the run-to-run "
                             "spread.")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--top", type=int, default=20, metavar="N", help="modules shown in the text (default 20)")
    return p


def main(argv):
    try:
        options = parser().parse_args(argv)
        if options.top < 1:
            raise inputs.InputError(f"--top must be at least 1, not {options.top}")
        result = comparison.compare(inputs.load(options.a), inputs.load(options.b))
    except inputs.InputError as error:
        print(f"lanes: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if options.json else comparison.text(result, options.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
