"""``python -m verify`` is the ``dpverify`` command.

The command's signal handlers are installed here, before its modules (NumPy, SciPy, the registry) are
imported: a Ctrl-C or SIGTERM that arrives during start-up ends the command with one line on stderr and the
conventional exit status (130 for SIGINT, 143 for SIGTERM), never a traceback.
"""

from __future__ import annotations

import signal
import sys
import threading

_STOPPED = {signal.SIGINT: ("interrupted", 130), signal.SIGTERM: ("terminated (SIGTERM)", 143)}


class _Stop(BaseException):
    """A signal that arrived before the command's own handlers were in place."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum, frame):
    raise _Stop(signum)


def start(argv=None) -> int:
    """Run the ``dpverify`` command line (the console script's entry point); return the exit status.

    Parameters
    ----------
    argv : sequence of str or None, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status of :func:`verify.cli.main`; 130 or 143 when SIGINT or SIGTERM arrived during start-up.
    """
    on_main = threading.current_thread() is threading.main_thread()
    old = {}
    try:
        if on_main:
            for s in _STOPPED:
                if signal.getsignal(s) is not signal.SIG_IGN:  # a signal ignored by the caller stays ignored
                    old[s] = signal.signal(s, _stop)
        from .cli import main
    except (_Stop, KeyboardInterrupt) as exc:
        what, status = _STOPPED[getattr(exc, "signum", signal.SIGINT)]
        print(f"dpverify: {what}: stopped during start-up; nothing was written", file=sys.stderr, flush=True)
        return status
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return main(argv)


if __name__ == "__main__":
    raise SystemExit(start())
