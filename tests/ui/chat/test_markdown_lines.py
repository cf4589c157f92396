"""An AI message's Markdown drawn a block at a time looks as Rich's Markdown draws the
whole text: a block drawn alone and the blocks joined with one blank line between them.
(The drawing copies Rich's Markdown with the shared parser's tokens in `parsed`: this
fails if Rich stops reading them there.)"""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment

from agent_tui.text.markdown_blocks import split_blocks
from agent_tui.tui.chat.markdown_lines import CODE_THEME, LINK_META, draw_block, join_blocks

EVERY_KIND = (
    "# Title\n\nFirst **bold**, *em*, ~~gone~~ and `code`.\n\n## Plan\n\n"
    "- build the image\n- push it\n  - nested\n\n1. staging\n2. production\n\n"
    "```python\ndef deploy(target):\n    return target\n```\n\n    indented code\n\n"
    "> quoted\n> advice\n\n| env | url |\n| --- | --- |\n| staging | s.example |\n\n"
    "---\n\nA last paragraph\nwith a soft break.\n"
)


def plain(lines: list[list[Segment]]) -> list[str]:
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


def joined(source: str, console: Console) -> list[list[Segment]]:
    drawn = [draw_block(block, console, console.options) for block in split_blocks(source)]
    return [list(line) for line in join_blocks(drawn)]


def test_blocks_drawn_one_by_one_are_the_whole_text_drawn_by_rich() -> None:
    console = Console(width=60, force_terminal=True, color_system="truecolor")
    whole = console.render_lines(
        RichMarkdown(EVERY_KIND, code_theme=CODE_THEME), console.options, pad=False
    )
    assert plain(joined(EVERY_KIND, console)) == plain(whole)
    assert [[s for s in line if s.text] for line in joined(EVERY_KIND, console)] == [
        [s for s in line if s.text] for line in whole
    ]


def test_a_link_is_drawn_as_its_text_with_its_target_in_the_meta_not_as_a_hyperlink() -> None:
    console = Console(width=60, force_terminal=True, color_system="truecolor")
    [line] = draw_block(
        "see [the docs](https://example.com/docs) now", console, console.options
    ).lines
    assert "".join(segment.text for segment in line).rstrip() == "see the docs now"
    linked = [segment for segment in line if segment.style and segment.style.meta]
    assert "".join(segment.text for segment in linked) == "the docs"
    assert {segment.style.meta[LINK_META] for segment in linked if segment.style} == {
        "https://example.com/docs"
    }
    assert not any(segment.style and segment.style.link for segment in line)
