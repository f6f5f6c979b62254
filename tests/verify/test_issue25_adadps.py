"""Issue 25: adadps mutants — each declared equivalence's reason is checked here, and each sharper check can fail."""

import numpy as np

from kernels import faults
from verify.mutants import EQUIVALENT
from verify.papers import adadps as va


def test_theorem5_no_clipping_is_equivalent_because_the_runs_never_clip():
    assert ("adadps.theorem5", "no-clipping") in EQUIVALENT
    kw = dict(problem_kw=va.RATE_PROBLEM, batch_size=16, sigma=1.0, steps=20, trials=2, seed=3)
    plain = va._t5_task(**kw)
    with faults.inject(skip_clipping=True):
        skipped = va._t5_task(**kw)
    assert np.array_equal(np.asarray(plain["grad_avg"]), np.asarray(skipped["grad_avg"]))
    assert plain["alpha"] == skipped["alpha"]


def test_theorem5_no_clipping_stays_equivalent_on_the_tight_family():
    # the tight family clips at C, but no record reaches it: skipping clipping changes nothing
    kw = dict(problem_kw=dict(tight_quadratic=dict(a=0.02, n=4)), batch_size=2, sigma=0.125, steps=50, trials=2,
              seed=5)
    plain = va._t5_task(**kw)
    assert float(np.sum(plain["clip_fraction"])) == 0.0
    with faults.inject(skip_clipping=True):
        skipped = va._t5_task(**kw)
    assert np.array_equal(np.asarray(plain["grad_avg"]), np.asarray(skipped["grad_avg"]))


def test_theorem5_tight_constants_are_exact():
    prob = va.tight_quadratic(0.02)
    k = va.tight_quadratic_constants(prob, va.T5_TIGHT["K"])
    assert (k["L"], k["eps_a"], k["F1_gap"], k["d"]) == (1.0, 0.02, 0.0, 1)
    assert np.isclose(k["S_tau_A"], 50.0) and np.isclose(k["C"], 400.0)


def test_theorem5_tight_case_catches_a_bound_with_exponents_a_quarter_too_large(monkeypatch):
    import sympy as sp

    from theory import adadps as ta
    from verify.mutants import mutate_value

    orig = ta.theorem5_explicit_bound
    pow125 = mutate_value(orig(), lambda e: e.subs({s: s ** sp.Rational(5, 4) for s in e.free_symbols}))
    monkeypatch.setattr(va.ta, "theorem5_explicit_bound", lambda: pow125)
    out = va.theorem5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["data"] == "tight quadratic a=50"


def test_theorem5_tight_case_catches_three_times_the_noise():
    # the left side with noise x3 exceeds the (unfaulted) bound: (1/3 + 9 s^2)/a vs (1/2 + s^2)/a
    kw = dict(problem_kw=dict(tight_quadratic=dict(a=50.0, n=4)), batch_size=2, sigma=0.125, steps=200, trials=4,
              seed=7)
    prob = va.tight_quadratic(50.0)
    k = va.tight_quadratic_constants(prob, va.T5_TIGHT["K"])
    from theory import numeric
    rhs = float(numeric(va.ta.theorem5_explicit_bound())(F1_gap=k["F1_gap"], alpha=50.0, T=200, L=k["L"],
                                                          eps_a=k["eps_a"], S_tau_A=k["S_tau_A"], b=2, d=1,
                                                          sigma=0.125, C=k["C"]))
    plain = float(np.mean(va._t5_task(**kw)["grad_avg"]))
    with faults.inject(noise_scale=3.0):
        noisy = float(np.mean(va._t5_task(**kw)["grad_avg"]))
    assert plain < 0.85 * rhs
    assert noisy > 2.0 * rhs


