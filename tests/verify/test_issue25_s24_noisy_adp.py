"""Issue 25 (session 24): the kernel probe of noisy_adagrad's regret claims, and adp's sharpened checks."""

import pytest

from kernels import faults
from kernels import noisy_adagrad as kn
from theory import noisy_adagrad as tn
from verify.papers import noisy_adagrad as vn


def _probe(**fault):
    prob = kn.low_rank_glm(n=40, p=8, k=2, loss="absolute", w_norm=0.8, seed=1)
    eta = float(tn.theorem3_1_eta().subs(tn.C, 2.0))
    with faults.inject(**fault):
        return vn._kernel_probe(prob, eta, 1.0, 0.05, 0.3, seed=2)


def test_kernel_probe_passes_when_the_kernel_runs_the_declared_algorithm():
    p = _probe()
    assert p.ok and p.rel_diff <= vn.NA_PROBE_RTOL
    assert "≤ 1e-06 required" in p.text and "decides nothing" not in p.text


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_kernel_probe_fails_when_the_kernel_adds_other_noise_or_another_stepsize(fault):
    p = _probe(**fault)
    assert not p.ok and p.rel_diff > 1e-3
    assert "does not run Algorithm 1 with the declared stepsize and noise" in p.text


@pytest.fixture
def tiny(monkeypatch):
    """The regret claims on a tiny grid (the probe is the part under test; the grid only has to run)."""
    monkeypatch.setitem(vn.THM31, "quick", dict(p=8, n=40, k=2, T=30, trials=2, rhos=(0.0, 1.0), gammas=(0.2,),
                                                clip_rhos=(1.0,)))
    monkeypatch.setitem(vn.COR3, "quick", dict(Ts=(40, 80, 160), trials=3, p=8, n=40, k=2))
    for f in (vn._thm31_scale, vn._cor3_runs, vn._cor3_probe):
        f.cache_clear()
    yield
    for f in (vn._thm31_scale, vn._cor3_runs, vn._cor3_probe):
        f.cache_clear()


@pytest.mark.parametrize("check", ["theorem3_1", "corollary3_algorithm1", "theorem3_1_o_form"])
def test_regret_claims_are_inconclusive_when_the_kernel_adds_three_times_the_noise(tiny, check):
    fn = getattr(vn, check)
    base = fn("quick", 0)
    assert base.numbers["kernel_probe_rel_diff"] <= vn.NA_PROBE_RTOL
    assert not base.evidence.startswith("inconclusive: kernel probe")
    for f in (vn._thm31_scale, vn._cor3_runs, vn._cor3_probe):
        f.cache_clear()
    with faults.inject(noise_scale=3.0):
        out = fn("quick", 0)
    assert out.verdict == "inconclusive" and out.counterexample is None
    assert out.evidence.startswith("inconclusive: kernel probe")


# ---------------------------------------------------------------------------------------------------------------
# noisy_adagrad.theorem5.1: the scaled point ‖θ*‖ = 10⁴
# ---------------------------------------------------------------------------------------------------------------
def test_theorem51_scaled_point_scales_excess_and_bound_alike_and_catches_a_wrong_degree():
    import numpy as np

    from verify import decide
    from verify.mutants import THEORY_MUTATIONS, theory_mutant

    kw = dict(p=5, k=3, n=40, epsilon=1.0, delta=vn.THM51_DELTA, trials=4, seed=0)
    one = vn._thm51_task(**kw)
    big = vn._thm51_task(**kw, w_norm=vn.THM51_SCALED_W)
    s = vn.THM51_SCALED_W
    np.testing.assert_allclose(big["excess"], s * one["excess"], rtol=1e-9)  # DP-GD is equivariant in θ*
    assert big["bound"] == pytest.approx(s * one["bound"], rel=1e-12)  # eq. (14) is degree 1 in ‖θ*‖_M
    assert decide.mean_at_most(big["excess"], big["bound"], what="t").verdict != decide.Verdict.VIOLATED
    pow075 = {m[0]: m[2] for m in THEORY_MUTATIONS}["pow0.75"]
    with theory_mutant("theory.noisy_adagrad.theorem5_1_bound", "pow0.75", "", pow075).apply():
        wrong = vn._thm51_task(**kw, w_norm=s)
        at_one = vn._thm51_task(**kw)
    assert wrong["bound"] < 0.25 * big["bound"] and at_one["bound"] > one["bound"]  # only the scaled point sees it
    assert float(np.mean(wrong["excess"])) > 2 * wrong["bound"]
