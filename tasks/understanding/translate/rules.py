"""The offline, deterministic translator: a brief's reading (tasks/understanding/reading.py) into conditions,
BM25 keywords and a vector query. The same brief always gives the same ThemeQuery.

What each kind of mention becomes:
- a vocabulary value: SHOULD when wanted, MUST when required, MUST_NOT when excluded;
- a form or genre asked for: MUST, since it names the kind of book the shelf is ("科幻小说", "poetry"),
  unless the brief offers alternatives ("散文和小说都可以", "fiction or nonfiction", "也可以有一些诗"):
  then each is a wish; two kinds side by side are one book, the later (or, after a container word, the
  earlier) only a wish ("推理短篇集", "科普精选里的科幻"); a list offering a choice among kinds and other
  things ("a romance, a cozy mystery or a thriller") makes its kinds wishes; a form excluded while a wanted
  genre belongs to it excludes only the form's general genre ("短篇和随笔，不要长篇小说" keeps short stories);
- an audience or language asked for: MUST; excluded: MUST_NOT ("给大人看的" excludes children's books);
- a nation's literature (config/class_ranges.yaml): a wish on the record's fact of it, the `literature` facet (its
  class range, subject words, the author's nationality mark, the original language: tasks/catalog/crosswalk.py),
  and MUST_NOT on the other literatures, so a record stating another one is left out and one stating none stays;
  MUST where a requirement cue says so or several are offered as one-of; MUST_NOT when excluded;
- a period of Chinese history (config/class_ranges.yaml): asked, a wish on its classification codes; excluded,
  MUST_NOT on them and on its subject words, for a record without a code;
- an author or work excluded: MUST_NOT; an author required ("只要刘慈欣的"): MUST, either under every name
  config/aliases.yaml gives the author; named otherwise, the intent takes it (an author spotlight, "more like
  this book");
- a topic excluded ("不要战争题材"): MUST_NOT on the subject headings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import NamedTuple

from config.class_ranges import class_ranges
from config.vocabulary import Vocabulary, load_aliases
from tasks.language.text_analysis import detect_language
from tasks.model.conditions import FilterCondition, merge_conditions
from tasks.model.query import ThemeQuery
from tasks.model.themes import Theme
from tasks.understanding.analysis import KIND_FIELDS, find_terms, list_gap, longest_apart, put_elsewhere, segment
from tasks.understanding.cues import alternation, regex, term_pattern
from tasks.understanding.expansion import load_expansion_tables
from tasks.understanding.reading import ALLOWED, EXCLUDED, REQUIRED, WANTED, Cues, Mention, Reading, load_cues
from tasks.understanding.topics import brief_keywords, has_topic, last_word
from tasks.understanding.translate.base import Translator

MODIFIER_CHARACTERS = 4  # the most characters of an unspaced modifier between an about-word and whom it is about
_MODIFIES = re.compile(r"[\s-]*(?:的\s*)?")  # between a value and the kind it qualifies: "cozy mysteries", "温馨的推理"


def _form_sets(mentions: list[Mention], vocabulary: Vocabulary) -> list[set[str]]:
    """The forms each form or genre mention stands for (科幻 is fiction; 散文随笔 is essays and nonfiction)."""
    forms = vocabulary.kinds_of("form")
    return [{m.value} if m.field == "form" else {k.name for k in forms if m.value in k.genres} for m in mentions]


def conditions_of(reading: Reading, vocabulary: Vocabulary) -> tuple[FilterCondition, ...]:
    """The filter conditions a reading states (see the module docstring)."""
    cues = load_cues()
    wishes = (_kinds_as_wishes(reading.mentions, reading.text, cues, vocabulary)
              | _kinds_beside_other_things(reading, cues) | _kinds_in_added_parts(reading, cues)
              | _materials_beside_books(reading, cues) | _kinds_listed_with_values(reading, cues, vocabulary)
              | _kinds_beside_other_books(reading, cues))
    about_people = _people_as_topics(reading, cues)  # topics, not readers: no audience condition
    kept = [m for m in reading.mentions if m not in wishes and m not in about_people]
    asked = [m for m in kept if m.field in KIND_FIELDS and m.polarity == WANTED]
    alternatives = any(a.isdisjoint(b) for a, b in combinations([s for s in _form_sets(asked, vocabulary) if s], 2))
    one_of = _one_of_the_kinds(kept, vocabulary, alternatives)
    languages = _languages_offered(kept)
    conditions = [*one_of, *languages]
    kept_out = {m for m in kept if languages and m.field == "language" and m.polarity in (WANTED, ALLOWED)}
    asked_words = {reading.text[m.start:m.end].lower() for m in reading.mentions if m.polarity in (WANTED, REQUIRED)}
    for mention in _narrowed_exclusions(reading.mentions, reading.text):
        if (_literature(mention) and mention.polarity != EXCLUDED) or mention in about_people or mention in kept_out:
            continue  # asked literatures and offered languages are read together (_asked_literatures, _languages_offered)
        operator = "SHOULD" if mention in wishes else _operator(mention, alternatives or bool(one_of))
        if operator:
            # an excluded topic by its other names: "no WWII" is the subject heading "World War, 1939-1945";
            # never by a name the brief asks for, or one holding its words ("History, but nothing historical
            # fiction" keeps "history"; "Crime novels, nothing noir" keeps "crime fiction")
            values = (_with_plurals(v for v in load_expansion_tables().same_as(mention.value)
                                    if v == mention.value or not asked_words & {v.lower(), *v.lower().split()})
                      if mention.field == "subject" else _author_names(mention.value)
                      if mention.field == "author" else (mention.value,))
            if mention.field == "classification":
                conditions += _class_conditions(mention.value, operator)
            else:
                conditions.append(FilterCondition(mention.field, values, operator))
    conditions += _asked_literatures(reading)
    return _drop_weaker_duplicates(merge_conditions(_narrow_excluded_forms(conditions, vocabulary)))


def _languages_offered(kept: Sequence[Mention]) -> list[FilterCondition]:
    """Several languages a brief names for one shelf are the languages it holds ("books in English or French, either
    is fine", "English and Spanish for the bilingual story time"): one of them is required, where each alone, merely
    allowed by the "or", had been a wish and the shelf any language."""
    asked = dict.fromkeys(m.value for m in kept if m.field == "language" and m.polarity in (WANTED, ALLOWED))
    return [FilterCondition("language", tuple(asked), "MUST")] if len(asked) > 1 else []


def _literature(mention: Mention) -> bool:
    return mention.field == "classification" and class_ranges().entry(mention.value).kind == "literatures"


def _asked_literatures(reading: Reading) -> list[FilterCondition]:
    """The literatures a brief asks for, on the record's fact of each (the `literature` facet): a nation named
    plainly ("日本小说", "Latin American fiction") is a wish, as "Japanese novels" still welcomes a record that
    states no literature, and excludes those whose record states another one; a requirement cue ("only British crime fiction") or several nations offered together
    ("法国小说或者德国小说都可以": the shelf holds one of them) requires it. Over a catalog whose records never say a literature,
    as_wishes (tasks/recall/filters.py) makes the condition a wish."""
    asked = [m for m in reading.mentions if _literature(m) and m.polarity in (WANTED, REQUIRED, ALLOWED)]
    prefer = load_cues().preference
    preferred = [m for m in asked if _in_clause_with(reading.text, m, prefer)]
    firm = [m for m in asked if m not in preferred]
    named = tuple(dict.fromkeys(m.value for m in firm))
    # a group beside one of its own members is narrowed by it ("欧美推理……先从英国古典推理开始" is British)
    named = tuple(k for k in named if not set(class_ranges().entry(k).members) & set(named))
    values = class_ranges().literatures_of(named)  # a group ("外国小说") is its members
    required = any(m.polarity == REQUIRED for m in firm) or len(named) > 1
    out = [FilterCondition("literature", values, "MUST" if required else "SHOULD")] if values else []
    if values and not required and any(m.polarity != ALLOWED for m in firm):
        # a wish on the asked literature, and no book whose record says it is another one: "日本小说" keeps a
        # record that states no literature, never a Chinese novel that only mentions Japan (沉沦); one only let in
        # ("日本作家的也行") leaves the others in
        out.append(FilterCondition("literature", class_ranges().other_literatures(
            class_ranges().literatures_of((*named, *(m.value for m in preferred)))), "MUST_NOT"))
    return out + [FilterCondition("literature", class_ranges().literatures_of((m.value,)), "SHOULD")
                  for m in preferred]


def _in_clause_with(text: str, mention: Mention, cues: Iterable[str]) -> bool:
    """Whether one of the cues stands in the mention's clause (the brief's one segmentation)."""
    start, end = segment(text).clause_of(mention.start)
    clause = text[start:end].lower()
    return any(cue.lower() in clause for cue in cues)


def _narrowed_exclusions(mentions: Sequence[Mention], text: str) -> list[Mention]:
    """A kind of book the brief asks for and excludes right after another excluded value is narrowed by it:
    "crime novels, no cozy mysteries" excludes the cozy ones, not the mysteries it asks for."""
    asked = {(m.field, m.value) for m in mentions if m.polarity in (WANTED, ALLOWED, REQUIRED)}
    return [m for before, m in zip([None, *mentions], mentions)
            if not (m.polarity == EXCLUDED and m.field in KIND_FIELDS and (m.field, m.value) in asked
                    and before is not None and before.polarity == EXCLUDED
                    and _MODIFIES.fullmatch(text[before.end:m.start]))]


@cache
def _author_names(author: str) -> tuple[str, ...]:
    """An author by every name config/aliases.yaml gives: where the catalog holds one author under two names
    (Ernest Hemingway and 海明威, each the other's alias), "nothing by Hemingway" excludes the books of both."""
    return (author, *load_aliases("authors").get(author, ()))


def _class_conditions(key: str, operator: str) -> list[FilterCondition]:
    """A literature or period on its class codes; excluded, on its subject words too: a wish on them would
    rank apart from the codes, so only an exclusion reaches the records that have no class code."""
    entry = class_ranges().entry(key)
    if entry.kind == "literatures":
        return [FilterCondition("literature", class_ranges().literatures_of((key,)), operator)]
    conditions = [FilterCondition("classification", entry.codes, operator)]
    if operator == "MUST_NOT" and entry.subjects:
        conditions.append(FilterCondition("subject", entry.subjects, operator))
    return conditions


def _with_plurals(values: Iterable[str]) -> tuple[str, ...]:
    """English subject words also as headings pluralise them: "no pirates" is read as "pirate", and a Latin
    subject term matches whole words only, so "Pirates -- Fiction" had not been excluded."""
    out = []
    for value in values:
        out.append(value)
        last = value.rsplit(" ", 1)[-1]
        if value.isascii() and last.isalpha() and len(last) >= 3 and not last.endswith("s"):
            out.append(value[:-1] + "ies" if re.search(r"[^aeiou]y$", last) else
                       value + "es" if last.endswith(("x", "ch", "sh")) else value + "s")
    return tuple(dict.fromkeys(out))


def _kinds_as_wishes(mentions: Sequence[Mention], text: str, cues: Cues, vocabulary: Vocabulary) -> set[Mention]:
    """The kinds of book asked for that only qualify another or are one choice among other things:
    - two kinds side by side, nothing joining them, describe one book: of one field the later qualifies the first
      ("日本推理短篇集", "science fiction short stories"), where one book can be both; a genre before a form no book
      of that genre has is what the books are about ("历史小说": novels); with a container word between them the
      second is found inside the first ("科普佳作精选里的科幻"), and the first qualifies it;
    - a list that offers a choice ("a romance, a cozy mystery or a snowed-in thriller") with an item naming no kind of
      book makes each kind in it one choice among other things: a wish, never a requirement of one alone."""
    seg = segment(text)
    asked = [m for m in mentions if m.polarity in (WANTED, ALLOWED)]
    kinds = [m for m in asked if m.field in KIND_FIELDS]
    forms = _form_sets(kinds, vocabulary)
    wishes: set[Mention] = set()
    for (first, one), (second, other) in zip(zip(kinds, forms), list(zip(kinds, forms))[1:]):
        gap = text[first.end:second.start]
        if first.value == second.value or seg.any_end(first.end, second.start):
            continue
        if first.field == second.field and any(c in gap.lower() for c in cues.clauses.containers):
            wishes.add(first)
        elif not gap.strip(" -" + cues.clauses.particles):
            if one & other:  # one book both: the later qualifies the first, unless it is the general form
                wishes |= {second} if first.field == second.field else set()
            elif first.field != second.field and one and other:
                wishes.add(first)  # "历史小说": the head names the kind, the word before it what the novels are about
    items: list[list[Mention]] = []  # the mentions side by side, one item each ("cozy mystery")
    for mention in asked:
        if items and not text[items[-1][-1].end:mention.start].strip(" -" + cues.clauses.particles):
            items[-1].append(mention)
        else:
            items.append([mention])
    chain, offers = items[:1], False
    for item in [*items[1:], None]:
        gap = list_gap(text[chain[-1][-1].end:item[0].start], cues) if item is not None else None
        if gap is not None:
            chain.append(item)
            offers = offers or gap
            continue
        if offers and _offers_other_things(chain, text, cues) and not _values_offered(chain):
            wishes |= {m for i in chain for m in i if m.field in KIND_FIELDS}
        chain, offers = [item], False
    return wishes


def _values_offered(chain: list[list[Mention]]) -> bool:
    """Whether a choice is among the languages a kind is read in, not among things: every item after the first holds
    only a language ("mysteries in English or in French", "Latin American poetry, in Spanish or in English
    translation": the poetry whichever is chosen)."""
    return all({m.field for m in item} <= {"language"} for item in chain[1:])


def _kinds_beside_other_things(reading: Reading, cues: Cues) -> set[Mention]:
    """The kinds of book a brief names as one part of its shelf, not what every book must be: a MUST needs the kind
    to head what the brief asks, and here the words say otherwise (_kinds_listed_with_topics, _kinds_as_topics); a
    kind joined straight to one of them by a joiner is one with it ("in history and science")."""
    kinds = [m for m in reading.mentions if m.field in KIND_FIELDS and m.polarity in (WANTED, ALLOWED)]
    runs = _runs(kinds, reading.text, regex(rf"(?:\s|{alternation(tuple(cues.clauses.joiners))})*", re.IGNORECASE))
    out = _kinds_listed_with_topics(reading, kinds, cues) | _kinds_as_topics(reading.text, runs, cues)
    # the whole run, not only the neighbours: "in history, science and art" are all three topics
    return out | {k for run in runs for k in run for o in out if o in run and o.field == k.field}


def _kinds_listed_with_values(reading: Reading, cues: Cues, vocabulary: Vocabulary) -> set[Mention]:
    """Kinds of book listed with a value or an audience that names books of its own ("thrillers, romance and
    memoirs", "horror and mysteries", "绘本和小说都放"): the value is an item of the list, joined to its
    neighbours by joiners and followed by a kind in it, not a quality before a kind ("dark and funny mysteries": the
    last quality qualifies the kind, nothing but a space between), nor the mood of an occasion named ("中秋": a day,
    no books). The list names the books the shelf mixes, so each kind in it is one of them, a wish, and so is the
    audience so listed (the picture books are a part of the shelf)."""
    joiners = alternation(tuple(cues.clauses.joiners))
    joiner = regex(rf"\s*(?:{joiners})(?:\s*(?:{joiners}))*\s*", re.IGNORECASE)
    days = {(t.start, t.end) for t in reading.topics if t.source == "occasion"}
    seg = segment(reading.text)
    # a list needs a joint inside a clause: a comma alone may end clauses, not join items
    lists = [items for items in _runs([m for m in reading.mentions if m.polarity in (WANTED, ALLOWED)],
                                      reading.text, joiner)
             if any(not seg.any_end(x.end, y.start) for x, y in zip(items, items[1:]))]
    books = tuple(w.lower() for w in cues.readings.book_words)
    values = set(vocabulary.dimension_names) - set(KIND_FIELDS)

    def names_books(m: Mention) -> bool:  # an audience by its books ("picture books"), not its readers ("kids")
        return m.field in values or m.field == "audience" and reading.text[m.start:m.end].lower().endswith(books)
    # a value before a kind of its list: one after the last kind only describes the kinds ("novels, cozy and funny");
    # an audience by its books is an item wherever it stands ("novels, memoirs, a picture book or two")
    return {m for items in lists if any(names_books(i) and (i.start, i.end) not in days
                                        and any(k.field in KIND_FIELDS for k in (items[n + 1:] if i.field in values
                                                                                 else items[:n] + items[n + 1:]))
                                        for n, i in enumerate(items))
            for m in items if m.field in (*KIND_FIELDS, "audience")}


def _kinds_beside_other_books(reading: Reading, cues: Cues) -> set[Mention]:
    """The kinds asked for beside a kind of book no vocabulary value names (the packs' `kind_nouns`: "practical guides
    first, a memoir or two second", "memoirs of adopting, plus a couple of how-to guides"): the shelf holds both, so
    each kind is one part of it, a wish. The other kind stands apart from every mention (not "poetry handbooks", one
    kind said in two words), outside a title or name, what the brief excludes or says of its reader, and is not set
    aside: put elsewhere in its clause ("the repair manuals stay in the 796s") or by an exclusion naming nothing of its
    own in its clause or the next ("the D&D handbooks always walk off, so leave those out")."""
    kinds = [m for m in reading.mentions if m.field in KIND_FIELDS and m.polarity in (WANTED, ALLOWED)]
    if not kinds:
        return set()
    text, said, seg = reading.text, [(m.start, m.end) for m in reading.mentions], segment(reading.text)
    aside = [*reading.excluded_spans, *reading.reader_spans, *reading.name_spans, *said]
    bare = [a for a, b in reading.excluded_spans if not any(a <= x < b for x, _ in said)]
    def set_aside(a: int) -> bool:
        start, end = seg.clause_of(a)
        after = seg.clause_of(end + 1)[1] if end < len(text) else end
        return put_elsewhere(text[start:end], cues) or any(start <= x < after for x in bare)

    def apart(a: int, b: int) -> bool:
        return (not any(x < b and a < y for x, y in aside) and not set_aside(a)
                and not any(y <= a and not text[y:a].strip(" -") or b <= x and not text[b:x].strip(" -")
                            for x, y in said))
    return set(kinds) if any(apart(a, b) for a, b, _ in find_terms(text, cues.readings.kind_nouns)) else set()


def _materials_beside_books(reading: Reading, cues: Cues) -> set[Mention]:
    """A material listed with a word for books ("books and DVDs on sailing", "books, DVDs and audiobooks"): the
    shelf holds each, so a material is a wish, never what every item must be. A joiner stands between the items: a
    word for books right after the material is no item of a list ("Audiobooks read by their authors")."""
    joined = regex(rf"\s*(?:(?:{alternation(tuple(cues.clauses.joiners))})\s*)+", re.IGNORECASE)
    books = [_Span(a, b) for a, b, _ in find_terms(reading.text, cues.readings.book_words, plural=True)]
    materials = [m for m in reading.mentions if m.field == "material"]
    return {m for run in _runs([*books, *materials], reading.text, joined) if any(isinstance(i, _Span) for i in run)
            for m in run if isinstance(m, Mention) and m.polarity == WANTED}


class _Span(NamedTuple):
    """Where the brief says a word for books: an item of a list that is no mention."""

    start: int
    end: int


def _runs(items: list, text: str, gap: re.Pattern) -> list[list]:
    """Items (anything with `start` and `end`) in the order written, grouped where only `gap` stands between one and
    the next: the lists of a brief ("fiction, nonfiction and poetry")."""
    runs: list[list] = []
    for item in sorted(items, key=lambda i: i.start):
        if runs and runs[-1][-1].end <= item.start and gap.fullmatch(text, runs[-1][-1].end, item.start):
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _kinds_listed_with_topics(reading: Reading, kinds: list[Mention], cues: Cues) -> set[Mention]:
    """A kind listed beside things that are no kind of book ("菜谱、园艺、小说都行", "cookbooks, gardening guides and
    poetry"): the items of its clause joined by the packs' joiners (a word joiner, or three items and more), another
    item holding a topic and nothing the brief names, outside what it excludes, and either the kind's item is the
    kind alone (filler before it; after it filler or, unspaced, a predicate: "历史都要有"; "战争与和平题材的小说" is
    one kind, its modifiers listed) or the other item ends in a word for books ("花卉种植养护的书和写草木的散文").
    After an item that says what it is about the items are its topics ("memoirs of Black chefs and cooks")."""
    text, seg = reading.text, segment(reading.text)
    # what the brief names in an item (a literature is a head of its own where a word for writing ends it: "拉美文学")
    named = [(m.start, m.end) for m in reading.mentions if m.field != "classification"]
    named_kinds = [(m.start, m.end) for m in reading.mentions if m.field in (*KIND_FIELDS, "audience")]
    taken = [*reading.excluded_spans, *reading.reader_spans, *reading.number_spans, *reading.said_spans,
             *((m.start, m.end) for m in reading.mentions if m.field == "classification")]
    filler = {w.lower() for w in cues.filler} | set(cues.all_words)
    book_words = tuple(w.lower() for w in cues.readings.book_words)
    books = (*book_words, *(w.lower() for w in cues.readings.literature_words))
    about = tuple(w.lower() for w in cues.readings.about)
    joiners = sorted(cues.clauses.joiners, key=len, reverse=True)

    def words(part: str) -> list[str]:
        return re.findall(r"[a-z'-]+|[^\W\d_a-z]", part.lower())
    out: set[Mention] = set()
    for kind in kinds:
        a, b = seg.clause_of(kind.start)
        # a joiner inside a pseudo-cue joins nothing ("a novel or two")
        pseudo = [(x + a, y + a) for x, y, _ in find_terms(text[a:b], cues.pseudo_negation)]
        cuts = sorted(longest_apart([(m.start() + a, m.end() + a, j) for j in joiners
                                     for m in re.finditer(term_pattern(j), text[a:b].lower())
                                     if not any(x <= m.start() + a and m.end() + a <= y for x, y in pseudo)]))
        bounds = [a, *(x for c in cuts for x in c[:2]), b]
        items = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
        own = next(((x, y) for x, y in items if x <= kind.start < y), None)
        if own is None or not (any(j.strip(",") for _, _, j in cuts) or len(items) >= 3):
            continue
        lead, trail = text[own[0]:kind.start], text[kind.end:own[1]].lower().strip()
        bare = ((all(w in filler for w in words(lead)) if lead.isascii() else "".join(words(lead)) in ("", *filler))
                and not trail.startswith(about) and (not trail.isascii() or all(w in filler for w in words(trail))))
        at = items.index(own)
        for i, (x, y) in enumerate(items):
            # its head: what follows the last thing said of the reader, a number or an exclusion in it ("给打工人下班
            # 后翻的漫画" is comics)
            x = max([x, *(q for p, q in taken if x <= q < y or p < y <= q)])
            part = text[x:y].strip(" " + cues.clauses.particles)
            # after an item that says what it is about, an item is one of its topics unless a word for books heads
            # it ("memoirs of Black chefs and cooks"; "a memoir about a garden and a guide to composting": a guide)
            head = _head(part, cues)
            thing = head.endswith(book_words)
            complement = not thing and any(set(words(text[p:q])) & set(about) for p, q in items[at:i])
            # a value in an item a word for books heads only qualifies it ("航海故事": stories)
            if (i == at or not part or complement
                    or any(p < y and x < q for p, q in (named_kinds if thing else named))
                    or not (has_topic(part, cues) or has_topic(last_word(part, 0, len(part)), cues))):
                continue
            if bare or head.endswith(books) or part.lower().endswith(books):
                out.add(kind)
                break
    return out


def _head(part: str, cues: Cues) -> str:
    """What a list item or an added part names, lower case: its words before what it says it is about or whom it is
    for ("a practical guide to composting", "a field guide for fossil hunters": a guide), how the items stand together
    dropped ("中医故事搭着放": 中医故事)."""
    low = part.lower().strip(" " + cues.clauses.particles)
    for word in sorted(cues.arranging, key=len, reverse=True):
        if low.endswith(word.lower()):
            low = low[:-len(word)].rstrip(" " + cues.clauses.particles)
    cut = regex(rf"\s(?:{alternation(tuple(w for w in (*cues.readings.about, *cues.for_whom) if w.isascii()))})\s"
                ).search(low)
    return low[:cut.start()].rstrip() if cut and low.isascii() else low


def _kinds_in_added_parts(reading: Reading, cues: Cues) -> set[Mention]:
    """The kinds of book in two parts of a shelf, one added to the other by a clause an adding word opens ("a thriller
    set at sea, plus field guides to seashells", "一本茶人的回忆录，再配几本泡茶入门手册"): where the other part names
    a thing of its own (a kind of book of another field, or a word for books at its head), each part's kind is for
    that part of the shelf, a wish; a kind both parts name stays what every book is."""
    text, seg = reading.text, segment(reading.text)
    adding = regex(rf"\s*(?:{alternation(cues.adding)})(?![a-z])", re.IGNORECASE)
    books = tuple(w.lower() for w in cues.readings.book_words)
    kinds = [m for m in reading.mentions if m.field in (*KIND_FIELDS, "audience")
             and m.polarity in (WANTED, ALLOWED)]
    clauses = [seg.clause_of(at) for at in (0, *(e + 1 for e in seg.ends)) if at <= len(text)]
    out: set[Mention] = set()
    for (a, b), (c, d) in zip(clauses, clauses[1:]):
        opened = adding.match(text, c, d)
        if not opened:
            continue
        parts = [(a, b), (opened.end(), d)]
        held = [[m for m in kinds if x <= m.start < y] for x, y in parts]
        for (mine, theirs), (x, y) in zip(((held[0], held[1]), (held[1], held[0])), reversed(parts)):
            values = {m.value for m in theirs}
            own = values - {m.value for m in mine} if theirs else _head(text[x:y], cues).endswith(books)
            # whom a part is for is whom the shelf is for unless the other part names another kind of book or another
            # reader ("红树林的绘本，再配几本人物故事": both for children; "a novel in verse for the teens, or a picture
            # book for the little ones": children's books for part of it)
            other_kind = (any(m.field != "audience" and m.value not in {k.value for k in mine} for m in theirs)
                          or any(x <= p < y for p, _ in reading.reader_spans)
                          or any(m.field == "adult" and x <= m.start < y for m in reading.mentions))
            # two kinds of one field, one in each part, are alternatives, read as such (_one_of_the_kinds)
            if own:
                out |= {m for m in mine if m.value not in values and (m.field != "audience" or other_kind)
                        and not any(t.field == m.field for t in theirs)}
    return out


def _people_as_topics(reading: Reading, cues: Cues) -> set[Mention]:
    """Readers' words the brief says its books are about, not who reads them: after one of the packs' `people_about`
    in their clause, with nothing but filler between in a spaced script ("stories about the kids who lost their
    parents") or a few characters without a possessive in an unspaced one ("关于留守儿童的小说"), and no for-whom word
    ("写给孩子的诗", "books about bedtime for toddlers")."""
    seg, text = segment(reading.text), reading.text
    out = set()
    for m in reading.mentions:
        if m.field != "audience" or m.polarity != WANTED:
            continue
        lead = text[seg.clause_of(m.start)[0]:m.start]
        said = find_terms(lead, cues.readings.people_about)
        if not said:
            continue
        gap = lead[max(b for _, b, _ in said):]
        if find_terms(gap, cues.for_whom):
            continue
        if (all(w in cues.filler for w in re.findall(r"[a-z'-]+", gap.lower())) if gap.isascii()
                else len(gap.strip()) <= MODIFIER_CHARACTERS and not gap.endswith(tuple(cues.readings.possessive))):
            out.add(m)
    return out


def _kinds_as_topics(text: str, runs: list[list[Mention]], cues: Cues) -> set[Mention]:
    """A kind that says what another kind is about, where the brief asks for another kind, one outside its own list
    ("novels, memoirs and poems" names three kinds, about nothing): after an about-word ("biographies of women in
    science"), or opening a modifier with an about-word before the kind it qualifies ("讲历史人物的传记": biographies)."""
    seg = segment(text)
    about = tuple(w.lower() for w in cues.readings.about)
    unsaid = {w.lower() for w in (*cues.readings.partitive, *cues.readings.book_words)}
    out: set[Mention] = set()
    for kind, other in ((k, o) for run in runs for k in run for other_run in runs if other_run is not run
                        for o in other_run if o.value != k.value):
        lead = text[seg.clause_of(kind.start)[0]:kind.start]
        if lead.isascii():  # the last word before it, filler that says nothing of aboutness aside
            said = [w for w in re.findall(r"[a-z'-]+", lead.lower()) if w in about or w not in cues.filler]
            # "a mix of novels", "spring reads in history": the about-word after how many or how mixed, or after a
            # word for books, is no aboutness
            if said and said[-1] in about and not (len(said) > 1 and said[-2] in unsaid):
                out.add(kind)
        elif kind.end <= other.start and not seg.any_end(kind.end, other.start):
            gap = text[kind.end:other.start]
            if (lead.endswith(about) and gap.endswith(tuple(cues.readings.possessive))
                    and list_gap(gap, cues) is None):
                out.add(kind)
    return out


def _offers_other_things(chain: list[list[Mention]], text: str, cues: Cues) -> bool:
    """Whether a list offering a choice has an item that names no kind of book, and is not a list of qualities
    before one kind they all describe ("温暖或者治愈的小说", "romantic or cozy mysteries": the last item alone holds a
    kind, with no article opening it as a thing of its own, as in "a romance or a thriller")."""
    holds = [any(m.field in KIND_FIELDS for m in item) for item in chain]
    if all(holds):
        return False
    if holds.count(True) == 1 and holds[-1]:
        opening = re.findall(r"[a-z'-]+", text[chain[-2][-1].end:chain[-1][0].start].lower())
        return any(w in cues.filler and w not in cues.clauses.joiners for w in opening)
    return True


def _one_of_the_kinds(mentions: Sequence[Mention], vocabulary: Vocabulary, alternatives: bool) -> list[FilterCondition]:
    """Kinds of book offered as alternatives ("散文和小说都可以", "essays, and some poetry is fine") are each a
    wish, but together a requirement: the shelf holds one of them, nothing else. One kind merely allowed
    ("也可以有小说") requires nothing."""
    kinds = [m for m in mentions if m.field in KIND_FIELDS and m.polarity in (WANTED, ALLOWED)]
    allowed = [m for m in kinds if m.polarity == ALLOWED]
    if not (alternatives or (allowed and len(kinds) >= 2)):
        return []
    fields = {m.field for m in kinds}
    if len(fields) == 1:
        return [FilterCondition(fields.pop(), tuple(dict.fromkeys(m.value for m in kinds)), "MUST")]
    forms = sorted({f for s in _form_sets(kinds, vocabulary) for f in s})
    return [FilterCondition("form", tuple(forms), "MUST")] if forms else []


def _operator(mention: Mention, alternatives: bool) -> str | None:
    if mention.polarity == EXCLUDED:
        return "MUST_NOT"
    if mention.field == "classification":
        # asked for, even "only", a range is a wish: a catalog without class codes (many exports carry none)
        # would give an empty shelf, where the words still search and the codes still rank
        return "SHOULD" if mention.polarity in (WANTED, ALLOWED, REQUIRED) else None
    if mention.polarity == REQUIRED:
        return "MUST"
    if mention.polarity not in (WANTED, ALLOWED) or mention.field in ("author", "work", "subject"):
        return None  # the reader's traits; named authors and works go to the intent; topics to the keywords
    if mention.field in KIND_FIELDS:
        return "MUST" if mention.polarity == WANTED and not alternatives else "SHOULD"
    if mention.field in ("audience", "language", "material"):  # a material asked for is what the shelf holds
        return "MUST" if mention.polarity == WANTED else "SHOULD"
    return "SHOULD"


def _narrow_excluded_forms(conditions: list[FilterCondition], vocabulary: Vocabulary) -> list[FilterCondition]:
    """A form excluded while a wanted genre belongs to it excludes only the form's general genre."""
    wanted_genres = {v for c in conditions if c.field == "genre" and c.operator != "MUST_NOT" for v in c.values}
    out = []
    for cond in conditions:
        kind = next((k for k in vocabulary.kinds_of("form") if cond.field == "form" and k.name in cond.values), None)
        if cond.operator == "MUST_NOT" and kind and wanted_genres & set(kind.genres):
            if kind.genres:
                out.append(FilterCondition("genre", (kind.genres[0],), "MUST_NOT"))
            continue
        out.append(cond)
    return out


def _drop_weaker_duplicates(conditions: tuple[FilterCondition, ...]) -> tuple[FilterCondition, ...]:
    """A value that is MUST or MUST_NOT is not also SHOULD: "avoid heart-warming, feel-good stories" names one
    value twice, once outside the negation's comma. MUST and MUST_NOT together stay: a contradiction to ask about.
    A wish for one of a MUST's several values stays: "essays mainly, some poetry is fine" prefers the essays."""
    required = {(c.field, v) for c in conditions
                if c.operator == "MUST_NOT" or (c.operator == "MUST" and len(c.values) == 1) for v in c.values}
    kept = []
    for cond in conditions:
        values = cond.values
        if cond.operator == "SHOULD":
            values = tuple(v for v in values if (cond.field, v) not in required)
        if values:
            kept.append(FilterCondition(cond.field, values, cond.operator))
    return tuple(kept)


def extract_keywords(reading: Reading, language: str, cues: Cues) -> tuple[str, ...]:
    """BM25 keywords from the brief's searchable text: its content words (tasks/understanding/topics.py)."""
    return brief_keywords(reading.segments(), language, cues)


def confidence_of(conditions: tuple[FilterCondition, ...], reading: Reading) -> float:
    """How much of the brief was understood: the values and numbers it states, and the share of it they explain."""
    stated = len({(c.field, v) for c in conditions for v in c.values}) + len(reading.numeric) + len(reading.preferred)
    named = sum(1 for m in reading.mentions if m.field in ("author", "work") and m.polarity == WANTED)
    return round(min(0.95, 0.35 + 0.15 * min(stated + named, 3) + 0.3 * reading.covered), 2)


class RulesTranslator(Translator):
    """Offline and deterministic: the same brief always gives the same ThemeQuery."""

    name = "rules"

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self.cues = load_cues()

    def translate(self, theme: Theme, reading: Reading) -> ThemeQuery:
        language = detect_language(theme.brief)
        conditions = conditions_of(reading, self.vocabulary)
        searchable = reading.searchable_text
        keywords = extract_keywords(reading, language, self.cues)
        # A value's description tells the dense path what a mood or setting word means for a book.
        descriptions = [
            value.description if language == "zh" else value.description_en
            for cond in conditions if cond.operator != "MUST_NOT" and cond.field in self.vocabulary.dimension_names
            for value in (self.vocabulary.value(cond.field, v) for v in cond.values)
        ]
        synthetic = " ".join([re.sub(r"\s+", " ", searchable).strip(), *descriptions]).strip()
        return ThemeQuery(
            filter_conditions=conditions,
            search_keywords=keywords,
            synthetic_query=synthetic or theme.brief,
            confidence=confidence_of(conditions, reading),
            translator=self.name,
            language=language,
            numeric_conditions=reading.numeric, preferred_numbers=reading.preferred,
        )
