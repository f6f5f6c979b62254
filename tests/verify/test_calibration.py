"""verify.privacy.calibrate_multiplier: the one search behind every noise calibration (runs, adadps, noisy_adagrad)."""

import math

import pytest

from dpvalidate import InvalidParameter
from verify.privacy import calibrate_multiplier, gaussian_epsilon


def _eps(z):
    return gaussian_epsilon(z, 1e-5, 1)


@pytest.mark.parametrize("guess", [1.0, 300.0])  # below both answers (z ≈ 2.0, 7.0): upwards; above: downwards
@pytest.mark.parametrize("target", [0.5, 2.0])
def test_the_answer_is_certified_and_tight_from_any_starting_guess(guess, target):
    """ε(z) ≤ target < ε(z/(1 + rel)), whether the search brackets upwards or downwards from its guess."""
    rel = 1e-3
    z = calibrate_multiplier(_eps, target, guess=guess, rel=rel)
    assert _eps(z) <= target
    assert _eps(z / (1 + rel)) > target


def test_the_bounds_of_the_search_are_kept():
    z_free = calibrate_multiplier(_eps, 1.0)
    # a floor above the answer: certified there, so the floor itself is returned
    assert calibrate_multiplier(_eps, 1.0, guess=10.0, z_min=2 * z_free) == 2 * z_free
    # a ceiling below the answer: not certifiable, named
    with pytest.raises(InvalidParameter, match="epsilon") as exc:
        calibrate_multiplier(_eps, 1.0, z_max=z_free / 2)
    assert f"{z_free / 2:g}" in str(exc.value)


def test_an_accountant_that_cannot_evaluate_counts_as_not_certified():
    def eps(z):
        if z < 3.0:
            raise InvalidParameter("noise_multiplier", "at least 3", z)
        return 1.0 / z

    z = calibrate_multiplier(eps, 1.0, guess=10.0, rel=1e-6)
    assert math.isclose(z, 3.0, rel_tol=2e-6) and z >= 3.0
