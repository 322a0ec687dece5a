"""The voice's queue against what is worth saying: a burst of news while the voice is busy says the newest ruling
next, never loses a result, and keeps only the newest turn, and only while nothing newer came."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.speech.queue import Queue
from companion.speech.sentences import Utterance, Weight

# A step: put an utterance of that weight, or take the next one (None): the voice is free again.
STEPS = st.lists(st.one_of(st.sampled_from(list(Weight)), st.none()), max_size=60)

Said = list[tuple[int, Utterance]]  # (the step it was put or taken at, the utterance)


def run(steps: list[Weight | None]) -> tuple[Said, Said]:
    """What was put, and what was taken, at which step; what is left at the end is taken then, in order."""
    queue = Queue()
    put: Said = []
    taken: Said = []
    for index, step in enumerate(steps):
        if step is None:
            if len(queue):
                taken.append((index, queue.take()))
            continue
        utterance = Utterance(f"#{index}", step, "en")
        put.append((index, utterance))
        queue.put(utterance)
    taken += [(len(steps), queue.take()) for _ in range(len(queue))]
    return put, taken


@given(STEPS)
def test_a_result_is_never_dropped(steps: list[Weight | None]) -> None:
    put, taken = run(steps)
    said = {utterance for _step, utterance in taken}
    assert {utterance for _step, utterance in put if utterance.weight is Weight.RESULT} <= said
    assert len(said) == len(taken), "nothing is said twice"


@given(STEPS)
def test_the_newest_ruling_is_said_next(steps: list[Weight | None]) -> None:
    put, taken = run(steps)
    for k, (at, utterance) in enumerate(taken):
        said = {u for _step, u in taken[:k]}
        rulings = [u for step, u in put if step < at and u.weight.ruling and u not in said and _fresh(u, put, at)]
        if rulings:
            assert utterance is rulings[-1], (steps, at)


@given(STEPS)
def test_stale_chatter_and_older_refusals_are_dropped(steps: list[Weight | None]) -> None:
    put, taken = run(steps)
    for at, utterance in taken:
        put_at = next(step for step, u in put if u is utterance)
        between = [u.weight for step, u in put if put_at < step < at]
        if utterance.weight is Weight.TURN:
            assert not any(w is Weight.TURN or w.ruling for w in between), "a newer turn or a ruling makes it stale"
        elif utterance.weight is Weight.NEWS:
            assert not any(w.ruling for w in between), "a newer ruling makes it stale"
        elif utterance.weight is Weight.REFUSAL:
            assert Weight.REFUSAL not in between, "a newer refusal replaces it"


@given(STEPS)
def test_the_chatter_that_is_left_is_said_in_the_order_it_came(steps: list[Weight | None]) -> None:
    put, taken = run(steps)
    order = {u: step for step, u in put}
    chatter = [u for _at, u in taken if not u.weight.ruling]
    assert [order[u] for u in chatter] == sorted(order[u] for u in chatter)


def _fresh(utterance: Utterance, put: Said, at: int) -> bool:
    """Whether a ruling ``utterance`` was not replaced by a newer refusal before step ``at``."""
    put_at = next(step for step, u in put if u is utterance)
    replaced = any(u.weight is Weight.REFUSAL for step, u in put if put_at < step < at)
    return not (utterance.weight is Weight.REFUSAL and replaced)


def test_a_burst_keeps_the_newest_refusal_the_results_and_the_last_turn() -> None:
    queue = Queue()
    burst = [
        ("Ana, your turn.", Weight.TURN),
        ("Not that card.", Weight.REFUSAL),
        ("Ana wins the hand.", Weight.RESULT),
        ("Luis, your turn.", Weight.TURN),
        ("Nor that one.", Weight.REFUSAL),
        ("Luis, your turn.", Weight.TURN),
    ]
    for text, weight in burst:
        queue.put(Utterance(text, weight, "en"))
    assert [queue.take().text for _ in range(len(queue))] == ["Nor that one.", "Ana wins the hand.", "Luis, your turn."]
