"""A plain `pip install .` (not editable) into a fresh virtualenv holds every module and runs the command."""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow

PACKAGES = ("config", "flows", "storage", "tasks")


def source_modules() -> list[str]:
    """Every module of the project's packages, as its dotted name."""
    names = []
    for package in PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_a_plain_install_holds_every_module_and_runs(tmp_path):
    # A copy of the tracked files, so that the build leaves nothing in the checkout.
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    source = tmp_path / "source"
    for name in tracked.stdout.splitlines():
        if (PROJECT_ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT_ROOT / name, source / name)
    venv = tmp_path / "venv"
    # without pip of its own (ensurepip is 3 s of CPU): this environment's pip installs into it (--python)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The dependencies come from the project's environment: only the project itself is installed.
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    str(source)], check=True, capture_output=True)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    helped = subprocess.run([str(venv / "bin" / "shelfwise"), "--help"], cwd=outside, capture_output=True, text=True)
    assert helped.returncode == 0 and "catalog" in helped.stdout and "run" in helped.stdout
    modules = source_modules()
    check = ("import importlib, sys\n"
             f"for name in {modules!r}:\n"
             "    module = importlib.import_module(name)\n"
             f"    assert module.__file__.startswith({site!r}), (name, module.__file__)\n"
             "print(len(sys.modules))\n")
    imported = subprocess.run([str(python), "-c", check], cwd=outside, capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr[-2000:]
    assert any(m.startswith("tasks.understanding.translate") for m in modules)  # the packages once left out
