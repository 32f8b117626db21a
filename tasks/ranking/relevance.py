"""Relevance: how likely each candidate fits the brief's topic, from the evidence the paths already have.

A fused score only orders books: the 30th book of a list is there whatever it scores, and a shelf padded to its
size with books that share one stray word with the brief, or sit near it in vector space, had said "done". Here
each candidate gets a probability, fitted by logistic regression on judged briefs (benchmarks/fit_relevance.py
writes config/relevance.yaml), one set of weights per catalog kind: a catalog whose books carry our vocabulary's
tags, and one whose tags are guesses. The evidence, one number each:

- `vector_z`: the book's similarity to the brief against the brief's similarity to every book of the catalog (a
  z-score): a raw cosine of 0.4 is near for one brief and far for another;
- `sentence`: its summary sentence closest to the brief;
- `cover`: the share of the brief's content words (BM25's tokens, IDF-weighted) its indexed text holds, so that
  one stray word of a long brief counts for little;
- `heading`: the share of them its subject headings, tags and class captions hold;
- `facet`: how surely it holds the vocabulary values the brief wishes for (0 where the brief wishes for none);
- `bm25_rank`, `vector_rank`: its place on each path's own list;
- `fused`: its fused score against the best candidate's, and `position`: its place in the order the shelf
  takes them (after the wishes, the doubts and the reranks);
- `narrowed`: how far the brief's hard conditions narrowed the catalog (-log10 of the share of books meeting
  them): among the few short non-fiction books or the few plays of a catalog, most candidates fit; but not a book
  lacking every subject the brief's topics matched (`subject_absent`), which the catalog files apart from the topic:
  on "Seafaring adventures for kids" the children's classics under no sea or adventure heading had stood at 0.4-0.8
  on the narrowing alone (0 for such a book; the weights are as fitted with the narrowing on every book, not refitted:
  on the dev sets shelved wrong fell on 15 of 22 runs and rose on 1, nDCG fell by up to 0.05 on the demo's);
- `named`: an intent path found it for what the brief names (the author, the series, new arrivals), and
  `linked`: for the book the brief names (its neighbours, the books it shares authors or tags with);
- the catalog's own subjects it carries among those the brief's topics matched (`SubjectEvidence`, the subject path):
  `subject_required` and `subject_preferred`, the strongest match's strength of each role (1 the same words, a vector
  match its similarity); `subject_lexical`, whether a match was by the topic's words or other names, not by meaning
  alone; `subject_specific`, how few books carry its most specific subject (1 - log(1 + n) / log(1 + catalog): a
  heading of 3 books says more than one of 300); `subject_absent`, the brief's topics matched subjects of the
  catalog and the book carries none of them;
- `doubtful`: the order marked it doubtful: a children's book on a brief for adults, or a guess says it may hold a
  value the brief excludes (tasks/ranking/fusion.py).

One more fact is no weight but a rule, `untied`: on a theme shelf (a brief that names no book, author or series),
the brief's topics matched subjects of the catalog by their words (the same words, a heading holding them, a mapped
term), the book carries none of the matched subjects and none of the topics' own words is in its text or its headings
(the brief's other content words tie nothing: "club" and "start" of "Our sci-fi club wants the old utopias - where
did it all start?" had kept 11 space adventures on a utopias shelf); what ties it to the brief is the vector alone.
Such a book does not fit (probability 0): the catalog files the topic, and not under this book. Of the books the
calibration put above the floor on the judged dev briefs, books with no subject and no word where the topics matched
some fitted 5 of 38 times (tagged demo) and 5 of 28 (Gutenberg), where books with subject evidence fitted 68% and 78%.
A match by meaning alone is no such filing ('古典文学' met the Greek and Latin 'Classical literature' of an English
catalog, whose Chinese novels carry no such heading), and a read-alike's topic is its book, which the books like it
need not carry. Nor where the brief's hard conditions leave at most a tenth of the catalog (`FEW_ALLOWED`): among the
few books of the kind asked for, a topic colours the shelf more than it decides it ("the bedtime shelf again, English
books only" over children's books, 'Bedtime' a heading of one book), unless at least FILED_AMONG of those few carry a
subject the topics matched by words: then the catalog files the topic among them too (a choose-your-own-adventure
shelf of children's books, a utopias shelf of science fiction). Where the topics match no subject by their
words, a book found by meaning alone is left to the weights: on the demo those are mostly books of the kind the
brief's conditions require (58% fit).

A third rule, `defined`: a theme brief that says nothing beyond its hard conditions ("Contemporary fiction only:
nothing published before 2000", "奇幻小说，除了托尔金以外的都可以") has no topic for a book to miss: every content word
of it names a value its conditions require, it wishes for nothing and its topics matched no subject. Every book
meeting those conditions meets it, as a named author's books fit a spotlight; but a book meets a required value by
its source's tag or a guess, which the curator reads by the record, and such books fitted 85% of the time on the
tagged demo's dev briefs and 90% on tag-blind catalogs, as low as 67% on one shelf (2026-11-28). A calibration may
read their probability from the weights' (`Calibration.defined`, written by benchmarks/shelf_decision.py
--write-defined), on a scale fitted on defined books alone: the definition lifts them (the weights had read 'Not too
long, no poetry, fiction only' by the topical evidence it lacks, its 30 novels at 0.2-0.5), and what their record
says of the brief still tells one from another (54% fitted where the weights gave 0.2-0.4, 91% from 0.6). The shipped
calibration holds no such reading, so they stay at 1: it halved false "done" on the dev shelves but took nearly half
the true ones with it (docs/measurements.md).

Two more give a probability its least, where the weights read evidence a brief does not give. `said`: a genre, mood
or setting brief ("Quiet novels for a rainy night", "都市孤独症候群") matches no heading, and its books had sat under
0.4, but its words name values a book can hold surely; the share of its words (beyond what its hard conditions
require) a book holds so, times how often a book holding all of them fits (`said_fit`); it reads the catalog's own
tags, and only where its source tagged its books (`tagged`): on a tag-blind catalog, whose values are guesses and
whose topics are headings, it lifted books that did not fit (Gutenberg's held-out briefs, 2026-11-27). `alike`: a
read-alike's topic is its book ("像《边城》那样的书", "Books like Dracula"), so its candidates are read by their likeness
to the named book's record on every kind of catalog (`likeness`): the share of its profile (values held surely,
subject headings and their parts) they hold too, the rarer weighing more, beside their vectors' nearness to its.

One more bounds it from above, `headless`: a brief with a title and a description ("Life and Drama at Sea" over
"The sea, a place of escape, adventure, tragedy and discovery ...") says its topic in its title and elaborates it
below; a book holding only a word of the elaboration (an adventure on land, a biography of a man on "Women's History
Month", a love story on "National Library Week") sat at 0.4-0.8 on its subject and its vector. Where the title names a
topic the catalog files (a subject matched by the word's own words), a book in the brief's language whose record says
none of the title's such words (text, headings, a matched subject it carries; on a tagged catalog, a value the word
names) is at most HEADLESS_FIT likely to fit. Of the dev books shelved at 0.4 that it capped (2026-11-28, in sample),
20 were wrong, 4 acceptable, none a good fit; without the restriction to filed topics, a title's slogan and occasion
words ("书香伴我成长", "话中秋", "Spooky classics") had capped 26 fitting books.

Which books a shelf may take is read from what each probability stands on (`standing`, `Admission`), not from the
probability alone: a probability of 0.5 that stands on a few of the brief's words is a different thing from 0.5 on a
book the vector sets far above the catalog. Each kind is admitted from the lowest band of probability whose books
fit more often than not, the shelf's floor's own test asked of each kind apart (benchmarks/shelf_decision.py's
admission table, on the 16 dev sets' shelves, 2026-11-28, in sample, books at or above the floor): a heading match
fitted 138 of 262 times at 0.4-0.5 and the vector alone 58 of 103, both from the floor; the brief's words alone 27 of
79 and 18 of 43 under 0.6, 58 of 84 from it, but a floor of 0.6 for them emptied the tag-blind demo's rainy night and
大脑重启 (two references of the 90 briefs then resolved to nothing): it is not in force. A book its values lift above
the weights is read by how many distinct things of its record say the brief (`said_values`, `AGREEING`): one value alone, a tag or an alias ('故乡' the setting
乡土小镇, '轻松' on a philosophy primer), fitted 1 of 19 times where the weights gave it under 0.1, 12 of 34 at 0.1-0.3
and 19 of 20 from 0.3, so it needs the weights' support; a read-alike's likeness (on every catalog kind, 2026-11-28,
benchmarks/alike_fit.py over every dev read-alike) 16 of 43 under 0.1, 26 of 63 at 0.1-0.2 and 44 of 64 from 0.2, and
one resting on guessed values (`Likeness.guessed`) 0 of 5 at any weights' probability, so it stands on none;
values of at least AGREE kinds agreeing (a quiet, melancholy, rainy-night book) 11 of 20 whatever the weights said,
so they need none. The shelf's floor (`ranking.relevance_floor`) stays every book's least; the admission acts
where `ranking.admission` is on.

The admission is fitted and read per catalog kind (`evidence_kind`, from the records as `catalog_kind` is): tagged
(our vocabulary's tags from the source), headed (the library's own headings or classes on most records), summarised
(neither). A heading is read apart from a stray word of one: a subject the brief's topics matched by their words, or
headings holding at least HEADING_HOLDS of the brief, is a heading match; one word of a long heading ('French' of a
history of French literature on a French Revolution shelf) a heading word. On the 16 dev sets (2026-11-28, in sample,
books from 0.4 on the shelves at 0.2) a heading match on headed catalogs fitted 45 of 90 times at 0.4-0.5, a heading
word 48 of 88, the vector alone 25 of 44: all from the floor; the brief's words alone 22 of 71 under 0.6, which earns
them 0.6 on headed catalogs as on tagged ones (8 of 21). Neither floor is in force (config/relevance.yaml says why):
the tag-blind demo's records are headed as Gutenberg's are (headings and classes on every record), and its rainy
night and 大脑重启 stand on one book of the brief's words each.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from config.settings import CONFIG_DIR
from config.vocabulary import Vocabulary
from config.yaml_files import read_yaml
from storage.index_store import IndexSnapshot
from tasks.model.books import BookRecord
from tasks.language.embedders.base import normalize
from tasks.language.text_analysis import bm25_tokens, token_set
from tasks.model.conditions import FilterCondition
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.subjects import PREFERRED_ROLE, REQUIRED_ROLE, SubjectEvidence, TopicSubjects, subject_keys
from tasks.recall.dense_scores import dense_scores
from tasks.understanding.cues import load_cues
from tasks.model.constraints import TERM_FIELDS

RELEVANCE_FILE = CONFIG_DIR / "relevance.yaml"
FEATURES = ("vector_z", "sentence", "cover", "heading", "facet", "bm25_rank", "vector_rank", "named", "linked",
            "fused", "position", "narrowed", "subject_required", "subject_preferred", "subject_lexical",
            "subject_specific", "subject_absent", "doubtful")
KINDS = ("tagged", "tag_blind")
NAMED_PATHS = ("entity", "recent")  # books asked for by name or by date
LINKED_PATHS = ("similar", "related")  # books linked to the book a brief names
MOMENT_ROWS = 20_000  # evenly spaced books the catalog's similarity distribution is estimated on
TAGGED_SHARE = 0.5  # a catalog whose source tagged at least this share of its books is "tagged"
HEADED_SHARE = 0.5  # one whose source gave subject headings or classes to at least this share is "headed"
# What a catalog's records give the admission to read (`evidence_kind`): our vocabulary's tags, the library's own
# headings or classes, or text alone
TAGGED, HEADED, SUMMARISED = "tagged", "headed", "summarised"
EVIDENCE_KINDS = (TAGGED, HEADED, SUMMARISED)
HEADING_HOLDS = 0.5  # the share of the brief's content weight a book's headings hold to carry its topic
TOPIC_DIMENSION = "genre"  # the vocabulary dimension whose values are topics
SAID_TRUST = 0.75  # how often a book holding all the brief's words say fits it (`said_fit`)
HEADLESS_FIT = 0.25  # the most a book saying none of the title's filed topics fits (4 of 24 dev books did)
FEW_ALLOWED = 1.0  # `narrowed` from which the hard conditions say what the books are: at most a tenth of the catalog
FILED_AMONG = 2  # candidates carrying a subject the topics matched by words, from which the few allowed file it too
# What a candidate's probability stands on (`standing`): first what the rules decide, then the weights' strongest evidence
NAMED, DEFINED, TITLE_CAPPED, UNTIED = "named", "defined", "title-capped", "untied"
SAID_FULL, SAID_PARTIAL, AGREEING = "said full", "said partial", "values agreeing"
ALIKE, ALIKE_GUESSED = "alike", "alike guessed"  # a likeness resting on sure values, or on guesses (`Likeness`)
HEADING, HEADING_WORD, WORDS, VECTOR = "heading match", "heading word", "words only", "vector only"
MEANT, UNFILED = "subject by meaning", "unfiled words"
STANDINGS = (NAMED, DEFINED, AGREEING, SAID_FULL, SAID_PARTIAL, ALIKE, ALIKE_GUESSED, TITLE_CAPPED, HEADING,
             HEADING_WORD, MEANT, WORDS, UNFILED, VECTOR, UNTIED)
WEIGHED = (HEADING, HEADING_WORD, MEANT, WORDS, UNFILED, VECTOR)  # the kinds the weights' evidence alone stands on
VALUES = (AGREEING, SAID_FULL, SAID_PARTIAL, ALIKE, ALIKE_GUESSED)  # lifted by the brief's values or a likeness
AGREE = 2  # distinct values or topics saying the brief's words that agree: one alone is a tag or an alias
# a read-alike's likeness (`likeness`): a book's profile beside its vector's nearness to the named book's
PROFILE_SUBJECT, FORM_DIMENSION = "subject", "form"  # a heading in a profile; the dimension of a book's form
NEAR_Z = 4.0  # the nearness (standard deviations over the catalog) from which a book's vector counts as whole
NEARNESS_SHARE = 0.25  # the share of the likeness its vector's nearness makes up
DEFINED_L2 = 1.0  # the penalty of `fit_defined`: two numbers on some 150 defined books per kind
LIKE_FULL = 0.8  # the blend of profile and nearness from which a book is as alike as `said_fit` reads a whole share
OTHERS_LEAST = 0.5  # how surely other books than the named ones hold a value, summed, for it to tell a book alike


@dataclass(frozen=True)
class Evidence:
    """One candidate's evidence, each a number (see the module's docstring)."""

    vector_z: float = 0.0
    sentence: float = 0.0
    cover: float = 0.0
    heading: float = 0.0
    facet: float = 0.0
    bm25_rank: float = 0.0
    vector_rank: float = 0.0
    named: float = 0.0
    linked: float = 0.0
    fused: float = 0.0
    position: float = 0.0
    narrowed: float = 0.0
    subject_required: float = 0.0
    subject_preferred: float = 0.0
    subject_lexical: float = 0.0
    subject_specific: float = 0.0
    subject_absent: float = 0.0
    doubtful: float = 0.0
    untied: bool = False  # not weighed features: the rules of the module's docstring
    unfiled: bool = False  # the catalog files the brief's topics under subjects (by their words or their meaning)
    # and this book carries none of them, on a theme shelf whose conditions leave most of the catalog
    defined: bool = False
    said: float = 0.0  # the share of the brief its vocabulary values say the book holds surely (`BriefValues`)
    said_values: int = 0  # how many distinct values and topics of the book say them: several agreeing, or one
    alike: float = 0.0  # a read-alike's: how alike the book is to the named book's record (`likeness`)
    alike_guessed: bool = False  # and that likeness rests more on guessed values than on sure ones
    headless: bool = False  # its record says none of the head's words the catalog's books say (`head_missing`)

    def as_array(self) -> np.ndarray:
        return np.array([getattr(self, name) for name in FEATURES], dtype=np.float64)


@dataclass(frozen=True)
class SimilarityDistribution:
    """The mean and covariance of the catalog's unit book vectors: a brief's mean similarity to the catalog is
    q·mean and its variance qᵀCq, without scoring every book for every brief."""

    mean: np.ndarray
    covariance: np.ndarray

    @classmethod
    def of(cls, matrix: np.ndarray) -> SimilarityDistribution:
        """Estimated on up to MOMENT_ROWS evenly spaced books."""
        rows = np.asarray(matrix[::max(1, len(matrix) // MOMENT_ROWS)], dtype=np.float64)
        if not len(rows):
            return cls(np.zeros(matrix.shape[1]), np.eye(matrix.shape[1]))
        rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        return cls(rows.mean(axis=0), np.cov(rows, rowvar=False, bias=True).reshape(rows.shape[1], rows.shape[1]))

    def z(self, query_vector: np.ndarray, similarities: np.ndarray) -> np.ndarray:
        """How many of the brief's standard deviations over the catalog each similarity stands above its mean."""
        q = np.asarray(query_vector, dtype=np.float64)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        spread = math.sqrt(max(float(q @ self.covariance @ q), 1e-12))
        return (np.asarray(similarities, dtype=np.float64) - float(q @ self.mean)) / spread


