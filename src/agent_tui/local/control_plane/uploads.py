"""Source tarballs, as the official CLI's remote build sends them.

`POST /v2/deployments/{id}/upload-url` answers a URL on this control plane carrying a
one-time token (it expires after `UPLOAD_TTL` seconds), the `object_path` the CLI then
names in its PATCH (``source_revision_config.source_tarball_path``), and the headers to
send. The CLI PUTs the gzipped tarball there without the API key: the token is the
authorisation. The body is streamed to the deployment's data folder and refused with a
413 as soon as it passes `MAX_UPLOAD` bytes; a body that is not a gzipped tar, or that
holds a member that is not a plain file, folder or link inside the archive (an absolute
path, a ``..`` component, a link pointing out, a device or FIFO), is refused with a 400
and deleted. Nothing is unpacked then: the PATCH unpacks an accepted upload into the new
revision's own folder (`unpack`), and that revision is built and deployed from there.

What an archive may unpack to is capped (`unpack_limits`): at most `MAX_UNPACKED` bytes
(512 MiB) in all and `MAX_MEMBERS` (20,000) files, folders and links, or what the
environment variables `MAX_UNPACKED_ENV` (in MiB) and `MAX_MEMBERS_ENV` say. Past
either, the PUT is refused with a 413 saying which limit, and so is the PATCH that would
unpack it (a limit lowered meanwhile). An unpack that fails half-way (a limit, a full
disk, a file where the archive wants a folder) removes what it unpacked: no partial
folder is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
import re
import secrets
import shutil
import tarfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

MAX_UPLOAD = 200 << 20
"""Largest tarball taken (the CLI's own archive limit, 200 MB)."""
MAX_UNPACKED = 512 << 20
"""Most bytes a tarball's members may hold once unpacked (default)."""
MAX_MEMBERS = 20_000
"""Most files, folders and links a tarball may hold (default)."""
MAX_UNPACKED_ENV = "AGENT_TUI_CONTROL_PLANE_MAX_UNPACKED_MB"
MAX_MEMBERS_ENV = "AGENT_TUI_CONTROL_PLANE_MAX_FILES"
UPLOAD_TTL = 15 * 60.0
UPLOAD_HEADERS = {"Content-Type": "application/gzip"}
_OBJECT_PATH = re.compile(
    r"uploads/(?P<deployment>[0-9a-f-]{36})/(?P<upload>[0-9a-f]{32})\.tar\.gz"
)


class UploadError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class _Pending:
    deployment_id: str
    upload_id: str
    expires: float


def uploads_folder(data_dir: Path, deployment_id: str) -> Path:
    return data_dir / "deployments" / deployment_id / "uploads"


def revision_source_folder(data_dir: Path, deployment_id: str, revision_id: str) -> Path:
    return data_dir / "deployments" / deployment_id / "revisions" / revision_id / "source"


def uploaded_tarball(data_dir: Path, deployment_id: str, object_path: str) -> Path | None:
    """Where the tarball an object path of the deployment names is kept (None: the path
    is none this deployment's upload-url gives)."""
    match = _OBJECT_PATH.fullmatch(object_path)
    if match is None or match["deployment"] != deployment_id:
        return None
    return uploads_folder(data_dir, deployment_id) / f"{match['upload']}.tar.gz"


def uploaded_revision_folder(data_dir: Path, config_path: Path) -> Path | None:
    """The ``deployments/<id>/revisions/<rid>`` folder an uploaded revision's
    ``langgraph.json`` was unpacked in (its ``source``; its environment goes in ``env``
    beside it), or None for a ``langgraph.json`` on this machine."""
    root = (data_dir / "deployments").resolve()
    try:
        parts = config_path.relative_to(root).parts
    except ValueError:
        return None
    if len(parts) > 4 and parts[1] == "revisions" and parts[3] == "source":
        return root.joinpath(*parts[:3])
    return None


def unpack_limits() -> tuple[int, int]:
    """The most bytes and members an upload may unpack to (see the module docstring);
    an environment variable that is not a positive whole number leaves the default."""
    return (
        _positive(MAX_UNPACKED_ENV, 1 << 20) or MAX_UNPACKED,
        _positive(MAX_MEMBERS_ENV, 1) or MAX_MEMBERS,
    )


def _positive(name: str, unit: int) -> int | None:
    raw = os.environ.get(name, "").strip()
    return int(raw) * unit if raw.isdigit() and int(raw) > 0 else None


def _member_problem(member: tarfile.TarInfo) -> str | None:
    name = member.name
    parts = PurePosixPath(name).parts
    if name.startswith("/") or ".." in parts or "\0" in name:
        return "its path leaves the archive"
    if member.isfile() or member.isdir():
        return None
    if member.issym() or member.islnk():
        target = member.linkname
        base = posixpath.dirname(name) if member.issym() else ""
        joined = posixpath.normpath(posixpath.join(base, target))
        if target.startswith("/") or joined == ".." or joined.startswith("../"):
            return "it is a link pointing outside the archive"
        return None
    return "it is not a regular file, folder or link (a device, FIFO or other special file)"


def check_tarball(path: Path) -> None:
    """Refuse (`UploadError` 400) what is not a gzipped tar of safe members, and (413)
    one that would unpack past `unpack_limits`."""
    most_bytes, most_members = unpack_limits()
    total = 0
    try:
        with tarfile.open(path, "r:gz") as tar:
            for count, member in enumerate(tar, start=1):
                if count > most_members:
                    raise UploadError(
                        413,
                        f"The archive holds more than {most_members} files, folders and links: "
                        f"the local control plane unpacks at most that many ({MAX_MEMBERS_ENV} "
                        "sets the limit).",
                    )
                if problem := _member_problem(member):
                    raise UploadError(
                        400, f"The archive's member {member.name!r} is refused: {problem}."
                    )
                total += max(member.size, 0)
                if total > most_bytes:
                    raise UploadError(
                        413,
                        f"The archive unpacks to more than {_mib(most_bytes)} MiB: the local "
                        f"control plane unpacks at most that much ({MAX_UNPACKED_ENV} sets "
                        "the limit, in MiB).",
                    )
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UploadError(400, f"The upload is not a gzipped tar archive: {exc}") from None


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g}"


