"""A Markdown text cut into top-level blocks, and kept cut as it grows or is replaced."""

from __future__ import annotations

from agent_tui.text.markdown_blocks import MarkdownBlocks, split_blocks

TEXT = (
    "# Title\n\nA paragraph\non two lines.\n\n- one\n- two\n\n  still two\n\n"
    "```\ncode\n\nmore code\n```\n\n> quote\n\nlast"
)


def test_blocks_are_the_top_level_blocks_and_join_to_the_text() -> None:
    blocks = split_blocks(TEXT)
    assert blocks == [
        "# Title\n\n",
        "A paragraph\non two lines.\n\n",
        "- one\n- two\n\n  still two\n\n",
        "```\ncode\n\nmore code\n```\n\n",
        "> quote\n\n",
        "last",
    ]
    assert "".join(blocks) == TEXT
    assert split_blocks("") == [] and split_blocks("\n\n") == ["\n\n"]
    assert split_blocks("\n\nlead\n\n[x]: https://x.example\n\ntail") == [
        "\n\nlead\n\n[x]: https://x.example\n\n",  # a definition draws nothing
        "tail",
    ]


def test_a_growing_text_is_parsed_again_only_from_its_last_block() -> None:
    blocks = MarkdownBlocks()
    text = ""
    for piece in TEXT.split(" "):
        text += piece + " "
        assert blocks.update(text) == split_blocks(text)
    # Each update parsed its last block and what came: far less than the text each time.
    assert blocks.parsed_chars < 4 * len(TEXT)


def test_an_open_code_fence_takes_the_rest_until_it_closes() -> None:
    blocks = MarkdownBlocks()
    assert blocks.update("intro\n\n```\nx = 1\n\n# not a heading") == [
        "intro\n\n",
        "```\nx = 1\n\n# not a heading",
    ]
    assert blocks.update("intro\n\n```\nx = 1\n\n# not a heading\n```\n\n# heading") == [
        "intro\n\n",
        "```\nx = 1\n\n# not a heading\n```\n\n",
        "# heading",
    ]


def test_a_replaced_text_keeps_the_blocks_it_starts_with() -> None:
    blocks = MarkdownBlocks()
    head = "".join(f"head {n}\n\n" for n in range(50))
    blocks.update(head + "".join(f"middle {n}\n\n" for n in range(50)) + "tail")
    before = blocks.parsed_chars
    replaced = head + "*… dropped …*\n\ntail, grown"
    assert blocks.update(replaced) == split_blocks(replaced)
    assert blocks.parsed_chars - before == len(replaced) - len(head)  # only what is new
