"""docs/flow.md's example script runs as printed."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_script_runs(tmp_path):
    script = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "flow.md").read_text(), re.S)
    path = tmp_path / "example.py"
    path.write_text(script.group(1))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH",
                                                                                  "")])}
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert " ms " in proc.stdout and "core0.matrix" in proc.stdout
