"""CRM: companies, contacts, deals moving through a sales pipeline, and the activities logged against them.

No public MCP spec was given for a CRM, so the interface is our own, in the style of common CRM APIs (snake_case,
ids as strings, ISO dates). Lists are paged with an opaque `cursor` (`next_cursor` names the last item of a
page, so a cursor always advances and the pages' union is the whole list) and have a documented stable order.

Rules the service enforces: contact emails are unique (409); a deal's amount is >= 0; a closed deal
(`closed_won`/`closed_lost`) cannot change stage (409); losing a deal needs a `lost_reason`; an activity is logged
against a contact or a deal (or both, if the contact belongs to the deal's company).
"""
from __future__ import annotations
import functools, re
from datetime import date, timedelta
from typing import Literal, Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, find, scan, size, writable, put
from .kit import cursor_page, matches, Query, planted_record_step
from .world import make_world, service_rng, service_faker, reveal_value, iso

__all__ = ["service", "CrmState", "STAGES"]

STAGES = ("prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost")
LIFECYCLE = ("lead", "marketing_qualified", "sales_qualified", "customer", "churned")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


class Company(Record):
    id: str
    name: str
    domain: str
    industry: str
    city: str                    # a world place label, "City, ST"
    employees: int

class Contact(Record):
    id: str
    first_name: str
    last_name: str
    email: str
    phone: str = ""
    title: str = ""
    company_id: Optional[str] = None
    owner: str                   # email of the sales rep
    lifecycle_stage: Literal[LIFECYCLE] = "lead"
    created_at: str
    updated_at: str

class Deal(Record):
    id: str
    name: str
    company_id: str
    contact_id: Optional[str] = None
    amount: float
    stage: Literal[STAGES] = "prospecting"
    close_date: str              # YYYY-MM-DD
    owner: str
    notes: str = ""
    lost_reason: Optional[str] = None
    created_at: str
    updated_at: str

class Activity(Record):
    id: str
    type: Literal["call", "email", "meeting", "note"]
    subject: str
    body: str = ""
    contact_id: Optional[str] = None
    deal_id: Optional[str] = None
    owner: str
    date: str


class CrmState(State):
    me: str = ""                 # the sales rep using the CRM (an email)
    companies: dict[str, Company] = {}
    contacts: dict[str, Contact] = {}
    deals: dict[str, Deal] = {}
    activities: dict[str, Activity] = {}


service = Service("crm", "sales, marketing & CRM", CrmState,
                  "A sales CRM: companies, contacts, a deal pipeline and logged activities.", spec=None)


# --- helpers --------------------------------------------------------------------------------------

def _page(items: list, key, cursor, limit) -> dict:
    page, nxt = cursor_page(items, key, limit, cursor)
    return {"items": [x.model_dump() for x in page], "next_cursor": nxt, "total": len(items)}

def _email(s: CrmState, email: str, skip: Optional[str] = None) -> str:
    e = email.strip().lower()
    if not _EMAIL.match(e): raise ToolError(422, f"email={email!r} is not a valid address", "email")
    clash = next((c for c in scan(s, "contacts") if c.email == e and c.id != skip), None)
    if clash: raise ToolError(409, f"email={e!r} already belongs to contact {clash.id}", "email")
    return e

def _day(v: str, arg: str) -> str:
    try: d = date.fromisoformat(v.strip())
    except ValueError: raise ToolError(422, f"{arg}={v!r} is not a date YYYY-MM-DD", arg) from None
    if not date(2020, 1, 1) <= d <= date(2030, 12, 31): raise ToolError(422, f"{arg}={v!r} is outside 2020-2030", arg)
    return d.isoformat()


# --- contacts -------------------------------------------------------------------------------------
@service.tool(read_only=True)
def search_contacts(s: CrmState,
                    query: Query = "",                  # words to find in name, email, title (all must occur); empty = all
                    company_id: Optional[str] = None,   # only contacts of this company
                    lifecycle_stage: Optional[Literal[LIFECYCLE]] = None,  # only contacts at this stage
                    cursor: Optional[str] = None,       # next_cursor of the previous page
                    limit: int = 20,                    # page size (1-100)
                   ) -> dict:
    "Find contacts; sorted by last name, first name, then id."
    if company_id is not None: find(s, "companies", company_id, "company", "company_id")
    cs = [c for c in scan(s, "contacts") if (company_id is None or c.company_id == company_id)
          and (lifecycle_stage is None or c.lifecycle_stage == lifecycle_stage) and matches(query, c.first_name, c.last_name, c.email, c.title)]
    key = lambda c: (c.last_name.lower(), c.first_name.lower(), c.id)
    return _page(sorted(cs, key=key), key, cursor, limit)

