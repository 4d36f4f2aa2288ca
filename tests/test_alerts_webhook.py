"""``monitor --notify URL`` (issue 47): each new alert group posted to a webhook, signed
with an HMAC-SHA256 of a shared secret, retried with backoff, bounded in time; tested
against a real HTTP receiver on the loopback address."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from referee.alerts import webhook
from referee.monitor.groups import AlertGroup

from .conftest import run

SECRET = "whsec-5ecr3t-value"
TOKEN = "T000/B000/XXXXtoken"  # a webhook's path: as secret as the secret
GROUP = AlertGroup(lead="table T3", basis="paid", segments=("table T3", "all all"), z=-6.5, bet="ante+call",
                   window="last 1,000 games", first_game="g1", last_game="g9")


class Receiver:
    """A webhook receiver on 127.0.0.1: answers each POST with the next of ``statuses``
    (then 200), keeps what it received."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.statuses = list(statuses or [])
        self.received: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append(({k.lower(): v for k, v in self.headers.items()}, data))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/{TOKEN}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


@pytest.fixture
def silent() -> Iterator[str]:
    """A URL whose server accepts connections and never answers (a hung receiver)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    listener.close()


def _no_wait(seconds: float) -> None:
    """The backoff's waits, not slept (the waits asked for are kept by the test)."""
    waits.append(seconds)


waits: list[float] = []


def _verified(headers: dict[str, str], data: bytes, secret: str = SECRET) -> bool:
    """The check docs/monitor.md gives a receiver."""
    stamp = headers["x-referee-timestamp"]
    expected = "sha256=" + hmac.new(secret.encode(), stamp.encode() + b"." + data, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["x-referee-signature"])


def test_the_body_is_signed_and_the_signature_verifies(receiver: Receiver) -> None:
    delivery = webhook.Sender(receiver.url, SECRET.encode(), "json", 30).send(GROUP, 4, "audit.db")
    assert delivery.delivered and delivery.attempts == 1 and delivery.status == 200
    headers, data = receiver.received[0]
    assert _verified(headers, data)
    assert not _verified(headers, data, "another secret")
    assert not _verified(headers, data.replace(b"-6.5", b"-1.5"))
    doc = json.loads(data)
    assert doc["event"] == "alert_group" and doc["id"] == 4 and doc["store"] == "audit.db"
    assert doc["group"] == GROUP.to_json() and doc["sent"].endswith("Z")
    assert headers["content-type"].startswith("application/json") and headers["x-referee-delivery"]
    assert SECRET not in data.decode() and SECRET not in json.dumps(headers)


def test_server_errors_are_retried_with_backoff_and_client_errors_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    waits.clear()
    flaky = Receiver([503, 502, 200])
    try:
        delivery = webhook.Sender(flaky.url, SECRET.encode(), "json", 30, sleep=_no_wait).send(GROUP, 1, "a.db")
    finally:
        flaky.close()
    assert delivery.delivered and delivery.attempts == 3 and delivery.status == 200
    assert waits == [0.5, 1.0]  # exponential
    ids = {h["x-referee-delivery"] for h, _ in flaky.received}
    assert len(ids) == 1 and all(_verified(h, d) for h, d in flaky.received)  # one delivery, each attempt signed
    waits.clear()
    down = Receiver([500] * 10)
    try:
        delivery = webhook.Sender(down.url, SECRET.encode(), "json", 30, sleep=_no_wait).send(GROUP, 1, "a.db")
    finally:
        down.close()
    assert not delivery.delivered and delivery.attempts == webhook.MAX_ATTEMPTS and delivery.outcome == "HTTP 500"
    assert waits == [0.5, 1.0, 2.0, 4.0]
    refused = Receiver([401])
    try:
        delivery = webhook.Sender(refused.url, SECRET.encode(), "json", 30, sleep=_no_wait).send(GROUP, 1, "a.db")
    finally:
        refused.close()
    assert not delivery.delivered and delivery.attempts == 1 and delivery.outcome == "HTTP 401"


