"""The summary's workbook link: through the workbooks server `shelfwise server` runs, else a file:// URL."""

from __future__ import annotations

from pathlib import Path

import httpx

from flows.outputs_http import serve_outputs, workbook_link
from flows.prefect_api import free_port
from tasks.export.artifacts import batch_summary


def test_the_link_goes_through_the_outputs_server_when_one_runs_else_to_the_file(tmp_path):
    workbook = tmp_path / "outputs" / "书单 2026.xlsx"
    assert workbook_link(workbook, "http://lib-host:4201") == "http://lib-host:4201/%E4%B9%A6%E5%8D%95%202026.xlsx"
    assert workbook_link(workbook, None) == workbook.as_uri() and workbook_link(workbook, None).startswith("file:///")
    summary = batch_summary("b-1", workbook, [], "http://lib-host:4201/x.xlsx")
    assert "Workbook: [书单 2026.xlsx](http://lib-host:4201/x.xlsx)" in summary


def test_the_outputs_server_serves_workbooks_and_nothing_else(tmp_path):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "书单.xlsx").write_bytes(b"PK book")
    (outputs / ".half.xlsx").write_bytes(b"PK half")
    (tmp_path / "secret.xlsx").write_bytes(b"not yours")
    with serve_outputs(outputs, "127.0.0.1", free_port(), None) as url:
        got = httpx.get(workbook_link(outputs / "书单.xlsx", url), timeout=10)
        assert got.status_code == 200 and got.content == b"PK book"
        assert got.headers["content-type"].startswith("application/vnd.openxmlformats")
        for other in ("/.half.xlsx", "/%2E%2E/secret.xlsx", "/../secret.xlsx", "/", "/missing.xlsx"):
            assert httpx.get(url + other, timeout=10).status_code == 404, other
    assert Path(outputs / "书单.xlsx").exists()