@service.tool(read_only=True)
def get_contact(s: CrmState,
                contact_id: str,  # the contact's id
               ) -> dict:
    "A contact with its company and its open deals."
    c = find(s, "contacts", contact_id, "contact", "contact_id")
    comp = read(s, "companies", c.company_id) if c.company_id else None
    deals = [d.model_dump() for d in scan(s, "deals") if d.contact_id == c.id and not d.stage.startswith("closed")]
    return {**c.model_dump(), "company": comp.model_dump() if comp else None, "open_deals": deals}

@service.tool
def create_contact(s: CrmState,
                   first_name: str,                   # given name
                   last_name: str,                    # family name
                   email: str,                        # email address (unique)
                   company_id: Optional[str] = None,  # the contact's company
                   title: Optional[str] = None,       # job title
                   phone: Optional[str] = None,       # phone number
                   lifecycle_stage: Literal[LIFECYCLE] = "lead",  # where the contact is in the funnel
                  ) -> dict:
    "Add a contact, owned by you."
    for n, v in (("first_name", first_name), ("last_name", last_name)):
        if not v.strip(): raise ToolError(422, f"{n} must not be empty", n)
    e = _email(s, email)
    if company_id is not None: find(s, "companies", company_id, "company", "company_id")
    i = s.new_id("ct"); now = s.tick()
    put(s, "contacts", i, Contact(id=i, first_name=first_name.strip(), last_name=last_name.strip(), email=e, phone=phone or "", title=title or "",
                            company_id=company_id, owner=s.me, lifecycle_stage=lifecycle_stage, created_at=now, updated_at=now))
    return read(s, "contacts", i).model_dump()

@service.tool
def update_contact(s: CrmState,
                   contact_id: str,                        # the contact to change
                   email: Optional[str] = None,            # new email (unique)
                   title: Optional[str] = None,            # new job title
                   phone: Optional[str] = None,            # new phone number
                   company_id: Optional[str] = None,       # move to this company
                   lifecycle_stage: Optional[Literal[LIFECYCLE]] = None,  # new funnel stage
                  ) -> dict:
    "Change a contact's details."
    c = find(s, "contacts", contact_id, "contact", "contact_id")
    if all(v is None for v in (email, title, phone, company_id, lifecycle_stage)): raise ToolError(422, "nothing to change", "contact_id")
    e = _email(s, email, skip=c.id) if email is not None else None
    if company_id is not None: find(s, "companies", company_id, "company", "company_id")
    c = writable(s, "contacts", c.id)
    if e is not None: c.email = e
    if title is not None: c.title = title
    if phone is not None: c.phone = phone
    if company_id is not None: c.company_id = company_id
    if lifecycle_stage is not None: c.lifecycle_stage = lifecycle_stage
    c.updated_at = s.tick()
    return c.model_dump()


# --- companies ------------------------------------------------------------------------------------
@service.tool(read_only=True)
def list_companies(s: CrmState,
                   industry: Optional[str] = None,  # only this industry (case-insensitive)
                   query: Query = "",               # words to find in name, domain or city
                   cursor: Optional[str] = None,    # next_cursor of the previous page
                   limit: int = 20,                 # page size (1-100)
                  ) -> dict:
    "Companies, sorted by name then id."
    cs = [c for c in scan(s, "companies") if (industry is None or c.industry.lower() == industry.lower()) and matches(query, c.name, c.domain, c.city)]
    key = lambda c: (c.name.lower(), c.id)
    return _page(sorted(cs, key=key), key, cursor, limit)

