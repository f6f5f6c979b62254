"""Privacy audits of the ``noisy_adagrad`` kernels (``noisy_adagrad.audit.*``).

DP-GD (App. C.8, the mechanism of Theorem 5.1) and noisy AdaGrad (Algorithm 1 with §4.1's noise, Corollary 6)
against the accountant: distinguishing tests between neighbouring datasets, under zero-out and replace-one
adjacency, must certify no larger ε than the accountant's; the worst-case pairs' exact μ is compared too.
"""

from __future__ import annotations

import math

import numpy as np

from dpvalidate import choice
from kernels import noisy_adagrad as kn
from theory import noisy_adagrad as tn
from theory import numeric
from verify import decide
from verify.audit import (
    _QUICK_CAVEAT,
    AUDIT_DELTA,
    AUDIT_EPSILON,
    audit_level,
    audit_outcome,
    claim_method,
    epsilon_lower_bound,
)
from verify.findings import Finding, parts_finding
from verify.papers.noisy_adagrad._common import _sweep, half_budget_multiplier, sigma_promise
from verify.privacy import NeighboringRelation, epsilon_of
from verify.registry import Outcome, by_budget, child_seed, claim

# ======================================================================================
# Privacy audits: DP-GD and noisy AdaGrad against the accountant
# ======================================================================================
NA_AUDIT_P = 2
NA_AUDIT_FAR = 1e6  # the canary's target: |⟨x, θ⟩ − y| keeps the sign −1, so its gradient is −x/n at every step
# the canary pair's gap in the average gradient, in units of one record's bound L/n
NA_AUDIT_SENSITIVITY = {"zero_out": 1, "replace_one": 2}
# claim suffix: (mechanism, adjacency, configurations (n, T)).  Threat model: every step's release is
# observed (the accountant composes all of them).  DP-GD is scored on its last iterate θ_T (for this canary the
# likelihood ratio of all T iterates is a function of θ_T[0]); noisy AdaGrad on its 2T privatised statistics (the
# noisy gradient and the noisy preconditioner of every step) by their Gaussian likelihood ratio.
NA_AUDITS = {
    "dp_gd": ("dp_gd", "zero_out", ((1, 2), (4, 3))),
    "noisy_adagrad": ("noisy_adagrad", "zero_out", ((16, 1),)),
    "dp_gd_replace_one": ("dp_gd", "replace_one", ((1, 2), (4, 4))),
    "noisy_adagrad_replace_one": ("noisy_adagrad", "replace_one", ((16, 1),)),
    "noisy_adagrad_composed": ("noisy_adagrad", "zero_out", ((16, 4),)),
}
NA_AUDIT_SCORES = {"dp_gd": ("last",), "noisy_adagrad": ("releases",)}
#: gradient bounds L ≠ 1 at which the DP-GD audits' exact half (accountant ε of Theorem 5.1's σ within the nominal ε)
#: is also decided; no runs (one large L: ~0.35 s of accountant per configuration)
NA_DPGD_PRIVACY_L = (1e2,)
#: the gradient bound L ≠ 1 at which the noisy AdaGrad audits' exact μ half is also computed (the pair scaled by L)
NA_ADAGRAD_EXACT_L = 1e2
NA_AUDIT_TESTS = sum(len(cfgs) * len(NA_AUDIT_SCORES[m]) for m, _, cfgs in NA_AUDITS.values())  # Bonferroni
# noisy AdaGrad's audit pair: the targets are so far that no iterate reaches them (every gradient keeps its sign)
NA_ADAGRAD_AUDIT_FAR = 1e12


def na_audit_datasets(n: int, p: int = NA_AUDIT_P, adjacency: str = "zero_out"):
    """Two neighbouring datasets (D, D′) of n records, V = I_p, absolute loss; records 1..n−1 are zero (gradient 0).

    ``"zero_out"`` (the adjacency the accountant's sensitivity L/n of the average gradient is for): record 0 is
    zero on D and the canary x = e₁ (‖x‖ = L = 1) with target y = 10⁶ on D′, whose gradient −e₁/n is the largest
    a record can contribute, at every step.  ``"replace_one"``: record 0 is x = e₁ on both, with target −10⁶ on D
    (gradient +e₁/n) and +10⁶ on D′ (gradient −e₁/n) — the two average gradients are 2L/n apart, the full
    replace-one sensitivity, at every step (and G_t = √t/n·e₁e₁ᵀ is the same on both).

    Parameters
    ----------
    n : int
        Records.
    p : int
        The dimension.
    adjacency : str
        "zero_out" or "replace_one".

    Returns
    -------
    D, D_prime : kernels.noisy_adagrad.LowRankGLM
        The pair (D first).
    """

    adjacency = _na_adjacency(adjacency)
    X1 = np.zeros((n, p))
    X1[0, 0] = 1.0
    X0 = X1.copy() if adjacency == "replace_one" else np.zeros((n, p))
    y1 = np.zeros(n)
    y1[0] = NA_AUDIT_FAR
    y0 = -y1 if adjacency == "replace_one" else y1.copy()
    eye = np.eye(p)

    def make(X, y):
        return kn.LowRankGLM(np.ascontiguousarray(X), y, eye.copy(), X.copy(), np.zeros(p), np.zeros((0, p)),
                             "absolute", {"audit": True})

    return make(X0, y0), make(X1, y1)


def _na_adjacency(adjacency: str) -> str:
    return choice("adjacency", adjacency, tuple(NA_AUDIT_SENSITIVITY))


