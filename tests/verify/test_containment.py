"""Containment: nothing planted in an output directory makes a command act outside it.

Each hostile thing a shared or unpacked results directory may hold -- a commit journal naming ``..`` or
absolute paths, a journal without the commit's token, a staging directory that is a link out, ``plots``
entries of a kept ``results.json`` that climb out or are links, a lock file or sweep cache that is a link --
is planted in a temporary root beside a marker file and a victim directory.  The command is run in-process
(``cli.main`` with a serial runner) and every file under the root outside ``--out`` is listed with its content
hash before and after: the listings must be equal.
"""

from __future__ import annotations

import base64
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from tests.verify.fuzz_support import outside_listing
from verify import cli, contained, engine, outputs, registry, report, runner
from verify.registry import Outcome, Result

KEPT, RERUN = "fixture.contain_kept", "fixture.contain_rerun"
SECRET = b"\x89PNG secret bytes outside the output directory"
TOKEN = "0123456789abcdef" * 2


@pytest.fixture
def planted(tmp_path):
    """A root with out/ (the output directory), a marker file, a victim directory and a secret file."""
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "marker.txt").write_text("marker\n")
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "data.txt").write_text("precious\n")
    (tmp_path / "secret.png").write_bytes(SECRET)
    return tmp_path, out


@pytest.fixture
def two_claims():
    def check(budget, seed):
        return Outcome(verdict="holds", evidence="fine", numbers={"x": 1.0}, counterexample=None)

    registry.claim(KEPT, kind="exact", statement="kept from an earlier run (a test fixture)")(check)
    registry.claim(RERUN, kind="exact", statement="rerun (a test fixture)")(check)
    yield
    registry.REGISTRY.pop(KEPT, None)
    registry.REGISTRY.pop(RERUN, None)


def _verify(out: Path, *ids: str) -> tuple[int, str, str]:
    err, std = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(std):
        rc = cli.main(["verify", *(ids or (RERUN,)), "--out", str(out)], runner=runner.SerialRunner())
    return rc, std.getvalue(), err.getvalue()


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("dpverify: warning:")]


# --------------------------------------------------------------------------------------
# the commit journal
# --------------------------------------------------------------------------------------
def _journals(root: Path) -> dict:
    victim = str(root / "victim")
    return {
        "staging climbs out": {"staging": "../victim", "previous": ".dpverify-previous-0123456789ab",
                               "names": ["results.json"], "new": [], "token": TOKEN},
        "previous is absolute": {"staging": ".dpverify-staging-0123456789ab", "previous": victim,
                                 "names": ["results.json"], "new": [], "token": TOKEN},
        "a name climbs out": {"staging": ".dpverify-staging-0123456789ab",
                              "previous": ".dpverify-previous-0123456789ab", "names": ["../marker.txt"],
                              "new": [], "token": TOKEN},
        "an absolute name": {"staging": ".dpverify-staging-0123456789ab",
                             "previous": ".dpverify-previous-0123456789ab", "names": [str(root / "marker.txt")],
                             "new": [], "token": TOKEN},
        "no token": {"staging": "../victim", "previous": victim, "names": ["../marker.txt"], "new": []},
        "another token": {"staging": ".dpverify-staging-0123456789ab", "previous": ".dpverify-previous-0123456789ab",
                          "names": ["results.json"], "new": [], "token": "f" * 32},
    }


@pytest.mark.parametrize("case", list(_journals(Path("/r"))))
def test_a_planted_journal_is_never_acted_on(case, planted, two_claims):
    root, out = planted
    (out / outputs.TOKEN_NAME).write_text(TOKEN + "\n")
    (out / outputs.JOURNAL_NAME).write_text(json.dumps(_journals(root)[case]))
    before = outside_listing(root, out)
    rc, _, err = _verify(out)
    assert rc == 0
    assert outside_listing(root, out) == before
    (line,) = _warnings(err)
    assert outputs.JOURNAL_NAME in line and "not acted on, removed" in line
    assert not (out / outputs.JOURNAL_NAME).exists() and not (out / outputs.TOKEN_NAME).exists()
    assert (out / "results.json").is_file()


