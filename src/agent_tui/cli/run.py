"""`agent-tui run [ASSISTANT_OR_GRAPH] [--thread ID] [--message TEXT | --input JSON |
--resume JSON] [--interrupt-before N1,N2|*] [--interrupt-after …] [--stream-mode M,…]
[--json]`: one run, streamed, headless.

The run goes through the chat's own `ChatSession` (the TUI's run loop: a resumable run
that rejoins a dropped stream, text assembled by the chat transcript), so what prints is
what the chat pane would show. The assistant resolves as in the chat: an assistant id, a
graph name (its default assistant), else the one the thread's metadata names, else the
server's only graph. Without `--thread` a new thread is made, as the chat's "new thread"
does. With no input at all, a thread paused at a breakpoint goes on.

When the run was traced here (a local server agent-tui started), its totals end the
output (calls, tokens, model time against wall time, cost when priced; `totals` in the
`--json` outcome); with `--stream-mode events`, its streamed calls' totals otherwise.

Exit codes: 0 the run ended; 3 it stopped at an interrupt or a breakpoint (what it waits
for is printed); 1 the server said no (its words on stderr); 2 bad usage; 130 ctrl+c
(which cancels the run on the server first). The arguments are in `run_args.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import signal
import time
from datetime import UTC, datetime
from typing import Any

from agent_tui.assistants.graph_input import graph_input
from agent_tui.chat.assistant import (
    ChatAssistant,
    graph_names,
    named_by,
    only_graph,
)
from agent_tui.chat.driver_events import DriverEvent, Finished, Received, RunAlreadyActive
from agent_tui.chat.run_request import DEFAULT_STREAM_MODES, RunRequest
from agent_tui.chat.session import ChatSession, pending_interrupts
from agent_tui.chat.waiting import Breakpoints, Waiting, waiting_of
from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    NotThere,
    UsageError,
    assistant_named,
    fail,
    run,
)
from agent_tui.cli.run_args import NOT_GIVEN
from agent_tui.cli.run_output import HumanOutput, JsonOutput, RunOutput
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.events import EventsEvent, UpdatesEvent
from agent_tui.client.models import Thread
from agent_tui.text.user_json import JsonTextError
from agent_tui.threads.failure import failure_of
from agent_tui.traces.live_calls import LiveCalls
from agent_tui.traces.run_end import totals_at_end

EXIT_PAUSED = 3  # the thread waits: an interrupt() to answer, or a breakpoint
EXIT_CTRL_C = 130  # 128 + SIGINT, what a shell reports for a command stopped by ctrl+c


def run_command(args: argparse.Namespace) -> int:
    if args.resume is not NOT_GIVEN and args.thread is None:
        return fail("--resume needs --thread: a new thread has no interrupt to answer", EXIT_USAGE)
    return run(args, HeadlessRun(args).start, changes="start a run")


class HeadlessRun:
    """One `agent-tui run`: resolve what to run where, stream it, say how it ended."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.before: Breakpoints = args.interrupt_before
        self.after: Breakpoints = args.interrupt_after
        modes = [mode for group in args.stream_mode or [] for mode in group]
        self.modes = list(dict.fromkeys(modes))  # once each, in the order given
        self.ran: list[str] = []  # the nodes of the run's latest top-level step
        self.finished: Finished | None = None  # how the run ended (the session's last step)
        self.live = LiveCalls()  # its calls, when it streams the `events` mode
        self.ctrl_c = CtrlC()

    async def start(self, client: AgentServerClient) -> int:
        with self.ctrl_c:
            try:
                return await self._start(client)
            except asyncio.CancelledError:
                if not self.ctrl_c.pressed:
                    raise
                self.ctrl_c.forget()
                return fail(self.ctrl_c.what_was_stopped(), EXIT_CTRL_C)

    async def _start(self, client: AgentServerClient) -> int:
        args = self.args
        thread = await client.threads.get(args.thread) if args.thread else None
        assistant = await self._assistant(client, thread)
        for flag, names in (("--interrupt-before", self.before), ("--interrupt-after", self.after)):
            await _check_nodes(client, assistant, flag, names)
        await _check_input(client, assistant, args)
        resume = NOT_GIVEN
        if args.resume is not NOT_GIVEN:
            assert thread is not None  # `run_command` made sure
            resume = _resume_value(thread, await _waiting_interrupts(client, thread), args.resume)
        new = thread is None
        if thread is None:
            # As the chat's "new thread": its metadata names the graph (and assistant).
            thread = await client.threads.create(metadata=assistant.thread_metadata())
        session = ChatSession(client, thread.thread_id)
        if not new:
            await session.load()  # what the thread holds already is not printed again
        output: RunOutput
        if args.json:
            output = JsonOutput(thread.thread_id)
        else:
            output = human = HumanOutput(thread.thread_id)
            human.started(new=new, assistant=assistant.shown)
        started, started_at = time.monotonic(), datetime.now(UTC)
        await self._stream(session, assistant.assistant_id, resume, output)
        if self.finished is not None:
            # Its calls, tokens and times: from its trace when it was traced here.
            output.totals = await totals_at_end(
                self.finished.run_id,
                started=started,
                live=self.live.calls,
                wall=(started_at, datetime.now(UTC)),
            )
        return await self._ended(client, session, output, assistant.assistant_id)

    async def _stream(
        self, session: ChatSession, assistant_id: str, resume: Any, output: RunOutput
    ) -> None:
        args = self.args
        request = RunRequest(
            assistant_id,
            stream_modes=tuple(self.modes or DEFAULT_STREAM_MODES),
            interrupt_before=self.before,
            interrupt_after=self.after,
        )
        if args.message is not None:
            steps = session.send(request, args.message)
        elif args.input is not NOT_GIVEN:
            steps = session.run(request.with_(input=args.input))
        elif resume is not NOT_GIVEN:
            steps = session.run(request.with_(command={"resume": resume}))
        else:  # no input at all: a thread paused at a breakpoint goes on
            steps = session.run(request)
        self.ctrl_c.watch(session)
        try:
            # Closed here, in this task, whatever the loop raises (a closed stdout, say):
            # left to asyncio's shutdown, the session's generators and the stream's inside
            # them would be closed side by side, each closing the other while it runs
            # ("aclose(): asynchronous generator is already running").
            async with contextlib.aclosing(steps):
                async for event, changes in steps:
                    output.step(event, changes, session.driver.run_id)
                    self._note(event)
        except RunAlreadyActive as error:
            raise NotThere(f"{error} ({error.detail})" if error.detail else error) from None
        self.ctrl_c.running = False  # (not when ctrl+c stopped it: the run may go on)

    async def _assistant(self, client: AgentServerClient, thread: Thread | None) -> ChatAssistant:
        name = self.args.assistant
        if name is None:
            found = (named_by(thread.metadata) if thread else None) or await only_graph(client)
            if found is None:
                graphs = ", ".join(await graph_names(client))
                raise UsageError(
                    f"name the assistant or graph to run (the server's graphs: {graphs})"
                )
            return found
        found = await assistant_named(client, name)
        graph = thread.metadata.get("graph_id") if thread else None
        if isinstance(graph, str) and graph and found.graph_id and found.graph_id != graph:
            raise UsageError(
                f"the thread runs graph {graph!r} and {name!r} runs {found.graph_id!r}: "
                f"the run would move the thread to another graph. Name an assistant of "
                f"{graph!r}, or leave ASSISTANT_OR_GRAPH out"
            )
        return found

    def _note(self, event: DriverEvent | None) -> None:
        if isinstance(event, Finished):
            self.finished = event
            return
        # A breakpoint after a node leaves no trace in the thread's state: the last step
        # of the stream says which node ran.
        if not isinstance(event, Received):
            return
        update = event.event
        if isinstance(update, EventsEvent):
            self.live.feed(update.data)
        elif isinstance(update, UpdatesEvent) and not update.namespace:
            nodes = [node for node in update.updates if node != "__interrupt__"]
            self.ran = nodes or self.ran

    async def _ended(
        self, client: AgentServerClient, session: ChatSession, output: RunOutput, assistant: str
    ) -> int:
        """Say how the run ended (what the thread waits for, why it failed); the exit code."""
        finished = self.finished
        if finished is None:  # `ChatSession` ends every run with one: a bug if not
            output.warn("the run's stream ended without saying how the run ended")
            return EXIT_API_ERROR
        state = finished.state
        waiting: Waiting | None = None
        # Why it failed: what the chat shows (the session read the thread and its state
        # when the run ended), else the state read here, else the stream's error event.
        failure = (session.failure or output.said) if state == "error" else None
        if state == "interrupted" or (state == "error" and session.failure is None):
            try:
                thread_state = await client.threads.get_state(session.thread_id, subgraphs=True)
            except ApiError as error:
                output.warn(f"cannot read the thread's state: {error}")
            else:
                if state == "interrupted":
                    waiting = waiting_of(
                        thread_state, before=self.before, after=self.after, ran=self.ran
                    )
                else:
                    failure = failure_of(None, thread_state.tasks, said=output.said) or failure
        if failure is not None:
            output.fail(failure)
        command = f"agent-tui run {shlex.quote(assistant)} --thread {session.thread_id}"
        output.ended(finished, waiting, command)
        if state == "done":
            return EXIT_OK
        if state == "interrupted":
            return EXIT_PAUSED
        if state == "cancelled" and session.driver.cancel_requested:
            reason = f" ({finished.reason})" if finished.reason else ""
            output.warn(f"cancelled the run on the server{reason}")
            return EXIT_CTRL_C
        if state == "cancelled":
            output.warn("the run was cancelled on the server")
        elif finished.reason:
            output.warn(f"the run ended: {finished.reason}")
        elif output.failure is None:
            output.warn(f"the run failed (thread status: {finished.thread_status})")
        return EXIT_API_ERROR


