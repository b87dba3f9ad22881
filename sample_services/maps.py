"""Google Maps: geocoding, places, distances, directions and elevation over the world's places.

All seven tools of the reference Google Maps MCP server (`../shared/specs/mcp/google-maps.json`) with its
parameter names. Everything is deterministic and offline: places are the world's 16 towns plus a few
businesses in each; distances are great-circle (haversine) distances; durations come from fixed speeds
per mode (driving 70 km/h, transit 35, bicycling 16, walking 5); elevation comes from a hash of the
state's seed and the coordinates rounded to 4 decimals. An origin or destination may be an address,
a place name or 'lat,lng'.
"""
from __future__ import annotations
import functools, math, re
from typing import Literal, Optional
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, read, has, put
from .world import make_world, haversine_km, fmt_coords, service_rng, service_faker, stable_int, US_STATES
from .kit import Query

SPEED_KMH = {"driving": 70.0, "transit": 35.0, "bicycling": 16.0, "walking": 5.0}
_COORDS = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")


class Place(Record):
    id: str                         # place_id
    name: str
    formatted_address: str
    lat: float
    lng: float
    types: list[str] = []
    state: str = ""                 # two-letter state code
    rating: Optional[float] = None
    user_ratings_total: int = 0
    formatted_phone_number: Optional[str] = None
    website: Optional[str] = None
    opening_hours: list[str] = []


class MapsState(State):
    places: dict[str, Place] = {}


service = Service("maps", "travel, maps & weather", MapsState,
                  "Maps: geocode addresses, find places, measure distances and get directions.", spec="google-maps")


# --- helpers ------------------------------------------------------------------------------------
def _norm(text: str) -> str:
    t = " ".join(text.lower().replace(".", "").split())
    for suffix in (", usa", ", us", ", united states"):
        if t.endswith(suffix): t = t[: -len(suffix)]
    return t

def _aliases(p: Place) -> set[str]:
    out = {_norm(p.formatted_address), _norm(p.name)}
    if "locality" in p.types and p.state:
        out |= {_norm(f"{p.name}, {p.state}"), _norm(f"{p.name}, {US_STATES.get(p.state, p.state)}")}
    return out

def _lookup(s: MapsState, address: str) -> Optional[Place]:
    "The place an address names: towns before businesses, exact (normalised) matches only."
    a = _norm(address)
    order = sorted(scan(s, "places"), key=lambda p: ("locality" not in p.types, p.id))
    return next((p for p in order if a in _aliases(p)), None)

def _check_latlng(lat: float, lng: float, arg_lat: str = "latitude", arg_lng: str = "longitude"):
    if not -90 <= lat <= 90: raise ToolError(422, f"{arg_lat}={lat!r} must be between -90 and 90", arg_lat)
    if not -180 <= lng <= 180: raise ToolError(422, f"{arg_lng}={lng!r} must be between -180 and 180", arg_lng)

def _point(s: MapsState, text: str, arg: str) -> tuple[float, float, str]:
    "Resolve 'lat,lng' or an address to (lat, lng, label)."
    m = _COORDS.match(text)
    if m:
        lat, lng = float(m.group(1)), float(m.group(2))
        if not (-90 <= lat <= 90 and -180 <= lng <= 180): raise ToolError(422, f"{arg}: {text!r} is outside the valid coordinate range", arg)
        near = _nearest(s, lat, lng, 25.0)
        return lat, lng, near.formatted_address if near else fmt_coords(lat, lng)
    p = _lookup(s, text)
    if p is None: raise ToolError(404, f"{arg}: no place found for {text!r}", arg)
    return p.lat, p.lng, p.formatted_address

def _nearest(s: MapsState, lat: float, lng: float, within_km: float, towns_only: bool = False) -> Optional[Place]:
    best, bd = None, within_km
    for p in sorted(scan(s, "places"), key=lambda p: p.id):
        if towns_only and "locality" not in p.types: continue
        d = haversine_km(lat, lng, p.lat, p.lng)
        if d <= bd: best, bd = p, d
    return best

def _dist_text(m: float) -> str: return f"{m / 1000:.1f} km" if m >= 1000 else f"{int(m)} m"

def _dur_text(sec: int) -> str:
    mins = max(1, round(sec / 60))
    h, m = divmod(mins, 60)
    return (f"{h} hour{'s' if h > 1 else ''} " if h else "") + (f"{m} min{'s' if m != 1 else ''}" if m or not h else "")

