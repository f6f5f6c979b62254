"""Theorems 4 and 5 (:mod:`verify.papers.adadps.nonconvex`): the quick verdicts with the proofs' constants, the
mutants each check catches (a bound too small, exponents a quarter off, three times the noise, a tenfold step), the
rescaled and tight cases, and why skipping clipping is an equivalent mutant of Theorem 5."""

import logging

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from kernels import adadps as ka
from kernels import faults
from tests.papers.adadps.support import claim_record, has_figure, mutant_verdicts
from tests.verify.evidence_support import lost_numbers
from theory import adadps as ta
from theory import numeric
from verify.mutants import EQUIVALENT, mutate_value
from verify.papers.adadps import _common as common
from verify.papers.adadps import nonconvex

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_theorem4_holds_with_the_proofs_constants_and_is_tight_in_the_full_batch_case():
    out = claim_record("adadps.theorem4").check("quick", 0)
    assert out.verdict == "holds"
    assert 0.3 < out.numbers["max_lhs_over_rhs"] < 1.0  # the O(1/T) term is tight: a ×0.1 bound is refuted
    # the path stays in D̄ (2, and 200 in the case with w* ×100)
    dist = {k: v for k, v in out.numbers.items() if k.startswith("dist_max[")}
    assert len(dist) == 5 and any("scaled100" in k for k in dist)  # every case reported, the scaled one included
    assert all(v <= (200.0 if "scaled100" in k else 2.0) for k, v in dist.items())
    assert 0.3 < out.numbers["lhs[scaled100_b1000_s0_T10]"] / out.numbers["rhs[scaled100_b1000_s0_T10]"] < 1.0


def test_theorem4_mutants_a_bound_ten_times_too_small_and_a_tenfold_step_are_caught():
    v = mutant_verdicts("adadps.theorem4", {"theorem4_explicit_bound:x0.1", "stepsize*10"})
    assert v["theorem4_explicit_bound:x0.1"] == "violated"
    assert v["stepsize*10"] != "holds"


