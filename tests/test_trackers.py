"""TrainConfig.report_to: a 2-step GRPO run reporting to TensorBoard writes R and each criterion's pass rate and weight
per step into its event files, equal to the run's own history (tiny offline model and toy environment of test_train)."""
import glob
import os

import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from compoworld_nb.train import TrainConfig, grpo, tracker_metrics
from test_train import PROMPT, ToyEnv, completion_focused, one_thread, tiny, warm  # noqa: F401  (fixtures)


def test_tracker_metrics_average_over_groups_that_have_the_criterion():
    groups = [{"rewards": [1.0, 0.0], "pass_rate": [0.5, 1.0], "weight": [0.51, 0.01]},
              {"rewards": [0.5, 0.5], "pass_rate": [0.0], "weight": [1.01]}]
    m = tracker_metrics(groups)
    assert m == {"compoworld/R": 0.5, "compoworld/pass_rate/0": 0.25, "compoworld/weight/0": pytest.approx(0.76),
                 "compoworld/pass_rate/1": 1.0, "compoworld/weight/1": 0.01}


def test_report_to_default_is_none():
    assert TrainConfig().report_to == "none"


def test_grpo_reports_r_pass_rates_and_weights_to_tensorboard(warm, tmp_path):
    cfg = TrainConfig(num_generations=4, grpo_batch_size=4, max_steps=2, max_turns=2, max_completion_length=64,
                      grpo_lr=1e-3, threads=1, report_to="tensorboard")
    res = grpo(warm, [{"prompt": PROMPT, "task_id": "t0"}], ToyEnv, completion_focused, cfg, tmp_path / "grpo")
    files = glob.glob(str(tmp_path / "grpo" / "**" / "events.out.tfevents.*"), recursive=True)
    assert len(files) == 1, files
    ea = EventAccumulator(os.path.dirname(files[0])); ea.Reload()
    tags = set(ea.Tags()["scalars"])
    def series(tag): return [(e.step, e.value) for e in ea.Scalars(tag)]
    hist = res["history"]
    assert [h["step"] for h in hist] == [1, 2]
    assert series("train/compoworld/R") == [(h["step"], pytest.approx(h["reward_mean"], abs=1e-6)) for h in hist]
    for j in range(2):
        assert series(f"train/compoworld/pass_rate/{j}") == [(h["step"], pytest.approx(h["pass_rate"][j], abs=1e-6)) for h in hist]
        assert series(f"train/compoworld/weight/{j}") == [(h["step"], pytest.approx(h["weight"][j], abs=1e-6)) for h in hist]
    assert "train/reward" in tags and "train/loss" in tags
