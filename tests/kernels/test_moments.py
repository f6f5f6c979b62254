"""Algorithm 3 (private second-moment estimation): kernel vs reference, and its noiseless limit."""

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from kernels import moments


def _data(n=4000, d=16, seed=0):
    rng = np.random.default_rng(seed)
    sigma = np.arange(1, d + 1) ** -1.5
    return rng.standard_normal((n, d)) * sigma, sigma


def test_kernel_matches_reference_same_noise():
    Z, _ = _data()
    out = moments.second_moment_estimate(Z, r=1.0, epsilon=1.0, delta=1e-5, seed=3)
    ref = moments.second_moment_reference(Z, out["rho"], out["noise_std"],
                                          np.random.default_rng(np.random.SeedSequence(3)))
    np.testing.assert_array_equal(out["sigma_hat"], ref)


def test_schedule_reconstruction():
    T, rhos, stds = moments.schedule(n=1000, d=64, r=2.0, epsilon=1.0, delta=1e-5)
    assert T == 9 and 2.0**-T <= 64**-1.5
    np.testing.assert_allclose(rhos[1:] / rhos[:-1], 0.5)  # Δ halves each round
    assert rhos[0] == pytest.approx(4 * 2.0 * max(1.0, np.log(2.0)))


def test_without_noise_the_scale_is_within_a_factor_two():
    """ε → ∞ (noise std → 0) and n large: σ̂_j ∈ (σ_j/2, 2σ_j] for σ_j above the floor d^{-3/2}."""
    Z, sigma = _data(n=200000, d=8)
    out = moments.second_moment_estimate(Z, r=1.0, epsilon=1e12, delta=1e-5, seed=0)
    above = sigma > 2 * 8**-1.5
    s = out["sigma_hat"][above]
    assert np.all(s <= 2 * sigma[above]) and np.all(s >= sigma[above] / 2)


def test_bad_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        moments.second_moment_estimate(np.ones((3, 2)), r=1.0, epsilon=0.0, delta=1e-5)
    with pytest.raises(ValueError, match="Z must be finite"):
        moments.second_moment_estimate(np.array([[np.nan]]), r=1.0, epsilon=1.0, delta=1e-5)


@pytest.mark.parametrize("n, sigma", [(1, [1.0]), (777, [1.0, 0.3, 0.1, 0.02]), (20_000, [0.5] * 3 + [0.001] * 7)])
def test_gaussian_records_unstored_give_the_stored_records_numbers(n, sigma):
    """The fused estimator draws the records itself: the same σ̂, exit rounds and generator state afterwards as
    Algorithm 3 on Z = rng.standard_normal((n, d))·σ drawn first from the same generator."""
    sigma = np.asarray(sigma)
    r1, r2 = np.random.default_rng(11), np.random.default_rng(11)
    stored = moments.second_moment_estimate(r1.standard_normal((n, sigma.size)) * sigma, r=1.0, epsilon=1.0,
                                            delta=1e-5, rng=r1)
    fused = moments.gaussian_second_moment_estimate(sigma, n, r=1.0, epsilon=1.0, delta=1e-5, rng=r2)
    for key in ("sigma_hat", "exit_round", "rho", "noise_std"):
        np.testing.assert_array_equal(stored[key], fused[key])
    assert stored["rounds"] == fused["rounds"] and r1.random() == r2.random()


def test_gaussian_records_bad_input_is_named():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameter, match="sigma"):
        moments.gaussian_second_moment_estimate([1.0, -0.5], 10, r=1.0, epsilon=1.0, delta=1e-5, rng=rng)
    with pytest.raises(InvalidParameter, match="n"):
        moments.gaussian_second_moment_estimate([1.0], 0, r=1.0, epsilon=1.0, delta=1e-5, rng=rng)
    with pytest.raises(InvalidParameter, match="rng"):
        moments.gaussian_second_moment_estimate([1.0], 10, r=1.0, epsilon=1.0, delta=1e-5, rng=0)
