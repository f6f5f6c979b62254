"""Theorem 3.1, Corollary 3, Remark 4 and the γ hypothesis (:mod:`verify.papers.noisy_adagrad.regret`): quick
verdicts, the σ_B = 0 repair, the exact kink counterexample to eq. (25) with exponents 5/4, the declared η
equivalents, the kernel probe that makes the runs inconclusive under a kernel fault, and the negative controls."""

import math
import re

import numpy as np
import pytest
import sympy as sp

from kernels import faults
from tests.papers.noisy_adagrad.support import check_quick, mutant_verdict
from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import decide, mutants, registry
from verify.papers.noisy_adagrad import _common, regret
from verify.registry import load_all

from .support import memoised_quick


@pytest.fixture(scope="module")
def quick():
    return memoised_quick(regret)


def test_theorem31_violated_once_preconditioner_noise_reaches_the_gradient_scale(quick):
    out = quick("theorem3.1".replace(".", "_"))
    f = out.numbers
    assert out.verdict == "violated"
    assert out.counterexample["rho"] == 0.3  # pinned: the smallest ρ of the quick grid that breaks eq. (25)
    assert f["regret_rho0"] < f["bound_rho0"]
    assert out.counterexample["regret_minus_bound_lower_family"] > 0  # the paired test's family-corrected bound
    assert out.evidence.startswith("ρ = 0.3: violated (family-wise 5%)")
    assert 1.5 < f["max_regret_over_bound"] < 3.0  # the explicit constants fail by a bounded factor (≲ 2.5×)


def test_theorem31_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("theorem3_1")
    assert out.summary.startswith("eq. (25) checked at") and "ρ=" not in out.summary  # no per-ρ listing
    assert [p["verdict"] for p in out.points if p["part"].startswith("ρ sweep")] == [str(d.verdict)
                                                                                   for d in out.decisions]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_corollary3_with_algorithm1s_sigma_B_is_violated_and_remark4_holds(quick):
    """With σ_B(t) = λ_min⁺(G_t), regret·T/Tr(G_T) grows (≈ T^0.39) over 1.8 decades of T."""
    c3 = quick("corollary3_algorithm1")
    f = c3.numbers
    assert c3.verdict == "violated" and c3.evidence.startswith("violated (family-wise 5%)")
    assert f["slope_lower_family"] > regret.COR3_SLOPE_MARGIN and f["ratio_last"] > 3 * f["ratio_first"]
    assert f["window_points"] >= 5
    o = quick("theorem3_1_o_form")
    assert o.verdict == "violated" and o.numbers["slope_lower_family"] > regret.COR3_SLOPE_MARGIN
    r4 = quick("remark4")
    g = r4.numbers
    assert r4.verdict == "holds"
    assert g["trace_ratio_slope_upper"] <= 0.1 and g["regret_ratio_slope_upper"] <= 0.1
    assert g["trace_slope"] == pytest.approx(0.25, abs=0.03)  # √(Σ‖∇_t‖²), not Remark 4's 3/8


@pytest.mark.parametrize("name", ["remark4", "remark4_algorithm1"])
def test_remark4_summary_and_points_keep_every_number_of_its_evidence(quick, name):
    out = quick(name)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith(f"{out.verdict}: with σ_B") and "O(T^(3/8))" in s
    assert [p["verdict"] for p in out.points[:2]] == [str(d.verdict) for d in out.decisions]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


@pytest.mark.parametrize("name, start", [("corollary3_algorithm1", "violated: with σ_B(t) = λ_min⁺(G_t), regret·T"),
                                         ("theorem3_1_o_form", "violated: with σ_B(t) = λ_min⁺(G_t), regret over")])
def test_corollary3_and_o_form_summaries_and_points_keep_every_number_of_their_evidence(quick, name, start):
    out = quick(name)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith(start)
    assert [p["verdict"] for p in out.points if p["part"] == "decision"] == [str(out.decisions[0].verdict)]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_corollary3_negative_control_sigma_B_zero_does_not_grow():
    """The same decision on the σ_B = 0 runs (the retired reading) does not see the growth: the violation is
    Algorithm 1's preconditioner noise, not the rule."""

    g, Ts, outs, trg, reg, _, _, _ = regret._cor3_fits("quick", 0)
    keep, crit = regret._cor3_window(Ts, outs)
    d = decide.rate(Ts, [np.asarray(o["regret"]) * T / np.asarray(o["trG"]) for T, o in zip(Ts, outs)], axis="T",
                    asymptotic=keep, criterion=crit)
    assert d.verdict != "violated" and d.estimate < 0.2


