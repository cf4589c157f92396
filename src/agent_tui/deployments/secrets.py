"""What a user may see of deployment secrets: their names, never their values (headless).

The local control plane returns secret values in deployments (the public spec has them
as `{name, value}` too), so anything shown or copied goes through `mask_secrets` first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MASK = "••••"


def mask_secrets(data: Any) -> Any:
    """A copy of `data` where every `secrets: [{name, value}]` entry has its value masked,
    at any depth (deployments, revisions, anything a newer server nests them in)."""
    if isinstance(data, Mapping):
        masked: dict[str, Any] = {}
        for key, value in data.items():
            if key == "secrets" and isinstance(value, list):
                masked[key] = [_mask_entry(entry) for entry in value]
            else:
                masked[key] = mask_secrets(value)
        return masked
    if isinstance(data, list):
        return [mask_secrets(item) for item in data]
    return data


def _mask_entry(entry: Any) -> Any:
    if isinstance(entry, Mapping):
        return {k: (MASK if k == "value" else mask_secrets(v)) for k, v in entry.items()}
    return MASK  # a bare string in a secrets list could be a value: never show it


def secret_names(secrets: Iterable[Any] | None) -> list[str] | None:
    """The names in a `secrets` list (`Secret` models or dicts), sorted; None for None."""
    if secrets is None:
        return None
    names: set[str] = set()
    for secret in secrets:
        name = secret.get("name") if isinstance(secret, Mapping) else getattr(secret, "name", None)
        if isinstance(name, str):
            names.add(name)
    return sorted(names)
