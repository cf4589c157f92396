"""`:store`: the Store's namespaces as a tree, the items of the selected one, put, edit,
delete, search on the server, read-only, and from a thread its memory — on the real server."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.store.browser import NO_INDEX, StoreScreen
from agent_tui.tui.screens.store.item_form import ItemFormScreen
from agent_tui.tui.screens.store.search import StoreSearchScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.screen import footer_keys_in_view, toast_saying
from tests.support.store import (
    SIZE,
    heading,
    keys_shown,
    next_screen,
    opened,
    rows,
    select_key,
    showing,
    store_app,
    tree_labels,
    unique_root,
)
from tests.support.waiting import WaitFor

pytestmark = pytest.mark.timeout(300)


async def test_the_tree_shows_namespaces_and_a_selected_one_lists_its_items(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root, "u1", "memories"), "paris", {"city": "Paris"})
    await client.store.put_item((root, "u2"), "rome", {"city": "Rome", "n": 2})
    await client.store.put_item((root, "u2"), "oslo", {"city": "Oslo", "n": 3})

    app, _ = store_app(client)
    async with app.run_test(size=SIZE) as pilot:
        # `:store PREFIX` from the command line opens on that prefix.
        first = app.screen
        await pilot.press("colon", *f"store {root}", "enter")
        screen = await next_screen(pilot, wait_for, StoreScreen, other_than=first)
        await opened(pilot, wait_for, screen, keys=3)
        labels = tree_labels(screen)
        # Every prefix a node, nested; the root counts the items it holds once loaded.
        assert set(labels) == {(root,), (root, "u1"), (root, "u1", "memories"), (root, "u2")}
        assert labels[(root,)] == f"{root}  3"
        assert labels[(root, "u1", "memories")] == "memories"
        tree = screen.namespace_tree
        memories = tree.node_for((root, "u1", "memories"))
        assert memories is not None and memories.parent is tree.node_for((root, "u1"))
        assert "2 namespaces" in heading(screen)
        # Key, namespace (dotted), updated (UTC), the value on one line.
        shown = {row[0]: row[1:] for row in rows(screen)}
        assert set(shown) == {"oslo", "rome", "paris"}
        assert shown["oslo"][0] == f"{root}.u2" and shown["paris"][0] == f"{root}.u1.memories"
        assert shown["oslo"][2] == '{"city": "Oslo", "n": 3}'
        assert shown["oslo"][1].startswith("20")

        # Down the tree to u2: its two items, and its count on the node.
        await pilot.press("down", "down", "down", "down")
        await wait_for(pilot, lambda: screen.prefix == (root, "u2"), what="u2 picked")
        await wait_for(
            pilot, lambda: sorted(keys_shown(screen)) == ["oslo", "rome"], what="u2's items"
        )
        assert tree_labels(screen)[(root, "u2")] == "u2  2"

        # enter on an item: the whole of it.
        await pilot.press("tab")
        assert screen.table.has_focus
        select_key(screen, "rome")
        await pilot.press("enter")
        detail = await next_screen(pilot, wait_for, RawJsonScreen)
        assert detail.data["value"] == {"city": "Rome", "n": 2}
        assert detail.data["namespace"] == [root, "u2"] and detail.data["key"] == "rome"
        await pilot.press("escape")

        # `/` filters what is loaded.
        await pilot.press("slash", *"osl")
        await wait_for(pilot, lambda: keys_shown(screen) == ["oslo"], what="filtered")


async def test_r_keeps_the_namespace_picked_in_the_tree_and_its_items(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root, "u1", "memories"), "paris", {"city": "Paris"})
    await client.store.put_item((root, "u2"), "rome", {"city": "Rome"})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=2)
        tree = screen.namespace_tree
        tree.focus()
        await pilot.press("down", "down", "down")
        await wait_for(pilot, lambda: screen.prefix == (root, "u2"), what="u2 picked")
        await wait_for(pilot, lambda: keys_shown(screen) == ["rome"], what="u2's items")
        # The tree is drawn again from the server's namespaces: the cursor stays on u2
        # (not back on the first line, which would list the whole root's items).
        await pilot.press("r")
        await wait_for(pilot, lambda: not screen.workers, what="the refresh")
        assert tree.cursor_node is not None and tree.cursor_node.data == (root, "u2")
        assert screen.prefix == (root, "u2") and keys_shown(screen) == ["rome"]


async def test_n_puts_an_item_and_bad_json_is_refused_with_the_text_kept(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root, "u1"), "first", {"n": 1})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=1)
        await pilot.press("n")
        form = await next_screen(pilot, wait_for, ItemFormScreen)
        # A new item goes into the selected namespace unless told otherwise.
        namespace = form.query_one("#item-namespace", Input)
        assert namespace.value == root
        namespace.value = f"{root}.u2.notes"
        form.query_one("#item-key", Input).value = "lunch"
        value = form.query_one("#item-value", TextArea)
        value.text = '{"food": "soup",}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "value" in form.errors, what="the JSON refused")
        assert form.errors["value"].startswith("value is not valid JSON")
        assert "line 1" in form.errors["value"]
        assert showing(app, form) and value.text == '{"food": "soup",}'

        value.text = '["not", "an", "object"]'
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: "must be a JSON object" in form.errors.get("value", ""), what="a list"
        )
        form.query_one("#item-ttl", Input).value = "-3"
        value.text = '{"food": "soup"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "ttl" in form.errors, what="the TTL refused")
        assert "positive number of minutes" in form.errors["ttl"]

        form.query_one("#item-ttl", Input).value = "90"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: showing(app, screen), what="the form closed")
        # The new namespace is in the tree; the list follows it with the new item selected.
        await wait_for(
            pilot, lambda: (root, "u2", "notes") in tree_labels(screen), what="the namespace"
        )
        await wait_for(
            pilot,
            lambda: (
                screen.table.selected_item is not None and screen.table.selected_item.key == "lunch"
            ),
            what="the new item selected",
        )
    item = await client.store.get_item((root, "u2", "notes"), "lunch")
    assert item.value == {"food": "soup"}


async def test_e_edits_the_value_and_ctrl_d_deletes_after_a_confirmation(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root,), "city", {"name": "Paris"})
    await client.store.put_item((root,), "food", {"name": "soup"})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=2)
        select_key(screen, "city")
        await pilot.press("e")
        form = await next_screen(pilot, wait_for, ItemFormScreen)
        # The namespace and key stay: another key is another item.
        assert form.query_one("#item-key", Input).disabled
        value = form.query_one("#item-value", TextArea)
        assert '"name": "Paris"' in value.text
        value.text = '{"name": "Lyon"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: showing(app, screen), what="the form closed")
        await wait_for(
            pilot,
            lambda: any("Lyon" in row[3] for row in rows(screen)),
            what="the new value listed",
        )
        assert (await client.store.get_item((root,), "city")).value == {"name": "Lyon"}

        # ctrl+d asks first; no keeps it, yes deletes it.
        assert screen.table.selected_item is not None
        assert screen.table.selected_item.key == "city"
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("n")
        await wait_for(pilot, lambda: showing(app, screen), what="kept")
        assert sorted(keys_shown(screen)) == ["city", "food"]
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: keys_shown(screen) == ["food"], what="the row gone")
        assert tree_labels(screen)[(root,)] == f"{root}  1"
    with pytest.raises(NotFound):
        await client.store.get_item((root,), "city")


async def test_read_only_mode_refuses_put_edit_and_delete(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root,), "kept", {"n": 1})
    app, screen = store_app(client, (root,), readonly=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await opened(pilot, wait_for, screen, keys=1)
        screen.table.focus()
        # Each refusal is checked as soon as it is made: a toast is gone after 5 s, which
        # a loaded machine can spend on the next key presses.
        for key, verb in (("n", "create"), ("e", "edit"), ("ctrl+d", "delete")):
            await pilot.press(key)
            assert showing(app, screen)
            await toast_saying(pilot, f"Read-only mode: cannot {verb} an item")
    assert (await client.store.get_item((root,), "kept")).value == {"n": 1}


async def test_s_searches_on_the_server_and_says_when_it_has_no_index(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root, "u1"), "paris", {"city": "Paris"})
    await client.store.put_item((root, "u1"), "rome", {"city": "Rome"})
    await client.store.put_item((root, "u2"), "oslo", {"city": "Oslo"})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=3)
        await pilot.press("s")
        form = await next_screen(pilot, wait_for, StoreSearchScreen)
        box = form.query_one("#search-filter", Input)
        await pilot.press(*'{"city": "Rome"')
        await pilot.press("enter")
        # Not sent: the reason under the field, the text still there.
        assert form.error is not None and form.error.startswith("filter is not valid JSON")
        assert showing(app, form) and box.value == '{"city": "Rome"'
        await pilot.press("end", "}", "enter")
        await wait_for(pilot, lambda: showing(app, screen), what="the search sent")
        await wait_for(pilot, lambda: keys_shown(screen) == ["rome"], what="only Rome")
        assert 'search: filter {"city": "Rome"}' in heading(screen)
        assert NO_INDEX not in heading(screen)

        # A query on a server without a store index: said plainly.
        await pilot.press("s")
        form = await next_screen(pilot, wait_for, StoreSearchScreen)
        form.query_one("#search-filter", Input).value = ""
        form.query_one("#search-query", Input).value = "where did the user travel"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(keys_shown(screen)) == 3, what="every item")
        await wait_for(pilot, lambda: NO_INDEX in heading(screen), what="the no-index notice")


async def test_m_in_a_thread_view_opens_the_namespaces_that_mention_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    from tests.support.thread_view import view_app

    root = unique_root()
    graph = f"g{root}"
    thread = await client.threads.create(metadata={"graph_id": graph, "user": "ann"})
    await client.store.put_item((root, thread.thread_id, "notes"), "seen", {"n": 1})
    await client.store.put_item((root, graph, "facts"), "fact", {"n": 2})
    await client.store.put_item((root, "unrelated"), "other", {"n": 3})

    app, view = view_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: view.sync.thread is not None, what="the thread")
        view.query_one("#history").focus()
        await pilot.press("M")
        screen = await next_screen(pilot, wait_for, StoreScreen)
        await wait_for(pilot, lambda: screen.namespaces_loaded, what="the namespaces")
        # The thread's own namespace first, then its graph's.
        assert screen.namespaces == [(root, thread.thread_id, "notes"), (root, graph, "facts")]
        assert (root, "unrelated") not in tree_labels(screen)
        said = heading(screen)
        assert f"thread {thread.thread_id}" in said and f"graph {graph}" in said
        # The first namespace that mentions it is open at once.
        await wait_for(pilot, lambda: keys_shown(screen) == ["seen"], what="its items")
        await pilot.press("escape")
        await wait_for(pilot, lambda: showing(app, view), what="back to the thread")


async def test_hostile_keys_namespaces_and_values_show_as_text(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls

    root = unique_root()
    # The server refuses a dot or a NUL in a label.
    label = EVERYTHING.replace(".", "_").replace("\x00", "")
    await client.store.put_item((root, label), EVERYTHING, {"note": EVERYTHING})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=1)
        shown = tree_labels(screen)[(root, label)]
        [row] = rows(screen)
        for text in (shown, *row, heading(screen)):
            assert terminal_controls(text) == [], text
        # Markup is shown as the text it is, never run (the app is still there).
        assert MARKER in shown and "[@click=app_quit]click[/]" in shown
        # Cells are cut to their column, on one line.
        assert row[0].startswith(MARKER) and row[3].startswith('{"note": "hostile')

        screen.table.focus()
        await pilot.press("enter")
        detail = await next_screen(pilot, wait_for, RawJsonScreen)
        # Whole, as the server keeps it (it stores a NUL as U+FFFD), cleaned on screen.
        assert detail.data["value"]["note"].endswith("[bold]b[/bold]hostile")
        assert terminal_controls(detail.query_one(JsonView).text) == []
        assert "[@click=app.quit]click[/]" in detail.query_one(JsonView).text
        await pilot.press("escape")
        await pilot.press("ctrl+d")
        question = await next_screen(pilot, wait_for, ConfirmScreen)
        assert terminal_controls(str(question.query_one("#confirm-question").render())) == []
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.table.row_count == 0, what="deleted")
        assert app.is_running


async def test_items_page_in_as_the_cursor_nears_the_end(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    for n in range(70):
        await client.store.put_item((root,), f"k{n:03d}", {"n": n})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=StoreScreen.PAGE_SIZE)
        assert "more below" in heading(screen)
        assert tree_labels(screen)[(root,)] == f"{root}  {StoreScreen.PAGE_SIZE}+"
        screen.table.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: screen.table.row_count == 70, what="the second page")
        assert tree_labels(screen)[(root,)] == f"{root}  70"
        assert sorted(keys_shown(screen)) == [f"k{n:03d}" for n in range(70)]


async def test_ctrl_e_edits_the_value_in_the_built_in_editor_without_editor_set(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.tui.editor import TextEditorScreen

    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    root = unique_root()
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen.namespaces_loaded, what="the namespaces")
        await pilot.press("n")
        form = await next_screen(pilot, wait_for, ItemFormScreen)
        form.query_one("#item-key", Input).value = "from-editor"
        await pilot.press("ctrl+e")
        editor = await next_screen(pilot, wait_for, TextEditorScreen)
        editor.query_one(TextArea).text = '{"written": "in the editor"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: showing(app, form), what="back in the form")
        value = form.query_one("#item-value", TextArea)
        assert value.text == '{"written": "in the editor"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: keys_shown(screen) == ["from-editor"], what="the item")
    assert (await client.store.get_item((root,), "from-editor")).value == {
        "written": "in the editor"
    }


async def test_the_palette_opens_the_store_and_its_keys_and_form_fit_80_columns(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    from textual.command import CommandList, CommandPalette

    root = unique_root()
    await client.store.put_item((root,), "k", {"n": 1})
    app, first = store_app(client, (root,))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot, wait_for, first, keys=1)
        await pilot.press("ctrl+p")
        palette = await next_screen(pilot, wait_for, CommandPalette)
        await pilot.press(*"open store")
        found = palette.query_one(CommandList)

        def prompts() -> list[str]:
            options = [found.get_option_at_index(i) for i in range(found.option_count)]
            return [str(option.prompt).split("\n")[0] for option in options]

        await wait_for(pilot, lambda: "Open store" in prompts(), what="Open store", workers=False)
        found.highlighted = prompts().index("Open store")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, StoreScreen) and app.screen is not first,
            what="the whole Store",
        )
        screen = app.screen
        assert isinstance(screen, StoreScreen) and screen.root == ()
        # The footer is drawn a moment after the screen is pushed: until then it shows
        # no keys, or the palette's. Timing out here is the failure: they never fit.
        keys = {"/", "n", "e", "^d", "s"}
        await wait_for(
            pilot, lambda: keys <= footer_keys_in_view(app), what=f"{keys} in the footer's view"
        )
        # The item form fits too: every field and the Save button on screen.
        await pilot.press("n")
        form = await next_screen(pilot, wait_for, ItemFormScreen)
        fields = ("#item-namespace", "#item-key", "#item-ttl", "#item-value", "#save")
        await wait_for(
            pilot,
            lambda: all(form.query_one(selector).region.height for selector in fields),
            what="the form laid out",
        )
        for selector in fields:
            assert form.query_one(selector).region.bottom <= 24, selector


async def test_enter_on_a_namespace_goes_to_its_items_and_its_count_follows_deletes(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    root = unique_root()
    await client.store.put_item((root, "a"), "only", {"n": 1})
    await client.store.put_item((root, "b"), "other", {"n": 2})
    app, screen = store_app(client, (root,))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, wait_for, screen, keys=2)
        await pilot.press("down")
        await wait_for(pilot, lambda: keys_shown(screen) == ["only"], what="a's item")
        # enter on a namespace with nothing below: on to its items.
        await pilot.press("enter")
        assert screen.table.has_focus
        await pilot.press("ctrl+d")
        await next_screen(pilot, wait_for, ConfirmScreen)
        await pilot.press("y")
        # The local server's store (langgraph's SQLite store, as a deployment's Postgres
        # one) drops a namespace with its last item: the tree follows, the item is gone.
        await wait_for(
            pilot, lambda: (root, "a") not in tree_labels(screen), what="a gone from the tree"
        )
        await wait_for(pilot, lambda: "only" not in keys_shown(screen), what="the item gone")
        assert (root, "b") in tree_labels(screen)
