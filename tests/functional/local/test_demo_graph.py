"""The bundled demo graphs, driven over plain HTTP against the real server.

What the chat pane shows comes from these streams, so the texts are asserted exactly. The
SSE parsing here is deliberately minimal and independent of `agent_tui.client`.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_tui.client import AgentServerClient
from agent_tui.local.demo import replies, tools

FAST = {"token_delay_ms": 0}
Event = tuple[str, Any]


@pytest.fixture
def server(agent_server_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=agent_server_url, trust_env=False, timeout=30) as client:
        yield client


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def new_thread(server: httpx.Client) -> str:
    thread_id: str = server.post("/threads", json={}).json()["thread_id"]
    return thread_id


def stream(server: httpx.Client, thread_id: str, **body: Any) -> list[Event]:
    """POST a streamed run and return its ``(event, data)`` pairs in order."""
    body = {"assistant_id": "chat", "stream_mode": ["updates", "messages-tuple"], **body}
    events: list[Event] = []
    with server.stream("POST", f"/threads/{thread_id}/runs/stream", json=body) as response:
        assert response.status_code == 200
        name, data = "", []
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data.append(line.removeprefix("data:").strip())
            elif not line and name:
                events.append((name, json.loads("\n".join(data)) if data else None))
                name, data = "", []
    return events


def messages(events: list[Event]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The ``messages-tuple`` events: ``(message chunk, metadata)`` pairs."""
    return [(data[0], data[1]) for name, data in events if name == "messages"]


def tokens(events: list[Event], node: str = "agent") -> list[str]:
    return [
        chunk["content"]
        for chunk, meta in messages(events)
        if meta["langgraph_node"] == node and chunk["content"]
    ]


def updates(events: list[Event]) -> list[dict[str, Any]]:
    return [data for name, data in events if name == "updates"]


def answer(server: httpx.Client, text: str, context: dict[str, Any]) -> str:
    run = server.post(
        "/runs/wait", json={"assistant_id": "chat", "input": ask(text), "context": context}
    )
    content: str = run.json()["messages"][-1]["content"]
    return content


def chat_assistant_id(server: httpx.Client) -> str:
    found = server.post("/assistants/search", json={"graph_id": "chat", "limit": 100}).json()
    return str(
        next(a["assistant_id"] for a in found if a["metadata"].get("created_by") == "system")
    )


# -- shape ----------------------------------------------------------------------------------


def test_schemas_offer_the_context_keys_with_their_defaults(server: httpx.Client) -> None:
    schemas = server.get(f"/assistants/{chat_assistant_id(server)}/schemas").json()
    properties = schemas["context_schema"]["properties"]
    assert {key: spec["default"] for key, spec in properties.items()} == {
        "style": "plain",
        "shout": False,
        "token_delay_ms": 20,
    }
    assert properties["style"]["enum"] == ["plain", "pirate"]
    assert properties["shout"]["description"] == "Answer in capital letters."


def test_graph_has_agent_tools_and_approve_nodes(server: httpx.Client) -> None:
    graph = server.get(f"/assistants/{chat_assistant_id(server)}/graph").json()
    assert [node["id"] for node in graph["nodes"]] == [
        "__start__",
        "agent",
        "tools",
        "approve",
        "__end__",
    ]
    edges = {(edge["source"], edge["target"]) for edge in graph["edges"]}
    assert {("agent", "tools"), ("agent", "approve"), ("tools", "agent")} <= edges


# -- answers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({}, "You said: hello"),
        ({"style": "pirate"}, "Arr! You said: hello"),
        ({"shout": True}, "YOU SAID: HELLO"),
        ({"style": "pirate", "shout": True}, "ARR! YOU SAID: HELLO"),
    ],
)
def test_context_keys_change_the_answer(
    server: httpx.Client, context: dict[str, Any], expected: str
) -> None:
    assert answer(server, "hello", {**FAST, **context}) == expected


