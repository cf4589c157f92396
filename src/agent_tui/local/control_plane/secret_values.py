"""Secret values stay inside the local control plane: answered masked, kept out of logs.

- Answers: every deployment the API returns (create, get, list, patch, redeploy) has
  each secret's ``value`` replaced by `MASK` (`public_deployment`): the spec requires the
  field, so it is there, never the value. The values are stored (SQLite, 0600) and reach
  the deployed server's environment as before.
- Round trips: a PATCH (or create) may send `MASK` back as a value, as a client that
  edits the deployment it read would (`unmasked`): the secret of that name keeps the
  value stored for it; `MASK` for a name with no stored value is refused (422).
- Logs: a revision's log lines (the build's, the deploy's) and the agent server's lines
  served as deploy logs have every secret value of the deployment replaced by `MASK`
  (`redact`), also lines stored before this existed. Values shorter than `MIN_REDACTED`
  characters are not looked for: they would blank out ordinary words and numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MASK = "********"
"""What an answer holds in place of a secret's value (only ``*``: agent-tui's form
knows such a value as masked and asks for it to be typed again)."""
MIN_REDACTED = 4
"""Shortest value looked for in log lines."""


def public_deployment(deployment: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a stored deployment to answer with: secret values masked."""
    public = dict(deployment)
    secrets = deployment.get("secrets")
    if isinstance(secrets, list):
        public["secrets"] = [
            {**secret, "value": MASK} if isinstance(secret, Mapping) else MASK for secret in secrets
        ]
    return public


class MaskedValueUnknown(ValueError):
    """A secret sent with `MASK` as its value, and no value stored under its name."""

    def __init__(self, index: int, name: str) -> None:
        super().__init__(name)
        self.index = index
        self.name = name


def unmasked(
    given: list[dict[str, str]], stored: Iterable[Mapping[str, Any]] | None
) -> list[dict[str, str]]:
    """``given`` secrets with each `MASK` value replaced by the value ``stored`` holds for
    that name (`MaskedValueUnknown` when it holds none)."""
    known = {
        s["name"]: s["value"]
        for s in stored or ()
        if isinstance(s.get("name"), str) and isinstance(s.get("value"), str)
    }
    result = []
    for index, secret in enumerate(given):
        if secret["value"] == MASK:
            if secret["name"] not in known:
                raise MaskedValueUnknown(index, secret["name"])
            secret = {**secret, "value": known[secret["name"]]}
        result.append(secret)
    return result


def secret_values(secrets: Iterable[Any]) -> set[str]:
    """The values of stored secrets worth looking for in log lines."""
    return {
        s["value"]
        for s in secrets
        if isinstance(s, Mapping)
        and isinstance(s.get("value"), str)
        and len(s["value"]) >= MIN_REDACTED
        and s["value"] != MASK
    }


def redact(line: str, values: Iterable[str]) -> str:
    """``line`` with each of ``values`` replaced by `MASK` (longest first)."""
    for value in sorted(values, key=len, reverse=True):
        if value in line:
            line = line.replace(value, MASK)
    return line