def na_dpgd_audit_sigma(n: int, steps: int, adjacency: str = "zero_out", gradient_bound: float = 1.0) -> float:
    """DP-GD's σ as Theorem 5.1's check sets it (nominal ε = AUDIT_EPSILON, δ = AUDIT_DELTA), for the audit's
    adjacency: L = 1 for zero-out; for replace-one the sensitivity 2L/n takes the place of L/n (L → 2).

    Parameters
    ----------
    n : int
        Records.
    steps : int
        T.
    adjacency : str
        "zero_out" or "replace_one".
    gradient_bound : float
        The records' gradient bound L (the audit's canary has L = 1; the exact half also evaluates other L).

    Returns
    -------
    float
        σ.
    """

    L = float(NA_AUDIT_SENSITIVITY[_na_adjacency(adjacency)]) * float(gradient_bound)
    return float(numeric(tn.theorem5_1_sigma())(L=L, T=steps, delta=AUDIT_DELTA, epsilon=AUDIT_EPSILON, n=n))


def na_dpgd_audit_task(n: int, steps: int, canary: bool, trials: int, seed: int, noise_scale: float = 1.0,
                       adjacency: str = "zero_out") -> dict:
    """Score ``last`` = θ_T[0] of the last iterate of ``trials`` DP-GD runs (η = 1) on D (or D′ with ``canary``):
    the canary pushes +η/n per step along e₁ (zero-out; replace-one moves it 2η/n), the noise is isotropic and i.i.d.,
    so the likelihood ratio of all T iterates depends on them only through θ_T[0] — observing θ_T is as strong as
    observing every step.  (The released average iterate sums θ_0..θ_{T−1} and misses the last step.)
    ``multiplier`` = σn/L, the noise in units of one record's bound L/n (L = 1).

    Parameters
    ----------
    n : int
        Records.
    steps : int
        T.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies the kernel's σ (the negative control).
    adjacency : str
        "zero_out" or "replace_one".

    Returns
    -------
    dict
        ``last`` (θ_T[0] per run) and ``multiplier``.
    """

    d0, d1 = na_audit_datasets(n, adjacency=adjacency)
    sigma = na_dpgd_audit_sigma(n, steps, adjacency)
    # one_stream: every trial drawn in turn from one stream in one jitted call (no per-trial spawning or dispatch)
    out = kn.run_dpgd(d1 if canary else d0, steps, 1.0, sigma * noise_scale, trials=trials, seed=seed,
                      one_stream=True)
    return {"last": out["theta_last"][:, 0].copy(), "multiplier": sigma * n}


def na_adagrad_audit_multiplier(steps: int) -> float:
    """z of every release of Corollary 6's calibration (half the budget to each noise): z₀√T.

    Parameters
    ----------
    steps : int
        T.

    Returns
    -------
    float
        z₀√T at the audit's nominal (ε, δ).
    """

    return half_budget_multiplier(float(AUDIT_EPSILON), AUDIT_DELTA) * math.sqrt(steps)


def na_adagrad_audit_datasets(n: int, adjacency: str = "zero_out", p: int = NA_AUDIT_P):
    """The worst-case pair for noisy AdaGrad's two releases: n − 1 background records x = e₁ (target −10¹²:
    gradient +e₁/n each, average (n−1)/n·e₁) and record 0 on e₂.

    ``"zero_out"``: record 0 is zero on D and x = e₂ with target +10¹² (gradient −e₂/n, the full L/n) on D′.
    ``"replace_one"``: record 0 is x = e₂ on both, target −10¹² on D (gradient +e₂/n) and +10¹² on D′ (−e₂/n):
    2L/n apart.  The record's gradient is orthogonal to the large background gradient, so it *rotates* the
    average gradient and G_t = |A_tᵀ| moves by ‖G_t(D′) − G_t(D)‖_F → √2·(its gradient gap)·√t as n grows — the
    worst case of Lemma 5's rigorous bound (Araki–Yamagami's √2 is attained by a small rotation of a large
    rank-one matrix); at n = 16 it is 0.999 of it (zero-out; 0.998 replace-one) — while the gradient release
    moves by the full bound.

    Parameters
    ----------
    n : int
        Records.
    adjacency : str
        "zero_out" or "replace_one".
    p : int
        The dimension (>= 2).

    Returns
    -------
    D, D_prime : kernels.noisy_adagrad.LowRankGLM
        The pair (D first).
    """

    adjacency = _na_adjacency(adjacency)
    X = np.zeros((n, p))
    X[1:, 0] = 1.0
    X[0, 1] = 1.0
    y1 = np.full(n, -NA_ADAGRAD_AUDIT_FAR)
    y1[0] = NA_ADAGRAD_AUDIT_FAR
    X0, y0 = X.copy(), y1.copy()
    if adjacency == "replace_one":
        y0[0] = -NA_ADAGRAD_AUDIT_FAR
    else:
        X0[0] = 0.0
    eye = np.eye(p)

    def make(X_, y_):
        return kn.LowRankGLM(np.ascontiguousarray(X_), y_, eye.copy(), X_.copy(), np.zeros(p), np.zeros((0, p)),
                             "absolute", {"audit": True})

    return make(X0, y0), make(X, y1)