@dataclass(frozen=True)
class Calibration:
    """Logistic weights per catalog kind: P(fit) = 1 / (1 + exp(-(intercept + weights · evidence)))."""

    weights: Mapping[str, Mapping[str, float]]  # kind -> feature -> weight
    intercepts: Mapping[str, float]
    source: str = ""  # what it was fitted on
    # kind -> (slope, intercept): a book meeting a brief its hard conditions define, read by the weights' own
    # probability (`defined_probability`); a kind without one (the shipped calibration): every such book fits
    defined: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def probability(self, evidence: Sequence[Evidence], kind: str) -> np.ndarray:
        if not evidence:
            return np.zeros(0)
        w = np.array([self.weights[kind].get(name, 0.0) for name in FEATURES])
        logits = np.vstack([e.as_array() for e in evidence]) @ w + self.intercepts[kind]
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))


def defined_probability(reading: tuple[float, float] | None, weighed: float) -> float:
    """A defined book's probability by a kind's `reading` (slope, intercept) of the weights' probability (`weighed`:
    what its record says of the brief beside the definition); 1 without one. A source's tag or a guess meeting the
    conditions is no definition the curator shares: '传记' and '当代小说' books at 1 had made shelves "done" at 76% and
    67%."""
    if reading is None:
        return 1.0
    slope, intercept = reading
    return float(1.0 / (1.0 + np.exp(-(intercept + slope * logit(weighed)))))


