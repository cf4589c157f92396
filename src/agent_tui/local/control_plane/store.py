"""The local control plane's state: one SQLite file in its data folder.

Resources are stored as the JSON documents the API returns (plus a few private
columns: a revision's secrets and its log lines), so a restart serves exactly what was
served before. Used from one event loop; each call is one short transaction.

Documents an older version stored from bodies it should have refused (`NaN`, lone
surrogates) could not be served: every listing failed. Opening the store repairs them
once (`NaN`/`Infinity` become null, a lone surrogate U+FFFD), so they can be listed and
deleted again.

A revision read from here carries ``secret_names`` (a local extension the spec's open
Revision schema allows): the sorted names of the secrets it was built with, taken from
its secrets column on every read (never the values), so revisions stored before the
extension existed get their names too. A secrets column that cannot be read as
name/value pairs leaves the field out: the names are then unknown.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deployments (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS revisions (
    id TEXT PRIMARY KEY,
    deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    doc TEXT NOT NULL,
    secrets TEXT NOT NULL DEFAULT '[]',
    logs TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS revisions_by_deployment ON revisions (deployment_id, seq);
CREATE TABLE IF NOT EXISTS providers (
    provider_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, doc TEXT NOT NULL
);
"""


def now() -> str:
    return datetime.now(UTC).isoformat()


