"""Every public function documents its interface in numpydoc sections.

A public function is a module-level ``def``, or a ``def`` in the body of a public class, whose name does not
start with an underscore, in ``dpvalidate``, ``theory``, ``kernels`` and ``verify``.  Claim checks (decorated
with ``@claim``) are excluded: their interface is the claim record.  Each needs a docstring with

* a ``Parameters`` section naming every parameter (``self``/``cls`` aside) when it has any;
* a ``Returns`` section when its body returns a value (``Yields`` for a generator);
* a ``Raises`` section when its body raises an exception itself.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dpvalidate", "theory", "kernels", "verify")


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of ``fn``'s body, not descending into nested functions, lambdas or classes."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _has_section(doc: str, name: str) -> bool:
    return re.search(rf"^\s*{name}\n\s*-{{3,}}\s*$", doc, re.M) is not None


def _public_functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            yield from (n for n in node.body if isinstance(n, ast.FunctionDef))


def _is_claim_check(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Call) and getattr(d.func, "id", "") == "claim" for d in fn.decorator_list)


def problems(path: Path, root: Path = ROOT) -> list[str]:
    """What the numpydoc convention misses in one file's public functions (empty when nothing)."""
    out = []
    for fn in _public_functions(ast.parse(path.read_text())):
        if fn.name.startswith("_") or _is_claim_check(fn):
            continue
        where = f"{path.relative_to(root)}:{fn.lineno} {fn.name}"
        doc = ast.get_docstring(fn)
        if not doc:
            out.append(f"{where}: no docstring")
            continue
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
        names += [v.arg for v in (a.vararg, a.kwarg) if v is not None]
        if names and not _has_section(doc, "Parameters"):
            out.append(f"{where}: no Parameters section")
        elif names:
            described = doc.split("Parameters", 1)[1]
            for name in names:
                if not (re.search(rf"^\s*\**{re.escape(name)}\b", described, re.M)
                        or re.search(rf"(^|[ ,])\**{re.escape(name)}\s*[,:]", described, re.M)):
                    out.append(f"{where}: parameter {name} not described")
        own = list(_own_nodes(fn))
        generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own)
        returns = any(isinstance(n, ast.Return) and n.value is not None
                      and not (isinstance(n.value, ast.Constant) and n.value.value is None) for n in own)
        if generator and not _has_section(doc, "Yields"):
            out.append(f"{where}: no Yields section")
        elif returns and not generator and not _has_section(doc, "Returns"):
            out.append(f"{where}: no Returns section")
        if any(isinstance(n, ast.Raise) for n in own) and not _has_section(doc, "Raises"):
            out.append(f"{where}: no Raises section")
    return out


FILES = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_public_functions_have_numpydoc_sections(path):
    missing = problems(path)
    assert not missing, "\n".join(missing)


def test_the_checker_reports_what_is_missing(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('def f(x, *, y=1):\n    """Sum.\n\n    Parameters\n    ----------\n    x : int\n        One.\n'
                   '    """\n    if x < 0:\n        raise ValueError("x")\n    return x + y\n\n'
                   'def _private(z):\n    return z\n')
    assert problems(src, tmp_path) == ["m.py:1 f: parameter y not described", "m.py:1 f: no Returns section",
                             "m.py:1 f: no Raises section"]
