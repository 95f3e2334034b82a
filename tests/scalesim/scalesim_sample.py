"""Where the shared SCALE-Sim sample is: ../shared/scalesim beside the checkout (None if absent)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = next((p for p in (ROOT.parent / "shared" / "scalesim", Path("/work/shared/scalesim"))
               if p.is_dir()), None)
