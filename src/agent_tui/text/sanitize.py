"""Make text from a server safe to show in a terminal, and keep secrets out of logs.

Headless on purpose (no Textual, no Rich): the client, headless subcommands and the
log setup use it too.

`clean_text` removes what a terminal would act on: escape sequences (CSI, OSC, DCS,
SOS, PM, APC and two-byte ESC sequences, in their 7-bit and 8-bit forms), C0 controls
except newline and tab, DEL, C1 controls, the bidi override/isolate characters
that can make text read differently from what it is ("Trojan Source"), and the
invisible format characters (`INVISIBLE`: zero-width spaces and joiners, bidi marks,
word joiner, BOM, soft hyphen): two names that differ only by one of those would look
the same, and terminals disagree with Textual on how wide text holding them is. A lone
surrogate (which no output can encode) becomes U+FFFD. Markup
is not its business: widgets render the result as plain `Text`/`Content`, never as
markup.

`redact_secrets` replaces API keys and auth header values with `***`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Invisible format characters, as a regex character-class body: soft hyphen, Arabic
# letter mark, Mongolian vowel separator, zero-width space/non-joiner/joiner, left-to-right
# and right-to-left marks, word joiner and invisible operators, zero-width no-break space
# (BOM). Dropped like controls, so every output path shows the same text.
INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff"

# Strings that run until a terminator: OSC (ESC ] / 0x9D), DCS (ESC P / 0x90),
# SOS (ESC X / 0x98), PM (ESC ^ / 0x9E), APC (ESC _ / 0x9F). They end with BEL (OSC
# only, but terminals accept it for all) or ST (ESC \ / 0x9C). OSC 52 (clipboard
# write) and OSC 0/2 (window title) live here.
_STRING_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
)
# CSI: ESC [ (or 0x9B), parameter bytes, intermediate bytes, one final byte.
_CSI = re.compile(r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
# Any other escape sequence: ESC, intermediate bytes, one final byte (ESC c resets
# the terminal, ESC ( 0 switches to line drawing, ESC 7 saves the cursor...).
_OTHER_ESCAPE = re.compile(r"\x1b[\x20-\x2f]*[\x30-\x7e]")
# What is left: unterminated sequences lose only their introducer (the rest is shown
# as inert text, which is more useful for debugging than dropping it), and every
# control character except \t and \n. \r was turned into \n before this runs.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069" + INVISIBLE + "]")
_CARRIAGE_RETURN = re.compile(r"\r\n?")
# A lone surrogate (JSON's "\ud800" decodes to one) is no character: it cannot be
# encoded, so printing it raises. It is shown as U+FFFD, the replacement character.
SURROGATES = "\ud800-\udfff"
_SURROGATE = re.compile(f"[{SURROGATES}]")


def clean_text(text: str) -> str:
    """Return `text` with every terminal control sequence and bidi override removed.

    Newlines and tabs stay. A carriage return becomes a newline (a bare \\r would make
    a terminal overwrite the start of the line, hiding what came before it).
    """
    if text.isprintable():  # the common case: nothing to remove, no regex work
        return text
    text = _CARRIAGE_RETURN.sub("\n", text)
    text = _STRING_SEQUENCE.sub("", text)
    text = _CSI.sub("", text)
    text = _OTHER_ESCAPE.sub("", text)
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


REDACTED = "***"

# LangSmith API keys (personal access tokens and service keys).
_API_KEY = re.compile(r"lsv2_(?:pt|sk)_[A-Za-z0-9_-]+")
# A header name followed by its value, as it appears in reprs, dicts, JSON and
# HTTP dumps: `X-Api-Key: k`, `'x-api-key': 'k'`, `"Authorization": "Bearer k"`,
# `authorization=Basic k`. The scheme word (Bearer/Basic) is kept, the value goes.
_HEADER_VALUE = re.compile(
    r"(?i)(\b(?:x-api-key|authorization)\b['\"]?\s*[:=]\s*(?:b?['\"])?)"
    r"((?:bearer|basic)\s+)?"
    r"[^\s'\",;&})]+"
)
_BEARER = re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}")


def redact_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace API keys, auth header values and each of `secrets` with `***`.

    `secrets` are the exact key strings in use (from flags, environment or config),
    which catches keys whose format we do not know.
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _API_KEY.sub(REDACTED, text)
    text = _HEADER_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}", text)
    return _BEARER.sub(rf"\g<1>{REDACTED}", text)
