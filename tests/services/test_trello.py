"trello: every tool's success case and each error it can return."
import pytest
from sample_services.trello import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def board(s): return s.boards[s.active_board]
def lists(s, b): return sorted((l for l in s.lists.values() if l.idBoard == b.id and not l.closed), key=lambda l: l.pos)
def open_card(s, b=None): return next(c for c in s.cards.values() if not c.closed and (b is None or c.idBoard == b.id))
def other_board(s): return next(b for b in s.boards.values() if b.id != s.active_board)


def test_workspaces_and_boards(s):
    ws = check_ok(svc, s, "list_workspaces", {})[1]
    assert [w["displayName"] for w in ws] == sorted(w["displayName"] for w in ws) and len(ws) == 2
    boards = check_ok(svc, s, "list_boards", {})[1]
    assert [b["name"] for b in boards] == sorted(b["name"] for b in boards) and len(boards) == 5
    inws = check_ok(svc, s, "list_boards_in_workspace", {"workspaceId": ws[0]["id"]})[1]
    assert inws and all(b["idOrganization"] == ws[0]["id"] for b in inws)
    new, d = check_ok(svc, s, "set_active_workspace", {"workspaceId": ws[1]["id"]})
    assert new.active_workspace == ws[1]["id"]
    b2 = other_board(s)
    new, d = check_ok(svc, s, "set_active_board", {"boardId": b2.id})
    assert new.active_board == b2.id and check_ok(svc, new, "get_active_board_info", {})[1]["name"] == b2.name
    info = check_ok(svc, s, "get_active_board_info", {})[1]
    assert [l["name"] for l in info["lists"]] == [l.name for l in lists(s, board(s))]
    for tool, args, code, arg in [("list_boards_in_workspace", {"workspaceId": "x"}, 404, "workspaceId"),
                                  ("set_active_workspace", {"workspaceId": "x"}, 404, "workspaceId"), ("set_active_board", {"boardId": "x"}, 404, "boardId")]:
        check_err(svc, s, tool, args, code, arg)
    closed = s.model_copy(deep=True); closed.boards[b2.id].closed = True
    check_err(svc, closed, "set_active_board", {"boardId": b2.id}, 409, "boardId")
    none = s.model_copy(deep=True); none.active_board = None
    for tool in ("get_active_board_info", "get_lists", "get_board_members", "get_board_labels"): check_err(svc, none, tool, {}, 422, "boardId")

def test_lists(s):
    b = board(s)
    assert [l["id"] for l in check_ok(svc, s, "get_lists", {})[1]] == [l.id for l in lists(s, b)]
    new, d = check_ok(svc, s, "add_list_to_board", {"name": "Parking Lot"})
    assert d["pos"] > max(l.pos for l in lists(s, b)) and check_ok(svc, new, "get_lists", {})[1][-1]["name"] == "Parking Lot"
    l0 = lists(s, b)[0]
    new, d = check_ok(svc, s, "archive_list", {"listId": l0.id})
    assert d["closed"] and l0.id not in [l["id"] for l in check_ok(svc, new, "get_lists", {})[1]]
    check_err(svc, new, "archive_list", {"listId": l0.id}, 409, "listId")
    new2, d = check_ok(svc, new, "update_list", {"listId": l0.id, "closed": False, "name": "Renamed", "subscribed": True})
    assert (d["closed"], d["name"], d["subscribed"]) == (False, "Renamed", True)
    b2 = other_board(s)
    new3, d = check_ok(svc, s, "update_list", {"listId": l0.id, "idBoard": b2.id})
    assert d["idBoard"] == b2.id and all(c.idBoard == b2.id and not c.idLabels for c in new3.cards.values() if c.idList == l0.id)
    for tool, args, code, arg in [("add_list_to_board", {"name": " "}, 422, "name"), ("add_list_to_board", {"name": "x", "boardId": "nope"}, 404, "boardId"),
                                  ("archive_list", {"listId": "nope"}, 404, "listId"), ("archive_list", {"listId": lists(s, b2)[0].id}, 422, "listId"),
                                  ("update_list", {"listId": l0.id}, 422, "listId"), ("update_list", {"listId": l0.id, "name": ""}, 422, "name"),
                                  ("update_list", {"listId": l0.id, "idBoard": "nope"}, 404, "idBoard"), ("update_list", {"listId": "nope", "name": "x"}, 404, "listId")]:
        check_err(svc, s, tool, args, code, arg)

