"""Headless Chromium (Debian's, installed by ``.ci/debian``), driven over the DevTools protocol with aiohttp's
own WebSocket client: no driver program and no browser download. One browser serves a whole test module."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest


@dataclass
class Browser:
    port: int  # its DevTools port

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
                assert "error" not in message, message
                return dict(message["result"])

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    async def until(self, expression: str, timeout: float = 10.0) -> Any:
        """The value of ``expression`` once it is truthy."""
        end = time.monotonic() + timeout
        while not (value := await self.evaluate(expression)):
            assert time.monotonic() < end, f"timed out waiting for {expression}"
            await asyncio.sleep(0.02)
        return value


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    chromium = shutil.which("chromium")
    assert chromium, "no chromium: .ci/debian installs it (make test runs it)"
    profile = tmp_path_factory.mktemp("chromium")
    process = subprocess.Popen(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield Browser(_devtools_port(profile / "DevToolsActivePort", process))
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _devtools_port(path: Path, process: subprocess.Popen[bytes], timeout: float = 30.0) -> int:
    """The port Chromium writes into its profile once it listens (the first line of DevToolsActivePort)."""
    end = time.monotonic() + timeout
    while not (path.is_file() and path.read_text().strip()):
        assert process.poll() is None, f"chromium exited with {process.returncode}"
        assert time.monotonic() < end, "chromium did not open its DevTools port"
        time.sleep(0.05)
    return int(path.read_text().split()[0])
