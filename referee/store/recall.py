"""``recall --store``: the rounds asked for, from stored results, in milliseconds.

Why not a replay: the balance of a round depends on every round before it in its
session, and a session may be a million rounds long; the store keeps each round's
result (its ruling, balance, status, findings and record), so recall reads the few
rounds it shows. It finds them with the store's indexes (by game, round number, time,
player, session), then hands them, in order, to :class:`referee.recall.Selector` and
builds each view with :mod:`referee.recall`'s own functions: the windows, the rows and
the rulings are those recalled from the files, the rows being rebuilt from what the
audit gave (``view_of``, ``seat_views``).

Stream order is the store's: sources in the order they were stored, rows in file
order; recall over the same files named in that order gives the same answer.

Finding the rounds asked for is :mod:`referee.store.recall_find`'s, rebuilding their
views :mod:`referee.store.recall_load`'s.
"""

from __future__ import annotations

from ..recall import Query, Recall, _check
from . import DAMAGED, StoreError
from .read import Stored
from .recall_find import Finder


def recall(stored: Stored, query: Query, names: tuple[str, ...] = ()) -> Recall:
    """The windows ``query`` asks for among the stored sources (``names``: only those)."""
    sources = stored.sources(names)
    found = Recall(query, [], len(sources))
    found.sessions = sum(s.sessions for s in sources)
    found.rounds = sum(s.seats for s in sources)
    found.store = stored.target.shown
    finder = Finder(stored, [s.id for s in sources] if names else None, query)
    with stored.reading():
        try:
            finder.answer(found)
        except DAMAGED as err:  # a stored record that no longer decodes: changed after it was stored
            raise _unreadable(stored, err, finder.loader.changed) from None
    found.changed = finder.loader.changed
    from ..report.recall import searched

    found.searched = searched(found)
    _check(found)
    return found


def _unreadable(stored: Stored, err: BaseException, changed: list[str]) -> StoreError:
    """The one line for a recall a changed record stopped: what failed, the changes found
    before it, and where to look."""
    shown = stored.target.shown
    seen = "".join(f"; {c}" for c in changed)
    return StoreError(f"store {shown}: a stored record cannot be read ({type(err).__name__}: "
                      f"{str(err).splitlines()[0] if str(err) else ''}){seen}; referee store verify {shown} "
                      "names every change")