def test_cards_read(s):
    b = board(s); l = lists(s, b)[1]
    cards = check_ok(svc, s, "get_cards_by_list_id", {"listId": l.id})[1]
    want = sorted((c for c in s.cards.values() if c.idList == l.id and not c.closed), key=lambda c: (c.pos, c.id))
    assert [c["id"] for c in cards] == [c.id for c in want] and all(len(c["desc"]) <= 201 for c in cards)
    word = want[0].name.split()[-1]
    assert all(word.lower() in c["name"].lower() for c in check_ok(svc, s, "get_cards_by_list_id", {"listId": l.id, "nameFilter": word.upper()})[1])
    assert all(c["desc"] in ("", ) or c["desc"].endswith("…") or len(c["desc"]) <= 5 for c in check_ok(svc, s, "get_cards_by_list_id", {"listId": l.id, "descMaxLength": 5})[1])
    c = want[0]
    d = check_ok(svc, s, "get_card", {"cardId": c.id})[1]
    assert d["id"] == c.id and d["comments"] == sum(1 for m in s.comments.values() if m.idCard == c.id) and len(d["labels"]) == len(c.idLabels)
    mine = check_ok(svc, s, "get_my_cards", {})[1]
    assert mine and all(s.me in x["idMembers"] for x in mine) and [x["dateLastActivity"] for x in mine] == sorted((x["dateLastActivity"] for x in mine), reverse=True)
    for tool, args, code, arg in [("get_cards_by_list_id", {"listId": "nope"}, 404, "listId"), ("get_cards_by_list_id", {"listId": l.id, "descMaxLength": -1}, 422, "descMaxLength"),
                                  ("get_cards_by_list_id", {"listId": l.id, "nameFilter": ""}, 422, "nameFilter"),
                                  ("get_cards_by_list_id", {"listId": l.id, "boardId": other_board(s).id}, 422, "listId"), ("get_card", {"cardId": "nope"}, 404, "cardId")]:
        check_err(svc, s, tool, args, code, arg)

def test_card_writes(s):
    b = board(s); l = lists(s, b)[0]
    lab = next(x for x in s.labels.values() if x.idBoard == b.id)
    new, d = check_ok(svc, s, "add_card_to_list", {"listId": l.id, "name": "Ship it", "description": "d", "dueDate": "2025-03-10T17:00:00+01:00",
                                                   "start": "2025-03-04", "labels": [lab.id, lab.id]})
    assert (d["due"], d["start"], d["idLabels"]) == ("2025-03-10T16:00:00Z", "2025-03-04", [lab.id])
    assert check_ok(svc, new, "get_cards_by_list_id", {"listId": l.id})[1][-1]["id"] == d["id"]
    cid = d["id"]
    new2, d = check_ok(svc, new, "update_card_details", {"cardId": cid, "name": "Shipped", "dueComplete": True, "pos": "top", "labels": []})
    assert (d["name"], d["dueComplete"], d["idLabels"]) == ("Shipped", True, []) and check_ok(svc, new2, "get_cards_by_list_id", {"listId": l.id})[1][0]["id"] == cid
    l2 = lists(s, b)[2]
    new3, d = check_ok(svc, new2, "move_card", {"cardId": cid, "listId": l2.id, "pos": 1})
    assert d["idList"] == l2.id and d["pos"] == 1.0
    b2 = other_board(s); lb2 = lists(s, b2)[0]
    new4, d = check_ok(svc, new, "move_card", {"cardId": cid, "listId": lb2.id, "boardId": b2.id})
    assert d["idBoard"] == b2.id and d["idLabels"] == []
    new5, d = check_ok(svc, new3, "archive_card", {"cardId": cid})
    assert d["closed"] and cid not in [c["id"] for c in check_ok(svc, new5, "get_cards_by_list_id", {"listId": l2.id})[1]]
    check_err(svc, new5, "archive_card", {"cardId": cid}, 409, "cardId")
    check_err(svc, new5, "update_card_details", {"cardId": cid, "name": "x"}, 409, "cardId")
    other_lab = next(x for x in s.labels.values() if x.idBoard != b.id)
    for tool, args, code, arg in [("add_card_to_list", {"listId": l.id, "name": ""}, 422, "name"), ("add_card_to_list", {"listId": "nope", "name": "x"}, 404, "listId"),
                                  ("add_card_to_list", {"listId": l.id, "name": "x", "dueDate": "tomorrow"}, 422, "dueDate"),
                                  ("add_card_to_list", {"listId": l.id, "name": "x", "start": "soon"}, 422, "start"),
                                  ("add_card_to_list", {"listId": l.id, "name": "x", "labels": [other_lab.id]}, 404, "labels"),
                                  ("add_card_to_list", {"listId": lb2.id, "name": "x"}, 422, "listId"),
                                  ("update_card_details", {"cardId": cid}, 422, "cardId"), ("update_card_details", {"cardId": "nope", "name": "x"}, 404, "cardId"),
                                  ("update_card_details", {"cardId": cid, "pos": "middle"}, 422, "pos"), ("update_card_details", {"cardId": cid, "pos": -3}, 422, "pos"),
                                  ("update_card_details", {"cardId": cid, "name": " "}, 422, "name"), ("update_card_details", {"cardId": cid, "boardId": b2.id, "name": "x"}, 422, "cardId"),
                                  ("move_card", {"cardId": cid, "listId": "nope"}, 404, "listId"), ("move_card", {"cardId": "nope", "listId": l.id}, 404, "cardId"),
                                  ("archive_card", {"cardId": "nope"}, 404, "cardId")]:
        check_err(svc, new, tool, args, code, arg)
    arch = new.model_copy(deep=True); arch.lists[l2.id].closed = True
    check_err(svc, arch, "move_card", {"cardId": cid, "listId": l2.id}, 409, "listId")