class CtrlC:
    """ctrl+c: while the run streams, cancel it on the server the way the chat does (the
    stream closes here at once, then the server is asked, and the session ends with
    `Finished("cancelled")`); before the run, after it, or pressed again: stop at once.

    Only in the main thread (where signal handlers live); elsewhere ctrl+c is Python's.
    """

    def __init__(self) -> None:
        self.pressed = False
        self.running = False  # the run is asked for or streams: ctrl+c cancels it
        self._session: ChatSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._cancelling: asyncio.Task[bool] | None = None

    def __enter__(self) -> CtrlC:
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        try:
            loop.add_signal_handler(signal.SIGINT, self._pressed)
        except (NotImplementedError, RuntimeError, ValueError):
            return self  # Windows, or not the main thread (tests run commands in threads)
        self._loop = loop
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.forget()

    def forget(self) -> None:
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGINT)
            self._loop = None

    def watch(self, session: ChatSession) -> None:
        """From now on ctrl+c cancels `session`'s run (before the server has answered
        too: the session cancels the run as soon as it exists)."""
        self._session = session
        self.running = True

    def what_was_stopped(self) -> str:
        """What to say when ctrl+c stopped the command itself."""
        if self._session is None:
            return "interrupted: no run was started"
        if self.running:
            return "interrupted again: the run may still be going on the server"
        return "interrupted"

    def _pressed(self) -> None:
        first = not self.pressed
        self.pressed = True
        if first and self.running and self._session is not None and self._loop is not None:
            self._cancelling = self._loop.create_task(self._session.cancel())
        elif self._task is not None:
            self._task.cancel()