def _na_adagrad_noise(n: int, steps: int, adjacency: str, gradient_bound: float = 1.0, epsilon: float | None = None):
    """(z, σ_b, σ_B(t)) of Corollary 6's calibration for the audit's adjacency (see na_adagrad_audit_task), for
    records of gradient bound L = ``gradient_bound`` and the nominal ``epsilon`` (None: AUDIT_EPSILON)."""
    k = NA_AUDIT_SENSITIVITY[_na_adjacency(adjacency)]
    L = float(gradient_bound)
    z = (na_adagrad_audit_multiplier(steps) if epsilon is None else
         half_budget_multiplier(float(epsilon), AUDIT_DELTA) * math.sqrt(steps))
    t = np.arange(1, steps + 1, dtype=float)
    delta_t = np.asarray(numeric(tn.lemma5_rigorous())(L=L, t=t, n=n), float)  # Frobenius sensitivity of G_t
    # σ_B(t) solves goe_noise_multiplier(σ_B, kΔ_t) = z at every t: solved from the theory's own expression at the
    # actual (z, Δ_t) (not read off at σ = Δ = 1, where any power of σ and Δ looks the same)
    sigma_B = _goe_sigma_for(z, k * delta_t)
    return z, k * z * L / n, sigma_B


def _goe_sigma_for(multiplier: float, sensitivity: np.ndarray) -> np.ndarray:
    """σ_B with goe_noise_multiplier(σ_B, Δ) = ``multiplier`` for each Δ of ``sensitivity``: bisection on log σ
    over [1e-12, 1e12] until adjacent floats (the multiplier must increase in σ; checked at both ends)."""
    fn = numeric(tn.goe_noise_multiplier())
    d = np.asarray(sensitivity, float)
    lo, hi = np.full(d.shape, 1e-12), np.full(d.shape, 1e12)
    def at(sig):
        return np.broadcast_to(np.asarray(fn(sigma=sig, Delta=d), float), d.shape)

    if np.any(at(lo) >= multiplier) or np.any(at(hi) <= multiplier):
        raise ValueError("goe_noise_multiplier does not cross the multiplier on [1e-12, 1e12] in σ")
    for _ in range(200):
        mid = np.sqrt(lo * hi)
        up = at(mid) < multiplier
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
        if np.all(np.nextafter(lo, np.inf) >= hi):
            break
    # of the two adjacent candidates, the one whose multiplier is nearer the target
    err_lo, err_hi = np.abs(at(lo) - multiplier), np.abs(at(hi) - multiplier)
    return np.where(err_lo <= err_hi, lo, hi)


def na_adagrad_release_direction(n: int, steps: int, adjacency: str = "zero_out", gradient_bound: float = 1.0,
                                 epsilon: float | None = None) -> dict:
    """The Gaussian likelihood-ratio direction of noisy AdaGrad's 2T releases for the audit pair, fixed before
    any run from the datasets and the *calibrated* noise (what the accountant is told).

    The released gradient is ∇_t + σ_b ξ (isotropic), the released preconditioner G_t + σ_B M with M a GOE
    matrix: isotropic Gaussian of variance 2σ_B² along every unit Frobenius direction of the symmetric matrices.
    The canary's shifts are ∆g = ∇(D′) − ∇(D) (constant: no gradient changes sign) and ∆G_t = G_t(D′) − G_t(D),
    G_t = (t·∇∇ᵀ)^{1/2}.  The log-likelihood ratio is, up to a constant, the score
    Σ_t ⟨ĝ_t, ∆g⟩/σ_b² + ⟨K_t, ∆G_t⟩_F/(2σ_B(t)²); it is N(m, μ²) on D and N(m + μ², μ²) on D′ with
    μ² = Σ_t ‖∆g‖²/σ_b² + ‖∆G_t‖²_F/(2σ_B(t)²) — the μ-GDP parameter this canary attains (``mu``), against the
    accountant's √(2T)/z (``mu_accountant``).

    Parameters
    ----------
    n : int
        Records.
    steps : int
        T.
    adjacency : str
        "zero_out" or "replace_one".
    gradient_bound : float
        L: the pair's records scaled by L (gradients ×L, G_t ×L: both positively homogeneous) and the noise
        calibrated for that L (the runs use L = 1; the exact μ half also evaluates other L).
    epsilon : float or None
        The nominal ε of the calibration (None: AUDIT_EPSILON).

    Returns
    -------
    dict
        ``w_gradient`` (p), ``w_preconditioner`` (T, p, p), ``mu``, ``mu_accountant``, ``gradient_gap`` and
        ``preconditioner_gap`` (per t).
    """
    d0, d1 = na_adagrad_audit_datasets(n, adjacency)
    z, sigma_b, sigma_B = _na_adagrad_noise(n, steps, adjacency, gradient_bound, epsilon)
    g0 = float(gradient_bound) * d0.gradient(np.zeros(NA_AUDIT_P))
    g1 = float(gradient_bound) * d1.gradient(np.zeros(NA_AUDIT_P))

    def root(S):
        w, U = np.linalg.eigh(S)
        return (U * np.sqrt(np.clip(w, 0.0, None))) @ U.T

    dG = np.array([root(t * np.outer(g1, g1)) - root(t * np.outer(g0, g0)) for t in range(1, steps + 1)])
    dg = g1 - g0
    mu2 = steps * float(dg @ dg) / sigma_b**2 + float(np.sum(np.sum(dG**2, axis=(1, 2)) / (2.0 * sigma_B**2)))
    return {"w_gradient": dg / sigma_b**2, "w_preconditioner": dG / (2.0 * sigma_B**2)[:, None, None],
            "mu": math.sqrt(mu2), "mu_accountant": math.sqrt(2.0 * steps) / z,
            "gradient_gap": float(np.linalg.norm(dg)), "preconditioner_gap": np.sqrt(np.sum(dG**2, axis=(1, 2)))}


