"""Issue 25 (session 24): the kernel probe of noisy_adagrad's regret claims, and adp's sharpened checks."""

import pytest


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
