"""Google Calendar (service name `calendar`): calendars and their events.

Tool names and parameters follow nspady/google-calendar-mcp (`../shared/specs/mcp/google-calendar.json`). Implemented:
list-calendars, list-events, search-events, get-event, create-event, update-event, delete-event,
list-colors, get-current-time. `start`/`end` are strings: '2025-03-10T10:00:00' (timed; a naive time is
read in the calendar's time zone, or `timeZone` if given), '2025-03-10' (all day, end exclusive), or a
JSON object text '{"dateTime": ..., "timeZone": ...}' / '{"date": ...}'. `calendarId` accepts an id,
'primary', or a calendar's name; the search and list tools also take several (a list or a JSON list
text). Not implemented: accounts, recurrence, reminders, conference data, attachments, free/busy,
bulk creation and invitation responses; the `fields` selector (every field is always returned).
"""
from __future__ import annotations
import functools, json, re
from datetime import date, datetime, time, timedelta, timezone
from typing import Literal, Optional, Union
from zoneinfo import ZoneInfo
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, read, has, size, writable, put, remove
from .world import make_world, iso, service_rng, service_faker
from .kit import Query

HOLIDAY_CAL = "en.usa#holiday@group.v.calendar.google.com"
COLORS = {"1": ("Lavender", "#7986cb"), "2": ("Sage", "#33b679"), "3": ("Grape", "#8e24aa"), "4": ("Flamingo", "#e67c73"),
          "5": ("Banana", "#f6bf26"), "6": ("Tangerine", "#f4511e"), "7": ("Peacock", "#039be5"), "8": ("Graphite", "#616161"),
          "9": ("Blueberry", "#3f51b5"), "10": ("Basil", "#0b8043"), "11": ("Tomato", "#d50000")}
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


class Calendar(Record):
    id: str
    summary: str
    description: str = ""
    timeZone: str
    accessRole: Literal["owner", "writer", "reader"] = "owner"
    primary: bool = False
    backgroundColor: str = "#039be5"


class EventTime(Record):
    dateTime: Optional[str] = None      # RFC 3339 with offset, in `timeZone`
    date: Optional[str] = None          # all-day events
    timeZone: Optional[str] = None


class Attendee(Record):
    email: str
    displayName: Optional[str] = None
    optional: bool = False
    responseStatus: Literal["needsAction", "declined", "tentative", "accepted"] = "needsAction"


class Event(Record):
    id: str
    calendarId: str
    summary: str
    description: Optional[str] = None
    location: Optional[str] = None
    start: EventTime
    end: EventTime
    attendees: list[Attendee] = []
    status: str = "confirmed"
    organizer: str = ""
    created: str
    updated: str
    htmlLink: str = ""
    colorId: Optional[str] = None
    transparency: Optional[Literal["opaque", "transparent"]] = None
    visibility: Optional[Literal["default", "public", "private", "confidential"]] = None


class CalendarState(State):
    owner: str = ""                     # the account's address (id of the primary calendar)
    calendars: dict[str, Calendar] = {}
    events: dict[str, Event] = {}


service = Service("calendar", "productivity & collaboration", CalendarState,
                  "A personal and team calendar: list, search, create, update and delete events.", spec="google-calendar")


# --- helpers ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _zone_names() -> frozenset:
    import zoneinfo
    # the zone database folder may hold 'localtime' (a link to the host's /etc/localtime): never a zone a task may name
    return frozenset(n for n in zoneinfo.available_timezones() if n != "localtime" and not n.startswith(("posix/", "right/")))

def _zone(name: str, arg: str) -> ZoneInfo:
    "An IANA zone by name; 422 for anything else ('localtime' would read the host's /etc/localtime)."
    if not isinstance(name, str) or name not in _zone_names():
        raise ToolError(422, f"{arg}={name!r} is not an IANA time zone such as 'America/New_York'", arg)
    return ZoneInfo(name)

