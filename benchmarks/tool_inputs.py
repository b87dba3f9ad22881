"""Schema-derived and adversarial inputs for every tool of every service (issue 21's goal table).

For each tool: `verify.tool_inputs` draws N distinct inputs from its parameter schema (hypothesis-jsonschema plus
boundary and wrong-type values, with fixture values so the success paths are reached), and a fixed adversarial set
is added for each parameter (values nested thousands of levels deep, text with an unpaired surrogate, NaN/inf/1e999,
integers past 64 bits, text over the size limit, a long non-ASCII run, glob and SQL inputs that used to run for
seconds). Every input is called on the service's seeded initial state, and each call is checked for:

- uncaught: `Service.call` raised instead of answering an observation
- x500: an error observation with code 500 (a tool crashed inside)
- unhashable: the new state cannot be hashed or the observation is not strict JSON (NaN/inf, lone surrogates)
- changed_on_error: an error observation but the state object is not the very one given (or its hash changed)
- min_schema_inputs: the fewest schema-derived inputs of any one tool (the adversarial ones come on top; the goal is >= N)
- hung: no answer within 10 s (stopped by SIGALRM; also counted as uncaught)
- slow: the call used over 100 ms of CPU time. The 100 ms goal is on the calling thread's CPU time (`time.thread_time`:
  tool calls run on the caller's thread), not wall time, which on a shared machine mostly measures the other processes.
  A call over 100 ms is run 3 more times and the fastest of all its runs counts, so that a one-off cost (a cache filled,
  a collection of the garbage collector) is not taken for a slow path, while a slow path, slow on every run, still counts.
  `max_ms` is the largest such CPU time; `max_wall_ms` the largest wall time of a first run (for information only)

Prints a table (one row per service, then the total) and, with --json, one JSON object on the last line.
Run: python benchmarks/tool_inputs.py [--n 500] [--services a,b] [--seed 0] [--json]
For the "before" figures run the same file against the starting commit:
    cd /work/base && PYTHONPATH=/work/base python /work/main/benchmarks/tool_inputs.py --n 500
"""
from __future__ import annotations
import argparse, json, math, reprlib, signal, sys, time, timeit

SLOW_S = 0.1
HANG_S = 10.0     # a call still running after this is stopped (SIGALRM) and counted as `hung` (and uncaught)


class _Hang(BaseException): pass

def _alarm(*_): raise _Hang()


def adversarial(parameters: dict) -> list:
    "Inputs outside what a schema draws: for each parameter, hostile values; the other arguments absent."
    deep_list, deep_obj = "x", "x"
    for _ in range(3000): deep_list, deep_obj = [deep_list], {"k": deep_obj}
    values = [deep_list, deep_obj, "x\udfffy", "\ud800", math.nan, math.inf, -math.inf, float("1e999"), 2 ** 64, -(2 ** 70),
              10 ** 400, "a" * 1_000_000, "é" * 5000, "*a" * 7 + "*b", "*a" * 400 + "*b", "**/" * 300 + "x",
              "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
              "UPDATE products SET price = 1e999", "SELECT 1e999", {"nested": [math.nan]}, [1e999], ["x\udfffy"]]
    props = list((parameters.get("properties") or {})) or ["x"]
    return [{p: v} for p in props for v in values]


def _retime(service, s0, tool, x, repeats: int = 3, clock=time.thread_time) -> float:
    "The fastest of `repeats` more runs of one call on `clock` (calls are pure: `s0` is never changed), in seconds; under the same hang guard."
    signal.setitimer(signal.ITIMER_REAL, HANG_S * repeats)
    try: return min(timeit.repeat(lambda: service.call(s0, tool, x), timer=clock, number=1, repeat=repeats))
    except _Hang: return HANG_S
    finally: signal.setitimer(signal.ITIMER_REAL, 0)


