"""The sample service library: one module per service, all built on the same seeded world (`world.make_world`).

`load_library()` returns every service by name in a stable order.
"""
from __future__ import annotations
import importlib

LIBRARY_MODULES = ["gmail", "slack", "google_calendar", "weather", "maps", "linear",
                   "retail", "sqlite", "memory", "filesystem", "time_zones", "trello", "github", "notion", "crm", "forum"]

def load_library() -> dict:
    "Every sample service as `{name: Service}`, in the order of `LIBRARY_MODULES`."
    out = {}
    for m in LIBRARY_MODULES:
        svc = importlib.import_module(f"{__name__}.{m}").service
        if svc.name in out: raise ValueError(f"two modules define a service named {svc.name!r}")
        out[svc.name] = svc
    return out