def logit(p: float | np.ndarray) -> float | np.ndarray:
    """The log-odds of a probability, kept finite at 0 and 1."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def fit_defined(weighed: np.ndarray, labels: np.ndarray) -> tuple[float, float] | None:
    """The slope and intercept, on the log-odds of the weights' probability, of how often books meeting a brief its
    hard conditions define fit it (`Calibration.defined`); None where there are none, or all alike."""
    if len(labels) == 0 or np.all(labels == labels[0]):
        return None
    slope, intercept = fit_logistic(np.asarray(logit(np.asarray(weighed, dtype=np.float64)))[:, None], labels,
                                    DEFINED_L2)
    return float(slope[0]), intercept


def read_calibration(path: Path) -> Calibration:
    data = read_yaml(path) or {}
    kinds = data.get("kinds", {})
    missing = [k for k in KINDS if k not in kinds]
    if missing:
        raise ValueError(f"{path}: no calibration for catalog kind {', '.join(missing)}")
    return Calibration({k: {f: float(v) for f, v in kinds[k]["weights"].items()} for k in KINDS},
                       {k: float(kinds[k]["intercept"]) for k in KINDS}, str(data.get("fitted_on", "")),
                       {k: (float(kinds[k]["defined"]["slope"]), float(kinds[k]["defined"]["intercept"]))
                        for k in KINDS if "defined" in kinds[k]})


@lru_cache(maxsize=1)
def load_calibration() -> Calibration:
    return read_calibration(RELEVANCE_FILE)


def catalog_kind(books: Sequence[BookRecord]) -> str:
    """tagged where the source gave our vocabulary's tags to at least TAGGED_SHARE of the books."""
    tagged = sum(1 for b in books if b.tag_origin == "source")
    return "tagged" if books and tagged >= TAGGED_SHARE * len(books) else "tag_blind"


def evidence_kind(books: Sequence[BookRecord]) -> str:
    """What the catalog's records give a shelf's admission to read: TAGGED where its source tagged them
    (`catalog_kind`); HEADED where its source gave at least HEADED_SHARE of them subject headings or classes (a
    library's own filing: a book carrying the brief's topic among them is strong evidence, one holding the brief's
    words only in its text much weaker); SUMMARISED where the records have neither, their text all there is."""
    if catalog_kind(books) == "tagged":
        return TAGGED
    headed = sum(1 for b in books if b.subjects or b.classification)
    return HEADED if books and headed >= HEADED_SHARE * len(books) else SUMMARISED


def rank_weight(rank: int | None) -> float:
    """1 for the first book of a path's list, falling as 1/log2(rank + 1); 0 where the path did not list it."""
    return 1.0 / math.log2(rank + 1) if rank else 0.0


def heading_text(book: BookRecord) -> str:
    """What a curator recognises as the book's topic: its subject headings, tags and class-derived values."""
    tags = [v for values in book.tags.values() for v in values]
    return " ; ".join([*book.subjects, *tags, *(f.because for f in book.facets if f.because)])


def token_cover(tokens: Sequence[str], weights: Mapping[str, float], held: Set[str]) -> float:
    """The share of the tokens' weight the held tokens make up."""
    total = sum(weights.get(t, 0.0) for t in dict.fromkeys(tokens))
    return sum(weights.get(t, 0.0) for t in dict.fromkeys(tokens) if t in held) / total if total else 0.0


def facet_evidence(book: BookRecord, query: ThemeQuery) -> float:
    """How surely the book holds the values the brief wishes for (a SHOULD, or a MUST of several values), the
    mean over those conditions of its best value's confidence, less a half: 0 where the brief wishes for none."""
    wished = [c for c in query.filter_conditions
              if c.field not in TERM_FIELDS
              and (c.operator == "SHOULD" or (c.operator == "MUST" and len(c.values) > 1))]
    if not wished:
        return 0.0
    return float(np.mean([max(book.confidence(c.field, v) for v in c.values) for c in wished])) - 0.5


