"""Theorem 1 (:mod:`verify.papers.adadps.privacy`, ``adadps.theorem1``): the quick verdict, the rule that refutes a
c₁ too large, the σ search, and why the declared theory mutants of the required c₂ are equivalent."""

import logging
import math

import pytest

from tests.verify.evidence_support import lost_numbers
from theory import adadps as ta
from verify import mutants, registry
from verify.papers.adadps import privacy
from verify.privacy import dp_sgd_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_theorem1_is_undecided_at_quick_growth_that_levels_off_does_not_refute(quick):
    """At quick the needed c₂ of q = 0.01, r = 0.1 grows over the decade (least growth the accountant brackets allow
    > 0.1: the first rule's 'violated') but not over its last interval: c₂ rises towards its Gaussian-regime value
    as ε goes from 1e-3 to 1e-2, no sign of an unbounded c₂.  So no refutation, and not holds."""
    out = quick["theorem1"]
    f = out.numbers
    assert out.verdict == "inconclusive" and out.decisions == [] and out.counterexample is None
    assert f["max_least_growth_in_T_at_smallest_r"] > privacy.T1_SLOPE_MARGIN
    assert f["max_least_growth_last_interval_at_smallest_r"] <= privacy.T1_SLOPE_MARGIN
    assert 0 < f["c2_needed_min"] <= f["c2_needed_max"] < 10
    assert "would decide" in out.evidence


def test_theorem1_summary_and_one_point_per_series_keep_every_number_of_its_evidence(quick):
    """Theorem 1's evidence reads as one short sentence (the c₂ bracket, the series' verdicts) and one point per
    series plus the grid's; no number of the evidence is lost."""
    out = quick["theorem1"]
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240 and ". " not in out.summary
    series = [p for p in out.points if "verdict" in p]
    assert series and all(p["series"].replace(", ", ",") + ": " + p["verdict"] in out.evidence for p in series)
    assert lost_numbers(out.evidence, out.summary, out.points) == []
    assert lost_numbers(out.evidence, out.summary, series)  # the grid's row carries numbers too


def test_theorem1_refutes_c1_0_1_once_epsilon_is_large(monkeypatch):
    """Power of the rule: at q = 0.1, ε = 0.1·q²T, T = 10³..10⁴ (ε = 1..10) the needed c₂ keeps growing through
    the top of the range (c₂ ∝ √ε once ε ≫ log 1/δ), so c₁ = 0.1 needs an unbounded c₂: violated, exactly."""
    monkeypatch.setitem(privacy.T1_GRIDS, "quick", dict(q=(0.1,), T=(1000, 3000, 10000), r=(0.1,), delta=(1e-5,)))
    out = privacy.theorem1("quick", 0)
    assert out.verdict == "violated"
    ce = out.counterexample
    assert ce["growth_min"] > privacy.T1_SLOPE_MARGIN and ce["growth_min_last"] > privacy.T1_SLOPE_MARGIN
    assert ce["c2_lo"][-1] > ce["c2_hi"][0]  # needed c₂ at T = 10⁴ certainly above the one at T = 10³
    # the finding: in the regime (ε = 1..10, inside ε < c₁q²T), the series is the one explored; keeping ε under the
    # root, σ ≥ c₂·q√(T(log(1/δ) + ε))/ε, the same rule finds c₂ bounded
    f = out.finding
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing, f.region.edge) == (1, 1, "")
    assert "ε 1…10 over T = 1,000…10,000" in f.region.text
    assert f.repair.verdict == "holds" and "log(1/δ) + ε" in f.repair.statement
    assert not f.at_paper_setting.fails and "IMDB" in f.at_paper_setting.where


def _t1_row(q, r, growth, verdict, delta=1e-5):
    """A synthetic theorem1 series: c₂ = 1.0·(T/10³)^growth over T = 10³..10⁴ (bracket ±1%)."""
    Ts = [1000, 3000, 10000]
    c2 = [(T / 1000) ** growth for T in Ts]
    return dict(q=q, r=r, delta=delta, verdict=verdict, T=Ts, c2_hi=[c * 1.01 for c in c2],
                c2_lo=[c * 0.99 for c in c2], sigma_hi=[5.0] * 3, epsilon=[r * q * q * T for T in Ts])


