"""``make device-check`` (tools/device_check.py) at its tiny size on the CPU, so that the script a GPU run
depends on cannot rot: its cell runner against what a kernel shows, and one whole run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import device_check  # noqa: E402


def test_the_cell_runner_shows_what_a_kernel_shows():
    ns: dict = {}
    outs, exc = device_check.run_cell(
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "print('a')\nplt.plot([1, 2])\nplt.show()\nprint('b')\nx = 3\nx + 1",
        ns,
    )
    assert exc is None and ns["x"] == 3
    kinds = [o["output_type"] for o in outs]
    # printed text, the figure where plt.show() was called, the text after it, the last value
    assert kinds == ["stream", "display_data", "stream", "execute_result"]
    assert outs[0]["text"] == "a\n" and outs[2]["text"] == "b\n"
    assert outs[1]["data"]["image/png"] and outs[3]["data"]["text/plain"] == ["4"]
    outs, exc = device_check.run_cell("y = 1\nraise ValueError('no')", ns)
    assert isinstance(exc, ValueError) and ns["y"] == 1
    assert outs[-1]["output_type"] == "error" and outs[-1]["evalue"] == "no"


def test_a_figure_left_open_is_shown_at_the_cells_end():
    outs, exc = device_check.run_cell(
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1])",
        {},
    )
    assert exc is None and [o["output_type"] for o in outs][-1] == "display_data"


def test_a_tiny_device_check_runs_a_chapter_like_the_kernel(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "device_check.py"), "--tiny", "--out", str(out),
         "--chapters", "12"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "device_check.json").read_text())
    assert summary["passed"] and summary["tests"]["passed"] and summary["preset"] == "smoke"
    step = summary["steps"][0]
    assert step["executed"] and step["claims"] > 0 and not step["claims_failed"]
    nb = json.loads((out / "12_aligned_dynamics.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["execution_count"] for c in code)
    assert any(o["output_type"] == "display_data" for c in code for o in c["outputs"])
    # the executed cells are the chapter's own (what paper_record_drift compares)
    src = json.loads((ROOT / "notebooks" / "12_aligned_dynamics.ipynb").read_text())["cells"]
    assert [c["source"] for c in nb["cells"]] == [c["source"] for c in src]
