"""A club of tables: each table publishes its game on an MQTT broker (docs/CLUB.md).

:mod:`companion.club.feed` turns the journal into the table's events, each with its stable id, from a cursor kept
in the journal; :mod:`companion.club.publisher` sends them, and the game's state, to the broker.
"""
