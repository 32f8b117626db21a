"""The workbook's words: reasons, conditions and facts said in the brief's language (Chinese or English).

A condition field is said through FIELD_PHRASES, one line per field and language, so that a new field
joins with two lines; a field without its line is said by its values alone, never by its internal name.
Vocabulary values are said by their name in Chinese and their first English alias in English, forms and
audiences by their Chinese or English name, a work by its title.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from config.class_ranges import class_ranges
from config.vocabulary import FACETS_BEYOND_DIMENSIONS, Vocabulary, get_vocabulary
from tasks.language.text_analysis import detect_language
from tasks.model.conditions import FilterCondition, NumericCondition, plain_number
from tasks.model.query import ThemeQuery
from tasks.model.reasons import (
    ByNamedAuthor,
    CloseToBrief,
    CloseToNamedBook,
    FiledUnder,
    InNamedSeries,
    LanguageChoice,
    MayBeExcluded,
    Meets,
    MeetsPreferred,
    Mentions,
    NamedBooksLeftOut,
    NewArrival,
    Reason,
    SharesWithNamedBook,
    ShelfFact,
    SkippedForHistory,
    UnavailableLeftOut,
    WorkTitles,
)
from tasks.model.review import TOPIC_QUESTIONS
from tasks.model.shelf import Question
from tasks.model.subjects import TopicSubjects

# How a condition's values are said; {v} is the values, joined. Vocabulary dimensions, then the other fields.
FIELD_PHRASES: dict[str, dict[str, str]] = {
    "reading_context": {"zh": "适合{v}", "en": "for {v}"},
    "reading_load": {"zh": "读来{v}", "en": "a {v} read"},
    "text_texture": {"zh": "文字{v}", "en": "{v} prose"},
    "spatial_atmosphere": {"zh": "场景{v}", "en": "{v} setting"},
    "emotional_tone": {"zh": "基调{v}", "en": "{v} tone"},
    "genre": {"zh": "{v}", "en": "{v}"},
    "form": {"zh": "{v}", "en": "{v}"},
    "material": {"zh": "{v}", "en": "{v}"},
    "audience": {"zh": "适合{v}阅读", "en": "for {v}"},
    "author": {"zh": "{v}的作品", "en": "by {v}"},
    "work": {"zh": "{v}", "en": "{v}"},
    "subject": {"zh": "主题词{v}", "en": "the subject {v}"},
    "classification": {"zh": "分类{v}", "en": "classed under {v}"},
    "topic": {"zh": "主题：{v}", "en": "subject: {v}"},
    "language": {"zh": "{v}图书", "en": "books in {v}"},
}
# How one value is written, where the field wants marks around it.
VALUE_FORMS: dict[str, dict[str, str]] = {
    "work": {"zh": "《{}》", "en": "{}"},
    "subject": {"zh": "「{}」", "en": "'{}'"},
}
LANGUAGE_NAMES = {"zh": {"zh": "中文", "en": "英文"}, "en": {"zh": "Chinese", "en": "English"}}
SCHEMES = {"clc": "CLC", "ddc": "DDC", "lcc": "LCC"}
AND = {"zh": "、", "en": " and "}
SENTENCE_CHARS = 80  # of the close sentence quoted in a row's why (the evidence column holds it whole)
OR = {"zh": "或", "en": " or "}

# Numeric conditions: (field, operator) -> phrase, {v} the number.
NUMERIC_PHRASES: dict[str, dict[tuple[str, str], str]] = {
    "zh": {("pub_year", ">="): "{v} 年以后出版", ("pub_year", ">"): "{v} 年之后出版",
           ("pub_year", "<="): "{v} 年及以前出版", ("pub_year", "<"): "{v} 年以前出版",
           ("pub_year", "="): "{v} 年出版", ("pub_year", "!="): "不是 {v} 年出版",
           ("rating", ">="): "评分不低于 {v}", ("rating", ">"): "评分高于 {v}", ("rating", "<="): "评分不高于 {v}",
           ("rating", "<"): "评分低于 {v}", ("rating", "="): "评分为 {v}", ("rating", "!="): "评分不为 {v}",
           ("pages", ">="): "不少于 {v} 页", ("pages", ">"): "多于 {v} 页", ("pages", "<="): "不超过 {v} 页",
           ("pages", "<"): "少于 {v} 页", ("pages", "="): "{v} 页", ("pages", "!="): "不是 {v} 页",
           ("pub_year", "outside"): "不是 {v}–{u} 年出版", ("pages", "outside"): "不是 {v}–{u} 页"},
    "en": {("pub_year", ">="): "published in {v} or later", ("pub_year", ">"): "published after {v}",
           ("pub_year", "<="): "published in {v} or earlier", ("pub_year", "<"): "published before {v}",
           ("pub_year", "="): "published in {v}", ("pub_year", "!="): "not published in {v}",
           ("rating", ">="): "rated {v} or higher", ("rating", ">"): "rated above {v}",
           ("rating", "<="): "rated {v} or lower", ("rating", "<"): "rated below {v}", ("rating", "="): "rated {v}",
           ("rating", "!="): "not rated {v}",
           ("pages", ">="): "{v} pages or more", ("pages", ">"): "more than {v} pages",
           ("pages", "<="): "{v} pages or fewer", ("pages", "<"): "fewer than {v} pages", ("pages", "="): "{v} pages",
           ("pages", "!="): "not {v} pages", ("pub_year", "outside"): "not published in {v}–{u}",
           ("pages", "outside"): "not {v}–{u} pages"},
}

TEXT: dict[str, dict[str, str]] = {
    "zh": {
        "sep": "；", "list_sep": "、", "word": "「{}」", "title": "《{}》",
        "in_title": "书名有{w}", "in_summary": "简介提到{w}", "filed_under": "主题词{w}",
        "by_author": "{a}的作品", "series": "{s}系列第 {n} 部", "close_to_book": "与{t}内容相近",
        "shares_author": "与{t}同一作者：{v}", "shares_subject": "与{t}同属主题「{v}」", "shares_tag": "与{t}一样：{v}",
        "shares_other": "与{t}相关：{v}",
        "new": "新书（{y} 年出版）", "new_no_year": "新书", "close_to_brief": "这句与主题意思相近：「{s}」",
        "may_be_excluded": "请核对：可能是{v}（推测，约 {p}%）",
        "must": "必须：{v}", "should": "最好：{v}", "must_not": "不要：{v}",
        "other_literatures": "记录注明的其他国别文学",
        "no_conditions": "没有硬性条件，按主题的意思和用词选书",
        "skipped": "近期相似书架已有的 {n} 本书（{shelves}）", "named_left_out": "{titles}本身",
        "unavailable": "没有可借复本的书", "lang_first": "{lang}图书优先", "lang_only": "只要{lang}图书",
        "lang_any": "不分语种", "nothing_left_out": "无",
        "done": "已完成", "needs_review": "待审核", "failed": "失败", "books": "{n} 本",
        "change_kept": "馆员保留，原位不动", "change_new": "新补入，替下：{v}", "change_moved": "原第 {v} 位",
        "change_answered": "新补入：按回答「{v}」",
        "limited_by": "受限于：{v}", "limit_history": "近期相似书架已用掉合适的书",
        "limit_author_cap": "每位作者的本数上限",
        "limit_availability": "合适的书没有可借复本", "limit_likely_excluded": "推测可能是主题排除的书",
        "limit_conditions": "主题的硬性条件",
        "limit_catalog": "馆藏里这个主题的书不多",
        "ask_contradiction": "「{v}」既被要求又被排除，本意是哪一个？",
        "ask_unrecognised": "这个书架想围绕什么？",
        "ask_unread": "没能读懂简介里的{t}（不像是词），这个书架想围绕什么？",
        "ask_unchecked": "馆藏数据分辨不出哪些书{v}，书架只把它当作偏好。这样可以吗？",
        "opt_as_wish": "当作偏好即可", "opt_drop_it": "去掉这个要求",
        "ask_history": "近期书架已用掉 {n} 本合适的书，允许重复还是放宽主题？",
        "ask_author_cap": "还有 {n} 本合适的书出自已上架的作者，放宽每位作者的本数上限吗？",
        "ask_availability": "有 {n} 本合适的书目前没有可借复本，要放进书架吗？",
        "ask_likely_excluded": "有 {n} 本书推测可能是主题排除的（馆藏数据无法确认），要放进书架请馆员核对吗？",
        "ask_conditions": "符合全部条件的书太少，可以放宽哪一个？",
        "ask_catalog": "馆藏里这个主题的书太少，换个说法还是放宽主题？",
        "opt_must": "必须{v}", "opt_exclude": "排除{v}", "opt_either": "不限", "opt_repeat": "允许重复",
        "opt_widen": "放宽主题", "opt_keep": "保持现状", "opt_more_per_author": "每位作者多放一本",
        "opt_include": "放入没有复本的书", "opt_include_to_check": "放进书架待核对",
        "opt_drop": "不再要求：{v}", "opt_allow": "允许{v}",
        "opt_about": "围绕：{v}",
        "subject_count": "{s}（{n} 种）", "subject_count_one": "{s}（1 种）",
        "ask_subject": "「{t}」在馆藏里有几种读法：{v}。本意是哪一个？",
        "limit_few_fit": "馆藏里符合这个主题的书不多",
        "ask_few_fit": "本馆只有 {n} 种关于{t}的书，要围绕相近的主题，还是降低相关度门槛？",
        "ask_few_fit_none": "本馆没有关于{t}的书，要围绕相近的主题，还是降低相关度门槛？",
        "ask_unheld": ("本馆没有归在{t}主题下的书（馆藏的主题和文字里都没有它），记录与它相关的只有 {n} 种，"
                       "要围绕相近的主题，还是降低相关度门槛？"),
        "ask_unheld_none": ("本馆没有归在{t}主题下的书（馆藏的主题和文字里都没有它），"
                            "要围绕相近的主题，还是降低相关度门槛？"),
        "opt_topic": "围绕：{t}（{n} 种）", "opt_lower_floor": "降低相关度门槛（放入不太确定是否符合的书）",
    },
    "en": {
        "sep": "; ", "list_sep": ", ", "word": "'{}'", "title": "{}",
        "in_title": "its title has {w}", "filed_under": "subject heading {w}",
        "in_summary": "its summary mentions {w}",
        "by_author": "by {a}", "series": "book {n} of the {s} series", "close_to_book": "close in content to {t}",
        "shares_author": "same author as {t}: {v}", "shares_subject": "shares the subject '{v}' with {t}",
        "shares_tag": "like {t}: {v}", "shares_other": "linked to {t}: {v}",
        "new": "new arrival ({y})", "new_no_year": "new arrival",
        "close_to_brief": "close in meaning to the brief: '{s}'",
        "may_be_excluded": "check: may be what the brief excludes, {v} (a guess, about {p}%)",
        "must": "must be: {v}", "should": "preferably: {v}", "must_not": "not: {v}",
        "other_literatures": "another literature, where the record names one",
        "no_conditions": "no hard conditions: chosen by the brief's meaning and words",
        "skipped": "{n} books already on recent similar shelves ({shelves})", "named_left_out": "{titles} itself",
        "unavailable": "books with no copy available", "lang_first": "books in {lang} first",
        "lang_only": "only books in {lang}", "lang_any": "books in any language", "nothing_left_out": "nothing",
        "done": "done", "needs_review": "needs review", "failed": "failed", "books": "{n} books",
        "change_kept": "kept by the curator, in place", "change_new": "new, in place of {v}",
        "change_moved": "was {v}", "change_answered": "new, as answered: {v}",
        "limited_by": "limited by {v}", "limit_history": "recent similar shelves already holding the fitting books",
        "limit_author_cap": "the cap on books per author", "limit_availability": "fitting books with no copy available",
        "limit_likely_excluded": "books a guess says are likely what the brief excludes",
        "limit_conditions": "the brief's hard conditions", "limit_catalog": "few books on this theme in the catalog",
        "ask_contradiction": "'{v}' is both asked for and excluded: which is meant?",
        "ask_unrecognised": "What should this shelf be about?",
        "ask_unread": "The brief's {t} could not be read as words: what should this shelf be about?",
        "ask_unchecked": "The catalog cannot tell which books are {v}: the shelf takes it as a wish. Is that enough?",
        "opt_as_wish": "a wish is enough", "opt_drop_it": "drop it",
        "ask_history": "Recent shelves already hold {n} fitting books: repeat them or widen the theme?",
        "ask_author_cap": "{n} more fitting books are by authors already on the shelf: allow more per author?",
        "ask_availability": "{n} fitting books have no copy available: shelve them anyway?",
        "ask_likely_excluded": ("{n} books were left out because a guess says they are likely what the brief "
                                "excludes (the catalog cannot tell): shelve them for a curator to check?"),
        "ask_conditions": "Too few books meet every condition: which one may be relaxed?",
        "ask_catalog": "The catalog holds few books on this theme: rephrase it or widen it?",
        "opt_must": "must be {v}", "opt_exclude": "exclude {v}", "opt_either": "either", "opt_repeat": "repeat them",
        "opt_widen": "widen the theme", "opt_keep": "keep as is", "opt_more_per_author": "one more per author",
        "opt_include": "include them", "opt_include_to_check": "shelve them to check",
        "opt_drop": "no longer require: {v}", "opt_allow": "allow {v}",
        "opt_about": "about: {v}",
        "subject_count": "{s} ({n} books)", "subject_count_one": "{s} (1 book)",
        "ask_subject": "'{t}' reads more than one way in this catalog: {v}. Which is meant?",
        "limit_few_fit": "few books in the catalog fit this theme",
        "ask_few_fit": ("Only {n} books in this catalog are about {t}: widen to a nearby topic, or lower the "
                        "relevance floor?"),
        "ask_few_fit_one": "Only 1 book in this catalog is about {t}: widen to a nearby topic, or lower the relevance floor?",
        "ask_few_fit_none": "No book in this catalog is about {t}: widen to a nearby topic, or lower the relevance floor?",
        "ask_unheld": ("No book in this catalog is filed under {t} (no subject or word of it is the catalog's); {n} "
                       "are tied to it by their records: widen to a nearby topic, or lower the relevance floor?"),
        "ask_unheld_one": ("No book in this catalog is filed under {t} (no subject or word of it is the catalog's); 1 "
                           "is tied to it by its record: widen to a nearby topic, or lower the relevance floor?"),
        "ask_unheld_none": ("No book in this catalog is filed under {t} (no subject or word of it is the catalog's): "
                            "widen to a nearby topic, or lower the relevance floor?"),
        "opt_topic": "about: {t} ({n} books)", "opt_topic_one": "about: {t} (1 book)",
        "opt_lower_floor": "lower the relevance floor (shelve books less sure to fit)",
    },
}


def brief_language(text: str) -> str:
    """The language a brief is answered in: zh or en."""
    return detect_language(text)


def sentence(parts: Iterable[str], language: str) -> str:
    """Parts joined as one sentence; an English one starts with a capital."""
    text = TEXT[language]["sep"].join(p for p in parts if p)
    return text[:1].upper() + text[1:] if language == "en" else text


def value_text(field: str, value: str, language: str, vocabulary: Vocabulary, works: Mapping[str, str]) -> str:
    """One value as a curator reads it."""
    if field in vocabulary.dimension_names and language == "en":
        try:
            value = vocabulary.value(field, value).english_label
        except KeyError:
            pass
    elif field == "literature":
        value = next((e.label[language] for e in class_ranges().entries if e.key == value), value)
    elif field in FACETS_BEYOND_DIMENSIONS:
        kind = next((k for k in vocabulary.kinds_of(field) if k.name == value), None)
        value = (kind.name_zh if language == "zh" else kind.name_en) if kind else value
    elif field == "language":
        value = LANGUAGE_NAMES[language].get(value, value)
    elif field == "work":
        value = works.get(value, value)
    elif field == "classification":
        scheme, _, code = value.partition(":")
        value = f"{SCHEMES.get(scheme, scheme.upper())} {code}" if code else value
    return VALUE_FORMS.get(field, {}).get(language, "{}").format(value)


def condition_text(field: str, values: Sequence[str], language: str, joiner: dict[str, str],
                   vocabulary: Vocabulary | None = None, works: Mapping[str, str] = {}) -> str:
    """A field's values said as a phrase: "基调忧伤怅惘", "melancholy or lonely tone"; class codes as the literature
    or period they stand for ("分类日本文学", not its hundreds of codes)."""
    vocabulary = vocabulary or get_vocabulary()
    if field in ("classification", "topic"):
        values = class_ranges().labels(values, language)
    joined = joiner[language].join(value_text(field, v, language, vocabulary, works) for v in values)
    return FIELD_PHRASES.get(field, {}).get(language, "{v}").format(v=joined)


def subject_count(label: str, books: int, language: str) -> str:
    """A subject with its count of books: "Cooking (412 books)", "烹饪（412 种）"."""
    return TEXT[language]["subject_count_one" if books == 1 else "subject_count"].format(s=label, n=books)


def topic_text(values: Sequence[str], found: Sequence[TopicSubjects], language: str, joiner: dict[str, str]) -> str:
    """A topic condition as the catalog's subjects it stands for, each with its count of books: "subject: Cooking
    (412 books)", "主题：日本文学（88 种）"; a class range by its caption in the sheet's language; a word the catalog
    holds no subject of, as the brief says it."""
    wanted, said, parts = set(values), set(), []
    for match in (m for t in found for m in t.matches):
        subject = match.subject
        if wanted.isdisjoint(subject.values) or subject.values in said:
            continue
        if subject.kind == "class" and subject.language != language:
            twin = next((m.subject for t in found for m in t.matches if m.subject.values == subject.values
                         and m.subject.language == language), None)
            subject = twin or subject
        said.add(subject.values)
        parts.append(subject_count(subject.label, subject.books, language))
    covered = {v for values in said for v in values}
    parts += [v for v in values if v not in covered]
    return FIELD_PHRASES["topic"][language].format(v=joiner[language].join(parts))


def numeric_text(cond: NumericCondition, language: str) -> str:
    template = NUMERIC_PHRASES[language].get((cond.field, cond.op), f"{cond.field.replace('_', ' ')} {cond.op} {{v}}")
    last = cond.last_left_out
    return template.format(v=plain_number(cond.value), u=plain_number(last) if last is not None else None)


def title_text(title: str, language: str) -> str:
    return TEXT[language]["title"].format(title)


def reason_text(reason: Reason, language: str, vocabulary: Vocabulary | None = None) -> str:
    """One typed reason in words."""
    text = TEXT[language]
    if isinstance(reason, Meets):
        return condition_text(reason.field, reason.values, language, AND, vocabulary)
    if isinstance(reason, MeetsPreferred):
        return numeric_text(reason.condition, language)
    if isinstance(reason, Mentions):
        words = text["list_sep"].join(text["word"].format(w) for w in reason.words)
        return text[f"in_{reason.where}"].format(w=words)
    if isinstance(reason, ByNamedAuthor):
        return text["by_author"].format(a=reason.author)
    if isinstance(reason, InNamedSeries):
        return text["series"].format(s=title_text(reason.series, language), n=reason.part)
    if isinstance(reason, CloseToNamedBook):
        return text["close_to_book"].format(t=title_text(reason.title, language))
    if isinstance(reason, SharesWithNamedBook):
        value = (condition_text(reason.field, (reason.value,), language, AND, vocabulary) if reason.kind == "tag"
                 else reason.value)
        key = f"shares_{reason.kind}" if f"shares_{reason.kind}" in text else "shares_other"
        return text[key].format(t=title_text(reason.title, language), v=value)
    if isinstance(reason, NewArrival):
        return text["new"].format(y=reason.year) if reason.year else text["new_no_year"]
    if isinstance(reason, CloseToBrief):
        return text["close_to_brief"].format(s=clipped(reason.sentence))
    if isinstance(reason, FiledUnder):
        return text["filed_under"].format(w=text["list_sep"].join(text["word"].format(h) for h in reason.headings))
    if isinstance(reason, MayBeExcluded):
        return text["may_be_excluded"].format(v=condition_text(reason.field, (reason.value,), language, AND, vocabulary),
                                              p=round(reason.chance * 100))
    raise TypeError(f"not a reason: {reason!r}")


def clipped(sentence: str, limit: int = SENTENCE_CHARS) -> str:
    """A sentence cut to `limit` characters, with an ellipsis where it was cut."""
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= limit else sentence[:limit - 1].rstrip() + "…"


def why_text(reasons: Sequence[Reason], language: str, vocabulary: Vocabulary | None = None) -> str:
    """A row's "why": its reasons as one sentence."""
    return sentence((reason_text(r, language, vocabulary) for r in reasons), language)


