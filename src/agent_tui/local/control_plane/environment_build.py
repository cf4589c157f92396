"""The BUILDING step's install, run in a child process: the project's environment, with uv.

``python -m agent_tui.local.control_plane.environment_build CONFIG`` builds (or reuses)
the environment of CONFIG's project with `project_env.environment.ensure_environment` and prints one
JSON object a line, as things happen: ``{"line": …}`` for each progress line (uv's own
words), then ``{"python": …}`` (the interpreter to run the project with) and exits 0, or
``{"failed": reason}`` and exits 1.

A child process, rather than a thread, because a deleted deployment's build must stop
at once: the deployer (`build_children`) starts it in its own process group and kills
the group, which takes uv and the build backends uv started with it (a thread cannot be
stopped, and uv would go on installing into an environment nobody waits for).
``--die-with-parent PID`` kills that group when the control plane is gone without doing
it (see `parent_watch`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agent_tui.local.langgraph_config import LangGraphConfigError, load_langgraph_config
from agent_tui.local.project_env.environment import (
    BuildProgress,
    EnvironmentBuildError,
    ensure_environment,
    is_current,
    plan_environment,
)


def ready_python(config_path: Path, env_dir: Path | None = None) -> str | None:
    """The interpreter for the project when its environment needs no build (else None).

    A few file reads, so a restart or a project with nothing to install starts no child
    process. A config that cannot be read gets agent-tui's interpreter: the graph import
    check that follows reports what is wrong with it.
    """
    try:
        config = load_langgraph_config(config_path)
    except LangGraphConfigError:
        return sys.executable
    plan = plan_environment(config, env_dir)
    if plan.is_empty:
        return sys.executable
    return str(plan.python) if is_current(plan) else None


def _say(**message: str) -> None:
    print(json.dumps(message), flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent_tui.local.control_plane.environment_build"
    )
    parser.add_argument("config", type=Path, help="the langgraph.json file")
    parser.add_argument("--die-with-parent", type=int, metavar="PID")
    parser.add_argument("--env-dir", type=Path, help="where the environment goes")
    args = parser.parse_args(argv)
    if args.die_with_parent is not None:
        from agent_tui.local.control_plane.parent_watch import die_with_parent

        die_with_parent(args.die_with_parent)
    said: set[str] = set()

    def progress(step: BuildProgress) -> None:
        # uv's line when there is one; the builder's own steps have only a stage.
        line = step.line or step.stage
        said.add(line)
        _say(line=line)

    try:
        config = load_langgraph_config(args.config)
        python = ensure_environment(config, progress, env_dir=args.env_dir)
    except LangGraphConfigError as exc:
        _say(failed=f"invalid langgraph.json: {exc}")
        return 1
    except EnvironmentBuildError as exc:
        for line in exc.lines:
            if line not in said:  # most were reported as they came
                _say(line=line)
        _say(failed=exc.reason)
        return 1
    except OSError as exc:
        _say(failed=f"cannot build the environment: {exc}")
        return 1
    _say(python=python)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
