"""Trello: workspaces, boards, lists, cards, labels, members, comments, checklists and the board activity log.

Tool names and parameters follow the delorenj Trello MCP server (`../shared/specs/mcp/trello.json`); 30 of its 57 tools are
implemented (boards and workspaces, lists, cards, comments, members, labels, checklists, activity). Where the spec
makes `boardId` optional the active board is used (`set_active_board`); with none set the call is refused (422).

Orders are stable: boards, lists and labels by position/name as documented per tool, cards by `pos` within a
list (ties by id), comments and activity newest first (ties by id). Every write is logged as a board action.
"""
from __future__ import annotations
import functools
from datetime import timedelta
from typing import Literal, Optional, Union
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, find, scan, has, writable, put, remove, ids
from .world import make_world, service_rng, service_faker, reveal_value, iso, parse_iso
from .kit import Query, planted_record_step

__all__ = ["service", "TrelloState"]

COLORS = ["green", "yellow", "orange", "red", "purple", "blue", "sky", "lime", "pink", "black"]


class Workspace(Record):
    id: str
    name: str
    displayName: str

class Member(Record):
    id: str
    fullName: str
    username: str
    email: str = ""

class Board(Record):
    id: str
    name: str
    desc: str = ""
    idOrganization: str
    closed: bool = False
    idMembers: list[str] = []
    url: str = ""

class TList(Record):
    id: str
    name: str
    idBoard: str
    pos: float
    closed: bool = False
    subscribed: bool = False

class Card(Record):
    id: str
    name: str
    desc: str = ""
    idList: str
    idBoard: str
    pos: float
    closed: bool = False
    due: Optional[str] = None
    dueComplete: bool = False
    start: Optional[str] = None
    idLabels: list[str] = []
    idMembers: list[str] = []
    dateLastActivity: str

class Label(Record):
    id: str
    idBoard: str
    name: str
    color: Optional[str] = None

class Comment(Record):
    id: str
    idCard: str
    idMemberCreator: str
    text: str
    date: str

class CheckItem(Record):
    id: str
    name: str
    state: Literal["complete", "incomplete"] = "incomplete"
    pos: float

class Checklist(Record):
    id: str
    idCard: str
    idBoard: str
    name: str
    checkItems: list[CheckItem] = []

class Action(Record):
    id: str
    type: str
    date: str
    idBoard: str
    idMemberCreator: str
    data: dict[str, str] = {}


class TrelloState(State):
    me: str = ""
    active_board: Optional[str] = None
    active_workspace: Optional[str] = None
    workspaces: dict[str, Workspace] = {}
    members: dict[str, Member] = {}
    boards: dict[str, Board] = {}
    lists: dict[str, TList] = {}
    cards: dict[str, Card] = {}
    labels: dict[str, Label] = {}
    comments: dict[str, Comment] = {}
    checklists: dict[str, Checklist] = {}
    actions: dict[str, Action] = {}


service = Service("trello", "productivity & collaboration", TrelloState,
                  "Trello boards: lists and cards, labels, members, comments, checklists and board activity.", spec="trello")


# --- helpers --------------------------------------------------------------------------------------
def _board(s: TrelloState, boardId: Optional[str], arg: str = "boardId") -> Board:
    bid = boardId or s.active_board
    if bid is None: raise ToolError(422, "no boardId given and no active board set (use set_active_board)", arg)
    if not has(s, "boards", bid): raise ToolError(404, f"no board with {arg}={bid!r}", arg)
    return read(s, "boards", bid)


def _list(s: TrelloState, listId: str, board: Optional[Board] = None, arg: str = "listId", open_: bool = True) -> TList:
    l = find(s, "lists", listId, "list", arg)
    if board is not None and l.idBoard != board.id: raise ToolError(422, f"list {listId!r} is not on board {board.id!r}", arg)
    if open_ and l.closed: raise ToolError(409, f"list {listId!r} is archived", arg)
    return l

def _card(s: TrelloState, cardId: str, board: Optional[Board] = None, open_: bool = False) -> Card:
    c = find(s, "cards", cardId, "card", "cardId")
    if board is not None and c.idBoard != board.id: raise ToolError(422, f"card {cardId!r} is not on board {board.id!r}", "cardId")
    if open_ and c.closed: raise ToolError(409, f"card {cardId!r} is archived", "cardId")
    return c

def _cards_in(s: TrelloState, listId: str, include_closed: bool = False) -> list[Card]:
    return sorted((c for c in scan(s, "cards") if c.idList == listId and (include_closed or not c.closed)), key=lambda c: (c.pos, c.id))

def _date(v: Optional[str], arg: str, date_only: bool = False) -> Optional[str]:
    if v is None: return None
    try: d = parse_iso(v)
    except ValueError: raise ToolError(422, f"{arg}={v!r} is not an ISO 8601 date{'' if date_only else '/time'}", arg) from None
    return d.date().isoformat() if date_only else iso(d)

