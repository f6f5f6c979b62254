"""kernels.adadps: AdaDPS and its baselines — kernels vs NumPy references, degenerate limits, problems, bad input."""

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from kernels import adadps as ka
from kernels import adadps_reference as ref


@pytest.fixture(scope="module")
def zipf():
    return ka.zipf_bow_logistic(n=300, d=40, n_test=100, n_users=8, public_fraction=0.05, doc_len=8.0, seed=1)


@pytest.fixture(scope="module")
def toy():
    return ka.sparse_linear_regression(n=200, d=60, n_frequent=6, seed=2)


def _ref_rng(seed):
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


@pytest.mark.parametrize("sampling", ["poisson", "fixed"])
@pytest.mark.parametrize("method", list(ka.METHODS))
def test_central_kernel_matches_reference(zipf, method, sampling):
    options = ka.CentralOptions(beta1=0.9, beta2=0.95, eps_a=1e-3, lr_decay=method in ("adadps_rmsprop", "dp_sgd"),
                                harmonic_beta2=method == "adadps_rmsprop", n_log=2)
    kw = dict(lr=0.3, clip=0.5, sigma=0.8, batch_size=12, steps=30, sampling=sampling, options=options)
    out = ka.run_central(zipf, method, side_info="frequency", trials=1, seed=3, **kw)
    w = ref.central_reference(zipf, method, _ref_rng(3), A_fixed=zipf.side_info["frequency"]
                              if method == "adadps_fixed" else None, **kw)
    np.testing.assert_allclose(out["w"][0], w, rtol=1e-10, atol=1e-12)
    assert out["loss"][0, -1] == pytest.approx(zipf.loss_value(w), rel=1e-10)


@pytest.mark.parametrize("method", ["adadps_fixed", "dp_sgd", "adadps_rmsprop"])
def test_central_trials_from_one_stream_are_the_reference_run_in_turn(zipf, method):
    """one_stream: trial k is the NumPy reference run with the one generator where trial k − 1 left it."""
    kw = dict(lr=0.3, clip=0.5, sigma=0.8, batch_size=12, steps=20, sampling="poisson",
              options=ka.CentralOptions(n_log=2))
    out = ka.run_central(zipf, method, side_info="frequency", trials=3, seed=5, one_stream=True, **kw)
    rng = np.random.default_rng(5)
    for k in range(3):
        w = ref.central_reference(zipf, method, rng, A_fixed=zipf.side_info["frequency"]
                                  if method == "adadps_fixed" else None, **kw)
        np.testing.assert_allclose(out["w"][k], w, rtol=1e-10, atol=1e-12)
    assert out["w"].shape == (3, zipf.d) and out["clip_fraction"].shape == (3,)


@pytest.mark.parametrize("device_noise", [False, True])
def test_federated_kernel_matches_reference(zipf, device_noise):
    A = zipf.side_info["frequency"]
    options = ka.FederatedOptions(device_noise=device_noise, sampling="fixed" if device_noise else "poisson", n_log=2)
    kw = dict(local_lr=0.5, clip=0.3, sigma=0.5, users_per_round=3, rounds=12, local_steps=3, local_batch=4,
              options=options)
    out = ka.run_federated(zipf, side_info=A, seed=2, **kw)
    w = ref.federated_reference(zipf, _ref_rng(2), A=A, **kw)
    np.testing.assert_allclose(out["w"][0], w, rtol=1e-10, atol=1e-12)



@pytest.mark.parametrize("side_info", ["ones", "frequency"])
def test_federated_adam_server_kernel_matches_reference(zipf, side_info):
    """DP-FedAdam (A ≡ 1) and AdaDPS with a FedAdam server: the fused loop against the NumPy twin."""
    A = np.ones(zipf.d) if side_info == "ones" else zipf.side_info["frequency"]
    options = ka.FederatedOptions(server="adam", server_lr=0.05, server_beta1=0.8, server_beta2=0.95, server_tau=1e-2,
                                  n_log=2)
    kw = dict(local_lr=0.5, clip=0.3, sigma=0.5, users_per_round=3, rounds=12, local_steps=3, local_batch=4,
              options=options)
    out = ka.run_federated(zipf, side_info=side_info, seed=4, **kw)
    w = ref.federated_reference(zipf, _ref_rng(4), A=A, **kw)
    np.testing.assert_allclose(out["w"][0], w, rtol=1e-10, atol=1e-12)