def test_theorem31_negative_control_a_tenfold_smaller_bound_fails_even_without_noise(monkeypatch):
    real = tn.theorem3_1_bound()
    monkeypatch.setattr(tn, "theorem3_1_bound", lambda with_lemma12_factor=False: real / 10)
    out = regret.theorem3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["rho"] == 0.0


def test_corollary3_ratio_is_the_regret_over_the_declared_rate(monkeypatch):
    """The decided ratio's denominator is corollary3_rate: doubling the rate halves every reported ratio."""
    base = regret.corollary3_algorithm1("quick", 0).numbers
    monkeypatch.setattr(tn, "corollary3_rate", lambda: 2 * (tn.trG / tn.T + tn.gamma))
    doubled = regret.corollary3_algorithm1("quick", 0).numbers
    assert doubled["ratio_last"] == pytest.approx(base["ratio_last"] / 2, rel=1e-12)
    assert doubled["ratio_first"] == pytest.approx(base["ratio_first"] / 2, rel=1e-12)


# ---- noisy_adagrad.theorem3.1.gamma ------------------------------------------------------------------------------
def test_theorem3_1_gamma_is_violated_smallest_case_p2_k1():
    out = check_quick("noisy_adagrad.theorem3.1.gamma")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["p"] == 2 and out.counterexample["k"] == 1
    assert out.counterexample["gaps_at_solutions"] == [0.0]
    assert out.numbers["gaps_strictly_between_0_and_1"] == 0 and out.numbers["pairs_satisfying_hypothesis"] > 100
    exact = tn.theorem3_1_gamma_p2k1()
    assert set(exact["gaps"]) == {0}


def test_theorem3_1_gamma_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("theorem3_1_gamma")
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact): every oracle satisfying") and "gap 0 or 1" in s
    assert [p["part"] for p in out.points][-1] == "rotated oracles (hypothesis dropped)"
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_theorem3_1_gamma_rotated_oracle_breaks_hypothesis_by_its_gap():
    e1 = np.array([[1.0], [0.0]])
    a = 0.3
    vt = np.array([[math.cos(a)], [math.sin(a)]])
    assert tn.theorem3_1_assumption_residual(e1, vt) == pytest.approx(math.sin(a), abs=1e-15)
    assert tn.subspace_gap(e1, vt) == pytest.approx(math.sin(a), abs=1e-15)


def test_theorem3_1_gamma_mutant_dropping_the_hypothesis_turns_it():
    assert mutant_verdict("noisy_adagrad.theorem3.1.gamma", "theorem3_1_assumption_residual:dropped") == "holds"


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.1's repair mutant (eq. (25) for σ_B = 0)
# ---------------------------------------------------------------------------------------------------------------
def test_theorem31_declares_the_sigma_b_zero_repair_and_it_holds():
    c = load_all()["noisy_adagrad.theorem3.1"]
    (m,) = [m for m in c.mutants if m.name == "theorem3_1:sigma_B_zero"]
    with m.apply():
        assert regret.THM31["quick"]["rhos"] == (0.0,)
        out = regret.theorem3_1("quick", 0)
    assert regret.THM31["quick"]["rhos"][-1] == 1000.0  # restored
    assert out.verdict == "holds" and len(out.decisions) == 1


def test_theorem31_repair_can_fail(monkeypatch):
    """The repaired statement with a bound ten times too small (eq. (25) ×0.1) is violated at σ_B = 0."""
    real = tn.theorem3_1_bound
    monkeypatch.setattr(tn, "theorem3_1_bound", lambda: real() / 10)
    with regret._thm31_sigma_b_zero():
        out = regret.theorem3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["rho"] == 0.0