def na_adagrad_audit_task(n: int, steps: int, canary: bool, trials: int, seed: int, noise_scale: float = 1.0,
                          adjacency: str = "zero_out") -> dict:
    """Noisy AdaGrad (exact oracle Ṽ = I, η = 1, no ball) calibrated as Corollary 6 for the audit's adjacency:
    σ_b = z·kL/n and σ_B(t) = z·kΔ_t/√2 with Δ_t = √2·L√t/n (Lemma 5, rigorous) and k = 1 (zero-out) or 2
    (replace-one: each column of A_t, hence Δ_t, moves twice as far).  Score ``releases``: the likelihood ratio
    of the 2T privatised statistics the kernel releases (:func:`na_adagrad_release_direction`; the weights use the
    calibrated noise, so a kernel that adds less noise than it is told shows a larger shift); ``multiplier`` = kz,
    both noises in units of one record's bound (L/n, Δ_t).

    Parameters
    ----------
    n : int
        Records.
    steps : int
        T.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies both noises in the kernel (the negative control).
    adjacency : str
        "zero_out" or "replace_one".

    Returns
    -------
    dict
        ``releases`` (the score per run) and ``multiplier`` (kz).
    """

    k = NA_AUDIT_SENSITIVITY[_na_adjacency(adjacency)]
    d0, d1 = na_adagrad_audit_datasets(n, adjacency)
    z, sigma_b, sigma_B = _na_adagrad_noise(n, steps, adjacency)
    # one_stream: every trial drawn in turn from one stream in one jitted call (no per-trial spawning or dispatch)
    out = kn.run_noisy_adagrad(d1 if canary else d0, steps, 1.0, math.inf, Vt=np.eye(NA_AUDIT_P),
                               sigma_b=sigma_b * noise_scale, sigma_B=sigma_B * noise_scale, trials=trials, seed=seed,
                               releases=True, one_stream=True)
    w = na_adagrad_release_direction(n, steps, adjacency)
    score = (np.einsum("itj,j->i", out["released_gradient"], w["w_gradient"])
             + np.einsum("itab,tab->i", out["released_preconditioner"], w["w_preconditioner"]))
    return {"releases": score, "multiplier": k * z}


def na_audit_accountant_epsilon(multiplier: float, releases: int, adjacency: str) -> float:
    """dp-accounting's ε at δ = AUDIT_DELTA of ``releases`` Gaussian releases whose noise is ``multiplier`` times
    one record's bound (its L/n in the average gradient; Δ_t for G_t), under the audit's adjacency.

    Zero-out is accounted as add/remove-one (the same dominating pair N(0, z²) vs N(1, z²)).  Replace-one is
    dp-accounting's REPLACE_ONE: its PLD accountant shifts a ``GaussianDpEvent`` by twice the per-record bound
    (the replaced record's contribution leaves, the new one arrives), i.e. multiplier z/2 against the replace-one
    sensitivity 2L/n — what the mechanism does.  Its RDP accountant would not: under REPLACE_ONE it takes the
    multiplier against the replace-one sensitivity (dp-accounting issue #378), reporting ε(z) for a mechanism
    whose ε is ε(z/2); so PLD, on a 0.01 grid (pessimistic: ≤ releases·0.01 above the exact ε).

    Parameters
    ----------
    multiplier : float
        z.
    releases : int
        The number of Gaussian releases.
    adjacency : str
        "zero_out" or "replace_one".

    Returns
    -------
    float
        ε.
    """
    from dp_accounting import dp_event as dpe

    relation = {"zero_out": NeighboringRelation.ADD_OR_REMOVE_ONE,
                "replace_one": NeighboringRelation.REPLACE_ONE}[_na_adjacency(adjacency)]
    event = dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(float(multiplier)), int(releases))
    return epsilon_of(event, AUDIT_DELTA, "pld", relation, value_discretization_interval=0.01)


