"""Service tests: make the shared helpers in svc_testkit.py importable whatever pytest's import mode."""
import sys
from pathlib import Path

_here = Path(__file__).resolve().parent
if str(_here) not in sys.path: sys.path.insert(0, str(_here))