def _pos(s: TrelloState, listId: str, pos, skip: str = "", arg: str = "pos") -> float:
    cards = [c for c in _cards_in(s, listId) if c.id != skip]
    if pos is None or pos == "bottom": return (cards[-1].pos if cards else 0.0) + 1024.0
    if pos == "top": return (cards[0].pos / 2) if cards else 1024.0
    if isinstance(pos, str):
        try: pos = float(pos)
        except ValueError: raise ToolError(422, f"pos={pos!r} must be 'top', 'bottom' or a positive number", arg) from None
    if pos <= 0: raise ToolError(422, f"pos={pos!r} must be a positive number", arg)
    return float(pos)

def _labels(s: TrelloState, board: Board, ids: list[str]) -> list[str]:
    for i in ids:
        l = read(s, "labels", i)
        if l is None or l.idBoard != board.id: raise ToolError(404, f"labels names {i!r}, which is not a label of board {board.id}", "labels")
    return list(dict.fromkeys(ids))

def _log(s: TrelloState, board_id: str, typ: str, **data) -> str:
    i = s.new_id("act")
    put(s, "actions", i, Action(id=i, type=typ, date=s.tick(), idBoard=board_id, idMemberCreator=s.me, data={k: str(v) for k, v in data.items()}))
    return i

def _card_view(c: Card, desc_max: Optional[int] = None) -> dict:
    d = c.model_dump()
    if desc_max is not None and len(d["desc"]) > desc_max: d["desc"] = d["desc"][:desc_max] + "…"
    return d


# --- workspaces and boards -----------------------------------------------------------------------
@service.tool(read_only=True)
def list_workspaces(s: TrelloState) -> list[dict]:
    "The workspaces the user belongs to, sorted by display name."
    return [w.model_dump() for w in sorted(scan(s, "workspaces"), key=lambda w: (w.displayName, w.id))]

@service.tool
def set_active_workspace(s: TrelloState,
                         workspaceId: str,  # the workspace to make active
                        ) -> dict:
    "Make a workspace the active one."
    w = find(s, "workspaces", workspaceId, "workspace", "workspaceId")
    s.active_workspace = w.id
    return {"active_workspace": w.id, "name": w.displayName}

@service.tool(read_only=True)
def list_boards(s: TrelloState) -> list[dict]:
    "Every open board the user can see, sorted by name."
    return [b.model_dump() for b in sorted(scan(s, "boards"), key=lambda b: (b.name, b.id)) if not b.closed]

@service.tool(read_only=True)
def list_boards_in_workspace(s: TrelloState,
                             workspaceId: str,  # the workspace whose boards to list
                            ) -> list[dict]:
    "The open boards of one workspace, sorted by name."
    find(s, "workspaces", workspaceId, "workspace", "workspaceId")
    return [b.model_dump() for b in sorted(scan(s, "boards"), key=lambda b: (b.name, b.id)) if b.idOrganization == workspaceId and not b.closed]

@service.tool
def set_active_board(s: TrelloState,
                     boardId: str,  # the board later calls use when they get no boardId
                    ) -> dict:
    "Make a board the active one for later calls."
    b = _board(s, boardId)
    if b.closed: raise ToolError(409, f"board {boardId!r} is closed", "boardId")
    s.active_board = b.id
    return {"active_board": b.id, "name": b.name}

@service.tool(read_only=True)
def get_active_board_info(s: TrelloState) -> dict:
    "The active board with its open lists (by position) and counts."
    b = _board(s, None)
    lists = sorted((l for l in scan(s, "lists") if l.idBoard == b.id and not l.closed), key=lambda l: (l.pos, l.id))
    return {**b.model_dump(), "lists": [{"id": l.id, "name": l.name, "cards": len(_cards_in(s, l.id))} for l in lists]}


# --- lists ----------------------------------------------------------------------------------------
@service.tool(read_only=True)
def get_lists(s: TrelloState,
              boardId: Optional[str] = None,  # board to read (default: the active board)
             ) -> list[dict]:
    "The open lists of a board, by position."
    b = _board(s, boardId)
    return [l.model_dump() for l in sorted(scan(s, "lists"), key=lambda l: (l.pos, l.id)) if l.idBoard == b.id and not l.closed]

@service.tool
def add_list_to_board(s: TrelloState,
                      name: str,                      # name of the new list
                      boardId: Optional[str] = None,  # board to add it to (default: the active board)
                     ) -> dict:
    "Add a list at the right end of a board."
    b = _board(s, boardId)
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    pos = max((l.pos for l in scan(s, "lists") if l.idBoard == b.id), default=0.0) + 1024.0
    i = s.new_id("list")
    put(s, "lists", i, TList(id=i, name=name.strip(), idBoard=b.id, pos=pos))
    _log(s, b.id, "createList", list=i, name=name.strip())
    return read(s, "lists", i).model_dump()

