"""The notebooks run top to bottom without an error, in a kernel of this very interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.fixture
def jupyter_env(tmp_path, monkeypatch):
    """A private Jupyter setup whose ``python3`` kernel is ``sys.executable``.

    A kernel spec named ``python3`` found elsewhere (the user's, the system's) may start another
    Python that lacks this project; a spec written into a directory listed first on JUPYTER_PATH
    wins over all of them, and needs nothing installed into the environment.
    """
    kernel_dir = tmp_path / "jupyter" / "kernels" / "python3"
    kernel_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (luna-balance tests)",
        "language": "python",
        "metadata": {"debugger": False},
    }
    (kernel_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    # Opt in to the platformdirs layout: older jupyter_core warns about the migration otherwise,
    # and pytest turns warnings into errors.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))
    # The notebooks write their small studies to tempfile.mkdtemp(); keep them inside tmp_path.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("name", ["level_balance", "deck_cycles", "tune_a_level", "rule_readings"])
def test_notebook_runs_without_errors(jupyter_env, name):
    pytest.importorskip("ipykernel")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")

    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "commit notebooks with their outputs cleared"
    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=600,
                                     resources={"metadata": {"path": str(jupyter_env)}})
    client.execute()  # raises CellExecutionError, naming the cell, on the first error
    errors = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
              if output.output_type == "error"]
    assert errors == []
    images = sum("image/png" in output.get("data", {}) for cell in notebook.cells if cell.cell_type == "code"
                 for output in cell.outputs)
    assert images >= 3  # the figures are shown, not just created
