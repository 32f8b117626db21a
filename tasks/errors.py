"""The one error type for input a user handed in: the CLI prints its message as one line and exits 2."""

from __future__ import annotations


class InputError(ValueError):
    """A file, form or argument that cannot be used as given; the message names it and says what is wrong."""