def conditions_text(query: ThemeQuery, language: str, facts: Sequence[ShelfFact] = (), with_language: bool = True,
                    vocabulary: Vocabulary | None = None) -> str:
    """The brief's conditions in plain words: "不要：基调温暖治愈；1980 年以后出版", then the language preference."""
    text = TEXT[language]
    works = dict(next((f.titles for f in facts if isinstance(f, WorkTitles)), ()))
    parts = []
    for operator, key in (("MUST", "must"), ("SHOULD", "should"), ("MUST_NOT", "must_not")):
        conditions: Sequence[FilterCondition] = query.conditions(operator)
        if conditions:
            phrases = text["list_sep"].join(topic_text(c.values, query.subjects, language, OR) if c.field == "topic"
                                            else text["other_literatures"] if _other_literatures(c, query)
                                            else condition_text(c.field, c.values, language, OR, vocabulary, works)
                                            for c in conditions)
            parts.append(text[key].format(v=phrases))
    parts += [numeric_text(n, language) for n in query.numeric_conditions]
    if query.preferred_numbers:
        parts.append(text["should"].format(v=text["list_sep"].join(numeric_text(n, language)
                                                                   for n in query.preferred_numbers)))
    choice = next((f for f in facts if isinstance(f, LanguageChoice)), None)
    stated = any(c.field == "language" for c in query.conditions("MUST"))  # already said as a condition
    if with_language and choice is not None and choice.preference != "any" and not stated:
        parts.append(fact_text(choice, language))
    return sentence(parts, language) or sentence([text["no_conditions"]], language)


