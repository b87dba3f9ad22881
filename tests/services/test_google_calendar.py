"calendar: every tool's success case and each error code it can return."
import json
import pytest
from sample_services.google_calendar import service as svc, HOLIDAY_CAL
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def prim(s): return next(c for c in s.calendars.values() if c.primary)
def ev(s, cal=None):
    cal = cal or prim(s).id
    return next(e for e in s.events.values() if e.calendarId == cal and e.start.dateTime)

NEW = {"calendarId": "primary", "summary": "Design sync", "start": "2025-03-12T10:00:00", "end": "2025-03-12T11:00:00"}


def test_list_calendars(s):
    _, d = check_ok(svc, s, "list-calendars", {})
    assert len(d["calendars"]) == 4 and sum(c["primary"] for c in d["calendars"]) == 1
    assert {c["accessRole"] for c in d["calendars"]} == {"owner", "writer", "reader"}

@pytest.mark.parametrize("cal", ["primary", "Travel", "travel", '["primary", "Team Events"]', ["Travel", "primary"]])
def test_list_events_by_id_name_or_list(s, cal):
    _, d = check_ok(svc, s, "list-events", {"calendarId": cal})
    assert d["events"]
    names = {c.id: c.summary for c in s.calendars.values()}
    assert {e["calendarId"] for e in d["events"]} <= set(names)

def test_list_events_range(s):
    _, d = check_ok(svc, s, "list-events", {"calendarId": "primary", "timeMin": "2025-03-03T00:00:00", "timeMax": "2025-03-08T00:00:00"})
    assert d["events"] and all("2025-03-02" <= e["start"]["dateTime"][:10] <= "2025-03-08" for e in d["events"])
    starts = [e["start"]["dateTime"] for e in d["events"]]
    assert starts == sorted(starts)
    _, d2 = check_ok(svc, s, "list-events", {"calendarId": "primary", "timeMin": "2025-03-03T06:00:00Z", "timeMax": "2025-03-08T06:00:00Z",
                                            "timeZone": "UTC"})
    assert d2["events"]

@pytest.mark.parametrize("args,code,arg", [
    ({"calendarId": "nope"}, 404, "calendarId"), ({"calendarId": '["primary", "nope"]'}, 404, "calendarId"),
    ({"calendarId": "[bad json"}, 422, "calendarId"), ({"calendarId": []}, 422, "calendarId"),
    ({"calendarId": "primary", "timeMin": "March 3"}, 422, "timeMin"),
    ({"calendarId": "primary", "timeMin": "2025-03-05", "timeMax": "2025-03-04"}, 422, "timeMax"),
    ({"calendarId": "primary", "timeZone": "Mars/Olympus"}, 422, "timeZone")])
def test_list_events_errors(s, args, code, arg):
    check_err(svc, s, "list-events", args, code, arg)

def test_list_events_bad_type_is_400(s):
    new, o = svc.call(s, "list-events", {"calendarId": 7})
    assert new is s and o["error"]["code"] == 400 and o["error"]["argument"].startswith("calendarId")

def test_search_events(s):
    e = ev(s)
    word = e.summary.split()[0]
    _, d = check_ok(svc, s, "search-events", {"calendarId": "primary", "query": word, "timeMin": "2025-01-01", "timeMax": "2025-06-01"})
    assert e.id in [x["id"] for x in d["events"]]
    assert all(word.lower() in json.dumps(x).lower() for x in d["events"])
    _, d = check_ok(svc, s, "search-events", {"calendarId": "primary", "query": word, "timeMin": "2024-01-01", "timeMax": "2024-02-01"})
    assert d["events"] == []

@pytest.mark.parametrize("change,code,arg", [({"query": " "}, 422, "query"), ({"calendarId": "x"}, 404, "calendarId"),
                                             ({"timeMax": "2024-01-01"}, 422, "timeMax"), ({"timeMin": "soon"}, 422, "timeMin")])
def test_search_events_errors(s, change, code, arg):
    args = {"calendarId": "primary", "query": "sync", "timeMin": "2025-03-01", "timeMax": "2025-04-01", **change}
    check_err(svc, s, "search-events", args, code, arg)

def test_get_event(s):
    e = ev(s)
    _, d = check_ok(svc, s, "get-event", {"calendarId": "primary", "eventId": e.id})
    assert d["summary"] == e.summary and d["start"] == e.start.model_dump(exclude_none=True)
    check_err(svc, s, "get-event", {"calendarId": "primary", "eventId": "ev_nope"}, 404, "eventId")
    check_err(svc, s, "get-event", {"calendarId": "Travel", "eventId": e.id}, 404, "eventId")    # wrong calendar
    check_err(svc, s, "get-event", {"calendarId": "nope", "eventId": e.id}, 404, "calendarId")

def test_create_event(s):
    new, d = check_ok(svc, s, "create-event", {**NEW, "location": "Room 1", "attendees": [{"email": "a@b.com", "displayName": "A"}]})
    e = new.events[d["id"]]
    tz = prim(s).timeZone
    assert e.summary == "Design sync" and e.location == "Room 1" and e.start.timeZone == tz and e.calendarId == prim(s).id
    assert e.start.dateTime.startswith("2025-03-12T10:00:00") and e.attendees[0].email == "a@b.com"
    # a UTC instant is stored in the calendar's zone; JSON object form; all-day; custom id
    new, d = check_ok(svc, s, "create-event", {**NEW, "start": "2025-03-12T15:00:00Z", "end": json.dumps({"dateTime": "2025-03-12T17:00:00Z"})})
    assert d["start"]["timeZone"] == tz
    new, d = check_ok(svc, s, "create-event", {**NEW, "start": "2025-03-14", "end": "2025-03-15", "eventId": "abc123def"})
    assert d["id"] == "abc123def" and d["start"] == {"date": "2025-03-14"}
    check_err(svc, new, "create-event", {**NEW, "eventId": "abc123def"}, 409, "eventId")

