"Overrides list planted records in the order the author planted them, so s0 rebuilt from the task file is the author's s0 record for record and in order."
import re
from compoworld_nb.author import default_library, author_task
from compoworld_nb.task import _fixture, apply_overrides, same_state
from compoworld_nb.admission import Admission, admission_errors

LIB, WORLD = default_library()

def test_overrides_keep_plant_order():
    t = author_task(LIB, 1, 4, 5, 7, 2, None, WORLD, world_seed=3)
    ov = t.s0["overrides"]
    assert list(ov["slack"]["channels"]) == ["C_p1", "C_p3", "C_p9", "C_p11"]      # plant order, not sorted text ('C_p11' < 'C_p3')
    for cols in ov.values():
        for recs in cols.values():
            n = [int(m.group(1)) for k in recs if (m := re.search(r"_p(\d+)$", k))]   # ids from `StepContext.plant_id`
            assert n == sorted(n)
    rebuilt = apply_overrides({s: _fixture(LIB[s], 3) for s in t.services + t.distractors}, ov)
    assert list(rebuilt["slack"].channels)[-4:] == ["C_p1", "C_p3", "C_p9", "C_p11"]
    a = Admission(t, LIB)
    assert all(same_state(a.s0[s], rebuilt[s]) for s in rebuilt) and admission_errors(t, LIB) == []