def _other_literatures(condition: FilterCondition, query: ThemeQuery) -> bool:
    """Whether an exclusion is every literature but the ones the brief asks for (translate/rules.py: "日本小说" leaves
    out the records naming another literature), said as that rather than as ten nations."""
    if condition.field != "literature" or condition.operator != "MUST_NOT":
        return False
    asked = {v for c in query.filter_conditions if c.field == "literature" and c.operator != "MUST_NOT"
             for v in c.values}
    return bool(asked) and set(condition.values) == set(class_ranges().other_literatures(asked))


def fact_text(fact: ShelfFact, language: str) -> str:
    """One shelf-level fact in words."""
    text = TEXT[language]
    if isinstance(fact, SkippedForHistory):
        return text["skipped"].format(n=fact.books, shelves=text["list_sep"].join(fact.shelves))
    if isinstance(fact, NamedBooksLeftOut):
        return text["named_left_out"].format(titles=text["list_sep"].join(title_text(t, language)
                                                                          for t in fact.titles))
    if isinstance(fact, UnavailableLeftOut):
        return text["unavailable"]
    if isinstance(fact, LanguageChoice):
        name = LANGUAGE_NAMES[language].get(fact.language, fact.language)
        return text[f"lang_{fact.preference}"].format(lang=name)
    raise TypeError(f"not a shelf fact: {fact!r}")


