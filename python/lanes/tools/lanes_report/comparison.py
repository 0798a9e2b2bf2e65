"""`lanes compare`: two run reports, or two scan directories, side by side (as JSON-ready dicts)."""

import json

from . import inputs, provenance

RUN_FIGURES = ("events", "events_per_s", "wall_s", "cpu_s", "cpu_efficiency", "threads", "peak_rss_bytes",
               "total_pss_bytes", "stall_s", "monitor_ms")
SCAN_METRICS = ("events_per_s", "cpu_efficiency", "wall_s")


def ratio(a, b):
    return b / a if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else None


def difference(a, b):
    return None if a is None or b is None else b - a


def compare_runs(a, b):
    """{kind: run, figures: [{name, a, b, ratio}], modules: [{label, a_s, b_s, delta_s, ...}] by |delta|}."""
    fa, fb = inputs.figures(a["report"]), inputs.figures(b["report"])
    figures = [{"name": name, "a": fa[name], "b": fb[name], "ratio": ratio(fa[name], fb[name])} for name in RUN_FIGURES
               if fa[name] is not None or fb[name] is not None]
    ma = {m["label"]: m for m in inputs.modules(a["report"])}
    mb = {m["label"]: m for m in inputs.modules(b["report"])}
    modules = []
    for label in list(ma) + [label for label in mb if label not in ma]:
        x, y = ma.get(label, {}), mb.get(label, {})
        entry = {"label": label, "a_s": x.get("total_s"), "b_s": y.get("total_s"),
                 "delta_s": difference(x.get("total_s", 0.0), y.get("total_s", 0.0)),
                 "ratio": ratio(x.get("total_s"), y.get("total_s"))}
        if "stall_s" in x or "stall_s" in y:
            entry.update({"a_stall_s": x.get("stall_s"), "b_stall_s": y.get("stall_s"),
                          "delta_stall_s": difference(x.get("stall_s", 0.0), y.get("stall_s", 0.0))})
        modules.append(entry)
    impact = lambda m: abs(m["delta_s"]) + abs(m.get("delta_stall_s") or 0.0)  # noqa: E731
    modules.sort(key=impact, reverse=True)
    return {"kind": "run", "a": str(a["path"]), "b": str(b["path"]), "figures": figures, "modules": modules}


def point_key(point):
    return json.dumps(point["axes"], sort_keys=True)


def beyond_spread(x, y, runs_a, runs_b):
    """Whether the runs' ranges [min, max] do not overlap; None when a side has a single run (no spread)."""
    if x is None or y is None:
        return None
    if runs_a < 2 or runs_b < 2:
        return None
    return y["min"] > x["max"] or y["max"] < x["min"]


def compare_scans(a, b):
    """{kind: scan, points: [{axes, metrics {name: {a, b, ratio, beyond_spread}}}], beyond_spread: [...],
    only_a, only_b}: points matched by their axes."""
    pa = {point_key(p): p for p in a["summary"]}
    pb = {point_key(p): p for p in b["summary"]}
    points = []
    for key in [k for k in pa if k in pb]:
        x, y = pa[key], pb[key]
        good_a, good_b = x["runs"] - x["failed_runs"], y["runs"] - y["failed_runs"]
        metrics = {}
        for name in SCAN_METRICS:
            sa, sb = x.get(name), y.get(name)
            metrics[name] = {"a": sa, "b": sb, "ratio": ratio(sa and sa["median"], sb and sb["median"]),
                             "beyond_spread": beyond_spread(sa, sb, good_a, good_b)}
        points.append({"axes": x["axes"], "runs_a": good_a, "runs_b": good_b, "metrics": metrics})
    flagged = [{"axes": p["axes"], "metric": name, "ratio": m["ratio"]} for p in points
               for name, m in p["metrics"].items() if m["beyond_spread"]]
    return {"kind": "scan", "a": str(a["path"]), "b": str(b["path"]), "points": points, "beyond_spread": flagged,
            "only_a": [pa[k]["axes"] for k in pa if k not in pb], "only_b": [pb[k]["axes"] for k in pb if k not in pa]}


