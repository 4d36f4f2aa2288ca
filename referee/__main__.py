"""``python -m referee``: the same as the ``referee`` command."""

from .start import main

main()
