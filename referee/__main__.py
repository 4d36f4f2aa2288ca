"""``python -m referee``: the same as the ``referee`` command."""

from .cli import entry

entry()
