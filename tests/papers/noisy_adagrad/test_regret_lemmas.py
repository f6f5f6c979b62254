"""The lemmas of Theorem 3.1's proof (:mod:`verify.papers.noisy_adagrad.regret_lemmas`): Lemmas 16 and 13 hold
with their worst ratios, Lemma 12 is violated as stated with its pinned counterexamples, the proof's form of Lemma 12,
and the declared mutants and negative controls that move each verdict."""

import re

import numpy as np
import pytest

from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import mutants
from verify.papers.noisy_adagrad import regret_lemmas
from verify.registry import load_all

from .support import memoised_quick


@pytest.fixture(scope="module")
def quick():
    return memoised_quick(regret_lemmas)


def test_lemma16_and_lemma13_hold_with_their_worst_ratios(quick):
    for name, key in (("lemma16", "min_slack_rounding_units"), ("lemma13", "min_slack_tolerance_units")):
        out = quick(name)
        assert out.verdict == "holds" and out.plots
        assert 0.5 < out.numbers["worst_ratio"] <= 1.0 and out.numbers[key] >= -1.0
        assert out.numbers["cases"] > 1000


def test_lemma12_is_violated_and_the_pin_is_recorded(quick):
    out = quick("lemma12")
    assert out.verdict == "violated"
    pin = out.counterexample["pinned"]
    assert pin["A"] == [[1.0]] and pin["B"] == [[-0.5]] and pin["lhs"] == pytest.approx(2.0)
    assert out.counterexample["smallest_found"]["p"] == 1
    assert out.numbers["fails_u_eq_v_B_psd"] == 0  # u = v with B ⪰ 0: the 4/3 factor holds
    assert out.numbers["fails_general"] > 0 and out.numbers["fails_u_eq_v"] > 0
    assert out.numbers["fails_general_B_psd"] > 0  # u ≠ v with B ⪰ 0 fails too
    psd = out.counterexample["pinned_B_psd"]
    assert psd["lhs"] == pytest.approx(0.5) and psd["rhs_4_3"] == 0.0
    # proof form: no failure at tiny noise, certain failures at σ_B ≥ λ_min⁺
    assert out.numbers["fail_prob_b_rho0.001"] == 0.0 and out.numbers["fail_prob_b_rho1"] > 0.1


def test_lemma12_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("lemma12")
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated: the factor 4/3 fails on") and "2 of the 2 pinned" in s
    assert [p["family"] for p in out.points if p["part"] == "as stated"] == ["general", "general_B_psd", "u_eq_v",
                                                                           "u_eq_v_B_psd"]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_lemma12_pinned_counterexample_with_B_psd_and_u_ne_v():
    """Pinned: A = diag(1, 0), B = [[2, 1], [1, 1]] ≻ 0, v = e₁ ∈ im(A), u = e₂: ⟨u, C⁻¹v⟩ = −1/2 exactly,
    ⟨u, A⁺v⟩ = 0, so |⟨u, C⁻¹v⟩| ≤ (4/3)|⟨u, A⁺v⟩| fails."""
    A, B, u, v = (np.array(regret_lemmas.LEMMA12_PIN_PSD[x]) for x in "ABuv")
    assert np.linalg.eigvalsh(B).min() > 0 and regret_lemmas.lemma12_valid(A, B) and not np.allclose(u, v)
    lhs, rhs = tn.lemma12_ratio(A, B, u, v)
    assert lhs == pytest.approx(0.5, abs=1e-12) and rhs == 0.0


def test_lemma12_proof_form_frequencies_rise_with_noise():
    lo = regret_lemmas.lemma12_proof_form(0.01, 5, 300, 0)
    mid = regret_lemmas.lemma12_proof_form(1.0, 5, 300, 0)
    hi = regret_lemmas.lemma12_proof_form(3.0, 5, 300, 0)
    assert lo["fail_b"] == 0 and lo["indefinite"] == 0
    assert mid["fail_b"] > 30 and hi["indefinite"] > mid["indefinite"] > 100


def test_lemma16_negative_control_a_halved_right_side_is_caught(monkeypatch):
    real = tn.lemma16_sides
    monkeypatch.setattr(tn, "lemma16_sides", lambda a: (real(a)[0], real(a)[1] / 2))
    out = regret_lemmas.lemma16("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None


@pytest.mark.parametrize("fn, inputs", [("lemma16_sides", np.ones(4)), ("lemma13_sides", np.ones((4, 1)))])
def test_lemma13_16_rhs_mutant_breaks_the_inequality_and_both_side_scaling_is_declared_equivalent(fn, inputs):
    """The declared mutant halves only the right-hand side: four equal terms then break lhs ≤ rhs, which the true
    sides satisfy; the generic ×10/×0.1 (both sides scaled) are declared equivalent with their reason."""
    claim_id = f"noisy_adagrad.{fn.split('_')[0]}"
    (m,) = load_all()[claim_id].mutants
    lhs, rhs = getattr(tn, fn)(inputs)
    assert lhs <= rhs
    with m.apply():
        lhs_m, rhs_m = getattr(tn, fn)(inputs)
    assert lhs_m == lhs and lhs_m > rhs_m
    assert getattr(tn, fn)(inputs) == (lhs, rhs)  # undone
    for f in ("x10", "x0.1"):
        assert "scales lhs and rhs alike" in mutants.EQUIVALENT[(claim_id, f"{fn}:{f}")]


def test_lemma12_mutant_without_the_perturbation_makes_the_check_hold():
    """The pinned counterexamples refute the lemma only through C = A + B: with B dropped from the left side the
    check must say holds (it can tell the two apart)."""
    (m,) = load_all()["noisy_adagrad.lemma12"].mutants
    with m.apply():
        assert regret_lemmas.lemma12("quick", 0).verdict == "holds"
    assert regret_lemmas.lemma12("quick", 0).verdict == "violated"


def test_lemma12_finding_is_in_regime_with_the_b_psd_u_eq_v_repair(quick):
    """Lemma 12 fails across the stated domain (from p = 1) and in the proof's use at Algorithm 1's σ_B: in the
    regime; the repair 'B ⪰ 0 and u = v' holds on the same run's cases."""
    f = quick("lemma12").finding
    assert f is not None and f.scope == "in_regime"
    assert f.region.edge == "" and f.region.failing == 388 + 2 and f.region.explored == 1197 + 2  # quick, seed 0
    assert "pinned cases 2/2" in f.region.text
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(0.18)  # P(4/3 fails) at ρ = 1
    assert f.repair.verdict == "holds" and f.repair.source == "derived"
    assert "0/300" in f.repair.evidence


@pytest.mark.parametrize("cid, name, failing", [("noisy_adagrad.lemma16", "lemma16_sides:rhs*0.5", 399),
                                                ("noisy_adagrad.lemma13", "lemma13_sides:rhs*0.5", 91)])
def test_classical_lemma_violation_carries_a_finding_without_repair(cid, name, failing):
    """Lemmas 16 and 13 hold; a violation (here forced by halving the right-hand side) reports a finding with its
    failing cases counted and no repair (the inequality is true: a failure points at the computation)."""
    from verify import registry
    from verify.runner import SerialRunner, using
    (c,) = registry.select([cid])
    (m,) = [m for m in c.mutants if m.name == name]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        out = c.check("quick", 0)
    f = out.finding
    assert out.verdict == "violated" and f is not None and f.scope == "in_regime"
    assert f.region.failing == failing and f.at_paper_setting.fails  # quick, seed 0, under the halved bound
    assert f.repair is None and "fault" in f.no_repair_reason
