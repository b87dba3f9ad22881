"gmail: every tool's success case and each error code it can return."
import pytest
from sample_services.gmail import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def inbox(s): return next(m for m in s.messages.values() if "INBOX" in m.labelIds)
def user_label(s, name="Travel"): return next(l.id for l in s.labels.values() if l.name == name)
def to(s): return [m.sender for m in s.messages.values() if m.sender != s.address][0]


def test_fixture_shape(s):
    labels = {l for m in s.messages.values() for l in m.labelIds}
    assert {"INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "UNREAD"} <= labels
    assert len({m.threadId for m in s.messages.values()}) < len(s.messages)      # some threads hold replies
    assert all(m.date < "2025-03-03T09:00:00Z" for m in s.messages.values())


@pytest.mark.parametrize("tool,label", [("send_email", "SENT"), ("draft_email", "DRAFT")])
def test_send_and_draft(s, tool, label):
    new, d = check_ok(svc, s, tool, {"to": [to(s)], "subject": "Hello", "body": "Body text", "cc": ["Ann <ann@example.com>"]})
    m = new.messages[d["id"]]
    assert m.labelIds == [label] and m.to == [to(s)] and m.cc == ["ann@example.com"] and m.sender == s.address
    assert d["id"] not in s.messages and m.date > max(x.date for x in s.messages.values())
    parent = inbox(s)
    new, d = check_ok(svc, s, tool, {"to": [to(s)], "subject": "Re", "body": "x", "inReplyTo": parent.id})
    assert d["threadId"] == parent.threadId

@pytest.mark.parametrize("tool", ["send_email", "draft_email"])
@pytest.mark.parametrize("change,code,arg", [
    ({"to": []}, 422, "to"), ({"to": ["not-an-address"]}, 422, "to"), ({"cc": ["bad@"]}, 422, "cc"),
    ({"bcc": ["x y@z.com"]}, 422, "bcc"), ({"subject": "  "}, 422, "subject"), ({"body": ""}, 422, "body"),
    ({"mimeType": "text/html"}, 422, "htmlBody"), ({"threadId": "thr_nope"}, 404, "threadId"),
    ({"inReplyTo": "msg_nope"}, 404, "inReplyTo"), ({"mimeType": "text/rtf"}, 400, "mimeType")])
def test_send_and_draft_errors(s, tool, change, code, arg):
    check_err(svc, s, tool, {"to": [to(s)], "subject": "Hi", "body": "b", **change}, code, arg)

def test_reply_thread_conflict(s):
    a, b = [m for m in s.messages.values() if "INBOX" in m.labelIds][:2]
    assert a.threadId != b.threadId
    check_err(svc, s, "send_email", {"to": [to(s)], "subject": "x", "body": "y", "threadId": a.threadId, "inReplyTo": b.id}, 409, "inReplyTo")

def test_read_email(s):
    m = inbox(s)
    _, d = check_ok(svc, s, "read_email", {"messageId": m.id})
    assert d["body"] == m.body and d["subject"] == m.subject and m.sender in d["from"]
    check_err(svc, s, "read_email", {"messageId": "msg_missing"}, 404, "messageId")

def test_search_emails(s):
    m = inbox(s)
    word = m.subject.split()[-1]
    _, d = check_ok(svc, s, "search_emails", {"query": word, "maxResults": 500})
    assert m.id in [x["id"] for x in d["messages"]] and d["resultSizeEstimate"] >= 1
    dates = [x["date"] for x in d["messages"]]
    assert dates == sorted(dates, reverse=True)
    _, d = check_ok(svc, s, "search_emails", {"query": f"from:{m.sender} subject:\"{m.subject}\""})
    assert d["messages"] and all(m.sender in x["from"] and m.subject in x["subject"] for x in d["messages"])
    _, d = check_ok(svc, s, "search_emails", {"query": "the", "maxResults": 3})
    assert len(d["messages"]) == 3 and d["resultSizeEstimate"] > 3
    _, d = check_ok(svc, s, "search_emails", {"query": "zzqx-nothing"})
    assert d == {"messages": [], "resultSizeEstimate": 0}

def test_search_skips_trash_unless_asked(s):
    t = next(m for m in s.messages.values() if "TRASH" in m.labelIds)
    _, d = check_ok(svc, s, "search_emails", {"query": f"subject:\"{t.subject}\"", "maxResults": 500})
    assert t.id not in [x["id"] for x in d["messages"]]
    _, d = check_ok(svc, s, "search_emails", {"query": f"in:trash subject:\"{t.subject}\"", "maxResults": 500})
    assert t.id in [x["id"] for x in d["messages"]]
    _, d = check_ok(svc, s, "search_emails", {"query": "is:unread", "maxResults": 500})
    assert d["messages"] and all("UNREAD" in x["labelIds"] for x in d["messages"])

@pytest.mark.parametrize("args,code,arg", [({"query": "x", "maxResults": 0}, 422, "maxResults"),
                                           ({"query": "after:yesterday"}, 422, "query")])
def test_search_errors(s, args, code, arg):
    check_err(svc, s, "search_emails", args, code, arg)

def test_modify_email(s):
    m, lab = inbox(s), user_label(s)
    new, d = check_ok(svc, s, "modify_email", {"messageId": m.id, "addLabelIds": [lab, "STARRED"], "removeLabelIds": ["INBOX"]})
    assert "INBOX" not in d["labelIds"] and lab in d["labelIds"] and new.messages[m.id].labelIds == d["labelIds"]
    new, d = check_ok(svc, s, "modify_email", {"messageId": m.id, "labelIds": [lab]})
    assert lab in d["labelIds"]

@pytest.mark.parametrize("change,code,arg", [
    ({"messageId": "msg_missing", "addLabelIds": ["STARRED"]}, 404, "messageId"),
    ({"addLabelIds": ["Label_nope"]}, 422, "addLabelIds"), ({"removeLabelIds": ["Label_nope"]}, 422, "removeLabelIds"),
    ({}, 422, "addLabelIds"), ({"addLabelIds": ["STARRED"], "removeLabelIds": ["STARRED"]}, 422, "removeLabelIds"),
    ({"addLabelIds": ["SENT"]}, 422, "addLabelIds")])
def test_modify_email_errors(s, change, code, arg):
    check_err(svc, s, "modify_email", {"messageId": inbox(s).id, **change}, code, arg)

def test_batch_modify(s):
    ids = [m.id for m in s.messages.values() if "INBOX" in m.labelIds][:5]
    new, d = check_ok(svc, s, "batch_modify_emails", {"messageIds": ids, "addLabelIds": ["IMPORTANT"], "batchSize": 2})
    assert d["modified"] == 5 and d["batches"] == 3 and all("IMPORTANT" in new.messages[i].labelIds for i in ids)

@pytest.mark.parametrize("change,code,arg", [
    ({"messageIds": []}, 422, "messageIds"), ({"batchSize": 0}, 422, "batchSize"), ({"messageIds": ["msg_nope"]}, 404, "messageIds"),
    ({"addLabelIds": ["bogus"]}, 422, "addLabelIds"), ({"addLabelIds": None}, 422, "addLabelIds")])
def test_batch_modify_errors(s, change, code, arg):
    args = {"messageIds": [inbox(s).id], "addLabelIds": ["STARRED"], **change}
    check_err(svc, s, "batch_modify_emails", {k: v for k, v in args.items() if v is not None}, code, arg)

def test_delete_email(s):
    m = inbox(s)
    new, d = check_ok(svc, s, "delete_email", {"messageId": m.id})
    assert d == {"deleted": m.id} and m.id not in new.messages and m.id in s.messages
    check_err(svc, s, "delete_email", {"messageId": "msg_nope"}, 404, "messageId")

def test_batch_delete(s):
    ids = list(s.messages)[:3]
    new, d = check_ok(svc, s, "batch_delete_emails", {"messageIds": ids + ids[:1]})
    assert d["deleted"] == ids and len(new.messages) == len(s.messages) - 3
    check_err(svc, s, "batch_delete_emails", {"messageIds": [ids[0], "msg_nope"]}, 404, "messageIds")
    check_err(svc, s, "batch_delete_emails", {"messageIds": []}, 422, "messageIds")
    check_err(svc, s, "batch_delete_emails", {"messageIds": ids, "batchSize": -1}, 422, "batchSize")

def test_list_labels(s):
    _, d = check_ok(svc, s, "list_email_labels", {})
    assert {l["id"] for l in d["system"]} >= {"INBOX", "SENT"} and d["count"] == len(s.labels)
    assert [l["name"] for l in d["user"]] == sorted(l["name"] for l in d["user"])
    _, d2 = check_ok(svc, s, "list_email_labels", None)
    assert d2 == d

def test_create_label(s):
    new, d = check_ok(svc, s, "create_label", {"name": "Vendors", "labelListVisibility": "labelShow"})
    assert new.labels[d["id"]].name == "Vendors" and d["type"] == "user"
    for args, code, arg in [({"name": " "}, 422, "name"), ({"name": "travel"}, 409, "name"), ({"name": "INBOX"}, 409, "name"),
                            ({"name": "X", "messageListVisibility": "maybe"}, 400, "messageListVisibility")]:
        check_err(svc, s, "create_label", args, code, arg)

def test_update_label(s):
    lab = user_label(s)
    new, d = check_ok(svc, s, "update_label", {"id": lab, "name": "Trips", "messageListVisibility": "hide"})
    assert new.labels[lab].name == "Trips" and new.labels[lab].messageListVisibility == "hide"
    for args, code, arg in [({"id": "Label_nope", "name": "A"}, 404, "id"), ({"id": "INBOX", "name": "A"}, 422, "id"),
                            ({"id": lab, "name": ""}, 422, "name"), ({"id": lab}, 422, "name"),
                            ({"id": lab, "name": "Receipts"}, 409, "name")]:
        check_err(svc, s, "update_label", args, code, arg)

def test_delete_label(s):
    lab = user_label(s)
    assert any(lab in m.labelIds for m in s.messages.values())
    new, d = check_ok(svc, s, "delete_label", {"id": lab})
    assert lab not in new.labels and not any(lab in m.labelIds for m in new.messages.values())
    check_err(svc, s, "delete_label", {"id": "Label_nope"}, 404, "id")
    check_err(svc, s, "delete_label", {"id": "SPAM"}, 422, "id")

def test_get_or_create_label(s):
    new, d = check_ok(svc, s, "get_or_create_label", {"name": "TRAVEL"})
    assert d["created"] is False and d["id"] == user_label(s) and len(new.labels) == len(s.labels)
    new, d = check_ok(svc, s, "get_or_create_label", {"name": "Legal"})
    assert d["created"] is True and new.labels[d["id"]].name == "Legal"
    check_err(svc, s, "get_or_create_label", {"name": ""}, 422, "name")
