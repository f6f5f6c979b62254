"""Shared pieces of the ``adadps`` claims (Li et al., ICML 2022), used by several modules of this package.

The paper's hyper-parameter grids (App. B), Section 4.1's toy setting (``TOY``), the problem cache
(:func:`make_problem`), the module-level task functions every Monte-Carlo claim sweeps (:func:`_central_task`,
:func:`_fed_task`, with explicit seeds: cacheable, Dask-able), the tuning helper, the problems the rate claims share
(``RATE_PROBLEM``, ``T2_PROBLEM``, :func:`f_star_logistic`) and the central mechanism probe
(:func:`_central_mechanism_probe`) that the Section 4.1 and Section 6.1 experiments run before their verdicts.
No claim is registered here; this module imports none of the package's other modules.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from kernels import adadps as ka
from verify.findings import Finding, PaperSetting, Region
from verify.mutants import kernel_mutant
from verify.registry import child_seed
from verify.runner import sweep

PAPER_LR_GRID = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)  # App. B
PAPER_CLIP_GRID = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0)  # App. B

# Section 4.1's run: n = 1000, b = 8, T = 2250, σ = 0.7, δ = 1e-3 (= 1/n).  The paper states only
# (ε, δ) = (4.13, 1e-3); b, T, σ and C = 0.5 are those of the authors' public run script for the toy
# example (numbers only), and they reproduce ε = 4.13 with the RDP accountant (see the claim).
TOY = dict(batch_size=8, steps=2250, sigma=0.7, delta=1e-3, clip=0.5, stated_epsilon=4.13)


# ======================================================================================
# Problems and task functions (module level, explicit seeds: cacheable, Dask-able)
# ======================================================================================
@lru_cache(maxsize=16)
def _problem_cached(kind: str, items: tuple):
    gen = {"sparse_linear_regression": ka.sparse_linear_regression, "zipf_bow_logistic": ka.zipf_bow_logistic,
           "collinear_regression": ka.collinear_regression}[kind]
    return gen(**dict(items))


def make_problem(kind: str, kw: dict):
    """One of the adadps stand-in problems, built once per (kind, keyword arguments) and then reused.

    Parameters
    ----------
    kind : str
        "sparse_linear_regression", "zipf_bow_logistic" or "collinear_regression" (the kernels.adadps generator
        of that name).
    kw : dict
        The generator's keyword arguments (hashable values; the cache keys on their sorted items).

    Returns
    -------
    kernels.adadps.GLMProblem
        The problem (the same object for equal arguments: do not modify it).
    """
    return _problem_cached(kind, tuple(sorted(kw.items())))


def _split_eval(problem) -> tuple:
    """(validation, test) halves of a problem's test split."""
    Xt, yt = problem.test_features, problem.test_labels
    h = Xt.shape[0] // 2
    return (Xt[:h], yt[:h]), (Xt[h:], yt[h:])



def _one_arm_mutants(arms: tuple[str, ...], label: str) -> list:
    """Declared one-arm fault: noise*3 on the claimed winner's runs only (kernels.faults.Faults.only_methods;
    ``arms``: the kernel method names of run_central / federated_method_name of run_federated).

    The generic noise*3 hits every arm of a comparison alike, so a comparison cannot see it; this one hits the winner
    alone, and a check of "the winner beats the baseline" must stop saying holds.  No one-arm stepsize fault is
    declared: every comparison tunes each method's learning rate on a grid, fault included, so a stepsize ×10 on one
    arm is undone by the tuning (it picks a grid point 10× smaller) and is not an error of the tuned procedure."""

    return [kernel_mutant(f"noise*3[{label} only]", f"the privacy noise's standard deviation ×3 in the runs of "
                          f"{', '.join(arms)} only (the baselines unchanged)", "noise_scale", "utility",
                          noise_scale=3.0, only_methods=tuple(arms))]


