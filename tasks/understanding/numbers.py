"""Time and number constraints in a brief: "1980年代以后", "近五年", "before 1950",
"21世纪", "评分8分以上", "300页以内" become numeric conditions on pub_year, rating and pages."""

from __future__ import annotations

import re
from datetime import date

from storage.models import NumericCondition

_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def _number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.startswith("十"):  # 十五 = 15
        return 10 + _CN_DIGITS.get(text[1:], 0)
    if "十" in text:  # 二十一 = 21
        tens, _, ones = text.partition("十")
        return _CN_DIGITS[tens] * 10 + _CN_DIGITS.get(ones, 0)
    return _CN_DIGITS[text]


_N = r"(\d+|[一二两三四五六七八九十]+)"
AFTER = r"(?:以后|之后|以来|后)"
BEFORE = r"(?:以前|之前|前)"


def parse_numeric_conditions(brief: str, today: date | None = None) -> tuple[NumericCondition, ...]:
    """Every numeric constraint found in the brief, in the order found."""
    year = (today or date.today()).year
    found: list[NumericCondition] = []

    def add(field: str, op: str, value: float) -> None:
        found.append(NumericCondition(field, op, float(value)))

    text = brief
    for m in re.finditer(rf"(\d{{4}})\s*年代\s*({AFTER}|{BEFORE})?", text):
        start = int(m.group(1))
        if m.group(2) and re.fullmatch(AFTER, m.group(2)):
            add("pub_year", ">=", start)
        elif m.group(2):
            add("pub_year", "<", start)
        else:
            add("pub_year", ">=", start)
            add("pub_year", "<", start + 10)
    for m in re.finditer(rf"(\d{{4}})\s*年\s*({AFTER}|{BEFORE})", text):
        add("pub_year", ">=" if re.fullmatch(AFTER, m.group(2)) else "<", int(m.group(1)))
    for m in re.finditer(rf"(?:近|最近|过去)\s*{_N}\s*年", text):
        add("pub_year", ">=", year - _number(m.group(1)))
    for m in re.finditer(r"(二十一|二十|十九|21|20|19)\s*世纪", text):
        century = _number(m.group(1))
        add("pub_year", ">=", (century - 1) * 100 + 1)
        add("pub_year", "<=", century * 100)
    for m in re.finditer(r"\b(before|after|since)\s+(\d{4})\b", text, flags=re.IGNORECASE):
        add("pub_year", "<" if m.group(1).lower() == "before" else ">=", int(m.group(2)))
    for m in re.finditer(r"\bin the (\d{3})0s\b", text, flags=re.IGNORECASE):
        add("pub_year", ">=", int(m.group(1)) * 10)
        add("pub_year", "<", int(m.group(1)) * 10 + 10)
    for m in re.finditer(r"\b(?:last|past)\s+(\d+)\s+years\b", text, flags=re.IGNORECASE):
        add("pub_year", ">=", year - int(m.group(1)))
    for m in re.finditer(r"评分\s*(\d+(?:\.\d+)?)\s*分?\s*(以上|以下)", text):
        add("rating", ">=" if m.group(2) == "以上" else "<=", float(m.group(1)))
    for m in re.finditer(r"\brated\s+(?:above|over)\s+(\d+(?:\.\d+)?)", text, flags=re.IGNORECASE):
        add("rating", ">", float(m.group(1)))
    for m in re.finditer(r"(\d+)\s*页\s*(以内|以下|以上)", text):
        add("pages", "<=" if m.group(2) != "以上" else ">=", int(m.group(1)))
    for m in re.finditer(r"\b(under|over)\s+(\d+)\s+pages\b", text, flags=re.IGNORECASE):
        add("pages", "<=" if m.group(1).lower() == "under" else ">=", int(m.group(2)))
    return tuple(dict.fromkeys(found))
