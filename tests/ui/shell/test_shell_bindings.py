"""Every binding of the shell's widgets and screens has an id (keys are remapped by id)."""

from __future__ import annotations

import pytest
from textual.dom import DOMNode

from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.command_line import CommandLineScreen
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.shell import ShellApp
from agent_tui.tui.widgets.resource_table import ResourceTable
from tests.support.bindings import bindings_of


@pytest.mark.parametrize(
    "node",
    [
        ResourceTable,
        ResourceScreen,
        ConfirmScreen,
        RawJsonScreen,
        HelpScreen,
        CommandLineScreen,
    ],
)
def test_every_binding_has_an_id(node: type[DOMNode]) -> None:
    bindings = bindings_of(node)
    assert bindings
    assert [b.key for b in bindings if not b.id] == []


def test_the_shell_app_bindings_have_ids() -> None:
    assert all(binding.id for binding in ShellApp.BINDINGS if not isinstance(binding, tuple))