def test_theorem1_finding_counts_the_series_at_the_smallest_r_and_decides_the_repair():
    """Only the series at the smallest r are the statement's points (c₁ = r_min); the repair rescales c₂ by
    √(log(1/δ)/(log(1/δ) + ε)) and reruns the rule: a √ε-like growth at ε = 1..10 is absorbed, a T^0.5 growth at
    tiny ε is not (the repair is then violated)."""
    rows = [_t1_row(0.1, 0.1, 0.13, "violated"), _t1_row(0.01, 0.1, 0.0, "holds"),
            _t1_row(0.1, 0.5, 0.3, "violated")]
    f = privacy._t1_finding(rows, 0.1)
    assert (f.region.explored, f.region.failing) == (2, 1) and f.scope == "in_regime"
    assert f.repair.verdict == "holds"
    steep = [_t1_row(0.001, 0.1, 0.5, "violated")]  # ε ≤ 10⁻³: the rescaling changes nothing
    assert privacy._t1_finding(steep, 0.1).repair.verdict == "violated"


def test_theorem1_paper_setting_reads_T_off_the_accountant():
    """IMDB (q = 64/25,000, σ = 1, ε = 1.5, δ = 1/n): T is the last step count whose RDP ε is at most 1.5; the
    point lies outside ε < c₁q²T for c₁ = 0.1, and the needed c₂ there is σε/(q√(T log 1/δ))."""
    ps = privacy._t1_paper_setting(0.1)
    q, d = 64 / 25_000, 1 / 25_000
    T = int(ps.where.split("T = ")[1].split(" ")[0].replace(",", ""))
    assert dp_sgd_epsilon(q, 1.0, T, d, "rdp") <= 1.5 < dp_sgd_epsilon(q, 1.0, T + 1, d, "rdp")
    assert ps.size == pytest.approx(1.5 / (q * (T * math.log(25_000)) ** 0.5), rel=1e-12)
    assert not ps.fails and "outside the validity range" in ps.text


def test_theorem1_bracket_is_a_bracket():
    """σ_lo (optimistic PLD) ≤ σ_hi (RDP / pessimistic PLD), both within a few percent at a small-ε point."""
    r = privacy._t1_point(0.01, 100, 0.5 * 0.01**2 * 100, 1e-5)
    assert r["sigma_lo"] <= r["sigma_hi"] <= r["sigma_rdp"]
    assert r["sigma_hi"] / r["sigma_lo"] < 1.1
    # the RDP σ found really gives the promised ε, and 1% less noise does not (bisection bracket)
    s = privacy._sigma_for_epsilon(0.01, 1000, 0.5 * 0.01**2 * 1000, 1e-5)
    assert s["eps_at_sigma"] <= 0.05 < dp_sgd_epsilon(0.01, s["sigma"] * 0.99, 1000, 1e-5, "rdp")


def test_theorem1_search_computes_each_sigma_once_and_its_answer_eps_fresh(monkeypatch):
    """The σ search keeps the ε of each σ it tried: the PLD accountant runs once per distinct σ, and the ε returned
    for the answer is what a fresh accountant call gives (the same float)."""
    calls = []
    real = privacy._pld_subsampled_epsilon

    def counted(q, sigma, T, delta, vdi, pessimistic):
        calls.append(sigma)
        return real(q, sigma, T, delta, vdi, pessimistic)

    monkeypatch.setattr(privacy, "_pld_subsampled_epsilon", counted)
    q, T, eps = 0.1, 10, 0.1  # a short search (≈0.1 s): 10% precision
    s = privacy._sigma_for_epsilon(q, T, eps, 1e-5, "pld_upper", rel=0.1)
    assert calls and len(calls) == len(set(calls)) and s["sigma"] in calls
    vdi = privacy.T1_VDI_FRACTION * eps / T
    assert s["eps_at_sigma"] == real(q, s["sigma"], T, 1e-5, vdi, True) <= eps


def test_theorem1_required_c2_mutants_are_monotone_transforms_free_of_the_run():
    """The reason of the theorem1 equivalences, in SymPy: ×k gives k·c₂; x -> x^p gives k(δ)·c₂^p with k free of
    σ, ε, q and T (so c₂ bounded in T iff the mutated c₂ is)."""
    import sympy as sp


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


    c2 = ta.theorem1_required_c2()
    T = next(s for s in c2.free_symbols if s.name == "T")
    k = sp.simplify((c2 * sp.sqrt(T)) / c2)
    assert T in k.free_symbols