def na_audit(name: str, budget: str, seed: int, noise_scale: float = 1.0, trials: int | None = None) -> Outcome:
    """The audit claim ``noisy_adagrad.audit.<name>``; ``noise_scale`` < 1 under-noises the kernel (a negative
    control: the accountant is still told the calibrated noise) and ``trials`` overrides the budget's runs.

    Parameters
    ----------
    name : str
        A key of NA_AUDITS.
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the kernel's noise.
    trials : int or None
        Runs per dataset (None: the budget's, 5·10⁴ quick, 5·10⁵ full).

    Returns
    -------
    Outcome
        The audit's outcome.
    """

    mech, adjacency, configs = NA_AUDITS[name]
    task = na_dpgd_audit_task if mech == "dp_gd" else na_adagrad_audit_task
    scores = NA_AUDIT_SCORES[mech]
    trials = by_budget(budget, 50_000, 500_000) if trials is None else int(trials)
    level = audit_level(_na_audit_tests(name))  # each bound at the ledger's per-test level
    tasks = [dict(n=n, steps=T, canary=c, trials=trials, noise_scale=noise_scale, adjacency=adjacency,
                  seed=child_seed(seed, f"noisy_adagrad.audit.{name}", k, int(c)))
             for k, (n, T) in enumerate(configs) for c in (False, True)]
    outs = _sweep(task, tasks, f"audit noisy_adagrad {name}")
    rows, figures = [], {}
    for k, (n, T) in enumerate(configs):
        a, c = outs[2 * k], outs[2 * k + 1]
        z = float(a["multiplier"])
        # DP-GD: T noisy gradients; noisy AdaGrad: T gradients and T GOE-noised preconditioners, all multiplier z
        acct = na_audit_accountant_epsilon(z, T if mech == "dp_gd" else 2 * T, adjacency)
        # the μ this canary attains against the accountant's (computed, no runs): DP-GD's canary moves the gradient
        # by the full bound every step (1); noisy AdaGrad's moves G_t by slightly less than Lemma 5's √2·L√t/n
        attain = 1.0 if mech == "dp_gd" else (lambda w: w["mu"] / w["mu_accountant"])(
            na_adagrad_release_direction(n, T, adjacency))
        figures[f"canary_mu_over_accountant_mu_{k}"] = attain
        for j, s in enumerate(scores):
            # full batch, no subsampling: the accountant's claim is a composition of Gaussians (μ-GDP)
            b = epsilon_lower_bound(a[s], c[s], AUDIT_DELTA, level,
                                    seed=child_seed(seed, f"noisy_adagrad.audit.{name}", "bound", k, j),
                                    method=claim_method(1.0))
            rows.append(dict(n=n, steps=T, adjacency=adjacency, score=s, noise_multiplier=z, accountant_epsilon=acct,
                             audit_epsilon_lb=b.epsilon_lb, audit_fpr_hi=b.fpr_hi, audit_fnr_hi=b.fnr_hi,
                             audit_method=b.method, audit_mu_lb=b.mu_lb, canary_mu_over_accountant_mu=attain))
    big = []
    if mech == "noisy_adagrad":
        # the exact μ also for the pair's records scaled to gradient bound L = NA_ADAGRAD_EXACT_L, the noise
        # calibrated for that L (no runs): the calibration is for every L, a wrong power of L shows only away from 1
        big = [(n, T, (lambda w: w["mu"] / w["mu_accountant"])(
            na_adagrad_release_direction(n, T, adjacency, NA_ADAGRAD_EXACT_L)), NA_ADAGRAD_EXACT_L)
            for n, T in configs]
        for k, (_, _, a, _) in enumerate(big):
            figures[f"canary_mu_over_accountant_mu_L{NA_ADAGRAD_EXACT_L:g}_{k}"] = a
    labels = [f"n={r['n']} T={r['steps']} ({r['score']} score)" for r in rows]
    out = audit_outcome(f"audit_{name}", f"Privacy audit of noisy_adagrad {name}", rows, labels, trials=trials,
                        level=level, budget=budget, family="the ledger's statistical tests", figures=figures)
    if mech == "noisy_adagrad":
        out = _with_exact_mu(out, [(n, T, figures[f"canary_mu_over_accountant_mu_{k}"], 1.0)
                                   for k, (n, T) in enumerate(configs)] + big, rows, labels)
    else:  # Theorem 5.1's σ at the nominal (ε, δ): its accountant ε may not exceed the nominal ε (exact, no runs)
        k_sens = NA_AUDIT_SENSITIVITY[adjacency]
        decs = [sigma_promise(na_dpgd_audit_sigma(n, T, adjacency) * n / k_sens, T, AUDIT_EPSILON, AUDIT_DELTA,
                              f"n={n} T={T}: Theorem 5.1's σ at nominal ε = {AUDIT_EPSILON:g} is "
                              f"({AUDIT_EPSILON:g}, {AUDIT_DELTA:g})-DP ({adjacency})")
                for n, T in configs]
        where = [{"n": n, "steps": T} for n, T in configs]
        # the same exact promise for records of gradient bound L ≠ 1 (σ at that L, multiplier σn/(kL)): the
        # calibration is for every L, and a wrong power of L shows only away from L = 1
        for Lg in NA_DPGD_PRIVACY_L:
            decs += [sigma_promise(na_dpgd_audit_sigma(n, T, adjacency, Lg) * n / (k_sens * Lg), T, AUDIT_EPSILON,
                                   AUDIT_DELTA, f"n={n} T={T} L={Lg:g}: Theorem 5.1's σ at nominal ε = "
                                   f"{AUDIT_EPSILON:g} within the nominal ε ({adjacency})") for n, T in configs]
            where += [{"n": n, "steps": T, "L": Lg} for n, T in configs]
        out = _with_exact(out, decs, where, rows, labels)
    return out


def na_audit_finding(rows: list, labels: list, exact: list) -> Finding:
    """The finding of a violated noisy_adagrad audit: every audited row (failing when its audited lower bound on ε
    exceeds the accountant's: a leak the runs show) and every exact part (the DP-GD σ's promise per configuration
    and L, or the canary's exact μ per configuration and L), one point each; no edge.

    The paper runs none of these kernels: the audit runs the suite's kernels on its own canary datasets, so the
    size at the paper's setting is not computed there, and no repair is decided (a leak of a kernel calibrated as
    the paper says is the kernel's or the calibration's error, and the check decides no other calibration).

    Parameters
    ----------
    rows : list of dict
        The audit's rows (``audit_epsilon_lb``, ``accountant_epsilon``).
    labels : list of str
        One per row.
    exact : list of (str, str)
        The exact parts: label and verdict.

    Returns
    -------
    verify.findings.Finding
    """
    parts = [(f"{lab}: audited ε ≥ {r['audit_epsilon_lb']:.3f} vs accountant {r['accountant_epsilon']:.3f}",
              "violated" if r["audit_epsilon_lb"] > r["accountant_epsilon"] else "holds")
             for lab, r in zip(labels, rows)]
    return parts_finding(
        parts + [(str(lab), str(v)) for lab, v in exact],
        what="the audit's rows (audited ε against the accountant's) and its exact parts (no runs)",
        paper_where="the paper runs no experiment with these kernels: the audit runs the suite's DP-GD / noisy "
                    "AdaGrad kernel on its own canary datasets (n ≤ 16, T ≤ 4), so the size there is not computed",
        no_repair_reason="a leak of a kernel calibrated as the paper says (or a σ or μ above the accountant's) is an "
                         "error of the kernel or of its calibration; the audit decides no other calibration")


