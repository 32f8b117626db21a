"""The LLM translator: any OpenAI-compatible chat-completions endpoint, validated, with fallback."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace

import httpx
import yaml

from config.settings import TranslationSettings
from config.vocabulary import Vocabulary
from storage.models import Theme
from tasks.catalog.text_analysis import detect_language
from tasks.models import ThemeQuery
from tasks.understanding.prompt_data import yaml_data_block
from tasks.understanding.reading import Reading
from tasks.understanding.translate.base import TranslationError, Translator, validate_conditions

MIN_KEYWORDS, MAX_KEYWORDS = 3, 15
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
    """Asks the model once (plus retries); an invalid or late reply falls back to `fallback`."""

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

    def translate(self, theme: Theme, reading: Reading) -> ThemeQuery:
        errors = []
        for _ in range(1 + self.settings.llm_retries):
            try:
                return self._parse(self._ask(theme), theme, reading)
            except (httpx.HTTPError, TranslationError, ValueError, KeyError) as err:
                errors.append(f"{type(err).__name__}: {err}"[:200])
        fallback = self.fallback.translate(theme, reading)
        return replace(fallback, translator=f"{fallback.translator} (llm failed: {errors[-1]})")

    def _ask(self, theme: Theme) -> str:
        brief = yaml_data_block("theme_brief", [{
            "theme_name": theme.theme_name, "slogan": theme.slogan,
            "description": theme.description, "target_vibe": theme.target_vibe,
        }], THEME_LIMITS)
        response = self._client.post(self._url, json={
            "model": self.settings.llm.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": self._system},
                         {"role": "user", "content": brief}],
        })
        response.raise_for_status()
        return response.json()["choices"][0]["message"]["content"]

    def _parse(self, content: str, theme: Theme, reading: Reading) -> ThemeQuery:
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
        return ThemeQuery(conditions, tuple(k.strip() for k in keywords), synthetic.strip(),
                          float(confidence), self.name, detect_language(theme.brief),
                          reading.numeric)
