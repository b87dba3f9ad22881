"memory: the knowledge graph; every tool's success case and each error it can return."
import pytest
from sample_services.memory import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def person(s): return next(e for e in s.entities.values() if e.entityType == "person")


def test_fixture_graph(s):
    assert len(s.entities) == 200 and len(s.relations) == 400
    assert all(r.source in s.entities and r.to in s.entities for r in s.relations.values())
    assert len({(r.source, r.to, r.relationType) for r in s.relations.values()}) == 400

def test_create_entities_skips_existing(s):
    p = person(s)
    new, d = check_ok(svc, s, "create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": ["Writes code", "Writes code"]},
                                                               {"name": p.name, "entityType": "person", "observations": []}]})
    assert d == {"entities": [{"name": "Ada", "entityType": "person", "observations": ["Writes code"]}]}
    assert list(new.entities)[-1] == "Ada" and new.entities[p.name] == s.entities[p.name]

@pytest.mark.parametrize("ents,arg", [([{"name": " ", "entityType": "x", "observations": []}], "entities.0.name"),
                                      ([{"name": "A", "entityType": "", "observations": []}], "entities.0.entityType"),
                                      ([{"name": "A", "entityType": "x", "observations": []}, {"name": "A", "entityType": "y", "observations": []}], "entities.1.name")])
def test_create_entities_errors(s, ents, arg):
    check_err(svc, s, "create_entities", {"entities": ents}, 422, arg)
    check_err(svc, s, "create_entities", {"entities": [{"name": "A", "entityType": "x"}]}, 400, "entities.0.observations")

def test_relations(s):
    a, b = list(s.entities)[:2]
    new, d = check_ok(svc, s, "create_relations", {"relations": [{"from": a, "to": b, "relationType": "knows"}]})
    assert d == {"relations": [{"from": a, "to": b, "relationType": "knows"}]}
    new2, d = check_ok(svc, new, "create_relations", {"relations": [{"from": a, "to": b, "relationType": "knows"}]})
    assert d == {"relations": []} and len(new2.relations) == len(new.relations)
    check_err(svc, s, "create_relations", {"relations": [{"from": "Nobody", "to": b, "relationType": "knows"}]}, 404, "relations.0.from")
    check_err(svc, s, "create_relations", {"relations": [{"from": a, "to": "Nobody", "relationType": "knows"}]}, 404, "relations.0.to")
    check_err(svc, s, "create_relations", {"relations": [{"from": a, "to": b, "relationType": " "}]}, 422, "relations.0.relationType")
    check_err(svc, s, "create_relations", {"relations": [{"source": a, "to": b, "relationType": "x"}]}, 400, "relations.0.from")
    new3, d = check_ok(svc, new, "delete_relations", {"relations": [{"from": a, "to": b, "relationType": "knows"}, {"from": a, "to": b, "relationType": "nope"}]})
    assert d == {"success": True, "message": "Deleted 1 relations"} and len(new3.relations) == len(s.relations)

def test_observations(s):
    p = person(s)
    new, d = check_ok(svc, s, "add_observations", {"observations": [{"entityName": p.name, "contents": ["Likes tea", s.entities[p.name].observations[0]]}]})
    assert d == {"results": [{"entityName": p.name, "addedObservations": ["Likes tea"]}]}
    assert new.entities[p.name].observations[-1] == "Likes tea"
    check_err(svc, s, "add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}, 404, "observations.0.entityName")
    check_err(svc, s, "add_observations", {"observations": [{"entityName": p.name, "contents": [" "]}]}, 422, "observations.0.contents.0")
    new2, d = check_ok(svc, new, "delete_observations", {"deletions": [{"entityName": p.name, "observations": ["Likes tea", "never there"]},
                                                                       {"entityName": "Nobody", "observations": ["x"]}]})
    assert d["message"] == "Deleted 1 observations" and new2.entities[p.name] == s.entities[p.name]

def test_delete_entities_cascades(s):
    p = person(s)
    touching = [r for r in s.relations.values() if p.name in (r.source, r.to)]
    new, d = check_ok(svc, s, "delete_entities", {"entityNames": [p.name, "Nobody"]})
    assert d == {"success": True, "message": f"Deleted 1 entities and {len(touching)} relations"}
    assert p.name not in new.entities and not any(p.name in (r.source, r.to) for r in new.relations.values())

def test_reads(s):
    g = check_ok(svc, s, "read_graph", {})[1]
    assert [e["name"] for e in g["entities"]] == list(s.entities) and len(g["relations"]) == 400
    p = person(s)
    hit = check_ok(svc, s, "search_nodes", {"query": p.name.split()[0].upper()})[1]
    assert p.name in [e["name"] for e in hit["entities"]]
    assert all(r["from"] in [e["name"] for e in hit["entities"]] and r["to"] in [e["name"] for e in hit["entities"]] for r in hit["relations"])
    check_err(svc, s, "search_nodes", {"query": " "}, 422, "query")
    team = next(r.to for r in s.relations.values() if r.source == p.name and r.relationType == "member_of")
    o = check_ok(svc, s, "open_nodes", {"names": [p.name, team, "Nobody"]})[1]
    assert [e["name"] for e in o["entities"]] == [n for n in s.entities if n in (p.name, team)]
    assert {"from": p.name, "to": team, "relationType": "member_of"} in o["relations"]
