"""Text from outside, made safe twice: when it comes in (``clean_text``) and when a terminal shows it
(``terminal_safe``).

    clean_text("I hide\x1b[2J\r\n behind\x00 the cart")   # 'I hide[2J\n behind the cart'
    terminal_safe("Brisa\x1b]0;pwned\x07")                # 'Brisa\\x1b]0;pwned\\x07'

Hand-written on purpose: Rich strips only BEL, backspace, VT, FF and CR from printed text
(``rich.control.strip_control_codes``) and lets ESC, NUL and the C1 controls through, and
``click.unstyle`` removes colour codes only; neither covers a title-setting OSC sequence or NUL.
"""
from __future__ import annotations

import re

__all__ = ["clean_text", "terminal_safe", "CONTROL"]

# C0 controls but tab and newline, DEL, and the C1 controls (0x9b is a one-byte CSI on some terminals)
CONTROL = [c for c in range(0x20) if c not in (0x09, 0x0A)] + [0x7F] + list(range(0x80, 0xA0))
_STRIP = dict.fromkeys(CONTROL)
_SHOW = {c: f"\\x{c:02x}" for c in CONTROL}
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Text as the table may keep it: line ends as ``\\n``, no control characters but newline and
    tab, and no lone surrogates (each becomes U+FFFD), so it always encodes as UTF-8 and saves."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_STRIP)
    return _SURROGATE.sub("\ufffd", text)


def terminal_safe(text: str) -> str:
    """Stored text as a terminal may print it: every control character but newline and tab shown
    as ``\\xNN`` (so an escape sequence in a player's line is read, never obeyed); lone
    surrogates as U+FFFD."""
    return _SURROGATE.sub("\ufffd", str(text).translate(_SHOW))