def test_a_hung_or_dead_receiver_is_bounded(silent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhook, "ATTEMPT_TIMEOUT", 0.5)
    delivery = webhook.Sender(silent, SECRET.encode(), "json", 60, sleep=lambda s: None).send(GROUP, 1, "a.db")
    assert not delivery.delivered and delivery.outcome == "timed out" and delivery.status is None
    assert delivery.attempts == webhook.MAX_ATTEMPTS
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    port = dead.getsockname()[1]
    dead.close()  # nothing listens there
    delivery = webhook.Sender(f"http://127.0.0.1:{port}/x", None, "slack", 60, sleep=lambda s: None).send(
        GROUP, 1, "a.db")
    assert not delivery.delivered and delivery.outcome.startswith("cannot connect") and str(port) not in \
        delivery.outcome


def test_the_budget_bounds_every_delivery_of_a_run(silent: str) -> None:
    sender = webhook.Sender(silent, None, "json", 1)
    first = sender.send(GROUP, 1, "a.db")
    second = sender.send(GROUP, 2, "a.db")
    assert not first.delivered and "ran out" in first.outcome + second.outcome
    assert second.attempts == 0 and second.outcome == "not sent (the 1 s given to notifications ran out)"


def test_slack_and_teams_bodies() -> None:
    hostile = AlertGroup(lead="table <!channel>&", basis="rules", segments=("table <!channel>&",), z=4.0,
                         bet="ante+call", window="day")
    slack = json.loads(webhook.body(hostile, 7, "audit.db", "slack", 0))
    assert list(slack) == ["text"] and "table &lt;!channel&gt;&amp;" in slack["text"]
    assert "referee alerts show 7 --store audit.db" in slack["text"]
    teams = json.loads(webhook.body(GROUP, 7, "audit.db", "teams", 0))
    card = teams["attachments"][0]
    assert teams["type"] == "message" and card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert "alert on table T3 (paid basis, z -6.50)" in card["content"]["body"][0]["text"]


def test_the_url_is_shown_without_its_path() -> None:
    assert webhook.shown(f"https://hooks.slack.com/services/{TOKEN}") == "https://hooks.slack.com/***"
    assert webhook.shown("https://user:pw@example.com:8443/h?k=v") == "https://example.com:8443/***"
    assert webhook.shown("http://[::1]:80") == "http://[::1]:80"
    assert webhook.refused("ftp://example.com/x") and webhook.refused("http:///x") and webhook.refused("https://a:b/")
    assert webhook.refused("https://example.com/x") is None


def test_notify_needs_a_url_it_can_post_to_and_the_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(tmp_path / "a.db")
    monkeypatch.delenv(webhook.SECRET_VARIABLE, raising=False)
    code, out = run("monitor", "--store", url, "--notify", "https://example.com/hook")
    assert code == 2 and "set REFEREE_WEBHOOK_SECRET" in out, out
    monkeypatch.setenv(webhook.SECRET_VARIABLE, SECRET)
    code, out = run("monitor", "--store", url, "--notify", "file:///etc/passwd")
    assert code == 2 and "--notify" in out and "http:// or https://" in out, out


def _by_first_alert(basis: str) -> Any:
    """A stand-in for the monitor's grouping (its own tests are test_monitor_groups'):
    one group led by the first alert, naming every alerting segment."""
    def grouped(verdict: Any, seats: Any) -> list[AlertGroup]:
        cells = [j.cell for j in verdict.alerts]
        names = tuple(dict.fromkeys(f"{c.kind} {c.segment}" for c in cells))
        first = cells[0]
        return [AlertGroup(lead=names[0], basis=basis, segments=names, z=first.z, bet=first.bet, window=first.window)]
    return grouped


