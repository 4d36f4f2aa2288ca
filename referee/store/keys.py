"""Ed25519 keys and signatures in the C2SP signed-note format (https://c2sp.org/signed-note).

Why this format: it is the one Certificate Transparency's witnesses and Go's checksum
database sign their checkpoints in, small and text, and anyone can check a note with a
few lines and any Ed25519 library. The cryptography itself is the ``cryptography``
package's (``referee[store]``); nothing here computes a curve.

* A key has a name (no space, no ``+``) and an id: the first 4 bytes of
  SHA-256(name, a newline, ``0x01`` (Ed25519), the 32-byte public key).
* The public key file (``KEYFILE.pub``) is the verifier key: ``NAME+ID+BASE64`` where
  ID is the id in 8 hex digits and BASE64 is ``0x01`` then the public key.
* The private key file (``KEYFILE``, mode 0600) is Go's ``note`` form of a signer key:
  ``PRIVATE+KEY+NAME+ID+BASE64`` with ``0x01`` then the 32-byte seed.
* A signature line: an em dash, a space, the key's name, a space and
  BASE64(id || the 64-byte signature of the note's text, its final newline included).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from . import STORE_EXTRA

#: The signature type of Ed25519 in a signed note's key id and key files.
ED25519 = b"\x01"
#: What begins each signature line of a signed note (an em dash and a space).
DASH = "\u2014 "
PRIVATE = "PRIVATE+KEY+"
_NAME = re.compile(r"^[^\s+]+$")


class KeyFileError(UserError):
    """A key file that cannot be made, read or used (exit 2); never shows a private key."""


def _ed25519() -> Any:
    """The ``cryptography`` package's Ed25519, or a clear exit 2 naming the extra."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise KeyFileError(f"checkpoints need the cryptography package: {STORE_EXTRA}") from None
    return ed25519


@dataclass(frozen=True)
class Key:
    """A note key: its name, its public key and, for a signer, its 32-byte seed."""

    name: str
    public: bytes
    seed: bytes | None = None

    @property
    def id(self) -> bytes:
        return key_id(self.name, self.public)

    def verifier(self) -> str:
        """The public key file's line."""
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(ED25519 + self.public).decode()}"

    def signer(self) -> str:
        """The private key file's line (written to a 0600 file, never printed)."""
        assert self.seed is not None
        return f"{PRIVATE}{self.name}+{self.id.hex()}+{base64.b64encode(ED25519 + self.seed).decode()}"

    def sign(self, text: str) -> str:
        """The signature line of ``text`` (a note's text, ending in a newline)."""
        assert self.seed is not None
        signature = _ed25519().Ed25519PrivateKey.from_private_bytes(self.seed).sign(text.encode("utf-8"))
        return f"{DASH}{self.name} {base64.b64encode(self.id + signature).decode()}"

    def verifies(self, text: str, line: str) -> bool | None:
        """Whether the signature ``line`` is this key's over ``text``: None when it is
        another key's (another name or id), False when it is this key's and does not verify."""
        ed25519 = _ed25519()
        from cryptography.exceptions import InvalidSignature

        name, _, encoded = line.removeprefix(DASH).partition(" ")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None if name != self.name else False
        if name != self.name or raw[:4] != self.id:
            return None
        try:
            ed25519.Ed25519PublicKey.from_public_bytes(self.public).verify(raw[4:], text.encode("utf-8"))
        except InvalidSignature:
            return False
        return True


def key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode("utf-8") + b"\n" + ED25519 + public).digest()[:4]


def new(name: str) -> Key:
    """A new key pair named ``name``."""
    if not _NAME.match(name):
        raise KeyFileError(f"a key's name has no space and no '+': {name!r}")
    ed25519 = _ed25519()
    from cryptography.hazmat.primitives import serialization

    private = ed25519.Ed25519PrivateKey.generate()
    seed = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Key(name, public, seed)


def read_signer(path: str) -> Key:
    """The private key in ``path`` (its public key derived from it); refused when others
    may read it (as ssh refuses one): a key anyone could have copied signs nothing."""
    text = _read(path, "private key")
    _private(path)
    if not text.startswith(PRIVATE):
        raise KeyFileError(f"{path}: not a private key file (referee store keygen writes one: PRIVATE+KEY+NAME+ID+KEY)")
    name, seed = _fields(path, text.removeprefix(PRIVATE), "private key")
    from cryptography.hazmat.primitives import serialization

    private = _ed25519().Ed25519PrivateKey.from_private_bytes(seed)
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    key = Key(name, public, seed)
    if text.removeprefix(PRIVATE).split("+")[1] != key.id.hex():
        raise KeyFileError(f"{path}: its key id is not that of its key (the file was changed)")
    return key


def read_verifier(path: str) -> Key:
    """The public key in ``path`` (``NAME+ID+BASE64``)."""
    text = _read(path, "public key")
    if text.startswith(PRIVATE):
        raise KeyFileError(f"{path}: a private key; give its public key ({path}.pub)")
    name, public = _fields(path, text, "public key")
    key = Key(name, public)
    if text.split("+")[1] != key.id.hex():
        raise KeyFileError(f"{path}: its key id is not that of its key (the file was changed)")
    return key


def _private(path: str) -> None:
    import os
    import stat

    if os.name != "posix":
        return
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        raise KeyFileError(f"{path}: others may read this private key (mode {mode:04o}); keep it 0600 (chmod 600 "
                           f"{path}), or make a new one if it may have been copied")


def _read(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(4096).strip()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else "not text"
        raise KeyFileError(f"{path}: cannot read the {what}: {reason}") from None


def _fields(path: str, text: str, what: str) -> tuple[str, bytes]:
    """A key line's name and its 32 key bytes (``NAME+ID+BASE64``); never quotes the line."""
    parts = text.split("+", 2)
    try:
        if len(parts) != 3 or not _NAME.match(parts[0]) or len(parts[1]) != 8:
            raise ValueError
        raw = base64.b64decode(parts[2], validate=True)
    except (binascii.Error, ValueError):
        raise KeyFileError(f"{path}: not a {what} file (NAME+ID+KEY, as referee store keygen writes)") from None
    if len(raw) != 33 or raw[:1] != ED25519:
        raise KeyFileError(f"{path}: not an Ed25519 {what} (its key is not 0x01 and 32 bytes)")
    return parts[0], raw[1:]


def keygen(path: str, name: str | None) -> Key:
    """A new key pair in ``path`` (private, 0600) and ``path.pub``, each written
    atomically; an existing file is never replaced (a lost key cannot be made again)."""
    from ..output import open_output

    if path == "-":
        raise KeyFileError("a private key is never written to standard output: name a file")
    pub = f"{path}.pub"
    for target in (path, pub):
        if Path(target).exists():
            raise KeyFileError(f"{target}: exists; a key is never replaced (remove it, or name another file)")
    key = new(name if name is not None else re.sub(r"[\s+]", "-", Path(path).stem) or "referee")
    with open_output(pub) as fh:
        fh.write(key.verifier() + "\n")
    with open_output(path, mode=0o600) as fh:
        fh.write(key.signer() + "\n")
    return key
