"""Names as catalogs write them: the person, their role in the book and their nation, from an author statement.

Catalogs write "[日]东野圭吾 著", "（美）雷·布拉德伯里", "〔英〕简·奥斯汀 著；王科一 译", "刘慈欣、王晋康 著",
"Smith, John, 1950- ill.", "edited by Jane Doe", "Tolkien, J. R. R. (John Ronald Reuel), 1892-1973". A name
keeps none of its marks; the role mark says whether the person is an author of the book at all (a translator,
illustrator or editor is not), the nationality or dynasty mark becomes a fact of the author (the literature
they write in), life dates go. The marks are data (config/names.yaml); this module knows no language.

Within one statement, names listed together share the role mark written after the last of them
("王蕴洁、李某 译": both translate); a list separator (";", "；", "|", " / ") ends a statement.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from hanziconv.charmap import simplified_charmap, traditional_charmap

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml

NAMES_FILE = CONFIG_DIR / "names.yaml"
ROLES = ("author", "translator", "illustrator", "editor", "contributor")
# The roles a book is "by", in order of precedence: an anthology credited only to its editor is by the editor, a
# picture book credited only to its illustrator by the illustrator; a translator never.
BY_ROLES = ("author", "editor", "illustrator", "contributor")
# Single Chinese marks that also end many names (沈从文, 王图, 陈述): they count only after a space or a bracket.
_MIN_GLUED_MARK = 2
_CJK = r"\u3400-\u9fff"
_HARD_SEPARATOR = re.compile(r"\s*(?:[;；|\n]|\s/\s)\s*")
_SOFT_SEPARATOR = re.compile(rf"\s*(?:、|，|(?<=[{_CJK}])\s*,\s*|(?<=[{_CJK}])\s+(?=[{_CJK}])|\s*,\s*(?=[{_CJK}\[(（〔【])|\s+&\s+|\s+and\s+(?=\S+\s+\S))\s*")
# Life dates after a name: "1950-", "1899-1986", "（1881—1936）", "b. 1950", "ca. 1400-1450", "750 BCE-650 BCE"
_YEAR = r"(?:\d{1,4}\s*\??\s*(?:BCE|BC|CE|AD|B\.C\.|A\.D\.)|\d{3,4}\s*\??)"
_DATES = re.compile(rf"[\s,，]*[(（]?\s*(?:(?<![A-Za-z])(?:b|d|fl|ca|approximately)\.?\s*)?-?{_YEAR}\s*"
                    rf"(?:[-–—~至]+\s*(?:{_YEAR})?)?\s*[)）]?\.?\s*$", re.IGNORECASE)
_CENTURY = re.compile(r"[\s,]*(?:\d{1,2}(?:st|nd|rd|th)\s+cent\.?|active\s+.*)$", re.IGNORECASE)
_FULLER_FORM = re.compile(r"\s*\((?:[A-Za-z][A-Za-z.'\s-]*)\)")  # MARC $q: "Tolkien, J. R. R. (John Ronald Reuel)"
_EDGE = re.compile(r"^[\s,.:：;/，。、]+|[\s,:：;/，、]+$")
_NOT_KEY = re.compile(r"[\W_]+")


# hanziconv's own table as one translation: its toSimplified looks each character up in a 3,000-character
# string (8 s of a 100k-book build); the first traditional form listed wins, as there.
_TO_SIMPLIFIED: dict[int, str] = {}
for _traditional, _simplified in zip(traditional_charmap, simplified_charmap, strict=True):
    _TO_SIMPLIFIED.setdefault(ord(_traditional), _simplified)


def fold(text: str) -> str:
    """Width, case and traditional characters folded away."""
    return simplified(unicodedata.normalize("NFKC", text)).lower()


def simplified(text: str) -> str:
    """Traditional characters as their simplified forms, one for one (a brief is read in the script its language
    pack is written in, as a name is compared: "親子共讀的繪本" is 亲子共读的绘本)."""
    return text.translate(_TO_SIMPLIFIED)


@dataclass(frozen=True)
class Credit:
    """One person of an author statement: the name as shelved, what they did for the book, their nation."""

    name: str  # "东野圭吾", "John Smith"
    role: str  # one of ROLES
    nation: str | None  # the literature they write in, from a nationality or dynasty mark: "japanese"
    written: str  # the statement it was read from, as the record wrote it (several persons may share one)

    @property
    def by(self) -> bool:
        """Whether the book may be said to be by this person (never a translator)."""
        return self.role in BY_ROLES


@dataclass(frozen=True)
class NameMarks:
    """config/names.yaml read: role marks, nationality marks, original languages."""

    after: tuple[tuple[str, str], ...]  # (mark, role), longest first
    before: tuple[tuple[str, str], ...]
    codes: dict[str, str]  # MARC relator code -> role
    glued: frozenset[str]  # one-character marks that count written straight after a name
    titles: frozenset[str]  # "Sir", "graf": dropped as the name turns round (lower case, no dot)
    generations: frozenset[str]  # "Jr", "III": after it
    surname_first: frozenset[str]  # romanised Chinese surnames ("luo"): "Luo, Guanzhong" keeps its order
    given_pinyin: re.Pattern[str]  # a given name of pinyin syllables ("guanzhong", "cheng'en")
    more: tuple[str, ...]
    nations: dict[str, str]  # mark -> nation
    languages: dict[str, str]  # language code -> nation
    open_brackets: str
    close_brackets: str

    @classmethod
    def load(cls, path: Path = NAMES_FILE) -> NameMarks:
        raw = read_yaml(path) or {}
        roles = raw.get("roles") or {}
        unknown = sorted(set(roles) - set(ROLES))
        if unknown:
            raise ValueError(f"{path}: unknown roles {unknown} (known: {list(ROLES)})")

        def marks(side: str) -> tuple[tuple[str, str], ...]:
            found = {str(m).lower().rstrip("."): role for role in ROLES for m in (roles.get(role) or {}).get(side) or ()}
            return tuple(sorted(found.items(), key=lambda kv: -len(kv[0])))

        nations = {str(m): nation for nation, ms in (raw.get("nationalities") or {}).items() for m in ms}
        languages = {str(c).lower(): nation for nation, cs in (raw.get("original_languages") or {}).items()
                     for c in cs}
        brackets = [str(b) for b in raw.get("brackets") or ()]
        codes = {str(c).lower(): role for role in ROLES for c in (roles.get(role) or {}).get("codes") or ()}
        def words(key: str) -> frozenset[str]:
            return frozenset(str(w).lower().rstrip(".") for w in raw.get(key) or ())

        chinese = raw.get("surname_first") or {}
        return cls(marks("after"), marks("before"), codes, frozenset(str(g) for g in raw.get("glued") or ()),
                   words("titles"), words("generations"),
                   frozenset(str(n).lower() for n in chinese.get("surnames") or ()),
                   re.compile(str(chinese.get("given") or "$^"), re.IGNORECASE), tuple(str(m).lower() for m in raw.get("more") or ()),
                   nations, languages, "".join(b[0] for b in brackets), "".join(b[-1] for b in brackets))

    @cached_property
    def _marks_after(self) -> re.Pattern[str]:
        """A role mark at the end of a statement: after a space, comma or bracket, or straight after a Chinese
        name."""
        alternatives = "|".join(re.escape(m) + (r"\.?" if m.isascii() and m[-1].isalpha() else "")
                                for m, _ in self.after)
        return re.compile(rf"[\s,，:：]*[(\[（〔【]?\s*(?P<mark>{alternatives})[)\]）〕】]?\s*[.。]?\s*$", re.IGNORECASE)

    @cached_property
    def _roles_after(self) -> dict[str, str]:
        return dict(self.after)

    def role_of(self, mark: str) -> str | None:
        """The role a relator term or code names ("translator.", "trl", "730", "译"), None for none."""
        mark = mark.strip(" .,;:[]()").lower()
        return self.codes.get(mark) or self._roles_after.get(mark) or dict(self.before).get(mark)

    def nation_of_language(self, code: str | None) -> str | None:
        """The literature an original language is written in, where one nation writes it ("jpn": japanese)."""
        return self.languages.get(code.strip().lower()) if code else None

    # ---- one person --------------------------------------------------------------------------------

    def credit(self, written: str, role: str = "author") -> Credit | None:
        """One person's statement read; `role` where the statement carries none of its own. None: no name in it."""
        read = self._read(written)
        if read is None:
            return None
        name, own_role, nation = read
        return Credit(name, own_role or role, nation, written.strip())

    def _read(self, written: str) -> tuple[str, str | None, str | None] | None:
        """(name, its own role mark's role, its nation), or None where no name is left."""
        text = unicodedata.normalize("NFKC", written).strip()
        nation, role = None, None
        for _ in range(4):  # marks may stack: "[清] 曹雪芹 [著]", "Smith, John, 1950- , ed."
            before = text
            text, mark = self._strip_brackets(text)
            if mark in self.nations:
                nation = nation or self.nations[mark]
            elif mark:
                role = role or self.role_of(mark)
            if role is None:  # one role a person: "Someone, Ann" keeps its Ann after ", translator"
                text, role = self._strip_role(text)
            text = self._strip_more(text)
            text = _EDGE.sub("", _CENTURY.sub("", _DATES.sub("", text)))
            if text == before:
                break
        name = self._turned(_FULLER_FORM.sub("", text).strip())
        if not name or not re.search(r"[^\W\d_]", name):
            return None
        return name, role, nation

    def _turned(self, name: str) -> str:
        """"Ishiguro, Kazuo" as "Kazuo Ishiguro" (a Latin name entered under the surname); "Darwin, Francis, Sir" as
        "Francis Darwin", "Smith, John, Jr." as "John Smith Jr."; a romanised Chinese name keeps its order
        ("Luo, Guanzhong" is Luo Guanzhong)."""
        if re.search(rf"[{_CJK}]", name) or "," not in name:
            return name
        parts = [p.strip() for p in name.split(",") if p.strip()]
        if len(parts) == 2 and parts[0].lower() in self.surname_first and self.given_pinyin.fullmatch(parts[1]):
            return f"{parts[0]} {parts[1]}"  # "Luo Guanzhong"
        if len(parts) == 2:
            return f"{parts[1]} {parts[0]}"
        if len(parts) == 3 and parts[2].lower().rstrip(".") in self.generations:
            return f"{parts[1]} {parts[0]} {parts[2]}"
        if len(parts) == 3 and parts[2].lower().rstrip(".") in self.titles:
            return f"{parts[1]} {parts[0]}"
        return name

    def _strip_brackets(self, text: str) -> tuple[str, str | None]:
        """A bracketed mark before or after the name, and what it said ("[日]", "（清）", "[著]")."""
        opening, closing = re.escape(self.open_brackets), re.escape(self.close_brackets)
        lead = re.match(rf"^\s*[{opening}]\s*([^{opening}{closing}]{{1,12}}?)\s*[{closing}]\s*", text)
        if lead and len(text) > lead.end():
            return text[lead.end():], lead.group(1).strip()
        tail = re.search(rf"\s*[{opening}]\s*([^{opening}{closing}]{{1,16}}?)\s*[{closing}]\s*$", text)
        if tail and tail.start() > 0:
            inside = tail.group(1).strip()
            if inside in self.nations or self.role_of(inside):
                return text[:tail.start()], inside
        return text, None

    def _strip_role(self, text: str) -> tuple[str, str | None]:
        lowered = text.lower()
        for mark, role in self.before:
            if lowered.startswith(mark) and (not mark[-1].isalpha() or not mark.isascii()
                                             or re.match(r"[\s:：]", text[len(mark):len(mark) + 1] or " ")):
                rest = text[len(mark):].lstrip(" :：")
                if rest:
                    return rest, role
        found = self._marks_after.search(text)
        if found is None or found.start() == 0:
            return text, None
        mark, rest = found.group("mark").lower().rstrip("."), text[:found.start()]
        if not text[found.start():found.start("mark")]:  # written straight after the name
            if mark.isascii() or (len(mark) < _MIN_GLUED_MARK and mark not in self.glued):
                return text, None  # "Alfred" does not end in "ed."; 沈从文 does not end in 文
        if len(re.findall(rf"[{_CJK}]", rest)) < 2 and not re.search(r"[A-Za-z]{2}", rest):
            return text, None
        return rest, self._roles_after[mark]

    def _strip_more(self, text: str) -> str:
        lowered = text.lower().rstrip(" .")
        for mark in self.more:
            bare = mark.rstrip(".")
            if bare and lowered.endswith(bare) and len(lowered) > len(bare):
                return text[:len(lowered) - len(bare)].rstrip(" ,，")
        return text

    # ---- a statement of several persons ------------------------------------------------------------

    def credits(self, value: str | Sequence[str] | None, role: str | None = None) -> tuple[Credit, ...]:
        """Every person of an author field (a cell of text, or a list of statements), in the record's order."""
        if value is None:
            return ()
        parts = [value] if isinstance(value, str) else [str(v) for v in value if v]
        out: list[Credit] = []
        for part in parts:
            for statement in _HARD_SEPARATOR.split(part):
                out += self._statement(statement, role)
        return tuple(out)

    def _statement(self, statement: str, role: str | None) -> list[Credit]:
        """Names listed together ("、", "，", a space between Chinese names), each with its own role mark, else the
        one written after a later name: "刘慈欣 王晋康 何夕 著", "鲁迅 著，卢沉 绘"."""
        read: list[tuple[str, str | None, str | None, str | None]] = []  # (written, name, role, nation)
        for written in (w.strip() for w in _SOFT_SEPARATOR.split(statement.strip()) if w and w.strip()):
            bare = written.lower().rstrip(".")
            if bare in self._roles_after:  # a mark standing apart: "金祎 徐丽松 缪咏华 译"
                read.append((written, None, self._roles_after[bare], None))
            elif bare not in self.more and (person := self._read(written)) is not None:
                read.append((written, *person))
        out = []
        for i, (written, name, own, nation) in enumerate(read):
            if name is not None:
                shared = own or next((later[2] for later in read[i + 1:] if later[2]), None)
                out.append(Credit(name, shared or role or "author", nation, statement.strip()))
        return out