@pytest.mark.slow
def test_monitor_posts_each_new_group_once_and_records_each_delivery(
        tmp_path: Path, receiver: Receiver, silent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlalchemy as sa

    from referee.monitor import groups

    from .test_monitor import _short_paid, _store

    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    _short_paid(url)
    monkeypatch.setattr(groups, "group_alerts", _by_first_alert("rules"), raising=False)
    monkeypatch.setenv(webhook.SECRET_VARIABLE, SECRET)
    args = ("monitor", "--store", url, "--segment", "all", "--segment", "table", "--no-cache")
    code, first = run(*args, "--record", "--notify", receiver.url)
    assert code == 1, first  # the verdict's status, whatever the webhook
    out = first
    assert "1 new alert group" in out and "webhook http://127.0.0.1:" in out and "1 of 1 new alert group delivered" \
        in out, out
    assert len(receiver.received) == 1
    headers, data = receiver.received[0]
    assert _verified(headers, data)
    doc = json.loads(data)
    assert doc["id"] == 1 and doc["group"]["lead"] == "all all" and doc["store"] == url
    code, again = run(*args, "--record", "--notify", receiver.url)
    assert code == 1 and "0 new alert groups" in again and len(receiver.received) == 1  # open: not posted again
    code, shown = run("alerts", "show", "1", "--store", url)
    assert code == 0 and "webhook   http://127.0.0.1:" in shown and "/*** (json): delivered, 1 attempt" in shown
    # a new cause, a receiver that never answers: the run ends, says so, and keeps the failure
    monkeypatch.setattr(groups, "group_alerts", _by_first_alert("paid"), raising=False)
    monkeypatch.setattr(webhook, "ATTEMPT_TIMEOUT", 0.5)
    code, out = run(*args, "--record", "--notify", silent, "--notify-timeout", "2")
    assert code == 1, out
    assert "referee: warning: webhook http://127.0.0.1:" in out and "alert group 2 (all all) not delivered" in out
    assert "timed out" in out
    code, shown = run("alerts", "show", "2", "--store", url, "--format", "json")
    sent = json.loads(shown)["notifications"]
    assert len(sent) == 1 and not sent[0]["delivered"] and sent[0]["attempts"] >= 1
    code, verified = run("store", "verify", url)  # the settlements were changed by hand (_short_paid): only those
    assert "alert" not in verified and "settlement row" in verified, verified
    every = first + out + again + shown
    made = sa.create_engine(f"sqlite:///{url}")
    with made.connect() as conn:
        every += " ".join(str(r) for r in conn.execute(sa.text("SELECT * FROM alert_notifications")))
    made.dispose()
    assert SECRET not in every and TOKEN not in every
    # without --record: what the store holds open is not posted; a resolved cause's new inputs are
    code, out = run(*args, "--notify", receiver.url)
    assert code == 1 and len(receiver.received) == 1, out


def test_the_documented_check_verifies_a_delivery(receiver: Receiver) -> None:
    """docs/monitor.md's receiver function, run on what a real delivery carried."""
    import re

    doc = (Path(__file__).parent.parent / "docs" / "monitor.md").read_text(encoding="utf-8")
    snippet = re.search(r"<!-- webhook-check -->\n```python\n(.*?)```", doc, re.DOTALL)
    assert snippet is not None
    space: dict[str, Any] = {}
    exec(compile(snippet.group(1), "monitor.md", "exec"), space)
    verified = space["verified"]
    assert webhook.Sender(receiver.url, SECRET.encode(), "json", 30).send(GROUP, 1, "a.db").delivered
    lowered, data = receiver.received[0]
    headers = {name: lowered[name.lower()] for name in ("X-Referee-Timestamp", "X-Referee-Signature")}
    assert verified(SECRET.encode(), headers, data)
    assert not verified(b"another", headers, data)
    assert not verified(SECRET.encode(), headers, data + b" ")
    assert not verified(SECRET.encode(), {**headers, "X-Referee-Timestamp": "1000"}, data)  # an old one again
