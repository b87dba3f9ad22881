"""The shared world behind every sample service: people, places, teams, channels and topics for one seed.

`make_world(seed)` draws the same world for the same seed on any day (Faker seeded per world,
places from Faker's US `local_latlng` table, dates only relative to `compoworld_nb.core.EPOCH`).
Every fixture in this package builds on it, so the person who emails you is the person in Slack,
and the venue in a calendar event is a place that maps can geocode and weather can forecast.
"""
from __future__ import annotations
import functools, hashlib, math, random, re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from faker import Faker
from compoworld_nb.core import EPOCH

__all__ = ["Person", "Place", "Team", "World", "make_world", "WINDOW_START", "WINDOW_END", "US_STATES",
           "iso", "parse_iso", "haversine_km", "fmt_coords", "service_rng", "service_faker", "stable_int",
           "reveal_value", "REVEAL_PHRASES"]

WINDOW_START = EPOCH - timedelta(days=90)   # earliest date any fixture uses
WINDOW_END = EPOCH + timedelta(days=90)     # latest date any fixture uses

US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
    "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts",
    "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
    "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico",
    "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma",
    "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
    "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
    "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming"}

# Faker's US `local_latlng` table gives name, lat, lng and tz but no state: the state of each of its
# 161 US entries, written out once (looked up by name; an entry missing here is skipped).
_PLACE_STATE = {
    "Hueytown": "AL", "Vestavia Hills": "AL", "Searcy": "AR", "Belle Glade": "FL", "Clermont": "FL",
    "Deltona": "FL", "Gainesville": "FL", "Kendall": "FL", "Lutz": "FL", "North Lauderdale": "FL",
    "Palm Valley": "FL", "Punta Gorda Isles": "FL", "Sun City Center": "FL", "Venice": "FL", "Acworth": "GA",
    "Dublin": "GA", "Milledgeville": "GA", "Stockbridge": "GA", "Fairview Heights": "IL", "Greenfield": "IN",
    "Hutchinson": "KS", "Covington": "KY", "Murray": "KY", "Estelle": "LA", "Shreveport": "LA",
    "Chillum": "MD", "Fort Washington": "MD", "Middle River": "MD", "Rosedale": "MD", "Woodlawn": "MD",
    "Independence": "MO", "Rolla": "MO", "Greenville": "MS", "Tupelo": "MS", "Fayetteville": "NC",
    "Leland": "NC", "Thomasville": "NC", "Sicklerville": "NJ", "Lebanon": "OH", "Ada": "OK", "Muskogee": "OK",
    "West Chester": "PA", "Lexington": "SC", "Brentwood Estates": "TN", "Jackson": "TN", "Abilene": "TX",
    "Brenham": "TX", "Copperas Cove": "TX", "Fresno": "TX", "Hutto": "TX", "Longview": "TX", "Palestine": "TX",
    "San Juan": "TX", "Tyler": "TX", "Bon Air": "VA", "Front Royal": "VA", "Mechanicsville": "VA",
    "Sterling": "VA", "Martinsburg": "WV", "East Haven": "CT", "New Canaan": "CT", "Waterbury": "CT",
    "Coralville": "IA", "West Des Moines": "IA", "Bourbonnais": "IL", "Crystal Lake": "IL",
    "Evergreen Park": "IL", "Huntley": "IL", "Lower West Side": "IL", "New City": "IL", "Pekin": "IL",
    "South Lawndale": "IL", "Westchester": "IL", "Granger": "IN", "Schererville": "IN", "Boston": "MA",
    "Fitchburg": "MA", "Malden": "MA", "Peabody": "MA", "Taunton": "MA", "Brunswick": "ME", "Canton": "MI",
    "Iron River": "MI", "Port Huron": "MI", "Waverly": "MI", "Columbia Heights": "MN", "Lino Lakes": "MN",
    "Rosemount": "MN", "Grand Forks": "ND", "Keene": "NH", "Dumont": "NJ", "Jersey City": "NJ",
    "Nutley": "NJ", "Scotch Plains": "NJ", "Woodbridge": "NJ", "Brighton Beach": "NY", "Cypress Hills": "NY",
    "Far Rockaway": "NY", "Greenpoint": "NY", "Kensington": "NY", "Massapequa": "NY", "Newburgh": "NY",
    "Port Richmond": "NY", "Scarsdale": "NY", "Utica": "NY", "Yonkers": "NY", "Collinwood": "OH",
    "Lakewood": "OH", "Norwalk": "OH", "Toledo": "OH", "Harrisburg": "PA", "Pottstown": "PA",
    "Middletown": "RI", "Rutland": "VT", "Kaukauna": "WI", "Pleasant Prairie": "WI", "Bridgeport": "CT",
    "Gilbert": "AZ", "Scottsdale": "AZ", "American Canyon": "CA", "Beaumont": "CA", "Camarillo": "CA",
    "Claremont": "CA", "Davis": "CA", "Encinitas": "CA", "Glendale": "CA", "Indio": "CA",
    "Laguna Niguel": "CA", "Lompoc": "CA", "Mira Mesa": "CA", "Norco": "CA", "Palm Desert": "CA",
    "Porterville": "CA", "Riverbank": "CA", "San Gabriel": "CA", "Santa Maria": "CA", "South Whittier": "CA",
    "North Tustin": "CA", "Watsonville": "CA", "Aurora": "CO", "Ken Caryl": "CO", "Carlsbad": "NM",
    "Pahrump": "NV", "Odessa": "TX", "Redding": "CA", "Nampa": "ID", "Aloha": "OR", "Keizer": "OR",
    "Troutdale": "OR", "Kearns": "UT", "Saratoga Springs": "UT", "Bothell": "WA", "Kent": "WA",
    "Opportunity": "WA", "Sunnyside": "WA", "Kahului": "HI", "Morningside Heights": "NY",
    "Gates-North Gates": "NY", "Bryn Mawr-Skyway": "WA", "Bothell West": "WA", "Visitacion Valley": "CA"}

