"""ChatTranscript and ReplayFilter with hand-made events in the shapes langgraph-api sends."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.chat.event_order import REPLAY_ALL, ReplayFilter, event_order
from agent_tui.chat.items import (
    Added,
    AIItem,
    Appended,
    Cleared,
    CustomItem,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    Updated,
)
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client.events import RunEvent, UnknownEvent, parse_run_event
from agent_tui.client.sse import ServerSentEvent

NS = ("chat:1f0",)


def event(name: str, data: Any, event_id: str | None = None) -> RunEvent:
    return parse_run_event(ServerSentEvent(event=name, data=json.dumps(data), id=event_id))


def chunk(text: str, msg_id: str = "ai-1", **extra: Any) -> dict[str, Any]:
    return {"type": "AIMessageChunk", "id": msg_id, "content": text, **extra}


def token(text: str, event_id: str, msg_id: str = "ai-1", name: str = "messages") -> RunEvent:
    return event(name, [chunk(text, msg_id), {"langgraph_node": "agent"}], event_id)


def ai(text: str, msg_id: str = "ai-1", tool_calls: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "ai", "id": msg_id, "content": text, "tool_calls": tool_calls or []}


def update(node: str, messages: list[Any], event_id: str, name: str = "updates") -> RunEvent:
    return event(name, {node: {"messages": messages}}, event_id)


def test_tokens_grow_one_item_and_the_update_finalises_it_once() -> None:
    model = ChatTranscript()
    first = model.apply(token("Hel", "100-0"))
    assert [type(c) for c in first] == [Added, Appended]
    item = first[0].item  # type: ignore[union-attr]
    assert isinstance(item, AIItem) and item.node == "agent" and item.streaming
    assert model.apply(token("lo", "101-0")) == [Appended(item, "lo")]
    assert item.text == "Hello"
    changes = model.apply(update("agent", [ai("Hello")], "102-0"))
    assert changes[0] == Updated(item)  # only `streaming` ended: text unchanged
    assert not item.streaming
    assert isinstance(model.items[-1], NodeUpdateItem) and model.items[-1].node == "agent"
    # The same final message again (a values snapshot) changes nothing.
    assert model.apply(event("values", {"messages": [ai("Hello")]}, "103-0")) == []
    # A late chunk must not grow the exact final text.
    assert model.apply(token("!!", "104-0")) == []
    assert model.ai_texts() == ["Hello"]


def test_the_final_text_replaces_a_streamed_text_that_differs() -> None:
    model = ChatTranscript()
    model.apply(token("Helo", "1-0"))
    changes = model.apply(update("agent", [ai("Hello")], "2-0"))
    assert isinstance(changes[0], Updated)
    assert model.ai_texts() == ["Hello"]


def test_replayed_events_are_recognised_once_for_the_transcript() -> None:
    # One dedup: the run's replay filter decides, the transcript (and the inspector)
    # take what it lets through, as `ChatSession` does.
    replay, model = ReplayFilter(), ChatTranscript()

    def feed(run_event: RunEvent) -> bool:
        if replay.is_duplicate(run_event):
            return False
        model.apply(run_event)
        return True

    assert feed(event("metadata", {"run_id": "r1"}, "1-0"))
    assert feed(token("a", "5-0")) and feed(token("b", "6-0"))
    assert not feed(token("a", "5-0"))  # older id: a replay
    # Several events may share an id on the in-memory server: the same id is not a replay.
    assert feed(token("c", "6-0"))
    assert model.ai_texts() == ["abc"]


def test_subgraph_events_carry_their_namespace() -> None:
    model = ChatTranscript()
    model.apply(token("x", "1-0", name="messages|chat:1f0"))
    model.apply(update("agent", [ai("x")], "2-0", name="updates|chat:1f0"))
    model.apply(event("custom|chat:1f0", {"progress": 1}, "3-0"))
    ai_item, node, custom = model.items
    assert isinstance(ai_item, AIItem) and ai_item.namespace == NS
    assert isinstance(node, NodeUpdateItem) and node.namespace == NS
    assert isinstance(custom, CustomItem) and custom.namespace == NS
    assert custom.data == {"progress": 1}


def test_events_the_transcript_does_not_show_change_nothing() -> None:
    model = ChatTranscript()
    for name in ("debug", "tasks", "checkpoints", "something_new", "end", "metadata"):
        assert model.apply(event(name, {"x": 1}, None)) == []
    assert isinstance(event("something_new", {}, None), UnknownEvent)
    assert model.items == []


def test_tool_call_chunks_assemble_into_calls_and_results_appear_once() -> None:
    model = ChatTranscript()
    parts = [
        {"index": 0, "id": "call-1", "name": "get_weather", "args": '{"ci'},
        {"index": 0, "args": 'ty": "Paris"}'},
    ]
    model.apply(event("messages", [chunk("", tool_call_chunks=[parts[0]]), {}], "1-0"))
    item = model.items[0]
    assert isinstance(item, AIItem) and item.tool_calls[0].args == '{"ci'  # still streaming
    model.apply(event("messages", [chunk("", tool_call_chunks=[parts[1]]), {}], "2-0"))
    call = item.tool_calls[0]
    assert (call.id, call.name, call.args) == ("call-1", "get_weather", {"city": "Paris"})
    tool = {
        "type": "tool",
        "id": "t-1",
        "content": "Sunny.",
        "tool_call_id": "call-1",
        "name": "get_weather",
    }
    model.apply(event("messages", [tool, {"langgraph_node": "tools"}], "3-0"))
    model.apply(update("tools", [tool], "4-0"))
    results = [i for i in model.items if isinstance(i, ToolResultItem)]
    assert [(r.content, r.tool_call_id, r.status) for r in results] == [
        ("Sunny.", "call-1", "success")
    ]


def test_an_interrupt_is_shown_once_and_an_error_stops_the_run() -> None:
    model = ChatTranscript()
    interrupt = {"value": {"question": "Deploy?"}, "id": "i-1"}
    model.apply(event("updates", {"__interrupt__": [interrupt]}, "1-0"))
    model.apply(event("values", {"__interrupt__": [interrupt]}, "2-0"))
    interrupts = [i for i in model.items if isinstance(i, InterruptItem)]
    assert [(i.value, i.interrupt_id) for i in interrupts] == [({"question": "Deploy?"}, "i-1")]
    assert model.answer_interrupt(interrupts[0], "yes") == [Updated(interrupts[0])]
    assert interrupts[0].answer == "yes" and interrupts[0].answer_known

    model.apply(token("partial", "3-0"))
    changes = model.apply(event("error", {"error": "ValueError", "message": "bad"}, "4-0"))
    error = changes[0].item  # type: ignore[union-attr]
    assert isinstance(error, ErrorItem) and (error.error, error.message) == ("ValueError", "bad")
    ai_item = next(i for i in model.items if isinstance(i, AIItem))
    assert Updated(ai_item) in changes and not ai_item.streaming


def test_a_sent_message_is_not_repeated_when_the_server_echoes_it() -> None:
    model = ChatTranscript()
    (added,) = model.add_human("hi")
    assert isinstance(added, Added) and isinstance(added.item, HumanItem)
    echo = {"type": "human", "id": "h-1", "content": "hi"}
    assert model.apply(event("values", {"messages": [echo]}, "1-0")) == []
    assert model.reconcile({"messages": [echo]}) == []
    assert [i.text for i in model.items if isinstance(i, HumanItem)] == ["hi"]


def test_reconcile_makes_the_messages_equal_the_final_state() -> None:
    model = ChatTranscript()
    model.add_human("say hello")
    model.apply(token("Hel", "1-0"))  # the connection dropped: tokens missing
    final = [
        {"type": "human", "id": "h-1", "content": "say hello"},
        ai("Hello", "ai-1"),
        ai("And more.", "ai-2"),
    ]
    changes = model.reconcile({"messages": final})
    assert [type(c) for c in changes] == [Updated, Added]
    assert model.ai_texts() == ["Hello", "And more."]
    assert model.reconcile({"messages": final}) == []


def test_reconcile_keeps_a_cancelled_answer_the_state_does_not_hold() -> None:
    model = ChatTranscript()
    model.apply(token("1 2 3", "1-0"))
    state = {"messages": [{"type": "human", "id": "h", "content": "x"}]}
    changes = model.reconcile(state, keep_unsaved=True)
    assert model.ai_texts() == ["1 2 3"]
    ai_item = model.items[0]
    assert isinstance(ai_item, AIItem) and not ai_item.streaming and Updated(ai_item) in changes


def test_load_state_starts_over() -> None:
    model = ChatTranscript()
    model.apply(token("old", "1-0"))
    changes = model.load_state(
        {"messages": [{"role": "user", "content": "q"}, ai("a", "ai-9")]},
        interrupts=[{"value": "ok?", "id": "i-9"}],
    )
    assert isinstance(changes[0], Cleared)
    assert [type(i).__name__ for i in model.items] == ["HumanItem", "AIItem", "InterruptItem"]
    assert model.waiting_interrupts() == [model.items[-1]]


def test_replay_filter_rejoins_before_a_shared_id_and_counts_what_it_had() -> None:
    replay = ReplayFilter()
    sent = [token(t, i) for t, i in [("1", "7-0"), ("2", "8-0"), ("3", "9-0"), ("4", "9-0")]]
    assert [replay.is_duplicate(e) for e in sent] == [False] * 4
    # Rejoin from 8-0: the server replays both events of 9-0, then new ones.
    assert replay.resume_from() == "8-0"
    again = [*sent[2:], token("5", "9-0"), token("6", "10-0")]
    assert [replay.is_duplicate(e) for e in again] == [True, True, False, False]


def test_replay_filter_spots_a_re_send_on_the_same_connection() -> None:
    # langgraph-api replays from its store, then sends the same events from its queue.
    replay = ReplayFilter()
    assert replay.resume_from() == REPLAY_ALL
    wire = [token("a", "1-0"), token("b", "2-0"), token("c", "2-0")]
    wire += [token("b", "2-0"), token("c", "2-0"), token("d", "3-0")]
    assert [replay.is_duplicate(e) for e in wire] == [False, False, False, True, True, False]
    assert event_order("1795290128227-0") == (1795290128227, 0)
    assert event_order("not-an-id") is None


def test_chunks_without_a_message_id_still_make_one_message() -> None:
    model = ChatTranscript()
    for n, text in enumerate(["a", "b", "c"]):
        model.apply(event("messages", [{"type": "AIMessageChunk", "content": text}, {}], f"{n}-0"))
    assert model.ai_texts() == ["abc"]
    model.end_run()  # the message ended: the next unnamed chunk is a new message
    model.apply(event("messages", [{"type": "AIMessageChunk", "content": "d"}, {}], "9-0"))
    assert model.ai_texts() == ["abc", "d"]


def shown(model: ChatTranscript) -> list[tuple[str, str]]:
    """The transcript's messages as (kind, text), in order."""
    messages: list[tuple[str, str]] = []
    for item in model.items:
        if isinstance(item, HumanItem | AIItem):
            messages.append(("human" if isinstance(item, HumanItem) else "ai", item.text))
        elif isinstance(item, ToolResultItem):
            messages.append(("tool", item.content))
    return messages