def recorded(source):
    """A run report's provenance, or a scan's (its manifest's)."""
    return (source["report"] if source["kind"] == "run" else source["manifest"]).get("provenance")


def compare(a, b):
    """compare_runs() or compare_scans(), with provenance {a, b, differences}: where the two ran, and how that
    differs (host, CPU model, cores, lanes commit)."""
    if a["kind"] != b["kind"]:
        raise inputs.InputError(f"cannot compare a {a['kind']} ({a['path']}) with a {b['kind']} ({b['path']}): give "
                                "two run reports or two scan directories")
    result = compare_runs(a, b) if a["kind"] == "run" else compare_scans(a, b)
    pa, pb = recorded(a), recorded(b)
    result["provenance"] = {"a": pa, "b": pb, "differences": provenance.differences(pa, pb)}
    return result


def shown(value):
    if value is None:
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.3f}" if abs(value) < 1e6 else f"{value:,.0f}"


def axes_text(axes):
    return " ".join(f"{k}={v}" for k, v in axes.items()) or "(the one point)"


def run_text(result, top):
    lines = [f"A: {result['a']}", f"B: {result['b']}", "", f"  {'':18s}{'A':>16s}{'B':>16s}{'B/A':>9s}"]
    for f in result["figures"]:
        lines.append(f"  {f['name']:18s}{shown(f['a']):>16s}{shown(f['b']):>16s}{shown(f['ratio']):>9s}")
    lines += ["", f"  modules by impact (|B - A| total s{', + stall s' if any('delta_stall_s' in m for m in result['modules']) else ''}):"]
    width = max([len(m["label"]) for m in result["modules"][:top]] + [6])
    lines.append(f"  {'module':{width}s}{'A s':>11s}{'B s':>11s}{'B - A':>11s}{'B/A':>9s}")
    for m in result["modules"][:top]:
        stall = (f"   stall {shown(m['a_stall_s'])} -> {shown(m['b_stall_s'])}" if "delta_stall_s" in m else "")
        lines.append(f"  {m['label']:{width}s}{shown(m['a_s']):>11s}{shown(m['b_s']):>11s}{shown(m['delta_s']):>11s}"
                     f"{shown(m['ratio']):>9s}{stall}")
    if len(result["modules"]) > top:
        lines.append(f"  ({len(result['modules']) - top} more; --top N shows more, --json all)")
    return "\n".join(lines)


def scan_text(result):
    lines = [f"A: {result['a']}", f"B: {result['b']}", "",
             f"  {'point':40s}{'events/s A':>14s}{'events/s B':>14s}{'B/A':>8s}  beyond the spread"]
    for p in result["points"]:
        rate = p["metrics"]["events_per_s"]
        verdict = {True: "yes", False: "no", None: "unknown (fewer than 2 runs)"}[rate["beyond_spread"]]
        lines.append(f"  {axes_text(p['axes']):40s}{shown(rate['a'] and rate['a']['median']):>14s}"
                     f"{shown(rate['b'] and rate['b']['median']):>14s}{shown(rate['ratio']):>8s}  {verdict}")
    lines.append("")
    if result["beyond_spread"]:
        lines.append("  differences beyond the run-to-run spread (the min-max ranges do not overlap):")
        lines += [f"    {axes_text(f['axes'])}: {f['metric']} x{shown(f['ratio'])}" for f in result["beyond_spread"]]
    else:
        lines.append("  no difference exceeds the run-to-run spread")
    for side in ("a", "b"):
        for axes in result[f"only_{side}"]:
            lines.append(f"  only in {side.upper()}: {axes_text(axes)}")
    return "\n".join(lines)


def text(result, top=20):
    return run_text(result, top) if result["kind"] == "run" else scan_text(result)