def _leg(lat1, lng1, lat2, lng2, mode: str) -> tuple[int, int]:
    meters = haversine_km(lat1, lng1, lat2, lng2) * 1000
    return round(meters), round(meters / (SPEED_KMH[mode] / 3.6))

def _bearing(lat1, lng1, lat2, lng2) -> str:
    y = math.sin(math.radians(lng2 - lng1)) * math.cos(math.radians(lat2))
    x = math.cos(math.radians(lat1)) * math.sin(math.radians(lat2)) - math.sin(math.radians(lat1)) * math.cos(math.radians(lat2)) * math.cos(math.radians(lng2 - lng1))
    deg = (math.degrees(math.atan2(y, x)) + 360) % 360
    return ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][round(deg / 45) % 8]

def _summary(p: Place) -> dict:
    return {"place_id": p.id, "name": p.name, "formatted_address": p.formatted_address,
            "location": {"lat": p.lat, "lng": p.lng}, "types": list(p.types), "rating": p.rating}

_MODE = Literal["driving", "walking", "bicycling", "transit"]


# --- tools --------------------------------------------------------------------------------------
@service.tool(read_only=True)
def maps_geocode(s: MapsState,
                 address: str,  # address or place name, e.g. 'Boston, MA'
                ) -> dict:
    "Turn an address or place name into coordinates."
    if not address.strip(): raise ToolError(422, "address must not be empty", "address")
    p = _lookup(s, address)
    if p is None: raise ToolError(404, f"no place found for address={address!r}", "address")
    return {"location": {"lat": p.lat, "lng": p.lng}, "formatted_address": p.formatted_address, "place_id": p.id}

@service.tool(read_only=True)
def maps_reverse_geocode(s: MapsState,
                         latitude: float,   # latitude in decimal degrees
                         longitude: float,  # longitude in decimal degrees
                        ) -> dict:
    "Turn coordinates into the address of the nearest known place (within 25 km)."
    _check_latlng(latitude, longitude)
    p = _nearest(s, latitude, longitude, 25.0)
    if p is None: raise ToolError(404, f"no known address near latitude={latitude}, longitude={longitude}", "latitude")
    town = _nearest(s, p.lat, p.lng, 50.0, towns_only=True)
    comps = [{"long_name": p.name, "types": p.types}]
    if town and town.id != p.id: comps.append({"long_name": town.name, "types": ["locality", "political"]})
    if p.state: comps += [{"long_name": US_STATES.get(p.state, p.state), "short_name": p.state, "types": ["administrative_area_level_1", "political"]}]
    comps.append({"long_name": "United States", "short_name": "US", "types": ["country", "political"]})
    return {"formatted_address": p.formatted_address, "place_id": p.id, "address_components": comps}

@service.tool(read_only=True)
def maps_search_places(s: MapsState,
                       query: Query,                      # what to look for, e.g. 'coffee' or 'hotel Boston'
                       location: Optional[dict] = None,   # center of the search: {"latitude": .., "longitude": ..}
                       radius: Optional[float] = None,    # search radius in meters around location (1-50000; default 50000)
                      ) -> dict:
    "Find places whose name, type or address matches every word of a query, optionally near a point."
    words = _norm(query).replace(",", " ").split()
    if not words: raise ToolError(422, "query must not be empty", "query")
    if radius is not None and not 0 < radius <= 50000: raise ToolError(422, f"radius={radius!r} must be between 1 and 50000 meters", "radius")
    center = None
    if location is not None:
        lat, lng = location.get("latitude"), location.get("longitude")
        if set(location) - {"latitude", "longitude"} or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lat, lng)):
            raise ToolError(422, f"location={location!r} must be an object with numeric latitude and longitude", "location")
        if not (-90 <= lat <= 90 and -180 <= lng <= 180): raise ToolError(422, f"location={location!r} is outside the valid range", "location")
        center = (lat, lng)
    hits = []
    for p in scan(s, "places"):
        hay = _norm(f"{p.name} {p.formatted_address} {' '.join(p.types)}").replace(",", " ")
        if not all(w in hay for w in words): continue
        d = haversine_km(center[0], center[1], p.lat, p.lng) * 1000 if center else None
        if center and d > (radius or 50000): continue
        hits.append((d if center else -(p.rating or 0), p.id, p))
    hits.sort(key=lambda t: (t[0], t[1]))
    return {"places": [_summary(p) for *_, p in hits[:20]]}

