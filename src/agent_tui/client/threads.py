"""`client.threads`: persistent state containers and their checkpoints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.client.capabilities import NotOffered, no_route, refused_option
from agent_tui.client.errors import ApiError
from agent_tui.client.models import (
    Thread,
    ThreadState,
    ThreadStateUpdateResult,
)
from agent_tui.client.transport import Transport, compact
from agent_tui.client.url_path import segment


def checkpoint_config(checkpoint_id: str) -> dict[str, Any]:
    """The form of a checkpoint reference that langgraph-api 0.16.7 accepts for `before`.

    The spec says `{"checkpoint_id": …}`, which the server answers with a 500
    (KeyError 'configurable'); langgraph-sdk sends a bare string, which is a 422.
    """
    return {"configurable": {"checkpoint_id": checkpoint_id}}


COUNT_PAGE = 500  # threads a search page holds when counting without `/threads/count`
COUNT_BY_PAGES_LIMIT = 10_000  # counted that way at most (a list shows "10000" then)


class ThreadsClient:
    def __init__(self, transport: Transport) -> None:
        self._http = transport

    async def create(
        self,
        metadata: dict[str, Any] | None = None,
        supersteps: Sequence[dict[str, Any]] | None = None,
        *,
        thread_id: str | None = None,
        if_exists: str | None = None,
    ) -> Thread:
        """Create a thread, empty or built by applying `supersteps` in order.

        Each superstep is `{"updates": [{"values": …, "as_node": …}, …]}`. Creating is
        retried (a connection lost before the answer) only when it names its thread and
        `if_exists="do_nothing"`: sent again, it cannot make a second thread.
        """
        body = compact(
            metadata=metadata,
            supersteps=list(supersteps) if supersteps is not None else None,
            thread_id=thread_id,
            if_exists=if_exists,
        )
        again = thread_id is not None and if_exists == "do_nothing"
        return await self._http.request_as(Thread, "POST", "/threads", json=body, idempotent=again)

    async def get(self, thread_id: str) -> Thread:
        return await self._http.request_as(Thread, "GET", f"/threads/{segment(thread_id)}")

    async def search(
        self,
        *,
        status: str | None = None,
        metadata: dict[str, Any] | None = None,
        values: dict[str, Any] | None = None,
        ids: Sequence[str] | None = None,
        limit: int = 10,
        offset: int = 0,
        sort_by: str | None = None,
        sort_order: str | None = None,
        select: Sequence[str] | None = None,
        extract: dict[str, str] | None = None,
    ) -> list[Thread]:
        """Threads matching every filter given (`metadata` and `values` match exactly).

        `select` limits the fields returned; `extract` maps an alias to a path such as
        `values.messages[-1]`, returned under the thread's `extracted` field (kept as an
        extra field of `Thread`). Both spare sending whole states for a list.
        """
        body = compact(
            status=status,
            metadata=metadata,
            values=values,
            ids=list(ids) if ids is not None else None,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order,
        )
        able = self._http.capabilities
        projection = compact(select=list(select) if select is not None else None, extract=extract)
        if projection and able.thread_projection:
            try:
                return await self._search({**body, **projection})
            except ApiError as error:
                if not refused_option(error, "select", "extract"):
                    raise
                able.thread_projection = False  # whole threads from now on
        return await self._search(body)

    async def _search(self, body: dict[str, Any]) -> list[Thread]:
        return await self._http.request_as(
            list[Thread], "POST", "/threads/search", json=body, idempotent=True
        )

    async def count(
        self, *, status: str | None = None, metadata: dict[str, Any] | None = None
    ) -> int:
        """How many threads match. A server without `POST /threads/count` (Aegra) is
        counted by search pages instead (at most `COUNT_BY_PAGES_LIMIT`, then that)."""
        body = compact(status=status, metadata=metadata)
        able = self._http.capabilities
        if able.thread_count:
            try:
                return await self._http.request_as(
                    int, "POST", "/threads/count", json=body, idempotent=True
                )
            except ApiError as error:
                if not no_route(error):
                    raise
                able.thread_count = False
        total = 0
        while total < COUNT_BY_PAGES_LIMIT:
            page = await self.search(
                status=status,
                metadata=metadata,
                limit=COUNT_PAGE,
                offset=total,
                select=["thread_id"],
            )
            total += len(page)
            if len(page) < COUNT_PAGE:
                break
        return total

    async def copy(self, thread_id: str) -> Thread:
        """A new thread with the same history (the answer holds no `values`). A server
        without copies (Aegra: 404 for a thread it has) raises `NotOffered`."""
        try:
            return await self._http.request_as(
                Thread, "POST", f"/threads/{segment(thread_id)}/copy", json={}
            )
        except ApiError as error:
            if not no_route(error):
                raise
            await self.get(thread_id)  # a missing thread is that thread's 404
            raise NotOffered(
                "this server does not copy threads",
                method="POST",
                url=self._http.url_for(f"/threads/{segment(thread_id)}/copy"),
            ) from None

    async def update(self, thread_id: str, *, metadata: dict[str, Any]) -> Thread:
        return await self._http.request_as(
            Thread, "PATCH", f"/threads/{segment(thread_id)}", json={"metadata": metadata}
        )

    async def delete(self, thread_id: str) -> None:
        await self._http.request("DELETE", f"/threads/{segment(thread_id)}")

    async def get_state(
        self, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False
    ) -> ThreadState:
        path = f"/threads/{segment(thread_id)}/state"
        if checkpoint_id:
            path += f"/{segment(checkpoint_id)}"
        params = {"subgraphs": "true"} if subgraphs else None
        return await self._http.request_as(ThreadState, "GET", path, params=params)

    async def get_history(
        self,
        thread_id: str,
        *,
        limit: int = 10,
        before: str | None = None,
        metadata: dict[str, Any] | None = None,
        checkpoint_ns: str | None = None,
    ) -> list[ThreadState]:
        """Checkpoints, most recent first; `before` is a checkpoint id to page from;
        `checkpoint_ns`: a subgraph's own checkpoints (`chat:<task id>`, as a task's
        `checkpoint` names them) instead of the thread's.

        The server's own default limit is 1, so we always send one.
        """
        body = compact(
            limit=limit,
            before=checkpoint_config(before) if before else None,
            metadata=metadata,
            checkpoint={"checkpoint_ns": checkpoint_ns} if checkpoint_ns else None,
        )
        return await self._http.request_as(
            list[ThreadState],
            "POST",
            f"/threads/{segment(thread_id)}/history",
            json=body,
            idempotent=True,
        )

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> ThreadStateUpdateResult:
        """Write `values` as if `as_node` had, on top of `checkpoint_id` (a fork) or the latest."""
        body = compact(
            values=values,
            as_node=as_node,
            checkpoint={"checkpoint_id": checkpoint_id} if checkpoint_id else None,
        )
        return await self._http.request_as(
            ThreadStateUpdateResult, "POST", f"/threads/{segment(thread_id)}/state", json=body
        )