def _cal(s: CalendarState, calendarId: str, write: bool = False) -> Calendar:
    cid = calendarId.strip()
    c = (next((c for c in scan(s, "calendars") if c.primary), None) if cid == "primary" else read(s, "calendars", cid)) \
        or next((c for c in scan(s, "calendars") if c.summary.lower() == cid.lower()), None)
    if c is None: raise ToolError(404, f"no calendar with calendarId={calendarId!r}", "calendarId")
    if write and c.accessRole == "reader": raise ToolError(422, f"calendar {c.summary!r} (calendarId={calendarId!r}) is read-only", "calendarId")
    return c

def _cals(s: CalendarState, calendarId: Union[str, list[str]]) -> list[Calendar]:
    ids = calendarId
    if isinstance(ids, str) and ids.strip().startswith("["):
        try: ids = json.loads(ids)
        except ValueError: raise ToolError(422, f"calendarId={calendarId!r} looks like a JSON list but does not parse", "calendarId")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ToolError(422, f"calendarId={calendarId!r} must be a list of calendar ids", "calendarId")
    if isinstance(ids, str): ids = [ids]
    if not ids: raise ToolError(422, "calendarId must name at least one calendar", "calendarId")
    out = []
    for i in ids:
        c = _cal(s, i)
        if c not in out: out.append(c)
    return out

def _event(s: CalendarState, cal: Calendar, eventId: str) -> Event:
    e = read(s, "events", eventId)
    if e is None or e.calendarId != cal.id: raise ToolError(404, f"no event with eventId={eventId!r} in calendar {cal.id!r}", "eventId")
    return e

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

def _when(value: str, arg: str, tzname: str) -> tuple[EventTime, datetime]:
    "Parse an event time string (ISO text or JSON object text) into an EventTime and its instant."
    v = value.strip()
    if v.startswith("{"):
        try: obj = json.loads(v)
        except ValueError: raise ToolError(422, f"{arg}={value!r} looks like JSON but does not parse", arg)
        if not isinstance(obj, dict): raise ToolError(422, f"{arg}={value!r} must be a JSON object", arg)
        if obj.get("timeZone"): tzname = obj["timeZone"]; _zone(tzname, arg)
        v = obj.get("dateTime") or obj.get("date")
        if not isinstance(v, str): raise ToolError(422, f"{arg}={value!r} needs a dateTime or a date", arg)
    tz = _zone(tzname, "timeZone")
    if _DATE.match(v):
        try: d = date.fromisoformat(v)
        except ValueError: raise ToolError(422, f"{arg}={value!r} is not a valid date", arg)
        return EventTime(date=v), datetime.combine(d, time(0), tz)
    try: dt = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError: raise ToolError(422, f"{arg}={value!r} is not an ISO-8601 date-time like '2025-03-10T10:00:00'", arg)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
        back = dt.astimezone(timezone.utc).astimezone(tz)
        if back.replace(tzinfo=None) != dt.replace(tzinfo=None):   # a wall time the clocks skip (spring forward)
            raise ToolError(422, f"{arg}={value!r} does not exist in {tzname} (the clocks skip it at the change to summer time)", arg)
    local = dt.astimezone(tz)
    return EventTime(dateTime=local.isoformat(), timeZone=tzname), local

def _bound(value: Optional[str], arg: str, tzname: str) -> Optional[datetime]:
    if value is None: return None
    return _when(value, arg, tzname)[1]

def _instant(t: EventTime, tzname: str) -> datetime:
    if t.dateTime: return datetime.fromisoformat(t.dateTime)
    return datetime.combine(date.fromisoformat(t.date), time(0), ZoneInfo(t.timeZone or tzname))

def _range(s: CalendarState, cal: Calendar, timeMin, timeMax, timeZone):
    tzname = timeZone or cal.timeZone
    if timeZone: _zone(timeZone, "timeZone")
    lo, hi = _bound(timeMin, "timeMin", tzname), _bound(timeMax, "timeMax", tzname)
    if lo and hi and hi <= lo: raise ToolError(422, f"timeMax={timeMax!r} must be after timeMin={timeMin!r}", "timeMax")
    return lo, hi

