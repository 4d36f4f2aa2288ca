"""Progress of long work on stderr (issue 27): also without a terminal, a plain line
every few seconds, never a carriage return; on a terminal a redrawn line, erased."""

from __future__ import annotations

import io

from referee.report.progress import Steps


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_without_a_terminal_a_line_every_few_seconds() -> None:
    out, clock = io.StringIO(), Clock()
    steps = Steps(out, "valuing decisions", 400, terminal=False, every=5.0, clock=clock)
    for _ in range(100):  # 1 s of work: nothing yet
        clock.now += 0.01
        steps.update()
    assert out.getvalue() == ""
    for _ in range(300):  # 12 s more: two lines, one at 5 s and one at 10 s
        clock.now += 0.04
        steps.update()
    steps.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue()
    assert lines[0].startswith("referee: valuing decisions: ") and " of 400 (" in lines[0]
    assert "elapsed, about" in lines[0] and "left" in lines[0]


def test_on_a_terminal_the_line_is_redrawn_and_erased() -> None:
    out, clock = io.StringIO(), Clock()
    steps = Steps(out, "flop classes counted", 10, terminal=True, clock=clock)
    for _ in range(10):
        clock.now += 1.0
        steps.update()
    steps.close()
    text = out.getvalue()
    assert text.count("\r") >= 20 and "\n" not in text
    assert "10 of 10 (100%)" in text and text.endswith("\r" + " " * 72 + "\r")
