"""Delivery of a batch's workbook: to a shared folder, whole or not at all, and by e-mail to a real SMTP server
(aiosmtpd on 127.0.0.1) with retries and a clear failure."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default

import pytest
from aiosmtpd.controller import Controller
from openpyxl import Workbook

from config.settings import DeliverySettings, EmailSettings
from flows.prefect_api import free_port
from tasks.export.delivery import deliver


class Mailbox:
    """An aiosmtpd handler that keeps every message; refuses the first `refuse` deliveries with 451."""

    def __init__(self, refuse: int = 0):
        self.messages: list = []
        self.refuse = refuse
        self.attempts = 0

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        self.attempts += 1
        if self.attempts <= self.refuse:
            return "451 4.3.0 try again later"
        self.messages.append((envelope.rcpt_tos, message_from_bytes(envelope.content, policy=default)))
        return "250 OK"


@pytest.fixture
def smtp():
    def start(refuse: int = 0) -> tuple[Mailbox, int]:
        box, port = Mailbox(refuse), free_port()
        controller = Controller(box, hostname="127.0.0.1", port=port)
        controller.start()
        started.append(controller)
        return box, port
    started: list[Controller] = []
    yield start
    for controller in started:
        controller.stop()


@pytest.fixture
def workbook(tmp_path):
    path = tmp_path / "outputs" / "b-1.xlsx"
    path.parent.mkdir()
    book = Workbook()
    book.active["A1"] = "边城"
    book.save(path)
    return path


def email(port: int, **kw) -> DeliverySettings:
    return DeliverySettings(email=EmailSettings(host="127.0.0.1", port=port, to=("curators@library.test",),
                                                retry_seconds=0, timeout_seconds=5, **kw))


def test_the_workbook_arrives_attached_to_one_mail(smtp, workbook):
    box, port = smtp()
    [sent] = deliver(workbook, "b-1", "# Batch b-1\n| rain | done | 30 |", email(port))
    assert sent.error is None and sent.target == "curators@library.test"
    [(to, message)] = box.messages
    assert to == ["curators@library.test"] and "b-1" in message["Subject"]
    [attached] = list(message.iter_attachments())
    assert attached.get_filename() == "b-1.xlsx" and attached.get_content() == workbook.read_bytes()
    assert "rain | done" in message.get_body(("plain",)).get_content()


def test_a_refusing_server_is_tried_again_and_a_dead_one_is_named_after_the_last_attempt(smtp, workbook):
    box, port = smtp(refuse=2)
    [sent] = deliver(workbook, "b-1", "summary", email(port, retries=2))
    assert sent.error is None and box.attempts == 3 and len(box.messages) == 1
    dead = free_port()  # nothing listens there
    [failed] = deliver(workbook, "b-1", "summary", email(dead, retries=1))
    assert failed.error and "ConnectionRefusedError" in failed.error
    assert failed.describe().startswith("email curators@library.test failed: ConnectionRefusedError")


def test_the_shared_folder_gets_the_whole_workbook_and_no_temporary_file(workbook, tmp_path):
    share = tmp_path / "share"
    share.mkdir()
    (share / "b-1.xlsx").write_bytes(b"last month's")
    [copied] = deliver(workbook, "b-1", "", DeliverySettings(folder=str(share)))
    assert copied.error is None and (share / "b-1.xlsx").read_bytes() == workbook.read_bytes()
    assert [p.name for p in share.iterdir()] == ["b-1.xlsx"]
    [missing] = deliver(workbook, "b-1", "", DeliverySettings(folder=str(tmp_path / "unmounted")))
    assert missing.error == "No such file or directory"

