"""Providers' exports stored by ``check --mapping ... --store`` replay from the store as
from the files (issue 30): ``explain``, ``stats`` and ``report --store`` read the stored
export through the very mapping it was read through (kept in the store), built-in or a
file, after the file is gone or changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.load.exports import builtin_names

from .conftest import SAMPLES, run
from .golden_cases import normalize

EXPORTS = SAMPLES / "exports"
SAMPLE = {"evolution-history": "evolution-history.json", "datafeed-csv": "datafeed.csv",
          "seamless-wallet": "seamless-wallet.jsonl"}


def _replays(store: str, mapping: str, export: str, game: str | None) -> None:
    """Every replaying command gives, from the store, what it gives from the files."""
    commands: list[tuple[str, ...]] = [("stats", "--no-decisions"), ("stats", "--no-decisions", "--format", "json")]
    if game is not None:
        commands += [("explain", "--game", game), ("explain", "--game", game, "--format", "json")]
    for command in commands:
        from_files = run(*command, "--mapping", mapping, export)
        # a wallet log alone is money only: stats has no round to describe (2), from both
        assert from_files[0] in ((0, 1) if game is not None else (2,)), from_files
        assert run(*command, "--store", store) == from_files, command
    code, page = run("report", "--lang", "en", "-o", "-", "--mapping", mapping, export)
    stored_code, stored_page = run("report", "--lang", "en", "-o", "-", "--store", store)
    assert stored_code == code and normalize(stored_page) == normalize(page)


@pytest.mark.parametrize("mapping", sorted(SAMPLE))
def test_each_builtin_mapping_replays_from_the_store(mapping: str, store_url: str) -> None:
    assert set(SAMPLE) <= set(builtin_names())  # the shipped samples: one a family (the wallet's presets read alike)
    export = str(EXPORTS / SAMPLE[mapping])
    code, out = run("check", "--mapping", mapping, export, "--store", store_url, "--quiet")
    assert code in (0, 1), out
    _replays(store_url, mapping, export, None if mapping == "seamless-wallet" else "T1-5-000003")


def test_a_mapping_file_is_kept_and_replays_after_it_changed(store_url: str, tmp_path: Path) -> None:
    """The store keeps the mapping's bytes: the file changed (or gone), the store still
    replays through the mapping the export was checked with."""
    mapping = tmp_path / "house-mapping.yaml"
    code, text = run("mappings", "evolution-history")
    assert code == 0
    mapping.write_text(text, encoding="utf-8")
    export = str(tmp_path / "page.json")
    shutil.copyfile(EXPORTS / SAMPLE["evolution-history"], export)
    before = run("explain", "--game", "T1-5-000003", "--mapping", str(mapping), export)
    code, out = run("check", "--mapping", str(mapping), export, "--store", store_url, "--quiet")
    assert code in (0, 1), out
    mapping.write_text(text.replace("CHE_Ante: ante", "CHE_Ante: bonus"), encoding="utf-8")
    Path(export).unlink()
    assert run("explain", "--store", store_url, "--game", "T1-5-000003") == before


def test_a_source_checked_with_its_wallet_log_says_why_it_cannot_replay(store_url: str) -> None:
    export, wallet = str(EXPORTS / SAMPLE["evolution-history"]), str(EXPORTS / SAMPLE["seamless-wallet"])
    code, out = run("check", "--mapping", "evolution-history", export, "--wallet", wallet, "--store", store_url,
                    "--quiet")
    assert code in (0, 1), out
    code, out = run("explain", "--store", store_url, "--game", "T1-5-000003")
    assert code == 2 and "checked with --wallet" in out and "not the wallet logs" in out and "Traceback" not in out
    code, out = run("recall", "--store", store_url, "--game", "T1-5-000003")
    assert code in (0, 1) and "T1-5-000003" in out


def test_mapping_beside_store_is_a_usage_error(tmp_path: Path) -> None:
    code, out = run("stats", "--store", str(tmp_path / "a.db"), "--mapping", "evolution-history")
    assert code == 2 and "--mapping does not apply with --store" in out