_TEAMS = [("ENG", "Engineering"), ("OPS", "Operations"), ("DES", "Design"), ("MKT", "Marketing"),
          ("SUP", "Customer Support"), ("DAT", "Data")]
_TITLES = {"ENG": ["Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager"],
           "OPS": ["Site Reliability Engineer", "Operations Lead", "IT Administrator"],
           "DES": ["Product Designer", "UX Researcher", "Design Lead"],
           "MKT": ["Marketing Manager", "Content Strategist", "Growth Lead"],
           "SUP": ["Support Specialist", "Customer Success Manager"],
           "DAT": ["Data Analyst", "Data Engineer", "Analytics Lead"]}
_CHANNEL_POOL = ["eng-standup", "design-crit", "ops-alerts", "announcements", "travel", "customer-feedback",
                 "incidents", "hiring", "offsite-planning", "data-questions", "marketing", "releases"]
_TOPICS = ["billing migration", "Q2 roadmap", "vendor onboarding", "pricing page refresh", "mobile checkout",
           "data warehouse cleanup", "SSO rollout", "customer portal", "search relevance", "onboarding emails",
           "analytics dashboard", "API rate limits", "spring offsite", "hiring plan", "security audit",
           "support macros", "partner integration", "design system", "release train", "cost review",
           "holiday campaign", "status page", "iOS release", "contract renewal", "latency budget"]


@dataclass(frozen=True)
class Place:
    "A real US place from Faker's table: what maps geocode and weather forecasts."
    name: str
    state: str      # two-letter state code
    lat: float
    lng: float
    tz: str         # IANA time zone
    @property
    def label(self) -> str: return f"{self.name}, {self.state}"
    @property
    def coords(self) -> str: return fmt_coords(self.lat, self.lng)


@dataclass(frozen=True)
class Person:
    "One colleague (people[0] is the account owner, 'me', in every service)."
    name: str
    first: str
    last: str
    email: str
    slack_id: str
    handle: str
    title: str
    team: str       # team key, e.g. "ENG"
    home: str       # label of a world place


@dataclass(frozen=True)
class Team:
    "A team; its key (\"ENG\") is its id in the issue tracker."
    id: str
    name: str


