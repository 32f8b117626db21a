"""The scope algorithm: where each of the brief's cues (found by analysis.py) holds its polarity.

One algorithm for every cue kind, which it knows only by what lang/kinds.yaml says the kind does (its effect, the
direction its scope runs, what does not end it): a cue opens a scope that runs to the next cue or its clause's end (a
termination ends a clause as punctuation does); a cue after what it negates scopes back to the clause's start; "除了
X 以外" excludes X, and inside another negation the frame flips (only X); a requirement scopes as a negation does; a
hedge makes a clause's kinds of book alternatives; a negation about the reader ("不需要懂哲学") or inside a question
about the world ("why … not") says nothing of books.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tasks.understanding.analysis import (ALLOWED, EXCLUDED, READER, REQUIRED, Cue, Segmented, clause_spans,
                                          compared_until, enclosed_by, find_terms, list_gap, next_start)
from tasks.understanding.cues import Cues, alternation, regex
from tasks.understanding.lang import (ALLOW, AROUND, CLAUSE, CLAUSE_BEFORE, DESCRIBE, ENCLOSED, EXCEPT, EXCLUDE,
                                      FOLLOWING, NEXT_VALUE, PRECEDING, REQUIRE, TERMINATE)
from tasks.understanding.topics import has_topic

# a kind of book that describes those asked for ("stranger than fiction") is, like a reader's, none of them
_POLARITY = {EXCLUDE: EXCLUDED, EXCEPT: EXCLUDED, REQUIRE: REQUIRED, ALLOW: ALLOWED, DESCRIBE: READER}


@dataclass
class Scope:
    start: int
    end: int
    polarity: str
    degree: bool = False  # it holds a degree and its quality ("not too clinical", "别太说教"): no subject of books
    permits: bool = False  # a hedge's whole clause ("2000年以后再版的也算", "reprints are fine too"): nothing required


def _reader_scoped(text: str, cue: Cue, cues: Cues) -> bool:
    """Whether a negation is about the reader: a reader word just before it ("readers without …"), not after an
    authorship word, or right after it, however long ("不需要懂", "无需专业背景")."""
    before = text[max(0, cue.start - 25):cue.start].lower()
    # "by anyone except Annie Dillard": after an authorship word the person is the writer, not the reader
    by = regex(rf"\b(?:{alternation(cues.readings.authorship_before)})\s+$", re.IGNORECASE)
    if any((m := regex(rf"\b{re.escape(w.lower())}\s*$").search(before)) and not by.search(before, 0, m.start())
           for w in cues.reader_before):
        return True
    return any(text.startswith(w, cue.end) for w in cues.reader_after)


def _asks(seg: Segmented, cue: Cue, cues: Cues) -> bool:
    """"为什么…不需要", "how not to": a negation inside a question about the world, not an exclusion."""
    clause = seg.text[seg.clause_of(cue.start)[0]:cue.start]
    return bool(find_terms(clause, cues.question))


def find_scopes(seg: Segmented, cue_list: list[Cue], spans: list[tuple[int, int]], cues: Cues,
            kinds: list[tuple[int, int]], values: list[tuple[int, int]] = ()) -> list[Scope]:
    """Where each cue's polarity holds: its scope opened at the cue and run as its kind's direction says to its
    termination (the next cue but those it continues over, or the clause's end); `spans` are the names and values
    found, `kinds` the spans of forms and genres named, `values` those of vocabulary values (a mood, a setting).
    A range of kinds of book ("从散文到小说", "from fairy tales to science fiction") offers each of them."""
    scopes: list[Scope] = [Scope(*r, ALLOWED) for r in _ranges(seg, kinds, values, cues)]
    several: list[tuple[int, int]] = []  # "都可以" clauses: decided once exclusions are known
    text = seg.text
    clauses = clause_spans(seg, cue_list)
    # a negation of a negation asks for what it holds: "don't leave out poetry", "不要排除科幻"
    negating = [c for c in cue_list if c.kind.effect == EXCLUDE and c.kind.direction == FOLLOWING]
    cancelled = {id(c) for one, other in zip(negating, negating[1:]) if not text[one.end:other.start].strip()
                 for c in (one, other)}
    for cue in cue_list:
        kind = cue.kind
        if kind.effect == TERMINATE or id(cue) in cancelled or (kind.effect == EXCLUDE and _rhetorical(text, cue, cues)):
            continue
        if kind.direction == ENCLOSED:  # "leave him off": what stands between its parts
            scopes.append(Scope(*enclosed_by(text, cue, cues), _POLARITY[kind.effect]))
            continue
        if kind.direction == NEXT_VALUE:  # "不太沉重的历史书": the value after it, not the books it describes
            held = kinds if kind.kinds_only else spans  # "stranger than fiction": a kind, never "like Dune"
            at = next_start(text, cue.end, {x for x, _ in held}, cues.filler)
            end = max((y for x, y in held if x == at), default=cue.end)
            # a comparison says what it compares up to its degree word: "比盗墓小说还好看的考古纪实" holds 盗墓小说
            close = compared_until(text, cue.end, cues) if kind.kinds_only and at is None else None
            end = max([y for x, y in held if close and cue.end <= x and y <= close] or [end])
            while kind.kinds_only and (more := next_start(text, end, {x for x, _ in held}, frozenset())) is not None:
                end = max(y for x, y in held if x == more)  # a kind said in two ("推理小说", "mystery novels")
            if not (kind.about_the_reader and _asks(seg, cue, cues)):  # a question's 不 states a fact
                scopes.append(Scope(cue.start, end, _POLARITY[kind.effect]))
            continue
        a, b = next((x, y) for x, y in clauses if x <= cue.start < y)
        if kind.direction == CLAUSE_BEFORE:
            scopes += [Scope(*before, _POLARITY[kind.effect])] if (before := _set_apart(seg, cue, (a, b), clauses,
                                                                                        cue_list, spans, cues)) else []
            continue
        if cue.closes:
            additive = cues.additive_ahead.match(text, cue.end)  # "金庸古龙以外的也要有": others too, not instead
            opened = any(a <= c.start < cue.start and c.kind.direction == FOLLOWING
                         and c.kind.effect in (EXCEPT, EXCLUDE) for c in cue_list)
            # the additive in its clause, or opening the next where the cue ends its own ("三毛之外，再找几位"; not
            # "东野圭吾之外的推理，也来几本", where the cue modifies what follows it)
            ends = not text[cue.end:b].strip(cues.clauses.particles + " ，,、")
            if not opened and not (additive and (ends or not seg.any_end(cue.end, additive.end()))):
                scopes.append(Scope(a, cue.start, EXCLUDED))  # "鲁迅以外的民国作家": 除了 left unsaid
            continue
        stop = min([c.start for c in cue_list if cue.end <= c.start < b and not c.closes
                    and c.kind.name not in kind.continues_over] + [b])
        degree = False
        if kind.degree:
            stop, degree = _degree_stop(text, cue, stop, cues, kinds, values)
        if kind.effect == ALLOW:
            held = _degree_after(text, cue, cues) if kind.direction == CLAUSE else None
            if held and held.end() <= b:  # "不必太厚的传记": the degree is what need not be, not the books
                scopes.append(Scope(cue.start, held.end(), EXCLUDED, True))
            elif kind.direction == AROUND:
                joined = _alternatives(seg, cue, spans, cues, kinds)
                scopes += [Scope(*joined, ALLOWED)] if joined else []
            elif kind.several:  # alone in its clause ("…, either is fine") it speaks of the clause before
                before = next((x for x, y in clauses if y == a), None)
                alone = before is not None and not text[a:cue.start].strip(" ，,、" + cues.clauses.particles)
                several.append((before if alone else a, b))
            else:
                scopes.append(Scope(a, b, ALLOWED, permits=True))
            continue
        polarity = _POLARITY[kind.effect]
        if _runs_back(seg, cue, (a, stop), spans, cues):
            # nothing said before it in its clause ("…钱德勒的现在读着一般，就不放了"): the clause before is what it
            # negates, where that names something
            said = any(a <= s < cue.start for s, _ in spans) or has_topic(text[a:cue.start], cues)
            follows = kind.direction == PRECEDING or text[cue.start:cue.end] in cues.words_of((kind.effect,), PRECEDING)
            before = next(((x, y) for x, y in clauses if y == a), None) if follows else None
            # (a topic the packs do not know opens it as a name does: "明清的已经太多了，就不放了")
            reach = before[0] if (not said and before is not None
                                  and (any(before[0] <= s < before[1] for s, _ in spans)
                                       or has_topic(text[before[0]:before[1]], cues))) else a
            scopes.append(Scope(reach, cue.start, polarity))
            continue
        if kind.about_the_reader and _asks(seg, cue, cues):
            continue  # a question's "why … not": its words stay what the text is about
        after = len(text) - len(text[cue.end:].lstrip())  # "anyone except Agatha Christie": the writer, not the reader
        named_next = any(x == after for x, _ in spans)
        if kind.about_the_reader and not named_next and _reader_scoped(text, cue, cues):
            # "不需要懂哲学也能读的好书": what the reader need not know ends where the book is spoken of again
            end = cues.reader_stop.search(text[cue.end:stop])
            scopes.append(Scope(cue.start, cue.end + end.start() if end else stop, READER))
            continue
        close = next((c for c in cue_list if c.closes and cue.end <= c.start < stop), None)
        if kind.effect == EXCEPT:
            if not cues.additive_ahead.match(text, close.end if close else stop):
                scopes.append(Scope(cue.start, close.start if close else stop, EXCLUDED))
        elif kind.effect == EXCLUDE and close is not None:
            # "不看刘慈欣以外的科幻": what stands before 以外 is the only thing wanted
            scopes.append(Scope(cue.start, close.start, REQUIRED))
        else:
            if (kind.degree and not degree and kind.effect == EXCLUDE and _contrasts(text, cue, values, kinds, cues)
                    and next_start(text, cue.end, {x for x, _ in spans}, cues.filler) is None
                    and not _capitalised_next(text, cue.end)):
                # "funny but not silly essays", "温暖而不矫情的小说": a quality set against the one asked for is the
                # one word excluded (as a subject, where the catalog's headings say it), the kind after it asked; a
                # capitalised word is a name, no quality ("Horror, but nothing by Stephen King": all of the name)
                quality = cues.word_after_degree.match(text, cue.end) if text[cue.end - 1:cue.end].isascii() else None
                stop = quality.end() if quality and quality.end() <= stop else _degree_stop(text, cue, stop, cues,
                                                                                              kinds)[0]
            if kind.effect == EXCLUDE and _of_the_whole(text, cue, stop, spans, cues):
                polarity = ALLOWED  # "not all poetry": poetry is not all there is, it is not excluded
            scopes.append(Scope(cue.start, stop, polarity, degree))
    for a, b in several:  # alternatives only among the kinds not excluded, or a kind in a list with other things
        free = [(x, y) for x, y in sorted({*kinds, *values}) if a <= x < b and not any(
            s.start <= x and y <= s.end for s in scopes if s.polarity == EXCLUDED)]
        wanted = [x for x in free if x in kinds]
        listed = any((one in kinds or other in kinds) and list_gap(text[one[1]:other[0]], cues) is not None
                     for one, other in zip(free, free[1:]))
        # or joined to an item the brief names nothing in ("chick lit and mysteries both fine", "菜谱和散文都可以")
        joiners = alternation(tuple(cues.clauses.joiners))
        listed = listed or any((x, y) in kinds and (regex(rf"\w\s*(?:{joiners})\s*$", re.IGNORECASE).search(text, a, x)
                                               or regex(rf"\s*(?:{joiners})\s*\w", re.IGNORECASE).match(text, y, b))
                               for x, y in free)
        if len(wanted) > 1 or wanted and listed:
            scopes.append(Scope(a, b, ALLOWED))
    return scopes


def _of_the_whole(text: str, cue: Cue, stop: int, spans: list[tuple[int, int]], cues: Cues) -> bool:
    """Whether a negation speaks of the whole shelf: a word of totality between it and the first name or value it
    holds ("don't make the whole thing a mystery display", "it should not be all poetry", "不要清一色的小说")."""
    first = min((x for x, _ in spans if cue.end <= x < stop), default=None)
    return first is not None and bool(cues.totality) and bool(find_terms(text[cue.end:first], cues.totality))


def _ranges(seg: Segmented, kinds: list[tuple[int, int]], values: list[tuple[int, int]], cues: Cues
            ) -> list[tuple[int, int]]:
    """Where a range (the number grammar's words: "从 X 到 Y", "from X to Y") runs from one thing to a kind of book
    or back: the span from X to Y, X a name or a few words ("fairy tales"), Y a kind or value right after the range
    word."""
    g, text = cues.numbers, seg.text
    opening = regex(rf"(?:{alternation(g.range_open)})\s*(?P<x>[^,，。；;:：]{{1,24}}?)\s*(?:{alternation(g.ranges)})"
                    rf"\s*(?:(?:the|a|an)\s+)?$", re.IGNORECASE)
    found = []
    for y in sorted({*kinds, *values}):
        m = opening.search(text, seg.clause_of(y[0])[0], y[0])
        x = m.group("x") if m else ""
        if m and (len(x.split()) <= 3 if x.isascii() else len(x) <= 6) and (
                y in kinds or any(m.start("x") <= k < y[0] for k, _ in kinds)):
            found.append((m.start("x"), y[1]))
    return found


def _degree_stop(text: str, cue: Cue, stop: int, cues: Cues, kinds: list[tuple[int, int]],
                 values: list[tuple[int, int]] = ()) -> tuple[int, bool]:
    """Where a scope that a degree narrows ends, and whether a degree narrows it: "不要太学术的哲学入门书", "not too
    academic philosophy" exclude the degree, not the books it describes; "不要二战题材的小说" the modifier before 的,
    not the kind of book, unless the modifier names a kind itself ("不是给孩子看的绘本": children's picture books,
    both said twice)."""
    degree = _degree_after(text, cue, cues)
    # the qualities a degree joins run to its clause's end at most: "nothing too preachy, something cozy" is one
    # degree, the clause after it no quality of it
    within = degree is not None and degree.start() < stop and text[cue.end:stop].strip() != ""
    if within:
        stop = min(degree.end(), stop)
    # the head after the modifier's 的 may be a value said as a kind of book: joined to one, or its name ending in a
    # word for one ("不要穿越的言情小说": 言情小说 is a mood's name)
    starts = {k for k, _ in kinds}
    heads = starts | {a for a, b in values if b in starts or text[a:b].endswith(cues.readings.literature_words)}
    return next((x for x in sorted(heads) if cue.end + 1 < x < stop and text[x - 1] == "的"
                 and not any(cue.end <= k < x for k in starts)), stop), within


def _degree_after(text: str, cue: Cue, cues: Cues) -> re.Match | None:
    """The degree a cue negates and the quality it qualifies: "太学术的" after 不要, "academic" after "not too"."""
    own = text[cue.start:cue.end].lower().split()[-1:] in ([w] for w in cues.degree)  # "not too"
    return (cues.word_after_degree if own else cues.degree_then_word).match(text, cue.end)


def _runs_back(seg: Segmented, cue: Cue, clause: tuple[int, int], spans: list[tuple[int, int]], cues: Cues) -> bool:
    """Whether an exclusion's or requirement's scope runs back to its clause's start: a cue of a preceding kind
    unless a name follows it in its clause ("东野圭吾的除外"); a cue of a following kind where nothing named or no
    topic follows it and a name or (for a word that may also follow what it negates) a topic precedes it ("fiction
    only", "战争题材的不要")."""
    text, (a, stop) = seg.text, clause
    named_before = any(a <= s < cue.start for s, _ in spans)
    named_after = any(cue.end <= s < stop for s, _ in spans)
    said_after = named_after or bool(text[cue.end:stop].strip(" " + cues.clauses.particles))
    if cue.kind.direction == PRECEDING:
        return not (cue.start > a and named_after)
    if cue.kind.direction != FOLLOWING or cue.kind.effect not in (EXCLUDE, REQUIRE):
        return False
    if cue.kind.degree and _degree_after(text, cue, cues):  # "funny and not too long": the length, not the fun
        return False
    either_way = text[cue.start:cue.end] in cues.words_of((cue.kind.effect,), PRECEDING)
    topic_before = either_way and not said_after and has_topic(text[a:cue.start], cues)
    if either_way and not said_after and not _said(text[a:cue.start], cues):  # "…，这次不要": of the clause before
        return True
    return (named_before or topic_before) and not named_after and not has_topic(text[cue.end:stop], cues)


_LATIN_WORD = re.compile(r"\s*([A-Za-z][\w'-]*)")


def _capitalised_next(text: str, at: int) -> bool:
    """Whether the word after `at` is a capitalised Latin word: a name or a title, no quality."""
    word = _LATIN_WORD.match(text, at)
    return bool(word) and word.group(1)[0].isupper() and not word.group(1).isupper()


def _contrasts(text: str, cue: Cue, values: list[tuple[int, int]], kinds: list[tuple[int, int]], cues: Cues) -> bool:
    """Whether a negation follows a quality asked for with a contrast between ("heartwarming but not", "hopeful yet
    not", "温暖而不": a contrast's own cue), nothing else: a value of the vocabulary that is no kind of book."""
    contrast = {w.lower() for w in cues.kind_words.get("termination", ())}
    # a contrast cue of its own ("而不", "但不", "but not")
    own = cue.kind.only_where_free or bool(contrast & set(text[cue.start:cue.end].lower().split()))
    for a, b in values:
        if (a, b) in kinds or b > cue.start or cue.start - b > 12:
            continue
        words = re.findall(r"[^\s,，、]+", text[b:cue.start].lower())
        if (own and not words) or (words and all(w in contrast for w in words)):
            return True
    return False


def _rhetorical(text: str, cue: Cue, cues: Cues) -> bool:
    """Whether a negation is in a question the brief goes on past ("Never touch a romance novel? Try …", "不爱读诗？
    这几本…"): it asks about the reader, and the books are what follows; a request ("Could we skip the horror?") and
    a question that ends the brief ("No Valentine this year?") are left as they are."""
    ends = [text.find(mark, cue.end) for mark in cues.clauses.sentence_ends]
    end = min((at for at in ends if at >= 0), default=-1)
    start = max(text.rfind(mark, 0, cue.start) for mark in cues.clauses.sentence_ends) + 1
    return (end >= 0 and cues.clauses.question_end.search(text[end:end + 1]) is not None
            and bool(text[end + 1:].strip()) and not find_terms(text[start:end], cues.request))


def _said(part: str, cues: Cues) -> bool:
    """Whether a part of a clause says anything but the moment and particles ("这次", "这回就")."""
    for word in sorted(cues.moment, key=len, reverse=True):
        part = part.replace(word, "")
    return bool(part.strip(" ,，、" + cues.clauses.particles))


def _set_apart(seg: Segmented, cue: Cue, clause: tuple[int, int], clauses: list[tuple[int, int]],
               cue_list: list[Cue], spans: list[tuple[int, int]], cues: Cues) -> tuple[int, int] | None:
    """The clause before a cue that opens its own, connectives aside, and sets that one apart ("鲁迅不算，其他…",
    "…, so a different author this time"): where it names something, neither clause holds another cue but a hedge
    ("其余的都可以": any of the rest), and no additive word follows ("科幻，其他的也行" adds)."""
    a, b = clause
    before = next(((x, y) for x, y in clauses if y == a), None)
    text = seg.text
    opening = regex(rf"[\s，,、;；:：{re.escape(cues.clauses.particles)}]*(?:(?:{alternation(cues.clauses.connectives)})"
                    r"(?![\w-])[\s，,]*)*", re.IGNORECASE) if cues.clauses.connectives else None
    said = text[a:cue.start]
    opened = opening.match(said) if opening else None
    if (before is None or (said[opened.end():] if opened else said).strip(" ，,、;；:：" + cues.clauses.particles)
            or any(c is not cue and before[0] <= c.start < b and not (a <= c.start and c.kind.effect == ALLOW)
                   for c in cue_list)
            or not any(before[0] <= s < before[1] for s, _ in spans)):
        return None
    additive = cues.additive_ahead.match(text, cue.end)
    return None if additive and not seg.any_end(cue.end, additive.end()) else before


def _alternatives(seg: Segmented, cue: Cue, spans: list[tuple[int, int]], cues: Cues,
                  kinds: list[tuple[int, int]] = ()) -> tuple[int, int] | None:
    """What an alternative's cue offers: the names on either side of it, each within two words or only filler
    words away ("fiction or nonfiction", "poetry or maybe some essays", "a play or a book of poems"), or within four
    where both are kinds of book, each with its own words ("a sci-fi prequel or a World War II novel"); None where it
    joins other words ("crime novels set in Scandinavia or anywhere cold" asks for crime novels, it offers no
    alternative to them)."""
    before = max((s for s in spans if s[1] <= cue.start), key=lambda s: s[1], default=None)
    after = min((s for s in spans if s[0] >= cue.end), key=lambda s: s[0], default=None)
    if before is None or after is None:
        return None
    reach = 4 if before in kinds and after in kinds else 2
    near = all((len(words := seg.text[x:y].lower().split()) <= reach or all(w in cues.filler for w in words))
               and not seg.any_end(x, y) for x, y in ((before[1], cue.start), (cue.end, after[0])))
    return (before[0], after[1]) if near else None
