"""A project's ``store.index`` (semantic search, with an embedding function of its own,
``./embed.py:embed``) works on agent-tui's local server, and its items and their vectors
survive ``kill -9``: in langgraph's SQLite store with sqlite-vec, or, where this Python's
sqlite3 cannot load extensions, in the runtime's own store, saved with its records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server_process import killed_after
from tests.support.service_processes import Watchdog

EMBED = '''
def embed(texts):
    """Four numbers per text: how much of it is each of four words (a stand-in model)."""
    words = ["weather", "deploy", "invoice", "garden"]
    return [[float(text.count(word)) + 0.01 for word in words] for text in texts]
'''

ITEMS = {
    "a": "weather weather in paris",
    "b": "deploy deploy the service to staging",
    "c": "invoice for march invoice",
}


@pytest.fixture
def watchdog() -> Iterator[Watchdog]:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


def test_semantic_search_ranks_by_the_projects_embeddings_after_kill_nine(
    tmp_path: Path, watchdog: Watchdog
) -> None:
    project, data, log = tmp_path / "project", tmp_path / "data", tmp_path / "server.log"
    project.mkdir()
    data.mkdir()
    (project / "embed.py").write_text(EMBED)
    config = project / "langgraph.json"
    index = {"embed": "./embed.py:embed", "dims": 4, "fields": ["text"]}
    graphs = {"counter": "agent_tui.local.demo.counter:graph"}
    config.write_text(json.dumps({"graphs": graphs, "store": {"index": index}}))

    with killed_after(data, log, watchdog, config=config) as client:
        for key, text in ITEMS.items():
            put = client.put(
                "/store/items", json={"namespace": ["notes"], "key": key, "value": {"text": text}}
            )
            assert put.status_code == 204, (put.text, log.read_text()[-2000:])

    with killed_after(data, log, watchdog, config=config) as client:
        for query, best in (("deploy it", "b"), ("the invoice", "c"), ("weather?", "a")):
            found = client.post(
                "/store/items/search",
                json={"namespace_prefix": ["notes"], "query": query, "limit": 3},
            ).json()["items"]
            assert found[0]["key"] == best, (query, found)
            assert found[0]["score"] is not None
