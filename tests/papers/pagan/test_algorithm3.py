"""Algorithm 3's privacy (:mod:`verify.papers.pagan.algorithm3`): the privacy calibration against the kernel and
the accountant, ε > 4 and the declared equivalences of the rounds mutants (Theorem 3's accuracy:
``test_theorem3.py``).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

import kernels
import kernels.moments
from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import numeric
from theory import pagan as tp
from verify import mutants, registry
from verify.papers.pagan import algorithm3
from verify.privacy import gaussian_epsilon_interval
from verify.registry import REGISTRY, load_all

# --------------------------------------------------------------------------------------
# pagan.algorithm3.privacy
# --------------------------------------------------------------------------------------
A3 = "pagan.algorithm3.privacy"


CID = "pagan.algorithm3.privacy.large_eps"


def _mutant(name):
    registry.load_all()
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[CID]) if m.name == name]
    return m


ROUND_MUTANTS = ("x10", "pow1.25")


def _mutated_rounds(name: str) -> sp.Expr:
    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.mutate_value(tp.algorithm3_rounds(), fn)


def test_algorithm3_calibration_matches_the_kernel():
    for d in (10, 100):
        cal = algorithm3.alg3_calibration(d, 1.0, 1e-5)
        assert cal["rounds_ok"] and cal["sensitivity_ok"] and cal["noise_ok"]
        assert abs(cal["sensitivity_gap"]) < 1e-12  # the declared sensitivity is attained


def test_algorithm3_too_small_sensitivity_is_refuted():
    c = claim_by_id(A3)
    out = run_under(c, generic_mutant(A3, "algorithm3_sensitivity:x0.1"))
    assert out.verdict == "violated"
    assert out.counterexample["attained_over_declared_sensitivity"] == pytest.approx(10.0)
    f = out.finding  # every quick grid point's declared sensitivity is exceeded ×10; §6.1's points are on the grid
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing) == (4, 4) and f.repair is None
    assert "declared sensitivity exceeded" in f.region.text
    assert f.at_paper_setting.where.startswith("§6.1") and f.at_paper_setting.fails
    out = run_under(c, generic_mutant(A3, "algorithm3_sensitivity:pow1.25"))
    assert out.verdict == "violated" and out.numbers["calibration_points_sensitivity_exceeded"] > 0


def test_algorithm3_sensitivity_with_a_wrong_power_of_n_is_exceeded_at_small_n():
    """The sensitivity check runs at every n of ALG3_PRIVACY_NS.  x^(3/4): declared ρ^{3/2}d^{3/8}/n^{3/4}
    against the attained ρ²√d/n, ratio ρ^{1/2}d^{1/8}/n^{1/4}: below 1 at n = 1000 (the only n checked before:
    2·100^{1/8}/1000^{1/4} = 0.63 at d = 100, ρ_1 = 4), exactly 2 at n = 10 (100^{1/8} = 10^{1/4})."""
    m = generic_mutant(A3, "algorithm3_sensitivity:pow0.75")
    with m.apply():
        assert algorithm3.alg3_calibration(100, 0.1, 1e-5, n=1000)["sensitivity_ok"]
        cal = algorithm3.alg3_calibration(100, 0.1, 1e-5, n=10)
        assert not cal["sensitivity_ok"] and cal["t"] == 1 and cal["sensitivity_gap"] == pytest.approx(1.0, rel=1e-12)
    out = run_under(claim_by_id(A3), m)
    assert out.verdict == "violated" and out.counterexample["n"] == 10 and out.counterexample["d"] == 100
    assert out.counterexample["attained_over_declared_sensitivity"] == pytest.approx(2.0, rel=1e-12)


def test_algorithm3_calibration_is_checked_at_every_n_unmutated():
    for n in algorithm3.ALG3_PRIVACY_NS:
        cal = algorithm3.alg3_calibration(100, 0.1, 1e-5, n=n)
        assert cal["rounds_ok"] and cal["sensitivity_ok"] and cal["noise_ok"] and abs(cal["sensitivity_gap"]) < 1e-12


@pytest.mark.parametrize("name", ["algorithm3_rounds:x10", "algorithm3_rounds:pow1.25", "algorithm3_rounds:pow0.75",
                                  "algorithm3_noise_multiplier:pow1.25"])
def test_algorithm3_calibration_other_than_the_run_is_not_certified(name):
    c = claim_by_id(A3)
    out = run_under(c, generic_mutant(A3, name))
    assert out.verdict == "inconclusive"
    assert out.numbers["calibration_points_mismatched"] > 0


def test_algorithm3_rounds_not_an_integer_is_never_truncated():
    # ×0.1: T = ⌈(3/2)log₂ d⌉/10 is 1/2 at d = 10 (no round count: undecided there, not a crash) and 1 at d = 100,
    # where one round with multiplier √(log(1/δ))/ε is accounted: ε = 1 is exceeded (the mutated statement is false)
    m = generic_mutant(A3, "algorithm3_rounds:x0.1")
    with m.apply():
        assert algorithm3.alg3_declared_rounds(10) is None and algorithm3.alg3_declared_rounds(100) == 1
        assert algorithm3._alg3_task(10, 1.0, 1e-5)["rounds_valid"] is False
        cal = algorithm3.alg3_calibration(10, 1.0, 1e-5)
        assert not cal["rounds_ok"] and not cal["noise_ok"]
    out = run_under(claim_by_id(A3), m)
    assert out.verdict == "violated" and out.counterexample["d"] == 100 and out.counterexample["rounds"] == 1
    assert out.numbers["points_unsure"] >= 2 and math.isfinite(out.numbers["max_eps_ratio"])
    assert algorithm3.alg3_declared_rounds(10) == 5  # unmutated: ⌈(3/2)·log₂ 10⌉


def test_algorithm3_unmutated_quick_holds_with_calibration_checked():
    out = claim_by_id(A3).check("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["calibration_points_sensitivity_exceeded"] == 0
    assert out.numbers["calibration_points_mismatched"] == 0
    assert out.numbers["declared_mechanism_points_broken"] == 0
    assert 0 < out.numbers["declared_mechanism_max_eps_ratio"] < 1


def test_algorithm3_declared_mechanism_is_the_accounted_one_unmutated():
    # per round std/change = T·√(log(T/δ))/ε at every ρ_t and n, so the T rounds compose into z = √T·√(log(T/δ))/ε
    for n in algorithm3.ALG3_PRIVACY_NS:
        x = algorithm3.alg3_declared_epsilon(10, 1.0, 1e-5, ns=(n,))
        assert x["decided"] and x["z"] == pytest.approx(math.sqrt(5 * math.log(5 / 1e-5)), rel=1e-12)
        assert x["eps_lo"] < 1.0
    with pytest.raises(ValueError):
        algorithm3.alg3_declared_epsilon(10, 1.0, 1e-5, ns=())


@pytest.mark.parametrize("name, n", [("algorithm3_noise_variance:pow1.25", 100_000),
                                     ("algorithm3_noise_variance:pow0.75", 10)])
def test_algorithm3_declared_variance_with_a_wrong_power_is_refuted(name, n):
    # the mutated std over the attained change depends on n (n^{-1/4} or n^{1/4}) and ρ_t: at some n of
    # ALG3_PRIVACY_NS the declared mechanism's exact ε exceeds the promise (d = 10: ε = 1 for pow1.25, 0.1 for pow0.75)
    m = generic_mutant(A3, name)
    with m.apply():
        eps = 1.0 if name.endswith("pow1.25") else 0.1
        x = algorithm3.alg3_declared_epsilon(10, eps, 1e-5)
        assert x["decided"] and x["eps_lo"] > eps and x["n"] == n


def test_algorithm3_declared_mechanism_refutes_the_claim():
    out = run_under(claim_by_id(A3), generic_mutant(A3, "algorithm3_noise_variance:pow0.75"))
    assert out.verdict == "violated" and out.numbers["declared_mechanism_points_broken"] > 0
    assert out.counterexample["exact_eps_lower"] > out.counterexample["epsilon"]


def test_the_counterexample_recomputed_three_ways():
    r = algorithm3.alg3_large_eps_point(2, 64.0, 1e-5)
    z = 2 * math.sqrt(math.log(2 / 1e-5)) / 64  # T·√(log(T/δ))/ε at T = 2
    assert r["rounds"] == 2 and r["released"] == 1 and r["noise_multiplier"] == pytest.approx(z, rel=1e-12)
    assert r["eps_lo"] > 64.0 and r["eps_lo"] == pytest.approx(80.1901, abs=1e-4)
    # the PLD of the one released round agrees, and even its optimistic (lower) end breaks the promise
    lo, hi = gaussian_epsilon_interval(z, 1e-5, 1)
    assert 64.0 < lo <= r["eps_hi"] and r["eps_lo"] <= hi


def test_the_last_round_is_not_released_so_the_transcript_alarm_at_eps_16_is_gone():
    """At d = 2, ε = 16 the two-round transcript has ε 18.42 > 16, but σ̂ depends on the first round only (11.83)."""
    r = algorithm3.alg3_large_eps_point(2, 16.0, 1e-5)
    assert r["transcript_eps_lo"] == pytest.approx(18.4192, abs=1e-4)
    assert r["eps_hi"] == pytest.approx(11.826, abs=1e-3) and r["eps_hi"] < 16.0
    assert algorithm3.alg3_released_rounds(5) == 4
    with pytest.raises(ValueError, match="rounds"):
        algorithm3.alg3_released_rounds(0)


def test_the_claim_is_violated_and_names_the_smallest_point():
    out = algorithm3.algorithm3_large_eps("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and (ex["d"], ex["epsilon"], ex["delta"]) == (2, 64.0, 1e-5)
    assert out.numbers["points_undecided"] == 0 and out.numbers["points_broken"] == 3
    # and the main claim's grid (ε ≤ 4) keeps the promise at the same d: the failure is at large ε only
    assert algorithm3.alg3_large_eps_point(2, 4.0, 1e-5)["eps_hi"] < 4.0


def test_large_eps_finding_is_a_boundary_above_eps_32_with_the_paper_setting_kept():
    f = algorithm3.algorithm3_large_eps("quick", 0).finding
    assert f.scope == "boundary"
    assert f.region.edge.startswith("ε > 32")
    assert (f.region.explored, f.region.failing, f.region.failing_on_edge, f.region.holding_off_edge) == (32, 3, 3, 24)
    assert not f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(0.3068, abs=1e-3)
    assert f.repair.verdict == "holds" and "ε ≤ 32" in f.repair.statement


def test_a_calibration_with_ten_times_the_noise_holds_everywhere():
    """The check can say holds (refuting the mutant that multiplies the multiplier by 10)."""
    with _mutant("algorithm3_noise_multiplier:x10").apply():
        out = algorithm3.algorithm3_large_eps("quick", 0)
    assert out.verdict == "holds" and out.numbers["points_broken"] == 0


@pytest.mark.parametrize("name", sorted(algorithm3.ALG3_LARGE_EPS_STILL_FALSE))
def test_still_false_mutants_fail_at_their_declared_point(name):
    assert mutants.EQUIVALENT[(CID, name)].startswith("the mutated statement is still false")
    (d, e, dl), _ = algorithm3.ALG3_LARGE_EPS_STILL_FALSE[name]
    with _mutant(name).apply():
        r = algorithm3.alg3_large_eps_point(d, e, dl)
    assert r["decided"] and r["eps_lo"] > e, (name, r)


@pytest.mark.parametrize("name", ROUND_MUTANTS)
def test_the_rounds_mutants_are_declared(name):
    assert ("pagan.algorithm3.privacy", f"algorithm3_rounds:{name}") in mutants.EQUIVALENT
    assert ("pagan.algorithm3.privacy", "algorithm3_rounds:pow0.75") not in mutants.EQUIVALENT  # fewer rounds


def test_the_mutated_round_counts_are_at_least_t_at_every_d():
    T = tp.algorithm3_rounds()
    arg = T.args[0]  # T = ⌈arg⌉ with arg = (3/2)·log₂ d ≥ 0 for d ≥ 1
    assert isinstance(T, sp.ceiling) and arg.subs(tp.d, 1) == 0 and sp.diff(arg, tp.d).is_positive
    # ×10: 10·⌈arg⌉ ≥ ⌈arg⌉ since ⌈arg⌉ ≥ 0; x^(5/4): the ceiling's argument is (5/4)·arg ≥ arg (ceiling monotone)
    assert sp.simplify(_mutated_rounds("x10") - 10 * T) == 0
    up = _mutated_rounds("pow1.25")
    assert isinstance(up, sp.ceiling) and sp.simplify(sp.expand_log(up.args[0]) - sp.Rational(5, 4) * arg) == 0
    # and exactly (SymPy integers), at every d up to 64 and at the claim's grid d
    for d in sorted(set(range(2, 65)) | set(algorithm3.ALG3_GRIDS["full"]["d"])):
        t = int(T.subs(tp.d, d))
        assert t >= 1 and all(int(_mutated_rounds(m).subs(tp.d, d)) >= t for m in ROUND_MUTANTS)


def test_the_composed_multiplier_grows_with_the_rounds():
    # the per-round multiplier is free of ρ, n and d, so T rounds compose into one Gaussian with Z² = z²/T
    z = tp.algorithm3_noise_multiplier()
    assert not (z.free_symbols & {tp.rho, tp.n, tp.d})
    Z2 = sp.simplify(z**2 / tp.T)
    dZ2 = sp.diff(Z2, tp.T)
    u, w = sp.Symbol("u", nonnegative=True), sp.Symbol("w", positive=True)  # T = 1 + u ≥ 1, δ = 1/(1 + w) ∈ (0, 1)
    at = sp.expand_log(sp.simplify(dZ2.subs({tp.T: 1 + u, tp.delta: 1 / (1 + w)}) * tp.epsilon**2), force=True)
    assert at.is_positive, at


def test_a_formula_whose_multiplier_shrinks_with_t_would_fail_the_same_check():
    # control: per-round multiplier √(log(T/δ))/ε (the T of the per-round ε/T dropped) composes to
    # Z² = log(T/δ)/(T ε²), decreasing in T for T > e/δ: not positive for every T ≥ 1
    Z2 = sp.log(tp.T / tp.delta) / (tp.T * tp.epsilon**2)
    u, w = sp.Symbol("u", nonnegative=True), sp.Symbol("w", positive=True)
    at = sp.expand_log(sp.simplify(sp.diff(Z2, tp.T).subs({tp.T: 1 + u, tp.delta: 1 / (1 + w)}) * tp.epsilon**2),
                       force=True)
    assert at.is_positive is not True


@pytest.mark.parametrize("name", ROUND_MUTANTS)
def test_the_declared_mechanism_is_no_less_private_under_the_mutant(name, monkeypatch):
    """The claim's own exact accounting (alg3_declared_epsilon) at a few grid points: ε under the mutant ≤ ε without."""
    pts = [(10, 0.1, 1e-5), (100, 1.0, 1e-5), (1000, 4.0, 1e-8)]
    base = [algorithm3.alg3_declared_epsilon(d, e, dl)["eps_hi"] for d, e, dl in pts]
    mutated = _mutated_rounds(name)
    monkeypatch.setattr(tp, "algorithm3_rounds", lambda: mutated)
    for (d, e, dl), b in zip(pts, base):
        x = algorithm3.alg3_declared_epsilon(d, e, dl)
        assert x["decided"] and x["eps_lo"] <= b and math.isfinite(x["eps_lo"]), (d, e, dl, x, b)


