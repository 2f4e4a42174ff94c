"""Make ding's log records visible however the user set logging up.

ding logs to named loggers (`ding.evaluator`, `ding.learner`, ...). With
`logging.basicConfig(level=INFO)` they propagate to the root handler. A program that
instead only calls `ditk.logging.getLogger().setLevel(INFO)` leaves the root a level but no
handler until ditk's own log functions add one, so standard-library logging drops INFO records.
`DefaultHandler` sits on the `ding` logger and prints a record only while the root has no
handler: the root's handlers print it otherwise, so nothing is printed twice. The level stays
the user's (the loggers' effective level is the root's unless set).
"""
import logging
import sys

FORMAT = '%(asctime)s %(name)s: %(message)s'


class DefaultHandler(logging.StreamHandler):
    """Prints to stderr (looked up at each record, as pytest and redirections swap it) while
    the root logger has no handler."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(FORMAT, datefmt='%H:%M:%S'))

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # StreamHandler.__init__ assigns it
        pass

    def handle(self, record: logging.LogRecord) -> bool:
        if logging.getLogger().handlers:
            return False
        return super().handle(record)


def install_default_handler() -> None:
    """Once per process (idempotent: a reloaded module does not add a second one)."""
    package_logger = logging.getLogger('ding')
    if not any(type(h).__name__ == DefaultHandler.__name__ for h in package_logger.handlers):
        package_logger.addHandler(DefaultHandler())