def test_comments(s):
    c = open_card(s, board(s))
    new, d = check_ok(svc, s, "add_comment", {"cardId": c.id, "text": "Looks good"})
    mid = d["id"]
    assert check_ok(svc, new, "get_card_comments", {"cardId": c.id, "limit": 1})[1][0]["id"] == mid
    new2, d = check_ok(svc, new, "update_comment", {"commentId": mid, "text": "Looks great"})
    assert d["text"] == "Looks great"
    new3, d = check_ok(svc, new2, "delete_comment", {"commentId": mid})
    assert mid not in new3.comments
    theirs = next(m for m in s.comments.values() if m.idMemberCreator != s.me)
    allc = check_ok(svc, s, "get_card_comments", {"cardId": theirs.idCard})[1]
    assert [(m["date"], m["id"]) for m in allc] == sorted(((m["date"], m["id"]) for m in allc), reverse=True)
    for tool, args, code, arg in [("add_comment", {"cardId": c.id, "text": " "}, 422, "text"), ("add_comment", {"cardId": "nope", "text": "x"}, 404, "cardId"),
                                  ("update_comment", {"commentId": theirs.id, "text": "x"}, 422, "commentId"), ("update_comment", {"commentId": "nope", "text": "x"}, 404, "commentId"),
                                  ("delete_comment", {"commentId": theirs.id}, 422, "commentId"), ("delete_comment", {"commentId": "nope"}, 404, "commentId"),
                                  ("get_card_comments", {"cardId": c.id, "limit": 0}, 422, "limit"), ("get_card_comments", {"cardId": "nope"}, 404, "cardId")]:
        check_err(svc, s, tool, args, code, arg)
    check_err(svc, new, "update_comment", {"commentId": mid, "text": ""}, 422, "text")

def test_members(s):
    b = board(s)
    ms = check_ok(svc, s, "get_board_members", {})[1]
    assert [m["id"] for m in ms] == [m.id for m in sorted((s.members[i] for i in b.idMembers), key=lambda m: (m.fullName, m.id))]
    c = next(c for c in s.cards.values() if c.idBoard == b.id and not c.closed and len(set(b.idMembers) - set(c.idMembers)) > 0)
    m = next(i for i in b.idMembers if i not in c.idMembers)
    new, d = check_ok(svc, s, "assign_member_to_card", {"cardId": c.id, "memberId": m})
    assert m in d["idMembers"]
    check_err(svc, new, "assign_member_to_card", {"cardId": c.id, "memberId": m}, 409, "memberId")
    new2, d = check_ok(svc, new, "remove_member_from_card", {"cardId": c.id, "memberId": m})
    assert d["idMembers"] == c.idMembers
    outsider = next(i for i in s.members if i not in b.idMembers)
    for tool, args, code, arg in [("assign_member_to_card", {"cardId": c.id, "memberId": outsider}, 422, "memberId"),
                                  ("assign_member_to_card", {"cardId": c.id, "memberId": "nope"}, 404, "memberId"),
                                  ("remove_member_from_card", {"cardId": c.id, "memberId": m}, 404, "memberId"),
                                  ("get_board_members", {"boardId": "nope"}, 404, "boardId")]:
        check_err(svc, s, tool, args, code, arg)