def test_theorem4_scaled_case_catches_a_bound_with_exponents_a_quarter_too_small(monkeypatch):
    """x -> x^(3/4) in every variable makes the bound larger in every unscaled case (it survived there); the case
    with w* x100 scales a dimensionally consistent bound by 100^2 and this one by 100^1.5: violated there only."""
    import sympy as sp

    from theory import adadps as ta
    from verify.mutants import mutate_value

    pow075 = mutate_value(ta.theorem4_explicit_bound(),
                          lambda e: e.subs({s: s ** sp.Rational(3, 4) for s in e.free_symbols if s.is_positive}))
    monkeypatch.setattr(va.ta, "theorem4_explicit_bound", lambda: pow075)
    out = va.theorem4("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["scale"] == va.T4_SCALE
    assert [d.verdict for d in out.decisions].count("violated") == 1


def test_theorem4_scaled_run_is_the_unscaled_run_scaled():
    kw = dict(batch_size=1000, sigma=0.0, steps=10, trials=2, seed=3)
    plain = va._t4_task(problem_kw=va.T4_PROBLEM, **kw)
    scaled = va._t4_task(problem_kw=dict(va.T4_PROBLEM, w_norm=va.T4_SCALE), **kw)
    assert np.allclose(scaled["grad_avg"], va.T4_SCALE**2 * plain["grad_avg"], rtol=1e-9)


def test_theorem2_rescaled_run_is_the_run_scaled():
    kw = dict(sigma=va.T2_SIGMA, clip=va.T2_CLIP, batch_size=va.T2_BATCH, steps=30, trials=2, seed=11)
    base = va._t2_task(problem_kw=va.T2_PROBLEM, lr=va.T2_LR, eps_a=va.T2_EPS_A, **kw)
    c = va.T2_SCALES[0]
    big = va._t2_task(problem_kw=dict(va.T2_PROBLEM, w_norm=va.T2_PROBLEM["w_norm"] * c), lr=va.T2_LR * c,
                      eps_a=va.T2_EPS_A * c, **kw)
    assert np.allclose(big["avg"], c**2 * base["avg"], rtol=1e-8)
    assert np.allclose(big["S_A"], c * base["S_A"], rtol=1e-8) and np.allclose(big["a"], base["a"], rtol=1e-8)


def test_theorem2_rescaled_cases_catch_a_G_with_exponents_a_quarter_too_small(monkeypatch):
    """G with x -> x^(3/4) survived the unscaled cases; at w* x10^3 it is far below the consistent G."""
    import sympy as sp

    from theory import adadps as ta
    from verify.mutants import mutate_value

    G075 = mutate_value(ta.theorem2_G(),
                        lambda e: e.subs({s: s ** sp.Rational(3, 4) for s in e.free_symbols if s.is_positive}))
    monkeypatch.setattr(va.ta, "theorem2_G", lambda: G075)
    r = va._t2_rate("quick", 0)
    assert r["hyp_ok"] and all(v == "holds" for v in r["verdicts"])  # the unscaled cases do not see it
    big = next(row for row in r["scaled"] if row["scale"] > 1)
    assert big["verdict"] != "holds" and big["avg"] > big["bound"]
    assert r["verdict"] != "holds"


def test_theorem1_required_c2_mutants_are_monotone_transforms_free_of_the_run():
    """The reason of the theorem1 equivalences, in SymPy: ×k gives k·c₂; x -> x^p gives k(δ)·c₂^p with k free of
    σ, ε, q and T (so c₂ bounded in T iff the mutated c₂ is)."""
    import sympy as sp

    from theory import adadps as ta
    from verify import mutants, registry

    c2 = ta.theorem1_required_c2()
    run_vars = {s for s in c2.free_symbols if s.name in ("sigma", "epsilon", "q", "T")}
    assert len(run_vars) == 4
    for name, _, fn, _ in mutants.THEORY_MUTATIONS:
        mutated = mutants.mutate_value(c2, fn)
        p = {"pow1.25": sp.Rational(5, 4), "pow0.75": sp.Rational(3, 4)}.get(name, 1)
        k = sp.simplify(sp.powsimp(sp.expand_log(mutated / c2**p, force=True), force=True))
        assert not (k.free_symbols & run_vars), (name, k)
        assert k.is_positive is not False
        registry.load_all()
        assert ("adadps.theorem1", f"theorem1_required_c2:{name}") in mutants.EQUIVALENT


def test_theorem1_a_c2_growing_in_T_would_not_pass_the_same_check():
    import sympy as sp

    from theory import adadps as ta

    c2 = ta.theorem1_required_c2()
    T = next(s for s in c2.free_symbols if s.name == "T")
    k = sp.simplify((c2 * sp.sqrt(T)) / c2)
    assert T in k.free_symbols


def test_theorem3_no_clipping_changes_no_number():
    from verify.mutants import EQUIVALENT

    assert ("adadps.theorem3", "no-clipping") in EQUIVALENT
    plain = va.glm_kernel_monte_carlo(50, 0.5, 0.5, 200, 3)
    with faults.inject(skip_clipping=True):
        skipped = va.glm_kernel_monte_carlo(50, 0.5, 0.5, 200, 3)
    assert np.array_equal(plain["noise"], skipped["noise"])
    prob = va.make_problem("zipf_bow_logistic", va.RATE_PROBLEM)
    kw = dict(problem_kw=va.RATE_PROBLEM, method="adadps_fixed", lr=va.RATE_LR, sigma=va.RATE_SIGMA,
              noise_clip=va.assumption2_bound(prob, "adadps_fixed", "frequency", va.RATE_EPS_A), batch_size=16,
              steps=30, trials=2, seed=4, side_info="frequency", f_star=0.0, eps_a=va.RATE_EPS_A)
    a = va._rate_task(**kw)
    with faults.inject(skip_clipping=True):
        b = va._rate_task(**kw)
    assert np.array_equal(a["excess"], b["excess"])


def test_theorem3_precond_inverse_is_a_fixed_positive_A_and_the_identity_on_a_constant_A():
    from kernels import adadps as ka
    from verify.mutants import EQUIVALENT

    assert ("adadps.theorem3", "precond-inverse") in EQUIVALENT
    prob = va.make_problem("zipf_bow_logistic", va.RATE_PROBLEM)
    A = ka.side_information(prob, "frequency")
    with faults.inject(preconditioner_inverse=True):
        inv = ka.side_information(prob, "frequency")
        inv2 = ka.side_information(prob, "frequency")
    assert np.all(np.isfinite(inv)) and np.all(inv > 0) and np.array_equal(inv, inv2)  # fixed and positive
    assert not np.allclose(inv, A)  # the rate run does change: it is another A
    plain = va.glm_kernel_monte_carlo(50, 0.5, 0.5, 200, 3)
    with faults.inject(preconditioner_inverse=True):
        inverted = va.glm_kernel_monte_carlo(50, 0.5, 0.5, 200, 3)
    assert np.allclose(plain["noise"], inverted["noise"], rtol=1e-12)


# Issue 25, session 26: eq. (39) under theorem2_bound's exponent mutants — a coefficient SymPy could not sign is signed
# by monotonicity in g ≥ 0, and the mutated statements are still false (exact), as declared
def test_eq39_positive_signs_by_monotonicity_and_can_refuse():
    import sympy as sp

    g = sp.Symbol("g_gamma", nonnegative=True)
    a = sp.Symbol("a", positive=True)
    assert (2 * (1 + g) ** sp.Rational(3, 4) - 1).is_positive is None  # what SymPy alone cannot say
    assert va._eq39_positive(a * (2 * (1 + g) ** sp.Rational(3, 4) - 1)) is True
    assert va._eq39_positive(2 * (1 + g) ** sp.Rational(3, 4) - 3) is None  # negative at g = 0
    assert va._eq39_positive(3 - (1 + g) ** sp.Rational(3, 4)) is None  # positive at 0, decreasing: undecided
    assert va._eq39_positive(-a) is False


def test_eq39_theorem2_bound_exponent_mutants_are_still_false():
    import sympy as sp

    from verify import mutants

    fns = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}
    for name in ("pow0.75", "pow1.25"):
        assert EQUIVALENT[("adadps.eq39", f"theorem2_bound:{name}")].startswith("the mutated statement is still false")
        with mutants.theory_mutant("theory.adadps.theorem2_bound", name, "", fns[name]).apply():
            r = va.eq39_ratio()
        assert r["limits"][("paper_T", "S_A→∞")] == sp.oo, name
