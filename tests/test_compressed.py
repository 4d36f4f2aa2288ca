"""Issue 46: logs read as they are archived (.gz, .bz2, .xz; .zst with the zstd extra),
streamed, with the line numbers of the uncompressed text and both digests said."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import SAMPLES, check_json, run


def zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {".gz": gzip.compress, ".bz2": bz2.compress,
                                                    ".xz": lzma.compress, ".zst": zstd}
NAMES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}


def findings(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    every = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    return [(f["code"], f["line"], f["round"], f.get("game"), f.get("player"), f["message"]) for f in every]


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
@pytest.mark.parametrize("sample", ["disputed.yaml", "table.jsonl", "log.jsonl"])
def test_a_compressed_log_is_audited_to_the_plain_files_findings(tmp_path: Path, sample: str, suffix: str) -> None:
    plain = (SAMPLES / sample).read_bytes()
    packed = COMPRESSORS[suffix](plain)
    path = tmp_path / f"{sample}{suffix}"
    path.write_bytes(packed)
    code, report = check_json(str(path))
    plain_code, plain_report = check_json(str(SAMPLES / sample))
    assert code == plain_code and findings(report) == findings(plain_report)
    assert report["summary"]["rounds"] == plain_report["summary"]["rounds"]
    (info,) = report["inputs"]
    assert info["size"] == len(packed) and info["sha256"] == hashlib.sha256(packed).hexdigest()
    assert info["compression"] == NAMES[suffix] and info["uncompressed_size"] == len(plain)
    assert info["uncompressed_sha256"] == hashlib.sha256(plain).hexdigest() == plain_report["inputs"][0]["sha256"]
    assert info["kind"] == plain_report["inputs"][0]["kind"]
    _, text = run("check", str(path))
    assert (f"input {path}: {len(packed)} bytes, sha256 {info['sha256']} ({NAMES[suffix]}; uncompressed "
            f"{len(plain)} bytes, sha256 {info['uncompressed_sha256']})") in text
    _, sarif = run("check", "--format", "sarif", str(path))
    (artifact,) = json.loads(sarif)["runs"][0]["artifacts"]
    assert artifact["hashes"] == {"sha-256": info["sha256"]} and artifact["length"] == len(packed)
    assert artifact["properties"]["uncompressed_sha256"] == info["uncompressed_sha256"]
    _, junit = run("check", "--format", "junit", str(path))
    assert f'name="input.0.uncompressed.sha256" value="{info["uncompressed_sha256"]}"' in junit


def test_a_folder_holds_compressed_logs_and_a_gzip_on_standard_input_is_read(tmp_path: Path) -> None:
    plain = (SAMPLES / "disputed.yaml").read_bytes()
    (tmp_path / "a.yaml.gz").write_bytes(gzip.compress(plain))
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress(b"not a log"))
    code, report = check_json(str(tmp_path))
    assert code == 1 and [i["file"] for i in report["inputs"]] == [str(tmp_path / "a.yaml.gz")]
    from click.testing import CliRunner

    from referee.cli import main

    result = CliRunner().invoke(main, ["check", "-q", "-"], input=gzip.compress(plain))
    assert result.exit_code == 1 and "5 findings" in result.output


def test_a_cut_or_damaged_archive_is_one_clear_h000(tmp_path: Path) -> None:
    packed = gzip.compress((SAMPLES / "disputed.yaml").read_bytes())
    cut = tmp_path / "cut.yaml.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    code, report = check_json(str(cut))
    (problem,) = report["problems"]
    assert code == 2 and problem["code"] == "H000" and "gzip data is cut short" in problem["message"]
    bad = tmp_path / "bad.jsonl.xz"
    bad.write_bytes(lzma.compress(b"x" * 100)[:20] + b"\x00garbage")
    code, report = check_json(str(bad))
    (problem,) = report["problems"]
    assert code == 2 and problem["code"] == "H000" and "xz" in problem["message"]


def test_a_zst_log_without_the_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.jsonl.zst"
    path.write_bytes(zstd((SAMPLES / "log.jsonl").read_bytes()))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    code, report = check_json(str(path))
    (problem,) = report["problems"]
    assert code == 2 and problem["code"] == "H000"
    assert "pip install 'referee[zstd]'" in problem["message"]


def test_a_compressed_json_document_is_bounded_as_a_plain_one(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.load import reading

    monkeypatch.setattr(reading, "MAX_DOCUMENT_BYTES", 1000)
    path = tmp_path / "big.json.gz"
    path.write_bytes(gzip.compress(b'{"session": {"id": "s"}, "rounds": []' + b" " * 5000 + b"}"))
    code, report = check_json(str(path))
    (problem,) = report["problems"]
    assert code == 2 and "uncompressed is not read at once" in problem["message"]


def test_a_compressed_log_is_streamed_a_block_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never the whole text at once: the decompressor is asked for a buffer's worth."""
    from referee.load import compressed
    from referee.load.inputs import Source
    from referee.load.readers import read
    from referee.load.reading import Reading

    lines = (SAMPLES / "log.jsonl").read_bytes()
    text = lines * (4 * 2**20 // len(lines) + 1)  # over 4 MiB
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(text))
    asked: list[int] = []
    real = compressed.Decompressed.readinto

    def readinto(self: compressed.Decompressed, buffer: Any) -> int:
        asked.append(len(memoryview(buffer)))
        return real(self, buffer)

    monkeypatch.setattr(compressed.Decompressed, "readinto", readinto)
    reading = Reading(Source(str(path), path))
    records = sum(1 for _ in read(reading))
    assert records > 0 and reading.text_size == len(text) and len(asked) > 4 and max(asked) <= 2**20


def test_a_cut_archive_still_gives_the_size_and_digest_of_its_bytes(tmp_path: Path) -> None:
    """Found by a newcomer's test: a cut gzip was said 'not read (it could not be opened:
    no size, no SHA-256)', though it was opened and read to where it ends."""
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress((SAMPLES / "log.jsonl").read_bytes())[:600])
    code, report = check_json(str(cut))
    [given] = report["inputs"]
    assert code == 2 and given["size"] == 600 and given["sha256"] == hashlib.sha256(cut.read_bytes()).hexdigest()
    code, out = run("check", str(cut))
    assert "could not be opened" not in out and f"input {cut}: 600 bytes, sha256 {given['sha256']}" in out
