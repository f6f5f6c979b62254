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


def _counted(fn):
    calls = []

    def g(z):
        calls.append(z)
        return fn(z)

    return g, calls


def test_a_smooth_accountant_is_calibrated_in_a_third_of_the_bisection_steps():
    # ε of a Gaussian is nearly a straight line in (log z, log ε): the interpolating search needs a handful of
    # evaluations where bisection from a bracket of 2 to rel = 1e-9 needs log2(log 2 / 1e-9) ≈ 29.4, so 30
    rel = 1e-9
    eps, calls = _counted(_eps)
    z = calibrate_multiplier(eps, 0.5, guess=1.0, rel=rel)
    assert _eps(z) <= 0.5 < _eps(z / (1 + rel))
    assert len(calls) <= 15


@pytest.mark.parametrize("shape", ["step", "step to zero", "kink"])
def test_an_epsilon_far_from_a_line_is_still_bracketed_to_the_precision(shape):
    # the interpolation is only a guess: on a step (where the line predicts nothing), a step down to ε = 0 (no
    # logarithm) and a kink, the answer must still be certified and within rel of the crossing
    rel, cross = 1e-6, 3.7

    def eps(z):
        if shape == "step":
            return 5.0 if z < cross else 0.5
        if shape == "step to zero":
            return math.inf if z < cross else 0.0
        return (cross / z) ** (1 if z < cross else 40)  # ε = 1 at the crossing, 40 times steeper beyond it

    target = 1.0 if shape != "kink" else 1.0 - 1e-12
    counted, calls = _counted(eps)
    z = calibrate_multiplier(counted, target, guess=1.0, rel=rel)
    assert eps(z) <= target < eps(z / (1 + rel))
    assert cross <= z <= cross * (1 + rel) * (1 + 1e-9)
    assert len(calls) <= 2 * 30  # never much worse than bisection