def _with_exact(out: Outcome, decs: list, where: list, rows: list, labels: list) -> Outcome:
    """``out`` with the exact (no runs) decisions ``decs`` added: violated if one is violated (its ``where`` and
    bounds the counterexample), else the audit's verdict, made inconclusive by an inconclusive one; a violated
    outcome carries :func:`na_audit_finding` over the audit's ``rows`` (``labels``) and the decisions."""
    exact = [(d.reason, str(d.verdict)) for d in decs]
    bad = [(d, w) for d, w in zip(decs, where) if d.verdict == decide.Verdict.VIOLATED]
    points = list(out.points) + [{"configuration": " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                                                            for k, v in w.items()),
                                  "exact check": d.reason, "verdict": str(d.verdict)} for d, w in zip(decs, where)]
    if bad:
        d, w = bad[0]
        return Outcome(verdict="violated", evidence=f"{d.phrase()}; {out.evidence}", numbers=out.numbers,
                       counterexample={**w, "exact_estimate": d.estimate, "exact_violated_bound": d.violated_bound,
                                       "exact_test": d.control.test}, plots=out.plots,
                       decisions=list(out.decisions) + list(decs), summary=f"{d.phrase()}; {out.summary}",
                       points=points, finding=na_audit_finding(rows, labels, exact))
    verdict = str(out.verdict)
    if verdict == "holds" and any(d.verdict != decide.Verdict.HOLDS for d in decs):
        verdict = "inconclusive"
    ev = out.evidence
    tail = _QUICK_CAVEAT if ev.endswith(_QUICK_CAVEAT) else ""  # the quick caveat stays last
    ev = f"{ev[:len(ev) - len(tail)]}; " + "; ".join(d.reason for d in decs) + tail
    counts = ", ".join(f"{n} {v}" for v, n in ((v, sum(str(d.verdict) == v for d in decs))
                                                for v in ("holds", "violated", "inconclusive")) if n)
    summary = (f"{out.summary[:len(out.summary) - len(tail)]}; exact checks of the σ calibration, no runs: "
               f"{len(decs)} ({counts}){tail}")
    return Outcome(verdict=verdict, evidence=ev, numbers=out.numbers, counterexample=out.counterexample,
                   plots=out.plots, decisions=list(out.decisions) + list(decs), summary=summary, points=points,
                   finding=na_audit_finding(rows, labels, exact) if verdict == "violated" else None)


#: rounding allowance of the exact μ comparison (μ² is a sum of 2T terms of size ~1/z²; relative rounding ~1e-15)
NA_MU_RTOL = 1e-9


def _with_exact_mu(out: Outcome, attained: list, rows: list, labels: list) -> Outcome:
    """Add the exact half of a noisy AdaGrad audit: the μ-GDP parameter that the canary pair attains under the
    mechanism's own noise (computed from the datasets and the calibrated σ's, no runs; the likelihood-ratio score
    is exactly Gaussian) may not exceed the accountant's √(2T)/z — if it does, this pair alone is less private than
    the accountant says, whatever the runs show.  Violated above 1 + NA_MU_RTOL, holds otherwise; a violated
    outcome carries :func:`na_audit_finding` over the audit's ``rows`` (``labels``) and every attained μ."""
    exact = [(f"n={n} T={T} L={L:g}: the canary's exact μ = {a:.6g} × the accountant's",
              "violated" if a > 1.0 + NA_MU_RTOL else "holds") for n, T, a, L in attained]
    bad = [(n, T, a, L) for n, T, a, L in attained if a > 1.0 + NA_MU_RTOL]
    worst = max(attained, key=lambda x: x[2])
    mu_points = [{"configuration": f"n={n} T={T} L={L:g}", "exact: canary μ / accountant μ": a,
                  "verdict": "violated" if a > 1.0 + NA_MU_RTOL else "holds"} for n, T, a, L in attained]
    ctrl = decide.Control("the canary's exact μ (mechanism noise) vs the accountant's μ = √(2T)/z (exact, no runs)",
                          0.0, "none (exact)", NA_MU_RTOL, None)
    if bad:
        n, T, a, L = bad[0]
        dec = decide.Decision(decide.Verdict.VIOLATED, ctrl, a, a, a,
                              f"n={n} T={T} L={L:g}: the canary attains μ = {a:.6g} × the accountant's μ (> 1: a "
                              "leak, exact)")
        return Outcome(verdict="violated", evidence=f"{dec.reason}; {out.evidence}", numbers=out.numbers,
                       counterexample={"n": n, "steps": T, "L": L, "canary_mu_over_accountant_mu": a},
                       plots=out.plots, decisions=list(out.decisions) + [dec],
                       summary=f"{dec.reason}; {out.summary}", points=list(out.points) + mu_points,
                       finding=na_audit_finding(rows, labels, exact))
    n, T, a, L = worst
    dec = decide.Decision(decide.Verdict.HOLDS, ctrl, a, a, a,
                          f"the canary's exact μ is at most {a:.6g} × the accountant's (n={n} T={T} L={L:g}; "
                          f"records' gradient bounds L ∈ {sorted({x[3] for x in attained})})")
    ev = out.evidence
    tail = _QUICK_CAVEAT if ev.endswith(_QUICK_CAVEAT) else ""  # the quick caveat stays last
    ev = f"{ev[:len(ev) - len(tail)]}; {dec.reason}{tail}"
    summary = f"{out.summary[:len(out.summary) - len(tail)]}; {dec.reason}{tail}"
    verdict = str(out.verdict)
    return Outcome(verdict=verdict, evidence=ev, numbers=out.numbers,
                   counterexample=out.counterexample, plots=out.plots, decisions=list(out.decisions) + [dec],
                   summary=summary, points=list(out.points) + mu_points,
                   finding=na_audit_finding(rows, labels, exact) if verdict == "violated" else None)


