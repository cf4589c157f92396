"""Reading a project's ``langgraph.json`` the way ``langgraph dev`` does.

The embedded server runs with its working folder in the user data folder (that is where
the in-memory runtime keeps its files), not in the project. So every relative path in the
config is made absolute here, against the config file's folder: graph files, dependency
folders, the ``.env`` file and the code references in ``auth``, ``http``, ``store`` and
``checkpointer``.

The app reads it once for a local start (`session`) and hands the `LangGraphConfig` on:
to the project's environment, the supervisor and live reload. It is read again only
where it may have changed since (a reload after a save, a fix watched after a failed
start) and in the children, which run in another interpreter and are given its path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.local.project_files import ProjectFileError, read_project_text

DEMO_CONFIG = Path(__file__).resolve().parent / "demo" / "langgraph.json"
"""The bundled demo graphs' config (see `agent_tui.local.demo`)."""

CONFIG_FILE_NAME = "langgraph.json"

# Keys handed to `langgraph_api.cli.run_server` unchanged apart from path resolution.
PASSTHROUGH_KEYS = ("store", "auth", "http", "checkpointer", "ui", "ui_config", "webhooks")

_FILE_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


class LangGraphConfigError(ValueError):
    """The config file is missing or is not a usable ``langgraph.json``."""


@dataclass(frozen=True)
class LangGraphConfig:
    path: Path
    """Absolute path of the ``langgraph.json`` file."""
    graphs: dict[str, Any]
    """Graph id → code reference (or ``{"path": …, "description": …}``), files made absolute."""
    dependencies: list[Path] = field(default_factory=list)
    """Existing local dependency folders, absolute; they go on ``sys.path``."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment for the graphs: the ``env`` mapping, or the ``.env`` file it names."""
    options: dict[str, Any] = field(default_factory=dict)
    """The `PASSTHROUGH_KEYS` present in the file, paths made absolute."""
    disable_persistence: bool = False
    warnings: list[str] = field(default_factory=list)
    """Problems that do not stop the server (as with ``langgraph dev``), e.g. no ``.env``."""
    declared_dependencies: list[str] = field(default_factory=list)
    """The ``dependencies`` entries as written (requirement strings and local paths): what
    the project's environment is planned from (`project_env`)."""
    python_version: str | None = None
    """``python_version`` as written, if any."""
    env_file: Path | None = None
    """The file ``env`` names, absolute, when it names one (live reload watches it)."""

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def graph_ids(self) -> list[str]:
        return list(self.graphs)


def default_langgraph_config(cwd: Path) -> Path:
    """``<cwd>/langgraph.json`` when that file exists, else the bundled demo config."""
    candidate = cwd / CONFIG_FILE_NAME
    return candidate.resolve() if candidate.is_file() else DEMO_CONFIG