@service.tool
def archive_list(s: TrelloState,
                 listId: str,                    # the list to archive
                 boardId: Optional[str] = None,  # its board (default: the active board)
                ) -> dict:
    "Archive (close) a list; its cards stay in it."
    b = _board(s, boardId)
    l = _list(s, listId, b)
    l = writable(s, "lists", l.id); l.closed = True
    _log(s, b.id, "updateList:closed", list=l.id)
    return l.model_dump()

@service.tool
def update_list(s: TrelloState,
                listId: str,                       # the list to change
                name: Optional[str] = None,        # new name
                closed: Optional[bool] = None,     # archive (true) or restore (false)
                subscribed: Optional[bool] = None, # follow the list or not
                idBoard: Optional[str] = None,     # move the list to this board
               ) -> dict:
    "Rename, archive/restore, follow/unfollow or move a list to another board."
    l = _list(s, listId, open_=False)
    if name is None and closed is None and subscribed is None and idBoard is None: raise ToolError(422, "nothing to change", "listId")
    if name is not None and not name.strip(): raise ToolError(422, "name must not be empty", "name")
    if idBoard is not None: find(s, "boards", idBoard, "board", "idBoard")
    l = writable(s, "lists", l.id)
    if name is not None: l.name = name.strip()
    if closed is not None: l.closed = closed
    if subscribed is not None: l.subscribed = subscribed
    if idBoard is not None and idBoard != l.idBoard:
        l.idBoard = idBoard
        for c in [c.id for c in scan(s, "cards") if c.idList == l.id]: writable(s, "cards", c).idBoard = idBoard; writable(s, "cards", c).idLabels = []
    _log(s, l.idBoard, "updateList", list=l.id)
    return l.model_dump()


# --- cards ----------------------------------------------------------------------------------------
@service.tool(read_only=True)
def get_cards_by_list_id(s: TrelloState,
                         listId: str,                        # the list whose open cards to fetch
                         boardId: Optional[str] = None,      # its board (checked if given)
                         nameFilter: Optional[Query] = None, # only cards whose name contains this (case-insensitive)
                         descMaxLength: Optional[int] = None,  # cut descriptions to this many characters (default 200)
                        ) -> list[dict]:
    "The open cards of a list, in list order (by position)."
    b = _board(s, boardId) if boardId else None
    l = _list(s, listId, b, open_=False)
    if descMaxLength is not None and descMaxLength < 0: raise ToolError(422, f"descMaxLength must be >= 0, got {descMaxLength}", "descMaxLength")
    if nameFilter is not None and not nameFilter: raise ToolError(422, "nameFilter must not be empty", "nameFilter")
    cards = [c for c in _cards_in(s, l.id) if nameFilter is None or nameFilter.lower() in c.name.lower()]
    return [_card_view(c, 200 if descMaxLength is None else descMaxLength) for c in cards]

@service.tool(read_only=True)
def get_card(s: TrelloState,
             cardId: str,  # the card to fetch
            ) -> dict:
    "One card with its labels, members, checklists and comment count."
    c = _card(s, cardId)
    return {**c.model_dump(), "labels": [read(s, "labels", i).model_dump() for i in c.idLabels if has(s, "labels", i)],
            "checklists": [k.model_dump() for k in scan(s, "checklists") if k.idCard == c.id],
            "comments": sum(1 for m in scan(s, "comments") if m.idCard == c.id)}

@service.tool
def add_card_to_list(s: TrelloState,
                     listId: str,                        # the list to add the card to
                     name: str,                          # card title
                     boardId: Optional[str] = None,      # its board (default: the active board)
                     description: Optional[str] = None,  # card description
                     dueDate: Optional[str] = None,      # due date and time, ISO 8601
                     start: Optional[str] = None,        # start date, YYYY-MM-DD
                     labels: Optional[list[str]] = None, # label ids of the board to apply
                    ) -> dict:
    "Add a card at the bottom of a list."
    b = _board(s, boardId)
    l = _list(s, listId, b)
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    due, st, labs = _date(dueDate, "dueDate"), _date(start, "start", date_only=True), _labels(s, b, labels or [])
    i = s.new_id("card")
    put(s, "cards", i, Card(id=i, name=name.strip(), desc=description or "", idList=l.id, idBoard=b.id, pos=_pos(s, l.id, None),
                      due=due, start=st, idLabels=labs, dateLastActivity=s.now()))
    _log(s, b.id, "createCard", card=i, list=l.id, name=name.strip())
    return read(s, "cards", i).model_dump()

