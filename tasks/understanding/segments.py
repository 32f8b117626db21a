"""The one segmenter: a brief cut into clauses (at the language packs' clause ends) and words (jieba's bounds), once
per brief. The readers of a brief (its conditions and numbers, the scopes of its cues, its references to earlier
shelves) all read these cuts; none splits the brief on its own punctuation."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from tasks.understanding.cues import Cues, load_cues
from tasks.understanding.spans import word_bounds


@dataclass(frozen=True)
class Segmented:
    """A brief and where its clauses end: `ends` are the starts of its clause-ending marks, in order."""

    text: str
    ends: tuple[int, ...]
    mark_ends: tuple[int, ...]  # where each mark stops ("—" is one character, " – " three)

    @cached_property
    def clauses(self) -> tuple[tuple[int, int], ...]:
        """(start, end) of each clause; a clause starts at its mark, as the scopes have always counted."""
        bounds = sorted({0, len(self.text), *self.ends})
        return tuple((a, b) for a, b in zip(bounds, bounds[1:]) if b > a)

    def clause_of(self, at: int) -> tuple[int, int]:
        """The clause holding `at`, from just after the mark before it to the next mark."""
        i = bisect.bisect_left(self.ends, at)
        start = self.mark_ends[i - 1] if i else 0
        return start, self.ends[i] if i < len(self.ends) else len(self.text)

    def ends_at(self, at: int) -> bool:
        """Whether a clause-ending mark starts at `at`."""
        i = bisect.bisect_left(self.ends, at)
        return i < len(self.ends) and self.ends[i] == at

    def any_end(self, start: int, end: int) -> bool:
        """Whether a clause-ending mark starts in [start, end)."""
        i = bisect.bisect_left(self.ends, start)
        return i < len(self.ends) and self.ends[i] < end

    def clause_texts(self) -> list[str]:
        return [self.text[a:b] for a, b in (self.clause_of(at) for at in (0, *(e + 1 for e in self.ends)))
                if a <= len(self.text)]

    @property
    def words(self) -> frozenset[int]:
        """Where jieba puts word boundaries."""
        return word_bounds(self.text)


def segment(text: str, cues: Cues | None = None) -> Segmented:
    """The brief cut once: asked again by another reader of the same brief, the same cuts."""
    return _cut(text, (cues or load_cues()).clauses.end)


@lru_cache(maxsize=256)
def _cut(text: str, clause_end: re.Pattern) -> Segmented:
    found = list(clause_end.finditer(text))
    return Segmented(text, tuple(m.start() for m in found), tuple(m.end() for m in found))
