"""The retrieval sets' queries (BEIR: scifact's claims, cmrc2018's questions) as the ranker takes them.

A claim or a question is not a brief: its "does not" states a fact ("Headaches are not correlated with …"), its
"cold" is a temperature, its numbers and single letters are what it is about ("1,000 genomes", "N-terminal"), and
a question about the world ("日本是如何避免地震伤亡的？") excludes no books. So `shelfwise eval --mode full` does not
read it with the brief grammar (tasks/understanding/reading.py, which knows briefs only): its query is the text's
own words, most telling first, and the text itself for the dense paths; no condition.
"""

from __future__ import annotations

from tasks.language.text_analysis import detect_language
from tasks.model.query import ThemeQuery
from tasks.understanding.topics import ranked_words

TRANSLATOR = "retrieval query"


def retrieval_query(text: str) -> ThemeQuery:
    """A claim's or a question's query: its words as keywords, itself as the vector query."""
    language = detect_language(text)
    return ThemeQuery((), ranked_words([(text, False)], language), text, 1.0, TRANSLATOR, language)
