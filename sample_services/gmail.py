"""Gmail: one mailbox of messages, threads and labels.

Tool names and parameters follow the GongRzhe Gmail MCP server (`../shared/specs/mcp/gmail.json`). Implemented:
send_email, draft_email, read_email, search_emails, modify_email, delete_email, batch_modify_emails,
batch_delete_emails, list_email_labels, create_label, update_label, delete_label, get_or_create_label.
Not implemented (no local file system / filter engine): attachments, filters, download_attachment.
"""
from __future__ import annotations
import functools, re
from datetime import timedelta
from typing import Literal, Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, entries, writable, read, has, put, remove
from .world import make_world, iso, parse_iso, service_rng, service_faker, reveal_value
from .kit import Query, planted_record_step

SYSTEM_LABELS = ["INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "UNREAD", "IMPORTANT"]
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


class Label(Record):
    id: str
    name: str
    type: Literal["system", "user"] = "user"
    messageListVisibility: Optional[str] = None
    labelListVisibility: Optional[str] = None


class Message(Record):
    id: str
    threadId: str
    sender: str                     # address of the sender
    sender_name: str = ""
    to: list[str]
    cc: list[str] = []
    bcc: list[str] = []
    subject: str
    body: str
    htmlBody: Optional[str] = None
    mimeType: str = "text/plain"
    date: str                       # ISO-8601 UTC
    labelIds: list[str] = []
    inReplyTo: Optional[str] = None


class GmailState(State):
    address: str = ""               # the mailbox owner's address
    owner_name: str = ""
    labels: dict[str, Label] = {}
    messages: dict[str, Message] = {}


service = Service("gmail", "communication", GmailState,
                  "An email mailbox: send, draft, search, read and label messages.", spec="gmail")


# --- helpers ------------------------------------------------------------------------------------
def _msg(s: GmailState, message_id: str, arg: str = "messageId") -> Message:
    if not has(s, "messages", message_id): raise ToolError(404, f"no message with {arg}={message_id!r}", arg)
    return read(s, "messages", message_id)

def _addresses(values: list[str] | None, arg: str, required: bool = False) -> list[str]:
    values = [v.strip() for v in (values or [])]
    if required and not values: raise ToolError(422, f"{arg} must list at least one recipient address", arg)
    out = []
    for v in values:
        m = re.match(r"^.*<([^<>]+)>$", v)          # "Name <addr>" -> addr
        a = m.group(1).strip() if m else v
        if not _EMAIL.match(a): raise ToolError(422, f"{arg} contains an invalid email address: {v!r}", arg)
        out.append(a)
    return out

def _from(m: Message) -> str: return f"{m.sender_name} <{m.sender}>" if m.sender_name else m.sender

def _snippet(m: Message) -> str:
    text = " ".join(m.body.split())
    return text[:100] + ("…" if len(text) > 100 else "")

def _summary(m: Message) -> dict:
    return {"id": m.id, "threadId": m.threadId, "subject": m.subject, "from": _from(m), "date": m.date,
            "snippet": _snippet(m), "labelIds": list(m.labelIds)}

def _full(m: Message) -> dict:
    return {"id": m.id, "threadId": m.threadId, "subject": m.subject, "from": _from(m), "to": list(m.to),
            "cc": list(m.cc), "bcc": list(m.bcc), "date": m.date, "body": m.body, "htmlBody": m.htmlBody,
            "mimeType": m.mimeType, "labelIds": list(m.labelIds), "inReplyTo": m.inReplyTo}

def _label_ids(s: GmailState, ids: list[str] | None, arg: str) -> list[str]:
    out = []
    for i in ids or []:
        if not has(s, "labels", i): raise ToolError(422, f"{arg} names an unknown label id {i!r} (see the label list)", arg)
        if i in ("DRAFT", "SENT"): raise ToolError(422, f"{arg}: the system label {i!r} cannot be added or removed by hand", arg)
        if i not in out: out.append(i)
    return out

def _compose(s: GmailState, to, subject, body, htmlBody, mimeType, cc, bcc, threadId, inReplyTo, label: str) -> dict:
    "Shared checks and write of send_email / draft_email (every check runs before any write)."
    to_ = _addresses(to, "to", required=True)
    cc_, bcc_ = _addresses(cc, "cc"), _addresses(bcc, "bcc")
    if not subject.strip(): raise ToolError(422, "subject must not be empty", "subject")
    if not body.strip() and not (htmlBody or "").strip(): raise ToolError(422, "body must not be empty", "body")
    if mimeType == "text/html" and not (htmlBody or "").strip():
        raise ToolError(422, "mimeType='text/html' needs an htmlBody", "htmlBody")
    if threadId is not None and not any(m.threadId == threadId for m in scan(s, "messages")):
        raise ToolError(404, f"no thread with threadId={threadId!r}", "threadId")
    if inReplyTo is not None:
        parent = _msg(s, inReplyTo, "inReplyTo")
        if threadId is not None and parent.threadId != threadId:
            raise ToolError(409, f"inReplyTo={inReplyTo!r} belongs to thread {parent.threadId!r}, not threadId={threadId!r}", "inReplyTo")
        threadId = parent.threadId
    mid = s.new_id("msg")
    tid = threadId or s.new_id("thr")
    put(s, "messages", mid, Message(id=mid, threadId=tid, sender=s.address, sender_name=s.owner_name, to=to_, cc=cc_,
                              bcc=bcc_, subject=subject.strip(), body=body, htmlBody=htmlBody, mimeType=mimeType,
                              date=s.tick(), labelIds=[label], inReplyTo=inReplyTo))
    return {"id": mid, "threadId": tid, "labelIds": [label]}

_MIME = Literal["text/plain", "text/html", "multipart/alternative"]


# --- tools --------------------------------------------------------------------------------------
@service.tool
def send_email(s: GmailState,
               to: list[str],                   # recipient addresses (at least one)
               subject: str,                    # subject line (not empty)
               body: str,                       # plain-text body
               htmlBody: Optional[str] = None,  # HTML version of the body
               mimeType: _MIME = "text/plain",  # content type of the message
               cc: Optional[list[str]] = None,  # carbon-copy addresses
               bcc: Optional[list[str]] = None, # blind-copy addresses
               threadId: Optional[str] = None,  # thread to add this message to
               inReplyTo: Optional[str] = None, # id of the message this one answers
              ) -> dict:
    "Send a message from this mailbox; it lands in Sent and gets a new id.\n\nReturns the new message's id, thread id and labels."
    return _compose(s, to, subject, body, htmlBody, mimeType, cc, bcc, threadId, inReplyTo, "SENT")

@service.tool
def draft_email(s: GmailState,
                to: list[str],                   # recipient addresses (at least one)
                subject: str,                    # subject line (not empty)
                body: str,                       # plain-text body
                htmlBody: Optional[str] = None,  # HTML version of the body
                mimeType: _MIME = "text/plain",  # content type of the message
                cc: Optional[list[str]] = None,  # carbon-copy addresses
                bcc: Optional[list[str]] = None, # blind-copy addresses
                threadId: Optional[str] = None,  # thread the draft belongs to
                inReplyTo: Optional[str] = None, # id of the message the draft answers
               ) -> dict:
    "Save a message as a draft without sending it.\n\nReturns the draft's message id, thread id and labels."
    return _compose(s, to, subject, body, htmlBody, mimeType, cc, bcc, threadId, inReplyTo, "DRAFT")

@service.tool(read_only=True)
def read_email(s: GmailState,
               messageId: str,  # id of the message to open
              ) -> dict:
    "Open one message: headers, body and labels."
    return _full(_msg(s, messageId))

_TOKEN = re.compile(r'(-?)(\w+):"([^"]*)"|(-?)(\w+):(\S+)|"([^"]*)"|(\S+)')

@functools.lru_cache(maxsize=1 << 14)
def _hay(subject: str, body: str, sender_name: str, sender: str) -> str:
    "A message's searchable text, lower-cased (cached: searches scan the same messages call after call)."
    return f"{subject}\n{body}\n{sender_name} {sender}".lower()

def _matches(s: GmailState, m: Message, terms: list[tuple[bool, str | None, str]]) -> bool:
    names = None                                   # the message's label names, worked out only if a term asks
    def labels() -> set:
        nonlocal names
        if names is None: names = {read(s, "labels", l).name.lower() for l in m.labelIds if has(s, "labels", l)} | {l.lower() for l in m.labelIds}
        return names
    for neg, op, val in terms:
        v = val.lower()
        if op is None: hit = v in _hay(m.subject, m.body, m.sender_name, m.sender)
        elif op == "from": hit = v in f"{m.sender_name} {m.sender}".lower()
        elif op == "to": hit = any(v in a.lower() for a in m.to + m.cc + m.bcc)
        elif op == "subject": hit = v in m.subject.lower()
        elif op in ("label", "in"): hit = v == "anywhere" or v in labels() or v.replace("-", " ") in labels()
        elif op == "is": hit = {"unread": "unread" in labels(), "read": "unread" not in labels(),
                                "starred": "starred" in labels(), "important": "important" in labels()}.get(v, False)
        elif op in ("after", "before"):
            try: d = parse_iso(val.replace("/", "-"))
            except ValueError: raise ToolError(422, f"query: {op}:{val!r} is not a date like 2025/02/14", "query")
            hit = parse_iso(m.date) >= d if op == "after" else parse_iso(m.date) < d
        else: hit = f"{op}:{v}" in _hay(m.subject, m.body, m.sender_name, m.sender)
        if hit == neg: return False
    return True

@service.tool(read_only=True)
def search_emails(s: GmailState,
                  query: Query,         # words to find in subject, body or sender; also from:, to:, subject:, label:, in:, is:unread, after:/before:YYYY/MM/DD
                  maxResults: int = 10, # most results to return (1-500)
                 ) -> dict:
    "Find messages matching a query, newest first.\n\nPlain words must all appear in the subject, body or sender; trash and spam are skipped unless the query asks for them with in:."
    if maxResults < 1: raise ToolError(422, f"maxResults must be at least 1, got {maxResults}", "maxResults")
    terms = []
    for t in _TOKEN.finditer(query):
        if t.group(2): terms.append((t.group(1) == "-", t.group(2).lower(), t.group(3)))
        elif t.group(5): terms.append((t.group(4) == "-", t.group(5).lower(), t.group(6)))
        elif t.group(7) is not None: terms.append((False, None, t.group(7)))
        else:
            word = t.group(8)
            neg = word.startswith("-") and len(word) > 1
            terms.append((neg, None, word[1:] if neg else word))
    scoped = any(op in ("in", "label") for _, op, _ in terms)
    hits = [m for m in scan(s, "messages")
            if (scoped or not {"TRASH", "SPAM"} & set(m.labelIds)) and _matches(s, m, terms)]
    hits.sort(key=lambda m: (m.date, m.id), reverse=True)
    return {"messages": [_summary(m) for m in hits[:min(maxResults, 500)]], "resultSizeEstimate": len(hits)}

def _apply_labels(s: GmailState, ids: list[str], add: list[str], remove: list[str]):
    for i in ids:
        m = writable(s, "messages", i)
        m.labelIds = [l for l in m.labelIds if l not in remove] + [l for l in add if l not in m.labelIds]

def _label_change(s, labelIds, addLabelIds, removeLabelIds):
    add = _label_ids(s, (labelIds or []) + (addLabelIds or []), "addLabelIds" if addLabelIds else "labelIds")
    remove = _label_ids(s, removeLabelIds, "removeLabelIds")
    if not add and not remove: raise ToolError(422, "nothing to change: give addLabelIds or removeLabelIds", "addLabelIds")
    both = set(add) & set(remove)
    if both: raise ToolError(422, f"labels {sorted(both)} are both added and removed", "removeLabelIds")
    return add, remove

@service.tool
def modify_email(s: GmailState,
                 messageId: str,                           # id of the message to relabel
                 labelIds: Optional[list[str]] = None,     # label ids to add (same as addLabelIds)
                 addLabelIds: Optional[list[str]] = None,  # label ids to add
                 removeLabelIds: Optional[list[str]] = None, # label ids to remove
                ) -> dict:
    "Add or remove labels on one message (e.g. archive by removing INBOX, trash by adding TRASH)."
    _msg(s, messageId)
    add, remove = _label_change(s, labelIds, addLabelIds, removeLabelIds)
    _apply_labels(s, [messageId], add, remove)
    return {"id": messageId, "labelIds": list(read(s, "messages", messageId).labelIds)}

def _check_ids(s: GmailState, ids: list[str], batchSize: int) -> list[str]:
    if not ids: raise ToolError(422, "messageIds must list at least one message id", "messageIds")
    if batchSize < 1: raise ToolError(422, f"batchSize must be at least 1, got {batchSize}", "batchSize")
    for i in ids: _msg(s, i, "messageIds")
    return list(dict.fromkeys(ids))

@service.tool
def batch_modify_emails(s: GmailState,
                        messageIds: list[str],                      # ids of the messages to relabel
                        addLabelIds: Optional[list[str]] = None,    # label ids to add to every message
                        removeLabelIds: Optional[list[str]] = None, # label ids to remove from every message
                        batchSize: int = 50,                        # messages handled per batch
                       ) -> dict:
    "Add or remove labels on several messages at once; all ids must exist."
    ids = _check_ids(s, messageIds, batchSize)
    add, remove = _label_change(s, None, addLabelIds, removeLabelIds)
    _apply_labels(s, ids, add, remove)
    return {"modified": len(ids), "batches": -(-len(ids) // batchSize), "failed": []}

@service.tool
def delete_email(s: GmailState,
                 messageId: str,  # id of the message to delete for good
                ) -> dict:
    "Delete a message permanently (it does not go to Trash)."
    _msg(s, messageId)
    remove(s, "messages", messageId)
    return {"deleted": messageId}

@service.tool
def batch_delete_emails(s: GmailState,
                        messageIds: list[str],  # ids of the messages to delete for good
                        batchSize: int = 50,    # messages handled per batch
                       ) -> dict:
    "Delete several messages permanently; all ids must exist."
    ids = _check_ids(s, messageIds, batchSize)
    for i in ids: remove(s, "messages", i)
    return {"deleted": ids, "batches": -(-len(ids) // batchSize)}

def _label_dict(s: GmailState, l: Label) -> dict:
    d = l.model_dump(); d["messagesTotal"] = sum(l.id in m.labelIds for m in scan(s, "messages")); return d

@service.tool(read_only=True)
def list_email_labels(s: GmailState) -> dict:
    "List the mailbox's system and user labels with message counts."
    sys_ = [_label_dict(s, l) for l in scan(s, "labels") if l.type == "system"]
    user = sorted((_label_dict(s, l) for l in scan(s, "labels") if l.type == "user"), key=lambda d: d["name"].lower())
    return {"system": sys_, "user": user, "count": len(sys_) + len(user)}

_MLV = Optional[Literal["show", "hide"]]
_LLV = Optional[Literal["labelShow", "labelShowIfUnread", "labelHide"]]

def _clash(s: GmailState, name: str, skip: str | None = None) -> Label | None:
    return next((l for l in scan(s, "labels") if l.name.lower() == name.lower() and l.id != skip), None)

@service.tool
def create_label(s: GmailState,
                 name: str,                          # name of the new label (unique, not empty)
                 messageListVisibility: _MLV = None, # show or hide the label in the message list
                 labelListVisibility: _LLV = None,   # how the label shows in the label list
                ) -> dict:
    "Create a user label."
    name = name.strip()
    if not name: raise ToolError(422, "name must not be empty", "name")
    if (c := _clash(s, name)): raise ToolError(409, f"a label named {name!r} already exists (id {c.id!r})", "name")
    i = s.new_id("Label")
    return put(s, "labels", i, Label(id=i, name=name, messageListVisibility=messageListVisibility, labelListVisibility=labelListVisibility))

def _user_label(s: GmailState, id: str) -> Label:
    if not has(s, "labels", id): raise ToolError(404, f"no label with id={id!r}", "id")
    l = read(s, "labels", id)
    if l.type == "system": raise ToolError(422, f"the system label id={id!r} cannot be changed", "id")
    return l

@service.tool
def update_label(s: GmailState,
                 id: str,                            # id of the user label to change
                 name: Optional[str] = None,         # new name (unique, not empty)
                 messageListVisibility: _MLV = None, # show or hide the label in the message list
                 labelListVisibility: _LLV = None,   # how the label shows in the label list
                ) -> dict:
    "Rename a user label or change its visibility."
    l = writable(s, "labels", _user_label(s, id).id)
    if name is not None:
        name = name.strip()
        if not name: raise ToolError(422, "name must not be empty", "name")
        if (c := _clash(s, name, skip=id)): raise ToolError(409, f"a label named {name!r} already exists (id {c.id!r})", "name")
    if name is None and messageListVisibility is None and labelListVisibility is None:
        raise ToolError(422, "nothing to change: give name or a visibility", "name")
    if name is not None: l.name = name
    if messageListVisibility is not None: l.messageListVisibility = messageListVisibility
    if labelListVisibility is not None: l.labelListVisibility = labelListVisibility
    return l

@service.tool
def delete_label(s: GmailState,
                 id: str,  # id of the user label to delete
                ) -> dict:
    "Delete a user label; messages keep everything else."
    _user_label(s, id)
    remove(s, "labels", id)
    for mid in [k for k, m in entries(s, "messages") if id in m.labelIds]:
        m = writable(s, "messages", mid); m.labelIds = [l for l in m.labelIds if l != id]
    return {"deleted": id}

@service.tool
def get_or_create_label(s: GmailState,
                        name: str,                          # label name to find (case-insensitive) or create
                        messageListVisibility: _MLV = None, # visibility in the message list, if created
                        labelListVisibility: _LLV = None,   # visibility in the label list, if created
                       ) -> dict:
    "Return the label with this name, creating it first if there is none."
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    if (c := _clash(s, name.strip())): return {**c.model_dump(), "created": False}
    return {**create_label(s, name, messageListVisibility, labelListVisibility).model_dump(), "created": True}


# --- fixture ------------------------------------------------------------------------------------
_USER_LABELS = ["Receipts", "Projects", "Travel", "Newsletters", "Clients"]
_INTERNAL = [
    ("Notes from the {topic} sync", "Thanks for joining today. My notes on {topic}: we agreed to keep the scope small, {first} owns the next draft, and we revisit on Thursday."),
    ("Quick question about {topic}", "Do you know who signed off on the {topic} numbers? I want to double-check before the review."),
    ("{topic} timeline", "Sharing the updated timeline for {topic}. The main risk is the vendor dependency; everything else is on track."),
    ("Draft: {topic} proposal", "Attached is a first pass at the {topic} proposal. Comments welcome by end of week."),
    ("Review needed: {topic}", "Could you take a look at the {topic} changes? Nothing urgent, but I would like to ship before the freeze."),
    ("{place} visit", "I will be in {place} next month for customer meetings. Happy to meet anyone from the team who is nearby."),
    ("Lunch next week?", "Are you free for lunch next Tuesday or Wednesday? There is a new place near the office."),
    ("Out of office", "I am out of office until Monday with limited access to email. For {topic}, please reach {first}."),
    ("Budget for {topic}", "Finance asked for a revised estimate for {topic}. Can you send me your numbers by Friday?"),
    ("Welcome {first}!", "Please join me in welcoming {first} to the team. They will be working on {topic}."),
]
_EXTERNAL = [
    ("Receipts", "Your receipt from {company}", "Thank you for your purchase. Order {num} totalled ${amount}. Keep this email for your records."),
    ("Receipts", "Invoice {num} from {company}", "Invoice {num} for ${amount} is now available. Payment is due within 30 days."),
    ("Newsletters", "This week at {company}", "Highlights: {bs}. Read more on our blog. You are receiving this because you subscribed."),
    ("Newsletters", "{company} product update", "New this month: {bs}. Reply to this email with feedback."),
    ("Travel", "Your trip to {place}", "Your booking is confirmed. Confirmation {num}. Check-in opens 24 hours before departure."),
    ("Clients", "Following up from {company}", "Great speaking with you about {topic}. Could we set up a call next week to go through the details?"),
]

_REPLIES = ["Sounds good, thanks for the update.", "I can take a look tomorrow morning.", "Let's discuss at the next sync.",
            "Agreed, I will update the doc.", "Can we push this to next week?", "Looping in the rest of the team.",
            "Is the deadline still Friday?", "I left a few comments inline.", "Works for me.",
            "I have a conflict on Thursday; could we do Friday instead?", "Thanks for pulling this together.",
            "The numbers look right to me.", "Let me check with finance and get back to you."]

@service.fixture
def fixture(seed: int) -> GmailState:
    "About 200 messages over the 75 days before EPOCH: colleagues, vendors, newsletters, sent mail, drafts, trash and spam."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> GmailState:
    w, rng, fk = make_world(seed), service_rng("gmail", seed), service_faker("gmail", seed)
    s = GmailState(seed=seed, address=w.me.email, owner_name=w.me.name)
    for l in SYSTEM_LABELS: put(s, "labels", l, Label(id=l, name=l, type="system"))
    ulabel = {}
    for name in _USER_LABELS:
        i = s.new_id("Label"); put(s, "labels", i, Label(id=i, name=name)); ulabel[name] = i
    when = sorted(EPOCH - timedelta(minutes=rng.randint(60, 75 * 24 * 60)) for _ in range(200))
    threads: list[Message] = []
    cur = {}
    def fill(t: str, topic: str, person, company: str = "") -> str:
        return t.format(topic=topic, first=person.first, place=cur["place"], company=company,
                        num=cur["num"], amount=cur["amount"], bs=cur["bs"])
    for k, dt in enumerate(when):
        mid = s.new_id("msg")
        roll = rng.random()
        topic = rng.choice(w.topics)
        other = rng.choice(w.others)
        cur.update(place=rng.choice(w.places).label, num=f"#{rng.randint(10000, 99999)}",
                   amount=f"{rng.randint(12, 2400)}.{rng.randint(0, 99):02d}", bs=fk.bs())
        labels = ["INBOX"]
        if roll < 0.15 and threads:                          # a reply in an existing thread
            parent = rng.choice(threads)
            subject = parent.subject if parent.subject.startswith("Re: ") else f"Re: {parent.subject}"
            replier = rng.choice([p for p in w.others if p.email != parent.sender] or list(w.others))
            body = f"Hi {w.me.first},\n\n{' '.join(rng.sample(_REPLIES, 2))}\n\n{replier.first}"
            m = Message(id=mid, threadId=parent.threadId, sender=replier.email, sender_name=replier.name,
                        to=[w.me.email], subject=subject, body=body, date=iso(dt), labelIds=labels, inReplyTo=parent.id)
        elif roll < 0.28:                                    # sent by me
            subj, text = rng.choice(_INTERNAL)
            m = Message(id=mid, threadId=s.new_id("thr"), sender=w.me.email, sender_name=w.me.name, to=[other.email],
                        subject=fill(subj, topic, other), body=f"Hi {other.first},\n\n{fill(text, topic, other)}\n\n{w.me.first}",
                        date=iso(dt), labelIds=["SENT"])
        elif roll < 0.31:                                    # draft
            subj, text = rng.choice(_INTERNAL)
            m = Message(id=mid, threadId=s.new_id("thr"), sender=w.me.email, sender_name=w.me.name, to=[other.email],
                        subject=fill(subj, topic, other), body=f"Hi {other.first},\n\n{fill(text, topic, other)}",
                        date=iso(dt), labelIds=["DRAFT"])
        elif roll < 0.62:                                    # vendors, newsletters, travel
            lab, subj, text = rng.choice(_EXTERNAL)
            comp = fk.company()
            sender = f"{rng.choice(['noreply', 'billing', 'news', 'hello', 'team'])}@{re.sub(r'[^a-z]', '', comp.split()[0].lower())}.com"
            subj_f, body = fill(subj, topic, other, comp), fill(text, topic, other, comp)
            labels = ["INBOX", ulabel[lab]]
            if rng.random() < 0.12: labels = ["SPAM"]
            m = Message(id=mid, threadId=s.new_id("thr"), sender=sender, sender_name=comp, to=[w.me.email],
                        subject=subj_f, body=body, date=iso(dt), labelIds=labels)
        else:                                                # from a colleague
            subj, text = rng.choice(_INTERNAL)
            me_ = w.me
            cc = [p.email for p in rng.sample(w.others, rng.randint(0, 2)) if p != other]
            if rng.random() < 0.3: labels.append(ulabel["Projects"])
            m = Message(id=mid, threadId=s.new_id("thr"), sender=other.email, sender_name=other.name, to=[me_.email],
                        cc=cc, subject=fill(subj, topic, me_), body=f"Hi {me_.first},\n\n{fill(text, topic, me_)}\n\n{other.first}",
                        date=iso(dt), labelIds=labels)
        if "INBOX" in m.labelIds:
            if rng.random() < 0.06: m.labelIds = ["TRASH"]
            else:
                if dt > EPOCH - timedelta(days=10) and rng.random() < 0.6: m.labelIds.append("UNREAD")
                if rng.random() < 0.08: m.labelIds.append("STARRED")
                if rng.random() < 0.15: m.labelIds.append("IMPORTANT")
        put(s, "messages", mid, m)
        if not m.subject.startswith("Re: ") and m.sender.endswith(w.domain): threads.append(m)
    return s


# --- step templates -----------------------------------------------------------------------------
_READ_PHRASE = {"key": "the project code given in that email", "place": "the venue named in that email"}

@planted_record_step(service, _READ_PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant an email about `value` whose body states the next fact; the agent finds and reads it."
    w = ctx.world
    sender = ctx.rng.choice(w.others)
    mid, tid = ctx.plant_id("msg"), ctx.plant_id("thr")
    subject = f"{ctx.rng.choice(['Update on', 'Next steps for', 'Details for', 'Re:'])} {value}"
    line = (f"The project code for the next phase is {nxt}." if kind == "key"
            else f"We have booked the venue: {nxt}. Please plan to be there in person.")
    body = f"Hi {w.me.first},\n\nFollowing up on {value} as promised. {line}\n\nThanks,\n{sender.first}"
    date = iso(EPOCH - timedelta(hours=ctx.rng.randint(2, 72)))
    def plant(s: GmailState):
        put(s, "messages", mid, Message(id=mid, threadId=tid, sender=sender.email, sender_name=sender.name,
                                  to=[s.address], subject=subject, body=body, date=date, labelIds=["INBOX", "UNREAD"]))
        return mid
    ctx.plant("gmail", plant)
    found = ctx.call("search_emails", query=value)
    got = ctx.call("read_email", messageId=found["messages"][0]["id"])
    assert nxt in got["body"]
    return (f"Find the email about {ctx.in_phrase}, read it and tell me the {what} it gives.",
            f"Find the email about {ctx.in_phrase} and read it.")

@add_step(service, "send", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def send_step(ctx, value, want):
    "Email a colleague a new message whose body carries `value`."
    person = ctx.rng.choice(ctx.world.others)
    subject = ctx.label("Update")
    ctx.call("send_email", to=[person.email], subject=subject, body=f"Hi {person.first},\n\nFor the record: {value}.\n\nThanks")
    crit = [ctx.criterion("messages", {"subject": subject}, "body", "contains", value),
            ctx.criterion("messages", {"subject": subject}, "to", "contains", person.email),
            ctx.criterion("messages", {"subject": subject}, "labelIds", "contains", "SENT")]
    return Visit(f'Email {person.name} ({person.email}) with the subject "{subject}" and include {ctx.in_phrase} in the message.',
                 criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant an email from `author` with subject `title`; the reference finds it by its subject and reads it."
    mid, tid = ctx.plant_id("msg"), ctx.plant_id("thr")
    date = iso(EPOCH - timedelta(hours=ctx.rng.randint(2, 72)))
    def plant(s: GmailState):
        put(s, "messages", mid, Message(id=mid, threadId=tid, sender=author.email, sender_name=author.name, to=[s.address],
                                  subject=title, body=f"Hi {ctx.world.me.first},\n\n{body}\n\n{author.first}", date=date,
                                  labelIds=["INBOX", "UNREAD"]))
    ctx.plant("gmail", plant)
    found = ctx.call("search_emails", query=f'subject:"{title}"')
    got = ctx.call("read_email", messageId=found["messages"][0]["id"])
    assert body.split("\n")[0] in got["body"]
    return {"phrase": f"{author.first}'s email “{title}”", "where": "my inbox"}

doc_beat.spot = lambda ctx, title: {"phrase": "my inbox"}

@add_beat(service, "notify")
def notify_beat(ctx, people: list, subject: str, body) -> list[dict]:
    "Email each person of `people` their own message (`body(person) -> text`); one selector per person for the criteria."
    out = []
    for p in people:
        ctx.call("send_email", to=[p.email], subject=subject, body=body(p))
        out.append({"collection": "messages", "where": {"subject": subject, "to.0": p.email}, "field": "body", "person": p})
    return out

def notify_absent(ctx, person) -> dict:
    "The selector of messages to `person` (an exclusion criterion: none of them is added or changed)."
    return {"collection": "messages", "where": {"to.0": person.email}}
notify_beat.absent = notify_absent

def notify_mistake(ctx, person, subject: str) -> dict:
    "The plausible mistake an exclusion guards against: the same email sent to `person` as well."
    return {"tool": "gmail.send_email", "arguments": {"to": [person.email], "subject": subject, "body": f"Hi {person.first}, see the details above."}}
notify_beat.mistake = notify_mistake
