"""Theorems 1 and 2 and eqs. (7)/(9) as measured rates (:mod:`verify.papers.pagan.rates`): the verdicts follow the
decisions, the sweeps stay in Lemma 3.1's regime, the planted data, the large-p forms, the mechanism check and the
declared equivalences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
import kernels.faults
import kernels.moments
from tests.verify.evidence_support import lost_numbers
from theory import numeric
from theory import pagan as tp
from verify import decide, mutants, registry
from verify.mutants import _powers, mutate_value
from verify.papers.pagan import _common, privacy, rates
from verify.privacy import MAX_PLD_STEPS, Mechanism

FAULTS = {"noise*3": (dict(noise_scale=3.0), "noise multiplier 3 "),
          "noise-cov-A": (dict(noise_geometry_inverse=True), "noise multiplier"),
          "no-clipping": (dict(skip_clipping=True), "not projected"),
          "stepsize*10": (dict(stepsize_scale=10.0), "stepsize 10 ")}



def _run_violation(monkeypatch):
    """pagan's rate claims with a run-based violation (a planted-data slope decision) and no runs."""
    ctrl = decide.Control("slope", 0.05, "test")
    dec = decide.Decision(decide.Verdict.VIOLATED, ctrl, 0.5, 0.6, 0.4, "planted data, n: slope 0.5")
    figures = {"points_assumption_failed": 0, "K_fitted": 3.0}
    monkeypatch.setattr(rates, "_rate_check", lambda *a: ("violated", [], [dec], dict(figures), []))
    monkeypatch.setattr(rates, "_max_ratio_large_p", lambda rows: 1.0)



# --------------------------------------------------------------------------------------
# rate claims
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def thm2():
    return rates.theorem2("quick", 0)



@pytest.fixture(scope="module")
def thm1():
    return rates.theorem1("quick", 0)



BOUNDS = {"pagan.theorem1": tp.theorem1_bound, "pagan.theorem2": tp.theorem2_bound, "pagan.eq9": tp.eq9_full_rate}



def _points(budget: str) -> list[tuple[int, int, float, float]]:
    pts = {(t["n"], t["batch"], t["epsilon"], t["c"])
           for setting in _common.RATE_SETTINGS for t in _common.rate_tasks(setting, budget, 0)}
    pts |= {(t["n"], t["batch"], t["epsilon"], t["c"]) for t in rates.adversarial_tasks("pagan", budget, 0)}
    pts |= {(t["n"], t["batch"], t["epsilon"], t["c"])
            for t in rates.adversarial_tasks("pagan", budget, 0, rates.THEOREM_N_GRIDS)}
    pts |= {(t["n"], t["batch"], t["epsilon"], t["c"]) for t in rates.adversarial_d_tasks("pagan", budget, 0)}
    return sorted(pts)



