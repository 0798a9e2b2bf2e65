"""Headless Chromium (Debian's `chromium`) for the HTML report's tests: the DOM after the scripts ran, the
console messages, and a screenshot as a numpy array."""

import shutil
import subprocess

import matplotlib.image
import pytest

CHROMIUM = shutil.which("chromium")


def chromium(page, profile, *flags):
    """Runs headless Chromium on the file `page` with its own profile directory; returns the CompletedProcess."""
    if CHROMIUM is None:
        pytest.fail("Debian's chromium is not installed (scripts/setup installs it)")
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *flags, page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


def console_messages(stderr):
    """The page's console messages (errors, uncaught exceptions, logs) among Chromium's log lines."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def open_page(page, directory):
    """(dom, console messages, screenshot pixels as an array) of `page` in headless Chromium."""
    dumped = chromium(page, directory / "profile-dom", "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    screenshot = directory / "screenshot.png"
    shot = chromium(page, directory / "profile-shot", f"--screenshot={screenshot}", "--window-size=1200,1000")
    assert shot.returncode == 0 and screenshot.is_file(), shot.stderr[-2000:]
    return dumped.stdout, console_messages(dumped.stderr) + console_messages(shot.stderr), \
        matplotlib.image.imread(screenshot)


def assert_not_blank(pixels):
    """Some of the screenshot is drawn: more than 2% of its pixels are not the background's colour."""
    background = pixels[0, 0]
    differs = (abs(pixels[..., :3] - background[:3]).sum(axis=-1) > 0.1).mean()
    assert differs > 0.02, f"the screenshot is blank ({differs:.2%} of its pixels drawn)"
