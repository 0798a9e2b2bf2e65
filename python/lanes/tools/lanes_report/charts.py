"""The HTML report's charts as inline SVG: no script, no network, drawn by any browser from file://.

Every chart is a <figure class="chart" id=...> whose marks carry the figures they draw as data-* attributes (the
report's own numbers, unrounded), so that a test can hold the drawing to the report.
"""

import html
import json
import math

COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
STALL = "#e8a33d"
GREY = "#b8b8b8"
WIDTH = 560  # a chart in one of the page's two columns; WIDE spans both
WIDE = 1100
FONT = 'font-family="system-ui,sans-serif" font-size="12"'
DASHED = ' stroke-dasharray="5 3"'


def esc(value):
    return html.escape(str(value), quote=True)


def data(value):
    """An attribute value for a figure: JSON, so that a reader gets back exactly the report's number."""
    return esc(json.dumps(value))


def figure(element_id, title, svg, note="", wide=False):
    said = f'<p class="note">{esc(note)}</p>' if note else ""
    return (f'<figure class="chart{" wide" if wide else ""}" id="{esc(element_id)}"><figcaption>{esc(title)}'
            f"</figcaption>{svg}{said}</figure>")


def svg(width, height, body):
    return (f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" preserveAspectRatio="xMinYMin meet" '
            f'{FONT}>{body}</svg>')


def nice_step(span, count):
    """A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `count` parts."""
    if span <= 0:
        return 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def ticks(high, count=5):
    """Round ticks from 0 to at least `high`."""
    step = nice_step(high, count)
    top = step * math.ceil(high / step) if high > 0 else step
    return [i * step for i in range(int(round(top / step)) + 1)]


def short(value):
    """A tick label: few digits, no trailing zeros."""
    if value == 0:
        return "0"
    if abs(value) >= 1e4 or abs(value) < 1e-3:
        return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{value:.6g}"


