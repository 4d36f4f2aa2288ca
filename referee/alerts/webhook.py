"""``monitor --notify URL``: each new alert group posted to a webhook, signed, retried, bounded.

Why signed: whoever receives the post must be able to tell it came from this monitor and
was not changed or replayed: the body is signed with an HMAC-SHA256 of a secret shared
with the receiver (the environment's ``REFEREE_WEBHOOK_SECRET``, never an option: an
option is seen in ``ps`` and shell histories), over the timestamp and the raw body, as
Stripe and GitHub sign theirs. Why bounded: a monitor run from cron must finish, and a
verdict must never wait on a chat server: every attempt has a timeout, the retries of a
run share one budget of time, and a delivery that fails is a warning, never another
verdict or exit status. Why the URL is never shown whole: a Slack or Teams webhook's path
is its secret; only its scheme and host are said or kept.

Only the standard library (``urllib``): one POST a group needs nothing more.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..monitor.groups import AlertGroup

#: The environment variable that holds the shared secret.
SECRET_VARIABLE = "REFEREE_WEBHOOK_SECRET"
FORMATS = ("json", "slack", "teams")
SIGNATURE_HEADER = "X-Referee-Signature"
TIMESTAMP_HEADER = "X-Referee-Timestamp"
DELIVERY_HEADER = "X-Referee-Delivery"
#: Attempts a group at most; the first wait between two, doubled after each; one attempt's
#: longest wait for an answer (seconds).
MAX_ATTEMPTS = 5
FIRST_DELAY = 0.5
ATTEMPT_TIMEOUT = 10.0
#: A receiver's answer read at most (bytes): it is not used, only drained.
MAX_ANSWER = 64 << 10


@dataclass(frozen=True, slots=True)
class Delivery:
    """One group's delivery: how many attempts, the last HTTP status (None: no answer),
    what came of it, when the first and the last attempt were made."""

    group_id: int | None
    lead: str
    attempts: int
    status: int | None
    outcome: str
    delivered: bool
    first_us: int
    last_us: int


def shown(url: str) -> str:
    """The URL as said and kept: its scheme, host and port; its path, query and user left
    out (``https://hooks.slack.com/***``), since a webhook's path is often its secret."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port is not None else ""
    rest = "/***" if parts.path.strip("/") or parts.query or parts.username else ""
    return f"{parts.scheme}://{host}{port}{rest}"


def refused(url: str) -> str | None:
    """Why ``url`` cannot be a webhook (None: it can): only http and https, with a host."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return "not a URL (a webhook is http:// or https://HOST/...)"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http:// or https:// URL with a host"
    return None


def signature(secret: bytes, timestamp: str, body: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256, keyed by the secret, of the timestamp, a dot and the raw body."""
    return "sha256=" + hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def _when(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _summary(group: AlertGroup, group_id: int | None, store: str) -> str:
    z = "" if group.z is None else f", z {group.z:+.2f}"
    games = f"; games {group.first_game} to {group.last_game}" if group.first_game or group.last_game else ""
    others = len(group.segments) - 1
    also = f"; with {others} other segment{'s' * (others != 1)}" if others > 0 else ""
    show = f"; referee alerts show {group_id} --store {store}" if group_id is not None else ""
    return (f"referee monitor: alert on {group.lead} ({group.basis} basis{z}), {group.bet}, {group.window}"
            f"{games}{also}; store {store}{show}")


def body(group: AlertGroup, group_id: int | None, store: str, fmt: str, now: float) -> bytes:
    """What is posted for one group, in ``fmt``: ``json`` (the group as ``monitor --format
    json`` gives it, its id in the store, the store and the time), ``slack`` (``{"text": ...}``)
    or ``teams`` (a message with one Adaptive Card)."""
    if fmt == "json":
        doc: dict[str, Any] = {"event": "alert_group", "id": group_id, "store": store, "sent": _when(now),
                               "host": socket.gethostname(), "referee": __version__, "group": group.to_json()}
    else:
        text = _summary(group, group_id, store)[:3000]
        if fmt == "slack":  # Slack's markup: &, < and > are its control characters
            doc = {"text": text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")}
        else:
            doc = {"type": "message", "attachments": [{
                "contentType": "application/vnd.microsoft.card.adaptive", "content": {
                    "$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard",
                    "version": "1.4", "body": [{"type": "TextBlock", "text": text, "wrap": True}]}}]}
    return json.dumps(doc, sort_keys=True, ensure_ascii=False).encode("utf-8")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is not followed (the signed body would go where the receiver sends it): it is an answer."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _post(url: str, data: bytes, headers: dict[str, str], timeout: float) -> int:
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            answer.read(MAX_ANSWER)
            return int(answer.status)
    except urllib.error.HTTPError as err:
        err.close()
        return int(err.code)


def _retried(status: int) -> bool:
    """A status worth another attempt: the server's trouble (5xx), a timeout (408), too many (429)."""
    return status >= 500 or status in (408, 429)


def _failure(err: BaseException) -> str:
    """Why no answer came, in words that never hold the URL."""
    reason: object = err.reason if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, TimeoutError | socket.timeout) or "timed out" in str(reason):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return f"cannot connect: {reason.strerror}"
    return f"cannot connect: {type(reason).__name__}"


class Sender:
    """Deliveries to one URL that share one budget of time (``budget`` seconds from now)."""

    def __init__(self, url: str, secret: bytes | None, fmt: str, budget: float,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = url
        self.secret = secret
        self.fmt = fmt
        self.deadline = time.monotonic() + budget
        self.budget = budget
        self.sleep = sleep

    def send(self, group: AlertGroup, group_id: int | None, store: str) -> Delivery:
        """One group posted, retried with exponential backoff on a server error, a timeout or
        no connection, until it is delivered, refused (a 4xx other than 408 and 429, a
        redirect), ``MAX_ATTEMPTS`` are made or the budget is spent."""
        data = body(group, group_id, store, self.fmt, time.time())
        ident = str(uuid.uuid4())
        attempts, status, outcome, delay = 0, None, "", FIRST_DELAY
        first = last = time.time_ns() // 1000
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                outcome = outcome or "not sent"
                outcome += f" (the {self.budget:g} s given to notifications ran out)"
                break
            attempts += 1
            last = time.time_ns() // 1000
            try:
                status = _post(self.url, data, self._headers(data, ident), min(ATTEMPT_TIMEOUT, remaining))
            except (urllib.error.URLError, OSError, ValueError) as err:
                status, outcome, again = None, _failure(err), True
            else:
                if 200 <= status < 300:
                    return Delivery(group_id, group.lead, attempts, status, "delivered", True, first, last)
                outcome, again = f"HTTP {status}", _retried(status)
            if not again or attempts >= MAX_ATTEMPTS:
                break
            self.sleep(max(0.0, min(delay, self.deadline - time.monotonic())))
            delay *= 2
        return Delivery(group_id, group.lead, attempts, status, outcome, False, first, last)

    def _headers(self, data: bytes, ident: str) -> dict[str, str]:
        stamp = str(int(time.time()))
        headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": f"referee/{__version__}",
                   DELIVERY_HEADER: ident, TIMESTAMP_HEADER: stamp}
        if self.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.secret, stamp, data)
        return headers


def row(delivery: Delivery, url: str, fmt: str) -> dict[str, object]:
    """A delivery as ``alert_notifications`` keeps it (the URL as :func:`shown` says it)."""
    return {"group_id": delivery.group_id, "url": shown(url), "format": fmt, "attempts": delivery.attempts,
            "status": delivery.status, "outcome": delivery.outcome, "delivered": int(delivery.delivered),
            "first_us": delivery.first_us, "last_us": delivery.last_us}