# ---------------------------------------------------------------------------------------------------------------
# Theorem3_1_eta mutants of noisy_adagrad.theorem3.1 are another instance of a ∀η statement
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mutation", list(mutants.THEORY_MUTATIONS), ids=lambda m: m[0])
def test_theorem31_eta_mutants_are_a_finite_positive_learning_rate_and_declared(mutation):
    name, _, fn, _ = mutation
    eta = fn(tn.theorem3_1_eta()).subs(tn.C, 2 * regret.THM31_RADIUS)  # the claim's C = 2
    assert eta.is_finite and eta.is_positive, (name, eta)
    assert float(eta) != pytest.approx(float(tn.theorem3_1_eta().subs(tn.C, 2)))  # a different instance is tested
    assert ("noisy_adagrad.theorem3.1", f"theorem3_1_eta:{name}") in mutants.EQUIVALENT
    # the reason rests on (25) being stated for every learning rate: the paper's wording, and the claim's bound
    # takes η as a free symbol (not the minimiser substituted)
    assert tn.eta in tn.theorem3_1_bound().free_symbols


def test_cor3_algorithm1_decision_does_not_use_eq25(monkeypatch):
    """The reason of the theorem3_1_bound equivalences of noisy_adagrad.corollary3.algorithm1: the decision is the
    same whatever eq. (25)'s values (only the reported envelope changes)."""
    g = dict(regret.COR3["quick"])
    Ts = np.array(g["Ts"], float)
    rng = np.random.default_rng(3)
    trg = 2.0 * Ts ** 0.25
    base = [dict(regret=0.5 * T ** -0.5 * (1 + 0.05 * rng.standard_normal(8)), trG=np.full(8, tg),
                 bound25=np.full(8, 1.0), indefinite_frac=np.zeros(8), lipschitz=1.0) for T, tg in zip(Ts, trg)]
    monkeypatch.setattr(regret, "_cor3_probe", lambda budget, seed: _common._Probe(True, 0.0, "probe passed"))

    def run(scale):
        outs = [dict(o, bound25=o["bound25"] * scale(T)) for o, T in zip(base, Ts)]
        reg = np.array([np.mean(o["regret"]) for o in outs])
        monkeypatch.setattr(regret, "_cor3_fits",
                            lambda budget, seed, precond: (g, Ts, outs, trg, reg, None, None, None))
        out = regret.corollary3_algorithm1("quick", 0)
        return out.verdict, out.numbers["slope"], out.numbers["envelope_last"]

    a, b = run(lambda T: 1.0), run(lambda T: 7.0 * T**0.5)
    assert a[:2] == b[:2] and a[2] != b[2]
    assert ("noisy_adagrad.corollary3.algorithm1", "theorem3_1_bound:pow1.25") in mutants.EQUIVALENT


# ---------------------------------------------------------------------------------------------------------------
# "Still false" equivalences of the violated claims theorem3.1 and corollary6, each evaluated
# under the very mutation verify.mutants applies, at an exact counterexample
# ---------------------------------------------------------------------------------------------------------------
def _theory_mutant(fn_name: str, name: str):
    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(f"theory.noisy_adagrad.{fn_name}", name, "", fn)


def _still_false(cid: str, mutant: str) -> str:
    load_all()
    reason = mutants.EQUIVALENT[(cid, mutant)]
    assert reason.startswith("the mutated statement is still false")
    return reason


def _thm31_kink_point():
    """(the exact lower bound η(√T − √2)/T on the average regret, the substitution) of the |θ| counterexample."""
    cx = regret.THM31_POW125_COUNTEREXAMPLE
    T, C = sp.Integer(cx["T"]), sp.Integer(cx["C"])
    eta = tn.theorem3_1_eta().subs(tn.C, C)  # the check's η = C√(3/8)
    vals = {tn.C: C, tn.eta: eta, tn.T: T, tn.trG: sp.sqrt(T), tn.noise_sum: cx["noise_sum"], tn.L: cx["L"],
            tn.gamma: cx["gamma"]}
    return eta * (sp.sqrt(T) - sp.sqrt(2)) / T, vals


