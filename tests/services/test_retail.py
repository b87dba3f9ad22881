"retail: every tool's success case and each error it can return, on the seeded fixture; the peer's db round trip."
import json
import pytest
from compoworld_nb.core import state_hash
from sample_services.retail import (service as svc, GiftCard, RetailState, load_tau2_db, tau2_db, tau2_record, ORDER_STATUSES)
from svc_testkit import check_err, check_ok, SPECS

PEER = SPECS.parents[1] / "peers" / "tau2_retail"


@pytest.fixture(scope="module")
def s0():
    return svc.initial_state(0)

def order(s, status, pred=lambda o: True):
    return next(o for o in s.orders.values() if o.status == status and pred(o))

def gift(s, u):
    return next((m for m in s.users[u].payment_methods.values() if isinstance(m, GiftCard)), None)

def other_variant(s, item, available=True):
    p = s.products[item.product_id]
    return next(v for v in p.variants.values() if v.item_id != item.item_id and v.available == available)


# --- fixture ---------------------------------------------------------------------------------------
def test_fixture_shape(s0):
    assert (len(s0.products), len(s0.users), len(s0.orders)) == (30, 150, 400)
    assert 200 <= sum(len(p.variants) for p in s0.products.values()) <= 320
    assert {o.status for o in s0.orders.values()} == {"pending", "processed", "delivered", "cancelled"}
    for c in ("products", "users", "orders"):
        for k, r in getattr(s0, c).items(): assert r.id == k
    for o in s0.orders.values():
        assert o.order_id in s0.users[o.user_id].orders
        assert abs(o.payment_history[0].amount - sum(i.price for i in o.items)) < 0.011
    assert tau2_db(load_tau2_db(tau2_db(s0), seed=0)) == tau2_db(s0)

@pytest.mark.skipif(not (PEER / "db.json").is_file(), reason="peer data not present")
def test_peer_db_round_trip():
    raw = json.loads((PEER / "db.json").read_text())
    s = load_tau2_db(PEER / "db.json")
    assert tau2_db(s) == raw and (len(s.products), len(s.users), len(s.orders)) == (50, 500, 1000)
    typed = tau2_db(s, typed=True)
    assert all(set(o) >= {"cancel_reason", "return_items"} for o in typed["orders"].values())
    import hashlib
    from sample_services.retail import tau2_text
    assert hashlib.sha256(tau2_text(s).encode()).hexdigest() == "b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c"

def test_load_errors():
    with pytest.raises(ValueError, match="no 'orders' collection"): load_tau2_db({"products": {}, "users": {}})
    with pytest.raises(ValueError, match=r"orders\['#W1'\]: its order_id is '#W2'"):
        load_tau2_db({"products": {}, "users": {}, "orders": {"#W1": {"order_id": "#W2"}}})
    with pytest.raises(ValueError, match="no 'orders' collection"): load_tau2_db(b'{"products": {}, "users": {}}')
    db = tau2_db(svc.initial_state(0))
    k, o = next(iter(db["orders"].items()))
    bad = {**db, "orders": {"#W1": o}}
    with pytest.raises(ValueError, match=rf"orders\['#W1'\]: its order_id is '{k}'"): load_tau2_db(json.dumps(bad).encode())
    assert tau2_db(load_tau2_db(json.dumps(db).encode())) == db


# --- read tools ------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr,want", [("3131.1 + 4777.75 + 367.38", 8276.23), ("155.33 - 147.05 + 268.77 - 235.13", 41.92),
                                       ("2 * (3 + 4) / 7", 2.0), ("-1.5 + 2", 0.5), ("10 / 4", 2.5)])
def test_calculate(s0, expr, want):
    assert check_ok(svc, s0, "calculate", {"expression": expr})[1] == want

