"Settings: unknown keys and variables are errors naming the nearest known one; bad values name key, value and type."
import pytest
from compoworld_nb.core import SettingsError, load_settings

def ini(tmp_path, text):
    p = tmp_path / "settings.ini"; p.write_text(text); return p

def test_paper_defaults_and_profiles_only_when_asked(tmp_path):
    st = load_settings(env={})
    assert st["walk"] == {"k": 5, "l_min": 7, "l_max": 12, "distractors": 5} and st["rewards"]["delta"] == 1e-6
    assert load_settings("demo", env={})["walk"]["k"] == 3
    with pytest.raises(KeyError, match="profile='nope'"): load_settings("nope", env={})

@pytest.mark.parametrize("var,message", [
    ("COMPOWORLD_GRPO_LRR", "COMPOWORLD_GRPO_LRR (environment) is not a setting; did you mean 'COMPOWORLD_GRPO_LR'?"),
    ("COMPOWORLD_REWARD_LAM", "did you mean 'COMPOWORLD_REWARDS_LAM'?"),
    ("COMPOWORLD_SANDBOXX", "did you mean 'COMPOWORLD_SANDBOX'?")])
def test_unknown_environment_variable(var, message):
    with pytest.raises(SettingsError) as e: load_settings(env={var: "1"})
    assert message in str(e.value)

def test_environment_values_are_typed():
    st = load_settings(env={"COMPOWORLD_GRPO_EPSILON_HIGH": "0.3", "COMPOWORLD_MODEL_BASE_URL": "http://x/v1",
                            "COMPOWORLD_GRPO_N": "4", "COMPOWORLD_SANDBOX": "hook", "COMPOWORLD_GRPO_TEMPERATURE": "0.7"})
    assert (st["grpo"]["epsilon_high"], st["model"]["base_url"], st["grpo"]["n"], st["grpo"]["temperature"]) == (0.3, "http://x/v1", 4, 0.7)
    with pytest.raises(SettingsError, match=r"COMPOWORLD_GRPO_LR = 'fast' \(environment\): expected a finite number"):
        load_settings(env={"COMPOWORLD_GRPO_LR": "fast"})
    with pytest.raises(SettingsError, match=r"COMPOWORLD_WALK_K = '5.5' \(environment\): expected an integer"):
        load_settings(env={"COMPOWORLD_WALK_K": "5.5"})

def test_unknown_ini_keys_sections_and_bad_values(tmp_path):
    with pytest.raises(SettingsError, match=r"grpo.lrr \(.*\) is not a setting; did you mean 'grpo.lr'\?"):
        load_settings(path=ini(tmp_path, "[grpo]\nlrr = 1e-5\n"), env={})
    with pytest.raises(SettingsError, match=r"\[rewardz\] .* is not a settings section; did you mean 'rewards'\?"):
        load_settings(path=ini(tmp_path, "[rewardz]\nlam = 0.1\n"), env={})
    with pytest.raises(SettingsError, match=r"sft.epochs = 'three' .*: expected a finite number"):
        load_settings(path=ini(tmp_path, "[sft]\nepochs = three\n"), env={})
    with pytest.raises(SettingsError, match=r"walk.kk \(.*\[profile:p\]\) is not a setting; did you mean 'walk.k'\?"):
        load_settings("p", path=ini(tmp_path, "[profile:p]\nwalk.kk = 3\n"), env={})
    assert load_settings(path=ini(tmp_path, "[grpo]\nbatch = 16\n"), env={})["grpo"]["batch"] == 16   # an optional key
