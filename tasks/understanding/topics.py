"""A brief's topics: what an excluded phrase is about, its words without cue words, filler and stopwords, a topic
for each part it joins ("不要战争题材" -> 战争, "no textbooks or sheet music" -> textbook, sheet music); and the content
words of what it asks for (its keywords: no stopword, cue word, degree, count word or time unit, no word about books
and reading)."""

from __future__ import annotations

import re
from collections import Counter

from tasks.language.text_analysis import brief_stopwords, cut, idf, stopwords, tokenize
from tasks.understanding.cues import Cues
from tasks.understanding.references import reference_words

MAX_KEYWORDS = 20  # a long brief keeps its words; filler never counts (config/stopwords.yaml)
_TOPIC_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u3400-\u9fff]+")


def has_topic(text: str, cues: Cues) -> bool:
    return bool(phrase_topic(text, cues))


def _without_leading_cues(word: str, cues: Cues) -> str:
    """A Chinese word without the cue and filler words jieba glued to its front: "别放太长" -> "长"."""
    if word.isascii():
        return word
    while (front := next((w for w in cues.glued if word.startswith(w) and len(word) > len(w)), None)) is not None:
        word = word[len(front):]
    return word


def phrase_topic(text: str, cues: Cues) -> str:
    """What an excluded phrase is about, its topics joined: "不要战争题材" -> 战争, "no war books" -> war."""
    return " ".join(phrase_topics(text, cues))


def joined_parts(text: str, start: int, end: int, cues: Cues) -> list[tuple[int, int]]:
    """The spans of text[start:end] between its joining words and commas ("工具书和励志书" -> 工具书, 励志书): words,
    not characters, so that 和平 stays one."""
    parts, at, offset = [], start, start
    words = cut(text[start:end]) if re.search(r"[\u3400-\u9fff]", text[start:end]) else re.split(r"(\s+|[,，、/])",
                                                                                            text[start:end])
    for word in words:
        if word.strip().lower() in cues.clauses.joiners or word.strip() in ("，", ","):
            parts.append((at, offset))
            at = offset + len(word)
        offset += len(word)
    return [(a, b) for a, b in [*parts, (at, end)] if b > a]


def phrase_topics(text: str, cues: Cues) -> list[str]:
    """What an excluded phrase is about, without filler, a topic for each thing it joins: "不要战争题材" ->
    [战争], "no textbooks or sheet music" -> [textbook, sheet music]. A part of more than three words makes none."""
    text = text.strip()
    # the phrase opens with its cue, which jieba may cut apart ("而不幼稚": 而 / 不 / 幼稚), and a cue of several
    # words is no topic ("not another vampire book": vampire)
    lead = cues.leading_cue.match(text)
    text = text[lead.end():] if lead else text
    groups = []
    for a, b in joined_parts(text, 0, len(text), cues):
        words = []
        for token in cut(text[a:b]) if re.search(r"[\u3400-\u9fff]", text[a:b]) else text[a:b].split():
            word = _without_leading_cues(token.strip(" .;:!?'\"。；：！？").lower(), cues)
            if not word or not _TOPIC_WORD.fullmatch(word):
                continue
            if word in cues.filler or word in cues.all_words or (is_stopword(word) and word not in cues.pronouns):
                continue
            if word in cues.not_a_topic or any(w in cues.not_a_topic for w in re.findall(r"[\u3400-\u9fff]", word)
                                               if len(word) == 1):
                return []  # a degree or length ("not too long", "别太长"), not a topic
            words.append(re.sub(r"(?<=[a-z]{4})s$", "", word) if word.isascii() else word)
        groups.append(words)
    if any(len(words) > 3 for words in groups):
        return []  # prose, not a list of topics: "mice without IFN-γ or its receptor are resistant to …"
    # Chinese words join as they were written: a subject is searched for as one string ("职场鸡汤", not "职场 鸡汤")
    return [("" if all(not w.isascii() for w in words) else " ").join(words) for words in groups if words]


def is_stopword(word: str) -> bool:
    """A stopword of any language's list."""
    return any(word in words for words in stopwords().values())


def last_word(text: str, start: int, end: int) -> str:
    """The last word of text[start:end] (jieba's for Chinese), stripped; "" where there is none."""
    before = text[start:end]
    words = cut(before) if re.search(r"[\u3400-\u9fff]", before) else before.split()
    return words[-1].strip() if words else ""


def _chinese_keywords(segments: list[tuple[str, bool]], skip: frozenset[str], cues: Cues) -> list[str]:
    """Words ranked by tf x idf (jieba's idf table); one-character words count too (雪, 海, 猫); a catalog name
    is one word, however jieba would cut it."""
    words = [w for text, whole in segments for w in ([text.strip()] if whole else cut(text))]
    words = [w for w in words if w.strip() and not cues.numbers.counts(w.strip())
             and re.search(r"\w", w) and w.lower() not in skip]
    counts = Counter(words)
    return sorted(counts, key=lambda w: (-counts[w] * idf(w), words.index(w)))


def brief_keywords(segments: list[tuple[str, bool]], language: str, cues: Cues) -> tuple[str, ...]:
    """BM25 keywords from the brief's searchable text (pieces, each with whether it is a name to keep whole), most
    telling first, at most MAX_KEYWORDS; never a stopword, a cue word, a degree, a count word or time unit, or a
    word about books, reading and wanting (config/stopwords.yaml). A number is a condition ("30本", "after 1980")
    and a lone letter is noise. A degree or length ("老一点的", "short") says how, not what: 老 had found 老舍 and
    老人与海."""
    skip = (brief_stopwords() | cues.not_a_topic | cues.all_words | cues.numbers.not_content | reference_words()
            | stopwords()["zh" if language == "zh" else "en"])
    if language == "zh":
        words = _chinese_keywords(segments, skip, cues)
    else:
        tokens = [t for t in tokenize(cues.without_wanting(" ".join(t for t, _ in segments)), "en") if t not in skip
                  and not (cues.numbers.counts(t) or len(t) == 1)]
        counts = Counter(tokens)
        words = sorted(dict.fromkeys(tokens), key=lambda t: -counts[t])
    return tuple(dict.fromkeys(words))[:MAX_KEYWORDS]