@pytest.mark.parametrize("expr,code", [("2 ** 3", 400), ("import os", 400), ("", 400), ("1 +", 400), ("(1", 400), ("1 / 0", 422), ("1..2", 400)])
def test_calculate_errors(s0, expr, code):
    e = check_err(svc, s0, "calculate", {"expression": expr}, code, "expression")
    if code == 400 and any(c.isalpha() or c == "*" for c in expr.replace("**", "*")): assert e["message"].startswith(("Invalid characters", "expression"))

def test_find_user(s0):
    u = next(iter(s0.users.values()))
    assert check_ok(svc, s0, "find_user_id_by_email", {"email": u.email.upper()})[1] == u.user_id
    args = {"first_name": u.name.first_name.lower(), "last_name": u.name.last_name.upper(), "zip": u.address.zip}
    assert check_ok(svc, s0, "find_user_id_by_name_zip", args)[1] == u.user_id
    e = check_err(svc, s0, "find_user_id_by_email", {"email": "nobody@example.com"}, 404, "email")
    assert e["message"].startswith("User not found")
    check_err(svc, s0, "find_user_id_by_name_zip", {**args, "zip": "00000"}, 404, "zip")

def test_get_details(s0):
    o = next(iter(s0.orders.values()))
    d = check_ok(svc, s0, "get_order_details", {"order_id": o.order_id})[1]
    assert d == tau2_record(o) and "id" not in d and d["cancel_reason"] is None or d["status"] == "cancelled"
    assert list(d)[:3] == ["order_id", "user_id", "address"]
    p = next(iter(s0.products.values()))
    assert check_ok(svc, s0, "get_product_details", {"product_id": p.product_id})[1]["variants"].keys() == p.variants.keys()
    v = next(iter(p.variants.values()))
    assert check_ok(svc, s0, "get_item_details", {"item_id": v.item_id})[1] == v.model_dump()
    u = s0.users[o.user_id]
    assert check_ok(svc, s0, "get_user_details", {"user_id": u.user_id})[1]["orders"] == u.orders
    for tool, arg, text in [("get_order_details", "order_id", "Order not found"), ("get_product_details", "product_id", "Product not found"),
                            ("get_item_details", "item_id", "Item not found"), ("get_user_details", "user_id", "User not found")]:
        assert check_err(svc, s0, tool, {arg: "nope"}, 404, arg)["message"].startswith(text)

def test_list_all_product_types_and_transfer(s0):
    d = check_ok(svc, s0, "list_all_product_types", {})[1]
    assert list(d) == sorted(d) and len(d) == 30 and set(d.values()) == set(s0.products)
    assert check_ok(svc, s0, "transfer_to_human_agents", {"summary": "needs a refund exception"})[1] == "Transfer successful"
    check_err(svc, s0, "transfer_to_human_agents", {"summary": "  "}, 422, "summary")


# --- write tools -----------------------------------------------------------------------------------
def test_cancel_pending_order(s0):
    o = order(s0, "pending", lambda o: gift(s0, o.user_id) and o.payment_history[0].payment_method_id == gift(s0, o.user_id).id)
    g = gift(s0, o.user_id)
    new, d = check_ok(svc, s0, "cancel_pending_order", {"order_id": o.order_id, "reason": "ordered by mistake"})
    assert d["status"] == "cancelled" and d["cancel_reason"] == "ordered by mistake"
    assert d["payment_history"][-1] == {"transaction_type": "refund", "amount": o.payment_history[0].amount, "payment_method_id": g.id}
    assert new.users[o.user_id].payment_methods[g.id].balance == round(g.balance + o.payment_history[0].amount, 2)
    assert s0.orders[o.order_id].status == "pending"

@pytest.mark.parametrize("status,reason,code,arg", [("pending", "too expensive", 422, "reason"), ("delivered", "no longer needed", 409, "order_id"),
                                                    (None, "no longer needed", 404, "order_id")])
def test_cancel_errors(s0, status, reason, code, arg):
    oid = order(s0, status).order_id if status else "#W0"
    check_err(svc, s0, "cancel_pending_order", {"order_id": oid, "reason": reason}, code, arg)