@service.tool
def update_card_details(s: TrelloState,
                        cardId: str,                           # the card to change
                        boardId: Optional[str] = None,         # its board (checked if given)
                        name: Optional[str] = None,            # new title
                        description: Optional[str] = None,     # new description
                        dueDate: Optional[str] = None,         # new due date and time, ISO 8601
                        start: Optional[str] = None,           # new start date, YYYY-MM-DD
                        dueComplete: Optional[bool] = None,    # mark the due date done or not
                        labels: Optional[list[str]] = None,    # the card's new label ids (replaces the old ones)
                        pos: Optional[Union[str, float]] = None,  # new position in its list: 'top', 'bottom' or a positive number
                       ) -> dict:
    "Change a card's title, description, dates, labels or position."
    b = _board(s, boardId) if boardId else None
    c = _card(s, cardId, b, open_=True)
    board = read(s, "boards", c.idBoard)
    if name is not None and not name.strip(): raise ToolError(422, "name must not be empty", "name")
    due, st = _date(dueDate, "dueDate"), _date(start, "start", date_only=True)
    labs = _labels(s, board, labels) if labels is not None else None
    p = _pos(s, c.idList, pos, skip=c.id) if pos is not None else None
    if all(v is None for v in (name, description, dueDate, start, dueComplete, labels, pos)): raise ToolError(422, "nothing to change", "cardId")
    c = writable(s, "cards", c.id)
    if name is not None: c.name = name.strip()
    if description is not None: c.desc = description
    if due is not None: c.due = due
    if st is not None: c.start = st
    if dueComplete is not None: c.dueComplete = dueComplete
    if labs is not None: c.idLabels = labs
    if p is not None: c.pos = p
    c.dateLastActivity = s.tick()
    _log(s, c.idBoard, "updateCard", card=c.id)
    return c.model_dump()

@service.tool
def archive_card(s: TrelloState,
                 cardId: str,                    # the card to archive
                 boardId: Optional[str] = None,  # its board (checked if given)
                ) -> dict:
    "Archive (close) a card."
    b = _board(s, boardId) if boardId else None
    c = writable(s, "cards", _card(s, cardId, b, open_=True).id)
    c.closed, c.dateLastActivity = True, s.tick()
    _log(s, c.idBoard, "updateCard:closed", card=c.id)
    return c.model_dump()

@service.tool
def move_card(s: TrelloState,
              cardId: str,                    # the card to move
              listId: str,                    # the list to move it to
              boardId: Optional[str] = None,  # the target list's board (default: the list's own board)
              pos: Optional[Union[str, float]] = None,  # position in the target list: 'top', 'bottom' (default) or a positive number
             ) -> dict:
    "Move a card to another list (possibly on another board); labels of the old board are dropped on a board change."
    c = _card(s, cardId, open_=True)
    b = _board(s, boardId) if boardId else None
    l = _list(s, listId, b)
    p = _pos(s, l.id, pos, skip=c.id)
    c = writable(s, "cards", c.id)
    if l.idBoard != c.idBoard: c.idLabels = []
    c.idList, c.idBoard, c.pos, c.dateLastActivity = l.id, l.idBoard, p, s.tick()
    _log(s, l.idBoard, "updateCard:idList", card=c.id, list=l.id)
    return c.model_dump()

@service.tool(read_only=True)
def get_my_cards(s: TrelloState) -> list[dict]:
    "The open cards assigned to the current user, by last activity (newest first, then id)."
    cards = [c for c in scan(s, "cards") if s.me in c.idMembers and not c.closed]
    return [_card_view(c) for c in sorted(cards, key=lambda c: (c.dateLastActivity, c.id), reverse=True)]


# --- comments -------------------------------------------------------------------------------------
@service.tool
def add_comment(s: TrelloState,
                cardId: str,  # the card to comment on
                text: str,    # the comment
               ) -> dict:
    "Add a comment to a card as the current user."
    c = _card(s, cardId, open_=True)
    if not text.strip(): raise ToolError(422, "text must not be empty", "text")
    i = s.new_id("cmt")
    put(s, "comments", i, Comment(id=i, idCard=c.id, idMemberCreator=s.me, text=text, date=s.tick()))
    writable(s, "cards", c.id).dateLastActivity = s.now()
    _log(s, c.idBoard, "commentCard", card=c.id, comment=i)
    return read(s, "comments", i).model_dump()

def _own_comment(s: TrelloState, commentId: str) -> Comment:
    m = find(s, "comments", commentId, "comment", "commentId")
    if m.idMemberCreator != s.me: raise ToolError(422, f"comment {commentId!r} was written by someone else; only your own comments can be changed", "commentId")
    return m

@service.tool
def update_comment(s: TrelloState,
                   commentId: str,  # one of your own comments
                   text: str,       # its new text
                  ) -> dict:
    "Change the text of one of your comments."
    m = _own_comment(s, commentId)
    if not text.strip(): raise ToolError(422, "text must not be empty", "text")
    m = writable(s, "comments", m.id); m.text = text
    _log(s, read(s, "cards", m.idCard).idBoard, "updateComment", comment=m.id)
    return m.model_dump()

