"""harness.tool_schema writes the schemas TRL writes (transformers.utils.get_json_schema), without transformers in the
core: the meta-tools, and functions covering every JSON type, optional and nullable arguments, and no Returns."""
import inspect

import pytest

get_json_schema = pytest.importorskip("transformers.utils").get_json_schema
from compoworld_nb.harness import META_TOOLS, TaskEnvironment, meta_tool_schemas, tool_schema


def test_meta_tools_equal_transformers():
    probe = TaskEnvironment.__new__(TaskEnvironment)
    ref = [get_json_schema(m) for n, m in inspect.getmembers(probe, inspect.ismethod)
           if n not in ("reset", "get_reward") and not n.startswith("_")]
    assert META_TOOLS == meta_tool_schemas() == ref


def f_types(s: str, i: int, x: float, flag: bool, d: dict, maybe: str | None = None) -> dict:
    """Every JSON type once.

    Args:
        s: a string
        i: an integer
        x: a number
        flag: a flag
        d: an object
        maybe: may be absent

    Returns:
        An object.
    """


def f_no_returns(count: int = 3) -> str:
    """Only an optional argument, no Returns section.

    Args:
        count: how many
    """


def f_no_args() -> str:
    """No arguments at all."""


@pytest.mark.parametrize("fn", [f_types, f_no_returns, f_no_args])
def test_equal_transformers(fn):
    assert tool_schema(fn) == get_json_schema(fn)


def test_errors_name_the_function():
    def undocumented(a: int) -> int: return a
    def missing(a: int, b: int) -> int:
        """Two numbers.

        Args:
            a: the first
        """
    with pytest.raises(ValueError, match="undocumented has no docstring"): tool_schema(undocumented)
    with pytest.raises(ValueError, match="argument 'b' has no description"): tool_schema(missing)
    def listy(xs: list) -> str:
        """A bare list (TRL would call it an object).

        Args:
            xs: items
        """
    with pytest.raises(TypeError, match=r"listy\(xs\): no JSON type"): tool_schema(listy)