def test_modify_pending_order_items(s0):
    o = order(s0, "pending", lambda o: len(o.items) >= 2 and all(sum(v.available for v in s0.products[i.product_id].variants.values()) >= 3 for i in o.items))
    a, b = o.items[0], o.items[1]
    va, vb = other_variant(s0, a), other_variant(s0, b)
    pm = o.payment_history[0].payment_method_id
    new, d = check_ok(svc, s0, "modify_pending_order_items", {"order_id": o.order_id, "item_ids": [a.item_id, b.item_id],
                                                              "new_item_ids": [va.item_id, vb.item_id], "payment_method_id": pm})
    diff = (va.price - a.price) + (vb.price - b.price)
    assert d["status"] == "pending (item modified)" and d["payment_history"][-1]["amount"] == abs(diff)
    assert d["payment_history"][-1]["transaction_type"] == ("payment" if diff > 0 else "refund")
    assert (d["items"][0]["item_id"], d["items"][0]["price"], d["items"][0]["options"]) == (va.item_id, va.price, va.options)
    assert (d["items"][1]["item_id"], d["items"][1]["price"], d["items"][1]["options"]) == (vb.item_id, vb.price, vb.options)
    args = {"order_id": o.order_id, "item_ids": [va.item_id], "new_item_ids": [a.item_id], "payment_method_id": pm}
    check_err(svc, new, "modify_pending_order_items", args, 409, "order_id")          # only once per order

def test_modify_items_gift_card_balance():
    s = svc.initial_state(0)
    o = order(s, "pending", lambda o: gift(s, o.user_id) is not None and any(other_variant_ok(s, i) for i in o.items))
    item = next(i for i in o.items if other_variant_ok(s, i))
    v = max((v for v in s.products[item.product_id].variants.values() if v.available and v.item_id != item.item_id), key=lambda v: v.price)
    g = gift(s, o.user_id)
    diff = v.price - item.price
    args = {"order_id": o.order_id, "item_ids": [item.item_id], "new_item_ids": [v.item_id], "payment_method_id": g.id}
    s.users[o.user_id].payment_methods[g.id].balance = 10_000.0
    new, d = check_ok(svc, s, "modify_pending_order_items", args)
    assert new.users[o.user_id].payment_methods[g.id].balance == round(10_000.0 - diff, 2)
    if diff > 0:
        s = s.model_copy(deep=True)        # s was the base of a call, so its records are sealed: edit a deep copy by hand
        s.users[o.user_id].payment_methods[g.id].balance = 0.0
        e = check_err(svc, s, "modify_pending_order_items", args, 422, "payment_method_id")
        assert e["message"].startswith("Insufficient gift card balance")

def other_variant_ok(s, i):
    return any(v.available and v.item_id != i.item_id for v in s.products[i.product_id].variants.values())

@pytest.mark.parametrize("case,code,arg", [("not_in_order", 404, "item_ids"), ("count", 422, "new_item_ids"), ("unavailable", 422, "new_item_ids"),
                                           ("other_product", 422, "new_item_ids"), ("no_method", 404, "payment_method_id"),
                                           ("delivered", 409, "order_id"), ("no_order", 404, "order_id"), ("twice", 404, "item_ids")])
