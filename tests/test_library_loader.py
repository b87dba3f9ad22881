"One library loader: shipped services plus every `compoworld.services` entry point; every command uses it."
import contextlib, importlib.metadata, io, json, sys, textwrap
import pytest
from compoworld_nb import library
from compoworld_nb.library import ENTRY_POINT_GROUP, load_library

PKG = textwrap.dedent('''
    from compoworld_nb.service import Service, State, Record
    class Entry(Record):
        id: str
        amount: float = 0.0
    class Ledger(State):
        entries: dict[str, Entry] = {}
    service = Service("ledger", "finance", Ledger, "A tiny ledger.")
    @service.tool(read_only=True)
    def list_entries(state: Ledger) -> list:
        "List the ledger's entries."
        return [e.model_dump() for e in state.entries.values()]
    def clash():
        import sample_services.gmail as g
        other = Service(g.service.name, "x", Ledger)
        return [other]
    ''')

@pytest.fixture
def ledger_pkg(tmp_path, monkeypatch):
    (tmp_path / "tiny_ledger_pkg.py").write_text(PKG)
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [importlib.metadata.EntryPoint("ledger", "tiny_ledger_pkg:service", ENTRY_POINT_GROUP),
           importlib.metadata.EntryPoint("sample_services", "sample_services:load_library", ENTRY_POINT_GROUP)]
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: eps if kw.get("group") == ENTRY_POINT_GROUP else real(**kw))
    yield eps

def test_one_function_behind_every_name():
    from compoworld_nb import author, cli, executor
    assert author.default_library is load_library and cli.verified_library is load_library and executor.load_library is load_library

def test_entry_point_services_join_the_library(ledger_pkg):
    lib, world = load_library()
    assert list(lib)[-1] == "ledger" and "gmail" in lib and callable(world)
    assert lib["ledger"].tools["list_entries"].read_only
    assert lib is not load_library()[0]                    # a fresh dict each call (the load is cached)

def test_compoworld_services_lists_an_installed_package(ledger_pkg):
    from compoworld_nb.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert main(["services", "--json"]) == 0
    names = [r["name"] for r in json.loads(out.getvalue().strip().splitlines()[-1])["services"]]
    assert names[-1] == "ledger"
    from compoworld_nb.serve import parse_services
    assert "ledger" in parse_services(None)

def test_a_clashing_package_is_an_error(ledger_pkg):
    ledger_pkg.append(importlib.metadata.EntryPoint("clash", "tiny_ledger_pkg:clash", ENTRY_POINT_GROUP))
    with pytest.raises(ValueError, match="service 'gmail' (is defined twice|of an installed package clashes)"): load_library()

def test_bad_specs_and_objects(ledger_pkg):
    with pytest.raises(ValueError, match="is not an importable 'module:function'"): load_library("no_such_mod:f")
    ledger_pkg.append(importlib.metadata.EntryPoint("bad", "json:dumps", ENTRY_POINT_GROUP))
    with pytest.raises(Exception, match="entry point 'bad'"): load_library()
