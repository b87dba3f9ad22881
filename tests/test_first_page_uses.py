"Every 'is this the first page' test is `trajectory.first_page` (missing/None or the integer 1; True and 1.0 are not pages)."
from compoworld_nb.harness import _with_page
from compoworld_nb.widgets import _call_text


def _line(page):
    return _call_text({"name": "call_tool", "arguments": {"tool": "t.x", "arguments": {}, "page": page}})


def test_call_line_shows_page_unless_first_page():
    assert [_line(p) for p in (None, 1, 2, True, 1.0)] == [
        "call_tool t.x {}", "call_tool t.x {}", "call_tool t.x {} page=2", "call_tool t.x {} page=True", "call_tool t.x {} page=1.0"]


def test_meta_call_records_page_unless_first_page():
    assert [_with_page({"service": "s"}, p) for p in (None, 1, 2, True)] == [
        {"service": "s"}, {"service": "s"}, {"service": "s", "page": 2}, {"service": "s", "page": True}]
