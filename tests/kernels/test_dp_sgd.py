"""kernels.dp_sgd: the fused DP-SGD step against its NumPy twin, its limits, and its input checks."""

import numba
import numpy as np
import pytest

from kernels import InvalidParameter
from kernels.dp_sgd import CHUNKS, _borrowed_row, dense_logistic, minimum_bytes_per_step, run_dp_sgd
from kernels.dp_sgd_reference import dp_sgd_reference


@pytest.mark.parametrize("sigma", [0.0, 1.0])
def test_kernel_matches_its_numpy_twin_on_the_same_stream_float64(sigma):
    prob = dense_logistic(300, 50, seed=1)
    kw = dict(steps=25, batch_size=32, lr=0.5, clip=1.0, sigma=sigma, seed=3)
    a, b = run_dp_sgd(prob, **kw), dp_sgd_reference(prob, **kw)
    np.testing.assert_allclose(a["w"], b["w"], rtol=1e-10, atol=1e-12)
    assert a["clip_fraction"] == b["clip_fraction"] and 0 < a["clip_fraction"] < 1


def _float32_step_bound(prob, w0, idx, lr, clip):
    """First-order rounding bound (unit roundoff u = 2⁻²⁴, doubled for the second-order terms) of one float32
    step against the same step in float64 on the same float32 data: the margins' dot products (length d),
    the chunked sum over B records, the clipping factor and the final subtraction."""
    u = 2.0**-24
    X = prob.features[idx].astype(np.float64)
    y = prob.labels[idx].astype(np.float64)
    w = w0.astype(np.float64)
    z = X @ w
    c = -y / (1.0 + np.exp(y * z))
    norms = np.abs(c) * np.sqrt(prob.sqnorms[idx])
    fc = np.where(norms > clip, clip / norms, 1.0) * c
    d, B = X.shape[1], len(idx)
    dz = (d + 2) * u * (np.abs(X) @ np.abs(w))  # error of each margin
    dfc = dz / 4 + 4 * u * np.abs(fc)  # |dc/dz| ≤ 1/4; the factor's own rounding
    total = (B // CHUNKS + CHUNKS + 2) * u * (np.abs(fc) @ np.abs(X)) + dfc @ np.abs(X)
    w1 = w - lr / B * (fc @ X)
    return 2 * (lr / B * total + u * (np.abs(w1) + np.abs(w))), w1


def _first_batch(n, batch, seed):
    """The records of the first step (the kernel's partial Fisher–Yates on ``default_rng(seed)``)."""
    rng, perm = np.random.default_rng(seed), np.arange(n)
    for k in range(batch):
        j = k + int(rng.integers(0, n - k))
        perm[k], perm[j] = perm[j], perm[k]
    return perm[:batch].copy()


# (n, d, B): every record in 8 full chunks and d not a multiple of the row update's 256-coordinate block; d below
# one block with fewer records than chunks (empty chunks); a block and one coordinate with uneven chunks
@pytest.mark.parametrize("n, d, batch", [(256, 2000, 256), (40, 100, 5), (300, 257, 37)])
def test_float32_step_is_the_float64_step_within_its_rounding_bound(n, d, batch):
    prob = dense_logistic(n, d, seed=4, dtype="float32")
    w0 = (np.random.default_rng(5).standard_normal(d) * 0.05).astype(np.float32)
    out = run_dp_sgd(prob, steps=1, batch_size=batch, lr=0.5, clip=1.0, sigma=0.0, w0=w0, seed=7)
    assert out["w"].dtype == np.float32
    bound, w1 = _float32_step_bound(prob, w0, _first_batch(n, batch, 7), 0.5, 1.0)
    err = np.abs(out["w"].astype(np.float64) - w1)
    assert np.all(err <= bound), float(np.max(err / bound))
    assert np.max(np.abs(w1 - w0)) > 100 * np.max(bound)  # the step is far larger than the bound: not vacuous


def test_borrowed_row_reads_the_row_in_place():
    @numba.njit
    def rows_through_views(X):
        out = np.empty_like(X)
        for i in range(X.shape[0]):
            r = _borrowed_row(X, i)
            for j in range(r.shape[0]):
                out[i, j] = r[j]
        return out

    for dtype in ("float32", "float64"):
        X = np.random.default_rng(0).standard_normal((7, 13)).astype(dtype)
        assert np.array_equal(rows_through_views(X), X)


def test_no_noise_and_no_clipping_is_plain_minibatch_sgd():
    prob = dense_logistic(64, 30, seed=2)
    w0 = np.random.default_rng(3).standard_normal(30) * 0.1
    out = run_dp_sgd(prob, steps=1, batch_size=64, lr=0.3, clip=np.inf, sigma=0.0, w0=w0)
    X, y = prob.features, prob.labels
    grad = (-(y / (1.0 + np.exp(y * (X @ w0))))[:, None] * X).mean(axis=0)  # ∇ of the mean logistic loss
    np.testing.assert_allclose(out["w"], w0 - 0.3 * grad, rtol=1e-12, atol=1e-14)
    assert out["clip_fraction"] == 0.0


def test_clipping_bounds_each_record_and_changes_the_update():
    prob = dense_logistic(64, 30, seed=2, row_norm=8.0)
    kw = dict(steps=1, batch_size=64, lr=1.0, sigma=0.0)
    clipped, free = run_dp_sgd(prob, clip=0.5, **kw), run_dp_sgd(prob, clip=np.inf, **kw)
    # each clipped record contributes at most clip/B to the step: ‖Δw‖ ≤ lr·clip
    assert np.linalg.norm(clipped["w"]) <= 0.5 * (1 + 1e-12)
    assert np.linalg.norm(free["w"]) > 0.5 and clipped["clip_fraction"] > 0.5  # unclipped, the step exceeds it


def test_numbers_do_not_depend_on_the_thread_count_and_the_seed_reproduces_them():
    prob = dense_logistic(400, 300, seed=6)
    kw = dict(steps=5, batch_size=100, lr=0.5, clip=1.0, sigma=1.0, seed=9)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run_dp_sgd(prob, **kw)["w"]
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = run_dp_sgd(prob, **kw)["w"]
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, many)
    assert np.array_equal(run_dp_sgd(prob, **kw)["w"], many)
    assert not np.array_equal(run_dp_sgd(prob, **{**kw, "seed": 10})["w"], many)


@pytest.mark.parametrize("kw, name", [
    (dict(lr=0.0), "lr"), (dict(lr=np.nan), "lr"), (dict(clip=-1.0), "clip"), (dict(sigma=-0.1), "sigma"),
    (dict(clip=np.inf, sigma=1.0), "sigma"), (dict(batch_size=65), "batch_size"), (dict(steps=0), "steps"),
    (dict(w0=np.zeros(7)), "w0"), (dict(w0=np.full(30, np.nan)), "w0"),
])
def test_bad_input_names_the_parameter(kw, name):
    prob = dense_logistic(64, 30, seed=2)
    with pytest.raises(InvalidParameter, match=name):
        run_dp_sgd(prob, **{"steps": 1, "batch_size": 8, **kw})


def test_problem_checks_and_the_least_traffic_of_a_step():
    with pytest.raises(InvalidParameter, match="dtype"):
        dense_logistic(10, 5, dtype="float16")
    with pytest.raises(InvalidParameter, match="problem"):
        run_dp_sgd(object(), steps=1)
    assert minimum_bytes_per_step(256, 10**4, 8) == (256 + 2) * 10**4 * 8
