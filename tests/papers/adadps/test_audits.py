"""Privacy audits of the adadps kernels (:mod:`verify.papers.adadps.audits`, claims ``adadps.audit.*``):
registration, the quick verdict, a negative control, and a pinned finding about the fixed-size-batch (replace-one)
accounting; and the noise the kernels inject against the noise the accountant is told about.

The noise the adadps kernels inject is the noise the accountant is told about: σ (the noise multiplier
dp_sgd_epsilon gets) × C (the clip, the per-record — or per-user — sensitivity) / b, from both sides.

Same seed with σ > 0 and σ = 0: every step draws its batch (and local batches) before the noise, so after one
step the difference of the two outputs is the injected noise times the known step.  The empirical variance of
the whitened noise is tested against 1 with a two-sided 99.9% chi-square interval, per coordinate for AdaDPS
(its noise must be isotropic: it is added after preconditioning and clipping, never divided by A)."""

import numpy as np
import pytest
from scipy import stats

from kernels import adadps as ka
from tests.verify.evidence_support import lost_numbers
from verify.audit import _QUICK_CAVEAT, AUDIT_DELTA
from verify.papers.adadps import audits
from verify.privacy import gaussian_epsilon
from verify.registry import load_all


def test_audit_claims_are_registered():
    assert {"adadps.audit.adadps_fixed", "adadps.audit.dp_sgd", "adadps.audit.federated"} <= set(load_all())


def test_adadps_fixed_quick_audit_holds_and_reports_both_numbers():
    out = audits.audit_central("adadps_fixed", "quick", 0)
    f = out.numbers
    for k in range(len(audits.AUDIT_CENTRAL_CONFIGS)):
        assert 0 < f[f"audit_epsilon_lb_{k}"] <= f[f"accountant_epsilon_{k}"]
    assert out.verdict == "holds" and out.evidence.endswith(_QUICK_CAVEAT)
    assert f["trials_per_dataset"] == 20_000


def test_adadps_clips_the_preconditioned_canary():
    """The canary's gradient ≈ 100·e₀ becomes ≈ 10⁴·e₀ after A₀ = 0.01: clipped in every draw that holds it,
    so its push on w₀ is lr·C/b — the same as DP-SGD's (clipping before preconditioning would give 100× that)."""
    kw = dict(sampling="poisson", n=1, batch_size=1, steps=1, canary=True, trials=2000, seed=5)
    ada = audits.audit_central_task("adadps_fixed", **kw)
    sgd = audits.audit_central_task("dp_sgd", **kw)
    assert ada["clip_fraction"] == 1.0
    np.testing.assert_allclose(ada["score"], sgd["score"], rtol=1e-12, atol=1e-15)
    quiet = audits.audit_central_task("adadps_fixed", **kw, noise_scale=0.0)["score"]
    np.testing.assert_allclose(quiet, audits.AUDIT_LR * audits.AUDIT_CLIP, rtol=1e-12)


def test_audit_catches_a_quarter_of_the_noise():
    """Negative control: σ handed to the kernel divided by 4 while the accountant keeps σ must be flagged, with a
    finding naming the leaking configurations (in the regime, no repair: a kernel fault)."""
    out = audits.audit_central("dp_sgd", "quick", 0, noise_scale=0.25)
    assert out.verdict == "violated" and out.evidence.startswith("LEAKS")
    assert out.counterexample["audit_epsilon_lb"] > out.counterexample["accountant_epsilon"]
    f = out.finding
    assert f.scope == "in_regime" and f.repair is None and "kernel" in f.no_repair_reason
    leaking = sum(out.numbers[f"audit_epsilon_lb_{k}"] > out.numbers[f"accountant_epsilon_{k}"]
                  for k in range(len(audits.AUDIT_CENTRAL_CONFIGS)))
    assert f.region.explored == len(audits.AUDIT_CENTRAL_CONFIGS) and f.region.failing == leaking >= 1
    assert f.at_paper_setting.size > 1


@pytest.fixture(scope="module")
def federated_quick():
    """adadps.audit.federated at quick, seed 0, run once."""
    return audits.audit_federated("quick", 0)


def test_subsampled_audit_rows_are_information_not_verdict(federated_quick):
    """The subsampled row (U=4, b=1, R=3: Clopper–Pearson, 0.28 of the accountant's ε at seed 0) is shown as
    information with the share it sees and the most its test could certify; the verdict and its one decision come
    from U=1 (no user sampling, Gaussian-DP bound, 0.88 of ε)."""
    out = federated_quick
    f = out.numbers
    assert out.verdict == "holds" and len(out.decisions) == 1
    assert f["information_rows"] == 1 and f["information_max_over_accountant"] == pytest.approx(0.2801, abs=1e-3)
    assert f["max_audit_over_accountant_in_verdict"] == pytest.approx(0.8842, abs=1e-3)
    assert f["information_ceiling"] > f["accountant_epsilon_1"]
    assert "shown as information, not in the verdict" in out.evidence
    assert "U=4,b=1,R=3: audited ε ≥ 1.065 (clopper_pearson) vs accountant 3.807 (0.28 of it)" in out.evidence
    assert out.evidence.endswith(_QUICK_CAVEAT)
    assert len(out.plots[0].panels[0].categories) == 2  # the figure keeps every row


