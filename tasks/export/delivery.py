"""A batch's workbook taken to the curators: copied to a shared folder and sent by e-mail (delivery settings).

Delivery comes after the batch is written and recorded: a failure here loses no shelf. Each channel
says what became of it; a channel that failed after its retries is named in the run's state.
"""

from __future__ import annotations

import os
import shutil
import smtplib
import time
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from config.settings import DeliverySettings, EmailSettings
from tasks.progress import logger

XLSX = ("application", "vnd.openxmlformats-officedocument.spreadsheetml.sheet")


@dataclass(frozen=True)
class Delivered:
    channel: str  # folder | email
    target: str  # the copy's path, or the recipients
    error: str | None = None  # why it failed, after every attempt

    def describe(self) -> str:
        return f"{self.channel} {self.target}" + (f" failed: {self.error}" if self.error else "")


def copy_to_folder(workbook: Path, folder: Path) -> Path:
    """The workbook copied into folder whole or not at all: a temporary name there, then a rename."""
    target = folder / workbook.name
    tmp = folder / f".{workbook.name}.{os.getpid()}.tmp"
    try:
        shutil.copyfile(workbook, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def workbook_message(workbook: Path, batch_id: str, summary: str, email: EmailSettings) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = f"Shelfwise: the shelves of batch {batch_id}"
    message["From"] = email.sender
    message["To"] = ", ".join(email.to)
    message.set_content(summary)
    message.add_attachment(workbook.read_bytes(), maintype=XLSX[0], subtype=XLSX[1], filename=workbook.name)
    return message


def send(message: EmailMessage, email: EmailSettings) -> None:
    """One SMTP session; raises smtplib.SMTPException or OSError."""
    with smtplib.SMTP(email.host, email.port, timeout=email.timeout_seconds) as smtp:
        if email.starttls:
            smtp.starttls()
        if email.username:
            smtp.login(email.username, os.environ.get(email.password_env, ""))
        smtp.send_message(message)


def send_with_retries(message: EmailMessage, email: EmailSettings) -> str | None:
    """None once sent; else the last attempt's error, after 1 + email.retries attempts."""
    error = None
    for attempt in range(email.retries + 1):
        if attempt:
            time.sleep(email.retry_seconds * attempt)
        try:
            send(message, email)
            return None
        except (smtplib.SMTPException, OSError) as err:
            error = f"{type(err).__name__}: {err}".strip()
            logger.warning("e-mail to %s, attempt %d of %d: %s", ", ".join(email.to), attempt + 1,
                           email.retries + 1, error)
    return error


def deliver(workbook: Path, batch_id: str, summary: str, settings: DeliverySettings) -> list[Delivered]:
    """Every configured channel tried; what became of each."""
    done: list[Delivered] = []
    if settings.folder:
        folder = Path(settings.folder)
        try:
            done.append(Delivered("folder", str(copy_to_folder(workbook, folder))))
        except OSError as err:
            done.append(Delivered("folder", str(folder), f"{err.strerror or type(err).__name__}"))
    email = settings.email
    if email.host and email.to:
        error = send_with_retries(workbook_message(workbook, batch_id, summary, email), email)
        done.append(Delivered("email", ", ".join(email.to), error))
    return done
