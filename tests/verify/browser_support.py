"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``), no extra deps.

Chromium reads JSON commands, each ended by a NUL byte, on its file descriptor 3 and writes the answers and
events, ended the same way, on descriptor 4.  That is enough to set an exact viewport (a headless window is
never narrower than 500 px, so ``--window-size=400,...`` cannot show a phone), load a page, run a script in it
and take a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import time
from pathlib import Path

#: the Chromium executable, or None when none is installed
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    """One headless Chromium with one page, attached over the pipe.

    Parameters
    ----------
    executable : str
        The Chromium executable.
    timeout : float, optional
        Seconds to wait for any one answer.
    """

    def __init__(self, executable: str, timeout: float = 60.0):
        self.timeout = timeout
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the pipe ends go onto the descriptors 3 and 4 that Chromium expects (no shell: Debian's chromium is a
        # dash script, whose redirections take no descriptor above 9)
        args = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--remote-debugging-pipe", "about:blank"]
        self.pid = os.posix_spawn(executable, args, dict(os.environ), file_actions=[
            (os.POSIX_SPAWN_DUP2, to_browser_r, 3), (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._id = 0
        self._events: list[dict] = []
        self.session = None
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.send("Page.enable")
        except BaseException:
            self.close()
            raise

    def send(self, method: str, params: dict | None = None) -> dict:
        """Send one command (to the page once attached) and return its result.

        Parameters
        ----------
        method : str
            The DevTools method, e.g. ``Page.navigate``.
        params : dict, optional
            Its parameters.

        Returns
        -------
        dict
            The command's result.

        Raises
        ------
        RuntimeError
            When Chromium answers with an error.
        """
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if self.session is not None:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self._events.append(answer)

    def _wait_event(self, name: str) -> dict:
        for i, ev in enumerate(self._events):
            if ev.get("method") == name:
                return self._events.pop(i)
        while True:
            ev = self._read()
            if ev.get("method") == name:
                return ev
            self._events.append(ev)

    def _read(self) -> dict:
        end = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError(f"no answer from Chromium in {self.timeout:g} s")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def open(self, url: str, width: int, height: int = 900) -> None:
        """Load ``url`` afresh in a viewport of ``width`` x ``height`` CSS pixels and wait for its load event.

        Parameters
        ----------
        url : str
            The address (a ``file://`` URI, with a fragment or not).
        width, height : int
            The viewport in CSS pixels (a desktop window of that size, scale 1).
        """
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        # by way of about:blank: the same page with another fragment would only scroll, and fire no load event
        for address in ("about:blank", url):
            self._events = [ev for ev in self._events if ev.get("method") != "Page.loadEventFired"]
            self.send("Page.navigate", {"url": address})
            self._wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited).

        Parameters
        ----------
        expression : str
            JavaScript; its value must be JSON.

        Returns
        -------
        object
            The value.
        """
        res = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in res:
            raise RuntimeError(f"script failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: str | os.PathLike) -> Path:
        """Save what the viewport shows as a PNG.

        Parameters
        ----------
        path : str or path
            The file to write.

        Returns
        -------
        Path
            ``path``.
        """
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """End Chromium (politely, then by force) and close the pipes."""
        try:
            self.session = None
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError, ValueError):
            pass
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        end = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > end:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
