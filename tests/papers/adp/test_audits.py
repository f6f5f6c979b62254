"""verify.papers.adp.audits: the α_t the ADP-SGD audits account for, their runs' scores, and their registration."""

import numpy as np
import pytest

from theory import adp as tadp
from verify.papers.adp import audits
from verify.registry import load_all


@pytest.mark.parametrize("b_rule", ["poly", "adaptive"])
def test_noise_scales_are_the_papers_alpha_for_adp_and_one_for_dp(b_rule):
    """α_t² = b_t = √(1 + t) (poly, a = c = 1) and α_t = (b_0² + tC)^{1/4} (adaptive, b_0 = C = 1) are the same
    numbers; DP-SGD's α is 1."""
    T = 7
    alpha = audits.adp_noise_scales(b_rule, "adp", T)
    np.testing.assert_allclose(alpha**2, tadp.polynomial_schedule(T, 1.0, 1.0), rtol=1e-15)
    np.testing.assert_array_equal(audits.adp_noise_scales(b_rule, "dp", T), np.ones(T))


def test_the_canary_pushes_the_shift_score_and_not_the_spread_of_dp_sgd():
    """On D′ the record 10·e₁ (gradient clipped to G = 1) moves θ_T[0] by η/b_1 = 1/√2 on average; on D (zero
    records) θ_T is pure noise. DP-SGD's stepsize does not depend on the data, so the spread score has one law."""
    kw = dict(b_rule="poly", alpha_rule="dp", n=1, steps=1, trials=4000, seed=3)
    d, d1 = audits.adp_audit_task(canary=False, **kw), audits.adp_audit_task(canary=True, **kw)
    se = audits.ADP_AUDIT_SIGMA / 2**0.5 / 4000**0.5  # the noise of θ_T[0] is σ·η/b_1 per run
    assert abs(np.mean(d["shift"])) < 5 * se
    assert np.mean(d1["shift"]) == pytest.approx(2**-0.5, abs=5 * se)
    np.testing.assert_allclose(d["spread"], d1["spread"])  # the same draws; the canary moves only coordinate 0


def test_every_audit_is_registered_with_two_tests_per_configuration():
    reg = load_all()
    for name, (b_rule, alpha_rule) in audits.ADP_AUDITS.items():
        c = reg[f"adp.audit.{name}"]
        assert c.tests == 2 * len(audits.ADP_AUDIT_CONFIGS) and c.kind == "privacy"
        assert f"b rule '{b_rule}' and α rule '{alpha_rule}'" in c.statement


@pytest.fixture(scope="module")
def adaptive_audit():
    return audits.audit_adp("adp_sgd_adaptive", "quick", 0)


@pytest.fixture(scope="module")
def dp_sgd_audit():
    return audits.audit_adp("dp_sgd", "quick", 0)


def test_adaptive_audit_finding_and_its_size_at_the_papers_dimension(adaptive_audit):
    """The n = 1 leak is the finding (the spread score); at §6's d = 7850, b_0² = 20 the same update at the audit's
    multiplier has δ = 0.033 at the accountant's ε; b₁ public repairs it exactly."""
    out = adaptive_audit
    f = out.finding
    assert out.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (1, 1) and "n = 1, T = 1, spread score" in f.region.text
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(0.0332, rel=0.02)
    assert f.repair.verdict == "holds"
    assert "GDP-model value" in out.counterexample["audit_method"] and "GDP-model value" in out.evidence


def test_the_sampled_configuration_is_information_not_verdict(dp_sgd_audit, adaptive_audit):
    """n = 4, T = 3 sees almost none of the accountant's ε for DP-SGD: it stays in the numbers and the evidence as
    information, and the verdict rests on n = 1 alone (one decision)."""
    for out in (dp_sgd_audit, adaptive_audit):
        assert len(out.decisions) == 1 and "information, not in the verdict: n=4 T=3" in out.evidence
        assert "audit_epsilon_lb_1" not in out.numbers
        assert out.numbers["information_audit_ceiling[n=4,T=3]"] > out.numbers["information_audit_epsilon_lb[n=4,T=3]"]
    assert dp_sgd_audit.verdict == "holds" and dp_sgd_audit.finding is None
    assert dp_sgd_audit.numbers["information_audit_epsilon_lb[n=4,T=3]"] < 0.05
    assert "GDP-model" not in dp_sgd_audit.evidence


def test_a_leak_of_the_data_independent_kernel_carries_a_finding_without_a_repair():
    """The negative control (a quarter of the noise) is a violated audit of the 'poly' kernel: its finding names
    the leaking configuration and says why no repair of a paper's statement applies."""
    out = audits.audit_adp("adp_sgd", "quick", 0, noise_scale=0.25)
    assert out.verdict == "violated" and out.finding.scope == "in_regime"
    assert (out.finding.region.explored, out.finding.region.failing) == (1, 1)
    assert out.finding.repair is None and "kernel" in out.finding.no_repair_reason
