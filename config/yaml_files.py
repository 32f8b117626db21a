"""YAML files read with libyaml's C loader when PyYAML has it: a tenth of the pure-Python loader's time.

A key written twice in one mapping is an error, not the last value silently winning: in a settings file, a
theme or a mapping it is almost always a paste gone wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError


class UniqueKeys:
    """A loader mix-in: a mapping that repeats a key fails with the key and both lines."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
                try:
                    repeated = key in seen
                except TypeError:  # an unhashable key: the base constructor says so
                    continue
                if repeated:
                    raise ConstructorError(None, None, f"duplicate key {key!r} (first at line {seen[key] + 1})",
                                           key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)  # type: ignore[misc]


class SafeUniqueLoader(UniqueKeys, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The C safe loader (when PyYAML has it), refusing repeated keys."""


def read_yaml(path: Path) -> Any:
    """The file's YAML document, safe-loaded (None for an empty file); a repeated key is a ConstructorError."""
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=SafeUniqueLoader)
