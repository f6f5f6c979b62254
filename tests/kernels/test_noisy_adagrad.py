"""kernels.noisy_adagrad: kernels vs NumPy references, degenerate limits, the problem, oracles, numerics; and no NaN
or inf from its private kernels (DP-GD, noisy AdaGrad) at the edges of ε, δ and the data."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpvalidate import InvalidParameter
from kernels import noisy_adagrad as kn
from kernels import noisy_adagrad_reference as rf
from theory import noisy_adagrad as tn
from theory import numeric


@pytest.fixture(scope="module", params=["absolute", "logistic", "hinge"])
def prob(request):
    return kn.low_rank_glm(n=60, p=12, k=3, loss=request.param, m_public=30, public_shift=0.05, label_noise=0.1,
                           seed=1)


@pytest.mark.parametrize("oracle", ["exact", "public", "rotated"])
@pytest.mark.parametrize("mode", ["abs", "clip"])
def test_noisy_adagrad_matches_reference_with_the_same_noise(prob, oracle, mode):
    T = 40
    Vt = kn.subspace_oracle(prob, oracle, gamma=0.3, seed=2)
    kw = dict(sigma_b=0.05, sigma_B=0.3, options=kn.NoisyAdagradOptions(sigma_b_mode="grad_norm", indefinite=mode))
    out = kn.run_noisy_adagrad(prob, T, 0.5, 0.8, Vt=Vt, trials=1, seed=3, **kw)
    xi, gk = kn.draw_noise(3, 1, T, prob.p, Vt.shape[1])[0]
    ref = rf.noisy_adagrad(prob, T, 0.5, 0.8, Vt, np.full(T, 0.05), "grad_norm", np.full(T, 0.3), xi, gk, mode)
    np.testing.assert_allclose(out["theta_avg"][0], ref["theta_avg"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(out["losses"][0], ref["losses"], rtol=1e-7, atol=1e-8)
    assert np.all(np.linalg.norm(out["theta_last"], axis=1) <= 0.8 * (1 + 1e-12))


@pytest.mark.parametrize("oracle", ["exact", "public"])
@pytest.mark.parametrize("b_mode", ["constant", "grad_norm"])
def test_noisy_adagrad_matches_reference_without_preconditioner_noise(prob, oracle, b_mode):
    """σ_B = 0, σ_b > 0 (theorem3.1's ρ = 0 runs): H_t has the rank of the gradients' span (< k̃ in the first steps),
    and σ_bξ_t reaches its null directions, so a rounding eigenvalue kept as a direction (the reference's G once had
    roots ~1e-8·‖G‖ there) is amplified by H⁺; the twins must agree step by step."""
    T, sb = 30, 0.05
    Vt = kn.subspace_oracle(prob, oracle)
    out = kn.run_noisy_adagrad(prob, T, 0.5, 0.8, Vt=Vt, sigma_b=sb, sigma_B=0.0,
                               options=kn.NoisyAdagradOptions(sigma_b_mode=b_mode), trials=1, seed=3)
    xi, gk = kn.draw_noise(3, 1, T, prob.p, Vt.shape[1])[0]
    ref = rf.noisy_adagrad(prob, T, 0.5, 0.8, Vt, np.full(T, sb), b_mode, np.zeros(T), xi, gk)
    np.testing.assert_allclose(out["losses"][0], ref["losses"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(out["theta_last"][0], ref["theta_last"], rtol=1e-7, atol=1e-8)


def test_noisy_adagrad_matches_reference_in_the_theorem3_1_setting():
    """The theorem3.1 check's problem (p = 20, k = 3, absolute loss, ‖θ*‖ = 0.8, R = 1, η = 2√(3/8), exact oracle)
    at σ_B = 0, σ_b = 0.05: while the reference took G_t as the root of the formed S_t the losses differed by 2e-2
    at step 2 (G_1 = (∇_1∇_1ᵀ)^{1/2} had rounding roots ~1e-8·‖G_1‖ that passed RTOL)."""
    T, p = 25, 20
    pr = kn.low_rank_glm(n=100, p=p, k=3, loss="absolute", w_norm=0.8, seed=0)
    eta = 2 * np.sqrt(3 / 8)
    out = kn.run_noisy_adagrad(pr, T, eta, 1.0, sigma_b=0.05, sigma_B=0.0, trials=1, seed=5)
    xi, gk = kn.draw_noise(5, 1, T, p, 3)[0]
    ref = rf.noisy_adagrad(pr, T, eta, 1.0, pr.V, np.full(T, 0.05), "constant", np.zeros(T), xi, gk)
    assert out["tr_g"][0, 0] == pytest.approx(out["lam_min"][0, 0])  # step 1: G_1 has rank 1 < k̃ = 3
    np.testing.assert_allclose(out["losses"][0], ref["losses"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(out["theta_avg"][0], ref["theta_avg"], rtol=1e-7, atol=1e-8)


def test_reference_root_of_a_formed_rank_one_matrix_has_rank_one():
    """S = ggᵀ formed in floating point: eigh gives its zero eigenvalues as ±O(p·ε·‖S‖); the root must not turn
    them into directions of size √(p·ε)·‖G‖ (which pass RTOL = 1e-10)."""
    g = np.random.default_rng(0).standard_normal(20)
    G = rf.psd_sqrt(np.outer(g, g))
    w = np.linalg.eigvalsh(G)
    assert w[-1] == pytest.approx(np.linalg.norm(g), rel=1e-12)
    assert np.max(np.abs(w[:-1])) <= 1e-14 * w[-1]  # rounding of the reconstruction, not ~1e-8 roots
    np.testing.assert_allclose(G @ G, np.outer(g, g), rtol=0, atol=1e-13 * g @ g)
    assert rf.rounding_floor(np.array([-1.0, 4.0])) == 2 * 4.0 * np.finfo(float).eps
    assert rf.rounding_floor(np.zeros(0)) == 0.0


@pytest.mark.parametrize("rel", [1e-6, 1e-8, 3e-9])
def test_roots_of_nearly_dependent_gradients_agree(rel):
    """∇_2 = 0.7∇_1 + rel·‖∇_1‖e (e ⟂ ∇_1): G_2's small root, ≈ rel·0.7‖∇_1‖/√1.49 ≈ 1e-8·‖G‖ at rel = 1e-8, is
    below what eigh of a formed S resolves (~√(p·ε)·‖G‖) but the kernel's basis and the reference's square-root
    factor both get it to ~1e-7 relative (checked against the SVD of the stacked gradients)."""
    p = 20
    rng = np.random.default_rng(1)
    g1, e = rng.standard_normal(p), rng.standard_normal(p)
    e -= g1 * (g1 @ e) / (g1 @ g1)
    g2 = 0.7 * g1 + rel * np.linalg.norm(g1) * e / np.linalg.norm(e)
    Q, SQ, r, st = np.zeros((p, p)), np.zeros((p, p)), 0, rf.accumulate_init(p)
    for g in (g1, g2):
        r = kn._basis_update(Q, SQ, r, g, kn.RANK_TOL)
        G, st = rf.accumulate_update(g, st)
    _, w = kn._sqrt_psd(SQ, r, kn.RTOL)
    exact = np.linalg.svd(np.vstack([g1, g2]), compute_uv=False)
    ref = np.linalg.eigvalsh(G)[::-1]
    np.testing.assert_allclose(np.sort(w)[::-1], exact, rtol=1e-7)
    np.testing.assert_allclose(ref[:2], exact, rtol=1e-7)
    assert np.max(np.abs(ref[2:])) <= 1e-14 * exact[0]
    np.testing.assert_allclose(st.F.T @ st.F, st.S, rtol=0, atol=1e-13 * exact[0] ** 2)


def test_noisy_adagrad_releases_match_reference(prob):
    """releases=True returns the 2T privatised statistics (∇_t + σ_bξ_t and Ṽᵀ(G_t + B_t)Ṽ) the NumPy twin forms,
    and changes nothing else."""
    T, Vt = 12, kn.subspace_oracle(prob, "rotated", gamma=0.3, seed=2)
    kw = dict(Vt=Vt, sigma_b=0.05, sigma_B=0.3, trials=2, seed=3)
    out = kn.run_noisy_adagrad(prob, T, 0.5, 0.8, releases=True, **kw)
    plain = kn.run_noisy_adagrad(prob, T, 0.5, 0.8, **kw)
    assert "released_gradient" not in plain
    np.testing.assert_array_equal(out["theta_avg"], plain["theta_avg"])
    assert out["released_gradient"].shape == (2, T, prob.p) and out["released_preconditioner"].shape == (2, T, 3, 3)
    for i, (xi, gk) in enumerate(kn.draw_noise(3, 2, T, prob.p, 3)):
        ref = rf.noisy_adagrad(prob, T, 0.5, 0.8, Vt, np.full(T, 0.05), "constant", np.full(T, 0.3), xi, gk)
        np.testing.assert_allclose(out["released_gradient"][i], ref["released_gradient"], rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(out["released_preconditioner"][i], ref["released_preconditioner"], rtol=1e-7,
                                   atol=1e-10)
    with pytest.raises(InvalidParameter, match="releases"):
        kn.run_noisy_adagrad(prob, T, 0.5, 0.8, releases="yes")



@pytest.mark.parametrize("releases", [False, True])
def test_noisy_adagrad_trials_from_one_stream_are_the_reference_run_in_turn(prob, releases):
    """one_stream: trial k is the NumPy reference run on the noise (ξ, then the GOE matrices, as draw_noise orders
    them) drawn from the one generator where trial k − 1 left it; with releases or without."""
    T, Vt, trials = 15, kn.subspace_oracle(prob, "rotated", gamma=0.3, seed=2), 3
    kw = dict(Vt=Vt, sigma_b=0.05, sigma_B=0.3, options=kn.NoisyAdagradOptions(sigma_b_mode="grad_norm"),
              trials=trials, seed=5, releases=releases)
    out = kn.run_noisy_adagrad(prob, T, 0.5, 0.8, one_stream=True, **kw)
    rng = np.random.default_rng(5)
    for k in range(trials):
        xi = rng.standard_normal((T, prob.p))
        gk = kn.goe(rng, Vt.shape[1], T)
        ref = rf.noisy_adagrad(prob, T, 0.5, 0.8, Vt, np.full(T, 0.05), "grad_norm", np.full(T, 0.3), xi, gk)
        for key in ("theta_last", "theta_avg", "losses"):
            np.testing.assert_allclose(out[key][k], ref[key], rtol=1e-10, atol=1e-12)
        if releases:
            np.testing.assert_allclose(out["released_gradient"][k], ref["released_gradient"], rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(out["released_preconditioner"][k], ref["released_preconditioner"],
                                       rtol=1e-10, atol=1e-12)
    assert ("released_gradient" in out) == releases
    assert out["theta_last"].shape == (trials, prob.p) and out["loss_avg"].shape == (trials,)
    with pytest.raises(InvalidParameter, match="one_stream"):
        kn.run_noisy_adagrad(prob, T, 0.5, 0.8, one_stream="yes")


def test_dpgd_trials_from_one_stream_are_the_reference_run_in_turn(prob):
    """one_stream: trial k is the NumPy reference DP-GD on the ξ (steps × p) drawn from the one generator where
    trial k − 1 left it; each trial's average loss is the loss at its average iterate."""
    T, trials = 30, 4
    out = kn.run_dpgd(prob, T, 0.3, 0.2, trials=trials, seed=9, one_stream=True)
    rng = np.random.default_rng(9)
    for k in range(trials):
        xi = rng.standard_normal((T, prob.p))
        ref = rf.dpgd(prob, 0.3, 0.2, xi)
        np.testing.assert_allclose(out["theta_last"][k], ref["theta_last"], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(out["theta_avg"][k], ref["theta_avg"], rtol=1e-10, atol=1e-12)
        assert out["loss_avg"][k] == prob.loss_value(out["theta_avg"][k])
    with pytest.raises(InvalidParameter, match="one_stream"):
        kn.run_dpgd(prob, T, 0.3, 0.2, one_stream=2)

def test_dpgd_returns_its_last_iterate(prob):
    out = kn.run_dpgd(prob, 30, 0.3, 0.2, trials=2, seed=9)
    for i, child in enumerate(np.random.SeedSequence(9).spawn(2)):
        xi = np.random.default_rng(child).standard_normal((30, prob.p))
        np.testing.assert_allclose(out["theta_last"][i], rf.dpgd(prob, 0.3, 0.2, xi)["theta_last"], rtol=1e-9,
                                   atol=1e-12)


def test_dpgd_runs_its_trials_in_batches_with_the_same_numbers(prob, monkeypatch):
    # the trials run in batches of bounded noise; two trials a batch (and a last batch of one) must give the bits of
    # one batch, and each trial's average loss is the loss at its average iterate
    whole = kn.run_dpgd(prob, 30, 0.3, 0.2, trials=5, seed=4)
    monkeypatch.setattr(kn, "_DPGD_BATCH_BYTES", 2 * 8 * 30 * prob.p)
    parts = kn.run_dpgd(prob, 30, 0.3, 0.2, trials=5, seed=4)
    assert set(parts) == set(whole)
    for key in whole:
        np.testing.assert_array_equal(parts[key], whole[key])
    assert [prob.loss_value(th) for th in whole["theta_avg"]] == list(whole["loss_avg"])
    assert len(set(whole["loss_avg"])) == 5  # five different streams


@pytest.mark.parametrize("delta", [0.0, 0.1])
def test_adagrad_matches_reference(prob, delta):
    a = kn.run_adagrad(prob, 40, 0.5, 0.8, delta=delta)
    r = rf.adagrad(prob, 40, 0.5, 0.8, delta)
    np.testing.assert_allclose(a["theta_avg"], r["theta_avg"], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["abs", "clip"])
def test_without_noise_and_with_the_exact_span_noisy_adagrad_is_adagrad(prob, mode):
    """σ_b = σ_B = 0, Ṽ = V ⊇ every gradient: H_t = ΠG_tΠ = G_t, so the step is AdaGrad's with δ = 0."""
    nz = kn.run_noisy_adagrad(prob, 60, 0.5, 0.8, options=kn.NoisyAdagradOptions(indefinite=mode), trials=2, seed=5)
    a = kn.run_adagrad(prob, 60, 0.5, 0.8, delta=0.0)
    np.testing.assert_allclose(nz["theta_avg"][0], a["theta_avg"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(nz["theta_avg"][1], a["theta_avg"], rtol=1e-9, atol=1e-12)
    assert np.all(nz["indefinite"] == 0)


def test_dpgd_matches_reference_and_is_gd_without_noise(prob):
    out = kn.run_dpgd(prob, 200, 0.3, 0.2, trials=1, seed=9)
    xi = np.random.default_rng(np.random.SeedSequence(9).spawn(1)[0]).standard_normal((200, prob.p))
    ref = rf.dpgd(prob, 0.3, 0.2, xi)
    np.testing.assert_allclose(out["theta_avg"][0], ref["theta_avg"], rtol=1e-9, atol=1e-12)
    clean = kn.run_dpgd(prob, 50, 0.3, 0.0, trials=2, seed=1)
    np.testing.assert_array_equal(clean["theta_avg"][0], clean["theta_avg"][1])
    np.testing.assert_allclose(clean["theta_avg"][0], rf.dpgd(prob, 0.3, 0.0, np.zeros((50, prob.p)))["theta_avg"])


def test_same_seed_same_numbers_and_trials_differ(prob):
    kw = dict(sigma_b=0.1, sigma_B=0.2, trials=2, seed=4)
    a = kn.run_noisy_adagrad(prob, 30, 0.5, 1.0, **kw)
    b = kn.run_noisy_adagrad(prob, 30, 0.5, 1.0, **kw)
    np.testing.assert_array_equal(a["theta_avg"], b["theta_avg"])
    assert not np.allclose(a["theta_avg"][0], a["theta_avg"][1])


def test_low_rank_glm_structure():
    probs = [kn.low_rank_glm(n=50, p=p, k=4, seed=3) for p in (4, 30, 200)]
    for pr in probs:
        assert np.allclose(pr.V.T @ pr.V, np.eye(4))
        assert np.allclose(pr.X - pr.X @ pr.V @ pr.V.T, 0, atol=1e-12)  # rows in span(V)
        assert pr.lipschitz <= 1 + 1e-12
        assert pr.loss_value(pr.theta_true) == pytest.approx(0.0, abs=1e-12)  # clean absolute: L* = 0
        g = pr.gradient(np.zeros(pr.p))
        assert np.allclose(g, pr.V @ (pr.V.T @ g), atol=1e-12)  # gradients in the span
    np.testing.assert_array_equal(probs[0].Z, probs[2].Z)  # same k-dim problem for every p
    assert probs[0].loss_value(np.zeros(4)) == pytest.approx(probs[2].loss_value(np.zeros(200)), rel=1e-12)


def test_oracles():
    pr = kn.low_rank_glm(n=50, p=40, k=3, m_public=400, public_shift=0.01, seed=2)
    for gamma in (0.0, 0.1, 0.5, 1.0):
        Vt = kn.subspace_oracle(pr, "rotated", gamma=gamma, seed=1)
        assert kn.principal_distance(pr.V, Vt) == pytest.approx(gamma, abs=1e-10)
    assert kn.principal_distance(pr.V, kn.subspace_oracle(pr, "exact")) == pytest.approx(0.0, abs=1e-12)
    assert kn.principal_distance(pr.V, kn.subspace_oracle(pr, "public")) < 0.2
    with pytest.raises(InvalidParameter, match="m_public"):
        kn.subspace_oracle(kn.low_rank_glm(n=20, p=10, k=2, seed=0), "public")


def test_goe_law():
    M = kn.goe(np.random.default_rng(0), 4, size=40000)
    assert np.allclose(M, np.swapaxes(M, 1, 2))
    assert np.var(M[:, 0, 0]) == pytest.approx(2.0, rel=0.05)
    assert np.var(M[:, 0, 1]) == pytest.approx(1.0, rel=0.05)


def test_seminorm_projection_is_feasible_and_optimal():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p, r = int(rng.integers(1, 6)), None
        r = int(rng.integers(1, p + 1))
        U, _ = np.linalg.qr(rng.standard_normal((p, r)))
        kap = np.abs(rng.standard_normal(r)) * (rng.random(r) > 0.3)
        delta_c = float(rng.choice([0.0, 0.5]))
        y = rng.standard_normal(p) * 3
        x = rf.project_seminorm(U, kap, y, 1.0, delta_c)
        out = np.empty(p)
        kn._project_seminorm(U, kap, delta_c, y, 1.0, out)
        np.testing.assert_allclose(out, x, atol=1e-9)
        assert np.linalg.norm(x) <= 1 + 1e-9
        H = (U * kap) @ U.T + delta_c * (np.eye(p) - U @ U.T)
        val = (x - y) @ H @ (x - y)
        cand = rng.standard_normal((300, p))
        cand /= np.maximum(1, np.linalg.norm(cand, axis=1, keepdims=True))
        assert np.all(np.einsum("ij,jk,ik->i", cand - y, H, cand - y) >= val - 1e-9)


def test_indefinite_preconditioner_is_counted_and_handled():
    pr = kn.low_rank_glm(n=40, p=10, k=3, seed=0)
    out = {m: kn.run_noisy_adagrad(pr, 60, 0.5, 1.0, sigma_B=5.0, options=kn.NoisyAdagradOptions(indefinite=m),
                                   trials=1, seed=1)
           for m in ("abs", "clip")}
    assert out["abs"]["indefinite"].sum() > 0
    np.testing.assert_array_equal(out["abs"]["indefinite"], out["clip"]["indefinite"])  # same draws, same K
    for o in out.values():
        assert np.all(np.isfinite(o["theta_avg"])) and np.all(np.linalg.norm(o["theta_last"], axis=1) <= 1 + 1e-12)
    assert not np.allclose(out["abs"]["theta_avg"], out["clip"]["theta_avg"])


def test_rank_tolerance_of_the_reference_roots():
    S = np.diag([4.0, 1e-30, 0.0])
    G = rf.psd_sqrt(S)
    assert G[0, 0] == pytest.approx(2.0) and G[1, 1] == 0.0
    k = rf.treat(np.array([-2.0, 1e-14, 3.0]), "abs")
    assert list(k) == [2.0, 0.0, 3.0]
    assert list(rf.treat(np.array([-2.0, 1e-14, 3.0]), "clip")) == [0.0, 0.0, 3.0]


def test_bad_input_is_named():
    pr = kn.low_rank_glm(n=20, p=6, k=2, seed=0)
    with pytest.raises(InvalidParameter, match="k must"):
        kn.low_rank_glm(p=3, k=5)
    with pytest.raises(InvalidParameter, match="loss"):
        kn.low_rank_glm(loss="square")
    with pytest.raises(InvalidParameter, match="sigma_B"):
        kn.run_noisy_adagrad(pr, 10, 0.5, 1.0, sigma_B=-1.0)
    with pytest.raises(InvalidParameter, match="indefinite"):
        kn.run_noisy_adagrad(pr, 10, 0.5, 1.0, options=kn.NoisyAdagradOptions(indefinite="raw"))
    with pytest.raises(InvalidParameter, match="options"):
        kn.run_noisy_adagrad(pr, 10, 0.5, 1.0, options=dict(indefinite="abs"))
    with pytest.raises(InvalidParameter, match="Vt"):
        kn.run_noisy_adagrad(pr, 10, 0.5, 1.0, Vt=np.ones((6, 2)))
    with pytest.raises(InvalidParameter, match="sigma_b"):
        kn.run_noisy_adagrad(pr, 10, 0.5, 1.0, sigma_b=np.ones(3))
    with pytest.raises(InvalidParameter, match="gamma"):
        kn.subspace_oracle(pr, "rotated", gamma=1.5)
    with pytest.raises(InvalidParameter, match="steps"):
        kn.run_dpgd(pr, 0, 0.1, 0.1)


# ----------------------------------------------------------------------------------------------------
# No NaN or inf from noisy_adagrad's private kernels (DP-GD, noisy AdaGrad) at the edges: ε ∈ [1e-3, 1e3],
# δ ∈ [1e-12, 0.5] (through the calibrations the claims use), zero records, duplicate records, p = 1.
# ----------------------------------------------------------------------------------------------------
LOSS = st.sampled_from(list(kn.LOSSES))
SHAPE = st.sampled_from(["data", "zero", "duplicate"])
LOG_EPS = st.floats(-3, 3)
LOG_DELTA = st.floats(-12, math.log10(0.5))


def _problem(p: int, k: int, loss: str, shape: str, seed: int) -> kn.LowRankGLM:
    prob = kn.low_rank_glm(n=12, p=p, k=k, loss=loss, seed=seed)
    X, y = prob.X.copy(), prob.y.copy()
    if shape == "zero":
        X[:] = 0.0
        y[:] = 0.0
    elif shape == "duplicate":
        X[:] = X[0]
        y[:] = y[0]
    return kn.LowRankGLM(np.ascontiguousarray(X), y, prob.V, prob.Z, prob.theta_true, prob.X_public, loss,
                         prob.params)


def _finite(out: dict, keys) -> bool:
    return all(np.all(np.isfinite(out[k])) for k in keys)


@settings(max_examples=40, deadline=None)
@given(loss=LOSS, shape=SHAPE, p=st.sampled_from([1, 4]), log_eps=LOG_EPS, log_delta=LOG_DELTA,
       seed=st.integers(0, 5))
def test_dpgd_outputs_are_finite(loss, shape, p, log_eps, log_delta, seed):
    prob = _problem(p, 1, loss, shape, seed)
    T = 5
    sigma = float(numeric(tn.theorem5_1_sigma())(L=max(prob.lipschitz, 1e-12), T=T, delta=10.0**log_delta,
                                                  epsilon=10.0**log_eps, n=prob.n))
    out = kn.run_dpgd(prob, T, 0.5, sigma, trials=2, seed=seed)
    assert _finite(out, ("losses", "theta_avg", "loss_avg")), (loss, shape, p, log_eps, log_delta)


@settings(max_examples=60, deadline=None)
@given(loss=LOSS, shape=SHAPE, pk=st.sampled_from([(1, 1), (4, 2)]), log_eps=LOG_EPS, log_delta=LOG_DELTA,
       b_mode=st.sampled_from(list(kn.SIGMA_B_MODES)), indefinite=st.sampled_from(list(kn.INDEFINITE)),
       radius=st.sampled_from([1.0, math.inf]), seed=st.integers(0, 5))
def test_noisy_adagrad_outputs_are_finite(loss, shape, pk, log_eps, log_delta, b_mode, indefinite, radius, seed):
    p, k = pk
    prob = _problem(p, k, loss, shape, seed)
    T, n, L = 5, prob.n, 1.0
    # Theorem 10's calibration per release (σ = √(2 ln(1.25/δ))·Δ/ε), Δ = L/n and Δ_t = √2·L√t/n (Lemma 5)
    c = float(numeric(tn.theorem10_sigma())(Delta=1.0, delta=10.0**log_delta, epsilon=10.0**log_eps))
    t = np.arange(1, T + 1, dtype=float)
    sigma_b = c * L / n if b_mode == "constant" else c
    sigma_B = c * np.asarray(numeric(tn.lemma5_rigorous())(L=L, t=t, n=n), float) / math.sqrt(2.0)
    out = kn.run_noisy_adagrad(prob, T, 0.5, radius, sigma_b=sigma_b, sigma_B=sigma_B,
                               options=kn.NoisyAdagradOptions(sigma_b_mode=b_mode, indefinite=indefinite), trials=2,
                               seed=seed)
    assert _finite(out, ("losses", "gnorm", "tr_g", "tr_ginv", "indefinite", "theta_avg", "theta_last",
                         "loss_avg", "sigma_b_used")), (loss, shape, pk, log_eps, log_delta, b_mode, indefinite,
                                                        radius)
    assert np.all(out["lam_min"] > 0)  # +inf while G_t = 0 (no gradient yet): documented, not a NaN
