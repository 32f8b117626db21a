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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path

from tasks.model.conditions import NumericCondition
from tasks.understanding.lang import PACKS_DIR, load_packs

# Turning a bound round: what "not (x op v)" means.
# what may join a number to its unit and comparators: a space, or a hyphen making them one word ("under-200-page")
_JOINED = r"(?:\s*|\s*-\s*)"
_APPOSED = re.compile(r"[\s,，、:：(（)）]*")  # what may stand between a period's name and its years
# The books' age bounded is their year bounded the other way: younger than ten years is after ten years ago.
_YOUNGER = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "=": "="}
_OPPOSITE = {">=": "<", "<": ">=", ">": "<=", "<=": ">", "=": "!=", "!=": "="}


@dataclass(frozen=True)
class NumberGrammar:
    """numbers.yaml of every language pack."""

    digits: dict[str, int]  # number words: "三", "two"
    multipliers: dict[str, int]  # "十", "百"
    units: dict[str, tuple[str, ...]]  # quantity (a NumericCondition field) -> words after a number
    scales: dict[str, float]  # a rating's unit word -> the highest rating of its scale: "stars" 5, "分" 10
    field_words: dict[str, tuple[str, ...]]  # quantity -> words before a number that say what it counts
    before: dict[str, str]  # comparator before a number -> operator
    after: dict[str, str]  # comparator after a number and its unit -> operator
    reading_times: dict[str, int]  # how long a read takes -> pages at most
    reading_verbs: tuple[str, ...]
    not_content: frozenset[str]  # count words, time units, the grammar's field and unit words: never a keyword
    counters: frozenset[str]  # what a number counts: "本", "weeks", "dozen"
    ranges: tuple[str, ...]  # between two years: "1912到1949年", "1920 to 1940"
    range_open: tuple[str, ...]  # before a range: "from", "between"
    relative: tuple[str, ...]  # before a number of time units: "近", "the last"
    time_units: dict[str, int]  # a time unit after a number -> its years: "年" 1, "decades" 10
    single_time_units: dict[str, int]  # one of them with no number: "the last decade"
    eras: dict[str, tuple[int, ...]]  # an era's name -> its first (and last) year
    setting: tuple[str, ...]  # before a period the books are set in, not written in: "set in"
    decade_words: dict[str, int]  # "sixties" -> 1960
    ordinals: dict[str, int]  # "nineteenth" -> 19
    decade_units: tuple[str, ...]  # "年代"
    century_units: tuple[str, ...]  # "世纪", "century"
    age_before: tuple[str, ...] = ()  # before a reader's age: "ages", "aged"
    age_after: tuple[str, ...] = ()  # after it: "岁", "year-olds"
    halves: tuple[str, ...] = ()  # a half after a number or after its unit: "七分半", "三星半", "three and a half stars"
    named_years: dict[str, int] = field(default_factory=dict)  # a year named by its distance from this one: "今年" 0, "last year" 1
    publishing_words: tuple[str, ...] = ()  # a named year is the books' only beside one: "今年出版", "published last year"
    range_close: tuple[str, ...] = ()  # after a range: "之间"
    decimal_points: tuple[str, ...] = ()  # between a number and its decimals: "七点八", "three point five"
    share: tuple[str, ...] = ()  # a part of the shelf: a number said of it is a wish ("新书占一半", "half of them")
    date_parts: tuple[str, ...] = ()  # after a number inside a year's date: "2020年6月以后" ("月", "日")
    months: tuple[str, ...] = ()  # a month's name before a year: "after March 2019"
    multiplier_ones: tuple[str, ...] = ()  # one before a multiplier: "a hundred pages"
    determiners: tuple[str, ...] = ()  # between a comparator and its number: "older than the 2008 crash"
    year_nouns: tuple[str, ...] = ()  # between a year and the comparator after it: "2018 titles and later"
    grade_before: tuple[str, ...] = ()  # before a school grade's number: "grades 3 to 5"
    grade_after: tuple[str, ...] = ()  # after it: "三到五年级"
    first_grade_age: int = 6  # a first grader's age: a grade's readers are up to its number past it
    part_counters: tuple[str, ...] = ()  # after a small count, books counted: "两三本", "一部"
    alternatives: tuple[str, ...] = ()  # between two named years, either will do: "this year or last", "今年或去年"
    subject_before: tuple[str, ...] = ()  # right before a period, what the books are about: "写八九十年代的车站"
    unbounded: tuple[str, ...] = ()  # after a field's word in a clause, the field is free: "出版年不限"
    book_age_before: tuple[str, ...] = ()  # before a compared number of years in its clause, the books': "出版不超过五年"
    book_age_after: tuple[str, ...] = ()  # right after it: "no more than five years old", "less than ten years ago"
    age_in_months: tuple[str, ...] = ()  # after a baby's age in months: "6-12 months old", "9-month-olds"
    age_comparators: tuple[str, ...] = ()  # comparators of age: before a number of years, the books' ("no older than")
    within_before: tuple[str, ...] = ()  # before a number of years, a span back from now: "within a hundred years"
    within_after: tuple[str, ...] = ()  # right after it: "十年内", "二十年以内", "这十年里"
    age_modifiers: tuple[str, ...] = ()  # right after such a span, it modifies the books: "一百年内的小说"
    few: tuple[str, ...] = ()  # a few books without a number, a small count: "a handful of", "几本"
    few_after: tuple[str, ...] = ()  # the same right after the kind it counts: "a thriller or two", "小说来一两本"
    age_for: tuple[str, ...] = ()  # before an age in its clause, whom the books are for: "for kids under ten years old"
    grade_names: dict[str, int] = field(default_factory=dict)  # a grade named, its number: "K" 0
    ordinal_suffixes: tuple[str, ...] = ()  # after a grade's digits: "3rd", "5th"
    age_band_under: tuple[str, ...] = ()  # before a hyphened plural age, readers up to it: "under-tens"
    novelty_before: tuple[str, ...] = ()  # before a publishing word, a thing new to the reader: "learn something new"
    approximate: tuple[str, ...] = ()  # right beside a number, it is said roughly, no bound: "1934 or thereabouts"

    @cached_property
    def publishing(self) -> re.Pattern:
        return re.compile(_words(self.publishing_words), re.IGNORECASE)

    @cached_property
    def novelty(self) -> re.Pattern:
        """A thing new to the reader ending the text before a publishing word."""
        return re.compile(rf"(?:{_words(self.novelty_before)})\s*$", re.IGNORECASE)

    @cached_property
    def rough(self) -> re.Pattern:
        return re.compile(_words(self.approximate), re.IGNORECASE)

    @cached_property
    def half(self) -> re.Pattern:
        return re.compile(rf"\s*(?:{_words(self.halves)})", re.IGNORECASE)

    @cached_property
    def number_source(self) -> str:
        """A number as written: digits ("8.5"), number glyphs ("三百五十"), number words in sequence ("two hundred
        and fifty", an "and" only after a multiplier), each with decimals after a decimal point ("七点八", "three
        point five")."""
        glyphs = "".join(re.escape(w) for w in (*self.digits, *self.multipliers) if len(w) == 1 and not w.isascii())
        digit_glyphs = "".join(re.escape(w) for w, v in self.digits.items() if len(w) == 1 and not w.isascii()
                               and v < 10)
        latin = tuple(w for w in (*self.digits, *self.multipliers) if w.isascii())
        word = f"(?:{_words(latin)})"
        # inside a number, a number word hyphened to the next is one number with it ("eighty-four", "one-fifty"),
        # where _words keeps a word hyphened to a letter apart
        spelled_words = "|".join(re.escape(w) for w in sorted(latin, key=len, reverse=True)) or "(?!)"
        joined_end = rf"(?!\w)(?!-(?!(?:{spelled_words})(?!\w))[A-Za-z])"
        first, then = (rf"(?<!\w)(?<![A-Za-z]-)(?:{spelled_words}){joined_end}",
                       rf"(?:{spelled_words}){joined_end}")
        after_multiplier = "|".join(rf"(?<={re.escape(w)})" for w in self.multipliers if w.isascii())
        multiplier = _words(tuple(w for w in self.multipliers if w.isascii()))
        one = rf"(?:(?:{_words(self.multiplier_ones)})\s+(?=(?:{multiplier})))?" if self.multiplier_ones else ""
        words = rf"{one}{first}(?:[\s-]+{then}|" + (rf"(?:{after_multiplier})\s+and\s+{word}" if after_multiplier
                                                else "(?!)") + ")*"
        digit_words = _words(tuple(w for w, v in self.digits.items() if w.isascii() and v < 10))
        decimals = (rf"(?:\s*(?:{_words(self.decimal_points)})\s*(?:\d+" + (f"|[{digit_glyphs}]+" if digit_glyphs else "")
                    + rf"|(?:{digit_words})(?:\s+(?:{digit_words}))*))?" if self.decimal_points else "")
        # a number word hyphened to its unit or an age is one word with it: "a seven-year-old", "a five-star read"
        joinable = "|".join(re.escape(w) for w in sorted({w for w in (
            *self.age_after, *self.age_in_months, *self.time_units, *(u for us in self.units.values() for u in us))
            if w[:1].isalpha() and w.isascii()}, key=len, reverse=True))
        spelled = "|".join(re.escape(w) for w in sorted((w for w in self.digits if w.isascii()), key=len, reverse=True))
        hyphened = rf"|(?<![\w-])(?:{spelled})(?=-(?:{joinable})(?![A-Za-z]))" if joinable and spelled else ""
        whole = (r"(?<![A-Za-z\d.])\d+(?:\.\d+)?(?!\d|\.\d)" + (f"|[{glyphs}]+" if glyphs else "") + "|" + words
                 + hyphened)
        return f"(?:{whole}){decimals}"

    @cached_property
    def not_set(self) -> str:
        """Lookbehinds that keep a period the books are set in from being their years."""
        return "".join(rf"(?<!{re.escape(w)} )" for w in self.setting)

    def comparator_words(self, *ops: str) -> str:
        return _words(tuple(w for w, op in self.after.items() if op in ops))

    @cached_property
    def number(self) -> re.Pattern:
        return re.compile(self.number_source, re.IGNORECASE)

    @cached_property
    def unit(self) -> re.Pattern:
        return _table_pattern({w: q for q, words in self.units.items() for w in words}, _JOINED)

    @cached_property
    def date_inside_year(self) -> tuple[re.Pattern, re.Pattern]:
        """A date's parts finer than its year: a month and a day after the year ("2020年6月", "年3月15日"), or a
        month's name (and a day) before it ("March 2019", "1 May 2018", "June 5, 2020")."""
        day = r"\d{1,2}(?:st|nd|rd|th)?"
        return (re.compile(rf"(?:\s*(?:{self.number_source})\s*(?:{_words(self.date_parts)}))+", re.IGNORECASE),
                re.compile(rf"(?:{day}\s+)?(?:{_words(self.months)})(?:\s+{day})?,?\s*$", re.IGNORECASE))

    @cached_property
    def after_comparator(self) -> re.Pattern:
        return _table_pattern(self.after, _JOINED)

    @cached_property
    def before_comparator(self) -> re.Pattern:
        return re.compile(rf"(?P<w>{_words(tuple(self.before))}){_JOINED}$", re.IGNORECASE)

    @cached_property
    def determiner(self) -> re.Pattern:
        """A determiner between a comparator and its number ("before the 2008 crash"), right before the number."""
        return re.compile(rf"(?:{_words(self.determiners)})\s+$", re.IGNORECASE)

    @cached_property
    def year_noun(self) -> re.Pattern:
        return re.compile(rf"\s*(?:{_words(self.year_nouns)})", re.IGNORECASE)

    @cached_property
    def field_word(self) -> re.Pattern:
        return _table_pattern({w: q for q, words in self.field_words.items() for w in words}, "")

    def counts(self, word: str) -> bool:
        """Whether a word only counts: a number ("30", "三十", "twenty"), what a number counts ("周", "weeks"), or the
        two together ("十本", "两周"); such a word is never what a book is about."""
        number = self.number.match(word)
        rest = word[number.end():] if number else word
        return not rest.strip() or rest.lower() in self.counters

    def value(self, said: str) -> float:
        """A number as written: "8.5", "三百", "two hundred and fifty", "七点八", "three point five"."""
        point = re.search(rf"\s*(?:{_words(self.decimal_points)})\s*", said, re.IGNORECASE) if self.decimal_points else None
        if point and point.start() > 0:
            decimals = said[point.end():]
            digits = decimals if decimals.isdigit() else "".join(
                str(self.digits[w.lower()]) for w in (decimals.split() if decimals.isascii() else decimals))
            return self.value(said[:point.start()]) + float(f"0.{digits}")
        if said[0].isdigit():
            return float(said)
        glyphs = [self.digits.get(w) for w in said] if not said.isascii() else []
        if len(glyphs) == 4 and all(v is not None and v < 10 for v in glyphs):  # a year digit by digit: "二〇一〇"
            return float("".join(str(v) for v in glyphs))
        total, current = 0, 0
        # a glyph stands alone ("三百五十": each digit before its multiplier); words add up ("twenty five"), but a
        # word of ten or more after a number word is its next two digits, as years and colloquial hundreds are said
        # ("nineteen eighty" 1980, "twenty twenty" 2020, "one-fifty" 150)
        for w in re.findall(r"[A-Za-z]+", said.lower()) if said.isascii() else said:
            if w in self.digits and said.isascii() and current and self.digits[w] >= 10:
                current = current * 100 + self.digits[w]
            elif w in self.digits:
                current = current + self.digits[w] if said.isascii() else self.digits[w]
            elif w in self.multipliers:
                total += (current or 1) * self.multipliers[w]
                current = 0
        return float(total + current)