@dataclass(frozen=True)
class SubjectFeatures:
    """A book's subject evidence as numbers (see the module docstring)."""

    required: float = 0.0
    preferred: float = 0.0
    lexical: float = 0.0
    specific: float = 0.0
    absent: float = 0.0


def subject_features(evidence: Sequence[SubjectEvidence], matched: bool, catalog: int) -> SubjectFeatures:
    """The numbers of one book's subject evidence; `matched`: the brief's topics matched some subject of the
    catalog (a book carrying none of them then says so), `catalog` its count of books."""
    if not evidence:
        return SubjectFeatures(absent=float(matched))
    scale = math.log1p(max(catalog, 1))
    return SubjectFeatures(
        required=max((e.strength for e in evidence if e.role == REQUIRED_ROLE), default=0.0),
        preferred=max((e.strength for e in evidence if e.role == PREFERRED_ROLE), default=0.0),
        lexical=float(any(e.how != "vector" for e in evidence)),
        specific=max(max(0.0, 1.0 - math.log1p(e.books) / scale) if e.books else 0.0 for e in evidence))


def gather_evidence(candidates: Sequence[Candidate], query: ThemeQuery, books: Mapping[str, BookRecord],
                    tokens: Sequence[str], token_weights: Mapping[str, float], cover: Mapping[str, float],
                    similarities: Mapping[str, float], sentences: Mapping[str, float], vector_z: Mapping[str, float],
                    stem: bool, narrowed: float = 0.0,
                    subjects: Mapping[str, Sequence[SubjectEvidence]] | None = None,
                    theme_shelf: bool = True, defined: bool = False, values: BriefValues | None = None,
                    likeness_of: Callable[[BookRecord], Likeness] | None = None,
                    tagged: bool = False, topical: Mapping[str, float] | None = None) -> list[Evidence]:
    """Each candidate's evidence. `tokens` are the brief's BM25 tokens with their IDF `token_weights`; `cover` the
    share of their weight each book's indexed text holds; `similarities` each book's cosine to the brief,
    `sentences` its best sentence's, `vector_z` the similarity's z-score over the catalog; `subjects` the matched
    subjects each book carries (the subject path's evidence); `theme_shelf`: the brief names no book, author or
    series (only there, and where its hard conditions leave more than a tenth of the catalog or FILED_AMONG of the
    candidates carry a subject its topics matched by words, can a book be untied);
    `defined`: the brief says nothing beyond its hard conditions (`conditions_define`); `values` what its
    vocabulary values say (`brief_values`); `likeness_of` a read-alike's likeness to its book (`likeness`);
    `topical` the share of the weight of the brief's topic words (`topic_tokens`) each book's text holds."""
    out = []
    best = max((c.fused_score for c in candidates), default=0.0)
    wanted = wished(query)
    matched = any(t.matches for t in wanted)
    # a theme shelf whose hard conditions leave most of the catalog: only there does a missing subject say anything
    filers = sum(1 for c in candidates if any(e.how != "vector" for e in (subjects or {}).get(c.book_id, ())))
    open_shelf = theme_shelf and (narrowed < FEW_ALLOWED or filers >= FILED_AMONG)
    filed = open_shelf and any(m.how != "vector" for t in wanted for m in t.matches)
    headless = (head_missing(candidates, query, books, values, subjects or {}, stem, tagged)
                if values and theme_shelf else set())
    topic_words = topic_tokens(tokens, wanted, query.language, stem) if topical is not None else tokens
    for place, cand in enumerate(candidates, start=1):
        book = books[cand.book_id]
        held = token_set(heading_text(book), book.language or query.language, stem) if tokens else frozenset()
        carried = subject_features((subjects or {}).get(cand.book_id, ()), matched, len(books))
        heading = token_cover(tokens, token_weights, held)
        # what ties a book to a topic the catalog files is the topic's own words, not the brief's other content
        # words ("club", "start", "old" of "Our sci-fi club wants the old utopias - where did it all start?")
        words = ((topical if topical is not None else cover).get(cand.book_id, 0.0) > 0
                 or token_cover(topic_words, token_weights, held) > 0)
        said, said_values = (values.reading(book, (subjects or {}).get(cand.book_id, ())) if values and tagged
                             else (0.0, 0))
        alike = likeness_of(book) if likeness_of else Likeness()
        facet = facet_evidence(book, query)
        out.append(Evidence(
            vector_z=vector_z.get(cand.book_id, 0.0),
            sentence=sentences.get(cand.book_id, similarities.get(cand.book_id, 0.0)),
            cover=cover.get(cand.book_id, 0.0),
            heading=heading,
            facet=facet,
            bm25_rank=rank_weight(cand.ranks.get("bm25")),
            vector_rank=rank_weight(cand.ranks.get("vector")),
            named=float(bool(set(cand.sources) & set(NAMED_PATHS))),
            linked=float(bool(set(cand.sources) & set(LINKED_PATHS))),
            fused=cand.fused_score / best if best > 0 else 0.0,
            position=rank_weight(place),
            # the few books the hard conditions leave fit mostly, but not one the catalog files apart from the brief's
            # topic ("Seafaring adventures for kids": a children's book under no sea or adventure heading)
            narrowed=0.0 if carried.absent > 0 else narrowed,
            subject_required=carried.required,
            subject_preferred=carried.preferred,
            subject_lexical=carried.lexical,
            subject_specific=carried.specific,
            subject_absent=carried.absent,
            doubtful=float(cand.doubtful),
            # a value the brief wishes for that the record holds surely ties it too: no vector alone
            untied=filed and carried.absent > 0 and not words and facet <= 0,
            unfiled=open_shelf and carried.absent > 0,
            defined=defined,
            said=said,
            said_values=said_values,
            headless=cand.book_id in headless,
            alike=alike.value,
            alike_guessed=alike.guessed))
    return out


def wished(query: ThemeQuery) -> list[TopicSubjects]:
    """The brief's topics it asks for or prefers (not those it excludes)."""
    return [t for t in query.subjects if t.role in (REQUIRED_ROLE, PREFERRED_ROLE)]


def topic_tokens(tokens: Sequence[str], topics: Sequence[TopicSubjects], language: str, stem: bool) -> list[str]:
    """The brief's BM25 tokens that are words of its wished topics; all of them where its topics say none."""
    said = token_set(" ".join(t.topic.text for t in topics), language, stem)
    return [t for t in tokens if t in said] or list(tokens)


def head_missing(candidates: Sequence[Candidate], query: ThemeQuery, books: Mapping[str, BookRecord],
                 values: BriefValues, subjects: Mapping[str, Sequence[SubjectEvidence]], stem: bool,
                 tagged: bool) -> set[str]:
    """The candidates in the brief's language whose records say none of its head's words (`BriefValues.head_words`:
    what its title says beyond its hard conditions, where a description says more), of those words that some
    candidate in the brief's language says: "National Library Week" over a description of love for libraries, a
    love story that says nothing of libraries; "Sea drama" over adventure and voyages, an adventure on land. A word
    no candidate says (a praise word, a word of the other language's books) is no test; a book in the other language
    cannot say the brief's words, and is not read so."""
    head = values.head_words()
    if not head:
        return set()
    own = [c.book_id for c in candidates if (books[c.book_id].language or query.language) == query.language]
    says: dict[str, set[int]] = {}
    for book_id in own:
        book = books[book_id]
        text = token_set(f"{book.title} {book.summary or ''} {heading_text(book)}", query.language, stem)
        filed = {e.topic for e in subjects.get(book_id, ()) if e.how != "vector"}
        says[book_id] = {i for i, w in enumerate(head) if values.holds(w, book, filed, text, tagged)}
    live = set().union(*says.values()) if says else set()
    return {b for b, said in says.items() if live and not said & live}