@service.tool
def delete_comment(s: TrelloState,
                   commentId: str,  # one of your own comments
                  ) -> dict:
    "Delete one of your comments."
    m = _own_comment(s, commentId)
    remove(s, "comments", m.id)
    _log(s, read(s, "cards", m.idCard).idBoard, "deleteComment", comment=m.id)
    return {"deleted": m.id}

@service.tool(read_only=True)
def get_card_comments(s: TrelloState,
                      cardId: str,     # the card whose comments to read
                      limit: int = 100,  # at most this many (1-1000), newest first
                     ) -> list[dict]:
    "A card's comments, newest first (ties by id)."
    c = _card(s, cardId)
    if not 1 <= limit <= 1000: raise ToolError(422, f"limit must be between 1 and 1000, got {limit}", "limit")
    ms = sorted((m for m in scan(s, "comments") if m.idCard == c.id), key=lambda m: (m.date, m.id), reverse=True)
    return [m.model_dump() for m in ms[:limit]]


# --- members and labels ---------------------------------------------------------------------------
@service.tool(read_only=True)
def get_board_members(s: TrelloState,
                      boardId: Optional[str] = None,  # the board (default: the active board)
                     ) -> list[dict]:
    "The members of a board, sorted by full name."
    b = _board(s, boardId)
    return [m.model_dump() for m in sorted((read(s, "members", i) for i in b.idMembers), key=lambda m: (m.fullName, m.id))]

@service.tool
def assign_member_to_card(s: TrelloState,
                          cardId: str,    # the card
                          memberId: str,  # a member of the card's board
                         ) -> dict:
    "Add a board member to a card."
    c = _card(s, cardId, open_=True)
    find(s, "members", memberId, "member", "memberId")
    if memberId not in read(s, "boards", c.idBoard).idMembers: raise ToolError(422, f"member {memberId!r} is not on the card's board", "memberId")
    if memberId in c.idMembers: raise ToolError(409, f"member {memberId!r} is already on card {cardId!r}", "memberId")
    c = writable(s, "cards", c.id); c.idMembers = c.idMembers + [memberId]; c.dateLastActivity = s.tick()
    _log(s, c.idBoard, "addMemberToCard", card=c.id, member=memberId)
    return c.model_dump()

@service.tool
def remove_member_from_card(s: TrelloState,
                            cardId: str,    # the card
                            memberId: str,  # a member assigned to it
                           ) -> dict:
    "Remove a member from a card."
    c = _card(s, cardId, open_=True)
    if memberId not in c.idMembers: raise ToolError(404, f"member {memberId!r} is not on card {cardId!r}", "memberId")
    c = writable(s, "cards", c.id); c.idMembers = [m for m in c.idMembers if m != memberId]; c.dateLastActivity = s.tick()
    _log(s, c.idBoard, "removeMemberFromCard", card=c.id, member=memberId)
    return c.model_dump()

@service.tool(read_only=True)
def get_board_labels(s: TrelloState,
                     boardId: Optional[str] = None,  # the board (default: the active board)
                    ) -> list[dict]:
    "The labels of a board, sorted by name (then id)."
    b = _board(s, boardId)
    return [l.model_dump() for l in sorted((l for l in scan(s, "labels") if l.idBoard == b.id), key=lambda l: (l.name, l.id))]

def _color(color: Optional[str]) -> Optional[str]:
    if color is not None and color not in COLORS: raise ToolError(422, f"color={color!r} is not one of {COLORS}", "color")
    return color

@service.tool
def create_label(s: TrelloState,
                 name: str,                      # label name
                 boardId: Optional[str] = None,  # the board (default: the active board)
                 color: Optional[str] = None,    # one of green, yellow, orange, red, purple, blue, sky, lime, pink, black
                ) -> dict:
    "Create a label on a board (names are unique per board, ignoring case)."
    b = _board(s, boardId)
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    if any(l.idBoard == b.id and l.name.lower() == name.strip().lower() for l in scan(s, "labels")):
        raise ToolError(409, f"board {b.id} already has a label named {name.strip()!r}", "name")
    i = s.new_id("label")
    put(s, "labels", i, Label(id=i, idBoard=b.id, name=name.strip(), color=_color(color)))
    _log(s, b.id, "createLabel", label=i)
    return read(s, "labels", i).model_dump()

@service.tool
def update_label(s: TrelloState,
                 labelId: str,                # the label
                 name: Optional[str] = None,  # new name
                 color: Optional[str] = None, # new color
                ) -> dict:
    "Rename or recolor a label."
    l = find(s, "labels", labelId, "label", "labelId")
    if name is None and color is None: raise ToolError(422, "nothing to change: give name or color", "labelId")
    if name is not None:
        if not name.strip(): raise ToolError(422, "name must not be empty", "name")
        if any(x.idBoard == l.idBoard and x.id != l.id and x.name.lower() == name.strip().lower() for x in scan(s, "labels")):
            raise ToolError(409, f"board {l.idBoard} already has a label named {name.strip()!r}", "name")
    _color(color)
    l = writable(s, "labels", l.id)
    if name is not None: l.name = name.strip()
    if color is not None: l.color = color
    _log(s, l.idBoard, "updateLabel", label=l.id)
    return l.model_dump()

