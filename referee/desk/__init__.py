"""The desk: ``referee serve``, a web application over an audit store (issue 48).

Where disputes are settled and tables watched: a floor manager finds a game by player,
table and time, reads its ruling card by card (English or French), prints the dispute
sheet and records the decision (a case); a risk analyst acknowledges the monitor's
alerts; an auditor uploads a log; an admin manages the accounts.

Why a package above ``store/`` and ``report/``: it only reads and writes through them
(the store's accounts, cases, access log and desk queries; the report's cards as SVG and
its dispute template), so a ruling on the desk is the one ``explain`` gives. Nothing
below imports it; ``cli/serve.py`` starts it.

FastAPI, uvicorn, Jinja2, python-multipart and argon2-cffi are the optional extra
``referee[serve]``; nothing here is imported by another command.
"""

from __future__ import annotations

SERVE_EXTRA = "pip install 'referee[serve]'"
