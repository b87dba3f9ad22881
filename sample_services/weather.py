"""Weather: forecasts per place and active alerts per US state (a stand-in for the US National Weather Service).

Which spec: this service follows the **Python** weather quickstart server (`../shared/specs/mcp/weather-python.json`):
`get_alerts(state)` and `get_forecast(latitude, longitude)` with `number` coordinates and output shaped
like its output schemas (a list of alerts; an object with `periods`). The TypeScript variant
(`weather-typescript.json`) names the same tools with hyphens (`get-alerts`, `get-forecast`); we keep
the Python names because they are valid OpenAI function names as they stand and the Python server's
output schemas are the ones this library mirrors.

A forecast is served for the nearest forecast point within 15 km of the coordinates asked for (else
404, as the real service answers for points it does not cover). Both tools only read.
"""
from __future__ import annotations
import functools, re
from datetime import timedelta
from typing import Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, put
from .world import make_world, iso, haversine_km, service_rng, stable_int, US_STATES

COVER_KM = 15.0


class Period(Record):
    number: int
    name: str                   # "Today", "Tonight", "Tuesday", ...
    startTime: str
    endTime: str
    isDaytime: bool
    temperature: int
    temperature_unit: str = "F"
    wind_speed: str
    wind_direction: str
    short_forecast: str
    detailed_forecast: str


class Forecast(Record):
    id: str
    place: str                  # label of the place the point serves
    latitude: float
    longitude: float
    state: str = ""
    updated: str
    periods: list[Period] = []


class Alert(Record):
    id: str
    state: str                  # two-letter state code
    event: str
    area: str
    severity: str
    description: str
    instructions: str
    onset: str
    expires: str


class WeatherState(State):
    forecasts: dict[str, Forecast] = {}
    alerts: dict[str, Alert] = {}


service = Service("weather", "travel, maps & weather", WeatherState,
                  "Weather forecasts by coordinates and active weather alerts by US state.", spec="weather-python")


def _nearest(s: WeatherState, lat: float, lng: float) -> Optional[Forecast]:
    best, bd = None, COVER_KM
    for f in sorted(scan(s, "forecasts"), key=lambda f: f.id):
        d = haversine_km(lat, lng, f.latitude, f.longitude)
        if d <= bd: best, bd = f, d
    return best

def forecast_text(p: Period) -> str:
    "The short `forecast` fact of a period, e.g. 'Light Rain, 54°F'."
    return f"{p.short_forecast}, {p.temperature}°{p.temperature_unit}"


@service.tool(read_only=True)
def get_alerts(s: WeatherState,
               state: str,  # two-letter US state code, e.g. 'CA' or 'NY'
              ) -> list:
    "Active weather alerts for a US state (an empty list when there are none)."
    code = state.strip().upper()
    if code not in US_STATES: raise ToolError(422, f"state={state!r} is not a two-letter US state code such as 'CA'", "state")
    hits = sorted((a for a in scan(s, "alerts") if a.state == code), key=lambda a: (a.onset, a.id))
    return [{"event": a.event, "area": a.area, "severity": a.severity, "description": a.description,
             "instructions": a.instructions} for a in hits]

@service.tool(read_only=True)
def get_forecast(s: WeatherState,
                 latitude: float,   # latitude in decimal degrees
                 longitude: float,  # longitude in decimal degrees
                ) -> dict:
    "The forecast for a location: the next periods (today, tonight, ...), soonest first."
    if not -90 <= latitude <= 90: raise ToolError(422, f"latitude={latitude!r} must be between -90 and 90", "latitude")
    if not -180 <= longitude <= 180: raise ToolError(422, f"longitude={longitude!r} must be between -180 and 180", "longitude")
    f = _nearest(s, latitude, longitude)
    if f is None:
        raise ToolError(404, f"no forecast point within {COVER_KM:.0f} km of latitude={latitude}, longitude={longitude}", "latitude")
    return {"latitude": f.latitude, "longitude": f.longitude, "place": f.place, "updated": f.updated,
            "periods": [{"name": p.name, "temperature": p.temperature, "temperature_unit": p.temperature_unit,
                         "wind_speed": p.wind_speed, "wind_direction": p.wind_direction, "short_forecast": p.short_forecast,
                         "detailed_forecast": p.detailed_forecast} for p in f.periods]}


