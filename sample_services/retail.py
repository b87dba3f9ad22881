"""Retail: an online shop's customer-service back office (products, users, orders), shaped like τ²-bench retail.

Tool names and arguments follow the ones τ²-bench's retail tasks call (`peers/tau2_retail/tasks.json`);
the typed state uses τ²'s field names and collection split (`products`, `users`, `orders`), so its
`db.json` loads into `RetailState` and dumps back exactly (`load_tau2_db`, `tau2_db`). Every record also
carries `id` (its key), the field the project's rubric selects records by; the peer's view leaves it out.

Money follows the peer's arithmetic: amounts are floats, a price difference is summed pair by pair in
the order given, gift-card balances are rounded to cents after each change, and a modification's
payment-history entry keeps the unrounded difference. Error messages begin with the peer's text and
then name the argument and value.

The seeded fixture (`initial_state(seed)`) is a Faker-made shop of its own (about 30 products with
~250 variants, 150 customers, 400 orders) with fixed dates; it does not need the peer's files.
"""
from __future__ import annotations
import ast, functools, json, operator
from pathlib import Path
from typing import Annotated, Literal, Optional, Union
from pydantic import Field
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, read, entries, has, put, writable
from .world import make_world, service_rng, service_faker, US_STATES

__all__ = ["service", "RetailState", "Product", "Variant", "User", "Order", "load_tau2_db", "tau2_db", "tau2_record", "tau2_text",
           "ORDER_STATUSES", "CANCEL_REASONS"]

ORDER_STATUSES = ("pending", "processed", "delivered", "cancelled", "exchange requested", "return requested", "pending (item modified)")
CANCEL_REASONS = ("no longer needed", "ordered by mistake")


# --- typed state (field order = the peer's declaration order) ---------------------------------------
class Variant(Record):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(Record):
    name: str
    product_id: str
    variants: dict[str, Variant]
    id: str = ""


class UserName(Record):
    first_name: str
    last_name: str


class Address(Record):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(Record):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(Record):
    source: Literal["gift_card"]
    id: str
    balance: float


class Paypal(Record):
    source: Literal["paypal"]
    id: str


PaymentMethod = Annotated[Union[CreditCard, GiftCard, Paypal], Field(discriminator="source")]


class User(Record):
    user_id: str
    name: UserName
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]
    id: str = ""


class OrderItem(Record):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Fulfillment(Record):
    tracking_id: list[str]
    item_ids: list[str]


class Payment(Record):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(Record):
    order_id: str
    user_id: str
    address: Address
    items: list[OrderItem]
    status: Literal[ORDER_STATUSES]
    fulfillments: list[Fulfillment]
    payment_history: list[Payment]
    cancel_reason: Optional[Literal[CANCEL_REASONS]] = None
    exchange_items: Optional[list[str]] = None
    exchange_new_items: Optional[list[str]] = None
    exchange_payment_method_id: Optional[str] = None
    exchange_price_difference: Optional[float] = None
    return_items: Optional[list[str]] = None
    return_payment_method_id: Optional[str] = None
    id: str = ""


class RetailState(State):
    products: dict[str, Product] = {}
    users: dict[str, User] = {}
    orders: dict[str, Order] = {}


service = Service("retail", "commerce", RetailState,
                  "An online shop's back office: look up customers, orders and products; cancel, modify, return and exchange orders.",
                  spec=None)


# --- the peer's view: load, dump, hash -----------------------------------------------------------
_KEYS = {"products": "product_id", "users": "user_id", "orders": "order_id"}
_MODEL = {"products": Product, "users": User, "orders": Order}

def tau2_record(r: Record) -> dict:
    "A record as the peer dumps it: its fields in declaration order, optional order fields as null, without our `id`."
    return r.model_dump(mode="json", exclude={"id"})

def load_tau2_db(src: str | Path | bytes | dict, seed: int = 0) -> RetailState:
    "A `RetailState` from the peer's `db.json` (a path, its bytes, or the parsed dict); ValueError naming the record for bad data or a key that is not the record's id."
    if isinstance(src, dict):
        missing = [c for c in _KEYS if c not in src]
        if missing: raise ValueError(f"db has no {missing[0]!r} collection (expected {list(_KEYS)})")
        for c, key in _KEYS.items():
            for k, v in src[c].items():
                if not isinstance(v, dict) or v.get(key) != k: raise ValueError(f"{c}[{k!r}]: its {key} is {v.get(key) if isinstance(v, dict) else v!r}, not the key")
        cols = {c: {k: _MODEL[c].model_validate({**v, "id": k}) for k, v in src[c].items()} for c in _KEYS}
        st = RetailState(seed=seed, **cols)
    else:
        raw = src if isinstance(src, bytes) else Path(src).read_bytes()
        missing = [c for c in _KEYS if f'"{c}"'.encode() not in raw]
        if missing: raise ValueError(f"db has no {missing[0]!r} collection (expected {list(_KEYS)})")
        st = RetailState.model_validate_json(raw)              # parsed and validated in one pass (pydantic-core)
        st.seed = seed
    for c, key in _KEYS.items():
        for k, r in getattr(st, c).items():
            if getattr(r, key, None) != k: raise ValueError(f"{c}[{k!r}]: its {key} is {getattr(r, key, r)!r}, not the key")
            if r.id != k: r.__dict__["id"] = k                 # fresh records: no cached text to invalidate yet
    return st

