"""The scan's progress on stderr: a live bar with an ETA on a terminal, a plain line per run otherwise."""


def duration(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """Lane-confined (the scan's main thread). The ETA is the mean duration of this invocation's runs so far."""

    WIDTH = 24

    def __init__(self, total, done, stream):
        self.total, self.done, self.stream = total, done, stream
        self.live = stream.isatty()
        self.durations = []
        if done:
            self._say(f"resuming: {done} of {total} runs already done")

    def _bar(self):
        filled = self.WIDTH * self.done // max(self.total, 1)
        return "[" + "#" * filled + "-" * (self.WIDTH - filled) + f"] {self.done}/{self.total}"

    def _eta(self):
        if not self.durations:
            return "ETA ?"
        return "ETA " + duration(sum(self.durations) / len(self.durations) * (self.total - self.done))

    def _say(self, line):
        if self.live:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def start(self, run_id, label):
        if self.live:
            self._say(f"{self._bar()} {self._eta()}  {run_id} {label}")

    def finish(self, run_id, seconds, error):
        self.done += 1
        self.durations.append(seconds)
        outcome = f"FAILED: {error}" if error else f"{seconds:.1f} s"
        if not self.live:
            self._say(f"{self._bar()} {self._eta()}  {run_id} {outcome}")
            return
        if error:  # a failure stays on the screen, above the bar
            self.stream.write(f"\r\033[K{run_id} {outcome}\n")
        self._say(f"{self._bar()} {self._eta()}")

    def close(self):
        if self.live:
            self._say(f"{self._bar()} done\n")
