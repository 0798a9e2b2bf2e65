#!/usr/bin/env python3
"""`lanes report`: the HTML report of a run (its --report JSON) or of a scan directory, one self-contained file.

Started by `lanes report ARGS` (and by `lanes run --html`, `lanes scan --html`), or directly:
    .venv/bin/python -m lanes.tools.report REPORT.json -o report.html [--trace trace.json]
"""

import os
import sys
from pathlib import Path

from .lanes_report import inputs, page


def parser():
    p = inputs.OneLineParser(prog="lanes report", allow_abbrev=False,
                             description="Write the HTML report of a run report (lanes run --report) or a scan "
                             "directory (lanes scan -o): headline figures; charts of where the threads' time went, "
                             "the event times, memory and concurrency over time (a scan's: rate, speed-up and CPU "
                             "efficiency); stalls, the monitor's cost, the stall graph, the sortable module table, "
                             "what ran where (provenance), the configuration, and the trace for Perfetto. One file, "
                             "no network.")
    p.add_argument("input", metavar="DIR_OR_REPORT.json")
    p.add_argument("-o", "--output", metavar="FILE.html", required=True)
    p.add_argument("--title", help="the page's title (default: lanes run: or lanes scan: and the input's name)")
    p.add_argument("--trace", metavar="FILE", help="the run's trace (lanes run --trace): named, embedded for "
                   "Perfetto, and drawn as the stall graph")
    return p


def write_page(text, output):
    """Writes a page through OUTPUT.tmp, renamed when complete."""
    temporary = Path(str(output) + ".tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, output)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise


def write(source, trace, output, title=None):
    """Writes the page of a run report or a scan (inputs.load()) to OUTPUT."""
    write_page(page.render(source, trace, title, Path(output).parent), output)


def main(argv):
    try:
        options = parser().parse_args(argv)
        source = inputs.load(options.input)
        trace = Path(options.trace) if options.trace else None
        if trace is not None and not trace.is_file():
            raise inputs.InputError(f"the trace {trace} does not exist")
        if trace is not None and source["kind"] == "scan":
            raise inputs.InputError("--trace goes with a run report, not a scan directory")
        output = Path(options.output)
        if output.resolve() == Path(options.input).resolve():
            raise inputs.InputError(f"the page {output} would overwrite its input")
        if not output.parent.resolve().is_dir():
            raise inputs.InputError(f"cannot write {output}: directory {output.parent} does not exist")
    except inputs.InputError as error:
        print(f"lanes: error: {error}", file=sys.stderr)
        return 2
    try:
        write(source, trace, output, options.title)
    except OSError as error:
        print(f"lanes: error: cannot write {output}: {error.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
