"""The LLM translator: any OpenAI-compatible chat-completions endpoint, validated, with fallback."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Collection, Sequence
from dataclasses import replace

import httpx
import yaml

from config.settings import TranslationSettings
from config.vocabulary import Vocabulary
from tasks.endpoints import UNREACHABLE, CircuitBreaker, CircuitOpen, DeadlineExceeded, ReplyTooLarge, post_within
from tasks.language.text_analysis import detect_language
from tasks.model.conditions import FilterCondition, merge_conditions
from tasks.model.query import ThemeQuery
from tasks.model.themes import Theme
from tasks.understanding.prompt_data import yaml_data_block
from tasks.understanding.reading import Reading
from tasks.understanding.translate.base import TranslationError, Translator, validate_conditions
from tasks.understanding.translate.rules import conditions_of

MIN_KEYWORDS, MAX_KEYWORDS = 3, 15
MAX_REPLY_BYTES = 256 * 1024  # a translation is a few hundred bytes; a runaway reply is cut off here
UNREACHABLE_AFTER = 2  # themes in a row the endpoint timed out or refused: then themes go to rules at once
THEME_LIMITS = {"theme_name": 200, "slogan": 200, "description": 1500, "target_vibe": 200}

SYSTEM_PROMPT = """You turn a library curator's theme brief into search conditions for a book catalog.
Reply with one JSON object and nothing else:
{"filter_conditions": [{"field": <dimension>, "values": [<value>, ...], "operator": "MUST" | "SHOULD" | "MUST_NOT"}],
 "search_keywords": [3 to 15 keywords in the brief's language],
 "synthetic_query": "<one paragraph describing the ideal book, for a vector search>",
 "confidence": <0 to 1>}
Use only these dimensions and values (value names exactly as written; aliases only explain them):
"""


class LLMTranslator(Translator):
    """Asks the model once (plus retries) within a per-theme deadline; anything but a valid translation falls
    back to `fallback`, with the reason in the translator's name."""

    name = "llm"

    def __init__(self, vocabulary: Vocabulary, settings: TranslationSettings, fallback: Translator):
        self.vocabulary = vocabulary
        self.settings = settings
        self.fallback = fallback
        endpoint = settings.llm
        key = os.environ.get(endpoint.api_key_env, "") if endpoint.api_key_env else ""
        self._client = httpx.Client(timeout=endpoint.timeout_seconds,
                                    headers={"Authorization": f"Bearer {key}"} if key else {})
        self._url = endpoint.base_url.rstrip("/") + "/chat/completions"
        self._system = SYSTEM_PROMPT + yaml.safe_dump(
            {d.name: {v.name: list(v.aliases[:4]) for v in d.values} for d in vocabulary.dimensions},
            allow_unicode=True, sort_keys=False)
        self._breaker = CircuitBreaker(UNREACHABLE_AFTER)  # counts themes whose every attempt did not reach it

    def translate(self, theme: Theme, reading: Reading) -> ThemeQuery:
        errors = []
        try:
            self._breaker.check()
        except CircuitOpen as err:
            errors.append(str(err))
        else:
            deadline = time.monotonic() + self.settings.deadline_seconds
            transport_only = True
            for _ in range(1 + self.settings.llm_retries):
                if time.monotonic() >= deadline:
                    errors.append(f"no valid reply within the {self.settings.deadline_seconds:g} s deadline")
                    break
                try:
                    query = self._parse(self._ask(theme, deadline), theme, reading)
                except Exception as err:  # noqa: BLE001 - whatever the reply, the rules translator answers
                    transport_only &= isinstance(err, UNREACHABLE)
                    errors.append(f"{type(err).__name__}: {err}"[:200])
                    continue
                self._breaker.record(reached=True)
                return query
            self._breaker.record(reached=not transport_only)
        fallback = self.fallback.translate(theme, reading)
        return replace(fallback, translator=f"{fallback.translator} (llm failed: {errors[-1]})")

    def _ask(self, theme: Theme, deadline: float) -> str:
        """The reply's message content, read at most MAX_REPLY_BYTES and never waited for past the deadline."""
        brief = yaml_data_block("theme_brief", [{
            "theme_name": theme.theme_name, "slogan": theme.slogan,
            "description": theme.description, "target_vibe": theme.target_vibe,
        }], THEME_LIMITS)
        call_deadline = min(deadline, time.monotonic() + self.settings.llm.timeout_seconds)
        try:
            body = post_within(self._client, self._url, {
                "model": self.settings.llm.model,
                "temperature": 0,
                "messages": [{"role": "system", "content": self._system},
                             {"role": "user", "content": brief}],
            }, call_deadline, MAX_REPLY_BYTES)
        except DeadlineExceeded:
            raise DeadlineExceeded(f"no complete reply by the {self.settings.deadline_seconds:g} s deadline"
                                   if call_deadline == deadline else
                                   f"no complete reply within {self.settings.llm.timeout_seconds:g} s") from None
        except ReplyTooLarge as err:
            raise TranslationError(str(err)) from None
        return _message_content(body)

    def _parse(self, content: str, theme: Theme, reading: Reading) -> ThemeQuery:
        """The ThemeQuery a reply's content describes, or TranslationError saying what is wrong with it."""
        content = re.sub(r"^```(?:json)?\s*|\s*```$", "", content.strip())
        try:
            reply = json.loads(content)
        except json.JSONDecodeError as err:
            raise TranslationError(f"reply is not JSON ({err.msg})") from None
        if not isinstance(reply, dict):
            raise TranslationError("reply is not a JSON object")
        conditions = validate_conditions(reply.get("filter_conditions"), self.vocabulary)
        keywords = reply.get("search_keywords")
        if not isinstance(keywords, list) or not MIN_KEYWORDS <= len(keywords) <= MAX_KEYWORDS \
                or not all(isinstance(k, str) and k.strip() for k in keywords):
            raise TranslationError(f"search_keywords must be {MIN_KEYWORDS}-{MAX_KEYWORDS} strings")
        synthetic = reply.get("synthetic_query")
        if not isinstance(synthetic, str) or not synthetic.strip():
            raise TranslationError("synthetic_query is missing")
        confidence = reply.get("confidence", 0.8)
        if not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
            raise TranslationError("confidence must be a number in [0, 1]")
        # The reply speaks only of the vocabulary's dimensions; what the brief says of forms, audiences,
        # authors, titles, topics, languages and literatures comes from its reading, as the rules read it:
        # "科幻小说，但不要刘慈欣的" had lost its excluded author.
        rules = conditions_of(reading, self.vocabulary)
        _check_exclusions_kept(conditions, rules, self.vocabulary.dimension_names)
        beyond = [c for c in rules if c.field not in self.vocabulary.dimension_names]
        return ThemeQuery(merge_conditions([*conditions, *beyond]), tuple(k.strip() for k in keywords),
                          synthetic.strip(), float(confidence), self.name, detect_language(theme.brief),
                          reading.numeric, reading.preferred)


def _check_exclusions_kept(replied: Sequence[FilterCondition], rules: Sequence[FilterCondition],
                           dimensions: Collection[str]) -> None:
    """TranslationError when the reply drops or turns round an exclusion the brief's own words state (the rules'
    reading found it): a reply can be well formed and still be steered by text in the brief or the catalog.
    Authors, years and pages are not asked of the model at all; they come from the reading as they are."""
    excluded = {(c.field, v) for c in replied if c.operator == "MUST_NOT" for v in c.values}
    wanted = {(c.field, v) for c in replied if c.operator != "MUST_NOT" for v in c.values}
    for condition in rules:
        if condition.operator != "MUST_NOT" or condition.field not in dimensions:
            continue
        for value in condition.values:
            if (condition.field, value) in wanted:
                raise TranslationError(f"the reply asks for {condition.field} {value}, which the brief excludes; "
                                       "the rules' reading stands")
            if (condition.field, value) not in excluded:
                raise TranslationError(f"the reply drops the brief's exclusion {condition.field} {value}; "
                                       "the rules' reading stands")


def _message_content(body: bytes) -> str:
    """choices[0].message.content of a chat-completions reply, or TranslationError naming what is missing."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise TranslationError("reply body is not JSON") from None
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise TranslationError("reply has no choices[0]")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise TranslationError("reply has no text in choices[0].message.content")
    return content