def _in_range(e: Event, tzname: str, lo, hi) -> bool:
    a, b = _instant(e.start, tzname), _instant(e.end, tzname)
    return (lo is None or b > lo) and (hi is None or a < hi)

def _edict(e: Event) -> dict: return e.model_dump(exclude_none=True)

def _attendees(items: Optional[list[dict]]) -> list[Attendee]:
    out = []
    for a in items or []:
        if not isinstance(a, dict) or not isinstance(a.get("email"), str) or not _EMAIL.match(a["email"].strip()):
            raise ToolError(422, f"attendees: each attendee needs a valid email, got {a!r}", "attendees")
        extra = set(a) - {"email", "displayName", "optional", "responseStatus", "comment", "additionalGuests"}
        if extra: raise ToolError(422, f"attendees: unknown attendee fields {sorted(extra)}", "attendees")
        try: out.append(Attendee(email=a["email"].strip(), displayName=a.get("displayName"), optional=bool(a.get("optional", False)),
                                 responseStatus=a.get("responseStatus", "needsAction")))
        except Exception as x: raise ToolError(422, f"attendees: invalid attendee {a!r}: {x}", "attendees")
    return out

def _check_span(st: EventTime, et: EventTime, a: datetime, b: datetime, arg: str):
    if (st.date is None) != (et.date is None): raise ToolError(422, "start and end must both be dates (all day) or both date-times", arg)
    if b <= a: raise ToolError(422, f"end ({et.dateTime or et.date}) must be after start ({st.dateTime or st.date})", arg)

_TRANSP = Optional[Literal["opaque", "transparent"]]
_VIS = Optional[Literal["default", "public", "private", "confidential"]]
_SEND = Literal["all", "externalOnly", "none"]


# --- tools --------------------------------------------------------------------------------------
@service.tool(name="list-calendars", read_only=True)
def list_calendars(s: CalendarState) -> dict:
    "List the calendars this account can see, with their time zones and access roles."
    return {"calendars": [c.model_dump() for c in scan(s, "calendars")]}

@service.tool(name="list-events", read_only=True)
def list_events(s: CalendarState,
                calendarId: Union[str, list[str]],  # calendar id, 'primary' or a calendar name; several as a list
                timeMin: Optional[str] = None,      # earliest time (ISO 8601); events ending after it are included
                timeMax: Optional[str] = None,      # latest time (ISO 8601); events starting before it are included
                timeZone: Optional[str] = None,     # IANA zone for naive times (default: the calendar's)
               ) -> dict:
    "List events of one or more calendars in a time range, earliest first."
    cals = _cals(s, calendarId)
    out = []
    for c in cals:
        lo, hi = _range(s, c, timeMin, timeMax, timeZone)
        out += [e for e in scan(s, "events") if e.calendarId == c.id and _in_range(e, c.timeZone, lo, hi)]
    out.sort(key=lambda e: (_instant(e.start, read(s, "calendars", e.calendarId).timeZone), e.id))
    return {"events": [_edict(e) for e in out]}

@service.tool(name="search-events", read_only=True)
def search_events(s: CalendarState,
                  calendarId: Union[str, list[str]],  # calendar id, 'primary' or a calendar name; several as a list
                  query: Query,                       # words that must all appear in the title, description, location or attendees
                  timeMin: str,                       # earliest time (ISO 8601)
                  timeMax: str,                       # latest time (ISO 8601)
                  timeZone: Optional[str] = None,     # IANA zone for naive times (default: the calendar's)
                 ) -> dict:
    "Find events whose text matches a query within a time range, earliest first."
    cals = _cals(s, calendarId)
    words = query.lower().split()
    if not words: raise ToolError(422, "query must not be empty", "query")
    out = []
    for c in cals:
        lo, hi = _range(s, c, timeMin, timeMax, timeZone)
        for e in scan(s, "events"):
            if e.calendarId != c.id or not _in_range(e, c.timeZone, lo, hi): continue
            hay = " ".join([e.summary, e.description or "", e.location or ""] +
                           [f"{a.email} {a.displayName or ''}" for a in e.attendees]).lower()
            if all(w in hay for w in words): out.append(e)
    out.sort(key=lambda e: (_instant(e.start, read(s, "calendars", e.calendarId).timeZone), e.id))
    return {"events": [_edict(e) for e in out]}

