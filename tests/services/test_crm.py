"crm: every tool's success case and each error it can return."
import pytest
from sample_services.crm import service as svc, STAGES
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def open_deal(s): return next(d for d in s.deals.values() if not d.stage.startswith("closed") and d.contact_id)
def closed_deal(s): return next(d for d in s.deals.values() if d.stage.startswith("closed"))


def test_contacts(s):
    c = next(iter(s.contacts.values()))
    got = check_ok(svc, s, "search_contacts", {"query": c.last_name.upper(), "limit": 100})[1]
    assert c.id in [x["id"] for x in got["items"]]
    keys = [(x["last_name"].lower(), x["first_name"].lower(), x["id"]) for x in got["items"]]
    assert keys == sorted(keys)
    by_co = check_ok(svc, s, "search_contacts", {"company_id": c.company_id, "limit": 100})[1]
    assert by_co["total"] == sum(1 for x in s.contacts.values() if x.company_id == c.company_id)
    d = check_ok(svc, s, "get_contact", {"contact_id": c.id})[1]
    assert d["company"]["id"] == c.company_id and all(not x["stage"].startswith("closed") for x in d["open_deals"])
    new, d = check_ok(svc, s, "create_contact", {"first_name": "Ada", "last_name": "Lovelace", "email": "ADA@Example.com", "company_id": c.company_id})
    assert d["email"] == "ada@example.com" and d["owner"] == s.me and d["lifecycle_stage"] == "lead"
    new2, d2 = check_ok(svc, new, "update_contact", {"contact_id": d["id"], "title": "CTO", "lifecycle_stage": "customer", "email": "ada@lovelace.io"})
    assert (d2["title"], d2["lifecycle_stage"], d2["email"]) == ("CTO", "customer", "ada@lovelace.io")
    for tool, args, code, arg in [("create_contact", {"first_name": "A", "last_name": "B", "email": c.email.upper()}, 409, "email"),
                                  ("create_contact", {"first_name": "A", "last_name": "B", "email": "not-an-email"}, 422, "email"),
                                  ("create_contact", {"first_name": " ", "last_name": "B", "email": "a@b.co"}, 422, "first_name"),
                                  ("create_contact", {"first_name": "A", "last_name": "", "email": "a@b.co"}, 422, "last_name"),
                                  ("create_contact", {"first_name": "A", "last_name": "B", "email": "a@b.co", "company_id": "nope"}, 404, "company_id"),
                                  ("create_contact", {"first_name": "A", "last_name": "B", "email": "a@b.co", "lifecycle_stage": "vip"}, 400, "lifecycle_stage"),
                                  ("update_contact", {"contact_id": c.id}, 422, "contact_id"), ("update_contact", {"contact_id": "nope", "title": "x"}, 404, "contact_id"),
                                  ("update_contact", {"contact_id": c.id, "email": list(s.contacts.values())[1].email}, 409, "email"),
                                  ("update_contact", {"contact_id": c.id, "company_id": "nope"}, 404, "company_id"),
                                  ("get_contact", {"contact_id": "nope"}, 404, "contact_id"), ("search_contacts", {"company_id": "nope"}, 404, "company_id"),
                                  ("search_contacts", {"limit": 0}, 422, "limit"), ("search_contacts", {"cursor": "???"}, 400, "cursor")]:
        check_err(svc, s, tool, args, code, arg)
    new3, _ = check_ok(svc, s, "update_contact", {"contact_id": c.id, "email": c.email})     # its own address is not a clash

def test_companies(s):
    cs = check_ok(svc, s, "list_companies", {"limit": 100})[1]
    assert cs["total"] == 60 and [x["name"].lower() for x in cs["items"]] == sorted(x["name"].lower() for x in cs["items"])
    ind = cs["items"][0]["industry"]
    assert all(x["industry"] == ind for x in check_ok(svc, s, "list_companies", {"industry": ind.upper()})[1]["items"])
    co = next(iter(s.companies.values()))
    d = check_ok(svc, s, "get_company", {"company_id": co.id})[1]
    assert d["contacts"] == sum(1 for x in s.contacts.values() if x.company_id == co.id)
    assert d["open_pipeline"] == round(sum(x.amount for x in s.deals.values() if x.company_id == co.id and not x.stage.startswith("closed")), 2)
    check_err(svc, s, "get_company", {"company_id": "nope"}, 404, "company_id")