# --- fixture ------------------------------------------------------------------------------------
_DAY = ["Sunny", "Mostly Sunny", "Partly Sunny", "Mostly Cloudy", "Cloudy", "Chance Light Rain", "Light Rain",
        "Rain Showers Likely", "Patchy Fog"]
_NIGHT = ["Clear", "Mostly Clear", "Partly Cloudy", "Mostly Cloudy", "Cloudy", "Chance Light Rain", "Light Rain",
          "Rain Showers Likely", "Patchy Fog"]
_DIRS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_ALERTS = [("Wind Advisory", "Moderate", "West winds 25 to 35 mph with gusts up to 55 mph.", "Use extra caution when driving, especially in high-profile vehicles."),
           ("Flood Watch", "Severe", "Heavy rain may cause flooding of rivers, creeks and low-lying areas.", "Monitor later forecasts and be ready to act if flooding develops."),
           ("Winter Storm Warning", "Severe", "Heavy snow expected. Total accumulations of 6 to 10 inches.", "Travel could be very difficult. Keep an emergency kit in your vehicle."),
           ("Red Flag Warning", "Moderate", "Gusty winds and low humidity will create critical fire weather.", "Avoid outdoor burning and anything that could spark a fire."),
           ("Dense Fog Advisory", "Minor", "Visibility one quarter mile or less in dense fog.", "Slow down, use low-beam headlights and leave plenty of distance ahead."),
           ("Freeze Warning", "Moderate", "Sub-freezing temperatures as low as 27 expected.", "Protect tender plants and outdoor pipes."),
           ("High Surf Advisory", "Minor", "Large breaking waves of 10 to 14 feet.", "Stay off jetties and away from the water's edge.")]