def published(clause: str, g: NumberGrammar) -> bool:
    """Whether a clause speaks of publishing: one of its words there, not as a thing new to the reader ("Learn
    something new this year" names no year of the books; "new books this year" does)."""
    return any(not g.novelty.search(clause[:m.start()]) for m in g.publishing.finditer(clause))


_POSSESSIVE = re.compile(r"['’]s\b")


def _words(words: tuple[str, ...]) -> str:
    """An alternation of words, longest first; a Latin word whole ("on" is not in "novel")."""
    def one(w: str) -> str:
        # a hyphen joins a word to a number ("800-plus", "under-200"), not to another word ("long-term")
        edge = r"(?<!\w)(?<![A-Za-z]-)" if w[:1].isalnum() and w.isascii() else ""
        end = r"(?!\w)(?!-[A-Za-z])" if w[-1:].isalnum() and w.isascii() else ""
        return edge + re.escape(w) + end
    return "|".join(one(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"


def _table_pattern(table: dict[str, str], lead: str) -> re.Pattern:
    """A pattern matching any word of the table at a position (after `lead`), its word in the group "w"."""
    return re.compile(rf"{lead}(?P<w>{_words(tuple(table))})", re.IGNORECASE)


def _negated_comparators(before: dict[str, str], negators: tuple[str, ...]) -> dict[str, str]:
    """The comparators before a number, and each after a negator turned round ("不能低于" is "不低于", "never more
    than" "at most"); a comparator the pack spells out itself keeps its own operator. The negator inside the phrase
    negates nothing else."""
    composed = {(f"{n} {w}" if n.isascii() and w.isascii() else n + w): _OPPOSITE[op]
                for n in negators for w, op in before.items()}
    return composed | before


@lru_cache(maxsize=4)
def number_grammar(root: Path = PACKS_DIR) -> NumberGrammar:
    packs = load_packs(root)
    table = lambda key: {str(k): v for k, v in packs.table("numbers.yaml", key).items()}  # noqa: E731
    return NumberGrammar({k: int(v) for k, v in table("digits").items()},
                         {k: int(v) for k, v in table("multipliers").items()},
                         packs.groups("numbers.yaml", "units"),
                         {k: float(v) for k, v in table("scales").items()}, packs.groups("numbers.yaml", "field_words"),
                         _negated_comparators({k: str(v) for k, v in table("before").items()},
                                              packs.words("numbers.yaml", "negators")),
                         {k: str(v) for k, v in table("after").items()},
                         {k: int(v) for k, v in table("reading_times").items()},
                         packs.words("numbers.yaml", "reading_verbs"),
                         frozenset(w.lower() for key in ("not_content", "field_words", "units")
                                   for w in (packs.words("numbers.yaml", key) if key == "not_content" else
                                             [x for ws in packs.groups("numbers.yaml", key).values() for x in ws])),
                         frozenset(w.lower() for w in packs.words("numbers.yaml", "counters")),
                         packs.words("numbers.yaml", "ranges"), packs.words("numbers.yaml", "range_open"),
                         packs.words("numbers.yaml", "relative"),
                         {k: int(v) for k, v in table("time_units").items()},
                         {k: int(v) for k, v in table("single_time_units").items()},
                         {k: tuple(int(y) for y in v) for k, v in table("eras").items()},
                         packs.words("numbers.yaml", "setting"),
                         {k: int(v) for k, v in table("decade_words").items()},
                         {k: int(v) for k, v in table("ordinals").items()},
                         packs.words("numbers.yaml", "decade_units"), packs.words("numbers.yaml", "century_units"),
                         packs.words("numbers.yaml", "age_before"), packs.words("numbers.yaml", "age_after"),
                         packs.words("numbers.yaml", "halves"),
                         {k: int(v) for k, v in table("named_years").items()},
                         packs.words("numbers.yaml", "publishing_words"), packs.words("numbers.yaml", "range_close"),
                         packs.words("numbers.yaml", "decimal_points"), packs.words("numbers.yaml", "share"),
                         packs.words("numbers.yaml", "date_parts"), packs.words("numbers.yaml", "months"),
                         packs.words("numbers.yaml", "multiplier_ones"), packs.words("numbers.yaml", "determiners"),
                         packs.words("numbers.yaml", "year_nouns"), packs.words("numbers.yaml", "grade_before"),
                         packs.words("numbers.yaml", "grade_after"),
                         int(table("school").get("first_grade_age", NumberGrammar.first_grade_age)),
                         packs.words("numbers.yaml", "part_counters"),
                         alternatives=packs.words("numbers.yaml", "alternatives"),
                         subject_before=packs.words("numbers.yaml", "subject_before"),
                         unbounded=packs.words("numbers.yaml", "unbounded"),
                         book_age_before=packs.words("numbers.yaml", "book_age_before"),
                         book_age_after=packs.words("numbers.yaml", "book_age_after"),
                         age_comparators=packs.words("numbers.yaml", "age_comparators"),
                         within_before=packs.words("numbers.yaml", "within_before"),
                         within_after=packs.words("numbers.yaml", "within_after"),
                         age_modifiers=packs.words("numbers.yaml", "age_modifiers"),
                         few=packs.words("numbers.yaml", "few"),
                         few_after=packs.words("numbers.yaml", "few_after"),
                         age_in_months=packs.words("numbers.yaml", "age_in_months"),
                         age_for=packs.words("numbers.yaml", "age_for"),
                         grade_names={k: int(v) for k, v in table("grade_names").items()},
                         ordinal_suffixes=packs.words("numbers.yaml", "ordinal_suffixes"),
                         age_band_under=packs.words("numbers.yaml", "age_band_under"),
                         novelty_before=packs.words("numbers.yaml", "novelty_before"),
                         approximate=packs.words("numbers.yaml", "approximate"))


def book_ages(text: str, g: NumberGrammar, clause_of: Callable[[int], tuple[int, int]] | None = None
              ) -> list[tuple[int, int, str, float]]:
    """(start, end, operator, years) of each age of the books said as a compared number of years: "no more than
    five years old", "published less than ten years ago", "出版不超过五年", "出版五年以内". The age is the books' where
    a word of age follows the years, a comparator of age precedes them ("no older than ten years": its operator,
    said of years, mirrored to be said of the age), or a word of publishing stands before them in the clause,
    and no word of whom the books are for does ("for kids under ten years old" is the readers' age)."""
    clause_of = clause_of or (lambda at: (0, len(text)))
    units, found = _words(tuple(g.time_units)), []
    before = g.before_comparator.pattern.removesuffix("$")
    after = "|".join(rf"{re.escape(w)}" for w in sorted(g.after, key=len, reverse=True))
    aged = rf"\s*(?P<aged>{_words(g.book_age_after)})" if g.book_age_after else "(?P<aged>(?!))"
    # a span of years with a word of within on either side is the books' age whatever else the clause says: a year
    # is never "within" ("十年内出版的", "within a hundred years"); the within-word is tried before a comparator
    inside = rf"(?P<inside>{_words(g.within_before)})\s+" if g.within_before else "(?P<inside>(?!))"
    within = rf"(?P<within>{_words(g.within_after)})" if g.within_after else "(?P<within>(?!))"
    for m in re.finditer(rf"(?:{inside}|(?:{before}))?\s*(?P<n>{g.number_source}){_JOINED}(?P<unit>{units})"
                         rf"(?:{aged})?\s*(?:{within}|(?P<after>{after}))?", text, flags=re.IGNORECASE):
        spanned = bool(m.group("inside") or m.group("within"))
        op = ("<=" if spanned else _lookup(g.before, m.group("w")) if m.group("w")
              else _lookup(g.after, m.group("after") or ""))
        clause = text[clause_of(m.start())[0]:m.start()]
        of_age = bool(op and m.group("w") and re.search(rf"(?:{_words(g.age_comparators)})$", m.group("w"),
                                                         re.IGNORECASE))
        op = _YOUNGER[op] if of_age else op
        if not op or (not m.group("aged") and not of_age and not spanned and (
                not re.search(_words(g.book_age_before), clause, re.IGNORECASE) if g.book_age_before else True)):
            continue
        if g.age_for and re.search(_words(g.age_for), clause, re.IGNORECASE):
            continue
        years = g.value(m.group("n")) * _lookup(g.time_units, m.group("unit"))
        if spanned and years >= _YEARS[0]:  # "1990年以内" names a year, no span
            continue
        # a span is the books' age where its clause speaks of publishing, or where it ends its clause or modifies
        # the books ("一百年内的中国小说"); elsewhere it is the time of something else ("一年内没人借过的好书")
        clause_end = clause_of(m.start())[1]
        if spanned and not (published(text[slice(*clause_of(m.start()))], g)
                            or not text[m.end():clause_end].strip()
                            or bool(g.age_modifiers)
                            and re.match(rf"\s*(?:{_words(g.age_modifiers)})", text[m.end():clause_end])):
            continue
        found.append((m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m.end(), op, years))
    return found


def reader_ages(text: str, g: NumberGrammar, clause_of: Callable[[int], tuple[int, int]] | None = None
                ) -> list[tuple[int, int, float, float]]:
    """(start, end, youngest, oldest) of each readers' age said: "for ages 9 to 12", "ages 8-12", "8到12岁", "6岁以下",
    "a seven-year-old", or school grade ("grades 3 to 5", "三到五年级": a grade's readers are a year younger than its
    number past a first grader's age, up to that); the youngest and oldest are the range's ends, or the one age. The
    books' own age ("no more than five years old") is none."""
    number, ranges = rf"(?:{g.number_source})", _words(g.ranges)
    # a grade as an ordinal ("3rd-5th grade") or by its name ("grades K-3"; "K-2" alone, a range from a named grade)
    suffix = rf"(?:{'|'.join(re.escape(w) for w in g.ordinal_suffixes)})?" if g.ordinal_suffixes else ""
    named = "|".join(rf"(?<![\w-])(?-i:{re.escape(w)})(?![\w])" for w in g.grade_names)
    found, books = [], book_ages(text, g, clause_of)
    # an age in years or a baby's in months (a twelfth of a year each), or a school grade
    for before, after, past, scale in ((g.age_before, g.age_after, 0, 1), ((), g.age_in_months, 0, 1 / 12),
                                       (g.grade_before, g.grade_after, g.first_grade_age, 1)):
        if not before and not after:
            continue
        one = rf"{number}{suffix}|{named}" if past and named else number
        said = rf"({one})(?:\s*(?:{ranges})\s*({one}))?"
        # after a number, its age word may be hyphened to a number word ("seven-year-old"), which _words keeps apart
        before_words = _words(before)
        after_words = "|".join(rf"{re.escape(w)}(?![A-Za-z])" for w in sorted(after, key=len, reverse=True)) or "(?!)"
        pattern = rf"(?:(?:{before_words})\s*{said}(?:\s*(?:{after_words}))?|{said}{_JOINED}(?:{after_words}))"
        if past and named:
            # bare, only a primary school's band ("K-2", "K-5"): "K-9" is a dog's, "K-12" every school year
            pattern += rf"|({named})\s*(?:{ranges})\s*([1-5]{suffix})(?![\w-])"
        for m in re.finditer(pattern, text, flags=re.IGNORECASE):
            if any(a < m.end() and m.start() < b for a, b, _, _ in books):
                continue
            ages = [_grade_or_number(x, g) * scale + past for x in m.groups() if x]
            found.append((m.start(), m.end(), min(ages) - (1 if past else 0), max(ages)))
    # a band of readers named by its upper age, hyphened and plural: "under-tens", "under-5s" (up to that age)
    if g.age_band_under:
        # a number word's plural ("tens", "twenties") or digits and an s ("5s")
        plurals = {(w[:-1] + "ies" if w.endswith("y") else w + "s"): v for w, v in g.digits.items() if w.isascii()}
        spelled = "|".join(re.escape(w) for w in sorted(plurals, key=len, reverse=True))
        under = "|".join(re.escape(w) for w in g.age_band_under)  # hyphened to what follows, which _words refuses
        band = rf"(?<![\w-])(?:{under})-(?:(\d+)-?s|({spelled}))(?![A-Za-z])"
        for m in re.finditer(band, text, flags=re.IGNORECASE):
            age = float(m.group(1)) if m.group(1) else float(plurals[m.group(2).lower()])
            found.append((m.start(), m.end(), 0.0, age))
    return found


def _grade_or_number(said: str, g: NumberGrammar) -> float:
    """A grade's number: its name's ("K" 0), or the number said, an ordinal's suffix aside ("3rd")."""
    if said in g.grade_names:
        return float(g.grade_names[said])
    suffixed = re.fullmatch(rf"(\d+)(?:{'|'.join(re.escape(w) for w in g.ordinal_suffixes)})", said, re.IGNORECASE
                            ) if g.ordinal_suffixes else None
    return float(suffixed.group(1)) if suffixed else g.value(said)


def _lookup(table: dict[str, str], word: str) -> str:
    return table.get(word, table.get(word.lower(), next((v for k, v in table.items() if k.lower() == word.lower()), "")))


# a number is a publication year only in these: "2005 or later", not "3 or more"; a year before printing ("written
# before 1400", "1200年以前") is when a work was written, which no edition's year says
_YEARS = (1450, 2100)
_SCALE = {"rating": 10}  # the highest number a quantity may take: "rated 4" is a rating, "rated 40" none


def _stated(text: str, grammar: NumberGrammar, clause_start: Callable[[int], int]) -> Iterator[NumericMention]:
    """Every number with a quantity and a comparator: "不超过250页", "评分8.5以上", "2005 or later", "après 2000"."""
    units_said: dict[int, tuple[str, float | None]] = {}  # a clause's start -> the quantity its unit last said
    for m in grammar.number.finditer(text):
        value, start, end = grammar.value(m.group(0)), m.start(), m.end()
        quantity, op, scale = "", "", None
        half = grammar.half.match(text, end)  # "three and a half stars": the half before the unit
        if half:
            value, end = value + 0.5, half.end()
        # a comparator may stand between the number and its unit ("800-plus pages", "300 or more pages")
        inner = grammar.after_comparator.match(text, end)
        unit = grammar.unit.match(text, inner.end()) if inner else None
        unit = unit or grammar.unit.match(text, end)
        if unit and inner and unit.start() >= inner.end():
            op = _lookup(grammar.after, inner.group("w"))
        if unit:
            quantity, end = _lookup({w: q for q, ws in grammar.units.items() for w in ws}, unit.group("w")), unit.end()
            scale = float(_lookup(grammar.scales, unit.group("w")) or 0) or None
            half = None if half else grammar.half.match(text, end)  # "七分半", "三星半": the half after it
            if half:
                value, end = value + 0.5, half.end()
        # a bound inside a year ("2020年6月以后", "after March 2019") holds books of that year: the year is in
        month_after, month_before = grammar.date_inside_year
        inside = (month_after.match(text, end) if quantity == "pub_year" or not quantity else None)
        # a noun of books may stand between a year and its comparator ("2018 titles and later", "2015年版以后")
        noun = (grammar.year_noun.match(text, end) if (quantity == "pub_year" or not quantity and m.group(0).isdigit())
                and not inside else None)
        after = None if op else grammar.after_comparator.match(text, inside.end() if inside else end)
        after = after or (grammar.after_comparator.match(text, noun.end()) if noun and not op else None)
        if after:
            op, end = _lookup(grammar.after, after.group("w")), after.end()
        else:
            inside = None
        clause = clause_start(start)
        month = month_before.search(text, clause, start) if grammar.months and m.group(0).isdigit() else None
        reach = month.start() if month else start
        determiner = grammar.determiner.search(text, clause, reach)  # "older than the 2008 crash"
        reach = determiner.start() if determiner else reach
        before = grammar.before_comparator.search(text, clause, reach)
        if before and not text[before.end():reach].strip():
            op, start = op or _lookup(grammar.before, before.group("w")), before.start()
            inside = inside or month
        if inside:
            op = {">": ">=", "<": "<="}.get(op, op)
        named = [f for f in grammar.field_word.finditer(text, clause, start)]
        if named:
            field = named[-1]
            quantity = quantity or _lookup({w: q for q, ws in grammar.field_words.items() for w in ws}, field.group("w"))
            if not text[field.end():start].strip():  # "评分8分以上", "rated 4 or higher": the field word is the phrase's
                start = field.start()
        # a year's number alone is a year, in digits or in words ("from nineteen eighty onward"); glyphs need 年
        if not quantity and value.is_integer() and _YEARS[0] <= value <= _YEARS[1] and m.group(0).isascii():
            quantity = "pub_year"
        # a second bound of its clause shares the first's unit: "nothing under 100 pages or over 300"; so does a
        # clause that is a bound and nothing else, right after a clause with a unit: "at least 150 pages, nothing
        # above 300"
        alone = (not quantity and op and units_said and len(text[clause:start].split()) <= 1
                 and not re.match(r"\s*\w", text[end:]))
        if not quantity and op and (clause in units_said or alone):
            quantity, scale = units_said.get(clause) or units_said[max(units_said)]
        elif unit:
            units_said[clause] = (quantity, scale)
        if not op or not quantity or value > _SCALE.get(quantity, value) or (
                quantity == "pub_year" and not _YEARS[0] <= value <= _YEARS[1]):
            continue
        yield NumericMention(start, end, (NumericCondition(quantity, op, value,
                                                           scale=scale if quantity == "rating" else None),))


def _reading_times(text: str, grammar: NumberGrammar, clause_of: Callable[[int], tuple[int, int]]
                   ) -> Iterator[NumericMention]:
    """"一个下午就能读完", "fiction you can read in a few hours": a read that short is a page count at most."""
    for said, pages in grammar.reading_times.items():
        for m in re.finditer(_words((said,)), text, re.IGNORECASE):
            a, b = clause_of(m.start())
            if re.search(_words(grammar.reading_verbs), text[a:b], re.IGNORECASE):
                yield NumericMention(m.start(), m.end(), (NumericCondition("pages", "<=", float(pages)),))


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
            return (replace(cond, op=_OPPOSITE[cond.op]),)
        bounds = {c.op: c for c in self.conditions}
        low, high = bounds.get(">=") or bounds.get(">"), bounds.get("<") or bounds.get("<=")
        if len(self.conditions) != 2 or low is None or high is None or low.field != high.field or low.field == "rating":
            return ()
        first = low.value + (low.op == ">")
        return (NumericCondition(low.field, "outside", first, high.value + (high.op == "<=")),)


def _decade(digit: str | None, word: str | None, grammar: NumberGrammar) -> int | None:
    """The first year of a twentieth-century decade said as "'60s" (its digit) or "sixties"; None for neither."""
    return 1900 + 10 * int(digit) if digit else int(_lookup(grammar.decade_words, word)) if word else None


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

    def add(match: re.Match, *conditions: tuple[str, str, float], start: int | None = None,
            end: int | None = None) -> None:
        # no book is published after this year: "21世纪" is from 2001 on, so "nothing from the 21st century"
        # can be turned round (a two-sided range cannot)
        kept = [c for c in conditions if not (c[0] == "pub_year" and c[1] in ("<", "<=") and c[2] > year)]
        found.append(NumericMention(match.start() if start is None else start, match.end() if end is None else end,
                                    tuple(NumericCondition(f, op, float(v)) for f, op, v in kept or conditions)))

    text = brief
    found += _stated(text, grammar, lambda at: clause_of(at)[0])
    found += _reading_times(text, grammar, clause_of)
    g = grammar
    # the books' age, a compared number of years: "no more than five years old" is from five years ago on
    for start, end, op, years in book_ages(text, g, clause_of):
        found.append(NumericMention(start, end, (NumericCondition("pub_year", _YOUNGER[op], float(year - years)),)))
    number, units = rf"(?:{g.number_source})", _words(g.units.get("pub_year", ()))
    # "1912到1949年", "from 1920–1940" (a dash too: it had lost to "from 1920", as long and earlier)
    for m in re.finditer(rf"(?:(?:{_words(g.range_open)})\s+)?(?<!\d)(\d{{4}})\s*(?:{units})?\s*(?:{_words(g.ranges)})"
                         rf"\s*(\d{{4}})(?!\d)\s*(?:{units})?", text, flags=re.IGNORECASE):
        add(m, ("pub_year", ">=", int(m.group(1))), ("pub_year", "<=", int(m.group(2))))
    # "200到300页", "评分8到9分之间", "between 150 and 300 pages", "页数在150到250之间", "rated between 3 and 4": a
    # range of any quantity, said by a unit after either number (a rating's unit says its scale) or by a field word
    # before the range in its clause
    unit_of = {w: q for q, ws in g.units.items() for w in ws}
    unit = _words(tuple(unit_of))
    fields = {w: q for q, ws in g.field_words.items() for w in ws}
    for m in re.finditer(rf"(?:(?:{_words(g.range_open)})\s*)?(?<![\d.])(?P<low>{number})\s*(?P<first>{unit})?\s*"
                         rf"(?:{_words(g.ranges)})\s*(?P<high>{number})\s*(?P<w>{unit})?(?![A-Za-z])"
                         rf"(?:\s*(?:{_words(g.range_close)}))?", text, flags=re.IGNORECASE):
        said = m.group("w") or m.group("first")
        named = [] if said else list(g.field_word.finditer(text, clause_of(m.start())[0], m.start()))
        quantity = _lookup(unit_of, said) if said else _lookup(fields, named[-1].group("w")) if named else ""
        low, high = g.value(m.group("low")), g.value(m.group("high"))
        if quantity in ("", "pub_year") or not 0 < low < high or high > _SCALE.get(quantity, high):
            continue  # years have their own range above
        scale = float(_lookup(g.scales, said) or 0) or None if quantity == "rating" and said else None
        found.append(NumericMention(m.start(), m.end(), (NumericCondition(quantity, ">=", low, scale=scale),
                                                         NumericCondition(quantity, "<=", high, scale=scale))))
    # 1980年代, 80年代, 八十年代, 八九十年代 (the 1900s; "00年代" the 2000s; 10 and 20 are left out: "20年代的上海"
    # is the 1920s): the decades, or with 以后 / 以前 everything from their start on, or before it
    glyphs = "".join(re.escape(w) for w, v in g.digits.items() if len(w) == 1 and not w.isascii() and 0 < v < 10)
    tens = "".join(re.escape(w) for w, v in g.multipliers.items() if v == 10)
    if g.decade_units:
        for m in re.finditer(rf"(?:(\d{{4}})|(00|[3-9]0)|([{glyphs}])([{glyphs}])?[{tens}])\s*"
                             rf"(?:{_words(g.decade_units)})\s*({g.comparator_words('>=', '<')})?", text):
            if m.group(1) or m.group(2):
                first = int(m.group(1)) if m.group(1) else (2000 if m.group(2) == "00" else 1900 + int(m.group(2)))
                last = first
            else:
                first = 1900 + int(g.value(m.group(3))) * 10
                last = 1900 + int(g.value(m.group(4))) * 10 if m.group(4) else first
            if m.group(5):
                add(m, ("pub_year", _lookup(g.after, m.group(5)), first))
            else:
                add(m, ("pub_year", ">=", first), ("pub_year", "<", last + 10))
    # "今年出版的", "published last year": that year, where a publishing word is in its clause ("this year's
    # Halloween display" is no year of the books); a longer "the past year" below is the year up to now
    named = {k.lower(): v for k, v in g.named_years.items()}
    # a second named year after an alternative, its noun left out where it shares the first's ("this year or last"),
    # makes one span of both
    either = re.compile(rf"\s*(?:{_words(g.alternatives)})\s*({_words(tuple(g.named_years))}|[^\W\d_]+)",
                        re.IGNORECASE)
    for m in re.finditer(rf"(?:{_words(tuple(g.named_years))})", text, flags=re.IGNORECASE):
        if not published(text[slice(*clause_of(m.start()))], g):
            continue
        said = year - named[m.group(0).lower()]
        other = either.match(text, m.end())
        noun = m.group(0).split()[-1]
        second = other and next((named[k] for k in (other.group(1).lower(), f"{other.group(1)} {noun}".lower())
                                 if k in named), None)
        if second is None:
            add(m, ("pub_year", ">=", said), ("pub_year", "<=", said))
        else:
            add(m, ("pub_year", ">=", min(said, year - second)), ("pub_year", "<=", max(said, year - second)),
                end=other.end())
    # "2019年出版的", "published in 2019": the one year of its clause, with no comparator, beside a word of
    # publishing there, is that year (a comparator or a range makes a longer phrase, which wins; "2019 and 2020"
    # is neither alone)
    for m in re.finditer(rf"(?<![\d.])(\d{{4}})(?![\d.])(?:\s*(?:{units}))?", text, flags=re.IGNORECASE):
        said, clause = int(m.group(1)), text[slice(*clause_of(m.start()))]
        if (_YEARS[0] <= said <= _YEARS[1] and len(re.findall(r"(?<![\d.])\d{4}(?![\d.])", clause)) == 1
                and published(clause, g)):
            add(m, ("pub_year", ">=", said), ("pub_year", "<=", said))
    # "近五年", "the past two decades", "the last decade"
    for m in re.finditer(rf"(?:{_words(g.relative)})\s*({number})\s*({_words(tuple(g.time_units))})", text,
                         flags=re.IGNORECASE):
        add(m, ("pub_year", ">=", year - int(g.value(m.group(1))) * int(_lookup(g.time_units, m.group(2)))))
    # ("last year's display", "last year's most challenged titles" are something of last year, no span of the books'
    # years: a publishing word makes the named year theirs above); a possessive standing alone is the books' own
    # ("picture books only, this year's and last year's")
    owned = rf"{_POSSESSIVE.pattern}\s+(?!(?:{_words((*g.alternatives, *g.ranges))})\b)[^\W\d_]"
    for m in re.finditer(rf"(?:the\s+)?(?:{_words(g.relative)})\s+({_words(tuple(g.single_time_units))})(?!{owned})",
                         text, flags=re.IGNORECASE):
        # a named year said bare is the books' only beside a publishing word (the named years above) or as their
        # possessive: "she had her own table last year" is a remark; "the last year", "the past year" are a span
        # back from now
        if (m.group(0).lower() in named and not _POSSESSIVE.match(text, m.end())
                and not published(text[slice(*clause_of(m.start()))], g)):
            continue
        add(m, ("pub_year", ">=", year - int(_lookup(g.single_time_units, m.group(1)))))
    # "21世纪", "19th-century novels", "the twentieth century": books of that century, not ones set in it; with a
    # comparator on either side ("二十世纪以前", "before the 20th century", "19世纪以来") from or before its first year
    ordinals = _words(tuple(g.ordinals))
    # two centuries joined ("the 18th and 19th centuries", "十八到十九世纪"): from the first's first year to the
    # second's last, and neither alone
    def century_of(said: str) -> int:
        digits = re.match(r"\d+", said)
        return int(digits.group(0)) if digits else g.ordinals.get(said.lower()) or int(g.value(said))
    one = rf"(?:(?:1[5-9]|2[01])(?:st|nd|rd|th)?|{ordinals}|{number})"
    joined = []
    for m in re.finditer(rf"{g.not_set}(?:the\s+)?({one})\s*(?:{_words(g.ranges)})\s*(?:the\s+)?({one})[\s-]*"
                         rf"(?:{_words(g.century_units)})", text, flags=re.IGNORECASE):
        first, last = century_of(m.group(1)), century_of(m.group(2))
        if 15 <= first < last <= 21:
            add(m, ("pub_year", ">=", (first - 1) * 100 + 1), ("pub_year", "<=", last * 100))
            joined.append((m.start(), m.end()))
    for m in re.finditer(rf"{g.not_set}(?:the\s+)?(?:(1[5-9]|2[01])(?:st|nd|rd|th)?|({ordinals})|({number}))[\s-]*"
                         rf"(?:{_words(g.century_units)})\s*({g.comparator_words('>=', '>', '<', '<=')})?", text,
                         flags=re.IGNORECASE):
        said = m.group(1) or m.group(2) or m.group(3)
        century = int(m.group(1)) if m.group(1) else g.ordinals.get(said.lower()) or int(g.value(said))
        if any(a <= m.start() < b for a, b in joined):
            continue
        before = g.before_comparator.search(text, clause_of(m.start())[0], m.start())
        said_before = before.group("w").lower() if before and before.end() == m.start() else ""
        op = (_lookup(g.after, m.group(4)) if m.group(4)  # "from the 20th century" is its years, no bound
              else _lookup(g.before, said_before) if said_before not in ("", *g.range_open) else "")
        if not 15 <= century <= 21:
            continue
        first, last = (century - 1) * 100 + 1, century * 100
        # the century itself is in a bound that includes it ("or earlier", "以来"), out of one that does not
        # ("以前", "after the 19th century")
        bound = {"<": ("<", first), "<=": ("<=", last), ">=": (">=", first), ">": (">", last)}.get(op)
        if bound:
            add(m, ("pub_year", *bound), start=before.start() if said_before and not m.group(4) else None)
        else:
            add(m, ("pub_year", ">=", first), ("pub_year", "<=", last))
    # "the 1960s", "1960s or 1970s", "the 1920s and '30s": from the first decade to the end of the last; "the 1800s"
    # alone is a century, as curators say it
    for m in re.finditer(rf"{g.not_set}\b(?:in |from )?(?:the )?(\d{{3}})0s\b(?:\s*(?:or|and|to|through|-|–)\s*(?:the )?"
                         r"(?:(\d{3})|'?(\d))0s\b)?", text, flags=re.IGNORECASE):
        first = int(m.group(1)) * 10
        last = (int(m.group(2)) * 10 if m.group(2) else first // 100 * 100 + int(m.group(3)) * 10 if m.group(3)
                else first)
        if last >= first:
            century = first == last and first % 100 == 0
            add(m, ("pub_year", ">=", first), ("pub_year", "<", last + (100 if century else 10)))
    # "the '60s", "the sixties and seventies": the twentieth century's decades; not "their twenties", not "set in"
    if g.decade_words:
        decade = rf"(?:['’]?([2-9])0s\b|({_words(tuple(g.decade_words))}))"
        for m in re.finditer(rf"{g.not_set}\bthe\s+{decade}(?:\s*(?:or|and|to|through|-|–)\s*(?:the\s+)?{decade})?",
                             text, flags=re.IGNORECASE):
            first = _decade(m.group(1), m.group(2), g)
            last = _decade(m.group(3), m.group(4), g) or first
            if last >= first:
                add(m, ("pub_year", ">=", first), ("pub_year", "<", last + 10))
    # Eras by name: "between the wars" is 1918-1939 and "post-war" from 1945, as literary histories use them. Not
    # where the brief says the books are set then: a novel set between the wars may be new. The brief's own years
    # next to the name ("between the wars, 1919 to 1939") say which years it means.
    spelled = [(n.start, n.end) for n in found if any(c.field == "pub_year" for c in n.conditions)]
    for m in re.finditer(rf"{g.not_set}(?:{_words(tuple(g.eras))})", text, flags=re.IGNORECASE):
        if any(_apposed(text, (m.start(), m.end()), span) for span in spelled):
            continue
        years = g.eras[next(k for k in g.eras if k.lower() == m.group(0).lower())]
        add(m, ("pub_year", ">=", years[0]), *([("pub_year", "<=", years[1])] if len(years) > 1 else []))
    found = _bounded_periods(text, g, clause_of, found)
    found += _joined_periods(text, g, found)
    found.sort(key=lambda n: (-(n.end - n.start), n.start))
    kept: list[NumericMention] = []
    for mention in found:
        clash = [k for k in kept if not (mention.end <= k.start or mention.start >= k.end)]
        # a range running on past a longer one-sided bound holding its first number is the phrase: "published from
        # 2000 to 2020" is no "from 2000" on ("the 1970s or earlier" holds its range whole, and stays a bound)
        if clash and all(len(k.conditions) == 1 < len(mention.conditions) and mention.end > k.end for k in clash):
            kept, clash = [k for k in kept if k not in clash], []
        if not clash:
            kept.append(mention)
    # a number said roughly bounds nothing: "from 1934 or thereabouts" is no "1934 on", "1930年前后" no "before 1930"
    rough = [(m.start(), m.end()) for m in g.rough.finditer(text)]
    return sorted((k for k in kept if not any(_beside(k, span, text) for span in rough)), key=lambda n: n.start)


def _beside(mention: NumericMention, span: tuple[int, int], text: str) -> bool:
    """Whether the words at `span` follow the number's phrase at once, or run across its end (前后 over 1930年前's 前).
    Before it they qualify the number, not its bound: "around 250 pages at most" is still at most."""
    a, b = span
    return a < mention.end < b or mention.end <= a and not text[mention.end:a].strip()


def _period(mention: NumericMention) -> tuple[NumericCondition, NumericCondition] | None:
    """The lower and upper bound of a period of years said ("the 1970s", "八十年代", "21世纪"); None for a bound."""
    low = next((c for c in mention.conditions if c.field == "pub_year" and c.op == ">="), None)
    high = next((c for c in mention.conditions if c.field == "pub_year" and c.op in ("<", "<=")), None)
    return (low, high) if len(mention.conditions) == 2 and low and high else None


def _bounded_periods(text: str, g: NumberGrammar, clause_of: Callable[[int], tuple[int, int]],
                     found: list[NumericMention]) -> list[NumericMention]:
    """A period with a comparator on either side is a bound of it ("the 1970s or earlier", "since the 1980s",
    "before the 1960s"): a comparator that takes the period in ("or earlier", "since") bounds at its far end, one
    that leaves it out ("before", "after") at its near end."""
    out = []
    for mention in found:
        period = _period(mention)
        after = g.after_comparator.match(text, mention.end) if period else None
        before = g.before_comparator.search(text, clause_of(mention.start)[0], mention.start) if period else None
        before = before if before and not text[before.end():mention.start].strip() else None
        op = _lookup(g.after, after.group("w")) if after else _lookup(g.before, before.group("w")) if before else ""
        if not period or not op or (before and before.group("w").lower() in g.range_open):
            out.append(mention)
            continue
        low, high = period
        bound = {">=": low, "<": replace(low, op="<"), "<=": high,
                 ">": replace(high, op=">=") if high.op == "<" else replace(high, op=">")}[op]
        out.append(NumericMention(before.start() if before and not after else mention.start,
                                  after.end() if after else mention.end, (bound,)))
    return out


def _joined_periods(text: str, g: NumberGrammar, found: list[NumericMention]) -> list[NumericMention]:
    """Two periods joined by a range word ("七十年代到九十年代", "80年代至90年代"): from the first's first year to the
    second's last, one phrase."""
    # a year alone is a period of one year at either end of a range: "九十年代到二〇一〇年", "from the sixties to 1975"
    years = [NumericMention(m.start(), unit.end() if unit else m.end(),
                            (NumericCondition("pub_year", ">=", value), NumericCondition("pub_year", "<=", value)))
             for m in g.number.finditer(text)
             if (value := g.value(m.group(0))).is_integer() and _YEARS[0] <= value <= _YEARS[1]
             for unit in [re.compile(rf"\s*(?:{_words(g.units.get('pub_year', ()))})").match(text, m.end())]
             if not any(f.start <= m.start() < f.end for f in found if _period(f))]
    periods = sorted((m for m in (*found, *years) if _period(m)), key=lambda m: (m.start, -m.end))
    between = re.compile(rf"\s*(?:{_words(g.ranges)})\s*", re.IGNORECASE)
    opening = re.compile(rf"(?:{_words(g.range_open)})\s*$", re.IGNORECASE)
    joined = []
    for one, other in zip(periods, periods[1:]):
        (low, _), (_, high) = _period(one), _period(other)
        if between.fullmatch(text, one.end, other.start) and low.value < high.value:
            opened = opening.search(text, 0, one.start)
            joined.append(NumericMention(opened.start() if opened else one.start, other.end, (low, high)))
    return joined


def rating_scale(ratings: Iterable[float | None]) -> float | None:
    """The scale a catalog rates on, read off its highest rating: 5 (stars) or 10 (Douban's 分); None where no book
    is rated."""
    highest = max((r for r in ratings if r is not None), default=None)
    return None if highest is None else 5.0 if highest <= 5 else 10.0


def on_scale(conditions: Iterable[NumericCondition], scale: float | None) -> tuple[NumericCondition, ...]:
    """The ratings converted to the catalog's scale (None: no book is rated, they stay as said and go to review):
    "8分以上" over a catalog of stars is 4 or more, "4 stars or more" over one of 分 is 8. A rating said with no
    scale is on the catalog's, unless it is higher than the catalog's highest ("rated 8 or higher" of stars: 10
    points)."""
    converted = []
    for c in conditions:
        said = c.scale or (10.0 if scale is not None and c.value > scale else scale)
        if c.field != "rating" or scale is None or said == scale:
            converted.append(c)
            continue
        factor = scale / said
        converted.append(replace(c, value=round(c.value * factor, 2), scale=scale,
                                 upper=round(c.upper * factor, 2) if c.upper is not None else None))
    return tuple(converted)


def parse_numeric_conditions(brief: str, today: date | None = None) -> tuple[NumericCondition, ...]:
    """Every numeric constraint stated in the brief, negation left aside (tasks/understanding/reading.py applies it)."""
    return tuple(dict.fromkeys(c for n in find_numbers(brief, today) for c in n.conditions))
