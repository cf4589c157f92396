"""`agent-tui datasets list | show NAME | import FILE.jsonl --name NAME | export NAME [FILE]
| delete NAME | add NAME --thread ID`: datasets kept on this machine (`datasets/`).

Everything but `add` works without a server. An import with a bad line names the line
and imports nothing; what the dataset held stays as it was. The arguments are in
`datasets_args.py`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.chat.item_text import compact_json
from agent_tui.cli.common import (
    EXIT_API_ERROR,
    EXIT_OK,
    fail,
    print_json,
    print_table,
    run,
    say,
)
from agent_tui.datasets.model import DatasetError
from agent_tui.datasets.store import DatasetStore
from agent_tui.text.time_text import utc_minutes

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

PREVIEW = 60


def _local(work: Callable[[DatasetStore], int]) -> int:
    try:
        return work(DatasetStore())
    except DatasetError as error:
        return fail(error, EXIT_API_ERROR)
    except OSError as error:
        return fail(error, EXIT_API_ERROR)


def list_datasets(args: argparse.Namespace) -> int:
    def work(store: DatasetStore) -> int:
        datasets = store.all()
        if args.json:
            print_json(
                [
                    {
                        "name": d.name,
                        "examples": len(d.examples),
                        "with_references": d.with_references,
                        "updated_at": d.updated_at.isoformat(),
                    }
                    for d in datasets
                ]
            )
            return EXIT_OK
        if not datasets:
            say(
                "no datasets (make one with `agent-tui datasets import FILE.jsonl --name NAME`)",
                sys.stderr,
            )
            return EXIT_OK
        rows = [
            [d.name, str(len(d.examples)), str(d.with_references), utc_minutes(d.updated_at)]
            for d in datasets
        ]
        print_table(["NAME", "EXAMPLES", "WITH REFERENCE", "UPDATED (UTC)"], rows)
        return EXIT_OK

    return _local(work)


def show_dataset(args: argparse.Namespace) -> int:
    def work(store: DatasetStore) -> int:
        dataset = store.load(args.name)
        if args.json:
            print_json(dataset.as_json())
            return EXIT_OK
        rows = [
            [
                e.id,
                compact_json(e.inputs, PREVIEW),
                compact_json(e.outputs, PREVIEW) if e.outputs is not None else "",
                compact_json(e.metadata, PREVIEW) if e.metadata else "",
            ]
            for e in dataset.examples
        ]
        print_table(["EXAMPLE ID", "INPUTS", "REFERENCE", "METADATA"], rows)
        return EXIT_OK

    return _local(work)


def import_dataset(args: argparse.Namespace) -> int:
    from agent_tui.datasets.jsonl import read_examples

    def work(store: DatasetStore) -> int:
        if args.file == "-":
            text, source = sys.stdin.read(), "stdin"
        else:
            text, source = Path(args.file).read_text(encoding="utf-8"), args.file
        examples = read_examples(text, source)
        added = store.add_examples(args.name, examples)
        total = len(store.load(args.name).examples)
        if args.json:
            print_json(
                {
                    "name": args.name,
                    "added": added,
                    "replaced": len(examples) - added,
                    "examples": total,
                }
            )
        else:
            replaced = len(examples) - added
            again = f", {replaced} replaced (same id)" if replaced else ""
            say(f"{args.name}: {added} examples added{again}; {total} in all")
        return EXIT_OK

    return _local(work)


def export_dataset(args: argparse.Namespace) -> int:
    from agent_tui.datasets.jsonl import write_examples
    from agent_tui.settings.atomic_file import write_text_atomically

    def work(store: DatasetStore) -> int:
        dataset = store.load(args.name)
        text = write_examples(dataset.examples)
        if args.file == "-":
            sys.stdout.write(text)
        else:
            write_text_atomically(Path(args.file), text)
            say(f"wrote {len(dataset.examples)} examples to {args.file}", sys.stderr)
        return EXIT_OK

    return _local(work)


def delete_dataset(args: argparse.Namespace) -> int:
    def work(store: DatasetStore) -> int:
        store.delete(args.name)
        say(f"deleted dataset {args.name}")
        return EXIT_OK

    return _local(work)


def add_from_thread(args: argparse.Namespace) -> int:
    from agent_tui.datasets.from_thread import example_from_thread

    turn = args.turn - 1 if args.turn > 0 else args.turn

    async def work(client: AgentServerClient) -> int:
        example = await example_from_thread(
            client, args.thread, turn=turn, with_answer=not args.no_reference
        )
        try:
            DatasetStore().add_examples(args.name, [example])
        except DatasetError as error:
            return fail(error, EXIT_API_ERROR)
        if args.json:
            print_json(example.as_json())
        else:
            say(example.id)
        return EXIT_OK

    try:
        return run(args, work)
    except DatasetError as error:  # raised inside the run: the thread has no such turn
        return fail(error, EXIT_API_ERROR)