@lru_cache(maxsize=1)
def name_marks() -> NameMarks:
    """config/names.yaml, read once."""
    return NameMarks.load()


def read_credits(value: str | Sequence[str] | None, role: str | None = None) -> tuple[Credit, ...]:
    return name_marks().credits(value, role)


def by_names(credits: Iterable[Credit]) -> tuple[str, ...]:
    """Whom the book is by: its authors; with none, its editors; then its illustrators or other contributors.
    Never its translators."""
    credits = list(credits)
    for role in BY_ROLES:
        names = [c.name for c in credits if c.role == role]
        if names:
            return tuple(dict.fromkeys(names))
    return ()


def author_nations(credits: Iterable[Credit]) -> tuple[str, ...]:
    """The nations the book's own authors are marked with (a translator's mark says nothing of the book)."""
    return tuple(dict.fromkeys(c.nation for c in credits if c.nation and c.by))


@lru_cache(maxsize=1 << 16)
def name_key(name: str) -> str:
    """A name as names are compared: marks, dates and roles dropped, "Last, First" turned, case, width, traditional
    characters and the dots between a name's parts folded ("E·B·怀特" is "E.B.怀特", "Ishiguro, Kazuo" is
    "Kazuo Ishiguro")."""
    credit = name_marks().credit(name)
    return _NOT_KEY.sub("", fold(credit.name if credit else name))
