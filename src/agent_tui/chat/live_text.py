"""How much of a run's streaming text the transcript keeps while the run streams (headless).

A run can stream for ever, and what a message costs on screen grows with its text
(~40 bytes a character in Markdown widgets and rendered lines, measured with
`benchmarks/endless_stream.py`), so while a run streams the transcript keeps:

- of each streaming message, its first `head_chars` and its latest `tail_chars` (up to
  twice as many: each cut re-renders the message, so it comes once every `tail_chars`
  characters): the middle is dropped from view, with a note that says how much and
  where the whole text is;
- of the run, `max_run_chars` of streaming text in all: past it, the run's older
  streaming messages keep only their first `short_head_chars`, with the same note.

A message's final text (its node's update, or the thread's state once the run ends)
replaces what was kept: the transcript's `_finalise` calls `forget`.
"""

from __future__ import annotations

from agent_tui.chat.items import AIItem, Appended, TranscriptChange, Updated

HEAD_CHARS = 4_000
TAIL_CHARS = 16_000
# About 20 MB of widgets: a few screens of a message each for dozens of messages.
MAX_RUN_CHARS = 500_000
SHORT_HEAD_CHARS = 500
_CUT_SEARCH = 2_000  # characters searched for a paragraph's end to cut at


def dropped_note(chars: int) -> str:
    """What shows in place of the dropped middle of a streaming message."""
    return (
        f"\n\n*… {chars:,} characters not shown while the message streams: the whole"
        " message is in the thread's state, and shows here when the run ends …*\n\n"
    )


def rest_note() -> str:
    """What ends an older streaming message that keeps only its head."""
    return (
        "\n\n*… the rest of this message is not shown while the run streams: the whole"
        " message is in the thread's state, and shows here when the run ends …*\n\n"
    )


class LiveText:
    """The streaming text one transcript keeps (see the module doc)."""

    def __init__(self) -> None:
        self.head_chars = HEAD_CHARS
        self.tail_chars = TAIL_CHARS
        self.max_run_chars = MAX_RUN_CHARS
        self.short_head_chars = SHORT_HEAD_CHARS
        self.reset()

    def reset(self) -> None:
        """Forget every message (the transcript starts over)."""
        self._dropped: dict[str, int] = {}  # key → characters not kept (its middle)
        self._received: dict[str, int] = {}  # key → characters streamed, kept or not
        self._short: set[str] = set()  # keys that keep only their head
        self.begin_run()

    def begin_run(self) -> None:
        """A run starts: its messages count against `max_run_chars` afresh."""
        self._run: dict[str, AIItem] = {}  # the run's streaming messages, oldest first
        self._run_chars = 0  # characters the run's streaming messages keep

    def dropped(self, item: AIItem) -> int:
        """Characters of `item`'s streamed text not kept (0: `item.text` is all of it)."""
        return self._dropped.get(item.key, 0)

    def received(self, item: AIItem, text: str) -> int | None:
        """How much of `text` (a message's whole text so far) `item` has received, when
        `text` continues what it received; None when it does not."""
        if item.key not in self._dropped:
            return len(item.text) if text.startswith(item.text) else None
        received = self._received[item.key]
        head = item.text[: min(self.short_head_chars, self.head_chars)]
        return received if text.startswith(head) and len(text) >= received else None

    def forget(self, item: AIItem) -> None:
        """`item` is complete: its text is whole again."""
        self._dropped.pop(item.key, None)
        self._received.pop(item.key, None)
        self._short.discard(item.key)
        if self._run.pop(item.key, None) is not None:
            self._run_chars -= len(item.text)

    def grow(self, item: AIItem, delta: str) -> list[TranscriptChange]:
        """`delta` streamed for `item`: the changes to show."""
        key = item.key
        self._received[key] = self._received.get(key, len(item.text)) + len(delta)
        if key in self._short:
            self._dropped[key] += len(delta)
            return []
        before = len(item.text) if key in self._run else 0
        self._run[key] = item
        item.text += delta
        changes: list[TranscriptChange] = [Appended(item, delta)]
        if len(item.text) > self.head_chars + 2 * self.tail_chars + 200:
            self._drop_middle(item)
            changes = [Updated(item)]
        self._run_chars += len(item.text) - before
        if self._run_chars > self.max_run_chars:
            changes += self._shorten_older(item)
        return changes

    def _drop_middle(self, item: AIItem) -> None:
        text, head = item.text, self.head_chars
        dropped = self._dropped.get(item.key, 0)
        rest_at = head + len(dropped_note(dropped)) if dropped else head
        rest = text[rest_at:]
        cut = len(rest) - self.tail_chars
        # At a paragraph's end if one is near, so that the kept tail reads well.
        paragraph = rest.find("\n\n", cut, cut + _CUT_SEARCH)
        cut = paragraph + 2 if paragraph >= 0 else cut
        dropped += cut
        self._dropped[item.key] = dropped
        item.text = text[:head] + dropped_note(dropped) + rest[cut:]

    def _shorten_older(self, growing: AIItem) -> list[TranscriptChange]:
        changes: list[TranscriptChange] = []
        target = self.max_run_chars * 3 // 4
        for key, item in self._run.items():
            if self._run_chars <= target:
                break
            if item is growing or key in self._short:
                continue
            kept = item.text[: min(self.short_head_chars, self.head_chars)]
            dropped = self._received.get(key, len(item.text)) - len(kept)
            self._short.add(key)
            self._dropped[key] = dropped
            before = len(item.text)
            item.text = kept + rest_note()
            self._run_chars += len(item.text) - before
            changes.append(Updated(item))
        return changes
