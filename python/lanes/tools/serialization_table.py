#!/usr/bin/env python3
"""The per-product serialisation table of the Fermilab testing-framework study: which few products take half of
the serialisation time. Reads the `serialize` output's details in a run report (a multi-process job's summed over
its workers):

    .venv/bin/python -m lanes.tools.serialization_table REPORT.json... [--share 0.5] [--markdown] [--json]

Products by serialisation time, longest first, each with its bytes and time per call, its share of the output's
time and the cumulative share; the table stops at the first product that takes the cumulative share to --share.
Given several reports of the same job (a scan point's repeats), each product's time per call is its least over
them: a thread descheduled while it timed a product adds milliseconds to that product in one run only, and on a
loaded machine such spikes would otherwise rank the products.
"""

import json
import sys

from .lanes_report import inputs


def parser():
    p = inputs.OneLineParser(prog="serialization_table.py", allow_abbrev=False,
                             description="Which products take most of the serialisation time: the `serialize` "
                             "output's per-product figures from a run report, longest first, with cumulative share.")
    p.add_argument("reports", nargs="+", metavar="REPORT", help="a run report (lanes run --report) of a job with a "
                   "serialize output; several: the same job's repeats")
    p.add_argument("--share", type=float, default=0.5, metavar="F",
                   help="list products until their cumulative share reaches F (default 0.5; 1: every product)")
    p.add_argument("--output", metavar="LABEL", help="the serialize output's label (default: the only one)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    return p


def serialize_modules(report):
    parts = inputs.worker_reports(report) if "workers" in report else [report]
    return [m for part in parts for m in part.get("modules", [])
            if m.get("plugin") == "serialize" and isinstance(m.get("details"), dict)]


def products(report, label=None):
    """{label: {calls, bytes, ns}} of one serialize output, summed over a multi-process job's workers."""
    found = serialize_modules(report)
    labels = sorted({m["label"] for m in found})
    if not labels:
        raise inputs.InputError("the report has no serialize output with per-product figures "
                                "(run the job with --output serialize)")
    if label is None and len(labels) > 1:
        raise inputs.InputError(f"the report has several serialize outputs ({', '.join(labels)}): choose one "
                                "with --output LABEL")
    label = label or labels[0]
    if label not in labels:
        raise inputs.InputError(f"the report has no serialize output {label!r} (it has {', '.join(labels)})")
    summed = {}
    for module in found:
        if module["label"] != label:
            continue
        for product in module["details"].get("products", []):
            entry = summed.setdefault(product["label"], {"calls": 0, "bytes": 0, "ns": 0})
            for key in entry:
                entry[key] += product.get(key, 0)
    return summed


def least_of(runs):
    """One {label: {calls, bytes, ns}} of several runs' (from products()): calls and bytes summed, and the time
    that many calls take at the product's least time per call over the runs."""
    combined = {}
    for label in runs[0]:
        figures = [run[label] for run in runs if label in run and run[label]["calls"]]
        calls = sum(f["calls"] for f in figures)
        least = min((f["ns"] / f["calls"] for f in figures), default=0.0)
        combined[label] = {"calls": calls, "bytes": sum(f["bytes"] for f in figures), "ns": least * calls}
    return combined


def table(summed, share):
    """{products, total_ns, rows: [{rank, label, calls, bytes_per_call, ns_per_call, share, cumulative}], half}:
    the rows up to the one that reaches `share`; `half` is how many products take half of the time."""
    ordered = sorted(summed.items(), key=lambda item: (-item[1]["ns"], item[0]))
    total = sum(p["ns"] for _, p in ordered)
    rows, cumulative, half = [], 0, None
    for rank, (label, p) in enumerate(ordered, start=1):
        part = p["ns"] / total if total else 0.0
        cumulative += part
        if half is None and cumulative >= 0.5:
            half = rank
        if not rows or rows[-1]["cumulative"] < share:
            rows.append({"rank": rank, "label": label, "calls": p["calls"],
                         "bytes_per_call": p["bytes"] / p["calls"] if p["calls"] else 0.0,
                         "ns_per_call": p["ns"] / p["calls"] if p["calls"] else 0.0,
                         "share": part, "cumulative": cumulative})
    return {"products": len(ordered), "total_ns": total, "rows": rows, "half": half}


def text(result, markdown):
    head = ("rank", "product", "bytes/call", "µs/call", "share", "cumulative")
    cells = [(str(r["rank"]), r["label"], f"{r['bytes_per_call']:.0f}", f"{r['ns_per_call'] / 1e3:.2f}",
              f"{r['share']:.1%}", f"{r['cumulative']:.1%}") for r in result["rows"]]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        lines += ["| " + " | ".join((c[0], f"`{c[1]}`", *c[2:])) + " |" for c in cells]
    else:
        widths = [max(len(row[i]) for row in [head, *cells]) for i in range(len(head))]
        lines = ["  ".join(c.rjust(w) if i != 1 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
                 for row in [head, *cells]]
    half = result["half"]
    lines.append(f"{half} of {result['products']} products take half of the serialisation time "
                 f"({result['total_ns'] / 1e9:.3f} s)" if half else "no serialisation time was measured")
    return "\n".join(lines)


def main(argv):
    try:
        options = parser().parse_args(argv)
        if not 0 < options.share <= 1:
            raise inputs.InputError(f"--share must be in (0, 1], not {options.share}")
        runs = []
        for path in options.reports:
            loaded = inputs.load(path)
            if loaded["kind"] != "run":
                raise inputs.InputError(f"{path} is a scan directory: give its runs/*.json of one point")
            runs.append(products(loaded["report"], options.output))
        result = table(runs[0] if len(runs) == 1 else least_of(runs), options.share)
    except inputs.InputError as error:
        print(f"lanes: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if options.json else text(result, options.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
