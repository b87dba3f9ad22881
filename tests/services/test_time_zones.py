"time: the frozen clock in any IANA zone and conversions; every tool's success and error."
import pytest
from sample_services.time_zones import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def test_get_current_time_uses_the_frozen_clock(s):
    assert check_ok(svc, s, "get_current_time", {"timezone": "UTC"})[1] == {"timezone": "UTC", "datetime": "2025-03-03T09:00:00+00:00",
                                                                             "day_of_week": "Monday", "is_dst": False}
    assert check_ok(svc, s, "get_current_time", {"timezone": "Asia/Tokyo"})[1]["datetime"] == "2025-03-03T18:00:00+09:00"
    s.clock = 30 * 86400                                                         # April 2: New York is on daylight time
    d = check_ok(svc, s, "get_current_time", {"timezone": "America/New_York"})[1]
    assert d["datetime"] == "2025-04-02T05:00:00-04:00" and d["is_dst"] and d["day_of_week"] == "Wednesday"

@pytest.mark.parametrize("src,t,dst,want,diff", [("America/New_York", "16:30", "Asia/Kolkata", "2025-03-04T03:00:00+05:30", "+10.5h"),
                                                 ("Europe/London", "09:00", "America/Los_Angeles", "2025-03-03T01:00:00-08:00", "-8.0h"),
                                                 ("UTC", "0:05", "UTC", "2025-03-03T00:05:00+00:00", "+0.0h"),
                                                 ("Asia/Kathmandu", "12:00", "UTC", "2025-03-03T06:15:00+00:00", "-5.75h")])
def test_convert_time(s, src, t, dst, want, diff):
    d = check_ok(svc, s, "convert_time", {"source_timezone": src, "time": t, "target_timezone": dst})[1]
    assert d["target"]["datetime"] == want and d["time_difference"] == diff

@pytest.mark.parametrize("args,code,arg", [({"timezone": "Mars/Base"}, 404, "timezone"), ({"timezone": "../etc/passwd"}, 400, "timezone"),
                                           ({"timezone": " "}, 400, "timezone"),
                                           ({"timezone": "America"}, 404, "timezone"),          # a zoneinfo directory, not a zone
                                           ({"timezone": "A" * 5000}, 404, "timezone")])         # longer than a file name may be
def test_get_current_time_errors(s, args, code, arg):
    check_err(svc, s, "get_current_time", args, code, arg)

@pytest.mark.parametrize("args,code,arg", [({"time": "24:00"}, 422, "time"), ({"time": "9am"}, 422, "time"), ({"time": "12:60"}, 422, "time"),
                                           ({"source_timezone": "Nope/Nope"}, 404, "source_timezone"), ({"target_timezone": "Nope"}, 404, "target_timezone")])
def test_convert_time_errors(s, args, code, arg):
    check_err(svc, s, "convert_time", {"source_timezone": "UTC", "time": "10:00", "target_timezone": "Europe/Paris", **args}, code, arg)
