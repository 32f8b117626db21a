"""Time and number constraints in a brief: "1980年代以后", "近五年", "before 1950", "21世纪", "评分8分以上",
"三百页以内", "over 400 pages", "rated 4 or higher", "read in an afternoon" become numeric conditions on pub_year,
rating and pages.

The grammar is compositional, its words in the language packs (tasks/understanding/lang/<code>/numbers.yaml): a
number, the quantity it counts (a unit after it, "页", "pages", "stars"; a field word before it, "评分", "rated"; a
year when it is one and nothing else says), and a comparator on either side ("不超过 250 页", "2005 or later", "2012
年起"). The bound's inclusion is the comparator's: Chinese 以上 / 以内 / 以后 include it; "over", "under", "after"
do not, "at least", "since" and "or more" do. How long a read takes ("一个下午读完", "read in a few hours") is a
page count at most. Decades, centuries and relative periods are still written below as patterns.

Each phrase is returned with its span, so that a negation around it ("nothing published before 1950",
"1950年以前出版的不要") can turn it round.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path

from storage.models import NumericCondition
from tasks.understanding.lang import PACKS_DIR, load_packs

_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_N = r"(\d+|[零一二两三四五六七八九十百千]+)"
# "the last five years", "the past two decades"
_EN_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
               "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50}
_EN_DECADES = {w: 1900 + 10 * i for i, w in enumerate(
    ("twenties", "thirties", "forties", "fifties", "sixties", "seventies", "eighties", "nineties"), start=2)}
_EN_ORDINALS = {"sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
                "twenty-first": 21}
AFTER = r"(?:以后|之后|以来|后)"
BEFORE = r"(?:以前|之前|前)"
# Turning a bound round: what "not (x op v)" means.
_APPOSED = re.compile(r"[\s,，、:：(（)）]*")  # what may stand between a period's name and its years
_OPPOSITE = {">=": "<", "<": ">=", ">": "<=", "<=": ">", "=": "!=", "!=": "="}


@dataclass(frozen=True)
class NumberGrammar:
    """numbers.yaml of every language pack."""

    digits: dict[str, int]  # number words: "三", "two"
    multipliers: dict[str, int]  # "十", "百"
    units: dict[str, tuple[str, ...]]  # quantity (a NumericCondition field) -> words after a number
    field_words: dict[str, tuple[str, ...]]  # quantity -> words before a number that say what it counts
    before: dict[str, str]  # comparator before a number -> operator
    after: dict[str, str]  # comparator after a number and its unit -> operator
    reading_times: dict[str, int]  # how long a read takes -> pages at most
    reading_verbs: tuple[str, ...]
    not_content: frozenset[str]  # count words and time units: never a keyword

    @cached_property
    def number(self) -> re.Pattern:
        glyphs = "".join(re.escape(w) for w in (*self.digits, *self.multipliers) if len(w) == 1 and not w.isascii())
        words = _words(tuple(w for w in self.digits if w.isascii()))
        return re.compile(rf"(?<![A-Za-z\d.])\d+(?:\.\d+)?(?!\d|\.\d)|[{glyphs}]+|{words}" if glyphs else
                          rf"(?<![A-Za-z\d.])\d+(?:\.\d+)?(?!\d|\.\d)|{words}", re.IGNORECASE)

    @cached_property
    def unit(self) -> re.Pattern:
        return _table_pattern({w: q for q, words in self.units.items() for w in words}, r"\s*")

    @cached_property
    def after_comparator(self) -> re.Pattern:
        return _table_pattern(self.after, r"\s*")

    @cached_property
    def before_comparator(self) -> re.Pattern:
        return re.compile(rf"(?:{_words(tuple(self.before))})\s*$", re.IGNORECASE)

    @cached_property
    def field_word(self) -> re.Pattern:
        return _table_pattern({w: q for q, words in self.field_words.items() for w in words}, "")

    def value(self, said: str) -> float:
        """A number as written: "8.5", "三百", "two"."""
        if said[0].isdigit():
            return float(said)
        if said.lower() in self.digits:
            return float(self.digits[said.lower()])
        total, current = 0, 0
        for ch in said:
            if ch in self.digits:
                current = self.digits[ch]
            elif ch in self.multipliers:
                total += (current or 1) * self.multipliers[ch]
                current = 0
        return float(total + current)


def _words(words: tuple[str, ...]) -> str:
    """An alternation of words, longest first; a Latin word whole ("on" is not in "novel")."""
    def one(w: str) -> str:
        edge = r"(?<![\w-])" if w[:1].isalnum() and w.isascii() else ""
        end = r"(?![\w-])" if w[-1:].isalnum() and w.isascii() else ""
        return edge + re.escape(w) + end
    return "|".join(one(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"


def _table_pattern(table: dict[str, str], lead: str) -> re.Pattern:
    """A pattern matching any word of the table at a position (after `lead`), its word in the group "w"."""
    return re.compile(rf"{lead}(?P<w>{_words(tuple(table))})", re.IGNORECASE)


@lru_cache(maxsize=4)
def number_grammar(root: Path = PACKS_DIR) -> NumberGrammar:
    packs = load_packs(root)
    table = lambda key: {str(k): v for k, v in packs.table("numbers.yaml", key).items()}  # noqa: E731
    return NumberGrammar({k: int(v) for k, v in table("digits").items()},
                         {k: int(v) for k, v in table("multipliers").items()},
                         packs.groups("numbers.yaml", "units"), packs.groups("numbers.yaml", "field_words"),
                         {k: str(v) for k, v in table("before").items()}, {k: str(v) for k, v in table("after").items()},
                         {k: int(v) for k, v in table("reading_times").items()},
                         packs.words("numbers.yaml", "reading_verbs"),
                         frozenset(w.lower() for w in packs.words("numbers.yaml", "not_content")))


def _lookup(table: dict[str, str], word: str) -> str:
    return table.get(word, table.get(word.lower(), next((v for k, v in table.items() if k.lower() == word.lower()), "")))


_YEARS = (1000, 2100)  # a number alone is a year only in these: "2005 or later", not "3 or more"
_SCALE = {"rating": 10}  # the highest number a quantity may take: "rated 4" is a rating, "rated 40" none


def _stated(text: str, grammar: NumberGrammar, clause_start: Callable[[int], int]) -> Iterator[NumericMention]:
    """Every number with a quantity and a comparator: "不超过250页", "评分8.5以上", "2005 or later", "après 2000"."""
    for m in grammar.number.finditer(text):
        value, start, end = grammar.value(m.group(0)), m.start(), m.end()
        quantity, op = "", ""
        unit = grammar.unit.match(text, end)
        if unit:
            quantity, end = _lookup({w: q for q, ws in grammar.units.items() for w in ws}, unit.group("w")), unit.end()
        after = grammar.after_comparator.match(text, end)
        if after:
            op, end = _lookup(grammar.after, after.group("w")), after.end()
        clause = clause_start(start)
        before = grammar.before_comparator.search(text, clause, start)
        if before and not text[before.end():start].strip():
            op, start = op or _lookup(grammar.before, before.group(0).strip()), before.start()
        named = [f for f in grammar.field_word.finditer(text, clause, start)]
        if named:
            field = named[-1]
            quantity = quantity or _lookup({w: q for q, ws in grammar.field_words.items() for w in ws}, field.group("w"))
            if not text[field.end():start].strip():  # "评分8分以上", "rated 4 or higher": the field word is the phrase's
                start = field.start()
        if not quantity and value.is_integer() and _YEARS[0] <= value <= _YEARS[1] and m.group(0).isdigit():
            quantity = "pub_year"
        if not op or not quantity or value > _SCALE.get(quantity, value) or (
                quantity == "pub_year" and not _YEARS[0] <= value <= _YEARS[1]):
            continue
        yield NumericMention(start, end, (NumericCondition(quantity, op, value),))


def _reading_times(text: str, grammar: NumberGrammar, clause_of: Callable[[int], tuple[int, int]]
                   ) -> Iterator[NumericMention]:
    """"一个下午就能读完", "fiction you can read in a few hours": a read that short is a page count at most."""
    for said, pages in grammar.reading_times.items():
        for m in re.finditer(_words((said,)), text, re.IGNORECASE):
            a, b = clause_of(m.start())
            if re.search(_words(grammar.reading_verbs), text[a:b], re.IGNORECASE):
                yield NumericMention(m.start(), m.end(), (NumericCondition("pages", "<=", float(pages)),))


def cn_number(text: str) -> int:
    """An Arabic or Chinese number: "300", "三百", "十五", "二十一", "两千"."""
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch in _CN_DIGITS:
            current = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            total += (current or 1) * _CN_UNITS[ch]
            current = 0
    return total + current


@dataclass(frozen=True)
class NumericMention:
    """A phrase of the brief and the conditions it states."""

    start: int
    end: int
    conditions: tuple[NumericCondition, ...]

    def negated(self) -> tuple[NumericCondition, ...]:
        """The conditions of "not this phrase": a bound turned round; a range of whole numbers (years, pages) left
        out ("nothing from the 1980s"). A range of ratings is not turned: it has no last number."""
        if len(self.conditions) == 1:
            cond = self.conditions[0]
            return (NumericCondition(cond.field, _OPPOSITE[cond.op], cond.value),)
        bounds = {c.op: c for c in self.conditions}
        low, high = bounds.get(">=") or bounds.get(">"), bounds.get("<") or bounds.get("<=")
        if len(self.conditions) != 2 or low is None or high is None or low.field != high.field or low.field == "rating":
            return ()
        first = low.value + (low.op == ">")
        return (NumericCondition(low.field, "outside", first, high.value + (high.op == "<=")),)


def _decade(digit: str | None, word: str | None) -> int | None:
    """The first year of a twentieth-century decade said as "'60s" (its digit) or "sixties"; None for neither."""
    return 1900 + 10 * int(digit) if digit else _EN_DECADES[word.lower()] if word else None


def _apposed(text: str, one: tuple[int, int], other: tuple[int, int]) -> bool:
    """Whether only blanks and punctuation stand between two spans of the text, in whichever order."""
    (_, first_end), (second_start, _) = sorted((one, other))
    return first_end <= second_start and _APPOSED.fullmatch(text[first_end:second_start]) is not None


def find_numbers(brief: str, today: date | None = None, grammar: NumberGrammar | None = None,
                 clause_of: Callable[[int], tuple[int, int]] | None = None) -> list[NumericMention]:
    """Every numeric phrase of the brief, in order, without overlaps (the longer phrase wins); `clause_of` gives
    the clause around a position (the brief's segments: a comparator or field word never reaches across a clause
    end; without it the brief is one clause)."""
    grammar = grammar or number_grammar()
    year = (today or date.today()).year
    clause_of = clause_of or (lambda at: (0, len(brief)))
    found: list[NumericMention] = []

    def add(match: re.Match, *conditions: tuple[str, str, float]) -> None:
        # no book is published after this year: "21世纪" is from 2001 on, so "nothing from the 21st century"
        # can be turned round (a two-sided range cannot)
        kept = [c for c in conditions if not (c[0] == "pub_year" and c[1] in ("<", "<=") and c[2] > year)]
        found.append(NumericMention(match.start(), match.end(),
                                    tuple(NumericCondition(f, op, float(v)) for f, op, v in kept or conditions)))

    text = brief
    found += _stated(text, grammar, lambda at: clause_of(at)[0])
    found += _reading_times(text, grammar, clause_of)
    for m in re.finditer(r"(\d{4})\s*年?\s*(?:到|至|-|–|—|~|～)\s*(\d{4})\s*年?", text):
        add(m, ("pub_year", ">=", int(m.group(1))), ("pub_year", "<=", int(m.group(2))))
    # a dash too: "from 1920–1940" had lost to "from 1920", as long and earlier, and read as since 1920
    for m in re.finditer(r"\b(?:from\s+|between\s+)?(\d{4})\s*(?:to|and|through|until|-|–|—)\s*(\d{4})\b", text,
                         flags=re.IGNORECASE):
        add(m, ("pub_year", ">=", int(m.group(1))), ("pub_year", "<=", int(m.group(2))))
    # 1980年代, 80年代, 八十年代, 八九十年代 (the 1900s; "00年代" the 2000s; 10 and 20 are left out: "20年代的上海"
    # is the 1920s): the decades, or with 以后 / 以前 everything from their start on, or before it
    for m in re.finditer(rf"(?:(\d{{4}})|(00|[3-9]0)|([一二三四五六七八九])([一二三四五六七八九])?十)\s*年代\s*"
                         rf"({AFTER}|{BEFORE})?", text):
        if m.group(1) or m.group(2):
            first = int(m.group(1)) if m.group(1) else (2000 if m.group(2) == "00" else 1900 + int(m.group(2)))
            last = first
        else:
            first = 1900 + cn_number(m.group(3)) * 10
            last = 1900 + cn_number(m.group(4)) * 10 if m.group(4) else first
        if m.group(5) and re.fullmatch(AFTER, m.group(5)):
            add(m, ("pub_year", ">=", first))
        elif m.group(5):
            add(m, ("pub_year", "<", first))
        else:
            add(m, ("pub_year", ">=", first), ("pub_year", "<", last + 10))
    for m in re.finditer(rf"(?:近|最近|过去)\s*{_N}\s*年", text):
        add(m, ("pub_year", ">=", year - cn_number(m.group(1))))
    for m in re.finditer(r"(二十一|二十|十九|21|20|19)\s*世纪", text):
        century = cn_number(m.group(1))
        add(m, ("pub_year", ">=", (century - 1) * 100 + 1), ("pub_year", "<=", century * 100))
    # "19th-century novels", "the twentieth century": books of that century, not ones set in it
    for m in re.finditer(rf"(?<!set in )(?<!set in the )\b(?:the\s+)?(?:(1[5-9]|2[01])(?:st|nd|rd|th)|"
                         rf"({'|'.join(_EN_ORDINALS)}))[\s-]+century\b", text, flags=re.IGNORECASE):
        century = int(m.group(1)) if m.group(1) else _EN_ORDINALS[m.group(2).lower()]
        add(m, ("pub_year", ">=", (century - 1) * 100 + 1), ("pub_year", "<=", century * 100))
    # "the 1960s", "1960s or 1970s", "the 1920s and '30s": from the first decade to the end of the last
    for m in re.finditer(r"\b(?:in |from )?(?:the )?(\d{3})0s\b(?:\s*(?:or|and|to|through|-|–)\s*(?:the )?"
                         r"(?:(\d{3})|'?(\d))0s\b)?", text, flags=re.IGNORECASE):
        first = int(m.group(1)) * 10
        last = (int(m.group(2)) * 10 if m.group(2) else first // 100 * 100 + int(m.group(3)) * 10 if m.group(3)
                else first)
        if last >= first:
            add(m, ("pub_year", ">=", first), ("pub_year", "<", last + 10))
    # "the '60s", "the sixties and seventies": the twentieth century's decades; not "their twenties", not "set in"
    decade = rf"(?:['’]?([2-9])0s\b|({'|'.join(_EN_DECADES)})\b)"
    for m in re.finditer(rf"(?<!set in )\bthe\s+{decade}(?:\s*(?:or|and|to|through|-|–)\s*(?:the\s+)?{decade})?",
                         text, flags=re.IGNORECASE):
        first = _decade(m.group(1), m.group(2))
        last = _decade(m.group(3), m.group(4)) or first
        if last >= first:
            add(m, ("pub_year", ">=", first), ("pub_year", "<", last + 10))
    # The world wars' dates: "between the wars" is 1918-1939 and "post-war" from 1945, as literary histories
    # use them. Not where the brief says the books are set then: a novel set between the wars may be new.
    # The brief's own years next to the name ("between the wars, 1919 to 1939") say which years it means.
    spelled = [(n.start, n.end) for n in found if any(c.field == "pub_year" for c in n.conditions)]
    for m in re.finditer(r"(?<!set )(?<!set in )\b(?:(between the (?:two )?(?:world )?wars|inter-?war)|(post-?war))\b"
                         r"|(两次(?:世界)?大战之间|战间期)|(二战后|二战以后|战后)", text, flags=re.IGNORECASE):
        if any(_apposed(text, (m.start(), m.end()), span) for span in spelled):
            continue
        if m.group(1) or m.group(3):
            add(m, ("pub_year", ">=", 1918), ("pub_year", "<=", 1939))
        else:
            add(m, ("pub_year", ">=", 1945))
    for m in re.finditer(rf"\b(?:last|past)\s+(\d+|{'|'.join(_EN_NUMBERS)})\s+(years|decades?)\b", text,
                         flags=re.IGNORECASE):
        count = int(m.group(1)) if m.group(1).isdigit() else _EN_NUMBERS[m.group(1).lower()]
        add(m, ("pub_year", ">=", year - count * (10 if m.group(2).lower().startswith("decade") else 1)))
    for m in re.finditer(r"\b(?:the\s+)?(?:last|past)\s+decade\b", text, flags=re.IGNORECASE):
        add(m, ("pub_year", ">=", year - 10))
    found.sort(key=lambda n: (-(n.end - n.start), n.start))
    kept: list[NumericMention] = []
    for mention in found:
        if all(mention.end <= k.start or mention.start >= k.end for k in kept):
            kept.append(mention)
    return sorted(kept, key=lambda n: n.start)


def parse_numeric_conditions(brief: str, today: date | None = None) -> tuple[NumericCondition, ...]:
    """Every numeric constraint stated in the brief, negation left aside (tasks/understanding/reading.py applies it)."""
    return tuple(dict.fromkeys(c for n in find_numbers(brief, today) for c in n.conditions))
