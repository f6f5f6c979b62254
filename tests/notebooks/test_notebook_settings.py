"""Every notebook opens by saying which setting its stored outputs come from, and how to get the default one.

The stored outputs are computed with ``DPVERIFY_NOTEBOOK_SMALL=1`` (see ``test_notebooks.py``) and their numbers
differ from a default run; a reader must not take them for the default.  Read as JSON: no Jupyter needed.
"""

import ast
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell: dict) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def _small_vs_default(code: str) -> list[str]:
    """The numbers of every ``A if SMALL else B`` whose both sides are numbers (or tuples, lists of numbers)."""
    def numbers(node) -> list[str] | None:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return [str(node.value)]
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [numbers(e) for e in node.elts]
            return None if any(p is None for p in parts) else [x for p in parts for x in p]
        return None

    found: list[str] = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.IfExp) and isinstance(node.test, ast.Name) and node.test.id == "SMALL":
            small, default = numbers(node.body), numbers(node.orelse)
            if small is not None and default is not None:
                found += small + default
    return found


def _mentions(text: str, number: str) -> bool:
    plain = text.replace(",", "").replace("_", "")
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", plain) is not None


def test_there_are_notebooks():
    assert len(NOTEBOOKS) == 5, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_first_cell_states_the_setting_of_the_stored_outputs(path):
    cells = _cells(path)
    first = cells[0]
    assert first["cell_type"] == "markdown", f"{path.name}: the first cell is not markdown"
    head = _text(first)
    assert "Stored outputs" in head and "DPVERIFY_NOTEBOOK_SMALL=1" in head, f"{path.name}: no stored setting"
    # how to get the default: the variable unset, and a command that runs this very notebook
    assert "`DPVERIFY_NOTEBOOK_SMALL` unset" in head, path.name
    assert f"--execute notebooks/{path.name}" in head, path.name
    assert "pip install -e '.[notebooks]'" in head, path.name
    code = "\n".join(re.sub(r"^[%!].*$", "", _text(c), flags=re.M) for c in cells if c["cell_type"] == "code")
    assert 'os.environ.get("DPVERIFY_NOTEBOOK_SMALL") == "1"' in code, f"{path.name}: the code reads no setting"
    # the numbers each setting uses are the ones the code uses (a changed setting updates the first cell)
    missing = [n for n in _small_vs_default(code) if not _mentions(head, n)]
    assert not missing, f"{path.name}: the first cell does not state the numbers {missing} its code uses"
