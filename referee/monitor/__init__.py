"""``referee monitor``: live return to player and deal randomness, watched over a store.

Why a package of its own: the statistics (:mod:`.exact`, :mod:`.cells`, :mod:`.bands`,
:mod:`.randomness`) are pure computations over seat facts, tested without a database;
:mod:`.reading` is the one module that reads a store; :mod:`.output` the one that
writes reports. ``docs/monitor.md`` explains every figure.
"""
