"""Mutation analysis machinery: theory substitution, caches cleared, killed/refuted bookkeeping, the CLI."""

from __future__ import annotations

import json
import math

import pytest
import sympy as sp

import theory.pagan
from theory import numeric
from verify import cli, mutants, registry
from verify.registry import Outcome

TOY = "fixture.mutant_toy"


def _multiplier_at(epsilon: float, delta: float) -> float:
    f = numeric(theory.pagan.noise_multiplier())
    return float(f(epsilon=epsilon, delta=delta))


@pytest.fixture
def toy_claim():
    """Checks the closed form of PAGAN's noise multiplier against the value computed by hand."""

    @registry.claim(TOY, kind="exact", statement="z = √(log(1/δ))/ε (a test fixture).",
                    theory=("theory.pagan.noise_multiplier",))
    def check(budget, seed):
        got, want = _multiplier_at(2.0, 1e-5), math.sqrt(math.log(1e5)) / 2.0
        return Outcome(verdict="holds" if abs(got - want) <= 1e-12 * want else "violated", evidence=f"z = {got}")

    yield registry.REGISTRY[TOY]
    registry.REGISTRY.pop(TOY, None)


def test_substitution_is_seen_through_the_module_and_undone():
    original = theory.pagan.noise_multiplier
    with mutants.substituted("theory.pagan.noise_multiplier", lambda: sp.Integer(7)):
        assert theory.pagan.noise_multiplier() == 7
    assert theory.pagan.noise_multiplier is original


def test_generic_theory_mutants_are_caught_by_a_check_that_uses_its_theory(toy_claim):
    ms = mutants.theory_mutants(toy_claim)
    assert {m.name for m in ms} == {"noise_multiplier:x10", "noise_multiplier:x0.1", "noise_multiplier:pow1.25",
                                    "noise_multiplier:pow0.75"}
    results = mutants.run([toy_claim], "quick", 0)
    assert len(results) == 4  # no kernel runs: no kernel mutant
    assert all(r.original == "holds" and r.verdict == "violated" and r.killed and r.refuted for r in results)
    s = mutants.summarize(results)
    assert s.killed == s.mutants == 4 and s.claims_all_survived == []


def test_numeric_theory_functions_get_constant_mutants_and_rate_claims_no_constant_ones():
    """A theory function that evaluates a formula on data (it takes arguments and returns a number) gets the
    constant mutants from a value it returned while the claim ran; an O(·) claim gets only exponent mutants."""
    from verify.registry import Claim

    numeric_claim = Claim("fixture.n", "fixture", "s", "exact", ("theory.adp.m_ratio",), lambda b, s: None)
    ms = mutants.theory_mutants(numeric_claim, {"theory.adp.m_ratio": 1.5})
    assert [m.name for m in ms] == ["m_ratio:x10", "m_ratio:x0.1"]
    rate_claim = Claim("fixture.r", "fixture", "s", "rate", ("theory.pagan.noise_multiplier",), lambda b, s: None)
    assert [m.name for m in mutants.theory_mutants(rate_claim)] == ["noise_multiplier:pow1.25",
                                                                    "noise_multiplier:pow0.75"]


def test_a_check_that_ignores_its_declared_theory_lets_every_mutant_survive():
    cid = "fixture.mutant_blind"

    @registry.claim(cid, kind="exact", statement="A check that never evaluates its theory (a test fixture).",
                    theory=("theory.pagan.noise_multiplier",))
    def check(budget, seed):
        return Outcome(verdict="holds", evidence="nothing evaluated")

    try:
        results = mutants.run([registry.REGISTRY[cid]], "quick", 0)
        assert [r.mutant for r in results] == ["noise_multiplier:unused"] and not results[0].killed
        assert mutants.summarize(results).claims_all_survived == [cid]
    finally:
        registry.REGISTRY.pop(cid, None)


def test_mutate_value_handles_relations_and_containers():
    x, y = sp.Symbol("x", positive=True), sp.Symbol("y")
    rel = mutants.mutate_value(sp.Le(y, 2 * y + 1), lambda e: 10 * e)
    assert rel == sp.Le(y, 20 * y + 10)
    assert mutants.mutate_value((x, x**2), mutants._power_exponents) == (x ** sp.Rational(5, 4), x ** sp.Rational(5, 2))
    assert mutants.mutate_value(3.0, lambda e: 10 * e) == 30.0  # a number takes the constant mutations
    with pytest.raises(mutants.NotMutable):
        mutants.mutate_value(3.0, mutants._power_exponents)  # but has no exponent to change
    with pytest.raises(mutants.NotMutable):
        mutants.mutate_value("text", lambda e: e)


