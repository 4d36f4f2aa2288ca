"""The exit status each command's --help states is the one it gives (issue 27: check's
help said "0 no findings" while a log with warnings only exits 0)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from referee.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _help(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    return " ".join(result.output.split())


def test_help_says_warnings_exit_0_unless_strict() -> None:
    for command in ("check", "report"):
        text = _help(command)
        assert "0 no findings" not in text
        assert "warnings alone exit 0 unless --strict" in text
        assert "130 interrupted" in text


def test_a_log_with_warnings_only_exits_as_the_help_says(tmp_path: Path) -> None:
    """A session stating a wrong round count gives only the warning S005: exit 0, and 1 with --strict."""
    text = (SAMPLES / "clean.yaml").read_text(encoding="utf-8")
    assert "rounds_agreed: 20" in text
    log = tmp_path / "warn.yaml"
    log.write_text(text.replace("rounds_agreed: 20", "rounds_agreed: 21"), encoding="utf-8")
    runner = CliRunner()
    plain = runner.invoke(main, ["check", "--format", "json", str(log)])
    assert '"S005"' in plain.output and plain.exit_code == 0
    strict = runner.invoke(main, ["check", "--strict", "--quiet", str(log)])
    assert strict.exit_code == 1
