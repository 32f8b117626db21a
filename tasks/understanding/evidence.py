"""What a brief must say before the reader asserts a condition it seems to name: the evidence a hard condition needs.

A kind of book or an audience is asked for only where the brief asks for it, not where it describes the reader or
puts the kind elsewhere; a year is a publication condition only where no setting word, permission or share of the
shelf makes it something else, and no contrast sets it apart as said of other books. (The other evidence rules stand
where their readings are made: an author spotlight's in entities.py, a kind's MUST in translate/rules.py.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from config.class_ranges import class_ranges
from tasks.understanding.analysis import (ALLOWED, EXCLUDED, KIND_FIELDS, READER, REQUIRED, WANTED, Cue, Mention,
                                          Segmented, find_terms, list_gap, put_elsewhere, term_pattern)
from tasks.understanding.cues import Cues, alternation, regex
from tasks.understanding.lang import TERMINATE
from tasks.understanding.numbers import NumberGrammar, NumericMention
from tasks.understanding.scopes import Scope

HARD, WISH, NONE = "hard", "wish", "none"


def number_weight(number: NumericMention, asked: bool, scopes: list[Scope], seg: Segmented, g: NumberGrammar) -> str:
    """What a number the brief asks for (`asked`: not excluded) may become: a year after a setting word is when the
    books are set, not when they were written ("set before 1900", "故事发生在1949年以前"), and one beside a word of
    another thing's year is that thing's ("films premiered after 2000", "2010年以后上映的"): nothing; a number in a
    clause that only allows ("2000年以后再版的也算", "reprints from 2015 on are fine too") or speaks of a share of the
    shelf ("新书占一半就行", "about half can be from 2020 or later"): a wish, never a requirement."""
    text, (start, end) = seg.text, seg.clause_of(number.start)
    # or right after it, a verb of another thing's year ("电影2010年以后上映的": the films'); a period right after a
    # word of what the books are about is their subject's time ("写八九十年代车站的散文", "books about the 1960s")
    about = regex(rf"(?:{alternation(g.subject_before)})\s*(?:(?:{alternation(g.determiners)})\s+)?$", re.IGNORECASE)
    if all(c.field == "pub_year" for c in number.conditions) and (
            find_terms(text[start:number.start], g.setting)
            or any(a <= 1 for a, _, _ in find_terms(text[number.end:end], g.setting))
            or about.search(text, start, number.start)):
        return NONE
    if _left_free(number, seg, g):
        return NONE
    # the number's own words are no share of the shelf: "eight and a half out of ten" holds a half
    shares = [a for a, _, _ in find_terms(text[start:end], g.share) if not number.start <= start + a < number.end]
    if asked and (any(s.permits and s.start <= number.start and number.end <= s.end for s in scopes) or shares):
        return WISH
    return HARD


def _left_free(number: NumericMention, seg: Segmented, g: NumberGrammar) -> bool:
    """Whether a clause of the brief says the number's field is free: its word, then a word of no limit ("出版年不限",
    "publication year doesn't matter"): no number of that field is a condition, wherever it is said."""
    fields = {c.field for c in number.conditions}
    words = tuple(w for f in fields for w in g.field_words.get(f, ()) + (g.publishing_words if f == "pub_year" else ()))
    free = regex(rf"(?:{alternation(words)}).*(?:{alternation(g.unbounded)})", re.IGNORECASE)
    return any(free.search(clause) for clause in seg.clause_texts())


def _years_of(number: NumericMention) -> tuple[float, float] | None:
    """The publication years a phrase allows, first and last; None for a phrase of anything else."""
    if not number.conditions or any(c.field != "pub_year" or c.op == "outside" for c in number.conditions):
        return None
    low = max((c.value + (c.op == ">") for c in number.conditions if c.op in (">", ">=")), default=float("-inf"))
    high = min((c.value - (c.op == "<") for c in number.conditions if c.op in ("<", "<=")), default=float("inf"))
    return low, high


def overruled_years(numbers: list[NumericMention], cue_list: list[Cue], text: str, cues: Cues
                     ) -> set[NumericMention]:
    """Of two publication periods that cannot both hold, one said before a contrast and one after it, the one
    before was said of other books ("Space opera boomed in the 1970s, but we want ones published after 2015", "这类
    书大多出版于1990年代，但我们要2010年以后的"): the shelf's is the one after the contrast. Periods that can both hold
    ("after 1990 but before 2010") are one range."""
    contrasts = _contrasts(cue_list, text, cues)
    years = [(n, span) for n in numbers if (span := _years_of(n)) is not None]
    # the contrast opens a request of its own, words before the period ("but we want ones published after 2015");
    # right before the period it only joins two bounds of one ("published after 2015 but before 1900": a
    # contradiction to ask about)
    return {one for one, (a, b) in years for other, (c, d) in years
            if one.end <= other.start and max(a, c) > min(b, d)
            and any(one.end <= cue.start and cue.end < other.start and text[cue.end:other.start].strip()
                    for cue in contrasts)}


def _contrasts(cue_list: list[Cue], text: str, cues: Cues) -> list[Cue]:
    """The contrasts of a brief ("but", "但是"): terminations other than words of the moment."""
    return [c for c in cue_list if c.kind.effect == TERMINATE
            and text[c.start:c.end].lower() not in {w.lower() for w in cues.moment}]


def not_asked(mentions: list[Mention], seg: Segmented, cues: Cues) -> list[Mention]:
    """The kinds of book and audiences a brief names without asking for them are the reader's, no condition: a kind
    right before a reader noun where the brief asks for another kind ("memoirs for a fiction reader", "给科幻迷的科普
    书"), and what a clause puts elsewhere ("Fiction is on the second floor", "少儿区另外布置"; a clause that says
    here as well is this shelf's: "一楼这次放历史书")."""
    text, said = seg.text, cues.readings
    kinds = [m for m in mentions if m.field in ("form", "genre", "audience") and m.polarity in (WANTED, ALLOWED)]
    reader = regex(rf"\s*(?:{alternation(tuple(w for w in cues.readings.possessive if not w.isascii()))})?\s*"
                   rf"(?:{alternation(said.reader_nouns)})", re.IGNORECASE)
    of_reader = {m for m in kinds if m.field != "audience" and reader.match(text, m.end)}
    others = [m for m in kinds if m.field != "audience" and m not in of_reader]
    elsewhere = {m for m in kinds if put_elsewhere(text[slice(*seg.clause_of(m.start))], cues)}
    gone = elsewhere | (of_reader if others else set())
    return [replace(m, polarity=READER) if m in gone else m for m in mentions]


def guardians_children(mentions: list[Mention], seg: Segmented, cues: Cues) -> list[Mention]:
    """A word for children after a grown-up whose child it is, in one clause ("for hearing parents raising a deaf
    child", "adult children caring for a parent", "grandparents and grandkids"), or right before one ("幼儿家长",
    "失去孩子的母亲", "children's parents"), is the grown-ups' child: the reader's
    word, no audience. A word for children's books ("picture books", "绘本") is a kind of book, whoever reads it."""
    text, said = seg.text, cues.readings
    guardians = find_terms(text, said.guardians)
    # or right before one, a possessive between or none ("幼儿家长", "失去孩子的母亲", "young children's parents")
    links = ("", *said.possessive)

    def theirs(m: Mention) -> bool:
        start = seg.clause_of(m.start)[0]
        return (m.field == "audience" and m.polarity in (WANTED, ALLOWED)
                and not find_terms(text[m.start:m.end], said.book_words)
                and any(start <= a and b <= m.start or a >= m.end and text[m.end:a].strip().lower() in links
                        for a, b, _ in guardians))
    return [replace(m, polarity=READER) if theirs(m) else m for m in mentions]


def bands_within(mentions: list[Mention], grown: list[Mention], text: str, cues: Cues) -> list[Mention]:
    """An audience asked for and a readers' word of it excluded ("middle-grade fantasy, but nothing for
    preschoolers", "给初中生的小说，低幼的不要"): the exclusion names a band of the readers asked for (the youngest),
    not their books, and is dropped. A word for their books excluded ("只要儿童文学，但一本童书都不要") stays, a
    contradiction for the review; so do grown-ups asked for, who exclude children's books of their own."""
    asked = {m.value for m in mentions if m.field == "audience" and m.polarity in (WANTED, REQUIRED)}
    return [m for m in mentions if not (m.field == "audience" and m.polarity == EXCLUDED and m.value in asked
                                        and m not in grown
                                        and not find_terms(text[m.start:m.end], cues.readings.book_words))]


def parts_by_reader(mentions: list[Mention], readers: list[tuple[int, int]], seg: Segmented, cues: Cues
                    ) -> list[Mention]:
    """A shelf in parts for different readers, each part given its own ("围棋入门给孩子，象棋残局给爷爷们", "picture
    books for the littles and thrillers for the teens", "board books for toddlers, and cookbooks for the parents"):
    the children's books are one part, asked for by no book of the others; the children's words (a children's kind
    of book among them: "picture books") are the reader's. A
    reader named with the children under one for-whom word ("for kids and their parents") is no part of its own.
    The kinds of book such a shelf names are its parts' too: wishes ("thrillers for the teens")."""
    text = seg.text
    children = [m for m in mentions if m.field == "audience" and m.polarity in (WANTED, ALLOWED)]
    # a for-whom word before the reader in its clause, only a few words of its own between ("给刚学棋的孩子")
    headed = regex(rf"(?:{alternation(tuple(w for w in cues.for_whom if w.isascii()))})(?:\s+\S+){{0,2}}\s*$|"
                   rf"(?:{alternation(tuple(w for w in cues.for_whom if not w.isascii()))})[^\s]{{0,6}}$",
                   re.IGNORECASE)

    def given(start: int) -> int | None:
        """Where the for-whom word that gives the reader at `start` its part stands; None where none does."""
        found = headed.search(text, seg.clause_of(start)[0], start)
        return found.start() if found else None

    # children whose books a clause puts elsewhere are no part of this shelf ("the books for little kids go to the
    # children's room": the teens' novels are all of it)
    children = [m for m in children if not put_elsewhere(text[slice(*seg.clause_of(m.start))], cues)]
    kids = {given(m.start) for m in children} - {None}
    parts = {given(a) for a, _ in readers} - {None}
    # children named by their books alone ("童书为主", "Picture books about winter") in a clause of their own, and a
    # reader given a kind of book in another ("给家长放几本散文", "plus two or three poetry collections for the
    # parents"): the shelf is in parts as well
    own = {seg.clause_of(m.start) for m in children if given(m.start) is None}
    kinds_in = {seg.clause_of(m.start) for m in mentions if m.field in KIND_FIELDS and m.polarity == WANTED}
    apart = [a for a, _ in readers if given(a) is not None and seg.clause_of(a) not in own
             and seg.clause_of(a) in kinds_in]
    if not (kids and parts - kids) and not (own and apart):
        return _listed_with_readers_books(mentions, [(a, g) for a, _ in readers if (g := given(a)) is not None], seg,
                                          cues)
    # and each kind of book is one part's, a wish, required of no book of the others
    return [replace(m, polarity=READER) if m in children else replace(m, polarity=ALLOWED)
            if m.field in KIND_FIELDS and m.polarity == WANTED else m for m in mentions]


def _listed_with_readers_books(mentions: list[Mention], given: list[tuple[int, int]], seg: Segmented, cues: Cues
                               ) -> list[Mention]:
    """A kind of book and books given to a reader, items of one list ("回忆录和给退休老人的书", "memoirs and a few books
    for new retirees"): the shelf is in two parts, and the kind is its part's, a wish, required of no book of the
    other. The reader's books name no kind of their own, and no other kind stands between ("novels and memoirs for
    retirees" is one part: both for them)."""
    text = seg.text
    kinds = [m for m in mentions if m.field in KIND_FIELDS and m.polarity in (WANTED, ALLOWED)]
    # the reader's item may open with a few words and a word for books before its for-whom word: "a few books for"
    word = rf"\s*(?<![\w'-])(?!(?:{alternation(cues.clauses.joiners)}))[\w'-]+"
    books = regex(rf"(?:{word}){{0,3}}?\s*(?:{alternation(cues.readings.book_words)})\s*$", re.IGNORECASE)

    def parted(m: Mention) -> bool:
        for at, g in given:
            a, b = seg.clause_of(at)
            if not (a <= m.start and m.end <= g) or any(o.start >= g and o.end <= b or m.end <= o.start < g
                                                        for o in kinds if o is not m):
                continue
            gap = text[m.end:g]
            cut = books.search(gap)
            if list_gap(gap[:cut.start()] if cut else gap, cues) is not None:
                return True
        return False
    return [replace(m, polarity=ALLOWED) if m in kinds and m.polarity == WANTED and parted(m) else m
            for m in mentions]


def mixed_kinds(mentions: list[Mention], seg: Segmented, cues: Cues, polarity: Callable[[int, int], str]
                ) -> list[Mention]:
    """Kinds of book of different sorts, items of one list ("biographies and essays", "报告文学和老天津回忆录", "a
    memoir, a self-help toolkit and a book on teen anxiety"): the shelf holds books of each, so a genre that not every
    item says is no requirement of every book, only a wish. A genre every item says stays required, of any of its
    values ("history and biography", "crime and detective fiction"), and so does a form: the broad class that a list
    mixing it with a genre mostly names kinds within ("mysteries and cozy novels"; measured on the kept-back fragment
    batches, demoting forms too cost more readings than it mended). An item is a run of kinds and the word for books
    after them ("mystery books"), or a word for books the brief asks for (`polarity`) ending an item of its own ("a
    book on teen anxiety"). The items stand a few words apart in one sentence, joined by a word or a list mark
    somewhere in the list: a comma alone also sets a description beside a kind ("Mysteries, books that keep you up
    at night")."""
    text = seg.text
    kinds = [m for m in mentions if m.field in KIND_FIELDS and m.polarity in (WANTED, ALLOWED)]
    if not any(m.field == "genre" and m.polarity == WANTED for m in kinds):
        return mentions
    words = [(a, b, None) for a, b, _ in find_terms(text, cues.readings.book_words, plural=True)
             if not any(m.start < b and a < m.end for m in mentions) and polarity(a, b) in (WANTED, ALLOWED)]
    items: list[tuple[int, int, set[str], list[Mention]]] = []  # an item's span, the fields it says, its genres
    for a, b, m in sorted([(m.start, m.end, m) for m in kinds] + words, key=lambda w: w[:2]):
        if not (items and _HEAD_GAP.fullmatch(text[items[-1][1]:a])):  # else the same item: "mystery books"
            items.append((a, b, set(), []))
        start, _, fields, genres = items[-1]
        items[-1] = (start, b, fields | ({m.field} if m else set()), genres + ([m] if m and m.field == "genre" else []))
    joiners = tuple(j for j in cues.clauses.joiners if j != ",")
    chains: list[list[tuple[int, int, set[str], list[Mention]]]] = []
    joined: list[bool] = []
    for before, item in zip(items, items[1:]):
        gap = text[before[1]:item[0]]
        if list_gap(gap, cues) is not None and _few_words(gap, cues):
            if not chains or chains[-1][-1] is not before:
                chains.append([before])
                joined.append(False)
            chains[-1].append(item)
            joined[-1] = joined[-1] or bool(find_terms(gap, joiners, whole_words=True))
    wishes = {m for chain, said in zip(chains, joined) if said and not all("genre" in item[2] for item in chain)
              for *_, genres in chain for m in genres}
    return [replace(m, polarity=ALLOWED) if m in wishes and m.polarity == WANTED else m for m in mentions]


_HEAD_GAP = re.compile(r"[\s的类-]*")  # between a kind and the word for books or the kind after it, in one item


def _few_words(gap: str, cues: Cues) -> bool:
    """Whether a gap between two items of a list holds at most two words of its own beside its joiners and filler
    (Chinese: four characters): more is a clause of its own ("fiction about robots and AI for adult readers")."""
    rest = gap.lower()
    for joiner in sorted(cues.clauses.joiners, key=len, reverse=True):
        rest = re.sub(term_pattern(joiner), " ", rest)
    if not rest.isascii():
        return len(re.sub(r"[\s\W]", "", rest)) <= 4
    return len([w for w in re.findall(r"[a-z'-]+", rest) if w not in cues.filler]) <= 2


def excluded_people(text: str, start: int, end: int, cues: Cues) -> list[tuple[int, int, str]]:
    """The people an exclusion names, in the catalog or not, each (start, end, name as written): an author needs a
    person's name as evidence, not a topic's words. The evidence is the name's own shape (the packs' readings):
    its parts joined by a transliteration dot ("保罗·索鲁的先不放"), the writer's nation in brackets before it ("不要
    [俄]契诃夫的"), two or more capitalised words ("skip John Grisham"), one after an authorship word ("nothing by
    Silverstein"); or a word for authors right after the exclusion ("余世存以外的作者").
    A name ends at the next cue, filler, possessive or joining word; words of the moment are no part of it."""
    r = cues.readings
    stops = cues.name_stops
    found: list[tuple[int, int, str]] = []

    def trimmed(a: int, b: int, head: int | None = None) -> None:
        """The name in text[a:b], cut at the first stop word after `head` (where the name's last part begins) and
        after the last stop word before it."""
        head = a if head is None else head
        for x, y, _ in find_terms(text[a:b], stops):
            if a + x >= head:
                b = a + x
                break
            a_new = a + y
            a = a_new if a_new <= head else a
        name = text[a:b].strip(" ,，、")
        if name and not any(x < b and a < y for x, y, _ in found):
            found.append((a, b, name))

    cjk = r"[\u3400-\u9fff]"
    if r.name_nations:  # "[英] 罗杰·迪金的": the name after its writer's nation
        for m in regex(rf"[\[(【]\s*(?:{alternation(r.name_nations)})\s*[\])】]\s*").finditer(text, start, end):
            run = regex(rf"{cjk}+(?:[{re.escape(''.join(r.name_joiners))}]{cjk}+)*").match(text, m.end(), end)
            if run:
                last = max((run.start() + i + 1 for i, ch in enumerate(run.group(0)) if ch in r.name_joiners),
                           default=run.start())
                trimmed(run.start(), run.end(), last)
    if r.name_joiners:  # "保罗·索鲁": parts joined by a transliteration dot
        joiner = f"[{re.escape(''.join(r.name_joiners))}]"
        for m in regex(rf"{cjk}+(?:{joiner}{cjk}+)+").finditer(text, start, end):
            trimmed(m.start(), m.end(), max(m.start() + i + 1 for i, ch in enumerate(m.group(0))
                                            if ch in r.name_joiners))
    if r.name_particles or any(w.isascii() for w in r.authorship_before):  # Latin-script names
        word = r"[A-Z][\w'’.-]*"
        particles = alternation(r.name_particles) if r.name_particles else "(?!)"
        by = alternation(tuple(w for w in r.authorship_before if w.isascii()))
        # "Skip John Grisham"; "the Canadian Chris Hadfield excepted": the writer's nation is no part of the name
        leading = cues.all_words | cues.filler | {w.lower() for w in r.name_nations}
        for m in regex(rf"(?<![\w'’]){word}(?:\s+(?:(?:{particles})\s+)*{word})*").finditer(text, start, end):
            words = m.group(0).split()
            while words and words[0].lower() in leading:
                words = words[1:]
            # a possessive ends the name: "skip Buzz Aldrin's own books"
            ending = next((p for p in r.possessive if words and words[-1].endswith(p) and len(words[-1]) > len(p)), "")
            if ending:
                words[-1] = words[-1][:-len(ending)]
            after_by = regex(rf"\b(?:{by})\s+$", re.IGNORECASE).search(text, start, m.start()) is not None
            if len(words) >= 2 or words and after_by:
                name = " ".join(words)
                at = m.end() - len(name) if m.group(0).endswith(name) else m.start()
                # a surname alone stands for the whole name said before it ("Shel Silverstein … nothing by Silverstein")
                whole = regex(rf"(?<![\w'’])(?:{word}\s+)+{re.escape(name)}\b").search(text, 0, at) if len(words) == 1 else None
                found.append((at, m.end(), whole.group(0) if whole else name))
    # "余世存以外的作者写的": a word for authors right after what is excluded
    authors = tuple(w for w in r.authorship_before if not w.isascii())
    if authors and regex(rf"\s*(?:{alternation(stops)})*\s*(?:{alternation(authors)})").match(text, end):
        topics = [t for t in (text[start:end].strip(" ,，、"),) if t and not find_terms(t, stops)]
        found += [(start, end, t) for t in topics if not any(x < end and start < y for x, y, _ in found)]
    return found


def periods_of_other_things(numbers: list[NumericMention], seg: Segmented, cue_list: list[Cue], cues: Cues
                            ) -> set[NumericMention]:
    """The publication years a brief seems to state that are another thing's time: where one period is said with a
    word of publishing ("written in the last fifteen years", "近十年出版的"), one said in another clause without
    such a word is the time the books are about ("Sailors' wives in the 1700s", "五十年代的工厂生活"), unless a
    contrast stands between them (`overruled_years` decides that: "这类书大多出版于1990年代，但我们要2010年以后的"); and
    a period in digits right before a capitalised name that is no nation's is that place's ("1920s Bombay", "1960s
    London"). Precision first: such a period is no condition at all."""
    text, g = seg.text, cues.numbers
    contrasts = _contrasts(cue_list, text, cues)
    publishing = tuple(w for w in (*g.publishing_words, *g.field_words.get("pub_year", ())) if w not in g.range_open)
    years = [n for n in numbers if n.conditions and all(c.field == "pub_year" for c in n.conditions)]

    def published(n: NumericMention) -> bool:
        return bool(find_terms(text[slice(*seg.clause_of(n.start))], publishing))

    said = [n for n in years if published(n)]
    other = {n for n in years if said and not published(n) and all(
        seg.clause_of(n.start) != seg.clause_of(s.start) and not any(
            min(n.start, s.start) <= c.start < max(n.start, s.start) for c in contrasts) for s in said)}
    nations = {w.lower() for e in class_ranges().literatures for w in e.qualifiers}
    named = regex(r"\s+([A-Z][a-z]+)")  # a Latin-script proper name after the period
    return other | {n for n in years if (m := named.match(text, n.end)) and m.group(1).lower() not in nations
                    and any(ch.isdigit() for ch in text[n.start:n.end]) and not published(n)}


_CAP_REACH = 2  # how far a cap may stand before the count it holds ("最多放两本": 放 between), or a few after its kind
_PART_REACH = 12  # how far before a kind of book its count or share may stand ("两三本写花的", "其中放一本茶人的")


def small_count(text: str, start: int, end: int, g: NumberGrammar, number_spans: list[tuple[int, int]] = ()
                ) -> bool:
    """Whether the last number between start and end, none of the brief's conditions, is a small count of books:
    three at most, in words or digits, or a glyph number with a counter of books after it ("两三本"); or whether a word
    of a few stands there (numbers.yaml `few`)."""
    count = None
    for n in g.number.finditer(text, start, end):
        if not any(x <= n.start() < y for x, y in number_spans):
            count = n
    # a few said without a number ("a handful of poems", "a couple of novels", "几本散文") counts the same, the words
    # begun before `start` too where they end after it
    lead = max(0, start - max(map(len, g.few), default=0))
    if any(lead + b > start for _, b, _ in find_terms(text[lead:end], g.few)):
        return True
    return count is not None and 1 <= g.value(count.group(0)) <= 3 and (count.group(0).isascii() or bool(
        g.part_counters) and bool(regex(rf"\s*(?:{alternation(g.part_counters)})").match(text, count.end())))


def counted_parts(mentions: list[Mention], seg: Segmented, cues: Cues, number_spans: list[tuple[int, int]]
                  ) -> list[Mention]:
    """A kind of book said as a part of the shelf, after the brief has said what its shelf is (never in its first
    clause), is a wish, required of no other book: a share said of it, the clause's only one, after it ("菜谱放一半",
    "写吃的散文各半") or just before it ("half of them histories", "另一半是钓鱼散文"), or a small count (three at most,
    the number grammar's; a glyph number with a counter of books after it: "两三本") in a clause that adds
    ("plus a single memoir", "and then two or three jazz biographies", "再配两本传记"). A count alone says how many
    books the shelf holds, or one to read ("读一本小说"), not a part."""
    text, g = seg.text, cues.numbers
    first = seg.clause_of(0)
    adding = tuple(w for w in (*cues.adding, *cues.kind_words.get("additive", ()))
                   if w.lower() not in cues.clauses.offering and w not in cues.kind_words.get("alternative", ()))

    def counted(m: Mention) -> bool:
        a, b = seg.clause_of(m.start)
        if (a, b) == first:
            return False
        reach = max(a, m.start - _PART_REACH)
        shares = find_terms(text[a:b], g.share)
        # a share of children ("picture books to share") is none: the word is as often the verb
        if m.field != "audience" and len(shares) == 1 and (a + shares[0][0] >= m.end or a + shares[0][1] >= reach):
            return True
        small = (small_count(text, reach, m.start, g, number_spans)
                 or any(c <= _CAP_REACH for c, _, _ in find_terms(text[m.end:b], g.few_after)))
        # the adding word anywhere after the first clause ("and then, so it isn't all food, two or three …"), or a
        # joining word in the count's own clause before the count ("Books about rivers, and two or three novels"; not
        # one joining what the counted books are about: "再找几本写粮食和农民的纪实")
        joining = tuple(w for w in cues.clauses.joiners if w not in cues.clauses.offering)
        count = min([reach + x for x, _, _ in find_terms(text[reach:m.start], g.few)]
                    + [n.start() for n in g.number.finditer(text, reach, m.start)], default=m.start)
        return (small and bool(find_terms(text[first[1]:m.start], adding) or find_terms(text[a:count], joining))
                or m.field in KIND_FIELDS and capped(m, a, b))

    caps = tuple(w for w, op in {**g.before, **g.after}.items() if op == "<=")

    def capped(m: Mention, a: int, b: int) -> bool:
        """A count of the kind that a cap holds, no condition's number: the cap just before the count ("at most two
        memoirs", "诗集最多放三本") or right after the kind so counted ("one novel at most"). It says how many of the
        kind may stand, and requires none."""
        free = [n for n in g.number.finditer(text, a, b) if not any(x <= n.start() < y for x, y in number_spans)]
        for c, e, _ in find_terms(text[a:b], caps):
            c, e = a + c, a + e
            if any(x <= c < y for x, y in number_spans):
                continue
            if any(0 <= n.start() - e <= _CAP_REACH for n in free) or (
                    c >= m.end and not text[m.end:c].strip() and any(n.end() <= m.start for n in free)):
                return True
        return False

    # children's books counted so ("plus a picture book or two for the kids", "再配两三本绘本") are a part for children,
    # not a children's shelf: the children named in that clause too
    parts = {m for m in mentions if m.field in (*KIND_FIELDS, "audience") and m.polarity == WANTED and counted(m)}
    for_children = {seg.clause_of(m.start) for m in parts if m.field == "audience"}
    return [replace(m, polarity=ALLOWED) if m in parts or m.field == "audience" and m.polarity == WANTED
            and seg.clause_of(m.start) in for_children else m for m in mentions]
