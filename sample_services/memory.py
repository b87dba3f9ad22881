"""Memory: a knowledge graph of named entities (with observations) and directed relations between them.

All nine tools of the reference Memory MCP server (`../shared/specs/mcp/memory.json`) with its parameter names
(camelCase: `entityType`, `relationType`, `entityNames`). Entities are identified by name. Lists come back in
a stable order: entities and relations in the order they were created. Creating something that already exists
is skipped (the result lists only what was new); relations must join existing entities; deleting something that
is not there is not an error (the message says how many were removed).
"""
from __future__ import annotations
import functools
from pydantic import BaseModel, ConfigDict, Field
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, entries, has, read, size, writable, put, remove
from .kit import inline_schemas, matches, Query, planted_record_step
from .world import make_world, service_rng, service_faker, reveal_value

__all__ = ["service", "MemoryState", "Entity", "Relation"]


class Entity(Record):
    id: str                      # = name
    name: str
    entityType: str
    observations: list[str] = []


class Relation(Record):
    id: str
    source: str                  # the spec's `from` (a Python keyword)
    to: str
    relationType: str


class MemoryState(State):
    entities: dict[str, Entity] = {}
    relations: dict[str, Relation] = {}


service = Service("memory", "knowledge & files", MemoryState,
                  "A knowledge graph: entities with observations and typed relations between them.", spec="memory")


class EntityIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="The name of the entity")
    entityType: str = Field(description="The type of the entity")
    observations: list[str] = Field(description="An array of observation contents associated with the entity")

class RelationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(alias="from", description="The name of the entity where the relation starts")
    to: str = Field(description="The name of the entity where the relation ends")
    relationType: str = Field(description="The type of the relation")

class ObservationsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entityName: str = Field(description="The name of the entity to add the observations to")
    contents: list[str] = Field(description="An array of observation contents to add")

class DeletionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entityName: str = Field(description="The name of the entity containing the observations")
    observations: list[str] = Field(description="An array of observations to delete")


def _ent(e: Entity) -> dict: return {"name": e.name, "entityType": e.entityType, "observations": list(e.observations)}
def _rel(r: Relation) -> dict: return {"from": r.source, "to": r.to, "relationType": r.relationType}

def _graph(s: MemoryState, names: set | None = None) -> dict:
    ents = [e for e in scan(s, "entities") if names is None or e.name in names]
    keep = {e.name for e in ents}
    rels = [r for r in scan(s, "relations") if names is None or (r.source in keep and r.to in keep)]
    return {"entities": [_ent(e) for e in ents], "relations": [_rel(r) for r in rels]}

def _find_rel(s: MemoryState, src: str, to: str, typ: str) -> str | None:
    return next((k for k, r in entries(s, "relations") if (r.source, r.to, r.relationType) == (src, to, typ)), None)

def _nonempty(v: str, arg: str) -> str:
    if not v.strip(): raise ToolError(422, f"{arg} must not be empty", arg)
    return v


@service.tool
def create_entities(s: MemoryState,
                    entities: list[EntityIn],  # the entities to create (name, entityType, observations)
                   ) -> dict:
    "Create entities; names already in the graph are skipped. Returns the entities that were created."
    seen, out = set(), []
    for i, e in enumerate(entities):
        _nonempty(e.name, f"entities.{i}.name"); _nonempty(e.entityType, f"entities.{i}.entityType")
        if e.name in seen: raise ToolError(422, f"entities lists the name {e.name!r} twice", f"entities.{i}.name")
        seen.add(e.name)
    for e in entities:
        if has(s, "entities", e.name): continue
        put(s, "entities", e.name, Entity(id=e.name, name=e.name, entityType=e.entityType, observations=list(dict.fromkeys(e.observations))))
        out.append(_ent(read(s, "entities", e.name)))
    return {"entities": out}

@service.tool
def create_relations(s: MemoryState,
                     relations: list[RelationIn],  # relations to create, in active voice ('from' works_at 'to')
                    ) -> dict:
    "Create relations between existing entities; relations already present are skipped. Returns the new ones."
    for i, r in enumerate(relations):
        for arg, name in ((f"relations.{i}.from", r.source), (f"relations.{i}.to", r.to)):
            if not has(s, "entities", name): raise ToolError(404, f"no entity named {name!r} ({arg})", arg)
        _nonempty(r.relationType, f"relations.{i}.relationType")
    out = []
    for r in relations:
        if _find_rel(s, r.source, r.to, r.relationType) is not None: continue
        k = s.new_id("rel")
        put(s, "relations", k, Relation(id=k, source=r.source, to=r.to, relationType=r.relationType))
        out.append(_rel(read(s, "relations", k)))
    return {"relations": out}