def test_algorithm3_privacy_quick_holds_on_the_t2_reading():
    out = algorithm3.algorithm3("quick", 0)
    assert out.verdict == "holds" and out.counterexample is None
    assert out.numbers["points_broken"] == 0 and out.numbers["max_eps_ratio"] <= 1.0
    # the other reading (one power of T) is recorded beside it: it breaks the promise at quick
    assert out.numbers["t1_points_broken"] == 2 and out.numbers["t1_max_eps_ratio"] > 1.0

    load_all()
    assert "pagan.algorithm3.privacy" in REGISTRY and "pagan.algorithm3" not in REGISTRY  # retired


def test_algorithm3_t2_multiplier_is_the_derived_one():
    """Line 5 read with T²: std ρ²·T·√(d log(T/δ))/(nε) over sensitivity ρ²√d/n is T·√log(T/δ)/ε; the kernel's
    noise std is the same formula."""

    z = float(numeric(tp.algorithm3_noise_multiplier())(T=5, delta=1e-5, epsilon=1.0))
    assert z == pytest.approx(5 * math.sqrt(math.log(5 / 1e-5)))
    std = kernels.moments.noise_std(0.5, 5, 10, 1000, 1.0, 1e-5)
    assert std == pytest.approx(0.25 * z * math.sqrt(10) / 1000, rel=1e-12)


def test_algorithm3_pinned_counterexample_recomputed():
    """The one-T reading (retired pagan.algorithm3): d = 10 ⇒ T = 5 rounds, multiplier √(5·log(5/δ))/ε; five
    composed Gaussians exceed ε = 1 at δ = 1e-5 (dp-accounting's optimistic PLD, a lower bound on the true ε)."""

    z = math.sqrt(5 * math.log(5 / 1e-5)) / 1.0
    lo, hi = gaussian_epsilon_interval(z, 1e-5, 5)
    assert lo > 1.0 and hi >= lo  # even the lower bound breaks the promise ε = 1
    # and with ε = 0.1 at the same δ the promise is kept
    assert gaussian_epsilon_interval(math.sqrt(5 * math.log(5 / 1e-5)) / 0.1, 1e-5, 5)[1] <= 0.1
