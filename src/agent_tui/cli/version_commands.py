"""The rows of the command table (`commands.py`) for comparing assistant versions:
`assistants`, `datasets` and `experiments`."""

from __future__ import annotations

from agent_tui.cli import assistants_args, datasets_args, experiments_args, graph_args
from agent_tui.cli.command_types import Command, Group

VERSION_COMMANDS: tuple[Command | Group, ...] = (
    Group(
        "assistants",
        "assistants and their versions: list, show, create, update, switch, delete (headless)",
        (
            Command(
                "list",
                "assistants, most recently updated first: name, graph, active version",
                assistants_args.list_arguments,
                "assistants_commands:list_assistants",
            ),
            Command(
                "show",
                "one assistant: its active version's context, metadata, config (and schemas)",
                assistants_args.show_arguments,
                "assistants_commands:show_assistant",
            ),
            Command(
                "versions",
                "an assistant's versions, newest first, each with its context",
                assistants_args.assistant_arguments,
                "assistants_commands:list_versions",
            ),
            Command(
                "set-version",
                "make a version the active one",
                assistants_args.set_version_arguments,
                "assistants_commands:set_version",
            ),
            Command(
                "create",
                "make an assistant of a graph; prints its id",
                assistants_args.create_arguments,
                "assistants_commands:create_assistant",
            ),
            Command(
                "update",
                "make a new version from a whole context, and activate it",
                assistants_args.update_arguments,
                "assistants_commands:update_assistant",
                description="The new version's context is exactly --context-json (the server "
                "merges nothing): an update that would drop keys of the active version is "
                "refused unless --drop says so.",
            ),
            Command(
                "delete",
                "delete an assistant and all its versions",
                assistants_args.assistant_arguments,
                "assistants_commands:delete_assistant",
            ),
            Command(
                "graph",
                "draw an assistant's graph (as `agent-tui graph`)",
                graph_args.graph_arguments,
                "graph:assistant_graph_command",
            ),
        ),
        description="ASSISTANT is an assistant id, a graph name (its default assistant) or "
        "an assistant's name. Exit codes: 0 done, 1 the server said no (or has no such "
        "assistant or version), 2 bad usage or read-only.",
    ),
    Group(
        "datasets",
        "sets of examples (inputs, references) kept on this machine, for experiments",
        (
            Command(
                "list",
                "the datasets: examples, how many have a reference",
                datasets_args.list_arguments,
                "datasets_commands:list_datasets",
            ),
            Command(
                "show",
                "a dataset's examples",
                datasets_args.show_arguments,
                "datasets_commands:show_dataset",
            ),
            Command(
                "import",
                "add the examples of a JSONL file (LangSmith's shape) to a dataset",
                datasets_args.import_arguments,
                "datasets_commands:import_dataset",
                description='Each line is one example: {"inputs": {...}, "outputs": {...}, '
                '"metadata": {...}} (outputs and metadata may be left out; an "id" is kept, '
                "and an example of the same id replaces the one the dataset has). A bad line is "
                "named and nothing is imported.",
            ),
            Command(
                "export",
                "write a dataset as JSONL (LangSmith's example shape)",
                datasets_args.export_arguments,
                "datasets_commands:export_dataset",
            ),
            Command(
                "delete",
                "delete a dataset",
                datasets_args.delete_arguments,
                "datasets_commands:delete_dataset",
            ),
            Command(
                "add",
                "add a turn of a thread as an example: its human message(s), its answer as "
                "the reference",
                datasets_args.add_arguments,
                "datasets_commands:add_from_thread",
            ),
        ),
        description="Datasets live in the user data folder (datasets/). Exit codes: 0 done, "
        "1 no such dataset, a bad file or the server said no, 2 bad usage.",
    ),
    Group(
        "experiments",
        "run a dataset on two or more assistants or versions and compare (headless)",
        (
            Command(
                "run",
                "run every example on each assistant, judge the answers, print a row each",
                experiments_args.run_arguments,
                "experiments_commands:run_experiment",
                description="Each example runs on a thread of its own per assistant, at most "
                "--concurrency at a time. ASSISTANT is an id, a graph name or an assistant's "
                "name, optionally @VERSION (that version's context is passed with each run). "
                "Exit codes: 0 no regression, 1 an example an earlier assistant passes fails "
                "on a later one (or the server said no), 2 bad usage, 130 ctrl+c (the runs "
                "it started are cancelled).",
            ),
            Command(
                "list",
                "saved experiments, newest first",
                experiments_args.list_arguments,
                "experiments_commands:list_experiments",
            ),
            Command(
                "show",
                "a saved experiment: summary, each example's outputs side by side, diffs",
                experiments_args.show_arguments,
                "experiments_commands:show_experiment",
            ),
        ),
    ),
)