@service.tool
def delete_label(s: TrelloState,
                 labelId: str,  # the label to delete (it is removed from every card)
                ) -> dict:
    "Delete a label and remove it from every card."
    l = find(s, "labels", labelId, "label", "labelId")
    remove(s, "labels", l.id)
    for k in [c.id for c in scan(s, "cards") if l.id in c.idLabels]:
        writable(s, "cards", k).idLabels = [x for x in read(s, "cards", k).idLabels if x != l.id]
    _log(s, l.idBoard, "deleteLabel", label=l.id)
    return {"deleted": l.id}


# --- checklists -----------------------------------------------------------------------------------
def _checklist(s: TrelloState, name: str, cardId: Optional[str], boardId: Optional[str], arg: str) -> Checklist:
    if cardId: cands = [k for k in scan(s, "checklists") if k.idCard == _card(s, cardId).id and k.name == name]
    else:
        b = _board(s, boardId)
        cands = [k for k in scan(s, "checklists") if k.idBoard == b.id and k.name == name]
    if not cands: raise ToolError(404, f"no checklist named {name!r}" + (f" on card {cardId!r}" if cardId else " on the board"), arg)
    if len(cands) > 1: raise ToolError(409, f"{len(cands)} checklists are named {name!r}; give cardId to choose one", arg)
    return cands[0]

@service.tool
def create_checklist(s: TrelloState,
                     name: str,    # checklist name (unique on the card)
                     cardId: str,  # the card to add it to
                    ) -> dict:
    "Add an empty checklist to a card."
    c = _card(s, cardId, open_=True)
    if not name.strip(): raise ToolError(422, "name must not be empty", "name")
    if any(k.idCard == c.id and k.name == name.strip() for k in scan(s, "checklists")):
        raise ToolError(409, f"card {cardId!r} already has a checklist named {name.strip()!r}", "name")
    i = s.new_id("chk")
    put(s, "checklists", i, Checklist(id=i, idCard=c.id, idBoard=c.idBoard, name=name.strip()))
    _log(s, c.idBoard, "addChecklistToCard", card=c.id, checklist=i)
    return read(s, "checklists", i).model_dump()

@service.tool
def add_checklist_item(s: TrelloState,
                       text: str,                      # the item's text
                       checkListName: str,             # name of the checklist
                       cardId: Optional[str] = None,   # the card holding the checklist (recommended)
                       boardId: Optional[str] = None,  # the board to search when no card is given (default: the active board)
                      ) -> dict:
    "Add an item at the end of a checklist found by name."
    k = _checklist(s, checkListName, cardId, boardId, "checkListName")
    if not text.strip(): raise ToolError(422, "text must not be empty", "text")
    k = writable(s, "checklists", k.id)
    item = CheckItem(id=s.new_id("item"), name=text.strip(), pos=(k.checkItems[-1].pos if k.checkItems else 0.0) + 1024.0)
    k.checkItems = k.checkItems + [item]
    _log(s, k.idBoard, "updateCheckItem", checklist=k.id, item=item.id)
    return item.model_dump()

@service.tool(read_only=True)
def get_checklist_items(s: TrelloState,
                        name: str,                      # name of the checklist
                        cardId: Optional[str] = None,   # the card holding it (recommended)
                        boardId: Optional[str] = None,  # the board to search when no card is given (default: the active board)
                       ) -> list[dict]:
    "The items of a checklist found by name, in order."
    k = _checklist(s, name, cardId, boardId, "name")
    return [i.model_dump() for i in sorted(k.checkItems, key=lambda i: (i.pos, i.id))]


# --- activity -------------------------------------------------------------------------------------
@service.tool(read_only=True)
def get_recent_activity(s: TrelloState,
                        boardId: Optional[str] = None,  # the board (default: the active board)
                        limit: int = 10,                # at most this many actions (1-1000)
                        since: Optional[str] = None,    # only actions after this ISO date/time or action id
                        before: Optional[str] = None,   # only actions before this ISO date/time or action id
                       ) -> list[dict]:
    "A board's actions, newest first (ties by id): card and list changes, comments, labels."
    b = _board(s, boardId)
    if not 1 <= limit <= 1000: raise ToolError(422, f"limit must be between 1 and 1000, got {limit}", "limit")
    acts = sorted((a for a in scan(s, "actions") if a.idBoard == b.id), key=lambda a: (a.date, a.id), reverse=True)
    def bound(v, arg):
        if v is None: return None
        a = read(s, "actions", v)
        if a is not None: return (a.date, a.id)
        try: return (iso(parse_iso(v)), "")
        except ValueError: raise ToolError(422, f"{arg}={v!r} is neither an action id nor an ISO 8601 date", arg) from None
    lo, hi = bound(since, "since"), bound(before, "before")
    acts = [a for a in acts if (lo is None or (a.date, a.id) > lo) and (hi is None or (a.date, a.id) < hi)]
    return [a.model_dump() for a in acts[:limit]]


