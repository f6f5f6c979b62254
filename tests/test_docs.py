"""The documentation: the Sphinx site builds (warnings as errors) and the code examples of its pages run.

The site is ``docs/`` (``docs/index.md``: every Markdown page through MyST, and the API reference built from the
docstrings in ``docs/api``).  The examples, on every page of ``docs/`` and in the README:

* a ``python`` block runs in a fresh interpreter, in a folder holding the page's example files (the blocks that
  open with ``# name.py``), and any ``test_*`` function it defines is called;  a block that opens with
  ``# name.py`` is such a file: it must compile here, and the test of its feature runs it
  (``tests/verify/test_byo.py``, ``tests/verify/test_user_algorithm.py``, ``tests/verify/test_cli_audit.py``);
* a block after ``<!-- example: sketch -->`` is a fragment with its context left out: it must compile;
* a block after ``<!-- example: gpu -->`` runs only where ``kernels.cuda`` finds a GPU;
* every ``dpverify`` command of a ``bash`` block must parse with the command line's own parser, and the claims it
  names must be in the ledger (the commands themselves run for minutes; each command's behaviour has its tests).
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts) + [ROOT / "README.md"]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_MARK = re.compile(r"<!-- example: (\w+) -->\s*$")


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """The fenced blocks of a page: (language, text, the ``<!-- example: ... -->`` mark on the line before)."""
    text = page.read_text()
    out = []
    for m in _FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rpartition("\n")[2]
        mark = _MARK.search(before)
        out.append((m.group(1), m.group(2), mark.group(1) if mark else None))
    return out


def _file_name(code: str) -> str | None:
    first = code.partition("\n")[0]
    found = re.fullmatch(r"# (\w+\.py)", first)
    return found.group(1) if found else None


def _examples(kind: str):
    for page in PAGES:
        for i, (lang, code, mark) in enumerate(blocks(page)):
            if lang != "python":
                continue
            if kind == "compile" and (mark == "sketch" or _file_name(code)):
                yield pytest.param(page, code, id=f"{page.relative_to(ROOT)}[{i}]")
            elif kind == "run" and mark != "sketch" and not _file_name(code):
                yield pytest.param(page, code, mark, id=f"{page.relative_to(ROOT)}[{i}]")


def _commands():
    for page in PAGES:
        for lang, code, _ in blocks(page):
            if lang != "bash":
                continue
            for line in code.splitlines():
                if line.startswith("dpverify "):
                    yield pytest.param(line, id=f"{page.relative_to(ROOT)}: {line.split('#')[0].strip()}")


def test_site_builds_with_every_page(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx is in the dev extra")
    pytest.importorskip("myst_parser", reason="myst-parser is in the dev extra")
    out = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-W", "--keep-going",
                          str(DOCS), str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "api" / "index.html").read_text()
    for name in ("verify.registry.claim", "verify.decide.rate", "verify.testing.assert_verdict",
                 "verify.algorithms.algorithm", "kernels.make_dataset", "verify.mutants.run"):
        assert f'id="{name}"' in page, name
    for md in PAGES[:-1]:  # every Markdown page of docs/ is a page of the site
        assert (tmp_path / md.relative_to(DOCS)).with_suffix(".html").is_file(), md


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", text)
    local = [link for link in links if not link.startswith("http")]
    assert local and all((ROOT / link).exists() for link in local), [k for k in local if not (ROOT / k).exists()]


@pytest.mark.parametrize("page, code", list(_examples("compile")))
def test_file_and_sketch_examples_compile(page, code):
    ast.parse(code, filename=str(page))


@pytest.mark.parametrize("page, code, mark", list(_examples("run")))
def test_python_examples_run(page, code, mark, tmp_path):
    if mark == "gpu":
        from kernels import cuda as kc

        ok, why = kc.status()
        if not ok or "simulator" in why:
            pytest.skip(f"a GPU example: {why}")
    for lang, other, _ in blocks(page):  # the page's example files, beside it
        if lang == "python" and _file_name(other):
            (tmp_path / _file_name(other)).write_text(other)
    runner = textwrap.dedent("""
        import sys
        namespace = {"__name__": "__example__"}
        exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
        for name, value in list(namespace.items()):
            if name.startswith("test_") and callable(value):
                value()
    """)
    (tmp_path / "example.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", runner, "example.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("line", list(_commands()))
def test_commands_parse_and_name_ledger_claims(line):
    from verify import cli, registry

    words = shlex.split(line, comments=True)
    if ">" in words:  # a shell redirection is not the command's
        words = words[: words.index(">")]
    args = cli.build_parser().parse_args(words[1:])
    ids = list(getattr(args, "ids", None) or []) + ([args.id] if getattr(args, "id", None) else [])
    if ids and not getattr(args, "load", None):
        missing = [i for i in ids if i not in registry.load_all()]
        assert not missing, f"{line}: not in the ledger: {missing}"
