"""Tests for `compoworld_nb.widgets`: each widget is driven as a user would (set `.value`, `.click()`) and the
resulting state and shown HTML/figures are checked against the lower layers computed directly.

One real SFT run (2 optimizer steps of the tiny model) goes through the training launcher; a real GRPO step runs
only with COMPOWORLD_SLOW=1.
"""
import base64
import html
import json
import os
import random
import threading
import time

import numpy as np
import pytest

from compoworld_nb import rewards as RW
from compoworld_nb.author import AuthoringError, author_task, can_follow, default_library
from compoworld_nb.compose import diff, joint_hash
from compoworld_nb.policies import make_policy
from compoworld_nb.harness import rollout_group
from compoworld_nb.rubric import Criterion, Rubric, check
from compoworld_nb.task import materialize_s0
from compoworld_nb.walk import DependencyGraph, check_walk, sample_services, sample_walk
from compoworld_nb.widgets import (JointStateInspector, RubricEditor, TrainingMonitor, TrainingStopped, WalkStepper,
                                   criterion_pass_rates, diff_html, draw_walk, figure_output, load_criterion,
                                   parse_value, records_html, replay_states, stop_callback, train_runner)


def authored(library, make_world, n, tries=60):
    "The first n tasks the programmatic author builds (admission is not needed: the widgets take any task)."
    out = []
    for seed in range(tries):
        try: out.append(author_task(library, seed, k=3, l_min=4, l_max=6, n_distractors=3, world_factory=make_world))
        except AuthoringError: continue
        if len(out) == n: return out
    raise RuntimeError(f"only {len(out)} tasks authored from {tries} seeds")


@pytest.fixture(scope="module")
def world():
    library, make_world = default_library()
    tasks = authored(library, make_world, 2)
    group = rollout_group(tasks[0], lambda: make_policy("scripted:perturb=0.3"), library, n=8, seed=0)
    return library, tasks, group


def text(w) -> str:
    "A widget's HTML value with entities decoded (messages are escaped for display)."
    return html.unescape(w.value)


def png(out) -> bytes:
    return base64.b64decode(out.outputs[0]["data"]["image/png"])


# --- figures and tables -------------------------------------------------------------------------------------------

def test_figure_output_is_a_deterministic_png():
    G = DependencyGraph(["a", "b"], ["a", "b", "a"], ["c"])
    out = figure_output(draw_walk(G))
    assert out["output_type"] == "display_data" and base64.b64decode(out["data"]["image/png"])[:4] == b"\x89PNG"
    assert figure_output(draw_walk(G)) == out


def test_draw_walk_title_and_range():
    G = DependencyGraph(["a", "b", "c"], ["a", "b", "a", "c"], ["d"])
    assert draw_walk(G, 2).axes[0].get_title() == "visit 3/4: a (revisit)"
    assert draw_walk(G).axes[0].get_title() == "visit 4/4: c"
    with pytest.raises(ValueError, match="upto=4 must be in 0..3"):
        draw_walk(G, 4)


def test_records_html_marks_changes_and_escapes(world):
    library, tasks, _ = world
    svc = tasks[0].services[0]
    a = {svc: library[svc].initial_state(0)}
    col = type(a[svc]).collection_names()[-1]
    ids = sorted(getattr(a[svc], col))
    rec = getattr(a[svc], col)[ids[-1]].model_dump(mode="json")
    field = next(k for k, v in rec.items() if isinstance(v, str) and k != "id")
    b = {svc: a[svc].model_copy(deep=True)}
    recs = dict(getattr(b[svc], col))
    recs[ids[-1]] = recs[ids[-1]].model_copy(update={field: "<script>x</script>"})
    del recs[ids[0]]
    setattr(b[svc], col, recs)
    ch = diff(a, b)
    assert [(c["change"], c["id"]) for c in ch] == sorted([("removed", ids[0]), ("changed", ids[-1])], key=lambda x: x[1])
    h = records_html(b[svc], col, ch, previous=a[svc], max_rows=5)
    assert h.count("<tr data-change=") == 5
    # changed rows come first (sorted by id), then the unchanged ones
    kinds = [seg.split("'")[0] for seg in h.split("<tr data-change='")[1:]]
    assert kinds[:2] == [c["change"] for c in ch] and kinds[2:] == ["same"] * 3
    assert "&lt;script&gt;" in h and "<script>" not in h
    assert "title='was: " + html.escape(rec[field][:40]) in h
    only = records_html(b[svc], col, ch, previous=a[svc], only_changed=True)
    assert only.count("<tr data-change=") == 2
    d = diff_html(ch)
    assert "data-change='removed'" in d and "data-change='changed'" in d and f"<b>{field}</b>" in d
    assert diff_html([]) == "<i>no change</i>"
    with pytest.raises(KeyError, match="collection='nope'"):
        records_html(a[svc], "nope")


