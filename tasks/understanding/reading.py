"""How a brief reads: what it names, and whether the curator wants, requires, allows or excludes each.

A brief names vocabulary values, forms ("小说", "poetry"), audiences ("童书", "for grown-ups"), catalog
authors and titles, languages, years and page counts, and (when excluded) plain topics ("战争", "gore").
Cue words (the language packs, tasks/understanding/lang/<code>/cues.yaml) decide each mention's polarity:

- a negation scopes over what follows it up to the next comma, clause end or contrast word ("不要温暖治愈
  的", "no poetry"); one at the end of a clause negates what came before it ("东野圭吾的除外");
- "除了 X 以外" excludes X; inside another negation the frame flips ("不看刘慈欣以外的" means only 刘慈欣);
- a requirement scopes the same way ("只要诗集", "fiction only");
- a hedge ("都可以", "or", "not just") makes a clause's forms and genres wishes;
- a negation about the reader ("readers without a degree in philosophy", "不需要懂哲学") says nothing of books.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from datetime import date

from config.class_ranges import class_ranges
from config.vocabulary import Vocabulary
from tasks.model.conditions import NumericCondition
from tasks.catalog.names import simplified
from tasks.language.text_analysis import brief_stopwords, detect_language, dictionary_tag
from tasks.understanding.analysis import (ALLOWED, EXCLUDED, KIND_FIELDS, READER, REQUIRED, WANTED, Mention, Segmented,
                                          Topic, clause_spans, everyday_readings, find_candidates, find_cues,
                                          find_terms, list_gap, named_as_title, put_elsewhere, resolve_overlaps, segment,
                                          titled_after_alike, titles_within, word_bounds)
from tasks.understanding.cues import Cues, alternation, load_cues, regex
from tasks.understanding.lang import ALLOW, CLAUSE, EXCLUDE
from tasks.understanding.evidence import (HARD, WISH, bands_within, counted_parts, excluded_people,
                                          guardians_children, mixed_kinds, not_asked, number_weight,
                                          overruled_years, parts_by_reader, periods_of_other_things, small_count)
from tasks.understanding.numbers import find_numbers
from tasks.understanding.references import contrasted_clauses, done_clauses, shelf_descriptions
from tasks.understanding.scopes import Scope, find_scopes
from tasks.understanding.topics import (brief_keywords, is_stopword, joined_parts, last_word, phrase_topic,
                                        phrase_topics)

__all__ = ["ALLOWED", "EXCLUDED", "READER", "REFERRED", "REQUIRED", "WANTED", "Cues", "Mention", "Reading", "Topic",
           "load_cues", "read_brief"]
REFERRED = "referred"  # describes the earlier shelf the brief refers to ("前面那个历史书架"): nothing new
_BOOK_TITLE = re.compile(r"《([^《》]+)》")
# A person's name written without spaces or dots, as a topic of its own: two to four characters of a CJK script.
_NAME_RUN = re.compile(r"[\u3400-\u9fff]{2,4}")
_QUALIFIES = 4  # how near the children's word an every-age word says which children: "kids of all ages"


@dataclass(frozen=True)
class Reading:
    text: str
    mentions: tuple[Mention, ...]
    numeric: tuple[NumericCondition, ...]
    excluded_spans: tuple[tuple[int, int], ...]  # text about what the curator does not want, and the cue words
    reader_spans: tuple[tuple[int, int], ...]  # text about the reader, or describing a referenced earlier shelf
    notes: tuple[str, ...] = ()
    number_spans: tuple[tuple[int, int], ...] = ()
    name_spans: tuple[tuple[int, int], ...] = ()  # catalog authors, titles and series: kept whole as keywords
    preferred: tuple[NumericCondition, ...] = ()  # numbers in a clause that only prefers them ("最好是近十年的")
    topics: tuple[Topic, ...] = ()  # topics named outside the vocabulary, with their polarity
    said_spans: tuple[tuple[int, int], ...] = ()  # read whole into values or topics (occasions, audiences): no keyword

    def of(self, polarity: str) -> list[Mention]:
        return [m for m in self.mentions if m.polarity == polarity]

    @property
    def searchable_text(self) -> str:
        """The brief without its cue words and what it excludes or says of the reader: what keywords, the vector
        query and the intent are read from (an excluded author makes no spotlight)."""
        spans = self.excluded_spans + self.reader_spans
        return "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(self.text))

    def segments(self) -> list[tuple[str, bool]]:
        """The searchable text in pieces, each with whether it is a catalog name (to keep whole); the numbers
        ("八九十年代", "300页以内") left out, since a year or a page count is a condition, never a keyword."""
        text, pieces, at = self.searchable_text, [], 0
        blanks = self.number_spans + self.said_spans
        text = "".join(" " if any(a <= i < b for a, b in blanks) else ch for i, ch in enumerate(text))
        for start, end in self.name_spans:
            if text[start:end].strip() == self.text[start:end]:  # not blanked as excluded or about the reader
                pieces += [(text[at:start], False), (text[start:end], True)]
                at = end
        return [p for p in [*pieces, (text[at:], False)] if p[0].strip()]

    @property
    def covered(self) -> float:
        """Share of the brief's letters and characters that a mention or a number explains."""
        content = [i for i, ch in enumerate(self.text) if ch.isalpha()]
        if not content:
            return 0.0
        spans = [(m.start, m.end) for m in self.mentions] + list(self.number_spans)
        return sum(1 for i in content if any(a <= i < b for a, b in spans)) / len(content)