@service.tool(name="get-event", read_only=True)
def get_event(s: CalendarState,
              calendarId: str,  # calendar id or 'primary'
              eventId: str,     # id of the event
             ) -> dict:
    "Read one event in full."
    return _edict(_event(s, _cal(s, calendarId), eventId))

@service.tool(name="create-event")
def create_event(s: CalendarState,
                 calendarId: str,                        # calendar id or 'primary'
                 summary: str,                           # title of the event (not empty)
                 start: str,                             # '2025-03-10T10:00:00', '2025-03-10' (all day) or JSON '{"dateTime":..., "timeZone":...}'
                 end: str,                               # same forms as start; must be after start (all-day end is exclusive)
                 eventId: Optional[str] = None,          # custom id: 5-1024 characters from a-v and 0-9
                 description: Optional[str] = None,      # notes for the event
                 location: Optional[str] = None,         # where it takes place
                 attendees: Optional[list[dict]] = None, # guests as objects with an email (and optional displayName, optional)
                 timeZone: Optional[str] = None,         # IANA zone for naive start/end (default: the calendar's)
                 colorId: Optional[str] = None,          # color id '1'-'11' (see list-colors)
                 transparency: _TRANSP = None,           # 'opaque' blocks time, 'transparent' does not
                 visibility: _VIS = None,                # who can see the event's details
                ) -> dict:
    "Create an event on a calendar and return it."
    cal = _cal(s, calendarId, write=True)
    if not summary.strip(): raise ToolError(422, "summary must not be empty", "summary")
    if eventId is not None:
        if not re.fullmatch(r"[a-v0-9]{5,1024}", eventId):
            raise ToolError(422, f"eventId={eventId!r} must be 5-1024 characters from a-v and 0-9", "eventId")
        if has(s, "events", eventId): raise ToolError(409, f"an event with eventId={eventId!r} already exists", "eventId")
    tzname = timeZone or cal.timeZone
    _zone(tzname, "timeZone")
    st, a = _when(start, "start", tzname)
    et, b = _when(end, "end", tzname)
    _check_span(st, et, a, b, "end")
    people = _attendees(attendees)
    if colorId is not None and colorId not in COLORS: raise ToolError(422, f"colorId={colorId!r} is not one of 1-11", "colorId")
    i = eventId or s.new_id("ev")
    now = s.tick()
    put(s, "events", i, Event(id=i, calendarId=cal.id, summary=summary.strip(), description=description, location=location,
                        start=st, end=et, attendees=people, organizer=s.owner, created=now, updated=now,
                        htmlLink=f"https://calendar.google.com/calendar/event?eid={i}", colorId=colorId,
                        transparency=transparency, visibility=visibility))
    return _edict(read(s, "events", i))

