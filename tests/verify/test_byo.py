"""Bring your own claims: the documented example file through --load, pytest's assert_verdict, an installed
package's entry point, and the pytest plugin's --dpverify-budget."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify import cli, registry, runner
from verify.testing import assert_verdict

DOC = Path(__file__).resolve().parents[2] / "docs" / "write-your-own-claim.md"
IDS = ("mylab.gauss_abs_at_most_sigma", "mylab.gauss_abs_at_most_half_sigma")


def _example_source() -> str:
    """The claims file exactly as the page shows it (its first python block)."""
    return re.search(r"```python\n(# mylab_claims\.py\n.*?)```", DOC.read_text(), re.S).group(1)


@pytest.fixture
def claims_file(tmp_path):
    f = tmp_path / "mylab_claims.py"
    f.write_text(_example_source())
    yield f
    for cid in IDS:
        registry.REGISTRY.pop(cid, None)


def test_documented_claims_file_through_load(claims_file, tmp_path, capsys):
    assert cli.main(["claims", "--load", str(claims_file), "--paper", "mylab", "--json"]) == 0
    assert [c["id"] for c in json.loads(capsys.readouterr().out)["claims"]] == sorted(IDS)
    out = tmp_path / "res"
    rc = cli.main(["verify", "--load", str(claims_file), "--paper", "mylab", "--out", str(out), "--json"],
                  runner=runner.SerialRunner())
    assert rc == 0
    verdicts = {r["id"]: r["verdict"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert verdicts == {IDS[0]: "holds", IDS[1]: "violated"}


def test_assert_verdict_passes_and_fails_with_the_evidence(claims_file):
    registry.load(str(claims_file))
    assert_verdict(IDS[0], "holds")
    assert_verdict(IDS[1], "violated")
    with pytest.raises(AssertionError, match=r"(?s)expected holds, got violated .*\nevidence: violated .*\n.*"
                                             r"counterexample: \{\"sigma\": 2.0"):
        assert_verdict(IDS[1], "holds")


def test_reserved_key_and_broken_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        from verify import claim, Outcome
        @claim("pagan.mine", kind="exact", statement="s")
        def c(budget, seed):
            return Outcome(verdict="holds", evidence="e")
    """))
    assert cli.main(["claims", "--load", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "reserved for the built-in ledger" in err and err.count("\n") == 1
    assert cli.main(["claims", "--load", str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert cli.main(["claims", "--load", "no_such_module_xyz"]) == 2
    assert "importable module" in capsys.readouterr().err


def test_installed_package_entry_point_and_pytest_plugin(tmp_path):
    """A package installed on the path (its dist-info declares the entry point) registers its claims in every
    run; a test file using assert_verdict runs under pytest with --dpverify-budget full."""
    site = tmp_path / "site"
    (site / "mylab_pack").mkdir(parents=True)
    (site / "mylab_pack" / "__init__.py").write_text(_example_source())
    info = site / "mylab_pack-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mylab-pack\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[dpverify.claims]\nmylab = mylab_pack\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(Path(__file__).resolve().parents[2])]))
    out = subprocess.run([sys.executable, "-m", "verify", "claims", "--paper", "mylab", "--json"],
                         capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [c["id"] for c in json.loads(out.stdout)["claims"]] == sorted(IDS)
    test_file = tmp_path / "test_mylab.py"
    test_file.write_text(textwrap.dedent(f"""
        from verify import testing
        from verify.testing import assert_verdict

        def test_budget_and_verdicts(dpverify_budget):
            assert dpverify_budget == "full" and testing.DEFAULT_BUDGET == "full"
            assert_verdict({IDS[0]!r}, "holds")
            assert_verdict({IDS[1]!r}, "violated")
    """))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--dpverify-budget",
                          "full", str(test_file)], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "1 passed" in out.stdout


def test_the_built_in_ledger_is_five_claim_packs_and_the_machinery_imports_none_of_them():
    """Layout: the papers live in verify/papers/ and register through the user's path; no import circle."""
    code = ("import sys, verify.registry, verify.audit, verify.decide, verify.runner\n"
            "bad = sorted(m for m in sys.modules if m.startswith('verify.papers'))\n"
            "assert not bad, bad\n"
            "from verify import registry\n"
            "from verify.papers import PACKS\n"
            "reg = registry.load_all()\n"
            "mods = {c.check.__module__ for c in reg.values()}\n"
            "outside = {m for m in mods if not any(m == p or m.startswith(p + '.') for p in PACKS)}\n"
            "assert not outside, outside\n"
            "assert {m.split('.')[2] for m in mods} == {p.split('.')[2] for p in PACKS}\n"
            "assert {c.paper for c in reg.values()} == set(registry.PAPERS)\n"
            "print(len(reg))\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=root)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 70


def test_budgets_record_picks_the_budget_and_keeps_named_fields():
    from typing import NamedTuple

    import pytest

    from verify import Budgets

    class Cfg(NamedTuple):
        steps: int
        runs: int

    b = Budgets(quick=Cfg(steps=200, runs=10), full=Cfg(steps=1000, runs=30))
    assert b.at("quick").steps == 200 and b.at("full").runs == 30
    steps, runs = b.at("full")  # a NamedTuple still unpacks
    assert (steps, runs) == (1000, 30)
    with pytest.raises(ValueError, match="budget"):
        b.at("medium")
    with pytest.raises(TypeError, match="one type"):
        Budgets(quick=Cfg(1, 2), full=(1, 2))


def test_assert_verdict_failure_shows_the_test_line_not_its_own_source(tmp_path):
    """A failing assert_verdict in a user's test: pytest's report has the test's call and the claim's evidence,
    and none of assert_verdict's own lines (its frame is hidden)."""
    (tmp_path / "test_mine.py").write_text(textwrap.dedent('''
        from verify import Outcome, claim
        from verify.testing import assert_verdict

        @claim("tblab.always_violated", kind="exact", statement="a false statement (a test fixture)")
        def check(budget, seed):
            return Outcome(verdict="violated", evidence="the slack is -1 at x = 0", counterexample={"x": 0})

        def test_mine():
            assert_verdict("tblab.always_violated", "holds")
    '''))
    path = os.pathsep.join([str(DOC.parents[1]), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mine.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": path})
    assert out.returncode == 1, out.stdout[-3000:]
    report = out.stdout
    assert 'assert_verdict("tblab.always_violated", "holds")' in report  # the test's own line
    assert "expected holds, got violated" in report and "the slack is -1 at x = 0" in report  # the evidence
    for own in ('raise AssertionError("\\n".join(lines))', "out = run_claim(claim_id, budget, seed)",
                "verify/testing.py"):
        assert own not in report, own
