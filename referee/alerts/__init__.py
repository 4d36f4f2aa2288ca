"""Alert operations (issue 47): the alert groups the monitor keeps in the store, what
people do about them (``referee alerts ack|resolve``) and their delivery to a webhook
(``monitor --notify``).

Why a package of its own: the monitor decides (``referee.monitor``); these keep, show and
send what it decided, and each is a row appended to a chained table of the store
(``referee.store.chains``), so an acknowledgement edited or deleted later is found by
``store verify`` as an alert is.
"""
