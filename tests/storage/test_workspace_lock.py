"""The workspace lock: one writer, re-entrant in its own thread, and a waiter learns who writes."""

import threading

import pytest

from storage.workspace_lock import WorkspaceBusy, current_holder, holds_lock, workspace_lock


def test_a_second_writer_waits_then_gives_up_naming_the_first(tmp_path):
    waited = []
    outcome = {}

    def second() -> None:
        try:
            with workspace_lock(tmp_path, "`shelfwise run b.yaml`", 0.3, waited.append):
                outcome["ran"] = True
        except WorkspaceBusy as err:
            outcome["busy"] = str(err)

    with workspace_lock(tmp_path, "the nightly run", 5):
        assert holds_lock(tmp_path) and current_holder(tmp_path).what == "the nightly run"
        thread = threading.Thread(target=second)  # another thread waits like another process
        thread.start()
        thread.join()
    assert "ran" not in outcome and [h.what for h in waited] == ["the nightly run"]
    assert outcome["busy"].startswith(f"workspace {tmp_path} is busy: the nightly run (pid ")
    assert outcome["busy"].endswith("is writing it; gave up after 0.3 s")
    assert current_holder(tmp_path) is None and not holds_lock(tmp_path)


def test_the_holder_goes_on_inside_its_own_lock_and_keeps_it_until_the_outer_block_ends(tmp_path):
    with workspace_lock(tmp_path, "`shelfwise run a.yaml`", 1):
        with workspace_lock(tmp_path, "the run shelves-a", 0.1):  # the flow run inside the command
            assert current_holder(tmp_path).what == "`shelfwise run a.yaml`"
        assert holds_lock(tmp_path)
    assert not holds_lock(tmp_path)


def test_the_lock_is_released_when_the_block_raises(tmp_path):
    with pytest.raises(RuntimeError):
        with workspace_lock(tmp_path, "a writer", 1):
            raise RuntimeError("boom")
    with workspace_lock(tmp_path, "the next writer", 0.1):
        assert current_holder(tmp_path).what == "the next writer"
