"""Workflow scenarios over the sample library (compoworld_nb.scenario): the shapes and the stories that give them meaning.

The first two are described here; the others (order_problem, db_restock, zone_meeting, incident_followup, crm_handover, and
the K=2 shapes for the demo's short recipe: list_notice, rsvp_chase, bug_report, issue_wrapup) at their play functions below. Seven shapes are K=5 with seven
visits and two revisits, plus 0-2 wrap-up visits (`_wrap_up`, so L is 7-9); the K=2 shapes have three or four visits. Each
edge carries a value the next visit uses
(a title, an email address, a reference such as a ticket id, an invite link or a message thread).

* `weather_event` — an organiser's note points to a plan document; the plan names an event on the calendar, a weather
  rule (rain or snow → move to the alternative, else keep the venue), a host who must not be emailed, and an email to
  every guest who accepted. Visits (one order): mail → plan → calendar → maps → weather → calendar → mail (K=5, L=7).
* `list_followup` — a request points to a list document (people with a status each); the document's rule decides who is
  in, and a condition on the data decides the ticket's priority; the ticket's identifier is noted back on the list,
  announced elsewhere, a meeting with everyone in is booked and each of them gets an email with the meeting link.
  Visits (one order): mail → list → guide → tracker → list → calendar → mail (K=5, L=7).

A play is split into beats (`Play.beat`: one visit, or visits that must stay together, each naming the beats whose facts it
needs) and `Play.run` plays them in a seeded order that keeps those dependencies, so the visit order above is one of
several: the weather event is moved before or after the guests are emailed; the list and its playbook are read in either
order and the ticket's identifier is noted on the list wherever it fits; the incident's issue is closed before or after
the responders are emailed or the thread answered; the case file is closed as soon as the orders are resolved or later;
the restock list is posted before or after the email, the notes or the reply; the roster and the handover notes are
marked done as soon as the call is booked or later. A write that follows a beat it does not need cites what that beat
did (`Play.prev`), so every walk edge still carries a value.

Each story below is one scenario: its own nouns, rule wording and phrasings (several per sentence, chosen by the seed).
"""
from __future__ import annotations
from datetime import timedelta
from compoworld_nb.core import EPOCH
from compoworld_nb.scenario import Shape, Scenario, Phrasing, register_scenario, SCENARIOS
from compoworld_nb.steps import beats_of
from compoworld_nb.state import read, scan
from sample_services.sqlite import _lit
from sample_services.google_calendar import upcoming_window, written_date

__all__ = ["WEATHER_EVENT", "LIST_FOLLOWUP", "ORDER_PROBLEM", "RESTOCK", "ZONE_MEETING", "INCIDENT", "WET", "ZONES", "LIST_NOTICE", "RSVP_CHASE", "BUG_REPORT", "ISSUE_WRAPUP", "SCENARIOS"]

# every short forecast the weather fixture can give that means rain or snow
WET = ["Chance Light Rain", "Light Rain", "Rain Showers Likely", "Chance Light Snow", "Light Snow", "Snow Showers Likely"]
# every short forecast for "today" the fixture can give (the rivals of the one observed)
FORECASTS = ["Sunny", "Mostly Sunny", "Partly Sunny", "Mostly Cloudy", "Cloudy", "Patchy Fog"] + WET
# every shape's optional role (Shape.optional): a cast for K = 6 adds a service with an `announce` beat, where the first wrap-up (`_wrap_up`) goes
_WRAP = {"wrap": ("announce",)}

def _spot(p, role: str, title: str) -> dict:
    "Where the document of `role` titled `title` will sit (chosen before it is planted, so an earlier document can point to it)."
    spot = beats_of(p.library[p.cast[role]])["doc"].spot(p.ctx, title)
    p.__dict__.setdefault("spots", []).append({**spot, "title": title})   # remembered: a wrap-up (`_wrap_up`) must not name where a document is, nor the document
    return spot

# --- shape 1: an event moved (or kept) because of the weather ------------------------------------------------
def _play_weather(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    org = rng.choice(w.others)
    n = rng.randint(10, 99)
    event, title = f"{st['event']} #{n}", f"{st['event']} #{n}: {st['plan']}"
    venue = rng.choice(w.places).label
    alt = st["alt"].format(n=n, code=rng.randint(100, 999))
    guests = [g for g in rng.sample(w.others, 6) if g != org][:rng.randint(4, 5)]
    statuses = ["accepted"] * (len(guests) - 1) + ["declined"]
    rng.shuffle(statuses)
    accepted = [g for g, s in zip(guests, statuses) if s == "accepted"]
    host = rng.choice(accepted)
    invite = [g for g in accepted if g != host]
    subject = f"{event}: {st['subject']}"
    plan_spot = _spot(p, "plan", title)
    window = upcoming_window()                               # the dates the plan states for the event (`event_beat`)
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the organiser's note (in the mailbox) points to the plan
        b = p.visit("brief")
        brief = ph.pick("I put the plan for {e} in “{t}” ({where}); please run it as written.",
                        "The plan for {e} is written up as “{t}” in {where}. Can you take care of it?",
                        "Everything for {e} is in “{t}” ({where}) — weather call, invites, the lot.", e=event, t=title, where=plan_spot["phrase"])
        b["doc"](ctx, title=f"{st['event']} #{n} — over to you", body=brief, author=org)

    @p.beat("plan", at="plan", after="brief")
    def _():                                                 # the plan, holding the rule, the exclusion and what to write
        d = p.visit("plan")
        rule = (f"{event} is on the calendar as “{event}”, at {venue}, some time between {written_date(window[0])} and {written_date(window[1])}.\n"
                f"Weather rule: if the latest forecast for the venue calls for rain or snow, move it to {alt}; otherwise keep it at {venue}.\n"
                f"Either way, put the forecast in the event's description.\n"
                f"Email every guest who accepted, one email each, with the subject “{subject}”, saying where it will be and what the forecast is.\n"
                f"{host.name} is {st['host_role']} and already knows — do not email {host.first}.")
        d["doc"](ctx, title=title, body=rule, author=org, spot=plan_spot)

    @p.beat("event", at="calendar", after="plan")
    def _():                                                 # the event and its guests
        f["ev"] = p.visit("calendar")["event"](ctx, title=event, place=venue, guests=list(zip(guests, statuses)), window=window)

    @p.beat("forecast", at=("maps", "weather"), after="event")
    def _():                                                 # where the venue is, and the forecast there
        coords = p.visit("maps")["geocode"](ctx, place=f["ev"]["location"])
        f["fc"] = fc = p.visit("weather")["forecast"](ctx, coords=coords)
        f["wet"] = fc["short"] in WET
        f["final"] = alt if f["wet"] else venue

    @p.beat("move", at="calendar", after="forecast")
    def _():                                                 # the event moved or kept, with the forecast noted (and the emails, if sent already)
        fc, wet, final = f["fc"], f["wet"], f["final"]
        c = p.visit("calendar")
        told = f" Guests emailed ({_ref(p.prev[0])})." if p.prev else ""
        (loc, desc), got = _observed(ctx, c["update"], event_id=f["ev"]["id"], location=final,
                                     description=f"Forecast: {fc['short']}. {'Moved to ' + alt if wet else 'Staying at ' + venue} ({st['event'].lower()} weather rule).{told}")
        c1 = (p.require(loc, "eq", final, f"the event is moved to the alternative ({final}), as the forecast decides") if wet else
              p.exclude(loc, f"the event stays at {venue}, as the forecast decides", c["update"].mistake(ctx, f["ev"]["id"], alt)))
        c2 = p.require(desc, "contains", fc["short"], f"the event's description notes the forecast ({fc['short']})", rivals=[x for x in FORECASTS if x != fc["short"]])
        p.condition("wet_forecast", fc["short"], {"op": "in", "value": WET}, wet, [c1, c2], [c1])
        p.tail = (got, "the event on the calendar")

    @p.beat("tell", at="brief", after="forecast")
    def _():                                                 # one email per guest who accepted, except the host
        fc, wet, final = f["fc"], f["wet"], f["final"]
        m = p.visit("brief")
        sels, sent = _observed(ctx, m["notify"], people=invite, subject=subject,
                               body=lambda g: f"Hi {g.first},\n\n{event} will be at {final}. Forecast: {fc['short']}.{' (Moved because of the forecast.)' if wet else ''}\n\nSee you there")
        for s in sels:
            p.require(s, "contains", final, f"{s['person'].name} is emailed where {event} will be ({final})", rivals=[venue if wet else alt])
            p.require(s, "contains", event, f"the email to {s['person'].name} names {event}")
        p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(invite),
                  f"exactly the {len(invite)} guests who accepted, not {host.name} ({st['host_role']}) nor anyone who declined, get the email")
        p.exclude(m["notify"].absent(ctx, host), f"{host.name} ({st['host_role']}) gets no email at all", m["notify"].mistake(ctx, host, subject))
        p.members("guests_to_email", [g.email for g in invite], [host.email] + [g.email for g, s in zip(guests, statuses) if s == "declined"])
        p.tail = (sent[:1], f"the email to {invite[0].name}")

    p.run()                                                  # the event may be moved before or after the guests hear (both need only the forecast)
    fc = f["fc"]
    p.ask(fc["short"], "the final answer reports the forecast at the venue", rivals=[x for x in FORECASTS if x != fc["short"]])
    # the request, at goal level
    first = ph.pick("{o} left me a note about {e} and I'd like it handled.", "Can you take care of {e} for me, as {o} wrote it up?",
                    "{o} has handed {e} over to me.", "I need {e} sorted out today — {o} emailed me about it.", o=org.first, e=st["event"].lower() + " " + f"#{n}")
    wrap = _wrap_up(p, ph, event, *p.tail)
    middle = [wrap, ph.pick("Follow the plan {o} wrote, including the weather rule.", "Whatever the plan says about the weather, go with it.",
                      "Do what the plan says; the weather decides where it happens.", o=org.first),
              ph.maybe(ph.pick("Only the guests who said yes should hear from us.", "People who declined don't need an email.",
                               "Leave the host out of the emails.", "The host already knows, so no email for them."), 0.5)]
    last = ph.pick("And tell me what the forecast says.", "When you're done, let me know the forecast.", "What's the forecast, by the way?")
    p.u = ph.say(first, middle, last)

WEATHER_EVENT = Shape("weather_event", roles={"brief": ("doc", "notify"), "plan": ("doc",)},
                      fixed={"calendar": "calendar", "maps": "maps", "weather": "weather"}, play=_play_weather, optional=_WRAP)

_WEATHER_STORIES = [
    ("community_meetup", "events", "Community meetup", "weather plan", "the online room meet.example.com/meetup-{n}", "final details", "the speaker"),
    ("volunteer_day", "community", "Volunteer day", "run sheet", "the indoor hall at the community centre (room {code})", "where we meet", "the coordinator"),
    ("team_offsite", "offsite", "Team offsite", "logistics", "the hotel conference room {code}", "location confirmed", "the organiser's deputy"),
    ("customer_workshop", "sales", "Customer workshop", "checklist", "our video room meet.example.com/ws-{n}", "workshop location", "the presenter"),
    ("site_visit", "operations", "Site visit", "visit plan", "a video walkthrough at meet.example.com/site-{n}", "visit details", "the site lead"),
    ("outdoor_lunch", "people", "Team lunch", "lunch plan", "the cafeteria, second floor", "lunch location", "the caterer contact"),
    ("product_launch", "marketing", "Launch party", "event plan", "the studio on floor {code}", "launch venue", "the MC"),
    ("hiring_day", "hiring", "Hiring day", "candidate day plan", "video interviews at meet.example.com/hire-{n}", "interview location", "the panel chair"),
    ("charity_run", "community", "Charity run", "race plan", "the indoor track at the gym (lane {code})", "race location", "the race marshal"),
    ("photo_shoot", "content", "Photo shoot", "shoot plan", "studio B (booking {code})", "shoot location", "the photographer"),
    ("field_training", "operations", "Field training", "training plan", "the training room {code}", "training location", "the trainer"),
    ("board_dinner", "finance", "Board dinner", "dinner plan", "the private room at the office (room {code})", "dinner location", "the host"),
    ("user_research", "design", "User research session", "session plan", "a remote session at meet.example.com/ux-{n}", "session location", "the moderator"),
    ("sales_kickoff", "sales", "Sales kickoff", "kickoff plan", "the main auditorium (hall {code})", "kickoff location", "the keynote speaker"),
    ("garden_party", "people", "Garden party", "party plan", "the atrium, ground floor", "party location", "the planner"),
    ("hackathon", "engineering", "Hackathon", "hackathon plan", "the online space meet.example.com/hack-{n}", "hackathon location", "a judge"),
    ("press_tour", "marketing", "Press tour", "tour plan", "a virtual tour at meet.example.com/press-{n}", "tour location", "the spokesperson"),
    ("open_house", "community", "Open house", "open house plan", "the lobby exhibition space (stand {code})", "open house location", "the greeter"),
    ("farmers_market_stand", "commerce", "Market stand", "stand plan", "the covered hall, stall {code}", "stand location", "the stall lead"),
    ("rooftop_retro", "engineering", "Quarterly retro", "retro plan", "meeting room {code}", "retro location", "the facilitator"),
]
for name, dom, ev, plan, alt, subj, host in _WEATHER_STORIES:
    register_scenario(Scenario(name, dom, WEATHER_EVENT, {"event": ev, "plan": plan, "alt": alt, "subject": subj, "host_role": host}))