# --- fixture ------------------------------------------------------------------------------------
_BOARDS = [("Product Roadmap", ["Ideas", "Planned", "In Progress", "Shipped"]),
           ("Marketing Calendar", ["Backlog", "Drafting", "Review", "Scheduled", "Published"]),
           ("Engineering Sprint", ["To Do", "Doing", "Code Review", "Done"]),
           ("Office Operations", ["Requests", "Ordered", "Done"]),
           ("Hiring Pipeline", ["Sourcing", "Phone Screen", "Onsite", "Offer", "Hired"])]
_LABELS = [("Urgent", "red"), ("Bug", "orange"), ("Feature", "green"), ("Research", "purple"), ("Blocked", "black"), ("Quick win", "lime")]

def _hex(rng) -> str: return "%024x" % rng.getrandbits(96)

@service.fixture
def fixture(seed: int) -> TrelloState:
    "2 workspaces, 5 boards, 21 lists, ~200 cards with labels, members, ~150 comments, ~40 checklists and ~500 actions."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> TrelloState:
    w, rng, fk = make_world(seed), service_rng("trello", seed), service_faker("trello", seed)
    s = TrelloState(seed=seed)
    for p in w.people:
        mid = _hex(rng); put(s, "members", mid, Member(id=mid, fullName=p.name, username=p.handle.replace(".", ""), email=p.email))
    s.me = next(iter(ids(s, "members")))
    members = list(ids(s, "members"))
    wss = []
    for nm in (w.company, f"{w.company} Ops"):
        wid = _hex(rng); put(s, "workspaces", wid, Workspace(id=wid, name=nm.lower().replace(" ", "").replace(",", "")[:30], displayName=nm)); wss.append(wid)
    def when(lo=1, hi=120): return iso(EPOCH - timedelta(minutes=rng.randint(lo * 1440, hi * 1440)))
    for bi, (bname, lnames) in enumerate(_BOARDS):
        bid = _hex(rng)
        bm = [s.me] + rng.sample(members[1:], 6)
        put(s, "boards", bid, Board(id=bid, name=bname, desc=fk.sentence(nb_words=10), idOrganization=wss[bi % 2], idMembers=bm,
                              url=f"https://trello.com/b/{bid[:8]}"))
        labs = []
        for ln, col in _LABELS:
            lid = _hex(rng); put(s, "labels", lid, Label(id=lid, idBoard=bid, name=ln, color=col)); labs.append(lid)
        for li, ln in enumerate(lnames):
            lid = _hex(rng); put(s, "lists", lid, TList(id=lid, name=ln, idBoard=bid, pos=1024.0 * (li + 1)))
            for ci in range(rng.randint(6, 12)):
                cid = _hex(rng)
                t = when()
                topic = rng.choice(w.topics)
                put(s, "cards", cid, Card(id=cid, name=f"{rng.choice(['Draft', 'Review', 'Plan', 'Fix', 'Update', 'Prepare', 'Research'])} {topic}",
                                    desc=fk.paragraph(nb_sentences=2), idList=lid, idBoard=bid, pos=1024.0 * (ci + 1),
                                    closed=rng.random() < 0.05, due=iso(EPOCH + timedelta(days=rng.randint(-20, 60))) if rng.random() < 0.5 else None,
                                    dueComplete=rng.random() < 0.2, idLabels=rng.sample(labs, rng.randint(0, 2)),
                                    idMembers=rng.sample(bm, rng.randint(0, 2)), dateLastActivity=t))
                aid = _hex(rng)
                put(s, "actions", aid, Action(id=aid, type="createCard", date=t, idBoard=bid, idMemberCreator=rng.choice(bm), data={"card": cid, "list": lid}))
    cards = list(scan(s, "cards"))
    for _ in range(150):
        c = rng.choice(cards)
        b = read(s, "boards", c.idBoard)
        mid, t = _hex(rng), when(0, 60)
        who = rng.choice(b.idMembers)
        put(s, "comments", mid, Comment(id=mid, idCard=c.id, idMemberCreator=who, text=fk.sentence(nb_words=12), date=t))
        aid = _hex(rng); put(s, "actions", aid, Action(id=aid, type="commentCard", date=t, idBoard=b.id, idMemberCreator=who, data={"card": c.id, "comment": mid}))
    for c in rng.sample(cards, 40):
        kid = _hex(rng)
        put(s, "checklists", kid, Checklist(id=kid, idCard=c.id, idBoard=c.idBoard, name=rng.choice(["Acceptance Criteria", "Launch", "Steps", "QA"]),
                                      checkItems=[CheckItem(id=_hex(rng), name=fk.bs(), state=rng.choice(["complete", "incomplete"]), pos=1024.0 * (j + 1))
                                                  for j in range(rng.randint(2, 6))]))
    for _ in range(120):
        c = rng.choice(cards); t = when(0, 90)
        aid = _hex(rng); put(s, "actions", aid, Action(id=aid, type="updateCard", date=t, idBoard=c.idBoard, idMemberCreator=rng.choice(read(s, "boards", c.idBoard).idMembers), data={"card": c.id}))
    s.active_board = next(iter(ids(s, "boards")))
    s.active_workspace = wss[0]
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code on that card", "place": "the venue on that card"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a card titled after `value` whose description gives the next fact; the agent finds and opens it."
    s = ctx.state("trello")
    board = read(s, "boards", s.active_board) if s.active_board else next(iter(scan(s, "boards")))
    lst = sorted((l for l in scan(s, "lists") if l.idBoard == board.id and not l.closed), key=lambda l: (l.pos, l.id))[0]
    cid = ctx.plant_id("card")
    line = f"Project code: {nxt}" if kind == "key" else f"Venue: {nxt}"
    def plant(st: TrelloState):
        put(st, "cards", cid, Card(id=cid, name=f"Kickoff: {value}", desc=f"{line}. Details to follow.", idList=lst.id, idBoard=board.id,
                             pos=0.5, dateLastActivity=iso(EPOCH - timedelta(hours=5))))
    ctx.plant("trello", plant)
    found = ctx.call("get_cards_by_list_id", listId=lst.id, boardId=board.id, nameFilter=str(value))
    got = ctx.call("get_card", cardId=found[0]["id"])
    assert nxt in got["desc"]
    return (f'On the "{board.name}" board, find the card about {ctx.in_phrase} in the "{lst.name}" list and tell me the {what} it gives.',
            f'On the "{board.name}" board, open the card about {ctx.in_phrase} in the "{lst.name}" list.')