def test_theorem31_pow125_bound_is_below_an_exact_regret_lower_bound():
    _still_false("noisy_adagrad.theorem3.1", "theorem3_1_bound:pow1.25")
    lower, vals = _thm31_kink_point()
    with _theory_mutant("theorem3_1_bound", "pow1.25").apply():
        mutated = tn.theorem3_1_bound().subs(vals)
    assert sp.simplify(mutated - tn.theorem3_1_bound().subs(vals)) != 0  # the mutation was in force
    assert sp.N(lower - mutated, 30) > 0 and float(mutated) == pytest.approx(6.96e-4, rel=1e-3)
    assert float(lower) == pytest.approx(1.223e-3, rel=1e-3)


def test_theorem31_the_kink_comparison_can_fail_unmutated():
    """Eq. (25) itself is not refuted by the same lower bound (the comparison says so when it should)."""
    lower, vals = _thm31_kink_point()
    bound = tn.theorem3_1_bound().subs(vals)
    assert sp.N(bound - lower, 30) > 0 and float(bound) == pytest.approx(3.266e-3, rel=1e-3)


def test_theorem31_kink_lower_bound_matches_the_run():
    """The argument's premises on the run itself (float, T = 2·10⁴): one projection, Σ|θ_t| ≥ η(√T − √2)."""
    eta, T = float(tn.theorem3_1_eta().subs(tn.C, 2)), 20000
    theta, total, projected = 0.0, 0.0, 0
    for t in range(1, T + 1):
        total += abs(theta)
        y = theta - eta * (1.0 if theta >= 0 else -1.0) / math.sqrt(t)  # G_t = √t: every |∇_s| = 1
        projected += abs(y) > 1.0
        theta = min(1.0, max(-1.0, y))
    assert projected == 1 and total >= eta * (math.sqrt(T) - math.sqrt(2))


@pytest.fixture
def tiny(monkeypatch):
    """The regret claims on a tiny grid (the probe is the part under test; the grid only has to run)."""
    monkeypatch.setitem(regret.THM31, "quick", dict(p=8, n=40, k=2, T=30, trials=2, rhos=(0.0, 1.0), gammas=(0.2,),
                                                clip_rhos=(1.0,)))
    monkeypatch.setitem(regret.COR3, "quick", dict(Ts=(40, 80, 160), trials=3, p=8, n=40, k=2))
    for f in (regret._thm31_scale, regret._cor3_runs, regret._cor3_probe):
        f.cache_clear()
    yield
    for f in (regret._thm31_scale, regret._cor3_runs, regret._cor3_probe):
        f.cache_clear()


@pytest.mark.parametrize("check", ["theorem3_1", "corollary3_algorithm1", "theorem3_1_o_form"])
def test_regret_claims_are_inconclusive_when_the_kernel_adds_three_times_the_noise(tiny, check):
    fn = getattr(regret, check)
    base = fn("quick", 0)
    assert base.numbers["kernel_probe_rel_diff"] <= _common.NA_PROBE_RTOL
    assert not base.evidence.startswith("inconclusive: kernel probe")
    for f in (regret._thm31_scale, regret._cor3_runs, regret._cor3_probe):
        f.cache_clear()
    with faults.inject(noise_scale=3.0):
        out = fn("quick", 0)
    assert out.verdict == "inconclusive" and out.counterexample is None
    assert out.evidence.startswith("inconclusive: kernel probe")


def test_theorem31_gamma_finding_is_vacuous_no_admitted_oracle_has_a_gap_in_0_1(quick):
    """Under the hypothesis every oracle's gap is 0 or 1 (the SymPy case and 1589 seeded pairs): the γ term is zero
    or trivial, which the check computes: vacuous; dropping the hypothesis admits gaps in (0, 1)."""
    f = quick("theorem3_1_gamma").finding
    assert f is not None and f.scope == "vacuous" and f.vacuous
    assert f.region.explored == f.region.failing == 1590  # quick, seed 0: 1589 pairs + the SymPy case
    assert f.at_paper_setting.fails and f.at_paper_setting.size == 0.0
    assert f.repair.verdict == "holds" and f.repair.evidence.startswith("1292 rotated oracles")


