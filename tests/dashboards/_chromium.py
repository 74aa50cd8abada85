"""Drive a real headless Chromium over the DevTools protocol (a websocket, no Playwright):
open a page, wait until text shows, read the page text, take a screenshot.

Chromium comes from Debian (``apt-get install -y chromium``); nothing is downloaded. It runs
with a fresh profile and no background networking, and talks only to 127.0.0.1.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.sync.client import connect
from websockets.sync.connection import Connection

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """One headless Chromium and one page (tab) in it."""

    def __init__(self, ws: Connection, session: str) -> None:
        self._ws = ws
        self._session = session
        self._next = 0

    def call(self, method: str, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        message = {"id": ident, "method": method, "params": params, "sessionId": self._session}
        self._ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{method}: no answer in {timeout} s")
            reply = json.loads(self._ws.recv(timeout=left))
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def text(self) -> str:
        return str(self.evaluate("document.body ? document.body.innerText : ''") or "")

    def busy(self) -> bool:
        """Whether Streamlit is still running the page's script (its status widget shows)."""
        return bool(self.evaluate("!!document.querySelector('[data-testid=stStatusWidget]')"))

    def heading(self) -> str:
        return str(self.evaluate("(document.querySelector('h1') || {}).innerText || ''") or "")

    def press(self, x: float, y: float) -> None:
        """A left click at viewport point (x, y) as the mouse makes it, press then release:
        a baseweb select opens and picks on these events, which an element's click() lacks."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def click_nav(self, title: str) -> None:
        """Follow the sidebar link with this title, as a person does (no page reload)."""
        clicked = self.evaluate(
            "(() => { const a = [...document.querySelectorAll('[data-testid=stSidebarNavLink]')]"
            f".find(e => e.innerText.trim().endsWith({title!r})); if (a) {{ a.click(); }} "
            "return !!a; })()"
        )
        if not clicked:
            raise AssertionError(f"no sidebar link {title!r}")

    def wait_for(self, *needles: str, timeout: float = 60, poll: float = 0.3) -> str:
        """Wait until the script run is over, the page text contains every needle and has
        stopped changing between two polls ``poll`` seconds apart; returns the text."""
        deadline = time.monotonic() + timeout
        text = previous = ""
        while time.monotonic() < deadline:
            text = self.text()
            if all(n in text for n in needles) and not self.busy() and text == previous:
                return text
            previous = text
            time.sleep(poll)
        missing = [n for n in needles if n not in text]
        raise AssertionError(f"page never showed {missing}; it shows:\n{text[:3000]}")

    def screenshot(self, path: Path, settle: float = 1.5) -> Path:
        height = self.evaluate(
            "Math.max(document.body.scrollHeight, "
            "...Array.from(document.querySelectorAll('section, [data-testid=stMain]'))"
            ".map(e => e.scrollHeight))"
        )
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=1400,
            height=min(max(int(height or 1000), 900), 6000),
            deviceScaleFactor=1,
            mobile=False,
        )
        time.sleep(settle)
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data["data"]))
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=1400,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
        return path


@contextlib.contextmanager
def chromium(binary: Path = CHROMIUM) -> Iterator[Browser]:
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    process = subprocess.Popen(
        [
            str(binary),
            *FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--window-size=1400,1000",
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = _devtools_url(process)
        assert process.stderr is not None
        stderr = process.stderr
        threading.Thread(target=lambda: [None for _ in stderr], daemon=True).start()  # drain
        # no keepalive pings: the socket is local, and a Chromium busy on a loaded machine
        # answering a ping late is no reason to drop the test
        with connect(url, max_size=None, open_timeout=20, ping_interval=None) as ws:
            ws.send(json.dumps({"id": 1, "method": "Target.createTarget", "params": {"url": ""}}))
            target = _reply(ws, 1)["targetId"]
            ws.send(
                json.dumps(
                    {
                        "id": 2,
                        "method": "Target.attachToTarget",
                        "params": {"targetId": target, "flatten": True},
                    }
                )
            )
            browser = Browser(ws, _reply(ws, 2)["sessionId"])
            browser.call("Page.enable")
            browser.call("Runtime.enable")
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                width=1400,
                height=1000,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield browser
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)


def _devtools_url(process: subprocess.Popen[str], timeout: float = 30) -> str:
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            if process.poll() is not None:
                break
            continue
        seen.append(line)
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            return match.group(1)
    raise RuntimeError("Chromium did not start its DevTools endpoint:\n" + "".join(seen[-20:]))


def _reply(ws: Connection, ident: int) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv(timeout=30))
        if message.get("id") == ident:
            if "error" in message:
                raise RuntimeError(str(message["error"]))
            result: dict[str, Any] = message["result"]
            return result
