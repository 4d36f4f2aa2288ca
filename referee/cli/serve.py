"""``referee serve``: the desk (issue 48), a web application over an audit store, on uvicorn."""

from __future__ import annotations

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
def serve(store: str, host: str, port: int, forwarded: str, max_upload: int | None) -> None:
    """Serve the desk over the store: find games, read their rulings, record cases, watch
    the alerts (a login needed: referee users add NAME --role ROLE --store URL)."""
    try:
        import uvicorn

        from ..desk.app import create_app
    except ImportError as err:
        raise UserError(f"referee serve needs FastAPI and uvicorn ({err.name} is missing): "
                        "pip install 'referee[serve]'") from None
    app = create_app(store, max_upload=max_upload)
    click.echo(f"referee desk: http://{host}:{port}/ over {app.state.desk.backend.target.shown}", err=True)
    uvicorn.run(app, host=host, port=port, proxy_headers=True, forwarded_allow_ips=forwarded, workers=1,
                log_level="warning", server_header=False, date_header=True)
