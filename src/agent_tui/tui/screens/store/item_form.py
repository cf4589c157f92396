"""`n`/`e` on the Store: put one item — namespace (dotted), key, value (JSON), TTL.

The value is edited in the form's own editor, or in `$VISUAL`/`$EDITOR` with `ctrl+e`
(the built-in full-screen editor when none is set; `tui/editor.py`). Every field is checked
before anything is sent (`store/item_input.py`): the reason shows under the field that is
wrong and everything typed stays. The form sends the request itself and stays open on a
server error too. Editing keeps the namespace and key (another key is another item: `n`).
Dismisses with the `ItemDraft` that was put, or None on cancel.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from agent_tui.client import AgentServerClient
from agent_tui.client.models.memory import Namespace, StoreItem, dotted
from agent_tui.store.item_input import ItemDraft, StoreInputError
from agent_tui.tui.editor import edit_text
from agent_tui.tui.modals.saving_form import SavingForm
from agent_tui.tui.widgets.inert import Input, TextArea, editable_json
from agent_tui.tui.widgets.text import server_text

FIELDS = ("namespace", "key", "value", "ttl")
NEW_VALUE = '{\n  "": ""\n}'


class ItemFormScreen(SavingForm[ItemDraft, ItemDraft]):
    DEFAULT_CSS = """
    ItemFormScreen { align: center middle; }
    ItemFormScreen > Vertical {
        width: 90%; max-width: 110; height: 90%; max-height: 40;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ItemFormScreen .title { text-style: bold; }
    ItemFormScreen .row { height: auto; }
    ItemFormScreen .row > Vertical { height: auto; }
    ItemFormScreen #namespace-column { width: 2fr; }
    ItemFormScreen #key-column { width: 2fr; margin: 0 1; }
    ItemFormScreen #ttl-column { width: 1fr; }
    ItemFormScreen TextArea { height: 1fr; min-height: 3; }
    ItemFormScreen .field-error { color: $text-error; display: none; }
    ItemFormScreen #item-error { color: $text-error; display: none; }
    ItemFormScreen .buttons { height: auto; align-horizontal: right; }
    ItemFormScreen Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="store_item.cancel"),
        Binding("ctrl+s", "save", "Save", id="store_item.save"),
        # Priority: Input and TextArea take ctrl+e as "end of line" otherwise.
        Binding("ctrl+e", "edit_value", "Value in $EDITOR", priority=True, id="store_item.editor"),
    ]
    SAVE_GROUP = "store-item-put"
    ERROR_LINE = "#item-error"
    doing = "put the item"

    def __init__(
        self,
        client: AgentServerClient,
        *,
        item: StoreItem | None = None,
        namespace: Namespace = (),
    ) -> None:
        """`item`: edit it (its namespace and key stay); else a new item in `namespace`."""
        super().__init__()
        self.client = client
        self.item = item
        self.initial_namespace = dotted(item.ns if item is not None else namespace)
        self.errors: dict[str, str] = {}  # field → what the form shows under it

    def compose(self) -> ComposeResult:
        item = self.item
        title = "Edit item" if item is not None else "New item"
        value = editable_json(item.value, default=str) if item is not None else NEW_VALUE
        with Vertical():
            yield Static(title, classes="title")
            with Horizontal(classes="row"):
                with Vertical(id="namespace-column"):
                    yield Label("Namespace (dotted)")
                    yield Input(
                        self.initial_namespace,
                        placeholder="users.u1.memories",
                        id="item-namespace",
                        disabled=item is not None,
                    )
                    yield Static(id="item-namespace-error", classes="field-error")
                with Vertical(id="key-column"):
                    yield Label("Key")
                    yield Input(
                        item.key if item is not None else "",
                        placeholder="paris",
                        id="item-key",
                        disabled=item is not None,
                    )
                    yield Static(id="item-key-error", classes="field-error")
                with Vertical(id="ttl-column"):
                    yield Label("TTL (minutes)")
                    yield Input(placeholder="never", id="item-ttl")
                    yield Static(id="item-ttl-error", classes="field-error")
            yield Label("Value: a JSON object (ctrl+e: in $EDITOR)")
            yield TextArea(value, id="item-value", soft_wrap=True, show_line_numbers=True)
            yield Static(id="item-value-error", classes="field-error")
            yield Static(id="item-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Value in $EDITOR (ctrl+e)", id="editor")
                yield Button("Save (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        first = "#item-value" if self.item is not None else "#item-key"
        if self.item is None and not self.initial_namespace:
            first = "#item-namespace"
        self.query_one(first).focus()

    # -- the fields ---------------------------------------------------------------------

    def _text(self, name: str) -> str:
        if name == "value":
            return self.query_one("#item-value", TextArea).text
        return self.query_one(f"#item-{name}", Input).value

    def show_problems(self, problems: dict[str, str]) -> None:
        """Each problem under its field; the others cleared."""
        self.errors = dict(problems)
        for name in FIELDS:
            widget = self.query_one(f"#item-{name}-error", Static)
            widget.update(server_text(problems.get(name, "")))
            widget.display = name in problems

    # -- verbs --------------------------------------------------------------------------

    @on(Input.Submitted)
    def _enter_saves(self) -> None:
        self.action_save()

    def read_form(self) -> ItemDraft | None:
        try:
            draft = ItemDraft.from_input(**{name: self._text(name) for name in FIELDS})
        except StoreInputError as error:
            self.show_problems({error.field: error.message})
            self.show_error(None)
            widget = self.query_one(f"#item-{error.field}")
            if not widget.disabled:
                widget.focus()
            return None
        self.show_problems({})
        return draft

    async def send(self, draft: ItemDraft) -> ItemDraft:
        await self.client.store.put_item(draft.namespace, draft.key, draft.value, ttl=draft.ttl)
        return draft

    @on(Button.Pressed, "#editor")
    def action_edit_value(self) -> None:
        self._edit_value()

    @work(exclusive=True, group="store-item-editor", exit_on_error=False)
    async def _edit_value(self) -> None:
        area = self.query_one("#item-value", TextArea)
        text = await edit_text(self.app, area.text, title="The item's value (a JSON object)")
        if text is not None:
            area.text = text  # checked on save, like typed text: nothing written is lost

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