def topic_vector(query_vector: np.ndarray, named: Sequence[str], snapshot: IndexSnapshot) -> np.ndarray:
    """What a candidate's closeness is read against: the brief's vector, and where the brief names books (a
    read-alike's book, a spotlit author's or a series' books) the mean of theirs beside it, weighing as much: "Books
    like Stoner" is about what Stoner is about, which its few words do not say."""
    vectors = list(snapshot.book_vectors(list(dict.fromkeys(named))).values()) if named else []
    if not vectors:
        return query_vector
    unit = lambda v: v / max(float(np.linalg.norm(v)), 1e-12)  # noqa: E731
    return unit(unit(np.asarray(query_vector, dtype=np.float64)) + unit(np.mean(vectors, axis=0)))


def narrowing(allowed: int | None, catalog: int) -> float:
    """-log10 of the share of the catalog that meets the hard conditions: 0 where all do."""
    return 0.0 if allowed is None or not catalog else -math.log10(max(allowed, 1) / catalog)


def with_relevance(candidates: Sequence[Candidate], probabilities: Sequence[float]) -> list[Candidate]:
    return [replace(c, relevance=float(p)) for c, p in zip(candidates, probabilities)]


def fitting(candidates: Sequence[Candidate], floor: float) -> list[Candidate]:
    """The candidates at or above the floor, in their order; a candidate never scored counts as fitting."""
    return [c for c in candidates if c.relevance is None or c.relevance >= floor]


