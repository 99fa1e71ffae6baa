"""Secret seeds (and salts) encrypted at rest, with a key kept outside the database.

A match's seed decides every deal still to come, so a copy of the database must not tell
them (nor its salt, which would let the public commitment be tested against seeds). They
are stored AES-256-GCM encrypted (the match id bound as associated data, so a
seed cannot be moved to another row). The key comes from ``GINRUMMY_SEED_KEY`` (32 bytes,
url-safe base64) or a key file; a single process with no key configured makes a key file
beside its database the first time (mode 0600), so ``ginrummy serve`` just works.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from pathlib import Path

__all__ = ["KEY_ENV", "SeedCipher", "SeedKeyError", "load_key", "new_key_text"]

KEY_ENV = "GINRUMMY_SEED_KEY"
PREFIX = "v1:"


class SeedKeyError(RuntimeError):
    """No usable seed key: the message says where one is looked for and how to make one."""


def new_key_text() -> str:
    """A fresh key in the form ``GINRUMMY_SEED_KEY`` and key files hold."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()


def _parse(text: str, where: str) -> bytes:
    try:
        key = base64.urlsafe_b64decode(text.strip().encode())
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise SeedKeyError(
            f"The seed key in {where} is not 32 bytes of url-safe base64; make one with "
            "`python3 -c \"import base64,os;print(base64.urlsafe_b64encode(os.urandom(32))"
            ".decode())\"`."
        )
    return key


def load_key(key_file: str | None, default_file: Path | None) -> bytes:
    """The seed key: ``GINRUMMY_SEED_KEY``, else ``key_file``, else ``default_file`` (made
    with mode 0600 if missing); with neither a key nor a default, a clear error."""
    env = os.environ.get(KEY_ENV)
    if env:
        return _parse(env, f"${KEY_ENV}")
    if key_file:
        path = Path(key_file)
        try:
            return _parse(path.read_text(), str(path))
        except OSError as e:
            raise SeedKeyError(f"Cannot read the seed key file {path}: {e.strerror}.") from None
    if default_file is None:
        raise SeedKeyError(
            f"Several processes share this database, so they need one seed key: set "
            f"{KEY_ENV} (32 bytes, url-safe base64) or --seed-key-file in every process."
        )
    try:
        fd = os.open(default_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _parse(default_file.read_text(), str(default_file))
    except OSError as e:
        raise SeedKeyError(f"Cannot create the seed key file {default_file}: {e}") from None
    with os.fdopen(fd, "w") as f:
        f.write(new_key_text() + "\n")
    return _parse(default_file.read_text(), str(default_file))


class SeedCipher:
    """Encrypts and decrypts a match's secrets (its seed, its salt) with one key; each
    is bound to its match and purpose, so a stored value cannot be moved to another row or
    read as the other secret.

    >>> c = SeedCipher(bytes(32))
    >>> c.decrypt(c.encrypt(12345, "m1"), "m1")
    12345
    >>> c.decrypt_text(c.encrypt_text("00ff", "salt:m1"), "salt:m1")
    '00ff'
    """

    def __init__(self, key: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._aead = AESGCM(key)

    def encrypt(self, seed: int, match_id: str) -> str:
        """The stored text of ``seed`` for match ``match_id``."""
        return self.encrypt_text(str(seed), match_id)

    def decrypt(self, text: str, match_id: str) -> int:
        """The seed stored as ``text``; ValueError if the key or the row is wrong."""
        return int(self.decrypt_text(text, match_id))

    def encrypt_text(self, plain: str, bound_to: str) -> str:
        """The stored text of the secret ``plain``, bound to ``bound_to`` (associated data:
        the match id, with a purpose prefix for anything but the seed)."""
        nonce = secrets.token_bytes(12)
        ct = self._aead.encrypt(nonce, plain.encode(), bound_to.encode())
        return PREFIX + base64.urlsafe_b64encode(nonce + ct).decode()

    def decrypt_text(self, text: str, bound_to: str) -> str:
        """The secret stored as ``text``; ValueError if the key or the row is wrong."""
        from cryptography.exceptions import InvalidTag

        if not text.startswith(PREFIX):
            raise ValueError("unknown secret format")
        raw = base64.urlsafe_b64decode(text[len(PREFIX):].encode())
        try:
            plain = self._aead.decrypt(raw[:12], raw[12:], bound_to.encode())
        except InvalidTag:
            raise ValueError(
                "the seed key does not open this match's secret (wrong key?)"
            ) from None
        return plain.decode()