def test_federated_adam_server_degenerate_limit_is_the_sgd_server(zipf):
    """β₁ = β₂ = 0, η_s = τ = T: w ← w + TΔ/(|Δ| + T) → w + Δ as T → ∞ (the server draws nothing)."""
    kw = dict(local_lr=0.5, clip=0.3, sigma=0.5, users_per_round=3, rounds=12, local_steps=3, local_batch=4,
              side_info="ones", seed=6)
    sgd = ka.run_federated(zipf, options=ka.FederatedOptions(n_log=3), **kw)
    big = 1e9
    adam = ka.run_federated(zipf, options=ka.FederatedOptions(server="adam", server_beta1=0.0, server_beta2=0.0,
                                                              server_tau=big, server_lr=big, n_log=3), **kw)
    np.testing.assert_allclose(adam["w"], sgd["w"], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(adam["loss"], sgd["loss"], rtol=1e-6)
    adam0 = ka.run_federated(zipf, options=ka.FederatedOptions(server="adam", n_log=3), **kw)  # FedAdam moves
    assert np.max(np.abs(adam0["w"] - sgd["w"])) > 1e-3
    for bad in (dict(server="yogi"), dict(server="adam", server_beta1=1.0), dict(server="adam", server_beta2=1.5),
                dict(server="adam", server_tau=0.0)):
        with pytest.raises(InvalidParameter):
            ka.run_federated(zipf, local_lr=0.1, options=ka.FederatedOptions(**bad))

def test_linear_regression_kernel_matches_reference(toy):
    kw = dict(lr=0.05, clip=0.5, sigma=0.7, batch_size=8, steps=50)
    out = ka.run_central(toy, "adadps_fixed", side_info="paper", seed=4, options=ka.CentralOptions(n_log=2), **kw)
    w = ref.central_reference(toy, "adadps_fixed", _ref_rng(4), A_fixed=toy.side_info["paper"], **kw)
    np.testing.assert_allclose(out["w"][0], w, rtol=1e-10, atol=1e-12)
    assert out["loss"][0, -1] == pytest.approx(toy.loss_value(w), rel=1e-10)


def test_side_information_of_ones_is_dp_sgd(zipf):
    """A ≡ 1: AdaDPS with side information is DP-SGD, bit for bit (same draws)."""
    kw = dict(lr=0.2, clip=0.4, sigma=1.0, batch_size=10, steps=40, trials=2, seed=5)
    a = ka.run_central(zipf, "adadps_fixed", side_info=np.ones(zipf.d), **kw)
    b = ka.run_central(zipf, "dp_sgd", **kw)
    np.testing.assert_array_equal(a["w"], b["w"])


def test_without_privacy_the_order_of_preconditioning_does_not_matter(zipf):
    """σ = 0, C = ∞: AdaDPS-RMSProp (precondition, then average) = DP-R-Pub (average, then precondition)."""
    kw = dict(lr=0.1, clip=np.inf, sigma=0.0, batch_size=10, steps=40, seed=6, options=ka.CentralOptions(eps_a=1e-2))
    a = ka.run_central(zipf, "adadps_rmsprop", **kw)
    b = ka.run_central(zipf, "dp_r_pub", **kw)
    np.testing.assert_allclose(a["w"], b["w"], rtol=1e-9, atol=1e-12)
    # ... and with clipping and noise it does (the paper's point about the order)
    kw.update(clip=0.05, sigma=1.0)
    a = ka.run_central(zipf, "adadps_rmsprop", **kw)
    b = ka.run_central(zipf, "dp_r_pub", **kw)
    assert not np.allclose(a["w"], b["w"])


def test_nonprivate_limit_is_plain_minibatch_sgd(toy):
    """σ = 0 and C = ∞ with fixed batches: DP-SGD is minibatch SGD on ½(⟨w,x⟩ − y)²."""
    out = ka.run_central(toy, "dp_sgd", lr=0.05, clip=np.inf, sigma=0.0, batch_size=8, steps=60, sampling="fixed",
                         seed=7, options=ka.CentralOptions(n_log=2))
    rng = _ref_rng(7)
    perm, w = np.arange(toy.n), np.zeros(toy.d)
    for _ in range(60):
        idx = ref.draw_batch(rng, perm, "fixed", 8 / toy.n, 8)
        X, y = toy.features[idx], toy.labels[idx]
        w = w - 0.05 * X.T @ (X @ w - y) / 8
    np.testing.assert_allclose(out["w"][0], w, rtol=1e-10, atol=1e-12)
    assert out["loss"][0, -1] < out["loss"][0, 0]


def test_sparse_linear_regression_matches_section_4_1():
    p = ka.sparse_linear_regression(seed=0)
    assert p.features.shape == (1000, 500)
    assert set(np.unique(p.features)) <= {0.0, 1.0}
    freq = p.features.mean(axis=0)
    # 99.9% binomial bands around 0.9 (50 000 draws) and 0.01 (450 000 draws)
    assert abs(freq[:50].mean() - 0.9) < 3.3 * np.sqrt(0.09 / 50000)
    assert abs(freq[50:].mean() - 0.01) < 3.3 * np.sqrt(0.0099 / 450000)
    np.testing.assert_array_equal(p.side_info["paper"], np.where(np.arange(500) < 50, 1.0, 0.01))
    np.testing.assert_array_equal(p.w_true, np.where(np.arange(500) < 50, 0.01, 1.0))
    resid = p.labels - p.features @ p.w_true
    assert abs(resid.std() - 0.01) < 0.01 * 3.3 / np.sqrt(2 * 999)


def test_zipf_problem_structure(zipf):
    assert zipf.public_features.shape[0] == int(np.ceil(0.05 * 300))
    assert zipf.user_ptr[0] == 0 and zipf.user_ptr[-1] == zipf.n and np.all(np.diff(zipf.user_ptr) >= 0)
    assert set(np.unique(zipf.labels)) <= {-1.0, 1.0}
    for A in zipf.side_info.values():
        assert np.all(A > 0) and A.max() == pytest.approx(1.0)
    assert np.all(np.diff(zipf.side_info["frequency"]) <= 0)  # rank 1 is the most frequent token
    assert np.all(np.diff(np.abs(zipf.w_true)) >= 0)  # rarer tokens are more predictive


@pytest.mark.parametrize("d", [1, 7])
def test_collinear_regression_satisfies_assumption3_by_construction(d):
    """Private and public batch gradients are proportional coordinate by coordinate at every w:
    (g_j/ĝ_j)² ∈ [(s_low/s_high)⁴, (s_high/s_low)⁴] (adadps Assumption 3 with a = 1/16 for s ∈ [1, 2])."""
    p = ka.collinear_regression(n=200, d=d, n_public=30, seed=3)
    u = p.extra["u"]
    assert np.all(u > 0) and np.linalg.norm(u) == pytest.approx(1.0)
    assert p.loss_value(p.w_true) == pytest.approx(0.0, abs=1e-28) and p.public_features.shape == (30, d)
    rng = np.random.default_rng(0)
    worst = 1.0
    for _ in range(200):
        w = 3.0 * rng.standard_normal(d)
        B, Bp = rng.choice(p.n, 4, replace=False), rng.integers(0, 30, 4)
        g = ref.glm_grads("squared", p.features[B], p.labels[B], w).mean(axis=0)
        gh = ref.glm_grads("squared", p.public_features[Bp], p.public_labels[Bp], w).mean(axis=0)
        r = g**2 / gh**2
        np.testing.assert_allclose(r, r[0], rtol=1e-9)  # the same ratio in every coordinate
        worst = min(worst, float(np.min(np.minimum(r, 1 / r))))
    assert worst >= (1.0 / 2.0) ** 4
    with pytest.raises(InvalidParameter, match="s_high"):
        ka.collinear_regression(s_low=2.0, s_high=1.0)


def test_reference_observer_sees_the_kernels_path():
    """The observer draws nothing (same w_T with and without it, equal to the kernel's) and sees wᵗ, ĝᵗ, gᵗ, Aᵗ."""
    p = ka.collinear_regression(n=100, d=3, n_public=20, seed=1)
    kw = dict(lr=0.05, clip=8.0, sigma=1.0, batch_size=8, steps=25, sampling="fixed",
              options=ka.CentralOptions(eps_a=1e-3, harmonic_beta2=True, lr_decay=True, n_log=2))
    seen = []

    def observe(t, w, ghat, g, A, scaled):
        seen.append((t, w.copy(), ghat.copy(), g.copy(), A.copy(), scaled.copy()))

    w_obs = ref.central_reference(p, "adadps_rmsprop", _ref_rng(5), observe=observe, **kw)
    w_ref = ref.central_reference(p, "adadps_rmsprop", _ref_rng(5), **kw)
    out = ka.run_central(p, "adadps_rmsprop", seed=5, **kw)
    np.testing.assert_array_equal(w_obs, w_ref)
    np.testing.assert_allclose(out["w"][0], w_obs, rtol=1e-10, atol=1e-12)
    assert [s[0] for s in seen] == list(range(1, 26))
    t1, w1, gh1, g1, A1, sc1 = seen[0]
    np.testing.assert_array_equal(w1, np.zeros(3))
    np.testing.assert_allclose(A1, np.abs(gh1) + 1e-3)  # β¹ = 0: v¹ = (ĝ¹)²
    assert sc1.shape == (8, 3) and np.allclose(sc1.mean(axis=0), g1 / A1)


def test_same_seed_same_numbers_and_bad_input(zipf, toy):
    a = ka.run_central(zipf, "dp_adam", lr=0.1, steps=20, batch_size=8, seed=9, trials=2)
    b = ka.run_central(zipf, "dp_adam", lr=0.1, steps=20, batch_size=8, seed=9, trials=2)
    np.testing.assert_array_equal(a["loss"], b["loss"])
    with pytest.raises(InvalidParameter, match="method"):
        ka.run_central(zipf, "dp_adagrad", lr=0.1)
    with pytest.raises(InvalidParameter, match="lr"):
        ka.run_central(zipf, "dp_sgd", lr=-1.0)
    with pytest.raises(InvalidParameter, match="side_info"):
        ka.run_central(zipf, "adadps_fixed", lr=0.1, side_info=np.ones(3))
    with pytest.raises(InvalidParameter, match="side_info"):
        ka.run_central(zipf, "adadps_fixed", lr=0.1, side_info="tfidf")
    with pytest.raises(InvalidParameter, match="batch_size"):
        ka.run_central(zipf, "dp_sgd", lr=0.1, batch_size=10**6)
    with pytest.raises(InvalidParameter, match="method"):
        ka.run_central(toy, "adadps_rmsprop", lr=0.1)  # no public split
    with pytest.raises(InvalidParameter, match="noise_clip"):
        ka.run_central(zipf, "dp_sgd", lr=0.1, clip=np.inf, sigma=1.0)
    with pytest.raises(InvalidParameter, match="problem"):
        ka.run_federated(toy, local_lr=0.1)
    with pytest.raises(InvalidParameter, match="users_per_round"):
        ka.run_federated(zipf, local_lr=0.1, users_per_round=1000)


def test_tracked_gradient_norm_is_the_full_gradient_in_the_A_inverse_norm(zipf):
    """One step: grad_avg = ‖∇F(w¹)‖²_{A⁻¹} at the initial point, from full-data gradients."""
    A = zipf.side_info["frequency"]
    w0 = np.linspace(-1, 1, zipf.d)
    out = ka.run_central(zipf, "adadps_fixed", lr=0.1, clip=np.inf, sigma=0.0, batch_size=5, steps=1,
                         side_info="frequency", options=ka.CentralOptions(track_weights=1 / A, w0=w0, n_log=2))
    g = ref.glm_grads("logistic", zipf.features, zipf.labels, w0).mean(axis=0)
    assert out["grad_avg"][0] == pytest.approx(float(np.sum(g * g / A)), rel=1e-12)


def _signed_sparse_regression():
    """A squared-loss problem with signed real features, ~15% nonzero (the sparse loops on kind 0, negative x)."""
    rng = np.random.default_rng(11)
    X = np.where(rng.random((120, 30)) < 0.15, rng.standard_normal((120, 30)), 0.0)
    Xp = np.where(rng.random((20, 30)) < 0.15, rng.standard_normal((20, 30)), 0.0)
    return ka.GLMProblem(X, X @ rng.standard_normal(30), "squared", {"probe": np.linspace(0.2, 1.0, 30)}, {},
                         Xp, rng.standard_normal(20))


@pytest.mark.parametrize("one_stream", [False, True])
@pytest.mark.parametrize("method", list(ka.METHODS))
def test_sparse_row_loops_give_the_dense_loops_bits(zipf, method, one_stream, monkeypatch):
    """The CSR loops of run_central (sparse features) skip only zero terms: every output equals the dense loops'
    exactly, on both losses, with clipping active, a start w0 ≠ 0, the tracked gradient norm and both samplings."""
    signed = _signed_sparse_regression()
    for prob, side in ((zipf, "frequency"), (signed, "probe")):
        for sampling in ("poisson", "fixed"):
            options = ka.CentralOptions(eps_a=1e-3, n_log=5, lr_decay=sampling == "fixed", w0=np.full(prob.d, 0.05),
                                        track_weights=np.linspace(1.0, 2.0, prob.d))
            kw = dict(lr=0.2, clip=0.3, sigma=0.7, batch_size=10, steps=25, sampling=sampling, side_info=side,
                      options=options, trials=3, seed=4, one_stream=one_stream)
            monkeypatch.setattr(ka, "SPARSE_ROWS_MAX_DENSITY", 0.0)
            assert ka._central_rows(prob.features, prob.public_features, ka.METHODS[method])[0][0].size == 0
            dense = ka.run_central(prob, method, **kw)
            monkeypatch.setattr(ka, "SPARSE_ROWS_MAX_DENSITY", 1.0)
            rows, _ = ka._central_rows(prob.features, prob.public_features, ka.METHODS[method])
            assert rows[0].size == (0 if method == "adadps_adam" else prob.n + 1)
            sparse = ka.run_central(prob, method, **kw)
            assert dense.keys() == sparse.keys()
            for key in dense:
                assert np.asarray(dense[key]).tobytes() == np.asarray(sparse[key]).tobytes(), (method, key)


def test_csr_rows_hold_each_rows_nonzeros_in_column_order():
    """_csr_rows: row i's stored entries are X[i]'s nonzeros (−0.0 counts as zero), columns increasing; denser than
    the limit gives empty arrays (the dense loops)."""
    X = np.array([[0.0, 2.0, 0.0, -1.5], [0.0, 0.0, 0.0, 0.0], [3.0, -0.0, 0.5, 0.0]])
    ptr, idx, val = ka._csr_rows(X, 1.0)
    assert ptr.tolist() == [0, 2, 2, 4] and idx.tolist() == [1, 3, 0, 2] and val.tolist() == [2.0, -1.5, 3.0, 0.5]
    dense = np.zeros_like(X)
    for i in range(X.shape[0]):
        dense[i, idx[ptr[i]:ptr[i + 1]]] = val[ptr[i]:ptr[i + 1]]
    assert np.array_equal(dense, X)
    assert all(a.size == 0 for a in ka._csr_rows(X, 0.3))  # 4 of 12 nonzero > 0.3
    assert ka._csr_rows(X, 4 / 12)[0].size == 4