def test_modify_items_errors(s0, case, code, arg):
    o = order(s0, "pending", lambda o: any(not v.available for i in o.items for v in s0.products[i.product_id].variants.values()) and len(o.items) >= 2)
    i0 = next(i for i in o.items if any(not v.available for v in s0.products[i.product_id].variants.values()))
    other = next(i for i in o.items if i.product_id != i0.product_id)
    pm = o.payment_history[0].payment_method_id
    args = {"order_id": o.order_id, "item_ids": [i0.item_id], "new_item_ids": [other_variant(s0, i0).item_id], "payment_method_id": pm}
    args = {"not_in_order": {**args, "item_ids": ["123"]}, "count": {**args, "new_item_ids": []},
            "unavailable": {**args, "new_item_ids": [other_variant(s0, i0, available=False).item_id]},
            "other_product": {**args, "new_item_ids": [next(iter(s0.products[other.product_id].variants))]},
            "no_method": {**args, "payment_method_id": "gift_card_0"},
            "delivered": {**args, "order_id": order(s0, "delivered").order_id}, "no_order": {**args, "order_id": "#W0"},
            "twice": {**args, "item_ids": [i0.item_id, i0.item_id], "new_item_ids": [args["new_item_ids"][0]] * 2}}[case]
    check_err(svc, s0, "modify_pending_order_items", args, code, arg)

def test_modify_pending_order_address_and_user_address(s0):
    o = order(s0, "pending")
    addr = {"address1": "1 Main Street", "address2": "", "city": "Boston", "state": "MA", "country": "USA", "zip": "02110"}
    new, d = check_ok(svc, s0, "modify_pending_order_address", {"order_id": o.order_id, **addr})
    assert d["address"] == addr and new.orders[o.order_id].address.city == "Boston"
    check_err(svc, s0, "modify_pending_order_address", {"order_id": order(s0, "delivered").order_id, **addr}, 409, "order_id")
    check_err(svc, s0, "modify_pending_order_address", {"order_id": o.order_id, **addr, "zip": " "}, 422, "zip")
    check_err(svc, s0, "modify_pending_order_address", {"order_id": "#W0", **addr}, 404, "order_id")
    new, d = check_ok(svc, s0, "modify_user_address", {"user_id": o.user_id, **addr})
    assert d["address"] == addr and new.users[o.user_id].address.zip == "02110"
    check_err(svc, s0, "modify_user_address", {"user_id": "nobody", **addr}, 404, "user_id")
    check_err(svc, s0, "modify_user_address", {"user_id": o.user_id, **addr, "city": ""}, 422, "city")

def test_modify_pending_order_payment():
    s = svc.initial_state(0)
    o = order(s, "pending", lambda o: len(s.users[o.user_id].payment_methods) >= 2 and gift(s, o.user_id) is not None
              and o.payment_history[0].payment_method_id != gift(s, o.user_id).id)
    g = gift(s, o.user_id)
    s.users[o.user_id].payment_methods[g.id].balance = 5000.0
    amt, old = o.payment_history[0].amount, o.payment_history[0].payment_method_id
    new, d = check_ok(svc, s, "modify_pending_order_payment", {"order_id": o.order_id, "payment_method_id": g.id})
    assert d["payment_history"][-2:] == [{"transaction_type": "payment", "amount": amt, "payment_method_id": g.id},
                                          {"transaction_type": "refund", "amount": amt, "payment_method_id": old}]
    assert new.users[o.user_id].payment_methods[g.id].balance == round(5000.0 - amt, 2)
    check_err(svc, new, "modify_pending_order_payment", {"order_id": o.order_id, "payment_method_id": old}, 409, "order_id")
    check_err(svc, s, "modify_pending_order_payment", {"order_id": o.order_id, "payment_method_id": old}, 409, "payment_method_id")
    check_err(svc, s, "modify_pending_order_payment", {"order_id": o.order_id, "payment_method_id": "paypal_0"}, 404, "payment_method_id")
    check_err(svc, s, "modify_pending_order_payment", {"order_id": order(s, "cancelled").order_id, "payment_method_id": g.id}, 409, "order_id")
    s = s.model_copy(deep=True)                            # s went through calls (its records are sealed): edit a copy by hand
    s.users[o.user_id].payment_methods[g.id].balance = 0.0
    check_err(svc, s, "modify_pending_order_payment", {"order_id": o.order_id, "payment_method_id": g.id}, 422, "payment_method_id")