def tau2_db(s: RetailState, typed: bool = False) -> dict:
    "The state in the peer's form: `typed=False` gives `db.json`'s shape (null optional fields left out), `typed=True` the peer's typed dump."
    out = {}
    for c in ("products", "users", "orders"):
        recs = {}
        for k, r in getattr(s, c).items():
            d = tau2_record(r)
            if not typed and c == "orders": d = {f: v for f, v in d.items() if v is not None or f in _ORDER_REQUIRED}
            recs[k] = d
        out[c] = recs
    return out

_ORDER_REQUIRED = {n for n, f in Order.model_fields.items() if f.is_required()}

def tau2_text(s: RetailState) -> str:
    "The text the peer hashes: Python `json.dumps(typed dump, sort_keys=True)` with default separators."
    return json.dumps(tau2_db(s, typed=True), sort_keys=True, default=str)


# --- helpers --------------------------------------------------------------------------------------
def _order(s: RetailState, order_id: str, write: bool = False) -> Order:
    "The order (404 in tau2's words if absent): shared and sealed, or with `write` the call's writable copy (`writable`)."
    if not has(s, "orders", order_id): raise ToolError(404, f"Order not found: order_id={order_id!r}", "order_id")
    return (writable if write else read)(s, "orders", order_id)

def _user(s: RetailState, user_id: str, arg: str = "user_id", write: bool = False) -> User:
    "The customer (404 naming `arg` if absent): shared and sealed, or with `write` the call's writable copy."
    if not has(s, "users", user_id): raise ToolError(404, f"User not found: {arg}={user_id!r}", arg)
    return (writable if write else read)(s, "users", user_id)

def _product(s: RetailState, product_id: str) -> Product:
    if not has(s, "products", product_id): raise ToolError(404, f"Product not found: product_id={product_id!r}", "product_id")
    return read(s, "products", product_id)

def _method(u: User, payment_method_id: str):
    if payment_method_id not in u.payment_methods:
        raise ToolError(404, f"Payment method not found: payment_method_id={payment_method_id!r} is not one of user {u.user_id}'s", "payment_method_id")
    return u.payment_methods[payment_method_id]

def _check_items(o: Order, item_ids: list[str]) -> None:
    "Each id must occur in the order at least as often as it is listed."
    have = [i.item_id for i in o.items]
    for i in item_ids:
        if item_ids.count(i) > have.count(i): raise ToolError(404, f"Number of {i} not found: item_ids lists {item_ids.count(i)}, order {o.order_id} has {have.count(i)}", "item_ids")

def _swaps(s: RetailState, o: Order, item_ids: list[str], new_item_ids: list[str]) -> tuple[list, float]:
    "Pair old and new items (same product, new one available); returns [(index in the order, order item, new variant)] and the summed price difference."
    _check_items(o, item_ids)
    if len(item_ids) != len(new_item_ids):
        raise ToolError(422, f"The number of items to be exchanged should match: {len(item_ids)} item_ids, {len(new_item_ids)} new_item_ids", "new_item_ids")
    pairs, diff, used = [], 0.0, set()
    for old_id, new_id in zip(item_ids, new_item_ids):
        k = next(k for k, x in enumerate(o.items) if x.item_id == old_id and k not in used)   # the next unused copy
        used.add(k); item = o.items[k]
        v = read(s, "products", item.product_id).variants.get(new_id) if has(s, "products", item.product_id) else None
        if v is None or not v.available:
            raise ToolError(422, f"New item {new_id} not found or available (product {item.product_id})", "new_item_ids")
        pairs.append((k, item, v)); diff += v.price - item.price
    return pairs, diff

def _pending(o: Order, what: str = "modified", exact: bool = False) -> None:
    ok = o.status == "pending" if exact else "pending" in o.status
    if not ok: raise ToolError(409, f"Non-pending order cannot be {what}: order {o.order_id} is {o.status!r}", "order_id")

