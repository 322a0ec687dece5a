"""One process writes a journal at a time: a second one (another service, a second ``companion run``) is refused
with who holds it, and gets the journal once that one has gone. Two services on one journal each resumed its last
game and interleaved their plays in it, which the next start threw away as damaged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.journal import Entry, Journal, JournalDamaged, JournalInUse

HOLD = "import sys\nfrom companion.journal import *; j = Journal({path!r}); print('holding', flush=1); sys.stdin.read()"


def holder(path: Path) -> subprocess.Popen[str]:
    """Another process with the journal at ``path`` open for writing, until its stdin is closed."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(path=str(path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "holding\n"
    return process


def test_a_journal_another_process_writes_is_refused_naming_it_and_taken_once_it_has_gone(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    other = holder(path)
    try:
        journal = Journal(path, connect=False)
        with pytest.raises(JournalInUse) as refused:
            journal.new_game({"game": "seises"}, 1.0)
        said = str(refused.value)
        assert f"in use by another process (pid {other.pid}: -c)" in said and "stop it" in said, said
        assert journal.backlog == 0 and not journal.is_open
    finally:
        other.communicate("")
    game = journal.new_game({"game": "seises"}, 1.0)  # retried, as the table does every few seconds
    journal.append(game, Entry("action", "play 6O", 2.0))
    journal.close()
    assert [e.text for e in Journal.read_only(path).entries(game)] == ["play 6O"]


def opens_elsewhere(path: Path) -> bool:
    """Whether another process can open the journal at ``path`` for writing now."""
    tries = f"from companion.journal import *\ntry: Journal({str(path)!r})\nexcept JournalInUse: exit(3)"
    status = subprocess.run([sys.executable, "-c", tries], check=False).returncode
    assert status in (0, 3)
    return status == 0


def test_journals_of_one_process_share_its_lock_and_the_last_to_close_lets_it_go(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    first, second = Journal(path), Journal(path)  # the soak drops a table and starts another on the file
    first.close()
    assert not opens_elsewhere(path)
    second.close()
    assert opens_elsewhere(path)


def test_a_damaged_journal_set_aside_keeps_the_lock_until_the_new_one_is_closed(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(b"not a journal " * 300)
    journal = Journal(path, connect=False)
    with pytest.raises(JournalDamaged):
        journal.connect()
    journal.set_aside()
    assert not opens_elsewhere(path), "no other process starts a journal there meanwhile"
    journal.connect()
    journal.close()
    assert opens_elsewhere(path)
