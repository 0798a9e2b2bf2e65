"""Headless Chromium (Debian's `chromium`) for the HTML report's tests: the DOM after the scripts ran, the
console messages, the network requests the page made, where its charts are laid out, and a screenshot as a numpy
array."""

import json
import re
import shutil
import subprocess

import matplotlib.image
import pytest

CHROMIUM = shutil.which("chromium")
WIDTH = 1200

# Added to a copy of a page: writes where the page's charts are, and its height, into the DOM as JSON.
LAYOUT_PROBE = """<script>(function () {
  var layout = {height: document.documentElement.scrollHeight, charts: {}};
  document.querySelectorAll("figure.chart").forEach(function (figure) {
    var box = figure.querySelector("svg").getBoundingClientRect();
    layout.charts[figure.id] = [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height];
  });
  var out = document.createElement("pre");
  out.id = "lanes-layout";
  out.textContent = JSON.stringify(layout);
  document.body.appendChild(out);
})();</script>"""


def chromium(page, profile, *flags):
    """Runs headless Chromium on the file `page` with its own profile directory; returns the CompletedProcess."""
    if CHROMIUM is None:
        pytest.fail("Debian's chromium is not installed (scripts/setup installs it)")
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--force-device-scale-factor=1", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
               *flags, page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


def console_messages(stderr):
    """The page's console messages (errors, uncaught exceptions, logs) among Chromium's log lines."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def read_net_log(path):
    """Chromium's net log (JSON; its closing may be missing when Chromium exits at once)."""
    text = path.read_text().rstrip()
    for ending in ("", "]}", "}]}"):
        try:
            return json.loads(text.rstrip(",") + ending)
        except ValueError:
            continue
    raise AssertionError(f"{path} is not a Chromium net log")


def page_requests(log):
    """The URLs the page asked the network for: requests a document initiated (Chromium's own, for updates and
    the like, have no origin), other than file: and data: URLs."""
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    started = [event["params"] for event in log["events"]
               if event["type"] == start and "url" in event.get("params", {})]
    return sorted({params["url"] for params in started if params.get("initiator") != "not an origin"
                   and not re.match(r"(file|data):", params["url"])})


def open_page(page, directory, height=1000):
    """(dom, console messages, screenshot pixels as an array) of `page` in headless Chromium."""
    dumped = chromium(page, directory / "profile-dom", "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    screenshot = directory / "screenshot.png"
    shot = chromium(page, directory / "profile-shot", f"--screenshot={screenshot}", f"--window-size={WIDTH},{height}")
    assert shot.returncode == 0 and screenshot.is_file(), shot.stderr[-2000:]
    return dumped.stdout, console_messages(dumped.stderr) + console_messages(shot.stderr), \
        matplotlib.image.imread(screenshot)


def inspect_page(page, directory):
    """Everything the page tests check, from three runs of Chromium: {dom, console (messages), requests (URLs the
    page fetched from the network), layout {height, charts {id: [x, y, width, height]}}, pixels (a screenshot of
    the whole page)}."""
    net_log = directory / "net-log.json"
    dumped = chromium(page, directory / "profile-dom", "--dump-dom", f"--log-net-log={net_log}")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    probe = directory / f"{page.stem}.layout.html"
    probe.write_text(page.read_text().replace("</body>", LAYOUT_PROBE + "</body>"))
    probed = chromium(probe, directory / "profile-layout", "--dump-dom", f"--window-size={WIDTH},1000")
    assert probed.returncode == 0, probed.stderr[-2000:]
    layout = json.loads(re.search(r'<pre id="lanes-layout">([^<]*)</pre>', probed.stdout).group(1))
    screenshot = directory / "screenshot.png"
    shot = chromium(page, directory / "profile-shot", f"--screenshot={screenshot}",
                    f"--window-size={WIDTH},{layout['height']}")
    assert shot.returncode == 0 and screenshot.is_file(), shot.stderr[-2000:]
    return {"dom": dumped.stdout, "console": console_messages(dumped.stderr) + console_messages(shot.stderr),
            "requests": page_requests(read_net_log(net_log)), "layout": layout,
            "pixels": matplotlib.image.imread(screenshot)}


def drawn_share(pixels):
    """The share of the pixels that are not the background's colour (the top left pixel's)."""
    background = pixels[0, 0]
    return (abs(pixels[..., :3] - background[:3]).sum(axis=-1) > 0.1).mean()


def assert_not_blank(pixels):
    """Some of the screenshot is drawn: more than 2% of its pixels are not the background's colour."""
    differs = drawn_share(pixels)
    assert differs > 0.02, f"the screenshot is blank ({differs:.2%} of its pixels drawn)"


def chart_pixels(pixels, box):
    """The part of a whole-page screenshot where a chart ([x, y, width, height] from inspect_page) is drawn."""
    x, y, width, height = (int(round(v)) for v in box)
    return pixels[y:y + height, x:x + width]
