"""Language detection, sentence splitting and BM25 tokenization for Chinese and English text."""

from __future__ import annotations

import logging
import re
import sys
from functools import lru_cache
from importlib import resources

from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN_PLUS

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml
from storage.model_cache import cached_value


def _import_jieba():
    """jieba, without the import of pkg_resources its file reader makes (0.16 s of every command, and
    deprecated): told that pkg_resources is absent, jieba opens the same files in its package folder."""
    absent = "pkg_resources" not in sys.modules
    if absent:
        sys.modules["pkg_resources"] = None  # `import pkg_resources` raises ImportError while this stands
    try:
        import jieba
    finally:
        if absent:
            del sys.modules["pkg_resources"]
    return jieba


jieba = _import_jieba()
jieba.setLogLevel(logging.WARNING)

# Bump when tokenization changes, so that stored BM25 tokens are recomputed.
ANALYZER_VERSION = "1"

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[^\W_]+")
_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e|No|Vol)\.$")
# A sentence ends at Chinese end punctuation, or at . ! ? followed by space (English).
_SENTENCE_END = re.compile(r"(?<=[。！？!?；])\s*|(?<=[.!?][\"”’')])\s+|(?<=[.!?])\s+(?=[A-Z\"“‘(0-9])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def cjk_share(text: str) -> float:
    """Share of CJK characters among the letters of `text`."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 0.0


def detect_language(text: str) -> str:
    """'zh' when CJK characters make up at least 30% of the letters, else 'en'."""
    return "zh" if cjk_share(text) >= 0.3 else "en"


def normalize_language(code: str | None, text_for_detection: str = "") -> str:
    """Map source language codes (zh-CN, chi, eng, en-US ...) to 'zh' / 'en' / the code itself. A cell naming
    several ("de; en", a two-language edition) is its first: the filters know one language a book."""
    code = re.split(r"[;,/|]", (code or "").strip().lower())[0].strip()
    if not code:
        return detect_language(text_for_detection)
    if code.startswith("zh") or code in {"chs", "cht", "cn"}:
        return "zh"
    if code.startswith("en"):
        return "en"
    return _two_letter_codes().get(code, code)


@lru_cache(maxsize=1)
def _two_letter_codes() -> dict[str, str]:
    """config/language_codes.yaml: a MARC record's three-letter code (fre) is the two-letter one (fr) of a CSV row."""
    return {str(k): str(v) for k, v in (read_yaml(CONFIG_DIR / "language_codes.yaml") or {}).items()}


@lru_cache(maxsize=1)
def _stopword_file() -> dict:
    """config/stopwords.yaml, read once."""
    return read_yaml(CONFIG_DIR / "stopwords.yaml") or {}


@lru_cache(maxsize=1)
def stopwords() -> dict[str, frozenset[str]]:
    """Stopwords per language: the bm25s lists plus config/stopwords.yaml's `extra`."""
    extra = _stopword_file().get("extra", {})
    return {
        "en": frozenset(STOPWORDS_EN_PLUS) | frozenset(extra.get("en", [])),
        "zh": frozenset(STOPWORDS_CHINESE) | frozenset(extra.get("zh", [])) | frozenset(STOPWORDS_EN_PLUS),
    }


@lru_cache(maxsize=1)
def brief_stopwords() -> frozenset[str]:
    """Words of a brief that are never BM25 keywords (about books and reading; time words), both languages."""
    return frozenset(str(w).lower() for words in (_stopword_file().get("brief") or {}).values() for w in words)


@lru_cache(maxsize=1)
def book_words() -> frozenset[str]:
    """Words about books, reading, shelves and the library (config/stopwords.yaml `book_words`), both languages."""
    return frozenset(str(w).lower() for words in (_stopword_file().get("book_words") or {}).values() for w in words)


@lru_cache(maxsize=1)
def _jieba() -> jieba.Tokenizer:
    """jieba's default tokenizer, its dictionary read from the model cache (storage/model_cache.py): 0.45 s
    instead of the 1.1 s jieba's own cache takes. The same words and frequencies, so the same cuts."""
    tokenizer = jieba.dt
    with tokenizer.lock:
        if not tokenizer.initialized:
            tokenizer.FREQ, tokenizer.total = cached_value(
                f"jieba-{jieba.__version__}-dict", lambda: tokenizer.gen_pfdict(tokenizer.get_dict_file()))
            tokenizer.initialized = True
    return tokenizer


def cut(text: str) -> list[str]:
    """jieba's words of `text` (precise mode), as reading a brief needs them."""
    return _jieba().lcut(text)


@lru_cache(maxsize=1)
def _dictionary_tags() -> dict[str, str]:
    """jieba's dictionary's part-of-speech tag of each word ("冯骥才 28 nr"), read without importing jieba.posseg."""
    def parse() -> dict[str, str]:
        lines = (resources.files("jieba") / "dict.txt").read_text(encoding="utf-8").splitlines()
        return {parts[0]: parts[2] for parts in (line.split(" ") for line in lines) if len(parts) == 3}

    return cached_value(f"jieba-{jieba.__version__}-tags", parse)


def dictionary_tag(word: str) -> str:
    """The part of speech jieba's dictionary gives the word ("nr" a person's name), or "" where it lacks it."""
    return _dictionary_tags().get(word, "")


@lru_cache(maxsize=1)
def _idf_table() -> tuple[dict[str, float], float]:
    """jieba's idf table and its median, read without importing jieba.analyse (which loads its POS tagger)."""
    def parse() -> tuple[dict[str, float], float]:
        lines = (resources.files("jieba") / "analyse" / "idf.txt").read_text(encoding="utf-8").splitlines()
        table = {word: float(idf) for word, idf in (line.strip().split(" ") for line in lines if line.strip())}
        return table, sorted(table.values())[len(table) // 2]  # jieba's own median_idf

    return cached_value(f"jieba-{jieba.__version__}-idf", parse)


def idf(word: str) -> float:
    """How telling a Chinese word is in general text (jieba's table; its median for a word it lacks)."""
    table, median = _idf_table()
    return table.get(word, median)


def tokenize(text: str, language: str) -> list[str]:
    """BM25 tokens: jieba cut_for_search for Chinese, word tokens for anything else; no stopwords."""
    if not text:
        return []
    text = text.lower()
    if language == "zh":
        raw = _jieba().cut_for_search(text)
        stop = stopwords()["zh"]
    else:
        raw = _WORD.findall(text)
        stop = stopwords()["en"]
    return [t for t in (tok.strip() for tok in raw) if t and t not in stop and _has_word_char(t)]


def words_either_way(text: str) -> frozenset[str]:
    """The text's tokens as either language's tokenizer cuts it (a name or a topic may mix scripts: "Books like 三体")."""
    return frozenset(w for language in ("en", "zh") for w in tokenize(text, language))


@lru_cache(maxsize=1)
def _english_stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def bm25_tokens(text: str, language: str, stem: bool) -> list[str]:
    """Tokens as BM25 indexes and queries them: `tokenize`, then Snowball-stemmed Latin words.

    Latin words are stemmed in Chinese text too, so an English query meets the English words of a
    Chinese book in the same form.
    """
    tokens = tokenize(text, language)
    if not stem:
        return tokens
    latin = [i for i, t in enumerate(tokens) if t.isascii() and t.isalpha()]
    stems = _english_stemmer().stemWords([tokens[i] for i in latin])
    for i, stemmed in zip(latin, stems):
        tokens[i] = stemmed
    return tokens


# A process's themes read the same records again and again (a book is a candidate of many briefs, and the ranking
# reads its title, summary and headings for each): the demo's whole catalog fits, a large catalog's recent ones.
@lru_cache(maxsize=8192)
def token_set(text: str, language: str, stem: bool) -> frozenset[str]:
    """`bm25_tokens` of a text as a set, kept for the process."""
    return frozenset(bm25_tokens(text, language, stem))


def _has_word_char(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def split_sentences(text: str | None) -> list[str]:
    """Split a summary into sentences (Chinese and English punctuation)."""
    if not text:
        return []
    sentences: list[str] = []
    for part in (p.strip() for p in _SENTENCE_END.split(text.strip())):
        if not part:
            continue
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {part}"
        else:
            sentences.append(part)
    return sentences


def has_control_characters(text: str) -> bool:
    """True if `text` holds C0 control characters other than tab and newlines."""
    return bool(_CONTROL.search(text))


def strip_control_characters(text: str) -> str:
    """`text` without the C0 control characters `has_control_characters` finds."""
    return _CONTROL.sub("", text)
