"Observed names (`sft_data._observed_names`, what a search is filled with when nothing else shows a value): a greeting's words are no name."
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.harness import TaskEnvironment
from compoworld_nb.sft_data import _observed_names


def _env_showing(text):
    lib, world = default_library()
    tasks, _ = generate_tasks(12, 0, lib, world, k=(3, 3), l_min=4, l_max=6, n_distractors=5)
    env = TaskEnvironment(tasks[2], lib)
    env._record({"name": "call_tool", "arguments": {"tool": "gmail.search_emails", "arguments": {}}}, {"ok": True, "data": text})
    return env


def test_a_salutation_is_not_part_of_a_name():
    env = _env_showing("Hi Clayton, Dear Anne Kim - Hello Bo-Li Chen; Good Morning Team. Best Regards, Sam Lee. Hey there Mark Ode")
    assert _observed_names(env) == ["Anne Kim", "Bo-Li Chen", "Sam Lee", "Mark Ode"]


def test_the_demo_email_greeting_is_not_a_name():
    lib, world = default_library()
    tasks, _ = generate_tasks(12, 0, lib, world, k=(3, 3), l_min=4, l_max=6, n_distractors=5)
    env = TaskEnvironment(tasks[2], lib)
    env._step("call_tool", tasks[2].reference[0])
    assert _observed_names(env) == ["Anne Kim"]