def _in_one_script(text: str, cues: Cues) -> str:
    """A brief written in traditional characters read in the simplified the zh pack is written in ("療癒一點的繪本"):
    where two characters or more only the traditional script writes stand in it; a character simplified text writes
    too is never folded ("名著" stays, as "四大名著" does in a simplified brief)."""
    kept = cues.clauses.kept_characters
    if len({ch for ch in text if ch not in kept and simplified(ch) != ch}) < 2:
        return text
    return "".join(ch if ch in kept else simplified(ch) for ch in text)


def _both_ages(mentions: list[Mention], grown: list[Mention], seg: Segmented, cues: Cues) -> list[Mention]:
    """A shelf for every age that names grown-ups ("for all ages … a few for adults"), or grown-ups and children both asked for: listed together ("for adults, teens and kids", "大人和孩子"), named in
    one clause that an any-of-these word follows ("大人小孩都可以读", "kids and adults both welcome"), or the grown-ups
    added with an additive word ("children's books, plus a few for adults too", "童书，也放几本给大人的", "for adults
    plus a few for the kids") the shelf is
    for everyone, and says nothing of children's books; otherwise the grown-ups' word says whose books these are
    ("成人童话", "给小朋友的另外放，大人看的…"), and the children's word asks for nothing. A grown-ups' word that opens
    a reading context's words ("大人和孩子一起看的书", whose context holds the children) says who reads together, not
    whose books."""
    text = seg.text
    together = {g for g in grown for m in mentions if m.field == "reading_context"
                and m.polarity in (WANTED, ALLOWED) and m.start >= g.end and not text[g.end:m.start].strip()}
    grown = [g for g in grown if g not in together]
    children = [m for m in mentions if m.field == "audience" and m.polarity in (WANTED, ALLOWED)]
    dropped, allowed = set(together), set()
    if grown and children:
        pairs = sorted(grown + children, key=lambda m: m.start)
        joined = any(list_gap(text[a.end:b.start], cues) is not None for a, b in zip(pairs, pairs[1:])
                     if (a in grown) != (b in grown))
        # the later of the two added to the other ("for adults plus a few for the kids"), whichever is first, or
        # counted as a few books after the other ("成人的为主，角落放两三本给孩子的", "for grown-ups and a couple for the kids")
        added = any(find_terms(text[slice(*seg.clause_of(later.start))], cues.additive)
                    or small_count(text, max(seg.clause_of(later.start)[0], earlier.end), later.start, cues.numbers)
            for g in grown for c in children
            for earlier, later in (sorted((g, c), key=lambda m: m.start),))
        # any word that lets each of them in will do: "都可以", "both welcome", "都能看"
        letting = (*cues.any_of_these, *cues.words_of((ALLOW,), CLAUSE))
        both = any((clause := seg.clause_of(g.start)) == seg.clause_of(c.start)
                   and find_terms(text[max(g.end, c.end):clause[1]], letting)
                   for g in grown for c in children)
        # each age given a kind of book of its own ("picture books for the kids, soccer histories for the grown-ups"):
        # the shelf is in parts, each kind a part's, required of no book of the other
        given = [(k, age) for age in (*grown, *children) for k in mentions
                 if (k.field in KIND_FIELDS or k in children) and k.end <= age.start
                 and _given_to(text[k.end:age.start], cues)]
        parts = [k for k, _ in given]
        # (a part put elsewhere is none of this shelf: "and a separate table of picture books for toddlers")
        parted = any(age in grown for _, age in given) and any(
            (k in children or (k, c) in given) for c in children for k in parts if k.end <= c.start
            and not put_elsewhere(text[slice(*seg.clause_of(c.start))], cues))
        dropped |= set(children) | (set(grown) if joined or added or both or parted else set())
        allowed |= {k for k in parts if k.field in KIND_FIELDS and k.polarity == WANTED} if parted else set()
    # a shelf for every age ("for all ages: picture books and a few for adults", "全家老少都能读的，从幼儿到爷爷奶奶"): no
    # age is whose books these are; "kids of all ages", "各年龄段小读者" are still kids, the every-age words saying which
    # kids; children only let in ("fine for middle grade too") stay let in
    def beside(end: int, start: int) -> bool:
        return 0 <= start - end <= _QUALIFIES and not seg.any_end(end, start)
    every = [(a, b) for a, b, _ in find_terms(text, cues.readings.everyone)]
    of_all_ages = [(a, b) for a, b in every if any(beside(c.end, a) or beside(b, c.start) for c in children)]
    if grown and every or len(of_all_ages) < len(every):
        dropped |= set(grown) | {m for m in mentions if m.field == "audience"
                                 and (m.polarity == WANTED or grown and m.polarity == ALLOWED)}
    # the reader's words, no condition and no topic ("大人小孩" had searched for 大人, "kids" for children's books)
    return [replace(m, polarity=READER) if m in dropped else replace(m, polarity=ALLOWED) if m in allowed else m
            for m in mentions]