def left_out_text(facts: Sequence[ShelfFact], language: str) -> str:
    """What the shelf left out besides its conditions, said once."""
    parts = [fact_text(f, language) for f in facts if not isinstance(f, (LanguageChoice, WorkTitles))]
    return sentence(parts or [TEXT[language]["nothing_left_out"]], language)


def question_text(question: Question, language: str, vocabulary: Vocabulary | None = None) -> str:
    """The gate's question to the curator, in the brief's language."""
    if question.kind == "subject":
        readings = TEXT[language]["list_sep"].join(subject_count(s, n, language)
                                                   for s, n in question.readings)
        return TEXT[language]["ask_subject"].format(t=question.topic, v=readings)
    named = (question.clash,) if question.clash else question.relax if question.kind == "unchecked" else ()
    value = TEXT[language]["list_sep"].join(numeric_text(c, language) if isinstance(c, NumericCondition)
                                            else condition_text(c.field, c.values, language, OR, vocabulary)
                                            for c in named)
    topic = TEXT[language]["list_sep"].join(TEXT[language]["word"].format(w) for w in question.content)
    counted = {0: f"ask_{question.kind}_none", 1: f"ask_{question.kind}_one"}.get(question.count, "")
    kind = counted if counted in TEXT[language] else f"ask_{question.kind}"
    return TEXT[language][kind].format(n=question.count, v=value, t=topic)