# --- WalkStepper -------------------------------------------------------------------------------------------------

def test_walk_stepper_samples_what_the_walk_layer_samples(world):
    library, _, _ = world
    ws = WalkStepper(library, seed=5, k=3, l=6, n_distractors=2)
    rng = random.Random(5)
    C, D = sample_services(library, 3, rng, None, 2)
    assert (ws.graph.C, ws.graph.distractors, ws.graph.walk) == (C, D, sample_walk(C, 6, rng))
    assert check_walk(ws.graph.walk, ws.graph.C) == []
    assert ws.pos == 0 and ws.back_button.disabled and not ws.next_button.disabled
    first = png(ws.plot)
    ws.next_button.click(); ws.next_button.click()
    assert ws.pos == 2 and ws.shown_edges() == ws.graph.edges[:2]
    assert png(ws.plot) != first
    assert "data-pos='2'" in ws.walk_html.value and f"{ws.graph.edges[0][2]}→{ws.graph.edges[0][3]}" in ws.walk_html.value
    ws.back_button.click()
    assert ws.pos == 1
    for _ in range(10): ws.next_button.click()
    assert ws.pos == 5 and ws.next_button.disabled
    ws.seed_box.value = 6                         # a new seed samples again from the start
    rng = random.Random(6)
    C, _ = sample_services(library, 3, rng, None, 2)
    assert ws.pos == 0 and ws.graph.walk == sample_walk(C, 6, rng)


def test_walk_stepper_refuses_bad_choices_and_keeps_the_walk(world):
    library, _, _ = world
    ws = WalkStepper(library, seed=1, k=3, l=5)
    ws.next_button.click()
    before = (list(ws.graph.walk), ws.pos)
    ws.l_slider.value = 3
    assert "L=3 must be > K=3" in text(ws.status)
    assert (ws.graph.walk, ws.pos) == before
    ws.l_slider.value = 7
    assert len(ws.graph.walk) == 7 and ws.status.value == ""
    with pytest.raises(ValueError, match="domain='cooking'"):
        WalkStepper(library, domain="cooking")


def test_walk_stepper_domain_and_authorable_edges(world):
    library, _, _ = world
    dom = "travel, maps & weather"
    ws = WalkStepper(library, seed=3, k=2, l=4, domain=dom, authorable=True)
    sampled = 0
    for seed in range(3, 9):
        ws.seed_box.value = seed
        if ws.graph is None or ws.status.value: continue     # no authorable walk for this C: refused, shown
        sampled += 1
        assert library[ws.graph.C[0]].domain == dom
        assert all(can_follow(library, a, b) for _, _, a, b in ws.graph.edges)
    assert sampled >= 1
    ws.domain_box.value = None
    ws.authorable_box.value = False
    assert ws.graph.walk and check_walk(ws.graph.walk, ws.graph.C) == []


# --- replay and JointStateInspector --------------------------------------------------------------------------------

def test_replay_states_reaches_g_and_matches_recorded_hashes(world):
    library, tasks, group = world
    task = tasks[0]
    states, steps = replay_states(task, library)
    assert len(states) == len(task.reference) + 1 and joint_hash(states[-1]) == task.g_hash
    assert all(s["matches"] is None and s["observation"]["ok"] for s in steps)
    s0 = materialize_s0(task, library)
    for t in group:
        states, steps = replay_states(task, library, t)
        assert [s["hash"] for s in steps] == [s.state_hash for s in t.steps]
        assert task.v.score(states[-1], s0, t.final_answer) == t.criteria
    with pytest.raises(ValueError, match="trajectory.task_id="):
        replay_states(tasks[1], library, group[0])


