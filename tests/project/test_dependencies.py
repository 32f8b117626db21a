"""Every third-party package the product imports is declared in pyproject.toml, not only installed by another."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.conftest import PROJECT_ROOT

PACKAGES = ("config", "flows", "storage", "tasks")


def imported_top_level_modules() -> set[str]:
    names = set()
    for package in PACKAGES:
        for path in (PROJECT_ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - set(PACKAGES) - {"tests"}


def declared_distributions() -> set[str]:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def test_every_imported_package_is_declared():
    distributions = packages_distributions()
    declared = declared_distributions()
    undeclared = {module: distributions.get(module) for module in imported_top_level_modules()
                  if not {d.lower().replace("_", "-") for d in distributions.get(module, [module])} & declared}
    assert undeclared == {}