# --- shape 2: a list worked through: ticket, notes, a meeting and one email each -------------------------------------
_STATUS_IN, _STATUS_OUT, _FLAG = "in", "out", "exempt"

def _play_list(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    boss = rng.choice(w.others)
    n = rng.randint(10, 99)
    thing = f"{st['thing']} #{n}"
    title, guide = f"{thing}: {st['list']}", f"{st['thing']} playbook #{n}"
    people = [x for x in rng.sample(w.others, 5) if x != boss][:4]
    marks = [rng.choice((st["yes"], st["yes"], st["no"])) for _ in people]
    if st["yes"] not in marks: marks[0] = st["yes"]
    if st["no"] not in marks: marks[-1] = st["no"]
    ins = [x for x, m in zip(people, marks) if m == st["yes"]]
    skip = rng.choice(ins) if len(ins) > 2 else None
    chosen = [x for x in ins if x is not skip]
    urgent = len(chosen) >= 3 if st.get("by_count") else st["no"] in marks[:2]
    team = w.teams[rng.randrange(len(w.teams))]
    ticket = f"{st['ticket']}: {thing}"
    list_spot, guide_spot = _spot(p, "list", title), _spot(p, "guide", guide)
    day = (EPOCH + timedelta(days=rng.randint(3, 12))).date()
    while day.weekday() >= 5: day += timedelta(days=1)
    meeting = f"{st['meeting']} — {thing}"
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the request points to the list and to the playbook
        b = p.visit("brief")
        b["doc"](ctx, title=f"{thing} — can you run it?",
                 body=ph.pick("The list for {t} is “{l}” ({where}); the rules are at the bottom, the how-to is “{g}” ({gwhere}). Thanks!",
                              "Please work through “{l}” in {where} for {t} — it says what to do, and “{g}” ({gwhere}) says how.",
                              t=thing, l=title, where=list_spot["phrase"], g=guide, gwhere=guide_spot["phrase"]), author=boss)

    @p.beat("list", at="list", after="brief")
    def _():                                                 # the list and its rule (who is in, the priority condition, where the playbook is)
        d = p.visit("list")
        cond = ("If at least three people end up invited, the ticket is urgent (priority 1), otherwise normal (priority 3)." if st.get("by_count")
                else f"If either of the first two people listed is marked {st['no']}, the ticket is urgent (priority 1), otherwise normal (priority 3).")
        rule = "\n".join([f"{st['intro']} ({thing}):", *[f"{x.name} <{x.email}> — {m}" for x, m in zip(people, marks)],
                          f"Rule: everyone marked {st['yes']} is invited{', except ' + skip.name + ' (' + st['why_skip'] + ')' if skip else ''}; nobody marked {st['no']} is contacted.",
                          cond, f"Ticket and meeting: as in “{guide}” ({guide_spot['phrase']}). Note the ticket's identifier here when it exists."])
        d["doc"](ctx, title=title, body=rule, author=boss, spot=list_spot)

    @p.beat("guide", at="guide", after="brief")
    def _():                                                 # the playbook (which team, how to title it, when to meet); it points back to the list
        g = p.visit("guide")
        g["doc"](ctx, title=guide, author=boss, spot=guide_spot,
                 body="\n".join([f"Who is in: the list “{title}” ({list_spot['phrase']}).",
                                 f"Tickets for {st['thing'].lower()} go to the {team.name} team (team key {team.id}), titled “{ticket}”, listing the invited people by name and email.",
                                 f"The meeting is “{meeting}” on {day.strftime('%A, %B')} {day.day} ({day.isoformat()}) from 10:00 to 10:30, with the invited people; put the ticket identifier in its description.",
                                 f"Afterwards email each invited person separately, subject “{meeting}”, with the link to the meeting."]))

    @p.beat("ticket", at="tracker", after=("list", "guide"))
    def _():                                                 # the ticket (its identifier is new information)
        p.visit("tracker")
        prio = 1 if urgent else 3
        got = ctx.call("linear_create_issue", title=ticket, teamId=team.id, description="Invited: " + ", ".join(f"{x.name} <{x.email}>" for x in chosen), priority=prio)
        f["ident"] = got["identifier"]
        sel = {"collection": "issues", "where": {"title": ticket, "teamId": team.id}}
        cp = p.require({**sel, "field": "priority"}, "eq", prio, f"the ticket's priority is {prio}, as the list's condition decides")
        for x in chosen: p.require({**sel, "field": "description"}, "contains", x.name, f"the ticket lists {x.name}", rivals=[y.name for y in people if y not in chosen])
        observed = len(chosen) if st.get("by_count") else list(marks[:2])
        test = {"op": "gte", "value": 3} if st.get("by_count") else {"op": "contains", "value": st["no"]}
        p.condition("ticket_priority", observed, test, urgent, [cp], [cp], visit=p.pos("list"))

    @p.beat("note", at="list", after="ticket")
    def _():                                                 # the identifier noted back on the list (with what the beat before did, if anything)
        back = p.visit("list")
        ident = f["ident"]
        also = f" Done so far: {_ref(p.prev[0])}." if p.prev else ""
        s, got = _observed(ctx, back["annotate"], title=title, text=f"Ticket for {thing}: {ident}.{also}")
        p.require(s, "contains", ident, f"the ticket identifier {ident} is noted on the list")
        p.tail = (got, "the note on the list")

    @p.beat("meeting", at="calendar", after="ticket")
    def _():                                                 # the meeting with everyone in
        c = p.visit("calendar")
        ident = f["ident"]
        m, got = _observed(ctx, c["meeting"], title=meeting, day=day, people=chosen, description=f"Ticket {ident}.")
        p.require({**m, "field": "start.dateTime"}, "eq", m["event"]["start"]["dateTime"], f"“{meeting}” is booked on {day.isoformat()} at 10:00")
        p.require({**m, "field": "description"}, "contains", ident, f"“{meeting}” carries the ticket identifier")
        f["link"] = m["event"]["htmlLink"]
        p.tail = (got, "the meeting")

    @p.beat("emails", at="brief", after="meeting")
    def _():                                                 # one email each, with the meeting link
        e = p.visit("brief")
        link = f["link"]
        sels, sent = _observed(ctx, e["notify"], people=chosen, subject=meeting, body=lambda x: f"Hi {x.first},\n\nYou're invited to {meeting}: {link}\n")
        for s in sels: p.require(s, "contains", link, f"{s['person'].name} is emailed the meeting link")
        p.require({"collection": sels[0]["collection"], "where": {"subject": meeting}}, "count_eq", len(chosen),
                  f"exactly the {len(chosen)} invited people get the email; nobody marked {st['no']}{' nor ' + skip.name if skip else ''}")
        left = skip or next(y for y, mk in zip(people, marks) if mk == st["no"])
        p.exclude(e["notify"].absent(ctx, left), f"{left.name} gets no email at all", e["notify"].mistake(ctx, left, meeting))
        p.members("invited", [x.email for x in chosen], [x.email for x in people if x not in chosen])
        p.tail = (sent[:1], f"the email to {chosen[0].name}")

    p.run()                                                  # the list and the playbook in either order; the note on the list wherever the ticket exists
    if rng.random() < 0.6: p.ask(f["ident"], "the final answer reports the new ticket's identifier")
    first = ph.pick("{b} asked me to run {t}.", "Could you handle {t} for me, as {b} wrote it up?", "I owe {b} the follow-up on {t}.",
                    "{b} needs {t} done this week.", b=boss.first, t=st["thing"].lower() + f" #{n}")
    wrap = _wrap_up(p, ph, thing, *p.tail)
    middle = [wrap, ph.pick("Go by the list and its rules — don't contact anyone it leaves out.", "Stick to who the list says is in.",
                      "The list decides who is in; the rest shouldn't hear from us."),
              ph.pick("Make sure it's tracked, the meeting is on my calendar, and everyone invited gets their own email.",
                      "I want it tracked, booked and everyone told individually.", "Ticket, meeting, emails — the usual, as our playbook describes."),
              ph.maybe("The priority depends on the list, so read it carefully.", 0.0 if wrap else 0.2)]   # at most five sentences
    last = ph.pick("Tell me the ticket number when you're done.", "Send me the ticket's identifier at the end.") if p.answer else ""
    p.u = ph.say(first, middle, last)

LIST_FOLLOWUP = Shape("list_followup", roles={"brief": ("doc", "notify"), "list": ("doc", "annotate"), "guide": ("doc",)},
                      fixed={"tracker": "linear", "calendar": "calendar"}, play=_play_list, optional=_WRAP)

_LIST_STORIES = [
    ("hiring_loop", "hiring", "Hiring loop", "interviewers", "Interviewers for the loop", "available", "on leave", "already met the candidate", "Hiring loop", "Debrief", True),
    ("incident_followup", "devops", "Incident review", "responders", "Responders to the incident", "paged", "off shift", "wrote the timeline", "Postmortem", "Postmortem review", False),
    ("release_notes", "devops", "Release", "contributors", "Contributors whose work merged", "merged", "reverted", "is on vacation", "Release notes", "Release sync", True),
    ("invoice_chasing", "finance", "Invoice run", "accounts", "Account contacts with open invoices", "overdue", "paid", "has a payment plan", "Collections", "Collections call", False),
    ("deal_handover", "sales", "Deal handover", "stakeholders", "Stakeholders on the account", "active", "left the company", "is the outgoing owner", "Handover", "Handover call", True),
    ("kb_update", "knowledge", "KB refresh", "reviewers", "Reviewers for the knowledge-base page", "assigned", "declined", "wrote the draft", "KB update", "Review session", False),
    ("support_escalation", "support", "Escalation", "owners", "Owners for the escalated cases", "on call", "out sick", "already replied", "Escalation", "Escalation huddle", True),
    ("onboarding_buddies", "people", "Onboarding", "buddies", "Buddy candidates for the new hires", "volunteered", "busy", "is a new hire", "Onboarding", "Buddy kickoff", False),
    ("security_review", "security", "Security review", "reviewers", "Service owners for the review", "in scope", "out of scope", "did the last review", "Security review", "Review kickoff", True),
    ("vendor_renewal", "procurement", "Vendor renewal", "approvers", "Approvers for the renewal", "required", "not required", "signed last year", "Renewal", "Renewal sign-off", False),
    ("beta_program", "product", "Beta program", "testers", "Beta tester sign-ups", "accepted", "waitlisted", "is an employee", "Beta", "Beta onboarding", True),
    ("training_cohort", "people", "Training cohort", "participants", "Participants for the training", "enrolled", "withdrew", "is the instructor", "Training", "Cohort kickoff", False),
    ("webinar_panel", "marketing", "Webinar", "panelists", "Panelist candidates", "confirmed", "unavailable", "is moderating", "Webinar", "Panel prep", True),
    ("audit_prep", "finance", "Audit prep", "owners", "Control owners for the audit", "evidence due", "evidence done", "is the auditor liaison", "Audit", "Audit prep call", False),
    ("migration_wave", "devops", "Migration wave", "service owners", "Teams in the migration wave", "ready", "blocked", "moved early", "Migration", "Wave kickoff", True),
    ("customer_advisory", "sales", "Advisory board", "members", "Customers invited to the board", "accepted", "declined", "is our exec sponsor", "Advisory board", "Board prep", False),
    ("content_calendar", "content", "Content sprint", "writers", "Writers for the sprint", "pitched", "passed", "is the editor", "Content", "Sprint planning", True),
    ("accessibility_audit", "design", "Accessibility audit", "designers", "Designers for the audit", "assigned", "unassigned", "owns the checklist", "Accessibility", "Audit walkthrough", False),
    ("oncall_rotation", "devops", "On-call rotation", "engineers", "Engineers for the new rotation", "opted in", "opted out", "is the rotation owner", "On-call", "Rotation handoff", True),
    ("partner_enablement", "sales", "Partner enablement", "partners", "Partner contacts for enablement", "registered", "unregistered", "is our partner manager", "Enablement", "Enablement session", False),
]
for name, dom, thing, lst, intro, yes, no, why, tk, meet, by_count in _LIST_STORIES:
    register_scenario(Scenario(name, dom, LIST_FOLLOWUP, {"thing": thing, "list": lst, "intro": intro, "yes": yes, "no": no,
                                                          "why_skip": why, "ticket": tk, "meeting": meet, "by_count": by_count}))


# --- helpers for the shapes below: what a beat observed, and a reference (id, link, identifier) a later write can cite ---
def _observed(ctx, fn, *a, **kw):
    "Run beat `fn` and return `(its result, the data of every call it made)`: the observations a later visit may cite."
    got, call = [], ctx.call
    def spy(tool, **args):
        d = call(tool, **args); got.append(d); return d
    ctx.call = spy
    try: r = fn(ctx, *a, **kw)
    finally: del ctx.call
    return r, got

_REF_KEYS = ("identifier", "html_url", "url", "htmlLink", "threadId", "ts", "id")

def _ref(got: list) -> str:
    "A reference a person would cite for what the last call did (its identifier, link, thread or id), as observed; AssertionError if none."
    for d in reversed(got):
        for x in ([d] if isinstance(d, dict) else []) + [v for v in (d.values() if isinstance(d, dict) else []) if isinstance(v, dict)]:
            for k in _REF_KEYS:
                v = x.get(k)
                if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) >= 4: return str(v)
    raise AssertionError("the beat observed no reference")

