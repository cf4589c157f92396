"""One round of writes over HTTP to a local agent server of the demo graphs, each
acknowledged (2xx), and the check that a later server on the same data folder still has
them: a thread with a streamed chat run, a thread with a ``runs/wait`` counter run, a copy
of that thread, a background run, an assistant and its rename, a cron, a store item and a
deleted thread (10 checks a round)."""

from __future__ import annotations

from typing import Any

import httpx

CHAT = {"messages": [{"role": "user", "content": "weather in Paris"}]}
CHECKS_PER_ROUND = 10


def ok(response: httpx.Response) -> Any:
    response.raise_for_status()
    return response.json() if response.content else None


def write_round(client: httpx.Client, n: int) -> dict[str, Any]:
    """Round ``n``'s writes; returns what `lost_writes` checks."""
    w: dict[str, Any] = {}
    w["chat"] = ok(client.post("/threads", json={"metadata": {"n": n}}))["thread_id"]
    body = {"assistant_id": "chat", "input": CHAT, "stream_mode": ["values"]}
    with client.stream("POST", f"/threads/{w['chat']}/runs/stream", json=body) as stream:
        last = [line for line in stream.iter_lines() if line.startswith("data:")][-1]
    assert "Paris" in last, last
    w["counter"] = ok(client.post("/threads", json={}))["thread_id"]
    answer = ok(
        client.post(
            f"/threads/{w['counter']}/runs/wait",
            json={"assistant_id": "counter", "input": {"by": 3}},
        )
    )
    assert answer["count"] == 3, answer
    w["copy"] = ok(client.post(f"/threads/{w['counter']}/copy", json={}))["thread_id"]
    w["background"] = ok(client.post("/threads", json={}))["thread_id"]
    w["background_run"] = ok(
        client.post(
            f"/threads/{w['background']}/runs", json={"assistant_id": "counter", "input": {"by": 5}}
        )
    )["run_id"]
    assistant = ok(client.post("/assistants", json={"graph_id": "counter", "name": f"kept-{n}"}))
    w["assistant"] = assistant["assistant_id"]
    ok(client.patch(f"/assistants/{w['assistant']}", json={"name": f"renamed-{n}"}))
    w["cron"] = ok(
        client.post(
            f"/threads/{w['counter']}/runs/crons",
            json={"assistant_id": "counter", "schedule": "0 0 1 1 *", "input": {"by": 1}},
        )
    )["cron_id"]
    ok(
        client.put(
            "/store/items", json={"namespace": ["kill", str(n)], "key": "k", "value": {"n": n}}
        )
    )
    doomed = ok(client.post("/threads", json={}))["thread_id"]
    client.delete(f"/threads/{doomed}").raise_for_status()
    w["deleted"] = doomed
    return w


def lost_writes(client: httpx.Client, w: dict[str, Any], n: int) -> list[str]:
    """What of round ``n``'s writes (``w``, from `write_round`) the server lacks."""
    lost = []

    def expect(what: str, condition: bool) -> None:
        if not condition:
            lost.append(what)

    state = client.get(f"/threads/{w['chat']}/state").json()
    expect("chat state", "Paris" in str(state.get("values")))
    expect("chat run success", statuses(client, w["chat"]) == ["success"])
    state = client.get(f"/threads/{w['counter']}/state").json()
    expect("counter state", (state.get("values") or {}).get("count") == 3)
    expect("counter run success", statuses(client, w["counter"]) == ["success"])
    state = client.get(f"/threads/{w['copy']}/state").json()
    expect("copied thread state", (state.get("values") or {}).get("count") == 3)
    run = client.get(f"/threads/{w['background']}/runs/{w['background_run']}")
    expect("background run", run.status_code == 200)
    assistant = client.get(f"/assistants/{w['assistant']}")
    expect(
        "assistant rename",
        assistant.status_code == 200 and assistant.json()["name"] == f"renamed-{n}",
    )
    crons = client.post("/runs/crons/search", json={"thread_id": w["counter"]}).json()
    expect("cron", isinstance(crons, list) and any(c["cron_id"] == w["cron"] for c in crons))
    item = client.get("/store/items", params={"namespace": f"kill.{n}", "key": "k"})
    expect("store item", item.status_code == 200 and item.json()["value"] == {"n": n})
    expect("thread deletion", client.get(f"/threads/{w['deleted']}").status_code == 404)
    return lost


def statuses(client: httpx.Client, thread_id: str) -> list[str] | None:
    """The thread's runs' statuses (None: the thread is not there)."""
    runs = client.get(f"/threads/{thread_id}/runs")
    return [r["status"] for r in runs.json()] if runs.status_code == 200 else None