@service.tool(read_only=True)
def maps_place_details(s: MapsState,
                       place_id: str,  # id of the place
                      ) -> dict:
    "Full details of one place: address, phone, website, rating and opening hours."
    if not has(s, "places", place_id): raise ToolError(404, f"no place with place_id={place_id!r}", "place_id")
    p = read(s, "places", place_id)
    return {**_summary(p), "formatted_phone_number": p.formatted_phone_number, "website": p.website,
            "user_ratings_total": p.user_ratings_total, "opening_hours": {"weekday_text": list(p.opening_hours)}}

@service.tool(read_only=True)
def maps_distance_matrix(s: MapsState,
                         origins: list[str],        # origin addresses or 'lat,lng' (1-25)
                         destinations: list[str],   # destination addresses or 'lat,lng' (1-25)
                         mode: _MODE = "driving",   # travel mode
                        ) -> dict:
    "Distance and travel time from every origin to every destination."
    for arg, xs in (("origins", origins), ("destinations", destinations)):
        if not 1 <= len(xs) <= 25: raise ToolError(422, f"{arg} must hold 1 to 25 entries, got {len(xs)}", arg)
    o = [_point(s, x, "origins") for x in origins]
    d = [_point(s, x, "destinations") for x in destinations]
    rows = []
    for a in o:
        els = []
        for b in d:
            m, sec = _leg(a[0], a[1], b[0], b[1], mode)
            els.append({"status": "OK", "distance": {"value": m, "text": _dist_text(m)}, "duration": {"value": sec, "text": _dur_text(sec)}})
        rows.append({"elements": els})
    return {"origin_addresses": [a[2] for a in o], "destination_addresses": [b[2] for b in d], "rows": rows, "mode": mode}

@service.tool(read_only=True)
def maps_elevation(s: MapsState,
                   locations: list[dict],  # points as {"latitude": .., "longitude": ..} (1-512)
                  ) -> dict:
    "Elevation in meters above sea level at each point."
    if not 1 <= len(locations) <= 512: raise ToolError(422, f"locations must hold 1 to 512 points, got {len(locations)}", "locations")
    out = []
    for loc in locations:
        lat, lng = loc.get("latitude"), loc.get("longitude")
        if set(loc) - {"latitude", "longitude"} or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lat, lng)):
            raise ToolError(422, f"locations: {loc!r} must be an object with numeric latitude and longitude", "locations")
        if not (-90 <= lat <= 90 and -180 <= lng <= 180): raise ToolError(422, f"locations: {loc!r} is outside the valid range", "locations")
        h = stable_int("elevation", s.seed, f"{lat:.4f}", f"{lng:.4f}")
        out.append({"elevation": round((h % 300000) / 100, 1), "location": {"lat": lat, "lng": lng}, "resolution": 30.0})
    return {"results": out}

@service.tool(read_only=True)
def maps_directions(s: MapsState,
                    origin: str,              # start address or 'lat,lng'
                    destination: str,         # end address or 'lat,lng'
                    mode: _MODE = "driving",  # travel mode
                   ) -> dict:
    "A route between two points with distance, duration and turn-by-turn steps."
    a, b = _point(s, origin, "origin"), _point(s, destination, "destination")
    m, sec = _leg(a[0], a[1], b[0], b[1], mode)
    if m == 0: raise ToolError(422, f"origin={origin!r} and destination={destination!r} are the same point", "destination")
    head = _bearing(a[0], a[1], b[0], b[1])
    parts = [(0.1, f"Head {head} from {a[2]}"), (0.8, f"Continue {head} toward {b[2]}"), (0.1, f"Arrive at {b[2]}")]
    steps = [{"instruction": t, "distance": {"value": round(m * f), "text": _dist_text(m * f)},
              "duration": {"value": round(sec * f), "text": _dur_text(round(sec * f))}} for f, t in parts]
    return {"routes": [{"summary": f"{mode} {head}", "start_address": a[2], "end_address": b[2],
                        "distance": {"value": m, "text": _dist_text(m)}, "duration": {"value": sec, "text": _dur_text(sec)},
                        "steps": steps}], "mode": mode}


# --- fixture ------------------------------------------------------------------------------------
_KINDS = [("restaurant", "{last}'s Kitchen"), ("cafe", "{word} Coffee"), ("lodging", "{town} Inn"), ("park", "{last} Park"),
          ("museum", "{town} History Museum"), ("gym", "{word} Fitness"), ("library", "{town} Public Library"),
          ("bakery", "{word} Bakery")]
