"""Which error paths of the sample services' tools do the service tests reach?

Runs the service tests under `coverage` (branch mode) and counts, per service module, the `raise ToolError(...)`
statements that actually raised: a raise on its own line counts when the line ran; a one-line
`if cond: raise ToolError(...)` counts only when an arc leaves that line by raising (the condition was true).
Prints one JSON line: per module `[raised, total]`, the missed line numbers, and the overall share.

Needs the `coverage` package (a dev tool, not a project dependency): pip install coverage==7.8.0

Run: python benchmarks/service_error_coverage.py [MODULE ...]   (default: every module with a tests/services/test_<module>.py)
"""
from __future__ import annotations
import json, re, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> dict:
    import coverage
    mods = (argv if argv is not None else sys.argv[1:]) or sorted(p.stem for p in (ROOT / "sample_services").glob("*.py")
                                                                  if (ROOT / "tests/services" / f"test_{p.stem}.py").is_file())
    tests = [str(ROOT / "tests/services" / f"test_{m}.py") for m in mods if (ROOT / "tests/services" / f"test_{m}.py").is_file()]
    data_file = Path(tempfile.mkdtemp()) / ".coverage"
    subprocess.run([sys.executable, "-m", "coverage", "run", f"--data-file={data_file}", "--branch", f"--include={ROOT}/sample_services/*.py",
                    "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT, check=False, capture_output=True)
    cov = coverage.Coverage(data_file=str(data_file)); cov.load()
    data = cov.get_data()
    out, hit_all, tot_all = {}, 0, 0
    for m in mods:
        f = str(ROOT / "sample_services" / f"{m}.py")
        lines = Path(f).read_text().splitlines()
        ran_lines, arcs = set(data.lines(f) or []), set(data.arcs(f) or [])
        raises = [i + 1 for i, l in enumerate(lines) if "raise ToolError" in l]
        def raised(i):
            if re.match(r"\s*(if|elif|for|while|except|else)\b", lines[i - 1]): return any(a == i and b < 0 for a, b in arcs)
            return i in ran_lines
        hit = [i for i in raises if raised(i)]
        out[m] = {"raised": len(hit), "total": len(raises), "missed_lines": [i for i in raises if i not in hit]}
        hit_all += len(hit); tot_all += len(raises)
    res = {"bench": "service_error_coverage", "modules": out, "raised": hit_all, "total": tot_all, "share": round(hit_all / max(1, tot_all), 4)}
    print(json.dumps(res, sort_keys=True))
    return res


if __name__ == "__main__":
    main()
