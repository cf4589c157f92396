"""What changed between two revisions of a deployment (headless; the screen colours it).

Two things make a revision: its `source_revision_config` (compared key by key with
`context_diff`) and the deployment's secrets at the time. Only secret NAMES are ever
compared or shown: whether a kept secret's value changed cannot be known without the
values, and the values are never shown. The public API does not put secrets on a
revision; a revision's names are known when the server adds them anyway (`secrets` or
`secret_names`, which the local control plane sends), and for the deployment's latest revision (the deployment's own
secrets are that revision's). Otherwise the diff says the names are not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.client.models.control_plane import Deployment, Revision
from agent_tui.deployments.secrets import secret_names
from agent_tui.text.context_diff import ContextChange, context_diff
from agent_tui.text.short_ids import short_random_id
from agent_tui.text.time_text import utc_seconds

VALUES_NOT_SHOWN = "values not shown"
UNKNOWN_NAMES = "the control plane does not say which secrets this revision had"


def revision_secret_names(revision: Revision, deployment: Deployment | None) -> list[str] | None:
    """The secret names `revision` was made with, or None when nobody says."""
    raw = revision.raw()
    names = raw.get("secret_names")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return sorted(set(names))
    if isinstance(raw.get("secrets"), list):
        return secret_names(raw["secrets"])
    if deployment is not None and revision.id == deployment.latest_revision_id:
        return secret_names(deployment.secrets)
    return None


def revision_config(revision: Revision) -> dict[str, Any]:
    """The revision's `source_revision_config`, without the fields it leaves empty."""
    raw = revision.raw().get("source_revision_config") or {}
    return {k: v for k, v in raw.items() if v is not None}


@dataclass(frozen=True, slots=True)
class RevisionDiff:
    old: Revision  # the older of the two
    new: Revision
    config_changes: list[ContextChange]
    old_secrets: list[str] | None  # names; None: not known
    new_secrets: list[str] | None

    @property
    def secrets_known(self) -> bool:
        return self.old_secrets is not None and self.new_secrets is not None

    @property
    def secrets_added(self) -> list[str]:
        return sorted(set(self.new_secrets or ()) - set(self.old_secrets or ()))

    @property
    def secrets_removed(self) -> list[str]:
        return sorted(set(self.old_secrets or ()) - set(self.new_secrets or ()))

    @property
    def secrets_kept(self) -> list[str]:
        return sorted(set(self.old_secrets or ()) & set(self.new_secrets or ()))

    def summary(self) -> str:
        parts = [
            f"{len(self.config_changes)} config change"
            + ("" if len(self.config_changes) == 1 else "s")
        ]
        if self.secrets_known:
            parts.append(
                f"secrets: {len(self.secrets_added)} added, {len(self.secrets_removed)} removed"
            )
        else:
            parts.append("secrets: not known for both")
        return " · ".join(parts)

    def lines(self) -> list[str]:
        """The diff as lines: `+` added, `-` removed, `~` changed, `=` kept (colour by the
        first non-space character)."""
        out = [
            f"a: revision {short_random_id(self.old.id)}  {self.old.status}  "
            f"created {utc_seconds(self.old.created_at)}",
            f"b: revision {short_random_id(self.new.id)}  {self.new.status}  "
            f"created {utc_seconds(self.new.created_at)}",
            "",
            "source_revision_config",
        ]
        out += [f"  {change}" for change in self.config_changes] or ["  (no changes)"]
        out += ["", f"secrets (names only; {VALUES_NOT_SHOWN})"]
        if not self.secrets_known:
            for label, revision, names in (
                ("a", self.old, self.old_secrets),
                ("b", self.new, self.new_secrets),
            ):
                shown = ", ".join(names) if names else "(none)"
                what = shown if names is not None else UNKNOWN_NAMES
                out.append(f"  {label} ({short_random_id(revision.id)}): {what}")
            return out
        out += [f"  + {name}" for name in self.secrets_added]
        out += [f"  - {name}" for name in self.secrets_removed]
        out += [
            f"  = {name}  (value changed or not: not knowable without values)"
            for name in self.secrets_kept
        ]
        if not (self.old_secrets or self.new_secrets):
            out.append("  (no secrets)")
        return out


def diff_revisions(a: Revision, b: Revision, deployment: Deployment | None = None) -> RevisionDiff:
    """`a` against `b`, the older one first (by creation time, else as given)."""
    old, new = a, b
    if a.created_at and b.created_at and a.created_at > b.created_at:
        old, new = b, a
    return RevisionDiff(
        old=old,
        new=new,
        config_changes=context_diff(revision_config(old), revision_config(new)),
        old_secrets=revision_secret_names(old, deployment),
        new_secrets=revision_secret_names(new, deployment),
    )


def predecessor(revisions: Sequence[Revision], revision_id: str) -> Revision | None:
    """The revision made just before `revision_id` in a newest-first list (None: the first
    one, or not loaded)."""
    ids = [r.id for r in revisions]
    if revision_id not in ids:
        return None
    index = ids.index(revision_id)
    return revisions[index + 1] if index + 1 < len(revisions) else None