def _given_to(gap: str, cues: Cues) -> bool:
    """Whether what stands between a kind of book and a reader gives the books to the reader: a word for books or
    none, a for-whom word, a few words of the reader's own after it ("for their", "书给", "给刚学棋的")."""
    return bool(regex(rf"^\s*(?:{alternation(cues.readings.book_words)})?\s*(?:{alternation(cues.for_whom)})"
                      rf"(?:\s*[\w'’-]+){{0,2}}?\s*$", re.IGNORECASE).match(gap))


def _owner(word: str, cues: Cues) -> str:
    """The word without a possessive mark ending it (the packs' `possessive`): "bryson's own books", "Orwell's
    excluded" name Bryson and Orwell, whose short names the catalog knows."""
    return next((word[:-len(p)] for p in sorted(cues.readings.possessive, key=len, reverse=True)
                 if len(word) > len(p) and word.endswith(p)), word)


def _person_name(word: str, cues: Cues, after: str = "") -> bool:
    """Whether the tokenizer's dictionary tags the word as a person's name, or a person's word follows it (`after`,
    the text right after it: "宫部美幸本人的", "Mansfield herself", never a Latin word in lower case: "the author
    himself"); the packs' `person_names`."""
    return (bool(cues.readings.person_tags) and len(word) >= cues.readings.person_min_length
            and dictionary_tag(word) in cues.readings.person_tags
            or after.lstrip().startswith(cues.readings.person_after) and not (word.isascii() and word.islower()))


def _said_as_a_person(name: str, text: str, cues: Cues) -> bool:
    """Whether the brief says the name as a person's: after an authorship word ("by George MacDonald Fraser") or with
    a possessive ("Katherine Mansfield's Selected Stories"), not as a place ("New York stories")."""
    r = cues.readings
    by = alternation(tuple(w for w in r.authorship_before if w.isascii())) if r.authorship_before else "(?!)"
    owned = alternation(tuple(r.possessive)) if r.possessive else "(?!)"
    return regex(rf"\b(?:{by})\s+{re.escape(name)}\b|{re.escape(name)}(?:{owned})", re.IGNORECASE).search(
        text) is not None


def _written(text: str, word: str, start: int) -> tuple[str, str]:
    """The word as the brief writes it at its first place from `start` on, in any case ("Mansfield" of the topic
    "mansfield"), and the text after it ("" where it is not there)."""
    at = text.lower().find(word.lower(), start)
    if at < 0:
        return word, ""
    said = text[at:at + len(word)]
    # a surname the brief gave in full before: "Katherine Mansfield's Selected Stories ..., but leave out Mansfield"
    full = re.search(rf"(?:[A-Z][\w'-]+\s+)+{re.escape(said)}\b", text[:at]) if said[:1].isupper() else None
    return (full.group(0) if full else said), text[at + len(word):]


def _exclusion_around(start: int, end: int, scopes: list[Scope]) -> Scope | None:
    """The innermost exclusion scope holding the span."""
    return min((s for s in scopes if s.start <= start and end <= s.end and s.polarity == EXCLUDED),
               key=lambda s: s.end - s.start, default=None)


def _asked_heads_kept(mentions: list[Mention], scopes: list[Scope], text: str, cues: Cues) -> list[Mention]:
    """"Crime novels …, just no cozy mysteries", "Poems about the sea, no epic poetry": an excluded value the brief
    also asks for is the head of the phrase excluded, and what modifies it there (cozy, epic) is the exclusion:
    the head stays asked for. Alone in its scope ("mysteries, but no mysteries") it stays a contradiction, which
    review asks about."""
    asked = {(m.field, m.value) for m in mentions if m.polarity in (WANTED, REQUIRED)}

    def modified(mention: Mention) -> bool:
        scope = _exclusion_around(mention.start, mention.end, scopes)
        if scope is None:
            return False
        last = last_word(text, scope.start, mention.start).lower()
        described = (bool(last) and last not in brief_stopwords() and not is_stopword(last)
                     and bool(phrase_topic(last, cues)))  # "epic" poetry, not "一本" 童书
        return described or any(other is not mention and other.polarity == EXCLUDED
                                and scope.start <= other.start and other.end <= scope.end for other in mentions)
    return [m for m in mentions if not (m.polarity == EXCLUDED and (m.field, m.value) in asked and modified(m))]


def _narrowed_by_class(mentions: list[Mention], scopes: list[Scope], text: str) -> list[Mention]:
    """"不要日本推理小说", "no American novels": the kinds of book excluded right after a nation's literature say
    which of its books are meant, and the nation is what is excluded: every mystery and novel had been."""
    kept: list[Mention] = []
    chain: tuple[Mention, int] | None = None  # the excluded nation, and where the kinds right after it end
    for mention in mentions:
        if (chain is not None and mention.polarity == EXCLUDED and mention.field in ("form", "genre")
                and not text[chain[1]:mention.start].strip(" 的")
                and _exclusion_around(mention.start, mention.end, scopes)
                is _exclusion_around(chain[0].start, chain[0].end, scopes)):
            chain = (chain[0], mention.end)
            continue
        kept.append(mention)
        chain = (mention, mention.end) if mention.field == "classification" and mention.polarity == EXCLUDED else None
    return kept