def test_a_tool_result_a_node_returned_without_an_id_shows_once() -> None:
    # The memory agent's tool node returns plain dicts: the server names them in the state.
    model = ChatTranscript()
    model.add_human("Remember that I like pizza")
    call = {"name": "upsert_memory", "args": {"content": "pizza"}, "id": "call-1"}
    model.apply(update("call_model", [ai("", "ai-1", [call])], "1"))
    result = {"role": "tool", "content": "Stored memory m1", "tool_call_id": "call-1"}
    model.apply(update("store_memory", [result], "2"))
    model.apply(update("call_model", [ai("Noted.", "ai-2")], "3"))
    state = [
        {"type": "human", "id": "h-1", "content": "Remember that I like pizza"},
        ai("", "ai-1", [call]),
        {"type": "tool", "id": "t-1", "content": "Stored memory m1", "tool_call_id": "call-1"},
        ai("Noted.", "ai-2"),
    ]
    changes = model.reconcile({"messages": state})
    assert not any(isinstance(c, (Added, Cleared)) for c in changes)
    assert shown(model) == [
        ("human", "Remember that I like pizza"),
        ("ai", ""),
        ("tool", "Stored memory m1"),
        ("ai", "Noted."),
    ]


def test_a_transcript_of_another_branch_starts_over_from_the_state_and_says_so() -> None:
    model = ChatTranscript()
    model.load_state({"messages": [{"type": "human", "id": "h-1", "content": "q"}, ai("old")]})
    model.add_human("again")
    model.apply(token("You said: again", "1", "ai-3"))
    state = [
        {"type": "human", "id": "h-1", "content": "q"},
        ai("new", "ai-2"),  # the branch a replay made
        {"type": "human", "id": "h-2", "content": "again"},
        ai("You said: again", "ai-3"),
    ]
    changes = model.reconcile({"messages": state})
    assert isinstance(changes[0], Cleared)
    assert shown(model) == [
        ("human", "q"),
        ("ai", "new"),
        ("human", "again"),
        ("ai", "You said: again"),
    ]
    notices = [item.text for item in model.items if isinstance(item, NoticeItem)]
    assert notices == [
        "The thread is on another branch than this chat showed: the transcript now shows"
        " the messages of the checkpoint it is on."
    ]
    assert model.reconcile({"messages": state}) == []


