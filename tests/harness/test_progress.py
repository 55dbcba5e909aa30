"""The progress line: drawn only when enabled (a terminal), throttled, erased on close."""

from __future__ import annotations

import io

from harness.progress import Progress


def test_disabled_on_non_terminal() -> None:
    out = io.StringIO()
    p = Progress("replay", out)
    p.update(1, 10)
    p.note("decoding")
    p.close()
    assert out.getvalue() == ""


def test_enabled_draws_and_erases() -> None:
    out = io.StringIO()
    with Progress("replay", out, enabled=True, interval=0.0) as p:
        p.update(5, 10)
        p.update(10, 10)
    text = out.getvalue()
    assert "replay 5/10 (50%)" in text and "replay 10/10 (100%)" in text
    assert text.endswith("\r\x1b[K")


def test_throttled_but_final_update_drawn() -> None:
    out = io.StringIO()
    p = Progress("replay", out, enabled=True, interval=3600)
    for i in range(1, 101):
        p.update(i, 100)
    text = out.getvalue()
    assert text.count("\r") == 2 and "100/100" in text  # first and last only