def expected_fit_share(relevances: Sequence[float | None]) -> float:
    """The share of a shelf expected to fit: the mean of its books' probabilities (1.0 for an empty shelf)."""
    known = [r for r in relevances if r is not None]
    return float(np.mean(known)) if known else 1.0


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = 1.0,
                 sample_weights: np.ndarray | None = None, iterations: int = 50,
                 prior: tuple[np.ndarray, float] | None = None) -> tuple[np.ndarray, float]:
    """Weights and intercept of an L2-penalised logistic regression (the intercept unpenalised), by Newton's
    method: a few dozen features and a few thousand judged books converge in a handful of steps. The penalty
    pulls the weights toward `prior`'s (default zero), whose weights and intercept Newton starts from: a refit on a
    catalog's few verdicts stays near the judged weights where its verdicts say little."""
    x = np.hstack([np.asarray(features, dtype=np.float64), np.ones((len(features), 1))])
    y = np.asarray(labels, dtype=np.float64)
    s = np.ones(len(y)) if sample_weights is None else np.asarray(sample_weights, dtype=np.float64)
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 0.0
    beta = np.zeros(x.shape[1]) if prior is None else np.append(np.asarray(prior[0], dtype=np.float64), prior[1])
    centre = beta.copy()
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (s * (p - y)) + penalty * (beta - centre)
        hessian = (x * (s * p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def standing(e: Evidence, weighed: float) -> str:
    """What a candidate's probability stands on, first what the rules decide: named (1), defined
    (`defined_probability`), title-capped (`headless`), untied (0), its vocabulary values (`said` whole or in part, a
    read-alike's `alike`) where they lift it above the weights' `weighed`, agreeing where at least AGREE distinct values or topics of the book say the
    brief's words (`said_values`); then the weights' strongest evidence: a subject the brief's topic matched by its
    words, or headings holding at least HEADING_HOLDS of the brief (heading match), a word of the brief in a heading
    (heading word: one stray word of a long heading, "French" in "French literature -- History and criticism" on a
    French Revolution shelf), a subject the brief's topics matched by meaning alone, none of whose words the brief
    says (subject by meaning), the brief's words in its text (unfiled words where the catalog files the brief's
    topics under subjects, by their words or their meaning, that this book does not carry: the catalog says where
    the topic stands, and not here; words only where it files them nowhere, a mood or a setting: "Quiet novels for
    a rainy night"), or its vector alone. A read-alike's likeness resting on guessed values stands apart
    (`Likeness.guessed`): the admission asks its own support of it."""
    if e.named:
        return NAMED
    if e.defined:
        return DEFINED
    if e.headless:
        return TITLE_CAPPED
    lift = 0.0 if e.doubtful else said_fit(max(e.said, e.alike))
    if e.untied and not lift > 0:
        return UNTIED
    if lift > weighed:
        if e.said_values >= AGREE:
            return AGREEING
        if e.alike > e.said:
            return ALIKE_GUESSED if e.alike_guessed else ALIKE
        return SAID_FULL if e.said >= 0.999 else SAID_PARTIAL
    if e.subject_lexical > 0 or e.heading >= HEADING_HOLDS:
        return HEADING
    if e.heading > 0:
        return HEADING_WORD
    if e.subject_required > 0 or e.subject_preferred > 0:
        return MEANT
    if e.cover > 0:
        return UNFILED if e.unfiled else WORDS
    return VECTOR


@dataclass(frozen=True)
class Admission:
    """Which books a shelf may take, by what their probability stands on (`standing`): the shelf's floor
    (`ranking.relevance_floor`) for every book, a higher one where a kind of evidence fits less often than its
    probability says (`floors`), and, for a book its values
    lift (`VALUES`), the weights' own probability at least its kind's `supports`: one value alone, a source's mood
    tag or an alias naming a whole setting, lifts books the rest of the record does not tie to the brief (故乡 ->
    乡土小镇, 轻松 on a philosophy primer), where values of several kinds agreeing (`AGREEING`: quiet, melancholy and
    rainy-night) say more. Fitted by benchmarks/shelf_decision.py (`fit_admission`), kept in config/relevance.yaml."""

    floors: Mapping[str, float] = field(default_factory=dict)
    supports: Mapping[str, float] = field(default_factory=dict)

    def admits(self, e: Evidence, weighed: float, probability: float, floor: float) -> bool:
        return self.admits_kind(standing(e, weighed), weighed, probability, floor)

    def admits_kind(self, kind: str, weighed: float, probability: float, floor: float) -> bool:
        """Whether a book standing on this kind of evidence, at these probabilities, clears its bar."""
        if weighed < self.supports.get(kind, 0.0):
            return False
        return probability >= max(floor, self.floors.get(kind, 0.0))


def read_admission(path: Path, kind: str) -> Admission:
    """The admission fitted for catalogs of this evidence kind (`evidence_kind`); a kind none was fitted for has the
    shelf's floor alone."""
    kinds = ((read_yaml(path) or {}).get("admission") or {}).get("kinds") or {}
    unknown_kinds = sorted(set(kinds) - set(EVIDENCE_KINDS))
    if unknown_kinds:
        raise ValueError(f"{path}: admission for no catalog kind: {', '.join(unknown_kinds)}")
    data = kinds.get(kind) or {}
    floors = {str(k): float(v) for k, v in (data.get("floors") or {}).items()}
    supports = {str(k): float(v) for k, v in (data.get("supports") or {}).items()}
    unknown = sorted((set(floors) - set(STANDINGS)) | (set(supports) - set(VALUES)))
    if unknown:
        raise ValueError(f"{path}: admission floor or support for no kind of evidence: {', '.join(unknown)}")
    return Admission(floors, supports)


@lru_cache(maxsize=len(EVIDENCE_KINDS))
def load_admission(kind: str) -> Admission:
    return read_admission(RELEVANCE_FILE, kind)


def admitted(candidates: Sequence[Candidate], evidence: Sequence[Evidence], weighed: Sequence[float], floor: float,
             admission: Admission) -> list[Candidate]:
    """The candidates a shelf may take, in their order: those at or above the floor their evidence asks
    (`Admission`); a candidate never scored counts as fitting, and without evidence the shelf's floor alone holds."""
    if len(evidence) != len(candidates) or len(weighed) != len(candidates):
        return fitting(candidates, floor)
    return [c for c, e, w in zip(candidates, evidence, weighed)
            if c.relevance is None or admission.admits(e, float(w), c.relevance, floor)]


@dataclass(frozen=True)
class RelevanceModel:
    """What a run needs to score relevance: the catalog's similarity distribution, its kind, the calibration."""

    distribution: SimilarityDistribution
    kind: str
    calibration: Calibration
    values: Mapping[tuple[str, str], float] = field(default_factory=dict)  # every profile value, how many hold it
    admission: Admission = Admission()  # which books a shelf may take, by their evidence
    admission_kind: str = SUMMARISED  # what the catalog's records give the admission to read (`evidence_kind`)

    @classmethod
    def build(cls, snapshot: IndexSnapshot, books: Sequence[BookRecord],
              calibration: Calibration | None = None) -> RelevanceModel:
        kind, admits_by = catalog_kind(books), evidence_kind(books)
        return cls(SimilarityDistribution.of(snapshot.vector_matrix()), kind, calibration or load_calibration(),
                   profile_counts(books),  # only `alike` reads it
                   load_admission(admits_by), admits_by)

    def evidence(self, candidates: Sequence[Candidate], query: ThemeQuery, books: Mapping[str, BookRecord],
                 snapshot: IndexSnapshot, tokens: Sequence[str], query_vector: np.ndarray,
                 allowed: int | None = None,
                 subjects: Mapping[str, Sequence[SubjectEvidence]] | None = None,
                 theme_shelf: bool = True, defined: bool = False, content: Sequence[str] = (),
                 vocabulary: Vocabulary | None = None, like: Sequence[BookRecord] = (),
                 title: str = "") -> list[Evidence]:
        """Each candidate's evidence against the brief's BM25 `tokens` and its vector; `allowed` is how many books
        of the catalog meet the brief's hard conditions (None: all); `subjects` the matched subjects each carries;
        `theme_shelf`: the brief names no book, author or series; `defined`: its hard conditions say all it asks;
        `content` its content words, read against the `vocabulary` where the brief is a theme shelf or a read-alike;
        `like` a read-alike's books; `title` the brief's title where the brief says more than it."""
        ids = [c.book_id for c in candidates]
        dense = dense_scores(query_vector, ids, snapshot, sentence_weight=1.0)
        similarities = {b: d.document for b, d in dense.items()}
        z = dict(zip(similarities, self.distribution.z(query_vector, np.array(list(similarities.values())))))
        weights = snapshot.bm25.token_weights(tokens) if tokens else {}
        cover = snapshot.bm25.cover_of(tokens, ids) if tokens else {}
        stem, sure = snapshot.bm25.settings.english_stemming, snapshot.filter_confidence
        topical = (snapshot.bm25.cover_of(topic_tokens(tokens, wished(query), query.language, stem), ids)
                   if tokens else {})
        # what a brief's values say rests on the source's own tags: on a tag-blind catalog (guesses, headings) it
        # lifted books that did not fit (docs/measurements.md, round five); a read-alike's likeness reads headings too
        tagged = vocabulary is not None and self.kind == "tagged"
        values = (brief_values(query, content, weights, vocabulary, stem, sure, title)
                  if vocabulary is not None and (theme_shelf or like) else None)
        alike = (likeness(like, self.values, len(books), sure, model_nearness(like, ids, snapshot, self.distribution))
                 if like else None)
        return gather_evidence(candidates, query, books, tokens, weights, cover, similarities,
                               {b: d.sentence for b, d in dense.items()}, z, stem,
                               narrowing(allowed, len(books)), subjects, theme_shelf, defined, values, alike, tagged,
                               topical)

    def score(self, candidates: Sequence[Candidate], evidence: Sequence[Evidence],
              weighed: Sequence[float]) -> list[Candidate]:
        """The candidates, each with its probability of fitting the brief. A book the brief asks for by name or by
        date (the named author's, the series', a new arrival under the brief's conditions) fits it by definition, one
        meeting a brief its hard conditions alone define as the calibration reads such books (`defined_probability`);
        an untied one (tied by the vector alone to a topic the catalog files under subjects) does not. `weighed`: the
        weights' probabilities (`Calibration.probability`), computed once by the caller, which the admission reads
        too; the rules of `probabilities` bound them here."""
        reading = self.calibration.defined.get(self.kind)
        return with_relevance(candidates, [bounded(e, float(q), reading) for e, q in zip(evidence, weighed)])


def probabilities(calibration: Calibration, evidence: Sequence[Evidence], kind: str) -> np.ndarray:
    """Each candidate's probability of fitting: the calibration's, 1 for a named book, the calibration's reading of
    defined books (`defined_probability`) for one a brief defined by its conditions alone, 0 for an untied one; never
    under the share of the brief the book's sure values say
    (`said`), nor, on a read-alike, under its likeness to the named book (`alike`), unless the order doubts it (a
    children's book on a brief for grown-ups, a guess that it holds a value the brief excludes): its values say its
    mood, not its reader (轻松好笑 had lifted eight children's books to 0.75, seven judged wrong); never over
    HEADLESS_FIT where it says none of the title's filed topics (`head_missing`)."""
    p = calibration.probability(evidence, kind)
    reading = calibration.defined.get(kind)
    return np.array([bounded(e, q, reading) for e, q in zip(evidence, p)])


def bounded(e: Evidence, weighed: float, defined: tuple[float, float] | None = None) -> float:
    """One candidate's probability from the weights' (`weighed`) and the rules of `probabilities`; `defined` the
    calibration's reading of a book meeting a brief its hard conditions define (`defined_probability`), read only
    for such a book."""
    if e.named:
        return 1.0
    if e.defined:
        return defined_probability(defined, weighed)
    least = 0.0 if e.doubtful else said_fit(max(e.said, e.alike))
    most = HEADLESS_FIT if e.headless else 1.0
    return min(max(least, 0.0 if e.untied else weighed), most)


def said_fit(share: float) -> float:
    """The probability that a book holding this share of what the brief's words say (`BriefValues.share`) fits:
    the share times SAID_TRUST. On the judged dev briefs (2026-11-27, in sample), of the books a share lifted above
    the weights' probability, those holding half of what the words say fitted 27% (16 of 59: '轻松' without '好笑' is
    not a funny book), those holding all of it 75% (45 of 60): a source's tag, or an alias naming a value ('故乡' the
    setting 乡土小镇), is evidence, not the definition a hard condition is, and alone it never makes a shelf "done"
    (`gating.done_fit_share` is above it). A read-alike's likeness to its book (`likeness`) is read the same way, its
    scale (`LIKE_FULL`) set so that it says as often as the dev read-alikes' candidates fit (37% at 0.4-0.5, 42% at
    0.53-0.6, 53% at 0.6-0.7, 2026-11-28). Read
    again on every dev candidate (2026-11-28, `shelf_decision.py`'s reliability table), books the values lift fit
    less often than it says, 27 of 85 holding all of them (12 of 21 outside the 故乡 brief, whose alias lifts a
    whole setting) and 30 of 240 holding part: the trust is not raised."""
    return SAID_TRUST * share


def value_names(field: str, value: str, vocabulary: Vocabulary) -> list[str]:
    """Every name of one value a condition on a book's facets asks for (a value's name and aliases; a form's or an
    audience's names, words and genres; a language's words in the packs: "Books in French" says no more than fr)."""
    if field == "language":
        readings = load_cues().readings
        return [value, *readings.languages.get(value, ()), *readings.language_names.get(value, ())]
    names: list[str] = []
    kind = vocabulary.kind(field, value)
    if kind is not None:
        names += [kind.name, kind.name_zh, kind.name_en, *kind.words]
        genres = [(TOPIC_DIMENSION, g) for g in kind.genres]
    else:
        genres = [(field, value)]
    for dimension, name in genres:
        try:
            found = vocabulary.value(dimension, name)
        except KeyError:
            names.append(name)
            continue
        names += [found.name, *found.aliases]
    return names


def required_names(query: ThemeQuery, vocabulary: Vocabulary) -> list[str]:
    """Every name of every value the brief's hard conditions require of a book's facets and its language."""
    return [name for condition in query.filter_conditions
            if condition.operator == "MUST" and (condition.field not in TERM_FIELDS or condition.field == "language")
            for value in condition.values for name in value_names(condition.field, value, vocabulary)]


def conditions_define(query: ThemeQuery, content: Sequence[str], theme_shelf: bool, vocabulary: Vocabulary,
                      stem: bool) -> bool:
    """Whether the brief says nothing beyond its hard conditions: a theme brief that requires something (a value, a
    year, a length), wishes for nothing, whose topics matched no subject, and each of whose content words names a
    value it requires ("科幻小说" with genre 科幻 required)."""
    required = ([c for c in query.filter_conditions if c.operator == "MUST"] or query.numeric_conditions)
    wishes = [c for c in query.filter_conditions if c.operator == "SHOULD"]
    topics = any(t.matches for t in wished(query))
    if not theme_shelf or not required or wishes or topics:
        return False
    named = {t for name in required_names(query, vocabulary) for t in bm25_tokens(name, query.language, stem)}
    return all(set(bm25_tokens(word, query.language, stem)) <= named for word in content)


@dataclass(frozen=True)
class SaidWord:
    """One content word of the brief, its weight (its tokens' IDF) and what in the vocabulary names it."""

    weight: float
    required: bool = False  # a value the brief's hard conditions require names it
    tokens: tuple[str, ...] = ()  # its BM25 tokens: a book's own text holds the word where it holds them all
    head: bool = False  # the brief's title says it, and the brief says more than its title: the shelf's topic
    values: tuple[tuple[str, str], ...] = ()  # the values, (field, value), of the wishes one of whose names holds it
    topics: tuple[str, ...] = ()  # the brief's topics, matched to the catalog's subjects by their words, it names


@dataclass(frozen=True)
class BriefValues:
    """What of the brief its vocabulary values say: each content word with the values and filed topics that name
    it. A genre, mood or setting brief ("Quiet novels for a rainy night", "The sea and its islands") has no heading
    of its own to match, but its words name values a book can hold surely: its source's tag, a guess at the
    catalog's filter confidence, a subject the topic's words matched. The share of the brief's words a book holds
    so is what the brief says of it, as `conditions_define` says it of a brief its hard conditions say whole."""

    words: tuple[SaidWord, ...]
    sure: float  # the confidence at which a guessed value counts as held (the catalog's filter confidence)

    def reading(self, book: BookRecord, carried: Sequence[SubjectEvidence]) -> tuple[float, int]:
        """What the book's record says of the brief, in one pass over its words: `share` and `agreeing`."""
        filed = {e.topic for e in carried if e.how != "vector"}
        words = [w for w in self.words if not w.required and self.holds(w, book, filed, text=set(), values=True)]
        total = sum(w.weight for w in self.words if not w.required)
        things = ({(f, v) for w in words for f, v in w.values if book.confidence(f, v) >= self.sure}
                  | {("topic", t) for w in words for t in w.topics if t in filed})
        return (sum(w.weight for w in words) / total if total else 0.0), len(things)

    def share(self, book: BookRecord, carried: Sequence[SubjectEvidence]) -> float:
        """The share of the brief's content weight beyond what its hard conditions require that the book holds
        surely: words named by a wished value it holds surely, or by a topic whose subject it carries by the
        topic's words. A word a required value names says nothing of one candidate over another (every candidate
        meets the requirement): "书香伴我成长：中国儿童文学作品展" over children's books is said by '中国', not by
        '儿童文学'; a brief its requirements say whole is `conditions_define`'s."""
        return self.reading(book, carried)[0]

    def agreeing(self, book: BookRecord, carried: Sequence[SubjectEvidence]) -> int:
        """How many distinct things the book holds that say the brief's words (`share`'s words): each wished value
        it holds surely, each filed topic it carries. Five words naming one value ('sea', 'islands', 'voyage' all
        海洋岛屿) are one thing; a quiet, melancholy, rainy-night book holds three."""
        return self.reading(book, carried)[1]

    def holds(self, word: SaidWord, book: BookRecord, filed: set[str], text: Set[str], values: bool) -> bool:
        """Whether the book's record says the word: its own text or headings hold it, it carries a subject a topic of
        the word's matched by its words, or (`values`: a catalog its source tagged) it holds surely a wished value
        the word names."""
        return bool((word.tokens and set(word.tokens) <= text) or filed.intersection(word.topics)
                    or (values and any(book.confidence(f, v) >= self.sure for f, v in word.values)))

    def head_words(self) -> tuple[SaidWord, ...]:
        """The words of the brief's head: what its title says beyond its hard conditions that names a topic the
        catalog files (a subject matched by the word's own words). A title's other words are a slogan's or an
        occasion's ("书香伴我成长", "话中秋", "Spooky classics"), or name a value only by an alias: no test of a book."""
        return tuple(w for w in self.words if w.head and not w.required and w.topics)


def brief_values(query: ThemeQuery, content: Sequence[str], token_weights: Mapping[str, float],
                 vocabulary: Vocabulary, stem: bool, sure: float, title: str = "") -> BriefValues:
    """Each content word of the brief with what names it: the values its conditions on facets require or wish for
    (never those excluded) among whose names its tokens all are, and the topics matched by their words (not by
    meaning alone) whose words hold its tokens. `title`: the brief's title where the brief says more than it (a
    description): a word it holds is the head's."""
    tokens = lambda text: set(bm25_tokens(text, query.language, stem))  # noqa: E731
    titled = tokens(title) if title else set()
    conditions = [(c, [{t for name in value_names(c.field, v, vocabulary) for t in tokens(name)} for v in c.values])
                  for c in query.filter_conditions if c.field not in TERM_FIELDS and c.operator in ("MUST", "SHOULD")]
    topics = [(t.topic.text, tokens(t.topic.text)) for t in wished(query) if any(m.how != "vector" for m in t.matches)]
    words = []
    for word in content:
        own = tokens(word)
        if not own:
            continue
        naming = [c for c, names in conditions if any(own <= held for held in names)]
        # a wish's values are alternatives ('quiet' or 'melancholy'): a book holding any holds the words each names
        words.append(SaidWord(sum(token_weights.get(t, 0.0) for t in sorted(own)),  # sorted: the same sum every run
                              any(c.operator == "MUST" for c in naming), tuple(sorted(own)), own <= titled,
                              tuple((c.field, v) for c in naming if c.operator == "SHOULD" for v in c.values),
                              tuple(text for text, held in topics if own <= held)))
    return BriefValues(tuple(words), sure)


def profile(book: BookRecord) -> dict[tuple[str, str], float]:
    """What a book is, as a read-alike compares books, each value with how surely its record holds it: its source's
    tags and its subject headings with their parts (`subject_keys`, as (PROFILE_SUBJECT, key)) surely (1), a value
    derived from the record (its form, audience, literature) or guessed (a mood its neighbours have) at its
    confidence. The tagged demo says what 《边城》 is mostly in tags, Gutenberg's Dracula in headings ('Vampires --
    Fiction', 'Gothic fiction'), a tag-blind catalog in headings and guesses: one profile reads every kind, and a
    guess says of a book only as much as it is sure."""
    held = {(d, v): 1.0 for d, values in book.tags.items() for v in values}
    for f in book.facets:
        held[(f.dimension, f.value)] = max(held.get((f.dimension, f.value), 0.0), f.confidence)
    held.update({(PROFILE_SUBJECT, key): 1.0 for key in subject_keys(book.subjects)})
    return held


def profile_counts(books: Sequence[BookRecord]) -> dict[tuple[str, str], float]:
    """Every value and heading of the catalog's books' profiles (`profile`), with how many books hold it: the sum of
    their sureness, so that a mood guessed at 0.5 for most of the catalog is as common as it is likely held."""
    counts: dict[tuple[str, str], float] = {}
    for book in books:
        for value, sureness in profile(book).items():
            counts[value] = counts.get(value, 0.0) + sureness
    return counts


def model_nearness(named: Sequence[BookRecord], ids: Sequence[str], snapshot: IndexSnapshot,
                   distribution: SimilarityDistribution) -> dict[str, float]:
    """How near each book's vector is to the named books' (the mean of theirs), in the catalog's standard
    deviations of similarity to them (`SimilarityDistribution.z`): a cosine of 0.6 is near for one book and far for
    another. Read against the books alone, not the brief: "Books like Dracula" is about what Dracula is."""
    vectors = snapshot.book_vectors(list(dict.fromkeys([*(b.book_id for b in named), *ids])))
    theirs = [vectors[b.book_id] for b in named if b.book_id in vectors]
    if not theirs:
        return {}
    model = normalize(normalize(np.asarray(theirs, dtype=np.float32)).mean(axis=0, keepdims=True))[0]
    known = [b for b in ids if b in vectors]
    if not known:
        return {}
    similarities = normalize(np.asarray([vectors[b] for b in known], dtype=np.float32)) @ model
    return dict(zip(known, map(float, distribution.z(model, similarities))))


@dataclass(frozen=True)
class Likeness:
    """How alike a book is to a read-alike's named books (`likeness`), and whether that rests on guesses: more of the
    profile it shares is held by a guess (a value either record holds under the catalog's filter confidence) than
    surely (a source's tag, a heading, a sure derived value). The admission asks more of a guessed likeness."""

    value: float = 0.0
    guessed: bool = False


def likeness(named: Sequence[BookRecord], counts: Mapping[tuple[str, str], float], catalog: int, sure: float,
             nearness: Mapping[str, float]) -> Callable[[BookRecord], Likeness]:
    """How alike a book is to the named books, one measure on every kind of catalog: the share of their profile
    (`profile`: tags, subject headings and their parts, derived and guessed values) it holds too, each value weighing
    how few of the catalog's books hold it (log((catalog + 1) / (count + 1)): sharing '小说' or 'Fiction' with the named
    book says little, 'Vampires -- Fiction' or '乡土小镇' much; one no other book holds, its own characters and places,
    is left out, as no book can share it) and how surely each record holds it (the named book's sureness in the whole,
    both books' in the share: a mood the tag-blind demo guessed at 0.6 for both says a third of what a tag both carry
    says), beside its vector's nearness to theirs (`model_nearness`, whole from NEAR_Z), weighing NEARNESS_SHARE, the
    blend read on the scale LIKE_FULL. A read-alike's topic is its book, not the brief's few words. Never alike: the
    named books' own works, nor a book of another form where their records say theirs surely (an essay for an essay, a
    novel for a novel: of the dev read-alikes' candidates of another form, 4 of 627 fitted). Nothing is alike where
    the profile says less than one value two books share would (a catalog of titles alone, whose books are 'fiction'
    and little else). On the dev read-alikes (docs/measurements.md, 2026-11-28 afternoon, alike3) the tag-blind demo's
    shelves took 78 books, 33 wrong, where a profile of sure values alone, each counted whole, took 82, 36 wrong."""
    profiles = [profile(other) for other in named]
    theirs: dict[tuple[str, str], float] = {}
    for mine in profiles:
        for value, sureness in mine.items():
            theirs[value] = max(theirs.get(value, 0.0), sureness)
    # a value no other book holds (its own title's heading, its characters, its places) makes no book alike
    rarity = {value: math.log((catalog + 1) / (counts.get(value, 0.0) + 1)) for value in sorted(theirs)
              if counts.get(value, 0.0) - sum(mine.get(value, 0.0) for mine in profiles) >= OTHERS_LEAST}
    telling = {value: weight * theirs[value] for value, weight in rarity.items()}
    total = sum(telling.values())
    if total < math.log((catalog + 1) / 3):  # less than one value two books share says
        return lambda book: Likeness()
    forms = {value for (dimension, value), sureness in theirs.items()
             if dimension == FORM_DIMENSION and sureness >= sure}
    own = {other.work_id or other.book_id for other in named}

    def of(book: BookRecord) -> Likeness:
        mine = profile(book)
        if (book.work_id or book.book_id) in own or (
                forms and not any(mine.get((FORM_DIMENSION, f), 0.0) >= sure for f in forms)):
            return Likeness()
        held = {value: w * mine[value] for value, w in telling.items() if value in mine}
        guessed = sum(w for value, w in held.items() if min(theirs[value], mine[value]) < sure)
        near = min(max(nearness.get(book.book_id, 0.0) / NEAR_Z, 0.0), 1.0)
        blend = (1.0 - NEARNESS_SHARE) * sum(held.values()) / total + NEARNESS_SHARE * near
        return Likeness(min(blend / LIKE_FULL, 1.0), guessed > sum(held.values()) - guessed)
    return of


def likely_works(candidates: Sequence[Candidate], books: Mapping[str, BookRecord], floor: float) -> int:
    """How many works among the candidates are likely enough to fit for a shelf (at or above its floor; one per work,
    editions aside): the count a short shelf's question gives, the same books its shelf could take. (At 0.5 it had
    said "Only 1 book in this catalog is about 'towns', 'villages'" beside a shelf of 9 books, 8 of them fitting.)"""
    return len({books[c.book_id].work_id or c.book_id for c in candidates
                if c.relevance is not None and c.relevance >= floor and c.book_id in books})


def content_words(keywords: Sequence[str], tokens: Sequence[str], language: str, stem: bool) -> list[str]:
    """The brief's keywords that carry its content: those with a token among the brief's BM25 tokens (no
    stopword, no word the catalog lacks or most of its books hold) and without a numeral (a count, a year, a day
    of the year, 三本, is never what a book is about)."""
    telling = set(tokens)
    return [k for k in dict.fromkeys(keywords)
            if not any(ch.isnumeric() for ch in k) and any(t in telling for t in bm25_tokens(k, language, stem))]


def book_topics(book: BookRecord) -> list[tuple[str, str]]:
    """The topics a book is filed under, as (field, value): its subject headings and its source's genres (a mood, a
    reading situation or a reading load is no topic a curator widens a shelf to)."""
    return list(dict.fromkeys([*(("subject", s) for s in book.subjects),
                               *((TOPIC_DIMENSION, g) for g in book.tags.get(TOPIC_DIMENSION, ()))]))
