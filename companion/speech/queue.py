"""What the voice says next, while it is busy saying something: pure, no clock, no thread.

A table's news come faster than a voice says them (a card refused, the card laid instead, the turn passing on, all
within a second). What is worth hearing is the newest state, not a backlog: a refusal is said before any turn
announcement, a newer refusal replaces an older one (the player moved on), a result (a renuncio, a hand, a set, a
game won) is never dropped, and a turn announcement or a notice goes stale as soon as a ruling or a newer turn
comes::

    >>> from companion.speech.sentences import Utterance, Weight
    >>> queue = Queue()
    >>> for text, weight in [("Ana, your turn.", Weight.TURN), ("Not that card.", Weight.REFUSAL),
    ...                      ("Ana wins the hand.", Weight.RESULT), ("Luis, your turn.", Weight.TURN),
    ...                      ("Nor that one.", Weight.REFUSAL), ("Luis, your turn.", Weight.TURN)]:
    ...     queue.put(Utterance(text, weight, "en"))
    >>> [queue.take().text for _ in range(len(queue))]
    ['Nor that one.', 'Ana wins the hand.', 'Luis, your turn.']
"""

from __future__ import annotations

from companion.speech.sentences import Utterance, Weight

__all__ = ["Queue"]


class Queue:
    """The utterances waiting for the voice: the rulings (refusals, results) newest first, then the chatter."""

    def __init__(self) -> None:
        self._rulings: list[Utterance] = []  # in the order they came
        self._chatter: list[Utterance] = []

    def put(self, utterance: Utterance) -> None:
        if utterance.weight.ruling:
            self._chatter.clear()  # said before the ruling, it is stale after it
            if utterance.weight is Weight.REFUSAL:
                self._rulings = [said for said in self._rulings if said.weight is not Weight.REFUSAL]
            self._rulings.append(utterance)
            return
        if utterance.weight is Weight.TURN:  # one turn is ever worth saying: the newest
            self._chatter = [said for said in self._chatter if said.weight is not Weight.TURN]
        self._chatter.append(utterance)

    def take(self) -> Utterance:
        """The utterance to say next: the newest ruling, else the oldest chatter (the turn comes last, as it was
        put last). IndexError when none waits."""
        if self._rulings:
            return self._rulings.pop()
        return self._chatter.pop(0)

    def __len__(self) -> int:
        return len(self._rulings) + len(self._chatter)
