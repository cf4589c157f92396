"""Whether the local servers agent-tui starts trace to its collector, and how much the
trace store keeps: the ``[traces]`` table of the config file, under the environment
(``AGENT_TUI_TRACES=0`` turns tracing off, ``AGENT_TUI_TRACES_MAX_MB`` sets the size),
under the command line (``--no-traces``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

ENABLED_ENV = "AGENT_TUI_TRACES"
MAX_MB_ENV = "AGENT_TUI_TRACES_MAX_MB"
_OFF = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True, slots=True)
class TraceSettings:
    enabled: bool = True
    max_size_mb: int = 256
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """Model name → US dollars per million input and output tokens."""

    @property
    def max_bytes(self) -> int:
        return self.max_size_mb * 1024 * 1024


def trace_settings(
    environ: Mapping[str, str] | None = None, *, no_traces: bool = False
) -> TraceSettings:
    """The settings in force; a broken config file counts as the defaults (the app
    reports it elsewhere), and a bad ``AGENT_TUI_TRACES_MAX_MB`` is ignored likewise."""
    from agent_tui.settings.config import load_config

    env = os.environ if environ is None else environ
    prices: dict[str, tuple[float, float]] = {}
    try:
        table = load_config().traces
        enabled, max_mb = table.enabled, table.max_size_mb
        prices = {
            name: (price.input_per_million, price.output_per_million)
            for name, price in table.prices.items()
        }
    except Exception:
        enabled, max_mb = True, 256
    switch = env.get(ENABLED_ENV, "").strip().lower()
    if switch:
        enabled = switch not in _OFF
    size = env.get(MAX_MB_ENV, "").strip()
    if size.isdigit() and int(size) > 0:
        max_mb = int(size)
    return TraceSettings(enabled=enabled and not no_traces, max_size_mb=max_mb, prices=prices)