def unpack(tarball: Path, destination: Path) -> None:
    """Unpack a checked tarball into ``destination`` (a new, empty folder); tar's ``data``
    filter refuses again whatever would land outside it. On failure nothing stays
    (`remove_unpacked`)."""
    check_tarball(tarball)
    destination.mkdir(parents=True, mode=0o700)
    try:
        with tarfile.open(tarball, "r:gz") as tar:
            tar.extractall(destination, filter="data")
    except BaseException as exc:
        remove_unpacked(destination)
        if isinstance(exc, tarfile.TarError | OSError):
            raise UploadError(400, f"The archive cannot be unpacked: {exc}") from None
        raise


def remove_unpacked(destination: Path) -> None:
    """Remove an unpacked source folder, and the folders above it that this leaves empty
    (the revision's, then ``revisions``)."""
    shutil.rmtree(destination, ignore_errors=True)
    with contextlib.suppress(OSError):  # rmdir: only when empty
        destination.parent.rmdir()
        destination.parent.parent.rmdir()


class Uploads:
    """The upload URLs handed out, and the PUTs that use them."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._pending: dict[str, _Pending] = {}

    def grant(self, request: Request, deployment_id: str) -> dict[str, Any]:
        """A one-time upload URL for a deployment (the upload-url answer)."""
        stamp = time.monotonic()
        self._pending = {t: p for t, p in self._pending.items() if p.expires > stamp}
        token = secrets.token_urlsafe(32)
        upload_id = uuid.uuid4().hex
        self._pending[token] = _Pending(deployment_id, upload_id, stamp + UPLOAD_TTL)
        prefix = str(request.scope.get("root_path") or "")
        base = str(request.base_url).rstrip("/")
        if prefix and not base.endswith(prefix):
            base += prefix
        return {
            "upload_url": f"{base}/v2/uploads/{token}",
            "object_path": f"uploads/{deployment_id}/{upload_id}.tar.gz",
            "upload_headers": dict(UPLOAD_HEADERS),
        }

    def forget(self, deployment_id: str) -> None:
        self._pending = {t: p for t, p in self._pending.items() if p.deployment_id != deployment_id}

    async def receive(self, request: Request, deployment_exists: Any) -> Response:
        """The PUT of a tarball to a granted URL."""
        pending = self._pending.pop(request.path_params["token"], None)
        if pending is None or pending.expires < time.monotonic():
            return JSONResponse(
                {"detail": "This upload URL is unknown, used or expired."}, status_code=403
            )
        if not deployment_exists(pending.deployment_id):
            return JSONResponse({"detail": "The deployment no longer exists."}, status_code=404)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_UPLOAD:
            return _too_large()
        folder = uploads_folder(self.data_dir, pending.deployment_id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = folder / f"{pending.upload_id}.tar.gz"
        partial = target.with_suffix(".part")
        size = 0
        try:
            file = await asyncio.to_thread(open, partial, "wb")
            try:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > MAX_UPLOAD:
                        raise UploadError(413, f"The upload is larger than {MAX_UPLOAD >> 20} MB.")
                    await asyncio.to_thread(file.write, chunk)
            finally:
                file.close()
            await asyncio.to_thread(check_tarball, partial)
        except UploadError as exc:
            partial.unlink(missing_ok=True)
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        os.replace(partial, target)
        return Response(status_code=200)

    def accepted(self, object_path: str, deployment_id: str) -> Path:
        """The stored tarball an object path names (`UploadError` 400 when none)."""
        path = uploaded_tarball(self.data_dir, deployment_id, object_path)
        if path is None:
            raise UploadError(
                400, "source_tarball_path is not an object path this deployment's upload-url gave"
            )
        if not path.is_file():
            raise UploadError(400, "Nothing was uploaded to this source_tarball_path.")
        return path


def _too_large() -> Response:
    return JSONResponse(
        {"detail": f"The upload is larger than {MAX_UPLOAD >> 20} MB."}, status_code=413
    )
