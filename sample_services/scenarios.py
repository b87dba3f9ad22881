"""Workflow scenarios over the sample library (compoworld_nb.scenario): two shapes and the stories that give them meaning.

* `weather_event` — an organiser's note points to a plan document; the plan names an event on the calendar, a weather
  rule (rain or snow → move to the alternative, else keep the venue), a host who must not be emailed, and an email to
  every guest who accepted. Visits: mail → plan → calendar → maps → weather → calendar → mail (K=5, L=7).
* `list_followup` — a request points to a list document (people with a status each); the document's rule decides who is
  in, and a condition on the data decides the ticket's priority; the ticket's identifier is noted back on the list,
  announced elsewhere, a meeting with everyone in is booked and each of them gets an email with the meeting link.
  Visits: mail → list → tracker → list → announce → calendar → mail (K=5, L=7).

Each story below is one scenario: its own nouns, rule wording and phrasings (several per sentence, chosen by the seed).
"""
from __future__ import annotations
from datetime import timedelta
from compoworld_nb.core import EPOCH
from compoworld_nb.scenario import Shape, Scenario, Phrasing, register_scenario, SCENARIOS
from compoworld_nb.service import beats_of

__all__ = ["WEATHER_EVENT", "LIST_FOLLOWUP", "WET", "SCENARIOS"]

# every short forecast the weather fixture can give that means rain or snow
WET = ["Chance Light Rain", "Light Rain", "Rain Showers Likely", "Chance Light Snow", "Light Snow", "Snow Showers Likely"]
# every short forecast for "today" the fixture can give (the rivals of the one observed)
FORECASTS = ["Sunny", "Mostly Sunny", "Partly Sunny", "Mostly Cloudy", "Cloudy", "Patchy Fog"] + WET

def _spot(p, role: str, title: str) -> dict:
    "Where the document of `role` titled `title` will sit (chosen before it is planted, so an earlier document can point to it)."
    return beats_of(p.library[p.cast[role]])["doc"].spot(p.ctx, title)

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
    # visit 0: the organiser's note (in the mailbox) points to the plan
    b = p.visit("brief")
    brief = ph.pick("I put the plan for {e} in “{t}” ({where}); please run it as written.",
                    "The plan for {e} is written up as “{t}” in {where}. Can you take care of it?",
                    "Everything for {e} is in “{t}” ({where}) — weather call, invites, the lot.", e=event, t=title, where=plan_spot["phrase"])
    b["doc"](ctx, title=f"{st['event']} #{n} — over to you", body=brief, author=org)
    # visit 1: the plan, holding the rule, the exclusion and what to write
    d = p.visit("plan")
    rule = (f"{event} is on the calendar as “{event}”, at {venue}.\n"
            f"Weather rule: if the latest forecast for the venue calls for rain or snow, move it to {alt}; otherwise keep it at {venue}.\n"
            f"Either way, put the forecast in the event's description.\n"
            f"Email every guest who accepted, one email each, with the subject “{subject}”, saying where it will be.\n"
            f"{host.name} is {st['host_role']} and already knows — do not email {host.first}.")
    d["doc"](ctx, title=title, body=rule, author=org, spot=plan_spot)
    # visit 2: the event and its guests
    c = p.visit("calendar")
    ev = c["event"](ctx, title=event, place=venue, guests=list(zip(guests, statuses)))
    # visits 3-4: where the venue is, and the forecast there
    coords = p.visit("maps")["geocode"](ctx, place=ev["location"])
    fc = p.visit("weather")["forecast"](ctx, coords=coords)
    wet = fc["short"] in WET
    final = alt if wet else venue
    # visit 5: the event moved or kept, with the forecast noted
    c = p.visit("calendar")
    loc, desc = c["update"](ctx, event_id=ev["id"], location=final,
                            description=f"Forecast: {fc['short']}. {'Moved to ' + alt if wet else 'Staying at ' + venue} ({st['event'].lower()} weather rule).")
    c1 = (p.require(loc, "eq", final, f"the event is moved to the alternative ({final}), as the forecast decides") if wet else
          p.exclude(loc, f"the event stays at {venue}, as the forecast decides", c["update"].mistake(ctx, ev["id"], alt)))
    c2 = p.require(desc, "contains", fc["short"], f"the event's description notes the forecast ({fc['short']})", rivals=[f for f in FORECASTS if f != fc["short"]])
    p.condition("wet_forecast", fc["short"], {"op": "in", "value": WET}, wet, [c1, c2], [c1])
    # visit 6: one email per guest who accepted, except the host
    m = p.visit("brief")
    sels = m["notify"](ctx, people=invite, subject=subject,
                       body=lambda g: f"Hi {g.first},\n\n{event} will be at {final}. {'(Moved because of the forecast: ' + fc['short'] + '.)' if wet else ''}\n\nSee you there")
    for s in sels:
        p.require(s, "contains", final, f"{s['person'].name} is emailed where {event} will be ({final})", rivals=[venue if wet else alt])
        p.require(s, "contains", event, f"the email to {s['person'].name} names {event}")
    p.require({"collection": sels[0]["collection"], "where": {"subject": subject}}, "count_eq", len(invite),
              f"exactly the {len(invite)} guests who accepted, not {host.name} ({st['host_role']}) nor anyone who declined, get the email")
    p.exclude(m["notify"].absent(ctx, host), f"{host.name} ({st['host_role']}) gets no email at all", m["notify"].mistake(ctx, host, subject))
    p.members("guests_to_email", [g.email for g in invite], [host.email] + [g.email for g, s in zip(guests, statuses) if s == "declined"])
    p.ask(fc["short"], "the final answer reports the forecast at the venue", rivals=[f for f in FORECASTS if f != fc["short"]])
    # the request, at goal level
    first = ph.pick("{o} left me a note about {e} and I'd like it handled.", "Can you take care of {e} for me, as {o} wrote it up?",
                    "{o} has handed {e} over to me.", "I need {e} sorted out today — {o} emailed me about it.", o=org.first, e=st["event"].lower() + " " + f"#{n}")
    middle = [ph.pick("Follow the plan {o} wrote, including the weather rule.", "Whatever the plan says about the weather, go with it.",
                      "Do what the plan says; the weather decides where it happens.", o=org.first),
              ph.maybe(ph.pick("Only the guests who said yes should hear from us.", "People who declined don't need an email.",
                               "Leave the host out of the emails.", "The host already knows, so no email for them."), 0.5)]
    last = ph.pick("And tell me what the forecast says.", "When you're done, let me know the forecast.", "What's the forecast, by the way?")
    p.u = ph.say(first, middle, last)

