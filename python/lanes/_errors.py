"""The errors of the `lanes` package."""


class OptionError(ValueError):
    """A job names a plugin or an option that lanes does not have: raised as the job is built, before it runs."""


class MenuError(ValueError):
    """A menu file that cannot be read into a job."""


class JobError(RuntimeError):
    """A job that failed: `error` is lanes' one-line error (naming the module, event and file), `result` the
    job's result when it wrote its report (None for bad input, which lanes finds before any event), `status` the
    exit status of `lanes run`."""

    def __init__(self, error, result=None, status=None):
        super().__init__(error)
        self.error = error
        self.result = result
        self.status = status

    @property
    def report(self):
        """The run report (a dict), or None."""
        return self.result.report if self.result is not None else None
