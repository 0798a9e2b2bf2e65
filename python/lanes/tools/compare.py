#!/usr/bin/env python3
"""`lanes compare A B`: two run reports or two scan directories side by side.

Started by `lanes compare ARGS`, or directly: .venv/bin/python -m lanes.tools.compare A B [--json] [--html FILE]
"""

import json
import sys
from pathlib import Path

from .lanes_report import comparison, inputs, page, provenance
from .report import write_page


def parser():
    p = inputs.OneLineParser(prog="lanes compare", allow_abbrev=False,
                             description="Compare two run reports (lanes run --report) or two scan directories "
                             "(lanes scan -o): figures side by side with ratios B/A and per-module deltas by impact; "
                             "for scans, every common point and those whose difference exceeds the run-to-run "
                             "spread. A warning line says when the two ran on different machines or builds (host, "
                             "CPU model and which CPU of it, cores, lanes commit).")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--top", type=int, default=20, metavar="N", help="modules shown in the text (default 20)")
    p.add_argument("--html", metavar="FILE.html", help="also write the comparison as one self-contained HTML page")
    return p


def main(argv):
    try:
        options = parser().parse_args(argv)
        if options.top < 1:
            raise inputs.InputError(f"--top must be at least 1, not {options.top}")
        if options.html and not Path(options.html).resolve().parent.is_dir():
            raise inputs.InputError(f"cannot write {options.html}: directory {Path(options.html).parent} does not "
                                    "exist")
        result = comparison.compare(inputs.load(options.a), inputs.load(options.b))
    except inputs.InputError as error:
        print(f"lanes: error: {error}", file=sys.stderr)
        return 2
    warning = provenance.warning(result["provenance"]["differences"])
    if warning:
        print(f"lanes compare: warning: {warning}", file=sys.stderr)
    print(json.dumps(result, indent=2) if options.json else comparison.text(result, options.top))
    if options.html:
        title = f"lanes compare: {Path(options.a).name} and {Path(options.b).name}"
        try:
            write_page(page.render_comparison(result, title), Path(options.html))
        except OSError as error:
            print(f"lanes: error: cannot write {options.html}: {error.strerror}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
