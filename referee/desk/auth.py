"""Who is at the desk: sessions, their CSRF tokens, failed logins held back, and the roles' rights.

Why sessions kept on the server, not signed cookies: the cookie then carries nothing but
256 random bits, so there is no signing key to generate, keep secret, share and rotate,
and a session ends for good when its user logs out, is disabled or has a new password (a
signed cookie stays valid until it expires). They are kept in the store (schema 0009,
:mod:`referee.store.logins`: the token's SHA-256, never the token), so that the worker
processes of ``referee serve --workers N`` share them and a restart logs no one out. The
user's role is read from the store again at each request, so a disabled account or a
changed role counts at once.

The failed logins held back (:class:`Throttle`) are counted in each process: with N
workers an address may try up to N times the limits before each holds it back.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The roles (the store's ``accounts.ROLES``) and what each may do beyond reading,
#: which every role may. Why no role holds every right (not even admin): each action is
#: taken by the person whose job it is, and the access log names them.
RIGHTS: dict[str, frozenset[str]] = {
    "viewer": frozenset({"read"}),
    "floor": frozenset({"read", "cases"}),
    "risk": frozenset({"read", "alerts"}),
    "auditor": frozenset({"read", "upload", "codes"}),
    "admin": frozenset({"read", "users"}),
}

#: The session cookie's name, and how long a session lasts idle and at most.
COOKIE = "referee_session"
IDLE_SECONDS = 8 * 3600.0
MAX_SECONDS = 12 * 3600.0


def may(role: str, right: str) -> bool:
    """Whether ``role`` holds ``right`` (an unknown role holds none)."""
    return right in RIGHTS.get(role, frozenset())


@dataclass
class Session:
    """One login: the cookie's token, its user, the CSRF token its forms and calls carry,
    when it started and was last seen (seconds since 1970)."""

    token: str
    user: str
    csrf: str
    started: float
    seen: float
    #: Its account's role and whether it may sign in, as the store said at this request
    #: ("" and False when just opened: the login read them).
    role: str = ""
    active: bool = False


class Sessions:
    """The open sessions, kept in the store (``backend``: the desk's
    :class:`~referee.desk.backend.Backend`); ``clock`` says now, in seconds since 1970."""

    def __init__(self, backend: Any, clock: Callable[[], float] = time.time) -> None:
        self._backend = backend
        self._clock = clock

    def _now(self) -> int:
        return int(self._clock() * 1_000_000)

    def open(self, user: str) -> Session:
        from ..store import logins

        made = self._backend.run(lambda where: logins.open_login(where, user, self._now(), int(IDLE_SECONDS * 1e6),
                                                                 int(MAX_SECONDS * 1e6)))
        return Session(made.token, made.user, made.csrf, made.started_us / 1e6, made.seen_us / 1e6)

    def get(self, token: str | None, conn: Any = None) -> Session | None:
        """The session of ``token``, if it is open and has not expired (then it is seen
        now); in ``conn``'s transaction when given (a request's one: :meth:`Backend.unit`)."""
        from ..store import logins

        if not token or len(token) > 200:
            return None
        found = self._backend.run(lambda where: logins.find_login(where if conn is None else conn, token,
                                                                  int(IDLE_SECONDS * 1e6), int(MAX_SECONDS * 1e6),
                                                                  self._now()))
        if found is None:
            return None
        return Session(token, found.user, found.csrf, found.started_us / 1e6, found.seen_us / 1e6, found.role,
                       not found.disabled)

    def close(self, token: str) -> None:
        from ..store import logins

        self._backend.run(lambda where: logins.close_login(where, token))


def same_token(given: str | None, expected: str) -> bool:
    """Whether a CSRF token given with a request is the session's (in constant time)."""
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())


#: Failed logins allowed within the window before further attempts are refused (even with
#: the right password) until the window passes: for one user name from one address, and,
#: wider, for one address whatever the names and for one name whatever the addresses.
FAILURES = 5
WIDE_FAILURES = 20
WINDOW_SECONDS = 15 * 60.0


@dataclass
class Throttle:
    """Failed logins held back: after :data:`FAILURES` failures of one user name from one
    address within :data:`WINDOW_SECONDS`, that pair waits; after :data:`WIDE_FAILURES`,
    so does the address for every name (many names tried from one place) or the name from
    every address (one password guessed from many). Why pairs first: a count per address
    alone lets one mistyped password lock out everyone behind the casino's one address,
    and a count per name alone lets anyone lock a floor manager out with five guesses."""

    clock: Callable[[], float] = time.monotonic
    failures: int = FAILURES
    window: float = WINDOW_SECONDS
    wide: int = WIDE_FAILURES
    _seen: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, user: str, address: str) -> int:
        """Seconds before ``user`` may try again from ``address`` (0: now)."""
        now = self.clock()
        with self._lock:
            waits = [self._wait(key, now, limit) for key, limit in self._keys(user, address)]
        return max(waits)

    def failed(self, user: str, address: str) -> None:
        now = self.clock()
        with self._lock:
            for key, _ in self._keys(user, address):
                self._seen.setdefault(key, deque()).append(now)

    def succeeded(self, user: str, address: str = "") -> None:
        """A good login clears its user's counts (not its address's: other names tried from
        it still count)."""
        with self._lock:
            self._seen.pop(f"user:{user.casefold()}", None)
            self._seen.pop(f"pair:{user.casefold()}\x1f{address}", None)

    def _keys(self, user: str, address: str) -> tuple[tuple[str, int], ...]:
        name = user.casefold()
        return ((f"pair:{name}\x1f{address}", self.failures), (f"user:{name}", self.wide),
                (f"addr:{address}", self.wide))

    def _wait(self, key: str, now: float, limit: int) -> int:
        times = self._seen.get(key)
        if not times:
            return 0
        while times and now - times[0] >= self.window:
            times.popleft()
        if not times:
            del self._seen[key]
            return 0
        if len(times) < limit:
            return 0
        oldest = times[len(times) - limit]  # the failure whose passing brings the count under the limit
        return max(1, int(self.window - (now - oldest)) + 1)
