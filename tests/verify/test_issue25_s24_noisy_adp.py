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
# adp: the two crash-only catches made honest decisions
# ---------------------------------------------------------------------------------------------------------------
def _adp_mutant(path: str, name: str):
    from verify import mutants

    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(path, name, "", fn)


def test_proposition52_break_even_is_found_when_T_enters_with_a_fractional_power():
    """SymPy's solve found no root of ¼·log(1 + (Tν/b_0²)^{5/4}) = 1 (the pow1.25 mutants crashed the check);
    solveset over T > 0 gives ((e⁴ − 1)^{4/5}·b_0^{5/2}/ν^{5/4}) in closed form, and the unmutated value is
    unchanged."""
    import sympy as sp

    from theory import adp as tadp

    nu, b0 = tadp.nu, tadp.b0
    assert sp.simplify(tadp.proposition5_2_break_even() - (sp.E**4 - 1) * b0**2 / nu) == 0
    with _adp_mutant("theory.adp.proposition5_2_ratio", "pow1.25").apply():
        t_star = tadp.proposition5_2_break_even()
    val = complex(sp.N(t_star.subs({b0: 1, nu: 1})))
    assert val.imag == 0 and val.real == pytest.approx(float((sp.E**4 - 1) ** sp.Rational(4, 5)), rel=1e-12)


@pytest.mark.parametrize("fn", ["proposition5_2_terms", "proposition5_2_ratio"])
def test_proposition52_pow125_mutants_are_still_false_at_t2_and_decided(fn):
    import sympy as sp

    from theory import adp as tadp
    from verify.mutants import EQUIVALENT
    from verify.papers import adp as va

    assert EQUIVALENT[("adp.proposition5.2", f"{fn}:pow1.25")].startswith("the mutated statement is still false")
    with _adp_mutant(f"theory.adp.{fn}", "pow1.25").apply():
        r = tadp.proposition5_2_ratio()
        assert sp.simplify(r - sp.log(1 + (tadp.T * tadp.nu / tadp.b0**2) ** sp.Rational(5, 4)) / 4) == 0
        val = r.subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
        assert sp.simplify(val - sp.log(1 + 2 ** sp.Rational(5, 4)) / 4) == 0 and sp.N(val, 30) < 1
        out = va.proposition5_2("quick", 0)  # decided, no crash
    assert out.verdict == "violated" and out.counterexample["T"] == 2


def test_lemma22_a_tenfold_smaller_delta_tilde_below_the_point_mass_is_violated_without_a_crash(monkeypatch):
    """ε̃ and δ̃ both ÷10 (the x0.1 mutant): where δ̃/10 ≤ 1 − Π(1 − δ_i) no finite ε is valid, which the check
    now says (violated) instead of letting the accountant raise."""
    from theory import adp as tadp
    from verify.papers import adp as va

    real = tadp.extended_advanced_composition
    monkeypatch.setattr(va, "LEMMA22_BUDGETS", va.Budgets(quick=va.Lemma22Settings(cases=12, kmax=3),
                                                          full=va.LEMMA22_BUDGETS.full))
    monkeypatch.setattr(tadp, "extended_advanced_composition", lambda e, d, dp: tuple(0.1 * v for v in real(e, d, dp)))
    out = va.lemma2_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["no_finite_epsilon"] is True
    assert "no finite ε" in out.evidence and out.numbers["cases_without_finite_epsilon"] >= 1


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


def test_footnote3_pow075_gives_more_noise_at_each_of_the_five_points():
    """The reason declared for adp.footnote3 / theorem4_1_variance:pow0.75: at every point of the footnote the
    mutated σ² exceeds eq. (6)'s (exact), and the multiplier the check derives grows with it."""
    import sympy as sp

    from theory import adp as tadp
    from verify.mutants import EQUIVALENT
    from verify.papers import adp as va

    assert "46× to 132×" in EQUIVALENT[("adp.footnote3", "theorem4_1_variance:pow0.75")]
    f = va.FOOTNOTE3
    e = tadp.theorem4_1_variance()
    mutant = _adp_mutant("theory.adp.theorem4_1_variance", "pow0.75")
    with mutant.apply():
        m = tadp.theorem4_1_variance()
        z_mut = [va.footnote3_multiplier(eb) for eb in f["eps_bar"]]
    ratios = []
    for eb in f["eps_bar"]:
        sub = {tadp.G: 1, tadp.S_inv_alpha2: f["T"], tadp.T: f["T"], tadp.delta: sp.Rational(1, 10**5),
               tadp.epsilon: 16 * sp.nsimplify(eb), tadp.n: f["n"]}
        ratios.append(sp.N(m.subs(sub) / e.subs(sub), 30))
    assert all(r > 46 for r in ratios) and max(ratios) < 133
    assert all(zm > 6 * va.footnote3_multiplier(eb) for zm, eb in zip(z_mut, f["eps_bar"]))
