"""A real browser drives JupyterLab: a copy of the first tutorial that shows a `RubricEditor` is run top to bottom,
then its controls are used and the kernel's re-scoring is read back from the page.

Playwright for Python drives Debian's chromium (`/usr/bin/chromium`; Playwright's own browser builds are never
downloaded). JupyterLab listens on loopback only, token off, in a temporary folder with its own settings. Skipped,
with the reason, where chromium or playwright is missing — unless COMPOWORLD_REQUIRE_BROWSER=1 (CI), where that fails.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("COMPOWORLD_REQUIRE_BROWSER") == "1"


def _unavailable() -> str | None:
    "Why this test cannot run here, or None."
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM} (Debian: apt-get install -y chromium)"
    try: import playwright.sync_api  # noqa: F401
    except ImportError: return "the playwright Python package is not installed (pip install playwright; no browser download)"
    return None


def _need_browser():
    why = _unavailable()
    if why and REQUIRE: pytest.fail(f"COMPOWORLD_REQUIRE_BROWSER=1 but {why}")
    if why: pytest.skip(why)


def editor_notebook() -> Path:
    "The first tutorial that displays a RubricEditor; before tutorials exist, the first notebook that does."
    def shows(p):
        nb = nbformat.read(p, as_version=4)
        return any(c.cell_type == "code" and re.search(r"^RubricEditor\(", c.source, re.M) for c in nb.cells)
    for p in sorted((NBS / "tutorials").glob("*.ipynb")) + sorted(NBS.glob("*.ipynb")):
        if shows(p): return p
    pytest.skip("no notebook under nbs/ displays a RubricEditor")


def runnable_copy(src: Path, dst: Path) -> None:
    """Copy `src` without the cells nbdev-test skips (`#| slow`, ... per `tst_flags`) and without outputs, with a
    python3 kernelspec so JupyterLab starts the kernel without asking."""
    from nbdev.config import get_config
    from nbdev.test import nb_test_cells
    run = {c.idx_ for c in nb_test_cells(src, skip_flags=get_config().tst_flags.split())}
    nb = nbformat.read(src, as_version=4)
    nb.cells = [c for i, c in enumerate(nb.cells) if c.cell_type != "code" or i in run]
    for c in nb.cells:
        if c.cell_type == "code": c.outputs, c.execution_count = [], None
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, dst)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    "A JupyterLab server on 127.0.0.1 in a temporary folder; yields (base URL, folder)."
    _need_browser()
    tmp = tmp_path_factory.mktemp("lab")
    work, home = tmp / "work", tmp / "home"
    work.mkdir(); home.mkdir()
    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell in the DOM (no windowing), so the page can be read like a person scrolling it
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    # no news or update toasts over the page
    (settings.parent / "apputils-extension").mkdir()
    (settings.parent / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "PYTHONPATH": str(ROOT)}
    port = _free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
           f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"]
    if hasattr(os, "geteuid") and os.geteuid() == 0: cmd.append("--ServerApp.allow_root=True")
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:                                  # until the server answers, or its exit fails the test
            try:
                with urllib.request.urlopen(f"{base}/api/status", timeout=2) as r:
                    if r.status == 200: break
            except OSError: pass
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab did not start (exit {proc.poll()}):\n{(tmp / 'lab.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield base, work
    finally:
        proc.terminate()
        try: proc.wait(20)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()
        log.close()


RUN_LIMIT_MS = 600_000  # the whole tutorial, run in the browser
# Awaits the promise of a JS expression, or gives "timeout" after `ms` (a hung cell must not hang the test run).
_WITHIN = """([expr, ms]) => Promise.race([eval(expr), new Promise(r => setTimeout(() => r("timeout"), ms))])"""

# Reads the RubricEditor's table in the page: R_i (data-R), the "uniform" and "success" columns, the criterion columns,
# and the status line.
_READ = r"""(ed) => {
  const table = ed.querySelector('table');
  const heads = Array.from(table.querySelectorAll('tr')[0].querySelectorAll('th')).map(th => th.textContent.trim());
  const rows = Array.from(table.querySelectorAll('tr')).filter(tr => tr.querySelector('td[data-R]'));
  const col = name => rows.map(tr => parseFloat(tr.querySelectorAll('td')[heads.indexOf(name)].textContent));
  const rHead = heads.find(h => h.startsWith('Ri'));
  return {heads, R: rows.map(tr => parseFloat(tr.querySelector('td[data-R]').dataset.r)),
          uniform: col('uniform'), success: col('success'),
          criteria: heads.slice(1, heads.indexOf(rHead)), kind: rHead,
          status: Array.from(ed.querySelectorAll('.widget-html-content')).map(e => e.textContent)
                       .find(t => /M=\d+ criteria/.test(t)) || ''};
}"""


def test_rubric_editor_rescores_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright, expect
    base, work = lab
    src = editor_notebook()
    runnable_copy(src, work / "tutorial.ipynb")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/tutorial.ipynb")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext", timeout=120_000)
            # wait for the kernel, then run every cell; the command resolves once the last cell has run
            page.evaluate(_WITHIN, ["window.jupyterapp.shell.currentWidget.sessionContext.ready", 120_000])
            ok = page.evaluate(_WITHIN, ["window.jupyterapp.commands.execute('notebook:run-all-cells')", RUN_LIMIT_MS])
            assert ok != "timeout", f"{src.name} did not finish within {RUN_LIMIT_MS // 1000} s in JupyterLab"
            page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
                                   " === 'idle'", timeout=600_000)
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert ok is True, (f"running {src.name} in JupyterLab failed:\n" +
                                "\n".join(errors.all_inner_texts())[-3000:])

            reward = page.locator(".widget-dropdown").filter(has=page.get_by_text("reward", exact=True))
            editor = page.locator(".widget-vbox").filter(has=page.locator("td[data-R]")).filter(has=reward).last
            editor.scroll_into_view_if_needed()
            expect(editor.locator("td[data-R]").first).to_be_visible(timeout=60_000)
            before = editor.evaluate(_READ)
            n, m = len(before["R"]), len(before["criteria"])
            assert n >= 1 and m >= 2, before

            # 1. the reward kind: choosing "uniform" (or "success" if uniform is shown) makes R_i the column the
            #    kernel had computed for that reward, recomputed in the kernel from the same b table
            new = "success" if "uniform" in before["kind"] else "uniform"
            editor.locator(".widget-dropdown").filter(has=page.get_by_text("reward", exact=True)) \
                  .locator("select").select_option(new)
            page.wait_for_function(f"(ed) => ed.querySelector('table th:nth-child({m + 2})').textContent.includes('{new}')",
                                   arg=editor.element_handle(), timeout=30_000)
            after = editor.evaluate(_READ)
            assert after["R"] == pytest.approx(before[new], abs=6e-4), (before, after)
            assert f"M={m} criteria, {new}" in after["status"], after["status"]

            # 2. a click on the first criterion's checkbox drops that criterion: one column fewer, M-1 in the status,
            #    and R_i is again the uniform/success column of the new table
            first = before["criteria"][0].rstrip("*")
            box = editor.locator(".widget-checkbox").filter(has=page.get_by_text(first, exact=True)).locator("input").first
            assert box.is_checked()
            box.click()
            page.wait_for_function(f"(ed) => Array.from(ed.querySelectorAll('.widget-html-content'))"
                                   f".some(e => e.textContent.includes('M={m - 1} criteria'))",
                                   arg=editor.element_handle(), timeout=30_000)
            dropped = editor.evaluate(_READ)
            assert [c.rstrip("*") for c in dropped["criteria"]] == [c.rstrip("*") for c in before["criteria"][1:]]
            assert dropped["R"] == pytest.approx(dropped[new], abs=6e-4), dropped
            assert not box.is_checked()
        finally:
            browser.close()
