"""Issue 25 (session 24): the exact mechanism check of pagan.theorem3.pagan and pagan.eq7.rate, and the stepsize part
of pagan.figure1's mechanism decision.  A run whose kernel is not the stated PAGAN (noise ×3, noise with covariance
A, no projection, stepsize ×10) is no evidence about the statement: the verdict is inconclusive, not violated.
Every test here is cheap: no claim's runs (synthetic task outputs where a claim function is exercised)."""

import math

import numpy as np
import pytest

import kernels.faults
from verify import decide
from verify.papers import pagan

FAULTS = {"noise*3": (dict(noise_scale=3.0), "noise multiplier 3 "),
          "noise-cov-A": (dict(noise_geometry_inverse=True), "noise multiplier"),
          "no-clipping": (dict(skip_clipping=True), "not projected"),
          "stepsize*10": (dict(stepsize_scale=10.0), "stepsize 10 ")}


def _thm3p_args():
    s = pagan.kernels.pagan_problems.power_law_sigma(pagan.THM3P_D, pagan.THM3P_DECAY)
    return ("pagan", pagan.THM3P_D, pagan.THM3P_DECAY, pagan.THM3P_EPSILON, pagan.RATE_DELTA,
            pagan.lemma31_steps(pagan.THM3P_C, 1000, 1), 1, 2.0, pagan._geometry(s, "pagan"))


def _eq7_args():
    s = pagan.kernels.pagan_problems.power_law_sigma(10, pagan.RATE_DECAY)
    b = pagan.rate_batch(16000)
    return ("pagan", 10, pagan.RATE_DECAY, 1.0, pagan.RATE_DELTA, pagan.lemma31_steps(pagan.RATE_C, 16000, b), b,
            2.0, pagan._geometry(s, "pagan"))


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_rate_mechanism_check_passes_unmutated_and_names_each_kernel_fault(name):
    for args in (_thm3p_args(), _eq7_args()):
        assert pagan._rate_mechanism_faults(*args) == []
        kw, words = FAULTS[name]
        with kernels.faults.inject(**kw):
            found = pagan._rate_mechanism_faults(*args)
        assert len(found) == 1 and words in found[0], found


def _fake_thm3p(n_values=(1000, 3162, 10000), datasets=8, growth=0.5):
    """Task outputs of pagan.theorem3.pagan's sweep (no runs): (10) holds on every dataset and the measured excess
    is the stated bound times (n/1000)^growth (a ±5% spread), far below f(0) − min f: the ratio grows over one
    decade of n."""
    rng = np.random.default_rng(0)
    tasks, outs = [], []
    for n in n_values:
        t = dict(n=n, d=pagan.THM3P_D, c=pagan.THM3P_C, datasets=datasets, runs=4, seed=1, data_seed=2)
        o = {k: np.full(datasets, v) for k, v in dict(G_2p=1.0, diam_C=2.0, tr_Cinv_half=3.0, S_2_3=2.0,
                                                          R_ada=1e-9).items()}
        bound = 1e-9 + 2.0 * 2.0**1.5 * math.log(pagan.THM3P_D / pagan.RATE_DELTA) / n
        o.update(ok10=np.ones(datasets), factor_ratio=np.ones(datasets), trivial=np.full(datasets, 100.0),
                 excess=bound * (n / 1000) ** growth * rng.uniform(0.95, 1.05, datasets),
                 excess_se=np.full(datasets, 1e-6), steps=pagan.lemma31_steps(pagan.THM3P_C, n, 1), p=2)
        tasks.append(t)
        outs.append(o)
    return tasks, outs