def test_a_journal_through_a_link_or_a_linked_staging_directory_is_refused(planted):
    root, out = planted
    (out / outputs.TOKEN_NAME).write_text(TOKEN)
    outside_journal = root / "journal.json"
    outside_journal.write_text(json.dumps({"staging": ".dpverify-staging-0123456789ab",
                                           "previous": ".dpverify-previous-0123456789ab",
                                           "names": ["results.json"], "new": [], "token": TOKEN}))
    os.symlink(outside_journal, out / outputs.JOURNAL_NAME)
    os.symlink(root / "victim", out / ".dpverify-staging-0123456789ab")
    os.symlink(root / "victim", out / ".dpverify-previous-ba9876543210")
    before = outside_listing(root, out)
    outputs.recover(out)
    assert outside_listing(root, out) == before
    assert not os.path.lexists(out / outputs.JOURNAL_NAME)  # the link itself, ours to remove
    assert os.path.islink(out / ".dpverify-staging-0123456789ab")  # not the tool's: left, and reported


def test_the_tool_s_own_journal_still_rolls_forward(tmp_path):
    """The token and shapes the commit writes pass: a real commit's journal is completed."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("old")
    staged = outputs.ResultSet(out, ("results.json",))
    with staged:
        (staged.dir / "results.json").write_text("new")
        staged.commit()
    assert (out / "results.json").read_text() == "new"
    assert sorted(p.name for p in out.iterdir()) == ["results.json"]


def test_a_lock_file_that_is_a_link_is_refused_and_never_opened(planted, two_claims, capsys):
    root, out = planted
    os.symlink(root / "marker.txt", out / outputs.LOCK_NAME)
    before = outside_listing(root, out)
    rc, _, err = _verify(out)
    assert rc == 2 and outside_listing(root, out) == before
    (line,) = err.strip().splitlines()
    assert line.startswith("dpverify: error: --out:") and "symbolic link" in line


# --------------------------------------------------------------------------------------
# plots of a kept results.json
# --------------------------------------------------------------------------------------
def _kept_row(plots) -> dict:
    return Result(KEPT, "holds", {}, "kept", None, 0, "quick", 1.0, list(plots)).to_dict()


def test_kept_plots_never_copy_or_embed_anything_outside(planted, two_claims):
    root, out = planted
    (out / "figures").mkdir()
    (out / "figures" / "fixture_contain_kept__ok.png").write_bytes(b"\x89PNG good")
    os.symlink(root / "secret.png", out / "figures" / "leak.png")
    (out / "figures" / "sub").mkdir()
    plots = ["../marker.txt", "../../marker.txt", str(root / "marker.txt"), str(out / "figures" / "x.png"),
             "figures/leak.png", "figures/../../secret.png", "figures/sub", "report.md",
             "figures/fixture_contain_kept__ok.png"]
    (out / "results.json").write_text(json.dumps({"meta": {"started": "t"}, "results": [_kept_row(plots)]}))
    (out / "report.md").write_text("old")
    before = outside_listing(root, out)
    rc, _, err = _verify(out)
    assert rc == 0
    assert outside_listing(root, out) == before
    assert len(_warnings(err)) == len(plots) - 1  # every entry but the good one, one line each
    doc = json.loads((out / "results.json").read_text())
    (kept,) = [r for r in doc["results"] if r["id"] == KEPT]
    assert kept["plots"] == ["figures/fixture_contain_kept__ok.png"]
    html = (out / "report.html").read_text()
    assert base64.b64encode(SECRET).decode() not in html
    assert base64.b64encode(b"\x89PNG good").decode() in html
    # a second subset run keeps it again (no SameFileError, nothing outside touched)
    rc, _, _ = _verify(out)
    assert rc == 0 and outside_listing(root, out) == before


def test_an_html_report_never_embeds_a_linked_figure(tmp_path):
    (tmp_path / "figures").mkdir()
    secret = tmp_path / "secret.png"
    secret.write_bytes(SECRET)
    os.symlink(secret, tmp_path / "figures" / "a.png")
    r = Result(KEPT, "holds", {}, "e", None, 0, "quick", 1.0, ["figures/a.png"])
    text = report.render_html([r], {}, {"budget": "quick", "seed": 0}, tmp_path)
    assert base64.b64encode(SECRET).decode() not in text and "is missing" in text


# --------------------------------------------------------------------------------------
# the sweep cache
# --------------------------------------------------------------------------------------
def _twice(x: float) -> dict:
    return {"y": np.array(2 * x)}


def _sweep_in(cache: Path, claim: str = KEPT) -> tuple[list[dict], runner.CachedSerialRunner]:
    r = runner.CachedSerialRunner(cache)
    with runner.using(r), runner.claim_scope(claim):
        return runner.sweep(_twice, [dict(x=float(i)) for i in range(3)]), r


def test_a_cache_directory_that_is_a_link_is_not_used(planted, capsys):
    root, out = planted
    os.symlink(root / "victim", out / engine.CACHE_DIR)
    before = outside_listing(root, out)
    assert engine._cache_dir(out) is None
    (line,) = _warnings(capsys.readouterr().err)
    assert "symbolic link" in line
    cache = out / "real_cache"
    cache.mkdir()
    os.symlink(root / "victim", cache / KEPT)
    outs, _ = _sweep_in(cache)
    assert [float(o["y"]) for o in outs] == [0.0, 2.0, 4.0]
    assert outside_listing(root, out) == before
    (line,) = _warnings(capsys.readouterr().err)
    assert "not used" in line


def test_cache_entries_and_locks_that_are_links_are_never_followed(planted, capsys):
    """Entries moved out of DIR (intact, valid for their tasks) and linked back: never read, the tasks recomputed."""
    root, out = planted
    cache = out / engine.CACHE_DIR
    _sweep_in(cache)
    entries = sorted((cache / KEPT).glob("*.npz"))
    assert len(entries) == 3
    for e in entries:
        os.replace(e, root / "victim" / e.name)
        os.symlink(root / "victim" / e.name, e)
    lock = cache / KEPT / f".{entries[0].name}.lock"
    lock.unlink(missing_ok=True)
    os.symlink(root / "marker.txt", lock)
    before = outside_listing(root, out)
    outs, r = _sweep_in(cache)
    assert [float(o["y"]) for o in outs] == [0.0, 2.0, 4.0]
    assert (r.reused, r.computed) == (0, 3)  # nothing read through the links
    assert outside_listing(root, out) == before
    assert all(os.path.islink(e) for e in entries)  # left as they are
    warned = _warnings(capsys.readouterr().err)
    assert len(warned) == 4 and all(str(cache) in ln for ln in warned)


# --------------------------------------------------------------------------------------
# the rule itself
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, why", [
    ("../x", "does not stay inside"), ("/etc/passwd", "does not stay inside"), ("figures/../../x.png", "inside"),
    ("figures//a.png", "inside"), ("figures\\a.png", "relative path"), ("a\0b", "relative path"),
    ("figures/.hidden.png", "shape"), ("figures/a.svg", "shape"), (3, "not a name"), (None, "not a name"),
])
def test_refusal_names_the_reason(tmp_path, name, why):
    assert why in contained.refusal(tmp_path, name, shape=contained.FIGURE_NAME, kind="file")


def test_refusal_passes_the_tool_s_names_and_refuses_links_on_the_way(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.png").write_bytes(b"x")
    assert contained.refusal(tmp_path, "figures/a.png", shape=contained.FIGURE_NAME, kind="file") is None
    assert contained.refusal(tmp_path, "figures/absent.png", shape=contained.FIGURE_NAME, kind="file") is None
    assert "not a directory" in contained.refusal(tmp_path, "figures/a.png", kind="dir")
    os.symlink(tmp_path / "figures", tmp_path / "linked")
    assert "passes through a symbolic link" in contained.refusal(tmp_path, "linked/a.png", kind="file")


def test_escape_controls_keeps_only_what_is_asked():
    text = "a\x1b[31mred\r\x07\x9b\u202eb\nc\td"
    assert contained.escape_controls(text) == "a\\x1b[31mred\\r\\x07\\x9b\\u202eb\\nc\\td"
    assert contained.escape_controls(text, keep="\n") == "a\\x1b[31mred\\r\\x07\\x9b\\u202eb\nc\\td"