def test_a_node_that_ran_again_after_a_rejoin_leaves_no_partial_answer() -> None:
    model = ChatTranscript()
    model.add_human("hi")
    model.apply(token("Hel", "1", "first-try"))  # the server restarted here
    model.apply(token("Hello there", "2", "second-try"))
    state = [{"type": "human", "id": "h-1", "content": "hi"}, ai("Hello there", "second-try")]
    model.reconcile({"messages": state}, rejoined=True)
    assert shown(model) == [("human", "hi"), ("ai", "Hello there")]
    notices = [item.text for item in model.items if isinstance(item, NoticeItem)]
    assert notices == [
        "The server restarted while `agent` ran; it ran again: the transcript shows what"
        " the thread kept, not the first, unfinished answer."
    ]


def test_a_state_without_messages_leaves_the_transcript_alone() -> None:
    model = ChatTranscript()
    model.add_human("hi")
    model.apply(token("partial", "1"))
    model.reconcile({"n": 3})
    assert shown(model) == [("human", "hi"), ("ai", "partial")]


def test_a_node_that_starts_again_after_a_rejoin_marks_its_first_answer_unfinished() -> None:
    model = ChatTranscript()
    model.apply(token("Hel", "1", "first-try"))
    model.rejoined()  # the stream dropped; the server restarted and runs `agent` again
    changes = model.apply(token("Hello", "2", "second-try"))
    first = model.items[0]
    assert isinstance(first, AIItem) and not first.streaming and Updated(first) in changes
    assert first.text == (
        "Hel\n\n*Unfinished: the server restarted while `agent` ran; it ran again.*"
    )
    assert model.ai_texts()[1] == "Hello"