@service.tool(name="update-event")
def update_event(s: CalendarState,
                 calendarId: str,                        # calendar id or 'primary'
                 eventId: str,                           # id of the event to change
                 summary: Optional[str] = None,          # new title (not empty)
                 description: Optional[str] = None,      # new notes
                 start: Optional[str] = None,            # new start (same forms as create-event)
                 end: Optional[str] = None,              # new end (same forms as create-event)
                 timeZone: Optional[str] = None,         # IANA zone for naive start/end (default: the calendar's)
                 location: Optional[str] = None,         # new location
                 attendees: Optional[list[dict]] = None, # new guest list (replaces the old one)
                 colorId: Optional[str] = None,          # new color id '1'-'11'
                ) -> dict:
    "Change fields of an existing event; fields left out keep their values."
    cal = _cal(s, calendarId, write=True)
    e = writable(s, "events", _event(s, cal, eventId).id)
    given = {k: v for k, v in dict(summary=summary, description=description, start=start, end=end, location=location,
                                   attendees=attendees, colorId=colorId).items() if v is not None}
    if not given: raise ToolError(422, "nothing to update: give at least one field to change", "eventId")
    if summary is not None and not summary.strip(): raise ToolError(422, "summary must not be empty", "summary")
    tzname = timeZone or cal.timeZone
    _zone(tzname, "timeZone")
    st, a = _when(start, "start", tzname) if start is not None else (e.start, _instant(e.start, cal.timeZone))
    et, b = _when(end, "end", tzname) if end is not None else (e.end, _instant(e.end, cal.timeZone))
    _check_span(st, et, a, b, "end" if end is not None else "start")
    people = _attendees(attendees) if attendees is not None else None
    if colorId is not None and colorId not in COLORS: raise ToolError(422, f"colorId={colorId!r} is not one of 1-11", "colorId")
    if summary is not None: e.summary = summary.strip()
    if description is not None: e.description = description
    if location is not None: e.location = location
    if people is not None: e.attendees = people
    if colorId is not None: e.colorId = colorId
    e.start, e.end = st, et
    e.updated = s.tick()
    return _edict(e)

@service.tool(name="delete-event")
def delete_event(s: CalendarState,
                 calendarId: str,            # calendar id or 'primary'
                 eventId: str,               # id of the event to delete
                 sendUpdates: _SEND = "all", # who is told about the cancellation
                ) -> dict:
    "Delete an event from a calendar."
    cal = _cal(s, calendarId, write=True)
    _event(s, cal, eventId)
    remove(s, "events", eventId)
    return {"deleted": eventId, "calendarId": cal.id, "sendUpdates": sendUpdates}

@service.tool(name="list-colors", read_only=True)
def list_colors(s: CalendarState) -> dict:
    "The color ids an event can use, with names and hex values."
    return {"event": {k: {"name": n, "background": c} for k, (n, c) in COLORS.items()}}

@service.tool(name="get-current-time", read_only=True)
def get_current_time(s: CalendarState,
                     timeZone: Optional[str] = None,  # IANA zone to show the time in (default: the primary calendar's)
                    ) -> dict:
    "The current date and time, in a time zone and in UTC."
    prim = next((c for c in scan(s, "calendars") if c.primary), None)
    tzname = timeZone or (prim.timeZone if prim else "UTC")
    tz = _zone(tzname, "timeZone")
    now = datetime.fromisoformat(s.now().replace("Z", "+00:00"))
    return {"currentTime": now.astimezone(tz).isoformat(), "timeZone": tzname, "utc": s.now(),
            "weekday": now.astimezone(tz).strftime("%A")}


# --- fixture ------------------------------------------------------------------------------------
_HOLIDAYS = [("Valentine's Day", "2025-02-14"), ("Presidents' Day", "2025-02-17"), ("Daylight Saving Time starts", "2025-03-09"),
             ("St. Patrick's Day", "2025-03-17"), ("March Equinox", "2025-03-20"), ("Tax Day", "2025-04-15"),
             ("Good Friday", "2025-04-18"), ("Easter Sunday", "2025-04-20")]
_MEETINGS = [("{topic} review", "Zoom"), ("{topic} planning", "Room 4B"), ("Customer call: {company}", "Zoom"),
             ("Interview: {role} candidate", "Room 2A"), ("Focus time", None), ("{topic} working session", "Room 3C"),
             ("Lunch with {name}", "{place}"), ("Site visit: {place}", "{place}"), ("Coffee with {name}", "Cafe downstairs"),
             ("Quarterly business review", "Boardroom"), ("Dentist", "{place}"), ("{topic} kickoff", "Zoom")]
_ROLES = ["Backend Engineer", "Product Designer", "Data Analyst", "Support Specialist", "Engineering Manager"]

