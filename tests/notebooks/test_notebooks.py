"""Notebooks execute end to end at small settings, write nothing, and are stored with their outputs in sync.

The repository keeps each notebook with the outputs of a small-settings run, so that a reader browsing it sees the
plots.  Re-generate them after changing a notebook (or the code it shows):

    python tests/notebooks/test_notebooks.py   # executes at small settings and saves in place

(with Jupyter's inline backend, so the stored figures are PNGs; the test runs the same way and compares output
types cell by cell).
"""

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def execute(path: Path, workdir: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}).execute()
    return nb


def _shape(nb) -> list[tuple]:
    """Per code cell: the output types it produces (what a reader sees), in order.

    stderr is left out (warnings depend on the environment, e.g. a cold JIT cache on a fresh clone), and
    consecutive printed text counts once (the kernel may deliver one cell's prints in several messages).
    """
    def kinds(cell) -> tuple:
        out: list[str] = []
        for o in cell.get("outputs", []):
            if o.output_type == "stream" and o.get("name") == "stderr":
                continue
            if o.output_type == "stream" and out and out[-1] == "stream":
                continue
            out.append(o.output_type)
        return tuple(out)

    return [kinds(c) for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_writes_nothing_and_matches_its_stored_outputs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("DPVERIFY_NOTEBOOK_SMALL", "1")
    # the kernel's own (inline) backend, as when the stored outputs were made: figures become display_data
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = execute(path, tmp_path)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    assert any(o.output_type == "display_data" for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written where it ran
    stored = nbformat.read(path, as_version=4)
    assert [c.source for c in stored.cells] == [c.source for c in nb.cells]
    assert _shape(stored) == _shape(nb), (f"{path.name}: the stored outputs are out of date; regenerate them "
                                          "(see this file's docstring)")


if __name__ == "__main__":  # regenerate the stored outputs
    import tempfile

    os.environ["DPVERIFY_NOTEBOOK_SMALL"] = "1"
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend: figures stored as PNG
    for p in NOTEBOOKS if len(sys.argv) < 2 else [Path(a) for a in sys.argv[1:]]:
        with tempfile.TemporaryDirectory() as d:
            nbformat.write(execute(p, Path(d)), p)
        print("executed and saved", p)
