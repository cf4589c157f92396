"""JSON for the trace store's hot path: orjson when it is there (the `langsmith` SDK
depends on it, so it is wherever a collector runs), else the standard library's.

orjson reads and writes a run three to five times faster, which is most of what the
collector does with each run it stores (`benchmarks/trace_ingest.py`)."""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson comes with langsmith
    orjson = None  # type: ignore[assignment]


def loads(data: bytes | str) -> Any:
    """Raises `ValueError` (with `UnicodeDecodeError`) on what is not JSON."""
    if orjson is not None:
        return orjson.loads(data)
    return json.loads(data)


def dumps(value: Any) -> str:
    """Compact; what is not JSON (a UUID, a datetime) is written as its text."""
    if orjson is not None:
        return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    return json.dumps(value, separators=(",", ":"), default=str)