@service.tool(read_only=True)
def get_company(s: CrmState,
                company_id: str,  # the company's id
               ) -> dict:
    "A company with its contact count and pipeline value (open deals)."
    c = find(s, "companies", company_id, "company", "company_id")
    deals = [d for d in scan(s, "deals") if d.company_id == c.id]
    return {**c.model_dump(), "contacts": sum(1 for x in scan(s, "contacts") if x.company_id == c.id),
            "open_pipeline": round(sum(d.amount for d in deals if not d.stage.startswith("closed")), 2),
            "won": round(sum(d.amount for d in deals if d.stage == "closed_won"), 2)}


# --- deals ----------------------------------------------------------------------------------------
@service.tool(read_only=True)
def list_deals(s: CrmState,
               stage: Optional[Literal[STAGES]] = None,  # only deals at this stage
               owner: Optional[str] = None,       # only deals of this rep (email)
               company_id: Optional[str] = None,  # only this company's deals
               query: Query = "",                 # words to find in the deal name or notes
               cursor: Optional[str] = None,      # next_cursor of the previous page
               limit: int = 20,                   # page size (1-100)
              ) -> dict:
    "Deals, sorted by close date then id."
    if company_id is not None: find(s, "companies", company_id, "company", "company_id")
    ds = [d for d in scan(s, "deals") if (stage is None or d.stage == stage) and (owner is None or d.owner == owner.lower())
          and (company_id is None or d.company_id == company_id) and matches(query, d.name, d.notes)]
    key = lambda d: (d.close_date, d.id)
    return _page(sorted(ds, key=key), key, cursor, limit)

@service.tool
def create_deal(s: CrmState,
                name: str,                        # deal name
                company_id: str,                  # the buying company
                amount: float,                    # expected value in USD (>= 0)
                close_date: str,                  # expected close date YYYY-MM-DD
                stage: Literal["prospecting", "qualification", "proposal", "negotiation"] = "prospecting",  # starting stage
                contact_id: Optional[str] = None, # main contact (must work at the company)
                notes: Optional[str] = None,      # free text
               ) -> dict:
    "Open a deal in the pipeline, owned by you."
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    comp = find(s, "companies", company_id, "company", "company_id")
    if amount < 0: raise ToolError(422, f"amount must be >= 0, got {amount}", "amount")
    cd = _day(close_date, "close_date")
    if contact_id is not None:
        c = find(s, "contacts", contact_id, "contact", "contact_id")
        if c.company_id != comp.id: raise ToolError(422, f"contact {contact_id} does not work at company {company_id}", "contact_id")
    i = s.new_id("deal"); now = s.tick()
    put(s, "deals", i, Deal(id=i, name=name.strip(), company_id=comp.id, contact_id=contact_id, amount=round(float(amount), 2), stage=stage,
                      close_date=cd, owner=s.me, notes=notes or "", created_at=now, updated_at=now))
    return read(s, "deals", i).model_dump()

@service.tool
def update_deal_stage(s: CrmState,
                      deal_id: str,                      # the deal
                      stage: Literal[STAGES],            # its new stage
                      lost_reason: Optional[str] = None, # required when the stage is closed_lost
                     ) -> dict:
    "Move a deal to another pipeline stage; closed deals stay closed."
    d = find(s, "deals", deal_id, "deal", "deal_id")
    if d.stage.startswith("closed"): raise ToolError(409, f"deal {deal_id} is already {d.stage}", "deal_id")
    if d.stage == stage: raise ToolError(409, f"deal {deal_id} is already at {stage}", "stage")
    if stage == "closed_lost" and not (lost_reason or "").strip(): raise ToolError(422, "lost_reason is required to close a deal as lost", "lost_reason")
    if stage != "closed_lost" and lost_reason is not None: raise ToolError(422, "lost_reason only applies to closed_lost", "lost_reason")
    d = writable(s, "deals", d.id)
    d.stage, d.lost_reason, d.updated_at = stage, lost_reason, s.tick()
    if stage == "closed_won" and d.contact_id:
        c = writable(s, "contacts", d.contact_id); c.lifecycle_stage = "customer"; c.updated_at = s.now()
    return d.model_dump()