@service.tool
def add_observations(s: MemoryState,
                     observations: list[ObservationsIn],  # for each entity, the observation texts to add
                    ) -> dict:
    "Add observations to existing entities (texts an entity already has are skipped). Returns what was added per entity."
    for i, o in enumerate(observations):
        if not has(s, "entities", o.entityName):
            raise ToolError(404, f"no entity named {o.entityName!r} (observations.{i}.entityName)", f"observations.{i}.entityName")
        for j, c in enumerate(o.contents): _nonempty(c, f"observations.{i}.contents.{j}")
    res = []
    for o in observations:
        e = writable(s, "entities", o.entityName)
        added = [c for c in dict.fromkeys(o.contents) if c not in e.observations]
        if added: e.observations = e.observations + added
        res.append({"entityName": o.entityName, "addedObservations": added})
    return {"results": res}

@service.tool
def delete_entities(s: MemoryState,
                    entityNames: list[str],  # names of the entities to delete (with every relation that touches them)
                   ) -> dict:
    "Delete entities and every relation to or from them; names not in the graph are ignored."
    gone = [n for n in dict.fromkeys(entityNames) if has(s, "entities", n)]
    for n in gone: remove(s, "entities", n)
    dead = [k for k, r in entries(s, "relations") if r.source in gone or r.to in gone]
    for k in dead: remove(s, "relations", k)
    return {"success": True, "message": f"Deleted {len(gone)} entities and {len(dead)} relations"}

@service.tool
def delete_observations(s: MemoryState,
                        deletions: list[DeletionIn],  # for each entity, the observation texts to remove
                       ) -> dict:
    "Remove observations from entities; entities or texts that are not there are ignored."
    n = 0
    for d in deletions:
        if not has(s, "entities", d.entityName): continue
        e = writable(s, "entities", d.entityName)
        keep = [o for o in e.observations if o not in set(d.observations)]
        if len(keep) != len(e.observations): n += len(e.observations) - len(keep); e.observations = keep
    return {"success": True, "message": f"Deleted {n} observations"}

@service.tool
def delete_relations(s: MemoryState,
                     relations: list[RelationIn],  # the relations to delete (all three fields must match)
                    ) -> dict:
    "Delete relations; relations that are not there are ignored."
    n = 0
    for r in relations:
        k = _find_rel(s, r.source, r.to, r.relationType)
        if k is not None: remove(s, "relations", k); n += 1
    return {"success": True, "message": f"Deleted {n} relations"}

@service.tool(read_only=True)
def read_graph(s: MemoryState) -> dict:
    "The whole graph: every entity and relation, in creation order."
    return _graph(s)

@service.tool(read_only=True)
def search_nodes(s: MemoryState,
                 query: Query,  # words to find in entity names, types and observations (all must occur)
                ) -> dict:
    "Entities whose name, type or observations contain every word of the query, with the relations among them."
    if not query.strip(): raise ToolError(422, "query must not be empty", "query")
    hits = {e.name for e in scan(s, "entities") if matches(query, e.name, e.entityType, *e.observations)}
    return _graph(s, hits)

@service.tool(read_only=True)
def open_nodes(s: MemoryState,
               names: list[str],  # entity names to open; unknown names are skipped
              ) -> dict:
    "The named entities (those that exist) with the relations among them."
    return _graph(s, set(names))

inline_schemas(service)


# --- fixture ------------------------------------------------------------------------------------
_ORGS = ["vendor", "client", "partner"]