def test_reset_caches_clears_theory_memos():
    numeric(theory.pagan.noise_multiplier())
    from theory.numeric import _cached

    assert _cached.cache_info().currsize > 0
    mutants.reset_caches()
    assert _cached.cache_info().currsize == 0


def test_cli_mutants_json(toy_claim, tmp_path, capsys):
    assert cli.main(["mutants", TOY, "--out", str(tmp_path / "m"), "--json", "--workers", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {m["mutant"] for m in doc["mutants"]} == {"noise_multiplier:x10", "noise_multiplier:x0.1",
                                                     "noise_multiplier:pow1.25", "noise_multiplier:pow0.75"}
    assert all(set(m) >= {"claim", "mutant", "description", "verdict", "killed"} for m in doc["mutants"])
    assert doc["summary"]["kill_rate"] == 1.0
    assert json.loads((tmp_path / "m" / "mutants.json").read_text())["summary"]["mutants"] == 4


def test_kernel_faults_apply_only_where_the_check_runs_a_kernel():
    """A check that builds a PAGAN-family configuration and checks its noise against the paper's formula: the
    noise faults are caught (refuted), the PAGAN-only geometry fault would change nothing for ℓ₂-clipped DP-SGD with
    C = 1 (A = A⁻¹ = I), so its hook is not visited and it is not a mutant there; a claim that runs no kernel gets no
    kernel mutant."""
    import kernels

    cid = "fixture.mutant_kernel"

    @registry.claim(cid, kind="privacy", statement="DP-SGD's noise std is z·C/b (a test fixture).")
    def check(budget, seed):
        ds = kernels.make_problem("abs_regression", seed=0, n=50, d=4)
        cfg = kernels.make_config("dp_sgd", ds, epsilon=2.0, delta=1e-5, steps=3, batch_size=5, alpha=0.1)
        want = math.sqrt(math.log(1e5)) / 2.0 / 5
        return Outcome(verdict="holds" if abs(float(cfg.noise_std[0]) - want) <= 1e-12 * want else "violated",
                       evidence="noise")

    try:
        results = {r.mutant: r for r in mutants.run([registry.REGISTRY[cid]], "quick", 0)}
        assert results["noise*0.7"].refuted and "noise*3" not in results  # more noise is no privacy fault
        assert "noise-cov-A" not in results and "stepsize*10" not in results
        assert "no-bias-correction" not in results  # DP-Adam's hook is never visited
    finally:
        registry.REGISTRY.pop(cid, None)


def test_faults_are_bit_identical_outside_a_mutation_run():
    import numpy as np

    import kernels
    from kernels import faults

    ds = kernels.make_problem("abs_regression", seed=0, n=60, d=5)
    a = kernels.run_algorithm("pagan", ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1, seed=3)
    with faults.inject(noise_scale=1.0, stepsize_scale=1.0):
        b = kernels.run_algorithm("pagan", ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1, seed=3)
    np.testing.assert_array_equal(a.x_final, b.x_final)
    with faults.inject(noise_scale=0.5):
        c = kernels.run_algorithm("pagan", ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1, seed=3)
    assert not np.array_equal(a.x_final, c.x_final)
    with pytest.raises(ValueError, match="unknown fault"):
        with faults.inject(noise_sclae=0.5):
            pass


def test_report_shows_caught_k_of_m_and_mutant_runs_merge(toy_claim, tmp_path, capsys):
    out = tmp_path / "o"
    assert cli.main(["mutants", TOY, "--out", str(out), "--workers", "1"]) == 0
    # a later run of other claims into the same file keeps this claim's rows (each row says its budget)
    doc = mutants.read_document(out / mutants.MUTANTS_JSON)
    other = [dict(doc["mutants"][0], claim="fixture.other", mutant="m:x10", killed=False, refuted=False)]
    previous = {"meta": {"budget": "quick", "seed": 0}, "mutants": doc["mutants"] + other}
    rows = mutants.merged_rows([], "full", 3, previous)
    assert [r["claim"] for r in rows] == [TOY] * 4 + ["fixture.other"] and rows[0]["budget"] == "quick"
    t = mutants.tallies(rows)
    assert (t[TOY].caught, t[TOY].total, t["fixture.other"].survivors) == (4, 4, ("m:x10",))
    capsys.readouterr()
    assert cli.main(["verify", TOY, "--out", str(out), "--workers", "1"]) == 0
    table = capsys.readouterr().out
    head = next(line for line in table.splitlines() if line.startswith("id "))
    assert head.split()[:4] == ["id", "verdict", "control", "mutants"]
    assert f"{TOY}" in table and " 4/4 " in table
    md = (out / "report.md").read_text()
    assert "| caught 4 of 4 |" in md and "**Mutants.** caught 4 of 4 mutants (4 refuted outright), quick budget." in md
    html_text = (out / "report.html").read_text()
    assert '<td class="muts">caught 4 of 4</td>' in html_text


def test_verify_mutants_option_must_name_a_mutants_file(toy_claim, tmp_path, capsys):
    bad = tmp_path / "nope.json"
    assert cli.main(["verify", TOY, "--out", str(tmp_path / "o"), "--mutants", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "--mutants" in err and "nope.json" in err
    assert not (tmp_path / "o").exists()


def test_a_constant_mutant_that_only_weakens_a_one_sided_statement_is_equivalent_not_a_survivor():
    cid = "fixture.one_sided_toy"

    @registry.claim(cid, kind="exact", statement="z ≥ √(log(1/δ))/ε − 1e-9 (a one-sided test fixture).",
                    theory=("theory.pagan.noise_multiplier",),
                    weaker_if={"theory.pagan.noise_multiplier": "larger"})
    def check(budget, seed):
        got, want = _multiplier_at(2.0, 1e-5), math.sqrt(math.log(1e5)) / 2.0
        return Outcome(verdict="holds" if got >= want * (1 - 1e-12) else "violated", evidence=f"z = {got}")

    try:
        rs = mutants.run([registry.REGISTRY[cid]], "quick", 0)
    finally:
        registry.REGISTRY.pop(cid, None)
    by = {r.mutant: r for r in rs}
    assert by["noise_multiplier:x10"].verdict == "holds" and "only weakens" in by["noise_multiplier:x10"].equivalent
    assert by["noise_multiplier:x0.1"].killed and not by["noise_multiplier:x0.1"].equivalent
    s = mutants.summarize(rs)
    assert s.equivalent == 1 and s.mutants == len(rs) - 1
    assert "noise_multiplier:x10" not in mutants.tallies([r.to_dict() for r in rs])[cid].survivors
    assert "(noise_multiplier:x10)" in mutants.format_table(rs)


def test_weaker_if_must_name_a_declared_theory_path_and_a_direction():
    with pytest.raises(ValueError, match="weaker_if"):
        registry.claim("fixture.bad_weaker", kind="exact", statement="s", theory=("theory.pagan.noise_multiplier",),
                       weaker_if={"theory.pagan.noise_multiplier": "up"})
    with pytest.raises(ValueError, match="weaker_if"):
        registry.claim("fixture.bad_weaker", kind="exact", statement="s", theory=(),
                       weaker_if={"theory.pagan.noise_multiplier": "larger"})


def test_a_holds_with_no_mutant_caught_is_flagged_in_table_and_report():
    """'holds' whose declared mutants all survived says so (terminal '!', report cell and sentence); a 'holds' that
    caught one, or a 'violated' that caught none, is not flagged."""
    from verify import report
    from verify.registry import Result

    def res(cid, verdict):
        return Result(cid, verdict, {}, "e", None, 0, "quick", 1.0, [])

    rs = [res("x.weak", "holds"), res("x.strong", "holds"), res("x.bad", "violated")]
    t = {"x.weak": mutants.Tally(caught=0, total=3, refuted=0, budget="quick", survivors=("a", "b", "c")),
         "x.strong": mutants.Tally(caught=1, total=3, refuted=1, budget="quick"),
         "x.bad": mutants.Tally(caught=0, total=2, refuted=0, budget="quick")}
    table = report.format_table(rs, width=200, mutants=t)
    rows = {line.split()[0]: line for line in table.splitlines() if line.startswith("x.")}
    assert " 0/3! " in rows["x.weak"] and " 1/3 " in rows["x.strong"] and " 0/2 " in rows["x.bad"]
    assert report.POWERLESS_NOTE in table
    md = report.render_markdown(rs, {}, {}, t)
    assert md.count("no power shown") == 1 and md.count("has not shown that it can fail") == 1


def test_a_mutant_declared_equivalent_with_a_reason_is_reported_apart_and_a_blank_reason_is_refused():
    cid = "fixture.ratio_toy"

    @registry.claim(cid, kind="exact", statement="z(2, 1e-5)/z(4, 1e-5) = 2 (a scale-free test fixture).",
                    theory=("theory.pagan.noise_multiplier",))
    def check(budget, seed):
        ratio = _multiplier_at(2.0, 1e-5) / _multiplier_at(4.0, 1e-5)
        return Outcome(verdict="holds" if abs(ratio - 2.0) <= 1e-12 else "violated", evidence=f"ratio = {ratio}")

    mutants.declare_equivalent(cid, "noise_multiplier:x10", "a common factor cancels in the ratio")
    try:
        rs = mutants.run([registry.REGISTRY[cid]], "quick", 0)
    finally:
        registry.REGISTRY.pop(cid, None)
        mutants.EQUIVALENT.pop((cid, "noise_multiplier:x10"), None)
    by = {r.mutant: r for r in rs}
    assert by["noise_multiplier:x10"].equivalent == "a common factor cancels in the ratio"
    assert not by["noise_multiplier:x0.1"].equivalent and not by["noise_multiplier:x0.1"].killed  # a real survivor
    assert by["noise_multiplier:pow1.25"].killed  # the exponent does not cancel
    s = mutants.summarize(rs)
    assert s.equivalent == 1 and s.mutants == len(rs) - 1
    with pytest.raises(ValueError, match="reason"):
        mutants.declare_equivalent(cid, "noise_multiplier:x10", "  ")


def test_public_stepsize_fault_makes_adaptive_b_ignore_the_gradient_and_only_adaptive_runs_visit_it():
    import numpy as np

    from kernels import faults
    from kernels.adp import run_adp, smooth_nonconvex

    prob = smooth_nonconvex(n=50, d=5, seed=0)
    kw = dict(steps=30, eta=1.0, alpha_rule="dp", sigma=0.5, trials=2, seed=3, n_log=2)
    faults.clear_visited()
    clean = run_adp(prob, b_rule="adaptive", **kw)["theta"]
    assert "public_stepsize" in faults.visited()
    with faults.inject(public_stepsize=True):
        public = run_adp(prob, b_rule="adaptive", **kw)["theta"]
        assert "public_stepsize" in faults.applied_names()
    assert not np.allclose(clean, public)  # b grew by ν only: larger steps
    faults.clear_visited()
    with faults.inject(public_stepsize=True):
        poly = run_adp(prob, b_rule="poly", **kw)["theta"]
    assert "public_stepsize" not in faults.visited()
    assert np.array_equal(poly, run_adp(prob, b_rule="poly", **kw)["theta"])


def test_preconditioner_inverse_fault_inverts_adadps_side_information_and_nothing_else():
    import numpy as np

    from kernels import faults
    from kernels.adadps import side_information
    from kernels.adadps_problems import sparse_linear_regression

    prob = sparse_linear_regression()
    faults.clear_visited()
    clean = side_information(prob, "paper")
    assert "preconditioner_inverse" in faults.visited()
    assert np.array_equal(clean, prob.side_info["paper"])  # no fault: the vector itself, every bit
    with faults.inject(preconditioner_inverse=True):
        inv = side_information(prob, "paper")
        own = side_information(prob, np.array(prob.side_info["paper"]))
        assert "preconditioner_inverse" in faults.applied_names()
    np.testing.assert_allclose(inv * clean, np.exp(2 * np.mean(np.log(clean))), rtol=1e-12)  # G²/A
    np.testing.assert_allclose(np.exp(np.mean(np.log(inv))), np.exp(np.mean(np.log(clean))), rtol=1e-12)
    assert np.array_equal(own, inv)
    assert np.argmax(inv) == np.argmin(clean)  # the weights are inverted


def test_privacy_faults_are_equivalent_on_the_side_they_cannot_move():
    from verify.registry import Claim

    c = Claim("fixture.priv", "pagan", "s", "privacy", (), lambda b, s: None)
    weaken = next(m for m in mutants.KERNEL_MUTANTS if m.name == "noise*0.7")
    fix = next(m for m in mutants.KERNEL_MUTANTS if m.name == "stepsize-public")
    assert mutants.equivalence(c, weaken, "violated") and not mutants.equivalence(c, weaken, "holds")
    assert mutants.equivalence(c, fix, "holds") and not mutants.equivalence(c, fix, "violated")
    utility = Claim("fixture.util", "pagan", "s", "rate", (), lambda b, s: None)
    assert fix not in mutants.mutants_of(utility) and weaken not in mutants.mutants_of(utility)


def test_on_a_violated_claim_the_strengthening_constant_is_equivalent_and_the_weakening_one_must_be_caught():
    cid = "fixture.one_sided_false_toy"

    @registry.claim(cid, kind="exact", statement="z ≥ 2·√(log(1/δ))/ε (a false one-sided fixture).",
                    theory=("theory.pagan.noise_multiplier",),
                    weaker_if={"theory.pagan.noise_multiplier": "larger"})
    def check(budget, seed):
        got, want = _multiplier_at(2.0, 1e-5), math.sqrt(math.log(1e5)) / 2.0
        return Outcome(verdict="holds" if got >= 2 * want else "violated", evidence=f"z = {got}")

    try:
        rs = mutants.run([registry.REGISTRY[cid]], "quick", 0)
    finally:
        registry.REGISTRY.pop(cid, None)
    by = {r.mutant: r for r in rs}
    assert all(r.original == "violated" for r in rs)
    # ×10 weakens: the statement becomes true and the check says so (caught, refuted)
    assert by["noise_multiplier:x10"].killed and by["noise_multiplier:x10"].refuted
    assert not by["noise_multiplier:x10"].equivalent
    # ×0.1 strengthens a false statement: still false, equivalent
    assert by["noise_multiplier:x0.1"].verdict == "violated"
    assert "strengthens a violated statement" in by["noise_multiplier:x0.1"].equivalent


def test_mutants_in_worker_processes_match_one_process(toy_claim):
    from verify import engine

    if not engine.can_fork():
        pytest.skip("worker processes are forked (Linux)")
    one = mutants.run([toy_claim, registry.REGISTRY["adp.remark4.1"]], "quick", 0)
    many = mutants.run_in_processes([toy_claim, registry.REGISTRY["adp.remark4.1"]], "quick", 0, 2)
    key = [(r.claim, r.mutant, r.original, r.verdict, r.equivalent) for r in one]
    assert key == [(r.claim, r.mutant, r.original, r.verdict, r.equivalent) for r in many]
    assert {r.claim for r in many} == {TOY, "adp.remark4.1"} and len(many) > 4


def test_noise_geometry_hook_is_visited_only_where_a_and_its_inverse_differ():
    """PASAN with an anisotropic ellipsoid visits the geometry hook (and the fault changes its noise); DP-SGD with
    A = I does not (the fault would change no draw)."""
    import numpy as np

    import kernels
    from kernels import faults

    ds = kernels.make_problem("abs_regression", seed=0, n=50, d=2)
    for name, ell, visits in (("pasan", np.array([1 / 9, 1.0]), True), ("dp_sgd", None, False)):
        faults.clear_visited()
        cfg = kernels.make_config(name, ds, epsilon=2.0, delta=1e-5, steps=3, batch_size=5, alpha=0.1,
                                  ellipsoid=ell)
        assert ("noise_geometry_inverse" in faults.visited()) is visits, name
        with faults.inject(noise_geometry_inverse=True):
            mutated = kernels.make_config(name, ds, epsilon=2.0, delta=1e-5, steps=3, batch_size=5, alpha=0.1,
                                          ellipsoid=ell)
        assert (not np.array_equal(mutated.noise_std, cfg.noise_std)) is visits, name


def test_zero_noise_and_an_infinite_clip_do_not_visit_their_fault_hooks():
    """A fault that would change nothing is not a mutant of the run: zero noise is not scaled, C = ∞ not skipped."""
    import numpy as np

    from kernels import dp_adam as kd
    from kernels import faults

    faults.clear_visited()
    assert faults.noise_factor(0.0, np.zeros(3)) == 1.0 and faults.clipping_skipped(math.inf) is False
    assert not {"noise_scale", "skip_clipping"} & faults.visited()
    with faults.inject(noise_scale=3.0, skip_clipping=True):
        assert faults.noise_factor(0.0, np.array([0.0, 0.5])) == 3.0 and faults.clipping_skipped(1.0) is True
    assert {"noise_scale", "skip_clipping"} <= faults.visited()
    faults.clear_visited()
    kd.RoundConfig(variant="noiseless", sigma=0.0, batch_size=4).validated()  # σ = 0: nothing to scale
    assert "noise_scale" not in faults.visited()
    kd.RoundConfig(variant="post_processing", sigma=1.0, batch_size=4).validated()
    assert "noise_scale" in faults.visited()


REJECTING = "fixture.mutant_rejecting"


@pytest.fixture
def rejecting_claim():
    """A claim whose mechanism probe refuses the runs under a kernel fault (here: whenever a flag is set)."""
    from verify.decide import MechanismMismatch, after_probe

    state = {"why": "", "raise": False}

    @registry.claim(REJECTING, kind="experiment", statement="a probe-guarded fixture", theory=())
    def check(budget, seed):
        if state["raise"]:
            raise MechanismMismatch(f"{REJECTING}: the kernel does not run the stated mechanism (noise sd 3 ≠ 1)")
        verdict, evidence = after_probe(state["why"], REJECTING, "holds", "the runs agree")
        return Outcome(verdict=verdict, evidence=evidence)

    yield registry.REGISTRY[REJECTING], state
    registry.REGISTRY.pop(REJECTING, None)


def test_a_probe_refusal_is_caught_as_rejected_not_as_a_crash_or_a_refutation(rejecting_claim):
    claim, state = rejecting_claim
    base = str(claim.check("quick", 0).verdict)
    state["why"] = "noise sd 3 ≠ 1"  # a withdrawn holds
    withdrawn = mutants._verdict_of(claim, "quick", 0)
    state["why"], state["raise"] = "", True  # a MechanismMismatch
    raised = mutants._verdict_of(claim, "quick", 0)
    state["raise"] = False
    assert base == "holds" and withdrawn[0] == "inconclusive" and withdrawn[3] and not withdrawn[2]
    assert raised[0] == "error" and "MechanismMismatch" in raised[2] and "noise sd 3" in raised[3]

    def row(mutant, kind, verdict, error="", rejected="", original="holds"):
        return mutants.MutantResult(REJECTING, mutant, "", kind, original, verdict, 0.0, error, "", rejected)

    rs = [row("bound:x10", "theory", "violated"), row("bound:pow1.25", "theory", "holds"),
          row("noise*3", "kernel", "inconclusive", rejected=withdrawn[3]),
          row("clip:skip", "kernel", "error", error=raised[2], rejected=raised[3]),
          row("step*10", "kernel", "error", error="ZeroDivisionError: x")]
    s = mutants.summarize(rs).to_dict()
    assert (s["mutants"], s["killed"], s["refuted"], s["rejected"], s["errors"]) == (5, 4, 1, 2, 1)
    assert (s["theory_mutants"], s["theory_refuted"], s["theory_refute_rate"]) == (2, 1, 0.5)
    assert s["kill_rate"] == 0.8 and s["refute_rate"] == 0.2
    assert mutants.rows_document([r.to_dict() for r in rs], {})["summary"] == s  # the file's summary is the same
    table = mutants.format_table(rs)
    assert "2 of them rejected as not the stated mechanism, 1 only by a crash" in table
    assert "theory mutants refuted 1 of 2 (50%)" in table
    tally = mutants.tallies([r.to_dict() for r in rs])[REJECTING]
    assert (tally.caught, tally.refuted, tally.rejected) == (4, 1, 2)
    assert "2 rejected as not the stated mechanism" in tally.sentence()
    # a row written before rejections were told apart (no 'rejected' key) is read from its error: the raised
    # MechanismMismatch is a rejection, the withdrawn holds cannot be told from a plain inconclusive
    old = [{k: v for k, v in r.to_dict().items() if k != "rejected"} for r in rs]
    assert (mutants.summarize(old).rejected, mutants.summarize(old).errors) == (1, 1)
