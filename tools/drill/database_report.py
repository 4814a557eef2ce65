"""The database drill's rows of the report (tools/drill/report.py): the cluster's settings, and
for each fault of its primary what Patroni did and what the product did in the gap
(tools/drill/database_faults.py, database_verdict.py)."""


def database_rows(database: dict, faults: list[dict], verdict: dict) -> list[tuple[str, str]]:
    if not database:
        return []
    rows = [
        ("PostgreSQL", _cluster_text(database)),
        (
            "orders / parcels / refunds the API confirmed and the database lost",
            f"{verdict.get('orders_lost_by_the_api', 0)} / {_parts(database, 'shipments')} /"
            f" {_parts(database, 'refunds')}",
        ),
        (
            "emails the provider accepted that the database has no record of",
            str(database.get("emails_unknown_to_the_database", 0)),
        ),
    ]
    for number, fault in enumerate(faults, start=1):
        rows += _fault_rows(number, fault)
    rows.append(
        ("answers the client retried, by status (whole drill)", _answers_text(database["retried_answers"]))
    )
    if "load_average" in database:  # a report from before has none
        loads = " / ".join(str(load) for load in database["load_average"])
        rows.append(("the machine's load average at the end (1 / 5 / 15 min)", loads))
    return rows


def _parts(database: dict, kind: str) -> str:
    lost = database.get("parts_lost")
    return "not counted" if lost is None else str(lost[kind])  # a report from before counts none


def _cluster_text(database: dict) -> str:
    patroni = database["patroni"]
    replication = (
        "synchronous_mode on" + (" (strict)" if patroni["synchronous_mode_strict"] else "")
        if patroni["synchronous_mode"]
        else "asynchronous standbys (synchronous_mode off)"
    )
    return (
        f"{database['nodes']} nodes on Patroni {database['patroni_version']}, {replication};"
        f" ttl {patroni['ttl']} s, loop_wait {patroni['loop_wait']} s, retry_timeout"
        f" {patroni['retry_timeout']} s, primary_start_timeout {patroni['primary_start_timeout']},"
        f" pg_rewind {'on' if patroni['use_pg_rewind'] else 'off'}"
    )


def _fault_rows(number: int, fault: dict) -> list[tuple[str, str]]:
    label = f"database fault {number}"
    if fault["kind"] == "crash":
        what = f"SIGKILL the PostgreSQL of primary {fault['node']}"
    else:
        what = f"SIGSTOP the whole primary node {fault['node']}, SIGCONT after {fault['seconds_frozen']} s"
    rows = [
        (f"{label}: {what}, after {fault['orders_placed_before']} orders placed", _failover_text(fault)),
        (
            f"{label}: from the kill to the first order committed on the new primary / first email of"
            " such an order sent",
            f"{_seconds(fault.get('seconds_to_first_commit'))} /"
            f" {_seconds(fault.get('seconds_to_first_email'))};"
            f" {fault.get('orders_committed_after', '?')} orders committed after it",
        ),
        (
            f"{label}: answers the client retried in the gap (until the next fault)",
            f"{_answers_text(fault.get('answers_in_gap', {}))}"
            f" ({_answers_text(fault.get('answers_until_next_fault', {}))})",
        ),
    ]
    if fault.get("fence"):
        rows.append((f"{label}: writes aimed at the old primary alone", fence_text(fault["fence"])))
    return rows


def _failover_text(fault: dict) -> str:
    if fault["new_primary"] is None:
        return "no new primary within the wait"
    new = (
        f"new primary {fault['new_primary']} after {fault['seconds_to_new_primary']} s"
        f" (timeline {fault['timeline_before']} → {fault['timeline_after']})"
    )
    if fault["seconds_to_rejoin"] is None:
        return f"{new}; {fault['node']} not back as a standby within the wait"
    return (
        f"{new}; {fault['node']} back as {fault['rejoined_as']}, streaming on the new timeline,"
        f" after {fault['seconds_to_rejoin']} s; pg_rewind: {fault['rewound']}"
    )


def fence_text(fence: dict) -> str:
    """The writes aimed at a thawed old primary, in words (docs/drills.md quotes it)."""
    in_flight = fence.get("in_flight") or {}
    flight = (
        f"the write of a client connected before the freeze: {in_flight.get('outcome')}"
        f" {_seconds(in_flight.get('seconds_to_answer'))} after it was sent"
        + (f" ({in_flight['error']})" if in_flight.get("error") else "")
    )
    lost = fence.get("confirmed_then_lost")
    return (
        f"{flight}; new connections after the thaw: {fence['writes'] - 1} writes,"
        f" {fence['confirmed'] - (in_flight.get('outcome') == 'confirmed')} confirmed,"
        f" {fence['refused'] - (in_flight.get('outcome') == 'refused')} refused,"
        f" {fence['unanswered'] - (in_flight.get('outcome') == 'unanswered')} unanswered"
        + ("" if lost is None else f"; confirmed and not in the database: {lost}")
    )


def _answers_text(answers: dict[str, int]) -> str:
    return ", ".join(f"{status} {count}" for status, count in answers.items()) or "none"


def _seconds(value: float | None) -> str:
    return "none" if value is None else f"{value} s"