def _row(lb, acc, method):
    return dict(audit_epsilon_lb=lb, accountant_epsilon=acc, audit_method=method)


def test_a_strong_subsampled_row_cannot_carry_a_weak_verdict():
    """A Gaussian row at 0.1 of its ε and a subsampled row at 0.9: the subsampled row is information, so the audit
    sees 0.1 of ε and cannot say holds (inconclusive); with that row in the verdict it would have."""
    rows = [_row(0.4, 4.0, "gdp"), _row(3.6, 4.0, "clopper_pearson")]
    out = audits.audit_with_information("t", "t", rows, ["a", "b"], [1.0, 0.25], trials=1000, level=0.99,
                                        budget="quick")
    assert out.verdict == "inconclusive" and out.numbers["information_rows"] == 1
    assert out.finding is None


@pytest.mark.parametrize("budget", ["quick", "full"])
def test_information_rows_are_points_and_the_summary_keeps_every_number(budget):
    rows = [_row(3.5, 4.0, "gdp"), _row(1.0, 4.0, "clopper_pearson")]
    out = audits.audit_with_information("t", "t", rows, ["a", "b"], [1.0, 0.25], trials=1000, level=0.99,
                                        budget=budget)
    assert out.verdict == "holds" and [p["configuration"] for p in out.points] == ["a", "b"]
    assert [p["verdict"] for p in out.points] == ["holds", "information, not in the verdict"]
    assert out.summary.endswith(_QUICK_CAVEAT) == (budget == "quick") and "1 of 2 rows" in out.summary
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_a_leaking_subsampled_row_counts_whatever_its_power():
    """A valid lower bound above the accountant's ε is a leak even from a subsampled row: violated, with a finding
    that names it."""
    rows = [_row(3.5, 4.0, "gdp"), _row(4.5, 4.0, "clopper_pearson")]
    assert audits.audit_in_verdict(rows[1], 0.25) and not audits.audit_in_verdict(_row(1.0, 4.0, "x"), 0.25)
    out = audits.audit_with_information("t", "t", rows, ["a", "b"], [1.0, 0.25], trials=1000, level=0.99,
                                        budget="quick")
    assert out.verdict == "violated" and out.numbers["information_rows"] == 0
    assert out.finding.region.failing == 1 and "b: ε ≥ 4.500 > 4.000" in out.finding.region.text
    assert out.finding.at_paper_setting.size == pytest.approx(4.5 / 4.0)


def test_federated_quick_audit_holds_and_catches_under_noising():
    out = audits.audit_federated("quick", 0)
    assert out.verdict == "holds" and out.numbers["max_audit_over_accountant"] <= 1.0
    bad = audits.audit_federated("quick", 0, noise_scale=0.25)
    assert bad.verdict == "violated"


def test_fixed_batch_replace_one_is_accounted_at_half_the_multiplier():
    """Finding (pinned, and fixed in the accounting): with fixed-size batches and replace-one adjacency the kernel's
    two outputs differ by 2C/b (the replaced record's clipped gradient flips), noise σC/b: a Gaussian mechanism with
    multiplier σ/2.  dp-accounting's REPLACE_ONE takes the multiplier relative to the replace-one sensitivity, so
    toy_privacy (adadps.section4.1) and the audit now pass σ/2; with σ the full-budget audit proved ε ≥ 5.04 against
    the 4.73 that call gave at n = b = 1, T = 1.  Here: the measured effective multiplier is ≈ σ/2, and the
    accountant's ε covers a Gaussian mechanism with the measured multiplier's upper bound."""
    kw = dict(sampling="fixed", n=1, batch_size=1, steps=1, trials=4000)
    a = audits.audit_central_task("adadps_fixed", canary=False, seed=11, **kw)["score"] / audits.AUDIT_LR
    c = audits.audit_central_task("adadps_fixed", canary=True, seed=12, **kw)["score"] / audits.AUDIT_LR
    shift = c.mean() - a.mean()  # ≈ 2C
    # one-sided 99.9% bounds: shift from below (normal, known-ish variance), noise sd from above (chi-square)
    se = np.sqrt(a.var(ddof=1) / a.size + c.var(ddof=1) / c.size)
    shift_lo = shift - stats.norm.ppf(0.999) * se
    resid = np.concatenate([a - a.mean(), c - c.mean()])
    sd_hi = np.sqrt(np.sum(resid**2) / stats.chi2.ppf(0.001, resid.size - 2))
    z_hi = sd_hi / shift_lo  # effective noise multiplier of the released pair, upper bound
    assert z_hi < 0.55  # σ/2 = 0.5
    accounted = audits.audit_accountant_epsilon("fixed", 1, 1, 1)
    assert z_hi > 0.45  # and not smaller: the pair really is σ/2 apart in noise units
    assert accounted >= gaussian_epsilon(z_hi, AUDIT_DELTA)  # the accountant now covers the measured mechanism


