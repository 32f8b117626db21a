"""Untrusted YAML in (theme files, pasted themes, column mappings): bounded in size, aliases and expansion.

An alias is a reference, so ten lines of anchors can stand for a billion nodes ("billion laughs"): the
composed document is measured, aliases counted as often as they are used, before anything is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from config.yaml_files import UniqueKeys
from tasks.errors import InputError

MAX_BYTES = 2 * 1024 * 1024  # a batch of themes or a mapping is a few KiB
MAX_ALIASES = 100
MAX_NODES = 100_000  # nodes after expanding every alias


class YAMLInputError(InputError):
    """YAML that is invalid or over a limit."""


class _LimitedLoader(UniqueKeys, yaml.SafeLoader):
    """SafeLoader that counts aliases while composing and refuses a repeated key."""

    def __init__(self, stream: str, source: str):
        super().__init__(stream)
        self.source = source
        self.aliases = 0

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise YAMLInputError(f"{self.source}: line {mark.line + 1}: more than {MAX_ALIASES} YAML aliases")
        return super().compose_node(parent, index)


def _expanded_size(root: yaml.Node, source: str) -> int:
    """Nodes the document holds once every alias is expanded (shared nodes counted per use)."""
    size: dict[int, int] = {}
    visiting: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in size:
            continue
        children = _children(node)
        if children_done:
            visiting.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] > MAX_NODES:
                raise YAMLInputError(f"{source}: over {MAX_NODES:,} values once its aliases are expanded")
            continue
        if key in visiting:
            raise YAMLInputError(f"{source}: line {node.start_mark.line + 1}: an alias refers to itself")
        visiting.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)
    return size[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load_yaml(text: str, source: str) -> Any:
    """The document in `text`, or YAMLInputError naming `source` and the line."""
    if len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise YAMLInputError(f"{source}: larger than {MAX_BYTES // 1024 // 1024} MiB")
    loader = _LimitedLoader(text, source)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, source)
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise YAMLInputError(f"{source}: not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise YAMLInputError(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()


def read_yaml_file(path: Path) -> Any:
    """A YAML file's document; a missing, oversized, undecodable or invalid file is one YAMLInputError."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise YAMLInputError(f"{path}: larger than {MAX_BYTES // 1024 // 1024} MiB")
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise YAMLInputError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise YAMLInputError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError as err:
        raise YAMLInputError(f"{path}: not UTF-8 text (byte {err.start})") from None
    except PermissionError:
        raise YAMLInputError(f"{path}: not readable (permission denied)") from None
    return load_yaml(text, str(path))
