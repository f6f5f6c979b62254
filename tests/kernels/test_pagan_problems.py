"""The PAGAN family's data generators (kernels.pagan_problems): the paper's defaults, seeding, bounded records and the
problem registry."""

import numpy as np
import pytest

from kernels import make_problem
from kernels.pagan_problems import LOSS_ABS


def test_abs_regression_matches_paper_defaults():
    ds = make_problem("abs_regression", seed=0)
    assert ds.features.shape == (5000, 100) and ds.loss_kind == LOSS_ABS and ds.domain == "box"
    np.testing.assert_allclose(ds.sigma, np.arange(1, 101) ** -1.5)
    # empirical column scales follow σ_j (4 standard errors of a std estimate from n = 5000)
    est = ds.features.std(axis=0)
    assert np.all(np.abs(est / ds.sigma - 1) < 4 / np.sqrt(2 * 5000))
    assert set(np.unique(ds.x_star)) <= {-1.0, 1.0}
    resid = ds.targets - ds.features @ ds.x_star
    assert np.mean(np.abs(resid)) == pytest.approx(0.01, rel=0.1)  # E|Laplace(0, τ)| = τ


def test_same_seed_same_data():
    a = make_problem("sign_mean", seed=4, n=50, d=5)
    b = make_problem("sign_mean", seed=4, n=50, d=5)
    assert np.array_equal(a.features, b.features) and np.array_equal(a.public, b.public)


def test_sign_mean_records_are_bounded_by_sigma():
    ds = make_problem("sign_mean", seed=1, n=200, d=7)
    assert np.all(np.abs(ds.features) <= ds.sigma + 1e-15)
    zbar = -ds.features.mean(axis=0)
    assert ds.min_loss() == pytest.approx(-np.abs(zbar).sum())


def test_unknown_problem():
    with pytest.raises(ValueError, match="problem must be one of abs_regression"):
        make_problem("mnist")


def test_every_spec_problem_has_a_generator():
    import inspect

    import kernels

    spec = {"abs_regression", "linear_subgaussian", "sign_mean", "low_rank_glm", "quadratic", "sparse_logistic_1d",
            "synthetic_gradients", "sparse_linear_regression", "zipf_bow_logistic", "smooth_nonconvex"}
    assert set(kernels.PROBLEM_GENERATORS) == spec
    for name in spec:
        assert inspect.isfunction(kernels.problem_generator(name))
    with pytest.raises(kernels.InvalidParameter, match="problem"):
        kernels.problem_generator("mnist")


def test_repeated_problem_is_a_fresh_copy_of_the_same_draw():
    from kernels import pagan_problems as pp

    pp._MADE.clear()
    a = make_problem("abs_regression", seed=3, n=40, d=6, n_public=10)
    a.features[0, 0] = 1e9  # a caller writing to its copy ...
    a.params["n"] = -1
    b = make_problem("abs_regression", seed=3, n=40, d=6, n_public=10)  # ... does not reach the next caller
    pp._MADE.clear()
    c = make_problem("abs_regression", seed=3, n=40, d=6, n_public=10)  # drawn afresh
    assert b.features[0, 0] != 1e9 and b.params["n"] == 40
    for f in ("features", "targets", "sigma", "public", "x_star"):
        assert getattr(b, f).tobytes() == getattr(c, f).tobytes() and getattr(b, f) is not getattr(c, f)
    assert make_problem("abs_regression", seed=3, n=40, d=6, n_public=10, tau=0.5).targets.tobytes() != \
        c.targets.tobytes()  # another argument, another dataset