def test_tokens_stream_one_by_one_in_order_and_join_to_the_final_message(
    server: httpx.Client,
) -> None:
    events = stream(server, new_thread(server), input=ask("hello there, world"), context=FAST)
    assert events[0][0] == "metadata" and events[0][1]["run_id"]
    assert tokens(events) == ["You", " said:", " hello", " there,", " world"]
    final = updates(events)[-1]["agent"]["messages"][0]
    assert final["content"] == "You said: hello there, world"
    token_ids = {chunk["id"] for chunk, _ in messages(events)}
    assert token_ids == {final["id"]}  # tokens and the final message share an id
    last_token = max(i for i, (name, _) in enumerate(events) if name == "messages")
    assert last_token < events.index(("updates", updates(events)[-1]))


def test_count_to_streams_a_long_answer(server: httpx.Client) -> None:
    events = stream(server, new_thread(server), input=ask("count to 12"), context=FAST)
    assert tokens(events) == ["1"] + [f" {i}" for i in range(2, 13)]


def test_a_tool_call_and_its_result_are_streamed(server: httpx.Client) -> None:
    events = stream(server, new_thread(server), input=ask("What's the weather in paris?"))
    steps = updates(events)
    assert [next(iter(step)) for step in steps] == ["agent", "tools", "agent"]
    call = steps[0]["agent"]["messages"][0]["tool_calls"]
    assert call == [
        {
            "name": "get_weather",
            "args": {"city": "Paris"},
            "id": "call_get_weather_1",
            "type": "tool_call",
        }
    ]
    result = steps[1]["tools"]["messages"][0]
    assert (result["type"], result["name"], result["tool_call_id"], result["content"]) == (
        "tool",
        "get_weather",
        "call_get_weather_1",
        "It is windy and 13 C in Paris.",
    )
    assert steps[2]["agent"]["messages"][0]["content"] == "It is windy and 13 C in Paris."
    streamed_calls = [
        chunk["tool_call_chunks"] for chunk, _ in messages(events) if chunk.get("tool_call_chunks")
    ]
    assert streamed_calls == [
        [
            {
                "name": "get_weather",
                "args": '{"city": "Paris"}',
                "id": "call_get_weather_1",
                "index": 0,
                "type": "tool_call_chunk",
            }
        ]
    ]


async def test_the_cities_asked_about_are_remembered_in_the_store(
    agent_server_url: str,
) -> None:
    # A city of its own (letters only, as the demo reads them): other tests ask about Paris.
    city = "Zz" + "".join(random.choices(string.ascii_lowercase, k=10))
    async with AgentServerClient(agent_server_url) as client:
        thread_ids = []
        for question in (f"weather in {city}", f"What's the weather in {city.upper()}?"):
            thread = await client.threads.create()
            async with client.runs.stream(
                thread.thread_id, "chat", input=ask(question), context=FAST
            ) as run:
                async for _ in run:
                    pass
            thread_ids.append(thread.thread_id)
        found = await client.store.search_items(["chat"], filter={"city": city.title()})
    # One memory per city, whatever the case it was asked in, counting the questions.
    assert [(item.ns, item.key) for item in found] == [(("chat", "demo", "cities"), city.lower())]
    assert found[0].value == {
        "city": city.title(),
        "times_asked": 2,
        "last_thread_id": thread_ids[-1],
    }


async def test_without_a_store_the_graph_answers_the_same() -> None:
    from langchain_core.messages import HumanMessage
    from langgraph.graph import MessagesState
    from langgraph.store.memory import InMemoryStore

    from agent_tui.local.demo.chat import ChatContext, builder, graph

    question = MessagesState(messages=[HumanMessage("weather in Paris")])
    context = ChatContext(token_delay_ms=0)
    alone = await graph.ainvoke(question, context=context)
    store = InMemoryStore()
    remembering = builder.compile(store=store)
    with_store = await remembering.ainvoke(question, context=context)
    assert alone["messages"][-1].content == with_store["messages"][-1].content
    assert alone["messages"][-1].content == "It is windy and 13 C in Paris."
    item = await store.aget(("chat", "demo", "cities"), "paris")
    assert item is not None and item.value["times_asked"] == 1