def _modified_forms(mentions: list[Mention], scopes: list[Scope], text: str, cues: Cues,
                    vocabulary: Vocabulary) -> list[Mention]:
    """"不要网络小说", "no graphic novels", "no romance novels", "不要推理小说": an excluded form with a word
    before it in its exclusion excludes that kind of it, not the form: every novel had been excluded.

    The word is a value of the form's own kind (推理: mysteries are fiction, romance: a mood): that value
    stays excluded and the form goes. Otherwise (网络, graphic, 历史 — history is no kind of novel) the words
    together are excluded as a subject heading writes them ("网络小说", "Graphic novels")."""
    out = list(mentions)
    for m in mentions:
        if m.polarity != EXCLUDED or m.field != "form":
            continue
        scope = _exclusion_around(m.start, m.end, scopes)
        last = last_word(text, scope.start, m.start) if scope is not None else ""
        if not last or not phrase_topic(last, cues) or last.lower() in brief_stopwords():
            continue  # "不要小说", "no more novels", "no fiction or poetry"
        start = text.rindex(last, scope.start, m.start)
        modifier = next((o for o in out if o is not m and o.polarity == EXCLUDED and start <= o.start < m.start), None)
        kind = vocabulary.kind("form", m.value)
        same_kind = modifier is not None and modifier.field in vocabulary.dimension_names and (
            modifier.field != "genre" or kind is None or modifier.value in kind.genres)
        out.remove(m)
        if not same_kind:
            if modifier is not None:
                out.remove(modifier)
            out.append(Mention(start, m.end, "subject", text[start:m.end].lower(), EXCLUDED))
    return sorted(out, key=lambda x: x.start)


def _audiences_kinds(mentions: list[Mention], text: str, cues: Cues) -> list[Mention]:
    """"no children's popular science", "不要少儿科普": a kind of book right after the audience it is excluded for is
    that audience's books of the kind, excluded with the audience; the kind itself is not (the shelf may hold grown-ups'
    popular science), which had emptied shelves of their own kind. Not a material: "no children's DVDs" on a shelf of
    recordings keeps the DVDs off."""
    possessive = regex(rf"\s*(?:{alternation(cues.readings.possessive)})?\s*$", re.IGNORECASE)
    audiences = [m for m in mentions if m.field == "audience" and m.polarity == EXCLUDED]
    return [m for m in mentions if not (m.polarity == EXCLUDED and m.field in KIND_FIELDS and any(
        a.end <= m.start and possessive.fullmatch(text[a.end:m.start]) for a in audiences))]


def _qualified_values(mentions: list[Mention], scopes: list[Scope], text: str, cues: Cues,
                      vocabulary: Vocabulary) -> list[Mention]:
    """"nothing about travel by car", "no romance between teachers and students": an excluded value that a qualifying
    word joins to what follows it in its exclusion (readings.yaml `qualifying`) names that narrower thing, excluded as
    the words say it, a subject; the value stays free (a walking shelf had lost every travel book)."""
    qualifying = cues.readings.qualifying
    if not qualifying:
        return mentions
    joined = regex(rf"\s+(?:{alternation(qualifying)})\s+([\w'-]+)", re.IGNORECASE)
    out = []
    for m in mentions:
        scope = _exclusion_around(m.start, m.end, scopes) if m.polarity == EXCLUDED else None
        after = joined.match(text, m.end, scope.end) if scope and m.field in vocabulary.dimension_names else None
        if after is None or after.group(1).lower() in cues.filler or after.group(1).lower() in brief_stopwords():
            out.append(m)
            continue
        out.append(Mention(m.start, after.end(), "subject", text[m.start:after.end()].lower(), EXCLUDED))
    return out


def _kinds_said_otherwise(found: list[tuple[int, int, str, str]], text: str, cues: Cues
                          ) -> tuple[list[tuple[int, int, str, str]], list[tuple[int, int]]]:
    """The names and values found without the kinds of book the words around them say otherwise, and the spans of
    those said as a likeness. A kind right before a likeness (readings.yaml `kind_likeness`) says how a book reads,
    not what it is ("史诗般的家族小说", "fairy-tale-like love stories": poetry and children's books had been required);
    a kind inside its writers' word (`kind_people`) beside another kind is who wrote the book or whom it is about
    ("诗人传记", "小说家的散文随笔": poetry or fiction had been offered as the shelf's other kind)."""
    likeness = tuple(w.lower() for w in cues.readings.kind_likeness)
    likened = [(f[0], f[1]) for f in found
               if f[2] in (*KIND_FIELDS, "audience") and text[f[1]:].lower().startswith(likeness)]
    found = [f for f in found if (f[0], f[1]) not in likened]
    people = [(a, b) for a, b, _ in find_terms(text, cues.readings.kind_people, plural=True)]
    among = [f for f in found if f[2] in KIND_FIELDS and any(a <= f[0] and f[1] <= b for a, b in people)]
    if any(f[2] in KIND_FIELDS and f not in among for f in found):
        found = [f for f in found if f not in among]
    return found, likened


