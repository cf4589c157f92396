"""clean_text keeps server text from controlling the terminal; redact_secrets keeps keys out of logs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.text.sanitize import REDACTED, clean_text, redact_secrets

ESC = "\x1b"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("plain text", "plain text", id="plain"),
        pytest.param("line1\nline2\tcol", "line1\nline2\tcol", id="newline-and-tab-kept"),
        pytest.param("héllo — 日本語 🙂", "héllo — 日本語 🙂", id="unicode-kept"),
        pytest.param(
            "[@click=app.quit]x[/] [bold]b", "[@click=app.quit]x[/] [bold]b", id="markup-untouched"
        ),
        # CSI: colours, screen clear, cursor moves, private modes, 8-bit CSI.
        pytest.param(f"{ESC}[31mred{ESC}[0m", "red", id="csi-sgr"),
        pytest.param(f"a{ESC}[2Jb{ESC}[Hc", "abc", id="csi-clear-home"),
        pytest.param(f"{ESC}[?1049h{ESC}[?25lx", "x", id="csi-private-mode"),
        pytest.param(f"{ESC}[38;2;255;0;0mx", "x", id="csi-truecolor"),
        pytest.param("\x9b31mx\x9b0m", "x", id="csi-8bit"),
        # OSC: title (BEL and ST terminators), clipboard write, hyperlink, 8-bit OSC.
        pytest.param(f"a{ESC}]0;pwned\x07b", "ab", id="osc0-bel"),
        pytest.param(f"a{ESC}]2;pwned{ESC}\\b", "ab", id="osc2-st"),
        pytest.param(f"{ESC}]52;c;Y3VybCBldmlsfHNo\x07ok", "ok", id="osc52-clipboard"),
        pytest.param(
            f"{ESC}]8;;http://evil.example{ESC}\\click{ESC}]8;;{ESC}\\", "click", id="osc8-link"
        ),
        pytest.param("a\x9d0;t\x9cb", "ab", id="osc-8bit-st"),
        # DCS, APC, PM, SOS.
        pytest.param(f"a{ESC}P1$r0m{ESC}\\b", "ab", id="dcs"),
        pytest.param(f"a{ESC}_Gf=100;AAAA{ESC}\\b", "ab", id="apc-kitty-graphics"),
        pytest.param(f"a{ESC}^private{ESC}\\b", "ab", id="pm"),
        pytest.param(f"a{ESC}Xsos{ESC}\\b", "ab", id="sos"),
        pytest.param("a\x90dcs\x9cb", "ab", id="dcs-8bit"),
        # Two-byte escapes: reset, charset switch, save cursor, keypad mode.
        pytest.param(f"a{ESC}cb", "ab", id="esc-reset"),
        pytest.param(f"a{ESC}(0b", "ab", id="esc-charset"),
        pytest.param(f"a{ESC}7b{ESC}8", "ab", id="esc-save-restore"),
        pytest.param(f"a{ESC}=b", "ab", id="esc-keypad"),
        # Broken or unterminated sequences lose their control bytes, keep the text.
        pytest.param(f"a{ESC}", "a", id="lone-esc-at-end"),
        pytest.param(f"{ESC}{ESC}{ESC}", "", id="only-escs"),
        pytest.param(f"a{ESC}]0;title never ends", "a0;title never ends", id="osc-unterminated"),
        pytest.param(f"{ESC}]0;t{ESC}[31mx", "0;tx", id="osc-interrupted-by-csi"),
        pytest.param(f"{ESC}{ESC}[0m[31mx", "31mx", id="no-sequence-reassembled"),
        pytest.param(f"a{ESC}é", "aé", id="esc-before-non-ascii"),
        # C0 controls, DEL, C1.
        pytest.param("a\x00b\x07c\x08d\x0be\x0cf", "abcdef", id="c0"),
        pytest.param("a\x1a\x1c\x1fb", "ab", id="c0-high"),
        pytest.param("a\x7fb", "ab", id="del"),
        pytest.param("a\x80\x85\x8e\x9fb", "ab", id="c1"),
        # Carriage returns would overwrite the line: they become newlines.
        pytest.param("a\r\nb", "a\nb", id="crlf"),
        pytest.param("visible\rhidden", "visible\nhidden", id="bare-cr"),
        # Bidi overrides and isolates ("Trojan Source").
        pytest.param("abc\u202edcba\u202c", "abcdcba", id="bidi-rlo-pdf"),
        pytest.param("\u202a\u202b\u202c\u202d\u202ex", "x", id="bidi-embeddings"),
        pytest.param("\u2066\u2067\u2068\u2069x", "x", id="bidi-isolates"),
        # Invisible marks: two names differing only by one would look the same.
        pytest.param("a\u200fb\u200ec\u061cd", "abcd", id="bidi-marks"),
        pytest.param("ad\u200bmin\u200c\u200d", "admin", id="zero-width"),
        pytest.param("\ufeffa\u2060b\u2062c\u00add\u180e", "abcd", id="bom-joiner-soft-hyphen"),
        # A lone surrogate (JSON's "\ud800") cannot be encoded: printing it raised.
        pytest.param("a\ud800b\udfff", "a\ufffdb\ufffd", id="lone-surrogates"),
    ],
)
def test_clean_text(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_escaped_output_holds_no_lone_surrogate_and_json_keeps_its_value() -> None:
    import json

    from agent_tui.text.escaping import escape_controls, escape_json_controls

    assert escape_controls("a\ud800b") == "a\\ud800b"
    text = escape_json_controls(json.dumps({"k\udfff": "\ud800"}, ensure_ascii=False))
    text.encode("utf-8")  # strict: a lone surrogate raised here
    assert json.loads(text) == {"k\udfff": "\ud800"}


def test_clean_text_leaves_no_control_character_in_random_input() -> None:
    import random

    rng = random.Random(1234)
    alphabet = [chr(c) for c in range(0, 0xA0)] + [
        "\u202e",
        "\u2066",
        "\u200b",
        "\ufeff",
        "é",
        "x",
        "[",
        "]",
    ]
    for _ in range(2000):
        raw = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        cleaned = clean_text(raw)
        assert all(ch in "\n\t" or ch.isprintable() for ch in cleaned), repr(raw)
        assert clean_text(cleaned) == cleaned  # idempotent


def test_redact_api_keys() -> None:
    text = "using lsv2_pt_0123456789abcdef_0a1b2c3d4e and lsv2_sk_ffff_0000-zz"
    assert redact_secrets(text) == f"using {REDACTED} and {REDACTED}"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("X-Api-Key: abc123", f"X-Api-Key: {REDACTED}"),
        (
            "{'x-api-key': 'abc123', 'accept': 'json'}",
            f"{{'x-api-key': '{REDACTED}', 'accept': 'json'}}",
        ),
        ('{"X-Api-Key":"abc123"}', f'{{"X-Api-Key":"{REDACTED}"}}'),
        ("x-api-key=abc123&x=1", f"x-api-key={REDACTED}&x=1"),
        ("Authorization: Bearer eyJhbGciOi.J9.x", f"Authorization: Bearer {REDACTED}"),
        ("'authorization': 'Basic dXNlcjpwdw=='", f"'authorization': 'Basic {REDACTED}'"),
        ("Headers({'authorization': '[secure]'})", f"Headers({{'authorization': '{REDACTED}'}})"),
        ("sent bearer abcdefgh12345678", f"sent bearer {REDACTED}"),
    ],
)
def test_redact_header_values(raw: str, expected: str) -> None:
    assert redact_secrets(raw) == expected


def test_redact_configured_secret_of_unknown_format() -> None:
    text = "connecting with key my-own-key-42 to http://x (key=my-own-key-42)"
    assert redact_secrets(text, ["my-own-key-42", ""]) == (
        f"connecting with key {REDACTED} to http://x (key={REDACTED})"
    )


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "GET http://127.0.0.1:2024/info 200 OK; authorization scheme: x-api-key"
    assert redact_secrets(text) == text


def test_sanitize_does_not_import_textual_or_rich() -> None:
    code = "import sys, agent_tui.text.sanitize; print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_log_file_never_holds_a_key(tmp_path: Path) -> None:
    # In a subprocess: setup_logging replaces the root handlers, pytest's included.
    code = """
import logging, warnings
from agent_tui.settings.logs import setup_logging, add_secret
path = setup_logging(secrets=["custom-key-123"])
log = logging.getLogger("agent_tui.test")
log.info("key %s sent", "custom-key-123")
log.info("headers %r", {"X-Api-Key": "abc", "Authorization": "Bearer tok123456789"})
log.warning("token lsv2_pt_00aa11bb22cc_deadbeef in use")
add_secret("added-later-999")
try:
    raise RuntimeError("failed with added-later-999")
except RuntimeError:
    log.exception("boom")
warnings.warn("a library warning")
print(path)
"""
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert result.stderr == ""  # nothing reaches the terminal
    path = Path(result.stdout.strip())
    assert path == tmp_path / "log" / "agent-tui.log"
    text = path.read_text()
    for secret in ("custom-key-123", "abc'", "tok123456789", "lsv2_pt_00aa", "added-later-999"):
        assert secret not in text
    assert "key *** sent" in text
    assert "RuntimeError: failed with ***" in text
    assert "a library warning" in text