def test_audit_catches_clipping_the_wrong_vector():
    """Negative control (mechanism option ``clip_target="raw"``): AdaDPS clipping the raw gradient and then
    preconditioning by 1/A (A₀ = 0.01) releases the canary with 100× its allowed norm; the quick audit certifies far
    more ε than the accountant (47.9 vs 4.38 at seed 0), also with the assumption-free bound of the subsampled rows."""
    out = audits.audit_central("adadps_fixed", "quick", 0, clip_target="raw")
    assert out.verdict == "violated" and out.evidence.startswith("LEAKS")
    f = out.numbers
    assert f["audit_epsilon_lb_1"] > f["accountant_epsilon_1"]  # Poisson n=4: a Clopper–Pearson (assumption-free) row


# ---- the injected noise is the accounted noise ------------------------------------------------------------------
LEVEL = 0.999


def _variance_interval(x: np.ndarray) -> tuple[float, float]:
    """Two-sided CI for σ² of i.i.d. N(0, σ²) samples with known mean 0."""
    k = x.size
    ss = float(np.sum(x**2))
    a = (1 - LEVEL) / 2
    return ss / stats.chi2.ppf(1 - a, k), ss / stats.chi2.ppf(a, k)


def _problem(n=30, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.4).astype(float)
    side = {"paper": np.array([1.0, 0.5, 0.1, 0.02, 2.0])[:d]}
    Xp = (rng.random((10, d)) < 0.4).astype(float)
    return ka.GLMProblem(X, rng.standard_normal(n), "squared", side, {}, Xp, rng.standard_normal(10))


def _central_noise(method, sampling, sigma_kernel, sigma_told, clip=0.5, b=6, lr=0.1, trials=3000):
    prob = _problem()
    kw = dict(lr=lr, clip=clip, batch_size=b, steps=1, sampling=sampling, side_info="paper", trials=trials, seed=7,
              options=ka.CentralOptions(n_log=2))
    noisy = ka.run_central(prob, method, sigma=sigma_kernel, **kw)["w"]
    quiet = ka.run_central(prob, method, sigma=0.0, **kw)["w"]
    return (quiet - noisy) / lr / (sigma_told * clip / b)  # (trials, d), N(0, 1) per entry if as told


@pytest.mark.parametrize("method,sampling", [("dp_sgd", "poisson"), ("adadps_fixed", "poisson"),
                                             ("adadps_fixed", "fixed"), ("adadps_rmsprop", "poisson")])
def test_central_noise_matches_the_accounted_multiplier(method, sampling):
    whitened = _central_noise(method, sampling, 0.8, 0.8)
    for j in range(whitened.shape[1]):
        lo, hi = _variance_interval(whitened[:, j])
        assert lo <= 1.0 <= hi, f"{method} coordinate {j}: CI [{lo:.4f}, {hi:.4f}] excludes 1"


@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_central_check_catches_too_little_and_too_much_noise(factor):
    whitened = _central_noise("adadps_fixed", "poisson", 0.8 * factor, 0.8)
    lo, hi = _variance_interval(whitened)
    assert not (lo <= 1.0 <= hi)


def _fed_noise(sigma_kernel, sigma_told, clip=0.3, b=4, server_lr=0.5, trials=3000):
    rng = np.random.default_rng(1)
    U, d = 10, 4
    X = (rng.random((3 * U, d)) < 0.5).astype(float)
    prob = ka.GLMProblem(X, np.where(rng.random(3 * U) < 0.5, -1.0, 1.0), "logistic",
                         {"frequency": np.array([1.0, 0.3, 0.05, 0.6])}, {},
                         user_ptr=np.arange(0, 3 * U + 1, 3, dtype=np.int64))
    kw = dict(local_lr=0.2, clip=clip, users_per_round=b, rounds=1, local_steps=2, local_batch=2,
              options=ka.FederatedOptions(server_lr=server_lr, sampling="poisson", n_log=2), trials=trials, seed=3)
    noisy = ka.run_federated(prob, sigma=sigma_kernel, **kw)["w"]
    quiet = ka.run_federated(prob, sigma=0.0, **kw)["w"]
    return (noisy - quiet) / server_lr / (sigma_told * clip / b)


@pytest.mark.parametrize("factor,ok", [(1.0, True), (0.9, False), (1.1, False)])
def test_federated_server_noise_matches_the_user_level_multiplier(factor, ok):
    whitened = _fed_noise(0.6 * factor, 0.6)
    lo, hi = _variance_interval(whitened)
    assert (lo <= 1.0 <= hi) == ok, f"CI [{lo:.4f}, {hi:.4f}]"