def test_joint_state_inspector_steps_and_highlights(world):
    library, tasks, group = world
    task, traj = tasks[0], group[0]
    ins = JointStateInspector(task, library, traj)
    assert ins.t == 0 and ins.changes == [] and ins.prev_button.disabled and ins.diff_box.value == "<i>no change</i>"
    writes = [i + 1 for i, (a, b) in enumerate(zip(ins.states, ins.states[1:])) if diff(a, b)]
    assert writes, "the reference of every admitted task writes"
    t = writes[0]
    for _ in range(t): ins.next_button.click()
    assert ins.t == t and ins.changes == diff(ins.states[t - 1], ins.states[t])
    c = ins.changes[0]
    assert (ins.service_box.value, ins.collection_box.value) == (c["service"], c["collection"])
    assert f"<tr data-change='{c['change']}'" in ins.table.value and c["id"] in ins.table.value
    assert "replay matches the recorded state hash" in ins.call_html.value
    assert traj.steps[t - 1].call["arguments"]["tool"] in ins.call_html.value
    ins.compare_box.value = "s0"
    ins.go(ins.slider.max)
    assert ins.changes == diff(ins.states[0], ins.states[-1]) and ins.next_button.disabled
    ins.only_changed_box.value = True
    assert "<tr data-change='same'" not in ins.table.value
    ins.go(-3)
    assert ins.t == 0
    # the reference ends in g, and the inspector says so
    ref = JointStateInspector(task, library)
    ref.go(ref.slider.max)
    assert "is the goal state g" in ref.call_html.value


def test_joint_state_inspector_compares_given_states(world):
    library, tasks, _ = world
    states, _ = replay_states(tasks[0], library)
    two = JointStateInspector(states=[states[0], states[-1]], labels=["s0", "g"])
    two.next_button.click()
    assert two.changes == diff(states[0], states[-1]) and "g" in two.call_html.value
    with pytest.raises(ValueError, match="labels has 1 names for 2 states"):
        JointStateInspector(states=[states[0], states[-1]], labels=["s0"])
    with pytest.raises(ValueError, match="give `task` and `library`"):
        JointStateInspector()


# --- RubricEditor --------------------------------------------------------------------------------------------------

def test_parse_value_and_load_criterion(world):
    _, tasks, _ = world
    assert parse_value('"10"') == "10" and parse_value("10") == 10 and parse_value("") is None
    with pytest.raises(ValueError, match="write a string in double quotes: \"Belle\""):
        parse_value("Belle")
    row = tasks[0].rubric[0]
    assert load_criterion(row) == Criterion.load(row)
    with pytest.raises(ValueError, match="criterion 'c1'.*weight"):
        load_criterion({**row, "weight": 0})


def test_rubric_editor_rescores_on_every_edit(world):
    library, tasks, group = world
    task = tasks[0]
    ed = RubricEditor(task, group, library)
    b0 = np.array([t.criteria for t in group], dtype=float)
    assert ed.mismatched == [] and "reproduce the stored b" in ed.check_html.value
    np.testing.assert_array_equal(ed.b, b0)
    g = RW.group_rewards(b0, "completion_focused", 0.01, 1e-6)
    for k in ("R", "advantages", "p", "w", "alpha"):
        np.testing.assert_allclose(ed.result[k], g[k], atol=1e-12)
    assert f"data-R='{g['R'][0]:.6f}'" in ed.table.value
    # disable one criterion: b loses that column, the rewards follow
    ed.rows[1]["enabled"].value = False
    keep = [j for j in range(b0.shape[1]) if j != 1]
    np.testing.assert_array_equal(ed.b, b0[:, keep])
    np.testing.assert_allclose(ed.result["alpha"], RW.alpha(b0[:, keep], 0.01))
    ed.rows[1]["enabled"].value = True
    # edit a state criterion's value to something no record holds: its column becomes all zeros
    j = next(i for i, c in enumerate(ed.original) if c.kind == "state")
    ed.rows[j]["value"].value = json.dumps("no record has this")
    assert ed.b[:, j].tolist() == [0.0] * len(group) and ed.table.value.count(f">{ed.original[j].id}*</th>") == 1
    # switching the operator to `ne` is scored by rubric.check on the replayed final states
    ed.rows[j]["op"].value = "ne"
    s0 = materialize_s0(task, library)
    crit = Criterion.load({**ed.original[j].to_json(), "op": "ne", "value": "no record has this"})
    finals = [replay_states(task, library, t)[0][-1] for t in group]
    assert ed.b[:, j].tolist() == [check(crit, f, s0, t.final_answer) for f, t in zip(finals, group)]
    # static weight and λ enter w_j = s_j (λ + 1 − p_j)
    ed.rows[j]["weight"].value = 3.0
    ed.lam_slider.value = 1.0
    assert ed.result["w"][j] == pytest.approx(3.0 * (1.0 + 1 - ed.result["p"][j]))
    ed.kind_box.value = "uniform"
    np.testing.assert_allclose(ed.result["R"], RW.uniform(ed.b, weights=[c.weight for c in ed.criteria]))


