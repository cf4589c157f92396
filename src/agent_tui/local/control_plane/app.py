"""The local control plane as an ASGI app: the spec's `/v2` routes on SQLite state.

Also what the official CLI's remote build uses beyond the spec: the upload URL and the
PUT it names (`uploads`), and the `/v1/projects/…` log endpoints (`revision_logs`).
Every route is served under `/api-host` too, where self-hosted LangSmith serves its
control plane (the CLI adds that prefix when given a LangSmith endpoint).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from agent_tui.local.control_plane.auth import ApiKeyMiddleware
from agent_tui.local.control_plane.deployer import Deployer
from agent_tui.local.control_plane.deployments import DeploymentRoutes, HttpError
from agent_tui.local.control_plane.providers import ProviderRoutes
from agent_tui.local.control_plane.store import Store
from agent_tui.local.control_plane.uploads import UploadError, Uploads
from agent_tui.local.control_plane.validation import BodyTooLarge, InvalidRequest

DB_FILE = "control-plane.sqlite3"
PATH_PREFIX = "/api-host"
UPLOAD_PATH = "/v2/uploads/"

Handler = Callable[[Request], Awaitable[Response]]


def _errors(handler: Handler) -> Handler:
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except InvalidRequest as exc:
            return JSONResponse({"detail": exc.errors}, status_code=422)
        except HttpError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)
        except BodyTooLarge as exc:
            return JSONResponse({"detail": exc.detail}, status_code=413)
        except UploadError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    return wrapped


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def create_app(data_dir: Path, api_key: str) -> Starlette:
    """The app for one data folder; `api_key` authorises requests (X-Api-Key or Bearer)."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    store = Store(data_dir / DB_FILE)
    deployer = Deployer(store, data_dir)
    deployments = DeploymentRoutes(store, deployer, Uploads(data_dir))
    providers = ProviderRoutes(store)
    base = "/v2/deployments/{deployment_id}"
    revision = base + "/revisions/{revision_id}"
    project = "/v1/projects/{deployment_id}"
    routes: list[BaseRoute] = [
        Route("/v2/deployments", _errors(deployments.index), methods=["GET"]),
        Route("/v2/deployments", _errors(deployments.create), methods=["POST"]),
        Route("/v2/deployments", _errors(deployments.delete_many), methods=["DELETE"]),
        Route(base, _errors(deployments.get), methods=["GET"]),
        Route(base, _errors(deployments.patch), methods=["PATCH"]),
        Route(base, _errors(deployments.delete), methods=["DELETE"]),
        Route(base + "/revisions", _errors(deployments.revisions), methods=["GET"]),
        Route(revision, _errors(deployments.revision), methods=["GET"]),
        Route(revision + "/logs", _errors(deployments.logs), methods=["GET"]),
        Route(revision + "/redeploy", _errors(deployments.redeploy), methods=["POST"]),
        Route(base + "/upload-url", _errors(deployments.upload_url), methods=["POST"]),
        Route(UPLOAD_PATH + "{token}", _errors(deployments.upload), methods=["PUT"]),
        Route(
            project + "/revisions/{revision_id}/build_logs",
            _errors(deployments.build_logs),
            methods=["POST"],
        ),
        Route(
            project + "/revisions/{revision_id}/deploy_logs",
            _errors(deployments.deploy_logs),
            methods=["POST"],
        ),
        Route(project + "/deploy_logs", _errors(deployments.deploy_logs), methods=["POST"]),
        Route("/v2/auth/providers", _errors(providers.index), methods=["GET"]),
        Route("/v2/auth/providers", _errors(providers.create), methods=["POST"]),
        Route("/v2/auth/providers/{provider_id}", _errors(providers.get), methods=["GET"]),
        Route("/v2/auth/providers/{provider_id}", _errors(providers.patch), methods=["PATCH"]),
        Route("/v2/auth/providers/{provider_id}", _errors(providers.delete), methods=["DELETE"]),
    ]
    routes.append(Mount(PATH_PREFIX, routes=list(routes)))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await deployer.resume()
        try:
            yield
        finally:
            await deployer.aclose()
            store.close()

    app = Starlette(
        routes=routes,
        # An upload URL carries its own one-time token: the CLI PUTs without the key.
        middleware=[
            Middleware(
                ApiKeyMiddleware,
                key=api_key,
                open_paths=(UPLOAD_PATH, PATH_PREFIX + UPLOAD_PATH),
            )
        ],
        exception_handlers={HTTPException: _http_exception},
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.deployer = deployer
    return app
