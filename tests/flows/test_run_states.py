"""What a batch's flow run ends in: Completed with needs_review named, or Failed naming each failed theme."""

from datetime import datetime

from prefect.states import Completed, Failed

from flows.generate_shelves import BatchResult, ShelvingFailed, batch_state, nightly_state, switch_value
from tasks.intake.themes import new_batch_id
from tasks.intake.themes import id_problem


def result(statuses: dict[str, str], errors: dict[str, str] | None = None) -> BatchResult:
    return BatchResult("b1", "outputs/b1.xlsx", {t: 30 for t in statuses}, statuses, {}, errors or {})


def test_needs_review_completes_under_its_own_name_and_says_so():
    state = batch_state(result({"a": "done", "b": "needs_review"}))
    assert state.is_completed() and state.message == "batch b1: 2 of 2 themes shelved; needs review: b"
    assert state.name == "NeedsReview" and batch_state(result({"a": "done"})).name == "Completed"


def test_a_failed_theme_fails_the_batch_naming_it_and_keeps_the_result():
    state = batch_state(result({"a": "done", "b": "failed"}, {"b": "IndexError: index 0 is out of bounds"}))
    assert state.is_failed()
    assert state.message == ("batch b1: 1 of 2 themes shelved; failed, kept pending for the next run: "
                             "b (IndexError: index 0 is out of bounds)")
    failure = state.result(raise_on_failure=False)
    assert isinstance(failure, ShelvingFailed) and failure.result.shelves == {"a": 30, "b": 30}


def test_the_nightly_fails_when_its_build_or_a_batch_failed_and_names_them():
    done = Completed(message="batch a: 1 of 1 themes shelved")
    assert nightly_state(done, {"a": done}).message == "batches shelved: a"
    review = Completed(name="NeedsReview", message="batch b: 1 of 1 themes shelved; needs review: t")
    waiting = nightly_state(done, {"a": done, "b": review})
    assert (waiting.name, waiting.message) == ("NeedsReview", "batches shelved: a, b; needs review: b")
    state = nightly_state(Failed(message="disk full"), {"a": done, "b": Failed(message="batch b: 0 of 1")})
    assert state.is_failed()
    assert state.message == "batches shelved: a; failed: index build: disk full | batch b: batch b: 0 of 1"


def test_a_new_batch_from_the_form_is_dated_unique_and_a_valid_id():
    first, second = new_batch_id(datetime(2026, 11, 23, 14, 5)), new_batch_id(datetime(2026, 11, 23, 14, 5))
    assert first.startswith("2026-11-23-1405-") and first != second and id_problem(first) is None


def test_command_line_switches_map_to_the_forms_three_choices():
    assert [switch_value(v) for v in (None, True, False)] == ["default", "on", "off"]
