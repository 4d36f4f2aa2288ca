from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
#: The shipped hand histories: the files at the top of samples/ (samples/exports/ holds
#: providers' exports, read with --mapping: not hand histories).
HAND_HISTORIES = sorted(p for p in SAMPLES.iterdir() if p.is_file())

Write = Callable[[str, str], str]
"""The ``write`` fixture: writes a text file under the test's tmp_path and returns its path."""


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def check_json(*args: str, input: str | None = None) -> tuple[int, dict[str, Any]]:
    code, out = run("check", "--format", "json", *args, input=input)
    return code, json.loads(out)


def codes(report: dict[str, Any]) -> list[str]:
    found = [f["code"] for s in report["sessions"] for f in s["findings"]]
    return sorted(found + [f["code"] for f in report["problems"]])


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Decision tables built by tests go to a temporary cache, never the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.mktemp("referee-cache")))
    yield
    mp.undo()


@pytest.fixture(autouse=True, scope="session")
def _argon2_proved_once() -> Iterator[None]:
    """A password proved against an Argon2id hash is proved once a test process: the same
    hash and password again are not worked out again (about 0.3 s of CPU each, and the
    desk's tests sign the same accounts in hundreds of times). Verifying is a function of
    the hash (salt and parameters in it) and the password alone, so the answer is the one
    argon2 gave; a refused password is worked out every time (the decoy of an unknown name
    too), and ``PasswordHasher.verify`` is still called (a test may spy on it)."""
    try:
        from argon2 import PasswordHasher
    except ImportError:
        yield
        return
    verify = PasswordHasher.verify
    proved: set[tuple[str | bytes, str | bytes]] = set()

    def once(self: PasswordHasher, hash: str | bytes, password: str | bytes) -> Literal[True]:
        if (hash, password) not in proved:
            verify(self, hash, password)  # raises when the password is not the hash's
            proved.add((hash, password))
        return True

    mp = pytest.MonkeyPatch()
    mp.setattr(PasswordHasher, "verify", once)
    yield
    mp.undo()


@pytest.fixture
def write(tmp_path: Path) -> Write:
    def _write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return _write


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[str]:
    """A Dask cluster for the suite (issue 31), started once a test process and closed
    after: a scheduler in this process and two single-thread worker processes, over TCP
    on the loopback address, as ``--cluster tcp://...`` reaches a real one. Its address.

    Worker processes, not threads of this one (which start in a fraction of a second
    against two or three seconds): in-process workers share the audit's per-process
    memos with the client, and their results reach it unpickled, the very objects the
    worker goes on using: reports differed from run to run. And a worker's answers to
    the client's fingerprint must come from another process for a test to make them differ."""
    try:
        from distributed import LocalCluster
    except ImportError:
        pytest.skip("needs Dask distributed: pip install -e '.[test]' (or 'referee[cluster]')")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", protocol="tcp",
                           dashboard_address=":0")  # its HTTP server on a free port, not 8787
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close(timeout=10)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An audit store that does not exist yet, on each engine (tests/store_support.py)."""
    from .store_support import a_store

    yield from a_store(request.param, tmp_path)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The heaviest modules first, each kept whole: with ``-n``, pytest-xdist hands each
    test file whole to one worker (``--dist loadfile`` in pyproject.toml), in this order,
    so that a module's fixtures (a store, a server, a virtual environment) are made once a
    run and a long module starts early instead of running alone at the end while the
    other worker waits. A module's weight: 25 a slow test (from 5 s to 50 s on one core),
    one any other (most take a fraction of a second)."""
    weight: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        weight[module] = weight.get(module, 0) + (25 if item.get_closest_marker("slow") else 1)
    items.sort(key=lambda item: -weight[item.nodeid.split("::")[0]])
