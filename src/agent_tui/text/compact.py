"""Numbers and durations in at most five characters, for narrow table columns: `12k`,
`1.2M`, `1.2s`, `12s`, `2m05s`. Headless. A longer form belongs where there is room
(`traces.run_view.seconds` says `1.23s`)."""

from __future__ import annotations


def compact_count(value: int) -> str:
    """`812`, `1.2k`, `12k`, `999k`, `1.2M`, `12M`: at most four characters (to 999M)."""
    if value < 1000:
        return str(value)
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if value >= size:
            scaled = value / size
            # Rounded down: `999.9k` must not read as `1000k`, nor round up to a unit.
            if scaled < 10:
                return f"{int(scaled * 10) / 10:.1f}".removesuffix(".0") + unit
            return f"{int(scaled)}{unit}"
    return str(value)  # pragma: no cover (the loop always returns)


def compact_seconds(value: float) -> str:
    """`40ms`, `1.2s`, `12s`, `2m05s`, `12m`, `1h02m`: at most five characters (to 99 hours)."""
    if value < 0.9995:
        return f"{round(value * 1000)}ms"
    if value < 9.95:
        return f"{value:.1f}s"
    if value < 59.5:
        return f"{value:.0f}s"
    seconds = round(value)
    if seconds < 600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