@dataclass(frozen=True)
class World:
    "Everything the services of one seed agree on."
    seed: int
    company: str
    domain: str
    people: tuple
    places: tuple
    teams: tuple
    channels: tuple
    topics: tuple

    @property
    def me(self) -> Person: return self.people[0]
    @property
    def others(self) -> tuple: return self.people[1:]
    def place(self, text: str) -> Place | None:
        "The place whose label or name is `text` (case-insensitive), else None."
        t = text.strip().lower()
        return next((p for p in self.places if t in (p.label.lower(), p.name.lower())), None)
    def person(self, email: str) -> Person | None:
        return next((p for p in self.people if p.email == email), None)
    def team(self, key: str) -> Team | None:
        return next((t for t in self.teams if t.id == key), None)


def iso(dt: datetime) -> str:
    "ISO-8601 UTC text with a Z, seconds precision."
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

def parse_iso(s: str) -> datetime:
    "Parse ISO-8601 text (a trailing Z allowed); naive results are taken as UTC."
    d = datetime.fromisoformat(s.strip().replace("Z", "+00:00"))
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)

def haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    "Great-circle distance in kilometres."
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(a)))

def fmt_coords(lat: float, lng: float) -> str:
    "The `coords` fact form: 'lat,lng' with 4 decimals."
    return f"{lat:.4f},{lng:.4f}"

def stable_int(*parts) -> int:
    "A stable 64-bit integer from `parts` (independent of PYTHONHASHSEED)."
    return int.from_bytes(hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest(), "big")

def service_rng(service: str, seed: int) -> random.Random:
    "The random source of one service's fixture for `seed`."
    return random.Random(stable_int("fixture", service, seed))

def service_faker(service: str, seed: int) -> Faker:
    "A Faker (en_US) seeded for one service's fixture."
    f = Faker("en_US"); f.seed_instance(stable_int("faker", service, seed) % 2**32); return f


@functools.lru_cache(maxsize=64)
def make_world(seed: int) -> World:
    "The world for `seed`: ~12 people, 16 places, 4 teams, 8 channels, 10 topics (same seed → same world)."
    fk = Faker("en_US"); fk.seed_instance(seed)
    rng = random.Random(stable_int("world", seed))
    company = fk.company()
    domain = re.sub(r"[^a-z]", "", company.split()[0].lower()) + ".com"
    places, seen = [], set()
    while len(places) < 16:
        lat, lng, name, _cc, tz = fk.local_latlng(country_code="US")
        if name in seen or name not in _PLACE_STATE: continue
        seen.add(name); places.append(Place(name, _PLACE_STATE[name], float(lat), float(lng), tz))
    teams = [_TEAMS[0]] + rng.sample(_TEAMS[1:], 3)
    teams = tuple(Team(k, n) for k, n in sorted(teams, key=_TEAMS.index))
    people, emails, ids, names = [], set(), set(), set()
    while len(people) < 12:
        first, last = fk.first_name(), fk.last_name()
        if f"{first} {last}" in names: continue
        names.add(f"{first} {last}")
        local = re.sub(r"[^a-z]", "", first.lower()) + "." + re.sub(r"[^a-z]", "", last.lower())
        email = f"{local}@{domain}"
        n = 2
        while email in emails: email = f"{local}{n}@{domain}"; n += 1
        emails.add(email)
        sid = "U" + fk.bothify("?#??##?#", letters="ABCDEFGHJKLMNPQRSTUVWXYZ")
        while sid in ids: sid = "U" + fk.bothify("?#??##?#", letters="ABCDEFGHJKLMNPQRSTUVWXYZ")
        ids.add(sid)
        team = teams[len(people) % len(teams)].id
        home = places[0] if not people else rng.choice(places)
        people.append(Person(f"{first} {last}", first, last, email, sid, email.split("@")[0],
                             rng.choice(_TITLES[team]), team, home.label))
    channels = ("general", "random") + tuple(rng.sample(_CHANNEL_POOL, 6))
    topics = tuple(rng.sample(_TOPICS, 10))
    return World(seed, company, domain, tuple(people), tuple(places), teams, channels, topics)


# --- helpers shared by the read steps -------------------------------------------------------------
REVEAL_PHRASES = {"key": "the project code", "place": "the venue"}

def reveal_value(ctx, want: str | None, default: str = "place") -> tuple[str, str]:
    "The (kind, value) a read step plants for the next visit: a fresh key or a world place label."
    kind = want or default
    if kind == "key": return kind, ctx.new_key()
    if kind == "place": return kind, ctx.rng.choice(ctx.world.places).label
    raise ValueError(f"cannot reveal a fact of kind {kind!r}")