@pytest.mark.parametrize("change,code,arg", [
    ({"calendarId": "nope"}, 404, "calendarId"), ({"calendarId": HOLIDAY_CAL}, 422, "calendarId"),
    ({"summary": ""}, 422, "summary"), ({"eventId": "UPPER_case"}, 422, "eventId"), ({"eventId": "abc"}, 422, "eventId"),
    ({"start": "tomorrow"}, 422, "start"), ({"end": "2025-13-40T10:00:00"}, 422, "end"),
    ({"end": "2025-03-12T09:00:00"}, 422, "end"), ({"end": "2025-03-12T10:00:00"}, 422, "end"),
    ({"end": "2025-03-13"}, 422, "end"), ({"start": '{"when": 1}'}, 422, "start"), ({"start": "{oops"}, 422, "start"),
    ({"timeZone": "Nowhere/Land"}, 422, "timeZone"), ({"attendees": [{"email": "nope"}]}, 422, "attendees"),
    ({"attendees": [{"email": "a@b.co", "x": 1}]}, 422, "attendees"), ({"colorId": "12"}, 422, "colorId"),
    ({"visibility": "secret"}, 400, "visibility")])
def test_create_event_errors(s, change, code, arg):
    check_err(svc, s, "create-event", {**NEW, **change}, code, arg)

def test_create_event_id_clash_with_existing(s):
    s2, d = check_ok(svc, s, "create-event", {**NEW, "eventId": "meeting0001"})
    check_err(svc, s2, "create-event", {**NEW, "calendarId": "Travel", "eventId": "meeting0001"}, 409, "eventId")

def test_update_event(s):
    e = ev(s)
    new, d = check_ok(svc, s, "update-event", {"calendarId": "primary", "eventId": e.id, "summary": "Renamed", "location": "Annex"})
    assert new.events[e.id].summary == "Renamed" and new.events[e.id].location == "Annex" and new.events[e.id].start == e.start
    assert d["updated"] > e.updated
    new, d = check_ok(svc, s, "update-event", {"calendarId": "primary", "eventId": e.id, "end": e.end.dateTime[:19]})
    assert new.events[e.id].end.dateTime == e.end.dateTime

@pytest.mark.parametrize("change,code,arg", [
    ({"calendarId": "nope"}, 404, "calendarId"), ({"eventId": "ev_nope"}, 404, "eventId"), ({"summary": " "}, 422, "summary"),
    ({"summary": None}, 422, "eventId"), ({"start": "2030-01-01T10:00:00"}, 422, "start"), ({"end": "2000-01-01T10:00:00"}, 422, "end"),
    ({"end": "bad"}, 422, "end"), ({"colorId": "0"}, 422, "colorId"), ({"attendees": ["x"]}, 400, "attendees.0")])
def test_update_event_errors(s, change, code, arg):
    args = {k: v for k, v in {"calendarId": "primary", "eventId": ev(s).id, "summary": "X", **change}.items() if v is not None}
    check_err(svc, s, "update-event", args, code, arg)

def test_update_and_delete_read_only_calendar(s):
    h = ev(s, HOLIDAY_CAL) if any(e.calendarId == HOLIDAY_CAL and e.start.dateTime for e in s.events.values()) else \
        next(e for e in s.events.values() if e.calendarId == HOLIDAY_CAL)
    check_err(svc, s, "update-event", {"calendarId": HOLIDAY_CAL, "eventId": h.id, "summary": "x"}, 422, "calendarId")
    check_err(svc, s, "delete-event", {"calendarId": HOLIDAY_CAL, "eventId": h.id}, 422, "calendarId")

def test_delete_event(s):
    e = ev(s)
    new, d = check_ok(svc, s, "delete-event", {"calendarId": "primary", "eventId": e.id, "sendUpdates": "none"})
    assert e.id not in new.events and d["deleted"] == e.id
    check_err(svc, s, "delete-event", {"calendarId": "primary", "eventId": "ev_nope"}, 404, "eventId")
    check_err(svc, s, "delete-event", {"calendarId": "nope", "eventId": e.id}, 404, "calendarId")

def test_colors_and_time(s):
    _, d = check_ok(svc, s, "list-colors", {})
    assert set(d["event"]) == {str(i) for i in range(1, 12)}
    _, d = check_ok(svc, s, "get-current-time", {"timeZone": "UTC"})
    assert d["utc"] == "2025-03-03T09:00:00Z" and d["currentTime"].startswith("2025-03-03T09:00:00") and d["weekday"] == "Monday"
    _, d = check_ok(svc, s, "get-current-time", {})
    assert d["timeZone"] == prim(s).timeZone
    check_err(svc, s, "get-current-time", {"timeZone": "Atlantis"}, 422, "timeZone")

def test_fixture_events_well_formed(s):
    for e in s.events.values():
        assert e.calendarId in s.calendars
        assert (e.start.date is None) == (e.end.date is None)
        a, b = (e.start.dateTime or e.start.date), (e.end.dateTime or e.end.date)
        assert a < b, e