def _cite(p, say: str) -> str:
    "`say` (a format string with one `{}`) filled with the reference the beat before left (`Play.prev`), for a write that does not need that beat, so the walk edge between them still carries a value; '' when there is no beat before."
    return say.format(_ref(p.prev[0])) if p.prev else ""

# --- the filler beat every shape ends with: 0-2 optional wrap-up visits (seeded), so L varies within a shape ----------
FILLERS = (0, 1, 1, 2)     # how many wrap-up visits a task gets, drawn uniformly from this tuple (L = the shape's visits + that many)

def _wrap_up(p, ph, title: str, got: list, what: str, thread: str | None = None, notes: dict | None = None) -> str:
    """The shape's filler beats: 0-2 extra visits (drawn from `FILLERS`), each a revisit (K stays, L grows) that links `ref` — a
    reference observed in `got`, the calls of the visit before (`what` says what it points to; no filler if they show none) — so
    the walk edge carries that value; the second links the first. A wrap-up is either a post on a service of the cast that offers
    an `announce` beat, is not the one just visited and has no write yet, or (`thread`: the title of the request the shape's
    `brief` role answers in) one more reply in that thread, where the shape already wrote (the same record: other threads keep
    their collateral check), or (`notes`: `{role: (title, phrase)}`, documents of other roles the shape annotates) one more note
    on such a document. The services just visited are never next (Eq. 3). Each adds a goal criterion (the post holds the link).
    Returns the one sentence u adds ("" if none)."""
    say = []
    threads = {**({"brief": (thread, "the request's thread")} if thread else {}), **(notes or {})}
    n = p.rng.choice(FILLERS)
    for i in range(max(1, n) if "wrap" in p.cast else n):       # an optional `wrap` role (a larger K) is where the first wrap-up goes
        try: ref = _ref(got)
        except AssertionError: break
        written = {c["service"] for c in p.changes}             # a second write elsewhere in a written service would leave it no collateral check
        pool = [("announce", s) for s in sorted({s for s in p.cast.values() if s != p.walk[-1] and s not in written and "announce" in beats_of(p.library[s])})]
        for role, (ttl, _) in threads.items():
            if p.cast.get(role) not in (None, p.walk[-1]) and "annotate" in beats_of(p.library[p.cast[role]]): pool.append(("thread", role))
        if not pool: break
        kind, svc = ("announce", p.cast["wrap"]) if i == 0 and ("announce", p.cast.get("wrap")) in pool else p.rng.choice(pool)
        if kind == "announce":
            post = beats_of(p.library[svc])["announce"]
            for _ in range(8):                                  # a target that names where a document sits would give that away in u
                tgt = post.target(p.ctx)
                if not any(isinstance(v, str) and len(v) >= 3 and v in tgt["phrase"] for sp in p.__dict__.get("spots", []) for v in sp.values()): break
            else: break
            b = p.visit(next(r for r, s in sorted(p.cast.items()) if s == svc))
            s, got = _observed(p.ctx, b["announce"], tgt, f"Wrap-up {i + 1}: {title}", f"{title} is done — see {ref}.")
            p.require(s, "contains", ref, f"the wrap-up in {tgt['phrase']} links {what}")
            where = tgt["phrase"]
        else:
            ttl, where = threads[svc]                            # svc: the role whose thread or document gets the note
            b = p.visit(svc)
            s, got = _observed(p.ctx, b["annotate"], title=ttl, text=f"Wrap-up {i + 1}: see {ref}.")
            p.require(s, "contains", ref, f"a further {'reply in' if svc == 'brief' else 'note on'} {where} links {what}")
        say.append(ph.pick("Post a short wrap-up in {t} with a link to {w}", "Leave a wrap-up in {t} that links {w}",
                           "A wrap-up in {t} should point to {w}", t=where, w=what) if i == 0 else
                   ph.pick("and {t} should say where that wrap-up is", "and link that wrap-up from {t} as well", t=where))
        what = "the first wrap-up"
    return ", ".join(say) + "." if say else ""                  # one sentence, however many wrap-ups

# --- shape 3: an order problem raised in chat, resolved by each order's status (commerce) ----------------------------
class _Customer:
    "A shop customer as the mail beat sees a person: name, first name, email."
    def __init__(self, c: dict): self.name, self.first, self.email = c["name"], c["first"], c["email"]

