"""The test suite's own layout: files it names exist, and a file-wide slow mark hides no cheap test."""

import ast
import re

import pytest

from tests.conftest import PROJECT_ROOT

TESTS = PROJECT_ROOT / "tests"
# What makes a test slow: a Prefect server, the demo index, a real install (tmp_path alone is cheap).
COSTLY = {"prefect_server", "demo_workspace", "demo_context", "demo_copy", "demo_run", "demo_run_copy"}
SLOW_BY_NATURE = {"test_install.py"}  # builds and installs the package in a fresh virtualenv


def test_every_test_file_a_test_names_exists():
    for path in TESTS.rglob("*.py"):
        for named in re.findall(r"tests/[\w/]+\.py", path.read_text(encoding="utf-8")):
            assert (PROJECT_ROOT / named).exists(), f"{path.relative_to(PROJECT_ROOT)} names {named}"


def _file_wide_slow(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
               and "slow" in ast.unparse(node.value) for node in tree.body)


@pytest.mark.parametrize("path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: p.name)
def test_a_file_wide_slow_mark_covers_only_costly_tests(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not _file_wide_slow(tree) or path.name in SLOW_BY_NATURE:
        return
    fixtures = {node.name: {a.arg for a in node.args.args} for node in tree.body
                if isinstance(node, ast.FunctionDef) and not node.name.startswith("test_")}

    def costly(args: set[str], seen: frozenset = frozenset()) -> bool:
        return bool(args & COSTLY) or any(costly(fixtures[a], seen | {a}) for a in args - seen if a in fixtures)

    cheap = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
             and not costly({a.arg for a in node.args.args})]
    assert not cheap, f"{path.name}: {cheap} need no costly fixture; move them where `make test-fast` runs them"
