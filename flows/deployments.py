"""The deployments `shelfwise serve` runs: nightly on its schedule, the others on demand from the UI."""

from __future__ import annotations

from prefect.schedules import Cron

from config.settings import ScheduleSettings
from flows.build_indexes import build_indexes
from flows.generate_shelves import generate_shelves, nightly


def deployments(schedule: ScheduleSettings) -> list:
    """nightly (cron and timezone from config), generate-shelves and build-indexes (triggered by hand)."""
    return [
        nightly.to_deployment(name="nightly", schedules=[Cron(schedule.cron, timezone=schedule.timezone)]),
        generate_shelves.to_deployment(name="generate-shelves"),
        build_indexes.to_deployment(name="build-indexes"),
    ]
