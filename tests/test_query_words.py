"""Read-only calls find things by their words: SFT admission refuses a search whose words the policy was never shown,
and the discovering replay searches by words it was shown (the request's) instead of a subject it would have to guess."""
import json

from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.sft_data import (query_words, read_only_tools, revealing_reference, sft_trajectories, unseen_values,
                                    _shown)
from compoworld_nb.harness import SYSTEM_PROMPT

LIB, WORLD = default_library()
K2 = dict(k=(2, 2), l_min=4, l_max=4, n_distractors=2)   # the demo's recipe


def _search(query):
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "Natasha asked me to follow up on our GitHub issue."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "call_tool", "arguments": json.dumps({"tool": "gmail.search_emails", "arguments": {"query": query}})}}]}]


def test_query_words_drop_operators_and_query_syntax():
    assert query_words('from:natasha subject:"CSV import fails"') == ["natasha", "CSV", "import", "fails"]
    assert query_words("SELECT sku, qty FROM stock WHERE qty < 5 ORDER BY sku") == ["sku", "qty", "stock", "qty", "sku"]
    assert query_words(42) == [] and query_words("a to") == []


def test_unseen_values_checks_every_word_of_a_read_only_call():
    ro = read_only_tools(LIB)
    assert "gmail.search_emails" in ro and "gmail.send_email" not in ro
    guess = _search('subject:"CSV import fails — follow-up"')
    assert unseen_values(guess) == []                      # identifiers only: the guessed subject passed before
    assert [u["value"] for u in unseen_values(guess, ro)] == ["CSV", "import", "fails", "follow-up"]
    assert unseen_values(_search("Natasha"), ro) == []     # a word of the request


def test_discovering_replays_search_only_by_shown_words():
    tasks, _ = generate_tasks(12, 0, LIB, WORLD, **K2)
    ro = read_only_tools(LIB)
    kept, why = sft_trajectories(tasks, LIB)
    assert why == {"not_success": 0, "unseen_value": 0} and len(kept) == len(tasks)
    for tr in kept:
        assert unseen_values(tr.messages, ro) == []
    # the first email search of every task uses only words the request shows (the reference's own searched by the exact subject)
    guessed = 0
    for t in tasks:
        first = next(c for c in revealing_reference(t, LIB) if c["tool"] == "gmail.search_emails")
        ctx = _shown(SYSTEM_PROMPT + "\n" + t.u)
        assert all(w.lower() in ctx for w in query_words(first["arguments"]["query"])), (t.id, first)
        ref = next(c for c in t.reference if c["tool"] == "gmail.search_emails")
        guessed += not all(w.lower() in ctx for w in query_words(ref["arguments"]["query"]))
    assert guessed >= 3   # the task's own reference guesses a subject in some tasks: the replay is what changed them


def _quoted(calls):
    return [c for c in calls if any('"' in v for v in _strings(c.get("arguments") or {}))]

def _strings(x):
    if isinstance(x, str): yield x
    elif isinstance(x, dict):
        for v in x.values(): yield from _strings(v)
    elif isinstance(x, list):
        for v in x: yield from _strings(v)


def test_discovering_replays_search_in_plain_words():
    # A quoted search (subject:"Team lunch #54") is text a small model must escape inside its JSON tool call; in the
    # seed-0 demo, 10 of the 21 invalid calls after SFT were JSON broken at such an escaped quote. Before: the replay kept
    # the reference's quoted searches wherever the request showed their words; after: the plain words, where they show
    # the same ids (`_plain_read`), and every replay is still admitted.
    tasks, _ = generate_tasks(16, 0, LIB, WORLD, **K2)
    refs = [revealing_reference(t, LIB) for t in tasks]
    assert len(_quoted([c for t in tasks for c in t.reference])) >= 3      # the tasks' own references quote
    assert _quoted([c for r in refs for c in r]) == []
    kept, why = sft_trajectories(tasks, LIB)
    assert why == {"not_success": 0, "unseen_value": 0} and len(kept) == len(tasks)
