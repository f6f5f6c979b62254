"""verify.papers.dp_adam_design.own_setting — negative_fraction in a user's own setting: the exact law inside the
simulated interval, the closed forms of d* and the bias, and its bad-input messages."""


import numpy as np
import pytest

from dpvalidate import InvalidParameter
from verify.papers.dp_adam_design import own_setting


def test_negative_fraction_for_a_users_setting():
    """Exact law inside the simulated fraction's 95% Clopper–Pearson interval; the Gaussian prediction is a number;
    d* and the bias are the closed forms at these inputs."""
    r = own_setting.negative_fraction(3000, 16, 1.0, 1.0, 0.9, 50, case="optimistic", trials=4, seed=1)
    assert 0 < r["simulated"] < 1 and r["simulated_lo"] <= r["exact"] <= r["simulated_hi"]
    assert 0 <= r["predicted_gaussian"] <= 1
    assert r["bias_vhat"] == pytest.approx((1.0 * 1.0 / 16) ** 2)
    K = (1 - 0.9) * (1 + 0.9**50) / ((1 + 0.9) * (1 - 0.9**50))
    assert r["d_star"] == pytest.approx(16**2 / np.sqrt(2 * K), rel=1e-9)
    p = own_setting.negative_fraction(300, 16, 1.0, 1.0, 0.9, 50, case="pessimistic", trials=4, seed=1)
    assert p["signal"] == pytest.approx(1 / np.sqrt(16 * 300)) and p["simulated_lo"] <= p["exact"] <= p["simulated_hi"]
    with pytest.raises(InvalidParameter, match="beta2"):
        own_setting.negative_fraction(10, 4, 1.0, 1.0, 1.5, 10)
    with pytest.raises(InvalidParameter, match="case"):
        own_setting.negative_fraction(10, 4, 1.0, 1.0, 0.9, 10, case="typical")