def test_rubric_editor_refuses_bad_edits_and_keeps_the_scoring(world):
    library, tasks, group = world
    ed = RubricEditor(tasks[0], group, library)
    R, table = ed.result["R"].copy(), ed.table.value
    j = next(i for i, c in enumerate(ed.original) if c.kind == "state")
    ed.rows[j]["value"].value = "Belle Glade"
    assert "value='Belle Glade' is not JSON" in text(ed.status)
    np.testing.assert_array_equal(ed.result["R"], R); assert ed.table.value == table
    ed.rows[j]["value"].value = json.dumps(ed.original[j].value)
    ed.rows[0]["weight"].value = -1.0
    assert "c1 weight=-1.0 must be a finite number > 0" in text(ed.status)
    ed.rows[0]["weight"].value = 1.0
    for r in ed.rows[:-1]: r["enabled"].value = False
    last = ed.result["R"].copy()                 # scored on the last criterion alone
    np.testing.assert_allclose(last, ed.b[:, 0])
    ed.rows[-1]["enabled"].value = False
    assert "no criterion is enabled" in text(ed.status)
    np.testing.assert_array_equal(ed.result["R"], last)
    with pytest.raises(ValueError, match="trajectories of task_id="):
        RubricEditor(tasks[1], group, library)
    with pytest.raises(ValueError, match="trajectories is empty"):
        RubricEditor(tasks[0], [], library)
    with pytest.raises(KeyError, match="unknown reward 'nope'"):
        RubricEditor(tasks[0], group, library, kind="nope")


def test_rubric_editor_saves_valid_json(world, tmp_path):
    library, tasks, group = world
    ed = RubricEditor(tasks[0], group, library, path=tmp_path / "r.json")
    j = next(i for i, c in enumerate(ed.original) if c.kind == "state" and i > 0)
    ed.rows[j]["weight"].value = 2.5
    ed.rows[0]["enabled"].value = False
    ed.save_button.click()
    rows = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    rub = Rubric.load(rows)
    assert [c.id for c in rub.criteria] == [c.id for c in ed.original[1:]]
    assert next(c for c in rub.criteria if c.id == ed.original[j].id).weight == 2.5
    assert rows == [c.to_json() for c in rub.criteria]
    for r in ed.rows: r["enabled"].value = False
    assert ed.save(tmp_path / "none.json") is None and not (tmp_path / "none.json").exists()
    assert "not saved: no criterion is enabled" in text(ed.status)


# --- TrainingMonitor -----------------------------------------------------------------------------------------------

def fake_runner(groups):
    def run(mode, cfg, on_step, stop):
        s = 0
        for s in range(1, cfg.max_steps + 1):
            time.sleep(0.01)
            on_step({"step": s, "reward_mean": 0.5, "reward_std": 0.1, "groups": groups})
            if stop.is_set(): break
        return {"steps": s, "out_dir": "runs/fake"}
    return run


