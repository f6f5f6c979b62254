"""The fused PAGAN-family kernel against its NumPy reference, and its degenerate limits."""

import numpy as np
import pytest

import kernels
from kernels import LoopSettings, make_config, make_problem, run_algorithm, run_config
from kernels.pagan_reference import run_reference

PRIVATE = [a for a in kernels.ALGORITHMS if kernels.SPECS[a].private]


@pytest.fixture(scope="module")
def abs_data():
    return make_problem("abs_regression", seed=3, n=400, d=12)


def _kw(name):
    return dict(epsilon=1.0, delta=1e-5) if kernels.SPECS[name].private else {}


@pytest.mark.parametrize("name", kernels.ALGORITHMS)
@pytest.mark.parametrize("problem", ["abs_regression", "linear_subgaussian", "sign_mean"])
def test_kernel_matches_reference_same_noise(name, problem):
    params = dict(n=300, d=9) if problem == "abs_regression" else dict(n=300, d=9, domain="box")
    if problem == "linear_subgaussian" and name in ("pasan", "sgd"):
        params["domain"] = "ball"  # exercise the ball projections too
    ds = make_problem(problem, seed=5, **params)
    cfg = make_config(name, ds, steps=60, batch_size=7, alpha=0.3, settings=LoopSettings(n_log=7), **_kw(name))
    a = run_config(cfg, ds, np.random.default_rng(11))
    b = run_reference(cfg, ds, np.random.default_rng(11))
    np.testing.assert_allclose(a["losses"], b["losses"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a["x"], b["x"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a["xbar"], b["xbar"], rtol=1e-9, atol=1e-12)
    q = (cfg.ellipsoid * ds.features**2).sum(axis=1)
    if not np.any(np.abs(q - 1.0) < 1e-12):  # at a tie q = 1 the count depends on summation order
        assert a["clipped_fraction"] == pytest.approx(b["clipped_fraction"])


def test_pagan_hnorm_ball_projection_matches_reference():
    ds = make_problem("linear_subgaussian", seed=2, n=200, d=6, domain="ball")
    cfg = make_config("pagan", ds, steps=80, batch_size=5, alpha=2.0, settings=LoopSettings(n_log=5), epsilon=0.5,
                      delta=1e-5)
    a = run_config(cfg, ds, np.random.default_rng(1))
    b = run_reference(cfg, ds, np.random.default_rng(1))
    assert np.linalg.norm(a["x"]) <= 1.0 + 1e-12
    np.testing.assert_allclose(a["x"], b["x"], rtol=1e-8, atol=1e-12)


def test_same_seed_same_numbers_and_different_seed_differs(abs_data):
    r1 = run_algorithm("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=50, batch_size=10, trials=3, seed=7)
    r2 = run_algorithm("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=50, batch_size=10, trials=3, seed=7)
    r3 = run_algorithm("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=50, batch_size=10, trials=3, seed=8)
    assert np.array_equal(r1.losses, r2.losses) and np.array_equal(r1.x_final, r2.x_final)
    assert not np.array_equal(r1.x_final, r3.x_final)


@pytest.mark.parametrize("private, plain", [("pagan", "adagrad"), ("pasan", "sgd")])
def test_no_noise_no_clipping_is_the_nonprivate_optimizer(abs_data, private, plain):
    """σ = 0 and an ellipsoid so large nothing is clipped ⇒ exactly the non-private method."""
    big = np.full(abs_data.d, 1e-12)
    a = run_algorithm(private, abs_data, noise_multiplier=0.0, ellipsoid=big, steps=80, batch_size=10, seed=4)
    b = run_algorithm(plain, abs_data, steps=80, batch_size=10, seed=4)
    assert a.clipped_fraction[0] == 0.0
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-12)
    np.testing.assert_allclose(a.x_final, b.x_final, rtol=1e-12)


def test_uniform_ellipsoid_is_l2_clipping_dp_sgd_geometry(abs_data):
    """A = I/C² makes PASAN's privatisation exactly DP-SGD's clipping and isotropic noise."""
    C = 0.7
    cfg_p = make_config("pasan", abs_data, ellipsoid=np.full(abs_data.d, 1 / C**2), epsilon=1.0, delta=1e-5)
    cfg_d = make_config("dp_sgd", abs_data, clip_norm=C, epsilon=1.0, delta=1e-5)
    np.testing.assert_allclose(cfg_p.ellipsoid, cfg_d.ellipsoid)
    np.testing.assert_allclose(cfg_p.noise_std, cfg_d.noise_std)


def test_noise_scale_follows_line_6(abs_data):
    """ĝ = g̃ + √(log(1/δ))/(bε)·ξ, ξ ~ N(0, A⁻¹): per-coordinate std √(log 1/δ)/(bε√a_j)."""
    a = np.linspace(0.5, 4.0, abs_data.d)
    cfg = make_config("pagan", abs_data, ellipsoid=a, epsilon=2.0, delta=1e-6, batch_size=20)
    np.testing.assert_allclose(cfg.noise_std, np.sqrt(np.log(1e6)) / (20 * 2.0 * np.sqrt(a)))


def test_empirical_noise_matches_configured_std(abs_data):
    """Zero data signal: the first step's displacement is pure noise with the configured std."""
    ds = make_problem("linear_subgaussian", seed=1, n=50, d=4, decay=0.0)
    ds = kernels.Dataset(ds.name, np.zeros_like(ds.features), ds.targets, ds.loss_kind, "none", 1.0, ds.sigma,
                         ds.public)
    cfg = make_config("dp_sgd", ds, steps=1, batch_size=5, alpha=1.0, epsilon=1.0, delta=1e-5,
                      settings=LoopSettings(n_log=2))
    draws = np.array([-run_config(cfg, ds, np.random.default_rng(s))["x"] for s in range(4000)])
    std = draws.std(axis=0, ddof=1)
    # std of a sample std from 4000 normals is ≈ σ/√(2·3999); allow 5 standard errors
    se = cfg.noise_std / np.sqrt(2 * 3999)
    assert np.all(np.abs(std - cfg.noise_std) < 5 * se)


def test_iterates_stay_in_domain():
    ds = make_problem("linear_subgaussian", seed=9, n=100, d=5, domain="box")
    out = run_algorithm("pagan", ds, epsilon=0.1, delta=1e-5, steps=100, batch_size=3, alpha=5.0, trials=3)
    assert np.all(np.abs(out.x_final) <= 1.0) and np.all(np.abs(out.x_avg) <= 1.0)


@pytest.mark.parametrize("bad, msg", [
    (dict(epsilon=-1.0, delta=1e-5), "epsilon"),
    (dict(epsilon=1.0, delta=1.5), "delta"),
    (dict(epsilon=1.0), "epsilon"),
    (dict(epsilon=float("nan"), delta=1e-5), "epsilon"),
    (dict(epsilon=1.0, delta=1e-5, steps=0), "steps"),
    (dict(epsilon=1.0, delta=1e-5, ellipsoid=np.ones(3)), "ellipsoid"),
])
def test_bad_parameters_name_themselves(abs_data, bad, msg):
    with pytest.raises(kernels.InvalidParameter, match=msg):
        run_algorithm("pagan", abs_data, **bad)


def test_unknown_algorithm_lists_accepted(abs_data):
    with pytest.raises(kernels.InvalidParameter, match="pagan_opt"):
        run_algorithm("adam", abs_data)


def test_nonprivate_rejects_privacy_parameters(abs_data):
    with pytest.raises(kernels.InvalidParameter, match="not private"):
        run_algorithm("sgd", abs_data, epsilon=1.0)


def test_settings_record_is_required_and_named(abs_data):
    """make_config takes n_log, eps_stab and x0 in one LoopSettings record; anything else is refused by name."""
    with pytest.raises(kernels.InvalidParameter, match="settings"):
        make_config("pagan", abs_data, epsilon=1.0, delta=1e-5, settings=dict(n_log=2))
    with pytest.raises(kernels.InvalidParameter, match="n_log"):
        make_config("pagan", abs_data, epsilon=1.0, delta=1e-5, settings=LoopSettings(n_log=1))


def test_flat_keywords_give_the_same_configuration_and_numbers(abs_data):
    """config_from_keywords (run_algorithm's flat n_log, eps_stab, x0) builds what make_config builds from the record,
    and run_algorithm draws the same numbers as run_config on it."""
    x0 = np.full(abs_data.d, 0.1)
    flat = kernels.pagan.config_from_keywords("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=20, batch_size=5,
                                              n_log=4, eps_stab=1e-6, x0=x0)
    rec = make_config("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=20, batch_size=5,
                      settings=LoopSettings(n_log=4, eps_stab=1e-6, x0=x0))
    np.testing.assert_array_equal(flat.log_steps, rec.log_steps)
    np.testing.assert_array_equal(flat.x0, rec.x0)
    assert flat.eps_stab == rec.eps_stab == 1e-6
    out = run_algorithm("pagan", abs_data, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, n_log=4, eps_stab=1e-6,
                        x0=x0, seed=3)
    ref = run_config(rec, abs_data, kernels.pagan.trial_generators(3, 1)[0])
    np.testing.assert_array_equal(out.x_final[0], ref["x"])
    np.testing.assert_array_equal(out.losses[0], ref["losses"])
