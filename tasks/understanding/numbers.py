"""Time and number constraints in a brief: "1980年代以后", "近五年", "before 1950", "21世纪", "评分8分以上",
"三百页以内", "over 400 pages" become numeric conditions on pub_year, rating and pages.

Each phrase is returned with its span, so that a negation around it ("nothing published before 1950",
"1950年以前出版的不要") can turn it round. Chinese 以上 / 以内 / 以后 include the bound; English "over",
"under", "after", "above" do not, "at least", "since" and "or more" do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from tasks.model.conditions import NumericCondition

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


def find_numbers(brief: str, today: date | None = None) -> list[NumericMention]:
    """Every numeric phrase of the brief, in order, without overlaps (the longer phrase wins)."""
    year = (today or date.today()).year
    found: list[NumericMention] = []

    def add(match: re.Match, *conditions: tuple[str, str, float]) -> None:
        # no book is published after this year: "21世纪" is from 2001 on, so "nothing from the 21st century"
        # can be turned round (a two-sided range cannot)
        kept = [c for c in conditions if not (c[0] == "pub_year" and c[1] in ("<", "<=") and c[2] > year)]
        found.append(NumericMention(match.start(), match.end(),
                                    tuple(NumericCondition(f, op, float(v)) for f, op, v in kept or conditions)))

    text = brief
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
    for m in re.finditer(rf"(\d{{4}})\s*年\s*({AFTER}|{BEFORE})", text):
        add(m, ("pub_year", ">=" if re.fullmatch(AFTER, m.group(2)) else "<", int(m.group(1))))
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
    for m in re.finditer(r"\b(before|after|since|from)\s+(\d{4})\b", text, flags=re.IGNORECASE):
        word = m.group(1).lower()
        add(m, ("pub_year", {"before": "<", "after": ">", "since": ">=", "from": ">="}[word], int(m.group(2))))
    for m in re.finditer(r"\b(older|earlier|newer|later|more recent|younger)\s+than\s+(\d{4})\b", text,
                         flags=re.IGNORECASE):
        add(m, ("pub_year", "<" if m.group(1).lower() in ("older", "earlier") else ">", int(m.group(2))))
    for m in re.finditer(r"\b(pre|post)-(\d{4})\b", text, flags=re.IGNORECASE):
        add(m, ("pub_year", "<" if m.group(1).lower() == "pre" else ">", int(m.group(2))))
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
    for m in re.finditer(r"评分\s*(\d+(?:\.\d+)?)\s*分?\s*(以上|以下)", text):
        add(m, ("rating", ">=" if m.group(2) == "以上" else "<=", float(m.group(1))))
    for m in re.finditer(r"\brated\s+(above|over|at least|below|under)\s+(\d+(?:\.\d+)?)", text, flags=re.IGNORECASE):
        op = {"above": ">", "over": ">", "at least": ">=", "below": "<", "under": "<"}[m.group(1).lower()]
        add(m, ("rating", op, float(m.group(2))))
    for m in re.finditer(rf"{_N}\s*页\s*(以内|以下|以上)", text):
        add(m, ("pages", "<=" if m.group(2) != "以上" else ">=", cn_number(m.group(1))))
    for m in re.finditer(r"\b(under|over|fewer than|less than|more than|longer than|shorter than|at least|at most)"
                         r"\s+(\d+)\s+pages\b", text, flags=re.IGNORECASE):
        op = {"under": "<", "fewer than": "<", "less than": "<", "shorter than": "<", "at most": "<=",
              "over": ">", "more than": ">", "longer than": ">", "at least": ">="}[m.group(1).lower()]
        add(m, ("pages", op, int(m.group(2))))
    for m in re.finditer(r"\b(\d+)\s+pages\s+or\s+(more|less|fewer)\b", text, flags=re.IGNORECASE):
        add(m, ("pages", ">=" if m.group(2).lower() == "more" else "<=", int(m.group(1))))
    found.sort(key=lambda n: (-(n.end - n.start), n.start))
    kept: list[NumericMention] = []
    for mention in found:
        if all(mention.end <= k.start or mention.start >= k.end for k in kept):
            kept.append(mention)
    return sorted(kept, key=lambda n: n.start)


def parse_numeric_conditions(brief: str, today: date | None = None) -> tuple[NumericCondition, ...]:
    """Every numeric constraint stated in the brief, negation left aside (tasks/understanding/reading.py applies it)."""
    return tuple(dict.fromkeys(c for n in find_numbers(brief, today) for c in n.conditions))
