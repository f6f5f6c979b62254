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