WEATHER_EVENT = Shape("weather_event", roles={"brief": ("doc", "notify"), "plan": ("doc",)},
                      fixed={"calendar": "calendar", "maps": "maps", "weather": "weather"}, play=_play_weather)

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
    # visit 0: the request points to the list
    b = p.visit("brief")
    b["doc"](ctx, title=f"{thing} — can you run it?",
             body=ph.pick("The list for {t} is “{l}” ({where}); the rules are at the bottom. Thanks!",
                          "Please work through “{l}” in {where} for {t} — it says what to do.", t=thing, l=title, where=list_spot["phrase"]),
             author=boss)
    # visit 1: the list and its rule (who is in, the priority condition, where the playbook is)
    d = p.visit("list")
    cond = ("If at least three people end up invited, the ticket is urgent (priority 1), otherwise normal (priority 3)." if st.get("by_count")
            else f"If either of the first two people listed is marked {st['no']}, the ticket is urgent (priority 1), otherwise normal (priority 3).")
    rule = "\n".join([f"{st['intro']} ({thing}):", *[f"{x.name} <{x.email}> — {m}" for x, m in zip(people, marks)],
                      f"Rule: everyone marked {st['yes']} is invited{', except ' + skip.name + ' (' + st['why_skip'] + ')' if skip else ''}; nobody marked {st['no']} is contacted.",
                      cond, f"Ticket and meeting: as in “{guide}” ({guide_spot['phrase']}). Note the ticket's identifier here when it exists."])
    d["doc"](ctx, title=title, body=rule, author=boss, spot=list_spot)
    # visit 2: the playbook (which team, how to title it, when to meet)
    g = p.visit("guide")
    g["doc"](ctx, title=guide, author=boss, spot=guide_spot,
             body="\n".join([f"Tickets for {st['thing'].lower()} go to the {team.name} team (team key {team.id}), titled “{ticket}”, listing the invited people by name.",
                             f"The meeting is “{meeting}” on {day.strftime('%A, %B')} {day.day} ({day.isoformat()}) from 10:00 to 10:30, with the invited people; put the ticket identifier in its description.",
                             f"Afterwards email each invited person separately, subject “{meeting}”, with the link to the meeting."]))
    # visit 3: the ticket (its identifier is new information)
    t = p.visit("tracker")
    prio = 1 if urgent else 3
    got = ctx.call("linear_create_issue", title=ticket, teamId=team.id, description="Invited: " + ", ".join(x.name for x in chosen), priority=prio)
    ident = got["identifier"]
    sel = {"collection": "issues", "where": {"title": ticket, "teamId": team.id}}
    cp = p.require({**sel, "field": "priority"}, "eq", prio, f"the ticket's priority is {prio}, as the list's condition decides")
    for x in chosen: p.require({**sel, "field": "description"}, "contains", x.name, f"the ticket lists {x.name}", rivals=[y.name for y in people if y not in chosen])
    observed = len(chosen) if st.get("by_count") else list(marks[:2])
    test = {"op": "gte", "value": 3} if st.get("by_count") else {"op": "contains", "value": st["no"]}
    p.condition("ticket_priority", observed, test, urgent, [cp], [cp], visit=1)
    # visit 4: the identifier noted back on the list
    back = p.visit("list")
    s = back["annotate"](ctx, title=title, text=f"Ticket for {thing}: {ident}.")
    p.require(s, "contains", ident, f"the ticket identifier {ident} is noted on the list")
    # visit 5: the meeting with everyone in
    c = p.visit("calendar")
    m = c["meeting"](ctx, title=meeting, day=day, people=chosen, description=f"Ticket {ident}.")
    p.require({**m, "field": "start.dateTime"}, "eq", m["event"]["start"]["dateTime"], f"“{meeting}” is booked on {day.isoformat()} at 10:00")
    p.require({**m, "field": "description"}, "contains", ident, f"“{meeting}” carries the ticket identifier")
    link = m["event"]["htmlLink"]
    # visit 6: one email each, with the meeting link
    e = p.visit("brief")
    sels = e["notify"](ctx, people=chosen, subject=meeting, body=lambda x: f"Hi {x.first},\n\nYou're invited to {meeting}: {link}\n")
    for s in sels: p.require(s, "contains", link, f"{s['person'].name} is emailed the meeting link")
    p.require({"collection": sels[0]["collection"], "where": {"subject": meeting}}, "count_eq", len(chosen),
              f"exactly the {len(chosen)} invited people get the email; nobody marked {st['no']}{' nor ' + skip.name if skip else ''}")
    left = skip or next(y for y, mk in zip(people, marks) if mk == st["no"])
    p.exclude(e["notify"].absent(ctx, left), f"{left.name} gets no email at all", e["notify"].mistake(ctx, left, meeting))
    p.members("invited", [x.email for x in chosen], [x.email for x in people if x not in chosen])
    if rng.random() < 0.6: p.ask(ident, "the final answer reports the new ticket's identifier")
    first = ph.pick("{b} asked me to run {t}.", "Could you handle {t} for me, as {b} wrote it up?", "I owe {b} the follow-up on {t}.",
                    "{b} needs {t} done this week.", b=boss.first, t=st["thing"].lower() + f" #{n}")
    middle = [ph.pick("Go by the list and its rules — don't contact anyone it leaves out.", "Stick to who the list says is in.",
                      "The list decides who is in; the rest shouldn't hear from us."),
              ph.pick("Make sure it's tracked, the meeting is on my calendar, and everyone invited gets their own email.",
                      "I want it tracked, booked and everyone told individually.", "Ticket, meeting, emails — the usual, as our playbook describes."),
              ph.maybe("The priority depends on the list, so read it carefully.", 0.2)]
    last = ph.pick("Tell me the ticket number when you're done.", "Send me the ticket's identifier at the end.") if p.answer else ""
    p.u = ph.say(first, middle, last)

LIST_FOLLOWUP = Shape("list_followup", roles={"brief": ("doc", "notify"), "list": ("doc", "annotate"), "guide": ("doc",)},
                      fixed={"tracker": "linear", "calendar": "calendar"}, play=_play_list)

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
