"""Section 5.1 (convex convergence) of ``adadps``: Theorem 2 (public-data RMSProp preconditioner, with the
pathwise steps (19), (24) of its proof in App. A.1) and Theorem 3 (fixed side information, the GLM calculation):
``adadps.theorem2``, ``adadps.theorem3``.
"""

from __future__ import annotations

import math

import numpy as np

from kernels import adadps as ka
from kernels import adadps_reference as ref
from theory import adadps as ta
from theory import numeric
from verify import decide
from verify.exact import EPS, random_search
from verify.mutants import declare_equivalent
from verify.papers.adadps._common import (
    RATE_PROBLEM,
    T2_PROBLEM,
    _central_task,
    f_star_logistic,
    make_problem,
    points_finding,
)
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import sweep


# ======================================================================================
# Theorem 2: public-data RMSProp preconditioner — the pathwise steps (19), (24) and the rate
# ======================================================================================
def theorem2_path(ghat: np.ndarray, g: np.ndarray, beta: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """v and A = √v + ε along a path: vᵗ = βᵗvᵗ⁻¹ + (1 − βᵗ)(ĝᵗ)², v⁰ = 0 (eqs. (4)–(5)).

    Parameters
    ----------
    ghat : numpy.ndarray
        The public gradients ĝᵗ of one coordinate, t = 1..T.
    g : numpy.ndarray
        The private gradients gᵗ (not used: the path depends on ĝ only; kept for a uniform signature).
    beta : numpy.ndarray
        The decays βᵗ, length T.
    eps : numpy.ndarray
        The offsets εᵗ, length T.

    Returns
    -------
    v : numpy.ndarray
        vᵗ, t = 1..T.
    A : numpy.ndarray
        Aᵗ = √vᵗ + εᵗ.
    """
    v = np.empty(ghat.size)
    prev = 0.0
    for k in range(ghat.size):
        prev = beta[k] * prev + (1.0 - beta[k]) * ghat[k] ** 2
        v[k] = prev
    return v, np.sqrt(v) + eps


def theorem2_slacks(ghat, g, beta, eps, a: float, gamma: float) -> tuple[float, float]:
    """Relative slacks of (19) √t·Aᵗ ≥ √(t−1)·Aᵗ⁻¹ (min over t) and of (24) for one coordinate, pathwise:

    Σₜ (gᵗ)²/(√(t vᵗ) + √t εᵗ) ≤ 2(2 − γ)/(aγ)·(√(T vᵀ) + √T εᵀ).  Both ≥ 0 when they hold.

    Parameters
    ----------
    ghat, g : numpy.ndarray
        The public and private gradients of one coordinate, t = 1..T.
    beta, eps : numpy.ndarray
        The decays βᵗ and offsets εᵗ, length T.
    a : float
        Assumption 3's constant a (> 0).
    gamma : float
        The decay bound γ (> 0).

    Returns
    -------
    s19 : float
        The smallest relative slack of (19) over t (inf when T = 1).
    s24 : float
        The relative slack (right − left)/right of (24).
    """
    T = ghat.size
    t = np.arange(1, T + 1, dtype=float)
    v, A = theorem2_path(ghat, g, beta, eps)
    s19 = np.inf
    if T > 1:
        lhs = np.sqrt(t[1:]) * A[1:]
        rhs = np.sqrt(t[:-1]) * A[:-1]
        s19 = float(np.min((lhs - rhs) / np.maximum(lhs, np.finfo(float).tiny)))
    den = np.sqrt(t * v) + np.sqrt(t) * eps
    left = float(np.sum(g**2 / den))
    right = 2 * (2 - gamma) / (a * gamma) * (math.sqrt(T * v[-1]) + math.sqrt(T) * eps[-1])
    return s19, (right - left) / right


def theorem2_sample(rng: np.random.Generator, tmax: int = 60):
    """A random path satisfying the hypotheses: a ĝ² ≤ g² ≤ ĝ²/a, 1 − γ/t ≥ βᵗ ≥ 1 − 1/t, √t εᵗ non-decreasing.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    tmax : int
        The largest path length T (T is drawn from 1..tmax).

    Returns
    -------
    tuple
        ``(ghat, g, beta, eps, a, gamma)``: the arrays of length T and the two constants, the arguments of
        :func:`theorem2_slacks`.
    """
    T = int(rng.integers(1, tmax + 1))
    a = float(10 ** rng.uniform(-2, 0)) if rng.random() < 0.8 else 1.0
    gamma = float(10 ** rng.uniform(-2, 0)) if rng.random() < 0.8 else 1.0
    ghat = 10 ** rng.uniform(-3, 3, T) * rng.choice([-1.0, 1.0], T)
    if rng.random() < 0.3:
        ghat[rng.random(T) < 0.5] = 0.0
    la = abs(math.log10(a))
    inner = 10 ** (la * rng.uniform(-1.0, 1.0, T))  # g²/ĝ² anywhere in [a, 1/a]
    ratio = np.where(rng.random(T) < 0.5, np.where(rng.random(T) < 0.5, a, 1 / a), inner)
    g = np.sqrt(ratio) * np.abs(ghat)
    t = np.arange(1, T + 1, dtype=float)
    u = rng.random(T) if rng.random() < 0.6 else rng.choice([0.0, 1.0], T)
    beta = (1 - 1 / t) + u * ((1 - gamma / t) - (1 - 1 / t))
    e1 = float(10 ** rng.uniform(-8, 1))
    root_eps = e1 * np.cumprod(1 + (rng.random(T) < 0.3) * rng.uniform(0, 1, T))
    eps = root_eps / np.sqrt(t)
    return ghat, g, beta, eps, a, gamma


def _rate_task(problem_kw: dict, method: str, lr: float, sigma: float, noise_clip: float, batch_size: int,
               steps: int, trials: int, seed: int, side_info: str, f_star: float, eps_a: float) -> dict:
    o = _central_task("zipf_bow_logistic", problem_kw, method, lr, math.inf, sigma, batch_size, steps, trials, seed,
                      side_info=side_info, lr_decay=True, harmonic_beta2=(method == "adadps_rmsprop"),
                      noise_clip=noise_clip, eps_a=eps_a, n_log=21)
    excess = np.asarray(o["loss"]) - f_star
    return {"excess": excess, "steps": o["steps"]}


RATE_GRIDS = {"quick": dict(T=(100, 400, 1600), trials=8), "full": dict(T=(100, 300, 1000, 3000, 10000), trials=24)}
RATE_SIGMA, RATE_LR, RATE_EPS_A = 0.1, 0.5, 0.1


def assumption2_bound(problem, method: str, side_info: str, eps_a: float) -> float:
    """A C with ‖g/A‖ ≤ C for every record and every w (Assumption 2), logistic loss (|c| ≤ 1).

    Fixed A: max_i ‖x_i/A‖ (attained as |c| → 1).  Public RMSProp: Aᵗ ≥ ε_a, so max_i ‖x_i‖/ε_a.

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        The problem (its training features).
    method : str
        "adadps_fixed" (fixed A from side information); any other value is read as public RMSProp.
    side_info : str
        The side-information key of A (fixed A only).
    eps_a : float
        RMSProp's offset ε_a (> 0; public RMSProp only).

    Returns
    -------
    float
        The bound C.
    """
    X = problem.features
    if method == "adadps_fixed":
        A = problem.side_info[side_info]
        return float(np.max(np.linalg.norm(X / A, axis=1)))
    return float(np.max(np.linalg.norm(X, axis=1))) / eps_a


def assumption3_failure_rate(problem, batch_size: int, steps: int, seed: int) -> float:
    """Fraction of steps at which Assumption 3 (a·ĝ_j² ≤ g_j² ≤ ĝ_j²/a with a > 0) must fail for a logistic GLM.

    With |c| > 0 for every record, ĝ_j = 0 exactly when no record of the public batch has feature j, and
    g_j = 0 exactly when (almost surely) no record of the private batch has it; a step where some feature is
    present in the private batch (Poisson, rate b/n) but absent from the public batch (b draws with
    replacement) forces a = 0.  Index draws only (w-independent), seeded.

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        The problem (training and public features).
    batch_size : int
        The batch size b (Poisson rate b/n for the private batch, b public draws).
    steps : int
        The steps simulated.
    seed : int
        The claim's base seed (the draws come from its adadps.theorem2 child seed).

    Returns
    -------
    float
        The fraction of the steps at which Assumption 3 must fail.
    """
    rng = np.random.default_rng(child_seed(seed, "adadps.theorem2", "assumption3"))
    Xb = problem.features > 0
    Pb = problem.public_features > 0
    bad = 0
    for _ in range(steps):
        priv = Xb[rng.random(problem.n) < batch_size / problem.n].any(axis=0)
        pub = Pb[rng.integers(0, Pb.shape[0], batch_size)].any(axis=0)
        bad += bool(np.any(priv & ~pub))
    return bad / steps


def _rate_check(budget: str, seed: int, method: str, side_info: str, label: str):
    """min_t E F(wᵗ) − F* against T with αₜ = α/√t, fixed noise σC/b with C from Assumption 2, no clipping:
    does √T·excess stay bounded?"""

    g = RATE_GRIDS[by_budget(budget, "quick", "full")]
    prob = make_problem("zipf_bow_logistic", RATE_PROBLEM)
    fs = f_star_logistic(prob)
    C = assumption2_bound(prob, method, side_info, RATE_EPS_A)
    tasks = [dict(problem_kw=RATE_PROBLEM, method=method, lr=RATE_LR, sigma=RATE_SIGMA, noise_clip=C, batch_size=16,
                  steps=T, trials=g["trials"], seed=child_seed(seed, "adadps.theorem3", "rate", k),
                  side_info=side_info, f_star=fs,
                  eps_a=RATE_EPS_A) for k, T in enumerate(g["T"])]
    outs = sweep(_rate_task, tasks, label)
    best, se, samples = [], [], []
    for o, T in zip(outs, g["T"]):
        ex = np.asarray(o["excess"])
        mean = ex.mean(axis=0)
        k = int(np.argmin(mean))
        best.append(float(mean[k]))
        se.append(float(np.std(ex[:, k], ddof=1) / math.sqrt(ex.shape[0])))
        samples.append(np.maximum(ex[:, k], 1e-300) * math.sqrt(T))  # √T·excess per trial (the rate's ratio)
    start_gap = math.log(2.0) - fs  # F(w⁰ = 0) − F*
    asym = [b_ <= 0.5 * start_gap for b_ in best]
    dec = decide.rate(g["T"], samples, axis="T", asymptotic=asym,
                      criterion="min_t E F − F* ≤ half of F(w⁰) − F*: past the initial transient")
    fit_slope = dec.details.get("slope", math.nan)
    const = float(np.exp(np.mean(np.log(np.array(best) * np.sqrt(np.array(g["T"], dtype=float))))))
    return dec, fit_slope, const, g["T"], best, se, fs, C


# --- the rate part: a problem on which Assumption 3 holds by construction ------------------------------------------
# All constants fixed before the first run (their reasons are in the claim's notes).
T2_GRIDS = {"quick": dict(T=(100, 400, 1600), trials=8), "full": dict(T=(100, 300, 1000, 3000, 10000), trials=24)}
T2_LR = 0.05  # α: 2α√T = ‖w¹ − w*‖ = 1 at the smallest T
T2_SIGMA, T2_BATCH, T2_EPS_A = 1.0, 16, 1e-3
T2_CLIP = 8.0  # C = 2·(s_high/s_low)²: twice the largest ‖g_i/A¹‖ at the first step
T2_GAMMA = 1.0  # βᵗ = 1 − 1/t
#: fixed before their verdicts: the smallest-T case again on the same problem rescaled, w* ×c with α and εᵗ
#: ×c (the run is the same run scaled: g/A and the clipping are scale-free, wᵗ − w* scales by c, the excess by c²,
#: and so do D, Σ E[√vᵀ+ε] and E‖N‖²_A (×c each) in a dimensionally consistent bound); a bound whose exponents are
#: a quarter off scales by c^1.5 or c^2.5 instead and is far off at c = 10³ or 10⁻⁶
T2_SCALES = (1e3, 1e-6)
T2_TESTS = 4 + 2 * len(T2_GRIDS["full"]["T"]) + 2 * len(T2_SCALES)  # two bound decisions per T and per scale + four
# rate decisions


def _t2_task(problem_kw: dict, lr: float, sigma: float, clip: float, batch_size: int, eps_a: float, steps: int,
             trials: int, seed: int) -> dict:
    """``trials`` runs of AdaDPS-RMSProp with public data (βᵗ = 1 − 1/t, αₜ = lr/√t, fixed-size batches of b,
    public batches of b, clipping at C, noise σC/b) on a collinear_regression, by the NumPy reference with an
    observer (kernels.adadps_reference: the kernel's algorithm and draws, one SeedSequence child per trial as
    kernels.adadps.run_central spawns them), recording per step t = 1..T what Theorem 2 needs: F(wᵗ) − F*,
    min_j min(g_j²/ĝ_j², ĝ_j²/g_j²) (Assumption 3's a; 0/0 counts 1), max_i ‖g_i/Aᵗ‖ (Assumption 2),
    ‖wᵗ − w*‖ (Assumption 1) and Σ_j A_jᵗ (E‖N‖²_{Aᵗ} = σ²C²Σ_j A_jᵗ/b²)."""

    prob = make_problem("collinear_regression", problem_kw)
    w_star = prob.w_true
    f_star = prob.loss_value(w_star)
    out = {k: np.empty(trials) for k in ("avg", "min", "a", "c_max", "dist_max", "S_A")}
    sum_a = np.zeros(steps)
    for k, child in enumerate(np.random.SeedSequence(int(seed)).spawn(trials)):
        excess, a_t, c_t, dist_t, sa_t = (np.empty(steps) for _ in range(5))

        def observe(t, w, ghat, g, A, scaled):
            excess[t - 1] = prob.loss_value(w) - f_star
            g2, h2 = g * g, ghat * ghat
            both0 = (g2 == 0) & (h2 == 0)
            lo, hi = np.minimum(g2, h2), np.maximum(g2, h2)
            a_t[t - 1] = float(np.min(np.where(both0, 1.0, lo / np.where(hi > 0, hi, 1.0))))
            c_t[t - 1] = float(np.max(np.linalg.norm(scaled, axis=1)))
            dist_t[t - 1] = float(np.linalg.norm(w - w_star))
            sa_t[t - 1] = float(np.sum(A))

        ref.central_reference(prob, "adadps_rmsprop", np.random.default_rng(child), lr=lr, clip=clip, sigma=sigma,
                              batch_size=batch_size, steps=steps, sampling="fixed",
                              options=ka.CentralOptions(eps_a=eps_a, harmonic_beta2=True, lr_decay=True),
                              observe=observe)
        excess = np.maximum(excess, 0.0)
        out["avg"][k], out["min"][k] = float(excess.mean()), float(excess.min())
        out["a"][k], out["c_max"][k], out["dist_max"][k] = a_t.min(), c_t.max(), dist_t.max()
        out["S_A"][k] = sa_t[-1]
        sum_a += sa_t
    out["sumA_mean_max"] = float(np.max(sum_a / trials))  # max_t E Σ_j A_jᵗ
    out["gap0"] = prob.loss_value(np.zeros(prob.d)) - f_star  # F(w¹) − F*, w¹ = 0
    return out


def _t2_rate(budget: str, seed: int) -> dict:
    """Theorem 2 on collinear_regression: hypotheses measured on the path, then the bound and the rate decided."""

    g = T2_GRIDS[by_budget(budget, "quick", "full")]
    Ts = list(g["T"])
    tasks = [dict(problem_kw=T2_PROBLEM, lr=T2_LR, sigma=T2_SIGMA, clip=T2_CLIP, batch_size=T2_BATCH,
                  eps_a=T2_EPS_A, steps=T, trials=g["trials"], seed=child_seed(seed, "adadps.theorem2", "rate", k))
             for k, T in enumerate(Ts)]
    outs = sweep(_t2_task, tasks, "adadps.theorem2 rate")
    a_T = [float(np.min(o["a"])) for o in outs]
    c_T = [float(np.max(o["c_max"])) for o in outs]
    D_T = [float(np.max(o["dist_max"])) for o in outs]
    a_design = (T2_PROBLEM["s_low"] / T2_PROBLEM["s_high"]) ** 4
    hyp_ok = min(a_T) > 0 and max(c_T) <= T2_CLIP
    r = dict(Ts=Ts, a=a_T, c=c_T, D=D_T, a_design=a_design, hyp_ok=hyp_ok, gap0=float(outs[0]["gap0"]),
             avg=[float(np.mean(o["avg"])) for o in outs], min=[float(np.mean(o["min"])) for o in outs],
             avg_samples=[np.asarray(o["avg"]) for o in outs], min_samples=[np.asarray(o["min"]) for o in outs],
             S_A=[float(np.mean(o["S_A"])) for o in outs],
             S_A_rse=[float(np.std(o["S_A"], ddof=1) / math.sqrt(o["S_A"].size) / np.mean(o["S_A"])) for o in outs],
             decisions=[], verdicts=[], bound=[], G=[], N_A=[])
    if not hyp_ok:  # the theorem does not apply: no decision is made
        r["verdict"] = "inconclusive"
        return r
    # the theorem's hypotheses hold on every step with the measured a > 0: evaluate the declared bound with them
    bound_f, G_f = numeric(ta.theorem2_bound()), numeric(ta.theorem2_G())
    noise_f = numeric(ta.expected_noise_A_norm())  # E‖N‖²_A = σ²C²Σ_j A_j/b²
    for T, o, a, D in zip(Ts, outs, a_T, D_T):
        N_A = float(noise_f(sigma=T2_SIGMA, C=T2_CLIP, S_A=o["sumA_mean_max"], b=T2_BATCH))
        G = float(G_f(D=D, alpha=T2_LR, a=a, gamma=T2_GAMMA))
        bound = float(bound_f(D=D, alpha=T2_LR, a=a, gamma=T2_GAMMA, S_A=float(np.mean(o["S_A"])), N_A=N_A, T=T))
        dh = decide.mean_at_most(o["avg"], bound, what=f"T={T}: (1/T)Σₜ F(wᵗ) − F* (≥ min_t E F(wᵗ) − F*) ≤ bound")
        dv = decide.mean_at_most(o["min"], bound, what=f"T={T}: E min_t F(wᵗ) − F* (≤ min_t E F(wᵗ) − F*) ≤ bound")
        r["decisions"] += [dh, dv]
        r["verdicts"].append("violated" if dv.verdict == "violated" else ("holds" if dh.verdict == "holds"
                                                                          else "inconclusive"))
        r["bound"].append(bound)
        r["G"].append(G)
        r["N_A"].append(N_A)
    # the rescaled cases: T = the smallest T, the same decisions with the scaled run's own a, D, S_A, N_A
    stasks = [dict(problem_kw=dict(T2_PROBLEM, w_norm=T2_PROBLEM["w_norm"] * c), lr=T2_LR * c, sigma=T2_SIGMA,
                   clip=T2_CLIP, batch_size=T2_BATCH, eps_a=T2_EPS_A * c, steps=Ts[0], trials=g["trials"],
                   seed=child_seed(seed, "adadps.theorem2", "scaled", i)) for i, c in enumerate(T2_SCALES)]
    r["scaled"] = []
    for c, o in zip(T2_SCALES, sweep(_t2_task, stasks, "adadps.theorem2 rescaled")):
        a, D, cmax = float(np.min(o["a"])), float(np.max(o["dist_max"])), float(np.max(o["c_max"]))
        N_A = float(noise_f(sigma=T2_SIGMA, C=T2_CLIP, S_A=o["sumA_mean_max"], b=T2_BATCH))
        bound = float(bound_f(D=D, alpha=T2_LR * c, a=a, gamma=T2_GAMMA, S_A=float(np.mean(o["S_A"])), N_A=N_A,
                              T=Ts[0]))
        row = dict(scale=c, T=Ts[0], a=a, D=D, c_max=cmax, bound=bound, avg=float(np.mean(o["avg"])),
                   min=float(np.mean(o["min"])))
        if a > 0 and cmax <= T2_CLIP:
            dh = decide.mean_at_most(o["avg"], bound, what=f"w* ×{c:g}, T={Ts[0]}: (1/T)Σₜ F(wᵗ) − F* ≤ bound")
            dv = decide.mean_at_most(o["min"], bound, what=f"w* ×{c:g}, T={Ts[0]}: E min_t F(wᵗ) − F* ≤ bound")
            r["decisions"] += [dh, dv]
            row["verdict"] = ("violated" if dv.verdict == "violated" else ("holds" if dh.verdict == "holds"
                                                                          else "inconclusive"))
        else:
            row["verdict"] = "inconclusive"  # the hypotheses fail on the rescaled path: no decision
        r["scaled"].append(row)
    sq = np.sqrt(np.array(Ts, dtype=float))
    crit = "mean excess ≤ half of F(w¹) − F*: past the initial transient"
    win_h = [m <= 0.5 * r["gap0"] for m in r["avg"]]
    win_v = [m <= 0.5 * r["gap0"] for m in r["min"]]
    lo_v = [np.maximum(s, 1e-300) for s in r["min_samples"]]
    # O(1/√T): √T·excess bounded in T; the bound's shape: excess/bound bounded in T (each with both statistics)
    rh = decide.rate(Ts, [s * q for s, q in zip(r["avg_samples"], sq)], axis="T", asymptotic=win_h, criterion=crit)
    rv = decide.rate(Ts, [s * q for s, q in zip(lo_v, sq)], axis="T", asymptotic=win_v, criterion=crit)
    bh = decide.rate(Ts, [s / bd for s, bd in zip(r["avg_samples"], r["bound"])], axis="T", asymptotic=win_h,
                     criterion=crit)
    bv = decide.rate(Ts, [s / bd for s, bd in zip(lo_v, r["bound"])], axis="T", asymptotic=win_v, criterion=crit)
    r["decisions"] += [rh, rv, bh, bv]
    r["rate"] = "violated" if rv.verdict == "violated" else ("holds" if rh.verdict == "holds" else "inconclusive")
    r["shape"] = "violated" if bv.verdict == "violated" else ("holds" if bh.verdict == "holds" else "inconclusive")
    r["rate_h"], r["rate_v"], r["shape_h"], r["shape_v"] = rh, rv, bh, bv
    parts = r["verdicts"] + [row["verdict"] for row in r["scaled"]] + [r["rate"], r["shape"]]
    r["verdict"] = ("violated" if "violated" in parts else "holds" if all(p == "holds" for p in parts)
                    else "inconclusive")
    return r


@claim(
    "adadps.theorem2",
    kind="expectation",
    statement="""Theorem 2: for convex F with a public-data RMSProp preconditioner Aᵗ = √vᵗ + εᵗ (1 − γ/t ≥ βᵗ ≥ 1 − 1/t,
    √t εᵗ non-decreasing) and αₜ = α/√t, min_t E F(wᵗ) − F* ≤ G/√T·Σⱼ E[√v_jᵀ + εᵀ] + α/√T·max_t E‖N‖²_{Aᵗ},
    G = D²/(2α) + α(2 − γ)/(aγ): an O(1/√T) rate at fixed noise.""",  # noqa: E501
    theory=(ta.theorem2_bound, ta.theorem2_G),
    weaker_if={"theory.adadps.theorem2_bound": "larger", "theory.adadps.theorem2_G": "larger"},  # upper bound
    notes="Two parts. (i) Exact, pathwise: the proof's steps (19) √t·Aᵗ ≥ √(t−1)·Aᵗ⁻¹ and (24) "
    "Σₜ(gᵗ)²/(√(tvᵗ) + √tεᵗ) ≤ 2(2−γ)/(aγ)(√(Tvᵀ) + √Tεᵀ) for any paths meeting the hypotheses (a ĝ² ≤ g² ≤ ĝ²/a, "
    "the β and ε schedules): seeded search rich in edge cases; tolerance = the rounding bound (T + 4)·8u relative. "
    "(ii) The bound and the rate, on a problem where Assumption 3 holds by construction: kernels.adadps."
    "collinear_regression (records x_i = s_i·u, s_i ~ U[1, 2], noiseless labels y_i = ⟨w*, x_i⟩, squared loss, "
    "F* = 0; public split of 100 records from the same law). Every batch gradient is (batch mean of s²)·(⟨w, u⟩ − "
    "⟨w*, u⟩)·u, so private and public batch gradients are proportional coordinate by coordinate and Assumption 3 "
    "holds with a ≥ (1/2)⁴ at every w. Why not a dense well-conditioned problem: near w* the coordinates of ∇F "
    "cross zero while two independent batch gradients keep a spread there, so g_j²/ĝ_j² is unbounded and no fixed "
    "a > 0 exists (on the sparse zipf_bow_logistic a = 0 is forced outright: reported as a diagnostic). "
    "Why d = 1: with collinear records the ratio is the same in every coordinate, and d > 1 only loosens the bound "
    "by the proof's per-coordinate step (22) (w_j − w*_j)² ≤ D² (up to a factor d), so d = 1 is the adversarial "
    "choice. Constants, fixed before any run: n = 1000, b = b_pub = 16 fixed-size batches (Algorithm 1; an empty "
    "Poisson batch would give g = 0 ≠ ĝ), βᵗ = 1 − 1/t (γ = 1), εᵗ = 1e-3, w¹ = 0, ‖w*‖ = 1, α = 0.05 (so "
    "2α√T = ‖w¹ − w*‖ at the smallest T: normalised steps of ≈ α/√t then just reach w* by T, where the first "
    "term of the bound is tightest, measured/bound ≈ 0.2 by that estimate), σ = 1, clipping at C = 8 = twice "
    "the largest ‖g_i/A¹‖ of the first step (s_i²/mean s² ≤ 4), T ∈ {100, 400, 1600} × 8 runs (quick) and "
    "{100, 300, 1000, 3000, 10000} × 24 runs (full), the same T grids as before. The runs are the NumPy reference "
    "of the kernel (kernels.adadps_reference, equal to the kernel given the same draws: tests/kernels) with an "
    "observer, so the hypotheses are measured on the actual path: a = min over runs, steps and coordinates of "
    "min(g_j²/ĝ_j², ĝ_j²/g_j²) (stated before any decision; the theorem is used only if a > 0 on every step), "
    "Assumption 2 = no record clipped (max‖g_i/Aᵗ‖ ≤ C; else the rate part is inconclusive), D = max ‖wᵗ − w*‖ "
    "over runs and steps; Σⱼ E[√v_jᵀ + εᵀ] and max_t E‖N‖²_{Aᵗ} = σ²C²max_t EΣⱼA_jᵗ/b² are run means. The declared "
    "theory.adadps.theorem2_bound (with theorem2_G) is evaluated with these. Decisions (verify.decide, "
    f"{T2_TESTS} tests declared): per T, mean_at_most twice — the holds side on each run's (1/T)Σₜ F(wᵗ) − F* "
    "(its mean is ≥ the statement's min_t E F(wᵗ) − F*, the quantity eqs. (36)–(37) bound), the violated side on "
    "each run's min_t F(wᵗ) − F* (its mean is ≤ the statement's); the O(1/√T) rate by decide.rate twice on √T "
    "times the same two statistics, and the bound's dependence on T by decide.rate twice on the same two statistics "
    "divided by the bound (slope margin 0.1; window: mean excess ≤ half of F(w¹) − F*). The theorem's "
    "private-rate corollary (eq. (39), σ and T tuned to (ε, δ)) is not tested here. The statement's display was "
    "lost in extraction; the bound is reconstructed from eq. (38). A scale check: the smallest T again on the problem "
    "rescaled by c ∈ {10³, 10⁻⁶} (w*, α and εᵗ ×c, fixed before their verdicts): the run is the same run scaled "
    "and a dimensionally consistent bound scales with it (as tight as at c = 1), while a bound or a G whose "
    "exponents are a quarter off is far off there; the same two decisions per scale, with the rescaled run's own "
    "a, D, Σ E[√vᵀ+ε] and E‖N‖²_A.",
    tests=T2_TESTS,
)
def theorem2(budget: str, seed: int) -> Outcome:
    examples = by_budget(budget, 3000, 30000)
    worst19 = [np.inf, None]

    def slack(case):
        ghat, g, beta, eps, a, gamma = case
        s19, s24 = theorem2_slacks(ghat, g, beta, eps, a, gamma)
        tol = (ghat.size + 4) * 8 * EPS
        if s19 / tol < worst19[0]:
            worst19[0], worst19[1] = s19 / tol, case
        return s24 / tol

    w24 = random_search(slack, theorem2_sample, examples, seed)
    exact_ok = w24.slack >= -1.0 and worst19[0] >= -1.0
    r = _t2_rate(budget, seed)
    a3_fail = assumption3_failure_rate(make_problem("zipf_bow_logistic", RATE_PROBLEM), 16, 500, seed)
    Ts = r["Ts"]
    verdict = "violated" if not exact_ok else r["verdict"]
    counter = None
    if not exact_ok:
        which = "24" if w24.slack < -1.0 else "19"
        ghat, g, beta, eps, a, gamma = w24.example if which == "24" else worst19[1]
        counter = {"step": which, "ghat": ghat.tolist(), "g": g.tolist(), "beta": beta.tolist(), "eps": eps.tolist(),
                   "a": a, "gamma": gamma}
    elif r["verdict"] == "violated":
        k = next((i for i, v in enumerate(r["verdicts"]) if v == "violated"), None)
        sc = next((row for row in r.get("scaled", []) if row["verdict"] == "violated"), None)
        counter = {"problem": T2_PROBLEM, "lr": T2_LR, "sigma": T2_SIGMA, "clip": T2_CLIP, "batch": T2_BATCH,
                   "eps_a": T2_EPS_A, "seed": int(seed)}
        if k is None and sc is not None:
            counter.update(w_star_scale=sc["scale"], lr=T2_LR * sc["scale"], eps_a=T2_EPS_A * sc["scale"], T=sc["T"],
                           min_excess=sc["min"], avg_excess=sc["avg"], bound=sc["bound"], a=sc["a"], D=sc["D"])
        elif k is not None:
            counter.update(T=Ts[k], min_excess=r["min"][k], avg_excess=r["avg"][k], bound=r["bound"][k],
                           a=r["a"][k], D=r["D"][k])
        else:
            counter.update(T=Ts, min_excess=r["min"], test=r["rate_v"].reason)
    hyp = ("Assumption 3 measured on every step of every run: a = min_t,j min(g_j²/ĝ_j², ĝ_j²/g_j²) = "
           + ", ".join(f"{x:.3g}" for x in r["a"]) + f" (T = {', '.join(map(str, Ts))}; > 0, design bound "
           f"{r['a_design']:.3g}); Assumption 2: max‖g_i/Aᵗ‖ = {max(r['c']):.3g} vs C = {T2_CLIP:g} "
           f"({'no record clipped' if max(r['c']) <= T2_CLIP else 'CLIPPED: Assumption 2 fails'}); Assumption 1: "
           f"D = max‖wᵗ − w*‖ = {max(r['D']):.3g}")
    if r["hyp_ok"]:
        dec_txt = ("; ".join(f"T={T}: (1/T)ΣF − F* {av:.3g}, E min_t F − F* {mn:.3g}, bound {bd:.3g} (G = {G:.3g}, "
                             f"Σ E[√vᵀ+ε] = {sa:.3g} ± {100 * rse:.1f}%, max_t E‖N‖²_A = {na:.3g}), "
                             f"avg/bound {av / bd:.3g} [{v}]"
                             for T, av, mn, bd, G, sa, rse, na, v in zip(Ts, r["avg"], r["min"], r["bound"], r["G"],
                                                                         r["S_A"], r["S_A_rse"], r["N_A"],
                                                                         r["verdicts"]))
                   + "; rescaled (w*, α, εᵗ ×c): " + "; ".join(
                       f"c={row['scale']:g}, T={row['T']}: (1/T)ΣF − F* {row['avg']:.3g}, E min_t F − F* "
                       f"{row['min']:.3g}, bound {row['bound']:.3g}, avg/bound {row['avg'] / row['bound']:.3g} "
                       f"(a {row['a']:.3g}, D {row['D']:.3g}, max‖g_i/Aᵗ‖ {row['c_max']:.3g}) [{row['verdict']}]"
                       for row in r["scaled"])
                   + f"; rate O(1/√T): {r['rate']} (holds side, √T·(1/T)ΣF: {r['rate_h'].phrase()}; violated side, "
                   f"√T·min F: {r['rate_v'].phrase()}); excess/bound bounded in T: {r['shape']} (holds side, "
                   f"(1/T)ΣF/bound: {r['shape_h'].phrase()}; violated side, min F/bound: {r['shape_v'].phrase()})")
    else:
        dec_txt = "the theorem's hypotheses fail on the path, so the bound and the rate are not decided"
    evidence = (f"exact steps {'hold' if exact_ok else 'FAIL'}; bound and rate: {r['verdict']}; {hyp}; " + dec_txt
                + f"; {w24.evaluated} paths: min slack of (24) {w24.slack:.3g}, of (19) {worst19[0]:.3g} "
                f"rounding units (≥ −1 holds); diagnostic: on the sparse zipf_bow_logistic Assumption 3 forces "
                f"a = 0 at {a3_fail:.0%} of steps (a feature in the private batch, none in the public one)")
    tail = (f"; {w24.evaluated} paths: min slack of (24) {w24.slack:.3g}, of (19) {worst19[0]:.3g} rounding units "
            f"(≥ −1 holds); diagnostic: on the sparse zipf_bow_logistic Assumption 3 forces a = 0 at {a3_fail:.0%} of "
            "steps (a feature in the private batch, none in the public one)")
    summary = (f"exact steps {'hold' if exact_ok else 'FAIL'}; bound and rate: {r['verdict']}"
               + (f" (rate O(1/√T): {r['rate']}; excess/bound bounded in T: {r['shape']}; the tests' reasons are the "
                  "decisions')" if r["hyp_ok"] else
                  ": the theorem's hypotheses fail on the path, so the bound and the rate are not decided")
               + f"; hypotheses measured along every run: Assumption 3 a ≥ {min(r['a']):.3g} (design bound "
               f"{r['a_design']:.3g}), Assumption 2 max‖g_i/Aᵗ‖ = {max(r['c']):.3g} vs C = {T2_CLIP:g} "
               f"({'no record clipped' if max(r['c']) <= T2_CLIP else 'CLIPPED: Assumption 2 fails'}), Assumption 1 "
               f"D = {max(r['D']):.3g}" + tail)
    points = [{"case": "T sweep", "T": T, "a": a, "D": D_, "max‖g_i/Aᵗ‖": c_}
              for T, a, D_, c_ in zip(Ts, r["a"], r["D"], r["c"])]  # the hypotheses, measured
    if r["hyp_ok"]:
        points = [{"case": "T sweep", "T": T, "(1/T)ΣF − F*": av, "E min_t F − F*": mn, "bound": bd, "G": G,
                   "Σ E[√vᵀ+ε]": sa, "its rel. s.e.": rse, "max_t E‖N‖²_A": na, "a": a, "D": D_,
                   "max‖g_i/Aᵗ‖": c_, "avg/bound": av / bd, "verdict": v}
                  for T, av, mn, bd, G, sa, rse, na, a, D_, c_, v in zip(
                      Ts, r["avg"], r["min"], r["bound"], r["G"], r["S_A"], r["S_A_rse"], r["N_A"], r["a"], r["D"],
                      r["c"], r["verdicts"])]
        points += [{"case": f"rescaled (w*, α, εᵗ ×{row['scale']:g})", "T": row["T"], "(1/T)ΣF − F*": row["avg"],
                    "E min_t F − F*": row["min"], "bound": row["bound"], "a": row["a"], "D": row["D"],
                    "max‖g_i/Aᵗ‖": row["c_max"], "avg/bound": row["avg"] / row["bound"], "verdict": row["verdict"]}
                   for row in r["scaled"]]
    series = [Series("(1/T)Σₜ F(wᵗ) − F* (mean, ± 1.96 SE)", Ts, r["avg"],
                     [m - 1.96 * np.std(s, ddof=1) / math.sqrt(s.size) for m, s in zip(r["avg"], r["avg_samples"])],
                     [m + 1.96 * np.std(s, ddof=1) / math.sqrt(s.size) for m, s in zip(r["avg"], r["avg_samples"])],
                     style="points"),
              Series("E min_t F(wᵗ) − F*", Ts, r["min"], style="points")]
    if r["bound"]:
        series.append(Series("Theorem 2's bound (measured a, D, Σ E[√vᵀ+ε], max E‖N‖²_A)", Ts, r["bound"],
                             style="dashed"))
    fig = Figure("theorem2", "adadps Theorem 2 on collinear_regression (Assumption 3 holds)", [Panel(
        f"αₜ = {T2_LR:g}/√t, σ = {T2_SIGMA:g}, C = {T2_CLIP:g}, b = {T2_BATCH}", "T", "excess loss", series,
        xscale="log", yscale="log")])
    figures = {"paths": w24.evaluated, "min_slack_24": w24.slack, "min_slack_19": worst19[0],
               "assumption3_a_measured": min(r["a"]), "assumption3_a_design": r["a_design"],
               "assumption2_max_scaled_norm": max(r["c"]), "assumption2_C": T2_CLIP, "D_measured": max(r["D"]),
               "sparse_assumption3_failure_rate": a3_fail}
    for i, T in enumerate(Ts):
        figures[f"avg_excess_T{T}"] = r["avg"][i]
        figures[f"min_excess_T{T}"] = r["min"][i]
        if r["bound"]:
            figures[f"bound_T{T}"] = r["bound"][i]
            figures[f"avg_over_bound_T{T}"] = r["avg"][i] / r["bound"][i]
    for row in r.get("scaled", []):
        figures[f"avg_over_bound_scaled{row['scale']:g}_T{row['T']}"] = row["avg"] / row["bound"]
    if r["hyp_ok"]:
        figures["slope_sqrtT_avg"] = r["rate_h"].details.get("slope", math.nan)
        figures["slope_sqrtT_min"] = r["rate_v"].details.get("slope", math.nan)
        figures["slope_avg_over_bound"] = r["shape_h"].details.get("slope", math.nan)
    finding = points_finding(verdict, [("eqs. (19) and (24), per-step inequalities (random search, exact)",
                                        "holds" if exact_ok else "violated")]
                             + [(d_.reason, d_.verdict) for d_ in r["decisions"]],
                             what="the exact steps and the bound's decisions", no_instance="Theorem 2",
                             no_repair_reason="the check finds the failing step or case (the evidence and "
                             "counterexample name it); no corrected bound is derived from it")
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=r["decisions"], finding=finding, summary=summary, points=points)