def _periods(rng, lat: float) -> list[Period]:
    out = []
    base = 108 - 1.6 * lat                                  # early-March highs fall with latitude
    for k in range(6):
        day = k % 2 == 0
        start = EPOCH.replace(hour=6) + timedelta(hours=12 * k) if k else EPOCH
        end = EPOCH.replace(hour=18) + timedelta(hours=12 * k)
        wd = _WEEKDAYS[(EPOCH.weekday() + k // 2) % 7]
        name = ("Today" if day else "Tonight") if k < 2 else (wd if day else f"{wd} Night")
        temp = round(base + rng.uniform(-6, 6) - (0 if day else 12 + rng.uniform(0, 5)))
        pool = _DAY if day else _NIGHT
        short = rng.choice(pool)
        if temp <= 33 and "Rain" in short: short = short.replace("Light Rain", "Light Snow").replace("Rain Showers", "Snow Showers")
        lo, hi = sorted((rng.randint(0, 15), rng.randint(3, 20)))
        wind = f"{lo} to {hi} mph" if lo != hi else f"{hi} mph"
        wdir = rng.choice(_DIRS)
        detail = f"{short}, with a {'high near' if day else 'low around'} {temp}. {wdir} wind {wind}."
        out.append(Period(number=k + 1, name=name, startTime=iso(start), endTime=iso(end), isDaytime=day, temperature=temp,
                          wind_speed=wind, wind_direction=wdir, short_forecast=short, detailed_forecast=detail))
    return out

@service.fixture
def fixture(seed: int) -> WeatherState:
    "A 6-period forecast for each of the world's 16 places and 8 active alerts across US states."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> WeatherState:
    w, rng = make_world(seed), service_rng("weather", seed)
    s = WeatherState(seed=seed)
    for p in w.places:
        i = s.new_id("fc")
        put(s, "forecasts", i, Forecast(id=i, place=p.label, latitude=p.lat, longitude=p.lng, state=p.state,
                                  updated=iso(EPOCH - timedelta(minutes=47)), periods=_periods(rng, p.lat)))
    states = sorted({p.state for p in w.places})
    others = sorted(set(US_STATES) - set(states))
    for k in range(8):
        st = rng.choice(states) if k < 5 else rng.choice(others)
        event, sev, desc, instr = rng.choice(_ALERTS)
        towns = [p.name for p in w.places if p.state == st]
        area = f"{towns[0]} and surrounding areas" if towns else f"Central {US_STATES[st]}"
        i = s.new_id("al")
        onset = EPOCH - timedelta(hours=rng.randint(1, 12))
        put(s, "alerts", i, Alert(id=i, state=st, event=event, area=area, severity=sev, description=desc, instructions=instr,
                            onset=iso(onset), expires=iso(onset + timedelta(hours=rng.randint(18, 48)))))
    return s


# --- step templates -----------------------------------------------------------------------------
@add_step(service, "forecast", needs=("coords",), reveals=("forecast",))
def forecast_step(ctx, value, want):
    "Read the forecast at the coordinates `value` (planting a forecast point there if none covers them)."
    lat, lng = (float(x) for x in str(value).split(","))
    if _nearest(ctx.state("weather"), lat, lng) is None:
        fid = ctx.plant_id("fc")
        rng = service_rng("weather-plant", stable_int(value))
        periods = _periods(rng, lat)
        def plant(s: WeatherState):
            put(s, "forecasts", fid, Forecast(id=fid, place=str(value), latitude=lat, longitude=lng,
                                        updated=iso(EPOCH - timedelta(minutes=47)), periods=periods))
            return fid
        ctx.plant("weather", plant)
    got = ctx.call("get_forecast", latitude=lat, longitude=lng)
    p = got["periods"][0]
    text = f"{p['short_forecast']}, {p['temperature']}°{p['temperature_unit']}"
    phrase = "today's forecast there"
    if want is None:                    # the answer is one value the observation shows as it is (its `short_forecast`)
        return Visit(f"Check the weather forecast at {ctx.in_phrase} and tell me today's conditions.",
                     reveals=p["short_forecast"], reveals_phrase="today's conditions there", answer=True)
    return Visit(f"Check the weather forecast at {ctx.in_phrase}.", reveals=text, reveals_phrase=phrase)

# A second way in: a place (from any service that reveals one) -> the alerts of its US state.
_STATE = re.compile(r",\s*([A-Z]{2})\s*$")

@add_step(service, "alerts", needs=("place",), reveals=("forecast",))
def alerts_step(ctx, value, want):
    "Read the active alerts for the state of the place `value` ('Tyler, TX' -> TX), planting one when that state has none."
    m = _STATE.search(str(value))
    assert m and m.group(1) in US_STATES, f"place {value!r} does not end in a US state code"
    code = m.group(1)
    if not any(a.state == code for a in ctx.state("weather").alerts.values()):
        aid = ctx.plant_id("al")
        event, sev, desc, instr = ctx.rng.choice(_ALERTS)
        onset = EPOCH - timedelta(hours=ctx.rng.randint(1, 12))
        area = f"{str(value).rsplit(',', 1)[0].strip()} and surrounding areas"
        def plant(s):
            put(s, "alerts", aid, Alert(id=aid, state=code, event=event, area=area, severity=sev, description=desc,
                                          instructions=instr, onset=iso(onset), expires=iso(onset + timedelta(hours=36))))
            return aid
        ctx.plant("weather", plant)
    got = ctx.call("get_alerts", state=code)
    assert got, f"no alert for {code} after planting"
    text = f"{got[0]['event']} ({got[0]['severity']})"
    phrase = "the first active weather alert there"
    if want is None:                    # the answer is one value the observation shows as it is (the alert's `event`)
        return Visit(f"Check the active weather alerts for the state that {ctx.in_phrase} is in and tell me the first one's "
                     f"name.", reveals=got[0]["event"], reveals_phrase="the name of the first active weather alert there", answer=True)
    return Visit(f"Check the active weather alerts for the state that {ctx.in_phrase} is in.", reveals=text, reveals_phrase=phrase)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "forecast")
def forecast_beat(ctx, coords: str) -> dict:
    "Today's forecast at `coords` (`lat,lng`) as the service reports it: `{short, temperature}` (a forecast point is planted where none covers them)."
    lat, lng = (float(x) for x in coords.split(","))
    if _nearest(ctx.state("weather"), lat, lng) is None:
        fid = ctx.plant_id("fc")
        periods = _periods(service_rng("weather-plant", stable_int(coords)), lat)
        def plant(s: WeatherState):
            put(s, "forecasts", fid, Forecast(id=fid, place=coords, latitude=lat, longitude=lng, updated=iso(EPOCH - timedelta(minutes=47)), periods=periods))
        ctx.plant("weather", plant)
    got = ctx.call("get_forecast", latitude=lat, longitude=lng)
    p = got["periods"][0]
    return {"short": p["short_forecast"], "temperature": p["temperature"]}