def test_theorem4_scaled_case_catches_a_bound_with_exponents_a_quarter_too_small(monkeypatch):
    """x -> x^(3/4) in every variable makes the bound larger in every unscaled case (it survived there); the case
    with w* x100 scales a dimensionally consistent bound by 100^2 and this one by 100^1.5: violated there only."""
    import sympy as sp


    pow075 = mutate_value(ta.theorem4_explicit_bound(),
                          lambda e: e.subs({s: s ** sp.Rational(3, 4) for s in e.free_symbols if s.is_positive}))
    monkeypatch.setattr(ta, "theorem4_explicit_bound", lambda: pow075)
    out = nonconvex.theorem4("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["scale"] == nonconvex.T4_SCALE
    assert [d.verdict for d in out.decisions].count("violated") == 1


def test_theorem4_scaled_run_is_the_unscaled_run_scaled():
    kw = dict(batch_size=1000, sigma=0.0, steps=10, trials=2, seed=3)
    plain = nonconvex._t4_task(problem_kw=nonconvex.T4_PROBLEM, **kw)
    scaled = nonconvex._t4_task(problem_kw=dict(nonconvex.T4_PROBLEM, w_norm=nonconvex.T4_SCALE), **kw)
    assert np.allclose(scaled["grad_avg"], nonconvex.T4_SCALE**2 * plain["grad_avg"], rtol=1e-9)


@pytest.fixture(scope="module")
def t5_quick():
    return nonconvex.theorem5("quick", 0)


def test_theorem5_verdict_follows_its_intervals(t5_quick):
    out = t5_quick
    f = out.numbers
    keys = [k[4:-1] for k in f if k.startswith("lhs[")]
    n_adv = len(nonconvex.T5_DATA_ADVERSARIAL["cases"])
    assert keys and out.verdict == "holds" and has_figure(out)
    assert len(out.decisions) == 4 + n_adv + len(nonconvex.T5_TIGHT["cases"])
    assert all(f[f"lhs[{k}]"] < f[f"rhs[{k}]"] for k in keys)
    assert 0.1 < f["max_lhs_over_rhs"] < 1  # the full-batch cases: not near-vacuous


def test_theorem5_summary_and_one_point_per_case_keep_every_number_of_its_evidence(t5_quick):
    out = t5_quick
    assert len(out.points) == len(out.decisions) and "vs bound" not in out.summary  # no per-case listing
    assert [p["verdict"] for p in out.points] == [str(d.verdict) for d in out.decisions]
    assert max(p["measured/bound"] for p in out.points) == out.numbers["max_lhs_over_rhs"]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_theorem5_worst_case_family_is_decided_and_reported(t5_quick):
    """The aligned no-signal family (b = 1) is decided beside the zipf cases; its ratio is far above the zipf
    small-batch cases (it tests the variance term), and the evidence names the worst case."""
    out = t5_quick
    f = out.numbers
    adv = [d for d in out.decisions if "aligned no-signal" in d.control.test]
    assert len(adv) == len(nonconvex.T5_DATA_ADVERSARIAL["cases"]) and all(str(d.verdict) == "holds" for d in adv)
    small_batch = max(f[k] / f["rhs" + k[3:]] for k in f if k.startswith("lhs[b8"))
    assert f["max_lhs_over_rhs_adversarial"] > 10 * small_batch
    assert "worst: " in out.evidence


def test_aligned_no_signal_logistic_has_its_optimum_at_zero():
    prob = ka.aligned_no_signal_logistic(n=16, d=4)
    k = nonconvex.theorem5_constants(prob)
    assert k["F1_gap"] == pytest.approx(0.0, abs=1e-12) and k["L"] == pytest.approx(1 / 16)
    assert np.allclose(prob.features.sum(axis=1), 1.0) and np.all(prob.features.T @ prob.labels == 0)
    with pytest.raises(InvalidParameter, match="n"):
        ka.aligned_no_signal_logistic(n=12, d=4)


def test_theorem5_negative_control_catches_a_bound_10x_too_small(monkeypatch):
    real = ta.theorem5_explicit_bound
    monkeypatch.setattr(ta, "theorem5_explicit_bound", lambda: real() / 10)
    out = nonconvex.theorem5("quick", 0)
    assert out.verdict == "violated" and out.counterexample["lhs_lo"] > out.counterexample["rhs"]


def test_theorem5_no_clipping_is_equivalent_because_the_runs_never_clip():
    assert ("adadps.theorem5", "no-clipping") in EQUIVALENT
    kw = dict(problem_kw=common.RATE_PROBLEM, batch_size=16, sigma=1.0, steps=20, trials=2, seed=3)
    plain = nonconvex._t5_task(**kw)
    with faults.inject(skip_clipping=True):
        skipped = nonconvex._t5_task(**kw)
    assert np.array_equal(np.asarray(plain["grad_avg"]), np.asarray(skipped["grad_avg"]))
    assert plain["alpha"] == skipped["alpha"]


def test_theorem5_no_clipping_stays_equivalent_on_the_tight_family():
    # the tight family clips at C, but no record reaches it: skipping clipping changes nothing
    kw = dict(problem_kw=dict(tight_quadratic=dict(a=0.02, n=4)), batch_size=2, sigma=0.125, steps=50, trials=2,
              seed=5)
    plain = nonconvex._t5_task(**kw)
    assert float(np.sum(plain["clip_fraction"])) == 0.0
    with faults.inject(skip_clipping=True):
        skipped = nonconvex._t5_task(**kw)
    assert np.array_equal(np.asarray(plain["grad_avg"]), np.asarray(skipped["grad_avg"]))


def test_theorem5_tight_constants_are_exact():
    prob = nonconvex.tight_quadratic(0.02)
    k = nonconvex.tight_quadratic_constants(prob, nonconvex.T5_TIGHT["K"])
    assert (k["L"], k["eps_a"], k["F1_gap"], k["d"]) == (1.0, 0.02, 0.0, 1)
    assert np.isclose(k["S_tau_A"], 50.0) and np.isclose(k["C"], 400.0)


def test_theorem5_tight_case_catches_a_bound_with_exponents_a_quarter_too_large(monkeypatch):
    import sympy as sp


    orig = ta.theorem5_explicit_bound
    pow125 = mutate_value(orig(), lambda e: e.subs({s: s ** sp.Rational(5, 4) for s in e.free_symbols}))
    monkeypatch.setattr(ta, "theorem5_explicit_bound", lambda: pow125)
    out = nonconvex.theorem5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["data"] == "tight quadratic a=50"


def test_theorem5_tight_case_catches_three_times_the_noise():
    # the left side with noise x3 exceeds the (unfaulted) bound: (1/3 + 9 s^2)/a vs (1/2 + s^2)/a
    kw = dict(problem_kw=dict(tight_quadratic=dict(a=50.0, n=4)), batch_size=2, sigma=0.125, steps=200, trials=4,
              seed=7)
    prob = nonconvex.tight_quadratic(50.0)
    k = nonconvex.tight_quadratic_constants(prob, nonconvex.T5_TIGHT["K"])
    rhs = float(numeric(ta.theorem5_explicit_bound())(F1_gap=k["F1_gap"], alpha=50.0, T=200, L=k["L"],
                                                          eps_a=k["eps_a"], S_tau_A=k["S_tau_A"], b=2, d=1,
                                                          sigma=0.125, C=k["C"]))
    plain = float(np.mean(nonconvex._t5_task(**kw)["grad_avg"]))
    with faults.inject(noise_scale=3.0):
        noisy = float(np.mean(nonconvex._t5_task(**kw)["grad_avg"]))
    assert plain < 0.85 * rhs
    assert noisy > 2.0 * rhs


def test_theorem4_summary_and_one_point_per_case_keep_every_number_of_its_evidence():
    """Theorem 4's evidence reads as one short sentence (the verdict, the cases that hold, the worst ratio) and one
    point per case plus the proof's constants; no number of the evidence is lost."""
    out = claim_record("adadps.theorem4").check("quick", 0)
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240 and ". " not in out.summary
    assert "vs bound" not in out.summary  # no per-case listing: those are the points
    cases = [p for p in out.points if "verdict" in p]
    assert len(cases) == 5 and max(p["measured/bound"] for p in cases) == out.numbers["max_lhs_over_rhs"]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    assert lost_numbers(out.evidence, out.summary, cases, out.decisions)  # the constants' row carries numbers too