def load_langgraph_config(path: Path) -> LangGraphConfig:
    """Read and check a ``langgraph.json``; raise `LangGraphConfigError` with the reason."""
    path = path.expanduser().resolve()
    try:
        raw = json.loads(read_project_text(path))
    except FileNotFoundError:
        raise LangGraphConfigError(f"{path}: no such file") from None
    except ProjectFileError as exc:
        raise LangGraphConfigError(f"{path}: not read: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LangGraphConfigError(f"{path}: cannot read it: {exc}") from None
    except json.JSONDecodeError as exc:
        raise LangGraphConfigError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise LangGraphConfigError(f"{path}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise LangGraphConfigError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise LangGraphConfigError(f"{path}: expected a JSON object at the top level")

    base = path.parent
    warnings: list[str] = []
    graphs = raw.get("graphs")
    if not isinstance(graphs, dict) or not graphs:
        raise LangGraphConfigError(f'{path}: "graphs" must map at least one graph id to its code')
    return LangGraphConfig(
        path=path,
        graphs={gid: _resolve_graph(path, gid, spec, base) for gid, spec in graphs.items()},
        dependencies=_dependency_folders(raw.get("dependencies", []), base),
        env=_environment(path, raw.get("env"), base, warnings),
        options={key: _resolve_refs(raw[key], base) for key in PASSTHROUGH_KEYS if key in raw},
        disable_persistence=bool(raw.get("disable_persistence", False)),
        warnings=warnings,
        declared_dependencies=_declared(raw.get("dependencies")),
        python_version=str(raw["python_version"]) if raw.get("python_version") else None,
        env_file=_env_file(raw.get("env"), base),
    )


def resolve_code_ref(ref: str, base: Path) -> str:
    """Make a ``"./file.py:name"`` reference absolute; leave ``"package.module:name"`` alone.

    langgraph-api treats a reference as a file when it contains a slash, so a bare
    ``"graph.py:graph"`` (valid for ``langgraph dev``) also becomes absolute here.
    """
    location, sep, name = ref.rpartition(":")
    if not sep or not location:
        return ref
    if "/" in location or "\\" in location or location.endswith(_FILE_SUFFIXES):
        return f"{(base / location).resolve()}:{name}"
    return ref


def parse_dotenv(text: str) -> dict[str, str]:
    """The ``KEY=value`` pairs of a ``.env`` file (comments, ``export`` and quotes handled).

    python-dotenv is not a dependency of langgraph-api, so without this the server would
    ignore an ``"env": ".env"`` entry with only a warning.
    """
    values: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$", line)
        if not match:
            continue
        key, value = match.group(1), match.group(2).strip()
        quote = value[:1]
        if quote in ("'", '"') and len(value) >= 2 and value.endswith(quote):
            value = value[1:-1]
            if quote == '"':
                value = value.replace("\\n", "\n").replace('\\"', '"')
        else:
            value = re.sub(r"\s+#.*$", "", value)
        values[key] = value
    return values


def _resolve_graph(path: Path, graph_id: str, spec: Any, base: Path) -> Any:
    if isinstance(spec, str):
        return resolve_code_ref(spec, base)
    if isinstance(spec, Mapping) and isinstance(spec.get("path"), str):
        return {**spec, "path": resolve_code_ref(spec["path"], base)}
    raise LangGraphConfigError(
        f'{path}: graph "{graph_id}" must be "path/to/file.py:variable", '
        f'"package.module:variable" or an object with a "path"'
    )


def _dependency_folders(dependencies: Any, base: Path) -> list[Path]:
    # Package names ("langchain_openai") are install-time dependencies: only local
    # folders matter at run time, as with `langgraph dev`.
    if not isinstance(dependencies, list):
        return []
    folders = [(base / dep).resolve() for dep in dependencies if isinstance(dep, str)]
    return [folder for folder in folders if folder.is_dir()]


def _declared(dependencies: Any) -> list[str]:
    if not isinstance(dependencies, list):
        return []
    return [dependency for dependency in dependencies if isinstance(dependency, str)]


def _env_file(env: Any, base: Path) -> Path | None:
    if not isinstance(env, str):
        return None
    try:
        return (base / env).resolve()
    except (OSError, ValueError):  # a NUL byte in the name: `_environment` warns about it
        return None


def _environment(path: Path, env: Any, base: Path, warnings: list[str]) -> dict[str, str]:
    if env is None:
        return {}
    if isinstance(env, Mapping):
        return {str(key): str(value) for key, value in env.items()}
    if isinstance(env, str):
        env_file = base / env
        try:
            env_file = env_file.resolve()
            return parse_dotenv(read_project_text(env_file))
        except UnicodeDecodeError:
            warnings.append(f'{path}: the "env" file {env_file} was not read: it is not UTF-8')
            return {}
        except ValueError:  # a NUL byte in the name
            warnings.append(f'{path}: the "env" file {env!r} was not read: not a valid path')
            return {}
        except OSError as exc:
            warnings.append(f'{path}: the "env" file {env_file} was not read: {exc.strerror}')
            return {}
    raise LangGraphConfigError(f'{path}: "env" must be a file path or an object')


def _resolve_refs(value: Any, base: Path) -> Any:
    """Make every code reference inside an option block absolute.

    The keys that hold code are ``path`` (auth, store, checkpointer), ``app`` (http) and
    ``embed`` (store.index); an ``embed`` like ``"openai:text-embedding-3-small"`` has no
    slash and stays as it is.
    """
    if isinstance(value, Mapping):
        return {
            key: resolve_code_ref(item, base)
            if key in ("path", "app", "embed") and isinstance(item, str)
            else _resolve_refs(item, base)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_resolve_refs(item, base) for item in value]
    return value
