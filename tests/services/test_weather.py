"weather (the Python quickstart spec): alerts by state, forecasts by coordinates."
import pytest
from sample_services.weather import service as svc, forecast_text
from sample_services.world import make_world
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)


def test_get_alerts(s):
    st = next(iter(s.alerts.values())).state
    _, d = check_ok(svc, s, "get_alerts", {"state": st.lower()})
    assert d and all(set(a) == {"event", "area", "severity", "description", "instructions"} for a in d)
    assert len(d) == sum(a.state == st for a in s.alerts.values())
    quiet = next(c for c in ["WY", "AK", "MT", "SD", "NE", "VT"] if all(a.state != c for a in s.alerts.values()))
    _, d = check_ok(svc, s, "get_alerts", {"state": quiet})
    assert d == []

@pytest.mark.parametrize("args,code,arg", [({"state": "ZZ"}, 422, "state"), ({"state": "California"}, 422, "state"),
                                           ({"state": ""}, 422, "state"), ({"state": 12}, 400, "state"), ({}, 400, "state")])
def test_get_alerts_errors(s, args, code, arg):
    check_err(svc, s, "get_alerts", args, code, arg)

def test_get_forecast_for_every_world_place(s):
    w = make_world(0)
    for p in w.places:
        lat, lng = (float(x) for x in p.coords.split(","))          # the 4-decimal coords fact resolves
        _, d = check_ok(svc, s, "get_forecast", {"latitude": lat, "longitude": lng})
        assert d["place"] == p.label and len(d["periods"]) == 6 and d["periods"][0]["name"] == "Today"
        assert {"name", "temperature", "temperature_unit", "wind_speed", "wind_direction", "detailed_forecast"} <= set(d["periods"][0])
        assert isinstance(d["periods"][0]["temperature"], int)
    f = next(iter(s.forecasts.values()))
    assert forecast_text(f.periods[0]).endswith("°F")

def test_get_forecast_accepts_integers_and_nearby_points(s):
    f = next(iter(s.forecasts.values()))
    _, d = check_ok(svc, s, "get_forecast", {"latitude": f.latitude + 0.05, "longitude": f.longitude - 0.05})
    assert d["place"] == f.place

@pytest.mark.parametrize("args,code,arg", [({"latitude": 91, "longitude": 0}, 422, "latitude"),
                                           ({"latitude": 0, "longitude": -181}, 422, "longitude"),
                                           ({"latitude": 0.0, "longitude": 0.0}, 404, "latitude"),
                                           ({"latitude": "north", "longitude": 0}, 400, "latitude"),
                                           ({"latitude": 40}, 400, "longitude")])
def test_get_forecast_errors(s, args, code, arg):
    check_err(svc, s, "get_forecast", args, code, arg)

def test_forecasts_reasonable(s):
    for f in s.forecasts.values():
        names = [p.name for p in f.periods]
        assert names[:2] == ["Today", "Tonight"] and names[2] == "Tuesday"
        assert all(-20 < p.temperature < 100 for p in f.periods)
        assert all(a.isDaytime != b.isDaytime for a, b in zip(f.periods, f.periods[1:]))