def _na_audit_tests(name: str) -> int:
    """The bounds one noisy_adagrad audit computes: one per configuration and score."""
    mech, _, configs = NA_AUDITS[name]
    return len(configs) * len(NA_AUDIT_SCORES[mech])


_NA_AUDIT_METHOD = ("Threshold on a quarter of the runs, error rates on the rest "
                    "(verify.audit.epsilon_lower_bound, Gaussian-DP bound: full batch, a Gaussian claim), each of its "
                    "{tests} bounds at the "
                    "per-test level of the ledger's Bonferroni family (verify.decide).")
_NA_DPGD_THREAT = (
    "The calibration itself is decided exactly (no runs): dp-accounting's PLD bracket (grid 1e-4) of the T steps at "
    "σn/(sensitivity) may not exceed the nominal ε = 4 (violated if its lower end does; with the audit's own "
    "accountant the kernel and the promise would otherwise move together under a wrong σ); the same at records' "
    "gradient bound L = 100 (σ at that L; the calibration is for every L, and a wrong power of L shows only away "
    "from L = 1). "
    "Threat model: every iterate is released (the accountant composes all T noisy steps); the score is the last "
    "iterate's θ_T[0], which for this canary (constant gradient, i.i.d. isotropic noise) carries the whole likelihood "
    "ratio of the T iterates — the released average iterate sums θ_0..θ_{{T−1}} and misses the last step, so it "
    "would see only T − 1 of the T steps the accountant charges.")
_NA_ADAGRAD_THREAT = (
    "Threat model: every step's two privatised statistics are released — the noisy gradient ∇_t + σ_b ξ_t and the "
    "noisy preconditioner G_t + σ_B(t)M_t (the kernel returns them with releases=True) — the 2T Gaussian releases "
    "the accountant composes; the iterates are their post-processing (scored on the last iterate alone, H_t⁺ hides "
    "most of the signal: the audit saw at most 0.45 of ε). Canary (worst case for both releases): n − 1 = 15 "
    "background records x = e₁ (target −10¹², gradient +e₁/n each) and record 0 on e₂, orthogonal to them, so its "
    "gradient gap is the full bound and it rotates the large average gradient: ‖∆G_t‖_F is 0.999 (zero-out) and "
    "0.998 (replace-one) of Lemma 5's √2·(gap)·√t (Araki–Yamagami's √2 is attained only in this limit; with no "
    "background, n = 1, G_t sees the record alone: ‖∆G_t‖_F = L√t/n for zero-out, 0 for replace-one, and the best "
    "test sees 0.87, resp. 0.71, of the accountant's μ). Score: the Gaussian "
    "likelihood ratio Σ_t ⟨ĝ_t, ∆g⟩/σ_b² + ⟨K_t, ∆G_t⟩_F/(2σ_B(t)²) in the mechanism's own noise geometry (GOE: "
    "variance 2σ_B² along every unit Frobenius direction), with the calibrated σ's, fixed from the datasets before "
    "any run; it is exactly Gaussian, with the μ this canary attains (figure canary_mu_over_accountant_mu_0) "
    "against the accountant's √(2T)/z. That ratio is also decided, exactly (no runs): above 1 (+1e-9 for rounding) "
    "the pair alone is less private than the accountant says (violated). σ_B(t) is solved from "
    "theory.noisy_adagrad.goe_noise_multiplier at the actual (z, Δ_t).")