# ======================================================================================
# Theorem 3: fixed side information — the GLM calculation and the rate
# ======================================================================================
GLM_CASES = {"quick": dict(records=20000, cases=((200, 0.01, 1.0), (200, 0.1, 2.0), (50, 0.5, 0.5))),
             "full": dict(records=200000, cases=((200, 0.01, 1.0), (200, 0.1, 2.0), (50, 0.5, 0.5), (1000, 0.002, 1.0),
                                                 (500, 0.05, 3.0)))}
GLM_MARGIN = 0.05  # relative: a 5% error in R or E‖N‖²_A (the /b vs /b² control is a factor 8) is a wrong formula
GLM_B, GLM_EPS_A = 8, 1e-3
GLM_NOISE_RUNS = 1000  # kernel runs for E‖N‖²_A (each gives d coordinates)
T3_TESTS = 2 * len(GLM_CASES["full"]["cases"]) + 1


def glm_kernel_monte_carlo(d: int, p: float, v: float, records: int, seed: int, sigma: float = 1.0, C: float = 1.0,
                           b: int = GLM_B, eps_a: float = GLM_EPS_A) -> dict:
    """R by Monte Carlo of its definition, and E‖N‖²_A measured from the AdaDPS kernel.

    R = max_j E[g_j²]/A_j² for one-record gradients c_max·x (the worst case |c| = c_max), Bernoulli(p) features of
    value v, A = pv + ϵ: per record, the mean over the (exchangeable) coordinates (NumPy; it checks the closed form).
    Noise: kernels.adadps.run_central (fixed A) on b all-zero records (zero gradients) with σ and C, one step of
    learning rate 1 from w⁰ = 0: −Δw = N, the kernel's noise after its division by b; per run Σ_j A_j N_j².

    Parameters
    ----------
    d : int
        The dimension.
    p : float
        The features' Bernoulli probability.
    v : float
        The features' value.
    records : int
        Records drawn for R.
    seed : int
        The claim's base seed (the features and the noise runs come from its adadps.theorem3 child seeds).
    sigma : float
        The noise multiplier σ.
    C : float
        The clipping norm.
    b : int
        The batch size.
    eps_a : float
        The offset ϵ of A.

    Returns
    -------
    dict
        ``R``: per record the mean of x_j²/A_j² over j; ``noise``: per run Σ_j A_j N_j²; ``A``: the vector A.
    """

    rng = np.random.default_rng(child_seed(seed, "adadps.theorem3", "features", d, int(p * 1e6)))
    A = np.full(d, p * v + eps_a)
    X = (rng.random((records, d)) < p) * float(v)
    r_rows = np.mean(X**2 / A**2, axis=1)  # c_max = 1
    Z = ka.GLMProblem(np.zeros((b, d)), np.zeros(b), "squared", {"glm": A.copy()}, {"glm": True})
    outn = ka.run_central(Z, "adadps_fixed", lr=1.0, clip=C, sigma=sigma, batch_size=b, steps=1, sampling="fixed",
                          side_info="glm", options=ka.CentralOptions(n_log=2), trials=GLM_NOISE_RUNS,
                          seed=child_seed(seed, "adadps.theorem3", "noise"))
    nA = np.sum(A * np.asarray(outn["w"]) ** 2, axis=1)
    return {"R": r_rows, "noise": nA, "A": A}


