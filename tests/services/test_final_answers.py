"A final-answer visit reveals one value that its own observation shows as it is, so rule `answer_needs_reference` can find it."
import random
import pytest
from compoworld_nb.author import StepContext, default_library
from compoworld_nb.compose import ComposedEnv
from compoworld_nb.facts import Facts, _decimals
from compoworld_nb.task import _fixture

LIB, WORLD = default_library()

def _final_visit(svc: str, step: str, value: str | None):
    "Run `svc.step` as a walk's last (and first) visit on world 3; `value` None: a fresh key. Returns (visit, Facts of the observations its calls got)."
    ctx = StepContext(ComposedEnv([LIB[svc]]), {svc: _fixture(LIB[svc], 3)}, random.Random(0), WORLD(3), 3)
    if value is None: value = ctx.new_key()
    ctx.service, ctx.first, ctx.visit, ctx.in_phrase = svc, True, 0, f"'{value}'"
    seen, call = [], ctx.call
    ctx.call = lambda tool, **a: seen.append(call(tool, **a)) or seen[-1]
    st = next(s for s in LIB[svc].steps if s.name == step)
    return st.fn(ctx, value, None), Facts(*seen)

def _observed(f: Facts, v: str) -> bool:
    return f.has(v) or (_decimals(v) is not None and f.has_number(float(v), _decimals(v)))

PLACE = WORLD(3).places[0]      # Woodbridge, NJ (40.5576, -74.28459)

@pytest.mark.parametrize("svc,step,value,answer", [
    ("weather", "alerts", PLACE.label, "High Surf Advisory"),                # was 'High Surf Advisory (Minor)': no observation shows it
    ("weather", "forecast", f"{PLACE.lat:.4f},{PLACE.lng:.4f}", "Light Rain"),  # was 'Light Rain, 47°F'
    ("maps", "geocode", PLACE.label, "40.5576"),                            # was '40.5576,-74.2846'
])
def test_final_answer_is_observed(svc, step, value, answer):
    v, facts = _final_visit(svc, step, value)
    assert v.answer and v.reveals == answer and _observed(facts, v.reveals)

INPUT = {"key": None, "place": PLACE.label, "coords": f"{PLACE.lat:.4f},{PLACE.lng:.4f}"}
READS = [(s.service, s.name, k) for svc in LIB.values() for s in svc.steps if not s.writes and s.reveals for k in s.needs if k in INPUT]

def test_every_read_step_is_covered():
    assert len(READS) >= 15 and {s for s, _, _ in READS} >= {"gmail", "slack", "sqlite", "weather", "maps"}

@pytest.mark.parametrize("svc,step,kind", READS)
def test_every_final_read_answers_with_an_observed_value(svc, step, kind):
    v, facts = _final_visit(svc, step, INPUT[kind])
    assert v.answer and v.reveals is not None and _observed(facts, str(v.reveals))