def _certified(n: int, b: int, epsilon: float, c: float) -> bool:
    """(ε, δ)-DP of T = c n²/b² steps by the PLD; beyond the PLD's step limit, k equal chunks at (ε/k, δ/k) each
    (basic composition: a valid, looser proof)."""
    steps = _common.lemma31_steps(c, n, b)
    z = float(numeric(tp.noise_multiplier())(epsilon=epsilon, delta=_common.RATE_DELTA))
    k = -(-steps // MAX_PLD_STEPS)  # chunks
    for part in {steps // k, steps - (k - 1) * (steps // k)}:
        e, dl = epsilon / k, _common.RATE_DELTA / k
        if not Mechanism("with_replacement", z, part, n=n, batch_size=b).is_private(
                e, dl, "pld", privacy._pld_grid(e, b / n, z)):
            return False
    return True



def test_eq7_rate_is_inconclusive_when_the_kernel_is_not_the_stated_pagan(monkeypatch):
    ctrl = decide.Control("slope", 0.05, "test")
    dec = decide.Decision(decide.Verdict.VIOLATED, ctrl, 0.5, 0.6, 0.4, "planted data, n: slope 0.5")
    figures = {"points_assumption_failed": 0, "K_fitted": 3.0}
    monkeypatch.setattr(rates, "_rate_check", lambda *a: ("violated", [], [dec], dict(figures), []))
    monkeypatch.setattr(rates, "_memo_sweep", lambda fn, tasks, label: [{} for _ in tasks])
    out = rates.eq7_rate("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None
    assert out.numbers["mechanism_departures"] == 0
    with kernels.faults.inject(stepsize_scale=10.0):
        bad = rates.eq7_rate("quick", 0)
    assert bad.verdict == "inconclusive" and bad.counterexample is None
    assert bad.evidence.startswith("the kernel does not implement the stated mechanism (stepsize 10 ")



@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_run_based_rate_violation_is_no_evidence_when_the_kernel_is_not_the_stated_mechanism(monkeypatch, name):
    """eq. (9) (and Theorems 1/2 without an exact mismatch): the probe's finding voids a violation of the runs,
    which then gives no verdict at all; an exact mismatch of the large-p form stands whatever the kernel does."""
    _run_violation(monkeypatch)
    monkeypatch.setattr(rates, "_large_p_limit_gap", lambda setting: 0)
    assert rates.eq9("quick", 0).verdict == "violated"
    assert rates.theorem1("quick", 0).verdict == "violated"
    kw, words = FAULTS[name]
    with kernels.faults.inject(**kw):
        for fn in (rates.eq9, rates.theorem1):
            with pytest.raises(decide.MechanismMismatch, match="does not run the stated mechanism"):
                fn("quick", 0)
        monkeypatch.setattr(rates, "_large_p_limit_gap", lambda setting: 1)
        out = rates.theorem1("quick", 0)
    assert out.verdict == "violated" and words in out.evidence
    assert out.counterexample["large_p_limit_minus_form"] == "1"



def test_gaussian_norm_mean_is_exact_on_closed_forms():
    assert rates._gaussian_norm_mean(np.array([4.0])) == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-9)
    assert rates._gaussian_norm_mean(np.array([1.0, 1.0])) == pytest.approx(math.sqrt(math.pi / 2), rel=1e-9)



def test_window_reach_says_no_range_decides_where_the_ratio_levels_off():
    text = rates._window_reach("pasan", "bound", "n", "quick")
    assert "--budget full" not in text and "beyond the full budget" not in text  # report: "undecided"
    assert "no n range of this sweep" in text and "the full budget's grid included" in text



@pytest.mark.parametrize("factor, says", [(0.9, "beyond the full budget's n ≤ 64000"),
                                           (1.1, "--budget full (n up to 64000) reaches it")])
def test_window_reach_names_the_first_value_where_the_window_opens(monkeypatch, factor, says):
    """With a window threshold the ratio does cross, the reason names where, and whether full reaches it."""
    r64 = rates._expected_window_ratio("pasan", "bound", 64000, 10, 1.0, 0.25)
    monkeypatch.setattr(rates, "RATE_ASYMPTOTIC", r64 * factor)
    text = rates._window_reach("pasan", "bound", "n", "quick")
    assert "first at n ≈" in text and says in text



@pytest.mark.parametrize("name", ["thm1", "thm2"])
def test_theorem_verdict_is_the_planted_sweeps_verdict(name, request):
    out = request.getfixturevalue(name)
    f = out.numbers
    # two decisions: planted data along n (b = 4 at quick, 1 at full) and along d (n = 2000, b = 4)
    assert [d.reason.split(":")[0] for d in out.decisions] == ["planted data, n", "planted data, d"]
    assert out.verdict == str(decide.combine(out.decisions))
    # both planted windows span a decade (632 … 6325; d = 10 … 100), so each can refute; at seed 0 both hold
    for d in out.decisions:
        assert d.details["decades"] >= 1.0 and d.details["points"] == 3
        assert d.control.margin == _common.RATE_MARGIN and d.control.alpha < 0.05
    assert out.verdict == "holds"
    # the benign axes never reach the window (bound ≤ 0.1 × (f(0) − min f)) at quick (nor at full): shown, with the
    # computed reason that no n or d range of this sweep opens it
    assert f["asymptotic_points_n"] == 0 and f["asymptotic_points_d"] == 0
    for axis in ("n", "d"):
        assert f"benign {axis}: shown, not decided (0 of 3 points" in out.evidence
        assert f"no {axis} range of this sweep" in out.evidence
    assert "ratio_slope_n" not in f and "ratio_slope_epsilon" not in f and "ratio_slope_c" not in f
    assert f["K_fitted"] > 0 and math.isfinite(f["K_fitted"])
    assert [p.title for p in out.plots[0].panels] == [
        "sweep in n", "sweep in ε", "sweep in d", "sweep in c (T = c n²)",
        "planted means at the noise level, b = 4, ε = 1",
        "planted means at the noise level along d, n = 2000, b = 4, ε = 1"]
    assert registry.load_all()[f"pagan.theorem{name[-1]}"].tests == rates.THEOREM_TESTS == len(out.decisions)


def _planted_size_and_terms(setting: str, n: int, d: int, b: int) -> tuple[float, float, float, dict]:
    """The planted means' size (ℓ₁ box / ℓ₂ ball), the theorem's privacy term and eq. (9)/(7)'s, at one point."""
    radius, bound, rate = ((tp.theorem1_radius, tp.theorem1_bound, tp.eq9_full_rate) if setting == "pasan"
                           else (tp.theorem2_radius, tp.theorem2_bound, tp.eq7_full_rate))
    sigma, C, vals = _common._rate_values(setting, n, d, 1.0)

    def ev(expr) -> float:
        f = numeric(expr.subs({tp.R_std: 0, tp.R_ada: 0}))
        return float(f(**{k: vals[k] for k in f.names}))

    z = float(numeric(tp.noise_multiplier())(epsilon=1.0, delta=_common.RATE_DELTA))
    steps = _common.RATE_C * n**2 / b**2  # Lemma 3.1's T, unfloored
    mu = z * ev(radius()) / (np.sqrt(C) * b * math.sqrt(steps))  # _rate_task's planted means (ADV_PLANTED = 1)
    size = float(np.abs(mu).sum()) if setting == "pagan" else float(np.linalg.norm(mu))
    return size, ev(bound()), ev(rate()), vals


@pytest.mark.parametrize("setting", ["pasan", "pagan"])
@pytest.mark.parametrize("n, d, b", [(632, 10, 1), (6325, 10, 1), (2000, 10, 4), (2000, 100, 4), (2000, 300, 4)])
def test_planted_means_are_the_bounds_privacy_term_up_to_one_fixed_factor(setting, n, d, b):
    """What the planted sweeps rest on: the planted means μ_j = z·B·C_jj^{-1/2}/(b√T) (T = c n²/b²) have size (ℓ₁ on
    the box, ℓ₂ on the ball: f(0) − min f without sampling noise) equal to 2/(√c·diam) × the theorem's privacy term,
    at every n, d, b: so the bound is tight on them up to one constant iff the prescribed algorithm's excess stays
    a fixed fraction of f(0) − min f, and a bound missing a factor of n or d is not."""
    size, term, rate, vals = _planted_size_and_terms(setting, n, d, b)
    diam = vals["diam_inf"] if setting == "pagan" else vals["diam2"]
    assert size == pytest.approx(2 / (math.sqrt(_common.RATE_C) * diam) * term, rel=1e-9)
    # negative control: eq. (9)/(7)'s privacy term drops (nε)^{1/p}, so its ratio to the planted size falls by
    # 10^{-1/p} over a decade of n (the planted sweep's growth of measured/rate)
    size10, _, rate10, _ = _planted_size_and_terms(setting, 10 * n, d, b)
    assert (rate10 / size10) / (rate / size) == pytest.approx(10 ** (-1 / vals["p"]), rel=1e-9)


@pytest.mark.parametrize("axis", ["n", "d"])
def test_quick_planted_points_of_the_theorems_are_the_first_datasets_of_full(axis):
    """Quick never has data full lacks: the theorems' planted points at quick are full's, with the same seeds and
    fewer datasets (quick's n sweep is eqs. (9)/(7)'s, shared with them)."""
    def tasks(setting, budget):
        if axis == "d":
            return rates.adversarial_d_tasks(setting, budget, 3)
        return rates.adversarial_tasks(setting, budget, 3, rates.THEOREM_N_GRIDS)

    for setting in ("pasan", "pagan"):
        full = {t[axis]: t for t in tasks(setting, "full")}
        for t in tasks(setting, "quick"):
            u = full[t[axis]]
            assert {k: v for k, v in t.items() if k != "trials"} == {k: v for k, v in u.items() if k != "trials"}
            assert t["trials"] < u["trials"]
        xs = sorted(full)
        assert math.log10(xs[-1] / xs[0]) >= 1.0 and {t["batch"] for t in full.values()} == {4}
    assert tasks("pagan", "quick") == (rates.adversarial_d_tasks("pagan", "quick", 3) if axis == "d"
                                       else rates.adversarial_tasks("pagan", "quick", 3))


@pytest.mark.parametrize("setting", ["pasan", "pagan"])
def test_planted_n_sweep_refutes_the_bound_with_its_p_dependent_factor_dropped(setting):
    """Mutant: the bound with its factor (nε/…)^{1/p}·(…)^{1/p} dropped (eq. (5)/(6), the p → ∞ form, used at the
    run's p = 3): it falls like 1/n where the planted excess falls like n^{-2/3}, and the planted sweep in n says
    violated, where the true bound holds on the same runs (quick, seed 0)."""
    tasks = rates.adversarial_tasks(setting, "quick", 0)
    outs = [_common._rate_task(**t) for t in tasks]
    true, mutant = (_common._rate_decision([rates._ratio_row(t, o, key) for t, o in zip(tasks, outs)], "n", "t",
                                           None)[0] for key in ("bound", "bound_large_p"))
    assert str(true.verdict) == "holds", true.reason
    assert str(mutant.verdict) == "violated" and mutant.violated_bound > _common.RATE_MARGIN, mutant.reason


def test_planted_d_sweep_refutes_theorem2_without_its_d_growing_factor(monkeypatch):
    """Mutant: Theorem 2's bound without G_2p(C)·tr(C^{-1/2})^{(p−1)/p}, the factor that grows with d (×≈ 2 from
    d = 10 to 100 for σ_j = j^{-3/2}): the planted sweep in d says violated, where the true bound holds on the same
    data (quick, seed 0).  (Theorem 1's d-growing factor, G_2p·tr(C⁻¹)^{(p−1)/(2p)}, grows by ≈ 1.3 on the ball's
    profile, too little for a decade of d to separate from the margin x^0.1: the d sweep's power is for the box.)"""
    tasks = rates.adversarial_d_tasks("pagan", "quick", 0)
    true = _common._rate_decision([rates._ratio_row(t, _common._rate_task(**t), "bound") for t in tasks], "d", "t",
                                  None)[0]
    original = tp.theorem2_bound
    monkeypatch.setattr(tp, "theorem2_bound", lambda: original().subs({tp.G_2p: 1, tp.tr_Cinv_half: 1}))
    mutant = _common._rate_decision([rates._ratio_row(t, _common._rate_task(**t), "bound") for t in tasks], "d",
                                    "t", None)[0]
    assert str(true.verdict) == "holds", true.reason
    assert str(mutant.verdict) == "violated" and mutant.violated_bound > _common.RATE_MARGIN, mutant.reason


@pytest.mark.parametrize("name", ["thm1", "thm2"])
def test_rate_summary_names_each_axis_and_keeps_every_number_of_the_evidence(name, request):
    out = request.getfixturevalue(name)
    axes = [d.reason.split(":", 1)[0] for d in out.decisions]
    assert sorted(axes) == ["planted data, d", "planted data, n"]
    # the benign axes are shown, undecided, as rows of the table beside the decisions
    assert [p["test"] for p in out.points[len(out.decisions):]] == ["benign n", "benign d"]
    assert all(p["verdict"] == "shown, not decided" for p in out.points[len(out.decisions):])
    assert all(f"{a} {d.verdict}" in out.summary for a, d in zip(axes, out.decisions))
    assert "asymptotic point(s)" not in out.summary  # the reasons are the decisions', not the summary's
    # the report shows the summary, the decisions' points (read off their records) and their reasons
    shown = out.summary + " " + " ".join(d.reason for d in out.decisions)
    assert lost_numbers(out.evidence, shown, out.points, out.decisions) == []


def test_eq7_rate_quick_refutes_on_planted_data():
    """Eq. (7) drops Theorem 2's factor (nε)^{1/p}: on the planted data its ratio grows with n over the quick
    window's decade and the quick check says violated (as --budget full does at b = 1, seed 0: slope 0.357,
    family-corrected lower bound 0.145 > 0.1).  The new one-decade window is what lets quick refute."""
    out = rates.eq7_rate("quick", 0)
    assert out.verdict == "violated"
    planted = out.decisions[2]
    assert str(planted.verdict) == "violated" and planted.violated_bound > _common.RATE_MARGIN
    assert planted.details["decades"] >= 1.0 and out.counterexample["slope"] == planted.estimate
    assert out.summary.startswith("the log-log slope of measured/bound tested along each axis: planted data, n "
                                  "violated") and "measured PASAN/PAGAN on X∞ d=" in out.summary



def test_large_p_forms_are_the_limits_of_the_general_bounds():
    for general, large in ((tp.theorem1_bound(), tp.theorem1_large_p()), (tp.theorem2_bound(), tp.theorem2_large_p())):
        assert sp.simplify(sp.limit(general, tp.p, sp.oo) - large) == 0



def test_eq7_is_theorem2_privacy_term_at_the_optimal_geometry():
    """With C = σ^{-4/3}: tr(C^{-1/2}) = S_{2/3} and Σ C σ² = S_{2/3}, so the large-p privacy term is
    G_2p·√log(1/δ)·S_{2/3}/(nε) with G_2p ≍ √p·√S_{2/3}: (S_{2/3})^{3/2}·√(p log(1/δ))/(nε) ≤ eq. (7)'s rate at p = log d."""  # noqa: E501
    sigma = kernels.pagan_problems.power_law_sigma(50, 1.5)
    s23 = float(np.sum(sigma ** (2 / 3)))
    C = sigma ** (-4 / 3)
    assert float(np.sum(C**-0.5)) == pytest.approx(s23)
    assert float(np.sum(C * sigma**2)) == pytest.approx(s23)
    p, n, eps, delta = math.log(50), 100, 1.0, 1e-5
    priv = s23**1.5 * math.sqrt(p * math.log(1 / delta)) / (n * eps)
    rate = float(numeric(tp.eq7_rate())(S_2_3=s23, n=n, epsilon=eps, d=50, delta=delta))
    assert priv <= rate  # √(ab) ≤ a + b ≤ log(d/δ) for a = log d, b = log(1/δ) ≥ 1



# --------------------------------------------------------------------------------------
# Theorems 1/2: the large-p form is the bound's p → ∞ limit (exact part of the claims)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["pasan", "pagan"])
@pytest.mark.parametrize("which", ["bound", "large_p"])
@pytest.mark.parametrize("k", ["5/4", "3/4"])
def test_large_p_limit_gap_sees_a_wrong_exponent(monkeypatch, setting, which, k):

    assert rates._large_p_limit_gap(setting) == 0
    name = f"theorem{1 if setting == 'pasan' else 2}_{which}"
    original = getattr(tp, name)
    monkeypatch.setattr(tp, name, lambda: mutate_value(original(), _powers(sp.Rational(k))))
    assert rates._large_p_limit_gap(setting) != 0



def test_theorem2_is_violated_when_its_large_p_form_is_wrong(monkeypatch, thm2):
    """Eq. (6) with every variable x -> x^{5/4}: no longer Theorem 2's p → ∞ limit, so the claim says violated
    (the runs are the fixture's, reused from the in-process memo)."""

    assert thm2.counterexample is None or "large_p_limit_minus_form" not in thm2.counterexample
    original = tp.theorem2_large_p
    monkeypatch.setattr(tp, "theorem2_large_p", lambda: mutate_value(original(), _powers(sp.Rational(5, 4))))
    out = rates.theorem2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["large_p_limit_minus_form"] != "0"



@pytest.mark.parametrize("cid", sorted(BOUNDS))
def test_noise_times_3_keeps_the_bound_within_a_constant_factor(cid):
    bound = BOUNDS[cid]()
    ratio = bound.subs(tp.epsilon, tp.epsilon / 3) / bound
    for pv in (2, 3, 7):  # p = ⌈log d⌉ (SymPy cannot sign (1/n)^((p−1)/p) for a symbolic p)
        r = ratio.subs(tp.p, pv)
        lim = sp.limit(r, tp.n, sp.oo)  # R term held fixed: the privacy term vanishes, ratio → 1
        assert lim.is_finite and lim.is_positive, lim
        # the privacy term alone (R = 0; in the runs R ∝ 1/n, which vanishes faster): the factor itself
        lim_priv = sp.limit(r.subs({tp.R_std: 0, tp.R_ada: 0}), tp.n, sp.oo)
        expected = 3 if cid == "pagan.eq9" else sp.Integer(3) ** sp.Rational(pv - 1, pv)
        assert lim_priv.is_finite and lim_priv.is_positive and sp.simplify(lim_priv - expected) == 0, lim_priv
    f = sp.lambdify(sorted(ratio.free_symbols, key=str), ratio)
    names = [str(s) for s in sorted(ratio.free_symbols, key=str)]
    rng = np.random.default_rng(0)
    for _ in range(300):
        vals = {k: float(rng.uniform(1.0, 50.0)) for k in names}
        vals.update({k: float(rng.uniform(1e-8, 0.5)) for k in names if k == "delta"})
        vals.update({k: float(rng.uniform(0.0, 5.0)) for k in names if k.startswith("R_")})
        r = f(*[vals[k] for k in names])
        assert 1.0 - 1e-12 <= r <= 3.0 + 1e-12, (cid, vals, r)
    registry.load_all()
    assert (cid, "noise*3") in mutants.EQUIVALENT



def test_a_rate_that_depends_on_the_noise_scale_polynomially_would_not_pass():
    """Negative control: a bound ∝ 1/ε² (say) would change by 9 — still constant; one ∝ n^(1/ε) would not."""
    b = tp.n ** (1 / tp.epsilon)
    lim = sp.limit(b.subs(tp.epsilon, tp.epsilon / 3) / b, tp.n, sp.oo)
    assert not lim.is_finite



def test_eq7_rate_verdict_does_not_read_box_rate_ratio(monkeypatch):
    """The mutant box_rate_ratio x -> x^(5/4) changes the displayed bound ratios but neither the decisions nor the
    verdict of eq7.rate (the second run reuses the first's sweeps from the in-process memo)."""
    base = rates.eq7_rate("quick", 0)
    original = tp.box_rate_ratio
    monkeypatch.setattr(tp, "box_rate_ratio",
                        lambda: mutants.mutate_value(original(), mutants._powers(sp.Rational(5, 4))))
    out = rates.eq7_rate("quick", 0)
    shown = [k for k in base.numbers if k.startswith("bound_ratio_d")]
    assert shown and all(out.numbers[k] != base.numbers[k] for k in shown)  # the mutation took effect
    assert out.verdict == base.verdict
    assert [(str(d.verdict), d.estimate) for d in out.decisions] == [(str(d.verdict), d.estimate)
                                                                      for d in base.decisions]
    declared = {cid: c.theory for cid, c in registry.load_all().items()}
    assert "theory.pagan.box_rate_ratio" not in declared["pagan.eq7.rate"]  # displayed only: not its theory
    assert "theory.pagan.box_rate_ratio" in declared["pagan.section3.2.box"]



def test_every_quick_rate_run_is_private_at_its_epsilon():
    pts = _points("quick")
    assert all(eps <= _common.RATE_EPSILON_MAX for _, _, eps, _ in pts)
    failed = [p for p in pts if not _certified(*p)]
    assert not failed, f"rate-sweep runs not (ε, δ)-DP by the accountant: {failed}"



@pytest.mark.slow
def test_every_full_rate_run_is_private_at_its_epsilon():
    pts = _points("full")
    failed = [p for p in pts if not _certified(*p)]
    assert not failed, f"rate-sweep runs not (ε, δ)-DP by the accountant: {failed}"



def test_an_epsilon_16_base_point_is_not_private():
    # at ε = 16 the accountant certifies c only up to ~1.6e-6, not 1/4: a sweep centred there would measure runs
    # that are not (16, δ)-DP
    assert not _certified(16000, _common.rate_batch(16000), 16.0, _common.RATE_C)



@pytest.fixture(scope="module")
def eq7_outcome():
    registry.load_all()
    return registry.REGISTRY["pagan.eq7.rate"].check("quick", 0)


def test_eq7_rate_finding_is_a_misprint_along_the_planted_sweep_with_theorem2_as_repair(eq7_outcome):
    """The planted sweep refutes eq. (7); the paper's own Theorem 2, decided as pagan.theorem2 is, holds: the scope
    is computed as misprint (the statement dropped a factor its theorem keeps)."""
    f = eq7_outcome.finding
    assert eq7_outcome.verdict == "violated" and f.scope == "misprint"
    assert f.region.edge == "" and (f.region.explored, f.region.failing) == (12, 3)
    assert "planted-mean sweep" in f.region.text and "[632, 2000, 6325]" in f.region.text
    # §6.1: the factor (nε)^{1/p} the statement drops, at ε = 4 (p = log 100)
    assert f.at_paper_setting.size == pytest.approx(20000 ** (1 / math.log(100)))
    # the repair, Theorem 2's bound, decided as pagan.theorem2 is (planted sweeps in n and d): holds at seed 0
    assert f.repair.source == "paper" and f.repair.verdict == "holds"
    assert "planted data, n:" in f.repair.evidence and "planted data, d:" in f.repair.evidence


def test_the_dropped_factor_finding_names_the_failing_sweep():
    """A violated benign-d decision is named by its axis (the reason's prefix), not taken for the planted sweep."""
    rows = [dict(task=dict(n=n, d=10, epsilon=1.0, c=0.25, planted=p), assumption=True)
            for n, p in ((1000, 0.0), (2000, 0.0), (632, 1.0))]
    f = _common.rate_finding(explored=3, failing_rows=[r for r in rows if r["task"]["planted"] == 0.0],
                             sweep="the benign sweep in n", repair_decisions=[], repair_statement="x",
                             dropped="(nε)^{1/p}")
    assert f.region.failing == 2 and "benign sweep in n" in f.region.text and f.scope == "in_regime"


@pytest.fixture(scope="module")
def eq9_outcome():
    registry.load_all()
    return registry.REGISTRY["pagan.eq9"].check("quick", 0)


def test_eq9_decides_like_eq7_on_the_planted_sweep(eq7_outcome, eq9_outcome):
    """Same dropped factor, same design (planted data, 24 datasets per n at quick), same decision: violated along n,
    with Theorem 1's bound (which holds at seed 0) as the paper's repair: a misprint."""
    for out in (eq7_outcome, eq9_outcome):
        planted = next(d for d in out.decisions if d.reason.startswith("planted"))
        assert out.verdict == "violated" and str(planted.verdict) == "violated"
        assert out.finding.scope == "misprint" and out.finding.repair.source == "paper"
        assert out.finding.repair.verdict == "holds"
    assert "Theorem 1" in eq9_outcome.finding.repair.statement
    assert rates.ADV_GRIDS["quick"]["trials"] == 24