def test_training_monitor_runs_in_a_thread_and_stops_cleanly(world):
    _, tasks, group = world
    groups = [{"task_id": tasks[0].id, "b": [t.criteria for t in group]}]
    mon = TrainingMonitor(runner=fake_runner(groups), tasks={tasks[0].id: tasks[0]}, mode="grpo", max_steps=3)
    assert mon.start_button.click() is None and mon.wait()
    assert [h["step"] for h in mon.history] == [1, 2, 3] and mon.result == {"steps": 3, "out_dir": "runs/fake"}
    assert "finished 3 steps" in text(mon.status) and png(mon.plot)[:4] == b"\x89PNG"
    assert not mon.start_button.disabled and mon.stop_button.disabled
    mon.steps_box.value = 100_000
    assert mon.start()
    assert not mon.start() and "already going" in text(mon.status)   # one run at a time
    while not mon.history: time.sleep(0.01)
    mon.stop_button.click()
    assert mon.wait() and mon.stopped is True
    n = len(mon.history)
    assert n < 100_000 and mon.result["steps"] == n
    # the fake runner returns a folder although it stopped: the monitor does not present it as a finished model
    assert text(mon.status) == f"stopped cleanly after {n} of 100000 steps; the partial model in runs/fake is not a finished one"


def test_training_monitor_refuses_bad_settings_and_reports_failures(world):
    mon = TrainingMonitor(runner=fake_runner([]), mode="grpo")
    mon.batch_box.value = 3
    assert not mon.start() and "grpo_batch_size=3 must be divisible by num_generations=8" in text(mon.status)
    assert mon.thread is None
    mon.batch_box.value = 8; mon.steps_box.value = 0
    assert not mon.start() and "max steps=0 must be >= 1" in text(mon.status)
    mon.mode_box.value = "sft"
    assert mon.lr_box.value == mon.base_cfg.sft_lr and mon.batch_box.value == mon.base_cfg.sft_batch_size

    def broken(mode, cfg, on_step, stop): raise RuntimeError("disk full")
    bad = TrainingMonitor(runner=broken)
    bad.start(); bad.wait()
    assert isinstance(bad.error, RuntimeError) and "failed: RuntimeError: disk full" in text(bad.status)
    assert not bad.start_button.disabled

    def stopped(mode, cfg, on_step, stop): raise TrainingStopped("stopped after step 2")
    s = TrainingMonitor(runner=stopped)
    s.start(); s.wait()
    assert text(s.status) == "stopped after step 2; no model saved" and s.error is None and s.stopped is True


def test_stop_callback_sets_should_training_stop():
    from transformers import TrainerControl, TrainerState
    ev, logs = threading.Event(), []
    cb = stop_callback(ev, logs.append)
    ctl, st = TrainerControl(), TrainerState(global_step=4)
    cb.on_step_end(None, st, ctl)
    assert not ctl.should_training_stop
    ev.set()
    cb.on_step_end(None, st, ctl)
    assert ctl.should_training_stop
    cb.on_log(None, st, ctl, logs={"loss": 0.25})
    assert logs == [{"step": 4, "loss": 0.25}]


def test_train_runner_modes_follow_the_data():
    assert train_runner("m", sft_data=[{}]).modes == ["sft"]
    assert train_runner("m", grpo_data=[{}]).modes == []                  # GRPO also needs env_factory and group_reward
    assert train_runner("m", [{}], [{}], lambda: None, RW.completion_focused).modes == ["sft", "grpo"]
    with pytest.raises(ValueError, match="mode='grpo' is not available"):
        train_runner("m", sft_data=[{}])("grpo", None, print, threading.Event())
    with pytest.raises(ValueError, match="mode='grpo' is not available; modes: \\['sft'\\]"):
        TrainingMonitor("m", sft_data=[{}], mode="grpo")


def test_criterion_pass_rates_by_kind_and_index(world):
    _, tasks, group = world
    b = np.array([t.criteria for t in group])
    entry = {"step": 1, "groups": [{"task_id": tasks[0].id, "b": b.tolist()}]}
    by_kind = criterion_pass_rates(entry, {tasks[0].id: tasks[0]})
    kinds = np.array([{"state": "goal", "unchanged": "collateral", "output": "output"}[c["kind"]] for c in tasks[0].rubric])
    for k, v in by_kind.items():
        assert v == pytest.approx(b[:, kinds == k].mean())
    by_index = criterion_pass_rates(entry)
    assert list(by_index.values()) == pytest.approx(b.mean(0).tolist())