def check_tool(service, tool: str, inputs: list, state_hash, clock=time.thread_time) -> dict:
    """Call every input on the seeded initial state; the counts of the kinds in the module docstring, with one example each.
    `clock` is what the slow goal is timed on (seconds; the calling thread's CPU time by default)."""
    s0 = service.initial_state(0)
    d0 = s0.model_dump_json()                              # to see that an erroring call left the given state as it was
    row = {"inputs": 0, "hung": 0, "uncaught": 0, "x500": 0, "unhashable": 0, "changed_on_error": 0, "slow": 0, "max_ms": 0.0,
           "max_wall_ms": 0.0, "ok": 0, "examples": {}}
    def note(kind, x, detail):
        row[kind] += 1
        row["examples"].setdefault(kind, f"{tool}: {detail[:160]} | input {reprlib.repr(x)[:120]}")
    for x in inputs:
        row["inputs"] += 1
        w0, t0 = time.perf_counter(), clock()
        signal.setitimer(signal.ITIMER_REAL, HANG_S)
        try: new, o = service.call(s0, tool, x)
        except BaseException as e:                         # RecursionError, MemoryError, a hang: the call did not answer
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(e, KeyboardInterrupt): raise
            if isinstance(e, _Hang): note("hung", x, f"no answer within {HANG_S:g} s")
            dt, wall = clock() - t0, time.perf_counter() - w0
            row["max_ms"], row["max_wall_ms"] = max(row["max_ms"], dt * 1000), max(row["max_wall_ms"], wall * 1000)
            if dt > SLOW_S: note("slow", x, f"{dt * 1000:.0f} ms")
            note("uncaught", x, f"{type(e).__name__}: {str(e)[:100]}")
            continue
        signal.setitimer(signal.ITIMER_REAL, 0)
        dt, wall = clock() - t0, time.perf_counter() - w0
        row["max_wall_ms"] = max(row["max_wall_ms"], wall * 1000)
        if dt > SLOW_S: dt = min(dt, _retime(service, s0, tool, x, clock=clock))   # a slow path stays slow; a one-off cost does not
        row["max_ms"] = max(row["max_ms"], dt * 1000)
        if dt > SLOW_S: note("slow", x, f"{dt * 1000:.0f} ms")
        try:
            json.dumps(o, allow_nan=False).encode("utf-8")
            if new is not s0: state_hash(new)              # a new state must hash (s0 is known to)
        except Exception as e:
            note("unhashable", x, f"{type(e).__name__}: {str(e)[:100]}"); continue
        if o.get("ok"): row["ok"] += 1; continue
        if o.get("error", {}).get("code") == 500: note("x500", x, o["error"].get("message", ""))
        try: same = new is s0 and s0.model_dump_json() == d0
        except Exception: same = False
        if not same: note("changed_on_error", x, f"error {o['error'].get('code')}")
    return row


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500, help="schema-derived inputs per tool (default 500)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--services", default=None, help="comma-separated service names (default: all)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.n < 1: ap.error(f"--n {a.n} must be >= 1")
    signal.signal(signal.SIGALRM, _alarm)
    import sample_services
    from compoworld_nb.core import state_hash
    from compoworld_nb.verify import fixture_values, tool_inputs
    from tqdm.auto import tqdm
    lib = sample_services.load_library()
    names = a.services.split(",") if a.services else list(lib)
    bad = [n for n in names if n not in lib]
    if bad: ap.error(f"--services: unknown {bad}; known: {sorted(lib)}")
    rows, total = {}, None
    t_start = time.perf_counter()
    for name in tqdm(names, desc="services", disable=a.json):
        svc = lib[name]
        vals = fixture_values(svc, a.seed)
        agg = {"tools": 0, "inputs": 0, "hung": 0, "uncaught": 0, "x500": 0, "unhashable": 0, "changed_on_error": 0, "slow": 0, "max_ms": 0.0,
               "max_wall_ms": 0.0, "ok": 0, "min_schema_inputs": 10 ** 9, "examples": {}}
        for tool, t in svc.tools.items():
            if t.simulated: continue                          # world-model tools: no code to exercise without a model
            inputs, _ = tool_inputs(t, a.n, a.seed, vals)
            r = check_tool(svc, tool, inputs + adversarial(t.parameters), state_hash)
            agg["min_schema_inputs"] = min(agg["min_schema_inputs"], len(inputs))   # the goal: >= 500 schema-derived inputs per tool
            agg["tools"] += 1
            for k in ("inputs", "hung", "uncaught", "x500", "unhashable", "changed_on_error", "slow", "ok"): agg[k] += r[k]
            agg["max_ms"], agg["max_wall_ms"] = max(agg["max_ms"], r["max_ms"]), max(agg["max_wall_ms"], r["max_wall_ms"])
            for k, v in r["examples"].items(): agg["examples"].setdefault(k, v)
        agg["max_ms"], agg["max_wall_ms"] = round(agg["max_ms"], 1), round(agg["max_wall_ms"], 1)
        rows[name] = agg
        if a.json:                                           # one line per finished service (partial results survive a stop)
            print(json.dumps({"service": name, **agg}, sort_keys=True), flush=True)
    keys = ("tools", "inputs", "ok", "hung", "uncaught", "x500", "unhashable", "changed_on_error", "slow")
    total = {k: sum(r[k] for r in rows.values()) for k in keys}
    for m in ("max_ms", "max_wall_ms"): total[m] = max((r[m] for r in rows.values()), default=0.0)
    total["min_schema_inputs"] = min((r["min_schema_inputs"] for r in rows.values()), default=0)
    cols = (*keys, "max_ms", "max_wall_ms", "min_schema_inputs")
    hdr = f"{'service':<16}" + "".join(f"{k:>{max(8, len(k) + 1)}}" for k in cols)
    print(hdr)
    for n, r in [*rows.items(), ("TOTAL", total)]: print(f"{n:<16}" + "".join(f"{r[k]:>{max(8, len(k) + 1)}}" for k in cols))
    ex = {f"{n}/{k}": v for n, r in rows.items() for k, v in r["examples"].items()}
    for k, v in list(ex.items())[:40]: print(f"  {k}: {v}")
    res = {"n": a.n, "seed": a.seed, "slow_clock": "thread CPU time (time.thread_time)", "seconds": round(time.perf_counter() - t_start, 1), "total": total,
           "services": {n: {k: v for k, v in r.items() if k != "examples"} for n, r in rows.items()}, "examples": ex}
    if a.json: print(json.dumps(res, sort_keys=True))
    return res


if __name__ == "__main__":
    main()
