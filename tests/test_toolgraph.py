"The Agent-World tool-graph walk: edge grades from typed inputs/outputs, start tools, weighted next-tool draws."
import random
from collections import Counter
from typing import Optional
import pytest
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.toolgraph import ToolGraph, sample_tool_walk, name_slot, input_slots, is_id_slot, KINDS
from compoworld_nb.author import default_library

# a typed toy shop: orders are created (returning an order_id), read, listed and cancelled
class Order(Record):
    id: str
    item: str
    city: str = ""
    status: str = "open"

class ShopState(State):
    orders: dict[str, Order] = {}

shop = Service("shop", "commerce", ShopState)

@shop.tool
def create_order(s: ShopState, item: str, city: str = "") -> dict:
    "Create an order."
    i = s.new_id("ord"); s.orders[i] = Order(id=i, item=item, city=city); return s.orders[i]

@shop.tool(read_only=True)
def get_order_details(s: ShopState, order_id: str) -> dict:
    "One order."
    if order_id not in s.orders: raise ToolError(404, f"no order {order_id!r}", "order_id")
    return s.orders[order_id]

@shop.tool(read_only=True)
def list_orders(s: ShopState, city: Optional[str] = None) -> dict:
    "Orders, optionally in one city."
    return {"orders": [o for o in s.orders.values() if city is None or o.city == city]}

@shop.tool
def cancel_order(s: ShopState, order_id: str) -> dict:
    "Cancel an order."
    if order_id not in s.orders: raise ToolError(404, f"no order {order_id!r}", "order_id")
    s.orders[order_id].status = "cancelled"; return {"cancelled": order_id}

@shop.tool(read_only=True)
def ping(s: ShopState) -> dict:
    "Health check."
    return {"pong": True}

@shop.fixture
def _fx(seed: int) -> ShopState:
    s = ShopState(seed=seed)
    for item, city in (("lamp", "Tyler"), ("desk", "Ada")):
        i = s.new_id("ord"); s.orders[i] = Order(id=i, item=item, city=city)
    return s

G = ToolGraph.build([shop], seed=0)

def test_slots_follow_names_and_types():
    assert name_slot("orderId") == name_slot("order_id") == "orderid" and name_slot("lng") == "longitude"
    assert input_slots(shop, "cancel_order") == {"order_id": ("orderid", True)} and is_id_slot("orderid")
    assert G.tools["shop.create_order"].outputs >= {"orderid", "item", "city", "status"}
    assert "orderid" in G.tools["shop.list_orders"].outputs      # `id` inside `orders: [...]` is an order id

def test_edge_grades_from_types():
    assert G.kind("shop.create_order", "shop.get_order_details") == "strong"   # the required order_id comes out of create
    assert G.kind("shop.list_orders", "shop.cancel_order") == "strong"
    assert G.kind("shop.get_order_details", "shop.create_order") == "weak"     # city: an optional input that details reveal
    assert G.kind("shop.get_order_details", "shop.list_orders") == "weak"       # list_orders' optional city filter
    assert G.kind("shop.list_orders", "shop.get_order_details") == "strong"     # listed ids feed the required order_id
    assert G.kind("shop.ping", "shop.create_order") == "independent" == G.kind("shop.create_order", "shop.ping")
    n = len(G.tools)
    assert len(G.grade) == n * (n - 1) and set(G.grade.values()) <= set(KINDS)    # fully connected, no self loops

def test_starts_have_no_strong_predecessor_and_return_output():
    assert G.starts() == ["shop.create_order", "shop.list_orders", "shop.ping"]
    strong_in = {b for (a, b), w in G.grade.items() if w == 3}
    assert not set(G.starts()) & strong_in

def test_next_tool_drawn_by_edge_weight():
    p = G.next_probs("shop.create_order")
    assert p == pytest.approx({"shop.get_order_details": 3 / 9, "shop.cancel_order": 3 / 9, "shop.list_orders": 2 / 9, "shop.ping": 1 / 9})
    c = Counter(sample_tool_walk(G, 2, random.Random(i), start="shop.create_order").tools[1] for i in range(4000))
    for t, q in p.items(): assert abs(c[t] / 4000 - q) < 0.03
    flat = G.next_probs("shop.create_order", weights={3: 1, 2: 1, 1: 1})                # difficulty: flatten the grades
    assert all(v == pytest.approx(1 / 4) for v in flat.values())

def test_walks_start_right_are_seeded_and_distinct_when_asked():
    for i in range(30):
        w = sample_tool_walk(G, 4, random.Random(i))
        assert w.tools[0] in G.starts() and len(w.kinds) == 3 and all(G.kind(a, b) == k for a, b, k in zip(w.tools, w.tools[1:], w.kinds))
    assert sample_tool_walk(G, 5, random.Random(9)).tools == sample_tool_walk(G, 5, random.Random(9)).tools
    d = sample_tool_walk(G, 5, random.Random(1), distinct=True)
    assert len(set(d.tools)) == 5 and d.services == ["shop"]
    with pytest.raises(ValueError, match="no tool can follow"): sample_tool_walk(G, 6, random.Random(1), distinct=True)
    with pytest.raises(ValueError, match="length=0"): sample_tool_walk(G, 0, random.Random(1))

def test_networkx_export_and_the_shipped_library():
    g = G.to_networkx()
    assert g.number_of_nodes() == 5 and g.edges["shop.create_order", "shop.cancel_order"] == {"weight": 3, "kind": "strong"}
    lib, _ = default_library()
    TG = ToolGraph.build([lib["gmail"], lib["maps"], lib["weather"], lib["slack"]], seed=0)
    assert TG.kind("gmail.search_emails", "gmail.read_email") == "strong"
    assert TG.kind("slack.slack_list_channels", "slack.slack_get_channel_history") == "strong"
    assert TG.kind("maps.maps_geocode", "weather.get_forecast") == "weak"          # coordinates are not ids
    assert "gmail.read_email" not in TG.starts() and "maps.maps_geocode" in TG.starts()
    assert sum(TG.counts().values()) == len(TG.tools) * (len(TG.tools) - 1)