@service.fixture
def fixture(seed: int) -> MemoryState:
    "About 200 entities (people, teams, places, projects, companies, tools) and 400 relations about the world."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> MemoryState:
    w, rng, fk = make_world(seed), service_rng("memory", seed), service_faker("memory", seed)
    s = MemoryState(seed=seed)
    def ent(name, typ, obs):
        if not has(s, "entities", name): put(s, "entities", name, Entity(id=name, name=name, entityType=typ, observations=obs))
        return name
    def rel(a, t, b):
        if a != b and _find_rel(s, a, b, t) is None:
            k = s.new_id("rel"); put(s, "relations", k, Relation(id=k, source=a, to=b, relationType=t))
    for p in w.places: ent(p.label, "place", [f"Time zone {p.tz}", f"Coordinates {p.coords}"])
    for t in w.teams: ent(t.name, "team", [f"Team key {t.id}"])
    for p in w.people:
        ent(p.name, "person", [f"Works as {p.title}", f"Email {p.email}", f"Based in {p.home}"])
        rel(p.name, "member_of", w.team(p.team).name); rel(p.name, "lives_in", p.home)
    companies = []
    while len(companies) < 60:
        c = fk.company()
        if has(s, "entities", c): continue
        ent(c, "company", [f"{rng.choice(_ORGS).capitalize()} since {2010 + rng.randint(0, 14)}", fk.catch_phrase()])
        rel(c, "located_in", rng.choice(w.places).label); companies.append(c)
    projects = []
    for topic in w.topics:
        name = topic.title(); ent(name, "project", [f"Status: {rng.choice(['planning', 'active', 'paused', 'shipped'])}", fk.sentence(nb_words=10)])
        projects.append(name)
        rel(rng.choice(w.people).name, "leads", name); rel(name, "owned_by", rng.choice(w.teams).name)
    while size(s, "entities") < 200:
        n = f"{fk.word().capitalize()} {rng.choice(['Service', 'Dashboard', 'Pipeline', 'Library', 'Portal'])}"
        if has(s, "entities", n): continue
        ent(n, "tool", [fk.sentence(nb_words=8)])
        rel(rng.choice(projects), "uses", n); rel(rng.choice(companies), "builds", n)
    people = [p.name for p in w.people]
    while size(s, "relations") < 400:
        a = rng.choice(people)
        kind = rng.random()
        if kind < 0.4: rel(a, "works_with", rng.choice(people))
        elif kind < 0.7: rel(a, "contact_at", rng.choice(companies))
        else: rel(a, "contributes_to", rng.choice(projects))
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code recorded for it in the knowledge graph", "place": "the venue recorded for it in the knowledge graph"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant an entity named `value` whose observation gives the next fact; the agent opens it."
    obs = f"Project code: {nxt}" if kind == "key" else f"Venue: {nxt}"
    def plant(s: MemoryState):
        put(s, "entities", str(value), Entity(id=str(value), name=str(value), entityType="initiative", observations=[obs, "Owner: operations"]))
    ctx.plant("memory", plant)
    got = ctx.call("search_nodes", query=str(value))
    assert any(obs in e["observations"] for e in got["entities"])
    return (f"Look up {ctx.in_phrase} in the knowledge graph and tell me the {what} noted there.",
            f"Look up {ctx.in_phrase} in the knowledge graph and find the {what} noted there.")

@add_step(service, "record", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def record_step(ctx, value, want):
    "Create a new entity whose single observation is `value`."
    name = ctx.label("Fact")
    ctx.call("create_entities", entities=[{"name": name, "entityType": "note", "observations": [str(value)]}])
    crit = [ctx.criterion("entities", {"name": name}, "observations", "contains", str(value)),
            ctx.criterion("entities", {"name": name}, "entityType", "eq", "note")]
    return Visit(f'In the knowledge graph, create an entity named "{name}" of type "note" whose one observation is exactly {ctx.in_phrase}.',
                 criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant an entity named `title` whose observations are the lines of `body`; the reference searches the graph for it."
    lines = [l for l in body.split("\n") if l.strip()]
    def plant(s: MemoryState):
        put(s, "entities", title, Entity(id=title, name=title, entityType="document", observations=lines))
    ctx.plant("memory", plant)
    got = ctx.call("search_nodes", query=title)
    assert any(e["name"] == title for e in got["entities"])
    return {"phrase": f"the note “{title}” in my knowledge base", "where": "my knowledge base"}

doc_beat.spot = lambda ctx, title: {"phrase": "my knowledge base"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Record a new note entity named `title` whose one observation is `text`."
    ctx.call("create_entities", entities=[{"name": title, "entityType": "note", "observations": [text]}])
    return {"collection": "entities", "where": {"name": title}, "field": "observations.0", "reveals": None}

announce_beat.target = lambda ctx: {"phrase": "a note in my knowledge base"}
announce_beat.no_reference = True     # its answer holds no id or link a later message could cite (compoworld_nb.scenario Shape.cites)
