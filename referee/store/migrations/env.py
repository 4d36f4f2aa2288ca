"""Alembic's environment for the store: migrations run on the connection the caller
passes in ``config.attributes["connection"]`` (``referee.store.migrate``); nothing here
reads a configuration file or sets up logging. Imported other than by Alembic (a
doctest run, a linter), it does nothing."""

from __future__ import annotations

from alembic import context

from referee.store.schema import metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("the store's migrations run through referee store upgrade")
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True,
                      transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # Alembic runs this file with its context set up
    run()