def test_return_and_exchange(s0):
    o = order(s0, "delivered", lambda o: len(o.items) >= 2 and any(other_variant_ok(s0, i) for i in o.items))
    pm = o.payment_history[0].payment_method_id
    ids = [i.item_id for i in o.items[:2]]
    new, d = check_ok(svc, s0, "return_delivered_order_items", {"order_id": o.order_id, "item_ids": ids[::-1], "payment_method_id": pm})
    assert (d["status"], d["return_items"], d["return_payment_method_id"]) == ("return requested", sorted(ids), pm)
    check_err(svc, new, "return_delivered_order_items", {"order_id": o.order_id, "item_ids": ids, "payment_method_id": pm}, 409, "order_id")
    item = next(i for i in o.items if other_variant_ok(s0, i))
    v = other_variant(s0, item)
    new, d = check_ok(svc, s0, "exchange_delivered_order_items", {"order_id": o.order_id, "item_ids": [item.item_id],
                                                                  "new_item_ids": [v.item_id], "payment_method_id": pm})
    assert d["status"] == "exchange requested" and d["exchange_price_difference"] == round(v.price - item.price, 2)
    assert d["exchange_items"] == [item.item_id] and d["exchange_new_items"] == [v.item_id] and d["items"] == tau2_record(o)["items"]

def test_return_errors(s0):
    o = order(s0, "delivered", lambda o: any(not isinstance(m, GiftCard) and m.id != o.payment_history[0].payment_method_id
                                             for m in s0.users[o.user_id].payment_methods.values()))
    pm = o.payment_history[0].payment_method_id
    other = next(m.id for m in s0.users[o.user_id].payment_methods.values() if not isinstance(m, GiftCard) and m.id != pm)
    ids = [o.items[0].item_id]
    for args, code, arg in [({"payment_method_id": other}, 422, "payment_method_id"), ({"payment_method_id": "credit_card_0"}, 404, "payment_method_id"),
                            ({"item_ids": ["999"]}, 404, "item_ids"), ({"order_id": order(s0, "pending").order_id}, 409, "order_id"),
                            ({"order_id": "#W0"}, 404, "order_id")]:
        check_err(svc, s0, "return_delivered_order_items", {"order_id": o.order_id, "item_ids": ids, "payment_method_id": pm, **args}, code, arg)

def test_exchange_errors(s0):
    o = order(s0, "delivered", lambda o: gift(s0, o.user_id) is not None and any(other_variant_ok(s0, i) for i in o.items))
    item = next(i for i in o.items if other_variant_ok(s0, i))
    v = max((v for v in s0.products[item.product_id].variants.values() if v.available and v.item_id != item.item_id), key=lambda v: v.price)
    base = {"order_id": o.order_id, "item_ids": [item.item_id], "new_item_ids": [v.item_id], "payment_method_id": o.payment_history[0].payment_method_id}
    for args, code, arg in [({"order_id": order(s0, "pending").order_id}, 409, "order_id"), ({"item_ids": ["1"]}, 404, "item_ids"),
                            ({"new_item_ids": ["1"]}, 422, "new_item_ids"), ({"new_item_ids": []}, 422, "new_item_ids"),
                            ({"payment_method_id": "x"}, 404, "payment_method_id")]:
        check_err(svc, s0, "exchange_delivered_order_items", {**base, **args}, code, arg)
    if v.price > item.price:
        s = svc.initial_state(0)
        s.users[o.user_id].payment_methods[gift(s, o.user_id).id].balance = 0.0
        e = check_err(svc, s, "exchange_delivered_order_items", {**base, "payment_method_id": gift(s, o.user_id).id}, 422, "payment_method_id")
        assert e["message"].startswith("Insufficient gift card balance")


# --- the step -------------------------------------------------------------------------------------
def test_statuses_cover_the_peer():
    assert set(ORDER_STATUSES) >= {"pending", "processed", "delivered", "cancelled", "exchange requested", "return requested", "pending (item modified)"}
