"""kernels.adp: ADP-SGD / DP-SGD on smooth_nonconvex — kernel vs NumPy reference, degenerate limits, bounds."""

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from kernels import adp as kadp
from kernels.adp_reference import adp_reference


@pytest.fixture(scope="module")
def prob():
    return kadp.smooth_nonconvex(n=300, d=8, lam=0.05, seed=3)


@pytest.mark.parametrize("b_rule", ["poly", "adaptive"])
@pytest.mark.parametrize("alpha_rule", ["dp", "adp"])
def test_kernel_matches_reference_with_the_same_draws(prob, b_rule, alpha_rule):
    kw = dict(steps=400, eta=0.5, b_rule=b_rule, alpha_rule=alpha_rule, sigma=0.3,
              schedule=kadp.AdpSchedule(a=2.0, c=0.5, b0=1.5, nu=1e-2, C=0.7))
    out = kadp.run_adp(prob, trials=1, seed=11, n_log=2, **kw)
    rng = np.random.default_rng(np.random.SeedSequence(11).spawn(1)[0])
    ref = adp_reference(prob, rng, **kw)
    np.testing.assert_allclose(out["theta"][0], ref, rtol=1e-10, atol=1e-12)
    assert out["grad_norm2"][0, -1] == pytest.approx(float(np.sum(prob.full_gradient(ref) ** 2)), rel=1e-9)


@pytest.mark.parametrize("b_rule", ["poly", "adaptive"])
@pytest.mark.parametrize("alpha_rule", ["dp", "adp"])
def test_trials_from_one_stream_are_the_reference_run_in_turn(prob, b_rule, alpha_rule):
    """one_stream: trial k is the NumPy reference run with the one generator where trial k − 1 left it."""
    kw = dict(steps=60, eta=0.5, b_rule=b_rule, alpha_rule=alpha_rule, sigma=0.3,
              schedule=kadp.AdpSchedule(a=2.0, c=0.5, b0=1.5, nu=1e-2, C=0.7))
    out = kadp.run_adp(prob, trials=3, seed=7, n_log=2, one_stream=True, **kw)
    rng = np.random.default_rng(7)
    for k in range(3):
        ref = adp_reference(prob, rng, **kw)
        np.testing.assert_allclose(out["theta"][k], ref, rtol=1e-10, atol=1e-12)
        assert out["grad_norm2"][k, -1] == pytest.approx(float(np.sum(prob.full_gradient(ref) ** 2)), rel=1e-9)
    assert out["theta"].shape == (3, prob.d) and out["grad_norm2"].shape == (3, 2)
    assert not np.allclose(out["theta"][0], out["theta"][1])  # the trials are not one draw repeated


def test_one_stream_is_a_flag(prob):
    with pytest.raises(InvalidParameter, match="one_stream.*True or False"):
        kadp.run_adp(prob, steps=5, one_stream="yes")


def test_without_noise_adp_and_dp_coincide(prob):
    """σ = 0: the noise scale α is irrelevant, so ADP-SGD and DP-SGD are the same non-private SGD."""
    kw = dict(steps=300, eta=0.5, b_rule="poly", sigma=0.0, trials=2, seed=4)
    a = kadp.run_adp(prob, alpha_rule="adp", **kw)
    b = kadp.run_adp(prob, alpha_rule="dp", **kw)
    np.testing.assert_array_equal(a["theta"], b["theta"])
    assert np.all(a["grad_norm2"][:, -1] < a["grad_norm2"][:, 0])  # SGD makes progress on ‖∇F‖²


def test_gradient_bound_holds_and_clipping_is_inactive(prob):
    rng = np.random.default_rng(0)
    G = prob.gradient_bound
    for _ in range(200):
        theta = rng.standard_normal(prob.d) * 10 ** rng.uniform(-2, 2)
        i = rng.integers(prob.n)
        m = prob.labels[i] * prob.features[i] @ theta
        g = -prob.labels[i] / (1 + np.exp(m)) * prob.features[i] + prob.lam * 2 * theta / (1 + theta**2) ** 2
        assert np.linalg.norm(g) <= G + 1e-12


def test_same_seed_same_numbers_and_bad_input(prob):
    a = kadp.run_adp(prob, steps=50, sigma=1.0, seed=9, trials=2)
    b = kadp.run_adp(prob, steps=50, sigma=1.0, seed=9, trials=2)
    np.testing.assert_array_equal(a["grad_norm2"], b["grad_norm2"])
    with pytest.raises(InvalidParameter, match="b_rule"):
        kadp.run_adp(prob, b_rule="cosine")
    with pytest.raises(InvalidParameter, match="sigma"):
        kadp.run_adp(prob, sigma=float("nan"))


@pytest.mark.parametrize("schedule,named", [((1.0, 1.0, 1.0, 1e-3, 1.0), "kernels.adp.AdpSchedule"),
                                            (kadp.AdpSchedule(nu=0.0), "whose nu is a finite number > 0"),
                                            (kadp.AdpSchedule(a=float("inf")), "whose a is a finite number > 0"),
                                            (kadp.AdpSchedule(C="x"), "whose C is a finite number > 0")])
def test_a_bad_schedule_is_refused_naming_the_parameter_and_the_constant(prob, schedule, named):
    with pytest.raises(InvalidParameter, match="^schedule") as err:
        kadp.run_adp(prob, steps=3, schedule=schedule)
    assert named in str(err.value)


def test_the_schedule_record_reaches_the_loop(prob):
    """Another b_0 changes the adaptive run (the record is not ignored); the default record is the old default."""
    kw = dict(steps=40, b_rule="adaptive", sigma=0.5, trials=1, seed=2, n_log=2)
    default = kadp.run_adp(prob, **kw)["theta"]
    np.testing.assert_array_equal(default, kadp.run_adp(prob, schedule=kadp.AdpSchedule(1.0, 1.0, 1.0, 1e-3, 1.0),
                                                        **kw)["theta"])
    assert not np.allclose(default, kadp.run_adp(prob, schedule=kadp.AdpSchedule(b0=4.0), **kw)["theta"])