def _kinds_of_forms(mentions: list[Mention], text: str, cues: Cues, vocabulary: Vocabulary) -> list[Mention]:
    """"不要武侠", "no sagas": a form excluded by an everyday word for one kind of it (readings.yaml `kinds`) excludes
    that kind, not the form: every novel had been excluded. The kind is the vocabulary value the word names where
    one does (言情: a mood), else a subject. Asked for, the word asks for the form and wishes for that kind: "武侠小说"
    and "中短篇小说" had taken any novel, and said "done"."""
    words = {k.name: {w.lower() for w in cues.readings.values.get(k.name, ())} for k in vocabulary.kinds}
    named = {a.lower(): (v.dimension, v.name) for v in vocabulary.all_values() for a in (v.name, *v.aliases)}
    out = []
    for m in mentions:
        said = text[m.start:m.end].lower()
        if m.field != "form" or said not in words.get(m.value, ()):
            out.append(m)
        elif m.polarity == EXCLUDED:
            out.append(Mention(m.start, m.end, *named.get(said, ("subject", said)), EXCLUDED))
        else:
            out.append(m)
            if m.polarity in (WANTED, REQUIRED):
                out.append(Mention(m.start, m.end, *named.get(said, ("subject", said)), WANTED))
    return out


def _narrower_topics(mentions: list[Mention], text: str, vocabulary: Vocabulary) -> list[Mention]:
    """"想做一个历史书架……不要中国古代史", "历史书，但不要古代的": an excluded value that shares a name with another
    value the brief asks for (历史现场 and the genre 历史 are both "历史") names a part of what is asked, not
    the whole value: the word it was read from (古代史, 古代) is excluded as a subject. Excluding the historical
    setting had left the history shelf empty."""
    names = {(v.dimension, v.name): {v.name.lower(), *(a.lower() for a in v.aliases)} for v in vocabulary.all_values()}
    asked = {(m.field, m.value) for m in mentions if m.polarity in (WANTED, REQUIRED)}
    asked_names = set().union(*(names.get(key, set()) for key in asked))
    # the same value asked by one word and excluded by another ("mysteries, but no thrillers", "科幻，不要太空歌剧")
    # excludes that word's part of it: the value both required and excluded had left the shelf empty
    said = {(m.field, m.value): text[m.start:m.end].lower() for m in mentions
            if m.polarity in (WANTED, REQUIRED, ALLOWED)}
    narrower = [m for m in mentions if m.polarity == EXCLUDED
                and ((m.field, m.value) not in asked and names.get((m.field, m.value), set()) & asked_names
                     or m.field in KIND_FIELDS  # a kind of book; a quality said twice is one ("hard", "not difficult")
                     and said.get((m.field, m.value), text[m.start:m.end].lower()) != text[m.start:m.end].lower())]
    if not narrower:
        return mentions
    bounds = sorted(word_bounds(text))  # jieba's words: only for a brief that has such an exclusion

    def topic(m: Mention) -> Mention:
        start, end = next(((a, b) for a, b in zip(bounds, bounds[1:]) if a <= m.start and m.end <= b),
                          (m.start, m.end))
        return Mention(start, end, "subject", text[start:end].lower(), EXCLUDED)
    return [topic(m) if m in narrower else m for m in mentions]


