"""Signed checkpoints: what a store held at one time, signed, to be kept outside it.

Why: ``store verify`` proves that the store agrees with itself, and nothing more: whoever
can write to the database can delete the newest source and set the head back, or change a
seat and recompute every digest and the chain, and the store still agrees with itself. A
checkpoint, kept by someone the store's writers cannot reach (a regulator, a second
party), is what such a rewrite is found against, as Certificate Transparency's and Go's
checksum database's are: the store must still hold, unchanged and in order, everything a
checkpoint covered.

A checkpoint file is a C2SP signed note (:mod:`referee.store.keys`) followed by a blank
line and its listing::

    referee store checkpoint v1
    store "audit.db"
    taken 2026-12-07T09:00:00Z
    sources 4 5d0c...e1
    alerts 0 -
    listing 3b1f...9a
    <blank line>
    — regulator qkYw...
    <blank line>
    source 1 9f2c...77 "samples/disputed.yaml"
    ...

The note's text says how many entries each chain had and its head (``-``: none); the
listing gives each entry's id, digest (recomputed from its rows, never read from the
digests stored beside them) and name, in order. The text signs the listing's SHA-256,
and each head is the chain of the listed digests (``digest.chained``, from the empty
text), so that the listing is as trustworthy as the signature: whoever checks a
checkpoint recomputes both, and may compare the digests with ``SELECT id, digest FROM
sources`` of a copy of the store. Verifying a store against a checkpoint compares, entry
by entry, the listed digests with those recomputed from the store's rows now: the first
that differs is named (each digest covers its source's rows and bytes, so it is the
first source changed, removed or moved since).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..errors import UserError
from . import chains
from .keys import DASH, Key
from .verify import Entry, Verdict

FORMAT = "referee store checkpoint v1"
#: The chains a checkpoint covers, in the order its text gives them.
COVERED = ("sources", *chains.CHAINED)
#: A checkpoint larger than this is refused unread (about 2 million sources).
MAX_BYTES = 512 << 20
_LINE = re.compile(r"^(\w+) (\d+) ([0-9a-f]{64}) (\".*\")$")


class CheckpointError(UserError):
    """A checkpoint that cannot be read, or that its key does not sign (exit 2)."""


@dataclass(slots=True)
class Checkpoint:
    """A checkpoint as read and checked: its text's fields and each chain's listed entries."""

    store: str
    taken: str
    entries: dict[str, list[Entry]] = field(default_factory=dict)


def _tag(name: str) -> str:
    """A chain's listing tag: ``source``, ``alert``."""
    return name.removesuffix("s")


def counted(count: int, name: str) -> str:
    """``1 source``, ``4 sources``, ``2 case events``: ``name`` is a chain's (plural)."""
    return f"{count} {name if count != 1 else _tag(name)}".replace("_", " ")


def covers(entries: dict[str, list[Entry]]) -> str:
    """What a checkpoint covers (or a store holds), in words: ``4 sources, 1 alert`` (the
    chains after those two, the alert groups' and their actions' and notifications', only
    when they hold any)."""
    return ", ".join(counted(len(entries.get(name, [])), name) for name in COVERED
                     if name in ("sources", "alerts") or entries.get(name))


def _head(entries: list[Entry]) -> str:
    last = ""
    for entry in entries:
        last = hashlib.sha256(f"{last}{entry.digest}".encode()).hexdigest()
    return last or "-"


def make(verdict: Verdict, shown: str, key: Key, now: datetime | None = None) -> str:
    """The checkpoint of a store found intact by ``verdict``, signed by ``key``."""
    taken = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    listing = "".join(f"{_tag(name)} {e.id} {e.digest} {json.dumps(e.name)}\n"
                      for name in COVERED for e in verdict.entries.get(name, []))
    lines = [FORMAT, f"store {json.dumps(shown)}", f"taken {taken}"]
    lines += [f"{name} {len(verdict.entries.get(name, []))} {_head(verdict.entries.get(name, []))}"
              for name in COVERED]
    lines.append(f"listing {hashlib.sha256(listing.encode()).hexdigest()}")
    text = "\n".join(lines) + "\n"
    return f"{text}\n{key.sign(text)}\n\n{listing}"