_NA_AUDIT_TEXT = {  # claim suffix: (statement, theory, notes)
    "dp_gd": (
        """The suite's DP-GD kernel (App. C.8, Alg. 3) is as private as the accountant says for Theorem 5.1's
        σ: no distinguishing test between neighbouring datasets, observing every iterate, certifies a larger ε than
        dp-accounting's T composed Gaussian mechanisms of multiplier σn/L — and that ε is within the nominal ε the σ
        is calibrated for.""",
        ("theory.noisy_adagrad.theorem5_1_sigma",),
        "Zero-out adjacency: D = n zero records, D′ = record 0 replaced by the canary x = e₁, y = 10⁶ (absolute "
        "loss; gradient −e₁/n at every step, the full sensitivity L/n). σ = L√(2T log(1/δ))/(εn) at nominal ε = 4, "
        "δ = 1e-5; η = 1, p = 2; configurations n=1,T=2 and n=4,T=3. " + _NA_DPGD_THREAT + " {method} Accountant: "
        "PLD of T Gaussians (0.01 grid, pessimistic). Replace-one adjacency doubles the sensitivity and is audited by "
        "noisy_adagrad.audit.dp_gd_replace_one."),
    "noisy_adagrad": (
        """The suite's noisy AdaGrad kernel (Algorithm 1) with Corollary 6's calibration — gradient noise
        σ_b = zL/n and GOE preconditioner noise σ_B = zΔ_t/√2 — is as private as 2T composed Gaussian releases of
        multiplier z: no distinguishing test, observing every step's noisy gradient and noisy preconditioner,
        certifies a larger ε.""",
        ("theory.noisy_adagrad.lemma5_rigorous", "theory.noisy_adagrad.goe_noise_multiplier"),
        "Zero-out adjacency: record 0 is zero on D and x = e₂ with target 10¹² (gradient −e₂/n) on D′. z = z₀√T with "
        "z₀ the one-release multiplier the accountant certifies (ε/2, δ/2) at nominal ε = 4, δ = 1e-5; exact oracle "
        "Ṽ = I, η = 1, no ball, p = 2, n = 16, T = 1. " + _NA_ADAGRAD_THREAT + " Accountant: PLD of 2T Gaussians of "
        "multiplier z (both noises composed, 0.01 grid). {method} Composed steps: "
        "noisy_adagrad.audit.noisy_adagrad_composed."),
    "dp_gd_replace_one": (
        """The suite's DP-GD kernel (App. C.8, Alg. 3) with Theorem 5.1's σ for the replace-one sensitivity 2L/n
        is as private as dp-accounting says under replace-one adjacency: no distinguishing test between datasets
        that differ in one record's value, observing every iterate, certifies a larger ε than T composed Gaussian
        mechanisms of multiplier σn/L under REPLACE_ONE — and that ε is within the nominal ε the σ is calibrated
        for.""",
        ("theory.noisy_adagrad.theorem5_1_sigma",),
        "Replace-one adjacency: record 0 is x = e₁ on both datasets with target −10⁶ on D and +10⁶ on D′ (absolute "
        "loss: gradients +e₁/n and −e₁/n at every step, 2L/n apart — the full replace-one sensitivity of the average "
        "gradient); the other n − 1 records are zero. σ = 2L√(2T log(1/δ))/(εn) (Theorem 5.1's σ with 2L/n in place "
        "of L/n) at nominal ε = 4, δ = 1e-5; η = 1, p = 2; configurations n=1,T=2 and n=4,T=4. "
        + _NA_DPGD_THREAT + " Accountant: dp-accounting's PLD under "
        "REPLACE_ONE of T GaussianDpEvents of multiplier σn/L (per-record bound L/n; the PLD accountant doubles it "
        "for replace-one, so this is T Gaussians of multiplier σn/(2L) against 2L/n), 0.01 grid. Not its RDP "
        "accountant, which under REPLACE_ONE does not double the sensitivity of a GaussianDpEvent (dp-accounting "
        "issue #378). {method}"),
    "noisy_adagrad_replace_one": (
        """The suite's noisy AdaGrad kernel (Algorithm 1) calibrated as Corollary 6 for replace-one adjacency —
        σ_b = 2zL/n and σ_B(t) = 2zΔ_t/√2 — is as private as dp-accounting's 2T composed Gaussian releases of
        multiplier 2z (per-record bound) under REPLACE_ONE: no distinguishing test, observing every step's noisy
        gradient and noisy preconditioner, certifies a larger ε.""",
        ("theory.noisy_adagrad.lemma5_rigorous", "theory.noisy_adagrad.goe_noise_multiplier"),
        "Replace-one adjacency: record 0 is x = e₂ on both datasets with target −10¹² on D (gradient +e₂/n) and "
        "+10¹² on D′ (−e₂/n): 2L/n apart. Replace-one moves each gradient by up to 2L/n and G_t by up "
        "to 2Δ_t in Frobenius norm (each column of A_t by 2L/n), so both noises are twice Corollary 6's; z = z₀√T as "
        "for noisy_adagrad; exact oracle Ṽ = I, η = 1, no ball, p = 2, n = 16, T = 1. " + _NA_ADAGRAD_THREAT
        + " Accountant: dp-accounting's PLD under REPLACE_ONE of 2T GaussianDpEvents of "
        "multiplier 2z (doubled by the accountant for replace-one: 2T Gaussians of multiplier z against the "
        "replace-one sensitivities), 0.01 grid. {method}"),
    "noisy_adagrad_composed": (
        """The suite's noisy AdaGrad kernel (Algorithm 1) with Corollary 6's calibration, run for T = 4 steps, is as
        private as the 2T composed Gaussian releases of multiplier z that dp-accounting composes: no distinguishing
        test, observing every step's noisy gradient and noisy preconditioner, certifies a larger ε.""",
        ("theory.noisy_adagrad.lemma5_rigorous", "theory.noisy_adagrad.goe_noise_multiplier"),
        "Zero-out pair as for noisy_adagrad (record 0 zero on D, x = e₂ with target 10¹² on D′). n = 16, T = 4: "
        "z = z₀√4, σ_b = zL/n, σ_B(t) = zΔ_t/√2 with Δ_t = √2·L√t/n; exact oracle Ṽ = I, η = 1, no ball, p = 2. "
        + _NA_ADAGRAD_THREAT + " Accountant: dp-accounting's PLD of the 2T = 8 composed Gaussian releases "
        "of multiplier z (add/remove-one, 0.01 grid). {method}"),
}


_NA_WEAKER = {"theory.noisy_adagrad.theorem5_1_sigma": "larger", "theory.noisy_adagrad.lemma5_rigorous": "larger",
              "theory.noisy_adagrad.goe_noise_multiplier": "smaller"}


def _register_na_audits() -> None:
    for name, (statement, theory, notes) in _NA_AUDIT_TEXT.items():
        claim(
            f"noisy_adagrad.audit.{name}",
            kind="privacy",
            tests=_na_audit_tests(name),
            statement=statement,
            theory=theory,
            # more noise only strengthens privacy: a larger σ or sensitivity, a smaller GOE multiplier per unit noise
            weaker_if={p: _NA_WEAKER[p] for p in theory},
            notes=notes.format(method=_NA_AUDIT_METHOD.format(tests=_na_audit_tests(name))),
        )(lambda budget, seed, _n=name: na_audit(_n, budget, seed))


_register_na_audits()
