"""``python -m referee``: the same as the ``referee`` command."""

from .cli import main

main()
