"""``referee serve``: the desk (issue 48), a web application over an audit store, on uvicorn."""

from __future__ import annotations

import functools
import os

import click

from ..errors import UserError
from .app import main


@main.command()
@click.option("--store", "store", metavar="URL", required=True,
              help="The audit store the desk serves: a SQLite file, or postgresql://... (docs/desk.md).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (loopback: put a TLS reverse proxy in front, docs/desk.md).")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option("--forwarded-allow-ips", "forwarded", metavar="IPS", default="127.0.0.1", show_default=True,
              help="The proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (comma-separated; the "
                   "session cookie is Secure when the request came over TLS, or through one that says so).")
@click.option("--max-upload", type=click.IntRange(min=1), default=None, metavar="BYTES",
              help="The largest upload taken [default: 64 MiB].")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes (each a Python interpreter of its own: on N cores, N of them serve N requests "
                   "at once; the sessions are kept in the store, so any worker honours any login).")
def serve(store: str, host: str, port: int, forwarded: str, max_upload: int | None, workers: int) -> None:
    """Serve the desk over the store: find games, read their rulings, record cases, watch
    the alerts (a login needed: referee users add NAME --role ROLE --store URL)."""
    try:
        import uvicorn

        from ..desk.app import create_app
    except ImportError as err:
        raise UserError(f"referee serve needs FastAPI and uvicorn ({err.name} is missing): "
                        "pip install 'referee[serve]'") from None
    app = create_app(store, max_upload=max_upload)  # the store opened here first: a refusal is said once, exit 2
    click.echo(f"referee desk: http://{host}:{port}/ over {app.state.desk.backend.target.shown}"
               + (f", {workers} workers" if workers > 1 else ""), err=True)
    run = functools.partial(uvicorn.run, host=host, port=port, proxy_headers=True, forwarded_allow_ips=forwarded,
                            log_level="warning", server_header=False, date_header=True)
    if workers == 1:
        run(app, workers=1)
        return
    app.state.desk.backend.close()
    from ..desk.app import STORE_ENV, UPLOAD_ENV

    os.environ[STORE_ENV] = store  # each worker process makes its own app (uvicorn imports the factory by name)
    if max_upload is not None:
        os.environ[UPLOAD_ENV] = str(max_upload)
    run("referee.desk.app:from_environment", factory=True, workers=workers)
