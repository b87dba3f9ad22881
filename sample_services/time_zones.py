"""Time: the current time in any IANA time zone and conversion of a clock time between zones.

Both tools of the reference Time MCP server (`../shared/specs/mcp/time.json`) with its parameter names. "Now" is the
state's frozen clock (`EPOCH` plus the seconds the episode has advanced), never the machine's clock, so
answers are reproducible. Zone rules come from the IANA database (`zoneinfo`), so daylight saving time is
applied as in the real world for the date in question.

The service holds no records: its state is only the clock (a utility, like a calculator).
"""
from __future__ import annotations
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import State, Service

__all__ = ["service", "TimeState"]


class TimeState(State):
    "Only the clock: seconds since `EPOCH` (inherited `clock`)."


service = Service("time", "utilities", TimeState,
                  "The current time in any time zone and conversion of clock times between zones.", spec="time")


def _zone(name: str, arg: str) -> ZoneInfo:
    name = name.strip()
    if not name or name.startswith("/") or ".." in name: raise ToolError(400, f"{arg}={name!r} is not an IANA time zone name", arg)
    try: return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError): raise ToolError(404, f"unknown time zone {arg}={name[:80]!r} (use an IANA name such as 'Europe/London')", arg) from None

def _now(s: TimeState) -> datetime: return EPOCH + timedelta(seconds=s.clock)

def _info(dt: datetime, zone: str) -> dict:
    return {"timezone": zone, "datetime": dt.isoformat(timespec="seconds"), "day_of_week": dt.strftime("%A"),
            "is_dst": bool(dt.dst())}

def _offset_h(d: timedelta) -> str:
    h = d.total_seconds() / 3600
    txt = f"{h:+.2f}".rstrip("0").rstrip(".") if h % 1 else f"{h:+.1f}"
    return f"{txt}h"

@service.tool(read_only=True)
def get_current_time(s: TimeState,
                     timezone: str,  # IANA time zone name, e.g. 'America/New_York' or 'UTC'
                    ) -> dict:
    "The current date and time in a time zone, with its weekday and whether daylight saving time is in effect."
    z = _zone(timezone, "timezone")
    return _info(_now(s).astimezone(z), timezone.strip())

@service.tool(read_only=True)
def convert_time(s: TimeState,
                 source_timezone: str,  # IANA zone the time is given in
                 time: str,             # clock time in 24-hour HH:MM, on today's date in the source zone
                 target_timezone: str,  # IANA zone to convert to
                ) -> dict:
    "Convert a clock time (today, in the source zone) to another zone; also gives the offset difference."
    src, dst = _zone(source_timezone, "source_timezone"), _zone(target_timezone, "target_timezone")
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", time)
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise ToolError(422, f"time={time!r} is not a 24-hour time HH:MM (00:00 to 23:59)", "time")
    day = _now(s).astimezone(src).date()
    a = datetime(day.year, day.month, day.day, int(m.group(1)), int(m.group(2)), tzinfo=src)
    b = a.astimezone(dst)
    return {"source": _info(a, source_timezone.strip()), "target": _info(b, target_timezone.strip()),
            "time_difference": _offset_h(b.utcoffset() - a.utcoffset())}


# --- scenario beats (compoworld_nb.scenario) ------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "convert")
def convert_beat(ctx, source: str, times: list[str], zones: list[str]) -> dict:
    "Convert each clock time of `times` (today, in zone `source`) to each zone of `zones`: `{(time, zone): ISO local date-time}` as observed."
    out = {}
    for t in times:
        for z in dict.fromkeys(zones):
            got = ctx.call("convert_time", source_timezone=source, time=t, target_timezone=z)
            out[(t, z)] = got["target"]["datetime"]
    return out