@pytest.fixture(scope="module")
def tiny(world, tmp_path_factory):
    from compoworld_nb.cli import corpus_for
    from compoworld_nb.tinymodel import build_tiny_model
    library, tasks, _ = world
    ok = rollout_group(tasks[0], lambda: make_policy("scripted"), library, n=2, seed=0)
    d = tmp_path_factory.mktemp("tiny")
    return build_tiny_model(corpus_for(tasks, ok[:1], library), d / "base", vocab_size=512), ok, d


def test_training_monitor_real_sft_run(tiny):
    from compoworld_nb.data import sft_rows
    from compoworld_nb.train import TrainConfig
    model, ok, d = tiny
    mon = TrainingMonitor(model, sft_data=sft_rows(ok), out_dir=d, max_steps=2,
                          cfg=TrainConfig(sft_batch_size=2, max_length=2048))
    assert mon.modes == ["sft"] and mon.start()
    assert mon.wait(), "SFT did not finish"          # waits for the run's end, however slow the machine
    assert mon.error is None, mon.error
    assert [h["step"] for h in mon.history] == [1, 2] and all(np.isfinite(h["loss"]) for h in mon.history)
    assert mon.result["steps"] == 2 and mon.result["stopped"] is False and mon.stopped is False
    assert (d / "sft" / "config.json").exists() and mon.result["out_dir"] == str(d / "sft")
    assert text(mon.status) == f"finished 2 steps; model saved to {d / 'sft'}"


def test_training_monitor_stop_button_stops_a_real_sft_run(tiny):
    "Start a long SFT run in the background thread, press stop once it has logged a step: it ends early, saves nothing."
    from compoworld_nb.data import sft_rows
    from compoworld_nb.train import TrainConfig
    model, ok, d = tiny
    mon = TrainingMonitor(model, sft_data=sft_rows(ok), out_dir=d / "stopped", max_steps=500,
                          cfg=TrainConfig(sft_batch_size=2, max_length=2048, logging_steps=1))
    assert mon.start()
    while not mon.history and mon.running: time.sleep(0.02)   # until a step is logged (or the run ends, which fails below)
    assert mon.history and mon.error is None, mon.error
    mon.stop_button.click()
    assert mon.wait() and mon.error is None, mon.error
    r, steps = mon.result, mon.result["steps"]
    assert mon.stopped is True and r["stopped"] is True and 1 <= steps < 500 and r["max_steps"] == 500
    assert r["out_dir"] is None and not (d / "stopped" / "sft").exists()   # nothing half-trained is left behind
    assert text(mon.status) == f"stopped cleanly after {steps} of 500 steps; no model saved"
    logged = [h["step"] for h in mon.history]
    assert logged == sorted(set(logged)) and logged[-1] <= steps
    assert not mon.start_button.disabled and mon.stop_button.disabled


@pytest.mark.skipif(os.environ.get("COMPOWORLD_SLOW") != "1", reason="slow: a real GRPO step of the tiny model; set COMPOWORLD_SLOW=1")
def test_training_monitor_real_grpo_step(world, tiny):
    from compoworld_nb.data import grpo_rows
    from compoworld_nb.harness import TaskEnvironment
    from compoworld_nb.train import TrainConfig
    library, tasks, _ = world
    model, _, d = tiny
    by_id = {t.id: t for t in tasks}
    mon = TrainingMonitor(model, grpo_data=grpo_rows(tasks[:1]), env_factory=lambda: TaskEnvironment(by_id, library),
                          group_reward=RW.completion_focused, tasks=by_id, out_dir=d, max_steps=1,
                          cfg=TrainConfig(num_generations=2, grpo_batch_size=2, max_turns=2, max_completion_length=48))
    mon.start(); assert mon.wait() and mon.error is None, mon.error
    assert len(mon.history) == 1 and np.asarray(mon.history[0]["groups"][0]["b"]).shape == (2, len(tasks[0].rubric))
    assert set(criterion_pass_rates(mon.history[0], by_id)) <= {"goal", "collateral", "output"}