def test_theorem31_finding_is_in_regime_at_algorithm1s_noise_and_sigma_B_zero_repair_holds(quick):
    """eq. (25) fails at ρ = 0.3 and 1 of the quick grid, and at Algorithm 1's σ_B = λ_min⁺ (ρ = 1) by ≈ 2×: in the
    regime; the σ_B = 0 statement holds in the same run."""
    f = quick("theorem3_1").finding
    assert f is not None and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing, f.region.edge) == (7, 2, "")
    assert "= 0.3, 1 of the grid" in f.region.text
    assert f.at_paper_setting.fails and 1.5 < f.at_paper_setting.size < 2.5
    assert f.repair.verdict == "holds" and "σ_B = 0" in f.repair.statement


def test_rate_findings_grow_along_the_whole_window_at_algorithm1s_noise(quick):
    """Corollary 3, the O-form (13) and Remark 4 with Algorithm 1's σ_B(t) = λ_min⁺(G_t): the ratio grows faster
    than T^0.1 at every window point after the first (no edge: in the regime); the σ_B = 0 repairs decided the same
    way: Remark 4's holds, Corollary 3's and the O-form's stay undecided (slope near the margin)."""
    want = {"corollary3_algorithm1": (4.0, 5.5, "inconclusive"), "theorem3_1_o_form": (4.0, 5.5, "inconclusive"),
            "remark4_algorithm1": (2.0, 3.5, "holds")}
    for name, (lo, hi, repair) in want.items():
        out = quick(name)
        f = out.finding
        assert out.verdict == "violated" and f is not None and f.scope == "in_regime", name
        assert (f.region.explored, f.region.failing, f.region.edge) == (7, 6, ""), name
        assert f.at_paper_setting.fails and lo < f.at_paper_setting.size < hi, name
        assert f.repair.verdict == repair and "σ_B = 0" in f.repair.statement, name


def test_remark4_is_the_sigma_B_zero_statement_and_holds(quick):
    r4 = quick("remark4")
    assert r4.verdict == "holds" and r4.finding is None
    assert "σ_B = 0" in registry.REGISTRY["noisy_adagrad.remark4"].statement
    assert "λ_min⁺(G_t)" in registry.REGISTRY["noisy_adagrad.remark4.algorithm1"].statement
    r4a = quick("remark4_algorithm1")  # Algorithm 1's noise: Tr(G_T) keeps its rate, the regret loses T^(−5/8)
    d_tr, d_reg = r4a.decisions
    assert r4a.verdict == "violated" and str(d_tr.verdict) == "holds" and str(d_reg.verdict) == "violated"
    assert r4a.numbers["regret_slope"] > r4.numbers["regret_slope"] + 0.15


def test_theorem31_finding_of_a_grid_without_rho_one_is_still_recorded(monkeypatch):
    """A violation on a grid that lacks Algorithm 1's ρ = 1 (here the σ_B = 0 repair with a tenfold smaller bound)
    still carries a finding: the paper's setting not reached (NaN, not failing), the failure counted on the grid."""
    real = tn.theorem3_1_bound
    monkeypatch.setattr(tn, "theorem3_1_bound", lambda: real() / 10)
    with regret._thm31_sigma_b_zero():
        out = regret.theorem3_1("quick", 0)
    f = out.finding
    assert out.verdict == "violated" and f is not None and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (1, 1)
    assert not f.at_paper_setting.fails and math.isnan(f.at_paper_setting.size)
    assert f.repair.verdict == "violated"


def test_remark4_finding_when_its_trace_exponent_is_the_wrong_one(monkeypatch):
    """Remark 4 with the trace exponent 0 (Tr(G_T) = O(1)): Tr(G_T) grows like T^{1/4} on σ_B = 0 runs, so the trace
    decision fails; the finding counts the two decisions, names the growing one and gives no repair."""
    real = tn.remark4_exponents
    monkeypatch.setattr(tn, "remark4_exponents", lambda: (sp.Integer(0), real()[1]))
    out = regret.remark4("quick", 0)
    assert out.verdict == "violated"
    f = out.finding
    assert f is not None and f.scope == "in_regime" and f.repair is None
    assert f.region.explored == 2 and f.region.failing >= 1 and "Tr(G_T)/T^(3/8) along T" in f.region.text
    assert f.at_paper_setting.size > 1.0 and not f.at_paper_setting.fails