@service.fixture
def fixture(seed: int) -> CalendarState:
    "4 calendars (primary, team, travel, read-only holidays) and about 120 events from 30 days before to 60 days after EPOCH."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> CalendarState:
    w, rng, fk = make_world(seed), service_rng("calendar", seed), service_faker("calendar", seed)
    home = w.place(w.me.home)
    tzname = home.tz if home else "America/New_York"
    tz = ZoneInfo(tzname)
    s = CalendarState(seed=seed, owner=w.me.email)
    put(s, "calendars", w.me.email, Calendar(id=w.me.email, summary=w.me.email, timeZone=tzname, primary=True))
    team_id, travel_id = s.new_id("cal"), s.new_id("cal")
    put(s, "calendars", team_id, Calendar(id=team_id, summary="Team Events", description=f"Shared calendar of {w.company}",
                                    timeZone=tzname, accessRole="writer", backgroundColor="#33b679"))
    put(s, "calendars", travel_id, Calendar(id=travel_id, summary="Travel", timeZone=tzname, backgroundColor="#f6bf26"))
    put(s, "calendars", HOLIDAY_CAL, Calendar(id=HOLIDAY_CAL, summary="Holidays in United States", timeZone=tzname,
                                        accessRole="reader", backgroundColor="#0b8043"))
    created = iso(EPOCH - timedelta(days=45))
    def add(cal, summary, st: EventTime, et: EventTime, location=None, attendees=(), description=None):
        i = s.new_id("ev")
        put(s, "events", i, Event(id=i, calendarId=cal, summary=summary, description=description, location=location, start=st, end=et,
                            attendees=[Attendee(email=p.email, displayName=p.name, responseStatus=rng.choice(["accepted", "accepted", "tentative", "needsAction"]))
                                       for p in attendees], organizer=w.me.email if cal != HOLIDAY_CAL else HOLIDAY_CAL,
                            created=created, updated=created, htmlLink=f"https://calendar.google.com/calendar/event?eid={i}"))
    def timed(day: date, hour: int, minute: int, minutes: int) -> tuple[EventTime, EventTime]:
        a = datetime.combine(day, time(hour, minute), tz)
        return (EventTime(dateTime=a.isoformat(), timeZone=tzname),
                EventTime(dateTime=(a + timedelta(minutes=minutes)).isoformat(), timeZone=tzname))
    first_day = (EPOCH - timedelta(days=30)).date()
    for name, d in _HOLIDAYS:
        add(HOLIDAY_CAL, name, EventTime(date=d), EventTime(date=(date.fromisoformat(d) + timedelta(days=1)).isoformat()),
            description="Public holiday" if "Day" in name else "Observance")
    monday = first_day - timedelta(days=first_day.weekday())
    for k in range(13):                                              # weekly team sync
        day = monday + timedelta(weeks=k)
        add(team_id, "Weekly team sync", *timed(day, 9, 30, 30), location="Zoom", attendees=w.people)
    for k, p in enumerate(rng.sample(w.others, 3)):                  # biweekly 1:1s
        for j in range(4):
            day = monday + timedelta(weeks=2 * j, days=1 + k)
            add(w.me.email, f"1:1 with {p.first}", *timed(day, 14, 0, 30), location="Zoom", attendees=[w.me, p])
    for k in range(6):                                               # trips
        place = rng.choice(w.places[1:])
        day = first_day + timedelta(days=rng.randint(0, 88))
        add(travel_id, f"Trip to {place.label}", EventTime(date=day.isoformat()),
            EventTime(date=(day + timedelta(days=rng.randint(2, 4))).isoformat()), location=place.label,
            description=f"Confirmation #{rng.randint(100000, 999999)}")
    while size(s, "events") < 120:                                       # everything else
        day = first_day + timedelta(days=rng.randint(0, 89))
        if day.weekday() >= 5: continue
        title, loc = rng.choice(_MEETINGS)
        p, place = rng.choice(w.others), rng.choice(w.places).label
        fill = dict(topic=rng.choice(w.topics), company=fk.company(), role=rng.choice(_ROLES), name=p.name, place=place)
        guests = [w.me] + rng.sample(w.others, rng.randint(0, 4))
        add(w.me.email, title.format(**fill), *timed(day, rng.randint(8, 16), rng.choice([0, 30]), rng.choice([30, 45, 60, 90])),
            location=loc.format(**fill) if loc else None, attendees=guests if "Focus" not in title and "Dentist" not in title else [],
            description=rng.choice([None, "Agenda in the doc.", "Please come prepared with questions.", f"Re: {fill['topic']}"]))
    return s


