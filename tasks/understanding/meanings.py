"""Meaning, not lists: the open classes (feelings, the kind of reading an occasion or a setting asks for) read from
what a span of the brief means, beside the packs' exact words. "Hope-filled", "心如止水", "rainy-day reads" are in
no list; the brief embedder puts them near a value's own words and the packs' everyday words for it.

A span is a wanted stretch of the brief (nothing excluded, nothing about the reader, no number, nothing read
already): each clause and the short runs of words inside it. A span names a value where its likeness to one of the value's words reaches the threshold
(chosen on the first fresh fragment batch, checked on the second: benchmarks/fragments/README.md), and where the
brief wishes no value of that dimension already.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from config.vocabulary import Vocabulary
from tasks.language.embedders.base import Embedder
from tasks.understanding.analysis import Segmented, segment
from tasks.understanding.cues import Cues
from tasks.understanding.reading import WANTED, Mention, Reading

# The dimensions of the open classes: how a book feels, how it is written, when it is read. Topics, places and
# kinds of book are matched by their own words and by the catalog's subjects (subjects.py), never by likeness.
MEANT = ("emotional_tone", "text_texture", "reading_context")
# Cosine (the shipped USE embedder) at or above which a span names a value: the lowest at which the first fresh
# batch gains no value its fragments do not expect (0.88 read "loved" as romantic, 0.82 "hearts of" as warm; none of
# its 160 fragments gained an expected one at any threshold); on the second batch 5 added at it, 3 of them expected
# ("humor", "read-aloud", "rainy-day") and two no fragment asks for ("榜样力量的" hopeful, "忘掉烦恼" for a troubled mind)
THRESHOLD = 0.9
_LATIN = re.compile(r"[A-Za-z][A-Za-z'-]*")
_CJK = re.compile(r"[\u3400-\u9fff]+")


def _spans(seg: Segmented) -> list[tuple[int, int]]:
    """Each clause of the brief (as the one analysis cuts it), and the runs of one to three words in it: Latin words,
    or one or two of jieba's words of two characters or more (never a stretch across a word's edge: "生热" in
    "国小生热门")."""
    text, out = seg.text, []
    bounds = sorted(seg.words)
    for a, b in seg.clauses:
        letters = [i for i in range(a, b) if text[i].isalnum()]
        if letters:  # the clause without its mark and spaces
            out.append((letters[0], letters[-1] + 1))
        words = [(m.start(), m.end()) for m in _LATIN.finditer(text[:b], a)]
        out += [(words[i][0], words[j][1]) for i in range(len(words)) for j in range(i, min(i + 3, len(words)))]
        for run in _CJK.finditer(text[:b], a):
            cuts = [run.start()] + [x for x in bounds if run.start() < x < run.end()] + [run.end()]
            out += [(cuts[i], cuts[j]) for i in range(len(cuts) - 1) for j in (i + 1, i + 2)
                    if j < len(cuts) and cuts[j] - cuts[i] >= 2]
    return list(dict.fromkeys(out))


_PROTOTYPES: dict[tuple[int, int, int], tuple[list[tuple[str, str]], np.ndarray]] = {}


def _prototypes(embedder: Embedder, vocabulary: Vocabulary, cues: Cues) -> tuple[list[tuple[str, str]], np.ndarray]:
    """(dimension, value) of each word of a value (its name, its aliases, the packs' everyday words) or a kind of
    book, and their vectors, made once per embedder (the run's one embedder, vocabulary and packs)."""
    key = (id(embedder), id(vocabulary), id(cues))
    if key in _PROTOTYPES:
        return _PROTOTYPES[key]
    owners: list[tuple[str, str]] = []
    words: list[str] = []
    for dimension in vocabulary.dimensions:  # every value: a span nearer a topic's or a genre's word is no feeling
        for value in dimension.values:
            said = (value.name, *value.aliases, *cues.readings.values.get(value.name, ()))
            for word in dict.fromkeys(said):
                owners.append((dimension.name, value.name))
                words.append(word)
    for kind in vocabulary.kinds:
        for word in kind.words:
            owners.append((kind.facet, kind.name))
            words.append(word)
    _PROTOTYPES[key] = owners, embedder.embed_queries(words)
    return _PROTOTYPES[key]


def with_meanings(reading: Reading, embedder: Embedder, vocabulary: Vocabulary, cues: Cues,
                  threshold: float = THRESHOLD) -> Reading:
    """The reading with a wanted value for each meant dimension the brief names by meaning only: the best span of
    a dimension the brief wishes no value of, where it reaches the threshold."""
    named = {m.field for m in reading.mentions if m.polarity == WANTED}  # "温馨的…，别太悲伤": one excluded, one wished
    if all(d in named for d in MEANT):
        return reading
    blank = reading.excluded_spans + reading.reader_spans + reading.number_spans + reading.name_spans
    text = cues.without_wanting(reading.text)  # "who loves dinosaurs" means dinosaurs, not a love story
    spans = [(a, b) for a, b in _spans(segment(text, cues))
             if not any(x < b and a < y for x, y in blank)
             and not any(m.start < b and a < m.end for m in reading.mentions)]  # what is read is not read again
    if not spans:
        return reading
    owners, prototypes = _prototypes(embedder, vocabulary, cues)
    likeness = embedder.embed_queries([text[a:b] for a, b in spans]) @ prototypes.T
    best: dict[str, tuple[float, Mention]] = {}
    for i, j in enumerate(likeness.argmax(axis=1)):  # the value a span is nearest, where that is a meant one
        dimension, value = owners[j]
        score = float(likeness[i, j])
        if dimension not in MEANT or score < threshold:
            continue
        if dimension not in named and score > best.get(dimension, (0.0, None))[0]:
            best[dimension] = (score, Mention(*spans[i], dimension, value, WANTED))
    if not best:
        return reading
    mentions = tuple(sorted((*reading.mentions, *(m for _, m in best.values())), key=lambda m: m.start))
    return replace(reading, mentions=mentions)
