"""The local control plane's key and the middleware that asks for it on every request.

The key is `AGENT_TUI_CONTROL_PLANE_KEY` when set, else one generated on first start and
kept (0600) in the data folder. Either header carries it: `X-Api-Key: <key>` or
`Authorization: Bearer <key>` — alternatives, as in the spec's security schemes. An
`X-Tenant-ID` header (the official CLI sends one for a workspace) does not authorise: it
picks the workspace whose deployments a request sees (`tenancy`).

An empty key never authorises anything (an empty header would match it): an empty key
file gets a new key, and one that cannot be read stops the control plane from starting.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from agent_tui.local.project_files import read_project_file

KEY_ENV = "AGENT_TUI_CONTROL_PLANE_KEY"
KEY_FILE = "api-key"
_KEY_FILE_LIMIT = 64 << 10


class ControlPlaneKeyError(RuntimeError):
    """The stored key cannot be read: the control plane must not start without one."""


def control_plane_key(data_dir: Path) -> str:
    """The key clients must send: from the environment, else the stored (or a new) one.

    Raises `ControlPlaneKeyError` when the key file exists but cannot be read.
    """
    from_env = os.environ.get(KEY_ENV, "").strip()
    if from_env:
        return from_env
    path = data_dir / KEY_FILE
    try:
        stored = read_project_file(path, _KEY_FILE_LIMIT).decode("utf-8").strip()
    except FileNotFoundError:
        return _new_key(data_dir, path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ControlPlaneKeyError(
            f"cannot read the control plane key in {path}: {reason}. Fix or remove that file "
            f"(a new key is then generated), or set {KEY_ENV}"
        ) from None
    return stored or _new_key(data_dir, path, replace=True)


def _new_key(data_dir: Path, path: Path, *, replace: bool = False) -> str:
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = f"lcp_{secrets.token_urlsafe(32)}"
    target = path.with_name(f".{path.name}.{os.getpid()}.tmp") if replace else path
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(key + "\n")
    if replace:
        os.replace(target, path)  # whole or not at all: never an empty key file again
    return key


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, key: str, open_paths: tuple[str, ...] = ()) -> None:
        """``open_paths``: path prefixes whose routes check their own authorisation."""
        if not key.strip():
            raise ValueError("the control plane key is empty: it would let anyone in")
        self.app = app
        self._key = key.encode()
        self._open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith(self._open_paths):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        api_key = headers.get(b"x-api-key")
        authorization = headers.get(b"authorization", b"")
        bearer = authorization[7:].strip() if authorization[:7].lower() == b"bearer " else None
        if api_key is None and bearer is None:
            status, detail = (
                401,
                (
                    "Missing credentials: send the control plane key in the X-Api-Key header "
                    "(or Authorization: Bearer <key>)"
                ),
            )
        elif any(hmac.compare_digest(c, self._key) for c in (api_key, bearer) if c is not None):
            await self.app(scope, receive, send)
            return
        else:
            header = "X-Api-Key header" if api_key is not None else "Authorization: Bearer token"
            status, detail = 403, f"Invalid {header}: it does not match the control plane key"
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
