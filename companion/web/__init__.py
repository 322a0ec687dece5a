"""The table's page: a live view of the game for every phone and laptop at the table (docs/WEB.md).

Served by aiohttp from the daemon's own asyncio loop (one process, no second server to keep alive), as one more
output of the table: :class:`WebServer` takes each new view as the LEDs and the screen do, without ever making
the table wait for it. :mod:`companion.web.page` builds what the page is sent, from the referee's state alone.
"""

from __future__ import annotations

from companion.web.server import WebServer

__all__ = ["WebServer"]