# --- activities -----------------------------------------------------------------------------------
@service.tool
def log_activity(s: CrmState,
                 type: Literal["call", "email", "meeting", "note"],  # kind of activity
                 subject: str,                     # one-line summary
                 body: Optional[str] = None,       # details
                 contact_id: Optional[str] = None, # the contact it concerns
                 deal_id: Optional[str] = None,    # the deal it concerns
                ) -> dict:
    "Log a call, email, meeting or note against a contact and/or a deal."
    if not subject.strip(): raise ToolError(422, "subject must not be empty", "subject")
    if contact_id is None and deal_id is None: raise ToolError(422, "give contact_id or deal_id (or both)", "contact_id")
    c = find(s, "contacts", contact_id, "contact", "contact_id") if contact_id else None
    d = find(s, "deals", deal_id, "deal", "deal_id") if deal_id else None
    if c and d and c.company_id != d.company_id: raise ToolError(422, f"contact {contact_id} is not at the company of deal {deal_id}", "contact_id")
    i = s.new_id("act")
    put(s, "activities", i, Activity(id=i, type=type, subject=subject.strip(), body=body or "", contact_id=contact_id, deal_id=deal_id, owner=s.me, date=s.tick()))
    return read(s, "activities", i).model_dump()

@service.tool(read_only=True)
def list_activities(s: CrmState,
                    contact_id: Optional[str] = None,  # only activities about this contact
                    deal_id: Optional[str] = None,     # only activities about this deal
                    cursor: Optional[str] = None,      # next_cursor of the previous page
                    limit: int = 20,                   # page size (1-100)
                   ) -> dict:
    "Activities, newest first (ties by id)."
    if contact_id is not None: find(s, "contacts", contact_id, "contact", "contact_id")
    if deal_id is not None: find(s, "deals", deal_id, "deal", "deal_id")
    acts = [a for a in scan(s, "activities") if (contact_id is None or a.contact_id == contact_id) and (deal_id is None or a.deal_id == deal_id)]
    key = lambda a: (a.date, a.id)
    page, nxt = cursor_page(sorted(acts, key=key, reverse=True), key, limit, cursor, descending=True)
    return {"items": [a.model_dump() for a in page], "next_cursor": nxt, "total": len(acts)}


# --- fixture ------------------------------------------------------------------------------------
_INDUSTRIES = ["Software", "Healthcare", "Retail", "Manufacturing", "Education", "Logistics", "Finance", "Media"]
_DEALS = ["{c} annual license", "{c} expansion", "{c} renewal", "{c} pilot", "{c} onboarding package", "{c} enterprise upgrade"]