def _play_orders(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    agent = rng.choice(w.others)
    n = rng.randint(10, 99)
    r = beats_of(p.library["retail"])
    cust = r["customer"].complaint(ctx, rng.choice((2, 2, 3)))
    who = _Customer(cust)
    thread, case = f"Customer case #{n}", f"Case #{n}: {st['policy']}"
    case_spot = _spot(p, "case", case)
    subject = f"Your orders — case #{n}"
    log_t = beats_of(p.library[p.cast["log"]])["announce"].target(ctx)
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # a colleague raises the case in a thread
        b = p.visit("brief")
        b["doc"](ctx, title=thread, author=agent, body=ph.pick("A customer complained about some orders ({why}). The case file is “{c}” ({where}).",
                                                               "New order complaint: {why}. Everything is in “{c}” ({where}).", why=st["why"], c=case, where=case_spot["phrase"]))

    @p.beat("case", at="case", after="brief")
    def _():                                                 # the case file: the customer, the orders, the policy that decides each one, where it is logged
        d = p.visit("case")
        d["doc"](ctx, title=case, author=agent, spot=case_spot, body="\n".join([
            f"Customer: {cust['name']} <{cust['email']}>. Orders complained about: {', '.join(cust['orders'])}. Order {cust['keep']} is fine — they keep it.",
            f"{st['intro']}:",
            f"- An order that is still pending is cancelled, reason “{st['reason']}”.",
            "- An order that was already delivered is not cancelled: all its items are returned, refunded to the payment method the order was paid with.",
            "- Orders the customer did not complain about are never touched.",
            f"- Email the customer once, subject “{subject}”, saying what happens to each order.",
            f"- Log the case as {log_t['phrase']}, titled “{case}”, listing each order and what was done, with the reference of that email.",
            "- Reply in the thread with the customer's account id and a link to the log entry.",
            "- Close this case file with a note giving the customer's account id and what was done."]))

    @p.beat("orders", at="retail", after="case")
    def _():                                                 # the customer's orders looked up, each resolved by its status
        rr = p.visit("retail")
        seen = rr["customer"](ctx, cust)
        f["uid"], done = seen["user_id"], []
        for oid in cust["orders"]:
            o = seen["orders"][oid]
            x = rr["resolve"](ctx, o, st["reason"])
            c1 = p.require(x["status_sel"], "eq", x["new"], f"order {oid} ({o['status']}) is {'cancelled' if x['new'] == 'cancelled' else 'returned'}, as its status decides")
            crit = [c1]
            if x["refund_to"]: crit.append(p.require(x["refund_sel"], "eq", x["refund_to"], f"the return of order {oid} is refunded to {x['refund_to']}, the method it was paid with"))
            p.condition(f"order_{oid}_delivered", o["status"], {"op": "eq", "value": "delivered"}, o["status"] == "delivered", crit, [c1])
            done.append(x)
        kept = ctx.state("retail").orders[cust["keep"]].model_dump(mode="json")
        p.exclude({"collection": "orders", "where": {"order_id": cust["keep"]}}, f"order {cust['keep']}, which the customer keeps, is left as it was",
                  rr["resolve"].mistake(ctx, kept, st["reason"]))
        p.members("orders_resolved", cust["orders"], [cust["keep"]])
        say = lambda x: f"{x['order']}: " + ("cancelled" if x["new"] == "cancelled" else f"return opened, refund to {x['refund_to']}")
        f["done"], f["summary"] = done, "; ".join(map(say, done))

    @p.beat("email", at="mail", after="orders")
    def _():                                                 # one email to the customer
        m = p.visit("mail")
        done, summary = f["done"], f["summary"]
        ref = _cite(p, " Your case reference: {}.")
        sels, got = _observed(ctx, m["notify"], people=[who], subject=subject, body=lambda g: f"Hi {g.first},\n\n{summary}.{ref}\n\nSorry for the trouble.")
        for x in done: p.require(sels[0], "contains", x["order"], f"the email to {who.name} covers order {x['order']}", rivals=[cust["keep"]])
        for x in done:
            if x["refund_to"]: p.require(sels[0], "contains", x["refund_to"], f"the email to {who.name} says the refund for {x['order']} goes to {x['refund_to']}")
        f["mref"] = _ref(got)
        p.tail = (got, f"the email to {who.name}")

    @p.beat("log", at="log", after="email")
    def _():                                                 # the case logged, citing the email
        lg = p.visit("log")
        done, mref = f["done"], f["mref"]
        also = _cite(p, " See also {}.") if p.order[-1] != "email" else ""
        s, got = _observed(ctx, lg["announce"], log_t, case, f"{f['summary']}. Customer emailed (ref {mref}).{also}")
        for x in done: p.require(s, "contains", x["order"], f"the case log lists order {x['order']}", rivals=[cust["keep"]])
        p.require(s, "contains", mref, "the case log cites the email sent to the customer")
        f["lref"] = _ref(got)
        p.tail = (got, "the case log")

    @p.beat("reply", at="brief", after="log")
    def _():                                                 # the reply in the thread: account id and the log entry
        back = p.visit("brief")
        uid, lref = f["uid"], f["lref"]
        also = _cite(p, " Case file closed: {}.") if p.order[-1] != "log" else ""
        s, got = _observed(ctx, back["annotate"], title=thread, text=f"Done — account {uid}, logged at {lref}.{also}")
        p.require(s, "contains", uid, f"the reply in the thread gives the customer's account id ({uid})")
        p.require(s, "contains", lref, "the reply in the thread links the log entry")
        p.tail = (got, "the reply in the case's thread")

    @p.beat("close", at="case", after="orders")
    def _():                                                 # the case file closed: the account id and what was done (and what the beat before did)
        cf = p.visit("case")
        uid = f["uid"]
        s, got = _observed(ctx, cf["annotate"], title=case, text=f"Closed — account {uid}: {f['summary']}.{_cite(p, ' See {}.')}")
        p.require(s, "contains", uid, f"the case file is closed with the customer's account id ({uid})")
        p.tail = (got, "the note that closes the case file")

    p.run()                                                  # the case file may be closed as soon as the orders are resolved, or after the email, the log or the reply
    done, uid = f["done"], f["uid"]
    returned = [x for x in done if x["new"] != "cancelled"]
    if returned: p.ask(returned[0]["refund_to"], "the final answer reports where the refund goes", rivals=sorted(ctx.state("retail").users[uid].payment_methods.keys() - {returned[0]["refund_to"]}) or None)
    first = ph.pick("{a} passed me a customer case about some orders.", "Could you sort out the order complaint {a} raised?",
                    "There's an order complaint that {a} handed over.", a=agent.first)
    wrap = _wrap_up(p, ph, f"case #{n}", *p.tail, thread=thread, notes={"case": (case, "the case file")})
    middle = [wrap, ph.pick("Handle each order the way our policy says — what happens depends on whether it has shipped.",
                      "Go by the policy; already-delivered orders are handled differently from pending ones.", "Our usual policy for this kind of complaint applies."),
              ph.maybe(ph.pick("Don't touch the order they're happy with.", "Leave their other order alone."), 0.4),
              ph.maybe(ph.pick("Make sure the customer hears back, it's logged, and the thread and the case file are updated.", "Log it and close the loop with everyone involved."), 0.5)]
    last = ph.pick("Where does the refund go?", "Tell me which payment method gets the refund.") if p.answer else ""
    p.u = ph.say(first, middle, last)

ORDER_PROBLEM = Shape("order_problem", roles={"brief": ("doc", "annotate"), "case": ("doc", "annotate"), "log": ("announce",)},
                      fixed={"retail": "retail", "mail": "gmail"}, play=_play_orders, optional=_WRAP, cites=("log", "brief"))

_ORDER_STORIES = [
    ("order_problem_chat", "commerce", "the wrong size arrived", "ordered by mistake", "Order complaints policy", "How we handle order complaints"),
    ("refund_after_complaint", "commerce", "they are unhappy with the quality", "no longer needed", "Refund policy", "Refunds after a complaint"),
    ("duplicate_order", "commerce", "they placed the same orders twice by accident", "ordered by mistake", "Duplicate order runbook", "Duplicate orders"),
    ("moving_house", "commerce", "they moved and no longer need these", "no longer needed", "Support playbook", "Customer no longer needs the goods"),
    ("gift_gone_wrong", "support", "the gifts were for an event that was cancelled", "no longer needed", "Support macros", "Cancelled-event orders"),
    ("late_delivery_complaint", "support", "the delivery took too long and they've bought elsewhere", "no longer needed", "Late delivery policy", "Late deliveries"),
]
for name, dom, why, reason, pol, intro in _ORDER_STORIES:
    register_scenario(Scenario(name, dom, ORDER_PROBLEM, {"why": why, "reason": reason, "policy": pol, "intro": intro}))

# --- shape 4: a figure looked up in the database decides what is ordered and who approves (data) ---------------------
def _play_restock(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    boss, approver, supplier = rng.sample(w.others, 3)
    n = rng.randint(10, 99)
    sq = beats_of(p.library["sqlite"])
    cats = sq["stock"].categories(ctx)
    cat = st.get("category") if st.get("category") in cats else rng.choice(cats)
    rows = sorted(r.values["stock"] for r in ctx.state("sqlite").rows.values() if r.table == "products" and r.values["category"] == cat)
    k = rng.randint(1, min(4, len(rows) - 1))
    level = rows[k - 1] + 1 if rows[k - 1] + 1 <= rows[k] else rows[k]          # products below `level`: the k lowest (ties kept)
    add, big = rng.choice((25, 40, 50)), rng.choice((2, 3))
    title, rule_t = f"{st['thing']} #{n}", f"{st['thing']} rule #{n}"
    rule_spot = _spot(p, "policy", rule_t)
    subject = f"{st['thing']} #{n}: {cat}"
    ann_t = beats_of(p.library[p.cast["announce"]])["announce"].target(ctx)
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the request
        b = p.visit("brief")
        b["doc"](ctx, title=title, author=boss, body=ph.pick("Time for the {t}. The rule is “{r}” ({where}).", "Please run the {t} as “{r}” ({where}) says.",
                                                             t=st["thing"].lower(), r=rule_t, where=rule_spot["phrase"]))

    @p.beat("policy", at="policy", after="brief")
    def _():                                                 # the rule: the category, the level, the amount, the approval threshold, where the list goes
        d = p.visit("policy")
        d["doc"](ctx, title=rule_t, author=boss, spot=rule_spot, body="\n".join([
            f"{st['intro']} — category {cat}:",
            f"- Every {cat} product with fewer than {level} units in stock gets {add} more units: add them to its stock in the company database when you place the order.",
            f"- Products with {level} units or more are left alone.",
            f"- Post the list as {ann_t['phrase']}, titled “{title}”.",
            f"- If {big} or more products need it, the order needs {approver.name}'s approval: email {approver.first} ({approver.email}) the products and amounts, subject “{subject}”. Otherwise email our supplier contact {supplier.name} ({supplier.email}) directly, the same way.",
            f"- Record the order in the notes table of the database (topic: the title above, created_at {EPOCH.strftime('%Y-%m-%dT%H:%M:%SZ')}), citing that email's thread, add the order to the database's insights memo, and reply in the request's thread with the insight's id."]))

    @p.beat("restock", at="sqlite", after="policy")
    def _():                                                 # the products below the level, and their stock raised
        db = p.visit("sqlite")
        f["low"] = low = ctx.call("read_query", query=f"SELECT id, name, stock FROM products WHERE category = {_lit(cat)} AND stock < {level} ORDER BY stock, id")
        assert low
        f["high"] = high = sorted((dict(id=r.values["id"], name=r.values["name"], stock=r.values["stock"]) for r in ctx.state("sqlite").rows.values()
                                   if r.table == "products" and r.values["category"] == cat and r.values["stock"] >= level), key=lambda x: (x["stock"], x["id"]))
        sels = db["restock"](ctx, [x["id"] for x in low], add)
        for x, sl in zip(low, sels):
            c1 = p.require(sl, "eq", x["stock"] + add, f"{x['name']} goes from {x['stock']} to {x['stock'] + add} units")
            p.condition(f"restock_{x['id']}", x["stock"], {"op": "lte", "value": level - 1}, True, [c1], [c1])
        edge = high[0]                                             # the product nearest the level: the plausible extra restock
        ce = p.exclude({"collection": "rows", "where": {"table": "products", "values.id": edge["id"]}, "field": "values.stock"},
                       f"{edge['name']} ({edge['stock']} units, not below {level}) is not restocked", db["restock"].mistake(ctx, edge["id"], add))
        p.condition(f"restock_{edge['id']}", edge["stock"], {"op": "lte", "value": level - 1}, False, [ce], [ce])
        p.members("restocked", [x["name"] for x in low], [x["name"] for x in high])
        f["total"] = add * len(low)

    @p.beat("post", at="announce", after="restock")
    def _():                                                 # the list posted (with what the beat before did, if anything)
        an = p.visit("announce")
        low = f["low"]
        s, got = _observed(ctx, an["announce"], ann_t, title, "Restocking " + ", ".join(f"{x['name']} (+{add})" for x in low) + _cite(p, " (see {})"))
        for x in low: p.require(s, "contains", x["name"], f"the posted list names {x['name']} ({x['stock']} in stock)")
        p.tail = (got, "the posted list")

    @p.beat("email", at="mail", after="restock")
    def _():                                                 # the email to the approver (a big order) or straight to the supplier
        m = p.visit("mail")
        low, high, total = f["low"], f["high"], f["total"]
        to, other = (approver, supplier) if len(low) >= big else (supplier, approver)
        also = _cite(p, " List: {}")
        es, got = _observed(ctx, m["notify"], people=[to], subject=subject,
                            body=lambda g: f"Hi {g.first},\n\n{st['thing']} for {cat}: " + ", ".join(f"{x['name']} +{add}" for x in low) + f" ({total} units).{also}\n")
        cs = [p.require(es[0], "contains", x["name"], f"the email to {to.name} names {x['name']}" + ("" if i else f" ({'approval needed' if to is approver else 'no approval needed'})"),
                        rivals=[y["name"] for y in high]) for i, x in enumerate(low)]
        c2 = p.exclude(m["notify"].absent(ctx, other), f"{other.name} gets no email", m["notify"].mistake(ctx, other, subject))
        p.condition("needs_approval", len(low), {"op": "gte", "value": big}, len(low) >= big, [cs[0], c2], [c2], visit=p.pos("restock"))
        f["thread"] = next(g["threadId"] for g in got if isinstance(g, dict) and "threadId" in g)
        p.tail = (got, f"the email to {to.name}")

    @p.beat("notes", at="sqlite", after="email")
    def _():                                                 # the order recorded in the notes table, citing the email's thread, and in the insights memo (its id is new)
        p.visit("sqlite")
        thread, total, low = f["thread"], f["total"], f["low"]
        also = _cite(p, " List: {}.") if p.order[-1] != "email" else ""
        ctx.call("write_query", query=f"INSERT INTO notes (topic, body, created_at) VALUES ({_lit(title)}, {_lit(f'{total} units of {cat} ordered; email thread {thread}.{also}')}, {_lit(EPOCH.strftime('%Y-%m-%dT%H:%M:%SZ'))})")
        got = ctx.call("append_insight", insight=f"{title}: {total} units of {cat} restocked ({len(low)} products).")
        f["nid"] = got["id"]
        p.require({"collection": "rows", "where": {"table": "notes", "values.topic": title}, "field": "values.body"}, "contains", thread, "the order is recorded in the notes table, citing the email's thread")
        p.tail = ([got], "the insight")

    @p.beat("reply", at="brief", after="notes")
    def _():                                                 # the answer in the thread
        back = p.visit("brief")
        nid = f["nid"]
        also = _cite(p, " List: {}.") if p.order[-1] != "notes" else ""
        s, got = _observed(ctx, back["annotate"], title=title, text=f"Done: {f['total']} units ordered, insight {nid}.{also}")
        p.require(s, "contains", nid, f"the reply in the thread gives the insight's id ({nid})")
        p.tail = (got, "the reply in the request's thread")

    p.run()                                                  # the list may be posted before or after the email, the notes or the reply
    low = f["low"]
    p.ask(low[0]["name"], "the final answer names the product lowest on stock", rivals=[x["name"] for x in low[1:]] or None)
    first = ph.pick("{b} asked for the {t}.", "Can you do this week's {t} for {b}?", "The {t} is due; {b} wants it done today.", b=boss.first, t=st["thing"].lower())
    wrap = _wrap_up(p, ph, title, *p.tail, thread=title)
    middle = [wrap, ph.pick("The stock levels are in our database; the rule decides what gets ordered and who signs off.",
                      "Go by the rule — only what's actually low, and the right person hears about it.", "The rule applies to the letter; don't order what we don't need."),
              ph.maybe("Keep the database in step with what you order.", 0.3)]
    last = ph.pick("Which product was lowest on stock?", "Tell me which product was the lowest at the end.")
    p.u = ph.say(first, middle, last)

RESTOCK = Shape("db_restock", roles={"brief": ("doc", "annotate"), "policy": ("doc",), "announce": ("announce",)},
                fixed={"sqlite": "sqlite", "mail": "gmail"}, play=_play_restock, optional=_WRAP, cites=("announce",))

_RESTOCK_STORIES = [
    ("restock_run", "data", "Restock", "Restock rule", None),
    ("office_supplies_reorder", "operations", "Supplies reorder", "Office supplies reorder rule", "office"),
    ("electronics_top_up", "data", "Stock top-up", "Stock top-up rule", "electronics"),
    ("kitchen_refill", "people", "Kitchen refill", "Kitchen refill rule", "kitchen"),
    ("inventory_report", "data", "Inventory order", "Inventory ordering rule", None),
    ("warehouse_replenishment", "commerce", "Replenishment", "Replenishment rule", None),
]
for name, dom, thing, intro, cat in _RESTOCK_STORIES:
    register_scenario(Scenario(name, dom, RESTOCK, {"thing": thing, "intro": intro, "category": cat}))


# --- shape 5: a call across time zones at the first slot that suits everyone (utilities) -----------------------------
ZONES = [("London", "Europe/London"), ("Berlin", "Europe/Berlin"), ("Tokyo", "Asia/Tokyo"), ("Sydney", "Australia/Sydney"),
         ("Bengaluru", "Asia/Kolkata"), ("São Paulo", "America/Sao_Paulo"), ("New York", "America/New_York"),
         ("Los Angeles", "America/Los_Angeles"), ("Singapore", "Asia/Singapore"), ("Nairobi", "Africa/Nairobi")]

def _play_zones(p, st: dict) -> None:
    from datetime import datetime as _dt
    from zoneinfo import ZoneInfo
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    boss = rng.choice(w.others)
    n = rng.randint(10, 99)
    prim = next(c for c in ctx.state("calendar").calendars.values() if c.primary)
    mine = prim.timeZone
    today = EPOCH.astimezone(ZoneInfo(mine)).date()
    slots = sorted(rng.sample(["07:00", "08:00", "09:00", "11:00", "13:00", "15:00", "17:00", "19:00"], 3))
    local = lambda t, z: _dt.combine(today, _dt.strptime(t, "%H:%M").time()).replace(tzinfo=ZoneInfo(mine)).astimezone(ZoneInfo(z)).strftime("%H:%M")
    ok = lambda t, zs: all("08:00" <= local(t, z) < "18:00" for z in zs)
    _end = lambda t: (_dt.strptime(t, "%H:%M") + timedelta(minutes=30)).strftime("%H:%M")
    for _ in range(40):                                  # attendees whose zones leave at least one slot that suits everyone
        people = rng.sample([x for x in w.others if x != boss], 4)
        zones = rng.sample(ZONES, 3)
        where = [zones[i % 3] for i in range(3)]
        if any(ok(t, [z for _, z in where]) for t in slots): break
    else: raise AssertionError("no slot suits the sampled zones")
    invite, fyi = people[:3], people[3]
    zone_of = {x.email: z for x, (_, z) in zip(invite, where)}
    chosen = next(t for t in slots if ok(t, list(zone_of.values())))
    title, roster_t = f"{st['call']} #{n}", f"{st['call']} #{n}: {st['roster']}"
    roster_spot = _spot(p, "roster", roster_t)
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the request
        b = p.visit("brief")
        b["doc"](ctx, title=title, author=boss, body=ph.pick("Can you set up {t}? Who and when is in “{r}” ({where}).",
                                                             "{t} needs booking — the people and candidate times are in “{r}” ({where}).", t=title, r=roster_t, where=roster_spot["phrase"]))

    @p.beat("roster", at="roster", after="brief")
    def _():                                                 # the roster: attendees with their cities, an FYI person, the candidate slots and the rule
        d = p.visit("roster")
        d["doc"](ctx, title=roster_t, author=boss, spot=roster_spot, body="\n".join(
            [f"{st['intro']} for {title}:"] + [f"- {x.name} <{x.email}> — {city} ({z})" for x, (city, z) in zip(invite, where)] +
            [f"- {fyi.name} — FYI only: keep them posted in the thread, no invite and no email.",
             f"Candidate times, today ({today.isoformat()}), in my calendar's time zone ({mine}): {', '.join(f'{t} to {_end(t)}' for t in slots)}.",
             "Rule: book the earliest candidate that falls between 08:00 and 18:00 local time for every attendee, 30 minutes, everyone invited, with each attendee's local time in the description.",
             f"Then email each attendee separately, subject “{title}”, with the time in their own time zone and the invite link.",
             "Post in the request's thread that the invites are out (with the email thread), and note the booked time on this roster with the invite link."]))

    @p.beat("convert", at="time", after="roster")
    def _():                                                 # every candidate converted to every attendee's zone
        f["conv"] = conv = p.visit("time")["convert"](ctx, mine, slots, [z for _, z in where])
        assert all(conv[(t, z)][11:16] == local(t, z) for t in slots for _, z in where)

    @p.beat("book", at="calendar", after="convert")
    def _():                                                 # the call booked at the chosen slot
        conv = f["conv"]
        p.visit("calendar")
        end = _end(chosen)
        ev = ctx.call("create-event", calendarId="primary", summary=title, start=f"{today.isoformat()}T{chosen}:00", end=f"{today.isoformat()}T{end}:00",
                      attendees=[{"email": x.email} for x in invite], description="Local times: " + ", ".join(f"{x.first} {conv[(chosen, zone_of[x.email])]}" for x in invite))
        start, f["link"] = ev["start"]["dateTime"], ev["htmlLink"]
        sel = {"collection": "events", "where": {"summary": title}}
        c1 = p.require({**sel, "field": "start.dateTime"}, "eq", start, f"{title} is booked at {chosen} (my time), the earliest slot that suits everyone")
        outside = sum(not "08:00" <= conv[(slots[0], z)][11:16] < "18:00" for _, z in where)     # attendees for whom the first candidate is outside 8-18
        p.condition("first_slot_suits_all", outside, {"op": "lte", "value": 0}, outside == 0, [c1], [c1], visit=p.pos("convert"))
        p.tail = ([ev], "the invite")

    @p.beat("emails", at="mail", after="book")
    def _():                                                 # one email each, with the attendee's local time and the invite link
        m = p.visit("mail")
        conv, link = f["conv"], f["link"]
        also = _cite(p, " (Noted on the roster: {}.)") if p.order[-1] != "book" else ""
        es, got = _observed(ctx, m["notify"], people=invite, subject=title, body=lambda x: f"Hi {x.first},\n\n{title} is at {conv[(chosen, zone_of[x.email])]} your time ({zone_of[x.email]}). Invite: {link}{also}\n")
        for s in es:
            z = zone_of[s["person"].email]
            p.require(s, "contains", conv[(chosen, z)], f"{s['person'].name} is told {conv[(chosen, z)]}, the time in {z}",
                      rivals=[conv[(t, z)] for t in slots if t != chosen])
        p.require({"collection": es[0]["collection"], "where": {"subject": title}}, "count_eq", len(invite), f"exactly the {len(invite)} attendees get the email")
        p.exclude(m["notify"].absent(ctx, fyi), f"{fyi.name} (FYI only) gets no email", m["notify"].mistake(ctx, fyi, title))
        p.members("attendees", [x.email for x in invite], [fyi.email])
        for e in es: p.require(e, "contains", link, f"{e['person'].name}'s email carries the invite link")
        f["mref"] = _ref(got)
        p.tail = (got, "the invite emails")

    @p.beat("reply", at="brief", after="emails")
    def _():                                                 # the thread told the invites are out
        back = p.visit("brief")
        also = _cite(p, " Roster updated: {}.") if p.order[-1] != "emails" else ""
        s, got = _observed(ctx, back["annotate"], title=title, text=f"Invites are out (email thread {f['mref']}).{also}")
        p.require(s, "contains", f["mref"], "the reply in the thread cites the invite emails")
        p.tail = (got, "the post in the request's thread")

    @p.beat("note", at="roster", after="book")
    def _():                                                 # the roster notes the booked time, with the invite link (and what the beat before did)
        ro = p.visit("roster")
        link = f["link"]
        also = _cite(p, " See {}.") if p.order[-1] != "book" else ""
        s, got = _observed(ctx, ro["annotate"], title=roster_t, text=f"Booked for {chosen} ({mine}): {link}.{also}")
        p.require(s, "contains", link, f"the roster notes the booking ({chosen}) with the invite link")
        p.tail = (got, "the booking note on the roster")

    p.run()                                                  # the roster may be noted as soon as the call is booked, or after the emails or the thread's post
    p.ask(chosen, "the final answer reports which candidate time was booked", rivals=[t for t in slots if t != chosen])
    first = ph.pick("{b} wants {t} set up today.", "Could you book {t} for {b}?", "I need {t} on the calendar today — {b} asked.", b=boss.first, t=title)
    wrap = _wrap_up(p, ph, title, *p.tail, thread=title, notes={"roster": (roster_t, "the roster")})
    middle = [wrap, ph.pick("People are spread across time zones, so pick the first of the candidate times that's within working hours for all of them.",
                      "It should be the earliest candidate time that works for everyone in their own time zone.", "Working hours are 8 to 6 wherever each person is."),
              ph.maybe(ph.pick("Everyone invited should get their own email with the time where they are.", "Each attendee should hear the time in their own zone."), 0.5),
              ph.maybe("The FYI person just needs an update, not an invite.", 0.3)]
    last = ph.pick("Which of the times did you book?", "Tell me which slot it ended up in.")
    p.u = ph.say(first, middle, last)

ZONE_MEETING = Shape("zone_meeting", roles={"brief": ("doc", "annotate"), "roster": ("doc", "annotate")},
                     fixed={"calendar": "calendar", "time": "time", "mail": "gmail"}, play=_play_zones, optional=_WRAP, cites=("brief",))

_ZONE_STORIES = [
    ("partner_call", "sales", "Partner call", "attendees", "Attendees"),
    ("vendor_kickoff", "procurement", "Vendor kickoff", "who's joining", "Joining"),
    ("global_standup", "engineering", "Cross-region sync", "people", "People"),
    ("candidate_interview", "hiring", "Panel interview", "panel", "Panel"),
    ("board_prep_call", "finance", "Board prep call", "participants", "Participants"),
    ("customer_qbr", "sales", "Quarterly business review", "attendees", "Attendees"),
]
for name, dom, call, roster, intro in _ZONE_STORIES:
    register_scenario(Scenario(name, dom, ZONE_MEETING, {"call": call, "roster": roster, "intro": intro}))

# --- shape 6: incident follow-up across the tracker, code hosting, chat and mail (dev) ----------------------------
def _play_incident(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    lead = rng.choice(w.others)
    n = rng.randint(100, 999)
    people = rng.sample([x for x in w.others if x != lead], 4)
    roles = ["paged"] * 3 + ["FYI"]
    rng.shuffle(roles)
    paged = [x for x, r in zip(people, roles) if r == "paged"]
    fyi = next(x for x, r in zip(people, roles) if r == "FYI")
    limit = rng.choice((3, 5))
    reports = rng.randint(0, 2 * limit - 1)
    sev1 = reports >= limit
    team = w.teams[rng.randrange(len(w.teams))]
    title = f"{st['kind']} #{n}: {st['what']}"
    book_t = f"{st['runbook']} #{n}"
    gh = beats_of(p.library["github"])
    repo = gh["doc"].spot(ctx, title)
    book_spot = _spot(p, "runbook", book_t)
    ticket = f"Follow-up: {title}"
    subj = f"Postmortem: {title}"
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the request
        b = p.visit("brief")
        b["doc"](ctx, title=f"{st['kind']} #{n} follow-up", author=lead,
                 body=ph.pick("{t} is resolved. The follow-up is in “{r}” ({where}).", "We're done firefighting {t}; please do the follow-up as “{r}” ({where}) says.",
                              t=title, r=book_t, where=book_spot["phrase"]))

    @p.beat("runbook", at="runbook", after="brief")
    def _():                                                 # the runbook: where the incident is, the severity rule, who is emailed
        d = p.visit("runbook")
        d["doc"](ctx, title=book_t, author=lead, spot=book_spot, body="\n".join([
            f"After {st['kind'].lower()} “{title}” (its GitHub issue is in {repo['phrase']}):",
            f"- Open a follow-up ticket for the owning team named in the issue, titled “{ticket}”, listing the paged responders. Priority 1 if the issue counts {limit} or more customer reports, otherwise priority 3.",
            "- Comment the ticket's identifier on the GitHub issue and close it as completed.",
            f"- Email each responder who was paged (not the FYI ones), subject “{subj}”, with the ticket identifier.",
            "- Reply in the thread with the ticket identifier and the thread of those emails."]))

    @p.beat("issue", at="github", after="runbook")
    def _():                                                 # the incident issue: responders and the number of customer reports
        g = p.visit("github")
        body = "\n".join([f"Impact: {st['what']}.", f"Owning team: {team.name} (team key {team.id}).", f"Customer reports: {reports}", "Responders:"] + [f"- {x.name} <{x.email}> ({r})" for x, r in zip(people, roles)])
        g["doc"](ctx, title=title, body=body, author=lead, spot=repo)

    @p.beat("ticket", at="tracker", after="issue")
    def _():                                                 # the follow-up ticket
        p.visit("tracker")
        prio = 1 if sev1 else 3
        got = ctx.call("linear_create_issue", title=ticket, teamId=team.id, description=f"Follow-up of {title}. Responders: " + ", ".join(x.name for x in paged), priority=prio)
        f["ident"] = got["identifier"]
        sel = {"collection": "issues", "where": {"title": ticket, "teamId": team.id}}
        cp = p.require({**sel, "field": "priority"}, "eq", prio, f"the follow-up ticket has priority {prio} ({reports} customer reports, limit {limit})")
        for x in paged: p.require({**sel, "field": "description"}, "contains", x.name, f"the follow-up ticket lists {x.name} (paged)", rivals=[fyi.name])
        p.condition("sev1", reports, {"op": "gte", "value": limit}, sev1, [cp], [cp], visit=p.pos("issue"))

    @p.beat("close", at="github", after="ticket")
    def _():                                                 # the issue commented and closed (citing what the beat before did, if it was not the ticket)
        g2 = p.visit("github")
        ident = f["ident"]
        also = f" See also {_ref(p.prev[0])}." if p.prev else ""
        cl, got = _observed(ctx, g2["close"], title, f"Follow-up ticket: {ident}.{also}")
        p.require(cl["comment"], "contains", ident, f"the GitHub issue carries the ticket identifier {ident}")
        p.require(cl["state"], "eq", "closed", f"the GitHub issue “{title}” is closed")
        p.tail = (got, "the closing comment on the GitHub issue")

    @p.beat("emails", at="mail", after="ticket")
    def _():                                                 # one email per paged responder
        m = p.visit("mail")
        ident = f["ident"]
        also = f" The issue is closed: {_ref(p.prev[0])}." if p.prev else ""
        es, got = _observed(ctx, m["notify"], people=paged, subject=subj, body=lambda x: f"Hi {x.first},\n\nThanks for jumping on {title}. Follow-up ticket: {ident}.{also}\n")
        for s in es: p.require(s, "contains", ident, f"{s['person'].name} (paged) is emailed the ticket identifier")
        p.require({"collection": es[0]["collection"], "where": {"subject": subj}}, "count_eq", len(paged), f"exactly the {len(paged)} paged responders get the email")
        p.exclude(m["notify"].absent(ctx, fyi), f"{fyi.name} (FYI only) gets no email", m["notify"].mistake(ctx, fyi, subj))
        p.members("paged_responders", [x.email for x in paged], [fyi.email])
        f["mref"] = _ref(got)
        p.tail = (got, "the email to the paged responders")

    @p.beat("reply", at="brief", after="emails")
    def _():                                                 # the thread: the ticket and the emails' thread
        back = p.visit("brief")
        ident, mref = f["ident"], f["mref"]
        also = f" Issue closed: {_ref(p.prev[0])}." if p.prev and p.order[-1] == "close" else ""
        s, got = _observed(ctx, back["annotate"], title=f"{st['kind']} #{n} follow-up", text=f"Follow-up ticket {ident}; responders emailed (thread {mref}).{also}")
        p.require(s, "contains", ident, f"the reply in the thread gives the ticket identifier {ident}")
        p.require(s, "contains", mref, "the reply in the thread cites the responders' emails")
        p.tail = (got, "the reply in the thread")

    p.run()                                                  # the issue closed before or after the emails, or after the thread's reply
    p.ask(f["ident"], "the final answer reports the follow-up ticket's identifier")
    first = ph.pick("{l} asked me to wrap up {t}.", "Could you do the follow-up for {t}? {l} is busy.", "{t} is over and {l} wants the follow-up done.",
                    l=lead.first, t=f"{st['kind'].lower()} #{n}")
    wrap = _wrap_up(p, ph, title, *p.tail, thread=f"{st['kind']} #{n} follow-up")
    middle = [wrap, ph.pick("The runbook says how urgent the follow-up is — it depends on how many customers reported it.",
                      "Our runbook decides the priority and who hears about it.", "The runbook applies; the incident's own issue has what you need."),
              ph.maybe(ph.pick("Only the people who were actually paged should get an email.", "Don't email the FYI people."), 0.4),
              ph.maybe("Close the loop on the original issue too.", 0.3)]
    last = ph.pick("What's the follow-up ticket's number?", "Send me the follow-up ticket id when done.")
    p.u = ph.say(first, middle, last)

INCIDENT = Shape("incident_followup", roles={"brief": ("doc", "annotate"), "runbook": ("doc",)},
                 fixed={"github": "github", "tracker": "linear", "mail": "gmail"}, play=_play_incident, optional=_WRAP)

_INCIDENT_STORIES = [
    ("outage_followup", "devops", "Outage", "checkout returned errors for twenty minutes", "Incident runbook"),
    ("data_delay_followup", "data", "Data delay", "the nightly report arrived six hours late", "Data incident runbook"),
    ("security_alert_followup", "security", "Security alert", "a leaked token was rotated", "Security runbook"),
    ("release_regression", "devops", "Regression", "the last release broke login on mobile", "Release runbook"),
    ("billing_bug_followup", "finance", "Billing bug", "some invoices were sent twice", "Billing incident runbook"),
    ("search_degradation", "engineering", "Degradation", "search was slow for an hour", "On-call runbook"),
]
for name, dom, kind, what, book in _INCIDENT_STORIES:
    register_scenario(Scenario(name, dom, INCIDENT, {"kind": kind, "what": what, "runbook": book}))


# --- shape 7: a CRM account handed over with its open deals (sales) -----------------------------------------------
def _handover_pick(ctx, rng):
    "A company with open deals of one rep (the leaver: 1-3 of them) and an open deal of another (left alone); `(company, rep, theirs, other)`."
    s = ctx.state("crm")
    open_ = lambda d: not d.stage.startswith("closed")
    comps = sorted({d.company_id for d in scan(s, "deals")})
    rng.shuffle(comps)
    for co in comps:
        ds = sorted((d for d in scan(s, "deals") if d.company_id == co and open_(d)), key=lambda d: d.id)
        owners = sorted({d.owner for d in ds})
        for rep in owners:
            mine = [d for d in ds if d.owner == rep]
            others = [d for d in ds if d.owner != rep]
            if mine and others and len(mine) <= 3: return read(s, "companies", co), rep, mine, others[0]
    for co in comps:                                     # no company has two reps' open deals: the other is one of another company
        ds = sorted((d for d in scan(s, "deals") if d.company_id == co and open_(d)), key=lambda d: d.id)
        if 1 <= len(ds) <= 3:
            rest = sorted((d for d in scan(s, "deals") if d.company_id != co and open_(d)), key=lambda d: d.id)
            return read(s, "companies", co), ds[0].owner, [d for d in ds if d.owner == ds[0].owner], rest[0]
    raise AssertionError("no company with open deals")

def _play_handover(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    boss, new = rng.sample(w.others, 2)
    n = rng.randint(10, 99)
    comp, rep, mine, other = _handover_pick(ctx, rng)
    title, doc_t = f"{st['thing']} #{n}: {comp.name}", f"{st['thing']} notes #{n}"
    doc_spot = _spot(p, "handover", doc_t)
    meeting = f"{st['thing']} call — {comp.name}"
    day = (EPOCH + timedelta(days=rng.randint(2, 9))).date()
    while day.weekday() >= 5: day += timedelta(days=1)
    subj = f"{st['thing']}: {comp.name}"
    f = {}                                                   # what the beats observe, for the beats after them

    @p.beat("brief", at="brief")
    def _():                                                 # the request
        b = p.visit("brief")
        b["doc"](ctx, title=title, author=boss, body=ph.pick("{c} changes hands. How is in “{d}” ({where}).", "Please hand over {c} as “{d}” ({where}) says.",
                                                             c=comp.name, d=doc_t, where=doc_spot["phrase"]))

    @p.beat("notes", at="handover", after="brief")
    def _():                                                 # the handover notes: whose deals, the rule by stage, who takes over
        d = p.visit("handover")
        d["doc"](ctx, title=doc_t, author=boss, spot=doc_spot, body="\n".join([
            f"{comp.name} (company id {comp.id}): every open deal owned by {rep} goes to {new.name} <{new.email}>. Deals of other reps stay as they are.",
            f"- A deal already at the negotiation stage: log a call activity on it, subject “{subj}”, naming {new.first} as the new owner.",
            f"- Any other open deal: log a note activity on it, same subject, naming {new.first}.",
            f"- Email {new.first} the list of those deals with their amounts, subject “{subj}”.",
            f"- Book “{meeting}” with {new.first} on {day.isoformat()} from 10:00 to 10:30, citing that email's thread in the description.",
            "- Reply in the request's thread with the invite link, and note here that it's done, with the invite link too."]))

    @p.beat("deals", at="crm", after="notes")
    def _():                                                 # the deals listed, each logged by its stage
        p.visit("crm")
        got = ctx.call("list_deals", company_id=comp.id, owner=rep, limit=100)
        f["seen"] = seen = [x for x in got["items"] if not x["stage"].startswith("closed")]
        assert [x["id"] for x in seen] == [x.id for x in sorted(mine, key=lambda d: (d.close_date, d.id))], "deal listing differs"
        for x in seen:
            call = x["stage"] == "negotiation"
            ctx.call("log_activity", type="call" if call else "note", subject=subj, body=f"Handed over to {new.name}.", deal_id=x["id"])
            sel = {"collection": "activities", "where": {"deal_id": x["id"], "subject": subj}}
            c1 = p.require({**sel, "field": "type"}, "eq", "call" if call else "note", f"{x['name']} ({x['stage']}) gets a {'call' if call else 'note'} logged, as its stage decides")
            p.require({**sel, "field": "body"}, "contains", new.name, f"the activity on {x['name']} names {new.name}")
            p.condition(f"deal_{x['id']}_negotiation", x["stage"], {"op": "eq", "value": "negotiation"}, call, [c1], [c1])
        p.exclude({"collection": "activities", "where": {"deal_id": other.id}}, f"{other.name} (owned by {other.owner}) gets no activity",
                  {"tool": "crm.log_activity", "arguments": {"type": "note", "subject": subj, "body": f"Handed over to {new.name}.", "deal_id": other.id}})
        p.members("deals_handed_over", [x["id"] for x in seen], [other.id])

    @p.beat("email", at="mail", after="deals")
    def _():                                                 # the email with the deals and their amounts
        m = p.visit("mail")
        seen = f["seen"]
        es, got = _observed(ctx, m["notify"], people=[new], subject=subj, body=lambda g: f"Hi {g.first},\n\n{comp.name} is yours: " + "; ".join(f"{x['name']} ({x['amount']:.2f})" for x in seen) + ".\n")
        names = {x["name"] for x in seen}
        for x in seen:
            p.require(es[0], "contains", x["name"], f"{new.name} is emailed {x['name']}", rivals=[other.name] if other.name not in names else None)
            p.require(es[0], "contains", x["amount"], f"the email gives the amount of {x['name']} ({x['amount']:.2f})")
        f["thread"] = _ref(got)

    @p.beat("call", at="calendar", after="email")
    def _():                                                 # the handover call, citing the email
        cal = p.visit("calendar")
        thread = f["thread"]
        mt, got = _observed(ctx, cal["meeting"], title=meeting, day=day, people=[new], description=f"Handover email thread {thread}.")
        p.require({**mt, "field": "description"}, "contains", thread, f"“{meeting}” cites the handover email's thread")
        p.require({**mt, "field": "start.dateTime"}, "eq", mt["event"]["start"]["dateTime"], f"“{meeting}” is on {day.isoformat()} at 10:00")
        f["link"] = mt["event"]["htmlLink"]
        p.tail = (got, "the handover call")

    @p.beat("reply", at="brief", after="call")
    def _():                                                 # the thread gets the link
        back = p.visit("brief")
        link = f["link"]
        also = _cite(p, " Notes updated: {}.") if p.order[-1] != "call" else ""
        s, got = _observed(ctx, back["annotate"], title=title, text=f"Handed over; call booked: {link}{also}")
        p.require(s, "contains", link, "the reply in the thread gives the invite link")
        p.tail = (got, "the reply in the request's thread")

    @p.beat("done", at="handover", after="call")
    def _():                                                 # the notes are marked done, with the invite link (and what the beat before did)
        hd = p.visit("handover")
        link = f["link"]
        also = _cite(p, " See {}.") if p.order[-1] != "call" else ""
        s, got = _observed(ctx, hd["annotate"], title=doc_t, text=f"Done — call booked: {link}.{also}")
        p.require(s, "contains", link, "the handover notes are marked done, with the invite link")
        p.tail = (got, "the note on the handover notes")

    p.run()                                                  # the notes marked done before or after the thread's reply
    seen = f["seen"]
    top = max(seen, key=lambda x: (x["amount"], x["id"]))
    p.ask(f"{top['amount']:.2f}" if top["amount"] % 1 else str(int(top["amount"])), "the final answer gives the largest deal's amount")
    first = ph.pick("{b} asked me to hand {c} over to {x}.", "Could you do the {c} handover? {b} wants {x} to take it.", "{c} moves to {x}; {b} asked for the handover.",
                    b=boss.first, c=comp.name, x=new.first)
    wrap = _wrap_up(p, ph, title, *p.tail, thread=title, notes={"handover": (doc_t, "the handover notes")})
    middle = [wrap, ph.pick("Only the leaving rep's open deals move — the notes say how.", "The handover notes decide what each deal needs.", "Leave the other reps' deals alone."),
              ph.maybe("Deals in late negotiation need a personal touch.", 0.4)]
    last = ph.pick("What's the biggest deal we're handing over worth?", "Tell me the largest deal's amount.")
    p.u = ph.say(first, middle, last)

HANDOVER = Shape("crm_handover", roles={"brief": ("doc", "annotate"), "handover": ("doc", "annotate")},
                 fixed={"crm": "crm", "mail": "gmail", "calendar": "calendar"}, play=_play_handover, optional=_WRAP, cites=("brief",))

_HANDOVER_STORIES = [
    ("deal_handover_crm", "sales", "Account handover", ),
    ("territory_change", "sales", "Territory change"),
    ("rep_departure", "sales", "Rep departure handover"),
    ("parental_leave_cover", "people", "Leave cover"),
    ("key_account_transfer", "sales", "Key account transfer"),
    ("partner_reassignment", "sales", "Partner reassignment"),
]
for name, dom, thing in _HANDOVER_STORIES:
    register_scenario(Scenario(name, dom, HANDOVER, {"thing": thing}))


# --- K=2 shapes: short workflows for small models (two services, one revisit; L = 3 or 4, at most ~8 reference calls) ---
# Each still is a request a person makes: goal-level u, a condition on an observed value, a set with an exclusion or an
# answer, and writes in both services where the pair allows. They have no optional roles (`Shape.ks` is (2,)), so the
# K=5 draws are untouched.

# --- shape 8: a sign-up list decides who is emailed, and the list is marked with what the count decides -------------------
def _play_list_notice(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    boss = rng.choice(w.others)
    n = rng.randint(10, 99)
    thing = f"{st['thing']} #{n}"
    title = f"{thing}: {st['list']}"
    people = rng.sample([x for x in w.others if x != boss], rng.choice((3, 4)))
    marks = [rng.choice((st["yes"], st["no"])) for _ in people]
    if st["yes"] not in marks: marks[0] = st["yes"]
    if st["no"] not in marks: marks[-1] = st["no"]
    ins = [x for x, m in zip(people, marks) if m == st["yes"]]
    outs = [x for x, m in zip(people, marks) if m == st["no"]]
    need = rng.choice((2, 3))
    enough = len(ins) >= need
    ok_say, short_say = st["ready"], st["short"]
    venue = rng.choice(w.places).label
    hour = rng.choice(("9:00", "10:30", "13:00", "17:30"))
    subject = f"{thing}: {st['subject']}"
    list_spot = _spot(p, "list", title)
    brief = rng.random() < 0.8                               # a note in the inbox points to the list (L=4), or u does (L=3: a walk the demo's l_min=4 refuses)
    f = {}

    if brief:
        @p.beat("brief", at="mail")
        def _():                                             # the organiser's note points to the list
            b = p.visit("mail")
            b["doc"](ctx, title=f"{thing} — over to you", author=boss,
                     body=ph.pick("The {l} for {t} is “{d}” ({where}); the rule is at the bottom.", "Can you deal with the {l} for {t}? It's “{d}” in {where}.",
                                  l=st["list"], t=thing, d=title, where=list_spot["phrase"]))

    @p.beat("list", at="list", after=("brief",) if brief else ())
    def _():                                                 # the list: who said what, where and when, and the rule
        d = p.visit("list")
        d["doc"](ctx, title=title, author=boss, spot=list_spot, body="\n".join(      # compact: a small model reads it within ~600 characters
            [f"{st['intro']} — {venue}, {hour}:", *[f"{x.name} <{x.email}>: {m}" for x, m in zip(people, marks)],
             f"Rule: email each person {st['yes']} (subject “{subject}”) the place and time; nobody {st['no']}.",
             f"Then note here “{ok_say}” if {need}+ are {st['yes']}, else “{short_say}”, with the last email's thread id."]))

    @p.beat("emails", at="mail", after="list")
    def _():                                                 # one email per person marked yes
        m = p.visit("mail")
        sels, got = _observed(ctx, m["notify"], people=ins, subject=subject, body=lambda x: f"Hi {x.first},\n\n{thing} is at {venue}, {hour}. See you there!\n")
        for s in sels: p.require(s, "contains", venue, f"{s['person'].name} ({st['yes']}) is emailed the place ({venue})", rivals=[q.label for q in w.places if q.label != venue])
        p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(ins), f"exactly the {len(ins)} {'people' if len(ins) > 1 else 'person'} marked {st['yes']} get the email")
        p.exclude(m["notify"].absent(ctx, outs[0]), f"{outs[0].name} ({st['no']}) gets no email", m["notify"].mistake(ctx, outs[0], subject))
        p.members("emailed", [x.email for x in ins], [x.email for x in outs])
        f["ref"] = _ref(got)

    @p.beat("note", at="list", after="emails")
    def _():                                                 # the list marked with what the count decides, citing the emails
        back = p.visit("list")
        say = ok_say if enough else short_say
        s, got = _observed(ctx, back["annotate"], title=title, text=f"{say} — {len(ins)} {st['yes']}; emails sent (thread {f['ref']}).")
        c1 = p.require(s, "contains", say, f"the list is marked “{say}” ({len(ins)} {st['yes']}, {need} needed)", rivals=[short_say if enough else ok_say])
        p.require(s, "contains", f["ref"], "the note on the list cites the last email's thread")
        p.condition("enough_people", len(ins), {"op": "gte", "value": need}, enough, [c1], [c1], visit=p.pos("list"))

    p.run()
    p.ask(str(len(ins)), f"the final answer says how many people are {st['yes']} ({len(ins)})")
    first = (ph.pick("{b} handed {t} over to me.", "{b} asked me to take care of {t}.", "Could you sort out {t} for {b}?", b=boss.first, t=thing.lower()) if brief else
             ph.pick("The {l} for {t} is “{d}” ({where}).", "Could you handle the {l} for {t}? It's “{d}” in {where}.",
                     l=st["list"], t=thing.lower(), d=title, where=list_spot["phrase"]))
    middle = [ph.pick("Go by the list's rule: only the people who said yes hear from us.", "The list says who gets an email and what to note on it.",
                      "Do what the list's rule says, and mark the list when you're done."),
              ph.maybe(ph.pick("Don't email anyone who said no.", "People who declined don't need an email."), 0.4)]
    last = ph.pick("How many are coming?", "Tell me how many said yes.", "And let me know the head count.")
    p.u = ph.say(first, middle, last)

LIST_NOTICE = Shape("list_notice", roles={"list": ("doc", "annotate")}, fixed={"mail": "gmail"}, play=_play_list_notice, ls=(3, 4),
                    avoid=("slack", "notion"))   # their document reads (a channel dump; one block per line) are paged: replays ~12k characters and up to 9 calls, forum's ~9k

_NOTICE_STORIES = [
    ("volunteer_signup", "community", "Volunteer shift", "sign-up sheet", "Volunteers", "confirmed", "can't make it", "ready to go", "needs more people", "your shift"),
    ("team_lunch_rsvp", "people", "Team lunch", "RSVP list", "Replies", "coming", "not coming", "booked", "too few for a booking", "lunch details"),
    ("bug_bash_signup", "engineering", "Bug bash", "sign-up list", "Testers", "signed up", "dropped out", "going ahead", "postponed", "bug bash details"),
    ("customer_dinner", "sales", "Customer dinner", "guest list", "Guests", "accepted", "declined", "table confirmed", "too few guests", "dinner details"),
    ("interview_panel", "hiring", "Interview panel", "panel list", "Panelists", "available", "unavailable", "panel complete", "panel incomplete", "panel details"),
    ("workshop_seats", "events", "Workshop", "seat list", "Seats", "registered", "withdrew", "going ahead", "not enough sign-ups", "workshop details"),
    ("carpool_list", "operations", "Site trip", "carpool list", "Riders", "riding", "driving themselves", "van booked", "no van needed", "pickup details"),
    ("study_group", "knowledge", "Study group", "attendance list", "Members", "attending", "skipping", "session on", "session cancelled", "session details"),
]
for name, dom, thing, lst, intro, yes, no, ready, short, subj in _NOTICE_STORIES:
    register_scenario(Scenario(name, dom, LIST_NOTICE, {"thing": thing, "list": lst, "intro": intro, "yes": yes, "no": no,
                                                        "ready": ready, "short": short, "subject": subj}))

# --- shape 9: an event's unanswered invitations chased, and the event kept or moved by how many accepted ---------------
_RSVP = {"accepted": "accepted", "pending": "needsAction", "declined": "declined"}

def _play_rsvp(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    org = rng.choice(w.others)
    n = rng.randint(10, 99)
    event = f"{st['event']} #{n}"
    venue = rng.choice(w.places).label
    alt = st["alt"].format(n=n, code=rng.randint(100, 999))
    marks = ["accepted"] * rng.randint(1, 3) + ["pending"] * rng.randint(1, 2) + ["declined"] * rng.randint(1, 2)
    rng.shuffle(marks)
    guests = rng.sample([x for x in w.others if x != org], len(marks))
    pending = [x for x, m in zip(guests, marks) if m == "pending"]
    declined = [x for x, m in zip(guests, marks) if m == "declined"]
    n_acc = marks.count("accepted")
    need = rng.choice((2, 3))
    keep = n_acc >= need
    final = venue if keep else alt
    subject = f"{event}: {st['subject']}"
    window = upcoming_window()                               # the event is 2-12 days ahead (`event_beat`)
    f = {}

    @p.beat("brief", at="mail")
    def _():                                                 # the organiser's note: the rule
        b = p.visit("mail")
        b["doc"](ctx, title=f"{st['event']} RSVPs", author=org, body="\n".join([      # the subject has no number: the event's title (with it) is what this visit reveals
            f"{event} is on your calendar, some time between {written_date(window[0])} and {written_date(window[1])}. Please remind everyone who hasn't answered the invitation yet, one email each, subject “{subject}”.",
            f"If fewer than {need} guests have accepted, move it to {alt}; otherwise it stays at {venue}.",
            "Either way, note in the event's description that the reminders went out, with the thread id of the last one."]))

    @p.beat("event", at="calendar", after="brief")
    def _():                                                 # the event and who answered what
        f["ev"] = p.visit("calendar")["event"](ctx, title=event, place=venue, guests=[(x, _RSVP[m]) for x, m in zip(guests, marks)], window=window)

    @p.beat("chase", at="mail", after="event")
    def _():                                                 # one reminder per guest who has not answered
        m = p.visit("mail")
        sels, got = _observed(ctx, m["notify"], people=pending, subject=subject,
                              body=lambda x: f"Hi {x.first},\n\nCould you let me know if you can make {event}? Thanks!\n")
        for s in sels: p.require(s, "contains", event, f"{s['person'].name} (no answer yet) is reminded about {event}")
        p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(pending),
                  f"exactly the {len(pending)} guest{'s who did not answer get' if len(pending) > 1 else ' who did not answer gets'} a reminder")
        p.exclude(m["notify"].absent(ctx, declined[0]), f"{declined[0].name} (declined) gets no reminder", m["notify"].mistake(ctx, declined[0], subject))
        p.members("reminded", [x.email for x in pending], [x.email for x, mk in zip(guests, marks) if mk != "pending"])
        f["ref"] = _ref(got)

    @p.beat("update", at="calendar", after="chase")
    def _():                                                 # the event kept or moved by the head count, the reminders noted
        c = p.visit("calendar")
        (loc, desc), _ = _observed(ctx, c["update"], event_id=f["ev"]["id"], location=final,
                                   description=f"{n_acc} accepted. Reminders sent (thread {f['ref']}).{'' if keep else ' Moved: too few acceptances.'}")
        c1 = (p.exclude(loc, f"{event} stays at {venue} ({n_acc} accepted, {need} needed)", c["update"].mistake(ctx, f["ev"]["id"], alt)) if keep else
              p.require(loc, "eq", alt, f"{event} is moved to {alt} ({n_acc} accepted, {need} needed)"))
        p.require(desc, "contains", f["ref"], "the event's description cites the last reminder's thread")
        p.condition("enough_accepted", n_acc, {"op": "gte", "value": need}, keep, [c1], [c1], visit=p.pos("event"))

    p.run()
    p.ask(final, f"the final answer says where {event} will be", rivals=[alt if keep else venue])
    first = ph.pick("{o} asked me to chase the RSVPs for the {e}.", "Could you deal with the {e} RSVPs? {o} emailed me about it.",
                    "The {e} is coming up and {o} wants the stragglers chased.", o=org.first, e=st["event"].lower())
    middle = [ph.pick("{o}'s note has the rule for where it ends up.", "Whether it moves depends on how many have accepted — {o}'s note says.",
                      "Go by {o}'s note.", o=org.first),
              ph.maybe(ph.pick("Only people who haven't replied need a reminder.", "Don't bother anyone who already declined."), 0.5)]
    last = ph.pick("Where will it be in the end?", "Tell me where it ends up.", "Let me know where it'll be.")
    p.u = ph.say(first, middle, last)

RSVP_CHASE = Shape("rsvp_chase", roles={}, fixed={"mail": "gmail", "calendar": "calendar"}, play=_play_rsvp, ls=(4,))

_RSVP_STORIES = [
    ("board_meeting_rsvp", "finance", "Board meeting", "the video room meet.example.com/board-{n}", "please reply"),
    ("design_review_rsvp", "design", "Design review", "a video call at meet.example.com/review-{n}", "are you coming?"),
    ("offsite_dinner_rsvp", "offsite", "Offsite dinner", "the hotel restaurant, table {code}", "RSVP reminder"),
    ("training_session_rsvp", "people", "Training session", "the online classroom meet.example.com/train-{n}", "reminder"),
    ("partner_briefing_rsvp", "sales", "Partner briefing", "a webinar at meet.example.com/brief-{n}", "your RSVP"),
    ("town_hall_rsvp", "operations", "Town hall", "the live stream at meet.example.com/townhall-{n}", "please RSVP"),
    ("planning_day_rsvp", "product", "Planning day", "meeting room {code}", "RSVP please"),
    ("alumni_meetup_rsvp", "community", "Alumni meetup", "the online lounge meet.example.com/alumni-{n}", "are you in?"),
]
for name, dom, ev, alt, subj in _RSVP_STORIES:
    register_scenario(Scenario(name, dom, RSVP_CHASE, {"event": ev, "alt": alt, "subject": subj}))

def _users(k: int) -> str:
    "A count of users as a person writes it: 1 user, 3 users."
    return f"{k} user" if k == 1 else f"{k} users"

# --- shape 10: customer bug reports turned into one ticket, its priority by how many users are affected -------------------
def _play_bug_report(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    lead = rng.choice(w.others)
    people = rng.sample([x for x in w.others if x != lead], rng.choice((3, 3, 4)))
    told, reporters = people[-1], people[:-1]
    hits = [rng.randint(1, 6) for _ in reporters]
    total, limit = sum(hits), rng.choice((5, 8, 10))
    urgent = total >= limit
    prio = 1 if urgent else 3
    team = w.teams[rng.randrange(len(w.teams))]
    n = rng.randint(100, 999)
    ticket = f"{st['ticket']} (report #{n})"
    subject = f"Re: {st['symptom']}"
    f = {}

    @p.beat("brief", at="mail")
    def _():                                                 # the support lead's note: who reported it and the rule
        b = p.visit("mail")
        b["doc"](ctx, title=f"Customer reports: {st['symptom']}", author=lead, body="\n".join(
            [f"Customers report that {st['symptom']} (report #{n}):"] + [f"- {x.name} <{x.email}>: {_users(k)} affected" for x, k in zip(reporters, hits)] +
            [f"- {told.name} <{told.email}>: already told by their account manager, no email.",
             f"Rule: one ticket for the {team.name} team (key {team.id}) titled “{ticket}”, naming who reported it; priority 1 if {limit} or more users are affected in all, else 3.",
             f"Reply to each customer who reported it (subject “{subject}”) with the ticket's identifier, then add the thread id of the last reply to the ticket's description."]))

    @p.beat("ticket", at="tracker", after="brief")
    def _():                                                 # the ticket, its priority decided by the count
        p.visit("tracker")
        desc = f"{st['symptom'][0].upper() + st['symptom'][1:]}. Reported by " + ", ".join(f"{x.name} ({_users(k)})" for x, k in zip(reporters, hits)) + "."
        got = ctx.call("linear_create_issue", title=ticket, teamId=team.id, description=desc, priority=prio)
        f["ident"], f["desc"] = got["identifier"], desc
        sel = {"collection": "issues", "where": {"title": ticket, "teamId": team.id}}
        cp = p.require({**sel, "field": "priority"}, "eq", prio, f"the ticket's priority is {prio} ({_users(total)} affected, {limit} make it urgent)")
        for x in reporters: p.require({**sel, "field": "description"}, "contains", x.name, f"the ticket names {x.name}, who reported it")
        p.condition("urgent", total, {"op": "gte", "value": limit}, urgent, [cp], [cp], visit=p.pos("brief"))

    @p.beat("replies", at="mail", after="ticket")
    def _():                                                 # one reply per reporter, with the ticket's identifier
        m = p.visit("mail")
        ident = f["ident"]
        sels, got = _observed(ctx, m["notify"], people=reporters, subject=subject,
                              body=lambda x: f"Hi {x.first},\n\nThanks for reporting it. We're tracking it as {ident}.\n")
        for s in sels: p.require(s, "contains", ident, f"{s['person'].name} is told the ticket's identifier ({ident})")
        p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(reporters), f"exactly the {len(reporters)} customers who reported it get a reply")
        p.exclude(m["notify"].absent(ctx, told), f"{told.name} (already told) gets no email", m["notify"].mistake(ctx, told, subject))
        p.members("replied", [x.email for x in reporters], [told.email])
        f["ref"] = _ref(got)

    @p.beat("note", at="tracker", after="replies")
    def _():                                                 # the replies' thread added to the ticket
        p.visit("tracker")
        ctx.call("linear_update_issue", id=f["ident"], description=f"{f['desc']} Customers replied to (thread {f['ref']}).")
        p.require({"collection": "issues", "where": {"title": ticket, "teamId": team.id}, "field": "description"}, "contains", f["ref"],
                  "the ticket's description cites the last reply's thread")

    p.run()
    p.ask(f["ident"], "the final answer gives the ticket's identifier")
    first = ph.pick("{l} forwarded me some customer reports: {s}.", "Customers are reporting that {s} — {l} sent me the details.",
                    "Can you take care of the reports {l} collected? {S}.", l=lead.first, s=st["symptom"], S=st["symptom"][0].upper() + st["symptom"][1:])
    middle = [ph.pick("{l}'s note says how urgent it is and who should hear back.", "Follow {l}'s rule for the ticket and the replies.",
                      "Track it and get back to the customers the way {l} asks.", l=lead.first),
              ph.maybe(ph.pick("One customer has already been told, so leave them out.", "Don't email anyone who's already been told."), 0.4)]
    last = ph.pick("What's the ticket number?", "Tell me the ticket's identifier.", "Send me the ticket id when you're done.")
    p.u = ph.say(first, middle, last)

BUG_REPORT = Shape("bug_report", roles={}, fixed={"mail": "gmail", "tracker": "linear"}, play=_play_bug_report, ls=(4,))

_BUG_STORIES = [
    ("checkout_bug_reports", "commerce", "checkout fails with a card error", "Checkout card errors"),
    ("login_loop_reports", "support", "the login page sends them back to itself", "Login loop"),
    ("invoice_tax_reports", "finance", "invoices show the wrong tax", "Wrong tax on invoices"),
    ("stale_report_reports", "data", "the weekly report shows last month's numbers", "Stale weekly report"),
    ("export_column_reports", "product", "CSV exports miss the last column", "CSV export missing a column"),
    ("app_crash_reports", "engineering", "the mobile app crashes on start", "Mobile app crash on start"),
    ("phishing_reports", "security", "a phishing email is going round in our name", "Phishing email in our name"),
    ("broken_link_reports", "content", "links in the help centre are broken", "Broken help centre links"),
]
for name, dom, symptom, tk in _BUG_STORIES:
    register_scenario(Scenario(name, dom, BUG_REPORT, {"symptom": symptom, "ticket": tk}))

# --- shape 11: an issue's reporters told whether it is fixed, and the issue closed only if it is ----------------------
def _play_issue_wrapup(p, st: dict) -> None:
    ctx, rng, w = p.ctx, p.rng, p.ctx.world
    ph = Phrasing(rng)
    lead = rng.choice(w.others)
    people = rng.sample([x for x in w.others if x != lead], rng.choice((3, 3, 4)))
    internal, reporters = people[-1], people[:-1]
    n = rng.randint(100, 999)
    title = f"{st['bug']} (#{n})"
    fixed = rng.random() < 0.5
    version = f"v{rng.randint(2, 9)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}"
    status = f"Status: fixed in {version}." if fixed else f"Status: {st['open']}."
    subject = f"Update on {st['bug'].lower()}"
    gh = beats_of(p.library["github"])
    spot = _spot(p, "github", title)
    f = {}

    @p.beat("brief", at="mail")
    def _():                                                 # the maintainer's note: the rule
        b = p.visit("mail")
        b["doc"](ctx, title=f"{st['bug']} — follow-up", author=lead, body="\n".join([
            f"Could you follow up on the GitHub issue “{title}” ({spot['phrase']})?",
            f"Email each person it lists as a reporter (subject “{subject}”) whether it's fixed, and the version if it is; not the internal ones.",
            "If the issue says it's fixed, close it with a comment citing the thread of your last email; otherwise just comment that, and leave it open."]))

    @p.beat("issue", at="github", after="brief")
    def _():                                                 # the issue: who reported it and its status line
        g = p.visit("github")
        g["doc"](ctx, title=title, author=lead, spot=spot, body="\n".join(
            [st["what"], "Reporters:"] + [f"- {x.name} <{x.email}>" for x in reporters] + [f"- {internal.name} <{internal.email}> (internal)", status]))

    @p.beat("emails", at="mail", after="issue")
    def _():                                                 # one email per reporter: fixed (with the version) or not yet
        m = p.visit("mail")
        say = f"it is fixed in {version}" if fixed else "it is not fixed yet; we're still on it"
        sels, got = _observed(ctx, m["notify"], people=reporters, subject=subject, body=lambda x: f"Hi {x.first},\n\nAbout {title}: {say}.\n")
        for s in sels:
            if fixed: p.require(s, "contains", version, f"{s['person'].name} is told it is fixed in {version}")
            else: p.require(s, "contains", title, f"{s['person'].name} is told about {title}")
        p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(reporters), f"exactly the {len(reporters)} reporters get the email")
        p.exclude(m["notify"].absent(ctx, internal), f"{internal.name} (internal) gets no email", m["notify"].mistake(ctx, internal, subject))
        p.members("reporters", [x.email for x in reporters], [internal.email])
        f["ref"] = _ref(got)

    @p.beat("close", at="github", after="emails")
    def _():                                                 # the issue closed (fixed) or only commented (not yet), citing the emails
        p.visit("github")
        text = f"Reporters emailed (thread {f['ref']})."
        if fixed:
            cl = gh["close"](ctx, title, text)
            c1 = p.require(cl["state"], "eq", "closed", f"the issue is closed: it says fixed in {version}")
            sel = cl["comment"]
        else:
            i = next(i for i in sorted(scan(ctx.state("github"), "issues"), key=lambda i: i.id) if i.title == title)
            r = read(ctx.state("github"), "repos", i.repo)
            ctx.call("add_issue_comment", owner=r.owner, repo=r.name, issue_number=i.number, body=text)
            sel = {"collection": "comments", "where": {"repo": r.id, "issue_number": i.number}, "field": "body"}
            c1 = p.exclude({"collection": "issues", "where": {"id": i.id}, "field": "state"}, "the issue stays open: it is not fixed yet",
                           {"tool": "github.update_issue_state", "arguments": {"owner": r.owner, "repo": r.name, "issue_number": i.number, "state": "closed", "state_reason": "completed"}})
        p.require(sel, "contains", f["ref"], "the issue's comment cites the last email's thread")
        p.condition("fixed", status, {"op": "contains", "value": "fixed in"}, fixed, [c1], [c1], visit=p.pos("issue"))

    p.run()
    p.ask(version if fixed else st["open"], f"the final answer gives the issue's status ({'fixed in ' + version if fixed else st['open']})")
    first = ph.pick("{l} asked me to follow up on a GitHub issue.", "Could you do the follow-up {l} asked for on our GitHub issue?",
                    "{l} wants the reporters of a GitHub issue told where it stands.", l=lead.first)
    middle = [ph.pick("{l}'s note says what to do, depending on whether it's fixed.", "Go by {l}'s note.", "Only close it if it's really fixed.", l=lead.first),
              ph.maybe(ph.pick("Internal people don't need an email.", "Just the reporters, not our own people."), 0.4)]
    last = ph.pick("What's its status?", "Tell me where it stands.", "What does the issue say about its status?")
    p.u = ph.say(first, middle, last)

ISSUE_WRAPUP = Shape("issue_wrapup", roles={}, fixed={"mail": "gmail", "github": "github"}, play=_play_issue_wrapup, ls=(4,))

_ISSUE_STORIES = [
    ("sync_bug_followup", "engineering", "Sync drops files", "Files added while offline are lost on the next sync.", "reproduced, fix in progress"),
    ("api_timeout_followup", "devops", "API timeouts", "The orders API times out under load.", "investigating"),
    ("docs_typo_followup", "content", "Wrong example in the docs", "The quick-start example uses a removed flag.", "needs a writer"),
    ("csv_import_followup", "data", "CSV import fails", "Importing a CSV with a BOM fails.", "waiting for a sample file"),
    ("dark_mode_followup", "design", "Dark mode contrast", "Buttons are unreadable in dark mode.", "in design review"),
    ("token_leak_followup", "security", "Token shown in logs", "Access tokens appear in debug logs.", "patch in review"),
    ("checkout_rounding_followup", "commerce", "Checkout rounding", "Totals are off by a cent for some carts.", "reproduced"),
    ("sso_login_followup", "support", "SSO login fails", "Single sign-on fails for some accounts.", "awaiting vendor"),
]
for name, dom, bug, what, open_ in _ISSUE_STORIES:
    register_scenario(Scenario(name, dom, ISSUE_WRAPUP, {"bug": bug, "what": what, "open": open_}))
