"Fidelity against τ²-bench retail: the replay never reads the expected files, the comparison tiers, any folder of that form, the CLI."
import argparse, builtins, contextlib, io, json, shutil
from pathlib import Path
import pytest
from compoworld_nb import fidelity as F

PEER = Path(__file__).resolve().parents[1].parent / "shared" / "peers" / "tau2_retail"
pytestmark = pytest.mark.skipif(not (PEER / "db.json").is_file(), reason="peer data not present")


@pytest.fixture(scope="module")
def result():
    return F.fidelity_tau2_retail(PEER / "expected", db=PEER / "db.json", tasks=PEER / "tasks.json", peer_hash=False)


def test_train_split_totals(result):
    t = result["totals"]
    assert (t["tasks"], t["actions"], t["outputs_expected"], t["errors_expected"]) == (74, 365, 352, 13)
    assert t["status_matched"] == 365 and t["error_text_matched"] == 13
    assert t["tasks_changed_set_matched"] == 74
    assert t["tasks_fully_matched"] >= 71 and t["fully_matched_rate"] >= 0.95
    # where we differ, it is the peer's modify_pending_order_items giving every swapped item the last new variant's price/options
    bad = [r for r in result["tasks"] if not r["fully_matched"]]
    assert {r["task_id"] for r in bad} == {"20", "21", "37"}
    assert all(m.get("name") == "modify_pending_order_items" or m["why"] == "changed record" for r in bad for m in r["mismatches"])

def test_peer_hash_tier_on_a_subset(tmp_path):
    d = tmp_path / "exp"; d.mkdir()
    for t in ("0", "4", "20", "105"): shutil.copy(PEER / "expected" / f"{t}.json", d)
    res = F.fidelity_tau2_retail(d, db=PEER / "db.json", tasks=PEER / "tasks.json")
    rows = {r["task_id"]: r for r in res["tasks"]}
    assert list(rows) == ["0", "4", "20", "105"]                 # any folder of that form, numeric order
    assert rows["0"]["hash_matched"] and rows["4"]["hash_matched"] and rows["105"]["hash_matched"]   # byte-identical peer hash
    assert rows["20"]["hash_matched"] is False and not rows["20"]["fully_matched"]
    assert rows["105"]["errors_expected"] == 1 and rows["105"]["error_text_matched"] == 1 and rows["105"]["fully_matched"]
    assert res["totals"]["tasks_hash_matched"] == 3

def test_replay_never_reads_expected_files(tmp_path, monkeypatch):
    d = tmp_path / "exp"; d.mkdir()
    for t in ("1", "46", "2"): shutil.copy(PEER / "expected" / f"{t}.json", d)
    real_replay, guard = F.replay, {"on": False}
    real_open, real_read = builtins.open, Path.read_text
    def check(p):
        if guard["on"] and Path(p).resolve().parent == d.resolve(): raise AssertionError(f"replay read {p}")
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: (check(f), real_open(f, *a, **k))[1])
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: (check(self), real_read(self, *a, **k))[1])
    def guarded(*a, **k):
        guard["on"] = True
        try: return real_replay(*a, **k)
        finally: guard["on"] = False
    monkeypatch.setattr(F, "replay", guarded)
    res = F.fidelity_tau2_retail(d, db=PEER / "db.json", tasks=PEER / "tasks.json", peer_hash=False)
    assert res["totals"]["tasks_fully_matched"] == 3

def test_comparison_uses_the_expected_files(tmp_path):
    d = tmp_path / "exp"; d.mkdir()
    e = json.loads((PEER / "expected" / "0.json").read_text())
    e["actions"][1]["output"] = e["actions"][1]["output"].replace("763 Broadway", "764 Broadway")
    e["changed"]["users"] = ["yusuf_rossi_9620"]
    (d / "0.json").write_text(json.dumps(e))
    res = F.fidelity_tau2_retail(d, db=PEER / "db.json", tasks=PEER / "tasks.json", peer_hash=False)
    r = res["tasks"][0]
    assert (r["outputs_matched"], r["outputs_expected"], r["changed_set_matched"], r["fully_matched"]) == (4, 5, False, False)
    assert r["mismatches"][0] == {"action": 1, "name": "get_order_details", "why": "output"}

def test_bad_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a folder"): F.expected_task_ids(tmp_path / "nope")
    with pytest.raises(ValueError, match="holds no"): F.expected_task_ids(tmp_path)
    (tmp_path / "999.json").write_text("{}")                 # not a record: named before the replay (issue 21)
    with pytest.raises(ValueError, match="999.json': not an expected record"): F.fidelity_tau2_retail(tmp_path, db=PEER / "db.json", tasks=PEER / "tasks.json")
    (tmp_path / "999.json").write_text('{"task_id": "999", "actions": []}')
    with pytest.raises(KeyError, match="999"): F.fidelity_tau2_retail(tmp_path, db=PEER / "db.json", tasks=PEER / "tasks.json")

def test_same_json_rules():
    assert F.same_json(1.0, 1.0000005) and not F.same_json(1.0, 1.00001)
    assert not F.same_json(True, 1) and not F.same_json({"a": 1}, {"a": 1, "b": None}) and not F.same_json([1, 2], [2, 1])
    assert F.same_output("41.92", 41.92) and F.same_output('{"x": [1]}', '{"x": [1.0]}') and not F.same_output("Transfer", "Transfer successful")

def test_cli(tmp_path):
    ap = argparse.ArgumentParser(); sub = ap.add_subparsers(dest="cmd")
    F.register_cli(sub)
    d = tmp_path / "exp"; d.mkdir(); shutil.copy(PEER / "expected" / "21.json", d)
    a = ap.parse_args(["fidelity", "tau2-retail", "--expected", str(d), "--db", str(PEER / "db.json"), "--no-hash"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out): res = a.func(a)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("task 21: not fully matched") and lines[-1].startswith("tau2-retail: 0/1 tasks fully matched")
    a = ap.parse_args(["fidelity", "tau2-retail", "--expected", str(d), "--json"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out): res = a.func(a)
    assert out.getvalue() == "" and json.dumps(res) and res["totals"]["tasks"] == 1
    with pytest.raises(SystemExit): ap.parse_args(["fidelity", "tau2-airline", "--expected", str(d)])
    for bad in (str(tmp_path / "nope"), str(tmp_path)):
        a = ap.parse_args(["fidelity", "tau2-retail", "--expected", bad])
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e: a.func(a)
        assert e.value.code == 2 and bad in err.getvalue()
