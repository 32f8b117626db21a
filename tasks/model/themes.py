"""A theme (one brief of a batch), the earlier shelves it is read against, and a run's stage switches."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from tasks.model.conditions import FilterCondition, NumericCondition

LANGUAGE_PREFERENCES = ("first", "only", "any")  # books in the brief's language: first, only, or no preference


@dataclass(frozen=True)
class Theme:
    """A curator's theme brief, one of a batch."""

    batch_id: str
    theme_id: str
    theme_name: str
    slogan: str = ""
    description: str = ""
    target_vibe: str = ""
    position: int = 0  # order within the batch; earlier themes claim books first
    status: str = "pending"  # pending | done | needs_review | failed
    language_preference: str = ""  # books in the brief's language: first | only | any; "": the batch's choice

    @property
    def brief(self) -> str:
        """The whole brief as one text."""
        return "\n".join(p for p in (self.theme_name, self.slogan, self.description, self.target_vibe) if p)


@dataclass(frozen=True)
class HistoryShelf:
    """A shelf delivered earlier, as de-duplication and references see it."""

    batch_id: str
    theme_id: str
    brief: str
    conditions: tuple[FilterCondition, ...]
    book_ids: tuple[str, ...]
    numeric: tuple[NumericCondition, ...] = ()  # its year, page or rating ranges
    position: int = 0  # the theme's place in its batch
    batch_started: datetime | None = None  # when its batch first ran
    recent: bool = True  # within history.days (or of this batch): its books are not shelved again for a similar brief


RECALL_PATHS = ("vector", "bm25", "e5")  # e5 runs only where the index was built with index.e5_path


@dataclass(frozen=True)
class StageSwitches:
    """Which optional stages a run uses: one record for the CLI, the flows, a batch's stored choice and eval.

    None keeps what the settings say. A batch stores its curator-facing switches (sentence rerank, query
    expansion, language preference) so that its reruns give the same shelves; the others exist for evaluation.
    """

    sentence_rerank: bool | None = None
    query_expansion: bool | None = None
    language_preference: str | None = None  # first | only | any (shelf.language_preference when None)
    paths: tuple[str, ...] = RECALL_PATHS
    bm25_randomness: float | None = None  # None: recall.bm25_randomness
    rerank: bool = True  # the configured HTTP reranker, if any

    def over(self, stored: StageSwitches) -> StageSwitches:
        """These switches, with the stored batch choice where these leave a curator switch open."""
        return replace(self, sentence_rerank=_first_set(self.sentence_rerank, stored.sentence_rerank),
                       query_expansion=_first_set(self.query_expansion, stored.query_expansion),
                       language_preference=_first_set(self.language_preference, stored.language_preference))


def _first_set(*choices: bool | str | None) -> bool | str | None:
    return next((c for c in choices if c is not None), None)