def _address(address1, address2, city, state, country, zip) -> Address:
    for n, v in (("address1", address1), ("city", city), ("state", state), ("country", country), ("zip", zip)):
        if not v.strip(): raise ToolError(422, f"{n} must not be empty", n)
    return Address(address1=address1, address2=address2, city=city, country=country, state=state, zip=zip)


# --- read tools -----------------------------------------------------------------------------------
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

def _arith(node):
    if isinstance(node, ast.Expression): return _arith(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool): return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS: return _OPS[type(node.op)](_arith(node.left), _arith(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        v = _arith(node.operand); return v if isinstance(node.op, ast.UAdd) else -v
    raise ValueError("not arithmetic")

@service.tool(read_only=True)
def calculate(s: RetailState,
              expression: str,  # arithmetic with numbers, + - * / and parentheses, e.g. "2 * (3.5 + 1)"
             ) -> float:
    "Evaluate an arithmetic expression; the result is rounded to 2 decimals."
    if not expression.strip() or any(c not in "0123456789+-*/(). " for c in expression):
        raise ToolError(400, f"Invalid characters in expression: {expression!r} (allowed: digits, + - * / ( ) . and spaces)", "expression")
    try: v = _arith(ast.parse(expression.strip(), mode="eval"))
    except ZeroDivisionError: raise ToolError(422, f"division by zero in expression {expression!r}", "expression") from None
    except (SyntaxError, ValueError): raise ToolError(400, f"expression {expression!r} is not valid arithmetic", "expression") from None
    return round(float(v), 2)

@service.tool(read_only=True)
def find_user_id_by_email(s: RetailState,
                          email: str,  # the customer's email address (case-insensitive)
                         ) -> str:
    "Find a customer's user id from their email address."
    e = email.strip().lower()
    for u in scan(s, "users"):
        if u.email.lower() == e: return u.user_id
    raise ToolError(404, f"User not found: no user has email={email!r}", "email")

@service.tool(read_only=True)
def find_user_id_by_name_zip(s: RetailState,
                             first_name: str,  # the customer's first name (case-insensitive)
                             last_name: str,   # the customer's last name (case-insensitive)
                             zip: str,         # the zip code of the customer's address
                            ) -> str:
    "Find a customer's user id from their first name, last name and zip code."
    f, l = first_name.strip().lower(), last_name.strip().lower()
    for u in scan(s, "users"):
        if u.name.first_name.lower() == f and u.name.last_name.lower() == l and u.address.zip == zip.strip(): return u.user_id
    raise ToolError(404, f"User not found: no user named {first_name} {last_name} with zip={zip!r}", "zip")

@service.tool(read_only=True)
def get_order_details(s: RetailState,
                      order_id: str,  # the order id, with its '#', e.g. '#W0000000'
                     ) -> dict:
    "Get an order's status, items, shipping address, fulfillments and payments."
    return tau2_record(_order(s, order_id))

@service.tool(read_only=True)
def get_product_details(s: RetailState,
                        product_id: str,  # the product id (not an item id)
                       ) -> dict:
    "Get a product type and all its variants (items) with options, availability and price."
    return tau2_record(_product(s, product_id))

@service.tool(read_only=True)
def get_item_details(s: RetailState,
                     item_id: str,  # the item (variant) id
                    ) -> dict:
    "Get one item (a variant of some product): options, availability and price."
    for p in scan(s, "products"):
        if item_id in p.variants: return p.variants[item_id].model_dump(mode="json")
    raise ToolError(404, f"Item not found: item_id={item_id!r}", "item_id")

@service.tool(read_only=True)
def get_user_details(s: RetailState,
                     user_id: str,  # the customer's user id, e.g. 'sara_doe_496'
                    ) -> dict:
    "Get a customer's name, address, email, payment methods and order ids."
    return tau2_record(_user(s, user_id))

@service.tool(read_only=True)
def list_all_product_types(s: RetailState) -> dict:
    "List every product type as {name: product_id}, sorted by name."
    return dict(sorted((p.name, p.product_id) for p in scan(s, "products")))

@service.tool(read_only=True)
def transfer_to_human_agents(s: RetailState,
                             summary: str,  # a short summary of the customer's issue for the human agent
                            ) -> str:
    "Hand the conversation to a human agent, with a summary of the issue."
    if not summary.strip(): raise ToolError(422, "summary must not be empty", "summary")
    return "Transfer successful"


# --- write tools ----------------------------------------------------------------------------------
@service.tool
def cancel_pending_order(s: RetailState,
                         order_id: str,  # the order id, with its '#'
                         reason: str,    # 'no longer needed' or 'ordered by mistake'
                        ) -> dict:
    "Cancel a pending order; every payment is refunded (gift cards at once)."
    o = _order(s, order_id, write=True)
    _pending(o, "cancelled", exact=True)
    if reason not in CANCEL_REASONS: raise ToolError(422, f"Invalid reason: {reason!r} (use one of {list(CANCEL_REASONS)})", "reason")
    u = _user(s, o.user_id, "order_id", write=True)
    refunds = [Payment(transaction_type="refund", amount=p.amount, payment_method_id=p.payment_method_id) for p in o.payment_history]
    for p in o.payment_history:
        m = u.payment_methods.get(p.payment_method_id)
        if isinstance(m, GiftCard): m.balance = round(m.balance + p.amount, 2)
    o.status, o.cancel_reason = "cancelled", reason
    o.payment_history = o.payment_history + refunds
    return tau2_record(o)

@service.tool
def exchange_delivered_order_items(s: RetailState,
                                   order_id: str,            # the order id, with its '#'
                                   item_ids: list[str],      # ids of the delivered items to exchange (repeat an id to exchange several)
                                   new_item_ids: list[str],  # the new items, same product and in the same order as item_ids
                                   payment_method_id: str,   # the customer's payment method that pays or receives the difference
                                  ) -> dict:
    "Request an exchange of delivered items for other variants of the same products."
    o = _order(s, order_id, write=True)
    if o.status != "delivered": raise ToolError(409, f"Non-delivered order cannot be exchanged: order {order_id} is {o.status!r}", "order_id")
    _, diff = _swaps(s, o, item_ids, new_item_ids)
    m = _method(_user(s, o.user_id, "order_id"), payment_method_id)
    if isinstance(m, GiftCard) and m.balance < diff:
        raise ToolError(422, f"Insufficient gift card balance to pay for the price difference: {payment_method_id} has {m.balance}, needs {round(diff, 2)}", "payment_method_id")
    o.status = "exchange requested"
    o.exchange_items, o.exchange_new_items = sorted(item_ids), sorted(new_item_ids)
    o.exchange_payment_method_id, o.exchange_price_difference = payment_method_id, round(diff, 2)
    return tau2_record(o)

@service.tool
def modify_pending_order_address(s: RetailState,
                                 order_id: str,  # the order id, with its '#'
                                 address1: str,  # street address
                                 address2: str,  # apartment or suite ('' for none)
                                 city: str,      # city
                                 state: str,     # state code, e.g. 'CA'
                                 country: str,   # country, e.g. 'USA'
                                 zip: str,       # zip code
                                ) -> dict:
    "Change the shipping address of a pending order."
    o = _order(s, order_id, write=True)
    _pending(o)
    o.address = _address(address1, address2, city, state, country, zip)
    return tau2_record(o)

@service.tool
def modify_pending_order_items(s: RetailState,
                               order_id: str,            # the order id, with its '#'
                               item_ids: list[str],      # ids of the items to change (repeat an id to change several)
                               new_item_ids: list[str],  # the new items, same product and in the same order as item_ids
                               payment_method_id: str,   # the customer's payment method that pays or receives the difference
                              ) -> dict:
    "Swap items of a pending order for other variants of the same products (once per order)."
    o = _order(s, order_id, write=True)
    _pending(o, exact=True)
    pairs, diff = _swaps(s, o, item_ids, new_item_ids)
    m = _method(_user(s, o.user_id, "order_id", write=True), payment_method_id)
    if isinstance(m, GiftCard) and m.balance < diff:
        raise ToolError(422, f"Insufficient gift card balance to pay for the price difference: {payment_method_id} has {m.balance}, needs {round(diff, 2)}", "payment_method_id")
    o.payment_history = o.payment_history + [Payment(transaction_type="payment" if diff > 0 else "refund", amount=abs(diff),
                                                     payment_method_id=payment_method_id)]
    if isinstance(m, GiftCard): m.balance = round(m.balance - diff, 2)
    items = list(o.items)
    for k, item, v in pairs:
        items[k] = OrderItem(name=item.name, product_id=item.product_id, item_id=v.item_id, price=v.price, options=dict(v.options))
    o.items, o.status = items, "pending (item modified)"
    return tau2_record(o)

@service.tool
def modify_pending_order_payment(s: RetailState,
                                 order_id: str,           # the order id, with its '#'
                                 payment_method_id: str,  # the customer's payment method to pay with instead
                                ) -> dict:
    "Pay a pending order with another of the customer's payment methods (the old one is refunded)."
    o = _order(s, order_id, write=True)
    _pending(o)
    u = _user(s, o.user_id, "order_id", write=True)
    new = _method(u, payment_method_id)
    if len(o.payment_history) != 1 or o.payment_history[0].transaction_type != "payment":
        raise ToolError(409, f"There should be exactly one payment for a pending order: order {order_id} has {len(o.payment_history)} entries", "order_id")
    old = o.payment_history[0]
    if old.payment_method_id == payment_method_id:
        raise ToolError(409, f"The new payment method should be different from the current one: {payment_method_id}", "payment_method_id")
    if isinstance(new, GiftCard) and new.balance < old.amount:
        raise ToolError(422, f"Insufficient gift card balance to pay for the order: {payment_method_id} has {new.balance}, needs {old.amount}", "payment_method_id")
    o.payment_history = o.payment_history + [
        Payment(transaction_type="payment", amount=old.amount, payment_method_id=payment_method_id),
        Payment(transaction_type="refund", amount=old.amount, payment_method_id=old.payment_method_id)]
    if isinstance(new, GiftCard): new.balance = round(new.balance - old.amount, 2)
    prev = u.payment_methods.get(old.payment_method_id)
    if isinstance(prev, GiftCard): prev.balance = round(prev.balance + old.amount, 2)
    return tau2_record(o)

@service.tool
def modify_user_address(s: RetailState,
                        user_id: str,   # the customer's user id
                        address1: str,  # street address
                        address2: str,  # apartment or suite ('' for none)
                        city: str,      # city
                        state: str,     # state code, e.g. 'CA'
                        country: str,   # country, e.g. 'USA'
                        zip: str,       # zip code
                       ) -> dict:
    "Change a customer's default address."
    u = _user(s, user_id, write=True)
    u.address = _address(address1, address2, city, state, country, zip)
    return tau2_record(u)

@service.tool
def return_delivered_order_items(s: RetailState,
                                 order_id: str,           # the order id, with its '#'
                                 item_ids: list[str],     # ids of the delivered items to return (repeat an id to return several)
                                 payment_method_id: str,  # where the refund goes: the original payment method or a gift card
                                ) -> dict:
    "Request a return of delivered items; the refund goes to the original payment method or a gift card."
    o = _order(s, order_id, write=True)
    if o.status != "delivered": raise ToolError(409, f"Non-delivered order cannot be returned: order {order_id} is {o.status!r}", "order_id")
    m = _method(_user(s, o.user_id, "order_id"), payment_method_id)
    if not isinstance(m, GiftCard) and payment_method_id != o.payment_history[0].payment_method_id:
        raise ToolError(422, f"Payment method should be either the original payment method or a gift card: {payment_method_id}", "payment_method_id")
    _check_items(o, item_ids)
    o.status, o.return_items, o.return_payment_method_id = "return requested", sorted(item_ids), payment_method_id
    return tau2_record(o)


# --- fixture ------------------------------------------------------------------------------------
_CATALOG = [  # product type -> option dimensions (our own small catalog)
    ("Desk Lamp", {"color": ["black", "white", "brass"], "brightness": ["low", "medium", "high"], "power source": ["AC adapter", "USB", "battery"]}),
    ("Backpack", {"color": ["black", "navy", "olive", "grey"], "size": ["small", "medium", "large"], "material": ["nylon", "canvas"]}),
    ("Coffee Grinder", {"grind type": ["blade", "burr"], "capacity": ["100g", "250g", "500g"], "color": ["black", "steel"]}),
    ("Yoga Mat", {"thickness": ["4mm", "6mm", "8mm"], "material": ["PVC", "TPE", "natural rubber"], "color": ["blue", "purple", "green"]}),
    ("Wireless Earbuds", {"color": ["black", "white", "blue"], "battery life": ["6 hours", "8 hours", "10 hours"], "noise cancelling": ["yes", "no"]}),
    ("Tent", {"capacity": ["2-person", "4-person", "6-person"], "season": ["3-season", "4-season"], "color": ["green", "orange"]}),
    ("Blender", {"capacity": ["1L", "1.5L", "2L"], "power": ["500W", "900W", "1200W"], "color": ["red", "black", "white"]}),
    ("Monitor", {"size": ["24 inch", "27 inch", "32 inch"], "resolution": ["1080p", "1440p", "4K"], "panel": ["IPS", "VA"]}),
    ("Rain Jacket", {"size": ["S", "M", "L", "XL"], "color": ["yellow", "navy", "black"], "hood": ["fixed", "packable"]}),
    ("Cookware Set", {"pieces": ["5", "8", "12"], "material": ["stainless steel", "cast iron", "nonstick"]}),
    ("Bike Lock", {"type": ["U-lock", "chain", "folding"], "length": ["short", "long"], "security level": ["3", "4", "5"]}),
    ("Sleeping Bag", {"temperature rating": ["0F", "20F", "40F"], "fill": ["down", "synthetic"], "length": ["regular", "long"]}),
    ("Standing Desk", {"width": ["48 inch", "60 inch", "72 inch"], "color": ["walnut", "white", "black"], "motor": ["single", "dual"]}),
    ("Tea Kettle", {"capacity": ["1L", "1.7L"], "material": ["glass", "steel", "ceramic"], "color": ["white", "black", "copper"]}),
    ("Webcam", {"resolution": ["720p", "1080p", "4K"], "field of view": ["65 degrees", "90 degrees"], "microphone": ["mono", "stereo"]}),
    ("Hiking Poles", {"material": ["aluminum", "carbon"], "grip": ["cork", "foam", "rubber"], "folding": ["yes", "no"]}),
    ("Notebook", {"size": ["A5", "A4"], "ruling": ["lined", "dotted", "blank"], "cover": ["hard", "soft"]}),
    ("Air Fryer", {"capacity": ["3qt", "5qt", "8qt"], "color": ["black", "white", "silver"], "display": ["digital", "dial"]}),
    ("Phone Case", {"model": ["small", "standard", "max"], "material": ["silicone", "leather", "clear plastic"], "color": ["black", "red", "clear"]}),
    ("Running Socks", {"size": ["S", "M", "L"], "cushion": ["light", "medium", "max"], "pack": ["3", "6"]}),
    ("Bookend Set", {"material": ["wood", "metal", "marble"], "style": ["modern", "classic"]}),
    ("Electric Toothbrush", {"mode count": ["2", "3", "5"], "color": ["white", "black", "pink"], "travel case": ["yes", "no"]}),
    ("Water Filter", {"type": ["pitcher", "faucet", "countertop"], "capacity": ["6 cups", "10 cups"], "filter life": ["2 months", "4 months"]}),
    ("Board Game", {"players": ["2-4", "2-6", "3-8"], "age": ["8+", "12+"], "theme": ["strategy", "party", "family"]}),
    ("Camping Stove", {"burners": ["1", "2"], "fuel": ["propane", "butane", "multi-fuel"], "ignition": ["manual", "piezo"]}),
    ("Desk Chair", {"material": ["mesh", "leather", "fabric"], "color": ["black", "grey", "blue"], "armrest": ["fixed", "adjustable"]}),
    ("Scarf", {"material": ["wool", "cashmere", "cotton"], "color": ["grey", "red", "camel"], "length": ["standard", "long"]}),
    ("Power Bank", {"capacity": ["5000mAh", "10000mAh", "20000mAh"], "ports": ["1", "2", "3"], "color": ["black", "white"]}),
    ("Picture Frame", {"size": ["5x7", "8x10", "11x14"], "material": ["wood", "metal"], "color": ["black", "white", "gold"]}),
    ("Kayak Paddle", {"length": ["220cm", "230cm", "240cm"], "material": ["aluminum", "fiberglass", "carbon"]}),
]
_BRANDS = ["visa", "mastercard", "amex", "discover"]
_STATUS_W = [("pending", 40), ("processed", 12), ("delivered", 36), ("cancelled", 12)]

def _digits(rng, n: int, taken: set) -> str:
    while True:
        x = str(rng.randint(10 ** (n - 1), 10 ** n - 1))
        if x not in taken: taken.add(x); return x

@service.fixture
def fixture(seed: int) -> RetailState:
    "About 30 products (~250 variants), 150 customers (the world's people among them) and 400 orders."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> RetailState:
    w, rng, fk = make_world(seed), service_rng("retail", seed), service_faker("retail", seed)
    taken: set = set()
    s = RetailState(seed=seed)
    for name, dims in _CATALOG:
        pid = _digits(rng, 10, taken)
        base = rng.uniform(15, 600)
        combos = [{}]
        for d, vals in dims.items(): combos = [{**c, d: v} for c in combos for v in vals]
        chosen = rng.sample(combos, min(len(combos), rng.randint(5, 12)))
        variants = {}
        for opts in chosen:
            iid = _digits(rng, 10, taken)
            variants[iid] = Variant(item_id=iid, options=opts, available=rng.random() < 0.8, price=round(base * rng.uniform(0.85, 1.2), 2))
        put(s, "products", pid, Product(name=name, product_id=pid, variants=variants, id=pid))
    people = [(p.first, p.last, w.place(p.home)) for p in w.people]
    while len(people) < 150:
        f, l = fk.first_name(), fk.last_name()
        people.append((f, l, rng.choice(w.places) if rng.random() < 0.3 else None))
    users = []
    for f, l, place in people:
        uid = f"{f.lower()}_{l.lower()}_{_digits(rng, 4, taken)}".replace(" ", "").replace("'", "")
        if place is not None: city, st = place.name, place.state
        else: city, st = fk.city(), rng.choice(sorted(US_STATES))
        addr = Address(address1=fk.street_address(), address2=rng.choice(["", f"Suite {rng.randint(100, 999)}", f"Apt {rng.randint(1, 40)}"]),
                       city=city, country="USA", state=st, zip=fk.zipcode())
        pms = {}
        for kind in rng.sample(["credit_card", "gift_card", "paypal"], rng.randint(1, 3)):
            pmid = f"{kind}_{_digits(rng, 7, taken)}"
            pms[pmid] = (CreditCard(source="credit_card", id=pmid, brand=rng.choice(_BRANDS), last_four=f"{rng.randint(0, 9999):04d}") if kind == "credit_card"
                         else GiftCard(source="gift_card", id=pmid, balance=float(rng.randint(0, 300))) if kind == "gift_card"
                         else Paypal(source="paypal", id=pmid))
        email = f"{f.lower()}.{l.lower()}{rng.randint(10, 9999)}@example.com".replace(" ", "").replace("'", "")
        u = User(user_id=uid, name=UserName(first_name=f, last_name=l), address=addr, email=email, payment_methods=pms, orders=[], id=uid)
        put(s, "users", uid, u); users.append(u)
    products = list(scan(s, "products"))
    statuses = [st for st, n in _STATUS_W for _ in range(n)]
    for _ in range(400):
        u = rng.choice(users)
        oid = f"#W{_digits(rng, 7, taken)}"
        items = []
        for p in rng.sample(products, rng.randint(1, 5)):
            v = rng.choice(list(p.variants.values()))
            items.append(OrderItem(name=p.name, product_id=p.product_id, item_id=v.item_id, price=v.price, options=dict(v.options)))
        status = rng.choice(statuses)
        pm = rng.choice(list(u.payment_methods))
        total = round(sum(i.price for i in items), 2)
        pays = [Payment(transaction_type="payment", amount=total, payment_method_id=pm)]
        if status == "cancelled": pays.append(Payment(transaction_type="refund", amount=total, payment_method_id=pm))
        ful = ([Fulfillment(tracking_id=[_digits(rng, 12, taken)], item_ids=[i.item_id for i in items])]
               if status in ("processed", "delivered") else [])
        o = Order(order_id=oid, user_id=u.user_id, address=u.address.model_copy(), items=items, status=status, fulfillments=ful,
                  payment_history=pays, cancel_reason=rng.choice(CANCEL_REASONS) if status == "cancelled" else None, id=oid)
        put(s, "orders", oid, o); u.orders.append(oid)
    return s


# --- step templates -----------------------------------------------------------------------------
@add_step(service, "ship", needs=("place",), writes=True)
def ship_step(ctx, value, want):
    "Send a customer's pending order to a street address in the place `value` ('City, ST')."
    s = ctx.state("retail")
    pending = sorted(k for k, o in entries(s, "orders") if o.status == "pending")
    oid = ctx.rng.choice(pending)
    o = read(s, "orders", oid)
    city, _, st = str(value).rpartition(", ")
    if not city or len(st) != 2: city, st = str(value), o.address.state
    street = f"{ctx.rng.randint(10, 990)} {ctx.rng.choice(['Main', 'Oak', 'Maple', 'Cedar', 'Pine', 'Lake'])} Street"
    zip_ = f"{ctx.rng.randint(10000, 99999)}"
    ctx.call("modify_pending_order_address", order_id=oid, address1=street, address2="", city=city, state=st, country="USA", zip=zip_)
    crit = [ctx.criterion("orders", {"order_id": oid}, "address.city", "eq", city),
            ctx.criterion("orders", {"order_id": oid}, "address.address1", "eq", street)]
    return Visit(f"The customer with order {oid} wants it shipped to {street}, {ctx.in_phrase}, zip {zip_}, USA instead; update the order.",
                 criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

def _open_customer(ctx, need: int) -> tuple:
    "The first customer, in a seeded shuffle of the users, with at least `need` orders still pending or delivered: `(user, their open order ids, sorted)`."
    s = ctx.state("retail")
    users = sorted(scan(s, "users"), key=lambda u: u.user_id)
    ctx.rng.shuffle(users)
    for u in users:
        mine = sorted(o for o in u.orders if has(s, "orders", o) and read(s, "orders", o).status in ("pending", "delivered"))
        if len(mine) >= need: return u, mine
    raise AssertionError(f"no retail customer with {need} open or delivered orders")

def _customer(ctx) -> dict:
    "A customer with a pending and a delivered order (or two of either): `{email, name, orders}` for the scenario to write about."
    u, mine = _open_customer(ctx, 2)
    pick = ctx.rng.sample(mine, min(len(mine), ctx.rng.choice((2, 2, 3))))
    return {"email": u.email, "name": f"{u.name.first_name} {u.name.last_name}", "orders": sorted(pick)}

def _resolve_call(order: dict, reason: str) -> tuple:
    "How one observed order is resolved by its status: cancelled (with `reason`) if pending, else all its items returned to the payment method it was paid with. `(tool, arguments, new status, refund method or None)`."
    if order["status"] == "pending":
        return "cancel_pending_order", {"order_id": order["order_id"], "reason": reason}, "cancelled", None
    pm = order["payment_history"][0]["payment_method_id"]
    return ("return_delivered_order_items", {"order_id": order["order_id"], "item_ids": [i["item_id"] for i in order["items"]], "payment_method_id": pm},
            "return requested", pm)

def _resolve_order(ctx, order: dict, reason: str) -> tuple:
    "Resolve one observed order (`_resolve_call`): `(new status, refund method or None)`."
    tool, args, new, pm = _resolve_call(order, reason)
    ctx.call(tool, **args)
    return new, pm

@add_beat(service, "orders")
def orders_beat(ctx, customer: dict, reason: str) -> list[dict]:
    """For each order of `customer`: cancel it (with `reason`) if it is still pending, else return its items to the payment
    method it was paid with. Returns one `{order, status, action, collection, where, field, value}` per order."""
    uid = ctx.call("find_user_id_by_email", email=customer["email"])
    ctx.call("get_user_details", user_id=uid)
    out = []
    for oid in customer["orders"]:
        o = ctx.call("get_order_details", order_id=oid)
        new, _ = _resolve_order(ctx, o, reason)
        out.append({"order": oid, "status": o["status"], "collection": "orders", "where": {"order_id": oid}, "field": "status", "value": new})
    return out
orders_beat.customer = _customer


# --- scenario beats: a customer's order problem, looked up then resolved by each order's status ---------------
@add_beat(service, "customer")
def customer_beat(ctx, customer: dict) -> dict:
    "Look up `customer` (`{email, orders}`) and each of its orders: `{user_id, orders: {order_id: details}}` as observed."
    uid = ctx.call("find_user_id_by_email", email=customer["email"])
    ctx.call("get_user_details", user_id=uid)
    return {"user_id": uid, "orders": {oid: ctx.call("get_order_details", order_id=oid) for oid in customer["orders"]}}

def _complaint(ctx, n: int = 2) -> dict:
    "A customer with at least `n` + 1 orders still pending or delivered: `{email, name, first, orders (n of them), keep (one more)}`."
    u, mine = _open_customer(ctx, n + 1)
    pick = ctx.rng.sample(mine, n + 1)
    return {"email": u.email, "name": f"{u.name.first_name} {u.name.last_name}", "first": u.name.first_name,
            "orders": sorted(pick[:n]), "keep": pick[n]}
customer_beat.complaint = _complaint

@add_beat(service, "resolve")
def resolve_beat(ctx, order: dict, reason: str) -> dict:
    """Resolve one observed order (`get_order_details` output) by its status: a pending order is cancelled with `reason`, a
    delivered one has all its items returned to the payment method it was paid with. `{order, status, new, refund_to, amount, selectors}`."""
    oid = order["order_id"]
    new, pm = _resolve_order(ctx, order, reason)
    sel = {"collection": "orders", "where": {"order_id": oid}}
    return {"order": oid, "status": order["status"], "new": new, "refund_to": pm, "amount": order["payment_history"][0]["amount"],
            "status_sel": {**sel, "field": "status"}, "refund_sel": {**sel, "field": "return_payment_method_id"}, "sel": sel}

def _resolve_mistake(ctx, order: dict, reason: str) -> dict:
    "The plausible mistake an order left alone guards against: resolving it too (cancel if pending, else return it)."
    tool, args, _, _ = _resolve_call(order, reason)
    return {"tool": f"retail.{tool}", "arguments": args}
resolve_beat.mistake = _resolve_mistake
