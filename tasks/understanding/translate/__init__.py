"""Theme translation: one interface (base.Translator), a rules and an LLM backend, a factory."""

from __future__ import annotations

from config.settings import TranslationSettings
from config.vocabulary import Vocabulary
from tasks.understanding.translate.base import Translator
from tasks.understanding.translate.rules import RulesTranslator


def create_translator(settings: TranslationSettings, vocabulary: Vocabulary) -> Translator:
    """The translator named in config; the LLM one falls back to rules."""
    rules = RulesTranslator(vocabulary)
    if settings.backend == "llm":
        from tasks.understanding.translate.llm import LLMTranslator

        return LLMTranslator(vocabulary, settings, fallback=rules)
    return rules


__all__ = ["Translator", "create_translator"]
