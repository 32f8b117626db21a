"""The compute setting without a cluster: the local default imports no Dask; a dead scheduler is one line."""

import os
import subprocess
import sys

import pytest

from tests.conftest import DEMO_CATALOG, PROJECT_ROOT


@pytest.mark.slow  # a build of a few books in a process of its own
def test_the_cli_and_a_local_build_import_no_dask_and_start_no_prefect_server(tmp_path):
    """The local default starts no Dask process: not even its modules are imported by the command line, the flows
    or a local build of a few books; and that build, outside a flow, runs its steps without starting a temporary
    Prefect server (one process for both: each loads the model and builds)."""
    catalog = tmp_path / "few.jsonl"
    catalog.write_text("".join(DEMO_CATALOG.read_text(encoding="utf-8").splitlines(keepends=True)[:12]),
                       encoding="utf-8")
    script = (
        "import sys\n"
        "import flows.cli, flows.build_indexes, flows.generate_shelves\n"
        "from config.settings import load_settings\n"
        "from flows.build_indexes import build_index_version\n"
        "settings = load_settings()\n"
        f"assert flows.cli.main(['catalog', 'import', {str(catalog)!r}]) == 0\n"
        "report = build_index_version(settings)\n"
        "assert report.book_count == 12, report\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'prefect_dask')))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(SHELFWISE__WORKSPACE=str(tmp_path / "var"), SHELFWISE__OUTPUTS_DIR=str(tmp_path),
               PREFECT_HOME=str(tmp_path / "prefect"))
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "temporary server" not in done.stderr and not (tmp_path / "prefect" / "prefect.db").exists()


def test_a_scheduler_that_does_not_answer_is_one_line_before_any_work(monkeypatch):
    from config.settings import load_settings
    from flows.compute import check_scheduler
    from tasks.errors import InputError

    monkeypatch.setenv("SHELFWISE__COMPUTE__DASK_ADDRESS", "tcp://127.0.0.1:1")
    check_scheduler(load_settings())  # the local backend asks no scheduler
    monkeypatch.setenv("SHELFWISE__COMPUTE__BACKEND", "dask")
    with pytest.raises(InputError) as caught:
        check_scheduler(load_settings())
    assert str(caught.value).startswith("compute.dask_address (from SHELFWISE__COMPUTE__DASK_ADDRESS): no Dask "
                                        "scheduler answers at tcp://127.0.0.1:1")
