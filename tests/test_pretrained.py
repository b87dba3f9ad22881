"The cached pretrained directory keeps the project's current chat template."
from compoworld_nb import pretrained as P
from compoworld_nb.tinymodel import CHAT_TEMPLATE

def test_an_older_cached_template_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setitem(P.PRETRAINED, "toy", P.PretrainedSpec("toy", "toy-pkg", "1.0", "0" * 64, "t/t.gguf", "1" * 64, "MIT", "us"))
    d = tmp_path / "toy"; d.mkdir()
    for f in ("compoworld_model.json", "config.json"): (d / f).write_text("{}")
    (d / "chat_template.jinja").write_text("{{ 'old' }}")
    assert P.pretrained_dir("toy", cache=tmp_path, progress=False) == d       # cached: no fetch, no conversion
    assert (d / "chat_template.jinja").read_text() == CHAT_TEMPLATE
    assert sorted(p.name for p in d.iterdir()) == ["chat_template.jinja", "compoworld_model.json", "config.json"]
    before = (d / "chat_template.jinja").stat().st_mtime_ns
    P.pretrained_dir("toy", cache=tmp_path, progress=False)                    # current already: left alone
    assert (d / "chat_template.jinja").stat().st_mtime_ns == before
