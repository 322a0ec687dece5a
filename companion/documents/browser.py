"""Headless Chromium driven over the Chrome DevTools protocol with aiohttp's own WebSocket client: the page's
browser tests (``tests/web/``) and its screenshots in docs/ (:mod:`companion.documents.pages`).

Debian's ``chromium`` (``.ci/chromium`` installs it); no chromedriver, no Selenium and no browser download: the
registries' browser downloads are not reachable from the table's CI, and the protocol is a few JSON messages.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

__all__ = ["Browser", "BrowserError", "Page", "chromium"]

START_S = 30.0  # how long Chromium may take to open its DevTools port (a cold start on a busy machine)


class BrowserError(RuntimeError):
    """Chromium is missing or did not start; the message says what to do."""


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium for as long as the block runs, with a profile of its own that is removed after."""
    program = shutil.which("chromium")
    if program is None:
        raise BrowserError("no chromium: install Debian's (sudo apt-get install chromium; make test does)")
    # Chromium's helpers may still write into the profile as it exits: what is left there is not worth a failure
    with tempfile.TemporaryDirectory(prefix="companion-chromium-", ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [
                program,
                "--headless",
                "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-background-networking",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield Browser(_devtools_port(Path(profile) / "DevToolsActivePort", process))
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _devtools_port(path: Path, process: subprocess.Popen[bytes]) -> int:
    """The port Chromium writes into its profile once it listens (the first line of DevToolsActivePort)."""
    end = time.monotonic() + START_S
    while not (path.is_file() and path.read_text().strip()):
        if process.poll() is not None:
            raise BrowserError(f"chromium exited with {process.returncode} before it listened")
        if time.monotonic() > end:
            raise BrowserError(f"chromium did not open its DevTools port in {START_S:.0f} s")
        time.sleep(0.05)
    return int(path.read_text().split()[0])


@dataclass
class Browser:
    port: int  # its DevTools port, on 127.0.0.1

    @contextlib.asynccontextmanager
    async def page(self, url: str) -> AsyncIterator[Page]:
        """A new tab on ``url``, closed afterwards."""
        async with aiohttp.ClientSession() as session:
            async with session.put(f"http://127.0.0.1:{self.port}/json/new?{url}") as response:
                target = await response.json()
            try:
                async with session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    yield Page(ws)
            finally:
                async with session.get(f"http://127.0.0.1:{self.port}/json/close/{target['id']}"):
                    pass


class Page:
    """One tab: DevTools calls, and JavaScript evaluated in the page."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.calls = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.calls += 1
        ident = self.calls
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        while True:  # events come in between; only the answer to this call matters
            message = json.loads((await self.ws.receive()).data)
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return dict(message["result"])

    async def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` (JSON-like; a DOM node comes back as an empty dict: test it with ``!!``); a
        promise's once it settles."""
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def until(self, expression: str, timeout: float = 10.0) -> Any:
        """The value of ``expression`` once it is truthy."""
        end = time.monotonic() + timeout
        while not (value := await self.evaluate(expression)):
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {expression}")
            await asyncio.sleep(0.02)
        return value

    async def click(self, selector: str) -> None:
        """A mouse click in the middle of the element ``selector`` finds (scrolled into view), as a finger's tap:
        the browser's own input events, which hit whatever is drawn there."""
        box = await self.evaluate(
            f"(() => {{ const node = document.querySelector({json.dumps(selector)}); if (!node) return null;"
            " node.scrollIntoView({block: 'center'}); const r = node.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"nothing to click: no {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def screenshot(self, width: int) -> bytes:
        """The whole page, ``width`` CSS pixels wide (as tall as it is), as PNG."""
        await self.call(
            "Emulation.setDeviceMetricsOverride", width=width, height=600, deviceScaleFactor=1, mobile=False
        )
        height = int(await self.evaluate("document.documentElement.scrollHeight"))
        await self.call(
            "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False
        )
        shot = await self.call("Page.captureScreenshot", format="png")
        return base64.b64decode(shot["data"])