_WORDS = ["Blue Door", "Maple", "Harbor", "Copper", "Summit", "Lantern", "Juniper", "Granite", "Sunrise", "Riverside"]

@service.fixture
def fixture(seed: int) -> MapsState:
    "The world's 16 towns plus 4 businesses in each (80 places)."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> MapsState:
    w, rng, fk = make_world(seed), service_rng("maps", seed), service_faker("maps", seed)
    s = MapsState(seed=seed)
    for t in w.places:
        i = s.new_id("pl")
        put(s, "places", i, Place(id=i, name=t.name, formatted_address=f"{t.name}, {t.state}, USA", lat=t.lat, lng=t.lng,
                            types=["locality", "political"], state=t.state))
    for t in w.places:
        for kind, pattern in rng.sample(_KINDS, 4):
            i = s.new_id("pl")
            name = pattern.format(last=fk.last_name(), word=rng.choice(_WORDS), town=t.name)
            lat, lng = round(t.lat + rng.uniform(-0.03, 0.03), 5), round(t.lng + rng.uniform(-0.03, 0.03), 5)
            put(s, "places", i, Place(id=i, name=name, formatted_address=f"{fk.building_number()} {fk.street_name()}, {t.name}, {t.state} {fk.zipcode()}, USA",
                                lat=lat, lng=lng, types=[kind, "point_of_interest", "establishment"], state=t.state,
                                rating=round(rng.uniform(3.4, 4.9), 1), user_ratings_total=rng.randint(5, 2400),
                                formatted_phone_number=fk.numerify("(###) ###-####"),
                                website=f"https://www.{re.sub(r'[^a-z]', '', name.lower())}.com",
                                opening_hours=[f"{d}: {'7:00 AM – 6:00 PM' if kind in ('cafe', 'bakery') else '9:00 AM – 9:00 PM'}"
                                               for d in ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]]))
    return s


# --- step templates -----------------------------------------------------------------------------
@add_step(service, "geocode", needs=("place",), reveals=("coords",))
def geocode_step(ctx, value, want):
    "Look up the coordinates of the place `value` (planting it when the map does not know it)."
    if _lookup(ctx.state("maps"), str(value)) is None:
        wp = ctx.world.place(str(value))
        h = stable_int("plant-place", value)
        lat, lng = (wp.lat, wp.lng) if wp else (round(30 + (h % 1500) / 100, 5), round(-120 + (h // 1500 % 3800) / 100, 5))
        pid = ctx.plant_id("pl")
        def plant(s: MapsState):
            put(s, "places", pid, Place(id=pid, name=str(value), formatted_address=f"{value}, USA", lat=lat, lng=lng, types=["locality", "political"]))
            return pid
        ctx.plant("maps", plant)
    got = ctx.call("maps_geocode", address=str(value))
    coords = fmt_coords(got["location"]["lat"], got["location"]["lng"])
    phrase = "those coordinates"
    if want is None:                    # the answer is one value the observation shows (the latitude, to the `coords` precision)
        return Visit(f"Look up the map coordinates of {ctx.in_phrase} and tell me its latitude to 4 decimals.",
                     reveals=f"{got['location']['lat']:.4f}", reveals_phrase="its latitude", answer=True)
    return Visit(f"Look up the map coordinates of {ctx.in_phrase}.", reveals=coords, reveals_phrase=phrase)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "geocode")
def geocode_beat(ctx, place: str) -> str:
    "The coordinates (`lat,lng`, 4 decimals) the map gives for `place` (planting it when the map does not know it)."
    if _lookup(ctx.state("maps"), place) is None:
        wp = ctx.world.place(place)
        h = stable_int("plant-place", place)
        lat, lng = (wp.lat, wp.lng) if wp else (round(30 + (h % 1500) / 100, 5), round(-120 + (h // 1500 % 3800) / 100, 5))
        pid = ctx.plant_id("pl")
        def plant(s: MapsState):
            put(s, "places", pid, Place(id=pid, name=place, formatted_address=f"{place}, USA", lat=lat, lng=lng, types=["locality", "political"]))
        ctx.plant("maps", plant)
    got = ctx.call("maps_geocode", address=place)
    return fmt_coords(got["location"]["lat"], got["location"]["lng"])