@add_step(service, "card", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def card_step(ctx, value, want):
    "Add a card whose description carries `value`."
    s = ctx.state("trello")
    board = read(s, "boards", s.active_board) if s.active_board else next(iter(scan(s, "boards")))
    lst = sorted((l for l in scan(s, "lists") if l.idBoard == board.id and not l.closed), key=lambda l: (l.pos, l.id))[0]
    title = ctx.label("Follow-up")
    ctx.call("add_card_to_list", listId=lst.id, boardId=board.id, name=title, description=f"Details: {value}")
    crit = [ctx.criterion("cards", {"name": title}, "desc", "contains", str(value)),
            ctx.criterion("cards", {"name": title}, "idList", "eq", lst.id)]
    return Visit(f'Add a card titled "{title}" to the "{lst.name}" list of the "{board.name}" board, with {ctx.in_phrase} in its description.',
                 criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

def _first_list(s: TrelloState):
    board = read(s, "boards", s.active_board) if s.active_board else next(iter(scan(s, "boards")))
    return board, sorted((l for l in scan(s, "lists") if l.idBoard == board.id and not l.closed), key=lambda l: (l.pos, l.id))

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant a card titled `title` with `body` as its description in the board's first list; the reference filters the list by the title and opens the card."
    board, lists = _first_list(ctx.state("trello"))
    lst, cid = lists[0], ctx.plant_id("card")
    def plant(st: TrelloState):
        put(st, "cards", cid, Card(id=cid, name=title, desc=body, idList=lst.id, idBoard=board.id, pos=0.5,
                             dateLastActivity=iso(EPOCH - timedelta(hours=5))))
    ctx.plant("trello", plant)
    found = ctx.call("get_cards_by_list_id", listId=lst.id, boardId=board.id, nameFilter=title)
    got = ctx.call("get_card", cardId=found[0]["id"])
    assert got["name"] == title
    return {"phrase": f"the card “{title}” on the {board.name} board", "where": f"the {board.name} board"}

doc_beat.spot = lambda ctx, title: {"phrase": "our Trello board"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Add a card titled `title` with `text` as its description to the list `target` names."
    ctx.call("add_card_to_list", listId=target["list"], boardId=target["board"], name=title, description=text)
    return {"collection": "cards", "where": {"name": title, "idList": target["list"]}, "field": "desc", "reveals": None}

def _announce_target(ctx) -> dict:
    board, lists = _first_list(ctx.state("trello"))
    lst = lists[ctx.rng.randrange(len(lists))]
    return {"board": board.id, "list": lst.id, "phrase": f"a card in the “{lst.name}” list of the {board.name} board"}
announce_beat.target = _announce_target
