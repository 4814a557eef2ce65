"""CPU time per order, by component: where the two cores go when a pipeline carries a load.

On a machine of two cores every component waits for the others, so latency at a fixed load
follows the CPU each order costs the whole machine. Read from /proc (utime + stime of each
process, children that ended included), before and after the same orders, for the bench's
own process (the placers), each started process group, PostgreSQL and RabbitMQ."""

import os
from collections.abc import Iterable

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as file:
            text = file.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # the command name is in parentheses and may hold spaces: the fields follow its last ')'
    opened, closed = text.index("("), text.rindex(")")
    return [text[:opened], text[opened + 1 : closed], *text[closed + 2 :].split()]


def _cpu_seconds(fields: list[str]) -> float:
    # fields[2:] start at field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
    utime, stime, cutime, cstime = (int(fields[index]) for index in (13, 14, 15, 16))
    return (utime + stime + cutime + cstime) / TICKS_PER_S


def _processes() -> Iterable[tuple[int, list[str]]]:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat_fields(int(entry))) is not None:
            yield int(entry), fields


def cpu_by_component(groups: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of each named process group (by its leader's pid), of this process,
    and of every PostgreSQL and RabbitMQ process on the machine."""
    leaders = {leader: name for name, leader in groups.items()}
    totals = dict.fromkeys([*groups, "bench", "postgresql", "rabbitmq", "other"], 0.0)
    for pid, fields in _processes():
        command, process_group = fields[1], int(fields[4])
        seconds = _cpu_seconds(fields)
        if pid == os.getpid():
            totals["bench"] += seconds
        elif process_group in leaders:
            # a group leader's cutime holds its ended children; a child's own figure is its own
            totals[leaders[process_group]] += seconds
        elif command.startswith("postgres"):
            totals["postgresql"] += seconds
        elif command in ("beam.smp", "erl_child_setup", "epmd", "inet_gethost"):
            totals["rabbitmq"] += seconds
        else:
            totals["other"] += seconds
    return totals


def cpu_ms_per_order(before: dict[str, float], after: dict[str, float], orders: int) -> dict[str, float]:
    """The difference of two readings, in ms of CPU per order, with the total."""
    per_order = {
        name: round((after[name] - before.get(name, 0.0)) * 1000 / orders, 2)
        for name in after
        if name != "other"
    }
    per_order["total"] = round(sum(per_order.values()), 2)
    return per_order