@service.fixture
def fixture(seed: int) -> CrmState:
    "60 companies, 250 contacts, 120 deals across the pipeline, 300 activities (dates within the 90 days around EPOCH)."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> CrmState:
    w, rng, fk = make_world(seed), service_rng("crm", seed), service_faker("crm", seed)
    s = CrmState(seed=seed, me=w.me.email)
    reps = [w.me.email] + [p.email for p in w.people if p.team in ("MKT", "SUP")] or [w.me.email]
    def when(lo, hi): return iso(EPOCH - timedelta(minutes=rng.randint(lo * 1440, hi * 1440)))
    names = set()
    while size(s, "companies") < 60:
        n = fk.company()
        if n in names: continue
        names.add(n)
        i = f"co_{size(s, 'companies') + 1:03d}"
        dom = re.sub(r"[^a-z]", "", n.split()[0].lower()) + rng.choice([".com", ".io", ".co"])
        put(s, "companies", i, Company(id=i, name=n, domain=dom, industry=rng.choice(_INDUSTRIES), city=rng.choice(w.places).label, employees=rng.choice([12, 40, 85, 200, 650, 1800, 5200])))
    comps = list(scan(s, "companies"))
    emails = set()
    while size(s, "contacts") < 250:
        f, l = fk.first_name(), fk.last_name()
        comp = rng.choice(comps)
        e = f"{re.sub(r'[^a-z]', '', f.lower())}.{re.sub(r'[^a-z]', '', l.lower())}@{comp.domain}"
        if e in emails: continue
        emails.add(e)
        i = f"ct_{size(s, 'contacts') + 1:04d}"
        t0 = when(30, 88); t1 = max(t0, when(0, 30))
        put(s, "contacts", i, Contact(id=i, first_name=f, last_name=l, email=e, phone=fk.numerify("(###) ###-####"), title=fk.job(), company_id=comp.id,
                                owner=rng.choice(reps), lifecycle_stage=rng.choice(LIFECYCLE), created_at=t0, updated_at=t1))
    contacts = list(scan(s, "contacts"))
    for k in range(120):
        c = rng.choice(contacts); comp = read(s, "companies", c.company_id)
        st = rng.choice(STAGES)
        t0 = when(20, 88); t1 = max(t0, when(0, 20))
        i = f"deal_{k + 1:04d}"
        put(s, "deals", i, Deal(id=i, name=rng.choice(_DEALS).format(c=comp.name), company_id=comp.id, contact_id=c.id, amount=float(rng.randint(20, 900) * 100),
                          stage=st, close_date=(EPOCH + timedelta(days=rng.randint(-60, 90))).date().isoformat(), owner=rng.choice(reps),
                          notes=fk.sentence(nb_words=10), lost_reason=rng.choice(["price", "timing", "chose a competitor"]) if st == "closed_lost" else None,
                          created_at=t0, updated_at=t1))
    deals = list(scan(s, "deals"))
    for k in range(300):
        d = rng.choice(deals) if rng.random() < 0.6 else None
        c = read(s, "contacts", d.contact_id) if d and rng.random() < 0.7 else (rng.choice(contacts) if d is None else None)
        typ = rng.choice(["call", "email", "meeting", "note"])
        i = f"act_{k + 1:04d}"
        put(s, "activities", i, Activity(id=i, type=typ, subject=f"{typ.capitalize()}: {fk.bs()}", body=fk.sentence(nb_words=14),
                                   contact_id=c.id if c else None, deal_id=d.id if d else None, owner=rng.choice(reps), date=when(0, 88)))
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code in that deal's notes", "place": "the venue in that deal's notes"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a deal named after `value` whose notes give the next fact; the agent finds it in the pipeline."
    st = ctx.state("crm")
    comp = sorted(scan(st, "companies"), key=lambda c: c.id)[ctx.rng.randrange(size(st, "companies"))]
    did = ctx.plant_id("deal")
    line = f"Project code {nxt}." if kind == "key" else f"Kickoff venue: {nxt}."
    def plant(s: CrmState):
        t = iso(EPOCH - timedelta(days=1))
        put(s, "deals", did, Deal(id=did, name=f"{comp.name} {value}", company_id=comp.id, amount=12000.0, stage="proposal",
                            close_date=(EPOCH + timedelta(days=30)).date().isoformat(), owner=s.me, notes=line, created_at=t, updated_at=t))
    ctx.plant("crm", plant)
    got = ctx.call("list_deals", query=str(value))
    assert got["items"] and nxt in got["items"][0]["notes"]
    return (f"In the CRM, find the deal for {ctx.in_phrase} and tell me the {what} in its notes.",
            f"In the CRM, find the deal for {ctx.in_phrase} and read its notes.")

@add_step(service, "note", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def note_step(ctx, value, want):
    "Log a note on a contact whose text carries `value`."
    st = ctx.state("crm")
    c = sorted(scan(st, "contacts"), key=lambda c: c.id)[ctx.rng.randrange(size(st, "contacts"))]
    subject = ctx.label("Follow-up")
    ctx.call("log_activity", type="note", subject=subject, body=f"Shared with the client: {value}", contact_id=c.id)
    crit = [ctx.criterion("activities", {"subject": subject}, "body", "contains", str(value)),
            ctx.criterion("activities", {"subject": subject}, "contact_id", "eq", c.id)]
    return Visit(f'In the CRM, log a note on the contact {c.first_name} {c.last_name} ({c.email}) with the subject "{subject}" that includes {ctx.in_phrase}.',
                 criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Log a note titled `title` with `text` as its body on the contact `target` names."
    ctx.call("log_activity", type="note", subject=title, body=text, contact_id=target["id"])
    return {"collection": "activities", "where": {"subject": title, "contact_id": target["id"]}, "field": "body", "reveals": None}

def _announce_target(ctx) -> dict:
    st = ctx.state("crm")
    c = sorted(scan(st, "contacts"), key=lambda c: c.id)[ctx.rng.randrange(size(st, "contacts"))]
    return {"id": c.id, "phrase": f"a note on {c.first_name} {c.last_name}'s contact record in the CRM"}
announce_beat.target = _announce_target
