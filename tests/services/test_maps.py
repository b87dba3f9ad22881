"maps: every tool's success case and error codes; distances, durations and elevations are deterministic."
import pytest
from sample_services.maps import service as svc, SPEED_KMH
from sample_services.world import haversine_km, make_world
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def towns(s): return [p for p in s.places.values() if "locality" in p.types]
def shops(s): return [p for p in s.places.values() if "establishment" in p.types]


@pytest.mark.parametrize("form", ["{label}", "{name}", "{label}, USA", "{name}, {state_name}", "  {lower}  "])
def test_geocode_forms(s, form):
    from sample_services.world import US_STATES
    p = make_world(0).places[2]
    text = form.format(label=p.label, name=p.name, state_name=US_STATES[p.state], lower=p.label.lower())
    _, d = check_ok(svc, s, "maps_geocode", {"address": text})
    assert (d["location"]["lat"], d["location"]["lng"]) == (p.lat, p.lng) and d["formatted_address"] == f"{p.label}, USA"

def test_geocode_business_by_address(s):
    b = shops(s)[0]
    _, d = check_ok(svc, s, "maps_geocode", {"address": b.formatted_address})
    assert d["place_id"] == b.id

@pytest.mark.parametrize("args,code,arg", [({"address": "Atlantis, ZZ"}, 404, "address"), ({"address": " "}, 422, "address")])
def test_geocode_errors(s, args, code, arg):
    check_err(svc, s, "maps_geocode", args, code, arg)

def test_reverse_geocode(s):
    t = towns(s)[0]
    _, d = check_ok(svc, s, "maps_reverse_geocode", {"latitude": t.lat, "longitude": t.lng})
    assert d["place_id"] == t.id and any(c.get("short_name") == t.state for c in d["address_components"])
    check_err(svc, s, "maps_reverse_geocode", {"latitude": 0, "longitude": 0}, 404, "latitude")
    check_err(svc, s, "maps_reverse_geocode", {"latitude": 100, "longitude": 0}, 422, "latitude")
    check_err(svc, s, "maps_reverse_geocode", {"latitude": 10, "longitude": 200}, 422, "longitude")

def test_search_places(s):
    b = shops(s)[0]
    kind = b.types[0]
    _, d = check_ok(svc, s, "maps_search_places", {"query": kind})
    assert d["places"] and all(kind in x["types"] for x in d["places"])
    ratings = [x["rating"] for x in d["places"]]
    assert ratings == sorted(ratings, reverse=True)
    _, d = check_ok(svc, s, "maps_search_places", {"query": kind, "location": {"latitude": b.lat, "longitude": b.lng}, "radius": 5000})
    assert d["places"][0]["place_id"] == b.id
    assert all(haversine_km(b.lat, b.lng, x["location"]["lat"], x["location"]["lng"]) <= 5 for x in d["places"])

@pytest.mark.parametrize("change,code,arg", [({"query": ""}, 422, "query"), ({"radius": 0}, 422, "radius"), ({"radius": 50001}, 422, "radius"),
                                             ({"location": {"lat": 1, "lng": 2}}, 422, "location"),
                                             ({"location": {"latitude": 95, "longitude": 2}}, 422, "location"),
                                             ({"location": "here"}, 400, "location")])
def test_search_places_errors(s, change, code, arg):
    check_err(svc, s, "maps_search_places", {"query": "cafe", **change}, code, arg)

def test_place_details(s):
    b = shops(s)[0]
    _, d = check_ok(svc, s, "maps_place_details", {"place_id": b.id})
    assert d["name"] == b.name and d["formatted_phone_number"] and len(d["opening_hours"]["weekday_text"]) == 7
    check_err(svc, s, "maps_place_details", {"place_id": "pl_nope"}, 404, "place_id")

@pytest.mark.parametrize("mode", ["driving", "walking", "bicycling", "transit"])
def test_distance_matrix(s, mode):
    a, b, c = towns(s)[:3]
    _, d = check_ok(svc, s, "maps_distance_matrix", {"origins": [a.name, f"{a.lat},{a.lng}"], "destinations": [b.formatted_address, c.name], "mode": mode})
    assert len(d["rows"]) == 2 and all(len(r["elements"]) == 2 for r in d["rows"])
    el = d["rows"][0]["elements"][0]
    km = haversine_km(a.lat, a.lng, b.lat, b.lng)
    assert el["distance"]["value"] == round(km * 1000) and d["rows"][1]["elements"][0] == el
    assert el["duration"]["value"] == round(km * 1000 / (SPEED_KMH[mode] / 3.6))
    assert d["origin_addresses"][0] == a.formatted_address

@pytest.mark.parametrize("change,code,arg", [({"origins": []}, 422, "origins"), ({"destinations": ["x"] * 26}, 422, "destinations"),
                                             ({"origins": ["Nowhere Town"]}, 404, "origins"), ({"destinations": ["Nope"]}, 404, "destinations"),
                                             ({"origins": ["95.0,10.0"]}, 422, "origins"), ({"mode": "flying"}, 400, "mode")])
def test_distance_matrix_errors(s, change, code, arg):
    a, b = towns(s)[:2]
    check_err(svc, s, "maps_distance_matrix", {"origins": [a.name], "destinations": [b.name], **change}, code, arg)

def test_elevation_deterministic(s):
    locs = [{"latitude": 40.0, "longitude": -105.0}, {"latitude": 40.00001, "longitude": -105.0}, {"latitude": 12, "longitude": 13}]
    _, d = check_ok(svc, s, "maps_elevation", {"locations": locs})
    e = [r["elevation"] for r in d["results"]]
    assert e[0] == e[1] and e[0] != e[2] and all(0 <= x < 3000 for x in e)        # same 4-decimal point, same elevation
    _, d2 = check_ok(svc, svc.initial_state(0), "maps_elevation", {"locations": locs})
    assert d2 == d
    _, d3 = check_ok(svc, svc.initial_state(1), "maps_elevation", {"locations": locs})
    assert d3 != d                                                                  # seeded

@pytest.mark.parametrize("locs,code,arg", [([], 422, "locations"), ([{"latitude": 1}], 422, "locations"),
                                           ([{"latitude": 91, "longitude": 0}], 422, "locations"),
                                           ([{"latitude": "1", "longitude": 0}], 422, "locations"), ("x", 400, "locations")])
def test_elevation_errors(s, locs, code, arg):
    check_err(svc, s, "maps_elevation", {"locations": locs}, code, arg)

def test_directions(s):
    a, b = towns(s)[:2]
    _, d = check_ok(svc, s, "maps_directions", {"origin": a.label if hasattr(a, "label") else a.name, "destination": b.name, "mode": "walking"})
    r = d["routes"][0]
    assert r["distance"]["value"] == round(haversine_km(a.lat, a.lng, b.lat, b.lng) * 1000)
    assert len(r["steps"]) == 3 and r["end_address"] == b.formatted_address
    assert abs(sum(st["distance"]["value"] for st in r["steps"]) - r["distance"]["value"]) <= 2
    check_err(svc, s, "maps_directions", {"origin": "Nowhere", "destination": b.name}, 404, "origin")
    check_err(svc, s, "maps_directions", {"origin": a.name, "destination": "Nowhere"}, 404, "destination")
    check_err(svc, s, "maps_directions", {"origin": a.name, "destination": a.formatted_address}, 422, "destination")
    check_err(svc, s, "maps_directions", {"origin": a.name, "destination": b.name, "mode": "teleport"}, 400, "mode")