def _central_task(problem: str, problem_kw: dict, method: str, lr: float, clip: float, sigma: float,
                  batch_size: int, steps: int, trials: int, seed: int, side_info: str = "paper",
                  sampling: str = "poisson", lr_decay: bool = False, harmonic_beta2: bool = False,
                  noise_clip: float | None = None, beta2: float = 0.99, eps_a: float = 1e-3, n_log: int = 11,
                  w0_std: float = 0.0) -> dict:
    """``trials`` runs of one method at one setting; losses, final loss, validation / test accuracy."""

    prob = make_problem(problem, problem_kw)
    w0 = None
    if w0_std > 0:
        w0 = w0_std * np.random.default_rng(child_seed(seed, "adadps.section4.1", "w0")).standard_normal(prob.d)
    options = ka.CentralOptions(beta2=beta2, eps_a=eps_a, lr_decay=lr_decay, harmonic_beta2=harmonic_beta2,
                                noise_clip=noise_clip, w0=w0, n_log=n_log)
    out = ka.run_central(prob, method, lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         sampling=sampling, side_info=side_info, options=options, trials=trials, seed=seed)
    loss = np.where(np.isfinite(out["loss"]), out["loss"], np.inf)
    res = {"steps": out["steps"], "loss": loss, "final_loss": loss[:, -1], "clip_fraction": out["clip_fraction"]}
    if prob.test_features is not None:
        (Xv, yv), (Xt, yt) = _split_eval(prob)
        W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
        res["val_acc"] = np.array([prob.accuracy(w, Xv, yv) for w in W])
        res["test_acc"] = np.array([prob.accuracy(w, Xt, yt) for w in W])
    return res