@pytest.mark.parametrize(
    ("question", "expected"),
    [("calc 2+2", "2+2 = 4"), ("calc 1/0", "Cannot calculate 1/0: division by zero.")],
)
def test_calculator_answers(server: httpx.Client, question: str, expected: str) -> None:
    assert answer(server, question, FAST) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("yes", "Deployed to staging."), ("no", "Deployment to staging cancelled.")],
)
def test_deploy_waits_for_approval_and_resumes_with_the_answer(
    server: httpx.Client, reply: str, expected: str
) -> None:
    thread_id = new_thread(server)
    events = stream(server, thread_id, input=ask("deploy to staging"), context=FAST)
    interrupts = [step["__interrupt__"] for step in updates(events) if "__interrupt__" in step]
    assert [[i["value"] for i in batch] for batch in interrupts] == [
        [{"action": "deploy", "target": "staging", "question": "Deploy to staging? (yes/no)"}]
    ]
    assert server.get(f"/threads/{thread_id}").json()["status"] == "interrupted"
    assert server.get(f"/threads/{thread_id}/state").json()["next"] == ["approve"]

    resumed = stream(server, thread_id, command={"resume": reply}, context=FAST)
    assert [next(iter(step)) for step in updates(resumed)] == ["approve", "agent"]
    assert updates(resumed)[0]["approve"]["messages"][0]["content"] == expected
    assert "".join(tokens(resumed)) == expected
    assert server.get(f"/threads/{thread_id}").json()["status"] == "idle"


def test_a_failing_input_ends_the_run_with_an_error_event(server: httpx.Client) -> None:
    thread_id = new_thread(server)
    events = stream(server, thread_id, input=ask("please fail"), context=FAST)
    assert [name for name, _ in events] == ["metadata", "error"]
    assert events[1][1] == {"error": "DemoFailure", "message": "You asked me to fail."}
    assert server.get(f"/threads/{thread_id}").json()["status"] == "error"


# -- the other graphs -----------------------------------------------------------------------


def test_counter_keeps_numbers_and_lists_across_runs(server: httpx.Client) -> None:
    thread_id = new_thread(server)
    for by in (1, 2):
        server.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "demo_counter", "input": {"by": by}},
        ).raise_for_status()
    state = server.get(f"/threads/{thread_id}/state").json()
    assert state["values"] == {"count": 3, "by": 2, "history": [1, 3], "log": ["+1 → 1", "+2 → 3"]}
    relabelled = server.post(
        "/runs/wait",
        json={"assistant_id": "demo_counter", "input": {}, "context": {"label": "total"}},
    ).json()
    assert relabelled["log"] == ["+1 → total 1"]


def test_loop_graph_makes_many_checkpoints_in_one_run(server: httpx.Client) -> None:
    thread_id = new_thread(server)
    server.post(
        f"/threads/{thread_id}/runs/wait", json={"assistant_id": "loop", "input": {"steps": 60}}
    ).raise_for_status()
    history = server.post(f"/threads/{thread_id}/history", json={"limit": 1000}).json()
    assert [state["metadata"]["step"] for state in history] == list(range(60, -2, -1))
    assert history[0]["values"]["seen"] == list(range(1, 61))


def test_nested_graph_streams_subgraph_events_under_their_namespace(
    server: httpx.Client,
) -> None:
    events = stream(
        server,
        new_thread(server),
        assistant_id="nested",
        input=ask("hi"),
        context=FAST,
        stream_subgraphs=True,
    )
    names = [name.split(":")[0] for name, _ in events]
    assert names == ["metadata", "updates", *["messages|chat"] * 3, "updates|chat", "updates"]
    assert events[1][1] == {"prepare": None}  # a node that wrote nothing


# -- the rules, without a server ------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "one", "  two  words ", "a\nb", "trailing "])
def test_tokens_join_back_to_the_text(text: str) -> None:
    assert "".join(replies.tokens(text)) == text


def test_tools_are_deterministic() -> None:
    assert tools.weather_report("Paris") == tools.weather_report("Paris")
    assert tools.calculation_report("(3*4)/2") == "(3*4)/2 = 6"
    assert tools.calculation_report("2**1000") == "Cannot calculate 2**1000: exponent too large."
    assert tools.calculation_report("__import__('os')") == (
        "Cannot calculate __import__('os'): only numbers and + - * / // % ** ( ) are allowed."
    )
