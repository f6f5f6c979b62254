"""Issue 25 (mutation power) for pagan's exact claims: pagan.theorem3's repair mutant and its "still false"
equivalences (each proven at an explicit, exact counterexample), and pagan.algorithm3.privacy's calibration
identities against kernels.moments (each shown able to fail)."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants, registry
from verify.mutants import substituted
from verify.papers import pagan

THM3 = "pagan.theorem3"


def _claim(cid):
    registry.load_all()
    return registry.REGISTRY[cid]


def _generic(cid, name):
    """The generic theory mutant ``name`` of ``cid``, built exactly as verify.mutants builds it."""
    (m,) = [m for m in mutants.theory_mutants(_claim(cid)) if m.name == name]
    return m


def _run_under(c, m, seed=0):
    mutants.reset_caches()
    try:
        with m.apply():
            return c.check("quick", seed)
    finally:
        mutants.reset_caches()


# --------------------------------------------------------------------------------------
# pagan.theorem3
# --------------------------------------------------------------------------------------
def _thm3_equivalents():
    registry.load_all()
    return sorted(name for (cid, name) in mutants.EQUIVALENT if cid == THM3)


def test_theorem3_declares_the_expected_still_false_equivalences():
    names = _thm3_equivalents()
    assert len(names) == 13
    assert all(mutants.EQUIVALENT[(THM3, n)].startswith("the mutated statement is still false") for n in names)
    # the one-sided directions are weaker_if, not declarations
    assert not {"theorem3_upper:x0.1", "theorem3_lower:x10", "theorem3_sample_size:x0.1"} & set(names)


@pytest.mark.parametrize("name", _thm3_equivalents())
def test_theorem3_mutated_statement_is_still_false_at_an_exact_counterexample(name):
    """Under the mutant (the same SymPy mutation verify.mutants applies), at d = 2 and σ = (1, 2^{-3/2}/5^k) for some
    k ≤ 12, the mutated left end of (10) exceeds the mutated right end for σ_2, in exact rational arithmetic; the
    mutated sample size stays finite (the statement is not made vacuous)."""
    m = _generic(THM3, name)
    with m.apply():
        lower, upper, size, floor = tp.theorem3_lower(), tp.theorem3_upper(), tp.theorem3_sample_size(), \
            tp.theorem3_floor()
        found = None
        for k in pagan.THM3_EMPTY_SCALES:
            s2 = sp.Integer(2) ** sp.Rational(-3, 2) / 5**k
            at = {tp.sigma_j: s2, tp.d: 2}
            lo, up = sp.nsimplify(lower.subs(at)), sp.nsimplify(upper.subs(at))
            if bool(sp.simplify(lo - up) > 0):
                found = (k, lo, up)
                break
        assert found is not None, name
        at_n = {"beta": 0.1, "delta": 1e-5, "epsilon": 1.0, "r": 1.0, "T": 2, "d": 2}
        n_req = float(size.subs({s: at_n[s.name] for s in size.free_symbols}))
        assert math.isfinite(n_req) and n_req > 0
        assert float(floor.subs(tp.T, 2)) > 0
        # the claim's own exact search finds it too (via theory.pagan.theorem3_lower/upper, mutated)
        assert pagan.thm3_empty_interval() is not None


def test_theorem3_repair_mutant_makes_the_interval_nonempty_and_the_check_hold():
    c = _claim(THM3)
    (m,) = [m for m in c.mutants if m.name == "theorem3_upper:2max(σ_j,d^-3/2)"]
    with m.apply():
        assert pagan.thm3_empty_interval() is None
    out = _run_under(c, m)
    assert out.verdict == "holds"
    assert len(out.decisions) == len(pagan.THM3_GRIDS["quick"]["configs"])
    assert all(str(d.verdict) == "holds" for d in out.decisions)


def test_theorem3_runs_decision_can_fail():
    """With a non-empty interval that is not below the floor but that Algorithm 3's output often misses (right end
    max(σ_j, d^{-3/2}) ≥ 2^{-T}, half the corrected one), no exact refutation stands and the runs decide: violated."""
    c = _claim(THM3)

    def upper():
        return sp.Max(tp.sigma_j, tp.d ** sp.Rational(-3, 2))

    m = mutants.Mutant("narrow", "", "theory", lambda: substituted("theory.pagan.theorem3_upper", upper))
    out = _run_under(c, m)
    assert out.verdict == "violated" and out.decisions
    assert any(str(d.verdict) == "violated" for d in out.decisions)


# --------------------------------------------------------------------------------------
# pagan.algorithm3.privacy
# --------------------------------------------------------------------------------------
A3 = "pagan.algorithm3.privacy"


def test_algorithm3_calibration_matches_the_kernel():
    for d in (10, 100):
        cal = pagan.alg3_calibration(d, 1.0, 1e-5)
        assert cal["rounds_ok"] and cal["sensitivity_ok"] and cal["noise_ok"]
        assert abs(cal["sensitivity_gap"]) < 1e-12  # the declared sensitivity is attained


def test_algorithm3_too_small_sensitivity_is_refuted():
    c = _claim(A3)
    out = _run_under(c, _generic(A3, "algorithm3_sensitivity:x0.1"))
    assert out.verdict == "violated"
    assert out.counterexample["attained_over_declared_sensitivity"] == pytest.approx(10.0)
    out = _run_under(c, _generic(A3, "algorithm3_sensitivity:pow1.25"))
    assert out.verdict == "violated" and out.numbers["calibration_points_sensitivity_exceeded"] > 0


def test_algorithm3_sensitivity_with_a_wrong_power_of_n_is_exceeded_at_small_n():
    """Session 27: the sensitivity check runs at every n of ALG3_PRIVACY_NS.  x^(3/4): declared ρ^{3/2}d^{3/8}/n^{3/4}
    against the attained ρ²√d/n, ratio ρ^{1/2}d^{1/8}/n^{1/4}: below 1 at n = 1000 (the only n checked before:
    2·100^{1/8}/1000^{1/4} = 0.63 at d = 100, ρ_1 = 4), exactly 2 at n = 10 (100^{1/8} = 10^{1/4})."""
    m = _generic(A3, "algorithm3_sensitivity:pow0.75")
    with m.apply():
        assert pagan.alg3_calibration(100, 0.1, 1e-5, n=1000)["sensitivity_ok"]
        cal = pagan.alg3_calibration(100, 0.1, 1e-5, n=10)
        assert not cal["sensitivity_ok"] and cal["t"] == 1 and cal["sensitivity_gap"] == pytest.approx(1.0, rel=1e-12)
    out = _run_under(_claim(A3), m)
    assert out.verdict == "violated" and out.counterexample["n"] == 10 and out.counterexample["d"] == 100
    assert out.counterexample["attained_over_declared_sensitivity"] == pytest.approx(2.0, rel=1e-12)


def test_algorithm3_calibration_is_checked_at_every_n_unmutated():
    for n in pagan.ALG3_PRIVACY_NS:
        cal = pagan.alg3_calibration(100, 0.1, 1e-5, n=n)
        assert cal["rounds_ok"] and cal["sensitivity_ok"] and cal["noise_ok"] and abs(cal["sensitivity_gap"]) < 1e-12


@pytest.mark.parametrize("name", ["algorithm3_rounds:x10", "algorithm3_rounds:pow1.25", "algorithm3_rounds:pow0.75",
                                  "algorithm3_noise_multiplier:pow1.25"])
def test_algorithm3_calibration_other_than_the_run_is_not_certified(name):
    c = _claim(A3)
    out = _run_under(c, _generic(A3, name))
    assert out.verdict == "inconclusive"
    assert out.numbers["calibration_points_mismatched"] > 0


def test_algorithm3_rounds_not_an_integer_is_never_truncated():
    # ×0.1: T = ⌈(3/2)log₂ d⌉/10 is 1/2 at d = 10 (no round count: undecided there, not a crash) and 1 at d = 100,
    # where one round with multiplier √(log(1/δ))/ε is accounted: ε = 1 is exceeded (the mutated statement is false)
    m = _generic(A3, "algorithm3_rounds:x0.1")
    with m.apply():
        assert pagan.alg3_declared_rounds(10) is None and pagan.alg3_declared_rounds(100) == 1
        assert pagan._alg3_task(10, 1.0, 1e-5)["rounds_valid"] is False
        cal = pagan.alg3_calibration(10, 1.0, 1e-5)
        assert not cal["rounds_ok"] and not cal["noise_ok"]
    out = _run_under(_claim(A3), m)
    assert out.verdict == "violated" and out.counterexample["d"] == 100 and out.counterexample["rounds"] == 1
    assert out.numbers["points_unsure"] >= 2 and math.isfinite(out.numbers["max_eps_ratio"])
    assert pagan.alg3_declared_rounds(10) == 5  # unmutated: ⌈(3/2)·log₂ 10⌉


def test_algorithm3_unmutated_quick_holds_with_calibration_checked():
    out = _claim(A3).check("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["calibration_points_sensitivity_exceeded"] == 0
    assert out.numbers["calibration_points_mismatched"] == 0
    assert out.numbers["declared_mechanism_points_broken"] == 0
    assert 0 < out.numbers["declared_mechanism_max_eps_ratio"] < 1


def test_algorithm3_declared_mechanism_is_the_accounted_one_unmutated():
    # per round std/change = T·√(log(T/δ))/ε at every ρ_t and n, so the T rounds compose into z = √T·√(log(T/δ))/ε
    for n in pagan.ALG3_PRIVACY_NS:
        x = pagan.alg3_declared_epsilon(10, 1.0, 1e-5, ns=(n,))
        assert x["decided"] and x["z"] == pytest.approx(math.sqrt(5 * math.log(5 / 1e-5)), rel=1e-12)
        assert x["eps_lo"] < 1.0
    with pytest.raises(ValueError):
        pagan.alg3_declared_epsilon(10, 1.0, 1e-5, ns=())


@pytest.mark.parametrize("name, n", [("algorithm3_noise_variance:pow1.25", 100_000),
                                     ("algorithm3_noise_variance:pow0.75", 10)])
def test_algorithm3_declared_variance_with_a_wrong_power_is_refuted(name, n):
    # the mutated std over the attained change depends on n (n^{-1/4} or n^{1/4}) and ρ_t: at some n of
    # ALG3_PRIVACY_NS the declared mechanism's exact ε exceeds the promise (d = 10: ε = 1 for pow1.25, 0.1 for pow0.75)
    m = _generic(A3, name)
    with m.apply():
        eps = 1.0 if name.endswith("pow1.25") else 0.1
        x = pagan.alg3_declared_epsilon(10, eps, 1e-5)
        assert x["decided"] and x["eps_lo"] > eps and x["n"] == n


def test_algorithm3_declared_mechanism_refutes_the_claim():
    out = _run_under(_claim(A3), _generic(A3, "algorithm3_noise_variance:pow0.75"))
    assert out.verdict == "violated" and out.numbers["declared_mechanism_points_broken"] > 0
    assert out.counterexample["exact_eps_lower"] > out.counterexample["epsilon"]


# --------------------------------------------------------------------------------------
# pagan.proposition1.d2 / pagan.theorem4.risk.d2: exponent mutants, still false at an exact point
# --------------------------------------------------------------------------------------
D2 = [("pagan.proposition1.d2", "proposition1_lower_bound"), ("pagan.theorem4.risk.d2", "theorem4_lower_bound")]


@pytest.mark.parametrize("cid, bound", D2)
@pytest.mark.parametrize("name", ["{b}:pow1.25", "{b}:pow0.75", "theorem4_condition:pow1.25",
                                  "theorem4_condition:pow0.75"])
def test_d2_exponent_mutants_are_still_false_at_an_exact_point(cid, bound, name):
    name = name.format(b=bound)
    registry.load_all()
    assert mutants.EQUIVALENT[(cid, name)].startswith("the mutated statement is still false")
    m = _generic(cid, name)
    with m.apply():
        cond, lb = getattr(tp, "theorem4_condition")(), getattr(tp, bound)()
    at = {tp.d: 2, tp.n: 1, tp.epsilon: 1, tp.power_sum(sp.Rational(2, 3)): 2}  # σ = (1, 1): S_{2/3} = 2
    assert bool(cond.subs(at)) is True  # the mutated hypothesis holds (exact)
    value = lb.subs(at)
    assert value.is_number and bool(value > 4)  # above 2Σσ_j = 4 ≥ either left side (exact comparison)
    # and the mutation did change what it names
    orig = tp.theorem4_condition() if name.startswith("theorem4_condition") else getattr(tp, bound)()
    assert (cond if name.startswith("theorem4_condition") else lb) != orig


# --------------------------------------------------------------------------------------
# pagan.lemma3.2: exact moments against the MGF series; the weaker probability mutant
# --------------------------------------------------------------------------------------
L32 = "pagan.lemma3.2"


def test_lemma3_2_moments_agree_with_the_series_route():
    import numpy as np
    for w in (np.arange(1, 21.0) ** -3, np.arange(1, 101.0) ** -1, np.full(7, 0.3)):
        a, b = pagan.gaussian_norm_moments(w, 12), pagan.weighted_chi2_moments_series(w, 12)
        assert np.max(np.abs(a / b - 1)) < 1e-12
    # χ²_d / d: E[(Q/W)^2] = 1 + 2/d for equal weights
    assert pagan.weighted_chi2_moments_series(np.ones(5), 2)[1] == pytest.approx(1 + 2 / 5, rel=1e-14)


@pytest.mark.parametrize("name", ["gaussian_norm_moment:pow1.25", "gaussian_norm_moment:pow0.75",
                                  "gaussian_norm_moment:x10"])
def test_lemma3_2_wrong_moments_are_refuted_exactly(name):
    c = _claim(L32)
    m = [m for m in mutants.theory_mutants(c, {"theory.pagan.gaussian_norm_moment": tp.gaussian_norm_moment(2)})
         if m.name == name][0]
    out = _run_under(c, m)
    assert out.verdict == "violated"
    assert out.counterexample["relative_gap"] > pagan.LEMMA32_MOMENT_RTOL


def test_lemma3_2_probability_pow075_is_only_weaker():
    registry.load_all()
    assert (L32, "lemma3_2_probability:pow0.75") in mutants.EQUIVALENT
    m = _generic(L32, "lemma3_2_probability:pow0.75")
    with m.apply():
        mutated = getattr(tp, "lemma3_2_probability")()
    assert sp.simplify(mutated - tp.n ** sp.Rational(-3, 4)) == 0
    # n^{-3/4} − n^{-1} = n^{-1}(n^{1/4} − 1) ≥ 0 for n ≥ 1 (and = 0 only at n = 1)
    diff = sp.factor(mutated - tp.lemma3_2_probability())
    assert all(bool(diff.subs(tp.n, v) >= 0) for v in (1, 2, 10, 10**6))
    assert sp.solve(sp.Eq(diff, 0), tp.n) == [1]


# --------------------------------------------------------------------------------------
# one-sided exponent mutants declared "only weaker" (pagan.theorem4.risk.d3's theorem4_condition:pow0.75 was one
# until session 27: the claim is now violated, and that mutant is declared still false instead,
# tests/verify/test_issue25_s27_pagan_rr.py)
# --------------------------------------------------------------------------------------
def test_theorem3_floor_lower_pow125_is_only_smaller():
    import numpy as np
    name = "theorem3_lower:pow1.25"
    registry.load_all()
    assert mutants.EQUIVALENT[("pagan.theorem3.floor", name)].startswith("only weaker")
    m = _generic("pagan.theorem3.floor", name)
    with m.apply():
        mutated = getattr(tp, "theorem3_lower")()
    f_mut = sp.lambdify((tp.sigma_j, tp.d), mutated)
    f_org = sp.lambdify((tp.sigma_j, tp.d), tp.theorem3_lower())
    for d in (1, 2, 3, 10, 100, 10**4):
        for s in np.concatenate([10 ** np.linspace(-8, 0, 81), [1.0]]):
            assert f_mut(s, d) <= f_org(s, d) * (1 + 1e-15)
    assert f_mut(0.5, 10) < f_org(0.5, 10)  # and strictly somewhere


# --------------------------------------------------------------------------------------
# pagan.theorem4.risk.d3: the upper/lower ratio must be one polylog(d) factor for every n
# --------------------------------------------------------------------------------------
T4 = "pagan.theorem4.risk.d3"


def test_theorem4_ratio_is_free_of_n_and_its_exponent_mutants_are_not():
    lim = pagan.ratio_limit_in_n(tp.upper_lower_ratio_box())
    assert lim.is_number and lim.is_finite and lim.is_positive
    # x^(5/4): the ratio grows like (nε)^(1/4) (no polylog(d) factor bounds it); x^(3/4): it vanishes like (nε)^(-1/4)
    for name, expected in (("theorem4_lower_bound:pow1.25", sp.oo), ("theorem4_lower_bound:pow0.75", 0)):
        with _generic(T4, name).apply():
            ratio = tp.upper_lower_ratio_box()
            assert pagan.ratio_limit_in_n(ratio) == expected
            at = {tp.d: 3, tp.epsilon: 1, tp.delta: sp.Rational(1, 10**5), tp.power_sum(sp.Rational(2, 3)): 1}
            r = [float(ratio.subs(at).subs(tp.n, 10**k)) for k in (2, 6, 10)]
            assert (r[0] < r[1] < r[2]) if expected == sp.oo else (r[0] > r[1] > r[2])
    with pytest.raises(TypeError):
        pagan.ratio_limit_in_n(1.0)
    # the claim itself decides (it used to crash evaluating the ratio's plot at d and δ alone)
    out = _run_under(_claim(T4), _generic(T4, "theorem4_lower_bound:pow1.25"))
    assert out.verdict == "violated" and out.counterexample["limit_n_to_infinity"] == "oo"


# --------------------------------------------------------------------------------------
# pagan.proposition2: the exact edge at every σ scale
# --------------------------------------------------------------------------------------
P2 = "pagan.proposition2"


def test_proposition2_edge_holds_at_every_scale_and_catches_wrong_powers():
    v, ex, checked, _ = pagan.prop2_edge()
    assert v == "holds" and ex is None and checked == 3 * 2 * 10 * 61  # 3 σ, 2 profiles, d = 1..10, 61 values of nε
    # x^(5/4) at σ = 100, d = 1, nε = 1e-3: min{100^(5/4), ·} = 316.2 > 2σ√d = 200; x^(3/4) at σ = 0.01: 0.0316 > 0.02
    for name, sigma in (("proposition2_lower_bound:pow1.25", 100.0), ("proposition2_lower_bound:pow0.75", 0.01)):
        with _generic(P2, name).apply():
            v, ex, _, _ = pagan.prop2_edge()
            assert v == "violated" and ex["sigma"] == sigma and ex["d"] == 1
            assert ex["lower_bound"] == pytest.approx(sigma ** (1.25 if sigma > 1 else 0.75), rel=1e-12)
            assert ex["lower_bound"] > ex["largest_possible"] * 1.5
            assert pagan.prop2_edge((1.0,))[0] == "holds"  # σ = 1 alone (the earlier check) cannot see it
    with pytest.raises(ValueError):
        pagan.prop2_edge((0.0,))


# --------------------------------------------------------------------------------------
# the lower-bound claims: exact parts first; the runs are skipped where an exact part already refutes
# --------------------------------------------------------------------------------------
def test_theorem5_exact_refutation_skips_the_runs(monkeypatch):
    def no_runs(*args, **kwargs):
        raise AssertionError("the measured part ran although the exact part refutes")

    monkeypatch.setattr(pagan, "_lb_runs", no_runs)
    out = _run_under(_claim("pagan.theorem5"), _generic("pagan.theorem5", "theorem5_lower_bound:pow1.25"))
    assert out.verdict == "violated" and out.counterexample["scale"] == 1e4
    assert out.numbers["cells"] == 0 and out.evidence.startswith("the measured part was not run")
    # unmutated, the exact part refutes too since session 26 (the free output x = 0 at d = 2), so no runs either;
    # the weakened bound (÷10) passes it and the runs are needed (here: refused)
    assert _claim("pagan.theorem5").check("quick", 0).verdict == "violated"
    with pytest.raises(AssertionError, match="measured part ran"):
        _run_under(_claim("pagan.theorem5"), _generic("pagan.theorem5", "theorem5_lower_bound:x0.1"))


# --------------------------------------------------------------------------------------
# the rate claims (theorem1, theorem2, eq9, section3.2.box): an exact probe of the kernel's configuration
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["pasan", "pagan", "pasan_box"])
def test_rate_setting_probe_passes_unmutated_and_names_each_kernel_fault(setting):
    assert pagan._rate_setting_departures(setting, "quick") == []
    assert pagan._rate_setting_departures(setting, "full") == []
    expected = {"stepsize*10": "stepsize 10 ×", "no-clipping": "not projected", "noise-cov-A": "noise multiplier",
                "noise*3": "noise multiplier 3 ×"}
    faults = {m.name: m for m in mutants.KERNEL_MUTANTS}
    for name, phrase in expected.items():
        with faults[name].apply():
            found = pagan._rate_setting_departures(setting, "quick")
        assert len(found) == 1 and phrase in found[0], (name, found)


def test_lower_bound_runs_outside_the_hypothesis_are_not_made(monkeypatch):
    ran = []

    def fake_sweep(fn, tasks, label):
        ran.extend(tasks)
        return [{"excess": [1.0, 1.1, 0.9]} for _ in tasks]

    monkeypatch.setattr(pagan, "_memo_sweep", fake_sweep)
    inside = lambda d, e: d < 64  # noqa: E731
    tasks, outs, acct = pagan._lb_runs("ball", 1.5, "quick", 0, applies=inside)
    assert ran and all(t["d"] < 64 for t in ran) and len(ran) == sum(t["d"] < 64 for t in tasks) < len(tasks)
    assert all((o is None) == (t["d"] >= 64) for t, o in zip(tasks, outs))
    rows, verdicts = pagan._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: -1.0, inside)
    assert {r["verdict"] for r in rows if r["d"] >= 64} == {"not applicable"} and set(verdicts) == {"holds"}
    with pytest.raises(ValueError, match="not run"):  # a cell inside the hypothesis must have all its runs
        pagan._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: 0.5, lambda d, e: True)