# --- step templates -----------------------------------------------------------------------------
def upcoming_window() -> tuple[date, date]:
    """The dates a request states for finding an upcoming planted event (`read_step`, `event_beat`: 1-12 days after EPOCH):
    `(EPOCH's date, 13 days later)`; the reference searches between them (ISO dates, midnight in the calendar's zone)."""
    return EPOCH.date(), EPOCH.date() + timedelta(days=13)

def written_date(d: date) -> str:
    "`d` as a request writes it ('March 3, 2025'); a reader may search with its ISO form."
    return f"{d:%B} {d.day}, {d.year}"

@add_step(service, "read", needs=("key",), reveals=("place",))
def read_step(ctx, value, want):
    "Plant an upcoming event about `value` held at a world place; the agent searches the calendar for it."
    w = ctx.world
    place = ctx.rng.choice(w.places)
    s = ctx.state("calendar")
    prim = next(c for c in scan(s, "calendars") if c.primary)
    tz = ZoneInfo(prim.timeZone)
    day = (EPOCH + timedelta(days=ctx.rng.randint(1, 12))).date()
    a = datetime.combine(day, time(ctx.rng.choice([10, 13, 15])), tz)
    eid = ctx.plant_id("ev")
    summary = f"{ctx.rng.choice(['Planning session', 'Workshop', 'Review'])}: {value}"
    organizer = ctx.rng.choice(w.others).email
    def plant(st: CalendarState):
        put(st, "events", eid, Event(id=eid, calendarId=prim.id, summary=summary, location=place.label,
                               start=EventTime(dateTime=a.isoformat(), timeZone=prim.timeZone),
                               end=EventTime(dateTime=(a + timedelta(hours=1)).isoformat(), timeZone=prim.timeZone),
                               attendees=[Attendee(email=w.me.email, displayName=w.me.name, responseStatus="accepted")],
                               organizer=organizer, created=iso(EPOCH - timedelta(days=3)),
                               updated=iso(EPOCH - timedelta(days=3)), htmlLink=f"https://calendar.google.com/calendar/event?eid={eid}"))
        return eid
    ctx.plant("calendar", plant)
    lo, hi = upcoming_window()
    found = ctx.call("search-events", calendarId="primary", query=str(value), timeMin=lo.isoformat(), timeMax=hi.isoformat())
    assert found["events"] and found["events"][0]["location"] == place.label
    phrase = "the location of that event"
    when = f"between {written_date(lo)} and {written_date(hi)}"
    if want is None:
        return Visit(f"Find the event about {ctx.in_phrase} on my calendar ({when}) and tell me where it takes place.",
                     reveals=place.label, reveals_phrase=phrase, answer=True)
    return Visit(f"Find the event about {ctx.in_phrase} on my calendar ({when}).",
                 reveals=place.label, reveals_phrase=phrase)

@add_step(service, "create", needs=("place",), reveals=("ref",), writes=True)
def create_step(ctx, value, want):
    "Create an event on a fixed weekday after EPOCH, 10:00-11:00, at the place `value`."
    s = ctx.state("calendar")
    prim = next(c for c in scan(s, "calendars") if c.primary)
    day = (EPOCH + timedelta(days=ctx.rng.randint(3, 20))).date()
    while day.weekday() >= 5: day += timedelta(days=1)
    summary = ctx.label("Site visit")
    ev = ctx.call("create-event", calendarId="primary", summary=summary, start=f"{day.isoformat()}T10:00:00",
                  end=f"{day.isoformat()}T11:00:00", location=str(value))
    start = datetime.combine(day, time(10), ZoneInfo(prim.timeZone)).isoformat()
    crit = [ctx.criterion("events", {"summary": summary}, "location", "contains", str(value)),
            ctx.criterion("events", {"summary": summary}, "start.dateTime", "eq", start),
            ctx.criterion("events", {"summary": summary}, "calendarId", "eq", prim.id)]
    text = (f'Add "{summary}" to my calendar on {day.strftime("%A, %B")} {day.day} from 10:00 to 11:00 '
            f'(my calendar\'s time zone) and set its location to {ctx.in_phrase}.')
    if want is None: return Visit(text, criteria=crit)
    return Visit(text, reveals=ev["id"], reveals_phrase="the id of the event you created", criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "event")