def _fed_task(problem_kw: dict, side_info: str, local_lr: float, clip: float, sigma: float, users_per_round: int,
              rounds: int, local_steps: int, local_batch: int, trials: int, seed: int, n_log: int = 11) -> dict:

    prob = make_problem("zipf_bow_logistic", problem_kw)
    out = ka.run_federated(prob, local_lr=local_lr, clip=clip, sigma=sigma, users_per_round=users_per_round,
                           rounds=rounds, local_steps=local_steps, local_batch=local_batch, side_info=side_info,
                           options=ka.FederatedOptions(n_log=n_log), trials=trials, seed=seed)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    loss = np.where(np.isfinite(out["loss"]), out["loss"], np.inf)
    return {"rounds": out["rounds"], "loss": loss, "val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _tune(label: str, base: dict, grid: list[dict], score: str, seed: int) -> tuple[dict, list[dict]]:
    """Grid search: run every grid point with the tuning seed, pick the best ``score``.

    ``score`` "final_loss" (lower is better) or "val_acc" (higher is better), averaged over trials.
    """

    tasks = [dict(base, **g, seed=seed) for g in grid]
    outs = sweep(_central_task, tasks, label)
    vals = []
    for o in outs:
        x = np.asarray(o[score], dtype=float)
        m = float(np.mean(x)) if np.all(np.isfinite(x)) else (np.inf if score == "final_loss" else -np.inf)
        vals.append(m)
    best = int(np.argmin(vals)) if score == "final_loss" else int(np.argmax(vals))
    return grid[best], [dict(g, score=v) for g, v in zip(grid, vals)]




def f_star_logistic(problem) -> float:
    """min_w F(w) for a logistic GLM (L-BFGS on the exact loss; a numerical optimum).

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        A problem with labels ±1 and the logistic loss.

    Returns
    -------
    float
        The smallest mean logistic loss L-BFGS-B finds from w = 0.
    """
    from scipy.optimize import minimize

    X, y = problem.features, problem.labels

    def fg(w):
        z = X @ w
        f = np.mean(np.logaddexp(0.0, -y * z))
        c = -y / (1.0 + np.exp(y * z))
        return f, X.T @ c / X.shape[0]

    res = minimize(fg, np.zeros(problem.d), jac=True, method="L-BFGS-B", options=dict(maxiter=5000, gtol=1e-10,
                                                                                       ftol=1e-15))
    return float(res.fun)


RATE_PROBLEM = dict(n=1000, d=100, n_test=200, n_users=20, doc_len=20.0, public_fraction=0.05, seed=3)
T2_PROBLEM = dict(n=1000, d=1, n_public=100, s_low=1.0, s_high=2.0, w_norm=1.0, seed=5)


#: the central mechanism probe (_central_mechanism_probe), fixed before any run: n = 4b records of d coordinates,
#: one step; noise std over d·trials draws within CENTRAL_PROBE_BAND of σC (a χ² band: 20000 draws), the noiseless
#: clipped step equal to the stated one to CENTRAL_PROBE_RTOL relative (rounding)
CENTRAL_PROBE = dict(d=100, trials=200, lr=0.5, clip=1.0)
CENTRAL_PROBE_BAND = (0.8, 1.25)
CENTRAL_PROBE_RTOL = 1e-9


#: the methods whose noise the central probe reads (an SGD-type update w ← w − η(Σ clipped + N)/b, whatever A is:
#: the noise is added after the preconditioning) and those whose step it checks (a fixed A, or none)
CENTRAL_PROBE_NOISE = ("dp_sgd", "adadps_fixed", "adadps_rmsprop", "adadps_adam", "adadps_adagrad")
CENTRAL_PROBE_STEP = ("dp_sgd", "adadps_fixed")


def _central_mechanism_probe(methods: tuple, sigma: float, batch_size: int, seed: int, label: str,
                             clip: float | None = None) -> tuple[str, dict]:
    """Whether ``kernels.adadps.run_central`` runs the stated mechanism for each of ``methods`` (fixed side
    information A = linspace(0.2, 1, d) where a method takes one), on a probe problem (squared loss, n = 4b, and a
    public split of b records like the private ones):
    (1) noise (methods in CENTRAL_PROBE_NOISE, σ > 0): all-zero records and labels (zero gradients), lr = 1, one
    step, clip C = CENTRAL_PROBE's: w = −N/b, whose standard deviation over d·trials draws must be σC/b within
    CENTRAL_PROBE_BAND;
    (2) step (methods in CENTRAL_PROBE_STEP): σ = 0, fixed-size batches, one step of lr η from w = 0 on b identical
    records x = 1, y = 1 (gradient −x, preconditioned −x/A by AdaDPS, of norm > C): the stated update is
    w = η·C·u, u the unit vector of x/A (x for DP-SGD); with ``clip`` = ∞ (runs that clip nothing) w = η·x/A
    unclipped; to CENTRAL_PROBE_RTOL relative.
    Returns ("", numbers) when every method passes, else (the reason, numbers)."""
    d, b = CENTRAL_PROBE["d"], batch_size
    A = np.linspace(0.2, 1.0, d)
    C = CENTRAL_PROBE["clip"] if clip is None else clip
    lr = CENTRAL_PROBE["lr"]

    def problem(value: float):
        X = np.full((4 * b, d), value)
        return ka.GLMProblem(X, np.full(4 * b, value), "squared", {"probe": A}, {"probe": label},
                             X[:b].copy(), np.full(b, value))

    numbers, bad = {}, []
    for m in methods:
        if sigma > 0 and m in CENTRAL_PROBE_NOISE:
            out = ka.run_central(problem(0.0), m, lr=1.0, clip=CENTRAL_PROBE["clip"], sigma=sigma, batch_size=b,
                                 steps=1, side_info=A.copy(), trials=CENTRAL_PROBE["trials"],
                                 seed=child_seed(seed, label, "probe", m), options=ka.CentralOptions(n_log=2))
            ratio = float(np.sqrt(np.mean(np.asarray(out["w"]) ** 2)) * b / (sigma * CENTRAL_PROBE["clip"]))
            numbers[f"probe_noise_std_ratio[{m}]"] = ratio
            if not CENTRAL_PROBE_BAND[0] <= ratio <= CENTRAL_PROBE_BAND[1]:
                bad.append(f"{m}: the noise in the update is {ratio:.3g} × the stated η·σC/b")
        if m in CENTRAL_PROBE_STEP:
            out = ka.run_central(problem(1.0), m, lr=lr, clip=C, sigma=0.0, batch_size=b, steps=1, sampling="fixed",
                                 side_info=A.copy(), options=ka.CentralOptions(n_log=2), trials=1,
                                 seed=child_seed(seed, label, "probe-step", m))
            u = np.ones(d) / A if m == "adadps_fixed" else np.ones(d)
            stated = lr * (u if math.isinf(C) else C * u / np.linalg.norm(u))
            step = float(np.max(np.abs(np.asarray(out["w"][0]) / stated - 1.0)))
            numbers[f"probe_step_rel_error[{m}]"] = step
            if not step <= CENTRAL_PROBE_RTOL:
                bad.append(f"{m}: the {'' if math.isinf(C) else 'clipped '}step is off the stated one by {step:.3g} "
                           "(relative)")
    return "; ".join(bad), numbers


#: why an empirical comparison that fails on the suite's runs has no repair
EMPIRICAL_NO_REPAIR = ("an empirical statement checked on the suite's runs: what holds there is the measured outcome "
                       "in the evidence, and no corrected form of the paper's statement follows from it")
#: the measure of a paper setting the check does not run
NOT_RUN = "not computed: the check does not run the paper's own data"


def points_finding(verdict: str, points, *, what: str, paper_where: str = "", paper_text: str = "",
                   paper_measure: str = NOT_RUN, paper_size: float = math.nan, paper_fails: bool = False,
                   no_repair_reason: str = EMPIRICAL_NO_REPAIR, surrogate: bool = False,
                   no_instance: str = "") -> Finding | None:
    """The finding of a violated check from the parts it decided (comparisons, cases, exact steps).

    Every part is one explored point of the region, failing when its verdict is "violated"; no edge is named, so a
    failure is in the regime.  A violated verdict whose parts show no failure (a combination not listed) counts as
    one more failing part named "another part of the check (see the evidence)".

    Parameters
    ----------
    verdict : str
        The check's verdict; no finding unless "violated".
    points : iterable of (str, str)
        Each decided part: its label and its verdict.
    what : str
        What the parts are, for the region's sentence.
    paper_where : str
        The paper's own setting of the statement and where the paper states it.
    paper_text : str, optional
        The sentence on that setting.
    paper_measure : str, optional
        What the size measures there (default: not computed).
    paper_size : float, optional
        The size there (NaN: not computed).
    paper_fails : bool, optional
        Whether the statement fails at that setting (the check ran it there).
    no_repair_reason : str, optional
        Why no repair is known.
    surrogate : bool, optional
        Append to ``paper_where`` that the check runs the suite's surrogate problem, not the paper's datasets.
    no_instance : str, optional
        A theorem's name: ``paper_where`` says it states no numeric instance (the size there is not computed).

    Returns
    -------
    verify.findings.Finding or None
        None unless ``verdict`` is "violated".
    """
    if str(verdict) != "violated":
        return None
    if surrogate:
        paper_where += ": the suite runs its surrogate problem, not the paper's datasets"
    if no_instance:
        paper_where = (f"{no_instance} states no numeric instance (the paper's experiments do not evaluate it): the "
                       "failure's size there is not computed")
    parts = [(str(lab), str(v)) for lab, v in points]
    failing = [lab for lab, v in parts if v == "violated"]
    if not failing and not paper_fails:
        parts.append(("another part of the check (see the evidence)", "violated"))
        failing = [parts[-1][0]]
    region = Region(explored=len(parts), failing=len(failing),
                    text=f"{what}: {len(failing)} of {len(parts)} violated — " + "; ".join(failing))
    setting = PaperSetting(where=paper_where, measure=paper_measure, size=paper_size, fails=bool(paper_fails),
                           text=paper_text)
    return Finding(region=region, at_paper_setting=setting, repair=None, no_repair_reason=no_repair_reason)
