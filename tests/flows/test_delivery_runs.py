"""A batch's workbook reaches the curators: by e-mail to a real SMTP server (aiosmtpd) and to a shared folder,
from a real run; a delivery that fails after its retries fails the run by name, the shelves kept."""

from __future__ import annotations

import re

import pytest
from aiosmtpd.controller import Controller

from flows.cli import main as shelfwise
from flows.prefect_api import free_port
from tests.export.test_delivery import Mailbox

pytestmark = pytest.mark.slow

THEMES = "batch_id: {batch}\nthemes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n"


def test_a_batch_arrives_by_mail_and_in_the_shared_folder(demo_copy, tmp_path, monkeypatch, capsys):
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    share = tmp_path / "share"
    share.mkdir()
    monkeypatch.setenv("SHELFWISE__DELIVERY__FOLDER", str(share))
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__HOST", "127.0.0.1")
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__PORT", str(port))
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__TO", "[curators@library.test]")
    themes = tmp_path / "themes.yaml"
    themes.write_text(THEMES.format(batch="mailed"), encoding="utf-8")
    try:
        assert shelfwise(["run", str(themes)]) == 0
    finally:
        controller.stop()
    workbook = demo_copy.outputs_dir / "mailed.xlsx"
    [(to, message)] = box.messages
    [attached] = list(message.iter_attachments())
    assert to == ["curators@library.test"] and attached.get_content() == workbook.read_bytes()
    assert re.search(r"\| Quiet novels for a rainy night \| needs_review \| \d+ \|",
                     message.get_body(("plain",)).get_content())
    assert (share / "mailed.xlsx").read_bytes() == workbook.read_bytes()


def test_a_mail_server_that_never_answers_fails_the_run_by_name_and_keeps_the_shelves(demo_copy, tmp_path,
                                                                                    monkeypatch, capsys):
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__HOST", "127.0.0.1")
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__PORT", str(free_port()))  # nothing listens
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__TO", "[curators@library.test]")
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__RETRIES", "1")
    monkeypatch.setenv("SHELFWISE__DELIVERY__EMAIL__RETRY_SECONDS", "0")
    themes = tmp_path / "themes.yaml"
    themes.write_text(THEMES.format(batch="unmailed"), encoding="utf-8")
    capsys.readouterr()
    assert shelfwise(["run", str(themes)]) == 1
    out, err = capsys.readouterr()
    assert f"workbook: {demo_copy.outputs_dir / 'unmailed.xlsx'}" in out
    assert err.strip() == ("error: batch unmailed: 1 of 1 themes shelved; needs review: rain; not delivered: email "
                           "curators@library.test failed: ConnectionRefusedError: [Errno 111] Connection refused")
    assert (demo_copy.outputs_dir / "unmailed.xlsx").exists()
