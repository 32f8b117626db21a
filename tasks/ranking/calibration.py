"""A catalog's own relevance calibration, refitted from its curators' verdicts (`shelfwise tune --labels`).

The judged calibration (config/relevance.yaml, fitted on judged briefs) is the prior: a refit on one catalog's
verdicts (kept 1, dropped or replaced 0) pulls each weight toward its judged value (`fit_logistic`'s prior), so
that a few hundred verdicts move only what they say something about. Verdicts exist only for shelved books, those
the calibration in force put above the floor; the selection is on the evidence alone, so the refit's P(fit |
evidence) is not biased by it. The refitted calibration lives in the workspace, beside the catalog it was learned
on (`<workspace>/relevance.yaml`), and every run of that workspace reads it instead of the judged one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from storage.calibration_store import calibration_file, write_calibration_file
from tasks.ranking.relevance import FEATURES, KINDS, Calibration, Evidence, fit_logistic, read_calibration


def refit(calibration: Calibration, kind: str, evidence: Sequence[Evidence], kept: np.ndarray,
          strength: float) -> Calibration:
    """The calibration with `kind`'s weights refitted on the verdicts, held toward its own by `strength`."""
    prior = np.array([calibration.weights[kind].get(name, 0.0) for name in FEATURES])
    weights, intercept = fit_logistic(np.vstack([e.as_array() for e in evidence]), kept, strength,
                                      prior=(prior, calibration.intercepts[kind]))
    return Calibration({**calibration.weights, kind: dict(zip(FEATURES, (float(w) for w in weights)))},
                       {**calibration.intercepts, kind: intercept}, calibration.source, calibration.defined)


def log_loss(calibration: Calibration, kind: str, evidence: Sequence[Evidence], kept: np.ndarray) -> float:
    """The mean negative log-likelihood of the verdicts under the calibration."""
    p = np.clip(calibration.probability(evidence, kind), 1e-9, 1 - 1e-9)
    return float(-np.mean(kept * np.log(p) + (1 - kept) * np.log(1 - p))) if len(kept) else 0.0


def as_mapping(calibration: Calibration, source: str) -> dict:
    """The calibration as config/relevance.yaml holds it."""
    return {"fitted_on": source,
            "kinds": {k: {"intercept": round(float(calibration.intercepts[k]), 4),
                          "weights": {f: round(float(calibration.weights[k].get(f, 0.0)), 4) for f in FEATURES},
                          **({"defined": defined_mapping(calibration.defined[k])} if k in calibration.defined
                             else {})}
                      for k in KINDS}}


def defined_mapping(defined: tuple[float, float]) -> dict:
    """A kind's reading of defined books (`Calibration.defined`) as config/relevance.yaml holds it."""
    return {"slope": round(float(defined[0]), 4), "intercept": round(float(defined[1]), 4)}


def workspace_calibration(workspace: Path) -> Calibration | None:
    """The calibration learned from this workspace's verdicts, or None (the judged one holds)."""
    path = calibration_file(workspace)
    return read_calibration(path) if path.exists() else None


def save_workspace_calibration(workspace: Path, calibration: Calibration, source: str) -> Path:
    return write_calibration_file(workspace, as_mapping(calibration, source))

