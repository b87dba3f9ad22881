"Each sample service's module docstring names its spec by a path that exists (`../shared/specs/mcp/<file>.json`, relative to the repository root, as the service tests read it), and a service built from a spec names that very file."
import importlib, re
from pathlib import Path
import pytest
import sample_services

ROOT = Path(__file__).resolve().parents[1]
PATH = re.compile(r"`(\.\./shared/specs/mcp/[\w.-]+\.json)`")

@pytest.mark.parametrize("mod", sample_services.LIBRARY_MODULES)
def test_docstring_names_an_existing_spec(mod):
    m = importlib.import_module(f"sample_services.{mod}")
    cited = PATH.findall(m.__doc__ or "")
    assert not re.search(r"(?<![./])specs/mcp/", m.__doc__ or ""), f"{mod}: a spec path not relative to the repository root"
    for p in cited: assert (ROOT / p).is_file(), f"{mod} cites {p}, which does not exist"
    if m.service.spec is not None: assert f"../shared/specs/mcp/{m.service.spec}.json" in cited, (mod, m.service.spec, cited)
    else: assert cited == [], (mod, cited)
