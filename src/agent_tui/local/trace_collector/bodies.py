"""The bodies of the ingestion requests, as the `langsmith` SDK writes them, made into
posts and patches (`agent_tui.traces.store.Operation`).

- ``POST /runs/multipart`` (``multipart/form-data``, zstd-compressed when the request
  says ``Content-Encoding: zstd``): one part per piece of a run, named
  ``post.<id>`` or ``patch.<id>`` (the run less its large fields) and
  ``post.<id>.<field>`` for ``inputs``, ``outputs``, ``events``, ``extra``, ``error``,
  ``serialized``, each JSON. ``attachment.<id>.<name>`` and ``feedback.<id>`` parts are
  read past: no attachment or feedback is kept. The compressed form is the same parts
  written into one zstd frame, closed by the final boundary.
- ``POST /runs/batch``: ``{"post": [run, …], "patch": [run, …]}``.
- ``POST /runs``: one run; ``PATCH /runs/<id>``: one update.
"""

from __future__ import annotations

import re
from typing import Any

from agent_tui.traces import json_codec
from agent_tui.traces.store import Operation

MAX_BODY = 64 << 20
"""Bytes of one request as sent (the SDK's batches are far smaller: 20 MB by default)."""
MAX_DECOMPRESSED = 512 << 20
"""Bytes of one compressed request once decompressed (a zstd bomb stops here)."""

RUN_FIELDS = frozenset({"inputs", "outputs", "events", "extra", "error", "serialized"})
_BOUNDARY = re.compile(r'boundary="?([^";,]+)"?', re.I)
_NAME = re.compile(rb'name="([^"]*)"', re.I)


class BadBody(ValueError):
    """A request the collector cannot read (a 400, or a 413 when ``too_large``)."""

    def __init__(self, detail: str, *, too_large: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.too_large = too_large


def decompress(body: bytes, encoding: str) -> bytes:
    """The body as sent before its ``Content-Encoding`` (only ``zstd`` is spoken)."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "zstd":
        raise BadBody(f"Content-Encoding {encoding!r} is not supported (zstd is)")
    try:
        import zstandard
    except ImportError:  # never advertised then (`app.info`): a client that sends it anyway
        raise BadBody("zstd is not available on this collector") from None
    out = bytearray()
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True)
        while chunk := reader.read(1 << 20):
            out += chunk
            if len(out) > MAX_DECOMPRESSED:
                raise BadBody(
                    f"the body is over {MAX_DECOMPRESSED >> 20} MB once decompressed",
                    too_large=True,
                )
    except zstandard.ZstdError as error:
        raise BadBody(f"the body is not valid zstd: {error}") from None
    return bytes(out)


def multipart_operations(body: bytes, content_type: str) -> list[tuple[Operation, dict[str, Any]]]:
    """The runs of a multipart body, each run's pieces joined, in the order first named."""
    found = _BOUNDARY.search(content_type)
    if not content_type.lower().startswith("multipart/form-data") or found is None:
        raise BadBody("expected multipart/form-data with a boundary")
    delimiter = b"\r\n--" + found.group(1).encode("latin-1")
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    segments = (b"\r\n" + body).split(delimiter)
    for segment in segments[1:]:
        if segment.startswith(b"--"):
            break  # the closing boundary
        head, separator, data = segment.partition(b"\r\n\r\n")
        named = _NAME.search(head)
        if not separator or named is None:
            raise BadBody("a part without a name or headers")
        name = named.group(1).decode("utf-8", "replace")
        operation, _, rest = name.partition(".")
        if operation not in ("post", "patch"):
            continue  # attachment.<id>.<name>, feedback.<id>: not kept
        run_id, _, field = rest.partition(".")
        if not run_id or (field and field not in RUN_FIELDS):
            continue
        value = _json(data, name)
        run = runs.setdefault((operation, run_id), {"id": run_id})
        if field:
            run[field] = value
        elif isinstance(value, dict):
            run.update({key: item for key, item in value.items() if key not in run})
    return [(operation, run) for (operation, _), run in runs.items()]  # type: ignore[misc]


def batch_operations(body: bytes) -> list[tuple[Operation, dict[str, Any]]]:
    data = _json(body, "the body")
    if not isinstance(data, dict):
        raise BadBody('expected {"post": [...], "patch": [...]}')
    operations: list[tuple[Operation, dict[str, Any]]] = []
    for operation in ("post", "patch"):
        runs = data.get(operation) or []
        if not isinstance(runs, list):
            raise BadBody(f"{operation!r} must be a list of runs")
        operations.extend((operation, run) for run in runs if isinstance(run, dict))
    return operations


def one_run(body: bytes, run_id: str | None = None) -> dict[str, Any]:
    """The run of ``POST /runs`` or the update of ``PATCH /runs/<run_id>``."""
    run = _json(body, "the body")
    if not isinstance(run, dict):
        raise BadBody("expected a run (a JSON object)")
    if run_id is not None:
        run["id"] = run_id
    if not isinstance(run.get("id"), str):
        raise BadBody("the run has no id")
    return run


def _json(data: bytes, what: str) -> Any:
    try:
        return json_codec.loads(data)
    except (UnicodeDecodeError, ValueError) as error:
        raise BadBody(f"{what} is not JSON: {error}") from None