def test_labels(s):
    b = board(s)
    labs = check_ok(svc, s, "get_board_labels", {})[1]
    assert [l["name"] for l in labs] == sorted(l["name"] for l in labs) and len(labs) == 6
    new, d = check_ok(svc, s, "create_label", {"name": "Customer", "color": "sky"})
    lid = d["id"]
    new2, d = check_ok(svc, new, "update_label", {"labelId": lid, "name": "Client", "color": "pink"})
    assert (d["name"], d["color"]) == ("Client", "pink")
    used = next(l for l in s.labels.values() if l.idBoard == b.id and any(l.id in c.idLabels for c in s.cards.values()))
    new3, d = check_ok(svc, s, "delete_label", {"labelId": used.id})
    assert used.id not in new3.labels and not any(used.id in c.idLabels for c in new3.cards.values())
    for tool, args, code, arg in [("create_label", {"name": labs[0]["name"].upper()}, 409, "name"), ("create_label", {"name": " "}, 422, "name"),
                                  ("create_label", {"name": "x", "color": "mauve"}, 422, "color"), ("update_label", {"labelId": used.id}, 422, "labelId"),
                                  ("update_label", {"labelId": "nope", "name": "x"}, 404, "labelId"), ("update_label", {"labelId": used.id, "name": labs[-1]["name"]}, 409, "name") if labs[-1]["name"] != used.name else ("update_label", {"labelId": used.id, "name": labs[0]["name"]}, 409, "name"),
                                  ("update_label", {"labelId": used.id, "name": ""}, 422, "name"), ("update_label", {"labelId": used.id, "color": "beige"}, 422, "color"),
                                  ("delete_label", {"labelId": "nope"}, 404, "labelId")]:
        check_err(svc, s, tool, args, code, arg)

def test_checklists(s):
    c = open_card(s, board(s))
    new, d = check_ok(svc, s, "create_checklist", {"name": "Launch steps", "cardId": c.id})
    new2, d = check_ok(svc, new, "add_checklist_item", {"text": "Write notes", "checkListName": "Launch steps", "cardId": c.id})
    new3, d2 = check_ok(svc, new2, "add_checklist_item", {"text": "Announce", "checkListName": "Launch steps"})
    assert [i["name"] for i in check_ok(svc, new3, "get_checklist_items", {"name": "Launch steps", "cardId": c.id})[1]] == ["Write notes", "Announce"]
    dup = next(k for k in s.checklists.values() if sum(1 for x in s.checklists.values() if x.name == k.name and x.idBoard == k.idBoard) > 1)
    s2 = s.model_copy(deep=True); s2.active_board = dup.idBoard
    for tool, args, code, arg in [("create_checklist", {"name": "Launch steps", "cardId": c.id}, 409, "name"), ("create_checklist", {"name": " ", "cardId": c.id}, 422, "name"),
                                  ("add_checklist_item", {"text": " ", "checkListName": "Launch steps", "cardId": c.id}, 422, "text"),
                                  ("add_checklist_item", {"text": "x", "checkListName": "Nope", "cardId": c.id}, 404, "checkListName"),
                                  ("get_checklist_items", {"name": "Nope"}, 404, "name")]:
        check_err(svc, new, tool, args, code, arg)
    check_err(svc, s2, "get_checklist_items", {"name": dup.name}, 409, "name")
    check_err(svc, s, "create_checklist", {"name": "x", "cardId": "nope"}, 404, "cardId")

def test_recent_activity(s):
    acts = check_ok(svc, s, "get_recent_activity", {"limit": 50})[1]
    keys = [(a["date"], a["id"]) for a in acts]
    assert len(acts) == 50 and keys == sorted(keys, reverse=True)
    older = check_ok(svc, s, "get_recent_activity", {"before": acts[9]["id"], "limit": 5})[1]
    assert [a["id"] for a in older] == [a["id"] for a in acts[10:15]]
    newer = check_ok(svc, s, "get_recent_activity", {"since": acts[3]["date"], "limit": 50})[1]
    assert all(a["date"] > acts[3]["date"] or (a["date"], a["id"]) > (acts[3]["date"], "") for a in newer)
    new, d = check_ok(svc, s, "add_list_to_board", {"name": "Later"})
    assert check_ok(svc, new, "get_recent_activity", {"limit": 1})[1][0]["type"] == "createList"
    check_err(svc, s, "get_recent_activity", {"limit": 0}, 422, "limit")
    check_err(svc, s, "get_recent_activity", {"since": "last week"}, 422, "since")