def option_texts(question: Question, language: str, vocabulary: Vocabulary | None = None) -> tuple[str, ...]:
    """The answers offered: what to relax, said as the brief's conditions are; or the values closest to it."""
    text = TEXT[language]
    if question.clash:
        value = condition_text(question.clash.field, question.clash.values, language, AND, vocabulary)
        return (text["opt_must"].format(v=value), text["opt_exclude"].format(v=value), text["opt_either"])
    fixed = {"history": ("opt_repeat", "opt_widen", "opt_keep"), "author_cap": ("opt_more_per_author", "opt_keep"),
             "availability": ("opt_include", "opt_keep"), "likely_excluded": ("opt_include_to_check", "opt_keep"),
             "unchecked": ("opt_as_wish", "opt_drop_it")}
    if question.kind in fixed:
        return tuple(text[key] for key in fixed[question.kind])
    if question.kind == "subject":
        return tuple(text["opt_about"].format(v=subject_count(s, n, language)) for s, n in question.readings)
    if question.kind in TOPIC_QUESTIONS:
        # a topic the nearest subjects offer may be held by one book ("Insects" beside beekeeping)
        return (*(text["opt_topic_one" if n == 1 and "opt_topic_one" in text else "opt_topic"].format(
                      t=value_text(f, v, language, vocabulary or get_vocabulary(), {}), n=n)
                  for f, v, n in question.topics), text["opt_lower_floor"])
    relax = tuple(text["opt_drop"].format(v=numeric_text(c, language)) if isinstance(c, NumericCondition) else
                  text["opt_allow" if c.operator == "MUST_NOT" else "opt_drop"].format(
                      v=condition_text(c.field, c.values, language, OR, vocabulary))
                  for c in question.relax)
    about = tuple(text["opt_about"].format(v=condition_text(v.dimension, (v.name,), language, AND, vocabulary))
                  for v in question.closest)
    return relax + about


def status_text(status: str, books: int, language: str, limited_by: str | None = None) -> str:
    """ "待审核；10 本；受限于：主题的硬性条件": the status, the books shelved, what limited a short shelf."""
    text = TEXT[language]
    parts = [text.get(status, status), text["books"].format(n=books)]
    if limited_by:
        parts.append(text["limited_by"].format(v=text.get(f"limit_{limited_by}", limited_by)))
    return text["sep"].join(parts)