def _servable(text: str, *, deployment: bool = False) -> str | None:
    """``text`` (stored JSON) made servable as JSON and UTF-8, or None when it already is
    (or is beyond repair: not JSON, or nested too deeply)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
        return None
    except (ValueError, UnicodeEncodeError):
        pass
    except RecursionError:
        return None
    try:
        value = _cleaned(value)
        if deployment and isinstance(value, dict) and value.get("secret_references"):
            # A reference whose NaN became null no longer is one (the spec wants strings).
            value["secret_references"] = [
                r
                for r in value["secret_references"]
                if isinstance(r, dict)
                and all(isinstance(r.get(k), str) for k in ("name", "secret_name", "secret_key"))
            ]
        return json.dumps(value, allow_nan=False)
    except (ValueError, RecursionError):
        return None


def _cleaned(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, dict):
        return {_cleaned(key): _cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    return value


def _with_secret_names(doc_json: str, secrets_json: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(doc_json)
    doc.pop("secret_names", None)  # derived below, never trusted from the stored doc
    try:
        secrets = json.loads(secrets_json)
    except ValueError:
        return doc
    if isinstance(secrets, list) and all(
        isinstance(s, dict) and isinstance(s.get("name"), str) for s in secrets
    ):
        doc["secret_names"] = sorted({s["name"] for s in secrets})
    return doc


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # 0600 before SQLite opens it: it holds deployment secrets, and SQLite gives the
        # -wal and -shm files the database file's mode.
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        path.chmod(0o600)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.executescript(_SCHEMA)
        self._repair()

    def _repair(self) -> None:
        tables = [
            ("deployments", "id", ("doc",)),
            ("revisions", "id", ("doc", "secrets", "logs")),
            ("providers", "provider_id", ("doc",)),
        ]
        for table, key, columns in tables:
            rows = self._db.execute(f"SELECT {key}, {', '.join(columns)} FROM {table}")
            for row_key, *texts in rows.fetchall():
                for column, text in zip(columns, texts, strict=True):
                    fixed = _servable(text, deployment=table == "deployments")
                    if fixed is not None:
                        self._db.execute(
                            f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (fixed, row_key)
                        )

    def close(self) -> None:
        self._db.close()

    def tenant_id(self) -> str:
        """A stable workspace id for this control plane (the Deployment's `tenant_id`)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'tenant_id'").fetchone()
        if row:
            return str(row[0])
        value = str(uuid.uuid4())
        self._db.execute("INSERT INTO meta (key, value) VALUES ('tenant_id', ?)", (value,))
        return value

    # -- deployments ---------------------------------------------------------------------

    def put_deployment(self, doc: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO deployments (id, created_at, doc) VALUES (?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET doc = excluded.doc",
            (doc["id"], doc["created_at"], json.dumps(doc)),
        )

    def deployment(self, deployment_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT doc FROM deployments WHERE id = ?", (deployment_id,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def deployments(self) -> list[dict[str, Any]]:
        """Every deployment, newest first."""
        rows = self._db.execute("SELECT doc FROM deployments ORDER BY created_at DESC, id")
        return [json.loads(row[0]) for row in rows]

    def delete_deployment(self, deployment_id: str) -> None:
        self._db.execute("DELETE FROM deployments WHERE id = ?", (deployment_id,))

    # -- revisions -----------------------------------------------------------------------

    def add_revision(self, deployment_id: str, doc: dict[str, Any], secrets: Any) -> None:
        (seq,) = self._db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM revisions WHERE deployment_id = ?",
            (deployment_id,),
        ).fetchone()
        self._db.execute(
            "INSERT INTO revisions (id, deployment_id, seq, doc, secrets) VALUES (?, ?, ?, ?, ?)",
            (doc["id"], deployment_id, seq, json.dumps(doc), json.dumps(secrets)),
        )

    def put_revision(self, doc: dict[str, Any]) -> None:
        stored = {k: v for k, v in doc.items() if k != "secret_names"}  # derived on read
        self._db.execute(
            "UPDATE revisions SET doc = ? WHERE id = ?", (json.dumps(stored), doc["id"])
        )

    def revision(self, deployment_id: str, revision_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT doc, secrets FROM revisions WHERE id = ? AND deployment_id = ?",
            (revision_id, deployment_id),
        ).fetchone()
        return _with_secret_names(row[0], row[1]) if row else None

    def revisions(self, deployment_id: str) -> list[dict[str, Any]]:
        """A deployment's revisions, newest first."""
        rows = self._db.execute(
            "SELECT doc, secrets FROM revisions WHERE deployment_id = ? ORDER BY seq DESC",
            (deployment_id,),
        )
        return [_with_secret_names(row[0], row[1]) for row in rows]

    def all_revisions(self) -> list[tuple[str, dict[str, Any]]]:
        rows = self._db.execute("SELECT deployment_id, doc, secrets FROM revisions ORDER BY seq")
        return [(row[0], _with_secret_names(row[1], row[2])) for row in rows]

    def revision_secrets(self, revision_id: str) -> list[dict[str, str]]:
        row = self._db.execute("SELECT secrets FROM revisions WHERE id = ?", (revision_id,))
        found = row.fetchone()
        return list(json.loads(found[0])) if found else []

    def append_logs(self, revision_id: str, lines: list[str]) -> None:
        row = self._db.execute("SELECT logs FROM revisions WHERE id = ?", (revision_id,))
        found = row.fetchone()
        if found is None:
            return
        logs = [*json.loads(found[0]), *lines]
        self._db.execute(
            "UPDATE revisions SET logs = ? WHERE id = ?", (json.dumps(logs), revision_id)
        )

    def logs(self, revision_id: str) -> list[str]:
        row = self._db.execute("SELECT logs FROM revisions WHERE id = ?", (revision_id,))
        found = row.fetchone()
        return list(json.loads(found[0])) if found else []

    # -- OAuth providers -----------------------------------------------------------------

    def put_provider(self, doc: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO providers (provider_id, created_at, doc) VALUES (?, ?, ?) "
            "ON CONFLICT(provider_id) DO UPDATE SET doc = excluded.doc",
            (doc["provider_id"], doc["created_at"], json.dumps(doc)),
        )

    def provider(self, provider_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT doc FROM providers WHERE provider_id = ?", (provider_id,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def providers(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT doc FROM providers ORDER BY created_at, provider_id")
        return [json.loads(row[0]) for row in rows]

    def delete_provider(self, provider_id: str) -> bool:
        cursor = self._db.execute("DELETE FROM providers WHERE provider_id = ?", (provider_id,))
        return cursor.rowcount > 0