def read_brief(text: str, vocabulary: Vocabulary, entities=None, today: date | None = None,
               cues: Cues | None = None) -> Reading:
    """The brief's mentions, each with the polarity its cues give it, and its numeric conditions."""
    cues = cues or load_cues()
    text = _in_one_script(unicodedata.normalize("NFKC", text), cues)
    seg = segment(text, cues)  # the brief's clauses and words, made once: every reader below reads them
    numbers = find_numbers(text, today, cues.numbers, seg.clause_of)
    number_spans = [(n.start, n.end) for n in numbers]
    # A book's title in 《》 and an occasion's name are names: their words are no mood, setting or kind ("《百年孤独》"
    # is not 孤独, "Women's History Month" asks for no history books).
    audience_readers, occasion_topics, occasion_values = everyday_readings(text, cues, vocabulary)
    # so is a title written in title case in a read-alike's place, the catalog holding it or not ("travel books like
    # Neither Here Nor There": its "Neither" negates nothing)
    unknown_titles = titled_after_alike(text)
    names = ([(m.start(), m.end()) for m in _BOOK_TITLE.finditer(text)] + [(t.start, t.end) for t in occasion_topics]
             + unknown_titles)
    # so is a catalog title unquoted, written as a title or beside a read-alike word ("If you loved The Secret History")
    titles = [(a, b) for a, b, _ in entities.title_spans(text) if named_as_title(seg, a, b, cues)] if entities else []
    found = [f for f in resolve_overlaps(find_candidates(seg, vocabulary, cues, entities) + occasion_values)
             if not any(a < f[1] and f[0] < b for a, b in number_spans)
             and (f[2] in ("author", "work") or (f in occasion_values or not any(a <= f[0] and f[1] <= b
                                                                                for a, b in names))
                  and not any(a <= f[0] and f[1] <= b for a, b in titles))]
    found, likened = _kinds_said_otherwise(found, text, cues)
    spans = [(f[0], f[1]) for f in found] + number_spans
    # a cue inside a catalog title, quoted or not, is part of the name: "Books like Never Let Me Go"
    # of several words: a one-word title is a word of the brief first ("nothing heart-warming" over a catalog
    # holding a book called "Nothing" had wished for heart-warming books)
    titled = ([(a, b) for a, b, _ in entities.title_spans(text) if " " in text[a:b]] if entities is not None
              else []) + unknown_titles
    cue_list = find_cues(seg, cues, spans + titled, frozenset(f[0] for f in found))
    # what a book is and whom it is for: "有趣而不幼稚的童书" excludes the childish, not the children's books
    kinds = [(f[0], f[1]) for f in found if f[2] in ("form", "genre", "audience")]
    scopes = find_scopes(seg, cue_list, spans, cues, kinds,
                         [(f[0], f[1]) for f in found if f[2] in vocabulary.dimension_names])

    def polarity(start: int, end: int) -> str:
        inside = [s for s in scopes if s.start <= start and end <= s.end and s.polarity != ALLOWED]
        if inside:  # the innermost scope decides ("不要只放小说" is a hedge, not an exclusion)
            return min(inside, key=lambda s: s.end - s.start).polarity
        return ALLOWED if any(s.start <= start and end <= s.end for s in scopes) else WANTED

    def for_the_reader(start: int, end: int) -> bool:
        """"nothing too scary for the kids": an audience the excluded quality is for, not excluded itself."""
        scope = _exclusion_around(start, end, scopes)
        return (scope is not None and cues.for_whom_before.search(text[scope.start:start]) is not None
                and any(scope.start <= f[0] < start for f in found))

    mentions = []
    grown: list[Mention] = []  # the grown-ups asked for, as the children's books they exclude
    for start, end, field_name, value in found:
        mood = polarity(start, end)
        if field_name == "audience" and mood == EXCLUDED and for_the_reader(start, end):
            mood = WANTED
        if field_name == "adult":  # "for grown-ups": children's books excluded; "not for grown-ups": wanted
            field_name, mood = "audience", {EXCLUDED: WANTED, READER: READER}.get(mood, EXCLUDED)
            grown += [Mention(start, end, field_name, value, mood)] if mood == EXCLUDED else []
        if (start, end, field_name, value) in occasion_values:  # a day's mood: a wish where the day is asked for,
            if mood not in (WANTED, REQUIRED, ALLOWED):  # nothing where not ("No Valentine this year?")
                continue
            mood = WANTED
        mentions.append(Mention(start, end, field_name, value, mood))
    # a value the brief names in words of its own is theirs to decide, not the day's ("Valentine's picks, no romance")
    own = {(m.field, m.value) for m in mentions if (m.start, m.end, m.field, m.value) not in occasion_values}
    mentions = [m for m in mentions if (m.start, m.end, m.field, m.value) not in occasion_values
                or (m.field, m.value) not in own]
    mentions = guardians_children(_both_ages(mentions, grown, seg, cues), seg, cues)
    mentions = counted_parts(not_asked(parts_by_reader(mentions, audience_readers, seg, cues), seg, cues), seg, cues,
                             number_spans)
    mentions = mixed_kinds(mentions, seg, cues, polarity)
    # a kind of a form said by its everyday word (言情, sagas) is that kind before any narrower part of the form is
    # looked for: the form asked for beside it had made it a subject
    mentions = _kinds_of_forms(_narrowed_by_class(mentions, scopes, text), text, cues, vocabulary)
    mentions = _narrower_topics(_asked_heads_kept(mentions, scopes, text, cues), text, vocabulary)
    mentions = _audiences_kinds(_qualified_values(mentions, scopes, text, cues, vocabulary), text, cues)
    mentions = bands_within(_modified_forms(mentions, scopes, text, cues, vocabulary), grown, text, cues)
    # "Books by Neil Gaiman or Terry Pratchett", "鲁迅或者沈从文的书": authors offered as alternatives are asked for,
    # not only allowed (as "几本科幻，刘慈欣的可以有" allows one); the brief had been no spotlight. Authors in a clause a
    # word of permission speaks for (not a joiner: 或者 is a hedge too) stay allowed, however many: "anything by Bill
    # Bryson or Paul Theroux is welcome" on a travel shelf is no spotlight
    joiners = {w.lower() for w in (*cues.adding, *cues.kind_words.get("alternative", ()))}
    permitted = [seg.clause_of(c.start) for c in cue_list if c.kind.effect == ALLOW and c.kind.direction == CLAUSE
                 and text[c.start:c.end].lower() not in joiners]
    offered = [m for m in mentions if m.field == "author" and m.polarity == ALLOWED
               and not any(a <= m.start < b for a, b in permitted)]
    if len({m.value for m in offered}) > 1:
        mentions = [replace(m, polarity=WANTED) if m in offered else m for m in mentions]
    # what an earlier shelf held, described or said as done before ("we did them last year"): nothing of it is asked
    done = done_clauses(text)
    referred = shelf_descriptions(text) + done
    contrasted = contrasted_clauses(text)
    notes = []
    numeric: list[NumericCondition] = []
    preferred: list[NumericCondition] = []
    preferring = [a for a, _, _ in find_terms(text, cues.preference)]
    clauses = clause_spans(seg, cue_list) if preferring else []
    g = cues.numbers
    overruled = overruled_years(numbers, cue_list, text, cues) | periods_of_other_things(numbers, seg, cue_list, cues)
    negations = {w.lower() for k in cues.kinds if k.effect == EXCLUDE for w in cues.kind_words.get(k.name, ())}
    for number in numbers:
        mood = polarity(number.start, number.end)
        # a negation the comparator holds is the comparator's, said once ("but not more than 350 pages" is at most
        # 350, not its opposite): the words the cue and the comparator share are a negation of their own
        if mood == EXCLUDED and any(c.start < number.start < c.end and text[number.start:c.end].strip().lower()
                                    in negations for c in cue_list if c.kind.effect == EXCLUDE):
            mood = WANTED
        if mood == READER or number in overruled or any(a <= number.start < b for a, b in referred):
            continue
        weight = number_weight(number, mood != EXCLUDED, scopes, seg, g)
        if weight != HARD:
            preferred += number.conditions if weight == WISH else ()
            continue
        said = number.conditions
        if mood == EXCLUDED:
            said = number.negated()
            if not said:
                notes.append(f"'{text[number.start:number.end]}' is excluded: a range of ratings cannot be, "
                             "so it is not used")
        # a preference holds over a bound said either way: "ideally under 300 pages", "最好别超过五百页"
        if any(a <= at < b for at in preferring for a, b in clauses if a <= number.start < b):
            preferred += said
        else:
            numeric += said
    excluded = [(s.start, s.end) for s in scopes if s.polarity == EXCLUDED]
    # a title excluded that the catalog lacks names no author, subject or value by its words: "Where the Crawdads Sing"
    # had excluded an author "Crawdads Sing" and crawdads, "The Midnight Library" late-night reading
    untitled = titles_within(text, excluded)
    mentions = [m for m in mentions if m.field == "work" or not any(a <= m.start and m.end <= b for a, b in untitled)]
    # the same brief with those titles and what earlier shelves held blanked, every character where it was: "not the
    # ones we showed last spring" excludes no subject "showed last spring"
    untitled_text = text
    for a, b in (*untitled, *referred):
        untitled_text = untitled_text[:a] + " " * (b - a) + untitled_text[b:]
    # an author the library says it has done ("we've already done Agatha Christie") is not shelved again, as a book
    # of a recent shelf is not; what else that clause names was only the earlier shelf's
    mentions = [replace(m, polarity=EXCLUDED) if m.field == "author" and any(a <= m.start and m.end <= b
                                                                             for a, b in done)
                else replace(m, polarity=REFERRED) if any(a <= m.start and m.end <= b for a, b in referred)
                or m.field in KIND_FIELDS and any(a <= m.start and m.end <= b for a, b in contrasted) else m
                for m in mentions]
    if entities is not None:  # an unquoted title counts where it is excluded ("no Moby-Dick"), over what it covers
        for a, b, work in entities.title_spans(text):  # but not a cue's own word (a book called "Nothing")
            if (any(x <= a and b <= y for x, y in excluded) and not any(c.start < b and a < c.end for c in cue_list)
                    and not any(m.field == "work" and m.start == a for m in mentions)):
                mentions = [m for m in mentions if m.end <= a or m.start >= b] + [Mention(a, b, "work", work,
                                                                                           EXCLUDED)]
    # a degree's quality ("nothing too clinical", "别太说教") is how a book reads, no subject of books to exclude
    degrees = {(s.start, s.end) for s in scopes if s.degree}
    for start, end in excluded:  # an excluded plain topic ("不要战争题材") excludes a subject
        if any(start <= a < end for a, _ in number_spans) or (start, end) in degrees:
            continue
        if any(start <= m.start < end for m in mentions):  # "别放工具书和励志书": 励志 is a value, 工具书 a topic
            people = any(start <= m.start < end and m.field == "author" for m in mentions)
            for a, b in joined_parts(text, start, end, cues):
                if any(a <= m.start < b for m in mentions):
                    continue
                said = [t for t in phrase_topics(text[a:b], cues) if t not in cues.pronouns]
                # a name of one script word joined to an excluded author is another ("东野圭吾和宫部美雪的都不要")
                field_name = "author" if people and len(said) == 1 and _NAME_RUN.fullmatch(said[0]) else "subject"
                mentions += [Mention(a, b, field_name, t, EXCLUDED) for t in said]
        else:
            topics = phrase_topics(untitled_text[start:end], cues)
            author = next((m for m in reversed(mentions) if m.field == "author" and m.end <= start), None)
            if " ".join(topics) in cues.pronouns and author is not None:  # "…刘慈欣的书…这次别放他的"
                mentions = [replace(m, polarity=EXCLUDED) if m == author else m for m in mentions]
                excluded.append((author.start, author.end))
            elif (entities is not None and find_terms(untitled_text[start:end], cues.readings.author_words)
                  and {t.lower() for t in topics} <= {w.lower() for w in cues.readings.author_words}
                  and (named := {m.value for m in mentions if m.field == "work"}
                       | {w for _, _, w in entities.title_spans(text)})):
                # "《嫌疑人X的献身》那种…，作者本人的先不放", "books like Never Let Me Go, nothing by the author herself":
                # the author of the book the brief names, no subject "author"
                mentions += [Mention(start, end, "author", name, EXCLUDED) for name in entities.authors_of(named)]
            else:
                # a period or literature's qualifier that is all a topic holds is that range ("明清的已经太多了，这次
                # 不要"), wherever the cue that excludes it stands
                ranges = class_ranges().by_word
                # a topic that is a catalog author's short name, one author's only ("村上本人的先不放", "阿加莎以外的")
                # is that author, not a subject heading's word
                short = ({**entities.cjk_surnames, **{k.lower(): v for k, v in entities.surnames.items()}}
                         if entities is not None else {})
                # a word the tokenizer's dictionary knows as a person's name is an author the catalog may lack
                # ("冯骥才的除外"), not a subject heading's word
                written = {t: _written(text, t, start) for t in topics}
                # a title in 《》 is a book, in the catalog or not ("《空谷幽兰》上回被借走了，不放"), never a person
                # (its words are no topic: "《我是猫》这回不放" excludes no books on cats)
                quoted = [m.group(1) for m in _BOOK_TITLE.finditer(text, start, end)]
                works = entities.title_works if entities is not None else {}
                mentions += [Mention(start, end, "work", works[t][0] if t in works else t, EXCLUDED) for t in quoted]
                topics = [t for t in topics if not any(t in title for title in quoted)]
                # so is a surname alone after the whole name said before it ("like The Pyrates by George MacDonald
                # Fraser, though not Fraser again"), the catalog holding the name or not
                mentions += [Mention(start, end, "classification", ranges[t], EXCLUDED) if t in ranges
                             else Mention(start, end, "author", short[_owner(t, cues)], EXCLUDED)
                             if _owner(t, cues) in short
                             else Mention(start, end, "author", written[t][0], EXCLUDED)
                             if _person_name(written[t][0], cues, written[t][1])
                             or _said_as_a_person(written[t][0], text, cues) and written[t][0].lower() != t.lower()
                             else Mention(start, end, "subject", t, EXCLUDED) for t in topics if t not in cues.pronouns]
                # a topic that is a catalog title ("三体就别再放了") is that book too, however short its title
                mentions += [Mention(start, end, "work", works[t][0], EXCLUDED) for t in topics if t in works]
    # a person's name excluded is an author, not in the catalog ("skip John Grisham", "[英] 罗杰·迪金的不放"; the
    # catalog's own names are read as theirs)
    known = ([(a, b) for a, b in entities.whole_names(text)] if entities is not None else []) + [
        (m.start, m.end) for m in mentions if m.field in ("author", "work")] + untitled
    short = ({**entities.cjk_surnames, **{k.lower(): v for k, v in entities.surnames.items()}}
             if entities is not None else {})
    # a surname several catalog authors share is the one whose book the brief names, else each of them ("nothing by
    # Joyce" had excluded no catalog author)
    mentions += [Mention(a, b, "author", owner, EXCLUDED) for start, end in excluded if (start, end) not in degrees
                 for a, b, name in excluded_people(text, start, end, cues)
                 if not any(x < b and a < y for x, y in known) and name.lower() not in short
                 for owner in (entities.owners_of(name, text) if entities is not None else ()) or (name,)]
    # the reader's own words (a kind named for the reader, both ages of an all-ages shelf) are no keyword either
    readers = ([(s.start, s.end) for s in scopes if s.polarity == READER] + audience_readers
               + [(m.start, m.end) for m in mentions if m.polarity == READER])
    # An exclusion is blanked from the searchable text, and so is a degree ("not too long", "别太长"), which names
    # no topic to search for.
    excluded = [(a, b) for a, b in excluded
                if any(a <= m.start < b for m in mentions if m.polarity == EXCLUDED)
                or any(a <= n.start < b for n in numbers) or not phrase_topic(text[a:b], cues) or (a, b) in degrees]
    cue_spans = [(c.start, c.end) for c in cue_list
                 if not c.negates_ahead or any(c.start <= a <= c.end or c.start <= b <= c.end for a, b in excluded)
                 or any(s.start <= c.start < s.end for s in scopes if s.polarity != EXCLUDED)]
    names = tuple(entities.whole_names(text)) if entities is not None else ()
    topics = [Topic(m.start, m.end, m.value, m.polarity, "excluded") for m in mentions
              if m.field == "subject" and m.polarity == EXCLUDED]
    # an everyday word read as a value or an audience ("cheerful", "fourth graders"), an occasion: no keyword
    # a kind said as a likeness is no topic either ("童话般的" searches no fairy tales); a kind of a form asked for by
    # its own word is ("武侠小说": _kinds_of_forms)
    topical = {(m.start, m.end) for m in mentions if m.field == "subject" and m.polarity == WANTED}
    said = [(t.start, t.end) for t in occasion_topics] + likened + [
        (a, b) for words in (*cues.readings.values.values(), *cues.readings.audiences.values())
        for a, b, _ in find_terms(text, words, plural=True) if (a, b) not in topical]
    reading = Reading(text, tuple(sorted(mentions, key=lambda m: m.start)), tuple(dict.fromkeys(numeric)),
                      tuple(excluded + cue_spans), tuple(readers + referred), tuple(notes), tuple(number_spans), names,
                      tuple(dict.fromkeys(preferred)), tuple(topics + occasion_topics), tuple(said))
    return replace(reading, topics=_asked_topics(reading, cues) + reading.topics)


def _asked_topics(reading: Reading, cues: Cues) -> tuple[Topic, ...]:
    """The content words of what the brief asks for, where each is first written."""
    lowered = reading.text.lower()
    return tuple(Topic(at, at + len(word) if at >= 0 else -1, word, WANTED, "asked")
                 for word in brief_keywords(reading.segments(), detect_language(reading.text), cues)
                 for at in (lowered.find(word.lower()),))