def read(path: str, key: Key) -> Checkpoint:
    """The checkpoint in ``path``, its signature by ``key`` verified, its listing checked
    against its text; else a CheckpointError saying what is wrong with it."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as err:
        raise CheckpointError(f"{path}: cannot read the checkpoint: {err.strerror or err}") from None
    if len(data) > MAX_BYTES:
        raise CheckpointError(f"{path}: not a checkpoint (over {MAX_BYTES >> 20} MiB)")
    try:
        note = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CheckpointError(f"{path}: not a checkpoint (not UTF-8 text)") from None
    text, _, rest = note.partition("\n\n")
    text += "\n"
    signatures, _, listing = rest.partition("\n\n")
    if not text.startswith(FORMAT + "\n") or not signatures.startswith(DASH):
        raise CheckpointError(f"{path}: not a referee checkpoint (its first line is not {FORMAT!r}, then a "
                              "signed note's blank line and signatures)")
    said = [key.verifies(text, line) for line in signatures.splitlines() if line.startswith(DASH)]
    if True not in said:
        why = "its signature by this key does not verify: the checkpoint was changed after it was signed" \
            if False in said else f"it is not signed by the key {key.name} (id {key.id.hex()})"
        raise CheckpointError(f"{path}: {why}")
    return _checked(path, text, listing)


def _checked(path: str, text: str, listing: str) -> Checkpoint:
    """The signed text's fields, and the listing checked against them (its SHA-256, each
    chain's count and head recomputed from its digests)."""
    fields = dict(line.partition(" ")[::2] for line in text.splitlines()[1:])
    if hashlib.sha256(listing.encode()).hexdigest() != fields.get("listing"):
        raise CheckpointError(f"{path}: its listing is not the one signed (changed after the checkpoint was taken)")
    try:
        found = Checkpoint(json.loads(fields["store"]), fields["taken"])
    except (KeyError, ValueError):
        raise CheckpointError(f"{path}: its text does not name the store and the time it was taken") from None
    tags = {_tag(name): name for name in COVERED}
    for number, line in enumerate(listing.splitlines(), 1):
        match = _LINE.match(line)
        if match is None or match.group(1) not in tags:
            raise CheckpointError(f"{path}: listing line {number} is not 'KIND ID DIGEST \"NAME\"'")
        found.entries.setdefault(tags[match.group(1)], []).append(
            Entry(int(match.group(2)), json.loads(match.group(4)), match.group(3)))
    for name in COVERED:
        entries = found.entries.setdefault(name, [])
        # taken before the store kept this chain (alert groups: schema 0007; cases: 0008): none covered
        if name not in fields and not entries:
            continue
        if fields.get(name) != f"{len(entries)} {_head(entries)}":
            raise CheckpointError(f"{path}: its {name} line is not the chain of the {name} it lists")
    return found


def compare(checkpoint: Checkpoint, verdict: Verdict) -> list[str]:
    """How the store now differs from what ``checkpoint`` covered: for each chain, the
    first entry that is not, unchanged and in its place, the one listed (nothing when the
    store still holds everything the checkpoint covered; entries added since are no change)."""
    problems = []
    for name in COVERED:
        now = verdict.entries.get(name, [])
        listed = checkpoint.entries.get(name, [])
        tag = _tag(name)
        for at, then in enumerate(listed):
            if at >= len(now):
                problems.append(f"{tag} {then.id} ({then.name}), covered by the checkpoint, is not in the store any "
                                f"more: {len(listed) - at} of the {counted(len(listed), name)} it covered removed (the "
                                f"store was cut back; {counted(len(now), name)} now)")
                break
            if (now[at].id, now[at].digest) != (then.id, then.digest):
                problems.append(_differs(tag, now[at], then))
                break
    return problems


def _differs(tag: str, now: Entry, then: Entry) -> str:
    """The first entry that is not the one the checkpoint covered, in words."""
    if now.id == then.id and now.name == then.name:
        return (f"{tag} {now.id} ({now.name}) is not what the checkpoint covered: changed since (its rows, its "
                f"bytes or its record; digest {then.digest[:16]}... then, {now.digest[:16]}... recomputed now)")
    return (f"{tag} {now.id} ({now.name}) is not the {tag} the checkpoint covered in its place ({tag} {then.id}, "
            f"{then.name}): {tag}s were removed, added or put in another place before it")
