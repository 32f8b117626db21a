"""The translator interface: a theme brief in, a ThemeQuery out."""

from __future__ import annotations

from abc import ABC, abstractmethod

from config.vocabulary import Vocabulary
from tasks.model.conditions import OPERATORS, FilterCondition, merge_conditions
from tasks.model.query import ThemeQuery
from tasks.model.themes import Theme
from tasks.understanding.reading import Reading


class TranslationError(ValueError):
    """A translation that does not validate (unknown field or value, bad operator ...)."""


class Translator(ABC):
    name: str

    @abstractmethod
    def translate(self, theme: Theme, reading: Reading) -> ThemeQuery:
        """Turn the brief (and its reading: mentions with polarity, numbers) into filters, keywords and a query."""


def validate_conditions(raw: object, vocabulary: Vocabulary) -> tuple[FilterCondition, ...]:
    """Conditions from untrusted data (an LLM reply): known fields, known values, valid operators."""
    if not isinstance(raw, list):
        raise TranslationError("filter_conditions must be a list")
    conditions = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise TranslationError(f"filter_conditions[{i}] must be an object")
        field, operator, values = item.get("field"), item.get("operator"), item.get("values")
        if field not in vocabulary.dimension_names:
            raise TranslationError(f"filter_conditions[{i}]: unknown field {field!r}")
        if operator not in OPERATORS:
            raise TranslationError(f"filter_conditions[{i}]: operator {operator!r} is not one of {OPERATORS}")
        if isinstance(values, str):
            values = [values]
        if not isinstance(values, list) or not values:
            raise TranslationError(f"filter_conditions[{i}]: values must be a non-empty list")
        known = vocabulary.value_names(field)
        unknown = [v for v in values if v not in known]
        if unknown:
            raise TranslationError(f"filter_conditions[{i}]: unknown {field} value(s) {unknown}")
        conditions.append(FilterCondition(field, tuple(values), operator))
    return merge_conditions(conditions)