def test_deals(s):
    c = next(x for x in s.contacts.values() if x.company_id)
    new, d = check_ok(svc, s, "create_deal", {"name": "Pilot", "company_id": c.company_id, "amount": 1500, "close_date": "2025-04-30", "contact_id": c.id, "stage": "proposal"})
    assert (d["amount"], d["stage"], d["owner"]) == (1500.0, "proposal", s.me)
    new2, d2 = check_ok(svc, new, "update_deal_stage", {"deal_id": d["id"], "stage": "closed_won"})
    assert d2["stage"] == "closed_won" and new2.contacts[c.id].lifecycle_stage == "customer"
    check_err(svc, new2, "update_deal_stage", {"deal_id": d["id"], "stage": "negotiation"}, 409, "deal_id")
    new3, d3 = check_ok(svc, new, "update_deal_stage", {"deal_id": d["id"], "stage": "closed_lost", "lost_reason": "budget"})
    assert d3["lost_reason"] == "budget"
    lst = check_ok(svc, s, "list_deals", {"stage": "proposal", "limit": 100})[1]["items"]
    assert all(x["stage"] == "proposal" for x in lst) and [(x["close_date"], x["id"]) for x in lst] == sorted((x["close_date"], x["id"]) for x in lst)
    other = next(x for x in s.contacts.values() if x.company_id != c.company_id)
    od = open_deal(s)
    for tool, args, code, arg in [("create_deal", {"name": " ", "company_id": c.company_id, "amount": 1, "close_date": "2025-04-30"}, 422, "name"),
                                  ("create_deal", {"name": "x", "company_id": "nope", "amount": 1, "close_date": "2025-04-30"}, 404, "company_id"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": -5, "close_date": "2025-04-30"}, 422, "amount"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": 1, "close_date": "April"}, 422, "close_date"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": 1, "close_date": "2040-01-01"}, 422, "close_date"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": 1, "close_date": "2025-04-30", "contact_id": other.id}, 422, "contact_id"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": 1, "close_date": "2025-04-30", "contact_id": "nope"}, 404, "contact_id"),
                                  ("create_deal", {"name": "x", "company_id": c.company_id, "amount": 1, "close_date": "2025-04-30", "stage": "closed_won"}, 400, "stage"),
                                  ("update_deal_stage", {"deal_id": "nope", "stage": "proposal"}, 404, "deal_id"),
                                  ("update_deal_stage", {"deal_id": od.id, "stage": od.stage}, 409, "stage"),
                                  ("update_deal_stage", {"deal_id": od.id, "stage": "closed_lost"}, 422, "lost_reason"),
                                  ("update_deal_stage", {"deal_id": od.id, "stage": "closed_won" if od.stage != "closed_won" else "proposal", "lost_reason": "x"}, 422, "lost_reason"),
                                  ("update_deal_stage", {"deal_id": closed_deal(s).id, "stage": "proposal"}, 409, "deal_id"),
                                  ("list_deals", {"company_id": "nope"}, 404, "company_id"), ("list_deals", {"stage": "won"}, 400, "stage")]:
        check_err(svc, s, tool, args, code, arg)

def test_activities(s):
    d = open_deal(s)
    new, a = check_ok(svc, s, "log_activity", {"type": "call", "subject": "Intro call", "deal_id": d.id, "contact_id": d.contact_id, "body": "Went well"})
    assert check_ok(svc, new, "list_activities", {"deal_id": d.id, "limit": 1})[1]["items"][0]["id"] == a["id"]
    acts = check_ok(svc, s, "list_activities", {"limit": 100})[1]["items"]
    assert [(x["date"], x["id"]) for x in acts] == sorted(((x["date"], x["id"]) for x in acts), reverse=True)
    other = next(x for x in s.contacts.values() if x.company_id != d.company_id)
    for args, code, arg in [({"type": "note", "subject": " ", "deal_id": d.id}, 422, "subject"), ({"type": "note", "subject": "x"}, 422, "contact_id"),
                            ({"type": "fax", "subject": "x", "deal_id": d.id}, 400, "type"), ({"type": "note", "subject": "x", "contact_id": "nope"}, 404, "contact_id"),
                            ({"type": "note", "subject": "x", "deal_id": "nope"}, 404, "deal_id"),
                            ({"type": "note", "subject": "x", "deal_id": d.id, "contact_id": other.id}, 422, "contact_id")]:
        check_err(svc, s, "log_activity", args, code, arg)
    check_err(svc, s, "list_activities", {"contact_id": "nope"}, 404, "contact_id")
    check_err(svc, s, "list_activities", {"deal_id": "nope"}, 404, "deal_id")
