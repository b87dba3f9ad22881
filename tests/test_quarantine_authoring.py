"Tools quarantined by independent verification are never authored, and a reference that uses one is not admitted."
from collections import Counter
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.admission import admission_errors


def test_author_avoids_and_admission_rejects_a_quarantined_tool(task, monkeypatch):
    lib, world = default_library()
    assert admission_errors(task, lib) == []
    used = Counter(c["tool"] for c in task.reference)
    name = used.most_common(1)[0][0]                       # the tool this task calls most
    svc, _, tool = name.partition(".")
    monkeypatch.setattr(lib[svc].tools[tool], "quarantined", "uncaught KeyError on an empty id")   # default_library's services are shared: undone after the test
    errs = admission_errors(task, lib)
    assert [e for e in errs if e.startswith("tools_verified: ")] == [
        f"tools_verified: reference call {i} uses {name}, quarantined: uncaught KeyError on an empty id"
        for i, c in enumerate(task.reference) if c["tool"] == name]
    tasks, rejected = generate_tasks(4, seed=0, library=lib, world_factory=world, k=3, l_min=4, l_max=6, n_distractors=3,
                                     progress=False, max_attempts=60)
    assert tasks and all(c["tool"] != name for t in tasks for c in t.reference)
    assert all(admission_errors(t, lib) == [] for t in tasks)