def test_theorem3_pagan_is_inconclusive_when_the_kernel_is_not_the_stated_pagan(monkeypatch):
    monkeypatch.setattr(pagan, "_thm3p_runs", lambda budget, seed: _fake_thm3p())
    out = pagan.theorem3_pagan("quick", 0)
    assert out.verdict == "violated" and out.numbers["mechanism_departures"] == 0
    for kw, words in FAULTS.values():
        with kernels.faults.inject(**kw):
            bad = pagan.theorem3_pagan("quick", 0)
        assert bad.verdict == "inconclusive" and bad.counterexample is None
        assert bad.numbers["mechanism_departures"] == 1
        assert "does not implement the stated mechanism" in bad.evidence and words in bad.evidence


def test_eq7_rate_is_inconclusive_when_the_kernel_is_not_the_stated_pagan(monkeypatch):
    ctrl = decide.Control("slope", 0.05, "test")
    dec = decide.Decision(decide.Verdict.VIOLATED, ctrl, 0.5, 0.6, 0.4, "planted data, n: slope 0.5")
    figures = {"points_assumption_failed": 0, "K_fitted": 3.0}
    monkeypatch.setattr(pagan, "_rate_check", lambda *a: ("violated", [], [dec], dict(figures), []))
    monkeypatch.setattr(pagan, "_memo_sweep", lambda fn, tasks, label: [{} for _ in tasks])
    out = pagan.eq7_rate("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None
    assert out.numbers["mechanism_departures"] == 0
    with kernels.faults.inject(stepsize_scale=10.0):
        bad = pagan.eq7_rate("quick", 0)
    assert bad.verdict == "inconclusive" and bad.counterexample is None
    assert bad.evidence.startswith("the kernel does not implement the stated mechanism (stepsize 10 ")


def test_figure1_mechanism_decision_requires_the_given_stepsize():
    algs = pagan.FIG1_ALGORITHMS
    assert str(pagan.fig1_mechanism_decision(0, 200, algs, (1.0,))[0].verdict) == "holds"
    with kernels.faults.inject(stepsize_scale=10.0):
        d, numbers = pagan.fig1_mechanism_decision(0, 200, algs, (1.0,))
    assert str(d.verdict) == "violated" and "stepsize" in d.reason and "runs 0.05" in d.reason
    # the calibration part is untouched by a stepsize fault
    assert numbers and all(abs(v - 1.0) <= pagan.FIG1_Z_RTOL for v in numbers.values())


def _run_violation(monkeypatch):
    """pagan's rate claims with a run-based violation (a planted-data slope decision) and no runs."""
    ctrl = decide.Control("slope", 0.05, "test")
    dec = decide.Decision(decide.Verdict.VIOLATED, ctrl, 0.5, 0.6, 0.4, "planted data, n: slope 0.5")
    figures = {"points_assumption_failed": 0, "K_fitted": 3.0}
    monkeypatch.setattr(pagan, "_rate_check", lambda *a: ("violated", [], [dec], dict(figures), []))
    monkeypatch.setattr(pagan, "_max_ratio_large_p", lambda rows: 1.0)


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_run_based_rate_violation_is_no_evidence_when_the_kernel_is_not_the_stated_mechanism(monkeypatch, name):
    """eq. (9) (and Theorems 1/2 without an exact mismatch): the probe's finding voids a violation of the runs,
    which then gives no verdict at all; an exact mismatch of the large-p form stands whatever the kernel does."""
    _run_violation(monkeypatch)
    monkeypatch.setattr(pagan, "_large_p_limit_gap", lambda setting: 0)
    assert pagan.eq9("quick", 0).verdict == "violated"
    assert pagan.theorem1("quick", 0).verdict == "violated"
    kw, words = FAULTS[name]
    with kernels.faults.inject(**kw):
        for fn in (pagan.eq9, pagan.theorem1):
            with pytest.raises(decide.MechanismMismatch, match="does not run the stated mechanism"):
                fn("quick", 0)
        monkeypatch.setattr(pagan, "_large_p_limit_gap", lambda setting: 1)
        out = pagan.theorem1("quick", 0)
    assert out.verdict == "violated" and words in out.evidence
    assert out.counterexample["large_p_limit_minus_form"] == "1"
