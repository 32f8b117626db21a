"""The one error type for input a user handed in (the CLI prints its message as one line and exits 2), and how a
misspelt name is answered."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches


class InputError(ValueError):
    """A file, form or argument that cannot be used as given; the message names it and says what is wrong."""


def nearest(word: str, known: Iterable[str]) -> str:
    """", did you mean 'description'?" for a typo of a known name, else "" (difflib's closest match)."""
    names = {k.casefold(): k for k in known}
    close = get_close_matches(word.casefold(), list(names), n=1, cutoff=0.6)
    return f", did you mean {names[close[0]]!r}?" if close else ""