async def _check_nodes(
    client: AgentServerClient, assistant: ChatAssistant, flag: str, names: Breakpoints
) -> None:
    """Refuse breakpoints on nodes the graph does not have: the server ignores them, so
    the run would go through where the user meant it to stop."""
    if names is None or isinstance(names, str):
        return
    graph = await client.assistants.get_graph(assistant.assistant_id)
    nodes = [node.id for node in graph.nodes if node.id not in ("__start__", "__end__")]
    unknown = [name for name in names if name not in nodes]
    if not unknown:
        return
    which = ", ".join(repr(name) for name in unknown)
    inside = (
        "; a run takes breakpoints on its graph's own nodes, not inside a subgraph"
        if any(":" in name for name in unknown)
        else ""
    )
    raise UsageError(
        f"{flag}: no node {which} in graph {assistant.graph_id or assistant.assistant_id!r} "
        f"(its nodes: {', '.join(nodes)}){inside}"
    )


async def _check_input(
    client: AgentServerClient, assistant: ChatAssistant, args: argparse.Namespace
) -> None:
    """A graph whose input has no `messages` ignores a human message (the run would end
    at once, having done nothing): refuse `--message`, and check `--input` against its
    input schema, naming the graph's input keys."""
    if args.message is None and args.input is NOT_GIVEN:
        return
    takes = await graph_input(client, assistant.assistant_id)
    if takes.takes_messages:
        return
    graph = assistant.graph_id or assistant.assistant_id
    if args.message is not None:
        raise UsageError(
            f"--message: graph {graph!r} takes no messages (its input keys: "
            f"{takes.keys_text()}); give its input as JSON with --input, e.g. "
            f"--input {shlex.quote(takes.example())}"
        )
    try:
        takes.check_value(args.input)
    except JsonTextError as error:
        raise UsageError(f"--input: {error}") from None


async def _waiting_interrupts(client: AgentServerClient, thread: Thread) -> list[dict[str, Any]]:
    """The interrupts waiting on `thread`: its record's, else its state's (Aegra fills
    only the state's)."""
    pending = pending_interrupts(thread.interrupts)
    if not pending and thread.status != "busy":
        pending = pending_interrupts((await client.threads.get_state(thread.thread_id)).interrupts)
    return pending


def _resume_value(thread: Thread, pending: list[dict[str, Any]], value: Any) -> Any:
    """`value`, checked against what the thread waits for (`pending`): the server refuses
    a bare value when several interrupts wait (and leaves the thread in error), so that is
    said here, before anything is sent."""
    if not pending:
        raise UsageError(
            f"--resume: thread {thread.thread_id} has no interrupt waiting for an answer "
            f"(status: {thread.status}); to continue it, run it with no input"
        )
    ids = [item["id"] for item in pending if isinstance(item.get("id"), str)]
    if len(pending) > 1 and not (isinstance(value, dict) and value and set(value) <= set(ids)):
        waiting = "; ".join(
            f"{item.get('id')}: {json.dumps(item.get('value'), ensure_ascii=False)}"
            for item in pending
        )
        example = ", ".join(f'"{interrupt_id}": …' for interrupt_id in ids)
        raise UsageError(
            f"--resume: {len(pending)} interrupts wait on thread {thread.thread_id}, and the "
            f"server refuses a bare value then: map each id to its answer, "
            f"--resume '{{{example}}}' (waiting: {waiting})"
        )
    return value
