"""The one error type for input a user handed in (the CLI prints its message as one line and exits 2), and how a
misspelt name is answered."""

from __future__ import annotations

from collections.abc import Iterable

from config.settings import nearest_name


class InputError(ValueError):
    """A file, form or argument that cannot be used as given; the message names it and says what is wrong."""


def nearest(word: str, known: Iterable[str]) -> str:
    """", did you mean 'description'?" for a typo of a known name, else ""."""
    return nearest_name(word, list(known))