@claim(
    "adadps.theorem3",
    kind="rate",
    statement="""Theorem 3 and its GLM discussion: with fixed side information A and αₜ = α/√t,
    min_t E F(wᵗ) − F* = O((αR + 1)/√T·ΣⱼAⱼ + α/√T·E‖N‖²_A); for Bernoulli(p) features of value v with
    Aⱼ = E|xⱼ| + ϵ, R·ΣⱼAⱼ = O(dv) and E‖N‖²_A = σ²C²ΣⱼAⱼ.""",
    theory=(ta.glm_R_bound, ta.glm_R_sum_A, ta.glm_R_sum_A_over_dv_limit, ta.expected_noise_A_norm),
    # theorem3_bound (the O-form as stated) is not declared: the check does not evaluate it
    notes="(i) SymPy (exact): R·ΣA = c²ₘₐₓ d p v²/(pv + ϵ) and its ϵ → 0 limit over d v is c²ₘₐₓ (the O(dv) "
    "constant). (ii) Monte Carlo from the kernel (the first version sampled the formulas themselves with NumPy, "
    "which could only fail on a wrong closed form): R = E(g_j/A_j)² of one-record gradients (squared loss, labels "
    "±1, so |c| = c_max = 1 at w = 0) and E‖N‖²_A of the kernel's noise on zero gradients, b = 8, each against its "
    "closed form c²ₘₐₓpv²/(pv + ϵ)² and σ²C²ΣA/b² (the paper's display omits the 1/b²: exact only for b = 1; "
    "reported, not a violation: the O(·) absorbs it); relative deviation within ±0.05 (verify.decide.equivalent, "
    "2 tests per case, margin fixed before the data). (iii) Rate: AdaDPS with the frequency side information, "
    "αₜ = 0.5/√t, no clipping, noise σC/b with σ = 0.1, b = 16 and C = maxᵢ‖xᵢ/A‖ (Assumption 2 exactly, |c| ≤ 1) "
    "on a small zipf_bow_logistic; √T·min_t E F − F* must stay bounded (verify.decide.rate, 1 test). "
    "Tests declared for the full budget's 5 cases: 11.",
    tests=T3_TESTS,
)
def theorem3(budget: str, seed: int) -> Outcome:
    import sympy as sp

    lim = ta.glm_R_sum_A_over_dv_limit()
    closed = sp.simplify(ta.glm_R_sum_A() - ta.c_max**2 * ta.d * ta.p * ta.v**2 / (ta.p * ta.v + ta.eps_a)) == 0
    sym_ok = closed and sp.simplify(lim - ta.c_max**2) == 0
    g = GLM_CASES[by_budget(budget, "quick", "full")]
    fR, fN = numeric(ta.glm_R_bound()), numeric(ta.expected_noise_A_norm())
    decisions, rows = [], []
    for k, (d, p, v) in enumerate(g["cases"]):
        mc = glm_kernel_monte_carlo(d, p, v, g["records"], child_seed(seed, "adadps.theorem3", "glm", k))
        R_th = float(fR(c_max=1.0, p=p, v=v, eps_a=GLM_EPS_A))
        N_th = float(fN(sigma=1.0, C=1.0, S_A=float(mc["A"].sum()), b=GLM_B))
        eR, eN = decide.mean_estimate(mc["R"]), decide.mean_estimate(mc["noise"])
        dR = decide.equivalent(decide.Estimate(eR.value / R_th - 1, eR.se / R_th, eR.df),
                               what=f"(d={d}, p={p:g}, v={v:g}) Monte-Carlo R / closed form − 1", margin=GLM_MARGIN)
        dN = decide.equivalent(decide.Estimate(eN.value / N_th - 1, eN.se / N_th, eN.df),
                               what=f"(d={d}, p={p:g}, v={v:g}) kernel E‖N‖²_A / (σ²C²ΣA/b²) − 1", margin=GLM_MARGIN)
        decisions += [dR, dN]
        rows.append(dict(d=d, p=p, v=v, R_mc=eR.value, R_closed=R_th, noise_mc=eN.value,
                         noise_closed=N_th, R_sum_A_over_dv=R_th * float(mc["A"].sum()) / (d * v),
                         paper_noise_display=N_th * GLM_B**2, R_verdict=str(dR.verdict), noise_verdict=str(dN.verdict)))
    drate, slope, const, Ts, best, se, fs, C2 = _rate_check(budget, seed, "adadps_fixed", "frequency",
                                                            "adadps.theorem3 rate")
    decisions.append(drate)
    verdict = "violated" if not sym_ok else str(decide.combine(decisions))
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    evidence = (f"{key.phrase()}; R·ΣA/(dv) → {lim} as ϵ → 0 (closed form {'verified' if closed else 'MISMATCH'}); "
                "Monte Carlo (E‖N‖²_A from the kernel) "
                + "; ".join(f"(d={r['d']}, p={r['p']:g}, v={r['v']:g}): R {r['R_mc']:.4g} vs {r['R_closed']:.4g} "
                            f"({r['R_verdict']}), E‖N‖²_A {r['noise_mc']:.4g} vs σ²C²ΣA/b² {r['noise_closed']:.4g} "
                            f"({r['noise_verdict']})" for r in rows)
                + f"; paper's display σ²C²ΣA is b² = 64 times that at b = 8; rate (Assumption-2 C = {C2:.3g}): "
                f"slope of √T·excess {slope:.3g} ({drate.verdict})")
    fig = Figure("theorem3", "adadps Theorem 3: fixed side information", [
        Panel("GLM: R·ΣA/(d v) (closed form; → c²ₘₐₓ = 1)", "p", "R·ΣA/(dv)", [
            Series("cases", [r["p"] for r in rows], [r["R_sum_A_over_dv"] for r in rows], style="points"),
            Series("c²ₘₐₓ", [min(r["p"] for r in rows), max(r["p"] for r in rows)], [1.0, 1.0], style="dashed")],
            xscale="log"),
        Panel("min_t E F(wᵗ) − F*, αₜ = 0.5/√t, frequency A", "T", "excess loss", [
            Series("measured (± 1.96 SE)", Ts, best, np.array(best) - 1.96 * np.array(se),
                   np.array(best) + 1.96 * np.array(se), style="points"),
            Series("C/√T (geometric-mean C)", Ts, [const / math.sqrt(T) for T in Ts], style="dashed")],
            xscale="log", yscale="log")])
    # a declared limit that keeps other symbols than c_max (not the O(dv) constant) is reported as NaN: sym_ok is then
    # False and the verdict violated (exact)
    lim1 = lim.subs(ta.c_max, 1)
    figures = {"R_sum_A_over_dv_limit": float(lim1) if lim1.is_number else math.nan, "slope_sqrtT_excess": slope,
               "fitted_constant": const}
    for r in rows:
        key_ = f"d{r['d']}_p{r['p']:g}_v{r['v']:g}"
        figures.update({f"R_mc[{key_}]": r["R_mc"], f"R_closed[{key_}]": r["R_closed"],
                        f"noiseA_mc[{key_}]": r["noise_mc"], f"noiseA_closed[{key_}]": r["noise_closed"]})
    counter = None
    if verdict == "violated":
        bad = [r for r in rows if "violated" in (r["R_verdict"], r["noise_verdict"])]
        counter = bad[0] if bad else ({"symbolic": str(lim)} if not sym_ok else {"T": list(Ts), "min_excess": best,
                                                                                  "test": drate.reason})
    finding = points_finding(verdict, [("R·ΣA/(dv) → c²ₘₐₓ as ϵ → 0 (exact)", "holds" if sym_ok else "violated")]
                             + [(d_.reason, d_.verdict) for d_ in decisions],
                             what="the exact limit and the Monte Carlo and rate decisions",
                             no_instance="Theorem 3",
                             no_repair_reason="the check finds the failing part (the evidence and counterexample name "
                             "it); no corrected statement is derived from it")
    mc_verdicts = [r[k] for r in rows for k in ("R_verdict", "noise_verdict")]
    summary = (f"{verdict}: R·ΣA/(dv) → {lim} as ϵ → 0 ({'verified' if closed else 'MISMATCH'}, exact); the "
               f"kernel's Monte Carlo R and E‖N‖²_A match the closed forms in {mc_verdicts.count('holds')} of "
               f"{len(mc_verdicts)} tests; the O(1/√T) rate: {drate.verdict}")
    points = [{"case": f"d={r['d']}, p={r['p']:g}, v={r['v']:g}", "d": r["d"], "p": r["p"], "v": r["v"],
               "R (Monte Carlo)": r["R_mc"], "R (closed form)": r["R_closed"], "R verdict": r["R_verdict"],
               "E‖N‖²_A (kernel)": r["noise_mc"], "σ²C²ΣA/b²": r["noise_closed"], "noise verdict": r["noise_verdict"],
               "b": GLM_B, "paper's display σ²C²ΣA / b²": GLM_B ** 2, "paper's display": r["paper_noise_display"]}
              for r in rows]
    points.append({"case": "rate (αₜ = 0.5/√t, frequency A)", "Assumption-2 C": C2, "slope of √T·excess": slope,
                   "verdict": str(drate.verdict)})
    points += decide.decision_points(decisions)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


declare_equivalent("adadps.theorem3", "no-clipping", "no run clips anything: the noise runs clip all-zero "
                   "records (a no-op) and the rate runs use clip = ∞ (Assumption 2 through the noise scale C), so "
                   "skipping the clipping changes no number")
declare_equivalent("adadps.theorem3", "precond-inverse", "Theorem 3 is over every fixed positive side information A: "
                   "the faulted rate run is AdaDPS with the fixed A' = G²/A > 0, another instance of the same "
                   "statement (the O(1/√T) in T is all the check tests of it), and the GLM noise runs use a constant "
                   "A, for which G²/A = A")
