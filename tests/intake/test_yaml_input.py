"""Untrusted YAML: size, alias and expansion limits, each one line naming the source and, where known, the line."""

import pytest

from tasks.intake.yaml_input import MAX_ALIASES, YAMLInputError, load_yaml


def test_plain_documents_and_a_few_anchors_load():
    assert load_yaml("a: &x [1, 2]\nb: *x\n", "t.yaml") == {"a": [1, 2], "b": [1, 2]}
    assert load_yaml("", "t.yaml") is None


@pytest.mark.parametrize("text, message", [
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(5)),
     "t.yaml: over 100,000 values once its aliases are expanded"),
    ("x: &x 1\nl: [" + ", ".join(["*x"] * (MAX_ALIASES + 1)) + "]\n", "t.yaml: line 2: more than 100 YAML aliases"),
    ("a: &a [*a]\n", "t.yaml: line 1: an alias refers to itself"),
    ("a: [1, 2\n", "t.yaml: not valid YAML at line 2"),
    ("[" * 5000 + "]" * 5000, "t.yaml: nested too deeply"),
    ("x: " + "y" * (3 * 1024 * 1024), "t.yaml: larger than 2 MiB"),
])
def test_each_limit_is_one_line(text, message):
    with pytest.raises(YAMLInputError) as caught:
        load_yaml(text, "t.yaml")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
