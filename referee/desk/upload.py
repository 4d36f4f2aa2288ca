"""Upload (auditor): a log, or an export with its mapping, checked and stored as ``check --store`` does.

Why ``check`` itself, in a child process: the upload is then audited and stored exactly
as the command would (one truth), in a process of its own that a time limit can end
and whose memory goes with it; the desk keeps serving meanwhile. The store's URL
reaches the child through its environment, never its command line (which any user of
the machine may read). What is refused is said plainly: no file, a file too large, a
name that is no log's, a mapping that is not built in and not uploaded, ``check``'s own
refusal (its one line, the store's secrets masked).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Request

from ..errors import Count
from ..escape import clipped
from ..profiles import BUILTIN
from .backend import Backend, Checked

#: The largest upload taken, in bytes (``referee serve --max-upload``).
MAX_UPLOAD = 64 << 20
#: How long ``check`` may take on an upload, in seconds.
CHECK_SECONDS = 600
#: The extensions ``check`` reads (a log, an export page, compressed).
EXTENSIONS = (".yaml", ".yml", ".json", ".jsonl", ".ndjson", ".csv", ".txt", ".gz", ".bz2", ".xz", ".zst")
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
#: The child: ``referee check`` with ``--store`` from the environment.
CHILD = ("import os, sys\nfrom referee.start import main\n"
         "sys.argv = ['referee', *sys.argv[1:], '--store', os.environ.pop('REFEREE_DESK_STORE')]\nmain()\n")


@dataclass
class Outcome:
    """What became of an upload: refused (and why), or checked: its exit status, the
    check's summary line and the store's note (stored, or already there), as ``check
    --store`` says them."""

    refused: str | None = None
    name: str | None = None
    status: int | None = None
    summary: str = ""
    stored: str = ""
    #: The refusal's sentence (the catalogue's, context ``desk``) and its values: the page
    #: says it in its reader's language (``check``'s own refusal is its English line).
    words: str | None = None
    values: dict[str, object] = field(default_factory=dict)


def _refused(words: str, **values: object) -> Outcome:
    """An upload refused, in words the page translates."""
    return Outcome(refused=words.format(**values), words=words, values=values)


def safe_name(name: str | None) -> str | None:
    """An uploaded file's name as stored: its last part, only letters, digits, ``._-``
    (None when nothing is left, or it is no log's)."""
    if not name:
        return None
    base = SAFE_NAME.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")[-100:]
    return base if base and base.lower().endswith(EXTENSIONS) else None


async def receive(request: Request, backend: Backend, limit: int) -> Outcome:
    """Read the upload (refused above ``limit`` bytes before it is parsed), then check it."""
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        return _refused("the upload must say its length (Content-Length); the limit is {limit} bytes",
                        limit=Count(limit))
    if int(length) > limit + 65536:
        return _refused("the upload is {size} bytes: the limit is {limit} bytes (referee serve --max-upload)",
                        size=Count(int(length)), limit=Count(limit))
    form = await request.form(max_files=2, max_fields=8)
    log, mapping, builtin = form.get("file"), form.get("mapping_file"), str(form.get("mapping") or "").strip()
    profile = str(form.get("profile") or "").strip()
    if log is None or isinstance(log, str) or not log.filename:
        return _refused("choose a file to upload (a log, or an export with its mapping)")
    name = safe_name(log.filename)
    if name is None:
        return _refused("{name!r} is not a log or an export that check reads (its name ends with one of {endings})",
                        name=clipped(str(log.filename), 60), endings=", ".join(EXTENSIONS))
    with tempfile.TemporaryDirectory(prefix="referee-upload-") as folder:
        where = Path(folder)
        data = await log.read(limit + 1)
        if len(data) > limit:
            return _refused("the file is over the limit of {limit} bytes", limit=Count(limit))
        (where / name).write_bytes(data)
        args = ["check", name, "--format", "text", "--quiet", "--jobs", "1"]
        if profile:
            if profile not in BUILTIN:
                return _refused("{profile!r} is not a built-in profile ({profiles})", profile=clipped(profile, 60),
                                profiles=", ".join(BUILTIN))
            args += ["--profile", profile]
        if mapping is not None and not isinstance(mapping, str) and mapping.filename:
            text = await mapping.read(1 << 20)
            (where / "mapping.yaml").write_bytes(text)
            args += ["--mapping", "mapping.yaml"]
        elif builtin:
            if builtin not in builtin_mappings():
                return _refused("{mapping!r} is not a built-in mapping", mapping=clipped(builtin, 60))
            args += ["--mapping", builtin]
        return _check(backend, where, name, args)


def _check(backend: Backend, folder: Path, name: str, args: list[str]) -> Outcome:
    """``referee check ... --store`` on the upload, in a child process (its cwd the upload's folder)."""
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env = {**os.environ, "REFEREE_DESK_STORE": backend.text,
           "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=folder, env=env, capture_output=True,
                              timeout=CHECK_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return _refused("checking {name} took over {seconds} seconds: run check --store on it", name=name,
                        seconds=CHECK_SECONDS)
    if done.returncode not in (0, 1):
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        line = backend.target.scrub(said[-1] if said else f"check stopped (exit {done.returncode})")
        return Outcome(refused=clipped(line.removeprefix("referee: "), 400), name=name, status=done.returncode)
    said = done.stdout.decode("utf-8", "replace").strip().splitlines()
    notes = [line.removeprefix("referee: ") for line in done.stderr.decode("utf-8", "replace").splitlines()
             if line.startswith("referee: store ")]
    stored = notes[-1].split(": ", 2)[-1] if notes else ""  # the store's URL is not the desk user's business
    return Outcome(name=name, status=done.returncode, summary=clipped(said[-1], 400) if said else "",
                   stored=clipped(stored, 200))


def builtin_mappings() -> list[str]:
    from ..load.exports import builtin_names

    return list(builtin_names())


@dataclass(frozen=True)
class SourceRow:
    id: int
    name: str
    kind: str
    size: int
    stored: str
    #: Its live tables' games as ``check`` counts them (a game written twice is one game:
    #: :func:`referee.store.read.source_games`), not its stored game records.
    games: int
    seats: int
    findings: int
    #: Its records of a game already recorded (in it or in a source stored before).
    seconds: int = 0


def sources(backend: Backend) -> list[SourceRow]:
    """The stored sources, newest first."""
    import sqlalchemy as sa

    from ..report.rows import when
    from ..store import schema
    from ..store.read import source_games

    s = schema.sources

    def read(where: Any) -> list[SourceRow]:
        with where.connect() as conn, conn.begin():
            rows = list(conn.execute(sa.select(s.c.id, s.c.name, s.c.kind, s.c.size, s.c.stored_us, s.c.seats,
                                               s.c.findings).order_by(s.c.id.desc()).limit(500)))
            games = source_games(conn, [r.id for r in rows])
            return [SourceRow(r.id, r.name, r.kind, r.size, when(r.stored_us), games.get(r.id, (0, 0))[0], r.seats,
                              r.findings, games.get(r.id, (0, 0))[1]) for r in rows]

    return backend.run(read)


def problems_of(checked: Checked | None, source: SourceRow) -> list[str] | None:
    """What the desk's last verification found of ``source`` (None: not verified yet)."""
    if checked is None or source.id not in checked.ids:
        return None
    where = f"source {source.id} ({source.name})"
    return [p for p in checked.problems if p.startswith(where)]