def seconds_label(value):
    """A duration on a log axis: 1 µs, 10 ms, 1 s..."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale * 0.999:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.1e} s"


def legend(entries, x, y, width=WIDTH):
    """Coloured squares (or lines: dashed True/False) with names, in a row from (x, y), as many as fit."""
    parts = []
    for name, colour, dashed in entries:
        if x + 30 + 7 * len(name) > width:
            break
        mark = (f'<line x1="{x}" y1="{y - 4}" x2="{x + 14}" y2="{y - 4}" stroke="{colour}" stroke-width="2"'
                f'{DASHED if dashed else ""}/>' if dashed is not None
                else f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{colour}"/>')
        parts.append(f'{mark}<text x="{x + 18}" y="{y}">{esc(name)}</text>')
        x += 30 + 7 * len(name)
    return "".join(parts)


def y_grid(y_ticks, y_of, left, right):
    """Horizontal grid lines at the ticks of a y axis, labelled on its left."""
    return "".join(f'<line x1="{left}" y1="{y_of(tick):.1f}" x2="{WIDTH - right}" y2="{y_of(tick):.1f}" '
                   f'stroke="#eee"/><text x="{left - 6}" y="{y_of(tick) + 4:.1f}" text-anchor="end" fill="#555">'
                   f"{short(tick)}</text>" for tick in y_ticks)


def axis_labels(x_label, y_label, height, top, right):
    """The x axis' name under its right end, the y axis' above its top."""
    return (f'<text x="{WIDTH - right}" y="{height - 4}" text-anchor="end" fill="#555">{esc(x_label)}</text>'
            f'<text x="4" y="{top - 10}" fill="#555">{esc(y_label)}</text>')


def bar_chart(element_id, title, rows, unit, note=""):
    """Horizontal bars across the page, one per row, each a stack of parts: rows are (label, [(part, value, colour)],
    tooltip)."""
    width = WIDE
    label_width, right = 300, 80
    row_height, top = 22, 28
    height = top + row_height * len(rows) + 34
    high = max([sum(v for _, v, _ in parts) for _, parts, _ in rows] + [0.0])
    scale_ticks = ticks(high)
    span = scale_ticks[-1] or 1.0
    plot = width - label_width - right

    def x_of(value):
        return label_width + plot * value / span

    body = []
    for tick in scale_ticks:
        body.append(f'<line x1="{x_of(tick):.1f}" y1="{top - 6}" x2="{x_of(tick):.1f}" '
                    f'y2="{top + row_height * len(rows)}" stroke="#eee"/>'
                    f'<text x="{x_of(tick):.1f}" y="{top + row_height * len(rows) + 16}" text-anchor="middle" '
                    f'fill="#555">{short(tick)}</text>')
    body.append(f'<text x="{width - right}" y="{height - 4}" text-anchor="end" fill="#555">{esc(unit)}</text>')
    for i, (label, parts, tooltip) in enumerate(rows):
        y = top + i * row_height
        shown = label if len(label) <= 44 else label[:42] + "…"
        marks, x = [], label_width
        for part, value, colour in parts:
            extent = plot * value / span
            marks.append(f'<rect class="part" data-part="{esc(part)}" data-value="{data(value)}" x="{x:.2f}" '
                         f'y="{y + 3}" width="{max(extent, 0):.2f}" height="{row_height - 6}" fill="{colour}"/>')
            x += extent
        total = sum(v for _, v, _ in parts)
        body.append(f'<g class="bar" data-label="{esc(label)}" data-total="{data(total)}"><title>{esc(tooltip)}</title>'
                    f'<text x="{label_width - 8}" y="{y + row_height / 2 + 4}" text-anchor="end">{esc(shown)}</text>'
                    + "".join(marks)
                    + f'<text x="{x + 4:.1f}" y="{y + row_height / 2 + 4}" fill="#555">{short(round(total, 3))}</text>'
                    + "</g>")
    return figure(element_id, title, svg(width, height, "".join(body)), note, wide=True)


def histogram(element_id, title, bins, markers, note=""):
    """Counts over a log time axis: bins are (low_s, high_s, count); markers (name, seconds) are drawn as lines."""
    left, right, top, bottom = 50, 20, 70, 40
    height = 300
    low = min(b[0] for b in bins)
    high = max([b[1] for b in bins] + [m[1] for m in markers])
    low_log, high_log = math.log10(low), math.log10(high)
    if high_log - low_log < 1:  # at least a decade, so that the axis has ticks to read
        middle = (low_log + high_log) / 2
        low_log, high_log = middle - 0.5, middle + 0.5
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    most = max(b[2] for b in bins) or 1
    count_ticks = ticks(most, 4)

    def x_of(seconds):
        return left + plot_w * (math.log10(seconds) - low_log) / (high_log - low_log)

    def y_of(count):
        return top + plot_h * (1 - count / count_ticks[-1])

    body = [y_grid(count_ticks, y_of, left, right)]
    for exponent in range(math.ceil(low_log), math.floor(high_log) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0 ** exponent
            if not low_log <= math.log10(value) <= high_log:
                continue
            body.append(f'<line x1="{x_of(value):.1f}" y1="{top}" x2="{x_of(value):.1f}" y2="{top + plot_h}" '
                        f'stroke="{"#ddd" if mantissa == 1 else "#f3f3f3"}"/>'
                        f'<text x="{x_of(value):.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#555">'
                        f"{seconds_label(value)}</text>")
    for low_s, high_s, count in bins:
        body.append(f'<rect class="bin" data-low="{data(low_s)}" data-high="{data(high_s)}" data-count="{data(count)}" '
                    f'x="{x_of(low_s):.2f}" y="{y_of(count):.2f}" width="{max(x_of(high_s) - x_of(low_s) - 0.5, 0.5):.2f}" '
                    f'height="{top + plot_h - y_of(count):.2f}" fill="{COLOURS[0]}"><title>{seconds_label(low_s)} – '
                    f"{seconds_label(high_s)}: {count:,} events</title></rect>")
    for i, (name, seconds) in enumerate(markers):
        x = x_of(seconds)
        colour = COLOURS[(i + 1) % len(COLOURS)]
        body.append(f'<g class="marker" data-name="{esc(name)}" data-value="{data(seconds)}">'
                    f'<line x1="{x:.2f}" y1="{top - 4}" x2="{x:.2f}" y2="{top + plot_h}" stroke="{colour}" '
                    f'stroke-width="2" stroke-dasharray="4 3"/>'
                    f'<text x="{min(x + 3, WIDTH - right - 90):.2f}" y="{top - 8 - 13 * (len(markers) - 1 - i)}" '
                    f'fill="{colour}">{esc(name)} {seconds_label(seconds)}</text></g>')
    body.append(f'<text x="{WIDTH - right}" y="{height - 4}" text-anchor="end" fill="#555">event wall time (log)</text>'
                f'<text x="4" y="14" fill="#555">events</text>')
    return figure(element_id, title, svg(WIDTH, height, "".join(body)), note)


def line_chart(element_id, title, series, x_label, y_label, references=(), note="", keys=None):
    """Lines over a linear x axis. series: (name, [(x, y)], colour, dashed); references: (name, y, colour), drawn
    as thin horizontal lines (a job's threads, its lanes); keys: the legend's (name, colour, dashed) entries, by
    default one per series."""
    left, right, top, bottom = 60, 20, 48, 40
    height = 280
    points = [p for _, values, _, _ in series for p in values]
    x_high = max([p[0] for p in points] + [0.0]) or 1.0
    y_high = max([p[1] for p in points] + [r[1] for r in references] + [0.0]) or 1.0
    x_ticks, y_ticks = ticks(x_high), ticks(y_high * 1.05, 4)
    plot_w, plot_h = WIDTH - left - right, height - top - bottom

    def x_of(x):
        return left + plot_w * x / x_ticks[-1]

    def y_of(y):
        return top + plot_h * (1 - y / y_ticks[-1])

    body = [y_grid(y_ticks, y_of, left, right)]
    for tick in x_ticks:
        body.append(f'<text x="{x_of(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#555">'
                    f"{short(tick)}</text>")
    for name, y, colour in references:
        body.append(f'<g class="reference" data-name="{esc(name)}" data-value="{data(y)}"><line x1="{left}" '
                    f'y1="{y_of(y):.2f}" x2="{WIDTH - right}" y2="{y_of(y):.2f}" stroke="{colour}" stroke-width="1" '
                    f'opacity="0.6"/><text x="{WIDTH - right - 4}" y="{y_of(y) - 4:.2f}" text-anchor="end" '
                    f'fill="{colour}">{esc(name)}</text></g>')
    for name, values, colour, dashed in series:
        drawn = " ".join(f"{x_of(x):.2f},{y_of(y):.2f}" for x, y in values)
        body.append(f'<polyline class="series" data-name="{esc(name)}" data-values="{data([list(v) for v in values])}" '
                    f'points="{drawn}" fill="none" stroke="{colour}" stroke-width="2"{DASHED if dashed else ""}/>')
    body.append(axis_labels(x_label, y_label, height, top, right)
                + legend(keys or [(name, colour, dashed) for name, _, colour, dashed in series], 4, 14))
    return figure(element_id, title, svg(WIDTH, height, "".join(body)), note)


def point_chart(element_id, title, series, x_label, y_label, ideal=False, note=""):
    """Points with min-max bars over a numeric x axis, joined per series: series are (name, [(x, median, min, max)]);
    `ideal` draws each series' ideal scaling from its first point, dashed."""
    left, right, top, bottom = 70, 20, 48, 40
    height = 300
    points = [p for _, values in series for p in values]
    xs = sorted({p[0] for p in points})
    y_high = max([p[3] for p in points] + [0.0]) or 1.0
    if ideal:  # each series' first point times x / x0
        y_high = max([y_high] + [values[0][1] * x / values[0][0] for _, values in series if values and values[0][0]
                                 for x, _, _, _ in values])
    y_ticks = ticks(y_high * 1.05, 4)
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    x_low, x_high = (xs[0], xs[-1]) if len(xs) > 1 else (xs[0] - 1, xs[0] + 1)

    def x_of(x):
        return left + 20 + (plot_w - 40) * (x - x_low) / (x_high - x_low)

    def y_of(y):
        return top + plot_h * (1 - y / y_ticks[-1])

    body = [y_grid(y_ticks, y_of, left, right)]
    for x in xs:
        body.append(f'<text x="{x_of(x):.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#555">{short(x)}</text>')
    for i, (name, values) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        if ideal and values and values[0][0]:
            x0, y0 = values[0][0], values[0][1]
            line = " ".join(f"{x_of(x):.2f},{y_of(y0 * x / x0):.2f}" for x, _, _, _ in values)
            body.append(f'<polyline class="ideal" points="{line}" fill="none" stroke="{colour}" stroke-dasharray="4 3" '
                        f'opacity="0.6"/>')
        line = " ".join(f"{x_of(x):.2f},{y_of(m):.2f}" for x, m, _, _ in values)
        body.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, median, low, high in values:
            body.append(f'<g class="point" data-series="{esc(name)}" data-x="{data(x)}" data-median="{data(median)}" '
                        f'data-min="{data(low)}" data-max="{data(high)}"><title>{esc(name)} {short(x)}: '
                        f"{median:,.4g} ({low:,.4g} – {high:,.4g})</title>"
                        f'<line x1="{x_of(x):.2f}" y1="{y_of(low):.2f}" x2="{x_of(x):.2f}" y2="{y_of(high):.2f}" '
                        f'stroke="{colour}"/><circle cx="{x_of(x):.2f}" cy="{y_of(median):.2f}" r="4" '
                        f'fill="{colour}"/></g>')
    body.append(axis_labels(x_label, y_label, height, top, right)
                + legend([(name or "", COLOURS[i % len(COLOURS)], None) for i, (name, _) in enumerate(series)
                          if name] + ([("ideal scaling", "#777", True)] if ideal else []), 4, 14))
    return figure(element_id, title, svg(WIDTH, height, "".join(body)), note)
