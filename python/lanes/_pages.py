"""The HTML pages of results, scans and comparisons (lanes.tools.lanes_report), as a notebook shows them: each page
is a whole document, so it goes into an iframe of its own (its styles and scripts stay its own)."""

import html

from .tools.lanes_report import page


def frame(document, height=900):
    return (f'<iframe srcdoc="{html.escape(document, quote=True)}" style="width: 100%; height: {height}px; '
            'border: 1px solid #ddd"></iframe>')


def run_page(report, path, title, trace=None):
    return page.render({"kind": "run", "path": path, "report": report}, trace, title, path.parent)


def scan_page(source, title):
    return page.render(source, None, title)


def comparison_page(result, title):
    return page.render_comparison(result, title)
