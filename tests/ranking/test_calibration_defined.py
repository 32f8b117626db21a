"""A brief its hard conditions define: its books fit as often as books its weights read so do (issue 29)."""

import numpy as np
import pytest

from benchmarks.fit_relevance import defined_of, left_out_probabilities, rule_columns, weighed_rows
from tasks.ranking.calibration import as_mapping, refit
from tasks.ranking.relevance import (
    DEFINED,
    KINDS,
    NAMED,
    RELEVANCE_FILE,
    Calibration,
    Evidence,
    fit_defined,
    probabilities,
    read_calibration,
    standing,
)


def test_a_defined_book_fits_as_often_as_its_evidence_says_not_by_definition():
    weights = Calibration({k: {"vector_z": 1.0} for k in KINDS}, {k: 0.0 for k in KINDS},
                          defined={"tag_blind": (1.0, 2.0)})
    weak, strong = Evidence(vector_z=-2.0, defined=True), Evidence(vector_z=2.0, defined=True)
    blind = probabilities(weights, [weak, strong, Evidence(vector_z=-2.0, named=1.0)], "tag_blind")
    # the weights' log-odds -2 and 2, read as -2 + 2 and 2 + 2: a defined book is likelier than its weights say,
    # and the less its record says of the brief the less likely; a named book's still fits by definition
    assert blind == pytest.approx([0.5, 1 / (1 + np.exp(-4.0)), 1.0])
    # a kind the calibration has no reading for keeps the rule: every book meeting the conditions fits
    assert list(probabilities(weights, [weak, strong], "tagged")) == [1.0, 1.0]
    assert standing(weak, 0.1) == DEFINED and standing(Evidence(named=1.0), 0.1) == NAMED


def test_the_reading_of_defined_books_is_fitted_on_them_alone_and_kept_with_the_weights():
    rng = np.random.default_rng(29)
    weighed = rng.uniform(0.05, 0.95, 3000)
    truth = 1 / (1 + np.exp(-(1.0 + 0.5 * np.log(weighed / (1 - weighed)))))
    labels = (rng.random(3000) < truth).astype(float)
    slope, intercept = fit_defined(weighed, labels)
    assert slope == pytest.approx(0.5, abs=0.15) and intercept == pytest.approx(1.0, abs=0.15)
    assert fit_defined(weighed[:5], np.ones(5)) is None  # all fitting says nothing of how
    # the benchmarks' rows: only the defined candidates are read; an untied one weighs 0
    evidence = [Evidence(defined=True), Evidence(defined=True), Evidence(untied=True), Evidence()]
    untied, defined = rule_columns(evidence)
    assert list(untied) == [False, False, True, False] and list(defined) == [True, True, False, False]
    x = np.array([[2.0], [-2.0], [5.0], [5.0]])
    rows = [("b", x, np.array([1.0, 0.0, 0.0, 0.0]), [], untied, defined)]
    p = weighed_rows(rows, np.array([1.0]), 0.0)[0]
    assert p[2] == 0.0 and p[3] == pytest.approx(1 / (1 + np.exp(-5.0)))
    assert defined_of(rows, [p])[0] > 0  # the book the weights liked more is the one that fits


def test_a_briefs_defined_books_are_read_left_out_by_the_other_briefs_defined_books():
    rng = np.random.default_rng(7)
    rows = []
    for brief in range(6):
        x = rng.normal(size=(40, 1))
        labels = (rng.random(40) < 1 / (1 + np.exp(-2 * x[:, 0]))).astype(float)
        defined = np.full(40, brief % 2 == 0)
        rows.append((str(brief), x, labels, [], np.zeros(40, bool), defined))
    out = left_out_probabilities(rows)
    # an undefined brief's candidates are the weights' alone; a defined one's differ from them
    from benchmarks.fit_relevance import fit_rows

    w, b = fit_rows(rows[:1] + rows[2:])
    assert np.allclose(out[1], weighed_rows([rows[1]], w, b)[0])
    w, b = fit_rows(rows[1:])
    assert not np.allclose(out[0], weighed_rows([rows[0]], w, b)[0])


def test_a_refit_keeps_the_reading_of_defined_books_and_writes_it_back():
    calibration = Calibration({k: {"cover": 1.0} for k in KINDS}, {k: -1.0 for k in KINDS},
                              defined={"tagged": (0.7, 1.2)})
    kept = refit(calibration, "tag_blind", [Evidence(cover=1.0), Evidence()], np.array([1.0, 0.0]), 1.0)
    assert kept.defined == {"tagged": (0.7, 1.2)}
    mapping = as_mapping(kept, "test")
    assert mapping["kinds"]["tagged"]["defined"] == {"slope": 0.7, "intercept": 1.2}
    assert "defined" not in mapping["kinds"]["tag_blind"]

