"""What recall needs of a run: the index version, the books, the embedders, the settings and the switches."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from config.settings import Settings
from storage.index_store import IndexSnapshot
from tasks.language.embedders.base import Embedder
from tasks.model.books import BookRecord
from tasks.model.themes import StageSwitches
from tasks.recall.book_graph import NO_GRAPH, BookGraph
from tasks.recall.vector_search import VectorSearch
from tasks.understanding.subjects import NO_SUBJECTS, SubjectVocabulary


@dataclass(frozen=True)
class RecallContext:
    snapshot: IndexSnapshot
    books: Mapping[str, BookRecord]
    embedder: Embedder
    settings: Settings
    switches: StageSwitches = StageSwitches()
    e5_embedder: Embedder | None = None  # set when the index has the e5 path
    searches: Mapping[str, VectorSearch] = field(default_factory=dict)  # dense table -> its vector search
    # books linked by authors and tags, built when first asked for: only the named-entity intents walk it
    graph: Callable[[], BookGraph] = lambda: NO_GRAPH
    # books withdrawn from the catalog since the index was built: recalled by no path until the next build drops them
    withdrawn: frozenset[str] = frozenset()
    # the catalog's own subjects with their vectors: the subject path's headings near a matched topic
    subjects: SubjectVocabulary = NO_SUBJECTS

    @property
    def expand(self) -> bool:
        """Query expansion: the run's switch, else the setting."""
        chosen = self.switches.query_expansion
        return self.settings.expansion.enabled if chosen is None else chosen
