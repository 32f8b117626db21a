"""The retrieval sets' queries (BEIR: scifact's claims, cmrc2018's questions) as the ranker takes them.

A claim or a question is not a brief: its "does not" states a fact ("Headaches are not correlated with …"), its
"cold" is a temperature, its numbers and single letters are what it is about ("1,000 genomes", "N-terminal"), and
a question about the world ("日本是如何避免地震伤亡的？") excludes no books. So `shelfwise eval --mode full` does not
read it with the brief grammar (tasks/understanding/reading.py, which knows briefs only): its query is the text
itself, whole, for BM25 and the dense paths; no condition. (Its content words, deduplicated and capped at 20 as a
brief's keywords are, lost the repeats and the tail of long claims: scifact full 0.7006 against 0.7015 whole.)
"""

from __future__ import annotations

from tasks.language.text_analysis import detect_language
from tasks.model.query import ThemeQuery

TRANSLATOR = "retrieval query"


def retrieval_query(text: str) -> ThemeQuery:
    """A claim's or a question's query: the text whole, for every path."""
    language = detect_language(text)
    return ThemeQuery((), (text,), text, 1.0, TRANSLATOR, language)
