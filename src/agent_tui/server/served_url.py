"""The server's own URL with the port it really serves on.

On an inherited socket (``--fd``) `main` hands langgraph-api's ``run_server`` port 0: its
port probe binds with ``SO_REUSEADDR`` only, finds our listening socket busy and would
pick another port. So the URL it builds says ``:0``: in its welcome banner and in
``LANGGRAPH_API_URL``, which langgraph-api reads once at import (`langgraph_api.metadata`)
into every run's metadata (``langgraph_api_url``), the OpenAPI ``servers`` and the A2A
agent card, and which a graph may read to call its own server.

`ServedUrl` is a logging filter on ``run_server``'s logger. The banner is the first thing
it logs after setting ``LANGGRAPH_API_URL`` and before uvicorn imports the server, so
the filter puts the real port in the banner and in the environment there. Only a URL that
ends in ``:0`` is touched: a release that builds it otherwise is left as it is.
"""

from __future__ import annotations

import logging
import os
import re

LOGGER = "langgraph_api.cli"
URL_VARIABLE = "LANGGRAPH_API_URL"


class ServedUrl(logging.Filter):
    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port
        self.wrong = self.right = ""

    def filter(self, record: logging.LogRecord) -> bool:
        url = os.environ.get(URL_VARIABLE, "")
        if match := re.fullmatch(r"(https?://[^/]+):0(/.*)?", url):
            self.wrong, self.right = url, f"{match.group(1)}:{self.port}{match.group(2) or ''}"
            os.environ[URL_VARIABLE] = self.right
        if self.wrong and isinstance(record.msg, str):
            record.msg = record.msg.replace(self.wrong, self.right)
        return True


def correct_served_url(port: int) -> None:
    """From now on, ``run_server``'s URL names ``port`` (see the module's text)."""
    logging.getLogger(LOGGER).addFilter(ServedUrl(port))
