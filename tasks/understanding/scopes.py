"""The scope algorithm: the brief's cues (the packs' cue kinds) and where each one's polarity holds.

A cue opens a scope that runs to the next cue or its clause's end (a termination ends a clause as punctuation
does); a negation after what it negates scopes back to the clause's start; "除了 X 以外" excludes X, and inside
another negation the frame flips (only X); a requirement scopes as a negation does; a hedge makes a clause's kinds
of book alternatives; a negation about the reader ("不需要懂哲学") or inside a question about the world ("why …
not") says nothing of books.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tasks.understanding.cues import Cues
from tasks.understanding.segments import Segmented
from tasks.understanding.spans import find_terms, longest_apart, regex
from tasks.understanding.topics import has_topic

WANTED, REQUIRED, ALLOWED, EXCLUDED, READER = "wanted", "required", "allowed", "excluded", "reader"


@dataclass
class Scope:
    start: int
    end: int
    polarity: str


@dataclass
class Cue:
    start: int
    end: int
    kind: str  # negation | negation_value | after | except_open | except_close | must | hedge | contrast


def find_cues(text: str, cues: Cues, taken: list[tuple[int, int]], value_starts: frozenset[int] = frozenset()
          ) -> list[Cue]:
    """Every cue outside the names and values found and outside the words that only contain one ("特别",
    "分别", "非常"), the longest winning an overlap. A bare 不 negates only a value or name right after it:
    "不烧脑" excludes, "不错", "不同", "不安" do not."""
    before_value = [(a, b, "negation_value") for a, b, _ in find_terms(text, cues.negation_before_value)
                    if b in value_starts]
    taken = taken + [(a, b) for a, b, _ in find_terms(text, cues.pseudo_negation)]
    kinds = {"negation": cues.negation_before, "after": cues.negation_after, "except_open": cues.exception_open,
             "except_close": cues.exception_close, "must": cues.requirement, "hedge": cues.hedge,
             "hedge_if_several": cues.hedge_if_several, "contrast": cues.termination}
    found = [(a, b, kind) for kind, words in kinds.items() for a, b, _ in find_terms(text, words)
             if not any(x <= a and b <= y for x, y in taken)
             and not (kind == "hedge" and text[a:b].lower() in cues.degree and cues.word_after_degree.match(text, b))]
    found += [cue for cue in before_value if not any(x <= cue[0] and cue[1] <= y for x, y in taken)]
    found += [(a, b, "negation") for a, b, _ in find_terms(text, cues.negation_after_contrast)
              if not any(x <= a and b <= y for x, y in taken)
              and not any(x < b and a < y and kind != "contrast" for x, y, kind in found)]
    return [Cue(a, b, kind) for a, b, kind in longest_apart(found)]


def clause_spans(seg: Segmented, cue_list: list[Cue]) -> list[tuple[int, int]]:
    """The text cut at its clause ends and terminations: made once per brief."""
    bounds = {0, len(seg.text), *seg.ends}
    bounds |= {c.start for c in cue_list if c.kind == "contrast"}
    ordered = sorted(bounds)
    return [(a, b) for a, b in zip(ordered, ordered[1:]) if b > a]


def _reader_scoped(text: str, cue: Cue, cues: Cues) -> bool:
    before = text[max(0, cue.start - 25):cue.start].lower()
    after = text[cue.end:cue.end + 3]
    if any(regex(rf"\b{re.escape(w.lower())}\s*$").search(before) for w in cues.reader_before):
        return True
    return any(after.startswith(w) for w in cues.reader_after)


def _asks(seg: Segmented, cue: Cue, cues: Cues) -> bool:
    """"为什么…不需要", "how not to": a negation inside a question about the world, not an exclusion."""
    clause = seg.text[seg.clause_of(cue.start)[0]:cue.start]
    return bool(find_terms(clause, cues.question))


def find_scopes(seg: Segmented, cue_list: list[Cue], spans: list[tuple[int, int]], cues: Cues,
            kinds: list[tuple[int, int]]) -> list[Scope]:
    """Where each cue's polarity holds (a cue opens a scope that runs to the next cue or the clause's end, or, after
    what it negates, back to the clause's start); `kinds` are the spans of forms and genres named."""
    scopes: list[Scope] = []
    several: list[tuple[Cue, int, int]] = []  # "都可以" cues: decided once exclusions are known
    text = seg.text
    clauses = clause_spans(seg, cue_list)
    for cue in cue_list:
        if cue.kind == "contrast":
            continue
        if cue.kind == "negation_value":  # "不太沉重的历史书": the value after it, not the books it describes
            if not _asks(seg, cue, cues):  # a question's 不 states a fact
                scopes.append(Scope(cue.start, max((y for x, y in spans if x == cue.end), default=cue.end),
                                     EXCLUDED))
            continue
        a, b = next((x, y) for x, y in clauses if x <= cue.start < y)
        if cue.kind == "except_close":
            additive = cues.additive_ahead.match(text, cue.end)  # "金庸古龙以外的也要有": others too, not instead
            if not any(a <= c.start < cue.start and c.kind in ("except_open", "negation") for c in cue_list) and not (
                    additive and not seg.any_end(cue.end, additive.end())):
                scopes.append(Scope(a, cue.start, EXCLUDED))  # "鲁迅以外的民国作家": 除了 left unsaid
            continue
        # an "or" joins what an exclusion names ("nothing by Orwell or Huxley"), it does not end it
        following = [c for c in cue_list if c.start >= cue.end and c.start < b and c.kind != "except_close"
                     and not (cue.kind == "negation" and text[c.start:c.end].lower() == "or")]
        stop = min([c.start for c in following] + [b])
        if cue.kind == "negation":
            # "不要太学术的哲学入门书", "not too academic philosophy": the degree is excluded, not the books it describes
            own = text[cue.start:cue.end].lower().split()[-1:] in ([w] for w in cues.degree)  # "not too"
            degree = (cues.word_after_degree if own else cues.degree_then_word).match(text, cue.end)
            if degree and degree.end() < stop:
                stop = degree.end()
            # "不要二战题材的小说": the modifier before 的 is excluded, not the kind of book
            stop = next((x for x, _ in kinds if cue.end + 1 < x < stop and text[x - 1] == "的"), stop)
        before_named = any(a <= s < cue.start for s, _ in spans)
        after_named = any(cue.end <= s < stop for s, _ in spans) or bool(text[cue.end:stop].strip(" " + cues.clauses.particles))
        if cue.kind == "hedge":
            joined = _joined_by_or(seg, cue, spans) if text[cue.start:cue.end].lower() == "or" else (a, b)
            if joined:
                scopes.append(Scope(*joined, ALLOWED))
            continue
        if cue.kind == "hedge_if_several":
            several.append((cue, a, b))
            continue
        polarity = REQUIRED if cue.kind == "must" else EXCLUDED
        # "战争题材的不要": a cue that may also follow what it negates, ending its clause after a plain topic
        topic_before = (text[cue.start:cue.end] in cues.negation_after and not text[cue.end:stop].strip(" " + cues.clauses.particles)
                        and has_topic(text[a:cue.start], cues))
        postfix = cue.kind == "after" or (cue.kind in ("negation", "must") and (before_named or topic_before)
                                          and not any(cue.end <= s < stop for s, _ in spans)
                                          and not has_topic(text[cue.end:stop], cues))
        if cue.kind == "after" and cue.start > a and after_named and any(cue.end <= s < stop for s, _ in spans):
            postfix = False  # "不要" with something named after it negates that
        if postfix and cue.kind in ("negation", "must", "after"):
            scopes.append(Scope(a, cue.start, polarity))
            continue
        if cue.kind == "negation" and _asks(seg, cue, cues):
            continue  # a question's "why … not": its words stay what the text is about
        if cue.kind == "negation" and _reader_scoped(text, cue, cues):
            # "不需要懂哲学也能读的好书": what the reader need not know ends where the book is spoken of again
            end = cues.reader_stop.search(text[cue.end:stop])
            scopes.append(Scope(cue.start, cue.end + end.start() if end else stop, READER))
            continue
        close = next((c for c in cue_list if c.kind == "except_close" and cue.end <= c.start < stop), None)
        if cue.kind == "except_open":
            if not cues.additive_ahead.match(text, close.end if close else stop):
                scopes.append(Scope(cue.start, close.start if close else stop, EXCLUDED))
        elif cue.kind == "negation" and close is not None:
            # "不看刘慈欣以外的科幻": what stands before 以外 is the only thing wanted
            scopes.append(Scope(cue.start, close.start, REQUIRED))
        else:
            scopes.append(Scope(cue.start, stop, polarity))
    for cue, a, b in several:  # alternatives only among the kinds not excluded
        wanted = [k for k, e in kinds if a <= k < b and not any(s.start <= k and e <= s.end for s in scopes
                                                                 if s.polarity == EXCLUDED)]
        if len(wanted) > 1:
            scopes.append(Scope(a, b, ALLOWED))
    return scopes


def _joined_by_or(seg: Segmented, cue: Cue, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """What an "or" offers as alternatives: the names on either side of it, each within two words ("fiction or
    nonfiction", "poetry or maybe some essays"); None where it joins other words ("crime novels set in Scandinavia
    or anywhere cold" asks for crime novels, it offers no alternative to them)."""
    before = max((s for s in spans if s[1] <= cue.start), key=lambda s: s[1], default=None)
    after = min((s for s in spans if s[0] >= cue.end), key=lambda s: s[0], default=None)
    if before is None or after is None:
        return None
    near = all(len(seg.text[x:y].split()) <= 2 and not seg.any_end(x, y)
               for x, y in ((before[1], cue.start), (cue.end, after[0])))
    return (before[0], after[1]) if near else None


def exclusion_around(start: int, end: int, scopes: list[Scope]) -> Scope | None:
    """The innermost exclusion scope holding the span."""
    return min((s for s in scopes if s.start <= start and end <= s.end and s.polarity == EXCLUDED),
               key=lambda s: s.end - s.start, default=None)
