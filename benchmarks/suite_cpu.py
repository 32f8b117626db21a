"""Where the test suite's CPU goes: a pytest plugin that charges the CPU of the process tree (this process, the
children it reaped, and every live descendant: a Prefect server, a `shelfwise` command) to each test and to each
fixture's setup. Wall time on a shared machine is the load's as much as the suite's; CPU seconds are comparable.

    PYTHONPATH=benchmarks .venv/bin/python -m pytest -q -p no:randomly -p suite_cpu --suite-cpu OUT.json [tests...]

Under xdist each worker writes OUT.json.<worker>. A test's figure includes its fixtures' setup and teardown; a
fixture's is its setup alone, its own fixtures' included (so a session fixture's cost shows once, where it was
first asked for). A test's "own" figure leaves out the setup of the shared (session, package, module, class)
fixtures it was the first to ask for, which lands on whichever test runs first in an order. A server a session
keeps charges what it does to the test running at the time."""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

TICK = os.sysconf("SC_CLK_TCK")


def _own_cpu(pid: int | str) -> float:
    """utime + stime + cutime + cstime of one process (its reaped children included), in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0
    return sum(int(value) for value in fields[11:15]) / TICK  # fields 14-17 of proc(5), after pid and comm


def _children(pid: int | str) -> list[str]:
    found: list[str] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += (task / "children").read_text().split()
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


def tree_cpu() -> float:
    """CPU seconds of this process and all its live descendants (each one's reaped children included)."""
    total, todo = 0.0, [str(os.getpid())]
    while todo:
        pid = todo.pop()
        total += _own_cpu(pid)
        todo += _children(pid)
    return total


class SuiteCpu:
    def __init__(self, out: Path):
        self.out = out
        self.tests: dict[str, dict[str, float]] = {}
        self.fixtures: dict[str, dict[str, float]] = defaultdict(lambda: {"cpu": 0.0, "wall": 0.0, "setups": 0})
        self.start = tree_cpu()
        self._shared = 0.0  # setup CPU of the shared fixtures set up during the current test
        self._depth = 0  # fixture setups under way: a shared fixture's own fixtures are counted in it once

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        cpu, wall, self._shared = tree_cpu(), time.monotonic(), 0.0
        yield
        spent = tree_cpu() - cpu
        self.tests[item.nodeid] = {"cpu": round(spent, 3), "own": round(spent - self._shared, 3),
                                   "wall": round(time.monotonic() - wall, 3)}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        cpu, wall = tree_cpu(), time.monotonic()
        self._depth += 1
        yield
        self._depth -= 1
        spent = tree_cpu() - cpu
        if fixturedef.scope != "function" and self._depth == 0:
            self._shared += spent
        entry = self.fixtures[f"{fixturedef.argname} ({fixturedef.scope})"]
        entry["cpu"] += spent
        entry["wall"] += time.monotonic() - wall
        entry["setups"] += 1

    def pytest_sessionfinish(self, session):
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        path = self.out.with_name(f"{self.out.name}.{worker}") if worker else self.out
        by_file: dict[str, dict[str, float]] = defaultdict(lambda: {"cpu": 0.0, "own": 0.0, "wall": 0.0, "tests": 0})
        for nodeid, figures in self.tests.items():
            entry = by_file[nodeid.split("::")[0]]
            entry["cpu"] += figures["cpu"]
            entry["own"] += figures["own"]
            entry["wall"] += figures["wall"]
            entry["tests"] += 1
        path.write_text(json.dumps({
            "session_cpu": round(tree_cpu() - self.start, 2),
            "files": dict(sorted(by_file.items(), key=lambda kv: -kv[1]["own"])),
            "fixtures": dict(sorted(self.fixtures.items(), key=lambda kv: -kv[1]["cpu"])),
            "tests": dict(sorted(self.tests.items(), key=lambda kv: -kv[1]["own"])),
        }, indent=1), encoding="utf-8")


def pytest_addoption(parser):
    parser.addoption("--suite-cpu", metavar="JSON", help="write each test's, file's and fixture's CPU seconds here")


def pytest_configure(config):
    if config.getoption("--suite-cpu"):
        config.pluginmanager.register(SuiteCpu(Path(config.getoption("--suite-cpu"))), "suite-cpu-recorder")