def event_beat(ctx, title: str, place: str, guests: list, window: tuple) -> dict:
    """Plant an upcoming event titled `title` at `place` with `guests` (`[(Person, responseStatus)]`) invited; the reference
    searches between the dates `window` (`(first, last)`, `datetime.date`s, as the request states them, e.g.
    `upcoming_window()`; the event falls 2-12 days after EPOCH, so a window must hold those days). Returns `{id, start, location, attendees}` as observed."""
    w = ctx.world
    s = ctx.state("calendar")
    prim = next(c for c in scan(s, "calendars") if c.primary)
    tz = ZoneInfo(prim.timeZone)
    day = (EPOCH + timedelta(days=ctx.rng.randint(2, 12))).date()
    a = datetime.combine(day, time(ctx.rng.choice([10, 13, 17])), tz)
    eid = ctx.plant_id("ev")
    def plant(st: CalendarState):
        put(st, "events", eid, Event(id=eid, calendarId=prim.id, summary=title, location=place,
                               start=EventTime(dateTime=a.isoformat(), timeZone=prim.timeZone),
                               end=EventTime(dateTime=(a + timedelta(hours=2)).isoformat(), timeZone=prim.timeZone),
                               attendees=[Attendee(email=w.me.email, displayName=w.me.name, responseStatus="accepted")] +
                                         [Attendee(email=p.email, displayName=p.name, responseStatus=r) for p, r in guests],
                               organizer=w.me.email, created=iso(EPOCH - timedelta(days=5)), updated=iso(EPOCH - timedelta(days=5)),
                               htmlLink=f"https://calendar.google.com/calendar/event?eid={eid}"))
    ctx.plant("calendar", plant)
    found = ctx.call("search-events", calendarId="primary", query=title, timeMin=window[0].isoformat(), timeMax=window[1].isoformat())
    ev = found["events"][0]
    assert ev["summary"] == title
    return {"id": ev["id"], "location": ev["location"], "day": day, "attendees": ev.get("attendees", [])}

@add_beat(service, "update")
def update_beat(ctx, event_id: str, location: str, description: str) -> list[dict]:
    "Set the event's location and description; the selectors of the two fields for the criteria."
    ctx.call("update-event", calendarId="primary", eventId=event_id, location=location, description=description)
    return [{"collection": "events", "where": {"id": event_id}, "field": "location"},
            {"collection": "events", "where": {"id": event_id}, "field": "description"}]

def _update_mistake(ctx, event_id: str, location: str) -> dict:
    "The plausible mistake a kept location guards against: moving the event to `location` anyway."
    return {"tool": "calendar.update-event", "arguments": {"calendarId": "primary", "eventId": event_id, "location": location}}
update_beat.mistake = _update_mistake

@add_beat(service, "meeting")
def meeting_beat(ctx, title: str, day, people: list, description: str) -> dict:
    "Create a 30-minute event titled `title` on `day` at 10:00 (the calendar's zone) with `people` invited; the selector and the observed event."
    ev = ctx.call("create-event", calendarId="primary", summary=title, start=f"{day.isoformat()}T10:00:00", end=f"{day.isoformat()}T10:30:00",
                  description=description, attendees=[{"email": p.email} for p in people])
    return {"collection": "events", "where": {"summary": title}, "event": ev}
