"""Claims of ``pagan`` — Asi, Duchi, Fallah, Javidbakht, Talwar, ICML 2021.

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the
formulas it tests live in :mod:`theory.pagan`, the algorithms in :mod:`kernels`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import NamedTuple, Sequence

import numpy as np
import sympy as sp

import dpvalidate
import kernels
import kernels.moments
from dpvalidate import choice
from kernels.pagan import run_trials_one_stream
from theory import numeric
from theory import pagan as tp
from verify import decide, stats
from verify.audit import AUDIT_DELTA, AUDIT_EPSILON, audit_level, audit_outcome, claim_method, epsilon_lower_bound
from verify.exact import adversarial_search, edge_values, random_search, rounding_tolerance
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.privacy import Mechanism, gaussian_epsilon_exact, gaussian_epsilon_interval, with_replacement_epsilon
from verify.registry import Budgets, Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import claim_scope, sweep


def _power_sums(sigma: np.ndarray, powers=(1, sp.Rational(2, 3))) -> dict:
    """Numeric values of the power-sum symbols S_a = Σ σ_j^a (theory.pagan.power_sum) for a σ vector."""
    return {tp.power_sum(a).name: float(np.sum(sigma ** float(a))) for a in powers}


# ======================================================================================
# eq. (7)/(9): the Hölder chain between the PAGAN and PASAN rate factors
# ======================================================================================
class Eq7Search(NamedTuple):
    """pagan.eq7's search: random edge-value examples, L-BFGS-B starts per dimension, largest random d."""

    examples: int
    starts: int
    dmax: int


EQ7_BUDGETS = Budgets(quick=Eq7Search(examples=300, starts=8, dmax=40),
                      full=Eq7Search(examples=3000, starts=40, dmax=200))


@claim(
    "pagan.eq7",
    kind="exact",
    statement="""For every σ ≥ 0 in R^d, √d·Σσ_j ≥ (Σσ_j^{2/3})^{3/2} ≥ Σσ_j (the Hölder chain after
    eq. (9)); and for σ_j = j^{-3/2} the PAGAN factor (Σσ_j^{2/3})^{3/2} grows like log^{3/2} d while
    the PASAN-on-the-box factor √d·Σσ_j grows like ζ(3/2)·√d.""",
    theory=(tp.holder_chain, tp.power_law_sums, tp.box_rate_ratio),
    notes="Exact inequalities: seeded edge-value search and L-BFGS-B adversarial search over σ; the "
    "power-law asymptotics by sympy limits of generalised harmonic numbers.",
)
def eq7(budget: str, seed: int) -> Outcome:
    upper, middle, lower = tp.holder_chain()
    f_up, f_mid, f_low = (numeric(e) for e in (upper, middle, lower))
    examples, starts, dmax = EQ7_BUDGETS.at(budget)

    def slacks(sigma: np.ndarray) -> tuple[float, float, float]:
        sigma = np.abs(np.asarray(sigma, dtype=float))
        vals = _power_sums(sigma)
        d = sigma.size
        u = f_up(S_1=vals["S_1"], d=d)
        m = f_mid(S_2_3=vals["S_2_3"])
        lo = f_low(S_1=vals["S_1"])
        scale = max(u, np.finfo(float).tiny)
        return (u - m) / scale, (m - lo) / scale, rounding_tolerance(d, 1.0)

    def worst_of(sigma) -> float:
        a, b, _ = slacks(sigma)
        return min(a, b)

    def profile(rng):
        v = edge_values(rng, int(rng.integers(1, dmax + 1)), 0.0, 1e6)
        return v if v.sum() > 0 else np.ones(1)

    hw = random_search(worst_of, profile, examples, child_seed(seed, "pagan.eq7", "random"))
    adv = [adversarial_search(worst_of, dim, (0.0, 1.0), starts, child_seed(seed, "pagan.eq7", "adversarial", dim))
           for dim in (2, 5, 20)]
    worst_adv = min(adv, key=lambda w: w.slack)
    worst = hw if hw.slack <= worst_adv.slack else worst_adv
    tol = rounding_tolerance(dmax, 1.0)

    # σ_j = j^{-3/2}: exact closed forms and their limits
    subs = tp.power_law_sums(sp.Rational(3, 2))
    d = tp.d
    mid_pl = middle.subs(subs)
    up_pl = upper.subs(subs)
    lim_mid = sp.limit(mid_pl / sp.log(d) ** sp.Rational(3, 2), d, sp.oo)
    lim_up = sp.limit(up_pl / sp.sqrt(d), d, sp.oo)
    # the comparison the statement draws: PASAN-on-the-box over PAGAN → ζ(3/2)·√d / log^{3/2} d
    lim_ratio = sp.limit(tp.box_rate_ratio().subs(subs) * sp.log(d) ** sp.Rational(3, 2) / sp.sqrt(d), d, sp.oo)
    dims = np.unique(np.logspace(1, 6, 11).astype(int))
    prof = [_power_sums(np.arange(1, k + 1, dtype=float) ** -1.5) for k in dims]
    up_v = np.array([f_up(S_1=p["S_1"], d=int(k)) for p, k in zip(prof, dims)])
    mid_v = np.array([f_mid(S_2_3=p["S_2_3"]) for p in prof])
    low_v = np.array([f_low(S_1=p["S_1"]) for p in prof])
    f_ratio = numeric(tp.box_rate_ratio())
    ratio = np.array([f_ratio(S_1=p["S_1"], S_2_3=p["S_2_3"], d=int(k)) for p, k in zip(prof, dims)])
    slope = stats.loglog_slope(dims, ratio)
    zeta = sp.zeta(sp.Rational(3, 2))
    asym_ok = (sp.simplify(lim_mid - 1) == 0 and sp.simplify(lim_up - zeta) == 0
               and sp.simplify(lim_ratio - zeta) == 0)

    chain_ok = worst.slack >= -tol
    verdict = "holds" if chain_ok and asym_ok else "violated"
    counter = None
    if not chain_ok:
        counter = {"sigma": np.abs(np.asarray(worst.example, dtype=float)).tolist(), "relative_slack": worst.slack}
    evidence = (f"min relative slack {worst.slack:.3g} over {hw.evaluated + sum(w.evaluated for w in adv)} "
                f"evaluations (rounding tolerance {tol:.2g}); for σ_j=j^-1.5: (Σσ^(2/3))^(3/2)/log^(3/2) d "
                f"→ {lim_mid}, "
                f"√dΣσ/√d → {lim_up}; (PASAN/PAGAN factor ratio)·log^(3/2) d/√d → {lim_ratio}; "
                f"ratio slope in d over 10..1e6 = {slope.slope}")
    panel = Panel("σ_j = j^(-3/2): rate factors", "dimension d", "factor", [
        Series("√d·Σσ_j (PASAN on X∞)", dims, up_v),
        Series("(Σσ_j^(2/3))^(3/2) (PAGAN)", dims, mid_v),
        Series("Σσ_j", dims, low_v),
    ], xscale="log", yscale="log")
    return Outcome(verdict=verdict, evidence=evidence, numbers={
        "min_relative_slack": worst.slack,
        "rounding_tolerance": tol,
        "examples": hw.evaluated,
        "ratio_slope_d": slope.slope.estimate,
        "ratio_slope_lo": slope.slope.lo,
        "ratio_slope_hi": slope.slope.hi,
        "ratio_at_d_1e6": float(ratio[-1]),
    }, counterexample=counter,
    plots=[Figure("holder_chain", "Hölder chain of eq. (7)/(9) for σ_j = j^(-3/2)", [panel])])


# ======================================================================================
# Theorem 4: the reduction from optimisation on X∞ to sign estimation
# ======================================================================================
def _sign_mean_outputs(algorithm: str, epsilon: float, delta: float, n: int, d: int, steps: int, trials: int,
                       seed: int) -> dict:
    ds = kernels.make_problem("sign_mean", seed=child_seed(seed, "pagan.theorem4", "data"), n=n, d=d)
    out = kernels.run_algorithm(algorithm, ds, epsilon=epsilon, delta=delta, steps=steps, batch_size=1,
                                alpha=1.0, trials=trials, seed=child_seed(seed, "pagan.theorem4", "runs"), n_log=2)
    zbar = -ds.features.mean(axis=0)
    return {"x": out.x_avg, "zbar": zbar}


class Theorem4Search(NamedTuple):
    """pagan.theorem4's search: random edge-value examples, L-BFGS-B starts, largest random d (also the hard
    instances' d), trials per algorithm on the hard instances."""

    examples: int
    starts: int
    dmax: int
    trials: int


THEOREM4_BUDGETS = Budgets(quick=Theorem4Search(examples=400, starts=8, dmax=30, trials=4),
                           full=Theorem4Search(examples=4000, starts=40, dmax=200, trials=30))


for _m in ("noise*3", "noise-cov-A", "no-clipping", "stepsize*10"):
    declare_equivalent("pagan.theorem4", _m, "the inequality is claimed for every x ∈ X∞ and the kernels only supply "
                       "points to evaluate it at; every fault keeps the projection onto X∞, so it changes which points "
                       "are tried, never the statement's truth")


@claim(
    "pagan.theorem4",
    kind="exact",
    statement="""The reduction in the proof of Theorem 4: for f(x) = −xᵀz̄ on X∞ = [−1,1]^d,
    f(x) − min f = ‖z̄‖₁ − xᵀz̄ ≥ Σ_j |z̄_j|·1{sign x_j ≠ sign z̄_j} for every x ∈ X∞ and z̄ ∈ R^d.""",
    theory=(tp.reduction_gap_coordinate, tp.reduction_indicator_coordinate),
    # gap ≥ indicator: a larger left side or a smaller right side only weakens the inequality
    weaker_if={"theory.pagan.reduction_gap_coordinate": "larger",
               "theory.pagan.reduction_indicator_coordinate": "smaller"},
    notes="Exact; searched over seeded edge values (0, ±1, signed zeros, subnormals, ties) and by L-BFGS-B, and at the "
    "outputs of PAGAN/PASAN on sign_mean hard instances. The lower bound of Theorem 4 itself (risk of private "
    "algorithms) is a separate claim.",
)
def theorem4(budget: str, seed: int) -> Outcome:
    f_slack = numeric(tp.reduction_slack_coordinate())
    f_gap = numeric(tp.reduction_gap_coordinate())
    examples, starts, dmax, trials = THEOREM4_BUDGETS.at(budget)

    def total_slack(x: np.ndarray, z: np.ndarray) -> float:
        s = np.asarray(f_slack(x_j=x, z_j=z), dtype=float)
        return float(np.sum(s)) / max(float(np.sum(np.abs(z))), np.finfo(float).tiny)

    def pair(rng):
        k = int(rng.integers(1, dmax + 1))
        return edge_values(rng, k, -1.0, 1.0), edge_values(rng, k, -1e6, 1e6)

    hw = random_search(lambda p: total_slack(*p), pair, examples, child_seed(seed, "pagan.theorem4", "random"))

    def vec(v):
        k = v.size // 2
        return total_slack(np.clip(v[:k], -1, 1), v[k:])

    adv = [adversarial_search(vec, 2 * k, (-1.0, 1.0), starts, child_seed(seed, "pagan.theorem4", "adversarial", k))
           for k in (1, 4, 16)]

    # outputs of the private algorithms on hard instances
    tasks = [dict(algorithm=a, epsilon=1.0, delta=1e-5, n=500, d=dmax, steps=500, trials=trials,
                  seed=child_seed(seed, "pagan.theorem4", "task", i)) for i, a in enumerate(("pagan", "pasan"))]
    outs = sweep(_sign_mean_outputs, tasks, "pagan.theorem4 hard instances")
    alg_worst = min(total_slack(x, o["zbar"]) for o in outs for x in o["x"])
    gaps = [float(np.sum(f_gap(x_j=x, z_j=o["zbar"]))) for o in outs for x in o["x"]]

    worst = min([hw] + adv, key=lambda w: w.slack)
    worst_slack = min(worst.slack, alg_worst)
    tol = rounding_tolerance(dmax, 1.0)
    holds = worst_slack >= -tol
    counter = None
    if not holds:
        ex = worst.example
        counter = {"example": ([np.asarray(e).tolist() for e in ex] if isinstance(ex, tuple)
                               else np.asarray(ex).tolist()),
                   "relative_slack": worst_slack}
    n_eval = hw.evaluated + sum(w.evaluated for w in adv) + len(gaps)
    evidence = (f"min slack/‖z̄‖₁ {worst_slack:.3g} over {n_eval} evaluations (tolerance {tol:.2g}); "
                f"at {len(gaps)} PAGAN/PASAN outputs on sign_mean the min slack was {alg_worst:.3g}")
    hist = np.sort(np.array(gaps))
    fig = Figure("reduction", "Theorem 4 reduction at private outputs on sign_mean", [Panel(
        "f(x̄_T) − f(x*) at PAGAN/PASAN outputs (ε = 1)", "output (sorted)", "excess loss",
        [Series("‖z̄‖₁ − x̄ᵀz̄", np.arange(hist.size), hist, style="points")])])
    return Outcome(verdict="holds" if holds else "violated", evidence=evidence, numbers={
        "min_relative_slack": worst_slack,
        "rounding_tolerance": tol,
        "random_examples": hw.evaluated,
        "algorithm_outputs": len(gaps),
        "min_slack_at_outputs": alg_worst,
    }, counterexample=counter, plots=[fig])


# ======================================================================================
# Figure 1: private absolute regression
# ======================================================================================
FIG1_EPSILONS = (0.1, 1.0, 4.0)
FIG1_STEPSIZES = (0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.4, 0.5, 1.0)
FIG1_ALGORITHMS = ("sgd", "adagrad", "pasan", "pagan", "pagan_opt", "pdp_sgd")
FIG1_LABELS = {
    "sgd": "SGD (non-private)",
    "adagrad": "AdaGrad (non-private)",
    "pasan": "PASAN, A = I",
    "pagan": "PAGAN, A = I",
    "pagan_opt": "PAGAN, optimal A (§3.2)",
    "pdp_sgd": "PDP-SGD (public top-10)",
}
FIG1_DELTA = 1e-5
FIG1_BATCH = 70
#: non-inferiority margin of every Figure 1 ordering, in loss units: 1% of f(0) ≈ 0.9 (the loss at x = 0 on
#: abs_regression), below what the paper's log-scale curves resolve; a difference inside it is a near-tie
FIG1_MARGIN = 0.01


def _fig1_task(algorithm: str, epsilon: float, alpha: float, steps: int, trials: int, n_log: int, seed: int,
               data_seed: int) -> dict:
    ds = kernels.make_problem("abs_regression", seed=data_seed)
    private = kernels.SPECS[algorithm].private
    out = kernels.run_algorithm(
        algorithm, ds, steps=steps, batch_size=FIG1_BATCH, alpha=alpha, trials=trials, seed=seed, n_log=n_log,
        **(dict(epsilon=epsilon, delta=FIG1_DELTA) if private else {}))
    return {"steps": out.steps, "losses": out.losses, "clipped": out.clipped_fraction}


class Fig1Runs(NamedTuple):
    """Figure 1's runs: steps per run, trials of each final run, trials of each tuning run (per method and
    stepsize), logged points of the final runs."""

    steps: int
    runs: int
    tune_runs: int
    n_log: int


FIG1_BUDGETS = Budgets(quick=Fig1Runs(steps=200, runs=10, tune_runs=1, n_log=21),
                       full=Fig1Runs(steps=1000, runs=30, tune_runs=3, n_log=51))


def figure1_runs(budget: str, seed: int) -> dict:
    """Figure 1's runs (shared by pagan.figure1 and pagan.section6.1): each method's stepsize chosen on tuning runs
    (fresh seeds), then fresh final runs at it. Returns {"res": {(algorithm, ε or 0): run}, "best": {(algorithm,
    ε or 0): (stepsize, tuning score)}, "steps", "runs"}; the tasks go through verify.runner.sweep (and its cache),
    attributed to pagan.figure1 whichever claim asks, so that the second claim (its own worker process in a
    ledger run) takes the first's results from the cache instead of computing them again.

    Parameters
    ----------
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed (the runs' seeds are pagan.figure1's child seeds, whichever claim asks).

    Returns
    -------
    dict
        ``res``, ``best``, ``steps`` and ``runs`` as above.
    """
    steps, runs, tune_runs, n_log = FIG1_BUDGETS.at(budget)
    data_seed = child_seed(seed, "pagan.figure1", "data")
    private = [a for a in FIG1_ALGORITHMS if kernels.SPECS[a].private]
    public = [a for a in FIG1_ALGORITHMS if not kernels.SPECS[a].private]
    cells = [(a, None) for a in public] + [(a, e) for a in private for e in FIG1_EPSILONS]

    # phase 1: stepsize selection on tuning runs
    tasks = []
    for ci, (a, e) in enumerate(cells):
        for si, alpha in enumerate(FIG1_STEPSIZES):
            tasks.append(dict(algorithm=a, epsilon=e if e is not None else 0.0, alpha=alpha, steps=steps,
                              trials=tune_runs, n_log=2, seed=child_seed(seed, "pagan.figure1", "tune", ci, si),
                              data_seed=data_seed))
    with claim_scope("pagan.figure1"):  # pagan.section6.1 asks for the same tasks: one cache folder, one key
        tuned = sweep(_fig1_task, tasks, "pagan.figure1 tuning")
    best: dict = {}
    for t, out in zip(tasks, tuned):
        key = (t["algorithm"], t["epsilon"])
        score = float(np.median(out["losses"][:, -1]))
        if not np.isfinite(score):
            continue
        if key not in best or score < best[key][1]:
            best[key] = (t["alpha"], score)

    # phase 2: fresh runs at the chosen stepsizes
    final_tasks = []
    for ci, (a, e) in enumerate(cells):
        eps = e if e is not None else 0.0
        final_tasks.append(dict(algorithm=a, epsilon=eps, alpha=best[(a, eps)][0], steps=steps, trials=runs,
                                n_log=n_log, seed=child_seed(seed, "pagan.figure1", "final", ci),
                                data_seed=data_seed))
    with claim_scope("pagan.figure1"):
        finals = sweep(_fig1_task, final_tasks, "pagan.figure1 final runs")
    res = {(t["algorithm"], t["epsilon"]): o for t, o in zip(final_tasks, finals)}
    return {"res": res, "best": best, "steps": steps, "runs": runs}


FIG1_Z_RTOL = 1e-9  # rounding units of √(log(1/δ))/ε computed twice in float64 (≈ 1e-15): fixed before the data


def fig1_mechanism_decision(seed: int, steps: int, algorithms: Sequence[str], epsilons: Sequence[float]) -> tuple:
    """Whether the private runs of Figure 1 are the paper's ε-private mechanism (Algorithms 1/2, lines 4-6): for each
    private method and ε, the kernel's configuration (the one :func:`figure1_runs` runs, built again by
    ``kernels.make_config``: no runs) projects every record onto its ellipsoid and draws noise whose whitened
    multiplier ``noise_std · b · √a_j`` is, in every coordinate j, the closed form theory.pagan.noise_multiplier
    √(log(1/δ))/ε, to FIG1_Z_RTOL; and every method's configuration (private or not) keeps the stepsize it is
    given (the runs' α is the one selected from the stated grid), to FIG1_Z_RTOL. Exact (no statistical test).

    Parameters
    ----------
    seed : int
        The claim's base seed (gives pagan.figure1's dataset).
    steps : int
        T of the runs.
    algorithms : sequence of str
        Method names; of the non-private ones only the stepsize is checked.
    epsilons : sequence of float
        The ε of the runs.

    Returns
    -------
    tuple
        ``(decision, numbers)``: a :class:`verify.decide.Decision` (violated when some run does not keep its
        stepsize or some private run is not calibrated, holds otherwise; its estimate is the largest ratio
        kernel/closed form, or ∞ without projection or with a changed stepsize) and
        ``{"noise_multiplier_ratio_<method>_eps<ε>": ratio}``.

    Raises
    ------
    dpvalidate.InvalidParameter
        From ``kernels.make_config`` for an unknown method or an ε outside (0, ∞].
    """
    ds = kernels.make_problem("abs_regression", seed=child_seed(seed, "pagan.figure1", "data"))
    z_of = numeric(tp.noise_multiplier())
    numbers: dict[str, float] = {}
    worst, where, unclipped, off_grid = 1.0, "", [], []
    for a in algorithms:
        # every method (private or not) runs the stepsize it is given (one of the claim's grid {0.005, …, 1.0})
        if not kernels.SPECS[a].private:
            cfg = kernels.make_config(a, ds, steps=steps, batch_size=FIG1_BATCH, alpha=FIG1_STEPSIZES[0], n_log=2)
            if abs(float(cfg.alpha) / FIG1_STEPSIZES[0] - 1.0) > FIG1_Z_RTOL:
                off_grid.append(f"{a} given α = {FIG1_STEPSIZES[0]:g} runs {float(cfg.alpha):.6g}")
            continue
        for e in epsilons:
            cfg = kernels.make_config(a, ds, epsilon=e, delta=FIG1_DELTA, steps=steps, batch_size=FIG1_BATCH,
                                      alpha=FIG1_STEPSIZES[0])
            if abs(float(cfg.alpha) / FIG1_STEPSIZES[0] - 1.0) > FIG1_Z_RTOL:
                off_grid.append(f"{a} at ε = {e:g} given α = {FIG1_STEPSIZES[0]:g} runs {float(cfg.alpha):.6g}")
            z = float(z_of(epsilon=e, delta=FIG1_DELTA))
            ratios = np.asarray(cfg.noise_std, dtype=float) * FIG1_BATCH * np.sqrt(cfg.ellipsoid) / z
            far = float(ratios[np.argmax(np.abs(ratios - 1.0))])
            numbers[f"noise_multiplier_ratio_{a}_eps{e:g}"] = far
            if not cfg.clip:
                unclipped.append(f"{a} ε={e:g}")
            if abs(far - 1.0) > abs(worst - 1.0):
                worst, where = far, f"{a} at ε = {e:g}"
    ctrl = decide.Control("the runs' noise multiplier and projection vs Algorithms 1/2 line 6's √(log(1/δ))/ε "
                          "(exact, no runs)", 0.0, "none (exact)", FIG1_Z_RTOL, None)
    if off_grid:
        return decide.Decision(decide.Verdict.VIOLATED, ctrl, math.inf, math.inf, math.inf,
                               "the runs' stepsize is not the one selected from the stated grid {0.005, …, 1.0} ("
                               + ", ".join(off_grid[:3]) + "): not the stated experiment (exact)"), numbers
    if unclipped:
        return decide.Decision(decide.Verdict.VIOLATED, ctrl, math.inf, math.inf, math.inf,
                               "records not projected onto the ellipsoid (" + ", ".join(unclipped[:3])
                               + "): the noise √(log(1/δ))/ε gives no ε-DP without it (exact)"), numbers
    if abs(worst - 1.0) > FIG1_Z_RTOL:
        return decide.Decision(decide.Verdict.VIOLATED, ctrl, worst, worst, worst,
                               f"the runs' noise multiplier is {worst:.6g} × √(log(1/δ))/ε for {where} (the "
                               "paper's calibration of ε, Alg. 1/2 line 6: not the stated ε; exact)"), numbers
    return decide.Decision(decide.Verdict.HOLDS, ctrl, worst, worst, worst,
                           "every private run projects its records and draws noise √(log(1/δ))/ε (to "
                           f"{FIG1_Z_RTOL:g} relative)"), numbers


def _fig1_final(res: dict, a: str, e) -> np.ndarray:
    """The final losses of method ``a`` at ε = ``e`` (non-private methods: their one ε-free run)."""
    return res[(a, e if kernels.SPECS[a].private else 0.0)]["losses"][:, -1]


@claim(
    "pagan.figure1",
    kind="experiment",
    tests=10,
    statement="""On abs_regression (n = 5000, d = 100, σ_j = j^{-3/2}, τ = 0.01, b = 70) with ε ∈ {0.1, 1, 4},
    each method at its best stepsize from {0.005, …, 1.0}: PAGAN with the optimal diagonal A_k reaches a lower
    loss than PAGAN and PASAN with A_k = I at every ε; as ε grows it approaches non-private AdaGrad (its gap to
    AdaGrad shrinks from ε = 0.1 to 1 to 4, and at ε = 4 it is closer to AdaGrad than to SGD); and PAGAN with
    A_k = I behaves like SGD rather than AdaGrad at ε = 4.""",
    theory=(tp.noise_multiplier,),
    notes="Loss f(x_T) of the last iterate; each of the 10 orderings is decided by verify.decide.better on the "
    "mean final losses of independent runs (Welch t): holds when the upper 95% bound of the difference is below 0, "
    "violated when its family-corrected lower bound exceeds the margin 0.01 (1% of f(0) ≈ 0.9, fixed before the "
    "data), a near-tie otherwise. 'Closer to AdaGrad than to SGD' is 'below the midpoint of their means' (AdaGrad "
    "below SGD, as in the paper's figure; both means are reported). Stepsizes are chosen on separate tuning runs "
    "(fresh seeds), then the final runs are fresh. The paper "
    "fixes the shape C_jj = σ_j^(-4/3) but not the radius B of the optimal ellipsoid for this experiment: we take the "
    "B that clips the same fraction of a public sample as the unit ball used with A = I. δ = 1e-5 (not stated in "
    "the paper). The shape C_jj = σ_j^(-4/3) is the kernel's (kernels.pagan.optimal_ellipsoid; a test checks it "
    "against theory.pagan.pagan_optimal_C), so that closed form is not declared here: the check never evaluates it. "
    "T (not stated) is 1000 at the full budget. Non-private methods do not depend on ε and are run once. "
    "The noise is the paper's calibration √(log(1/δ))/ε whatever T is; the accountant ε of the runs (sampling "
    "with replacement, T steps) is reported beside the nominal ε. An 11th, exact decision "
    "(fig1_mechanism_decision, no runs) checks that the private runs are the stated ε's mechanism: each private "
    "method's configuration projects its records and draws whitened noise whose multiplier equals "
    "theory.pagan.noise_multiplier at (ε, δ) in every coordinate, to 1e-9 relative; and that every method's "
    "configuration (private or not) keeps the stepsize it is given, so the runs' α is the one selected from the "
    "stated grid (violated otherwise: not the stated experiment).",
)
def figure1(budget: str, seed: int) -> Outcome:
    r = figure1_runs(budget, seed)
    res, best, steps, runs = r["res"], r["best"], r["steps"], r["runs"]

    def final(a, e):
        return _fig1_final(res, a, e)

    figures: dict[str, float] = {}
    decisions: list = []

    def better(name: str, a, b):
        d = decide.better(np.asarray(a, dtype=float), np.asarray(b, dtype=float), what=name, margin=FIG1_MARGIN)
        decisions.append(d)
        return d

    for e in FIG1_EPSILONS:
        figures[f"median_pagan_opt_eps{e:g}"] = float(np.median(final("pagan_opt", e)))
        figures[f"mean_pagan_opt_eps{e:g}"] = float(np.mean(final("pagan_opt", e)))
        for other in ("pagan", "pasan"):
            d = better(f"ε={e:g}: PAGAN-opt < {other}(A=I)", final("pagan_opt", e), final(other, e))
            figures[f"diff_pagan_opt_minus_{other}_eps{e:g}"] = d.estimate
            figures[f"diff_pagan_opt_minus_{other}_eps{e:g}_hi"] = d.holds_bound
    ag = final("adagrad", None)
    sg = final("sgd", None)
    figures["median_adagrad"] = float(np.median(ag))
    figures["median_sgd"] = float(np.median(sg))
    figures["mean_adagrad"] = float(np.mean(ag))
    figures["mean_sgd"] = float(np.mean(sg))
    for e0, e1 in zip(FIG1_EPSILONS[:-1], FIG1_EPSILONS[1:]):
        # (mean p0 − mean g) − (mean p1 − mean g) > 0  ⇔  mean p1 < mean p0: AdaGrad's mean cancels
        d = better(f"gap to AdaGrad shrinks ε={e0:g}→{e1:g}", final("pagan_opt", e1), final("pagan_opt", e0))
        figures[f"gap_shrink_eps{e0:g}_to_{e1:g}"] = -d.estimate
    e_top = FIG1_EPSILONS[-1]
    # With AdaGrad below SGD (the paper's picture; both means are reported), "closer to AdaGrad than to
    # SGD" is "below the midpoint (AdaGrad + SGD)/2"; the paired half-sums of independent runs are i.i.d.
    # draws with that mean.
    mid = (np.asarray(ag, dtype=float) + np.asarray(sg, dtype=float)) / 2.0
    d = better(f"ε={e_top:g}: PAGAN-opt closer to AdaGrad than to SGD", final("pagan_opt", e_top), mid)
    figures["pagan_opt_minus_midpoint_eps4"] = d.estimate
    d = better(f"ε={e_top:g}: PAGAN(A=I) closer to SGD than to AdaGrad", mid, final("pagan", e_top))
    figures["midpoint_minus_pagan_I_eps4"] = d.estimate

    # the private runs are the paper's ε-mechanism: projection on, noise multiplier √(log(1/δ))/ε (exact)
    d, zs = fig1_mechanism_decision(seed, steps, FIG1_ALGORITHMS, FIG1_EPSILONS)
    decisions.append(d)
    figures.update(zs)

    # accountant ε of the mechanism actually run (with-replacement sampling, T steps)
    for e in FIG1_EPSILONS:
        z = float(numeric(tp.noise_multiplier())(epsilon=e, delta=FIG1_DELTA))
        try:  # reported only: a multiplier too small for the PLD grid (ε of hundreds) is recorded as NaN
            figures[f"accountant_epsilon_eps{e:g}"] = float(
                with_replacement_epsilon(5000, FIG1_BATCH, z, steps, FIG1_DELTA))
        except dpvalidate.InvalidParameter:
            figures[f"accountant_epsilon_eps{e:g}"] = math.nan

    for (a, e), (alpha, _) in best.items():
        figures[f"stepsize_{a}" + (f"_eps{e:g}" if kernels.SPECS[a].private else "")] = alpha

    acct = [(e, figures[f"accountant_epsilon_eps{e:g}"]) for e in FIG1_EPSILONS
            if f"accountant_epsilon_eps{e:g}" in figures]
    verdict = decide.combine(decisions)
    order = sorted(decisions, key=lambda d: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d.verdict)])
    n_holds = sum(str(d.verdict) == "holds" for d in decisions)
    evidence = (f"{n_holds}/{len(decisions)} orderings hold ({runs} runs, T={steps}, mean final loss, margin "
                f"{FIG1_MARGIN:g}); " + "; ".join(d.phrase() for d in order if str(d.verdict) != "holds")
                + ("; accountant ε of the runs (with replacement, T steps, δ=1e-5): "
                   + ", ".join(f"{e:g}→{a:.3g}" for e, a in acct) if acct else ""))
    counter = None
    if verdict == "violated":
        counter = {d.reason: str(d.verdict) for d in decisions if str(d.verdict) == "violated"}
        counter.update(dict(n=5000, d=100, batch_size=FIG1_BATCH, steps=steps, runs=runs, delta=FIG1_DELTA))

    panels = []
    for e in FIG1_EPSILONS:
        series = []
        for a in FIG1_ALGORITHMS:
            o = res[(a, e if kernels.SPECS[a].private else 0.0)]
            m, lo, hi = stats.median_bands(o["losses"])
            series.append(Series(FIG1_LABELS[a], o["steps"], m, lo, hi))
        panels.append(Panel(f"ε = {e:g}", "iteration", "loss f(x_k) (median, 95% CI)", series, yscale="log"))
    fig = Figure("figure1", f"pagan Figure 1 — abs_regression, {runs} runs per curve", panels)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Lemma 3.1: the privacy promise
# ======================================================================================
# Grids of (n, b, delta, epsilon).  Points with n/b above _MAX_N_OVER_B are not evaluated:
# there T = c n^2/b^2 runs to 1e7 and more steps of a per-step privacy loss of order b/n,
# and dp-accounting's PLD (the only accountant for sampling with replacement) then needs a
# grid so fine that its FFT self-composition becomes slow and numerically unreliable.
LEMMA31_GRIDS = {
    "quick": dict(n=(5000,), b=(70, 250), delta=(1e-5,), epsilon=(0.1, 1.0, 4.0)),
    "full": dict(n=(1000, 5000, 100000), b=(1, 10, 70, 250), delta=(1e-5, 1e-8),
                 epsilon=(0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0)),
}
_MAX_N_OVER_B = 1500
_T_REL_TOL = 0.01  # bisection stops when the first failing T is within 1% of the last passing T
_PAPER_POINT = dict(n=5000, b=70, delta=1e-5, epsilon=1.0)  # pagan §6.1


def lemma31_steps(c: float, n: int, b: int) -> int:
    """T = max(1, floor(c n²/b²)) (Lemma 3.1's T; the 1e-12 guards the floor against rounding).

    Parameters
    ----------
    c : float
        Lemma 3.1's constant c.
    n : int
        Records.
    b : int
        The batch size.

    Returns
    -------
    int
        T.
    """
    return max(1, math.floor(float(numeric(tp.lemma3_1_steps())(b=b, c=c, n=n)) * (1 + 1e-12)))


def lemma31_c_of_steps(steps: int, n: int, b: int) -> float:
    """The c at which Lemma 3.1's step count (theory.pagan.lemma3_1_steps) equals ``steps``.

    Solved from the declared closed form, not from a hand-written c = T b²/n², so that the uniformity
    test of :func:`lemma3_1` tests the lemma's own scaling in n/b.

    Parameters
    ----------
    steps : int
        A step count T >= 1.
    n, b : int
        Records and batch size.

    Returns
    -------
    float
        The positive root c of lemma3_1_steps(c, n, b) = T.

    Raises
    ------
    ValueError
        When the closed form has no positive real root for ``steps``.
    """
    expr = tp.lemma3_1_steps().subs({tp.n: n, tp.b: b})
    roots = [complex(r) for r in sp.solve(sp.Eq(expr, int(steps)), tp.c)]
    real = [r.real for r in roots if abs(r.imag) <= 1e-12 * max(1.0, abs(r.real)) and r.real > 0]
    if not real:
        raise ValueError(f"lemma3_1_steps has no positive root c for T = {steps}, n = {n}, b = {b}")
    return float(min(real))


def _pld_grid(epsilon: float, sampling_rate: float, sigma: float) -> float:
    """PLD discretisation for this check: fine against the target ε and the per-step loss.

    A step's privacy loss is of order q·sqrt(e^{1/σ²} − 1); a grid much coarser than that
    makes dp-accounting's (pessimistic) PLD loose after many steps, so the grid is a tenth
    of it, and at most 1e-3·ε.
    """
    return float(min(1e-3 * epsilon, sampling_rate * math.sqrt(math.expm1(1.0 / sigma**2)) / 10.0))


def lemma31_c_star(n: int, b: int, delta: float, epsilon: float) -> dict:
    """Largest c (to 1% in T) for which the accountant certifies (ε, δ) after T = c n²/b² steps.

    c* = T*·b²/n² with T* the largest step count found certified; ``c_fail`` is the c of the
    smallest step count found not certified (c* ≤ c_true < c_fail up to the PLD grid).
    c* = 0 when even one step is not (ε, δ)-DP.

    Parameters
    ----------
    n : int
        Records.
    b : int
        The batch size.
    delta, epsilon : float
        The (ε, δ) the noise multiplier is set for and the accountant is asked about.

    Returns
    -------
    dict
        ``t_star``, ``t_fail``, ``c_star``, ``c_fail``, ``eps_at_t_star``, ``sigma`` (the multiplier), ``vdi`` (the
        PLD grid) and ``evaluations`` (accountant calls).
    """
    sigma = float(numeric(tp.noise_multiplier())(delta=delta, epsilon=epsilon))
    vdi = _pld_grid(epsilon, b / n, sigma)
    mech = Mechanism("with_replacement", sigma, 1, n=n, batch_size=b)
    calls = [0]

    def ok(steps: int) -> bool:
        calls[0] += 1
        return mech.with_steps(steps).is_private(epsilon, delta, "pld", vdi)

    if not ok(1):
        return dict(t_star=0, t_fail=1, c_star=0.0, c_fail=lemma31_c_of_steps(1, n, b), eps_at_t_star=float("nan"),
                    sigma=sigma, vdi=vdi, evaluations=calls[0])
    lo, hi = 1, None
    guess = lemma31_steps(0.5, n, b)
    if guess > 1:
        if ok(guess):
            lo = guess
        else:
            hi = guess
    while hi is None:  # grow until a failing T is found
        trial = 2 * lo
        if ok(trial):
            lo = trial
        else:
            hi = trial
    while hi - lo > 1 and hi > lo * (1 + _T_REL_TOL):
        mid = int(round(math.sqrt(lo * hi)))
        mid = min(max(mid, lo + 1), hi - 1)
        if ok(mid):
            lo = mid
        else:
            hi = mid
    eps_star = mech.with_steps(lo).epsilon(delta, "pld", vdi)
    return dict(t_star=lo, t_fail=hi, c_star=lemma31_c_of_steps(lo, n, b), c_fail=lemma31_c_of_steps(hi, n, b),
                eps_at_t_star=eps_star,
                sigma=sigma, vdi=vdi, evaluations=calls[0] + 1)


# Extra points for the uniformity of c in n/b (the falsifiable part of the lemma): with the grid they
# span at least a decade of n/b at the smallest ε.
LEMMA31_UNIFORM = ({"n": 1000, "b": 5, "delta": 1e-5, "epsilon": 0.1},
                   {"n": 1000, "b": 5, "delta": 1e-5, "epsilon": 1.0})
LEMMA31_SLOPE_MARGIN = 0.1  # c* may not decay faster than (n/b)^-0.1 over a decade (the rate claims' margin)


def lemma31_uniformity(points: list[dict], c_star, levels) -> tuple[list[dict], list[dict]]:
    """Per (ε, δ) with ε in ``levels``: the least-squares log-log slope of c* against n/b and the decades of n/b
    it spans; and the series that decay faster than LEMMA31_SLOPE_MARGIN over ≥ 1 decade (exact values).

    Parameters
    ----------
    points : list of dict
        The grid points, each with ``n``, ``b``, ``delta`` and ``epsilon``.
    c_star : array_like
        c* per point (points with c* = 0 are left out of the fits).
    levels : iterable of float
        The ε values fitted.

    Returns
    -------
    series_fit : list of dict
        Per (ε, δ) series with two or more distinct n/b: ``epsilon``, ``delta``, ``slope``, ``span`` (decades),
        ``nb_min`` and ``nb_max``.
    decays : list of dict
        The entries of ``series_fit`` that decay too fast over at least a decade.
    """
    c_star = np.asarray(c_star, dtype=float)
    eps = np.array([p["epsilon"] for p in points])
    nb = np.array([p["n"] / p["b"] for p in points], dtype=float)
    dl = np.array([p["delta"] for p in points])
    series_fit = []
    for e in levels:
        for de in sorted(set(dl[eps == e].tolist())):
            sel = (eps == e) & (dl == de) & (c_star > 0)
            xs = nb[sel]
            if len(set(xs.tolist())) < 2:
                continue
            slope = float(np.polyfit(np.log(xs), np.log(c_star[sel]), 1)[0])
            series_fit.append(dict(epsilon=e, delta=de, slope=slope, span=float(np.log10(xs.max() / xs.min())),
                                   nb_min=float(xs.min()), nb_max=float(xs.max())))
    decays = [f for f in series_fit if f["slope"] < -LEMMA31_SLOPE_MARGIN and f["span"] >= 1.0 - 1e-12]
    return series_fit, decays


def lemma31_small_epsilon(points: list[dict], c_star) -> tuple[list[dict], list[dict]]:
    """How c* moves as ε → 0: per (n, b, δ), the log-log slope of c* against ε over ε ∈ [ε_min, 10 ε_min].

    The lemma needs one c > 0 for every ε ≤ ε̄, so c* may not vanish as ε → 0.  A series that spans a decade of
    ε and whose c* shrinks with ε faster than ε^LEMMA31_SLOPE_MARGIN is evidence that it does.

    Parameters
    ----------
    points : list of dict
        The evaluated grid points (n, b, delta, epsilon).
    c_star : array_like
        c* per point (0 where one step already exceeds ε).

    Returns
    -------
    series : list of dict
        Per (n, b, δ) with two or more ε in the window: its slope and the span of ε in decades.
    shrinking : list of dict
        The series that span a decade and shrink faster than the margin.
    """
    c_star = np.asarray(c_star, dtype=float)
    eps_min = min(p["epsilon"] for p in points)
    groups: dict[tuple, list[tuple[float, float]]] = {}
    for p, cs in zip(points, c_star):
        if p["epsilon"] <= 10 * eps_min * (1 + 1e-12):
            groups.setdefault((p["n"], p["b"], p["delta"]), []).append((p["epsilon"], float(cs)))
    series = []
    for (n, b, delta), pts in sorted(groups.items()):
        es = np.array([e for e, _ in pts])
        cs = np.array([c for _, c in pts])
        if len(set(es.tolist())) < 2 or np.any(cs <= 0):
            continue
        slope = float(np.polyfit(np.log(es), np.log(cs), 1)[0])
        series.append(dict(n=n, b=b, delta=delta, slope=slope, span=float(np.log10(es.max() / es.min())),
                           eps_min=float(es.min()), eps_max=float(es.max())))
    shrinking = [f for f in series if f["slope"] > LEMMA31_SLOPE_MARGIN and f["span"] >= 1.0 - 1e-12]
    return series, shrinking


def _lemma31_points(budget: str) -> tuple[list[dict], list[dict]]:
    g = LEMMA31_GRIDS[budget]
    evaluated, skipped = [], []
    for extra in LEMMA31_UNIFORM:
        evaluated.append(dict(extra))
    for n in g["n"]:
        for b in g["b"]:
            for delta in g["delta"]:
                for eps in g["epsilon"]:
                    point = dict(n=n, b=b, delta=delta, epsilon=eps)
                    (evaluated if n / b <= _MAX_N_OVER_B else skipped).append(point)
    return evaluated, skipped


@claim(
    "pagan.lemma3.1",
    kind="privacy",
    statement=(
        "There are constants c > 0 and ε̄ > 0 such that for every ε ≤ ε̄, T = c·n²/b² steps of "
        "Algorithm 1 or 2 (batches of b records drawn with replacement, Gaussian noise with "
        "multiplier √(log(1/δ))/ε) are (ε, δ)-differentially private."
    ),
    theory=(tp.lemma3_1_steps, tp.noise_multiplier),
    notes=(
        "The paper gives no values for c and ε̄; the check finds them. Per grid point the largest "
        "certified c*(n,b,δ,ε) is found by bisection on T = max(1, floor(c n²/b²)) (to 1%), with "
        "dp-accounting's PLD accountant on the exact with-replacement mechanism: zero-out adjacency, "
        "each step N(0,σ²) against Σ_k P(K=k) N(k,σ²), K ~ Binomial(b, 1/n) (verify.privacy). "
        "c_max(ε̄) = min of c* over grid points with ε ≤ ε̄. The falsifiable part is that c does not depend "
        "on n/b: per (ε, δ) with a c, the least-squares log-log slope of c* against n/b (exact accountant values) "
        "must not fall below −0.1 (margin fixed before the data, as the rate claims') over ≥ 1 decade of n/b; the "
        "points n = 1000, b = 5 (ε = 0.1, 1) extend the quick grid to a decade. Verdict (exact, no statistical "
        "test): violated when one step already exceeds ε at the smallest ε (no c at all) or c* decays in n/b over "
        "a decade; holds when the smallest ε's series spans a decade and none decays; else inconclusive. ε values at "
        "which no c works (one step alone exceeds ε) are listed. Grid points "
        "with n/b > 1500 (full: n=5000,b=1; n=100000,b∈{1,10}) are not evaluated: they need 1e7+ "
        "steps of a per-step loss ~b/n, beyond what dp-accounting's PLD resolves reliably; for "
        "b/n → 0 c* depends on (ε, δ) only (T·(b/n)² = c), which the evaluated points show. The quick "
        "grid uses b ∈ {70, 250} instead of b ∈ {1, 70} for the same reason and to stay within seconds. "
        "Quick and full agree on the verdict but not on ε̄: the quick grid has no n = 1000 point, so it "
        "finds a c up to ε̄ = 4, while at full budget one step with b/n = 1/4 already exceeds ε ≥ 2 "
        "(no c works there) and ε̄ = 1. The lemma needs one c for every ε ≤ ε̄, so c* may not vanish as ε → 0 "
        "either: per (n, b, δ), the log-log slope of c* in ε over [ε_min, 10 ε_min] must not exceed +0.1 (the same "
        "margin) over a decade of ε, else violated. c* is solved from the declared T = c n²/b² "
        "(theory.pagan.lemma3_1_steps), so a wrong exponent there moves c* with n/b. Equivalent mutants: a constant "
        "factor on T or on the noise multiplier is absorbed by the unspecified c; T^0.75 (fewer steps) and a noise "
        "multiplier^1.25 (more noise for ε < √log(1/δ)) only weaken the promise."
    ),
)
def lemma3_1(budget: str, seed: int) -> Outcome:
    points, skipped = _lemma31_points(budget)
    rows = sweep(lemma31_c_star, points, "pagan.lemma3.1 c*")
    c_star = np.array([float(r["c_star"]) for r in rows])
    eps = np.array([p["epsilon"] for p in points])
    levels = sorted(set(eps.tolist()))
    c_max = {e: float(c_star[eps <= e].min()) for e in levels}
    no_c = [e for e in levels if np.any(c_star[eps == e] <= 0)]
    working = [e for e in levels if c_max[e] > 0]

    figures: dict[str, float] = {f"c_max_eps<={e:g}": c_max[e] for e in levels}
    figures.update({f"c_star_min_eps={e:g}": float(c_star[eps == e].min()) for e in levels})
    figures["points_evaluated"] = float(len(points))
    figures["points_not_evaluated"] = float(len(skipped))
    counterexample = None
    # uniformity of c in n/b: per (ε, δ) with every c* > 0, the log-log slope of c* against n/b (exact values)
    series_fit, decays = lemma31_uniformity(points, c_star, working)
    smallest = [f for f in series_fit if f["epsilon"] == levels[0]]
    uniform_tested = any(f["span"] >= 1.0 - 1e-12 for f in smallest)
    for f in series_fit:
        figures[f"c_slope_in_n_over_b_eps{f['epsilon']:g}_delta{f['delta']:g}"] = f["slope"]
    eps_series, shrinking = lemma31_small_epsilon(points, c_star)
    for f in eps_series:
        figures[f"c_slope_in_eps_n{f['n']}_b{f['b']}_delta{f['delta']:g}"] = f["slope"]
    eps_tested = any(f["span"] >= 1.0 - 1e-12 for f in eps_series)
    if working and shrinking:
        verdict = "violated"
        f = max(shrinking, key=lambda f: f["slope"])
        counterexample = dict(f, reason="c*(ε) shrinks as ε → 0: no c > 0 works for every ε ≤ ε̄")
        figures["eps_bar"] = float(max(working))
    elif working and decays:
        verdict = "violated"
        f = min(decays, key=lambda f: f["slope"])
        counterexample = dict(f, reason="c*(n, b) decays in n/b: no c uniform in n/b")
        eps_bar = max(working)
        figures["eps_bar"] = float(eps_bar)
    elif working:
        eps_bar = max(working)
        verdict = "holds" if uniform_tested and eps_tested else "inconclusive"
        figures["eps_bar"] = float(eps_bar)
        figures["c_at_eps_bar"] = c_max[eps_bar]
        figures["c_at_smallest_eps"] = c_max[levels[0]]
    else:
        verdict = "violated"
        first = min((i for i in range(len(points)) if eps[i] == levels[0] and c_star[i] <= 0),
                    key=lambda i: (points[i]["n"], points[i]["b"], -points[i]["delta"]))
        counterexample = dict(points[first], steps=1, epsilon_accountant_one_step_exceeds=True)

    # the paper's experiment point with the constant found for eps <= 1
    pp = _PAPER_POINT
    c_pp = c_max.get(1.0, c_max[levels[0]])
    if c_pp > 0:
        t_pp = lemma31_steps(c_pp, pp["n"], pp["b"])
        sigma_pp = float(numeric(tp.noise_multiplier())(delta=pp["delta"], epsilon=pp["epsilon"]))
        mech = Mechanism("with_replacement", sigma_pp, t_pp, n=pp["n"], batch_size=pp["b"])
        figures["paper_point_T"] = float(t_pp)
        figures["paper_point_eps_accountant"] = mech.epsilon(
            pp["delta"], "pld", _pld_grid(pp["epsilon"], pp["b"] / pp["n"], sigma_pp))

    series = []
    keys = sorted({(p["n"], p["b"], p["delta"]) for p in points})
    for n, b, d in keys:
        idx = [i for i, p in enumerate(points) if (p["n"], p["b"], p["delta"]) == (n, b, d)]
        idx.sort(key=lambda i: eps[i])
        series.append(Series(f"n={n}, b={b}, δ={d:g}", eps[idx], c_star[idx], style="line"))
    series.append(Series("c_max(ε̄)", levels, [c_max[e] for e in levels], style="step"))
    plot = Figure("pagan_lemma3_1", "pagan Lemma 3.1: largest c with T = c n²/b² steps (ε, δ)-DP",
                  [Panel("c*(ε) by accountant (PLD, sampling with replacement)", "ε", "c*", series,
                         xscale="log", yscale="log")])

    cmax_txt = ", ".join(f"ε̄={e:g}: {c_max[e]:.3g}" for e in levels)
    unif_txt = "; ".join(f"ε={f['epsilon']:g}, δ={f['delta']:g}: slope of c* in n/b {f['slope']:+.3g} over n/b "
                         f"{f['nb_min']:.3g}..{f['nb_max']:.3g}" for f in series_fit)
    small_txt = "; ".join(f"n={f['n']}, b={f['b']}, δ={f['delta']:g}: slope of c* in ε {f['slope']:+.3g} over ε "
                          f"{f['eps_min']:g}..{f['eps_max']:g}" for f in eps_series) or "no series spans two ε"
    head = ("violated (exact accountant): c* shrinks as ε → 0 faster than ε^margin: " if shrinking and working else
            "violated (exact accountant): c* decays in n/b faster than the margin: " if decays and working else
            "inconclusive: the smallest ε's series spans < 1 decade of n/b or no series spans a decade of ε; "
            if verdict == "inconclusive" else
            f"holds (exact accountant): c uniform in n/b and not shrinking as ε → 0, within slope margin "
            f"{LEMMA31_SLOPE_MARGIN:g}: ")
    evidence = (head + unif_txt + "; as ε → 0: " + small_txt
                + "; " +
        f"{len(points)} grid points ({len(skipped)} with n/b>{_MAX_N_OVER_B} not evaluated); "
        f"c_max(ε̄) = {cmax_txt}; "
        + (f"on this grid c = {c_max[max(working)]:.3g} works for ε ≤ ε̄ = {max(working):g}" if working
           else "violated: one step already exceeds ε at the smallest ε")
        + (f"; no c works at ε ∈ {{{', '.join(f'{e:g}' for e in no_c)}}} (one step exceeds ε)" if no_c else "")
        + (f"; paper point n=5000,b=70,ε=1: T={int(figures['paper_point_T'])} gives accountant "
           f"ε={figures['paper_point_eps_accountant']:.3f}" if "paper_point_T" in figures else "")
    )
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counterexample, plots=[plot])


_L31_ABSORBED = "the constant c of the lemma is unspecified, so a constant factor here is absorbed by another c"
for _m in ("lemma3_1_steps:x10", "lemma3_1_steps:x0.1", "noise_multiplier:x10", "noise_multiplier:x0.1"):
    declare_equivalent("pagan.lemma3.1", _m, _L31_ABSORBED)
declare_equivalent("pagan.lemma3.1", "lemma3_1_steps:pow0.75", "T = (c n²/b²)^0.75 = c' (n/b)^1.5 steps with c' ≤ c "
                   "are at most the lemma's T for every n/b ≥ 1, so the mutated promise is implied by the lemma")
declare_equivalent("pagan.lemma3.1", "noise_multiplier:pow1.25", "σ^1.25 ≥ σ whenever σ ≥ 1, i.e. for every ε ≤ "
                   "√log(1/δ): more noise for all ε below an ε̄ the lemma leaves free only strengthens privacy")


# ======================================================================================
# Example 1 and Lemma 3.2: moments of G(z; C) = ‖z‖_C for the linear sub-Gaussian model
# ======================================================================================
EX1_PROFILES = {"j^-1.5": 1.5, "j^-0.5": 0.5, "flat": 0.0}
EX1_GEOMETRIES = ("identity", "pagan", "pasan")
EX1_SLOPE_MARGIN = 0.1  # as decide.SLOPE_MARGIN: growth slower than p^0.1 over a decade counts as bounded


def _geometry(sigma: np.ndarray, name: str) -> np.ndarray:
    """The diagonal C: identity, §3.2's PAGAN choice σ^(-4/3), or PASAN's σ^(-1)."""
    if name == "identity":
        return np.ones_like(sigma)
    expr = tp.pagan_optimal_C() if name == "pagan" else tp.pasan_optimal_C()
    return np.asarray(numeric(expr)(sigma_j=sigma), dtype=float)


def gaussian_norm_moments(w: np.ndarray, kmax: int) -> np.ndarray:
    """E[(Q/W)^k], k = 1..kmax, for Q = Σ w_j N_j² and W = Σ w_j (theory.pagan.gaussian_norm_moment).

    Parameters
    ----------
    w : numpy.ndarray
        The positive weights w_j.
    kmax : int
        The highest moment.

    Returns
    -------
    numpy.ndarray
        The kmax moments.
    """
    wn = np.asarray(w, dtype=float) / float(np.sum(w))
    sums = {f"P_{r}": float(np.sum(wn**r)) for r in range(1, kmax + 1)}
    out = []
    for k in range(1, kmax + 1):
        f = numeric(tp.gaussian_norm_moment(k))
        out.append(float(f(**{name: sums[name] for name in f.names})))
    return np.array(out)


def _last_decade_slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares log-log slope of y over the last decade of x (x ≥ max x / 10); and the decades it spans."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = x >= x.max() / 10.0
    span = float(np.log10(x[keep].max() / x[keep].min())) if keep.sum() >= 2 else 0.0
    if keep.sum() < 2:
        return float("nan"), span
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0]), span


class Example1Grid(NamedTuple):
    """Example 1's grid: the dimensions d and the largest k of the even moments p = 2, 4, …, 2k."""

    dims: tuple[int, ...]
    kmax: int


EXAMPLE1_BUDGETS = Budgets(quick=Example1Grid(dims=(10, 100), kmax=10),
                           full=Example1Grid(dims=(10, 100, 1000, 10000), kmax=20))
#: pagan.example1: the σ-profiles are also scaled by t (uniformity in the profile covers its scale: both G_p and
#: √p·√(Σ C_jj σ_j²) are homogeneous in σ, so the ratio must not trend with t over these two decades)
EX1_SCALES = (0.1, 1.0, 10.0)
#: relative rounding bound of the exact moments (flat profile, C = I: E[(Q/W)^k] = Π_{i<k} (d + 2i)/d, χ²_d)
EX1_MOMENT_RTOL = 1e-12


def _ex1_chi2_moments(d: int, kmax: int) -> np.ndarray:
    """E[(χ²_d/d)^k], k = 1..kmax, exactly: Π_{i<k} (d + 2i)/d (the raw moments of a χ²_d over d)."""
    return np.cumprod([(d + 2.0 * i) / d for i in range(kmax)])


def _ex1_scale_rows(dims, kmax: int, f_bound) -> list[dict]:
    """Per (profile, C, d = dims[0]): the log-log slope in t of max_p G_p/example1_bound(µ = 0, K = 1) for the
    profile t·σ (t in EX1_SCALES); exact values, so a slope beyond the margin is a trend, not noise."""
    ps = 2 * np.arange(1, kmax + 1)
    out = []
    for pname, decay in EX1_PROFILES.items():
        for geo in EX1_GEOMETRIES:
            ratios = []
            for t in EX1_SCALES:
                sigma = t * np.arange(1, dims[0] + 1, dtype=float) ** -decay
                w = _geometry(sigma, geo) * sigma**2
                gp = np.sqrt(w.sum()) * gaussian_norm_moments(w, kmax) ** (1.0 / ps)
                bound = np.array([float(f_bound(**{k: v for k, v in dict(mu=0.0, K=1.0, p=float(pp), W=float(w.sum()))
                                                   .items() if k in f_bound.names})) for pp in ps])
                ratios.append(float(np.max(gp / bound)))
            slope = float(np.polyfit(np.log(EX1_SCALES), np.log(ratios), 1)[0])
            out.append(dict(profile=pname, C=geo, d=dims[0], scale_slope=slope,
                            span=float(np.log10(max(EX1_SCALES) / min(EX1_SCALES)))))
    return out


@claim(
    "pagan.example1",
    kind="rate",
    statement="""Example 1, eq. (3): for F(x; Z) = g(x) + ⟨x, Z⟩ with independent σ_j-sub-Gaussian Z_j and
    ‖∇g‖_C ≤ µ, G_p(C) ≤ µ + O(1)·√p·√(Σ_j C_jj σ_j²): the ratio G_p(C)/(√p·√(Σ C_jj σ_j²)) (µ = 0) stays
    bounded uniformly in p, d, the σ-profile and the diagonal C.""",
    theory=(tp.example1_bound, tp.gaussian_norm_moment),
    notes="Gaussian Z_j ~ N(0, σ_j²) (the sub-Gaussian case with the heaviest tails among σ_j-sub-Gaussians "
    "used here; Rademacher·σ_j gives G_p = √W exactly). G_p is computed exactly for even p from the cumulants of "
    "the weighted χ² ‖Z‖_C², so no Monte-Carlo error enters (an exact check, no statistical test). The ratio is "
    "G_p over theory.pagan.example1_bound at µ = 0, K = 1. Boundedness (an asymptotic statement decided on exact "
    "values): the least-squares log-log slope of the ratio over the last decade of p (p ≥ p_max/10), and of the "
    "largest ratio over the last decade of d, must be at most 0.1 (the slope margin of the rate claims, fixed "
    "before the data): violated when a slope exceeds it over a full decade, inconclusive when a window spans less "
    "than a decade. Uniformity in the σ-profile includes its scale: at d = the smallest d, each profile is also "
    "scaled by t ∈ {0.1, 1, 10}; G_p and √p·√W are both homogeneous of degree 1 in σ, so the largest ratio over p "
    "must not trend with t (|log-log slope| ≤ 0.1 over the two decades; violated otherwise, growth as t shrinks "
    "being as unbounded as growth as t grows). The exact moments are checked against an independent closed form: "
    "flat σ with C = I makes ‖Z‖² a χ²_d, E[(Q/W)^k] = Π_{i<k}(d + 2i)/d, matched to a relative 1e-12 at every d "
    "and k (violated otherwise). The fitted O(1) constant is the largest ratio.",
)
def example1(budget: str, seed: int) -> Outcome:
    dims, kmax = EXAMPLE1_BUDGETS.at(budget)
    ps = 2 * np.arange(1, kmax + 1)
    f_bound = numeric(tp.example1_bound())  # µ + K √p √W, evaluated at µ = 0, K = 1
    rows, panels_series = [], []
    for pname, decay in EX1_PROFILES.items():
        for geo in EX1_GEOMETRIES:
            for d in dims:
                sigma = np.arange(1, d + 1, dtype=float) ** -decay
                w = _geometry(sigma, geo) * sigma**2
                gp = np.sqrt(w.sum()) * gaussian_norm_moments(w, kmax) ** (1.0 / ps)
                bound = np.array([float(f_bound(**{k: v for k, v in dict(mu=0.0, K=1.0, p=float(pp), W=float(w.sum()))
                                                   .items() if k in f_bound.names})) for pp in ps])
                ratio = gp / bound
                slope, span = _last_decade_slope(ps, ratio)
                rows.append(dict(profile=pname, C=geo, d=d, slope=slope, span=span, max_ratio=float(ratio.max()),
                                 ratio=ratio))
                if d == dims[-1]:
                    panels_series.append(Series(f"σ {pname}, C {geo}", ps, ratio))
    K_hat = max(r["max_ratio"] for r in rows)
    # uniformly in d: for each (profile, C), the largest ratio over p against d
    d_rows = []
    for pname in EX1_PROFILES:
        for geo in EX1_GEOMETRIES:
            series = [r for r in rows if r["profile"] == pname and r["C"] == geo]
            slope, span = _last_decade_slope([r["d"] for r in series], [r["max_ratio"] for r in series])
            d_rows.append(dict(profile=pname, C=geo, slope=slope, span=span))
    worst = max(rows, key=lambda r: r["slope"])
    worst_d = max(d_rows, key=lambda r: r["slope"])
    grow_p = [r for r in rows if r["slope"] > EX1_SLOPE_MARGIN and r["span"] >= 1.0 - 1e-12]
    grow_d = [r for r in d_rows if r["slope"] > EX1_SLOPE_MARGIN and r["span"] >= 1.0 - 1e-12]
    # uniformly in the σ-profile, so in its scale t: the ratio may trend neither as t grows nor as it shrinks
    s_rows = _ex1_scale_rows(dims, kmax, f_bound)
    grow_t = [r for r in s_rows if abs(r["scale_slope"]) > EX1_SLOPE_MARGIN]
    worst_t = max(s_rows, key=lambda r: abs(r["scale_slope"]))
    # the exact moments against an independent closed form: flat profile, C = I (‖Z‖² = χ²_d), every d and k
    chi2_err = max(float(np.max(np.abs(gaussian_norm_moments(np.ones(d), kmax) / _ex1_chi2_moments(d, kmax) - 1.0)))
                   for d in dims)
    moments_ok = chi2_err <= EX1_MOMENT_RTOL
    flat = all(r["slope"] <= EX1_SLOPE_MARGIN for r in rows + d_rows)
    spans_ok = all(r["span"] >= 1.0 - 1e-12 for r in rows + d_rows)
    if grow_p or grow_d or grow_t or not moments_ok:
        verdict = "violated"
    elif flat and spans_ok:
        verdict = "holds"
    else:
        verdict = "inconclusive"
    counter = None
    if verdict == "violated":
        if not moments_ok:
            counter = {"chi2_moment_relative_error": chi2_err, "tolerance": EX1_MOMENT_RTOL}
        else:
            bad = (grow_p or grow_d or grow_t)[0]
            counter = {k: bad[k] for k in ("profile", "C", "d", "slope", "scale_slope", "span") if k in bad}
    evidence = (f"G_p(C)/example1_bound(µ=0, K=1) = G_p/(√p√ΣC_jjσ_j²), exact (weighted-χ² moments): last-decade "
                f"log-log slope in p at most {worst['slope']:.3g} (σ {worst['profile']}, C {worst['C']}, "
                f"d={worst['d']}; "
                f"p = {ps[0]}..{ps[-1]}), in d at most {worst_d['slope']:.3g} (σ {worst_d['profile']}, "
                f"C {worst_d['C']}), "
                f"against the margin {EX1_SLOPE_MARGIN:g} over ≥ 1 decade; in the profile's scale t ∈ "
                f"{list(EX1_SCALES)} at most {abs(worst_t['scale_slope']):.3g} in size (σ {worst_t['profile']}, "
                f"C {worst_t['C']}, d={worst_t['d']}); exact moments against χ²_d's (flat σ, C = I): relative "
                f"error {chi2_err:.2g} (≤ {EX1_MOMENT_RTOL:g}); largest ratio (the O(1) constant) "
                f"{K_hat:.3f} over {len(rows)} configurations")
    if verdict == "inconclusive":
        decides = "--budget full decides" if budget == "quick" else "a range beyond the full budget's would decide"
        evidence = f"inconclusive: a slope window spans less than a decade ({decides}); " + evidence
    fig = Figure("example1_ratio", "pagan Example 1: G_p(C) / (√p·√(Σ C_jj σ_j²)), Gaussian Z", [Panel(
        f"d = {dims[-1]}", "moment order p", "ratio (fitted O(1) constant = max)", panels_series,
        xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers={"K_hat": K_hat, "steepest_slope_p": worst["slope"],
                                       "steepest_slope_d": worst_d["slope"], "configurations": len(rows),
                                       "steepest_scale_slope": abs(worst_t["scale_slope"]),
                                       "chi2_moment_relative_error": chi2_err},
                   counterexample=counter, plots=[fig])


def _lemma32_task(n: int, d: int, datasets: int, ps: list, seed: int) -> dict:
    """Ĝ_p(S; C) for ``datasets`` Gaussian datasets S of size n, every C of EX1_GEOMETRIES and p in ps."""
    rng = np.random.default_rng(seed)
    sigma = kernels.pagan_problems.power_law_sigma(d, 1.5)
    Cs = np.stack([_geometry(sigma, g) for g in EX1_GEOMETRIES], axis=1)  # (d, 3)
    out = np.empty((datasets, len(EX1_GEOMETRIES), len(ps)))
    for i in range(datasets):
        Z = rng.standard_normal((n, d)) * sigma
        norms2 = (Z**2) @ Cs  # (n, 3)
        for k, pp in enumerate(ps):
            out[i, :, k] = np.mean(norms2 ** (pp / 2), axis=0) ** (1.0 / pp)
    return {"G_hat": out}


def weighted_chi2_moments_series(w: np.ndarray, kmax: int) -> np.ndarray:
    """E[(Q/W)^k], k = 1..kmax, for Q = Σ w_j N_j², W = Σ w_j, by an independent route: the power series of the
    moment generating function Π_j (1 − 2 w_j t/W)^{-1/2} (each factor Σ_m C(2m, m)(w_j/(2W))^m t^m), so that
    E[(Q/W)^k] = k!·[t^k]; a check of theory.pagan.gaussian_norm_moment in rounding units.

    Parameters
    ----------
    w : numpy.ndarray
        The positive weights w_j.
    kmax : int
        The highest moment (≥ 1).

    Returns
    -------
    numpy.ndarray
        The kmax moments.

    Raises
    ------
    ValueError
        When ``kmax`` < 1.
    """
    if kmax < 1:
        raise ValueError(f"kmax must be at least 1 (got {kmax})")
    wn = np.asarray(w, dtype=float) / float(np.sum(w))
    m = np.arange(kmax + 1)
    binom = np.array([math.comb(2 * int(k), int(k)) for k in m], dtype=float)
    series = np.zeros(kmax + 1)
    series[0] = 1.0
    for wj in wn:
        factor = binom * (wj / 2.0) ** m
        series = np.convolve(series, factor)[: kmax + 1]
    return np.array([math.factorial(k) * series[k] for k in range(1, kmax + 1)])


LEMMA32_MOMENT_RTOL = 1e-9  # the two exact routes agree to ~1e-14 at k ≤ 24; any real error is far larger
# Scales of the distribution, fixed in advance: the lemma holds for every P, so for the law P_s of sZ too, where
# Ĝ_p, G_p and G_2p are s times P's (exactly, by their definitions).  Each cell is tested at one scale, chosen
# from the declared bound alone (never from the data): the s where bound(s·G_p, s·G_2p)/s is smallest, ties to
# s = 1.  For the paper's bound (degree-1 homogeneous) all scales tie, and the test is the s = 1 test as before.
LEMMA32_SCALES = (1e-3, 1.0, 1e3)


def _lemma32_scale(f_bound, gp: float, g2p: float) -> tuple[float, float]:
    """The scale of :data:`LEMMA32_SCALES` where the declared threshold, relative to s, is smallest (ties: s = 1),
    and the threshold there; chosen from the closed form and the exact G_p, G_2p only."""
    def at(sc: float) -> float:
        vals = dict(G_p=sc * gp, G_2p=sc * g2p)
        return float(f_bound(**{k: v for k, v in vals.items() if k in f_bound.names}))

    base = at(1.0)
    best = (1.0, base)
    for sc in LEMMA32_SCALES:
        b = at(sc)
        if b / sc < best[1] / best[0] * (1 - 1e-9):  # a real difference, not rounding
            best = (sc, b)
    return best


#: the orders m of the Markov bounds P(S ≥ n·a) ≤ E[S^m]/(n·a)^m of :func:`lemma32_failure_bound` (fixed in advance)
LEMMA32_MARKOV_ORDERS = 12


def lemma32_failure_bound(moments: np.ndarray, p: int, a: float, n: int, orders: int = LEMMA32_MARKOV_ORDERS
                          ) -> tuple[float, int]:
    """An exact upper bound on P(Ĝ_p(S)^p > a·W^{p/2}) for n i.i.d. points: Y = (Q/W)^{p/2} ≥ 0 with Q = ‖z‖²_C,
    S = Σ_i Y_i, the failure is S > n·a, and Markov on S^m gives E[S^m]/(n·a)^m for every m; the least over
    m = 1..orders. E[S^m] = m!·[x^m](Σ_j E[Y^j] x^j/j!)^n — a power of a series of positive terms, so no
    cancellation: exact up to rounding.

    Parameters
    ----------
    moments : numpy.ndarray
        E[(Q/W)^k], k = 1..K with K ≥ orders·p/2 (e.g. :func:`weighted_chi2_moments_series`).
    p : int
        The even moment order p.
    a : float
        The threshold on the mean of Y (the declared bound over √W, to the p).
    n : int
        The number of points.
    orders : int, optional
        The largest order m (default :data:`LEMMA32_MARKOV_ORDERS`).

    Returns
    -------
    bound : float
        The least of the Markov bounds (1.0 when a ≤ 0: no bound).
    m : int
        The order that attains it (0 when a ≤ 0).

    Raises
    ------
    ValueError
        When p is not a positive even integer, n < 1, or there are fewer than orders·p/2 moments.
    """
    if p < 2 or p % 2 or n < 1 or len(moments) < orders * p // 2:
        raise ValueError(f"need an even p ≥ 2, n ≥ 1 and {orders * p // 2} moments (got p={p}, n={n}, "
                         f"{len(moments)})")
    if not a > 0:
        return 1.0, 0
    base = np.array([1.0] + [moments[j * p // 2 - 1] / math.factorial(j) for j in range(1, orders + 1)])
    poly, e = np.zeros(orders + 1), n
    poly[0] = 1.0
    while e:  # (Σ_j E[Y^j] x^j/j!)^n truncated at x^orders, by squaring
        if e & 1:
            poly = np.convolve(poly, base)[: orders + 1]
        base = np.convolve(base, base)[: orders + 1]
        e >>= 1
    bounds = [math.factorial(m) * poly[m] / (n * a) ** m for m in range(1, orders + 1)]
    m = int(np.argmin(bounds))
    return float(min(1.0, bounds[m])), m + 1


#: the two-point laws of :func:`lemma32_two_point_failure`: the outlier counts j = 1..this at which q is pushed to
#: its breakpoint (fixed in advance; for the paper's bound the worst q is at j = 1)
LEMMA32_TWO_POINT_COUNTS = 3


def lemma32_two_point_failure(f_bound, p: int, n: int, counts: int = LEMMA32_TWO_POINT_COUNTS
                              ) -> tuple[float, dict]:
    """The failure probability of Lemma 3.2's event under two-point laws, exactly (no runs): z = u (a unit vector)
    with probability q, else 0, so ‖z‖_C^p ∈ {0, 1} (C = I), G_p = q^{1/p}, G_2p = q^{1/(2p)}, Ĝ_p(S)^p = K/n with
    K ~ Binomial(n, q), and the failure Ĝ_p > threshold is K > n·c(q), c(q) = (threshold/s)^p with the threshold
    the declared lemma3_2_bound at the scale s of :func:`_lemma32_scale` (the paper's: (q^{1/p} + q^{1/(2p)})^p).
    For j = 1..counts, q is the largest with n·c(q) < j (bisection on q, then 1e-6 relatively below it), where the
    failure is P(K ≥ j); each candidate is evaluated exactly, so any failure above the declared probability is a
    counterexample.

    Parameters
    ----------
    f_bound : callable
        The declared threshold, ``numeric(lemma3_2_bound())``.
    p : int
        The even moment order p.
    n : int
        The number of points.
    counts : int, optional
        The largest outlier count j (default :data:`LEMMA32_TWO_POINT_COUNTS`).

    Returns
    -------
    failure : float
        The largest failure probability over the candidates (0.0 when none fails).
    where : dict
        ``q``, ``j``, ``threshold_count`` (n·c(q)) and ``scale`` at the largest.
    """
    from scipy.stats import binom

    def cn(q: float) -> tuple[float, float]:
        scale, thr = _lemma32_scale(f_bound, q ** (1.0 / p), q ** (1.0 / (2 * p)))
        return n * (thr / scale) ** p, scale

    best, where = 0.0, {}
    for j in range(1, min(counts, n) + 1):
        lo, hi = 0.0, 1.0
        if not cn(hi)[0] >= j:
            break
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if cn(mid)[0] < j else (lo, mid)
        q = lo * (1 - 1e-6)
        if q <= 0.0:
            continue
        thr_n, scale = cn(q)
        fail = float(binom.sf(math.floor(thr_n), n, q))  # P(K > n·c(q)), K an integer
        if fail > best:
            best, where = fail, dict(q=q, j=j, threshold_count=thr_n, scale=scale)
    return best, where


class Lemma32Grid(NamedTuple):
    """pagan.lemma3.2's grid: sample sizes n, dimensions d, datasets drawn per cell."""

    ns: tuple[int, ...]
    dims: tuple[int, ...]
    datasets: int


LEMMA32_BUDGETS = Budgets(quick=Lemma32Grid(ns=(10, 100), dims=(20,), datasets=400),
                          full=Lemma32Grid(ns=(10, 100, 1000), dims=(20, 100), datasets=4000))


@claim(
    "pagan.lemma3.2",
    kind="expectation",
    tests=45,
    statement="""Lemma 3.2: for a dataset S of n points drawn from P, with probability at least 1 − 1/n,
    Ĝ_p(S; C) ≤ G_p(C) + G_2p(C).""",
    theory=(tp.lemma3_2_bound, tp.lemma3_2_probability, tp.gaussian_norm_moment),
    # a larger threshold on Ĝ_p or a larger failure probability only weakens the statement
    weaker_if={"theory.pagan.lemma3_2_bound": "larger", "theory.pagan.lemma3_2_probability": "larger"},
    notes="P: the linear model with Z_j ~ N(0, σ_j²), σ_j = j^(-3/2); G(z; C) = ‖z‖_C; C ∈ {I, σ^(-4/3), σ^(-1)}; "
    "even p (G_p and G_2p exact from the weighted-χ² moments; the threshold is theory.pagan.lemma3_2_bound and the "
    "probability theory.pagan.lemma3_2_probability, evaluated). One decision per (n, d, C, p) cell "
    "(verify.decide.proportion_at_most, exact Clopper–Pearson): holds when the 95% upper bound on the failure "
    "frequency is ≤ 1/n, violated when the family-corrected lower bound is above it; 45 cells at full budget "
    "(12 at quick), declared as 45 tests. Exact (no statistical test): the moments behind G_p and G_2p "
    "(theory.pagan.gaussian_norm_moment) are checked against an independent route, the power series of the moment "
    "generating function Π_j(1 − 2w_j t)^{-1/2}, in rounding units (relative 1e-9); a mismatch is violated. "
    "Scale: the lemma holds for every P, so for the law of s·Z too (Ĝ_p, G_p, G_2p exactly s times P's); each cell "
    "is tested at the s of (1e-3, 1, 1e3) where the declared threshold/s is smallest, chosen from the closed form "
    "alone, ties to s = 1 (the paper's threshold is degree-1 homogeneous: s = 1, the same test). Exact parts "
    "(issue 25, no runs): a cell whose sampled frequency is not violated holds exactly when a Markov bound "
    "E[S^m]/(n·a)^m, m ≤ 12, on S = Σ_i ‖z_i‖_C^p (moments from the MGF series) is ≤ the declared probability "
    "(lemma32_failure_bound); and the lemma is for every P, so two-point laws z ∈ {0, u} (P(z = u) = q) are "
    "evaluated exactly — the failure is a binomial tail P(K > n·c(q)), q at the breakpoints of n·c(q) = 1, 2, 3 "
    "(lemma32_two_point_failure): one decision, violated when some (n, p) fails more often than the declared "
    "probability (the paper's 1/n holds there: worst 0.70/n at n = 100, quick; a tenfold smaller probability or "
    "n^{-5/4} does not).",
)
def lemma3_2(budget: str, seed: int) -> Outcome:
    ns, dims, datasets = LEMMA32_BUDGETS.at(budget)
    tasks, keys = [], []
    for i, n in enumerate(ns):
        for j, d in enumerate(dims):
            plog = int(2 * math.ceil(math.log(d) / 2))
            ps = sorted({2, 4, plog})
            tasks.append(dict(n=n, d=d, datasets=datasets, ps=ps, seed=child_seed(seed, "pagan.lemma3.2", i, j)))
            keys.append((n, d, ps))
    outs = sweep(_lemma32_task, tasks, "pagan.lemma3.2 datasets")
    f_bound = numeric(tp.lemma3_2_bound())  # G_p + G_2p
    f_prob = numeric(tp.lemma3_2_probability())  # 1/n
    decisions, figures, worst = [], {}, None
    series = {}
    moment_gap = (0.0, None)  # the declared exact moments against the series route (exact, rounding units)
    exact_worst = (-1.0, None)  # the largest exact failure bound over the declared probability, and where
    for (n, d, ps), o in zip(keys, outs):
        sigma = kernels.pagan_problems.power_law_sigma(d, 1.5)
        p0 = float(f_prob(**{k: v for k, v in dict(n=n).items() if k in f_prob.names}))
        for g_i, geo in enumerate(EX1_GEOMETRIES):
            w = _geometry(sigma, geo) * sigma**2
            mom = gaussian_norm_moments(w, max(ps))
            ref_all = weighted_chi2_moments_series(w, max(ps) // 2 * LEMMA32_MARKOV_ORDERS)
            ref = ref_all[: max(ps)]
            gap = float(np.max(np.abs(mom / ref - 1)))
            if gap > moment_gap[0]:
                k_bad = int(np.argmax(np.abs(mom / ref - 1))) + 1
                moment_gap = (gap, dict(d=d, C=geo, k=k_bad, declared=float(mom[k_bad - 1]),
                                        series=float(ref[k_bad - 1])))
            for k, pp in enumerate(ps):
                gp = math.sqrt(w.sum()) * mom[pp // 2 - 1] ** (1.0 / pp)
                g2p = math.sqrt(w.sum()) * mom[pp - 1] ** (1.0 / (2 * pp))
                scale, bound = _lemma32_scale(f_bound, gp, g2p)
                fails = int(np.sum(scale * o["G_hat"][:, g_i, k] > bound))
                at_scale = "" if scale == 1.0 else f" (law of {scale:g}·Z)"
                what = f"n={n}, d={d}, C {geo}, p={pp}{at_scale}: P(Ĝ_p > G_p + G_2p)"
                dec = stat = decide.proportion_at_most(fails, datasets, p0, what=what)
                # exact: Markov on the moments of Σ_i ‖z_i‖_C^p (the series route, not the declared moments)
                exact, m_at = lemma32_failure_bound(ref_all, pp, (bound / (scale * math.sqrt(w.sum()))) ** pp, n)
                exact_worst = max(exact_worst, (exact / p0, dict(n=n, d=d, C=geo, p=pp, bound=exact, order=m_at)),
                                  key=lambda x: x[0])
                if stat.verdict != decide.Verdict.VIOLATED and exact <= p0 * (1 - 1e-9):
                    dec = decide.Decision(decide.Verdict.HOLDS, decide.Control(
                        f"{what}: Markov on E[(Σ_i ‖z_i‖_C^p)^m], m ≤ {LEMMA32_MARKOV_ORDERS} (exact moments, no runs)",
                        0.0, "none (exact)", None, None), fails / datasets, exact, dec.violated_bound,
                        f"{what} ≤ {exact:.3g} (exact, Markov of order {m_at}) ≤ {p0:.4g}; sampled {fails}/{datasets}")
                decisions.append(dec)
                series.setdefault((geo, pp == 2), []).append((n, stat.holds_bound))
                slack = float(np.min(bound - scale * o["G_hat"][:, g_i, k]) / bound)
                if worst is None or fails / datasets - p0 > worst[0]:
                    worst = (fails / datasets - p0, dict(n=n, d=d, C=geo, p=pp, scale=scale, failures=fails,
                                                         datasets=datasets,
                                                         bound=p0, cp_interval=[stat.violated_bound, stat.holds_bound],
                                                         min_rel_slack=slack))
    # exact, no runs: two-point laws (the lemma is for every P), the failure probability evaluated exactly
    two_point, tp_worst = [], (-1.0, None)
    all_ps = sorted({pp for _, _, ps in keys for pp in ps})
    for n in ns:
        p0 = float(f_prob(**{k: v for k, v in dict(n=n).items() if k in f_prob.names}))
        for pp in all_ps:
            fail, at = lemma32_two_point_failure(f_bound, pp, n)
            if fail / p0 > tp_worst[0]:
                tp_worst = (fail / p0, dict(n=n, p=pp, failure=fail, declared=p0, **at))
            two_point.append(fail > p0 * (1 + 1e-9))
    tp_ctrl = decide.Control("two-point laws z ∈ {0, u}: P(Ĝ_p > threshold) = P(Binomial(n, q) > n·c(q)) at the "
                             "breakpoints of q (exact, no runs)", 0.0, "none (exact)", None, None)
    w2 = tp_worst[1]
    tp_text = (f"two-point law n={w2['n']}, p={w2['p']}, q={w2['q']:.4g}: P(failure) = {w2['failure']:.4g} vs "
               f"{w2['declared']:.4g}")
    decisions.append(decide.Decision(decide.Verdict.VIOLATED if any(two_point) else decide.Verdict.HOLDS, tp_ctrl,
                                     w2["failure"], w2["failure"], w2["failure"],
                                     f"{tp_text} ({sum(two_point)}/{len(two_point)} (n, p) above the declared "
                                     "probability; exact)"))
    figures["two_point_failure_over_declared_max"] = tp_worst[0]
    verdict = decide.combine(decisions)
    moments_ok = moment_gap[0] <= LEMMA32_MOMENT_RTOL
    if not moments_ok:  # the thresholds G_p, G_2p were computed from moments that are not E‖Z‖_C^p
        verdict = "violated"
    figures["moment_max_rel_gap"] = moment_gap[0]
    figures["exact_failure_bound_over_declared_max"] = exact_worst[0]
    cells = decisions[:-1]  # the (n, d, C, p) cells; the last decision is the two-point laws'
    figures["cells_certified_exactly"] = sum(d.control.family == "none (exact)" for d in cells)
    figures.update({"cells": len(cells), "cells_holding": sum(str(d.verdict) == "holds" for d in cells),
                    "cells_inconclusive": sum(str(d.verdict) == "inconclusive" for d in cells),
                    "worst_rate_minus_bound": worst[0]})
    w = worst[1]
    lead = next((d for d in decisions if str(d.verdict) == "violated"),
                next((d for d in decisions if str(d.verdict) == "inconclusive"), None))
    evidence = ((lead.phrase() + "; ") if lead else "") + (
        f"{figures['cells_holding']}/{len(cells)} (n, d, C, p) cells certify a failure rate ≤ 1/n "
        f"({datasets} datasets each, Clopper–Pearson: 95% upper bound for holds, family-corrected lower bound for "
        f"violated); worst cell n={w['n']}, d={w['d']}, C {w['C']}, p={w['p']}"
        + (f" (law of {w['scale']:g}·Z)" if w['scale'] != 1 else "") + f": {w['failures']} failures, "
        f"[{w['cp_interval'][0]:.3g}, {w['cp_interval'][1]:.3g}] vs 1/n = {w['bound']:.3g}") + (
        f"; exact Markov bounds on the failure probability (moments of Σ_i ‖z_i‖_C^p of order ≤ "
        f"{LEMMA32_MARKOV_ORDERS}): at most {exact_worst[0]:.3g} × the declared probability (worst n="
        f"{exact_worst[1]['n']}, d={exact_worst[1]['d']}, C {exact_worst[1]['C']}, p={exact_worst[1]['p']}: "
        f"{exact_worst[1]['bound']:.3g}), {figures['cells_certified_exactly']} cells certified exactly; {tp_text} "
        f"(the worst of {len(two_point)} (n, p), exact)"
        f"; exact moments E[(Q/W)^k] agree with the MGF-series route (largest relative gap {moment_gap[0]:.2g})"
        if moments_ok else
        f"; violated (exact): the declared moment E[(Q/W)^{moment_gap[1]['k']}] at d = {moment_gap[1]['d']}, C "
        f"{moment_gap[1]['C']} is {moment_gap[1]['declared']:.6g}, the MGF series gives {moment_gap[1]['series']:.6g}")
    plot_series = [Series(f"C {geo}, p = 2" if p2 else f"C {geo}, p > 2", [v[0] for v in vals],
                          [v[1] for v in vals], style="points") for (geo, p2), vals in series.items()]
    plot_series.append(Series("1/n (the lemma's bound)", list(ns), [1 / n for n in ns]))
    fig = Figure("lemma3_2", "pagan Lemma 3.2: failure frequency of Ĝ_p ≤ G_p + G_2p", [Panel(
        "upper 95% Clopper–Pearson bound on P(failure)", "n", "probability", plot_series,
        xscale="log", yscale="log")])
    counter = None
    if not moments_ok:
        counter = dict(moment_gap[1], relative_gap=moment_gap[0])
    elif verdict == "violated" and any(two_point) and w["failures"] / w["datasets"] <= w["bound"]:
        counter = dict(w2, law="two-point: z = u with probability q, else 0 (C = I)")
    elif verdict == "violated":
        counter = w
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter, plots=[fig], decisions=decisions)


# ======================================================================================
# Algorithm 3: its privacy promise (the first sentence of Theorem 3)
# ======================================================================================
ALG3_GRIDS = {
    "quick": dict(d=(10, 100), epsilon=(0.1, 1.0), delta=(1e-5,)),
    "full": dict(d=(10, 100, 1000, 10000, 100000), epsilon=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                 delta=(1e-5, 1e-8)),
}


declare_equivalent("pagan.lemma3.2", "lemma3_2_probability:pow0.75", "the mutated failure probability n^{-3/4} is "
                   "≥ 1/n for every n ≥ 1, so the mutated statement is implied by the original (only weaker)")


ALG3_CAL_N = 1000  # the middle n of ALG3_PRIVACY_NS (the calibration identities hold for every n; r = 1)


def alg3_declared_rounds(d: int) -> int | None:
    """The declared number of rounds T (theory.pagan.algorithm3_rounds) at ``d``, exactly; None when it is not a
    positive integer (then no mechanism of T Gaussian rounds exists to account for: a round count is not truncated).

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    int or None
        T, or None when the declared T at ``d`` is not an integer ≥ 1.

    Raises
    ------
    TypeError
        When the declared T still has free symbols once d is substituted.
    """
    T = sp.sympify(tp.algorithm3_rounds()).subs(tp.d, d)
    if T.free_symbols:
        raise TypeError(f"algorithm3_rounds at d = {d} still has free symbols: {T}")
    return int(T) if (T.is_integer and T >= 1) else None


def _alg3_task(d: int, epsilon: float, delta: float) -> dict:
    rounds = alg3_declared_rounds(d)
    if rounds is None:  # not a number of rounds: nothing to account for (decided inconclusive, never truncated)
        nan = float("nan")
        return {"rounds": 0, "rounds_valid": False, "noise_multiplier": nan, "eps_lo": nan, "eps_hi": nan,
                "t1_noise_multiplier": nan, "t1_eps_lo": nan, "t1_eps_hi": nan}
    # the multiplier is free of ρ, n and d (their values, those of the calibration check's first round, are only
    # used by a declared form that is not: it then still gets accounted, and the calibration check flags it)
    rho1 = float(kernels.moments.truncation_level(1.0, 1))
    z = float(_eval_free(tp.algorithm3_noise_multiplier(), T=rounds, delta=delta, epsilon=epsilon, rho=rho1,
                         n=ALG3_CAL_N, d=d))
    lo, hi = gaussian_epsilon_interval(z, delta, rounds)
    # the other reading (one power of T), recorded beside it
    z1 = float(_eval_free(tp.algorithm3_noise_multiplier_t1(), T=rounds, delta=delta, epsilon=epsilon, rho=rho1,
                          n=ALG3_CAL_N, d=d))
    lo1, hi1 = gaussian_epsilon_interval(z1, delta, rounds)
    return {"rounds": rounds, "rounds_valid": True, "noise_multiplier": z, "eps_lo": lo, "eps_hi": hi,
            "t1_noise_multiplier": z1,
            "t1_eps_lo": lo1, "t1_eps_hi": hi1}


def _alg3_round_change(rho: float, d: int, n: int) -> float:
    """ℓ₂ change of one round's vector ((1/n)Σ_i min(z_ij², ρ²))_j between neighbouring datasets: all records 0, and
    the same with one record at ρ in every coordinate (the worst case, computed, not assumed).  Only the record that
    differs changes the sums, so the change of the mean is its truncated square over n (O(d) memory at any n)."""
    kept, changed = np.zeros(d), np.full(d, float(rho))
    return float(np.linalg.norm((np.minimum(changed**2, rho**2) - np.minimum(kept**2, rho**2)) / n))


def alg3_calibration(d: int, epsilon: float, delta: float, n: int = ALG3_CAL_N) -> dict:
    """Exact comparison of the declared calibration of Algorithm 3 with the one kernels.moments runs.

    The declared T (theory.pagan.algorithm3_rounds) against kernels.moments.rounds_for; per round the declared
    sensitivity (algorithm3_sensitivity) against the ℓ₂ change a neighbouring pair attains (it must not be
    exceeded); the declared noise std √(algorithm3_noise_variance) and the declared multiplier times the attained
    change against kernels.moments.schedule's std (r = 1), all in rounding units.

    Parameters
    ----------
    d : int
        The dimension.
    epsilon, delta : float
        The privacy parameters.
    n : int, optional
        The number of records.

    Returns
    -------
    dict
        ``rounds_ok``, ``sensitivity_ok``, ``noise_ok`` (bools), the declared and run rounds, the worst relative
        gaps (``sensitivity_gap``: attained/declared − 1; ``noise_gap``), and the round ``t`` of the worst
        sensitivity gap.
    """
    T_run, rhos, stds = kernels.moments.schedule(n, d, 1.0, epsilon, delta)
    T_decl = alg3_declared_rounds(d)
    if T_decl is None:  # not a round count: the declared calibration cannot be Algorithm 3's
        return dict(rounds_ok=False, rounds_declared=0, rounds_run=int(T_run), sensitivity_ok=True,
                    sensitivity_gap=float("nan"), t=1, noise_ok=False, noise_gap=float("nan"))
    tol = rounding_tolerance(d, 1.0 / d, 64)  # relative: (d + 64)·eps, a sum of d equal squares and a few flops
    sens_gap, noise_gap, t_worst = -np.inf, 0.0, 1
    e_sens, e_var = tp.algorithm3_sensitivity(), tp.algorithm3_noise_variance()
    e_mult = tp.algorithm3_noise_multiplier()
    for t, (rho, std) in enumerate(zip(rhos, stds), start=1):
        vals = dict(rho=float(rho), d=d, n=n, T=T_decl, delta=delta, epsilon=epsilon)
        sens = float(_eval_free(e_sens, **vals))
        attained = _alg3_round_change(float(rho), d, n)
        gap = attained / sens - 1
        if gap > sens_gap:
            sens_gap, t_worst = gap, t
        std_decl = math.sqrt(float(_eval_free(e_var, **vals)))
        # the accounted multiplier must be the run's: its noise std over the attained change
        std_mult = float(_eval_free(e_mult, **vals)) * attained
        noise_gap = max(noise_gap, abs(std_decl / std - 1), abs(std_mult / std - 1))
    return dict(rounds_ok=T_decl == T_run, rounds_declared=T_decl, rounds_run=int(T_run),
                sensitivity_ok=bool(sens_gap <= tol), sensitivity_gap=float(sens_gap), t=t_worst,
                noise_ok=bool(noise_gap <= tol), noise_gap=float(noise_gap))


# The record counts at which the declared mechanism itself is accounted (the privacy promise is for every n; the
# declared noise std over the attained change must not depend on n, ρ or d, and where a declared form makes it, the
# worst n of these decides)
ALG3_PRIVACY_NS = (10, ALG3_CAL_N, 100_000)


def alg3_declared_epsilon(d: int, epsilon: float, delta: float, ns: Sequence[int] = ALG3_PRIVACY_NS) -> dict:
    """The exact ε of the mechanism the statement declares, at every n of ``ns``: the declared T rounds, round t
    adding Gaussian noise of the declared variance (theory.pagan.algorithm3_noise_variance at ρ_t, T, d, n, δ, ε;
    r = 1) to a vector that one record moves by the attained ℓ₂ change ρ_t²√d/n (computed, as
    :func:`alg3_calibration`).  Gaussian rounds compose exactly into one Gaussian with 1/z² = Σ_t 1/z_t² (z_t = std_t
    over the change), whose ε is bracketed by verify.privacy.gaussian_epsilon_exact.

    Parameters
    ----------
    d : int
        The dimension.
    epsilon, delta : float
        The privacy parameters.
    ns : sequence of int, optional
        The record counts.

    Returns
    -------
    dict
        ``eps_lo`` and ``eps_hi`` (the bracket at the n with the largest lower end), ``n`` (that n), ``z`` (its
        composed multiplier) and ``decided`` (False when the declared T is not a round count or a composed
        multiplier is outside the accountant's range: nothing is accounted there).

    Raises
    ------
    ValueError
        When ``ns`` is empty.
    """
    if not ns:
        raise ValueError("ns must name at least one record count")
    nan = float("nan")
    T_decl = alg3_declared_rounds(d)
    if T_decl is None:
        return dict(eps_lo=nan, eps_hi=nan, n=0, z=nan, decided=False)
    e_var = tp.algorithm3_noise_variance()
    worst = None
    for n in ns:
        inv_z2 = 0.0
        for t in range(1, T_decl + 1):
            rho = float(kernels.moments.truncation_level(1.0, t))
            std = math.sqrt(float(_eval_free(e_var, rho=rho, d=d, n=n, T=T_decl, delta=delta, epsilon=epsilon)))
            inv_z2 += (_alg3_round_change(rho, d, n) / std) ** 2
        z = 1.0 / math.sqrt(inv_z2)
        try:
            lo, hi = gaussian_epsilon_exact(z, delta, 1)
        except dpvalidate.InvalidParameter:
            return dict(eps_lo=nan, eps_hi=nan, n=int(n), z=z, decided=False)
        if worst is None or lo > worst["eps_lo"]:
            worst = dict(eps_lo=float(lo), eps_hi=float(hi), n=int(n), z=z, decided=True)
    return worst


#: more rounds than the statement's T only strengthen its privacy (tests/verify/test_pagan_alg3_equivalents.py checks
#: each step): the declared rounds compose exactly into one Gaussian of multiplier √(T·log(T/δ))/ε, increasing in T
for _m in ("x10", "pow1.25"):
    declare_equivalent("pagan.algorithm3.privacy", f"algorithm3_rounds:{_m}", "the mutated statement is implied by "
                       "the original (only weaker): its T' (10·⌈(3/2)log₂ d⌉, or ⌈(15/8)log₂ d⌉) is ≥ T at every "
                       "d ≥ 2; T' rounds of per-round multiplier T'√(log(T'/δ))/ε (free of ρ_t, n, d) compose exactly "
                       "into one Gaussian of multiplier √(T'·log(T'/δ))/ε, and d/dT of T·log(T/δ) = log(T/δ) + 1 > 0 "
                       "for T ≥ 1 > δ, so that Gaussian is the original's plus independent noise (post-processing): "
                       "(ε, δ)-DP wherever the original is")


@claim(
    "pagan.algorithm3.privacy",
    kind="privacy",
    statement="""Theorem 3, first part, at ε ≤ 4 (larger ε: pagan.algorithm3.privacy.large_eps): Algorithm 3 (T =
    (3/2)·log₂ d rounds, per round Gaussian noise of variance ρ_t⁴·T²·d·log(T/δ)/(n²ε²) on the d truncated second
    moments) is (ε, δ)-differentially private.""",
    theory=(tp.algorithm3_noise_multiplier, tp.algorithm3_noise_variance, tp.algorithm3_sensitivity,
            tp.algorithm3_rounds),
    # more noise than the stated calibration only strengthens privacy: those constant mutants are equivalent
    weaker_if={"theory.pagan.algorithm3_noise_multiplier": "larger",
               "theory.pagan.algorithm3_noise_variance": "larger"},
    notes="Replaces pagan.algorithm3 (retired), which tested the reading ρ_t⁴·T·d·log(T/δ)/(n²ε²). Two readings of "
    "line 5's noise variance: the extraction prints 'N(0, ρt T d log(T/δ)/n ε)' with the superscript row '4 2' "
    "above the numerator and '2 2' above the denominator. (a) T² (decided here): ρ_t⁴ takes the 4, the second "
    "superscript 2 sits on the first T, the denominator is n²ε²; and the log(T/δ) is a per-round δ/T, the "
    "basic-composition split of (ε, δ) over T rounds, which pairs with a per-round ε/T, i.e. a std ∝ T/ε. "
    "(b) T (the earlier reading): it leaves the second superscript unplaced and mixes a per-round δ/T with an "
    "advanced-composition √T; under it the accountant ε exceeds the promise at some grid points (reported as "
    "t1_* figures, not part of the verdict). "
    "Each round releases the vector ((1/n)Σ_i min(z_ij², ρ_t²))_j + noise; its ℓ₂ sensitivity is ρ_t²√d/n, so a "
    "round is a Gaussian mechanism with multiplier T·√(log(T/δ))/ε (derived in theory.pagan); the exits are "
    "post-processing and the rounds compose adaptively. ε is bracketed by dp-accounting's optimistic and "
    "pessimistic PLD: violated when even the lower bound exceeds the promised ε, holds when the upper bound is "
    "below it everywhere, else inconclusive. The per-round noise follows the extracted formula; T = ⌈(3/2)log₂ d⌉ "
    "is the reconstruction used by kernels.moments. The modelled worst case is attained: for neighbouring datasets in "
    "which no coordinate leaves the active set (records near 0, the differing one at the truncation level, n large "
    "as Theorem 3 requires) the mechanism is exactly T full-dimension Gaussian rounds, up to the exit probability. "
    "The accuracy guarantee (10) is a separate claim (theorem3); ε above the grids' 4 is the claim "
    "pagan.algorithm3.privacy.large_eps (violated: at d = 2, ε = 16 the calibration's ε is 18.42). Also exact: the "
    "accounted calibration must be the "
    "one Algorithm 3 runs (kernels.moments.schedule, r = 1, every n of ALG3_PRIVACY_NS = (10, 1000, 1e5), every "
    "grid point and round): declared T = "
    "rounds_for(d); the declared sensitivity is never exceeded by the change a neighbouring pair attains (all "
    "records 0 vs one record at ρ_t: ρ_t²√d/n), else violated (counterexample); √(declared variance) and the declared "
    "multiplier times the attained change equal the run's noise std in rounding units, else inconclusive (the "
    "accountant would certify another mechanism). A declared T that is not a positive integer at some d is never "
    "truncated: there is no mechanism of T rounds to account for, so that point is undecided (inconclusive). "
    "Also exact: the declared mechanism itself (declared T; round t adds the declared variance at ρ_t, r = 1, to a "
    "vector one record moves by the attained ρ_t²√d/n) is accounted at n ∈ ALG3_PRIVACY_NS = (10, 1000, 1e5) (the "
    "promise is for every n): its rounds compose exactly into one Gaussian (1/z² = Σ_t 1/z_t²) whose ε "
    "(verify.privacy.gaussian_epsilon_exact) must not exceed the promise; if its lower end does, violated.",
)
def algorithm3(budget: str, seed: int) -> Outcome:
    g = ALG3_GRIDS[by_budget(budget, "quick", "full")]
    points = [dict(d=d, epsilon=e, delta=dl) for d in g["d"] for e in g["epsilon"] for dl in g["delta"]]
    rows = sweep(_alg3_task, points, "pagan.algorithm3 accountant")
    broken = [(p, r) for p, r in zip(points, rows) if float(r["eps_lo"]) > p["epsilon"]]
    unsure = [(p, r) for p, r in zip(points, rows) if float(r["eps_lo"]) <= p["epsilon"] < float(r["eps_hi"])]
    # a declared T that is not a positive integer: no mechanism to account for, undecided (never truncated)
    unsure += [(p, r) for p, r in zip(points, rows) if not r.get("rounds_valid", True)]
    # the calibration the accountant is given must be the one Algorithm 3 runs (exact, kernels.moments), at every n
    # of ALG3_PRIVACY_NS: the promise is for every n, and a declared sensitivity with a wrong power of n (or ρ, d)
    # may be exceeded at one n only
    cal = [(dict(p, n=n), alg3_calibration(**p, n=n)) for p in points for n in ALG3_PRIVACY_NS]
    sens_bad = [(p, c) for p, c in cal if not c["sensitivity_ok"]]
    cal_bad = [(p, c) for p, c in cal if not (c["rounds_ok"] and c["noise_ok"])]
    # the declared mechanism itself (declared T and variance, attained change, per round ρ_t, several n): exact ε
    decl = [(p, alg3_declared_epsilon(**p)) for p in points]
    decl_bad = [(p, x) for p, x in decl if x["decided"] and x["eps_lo"] > p["epsilon"]]
    verdict = "violated" if (broken or sens_bad or decl_bad) else ("inconclusive" if (unsure or cal_bad) else "holds")
    ratio = [float(r["eps_hi"]) / p["epsilon"] for p, r in zip(points, rows)]
    eps_levels = sorted(set(g["epsilon"]))
    ok_levels = [e for e in eps_levels
                 if all(float(r["eps_hi"]) <= p["epsilon"] for p, r in zip(points, rows) if p["epsilon"] == e)]
    largest_ok = max([e for e in eps_levels if all(x in ok_levels for x in eps_levels if x <= e)], default=None)
    figures = {"points": len(points), "points_broken": len(broken), "points_unsure": len(unsure),
               "max_eps_ratio": float(np.nanmax(ratio)),
               "largest_eps_kept_everywhere": largest_ok if largest_ok else 0.0,
               "t1_points_broken": sum(float(r["t1_eps_lo"]) > p["epsilon"] for p, r in zip(points, rows)),
               "t1_max_eps_ratio": max(float(r["t1_eps_hi"]) / p["epsilon"] for p, r in zip(points, rows)),
               "calibration_points_sensitivity_exceeded": len(sens_bad), "calibration_points_mismatched": len(cal_bad),
               "calibration_max_noise_gap": max(c["noise_gap"] for _, c in cal),
               "calibration_max_sensitivity_gap": max(c["sensitivity_gap"] for _, c in cal),
               "declared_mechanism_points_broken": len(decl_bad),
               "declared_mechanism_max_eps_ratio": max((x["eps_lo"] / p["epsilon"] for p, x in decl if x["decided"]),
                                                       default=float("nan"))}
    counter = None
    if broken:
        p, r = min(broken, key=lambda pr: (pr[0]["d"], pr[0]["epsilon"], -pr[0]["delta"]))
        counter = dict(p, rounds=int(r["rounds"]), noise_multiplier=float(r["noise_multiplier"]),
                       accountant_eps_lower=float(r["eps_lo"]), accountant_eps_upper=float(r["eps_hi"]))
    elif sens_bad:
        p, c = max(sens_bad, key=lambda pc: pc[1]["sensitivity_gap"])
        counter = dict(p, round=c["t"], attained_over_declared_sensitivity=1 + c["sensitivity_gap"],
                       reason="neighbouring datasets (all records 0; one record at ρ_t in every coordinate) move a "
                       "round's vector by more than the declared sensitivity")
    elif decl_bad:
        p, x = max(decl_bad, key=lambda px: px[1]["eps_lo"] / px[0]["epsilon"])
        counter = dict(p, n=x["n"], rounds=alg3_declared_rounds(p["d"]), composed_noise_multiplier=x["z"],
                       exact_eps_lower=x["eps_lo"], exact_eps_upper=x["eps_hi"],
                       reason="the declared mechanism (declared T and per-round variance at ρ_t, r = 1, over the "
                       "attained change ρ_t²√d/n) has an exact ε above the promise at this n")
    evidence = (f"{len(broken)}/{len(points)} (d, ε, δ) points where even the optimistic PLD ε exceeds the promise, "
                f"{len(unsure)} undecided; worst accountant/promised ε = {np.nanmax(ratio):.3f}; the promise holds at "
                f"every grid point only for ε ≤ {largest_ok if largest_ok else 'none'}"
                + (f"; smallest counterexample d={counter['d']}, ε={counter['epsilon']:g}, δ={counter['delta']:g}: "
                   f"accountant ε ∈ [{counter['accountant_eps_lower']:.4f}, {counter['accountant_eps_upper']:.4f}]"
                   if broken else "")
                + f" (exact accountant computation, no statistical test; under the one-T reading of line 5, "
                  f"{figures['t1_points_broken']}/{len(points)} points would break the promise, worst ratio "
                  f"{figures['t1_max_eps_ratio']:.3f})"
                + ("; calibration (exact, against kernels.moments at n ∈ "
                   f"{list(ALG3_PRIVACY_NS)}): the declared sensitivity is "
                   + (f"exceeded at {len(sens_bad)} points (attained/declared up to "
                      f"{1 + figures['calibration_max_sensitivity_gap']:.4g})" if sens_bad else "attained, never "
                      "exceeded")
                   + (f"; the declared rounds or noise differ from the run at {len(cal_bad)} points (T declared "
                      f"{cal_bad[0][1]['rounds_declared']} vs run {cal_bad[0][1]['rounds_run']}, noise gap "
                      f"{cal_bad[0][1]['noise_gap']:.3g}), so the accounted mechanism is not Algorithm 3" if cal_bad
                      else "; declared rounds and noise std are those run"))
                + (f"; the declared mechanism (declared T and variance at ρ_t, r = 1) accounted exactly at n ∈ "
                   f"{list(ALG3_PRIVACY_NS)}: its ε exceeds the promise at {len(decl_bad)}/{len(points)} points "
                   f"(largest exact ε/promised {figures['declared_mechanism_max_eps_ratio']:.3g})"))
    series = []
    for dl in g["delta"]:
        for d in g["d"]:
            sel = [(p["epsilon"], float(r["eps_hi"])) for p, r in zip(points, rows) if p["d"] == d and p["delta"] == dl]
            series.append(Series(f"d={d}, δ={dl:g}", [s[0] for s in sel], [s[1] for s in sel]))
    series.append(Series("promised ε", eps_levels, eps_levels, style="line"))
    fig = Figure("algorithm3_privacy", "pagan Algorithm 3: accountant ε of the stated calibration", [Panel(
        "accountant ε (PLD, upper) vs promised ε", "promised ε", "accountant ε", series, xscale="log",
        yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


#: pagan.algorithm3.privacy.large_eps: the ε beyond pagan.algorithm3.privacy's grids (which stop at 4), at the d
#: with the fewest rounds (T = 2 at d = 2; 3 at d = 3, 4; 5 at d = 10); exact at both budgets (no runs)
ALG3_LARGE_EPS_GRID = dict(d=(2, 3, 10, 100), epsilon=(8.0, 16.0, 32.0), delta=(1e-5, 1e-8))


def alg3_large_eps_point(d: int, epsilon: float, delta: float) -> dict:
    """The exact ε of Algorithm 3's declared calibration at one point: the declared T (theory.pagan.algorithm3_rounds)
    rounds of the declared per-round multiplier (theory.pagan.algorithm3_noise_multiplier, free of ρ, n and d),
    composed exactly into one Gaussian of multiplier z/√T (verify.privacy.gaussian_epsilon_exact: dp-accounting's
    analytic Gaussian ε, bracketed).

    Parameters
    ----------
    d : int
        The dimension (gives T).
    epsilon, delta : float
        The promised privacy parameters.

    Returns
    -------
    dict
        ``rounds`` (0 when the declared T is not a positive integer), ``noise_multiplier`` (per round), ``eps_lo``,
        ``eps_hi`` (NaN when undecided) and ``decided``.
    """
    nan = float("nan")
    rounds = alg3_declared_rounds(d)
    if rounds is None:  # not a number of rounds: no mechanism to account for
        return dict(rounds=0, noise_multiplier=nan, eps_lo=nan, eps_hi=nan, decided=False)
    rho1 = float(kernels.moments.truncation_level(1.0, 1))
    z = float(_eval_free(tp.algorithm3_noise_multiplier(), T=rounds, delta=delta, epsilon=epsilon, rho=rho1,
                         n=ALG3_CAL_N, d=d))
    try:
        lo, hi = gaussian_epsilon_exact(z, delta, rounds)
    except dpvalidate.InvalidParameter:
        return dict(rounds=rounds, noise_multiplier=z, eps_lo=nan, eps_hi=nan, decided=False)
    return dict(rounds=rounds, noise_multiplier=z, eps_lo=float(lo), eps_hi=float(hi), decided=True)


@claim(
    "pagan.algorithm3.privacy.large_eps",
    kind="privacy",
    statement="""Theorem 3, first part, at ε > 4 (beyond pagan.algorithm3.privacy's grids): Algorithm 3 (T =
    (3/2)·log₂ d rounds, per round Gaussian noise of variance ρ_t⁴·T²·d·log(T/δ)/(n²ε²)) is (ε, δ)-DP.""",
    theory=(tp.algorithm3_noise_multiplier, tp.algorithm3_rounds),
    weaker_if={"theory.pagan.algorithm3_noise_multiplier": "larger"},
    notes="Theorem 3 puts no range on ε (nor does Algorithm 3's calibration), but pagan.algorithm3.privacy's grids "
    "stop at ε = 1 (quick) and 4 (full). Same mechanism and reading as there (line 5 read with T², so a per-round "
    "multiplier T·√(log(T/δ))/ε; T = ⌈(3/2)log₂ d⌉), whose calibration identities (declared multiplier = the run's "
    "std over the attained change, at every n) that claim checks exactly. Check (exact, no runs, both budgets): at "
    "d ∈ {2, 3, 10, 100}, ε ∈ {8, 16, 32}, δ ∈ {1e-5, 1e-8} the T rounds compose exactly into one Gaussian of "
    "multiplier √T·√(log(T/δ))/ε, whose ε is dp-accounting's analytic Gaussian ε (bracketed); violated when even "
    "the lower end exceeds the promise, holds when every upper end is below it, else inconclusive. Found in session "
    "27: at d = 2 (T = 2, the fewest rounds; with a natural log d = 3 also has T = 2), ε = 16, δ = 1e-5 the "
    "calibration's ε is 18.42. A per-round √(log(T/δ))/(ε/T) is the classical Gaussian calibration of a per-round "
    "(ε/T, δ/T), which is sufficient only for small ε/T; the statement does not carry that restriction.",
)
def algorithm3_large_eps(budget: str, seed: int) -> Outcome:
    g = ALG3_LARGE_EPS_GRID
    points = [dict(d=d, epsilon=e, delta=dl) for d in g["d"] for e in g["epsilon"] for dl in g["delta"]]
    rows = [alg3_large_eps_point(**p) for p in points]
    broken = [(p, r) for p, r in zip(points, rows) if r["decided"] and r["eps_lo"] > p["epsilon"]]
    unsure = [(p, r) for p, r in zip(points, rows)
              if not r["decided"] or (r["eps_lo"] <= p["epsilon"] < r["eps_hi"])]
    verdict = "violated" if broken else ("inconclusive" if unsure else "holds")
    ratios = [r["eps_hi"] / p["epsilon"] for p, r in zip(points, rows) if r["decided"]]
    figures = {"points": len(points), "points_broken": len(broken), "points_undecided": len(unsure),
               "max_eps_ratio": max(ratios, default=float("nan"))}
    counter = None
    if broken:
        p, r = min(broken, key=lambda pr: (pr[0]["epsilon"], pr[0]["d"], -pr[0]["delta"]))
        counter = dict(p, rounds=r["rounds"], noise_multiplier=r["noise_multiplier"],
                       exact_eps_lower=r["eps_lo"], exact_eps_upper=r["eps_hi"])
    evidence = (f"{len(broken)}/{len(points)} (d, ε, δ) points where even the lower end of the exact ε exceeds the "
                f"promise, {len(unsure)} undecided; worst exact/promised ε = {figures['max_eps_ratio']:.4g}"
                + (f"; smallest counterexample d={counter['d']} (T = {counter['rounds']}), ε={counter['epsilon']:g}, "
                   f"δ={counter['delta']:g}: exact ε ∈ [{counter['exact_eps_lower']:.4f}, "
                   f"{counter['exact_eps_upper']:.4f}]" if counter else "")
                + " (exact: T Gaussian rounds compose into one Gaussian; dp-accounting's analytic ε, no statistical "
                  "test)")
    series = []
    for dl in g["delta"]:
        for d in g["d"]:
            sel = [(p["epsilon"], r["eps_hi"] / p["epsilon"]) for p, r in zip(points, rows)
                   if p["d"] == d and p["delta"] == dl and r["decided"]]
            series.append(Series(f"d={d}, δ={dl:g}", [x for x, _ in sel], [y for _, y in sel]))
    series.append(Series("promise kept below 1", list(g["epsilon"]), [1.0] * len(g["epsilon"]), style="line"))
    fig = Figure("algorithm3_privacy_large_eps", "pagan Algorithm 3 at large ε: exact ε over the promise", [Panel(
        "exact ε / promised ε", "promised ε", "ratio", series, xscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


# its theory mutants that leave the statement false, at explicit points (exact; checked in
# tests/verify/test_issue25_s27_alg3_eps.py)
ALG3_LARGE_EPS_STILL_FALSE = {
    "algorithm3_noise_multiplier:pow1.25": ((2, 8.0, 1e-5), "the mutated per-round multiplier 0.691 over T = 2 "
                                            "rounds gives ε ≥ 10.29 > 8"),
    "algorithm3_rounds:x0.1": ((100, 8.0, 1e-5), "the mutated T = ⌈(3/2)log₂ 100⌉/10 = 1 round of multiplier 0.424 "
                               "gives ε ≥ 12.27 > 8"),
    "algorithm3_rounds:pow1.25": ((2, 16.0, 1e-5), "the mutated T = ⌈(15/8)log₂ 2⌉ = 2 is the original's, whose ε is "
                                  "18.42 > 16"),
    "algorithm3_rounds:pow0.75": ((2, 16.0, 1e-5), "the mutated T = ⌈(9/8)log₂ 2⌉ = 2 is the original's, whose ε is "
                                  "18.42 > 16"),
}
for _m, ((_d, _e, _dl), _why) in ALG3_LARGE_EPS_STILL_FALSE.items():
    declare_equivalent("pagan.algorithm3.privacy.large_eps", _m, f"the mutated statement is still false: at d = {_d}, "
                       f"ε = {_e:g}, δ = {_dl:g}, {_why} (the declared rounds composed exactly; dp-accounting's "
                       "analytic Gaussian ε)")


# ======================================================================================
# Theorems 1 and 2, eqs. (7) and (9): measured excess loss against the upper bounds
# ======================================================================================
RATE_DELTA = 1e-5
RATE_C = 0.25  # T = c n²/b²: inside the c = 0.375 that lemma3.1 certifies for ε ≤ 1 (full budget)
# Theorems 1/2 take T = c n²/b² with "c the constant in Lemma 3.1", and Lemma 3.1's c exists only for ε ≤ ε̄:
# every swept point has ε ≤ 1 and c ≤ RATE_C, where lemma3.1 certifies the run (ε, δ)-DP (and the accountant
# certifies each run: tests/verify/test_pagan_rate_regime.py).  The sweeps used to run around ε = 16, where the
# accountant certifies c only up to ~1e-6: they measured the utility of runs that were not (16, δ)-DP.
RATE_EPSILON_MAX = 1.0
RATE_DECAY = 1.5  # σ_j = j^{-3/2}
# (algorithm, domain, geometry C) of the two theorems: PASAN on the unit ball with C = σ^{-1},
# PAGAN on the box with C = σ^{-4/3} (§3.2's optimising choices); "pasan_box" is PASAN on
# the box, for the comparison after eq. (9).
RATE_SETTINGS = {
    "pasan": ("pasan", "ball", "pasan"),
    "pagan": ("pagan", "box", "pagan"),
    "pasan_box": ("pasan", "box", "pasan"),
}
RATE_GRIDS = {
    # base point and the values each axis sweeps (the other axes stay at the base point); quick and
    # full span the same range of n (the bounds are asymptotic), full with more points and runs; ε and c stay
    # inside Lemma 3.1's certified regime (RATE_EPSILON_MAX, RATE_C)
    "quick": dict(base=dict(n=16000, d=10, epsilon=RATE_EPSILON_MAX, c=RATE_C), trials=4,
                  axes=dict(n=(4000, 16000, 64000), epsilon=(1 / 16, 1 / 4, 1.0), d=(5, 10, 30),
                            c=(1 / 64, 1 / 16, 1 / 4))),
    "full": dict(base=dict(n=16000, d=10, epsilon=RATE_EPSILON_MAX, c=RATE_C), trials=12,
                 axes=dict(n=(1000, 2000, 4000, 8000, 16000, 32000, 64000), epsilon=(1 / 64, 1 / 16, 1 / 4, 1.0),
                           d=(5, 10, 30, 100, 300), c=(1 / 256, 1 / 64, 1 / 16, 1 / 4))),
}


def rate_batch(n: int) -> int:
    """Batch size of the rate sweeps: b = max(20, n/1600), so T = c n²/b² stays ≤ 640k steps at c = 1/4.

    Parameters
    ----------
    n : int
        Records.

    Returns
    -------
    int
        b (n/1600 rounded down).
    """
    return max(20, n // 1600)


def moment_order(d: int) -> int:
    """p = max(1, ⌈log d⌉): the paper's p = log d, rounded up to an integer so that G_2p is exact.

    Parameters
    ----------
    d : int
        The dimension (>= 1).

    Returns
    -------
    int
        p.
    """
    return max(1, math.ceil(math.log(d)))


def domain_diameters(domain: str, C: np.ndarray) -> dict:
    """diam₂, diam∞ and diam in ‖x‖_{C⁻¹} = √(Σ x_j²/C_jj) of X∞ = [−1,1]^d ("box") or the unit ℓ₂ ball (exact).

    Parameters
    ----------
    domain : str
        "box"; any other value is read as the unit ℓ₂ ball.
    C : numpy.ndarray
        The diagonal of C (positive), length d.

    Returns
    -------
    dict
        ``diam2``, ``diam_inf`` and ``diam_C``.
    """
    d = C.size
    if domain == "box":
        return {"diam2": 2.0 * math.sqrt(d), "diam_inf": 2.0, "diam_C": 2.0 * math.sqrt(float(np.sum(1.0 / C)))}
    return {"diam2": 2.0, "diam_inf": 2.0, "diam_C": 2.0 * float(np.max(1.0 / np.sqrt(C)))}


def _rate_values(setting: str, n: int, d: int, epsilon: float, profile: np.ndarray | None = None) -> tuple:
    """The σ-profile, the diagonal C and the closed forms' data-free values (diameters, G_2p, p, n, ε, δ, traces,
    S_1, S_2/3) of one rate-sweep point (:func:`_rate_task` adds the data-dependent R terms)."""
    _, domain, geometry = RATE_SETTINGS[setting]
    sigma = kernels.pagan_problems.power_law_sigma(d, RATE_DECAY) if profile is None else profile
    C = _geometry(sigma, geometry)
    p = moment_order(d)
    w = C * sigma**2
    G2p = math.sqrt(float(w.sum())) * float(gaussian_norm_moments(w, p)[p - 1]) ** (1.0 / (2 * p))
    geo = domain_diameters(domain, C)
    vals = dict(geo, G_2p=G2p, p=p, n=n, epsilon=epsilon, delta=RATE_DELTA, tr_Cinv=float(np.sum(1.0 / C)),
                tr_Cinv_half=float(np.sum(C**-0.5)), d=d, S_1=float(sigma.sum()),
                S_2_3=float(np.sum(sigma ** (2.0 / 3.0))))
    return sigma, C, vals


def _rate_task(setting: str, n: int, d: int, epsilon: float, c: float, trials: int, seed: int,
               data_seed: int, batch: int = 10, sigma: Sequence[float] | None = None, planted: float = 0.0) -> dict:
    """One point of a rate sweep: ``trials`` fresh datasets, one run each, with Theorem 1/2's prescription.

    The expectation in the theorems is over the algorithm for a fixed S; the bound depends on S only
    through Ĝ_p(S;C) (the hypothesis) and the R term, so each dataset gets its own bound and the
    point reports both per dataset.  Fresh datasets per run average out the dataset-to-dataset
    spread of the ERM excess, which would otherwise dominate slope fits.  ``planted`` > 0 shifts every
    record by μ_j = ±planted·z·B·C_jj^{-1/2}/(b√T) (random signs per dataset): the adversarial data of
    :data:`ADV_PLANTED`.
    """
    algorithm, domain, geometry = RATE_SETTINGS[setting]
    profile = None if sigma is None else np.asarray(sigma, dtype=float)
    sigma, C, vals = _rate_values(setting, n, d, epsilon, profile)
    p, G2p = vals["p"], vals["G_2p"]

    def ev(expr) -> float:
        f = numeric(expr)
        return float(f(**{k: vals[k] for k in f.names}))

    B = ev(tp.theorem1_radius() if algorithm == "pasan" else tp.theorem2_radius())
    steps = lemma31_steps(c, n, batch)
    alpha = vals["diam2"] if algorithm == "pasan" else vals["diam_inf"]
    general = tp.theorem1_bound() if algorithm == "pasan" else tp.theorem2_bound()
    large = tp.theorem1_large_p() if algorithm == "pasan" else tp.theorem2_large_p()
    stylized = tp.eq9_full_rate() if algorithm == "pasan" else tp.eq7_full_rate()
    keys = ("excess", "bound", "bound_large_p", "rate", "R_term", "Ghat_p", "clipped", "trivial")
    res: dict = {k: np.empty(trials) for k in keys}
    data_seeds = np.random.SeedSequence(data_seed).generate_state(trials)
    for i in range(trials):
        ds = kernels.make_problem("linear_subgaussian", seed=int(data_seeds[i]), n=n, d=d, decay=RATE_DECAY,
                                  domain=domain, sigma=profile)
        if planted > 0:
            z_mult = float(numeric(tp.noise_multiplier())(epsilon=epsilon, delta=RATE_DELTA))
            signs_rng = np.random.default_rng(child_seed(int(data_seeds[i]), "pagan.theorem1", "signs"))
            signs = signs_rng.choice(np.array([-1.0, 1.0]), size=d)
            mu = signs * planted * z_mult * B / (np.sqrt(C) * batch * math.sqrt(steps))
            ds = dataclasses.replace(ds, features=ds.features + mu)
        out = kernels.run_algorithm(algorithm, ds, epsilon=epsilon, delta=RATE_DELTA, steps=steps, batch_size=batch,
                                    alpha=alpha, ellipsoid=C / B**2, trials=1,
                                    seed=child_seed(seed, "pagan.theorem1", "run", i), n_log=2)
        # The non-private terms for i.i.d. mini-batch gradients (linear loss, b draws with replacement):
        # E(g_j)² = z̄_j² + (mean_i z_ij² − z̄_j²)/b, so R_std = √(Σ_j E g_j²/T) exactly and
        # R_ada ≤ Σ_j √(E g_j²)/√T (Jensen; tight as T grows).
        zbar = ds.features.mean(axis=0)
        eg2 = zbar**2 + (np.mean(ds.features**2, axis=0) - zbar**2) / batch
        vals.update(R_std=math.sqrt(float(eg2.sum()) / steps), R_ada=float(np.sum(np.sqrt(eg2))) / math.sqrt(steps))
        res["excess"][i] = float(ds.loss(out.x_avg[0]) - ds.min_loss())
        res["bound"][i] = ev(general)
        res["bound_large_p"][i] = ev(large)
        res["rate"][i] = ev(stylized)
        res["R_term"][i] = vals["R_std"] * vals["diam2"] if algorithm == "pasan" else vals["R_ada"] * vals["diam_inf"]
        res["Ghat_p"][i] = float(np.mean(((ds.features**2) @ C) ** (p / 2.0)) ** (1.0 / p))
        res["clipped"][i] = float(out.clipped_fraction[0])
        # f(0) − min_X f for f(x) = ⟨x, z̄⟩: ‖z̄‖₁ (box) or ‖z̄‖₂ (ball) — the excess of the constant
        # output 0, which is private at no cost
        res["trivial"][i] = float(np.abs(zbar).sum() if domain == "box" else np.linalg.norm(zbar))
    res.update(B=B, G_2p=G2p, p=p, steps=steps)
    return res


def rate_tasks(setting: str, budget: str, seed: int, axes: Sequence[str] | None = None) -> list[dict]:
    """The tasks of a rate sweep: every axis of RATE_GRIDS[budget] varied around the base point (deduplicated).

    Parameters
    ----------
    setting : str
        The rate setting (a key of RATE_SETTINGS).
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed (the tasks' seeds are pagan.theorem1's child seeds for every setting, so the claims
        that sweep the same points share their runs).
    axes : sequence of str or None
        Only these axes (None: all).

    Returns
    -------
    list of dict
        One task of ``_rate_task`` per point.
    """
    g = RATE_GRIDS[by_budget(budget, "quick", "full")]
    tasks, seen = [], set()
    for axis, values in g["axes"].items():
        if axes is not None and axis not in axes:
            continue
        for v in values:
            point = dict(g["base"], **{axis: v})
            key = tuple(sorted(point.items()))
            if key in seen:
                continue
            seen.add(key)
            tasks.append(dict(setting=setting, trials=g["trials"], **point,
                              seed=child_seed(seed, "pagan.theorem1", "rate", int(point["n"]), int(point["d"]),
                                              int(1000 * point["epsilon"]), int(round(1 / point["c"]))),
                              data_seed=child_seed(seed, "pagan.theorem1", "rate data", int(point["n"]),
                                                   int(point["d"])),
                              batch=rate_batch(int(point["n"]))))
    return tasks


# The O(·) bounds are asymptotic.  Each rate claim is decided by verify.decide.rate along the n and
# d axes of the benign sweep and along n on planted (adversarial) data (ADV_GRIDS' b): an equivalence
# test on the log-log slope of measured/bound over a window that is asymptotic by a stated criterion
# (margin RATE_MARGIN on the slope, fixed before the data; violated needs growth over ≥ 1 decade of
# the swept variable inside the window).  Benign data (zero-mean Gaussian z): a point is asymptotic
# when the bound (constant 1) is at most RATE_ASYMPTOTIC × (f(0) − min_X f), the excess of the free
# constant output 0 (so the bound asks something of the algorithm), and the measured ratio is
# resolved (its Monte-Carlo standard error at most its mean: noise ≤ signal).  The ε and c (T) axes
# carry no verdict: along them, at fixed n, the bound tends to a positive limit (ε → ∞: its
# non-private term; T → ∞: its privacy term) or becomes vacuous, while the measured excess stays
# below f(0) − min f, so the ratio is bounded whatever the algorithm does.  They are shown.
RATE_MARGIN = 0.1  # slope margin: the ratio may grow no faster than x^0.1 (decide.SLOPE_MARGIN)
RATE_ASYMPTOTIC = 0.1  # benign data: asymptotic when bound ≤ 0.1 × (f(0) − min f)
RATE_VERDICT_AXES = ("n", "d")
# Planted (adversarial) data for the worst case over datasets: z_i = μ + N(0, diag σ²) with
# μ_j = s_j × (the per-coordinate std of the privacy noise in the T-step average of the privatized
# gradients, z·B·C_jj^{-1/2}/(b√T)), random signs s_j: each coordinate's mean sits at the noise level
# at every n, so the algorithm cannot resolve its sign for free.  Batch size 1 as in eqs. (7)/(9),
# ε = 1 and c = 1/4 (inside the c that lemma3.1 certifies for ε ≤ 1).  Asymptotic criterion there:
# the bound is below f(0) − min f (non-vacuous) and noise ≤ signal as above; the signal is at the
# noise level by construction at every n.
ADV_PLANTED = 1.0
ADV_GRIDS = {
    # below n ≈ 600 the planted means reach σ_j and the hypothesis Ĝ_p ≤ G_2p fails (those datasets are
    # excluded anyway); both budgets span one decade of n (each can hold or refute).  Full runs eqs. (7)/(9)'s
    # b = 1; quick runs b = 4, which costs 16× fewer steps (T = c n²/b²) and plants the same means: the noise
    # level z·B·C_jj^{-1/2}/(b√T) = z·B·C_jj^{-1/2}/(√c·n) does not depend on b.  Theorems 1/2 hold for every
    # b; for eqs. (7)/(9) quick tests their closed form at b = 4 (R_ada/R_std computed exactly for that b), as
    # the benign sweep does at b ≥ 20.
    "quick": dict(base=dict(d=10, epsilon=1.0, c=RATE_C), trials=12, n=(632, 2000, 6325), batch=4),
    # full: 12 datasets per n (as quick and the full benign sweep; 8 until session 24), a sharper slope test for
    # eq. (9)/(7) and Theorems 1/2, which share these runs
    "full": dict(base=dict(d=10, epsilon=1.0, c=RATE_C), trials=12, n=(632, 2000, 6325), batch=1),
}


def rate_picture(sigma: Sequence[float], n: Sequence[int], epsilon: float = RATE_EPSILON_MAX, setting: str = "pagan",
                 c: float = RATE_C, trials: int = 8, seed: int = 0) -> tuple[Figure, list[dict]]:
    """Measured excess loss against Theorem 1/2's bound and eq. (7)/(9)'s rate for a user's σ-profile.

    ``setting`` "pagan" (PAGAN on X∞, C = σ^{-4/3}) or "pasan" (PASAN on the unit ball, C = σ^{-1});
    every other parameter is prescribed as in the theorems (see :data:`_RATE_NOTES`).  Returns the
    figure (render it with verify.plots.render) and one row of numbers per n.

    Parameters
    ----------
    sigma : sequence of float
        The σ-profile (positive scales σ_j; d = its length).
    n : sequence of int
        The dataset sizes (each >= 2).
    epsilon : float
        The privacy parameter ε (> 0).
    setting : str
        "pagan" or "pasan".
    c : float
        Lemma 3.1's constant c (T = c n²/b²; > 0).
    trials : int
        Runs per n (>= 2).
    seed : int
        The base seed (>= 0).

    Returns
    -------
    figure : Figure
        The picture.
    rows : list of dict
        Per n: ``n``, ``measured`` with ``lo``/``hi``, ``bound``, ``rate``, ``free_output`` and
        ``hypothesis_met``.

    Raises
    ------
    kernels.InvalidParameter
        When an argument is out of range, or a quantity derived from it is refused (naming the arguments).
    """
    V = dpvalidate
    sigma = V.finite_array("sigma", sigma, ndim=1)
    if sigma.size == 0:
        raise kernels.InvalidParameter("sigma", "a non-empty profile of positive scales σ_j", "an empty profile")
    if np.any(sigma <= 0):
        raise kernels.InvalidParameter("sigma", "a profile of positive scales σ_j", "a non-positive entry")
    V.choice("setting", setting, ("pagan", "pasan"))
    with np.errstate(all="ignore"):  # the theorem's C and the moments it builds from σ must exist in float64
        C = _geometry(sigma, RATE_SETTINGS[setting][2])
        w = C * sigma**2
        sane = bool(np.all(sigma**2 > 0) and np.all(np.isfinite(sigma**2)) and np.all(C > 0)
                    and np.all(np.isfinite(C)) and np.all(w > 0) and np.isfinite(np.sum(w))
                    and np.isfinite(np.sum(1.0 / C)) and np.isfinite(np.sum(sigma)))
    if not sane:
        c_form = "σ^(-4/3)" if setting == "pagan" else "σ^(-1)"
        raise kernels.InvalidParameter("sigma", f"scales whose squares, the theorem's C = {c_form} and their sums "
                                       "are positive and finite in float64",
                                       f"entries from {sigma.min():.3g} to {sigma.max():.3g}")
    epsilon = V.positive("epsilon", epsilon)
    if isinstance(n, (str, bytes, dict)) or not hasattr(n, "__iter__") or getattr(n, "ndim", 1) != 1:
        raise kernels.InvalidParameter("n", "a list of dataset sizes (integers >= 2)", n)
    n = list(n)
    if not n:
        raise kernels.InvalidParameter("n", "a non-empty list of dataset sizes (integers >= 2)", n)
    ns = [V.count("n", v, 2) for v in n]
    c = V.positive("c", c)
    seed = V.integer("seed", seed, 0)
    V.memory("trials", trials if isinstance(trials, (int, np.integer)) else 0, 9)  # 8 per-trial results + seeds
    trials = V.count("trials", trials, 2)  # a mean and its 95% CI need two
    V.memory("n, sigma", max(ns), sigma.size)  # one dataset's features
    for v in ns:
        T = lemma31_steps(c, v, rate_batch(v))
        if T > V.MAX_COUNT:
            raise kernels.InvalidParameter("c, n", f"small enough that T = c·n²/b² is at most {V.MAX_COUNT} steps "
                                           f"(b = {rate_batch(v)} at n = {v})", f"T = {T:.3g}")
    tasks = [dict(setting=setting, n=v, d=int(sigma.size), epsilon=epsilon, c=c, trials=trials,
                  seed=child_seed(seed, "pagan.rate_picture", "run", v),
                  data_seed=child_seed(seed, "pagan.rate_picture", "data", v), batch=rate_batch(v),
                  sigma=sigma.tolist()) for v in ns]
    try:
        outs = sweep(_rate_task, tasks, "pagan rate picture")
    except kernels.InvalidParameter as exc:  # a derived quantity the kernel refused: blame the user's inputs
        if str(exc.name) in ("sigma", "n", "epsilon", "c", "trials", "seed", "setting"):
            raise
        raise kernels.InvalidParameter("sigma, n, epsilon, c", "values for which the theorem's run stays within "
                                       f"float64 range (its derived {exc.name} was refused: {exc.accepted})") from None
    rows = []
    for v, o in zip(ns, outs):
        ci = stats.mean_ci(np.asarray(o["excess"], dtype=float))
        rows.append(dict(n=v, measured=ci.estimate, lo=ci.lo, hi=ci.hi, bound=float(np.mean(o["bound"])),
                         rate=float(np.mean(o["rate"])), free_output=float(np.mean(o["trivial"])),
                         hypothesis_met=float(np.mean(np.asarray(o["Ghat_p"]) <= float(o["G_2p"])))))
    name = "Theorem 2 / eq. (7), PAGAN on X∞" if setting == "pagan" else "Theorem 1 / eq. (9), PASAN on the ℓ₂ ball"
    panel = Panel(f"{name}, d = {sigma.size}, ε = {epsilon:g}", "n", "E[f(x̄_T) − min f]", [
        Series("measured (mean, 95% CI)", ns, [r["measured"] for r in rows], [r["lo"] for r in rows],
               [r["hi"] for r in rows], style="points"),
        Series("theorem's bound (constant 1)", ns, [r["bound"] for r in rows]),
        Series("stylized rate (constant 1)", ns, [r["rate"] for r in rows], style="dashed"),
        Series("f(0) − min f (free constant output)", ns, [r["free_output"] for r in rows], style="dashed"),
    ], xscale="log", yscale="log")
    return Figure("rate_picture", "pagan: measured excess loss against the bounds", [panel]), rows


_SWEEP_MEMO: dict = {}


_SHARED_SCOPE = "pagan.shared"


def _memo_sweep(fn, tasks: list[dict], label: str) -> list[dict]:
    """:func:`sweep` with an in-process memo: claims that share runs (theorem2 and eq7, …) compute them once.

    The tasks are attributed to one scope (:data:`_SHARED_SCOPE`: one cache folder and task keys that do not name
    the asking claim), so that claims checked in different worker processes of a ledger run share them through the
    cache too.
    """
    key = (fn.__qualname__, tuple(tuple(sorted(t.items())) for t in tasks))
    if key not in _SWEEP_MEMO:
        with claim_scope(_SHARED_SCOPE):
            _SWEEP_MEMO[key] = sweep(fn, tasks, label)
    return _SWEEP_MEMO[key]


def _gaussian_norm_mean(w: np.ndarray) -> float:
    """E‖X‖₂ for X ~ N(0, diag w), by quadrature of E√Q = (1/(2√π))∫₀^∞ (1 − E e^{−tQ}) t^{−3/2} dt, Q = ‖X‖²,
    E e^{−tQ} = Π_j (1 + 2t w_j)^{−1/2}."""
    from scipy import integrate  # local: only this estimate needs it

    scale = float(w.sum())
    u = w / scale  # Q/scale has weights summing to 1

    def integrand(t: float) -> float:
        return -math.expm1(-0.5 * float(np.sum(np.log1p(2 * t * u)))) * t ** -1.5

    val = sum(integrate.quad(integrand, lo, hi, limit=200)[0] for lo, hi in ((0, 1), (1, np.inf)))
    return math.sqrt(scale) * val / (2 * math.sqrt(math.pi))


def _expected_window_ratio(setting: str, bound_key: str, n: int, d: int, epsilon: float, c: float) -> float:
    """bound / (f(0) − min f) at a benign sweep point (b = rate_batch(n), T = c n²/b²), both at the expected data:
    E z̄_j² = σ_j²/n and E(mean z_j² − z̄_j²) = σ_j²(1 − 1/n) in the R terms; E‖z̄‖₁ = √(2/(πn))·Σσ_j exactly (box),
    E‖z̄‖₂ = E‖N(0, diag σ²)‖/√n (ball, :func:`_gaussian_norm_mean`)."""
    algorithm, domain, _ = RATE_SETTINGS[setting]
    sigma, _, vals = _rate_values(setting, n, d, epsilon)
    b = rate_batch(n)
    steps = lemma31_steps(c, n, b)
    eg2 = sigma**2 / n + sigma**2 * (1 - 1 / n) / b
    vals.update(R_std=math.sqrt(float(eg2.sum()) / steps), R_ada=float(np.sum(np.sqrt(eg2))) / math.sqrt(steps))
    forms = {"bound": tp.theorem1_bound() if algorithm == "pasan" else tp.theorem2_bound(),
             "rate": tp.eq9_full_rate() if algorithm == "pasan" else tp.eq7_full_rate()}
    f = numeric(forms[bound_key])
    bound = float(f(**{k: vals[k] for k in f.names}))
    if domain == "box":
        trivial = math.sqrt(2 / (math.pi * n)) * float(sigma.sum())
    else:
        trivial = _gaussian_norm_mean(sigma**2) / math.sqrt(n)
    return bound / trivial


def _window_reach(setting: str, bound_key: str, axis: str, budget: str) -> str:
    """What would put benign points of ``axis`` into the asymptotic window (bound ≤ RATE_ASYMPTOTIC × (f(0) − min
    f)), computed at the expected data: the first value of the axis (doubling from the grid's largest) where it
    does, and whether the full budget's range reaches it; or that no value up to a cap does."""
    g = RATE_GRIDS[by_budget(budget, "quick", "full")]
    full_hi = max(RATE_GRIDS["full"]["axes"][axis])
    base = dict(g["base"])
    cap = {"n": 10**13, "d": 10**4}[axis]
    x = max(g["axes"][axis])
    first = _expected_window_ratio(setting, bound_key, **dict(base, **{axis: x}))
    ratio = first
    while ratio > RATE_ASYMPTOTIC and x * 2 <= cap:
        x *= 2
        ratio = _expected_window_ratio(setting, bound_key, **dict(base, **{axis: x}))
    at = ", ".join(f"{k} = {v:g}" for k, v in base.items() if k != axis)
    head = (f"at the expected data bound/(f(0) − min f) is {first:.3g} at {axis} = {max(g['axes'][axis]):g} "
            f"({at})")
    if ratio > RATE_ASYMPTOTIC:
        return (f"{head} and still {ratio:.3g} > {RATE_ASYMPTOTIC:g} at {axis} = {x:.3g} (doubling): no {axis} range "
                "of this sweep (b = max(20, n/1600), T = c n²/b²) would decide, the full budget's grid included (a "
                f"point enters the window only where bound ≤ {RATE_ASYMPTOTIC:g} × (f(0) − min f))")
    # the words report.control_label reads: "--budget full" (full decides), "beyond the full budget" (it does not)
    where = (f"--budget full ({axis} up to {full_hi:g}) reaches it" if x <= full_hi
             else f"beyond the full budget's {axis} ≤ {full_hi:g}")
    return (f"{head}, ≤ {RATE_ASYMPTOTIC:g} first at {axis} ≈ {x:.3g} (doubling), {where}: a sweep from there over "
            "≥ 1 decade would decide")


def _ratio_row(t: dict, o: dict, bound_key: str) -> dict:
    """One point of a rate sweep: per-dataset ratios measured/bound where the hypothesis Ĝ_p ≤ G_2p holds."""
    ok = np.asarray(o["Ghat_p"]) <= float(o["G_2p"])
    ex = np.asarray(o["excess"], dtype=float)[ok]
    bd = np.asarray(o[bound_key], dtype=float)[ok]
    triv = np.asarray(o["trivial"], dtype=float)[ok]
    ci = stats.mean_ci(ex) if ex.size >= 2 else None
    ratios = ex / bd if ex.size else np.array([])
    bound = float(np.mean(bd)) if ok.any() else float("nan")
    trivial = float(np.mean(triv)) if ok.any() else float("nan")
    m = float(np.mean(ratios)) if ratios.size >= 2 else float("nan")
    se = float(np.std(ratios, ddof=1) / math.sqrt(ratios.size)) if ratios.size >= 2 else float("nan")
    return dict(task=t, ci=ci, ratios=ratios, bound=bound, trivial=trivial, ratio_mean=m, ratio_se=se,
                assumption=bool(ok.sum() >= 2), datasets_failed=int((~ok).sum()), out=o,
                resolved=bool(ratios.size >= 2 and m > 0 and se <= m))


def _rate_decision(rows: list[dict], axis: str, criterion: str, fraction: float | None) -> tuple:
    """decide.rate along ``axis`` over the rows' points; asymptotic = resolved and bound ≤ fraction × trivial
    (``fraction`` None: bound < trivial, non-vacuous)."""
    usable = [r for r in rows if r["assumption"]]
    for r in usable:
        limit = (fraction if fraction is not None else 1.0) * r["trivial"]
        r["asymptotic"] = bool(r["resolved"] and (r["bound"] <= limit if fraction is not None else r["bound"] < limit))
    x = [float(r["task"][axis]) for r in usable]
    samples = [np.where(r["ratios"] > 0, r["ratios"], 0.0) if r["ratios"].size >= 2 else np.ones(2) for r in usable]
    flags = [r["asymptotic"] for r in usable]
    d = decide.rate(x, samples, axis=axis, asymptotic=flags, criterion=criterion, margin=RATE_MARGIN)
    return d, usable


def _sweep_panel(title: str, label: str, sel: list[dict], kmax: float) -> Panel:
    usable = [r for r in sel if r["assumption"]]
    x = [r["task"][label if label in r["task"] else "n"] for r in usable]
    return Panel(title, label, "E[f(x̄_T) − min f]", [
        Series("measured (mean, 95% CI)", x, [r["ci"].estimate for r in usable], [r["ci"].lo for r in usable],
               [r["ci"].hi for r in usable], style="points"),
        Series("closed form (constant 1)", x, [r["bound"] for r in usable]),
        Series(f"closed form × largest measured/bound {kmax:.3g}", x, [kmax * r["bound"] for r in usable],
               style="dashed"),
        Series("f(0) − min f (free constant output; mean)", x, [r["trivial"] for r in usable], style="dashed"),
    ], xscale="log", yscale="log")


def adversarial_tasks(setting: str, budget: str, seed: int) -> list[dict]:
    """The planted-mean sweep along n (ADV_GRIDS: b = 1 at full, b = 4 at quick) for ``setting``.

    Parameters
    ----------
    setting : str
        The rate setting.
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed (pagan.theorem1's child seeds, as :func:`rate_tasks`).

    Returns
    -------
    list of dict
        One task per n.
    """
    g = ADV_GRIDS[by_budget(budget, "quick", "full")]
    return [dict(setting=setting, trials=g["trials"], n=n, **g["base"], batch=g["batch"], planted=ADV_PLANTED,
                 seed=child_seed(seed, "pagan.theorem1", "adversarial", n),
                 data_seed=child_seed(seed, "pagan.theorem1", "adversarial data", n)) for n in g["n"]]


def _rate_check(setting: str, bound_key: str, budget: str, seed: int) -> tuple:
    """Measured mean excess loss vs a closed-form bound: decide.rate along n and d (benign data) and along n
    on planted data (ADV_GRIDS' b); the ε and c axes are shown."""
    g = RATE_GRIDS[by_budget(budget, "quick", "full")]
    tasks = rate_tasks(setting, budget, seed)
    outs = _memo_sweep(_rate_task, tasks, f"pagan {setting} rate sweep")
    base = g["base"]
    rows = [_ratio_row(t, o, bound_key) for t, o in zip(tasks, outs)]
    decisions, panels, figures = [], [], {}
    labels = {"n": "n", "epsilon": "ε", "d": "d", "c": "c (T = c n²)"}
    crit = (f"bound ≤ {RATE_ASYMPTOTIC:g} × (f(0) − min f) and Monte-Carlo s.e. of measured/bound ≤ its mean")
    kmax = max((float(np.max(r["ratios"])) for r in rows if r["assumption"]), default=float("nan"))
    for axis in g["axes"]:
        sel = sorted([r for r in rows if all(r["task"][k] == base[k] for k in base if k != axis)],
                     key=lambda r: r["task"][axis])
        usable = [r for r in sel if r["assumption"]]
        if len(usable) >= 3:  # whole-range exponents, reported for every axis
            x = [r["task"][axis] for r in usable]
            figures[f"measured_slope_{axis}"] = stats.loglog_slope(
                x, [max(r["ci"].estimate, np.finfo(float).tiny) for r in usable]).slope.estimate
            figures[f"bound_slope_{axis}"] = stats.loglog_slope(x, [r["bound"] for r in usable]).slope.estimate
        if axis in RATE_VERDICT_AXES:
            d, _ = _rate_decision(sel, axis, crit, RATE_ASYMPTOTIC)
            generic = (f"a larger {axis} range (--budget full) would decide",
                       f"a {axis} range beyond the full budget's would decide")
            if str(d.verdict) == "inconclusive" and any(t in d.reason for t in generic):
                # decide.rate names a larger range in general; say what range would decide here, computed
                reach = _window_reach(setting, bound_key, axis, budget)
                d = dataclasses.replace(d, reason=d.reason.replace(generic[0], reach).replace(generic[1], reach))
            decisions.append(d)
            figures[f"ratio_slope_{axis}"] = d.estimate
            figures[f"ratio_slope_{axis}_holds_bound"] = d.holds_bound
            figures[f"ratio_slope_{axis}_violated_bound"] = d.violated_bound
            figures[f"asymptotic_points_{axis}"] = sum(r.get("asymptotic", False) for r in sel)
        panels.append(_sweep_panel(f"sweep in {labels[axis]}", axis, sel, kmax))
        figures[f"K_{axis}"] = max((float(np.max(r["ratios"])) for r in usable), default=float("nan"))
    # planted (adversarial) data, ADV_GRIDS' b, along n
    atasks = adversarial_tasks(setting, budget, seed)
    ab = atasks[0]["batch"]
    aouts = _memo_sweep(_rate_task, atasks, f"pagan {setting} planted-mean sweep (b = {ab})")
    arows = [_ratio_row(t, o, bound_key) for t, o in zip(atasks, aouts)]
    acrit = f"planted means at the noise level, b = {ab}; bound < f(0) − min f and s.e. of measured/bound ≤ its mean"
    ad, _ = _rate_decision(arows, "n", acrit, None)
    ad = dataclasses.replace(ad, reason="planted data, " + ad.reason)
    decisions.append(ad)
    figures["adversarial_ratio_slope_n"] = ad.estimate
    figures["adversarial_ratio_slope_n_holds_bound"] = ad.holds_bound
    figures["adversarial_ratio_slope_n_violated_bound"] = ad.violated_bound
    figures["adversarial_asymptotic_points"] = sum(r.get("asymptotic", False) for r in arows)
    worst = max((r for r in arows if r["assumption"]), key=lambda r: r["ratio_mean"], default=None)
    if worst is not None:
        figures["adversarial_worst_ratio"] = worst["ratio_mean"]
        figures["adversarial_worst_ratio_n"] = worst["task"]["n"]
    akmax = max((float(np.max(r["ratios"])) for r in arows if r["assumption"]), default=float("nan"))
    panels.append(_sweep_panel(f"planted means at the noise level, b = {ab}, ε = 1", "n", arows, akmax))
    K_all = max(kmax, akmax)
    figures["K_fitted"] = K_all
    figures["points"] = len(rows) + len(arows)
    figures["points_assumption_failed"] = sum(not r["assumption"] for r in rows + arows)
    figures["datasets_assumption_failed"] = sum(r["datasets_failed"] for r in rows + arows)
    verdict = decide.combine(decisions)
    figures = {k: v for k, v in figures.items() if not (isinstance(v, float) and not math.isfinite(v))}
    return verdict, rows + arows, decisions, figures, panels


def _max_ratio_large_p(rows) -> float:
    """Largest upper-CI / large-p form (eq. (5) or (6)) over the points: the constant the large-p form would need."""
    return max((r["ci"].hi / float(np.mean(r["out"]["bound_large_p"])) for r in rows if r["assumption"]),
               default=float("nan"))


def _rate_evidence(verdict, rows, decisions, figures) -> str:
    order = sorted(decisions, key=lambda d: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d.verdict)])
    return ("; ".join(d.phrase() for d in order)
            + f" ({len(rows)} points, {figures['points_assumption_failed']} without Ĝ_p ≤ G_2p excluded; largest "
            f"measured/bound {figures['K_fitted']:.3g}"
            + (f"; planted data: worst mean ratio {figures['adversarial_worst_ratio']:.3g} at "
               f"n = {int(figures['adversarial_worst_ratio_n'])}" if "adversarial_worst_ratio" in figures else "")
            + ")")


def _rate_counter(verdict, rows, decisions) -> dict | None:
    if str(verdict) != "violated":
        return None
    d = next(d for d in decisions if str(d.verdict) == "violated")
    return {"decision": d.reason, "slope": d.estimate, "violated_bound": d.violated_bound,
            "points": [dict({k: v for k, v in r["task"].items() if k != "sigma"}, ratio_mean=r["ratio_mean"],
                            ratio_se=r["ratio_se"], bound=r["bound"], trivial=r["trivial"],
                            asymptotic=r.get("asymptotic", False)) for r in rows if r["assumption"]]}


_RATE_NOTES = (
    "Problem: linear_subgaussian (F(x;Z) = ⟨x,Z⟩, Z_j ~ N(0, σ_j²), σ_j = j^(-3/2)), ERM excess f(x̄_T;S) − min_X "
    "f(·;S) "
    "of the average iterate, fresh datasets (one run each). Prescribed parameters: p = ⌈log d⌉, α = diam(X), "
    "T = c n²/b², A_k = C/B² with the theorem's B; G_2p(C) exact (weighted χ² moments); the hypothesis "
    "Ĝ_p(S;C) ≤ G_2p(C) is checked per dataset and datasets where it fails are excluded. R terms: exact for i.i.d. "
    "linear gradients (R_ada by Jensen, tight as T grows). Benign sweep: b = max(20, n/1600), c = 1/4, around "
    "n = 16000, d = 10, ε = 1. Privacy regime: the theorems run T = c n²/b² with Lemma 3.1's c, which exists only "
    "for ε ≤ ε̄, so every point has ε ≤ 1 and c ≤ 1/4, inside the c = 0.375 that lemma3.1 certifies there (the "
    "accountant's c* at these n/b is 0.77–0.79 at ε = 1). Until this correction the benign sweep ran around ε = 16, "
    "where the same accountant certifies c only up to ~10⁻⁶ (and at n ≤ 4000 one step alone exceeds ε = 16). "
    "Worst-case sweep (the bound is over every dataset): planted means μ_j at the noise "
    "level (±z·B·C_jj^(-1/2)/(b√T), the per-coordinate std of the privacy noise in the average of the privatized "
    "gradients; it does not depend on b), ε = 1, c = 1/4, d = 10, along n = 632, 2000, 6325 (one decade): b = 1 "
    "(as eqs. (7)/(9) state) at --budget full, b = 4 at quick (T 16× shorter; Theorems 1/2 hold for every b, and "
    "eqs. (7)/(9)'s closed forms are evaluated with R terms exact for that b). Decision (verify.decide.rate, one "
    "test per sweep axis: "
    "n and d benign, n planted): an equivalence test on the log-log slope of measured/bound (per-dataset ratios, "
    "t with Welch-Satterthwaite df) with margin 0.1 fixed before the data (growth slower than x^0.1 counts as "
    "bounded: an O(1) factor over the swept range), over the asymptotic window: benign points with bound ≤ 0.1 × "
    "(f(0) − min f) — the excess of the free constant output 0 — so the bound asks something of the algorithm; "
    "planted points with bound < f(0) − min f; and at both, the Monte-Carlo s.e. of the mean ratio ≤ the mean "
    "(noise ≤ signal). Violated needs growth over ≥ 1 decade inside that window. The ε and c (T) axes are shown "
    "but carry no verdict: along either, at fixed n, the bound has a positive limit or becomes vacuous, so the "
    "ratio is bounded whatever the algorithm does.")


def _large_p_limit_gap(setting: str) -> sp.Expr:
    """Theorem 1/2's general-p bound as p → ∞ minus eq. (5)/(6)'s large-p form (SymPy; 0 when (5)/(6) is its
    limit, as the paper presents it)."""
    general, large = ((tp.theorem1_bound(), tp.theorem1_large_p()) if setting == "pasan"
                      else (tp.theorem2_bound(), tp.theorem2_large_p()))
    return sp.simplify(sp.limit(general, tp.p, sp.oo) - large)


def _rate_outcome(setting: str, bound_key: str, budget: str, seed: int, name: str, title: str) -> Outcome:
    verdict, rows, decisions, figures, panels = _rate_check(setting, bound_key, budget, seed)
    evidence = _rate_evidence(verdict, rows, decisions, figures)
    counter = _rate_counter(verdict, rows, decisions)
    exact_violation = False
    if bound_key == "bound":
        figures["max_ratio_to_large_p_form"] = _max_ratio_large_p(rows)
        # exact: eq. (5)/(6) is the bound's p → ∞ form; a mismatch refutes the pair whatever the runs
        gap = _large_p_limit_gap(setting)
        exact_violation = gap != 0
        evidence += f"; exact: bound as p → ∞ minus eq. ({5 if setting == 'pasan' else 6})'s large-p form = {gap}"
        if exact_violation:
            verdict = "violated"
            counter = dict(counter or {}, large_p_limit_minus_form=str(gap))
    # the runs must be the stated algorithm with its theorem's prescription (exact probe of the kernel's
    # configuration, no runs): if not, a holds is not established, a violation that rests on the runs alone is
    # no evidence about the statement (only the exact part's stands), and an undecided check gets no verdict
    departures = _rate_setting_departures(setting, budget)
    figures["mechanism_departures"] = len(departures)
    if departures and verdict == "violated" and not exact_violation:
        verdict, counter = "inconclusive", None
    verdict, evidence = decide.after_probe("; ".join(departures), f"pagan {name}", verdict, evidence,
                                           violation_from_runs=False)  # a run-based violation was voided above
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter, plots=[Figure(name, title, panels)], decisions=decisions)


@claim(
    "pagan.theorem1",
    kind="rate",
    tests=3,
    statement="""Theorem 1: PASAN with α = diam₂(X), T = c n²/b², A_k = C/B² (the prescribed B) satisfies
    E[f(x̄_T) − min f] ≤ O(diam₂·R_std(T) + diam₂·G_2p(C)·(√(tr(C⁻¹) log(1/δ))/(nε))^{(p−1)/p}·(diam_{C⁻¹}/diam₂)^{1/p})
    whenever Ĝ_p(S;C) ≤ G_2p(C): one constant serves every n, ε, d and T; eq. (5) is this bound for large p
    (its p → ∞ limit).""",
    theory=(tp.theorem1_bound, tp.theorem1_radius, tp.theorem1_large_p),
    notes=_RATE_NOTES + " Setting: unit ℓ₂ ball, C_jj = σ_j^(-1) (§3.2). "
    "Exact part: the large-p form (eq. (5)/(6)) must be the bound's p → ∞ limit (SymPy limit and simplify; "
    "violated otherwise, whatever the runs)."
    " Probe (exact, no runs): the kernel's configuration at the base point must keep the prescribed α, "
    "project onto A and draw noise with whitened multiplier √(log(1/δ))/ε (_rate_setting_departures); if it "
    "does not, a holds is not established, a violation that rests on the runs alone is withdrawn (only the exact "
    "part's stands) and an undecided check gets no verdict (decide.after_probe).",
)
def theorem1(budget: str, seed: int) -> Outcome:
    return _rate_outcome("pasan", "bound", budget, seed, "theorem1",
                         "pagan Theorem 1: PASAN on the unit ball, measured vs bound")


@claim(
    "pagan.theorem2",
    kind="rate",
    tests=3,
    statement="""Theorem 2: PAGAN with α = diam∞(X), T = c n²/b², A_k = C/B² (the prescribed B) satisfies
    E[f(x̄_T) − min f] ≤ O(diam∞·R_ada(T) + diam∞·G_2p(C)·(√(log(1/δ))·tr(C^{-1/2})/(nε))^{(p−1)/p}·(diam_{C⁻¹}/diam∞)^{1/p})
    whenever Ĝ_p(S;C) ≤ G_2p(C): one constant serves every n, ε, d and T; eq. (6) is this bound for large p
    (its p → ∞ limit).""",  # noqa: E501
    theory=(tp.theorem2_bound, tp.theorem2_radius, tp.theorem2_large_p),
    notes=_RATE_NOTES + " Setting: X∞ = [−1,1]^d, C_jj = σ_j^(-4/3) (§3.2). "
    "Exact part: the large-p form (eq. (5)/(6)) must be the bound's p → ∞ limit (SymPy limit and simplify; "
    "violated otherwise, whatever the runs)."
    " Probe (exact, no runs): the kernel's configuration at the base point must keep the prescribed α, "
    "project onto A and draw noise with whitened multiplier √(log(1/δ))/ε (_rate_setting_departures); if it "
    "does not, a holds is not established, a violation that rests on the runs alone is withdrawn (only the exact "
    "part's stands) and an undecided check gets no verdict (decide.after_probe).",
)
def theorem2(budget: str, seed: int) -> Outcome:
    return _rate_outcome("pagan", "bound", budget, seed, "theorem2",
                         "pagan Theorem 2: PAGAN on the box, measured vs bound")


def _rate_mechanism_faults(algorithm: str, d: int, decay: float, epsilon: float, delta: float, steps: int,
                           batch: int, alpha: float, ellipsoid: np.ndarray) -> list[str]:
    """Whether a rate claim's runs are the stated mechanism, exactly (no runs): the kernel's configuration for the
    claim's prescription (``kernels.make_config`` on a small dataset of the claim's problem: the configuration does
    not depend on the records) must keep the prescribed stepsize α, project every record onto its ellipsoid A and
    draw noise whose whitened multiplier ``noise_std · b · √a_j`` is theory.pagan.noise_multiplier √(log(1/δ))/ε in
    every coordinate j (Algorithms 1/2, lines 4-6), each to FIG1_Z_RTOL relative.  Returns the departures found
    (empty: the runs are the stated mechanism).  A private helper of pagan.theorem3.pagan and pagan.eq7.rate."""
    ds = kernels.make_problem("linear_subgaussian", seed=0, n=64, d=d, decay=decay, domain="box")
    cfg = kernels.make_config(algorithm, ds, epsilon=epsilon, delta=delta, steps=steps, batch_size=batch,
                              alpha=alpha, ellipsoid=np.asarray(ellipsoid, dtype=float), n_log=2)
    z = float(numeric(tp.noise_multiplier())(epsilon=epsilon, delta=delta))
    found = []
    if abs(float(cfg.alpha) / alpha - 1.0) > FIG1_Z_RTOL:
        found.append(f"stepsize {float(cfg.alpha) / alpha:.6g} × the prescribed α = {alpha:g}")
    if not cfg.clip:
        found.append("records not projected onto the ellipsoid A")
    ratios = np.asarray(cfg.noise_std, dtype=float) * batch * np.sqrt(np.asarray(cfg.ellipsoid, dtype=float)) / z
    far = float(ratios[np.argmax(np.abs(ratios - 1.0))])
    if abs(far - 1.0) > FIG1_Z_RTOL:
        found.append(f"noise multiplier {far:.6g} × √(log(1/δ))/ε in some coordinate (whitened by A)")
    return found


def _rate_setting_departures(setting: str, budget: str) -> list[str]:
    """:func:`_rate_mechanism_faults` at the base point of a rate sweep (RATE_GRIDS) for one of RATE_SETTINGS: the
    prescription of Theorem 1 (PASAN, α = diam₂ of its domain) or Theorem 2 (PAGAN, α = diam∞), b = rate_batch(n),
    T = c n²/b², the setting's geometry C.  A kernel fault acts at every point of the sweep, so one exact probe (no
    runs) says whether the runs are the stated mechanism; returns the departures found (empty: they are)."""
    algorithm, domain, geometry = RATE_SETTINGS[setting]
    base = RATE_GRIDS[by_budget(budget, "quick", "full")]["base"]
    n, d = int(base["n"]), int(base["d"])
    b0 = rate_batch(n)
    C = _geometry(kernels.pagan_problems.power_law_sigma(d, RATE_DECAY), geometry)
    diams = domain_diameters(domain, C)
    alpha = diams["diam2"] if algorithm == "pasan" else diams["diam_inf"]
    return _rate_mechanism_faults(algorithm, d, RATE_DECAY, float(base["epsilon"]), RATE_DELTA,
                                  lemma31_steps(base["c"], n, b0), b0, alpha, C)


_MECHANISM_INCONCLUSIVE = ("the kernel does not implement the stated mechanism ({}; exact check of its "
                           "configuration, no runs), so the runs are no evidence about the statement: inconclusive")


@claim(
    "pagan.eq9",
    kind="rate",
    tests=3,
    statement="""Eq. (9): PASAN with C_jj = σ_j^{-1}, p = log d, b = 1 has
    E[f(x̄_T) − min f] ≤ O(diam₂(X)·(R_std(T) + Σ_j σ_j/(nε)·log(d/δ))) — one constant for every n, ε, d, T.""",
    theory=(tp.eq9_full_rate, tp.eq9_rate),
    notes=_RATE_NOTES + " The runs are theorem1's (unit ball, C_jj = σ_j^(-1)); only the closed form differs. The "
    "form tested is eq. (9) as stated: it drops Theorem 1's factor (nε)^{1/p}·(…)^{1/p} (p = log d), which is "
    "bounded only while nε ≤ poly(d); on the planted data the ratio to it can grow with n where the ratio to "
    "Theorem 1 stays flat."
    " Probe (exact, no runs): the kernel's configuration at the base point must keep the prescribed α, "
    "project onto A and draw noise with whitened multiplier √(log(1/δ))/ε (_rate_setting_departures); if it "
    "does not, a holds is not established, a violation that rests on the runs alone is withdrawn (only the exact "
    "part's stands) and an undecided check gets no verdict (decide.after_probe).",
)
def eq9(budget: str, seed: int) -> Outcome:
    return _rate_outcome("pasan", "rate", budget, seed, "eq9",
                         "pagan eq. (9): PASAN on the unit ball, measured vs rate")


@claim(
    "pagan.eq7.rate",
    kind="rate",
    tests=3,
    statement="""Eq. (7): PAGAN with C_jj = σ_j^{-4/3}, p = log d, b = 1 has
    E[f(x̄_T) − min f] ≤ O(diam∞(X)·(R_ada(T) + (Σ_j σ_j^{2/3})^{3/2}/(nε)·log(d/δ))) — one constant for every
    n, ε, d, T. (Also shown, not part of the verdict: PASAN's measured loss on the same box against PAGAN's,
    beside the ratio √d·Σσ_j/(Σσ_j^{2/3})^{3/2} of their upper bounds.)""",
    theory=(tp.eq7_full_rate, tp.eq7_rate),
    notes=_RATE_NOTES + " The runs are theorem2's (X∞, C_jj = σ_j^(-4/3)); only the closed form differs. The "
    "form tested is eq. (7) as stated: it drops Theorem 2's factor (nε)^{1/p}·(…)^{1/p} (p = log d), bounded only "
    "while nε ≤ poly(d); on the planted data the ratio to it can grow with n where the ratio to Theorem 2 stays "
    "flat. The "
    "PASAN-on-the-box comparison runs Theorem 1's prescription on X∞ along the d axis. Exact part (no runs): the "
    "kernel's configuration for the base point's prescription must keep α = diam∞ = 2, project onto A and draw "
    "noise with whitened multiplier √(log(1/δ))/ε in every coordinate (to 1e-9 relative); if it does not, the runs "
    "are not eq. (7)'s PAGAN and the verdict is inconclusive whatever they show.",
)
def eq7_rate(budget: str, seed: int) -> Outcome:
    verdict, rows, decisions, figures, panels = _rate_check("pagan", "rate", budget, seed)
    fig = Figure("eq7_rate", "pagan eq. (7): PAGAN on the box, measured vs rate", panels)
    # PASAN on the same box along d: measured ratio vs the ratio of the two upper bounds
    pas_tasks = rate_tasks("pasan_box", budget, seed, axes=("d",))
    pas = _memo_sweep(_rate_task, pas_tasks, "pagan PASAN on the box")
    pag = {r["task"]["d"]: r for r in rows if r["assumption"] and r["task"].get("planted", 0.0) == 0.0 and all(
        r["task"][k] == v for k, v in RATE_GRIDS[by_budget(budget, "quick", "full")]["base"].items() if k != "d")}
    ds_, meas, pred = [], [], []
    f_ratio = numeric(tp.box_rate_ratio())
    for t, o in zip(pas_tasks, pas):
        d = t["d"]
        if d not in pag:
            continue
        sigma = kernels.pagan_problems.power_law_sigma(d, RATE_DECAY)
        ds_.append(d)
        meas.append(float(np.mean(o["excess"])) / max(pag[d]["ci"].estimate, np.finfo(float).tiny))
        pred.append(float(f_ratio(d=d, S_1=float(sigma.sum()), S_2_3=float(np.sum(sigma ** (2 / 3))))))
    for d, m, pr in zip(ds_, meas, pred):
        figures[f"pasan_over_pagan_d{d}"] = m
        figures[f"bound_ratio_d{d}"] = pr
    fig = Figure(fig.name, fig.title, list(fig.panels) + [Panel(
        "PASAN vs PAGAN on X∞ (not in the verdict)", "d", "ratio", [
            Series("measured PASAN / PAGAN excess", ds_, meas, style="points"),
            Series("√d Σσ_j / (Σσ_j^(2/3))^(3/2) (upper bounds)", ds_, pred)], xscale="log", yscale="log")])
    ev = _rate_evidence(verdict, rows, decisions, figures) + "; measured PASAN/PAGAN on X∞ " + ", ".join(
        f"d={d}: {m:.3g} (bounds {pr:.3g})" for d, m, pr in zip(ds_, meas, pred))
    # the runs must be eq. (7)'s PAGAN (Theorem 2's prescription at the base point; exact, no runs)
    base = RATE_GRIDS[by_budget(budget, "quick", "full")]["base"]
    b0 = rate_batch(int(base["n"]))
    sigma0 = kernels.pagan_problems.power_law_sigma(int(base["d"]), RATE_DECAY)
    departures = _rate_mechanism_faults("pagan", int(base["d"]), RATE_DECAY, float(base["epsilon"]), RATE_DELTA,
                                        lemma31_steps(base["c"], int(base["n"]), b0), b0, 2.0,
                                        _geometry(sigma0, "pagan"))
    figures["mechanism_departures"] = len(departures)
    counter = _rate_counter(verdict, rows, decisions)
    if departures:
        verdict, counter = "inconclusive", None
        ev = _MECHANISM_INCONCLUSIVE.format("; ".join(departures)) + "; " + ev
    return Outcome(verdict=verdict, evidence=ev, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


#: O(·) rate claims and the kernel fault noise*3 (every privacy-noise draw ×3): the claims' own bounds depend on the
#: noise scale z·B only through 1/ε (z ∝ √log(1/δ)/ε), and with ε → ε/3 each stays within a factor in [1, 3] of
#: itself (limit 3^{(p−1)/p} for Theorems 1/2, 3 for eq. (9), as n → ∞): the statement with that constant is the
#: same O(·) statement (tests/verify/test_pagan_rate_equivalents.py checks this in SymPy).
_NOISE3_EQUIVALENT = ("O(·) rate: the claim's bound with the noise scale ×3 (ε → ε/3 in its privacy term) stays "
                      "within a factor in [1, 3] of the original (SymPy: the ratio's limit as n → ∞ is finite and "
                      "nonzero), so one more constant factor leaves the O(·) statement unchanged")
for _cid in ("pagan.theorem1", "pagan.theorem2", "pagan.eq9"):
    declare_equivalent(_cid, "noise*3", _NOISE3_EQUIVALENT)
#: eq7.rate shows PASAN against PAGAN on the box beside its verdict through theory.pagan.box_rate_ratio (the ratio
#: of the two bounds), but its statement, decisions and verdict are eq. (7)'s alone: that comparison is
#: pagan.section3.2.box's claim, which declares box_rate_ratio; eq7.rate does not (what it only displays is not its
#: theory, so no mutant of it is counted here).


# ======================================================================================
# Theorem 3: Algorithm 3's accuracy guarantee (10)
# ======================================================================================
THM3_BETA = 0.1
THM3_EPSILON = 1.0
THM3_DELTA = 1e-5
THM3_R = 1.0  # Gaussian data satisfy Definition 4.1 with r = 1 (checked in the claim)
# Profiles: σ_j = j^{-3/2} (every σ_j ≥ d^{-3/2} ≥ 2^{-T-1}), and profiles with a coordinate below
# 2^{-T-1}, where σ̂_j ≥ 2^{-T} > 2σ_j whatever the data: the smallest (d = 2, σ = (1, 0.1)) and
# σ_j = j^{-2} at d = 10.
THM3_GRIDS = {
    "quick": dict(trials=40, configs=(("j^-1.5", 4), ("j^-1.5", 10), ("(1, 0.1)", 2), ("j^-2", 10))),
    "full": dict(trials=400, configs=(("j^-1.5", 4), ("j^-1.5", 10), ("j^-1.5", 30), ("(1, 0.1)", 2),
                                      ("j^-2", 10))),
}


def thm3_sigma(profile: str, d: int) -> np.ndarray:
    """The σ-profiles of the Theorem 3 check (max σ_j = 1 as the theorem assumes).

    Parameters
    ----------
    profile : str
        "(1, 0.1)", "j^-1.5" or "j^-2".
    d : int
        The dimension (power-law profiles only; "(1, 0.1)" has d = 2).

    Returns
    -------
    numpy.ndarray
        σ_1..σ_d.
    """
    if profile == "(1, 0.1)":
        return np.array([1.0, 0.1])
    return kernels.pagan_problems.power_law_sigma(d, {"j^-1.5": 1.5, "j^-2": 2.0}[profile])


def thm3_sample_size(d: int) -> int:
    """Theorem 3's n (reconstructed condition, theory.pagan.theorem3_sample_size) at r = 1, β, ε, δ of the check.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    int
        n, rounded up.
    """
    T = kernels.moments.rounds_for(d)
    f = numeric(tp.theorem3_sample_size())
    return int(math.ceil(float(f(T=T, beta=THM3_BETA, d=d, delta=THM3_DELTA, epsilon=THM3_EPSILON, r=THM3_R))))


def _thm3_task(profile: str, d: int, n: int, trials: int, seed: int) -> dict:
    sigma = thm3_sigma(profile, d)
    lower, upper = thm3_sides(sigma)
    ok, ok_lower, ok_upper, ok_floor_upper = (np.zeros(trials, dtype=bool) for _ in range(4))
    sig_hat = np.empty((trials, d))
    for i, s in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        rng = np.random.default_rng(s)
        Z = rng.standard_normal((n, d)) * sigma
        est = kernels.moments.second_moment_estimate(Z, r=THM3_R, epsilon=THM3_EPSILON, delta=THM3_DELTA, rng=rng)
        sh = est["sigma_hat"]
        sig_hat[i] = sh
        ok_lower[i] = bool(np.all(lower <= sh))
        ok_upper[i] = bool(np.all(sh <= upper))
        ok[i] = ok_lower[i] and ok_upper[i]
        ok_floor_upper[i] = bool(np.all(sh <= 2 * np.maximum(sigma, float(d) ** -1.5)))
    # Theorem 3's second part rests on the plug-in geometry Ĉ = (rσ̂)^{-4/3}/4: its rate factor
    # tr(Ĉ^{-1/2})·√(Σ Ĉ σ²) over the optimal (Σσ^{2/3})^{3/2}, for the trials where (10) holds
    c_hat = np.asarray(numeric(tp.theorem3_estimated_C())(r=THM3_R, sigmahat_j=sig_hat), dtype=float)
    factor = np.sum(c_hat**-0.5, axis=1) * np.sqrt(np.sum(c_hat * sigma**2, axis=1))
    factor_ratio = np.where(ok, factor / float(np.sum(sigma ** (2 / 3))) ** 1.5, np.nan)
    return {"ok": ok, "ok_lower": ok_lower, "ok_upper": ok_upper, "ok_floor_upper": ok_floor_upper,
            "factor_ratio": factor_ratio,
            "sigma_hat": sig_hat, "floor": float(numeric(tp.theorem3_floor())(T=kernels.moments.rounds_for(d)))}


def gaussian_moment_ratio(pmax: float) -> float:
    """sup over p ∈ [1, pmax] of E|N|^p^{2/p}/p for N ~ N(0,1): Definition 4.1 holds with r² = this (exact, gamma functions).

    Parameters
    ----------
    pmax : float
        The largest p (values below 1 are read as 1).

    Returns
    -------
    float
        The supremum over a grid of 400 values of p.
    """  # noqa: E501
    from scipy.special import gammaln
    ps = np.linspace(1.0, max(1.0, pmax), 400)
    log_m = ps / 2 * math.log(2) + gammaln((ps + 1) / 2) - 0.5 * math.log(math.pi)
    return float(np.max(np.exp(2 / ps * log_m) / ps))


def _thm3_runs(budget: str, seed: int) -> tuple[list[dict], list[dict]]:
    g = THM3_GRIDS[by_budget(budget, "quick", "full")]
    tasks = [dict(profile=pr, d=d, n=thm3_sample_size(d), trials=g["trials"],
                  seed=child_seed(seed, "pagan.theorem3", i))
             for i, (pr, d) in enumerate(g["configs"])]
    return tasks, _memo_sweep(_thm3_task, tasks, "pagan.theorem3 Algorithm 3 runs")


def _thm3_key(t: dict) -> str:
    return re.sub(r"[^\w.^-]+", "_", t["profile"]).strip("_") + f"_d{t['d']}"


#: the scales k of the exact search for an empty interval of (10): σ_j = d^{-3/2}/5^k (k = 1: σ_j < d^{-3/2}/4)
THM3_EMPTY_SCALES = tuple(range(1, 13))


def _eval_free(expr, **values):
    """Evaluate a closed form at the values of its own free symbols (the other values given are ignored)."""
    expr = sp.sympify(expr)
    names = {s.name for s in expr.free_symbols}
    return numeric(expr)(**{k: v for k, v in values.items() if k in names})


def thm3_sides(sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both ends of eq. (10)'s interval for every coordinate, from theory.pagan.theorem3_lower and theorem3_upper.

    Parameters
    ----------
    sigma : numpy.ndarray
        σ_1..σ_d (d is its length).

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)``, each of length d.

    Raises
    ------
    TypeError
        When a side's closed form has a free symbol other than ``sigma_j`` and ``d``.
    """
    sigma = np.asarray(sigma, dtype=float)
    d = sigma.size
    ones = np.ones(d)
    lo = np.asarray(_eval_free(tp.theorem3_lower(), sigma_j=sigma, d=d), dtype=float) * ones
    up = np.asarray(_eval_free(tp.theorem3_upper(), sigma_j=sigma, d=d), dtype=float) * ones
    return lo, up


def thm3_empty_interval(dims=range(2, 11)) -> dict | None:
    """Exact: the smallest d and a σ (max σ_j = 1) for which eq. (10)'s interval [½max(σ_j, d^{-3/2}), 2σ_j] is empty
    for some j (σ_j < d^{-3/2}/4), evaluated with theory.pagan.theorem3_lower/upper (:func:`thm3_sides`) at
    σ = (1, s, …, s), s = d^{-3/2}/5^k for k = 1, 2, … (:data:`THM3_EMPTY_SCALES`); None if none in ``dims``.

    Parameters
    ----------
    dims : iterable of int
        The dimensions tried, in order.

    Returns
    -------
    dict or None
        ``d``, ``sigma``, ``coordinate`` (1-based), ``lower`` and ``upper``.
    """
    for d in dims:
        for k in THM3_EMPTY_SCALES:  # σ_j = d^{-3/2}/5^k: k = 1 is below d^{-3/2}/4 (the first one tried)
            sj = float(d) ** -1.5 / 5.0**k
            sigma = np.array([1.0] + [sj] * (d - 1))
            lo, up = thm3_sides(sigma)
            if np.any(lo > up):
                j = int(np.argmax(lo - up))
                return dict(d=d, sigma=sigma.tolist(), coordinate=j + 1, lower=float(lo[j]), upper=float(up[j]))
    return None


def _thm3_floor_upper_mutant() -> Mutant:
    """A declared repair mutant: (10)'s right end 2σ_j replaced by 2·max(σ_j, d^{-3/2}) (the floor on both sides,
    the reading of pagan.theorem3.floor), under which the interval is never empty and lies above line 14's floor."""

    def upper():
        return 2 * sp.Max(tp.sigma_j, tp.d ** sp.Rational(-3, 2))

    return Mutant("theorem3_upper:2max(σ_j,d^-3/2)", "theory.pagan.theorem3_upper: 2·max(σ_j, d^{-3/2}) in place of "
                  "2σ_j (the corrected reading, pagan.theorem3.floor)", "theory",
                  lambda: substituted("theory.pagan.theorem3_upper", upper))


@claim(
    "pagan.theorem3",
    kind="expectation",
    tests=5,  # the runs' decisions (one per profile), made only when no exact refutation stands
    statement="""Theorem 3, eq. (10): for z with moment ratio r, max_j σ_j = 1, β > 0, T = (3/2) log d and n above the
    stated sample size, Algorithm 3 outputs σ̂ with ½·max(σ_j, d^{-3/2}) ≤ σ̂_j ≤ 2σ_j for all j ∈ [d], with
    probability at least 1 − β.""",
    theory=(tp.theorem3_sample_size, tp.theorem3_lower, tp.theorem3_upper, tp.theorem3_floor),
    # a larger required n, a lower left end or a higher right end of (10) only weakens the statement
    weaker_if={"theory.pagan.theorem3_sample_size": "larger", "theory.pagan.theorem3_lower": "smaller",
               "theory.pagan.theorem3_upper": "larger"},
    mutants=[_thm3_floor_upper_mutant()],
    notes="Decided exactly when an exact refutation stands: for a coordinate with σ_j < d^{-3/2}/4 the interval of "
    "(10) is empty (½·d^{-3/2} > 2σ_j), so no output of any algorithm satisfies (10) and its probability is 0 < 1 − β; "
    "Gaussian z has r = 1 (sup_p E|N|^p^{2/p}/p ≤ 1, computed), so such a σ is admissible. Also exact: the line-14 "
    "floor σ̂_j ≥ 2^{-T} exceeds 2σ_j whenever σ_j < 2^{-T-1} (with T = ⌈(3/2)log₂ d⌉: (1, 0.1) at d = 2, j^{-2} at "
    "d = 10) (both searched with theory.pagan.theorem3_lower/upper: σ_j = d^{-3/2}/5^k, k = 1..12, d = 2..10; "
    "the floor against the right end at the runs' σ). Without an exact refutation (e.g. under the declared repair "
    "2·max(σ_j, d^{-3/2})) the runs decide: per profile verify.decide.proportion_at_most of the failure frequency "
    "of (10) against β (as pagan.theorem3.floor). Otherwise reported, not deciding: Algorithm 3's runs (Gaussian z, "
    "β = 0.1, ε = 1, δ = 1e-5, n the reconstructed "
    "sample size with line 5's T² noise, fresh data and noise per trial) with the failure frequency of (10) per "
    "profile; the corrected reading σ̂_j ≤ 2·max(σ_j, d^{-3/2}) is pagan.theorem3.floor. The privacy half of "
    "Theorem 3 is pagan.algorithm3.privacy. Of the second half (PAGAN with Ĉ = (rσ̂)^{-4/3}/4 attains eq. (7)'s "
    "rate) the check covers the step it rests on: under (10) the rate factor tr(Ĉ^{-1/2})·√(ΣĈσ²) is within "
    "2^{4/3} of the optimal (Σσ^{2/3})^{3/2} (theory.pagan.theorem3_factor_bound), at every output where (10) "
    "holds (exact comparison); PAGAN rerun with Ĉ at b = 1 is pagan.theorem3.pagan.",
)
def theorem3(budget: str, seed: int) -> Outcome:
    tasks, outs = _thm3_runs(budget, seed)
    r2 = gaussian_moment_ratio(2 * math.log(max(t["d"] for t in tasks)))
    figures = {"gaussian_moment_ratio_r2": r2}
    empty = thm3_empty_interval()
    floor_broken, decisions = [], []
    for t, o in zip(tasks, outs):
        key = _thm3_key(t)
        sigma = thm3_sigma(t["profile"], t["d"])
        _, upper = thm3_sides(sigma)
        figures.update({f"failure_rate_{key}": 1 - float(np.mean(o["ok"])), f"n_{key}": t["n"],
                        f"lower_half_rate_{key}": float(np.mean(o["ok_lower"])),
                        f"upper_half_rate_{key}": float(np.mean(o["ok_upper"]))})
        if float(o["floor"]) > float(np.min(upper)):  # line 14's floor above the right end of (10) somewhere
            floor_broken.append((t, o, sigma, float(np.min(upper))))
    ratios = np.concatenate([np.asarray(o["factor_ratio"], dtype=float) for o in outs])
    ratios = ratios[np.isfinite(ratios)]
    limit = float(tp.theorem3_factor_bound().subs(tp.power_sum(sp.Rational(2, 3)), 1))
    worst_factor = float(ratios.max()) if ratios.size else float("nan")
    if ratios.size:
        figures.update({"plugin_factor_ratio_max": worst_factor, "plugin_factor_ratio_bound": limit})
    figures["plugin_factor_trials"] = int(ratios.size)
    factor_ok = (not ratios.size) or worst_factor <= limit * (1 + 1e-12)
    exact = bool(empty or floor_broken or not factor_ok or r2 > THM3_R**2)
    if not exact:  # the probability statement itself (e.g. under the declared repair), held to 1 − β per profile
        decisions = [decide.proportion_at_most(int(np.sum(~np.asarray(o["ok"]))), t["trials"], THM3_BETA,
                                               what=f"{t['profile']}, d={t['d']}, n={t['n']}: P(σ̂ outside (10))")
                     for t, o in zip(tasks, outs)]
    verdict = "violated" if exact else str(decide.combine(decisions))
    counter = None
    if not exact and verdict == "violated":
        counter = {dd.reason: dd.estimate for dd in decisions if str(dd.verdict) == "violated"}
    if empty:
        counter = dict(empty, r=THM3_R, reason="interval of (10) empty: ½·max(σ_j, d^-3/2) > 2σ_j")
        figures["empty_interval_d"] = empty["d"]
    evidence = ("violated (exact): " if exact else f"{verdict} (no exact refutation; runs decided): ") + (
        f"at d={empty['d']}, σ_{empty['coordinate']} = {empty['sigma'][empty['coordinate'] - 1]:.4g} (< d^-3/2/4) the "
        f"interval of (10) is empty: ½·max(σ_j, d^-3/2) = {empty['lower']:.4g} > 2σ_j = {empty['upper']:.4g}, so (10) "
        "fails with probability 1 for every algorithm" if empty else "the interval of (10) is never empty for d ≤ 10")
    for t, o, sigma, up_min in floor_broken:
        evidence += (f"; {t['profile']}, d={t['d']}: the floor 2^-T = {float(o['floor']):g} > 2·min σ_j = "
                     f"{up_min:g}, so (10)'s upper half fails in every run")
    if not exact:
        evidence += "; " + "; ".join(dd.phrase() for dd in decisions)
    evidence += "; runs (reported): " + "; ".join(
        f"{t['profile']}, d={t['d']}, n={t['n']}: (10) fails in {int(np.sum(~np.asarray(o['ok'])))}/{t['trials']}"
        for t, o in zip(tasks, outs))
    evidence += (f"; where (10) holds ({ratios.size} outputs) the plug-in rate factor is at most "
                 f"{worst_factor:.3g}× the optimal one (derived limit 2^(4/3) = {limit:.3g})")
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter,
                   plots=[_thm3_figure(tasks, outs)], decisions=decisions)


_THM3_STILL_FALSE = (
    "the mutated statement is still false: {what}, and at d = 2, σ = (1, 2^{{-3/2}}/5^k) for a k ≤ 12 the mutated "
    "interval of (10) is still empty (½·max(σ_j, d^{{-3/2}}) and 2σ_j, mutated as stated, cross), so no output "
    "meets it (checked exactly in tests/verify/test_issue25_pagan_exact.py)")
for _m in ("x10", "pow1.25", "pow0.75"):
    declare_equivalent("pagan.theorem3", f"theorem3_sample_size:{_m}", _THM3_STILL_FALSE.format(
        what="the emptiness of the interval does not depend on n, and the mutated sample size is finite"))
    declare_equivalent("pagan.theorem3", f"theorem3_upper:{_m}", _THM3_STILL_FALSE.format(
        what="the right end, mutated, still falls below the left end for σ_j small enough"))
for _m in ("x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("pagan.theorem3", f"theorem3_lower:{_m}", _THM3_STILL_FALSE.format(
        what="the left end, mutated, still exceeds 2σ_j for σ_j small enough"))
for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("pagan.theorem3", f"theorem3_floor:{_m}", _THM3_STILL_FALSE.format(
        what="line 14's floor is not part of (10) (it only gives a second refutation)"))


def _thm3_figure(tasks, outs) -> Figure:
    labels = [f"{t['profile']}, d={t['d']}" for t in tasks]
    xs = np.arange(len(tasks))
    return Figure("theorem3", "pagan Theorem 3: how often Algorithm 3's output satisfies (10)", [Panel(
        "failure frequency vs β", "configuration\n" + "\n".join(
            " | ".join(f"{i}: {lab}" for i, lab in list(enumerate(labels))[k:k + 2]) for k in range(0, len(labels), 2)),
        "P(failure)", [
            Series("(10) as stated", xs, [1 - float(np.mean(o["ok"])) for o in outs], style="points"),
            Series("with σ̂_j ≤ 2·max(σ_j, d^-3/2)", xs,
                   [1 - float(np.mean(np.asarray(o["ok_lower"]) & np.asarray(o["ok_floor_upper"]))) for o in outs],
                   style="points"),
            Series("β", xs, [THM3_BETA] * len(tasks), style="dashed")])])


@claim(
    "pagan.theorem3.floor",
    kind="expectation",
    tests=5,
    statement="""Theorem 3, eq. (10) with the floor on both sides (corrected reading): under Theorem 3's hypotheses,
    Algorithm 3 outputs σ̂ with ½·max(σ_j, d^{-3/2}) ≤ σ̂_j ≤ 2·max(σ_j, d^{-3/2}) for all j ∈ [d], with
    probability at least 1 − β.""",
    theory=(tp.theorem3_sample_size, tp.theorem3_lower),
    # a larger required n (the runs then use more data) or a lower left end of the interval only weakens it
    weaker_if={"theory.pagan.theorem3_sample_size": "larger", "theory.pagan.theorem3_lower": "smaller"},
    notes="The literal (10) is refuted exactly (pagan.theorem3: its interval is empty for σ_j < d^{-3/2}/4, and the "
    "line-14 floor 2^{-T} exceeds 2σ_j for σ_j < 2^{-T-1}); the floor on the upper side is the reading under "
    "which the guarantee can hold for every σ. Runs as pagan.theorem3 (shared): Gaussian z (r = 1), β = 0.1, ε = 1, "
    "δ = 1e-5, n the reconstructed sample size (T² noise of line 5), profiles j^{-3/2} at d = 4, 10 (30 at full), "
    "(1, 0.1) at d = 2 and j^{-2} at d = 10; one decision per profile (verify.decide.proportion_at_most, exact "
    "Clopper–Pearson): holds when the 95% upper bound on the failure frequency is ≤ β, violated when the "
    "family-corrected lower bound is above β.",
)
def theorem3_floor(budget: str, seed: int) -> Outcome:
    tasks, outs = _thm3_runs(budget, seed)
    decisions, figures = [], {}
    for t, o in zip(tasks, outs):
        ok = np.asarray(o["ok_lower"]) & np.asarray(o["ok_floor_upper"])
        fails = int(np.sum(~ok))
        dd = decide.proportion_at_most(fails, t["trials"], THM3_BETA,
                                       what=f"{t['profile']}, d={t['d']}, n={t['n']}: P(σ̂ outside the corrected (10))")
        decisions.append(dd)
        key = _thm3_key(t)
        figures.update({f"failure_rate_{key}": fails / t["trials"], f"failure_rate_{key}_hi": dd.holds_bound,
                        f"n_{key}": t["n"]})
    verdict = decide.combine(decisions)
    order = sorted(decisions, key=lambda d: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d.verdict)])
    evidence = "; ".join(d.phrase() for d in order)
    counter = None
    if verdict == "violated":
        counter = {d.reason: d.estimate for d in decisions if str(d.verdict) == "violated"}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter,
                   plots=[_thm3_figure(tasks, outs)], decisions=decisions)


# ======================================================================================
# Lower bounds of §5: Proposition 1 / Theorem 4 on X∞, Proposition 2 / Theorem 5 on X₂
# ======================================================================================
LB_ALGORITHMS = ("dp_sgd", "pasan", "pagan", "pagan_opt", "pdp_sgd")
LB_DELTA = 1e-5
LB_BATCH = 10
LB_N = 1000
LB_BIASES = (0.0, 0.03, 0.1, 0.3)  # planted biases of the hard instances (sign_mean)
LB_GRIDS = {
    "quick": dict(d=(16, 64), epsilon=(1.0,), trials=6, datasets=1),
    "full": dict(d=(4, 16, 64, 256), epsilon=(0.5, 1.0), trials=20, datasets=2),
}


def _lb_task(algorithm: str, domain: str, decay: float, n: int, d: int, epsilon: float, bias: float, trials: int,
             seed: int, data_seed: int) -> dict:
    """Runs of one private algorithm on one hard instance: excess f(x̄_T) − f(x*) and the sign-error functional."""
    ds = kernels.make_problem("sign_mean", seed=data_seed, n=n, d=d, decay=decay, bias=bias, domain=domain)
    steps = lemma31_steps(RATE_C, n, LB_BATCH)
    out = kernels.run_algorithm(algorithm, ds, epsilon=epsilon, delta=LB_DELTA, steps=steps, batch_size=LB_BATCH,
                                alpha=1.0, trials=trials, seed=seed, n_log=2)
    zbar = -ds.features.mean(axis=0)
    x = out.x_avg
    excess = ds.loss(x) - ds.min_loss()
    sign_err = np.sum(np.abs(zbar) * (np.sign(x) != np.sign(zbar)), axis=1)
    return {"excess": excess, "sign_error": sign_err, "steps": steps, "zbar_l1": float(np.abs(zbar).sum()),
            "zbar_l2": float(np.linalg.norm(zbar))}


def _lb_runs(domain: str, decay: float, budget: str, seed: int,
             applies=None) -> tuple[list[dict], list[dict | None], dict]:
    """Every algorithm on every hard instance of the grid; and the accountant ε of the runs (per nominal ε).  With
    ``applies`` (d, accountant ε) -> bool, the tasks of the (d, ε) where it is False are not run (their output is
    None): a cell outside the hypothesis enters no verdict (:func:`_lb_compare`)."""
    g = LB_GRIDS[by_budget(budget, "quick", "full")]
    steps = lemma31_steps(RATE_C, LB_N, LB_BATCH)
    acct = {}
    for e in g["epsilon"]:
        z = float(numeric(tp.noise_multiplier())(epsilon=e, delta=LB_DELTA))
        acct[e] = float(with_replacement_epsilon(LB_N, LB_BATCH, z, steps, LB_DELTA))
    tasks = []
    for d in g["d"]:
        for e in g["epsilon"]:
            for bi, bias in enumerate(LB_BIASES):
                for k in range(g["datasets"]):
                    for ai, a in enumerate(LB_ALGORITHMS):
                        tasks.append(dict(algorithm=a, domain=domain, decay=decay, n=LB_N, d=d, epsilon=e, bias=bias,
                                          trials=g["trials"],
                                          seed=child_seed(seed, "pagan.proposition1.d3", "run", d, int(1000 * e),
                                                          bi, k, ai),
                                          data_seed=child_seed(seed, "pagan.proposition1.d3", "data", d, bi, k)))
    keep = [applies is None or bool(applies(t["d"], acct[t["epsilon"]])) for t in tasks]
    ran = iter(_memo_sweep(_lb_task, [t for t, k in zip(tasks, keep) if k], f"pagan lower bounds on {domain}"))
    outs = [next(ran) if k else None for k in keep]
    return tasks, outs, acct


def _lb_compare(tasks, outs, acct, field: str, lower_bound, condition) -> tuple[list[dict], list[str]]:
    """Per (d, ε, algorithm): the largest lower confidence bound over instances of E[field] against the bound.

    The bound is evaluated at the accountant ε of the runs (the algorithms are (ε_acc, δ)-DP; the bound
    decreases in ε, so this is the strongest bound that applies).  A lower confidence bound above it
    shows sup_S E ≥ bound for that algorithm (holds); otherwise the finite family of instances cannot
    show it (inconclusive).  Bonferroni over the instances of a cell.
    """
    cells: dict = {}
    for t, o in zip(tasks, outs):
        cells.setdefault((t["d"], t["epsilon"], t["algorithm"]), []).append((t, o))
    rows, verdicts = [], []
    for (d, e, a), items in sorted(cells.items()):
        e_acc = acct[e]
        sigma = kernels.pagan_problems.power_law_sigma(d, items[0][0]["decay"])
        lb = lower_bound(d, e_acc, sigma)
        hyp = bool(condition(d, e_acc))
        if not hyp:  # outside the hypothesis: no verdict (its runs may have been skipped, see _lb_runs)
            rows.append(dict(d=d, epsilon=e, epsilon_accountant=e_acc, algorithm=a, lower_bound=lb, hypothesis=hyp,
                             sup_mean=math.nan, sup_lo=math.nan, bias=math.nan, verdict="not applicable"))
            continue
        if any(o is None for _, o in items):
            raise ValueError(f"a cell inside the hypothesis (d={d}, ε={e}, {a}) has tasks that were not run")
        level = 1 - 0.05 / len(items)
        cis = [stats.mean_ci(np.asarray(o[field], dtype=float), level=level) for _, o in items]
        best = max(range(len(items)), key=lambda i: cis[i].lo)
        v = "holds" if cis[best].lo >= lb else "inconclusive"
        verdicts.append(v)
        rows.append(dict(d=d, epsilon=e, epsilon_accountant=e_acc, algorithm=a, lower_bound=lb, hypothesis=hyp,
                         sup_mean=cis[best].estimate, sup_lo=cis[best].lo, bias=items[best][0]["bias"], verdict=v))
    return rows, verdicts


def _lb_measured(domain: str, decay: float, budget: str, seed: int, field: str, lower_bound, condition,
                 exact_violated: bool) -> tuple[list[dict], list[str]]:
    """The measured part of a lower-bound claim (:func:`_lb_runs`, then :func:`_lb_compare`), or nothing when an
    exact part already refutes the statement: the cells can only say holds or inconclusive (:func:`_lb_outcome`),
    never move a violated verdict, so the runs are skipped there (the exact parts are computed first); and the runs
    of the (d, ε) outside the hypothesis (at the accountant ε), which enter no verdict, are not made."""
    if exact_violated:
        return [], []
    tasks, outs, acct = _lb_runs(domain, decay, budget, seed, applies=condition)
    return _lb_compare(tasks, outs, acct, field, lower_bound, condition)


LB_EDGE_GRID = np.unique(np.concatenate([np.geomspace(1e-3, 1e3, 61), [1.0]]))  # nε at n = 1


def _hypothesis_boundary(condition, d: int) -> float | None:
    """The smallest nε (n = 1) at which ``condition(d, nε)`` holds, to rounding: bisection between the last grid
    value where it fails and the first where it holds (the hypotheses are monotone in nε); None when it holds at no
    grid value, the first grid value when it holds at every one."""
    ok = [bool(condition(d, ne)) for ne in LB_EDGE_GRID]
    if not any(ok):
        return None
    k = ok.index(True)
    if k == 0:
        return float(LB_EDGE_GRID[0])
    lo, hi = float(LB_EDGE_GRID[k - 1]), float(LB_EDGE_GRID[k])
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if condition(d, mid):
            hi = mid
        else:
            lo = mid
    return hi


def _edge_top(trivial_max, witness, sigma, ne, lb) -> tuple[float, dict]:
    """The value the lower bound ``lb`` is compared with at (σ, nε): ``trivial_max(σ)`` (a value some mechanism
    attains whatever ε is), or, where ``lb`` does not exceed it, ``witness(σ, nε)`` when that is smaller (the point
    is then marked ``witness``: a mechanism whose ε is nε at n = 1)."""
    top = float(trivial_max(sigma))
    if witness is not None and not lb > top:
        w = float(witness(sigma, ne))
        if w < top:
            return w, {"witness": "the value of randomized response on the signs (ε/d per coordinate, (ε, 0)-DP) "
                             "at n = 1"}
    return top, {}


def _lb_edge(lower_bound, condition, trivial_max, dims=range(1, 11),
             boundary: bool = False, witness=None) -> tuple[str, dict | None, int, list]:
    """Exact: is the lower bound ever above the largest value the left side can take, at the smallest nε the
    hypothesis allows (n = 1, ε minimal; the bound decreases in nε)?  Flat σ ≡ 1 and σ_j = j^{-3/2}.  The nε are
    LB_EDGE_GRID's, and with ``boundary`` also the hypothesis' own boundary (:func:`_hypothesis_boundary`), where a
    bound that fails only just above it is caught.  ``witness(σ, nε)``, when given, is sup_S of the left side for
    an (nε, 0)-DP mechanism at n = 1 that improves with nε (randomized response): the bound must not exceed it
    either, and the counterexample reported is then the smallest nε that fails at the smallest d (the largest
    ratio there), not the largest ratio, which such a witness makes arbitrarily large at the grid's top."""
    worst, worst_key, checked, degenerate = None, None, 0, set()
    for d in dims:
        edge = _hypothesis_boundary(condition, d) if boundary else None
        values = LB_EDGE_GRID if edge is None else np.unique(np.concatenate([LB_EDGE_GRID, [edge]]))
        for decay in (0.0, 1.5):
            sigma = kernels.pagan_problems.power_law_sigma(d, decay)
            for ne in values:
                if not condition(d, ne):
                    continue
                checked += 1
                with np.errstate(divide="ignore"):
                    lb = lower_bound(d, ne, sigma)
                if not np.isfinite(lb):  # log d = 0 at d = 1: the right side is undefined, not false
                    degenerate.add(d)
                    continue
                top, by = _edge_top(trivial_max, witness, sigma, ne, lb)
                # an ε-free refutation first (largest ratio); a witness's at the smallest nε (its ratio grows with nε)
                key = (d, 1, float(ne), -lb / top) if by else (d, 0, -lb / top)
                if lb > top and (worst is None or key < worst_key):
                    worst_key = key
                    worst = dict(d=d, sigma=sigma.tolist(), n=1, epsilon=float(ne), lower_bound=float(lb),
                                 largest_possible=float(top), ratio=float(lb / top), **by)
    return ("violated" if worst else "holds"), worst, checked, sorted(degenerate)


def _lb_outcome(name: str, title: str, field: str, rows, verdicts, edge, extra_fig=None, extra=None,
                untestable: str = "", edge_what: str = "the largest possible value") -> Outcome:
    """The verdict of a lower-bound claim.  Only exact parts can refute it (the measured part can exhibit
    instances at or above the bound, never show that every DP algorithm stays below it on every S), so
    its cells are not tests of the family: violated comes from the exact edge (or an exact closed-form
    check passed in ``verdicts``); holds needs every applicable cell to show sup_S E ≥ bound at 95%
    (Bonferroni over the instances of a cell) and the exact parts to pass; ``untestable`` names what a
    claim as built cannot test, and makes it inconclusive."""
    edge_v, edge_ex, edge_n, degenerate = edge
    if edge_v == "violated" or "violated" in verdicts:
        verdict = "violated"
    elif untestable:
        verdict = "inconclusive"
    elif verdicts and all(v == "holds" for v in verdicts):
        verdict = "holds"
    else:
        verdict = "inconclusive"
    applicable = [r for r in rows if r["hypothesis"]]
    held = sum(r["verdict"] == "holds" for r in applicable)
    figures = {"cells": len(rows), "cells_applicable": len(applicable), "cells_holding": held,
               "edge_points_checked": edge_n,
               "min_sup_over_bound": min((r["sup_lo"] / r["lower_bound"] for r in applicable), default=float("nan"))}
    for r in applicable:
        figures[f"sup_over_bound_{r['algorithm']}_d{r['d']}_eps{r['epsilon']:g}"] = r["sup_lo"] / r["lower_bound"]
    if extra:
        figures.update(extra)
    if rows:
        evidence = (f"{held}/{len(applicable)} (d, ε, algorithm) cells where the hypothesis holds show sup_S E ≥ bound "
                    "(lower 95% CI, bound at the accountant ε ∈ "
                    f"{{{', '.join(f'{e:.3g}' for e in sorted({r['epsilon_accountant'] for r in rows}))}}}); "
                    f"smallest lower-CI/bound {figures['min_sup_over_bound']:.3g}; "
                    f"{len(rows) - len(applicable)} cells outside the hypothesis")
    else:
        evidence = ("the measured part was not run (an exact part refutes the statement, and the cells can only show "
                    "holds or inconclusive)")
    if edge_ex:
        evidence += (f"; but the bound exceeds {edge_ex.get('witness') or edge_what} at d={edge_ex['d']}, "
                     f"σ={edge_ex['sigma']}, "
                     f"nε={edge_ex['epsilon']:.3g}: bound {edge_ex['lower_bound']:.3g} "
                     f"> {edge_ex['largest_possible']:.3g}" + _edge_reason(edge_ex))
    else:
        evidence += f"; the bound never exceeds {edge_what} ({edge_n} exact points, d ≤ 10)"
    if degenerate:
        evidence += f"; at d = {degenerate} the bound divides by log d = 0 (undefined; not counted)"
    series = []
    for a in LB_ALGORITHMS:
        sel = sorted([r for r in applicable if r["algorithm"] == a], key=lambda r: (r["epsilon"], r["d"]))
        if sel:
            series.append(Series(f"{a}: sup over instances (mean)", [r["d"] for r in sel], [r["sup_mean"] for r in sel],
                                 style="points"))
    lbs = sorted({(r["d"], r["lower_bound"]) for r in applicable
                  if r["epsilon"] == max(x["epsilon"] for x in applicable)})
    if lbs:
        series.append(Series("lower bound (largest ε)", [x[0] for x in lbs], [x[1] for x in lbs]))
    panels = [Panel(f"{title}: measured risk vs lower bound", "d", field.replace("_", " "), series, xscale="log",
                    yscale="log")]
    if extra_fig:
        panels.append(extra_fig)
    counter = edge_ex if edge_v == "violated" else None
    if untestable:
        evidence = f"inconclusive: {untestable}; " + evidence
    elif verdict == "inconclusive":
        evidence = ("inconclusive: not every applicable cell shows an instance at or above the bound (more runs or "
                    "harder instances would decide; the measured part cannot refute a lower bound); " + evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter,
                   plots=[Figure(name, f"pagan {title}", panels)])


def ratio_limit_in_n(ratio: sp.Expr) -> sp.Expr:
    """The limit of an upper/lower ratio as n → ∞ at d = 3, ε = 1, δ = LB_DELTA and S_{2/3} = H_3 (σ_j = j^{-3/2}).

    Parameters
    ----------
    ratio : sympy.Expr
        An upper/lower bound ratio (e.g. theory.pagan.upper_lower_ratio_box()).

    Returns
    -------
    sympy.Expr
        The limit: a positive finite number when the ratio does not depend on n (a polylog(d) factor), ∞ or 0 when
        it grows or vanishes with n.

    Raises
    ------
    TypeError
        When ``ratio`` is not a SymPy expression.
    """
    if not isinstance(ratio, sp.Basic):
        raise TypeError(f"ratio must be a SymPy expression, not {type(ratio).__name__}")
    at = {tp.d: 3, tp.epsilon: 1, tp.delta: sp.nsimplify(LB_DELTA), tp.power_sum(sp.Rational(2, 3)): sp.harmonic(3)}
    return sp.limit(ratio.subs(at), tp.n, sp.oo)


def _box_lb_ne(d, ne, sigma, bound=None):
    """Theorem 4's bound (or ``bound``, e.g. Proposition 1's declared form) at a given product nε (n = 1)."""
    expr = tp.theorem4_lower_bound() if bound is None else bound
    return float(numeric(expr)(S_2_3=float(np.sum(sigma ** (2 / 3))), d=d, epsilon=ne, n=1))


def _prop1_lb_ne(d, ne, sigma):
    """Proposition 1's bound at a given product nε (n = 1): its own declared closed form."""
    return _box_lb_ne(d, ne, sigma, tp.proposition1_lower_bound())


def _box_condition(d, ne):
    return bool(numeric(tp.theorem4_condition().lhs - tp.theorem4_condition().rhs)(d=d, epsilon=ne, n=1) <= 0)


_PROP1_STATEMENT = """for every (ε, δ)-DP M and data with |z_j| ≤ σ_j, if √d·log d ≤ nε then
    sup_S E Σ_j |z̄_j|·1{sign M_j(S) ≠ sign z̄_j} ≥ (Σ_j σ_j^{2/3})^{3/2}/(nε·log^{5/2} d)"""
_THM4_STATEMENT = """for every (ε, δ)-DP M on X∞ with |z_j| ≤ σ_j, if √d·log d ≤ nε then
    sup_S E[f(M(S); S) − f(x*_S; S)] ≥ (Σ_j σ_j^{2/3})^{3/2}/(nε·log^{5/2} d)"""
def _LB_WEAKER(bound: str, condition: str) -> dict:  # noqa: N802 (a constant-like factory)
    """``weaker_if`` of a lower-bound claim: a smaller bound, or a hypothesis ``lhs ≤ rhs`` whose right side is
    made smaller (it then admits fewer (d, nε)), only weakens the statement."""
    return {f"theory.pagan.{bound}": "smaller", f"theory.pagan.{condition}": "smaller"}


# The lower-bound claims' kernel faults: the statement quantifies over every (ε, δ)-DP mechanism, and the kernels
# only run witnesses of it.  A faulty witness that is still private (larger steps, more noise) must still stay above
# a true bound, and one that is no longer private (clipping skipped, the noise's geometry wrong) is outside the
# statement: no kernel fault can change the statement's truth.
_LB_KERNEL_EQUIVALENT = ("a lower bound over every (ε, δ)-DP mechanism: the kernel runs only a witness, which a fault "
                         "leaves private (it must then still meet a true bound) or makes non-private (outside the "
                         "statement); either way the statement's truth is unchanged")
# "within a polylog(d) factor": a constant, or d and δ raised to a fixed power (each logarithm only rescaled),
# leaves the ratio polylogarithmic
_POLYLOG_EQUIVALENT = ("the statement allows any polylog(d) factor: a constant factor, or d and δ raised to a fixed "
                       "power (which only rescales each logarithm), leaves the ratio polylogarithmic in d")
for _cid, _ratio in (("pagan.proposition1.d3", None), ("pagan.proposition2", None),
                     ("pagan.theorem4.risk.d3", "upper_lower_ratio_box"), ("pagan.theorem5", "upper_lower_ratio_ball")):
    for _m in ("noise*3", "noise-cov-A", "no-clipping", "stepsize*10"):
        declare_equivalent(_cid, _m, _LB_KERNEL_EQUIVALENT)
    for _m in (("x10", "x0.1", "pow1.25", "pow0.75") if _ratio else ()):
        declare_equivalent(_cid, f"{_ratio}:{_m}", _POLYLOG_EQUIVALENT)


_EDGE_NOTES = ("Exact (no statistical test): at d = 2, log 2 < 1 makes the bound large at the smallest nε the "
               "hypothesis allows; the check evaluates the bound at n = 1 and nε on a grid from the hypothesis' "
               "boundary (flat σ ≡ 1 and σ_j = j^{-3/2}) against the largest value the left side can take. A defect of "
               "the statement at its edge, kept apart from the main statement (d ≥ 3), which replaces the retired id ")


# the profile's scale s (σ → s·σ), 4 decades each way (1 first): the lower-bound statements are for every σ
LB_EDGE_SCALES = (1.0, 1e-4, 1e4)


def _lb_edge_scaled(lower_bound, condition, trivial_max, dims=range(1, 11),
                    scales: Sequence[float] = LB_EDGE_SCALES,
                    boundary: bool = False, witness=None) -> tuple[str, dict | None, int, list]:
    """:func:`_lb_edge` (scale 1), then every other profile scale s of ``scales`` (σ → s·σ) at the smallest grid nε
    the hypothesis allows (the bound decreases in nε): the lower-bound statements hold for every σ, and the paper's
    bounds and the largest possible values are both degree-1 homogeneous in σ (a correct bound gives the same ratios
    at every s); a bound with another power of σ exceeds the largest value at some scale.  The hypothesis does not
    involve σ: its values from the first pass are reused.  Same return as :func:`_lb_edge`; a failing point at
    s ≠ 1 carries ``scale``.  With ``boundary``, the smallest nε is the hypothesis' own boundary
    (:func:`_hypothesis_boundary`), at scale 1 too.  ``witness`` as :func:`_lb_edge`."""
    memo: dict = {}

    def cond(d, ne) -> bool:
        key = (int(d), float(ne))
        if key not in memo:
            memo[key] = bool(condition(d, ne))
        return memo[key]

    v, ex, checked, degenerate = _lb_edge(lower_bound, cond, trivial_max, dims=dims, boundary=boundary,
                                          witness=witness)
    if v == "violated":
        return v, ex, checked, degenerate
    for sc in scales:
        if sc == 1.0:
            continue
        for d in dims:
            ne0 = (_hypothesis_boundary(cond, d) if boundary
                   else next((float(ne) for ne in LB_EDGE_GRID if cond(d, ne)), None))
            if ne0 is None or d in degenerate:
                continue
            for decay in (0.0, 1.5):
                sigma = sc * kernels.pagan_problems.power_law_sigma(d, decay)
                checked += 1
                with np.errstate(divide="ignore"):
                    lb = lower_bound(d, ne0, sigma)
                top, by = _edge_top(trivial_max, witness, sigma, ne0, lb)
                if np.isfinite(lb) and lb > top:
                    return "violated", dict(d=d, sigma=sigma.tolist(), n=1, epsilon=ne0, lower_bound=float(lb),
                                            largest_possible=float(top), ratio=float(lb / top), scale=sc, **by), \
                        checked, degenerate
    return "holds", None, checked, degenerate


def _edge_reason(ex: dict) -> str:
    """Why an edge point breaks the bound: a profile scale s ≠ 1 is named; at d ≤ e the bound's log d ≤ 1."""
    if ex.get("witness"):
        return (f" (at n = 1, ε = {ex['epsilon']:.4g}: randomized response's error decays like e^{{-ε/d}}, faster "
                "than the bound's 1/(nε); the statement as printed puts no upper limit on ε)")
    if ex.get("scale", 1.0) != 1.0:
        return (f" (the profile scaled by {ex['scale']:g}: the bound is not degree-1 homogeneous in σ, as the largest "
                "value is)")
    return " (log d ≤ 1)" if math.log(ex["d"]) <= 1 else ""


@claim(
    "pagan.proposition1.d3",
    kind="expectation",
    statement="Proposition 1 for d ≥ 3: " + _PROP1_STATEMENT + ".",
    theory=(tp.proposition1_lower_bound, tp.theorem4_condition),
    weaker_if=_LB_WEAKER("proposition1_lower_bound", "theorem4_condition"),
    notes="Replaces pagan.proposition1 (retired), whose statement includes d = 2, where it fails exactly "
    "(pagan.proposition1.d2). Two parts. Exact: M = a fair coin per coordinate (independent of S, so (0, 0)-DP "
    "and (ε, δ)-DP for every ε, δ) has E Σ_j |z̄_j|·1{sign M_j ≠ sign z̄_j} = ½Σ_j|z̄_j| ≤ ½Σσ_j on every S, so "
    "the bound must not exceed ½Σσ_j wherever the hypothesis holds (checked at the smallest allowed nε, the "
    "hypothesis' boundary included, n = 1, "
    "3 ≤ d ≤ 10, flat and j^{-3/2} profiles, each also scaled by 1e-4 and 1e4: the statement is for every σ; "
    "until session 26 the check compared with Σσ_j, the largest value any M can have, and missed that at d = 3, "
    "σ = (1, 1, 1) the bound 3^{3/2}/(nε·log^{5/2} 3) is above 3/2 for √3·log 3 ≤ nε < 2.74, e.g. 2.05 at n = 2, "
    "ε = 1). Where the coin does not refute, randomized response on the signs at n = 1, ε = nε (ε/d per "
    "coordinate, (ε, 0)-DP; sign error Σσ_j/(1 + e^{ε/d}) on the worst S, rr_sign_error) is compared too (session "
    "27): it decays like e^{-ε/d}, so a bound of this form fails at a large enough ε whatever its constant (the "
    "printed statement puts no upper limit on ε). Measured (cannot refute, only "
    "exhibit): M = the sign of the average iterate of every private "
    "algorithm of the suite (DP-SGD, PASAN, PAGAN, PAGAN-opt, PDP-SGD; paper calibration, b = 10, T = n²/(4b²), "
    "n = 1000) on sign_mean hard instances (planted biases 0, 0.03, 0.1, 0.3); the sup over S is estimated from "
    "below by the largest lower confidence bound over the instances (95%, Bonferroni over the instances), and the "
    "bound is evaluated at the accountant ε of the runs (sampling with replacement, PLD).",
)
def proposition1_d3(budget: str, seed: int) -> Outcome:
    # the free mechanism: a fair coin per coordinate errs with probability ½ whatever S is
    edge = _lb_edge_scaled(_prop1_lb_ne, _box_condition, coin_sign_error, dims=range(3, 11), boundary=True,
                           witness=rr_sign_error)
    cond = lambda d, e: _box_condition(d, LB_N * e)  # noqa: E731
    rows, verdicts = _lb_measured("box", 1.5, budget, seed, "sign_error",
                                  lambda d, e, sg: _prop1_lb_ne(d, LB_N * e, sg), cond, edge[0] == "violated")
    return _lb_outcome("proposition1", "Proposition 1 (sign estimation on X∞, d ≥ 3)", "sign_error", rows, verdicts,
                       edge, edge_what="½Σσ_j, the sign error of a fair coin per coordinate ((0, 0)-DP) on every S")


def coin_sign_error(sigma) -> float:
    """sup_S of Proposition 1's sign error for M = an independent fair coin per coordinate: ½·Σ_j σ_j (exact).

    The coin does not look at S, so it is (0, 0)-DP, hence (ε, δ)-DP for every ε, δ ≥ 0; it errs on coordinate j
    with probability ½ whatever S is, so E Σ_j |z̄_j|·1{sign M_j ≠ sign z̄_j} = ½·Σ_j |z̄_j|, at most ½·Σ_j σ_j
    (attained by z_i = σ for every i).  Proposition 1's bound must not exceed it wherever its hypothesis holds.

    Parameters
    ----------
    sigma : array_like
        The coordinate bounds σ_j (|z_j| ≤ σ_j), positive.

    Returns
    -------
    float
        ½·Σ_j σ_j.
    """
    return 0.5 * float(np.sum(np.asarray(sigma, dtype=float)))


def rr_sign_error(sigma, ne: float) -> float:
    """sup_S of Proposition 1's sign error for randomized response on the signs at n = 1, ε = ``ne`` (exact).

    M_j(S) = sign(z̄_j) with probability e^{ε/d}/(1 + e^{ε/d}), else −sign(z̄_j), independently over the d
    coordinates: each coordinate is (ε/d, 0)-DP whatever function of S it reports, so M is (ε, 0)-DP, hence
    (ε, δ)-DP for every δ ≥ 0.  It errs on coordinate j with probability 1/(1 + e^{ε/d}) whatever S is, so
    E Σ_j |z̄_j|·1{sign M_j ≠ sign z̄_j} = Σ_j |z̄_j|/(1 + e^{ε/d}), at most Σ_j σ_j/(1 + e^{ε/d}) (attained by
    z = σ).  Below ½Σσ_j (a fair coin) for every ε > 0, and exponentially small in ε: a bound that decays only like
    1/(nε) exceeds it at n = 1 and a large enough ε, whatever its constant.

    Parameters
    ----------
    sigma : array_like
        The coordinate bounds σ_j (|z_j| ≤ σ_j), positive.
    ne : float
        nε at n = 1, i.e. ε.

    Returns
    -------
    float
        Σ_j σ_j/(1 + e^{ε/d}).

    Raises
    ------
    ValueError
        When ``sigma`` is empty.
    """
    from scipy.special import expit

    sigma = np.asarray(sigma, dtype=float)
    if sigma.size == 0:
        raise ValueError("sigma must name at least one coordinate")
    return float(np.sum(sigma)) * float(expit(-float(ne) / sigma.size))


def rr_excess(sigma, ne: float) -> float:
    """sup_S of Theorem 4's excess risk f(x; S) − f(x*_S; S) = ‖z̄‖₁ − xᵀz̄ on X∞ for randomized response on the
    signs (:func:`rr_sign_error`'s mechanism, x = M(S) ∈ {−1, 1}^d) at n = 1, ε = ``ne``: 2·Σ_j σ_j/(1 + e^{ε/d})
    (coordinate j adds 2|z̄_j| when its sign is wrong, 0 otherwise), exact.

    Parameters
    ----------
    sigma : array_like
        The coordinate bounds σ_j, positive.
    ne : float
        nε at n = 1, i.e. ε.

    Returns
    -------
    float
        2·Σ_j σ_j/(1 + e^{ε/d}).

    Raises
    ------
    ValueError
        When ``sigma`` is empty.
    """
    return 2.0 * rr_sign_error(sigma, ne)


def _edge_outcome(name: str, trivial_max, what: str, lb_ne=_box_lb_ne) -> Outcome:
    v, ex, checked, _ = _lb_edge(lb_ne, _box_condition, trivial_max, dims=(2,))
    figures = {"edge_points_checked": checked}
    if ex:
        figures.update({"bound_over_largest_possible": ex["ratio"], "epsilon_n": ex["epsilon"]})
        evidence = (f"violated (exact): at d = 2, σ = {ex['sigma']}, nε = {ex['epsilon']:.3g} (the hypothesis "
                    f"√d·log d ≤ nε holds) the bound {ex['lower_bound']:.4g} exceeds {ex['largest_possible']:.4g}, the "
                    f"largest {what} any M can have (log 2 < 1); {checked} exact points")
    else:
        evidence = f"holds (exact): the bound never exceeds the largest possible {what} at d = 2 ({checked} points)"
    return Outcome(verdict=v, evidence=evidence, numbers=figures, counterexample=ex)


@claim(
    "pagan.proposition1.d2",
    kind="exact",
    statement="Proposition 1 at d = 2: " + _PROP1_STATEMENT + ".",
    theory=(tp.proposition1_lower_bound, tp.theorem4_condition),
    weaker_if=_LB_WEAKER("proposition1_lower_bound", "theorem4_condition"),
    notes=_EDGE_NOTES + "pagan.proposition1. The left side is at most Σσ_j.",
)
def proposition1_d2(budget: str, seed: int) -> Outcome:
    return _edge_outcome("proposition1_d2", lambda sg: float(np.sum(sg)), "sign error Σ|z̄_j|", _prop1_lb_ne)


@claim(
    "pagan.theorem4.risk.d2",
    kind="exact",
    statement="Theorem 4 at d = 2: " + _THM4_STATEMENT + ".",
    theory=(tp.theorem4_lower_bound, tp.theorem4_condition),
    weaker_if=_LB_WEAKER("theorem4_lower_bound", "theorem4_condition"),
    notes=_EDGE_NOTES + "pagan.theorem4.risk. The excess risk on X∞ is at most 2Σσ_j.",
)
def theorem4_risk_d2(budget: str, seed: int) -> Outcome:
    return _edge_outcome("theorem4_risk_d2", lambda sg: 2.0 * float(np.sum(sg)), "excess risk 2Σσ_j")


# The d = 2 edge claims' exponent mutants: at d = 2, σ = (1, 1), n = 1, ε = 1 the mutated hypothesis still holds
# ((nε)^{5/4} = (nε)^{3/4} = 1 ≥ √2·log 2) and the mutated bound still exceeds 2Σσ_j = 4, the largest value either
# left side can take (e.g. 2^{15/8}/log^{5/2}(2^{5/4}) ≈ 5.2 and 2^{9/8}/log^{5/2}(2^{3/4}) ≈ 11.2); checked exactly in
# tests/verify/test_issue25_pagan_exact.py
_D2_STILL_FALSE = ("the mutated statement is still false: at d = 2, σ = (1, 1), n = 1, ε = 1 the mutated hypothesis "
                   "holds and the mutated bound exceeds 2Σσ_j = 4, the largest value the left side can take")
for _cid, _bound in (("pagan.proposition1.d2", "proposition1_lower_bound"),
                     ("pagan.theorem4.risk.d2", "theorem4_lower_bound")):
    for _m in ("pow1.25", "pow0.75"):
        declare_equivalent(_cid, f"{_bound}:{_m}", _D2_STILL_FALSE)
        declare_equivalent(_cid, f"theorem4_condition:{_m}", _D2_STILL_FALSE)


# pagan.proposition1.d3 is refuted exactly by a fair coin per coordinate (coin_sign_error); these exponent mutants
# leave it false at an explicit point, exactly (tests/verify/test_issue25_s26_pagan_coin.py)
PROP1_STILL_FALSE = {
    "proposition1_lower_bound:pow1.25": ("d = 3, σ = (10⁴, 10⁴, 10⁴), n = 1, ε = 2", "the mutated bound is not "
                                         "degree-1 homogeneous in σ and exceeds ½Σσ_j = 15000 there"),
    "proposition1_lower_bound:pow0.75": ("d = 3, σ = (1, 2^{-3/2}, 3^{-3/2}), n = 1, ε = 2", "the mutated bound "
                                         "exceeds ½Σσ_j ≈ 0.773 there"),
    "theorem4_condition:pow1.25": ("d = 3, σ = (1, 1, 1), n = 2, ε = 1", "the mutated hypothesis √3·log 3 ≤ "
                                   "(nε)^{5/4} holds and the bound 3^{3/2}/(2·log^{5/2} 3) ≈ 2.05 exceeds 3/2"),
    "theorem4_condition:pow0.75": ("d = 3, σ = (1, 1, 1), n = 1, ε = 5/2", "the mutated hypothesis √3·log 3 ≤ "
                                   "(nε)^{3/4} ≈ 1.99 holds and the bound 3^{3/2}/(2.5·log^{5/2} 3) ≈ 1.64 exceeds "
                                   "3/2"),
}
for _m, (_at, _why) in PROP1_STILL_FALSE.items():
    declare_equivalent("pagan.proposition1.d3", _m, f"the mutated statement is still false: at {_at}, {_why}, the "
                       "sign error of a fair coin per coordinate ((0, 0)-DP) on every S")
# randomized response on the signs (rr_sign_error, rr_excess; session 27) refutes, at n = 1 and a large enough ε,
# a bound that decays like 1/(nε) whatever its constant: these mutants leave the statements false at explicit points
# (d = 3, σ = (1, 1, 1), n = 1; tests/verify/test_issue25_s27_pagan_rr.py)
PROP1_RR_STILL_FALSE = {
    "proposition1_lower_bound:x0.1": (15, "the mutated bound ≈ 0.0274 exceeds 3/(1 + e^5) ≈ 0.0201"),
    "theorem4_condition:x0.1": (20, "the mutated hypothesis √3·log 3 ≤ nε/10 holds and the bound ≈ 0.205 exceeds "
                                "3/(1 + e^{20/3}) ≈ 0.0038"),
}
THM4_RR_STILL_FALSE = {
    "theorem4_lower_bound:x0.1": (20, "the mutated bound ≈ 0.0205 exceeds 6/(1 + e^{20/3}) ≈ 0.0076"),
    "theorem4_lower_bound:pow1.25": (12, "the mutated bound ≈ 0.159 exceeds 6/(1 + e^4) ≈ 0.108"),
    "theorem4_lower_bound:pow0.75": (2, "the mutated bound ≈ 3.32 exceeds 6/(1 + e^{2/3}) ≈ 2.035"),
    "theorem4_condition:x0.1": (20, "the mutated hypothesis √3·log 3 ≤ nε/10 holds and the bound ≈ 0.205 exceeds "
                                "6/(1 + e^{20/3}) ≈ 0.0076"),
    "theorem4_condition:pow1.25": (2, "the mutated hypothesis √3·log 3 ≤ (nε)^{5/4} holds and the bound "
                                   "3^{3/2}/(2·log^{5/2} 3) ≈ 2.054 exceeds 6/(1 + e^{2/3}) ≈ 2.035"),
    "theorem4_condition:pow0.75": (8, "the mutated hypothesis √3·log 3 ≤ (nε)^{3/4} holds and the bound ≈ 0.513 "
                                   "exceeds 6/(1 + e^{8/3}) ≈ 0.390"),
}
for _cid, _table, _what in (("pagan.proposition1.d3", PROP1_RR_STILL_FALSE, "sign error"),
                            ("pagan.theorem4.risk.d3", THM4_RR_STILL_FALSE, "excess")):
    for _m, (_eps, _why) in _table.items():
        declare_equivalent(_cid, _m, f"the mutated statement is still false: at d = 3, σ = (1, 1, 1), n = 1, "
                           f"ε = {_eps}, {_why}, the sup_S {_what} of randomized response on the signs (ε/d per "
                           "coordinate, (ε, 0)-DP)")
# pagan.theorem5 is refuted exactly by the free output x = 0 at d = 2 (its hypothesis' pow0.75 mutant, which
# narrows it, is then not equivalent: it is caught when the check leaves violated); these stay false at explicit
# points (tests/verify/test_issue25_s26_pagan_coin.py)
THM5_STILL_FALSE = {
    "theorem5_lower_bound:pow1.25": ("d = 2, σ = (10⁴, 10⁴), n = 1, ε = 2", "the mutated bound is not degree-1 "
                                     "homogeneous in σ and exceeds √(Σσ_j²) ≈ 14142 there"),
    "theorem5_lower_bound:pow0.75": ("d = 2, σ = (1, 1), n = 1, ε = 2", "the mutated bound ≈ 1.92 exceeds √2"),
    "theorem5_condition:pow1.25": ("d = 2, σ = (1, 1), n = 1, ε = 2", "the mutated hypothesis 2 ≤ (nε)^{5/4} holds "
                                   "and the bound 2/(2·log 2) ≈ 1.443 exceeds √2"),
}
for _m, (_at, _why) in THM5_STILL_FALSE.items():
    declare_equivalent("pagan.theorem5", _m, f"the mutated statement is still false: at {_at}, {_why}, the excess "
                       "‖z̄‖₂ ≤ √(Σσ_j²) of the free output x = 0 ((0, 0)-DP) on every S")
declare_equivalent("pagan.theorem3.floor", "theorem3_lower:pow1.25", "only weaker: with max_j σ_j = 1 (so σ_j ≤ 1) "
                   "and d ≥ 1, σ_j^{5/4} ≤ σ_j and d^{-15/8} ≤ d^{-3/2}: the mutated left end of the interval is at "
                   "most the original one")


@claim(
    "pagan.theorem4.risk.d3",
    kind="expectation",
    statement="Theorem 4 for d ≥ 3: " + _THM4_STATEMENT + """; and PAGAN's upper bound (eq. (7)) is within a
    polylog(d) factor of it.""",
    theory=(tp.theorem4_lower_bound, tp.theorem4_condition, tp.upper_lower_ratio_box),
    weaker_if=_LB_WEAKER("theorem4_lower_bound", "theorem4_condition"),
    notes="Replaces pagan.theorem4.risk (retired), whose statement includes d = 2, where it fails exactly "
    "(pagan.theorem4.risk.d2). As proposition1.d3, with the excess risk f(x̄_T) − f(x*) = ‖z̄‖₁ − x̄ᵀz̄; the exact "
    "edge compares the bound with Σσ_j, the excess ‖z̄‖₁ of the free output x = 0 ((0, 0)-DP) on every S (2Σσ_j, "
    "the largest excess any M can have, until session 26), at 3 ≤ d ≤ 10, the hypothesis' boundary nε included, "
    "profiles also scaled by 1e-4 and 1e4; and (session 27) with randomized response on the signs at n = 1, "
    "ε = nε (ε/d per coordinate, so (ε, 0)-DP), whose sup_S excess is 2Σσ_j/(1 + e^{ε/d}) (rr_excess): at d = 3, "
    "σ = (1, 1, 1) and the hypothesis' boundary nε = √3·log 3 ≈ 1.903 the bound 2.159 exceeds it (2.079), and for "
    "every constant the bound, decaying like 1/(nε), exceeds it at a large enough ε. The reading: the statement "
    "as printed (Theorem 4 and Proposition 1, section 5.1) puts no range on ε and no lower limit on n, and the "
    "log is natural (as pagan.proposition1.d3 and the d = 2 edge claims read it). The refutation needs ε > 1: at "
    "ε ≤ 1 the witness's excess is at least 2Σσ_j/(1 + e^{1/3}) ≈ 0.83·Σσ_j, above the bound wherever the "
    "hypothesis holds (d ≥ 3), so under an implicit ε ≤ 1, which the text does not carry, randomized response "
    "would refute nothing (tests/verify/test_issue25_s27_pagan_rr.py). The upper/lower ratio: exactly "
    "log(d/δ)·log^{5/2} d (sympy; its limit over "
    "log^{7/2} d is 1, and, one factor for every n, its limit as n → ∞ at d = 3, ε = 1 is finite and positive: "
    "ratio_limit_in_n), and measured: PAGAN-opt's largest risk over the instances over the lower bound, against d.",
)
def theorem4_risk_d3(budget: str, seed: int) -> Outcome:
    # the free mechanism: the constant output x = 0 has excess ‖z̄‖₁ ≤ Σσ_j whatever S is
    edge = _lb_edge_scaled(_box_lb_ne, _box_condition, lambda sg: float(np.sum(sg)), dims=range(3, 11),
                           boundary=True, witness=rr_excess)
    ratio = tp.upper_lower_ratio_box()
    lim = sp.limit(ratio / sp.log(tp.d) ** sp.Rational(7, 2), tp.d, sp.oo)
    n_lim = ratio_limit_in_n(ratio)
    # a polylog(d) factor is one factor for every n: the ratio must neither blow up nor vanish as n grows at fixed
    # d (where the hypothesis √d·log d ≤ nε only gets easier)
    polylog_ok = bool(lim.is_finite and lim > 0 and n_lim.is_finite and n_lim.is_positive)
    cond = lambda d, e: _box_condition(d, LB_N * e)  # noqa: E731
    rows, verdicts = _lb_measured("box", 1.5, budget, seed, "excess", lambda d, e, sg: _box_lb_ne(d, LB_N * e, sg),
                                  cond, edge[0] == "violated" or not polylog_ok)
    sel = sorted([r for r in rows if r["algorithm"] == "pagan_opt" and r["hypothesis"]], key=lambda r: r["d"])
    # the closed-form ratio needs no runs: with the runs skipped (an exact refutation) it is drawn at d = 3 … 10, ε = 1
    at = [(r["d"], r["epsilon"]) for r in sel] or [(d, 1.0) for d in range(3, 11)]
    ds_ = [d for d, _ in at]
    extra = {"closed_form_ratio_limit_over_log^3.5": float(lim) if lim.is_number else math.nan,
             "closed_form_ratio_limit_in_n_at_d3": float(n_lim) if n_lim.is_number else math.nan}
    for r in sel:
        extra[f"measured_pagan_opt_over_lb_d{r['d']}_eps{r['epsilon']:g}"] = r["sup_mean"] / r["lower_bound"]
    panel = Panel("upper / lower bound vs d", "d", "ratio", [
        Series("eq.(7) rate / Theorem 4 bound = log(d/δ)·log^(5/2) d", ds_,
               [float(_eval_free(ratio, d=d, delta=LB_DELTA, n=LB_N, epsilon=e,
                                 S_2_3=float(np.sum(np.arange(1, d + 1, dtype=float) ** -1.0)))) for d, e in at])]
        + ([Series("measured PAGAN-opt sup risk / Theorem 4 bound", ds_,
                   [r["sup_mean"] / r["lower_bound"] for r in sel], style="points")] if sel else []),
        xscale="log", yscale="log")
    out = _lb_outcome("theorem4_risk", "Theorem 4 (optimisation on X∞, d ≥ 3)", "excess", rows,
                      verdicts + ([] if polylog_ok else ["violated"]), edge, panel, extra,
                      edge_what="Σσ_j, the excess ‖z̄‖₁ of the free output x = 0 ((0, 0)-DP) on every S")
    return Outcome(verdict=out.verdict,
                   evidence=out.evidence + f"; upper/lower = {ratio} (limit over log^(7/2) d: {lim}; as n → ∞ at "
                   f"d = 3, ε = 1, S_2/3 = H_3, δ = {LB_DELTA:g}: {n_lim})",
                   numbers=out.numbers, plots=out.plots,
                   counterexample=out.counterexample if polylog_ok else dict(
                       d=3, epsilon=1, delta=LB_DELTA, S_2_3="H_3", ratio=str(ratio), limit_n_to_infinity=str(n_lim),
                       limit_over_log_3p5_d=str(lim), reason="the upper/lower ratio is not one polylog(d) factor",
                       **({"edge": out.counterexample} if out.counterexample else {})))


def _ball_flat_lb(d, e, sigma):
    return float(numeric(tp.proposition2_lower_bound())(sigma=float(sigma[0]), d=d, epsilon=e, n=LB_N))


def _thm5_lb_ne(d, ne, sigma):
    with np.errstate(divide="ignore"):
        return float(numeric(tp.theorem5_lower_bound())(S_1=float(np.sum(sigma)), d=d, epsilon=ne, n=1))


def _thm5_condition(d, ne):
    """Theorem 5's hypothesis d ≤ nε (n = 1), from its declared closed form."""
    cond = tp.theorem5_condition()
    return bool(numeric(cond.lhs - cond.rhs)(d=d, epsilon=ne, n=1) <= 0)


@claim(
    "pagan.proposition2",
    kind="expectation",
    statement="""Proposition 2: for every (ε, δ)-DP M on the unit ℓ₂ ball with ‖z‖∞ ≤ σ,
    sup_S E[f(M(S); S) − f(x*_S; S)] ≥ min{σ√d, dσ/(nε)} (reconstructed).""",
    theory=(tp.proposition2_lower_bound,),
    weaker_if={"theory.pagan.proposition2_lower_bound": "smaller"},  # a lower bound: smaller only weakens it
    notes="Measured as proposition1.d3 but on the unit ball with a flat profile σ_j = σ = 1 (sign_mean, decay 0); the "
    "excess is ‖z̄‖₂ − x̄ᵀz̄. The exact part: the left side is at most 2σ√d ≥ min{σ√d, ·}, so no edge failure is "
    "possible for the stated bound; it is still evaluated (prop2_edge), at σ ∈ {1, 0.01, 100} since the statement "
    "is for every σ > 0 (a declared bound with a wrong power of σ or d fails there exactly). "
    "As built the check cannot fail (its exact part cannot, its measured part can "
    "only exhibit instances above the bound; an independent review found it still holds with the algorithms' "
    "noise divided by 10), so the "
    "verdict is inconclusive and says what was not testable: that no (ε, δ)-DP algorithm beats the bound.",
)
def proposition2(budget: str, seed: int) -> Outcome:
    tasks, outs, acct = _lb_runs("ball", 0.0, budget, seed)
    rows, verdicts = _lb_compare(tasks, outs, acct, "excess", _ball_flat_lb, lambda d, e: True)
    edge = prop2_edge()
    return _lb_outcome("proposition2", "Proposition 2 (flat σ on the ℓ₂ ball)", "excess", rows, verdicts, edge,
                       untestable="not testable as built: the exact part cannot fail (min{σ√d, ·} ≤ 2σ√d, the largest "
                       "excess) and the measured part can only exhibit instances at or above the bound, not show that "
                       "no (ε, δ)-DP algorithm goes below it")


PROP2_EDGE_SCALES = (1.0, 1e-2, 1e2)  # σ: the statement is for every σ > 0 (1 first: the earlier check's points)


def prop2_edge(scales: Sequence[float] = PROP2_EDGE_SCALES) -> tuple[str, dict | None, int, list]:
    """Proposition 2's exact edge at every σ of ``scales``: is min{σ√d, dσ/(nε)} (as declared) ever above 2σ√d, the
    largest excess ‖z̄‖₂ − x̄ᵀz̄ on the unit ball, at 1 ≤ d ≤ 10 and nε on a grid from 1e-3 to 1e3?

    Parameters
    ----------
    scales : sequence of float, optional
        The values of σ (the flat profile σ_j = σ).

    Returns
    -------
    tuple
        As ``_lb_edge``: (``"violated"`` or ``"holds"``, the first failing point or None (with ``sigma``), the number
        of points checked, the degenerate dimensions); the first scale that fails decides.

    Raises
    ------
    ValueError
        When a scale is not positive.
    """
    f = numeric(tp.proposition2_lower_bound())
    checked, out = 0, None
    for sc in scales:
        if not sc > 0:
            raise ValueError(f"scales must be positive (got {sc!r})")
        v, ex, n_pts, deg = _lb_edge(lambda d, ne, sg, sc=sc: float(f(sigma=sc, d=d, epsilon=ne, n=1)),
                                     lambda d, ne: True, lambda sg, sc=sc: 2.0 * math.sqrt(sg.size) * sc)
        checked += n_pts
        if v == "violated" and out is None:
            ex = dict(ex, sigma=sc)
            out = (v, ex, deg)
    if out is None:
        return "holds", None, checked, []
    return out[0], out[1], checked, out[2]


@claim(
    "pagan.theorem5",
    kind="expectation",
    statement="""Theorem 5: for every (ε, δ)-DP M on the unit ℓ₂ ball with |z_j| ≤ σ_j, if d ≤ nε then
    sup_S E[f(M(S); S) − f(x*_S; S)] ≥ Σ_j σ_j/(nε·log d); and PASAN's upper bound (eq. (9)) is within polylog(d).""",
    theory=(tp.theorem5_lower_bound, tp.theorem5_condition, tp.upper_lower_ratio_ball),
    weaker_if=_LB_WEAKER("theorem5_lower_bound", "theorem5_condition"),
    notes="Measured as proposition1 on the unit ball with σ_j = j^{-3/2}. Exact: the free output x = 0 (independent "
    "of S, so (0, 0)-DP) has excess ‖z̄‖₂ ≤ √(Σσ_j²) on every S, so the bound must not exceed √(Σσ_j²) wherever "
    "d ≤ nε (checked at the smallest allowed nε, the boundary nε = d included, n = 1, d ≤ 10, flat and j^{-3/2} "
    "profiles, each also scaled by 1e-4 and 1e4: the statement is for every σ). Until session 26 the check compared "
    "with 2√(Σσ_j²) (the largest excess any M can have) on a grid of nε that skips nε = d, and missed that at "
    "d = 2, σ = (1, 1), nε = 2 the bound 1/log 2 ≈ 1.443 exceeds √2 ≈ 1.414 (it does for 2 ≤ nε < 2.04). "
    "Upper/lower: log(d/δ)·log d exactly.",
)
def theorem5(budget: str, seed: int) -> Outcome:
    # the free mechanism: the constant output x = 0 has excess ‖z̄‖₂ ≤ √(Σσ_j²) whatever S is
    edge = _lb_edge_scaled(_thm5_lb_ne, _thm5_condition, lambda sg: math.sqrt(float(np.sum(sg**2))), boundary=True)
    ratio = tp.upper_lower_ratio_ball()
    lim = sp.limit(ratio / sp.log(tp.d) ** 2, tp.d, sp.oo)
    rows, verdicts = _lb_measured("ball", 1.5, budget, seed, "excess", lambda d, e, sg: _thm5_lb_ne(d, LB_N * e, sg),
                                  lambda d, e: _thm5_condition(d, LB_N * e),
                                  edge[0] == "violated" or not (lim.is_finite and lim > 0))
    out = _lb_outcome("theorem5", "Theorem 5 (σ_j on the ℓ₂ ball)", "excess", rows,
                      verdicts + ([] if (lim.is_finite and lim > 0) else ["violated"]), edge,
                      edge_what="√(Σσ_j²), the excess ‖z̄‖₂ of the free output x = 0 ((0, 0)-DP) on every S")
    return Outcome(verdict=out.verdict, evidence=out.evidence + f"; upper/lower = {ratio} (limit over log² d: {lim})",
                   numbers=out.numbers, counterexample=out.counterexample, plots=out.plots)


# --------------------------------------------------------------------------------------
# privacy audits of the PAGAN family's kernels (kernels.pagan)
# --------------------------------------------------------------------------------------
PAGAN_FAMILY_AUDITS = ("dp_sgd", "pasan", "pagan", "pagan_opt", "pdp_sgd")
# (n, batch size, steps): every draw is the canary (one Gaussian step), and a sampled, composed run
PAGAN_AUDIT_CONFIGS = ((1, 1, 1), (4, 2, 3))
# PASAN's and PAGAN's clipping ellipsoid {Σ a_j g_j² ≤ 1} in the audits: anisotropic (semi-axes 3 and 1), so that the
# noise's geometry is exercised (N(0, A⁻¹) matches the ellipsoid on every axis; with A = I, the default, a kernel
# drawing N(0, A) instead is indistinguishable).  The accountant's ε does not depend on A.
PAGAN_AUDIT_ELLIPSOID = (1.0 / 9.0, 1.0)


def _pagan_family_datasets(n: int):
    """D: n zero records (zero gradient for the linear loss); D′: record 0 replaced by the canary 10·e₁
    (clipped by the mechanism to its geometry's boundary).  Zero-out adjacency, as the accountant assumes."""
    base = kernels.make_problem("linear_subgaussian", n=n, d=2, sigma=np.array([1.0, 0.3]), n_public=200, seed=0)
    zero = np.zeros((n, 2))
    canary = zero.copy()
    canary[0, 0] = 10.0
    return dataclasses.replace(base, features=zero), dataclasses.replace(base, features=canary)


PAGAN_NOISE_GEOMETRIES = ("inverse", "direct")


def pagan_family_audit_task(algorithm: str, n: int, batch_size: int, steps: int, canary: bool, trials: int,
                            seed: int, noise_scale: float = 1.0, noise_geometry: str = "inverse") -> dict:
    """Scores −x_T[j] of ``trials`` runs of ``algorithm`` from x₀ = 0 on D (or D′ with ``canary``).

    The canary is 10·e_j on the coordinate j where the implemented noise is smallest relative to the clipping set
    (largest semi-axis 1/√a_j over noise std: the worst case for the mechanism; for a correct kernel every axis
    gives the same ratio and j = 0).  Mutants for the negative controls (mechanism options, no file edits):
    ``noise_scale`` multiplies the noise the mechanism adds (1 = as implemented); ``noise_geometry="direct"`` draws
    the noise with covariance ∝ A instead of A⁻¹ (std z·√a_j/b instead of z/(b·√a_j)).

    Parameters
    ----------
    algorithm : str
        The kernel algorithm.
    n : int
        Records.
    batch_size : int
        The batch size.
    steps : int
        T.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies the mechanism's noise.
    noise_geometry : str
        "inverse" (as implemented) or "direct" (the mutant).

    Returns
    -------
    dict
        ``score`` (per run), ``noise_multiplier`` and ``canary_axis`` (j).
    """
    choice("noise_geometry", noise_geometry, PAGAN_NOISE_GEOMETRIES)
    d_without, _ = _pagan_family_datasets(n)
    ell = np.array(PAGAN_AUDIT_ELLIPSOID) if algorithm in ("pasan", "pagan") else None
    cfg = kernels.make_config(algorithm, d_without, epsilon=AUDIT_EPSILON, delta=AUDIT_DELTA, steps=steps,
                              batch_size=batch_size, alpha=0.01, n_log=2, ellipsoid=ell)
    std = cfg.noise_std * noise_scale
    if noise_geometry == "direct":
        std = cfg.info["noise_multiplier"] * np.sqrt(cfg.ellipsoid) / batch_size * noise_scale
    cfg = dataclasses.replace(cfg, noise_std=std)
    ratio = np.where(std > 0, 1.0 / (np.sqrt(cfg.ellipsoid) * np.where(std > 0, std, 1.0)), np.inf)
    j = int(np.argmax(np.round(ratio, 12)))  # ties (a correct kernel) -> the first axis
    ds = d_without
    if canary:
        feats = d_without.features.copy()
        feats[0, j] = 10.0
        ds = dataclasses.replace(d_without, features=feats)
    x, _ = run_trials_one_stream(cfg, ds, trials, seed)
    return {"score": -x[:, j], "noise_multiplier": cfg.info["noise_multiplier"], "canary_axis": j}


def audit_pagan_family(algorithm: str, budget: str, seed: int, noise_scale: float = 1.0,
                       noise_geometry: str = "inverse"):
    """The audit claim ``pagan.audit.<algorithm>``: an ε lower bound per PAGAN_AUDIT_CONFIGS entry.

    Parameters
    ----------
    algorithm : str
        The kernel algorithm audited.
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the mechanism's noise (the negative control).
    noise_geometry : str
        "inverse" or "direct" (see :func:`pagan_family_audit_task`).

    Returns
    -------
    Outcome
        The audit's outcome.
    """
    trials = by_budget(budget, 50_000, 500_000)
    n_tests = len(PAGAN_AUDIT_CONFIGS)  # this claim's bounds; each at the ledger's per-test level
    level = audit_level(n_tests)
    tasks = [dict(algorithm=algorithm, n=n, batch_size=b, steps=T, canary=c, trials=trials,
                  seed=child_seed(seed, f"pagan.audit.{algorithm}", k, int(c)), noise_scale=noise_scale,
                  noise_geometry=noise_geometry)
             for k, (n, b, T) in enumerate(PAGAN_AUDIT_CONFIGS) for c in (False, True)]
    outs = sweep(pagan_family_audit_task, tasks, f"audit {algorithm}")
    rows = []
    for k, (n, b, T) in enumerate(PAGAN_AUDIT_CONFIGS):
        a, c = outs[2 * k], outs[2 * k + 1]
        z = float(a["noise_multiplier"])
        # PLD on a 0.01 grid: a pessimistic estimate, above the exact ε by at most T·0.01
        acct = with_replacement_epsilon(n, b, z, T, AUDIT_DELTA, value_discretization_interval=0.01)
        # n = 1: every draw (with replacement) is the canary, T Gaussian steps, a Gaussian claim
        bound = epsilon_lower_bound(a["score"], c["score"], AUDIT_DELTA, level,
                                    seed=child_seed(seed, f"pagan.audit.{algorithm}", "bound", k),
                                    method=claim_method(1.0 if n == 1 else 0.0))
        rows.append(dict(n=n, batch_size=b, steps=T, noise_multiplier=z, accountant_epsilon=acct,
                         **{f"audit_{key}": v for key, v in bound.to_dict().items()}))
    labels = [f"n={r['n']} b={r['batch_size']} T={r['steps']}" for r in rows]
    return audit_outcome(f"audit_{algorithm}", f"Privacy audit of {algorithm}", rows, labels, trials=trials,
                         level=level, budget=budget, family="the ledger's statistical tests")


def _register_pagan_family() -> None:
    for name in PAGAN_FAMILY_AUDITS:
        claim(
            f"pagan.audit.{name}",
            kind="privacy",
            tests=len(PAGAN_AUDIT_CONFIGS),
            statement=f"""The suite's {name} kernel is as private as the accountant says: no distinguishing
            test between neighbouring datasets (a canary record added by zero-out) certifies a larger ε than
            dp-accounting's for the mechanism (sampling with replacement, PAGAN's noise multiplier).""",
            theory=(),
            notes="Runs from x₀ = 0 on D (zero records) and D′ (record 0 = canary 10·e₁, clipped by the mechanism); "
            "score −x_T[j] on the canary's axis j (the one where the implemented noise is smallest relative to the "
            "clipping set; j = 0 for a correct kernel); threshold chosen on a quarter of the runs, error rates on the "
            "rest "
            "(verify.audit.epsilon_lower_bound: Gaussian-DP bound for n=1, Clopper–Pearson for the sampled n=4), "
            "Bonferroni over the ledger's statistical tests (verify.decide). Nominal ε = 4, δ = 1e-5. "
            "Configurations: n=1,b=1,T=1 (one Gaussian step) and n=4,b=2,T=3 (sampled, composed). Accountant: "
            "dp-accounting PLD on a 0.01 grid (pessimistic, ≤ T·0.01 above the exact ε)."
            + (" Clipping ellipsoid A = diag(1/9, 1) (semi-axes 3 and 1; PAGAN_AUDIT_ELLIPSOID): with A = I the "
               "noise's geometry could not be told apart from N(0, A) instead of N(0, A⁻¹)." if name in
               ("pasan", "pagan") else ""),
        )(lambda budget, seed, _n=name: audit_pagan_family(_n, budget, seed))


_register_pagan_family()


# ======================================================================================
# Example 1 with µ > 0: the same O(1) constant once ∇g is non-zero
# ======================================================================================
EX1_MU_LEVELS = (0.1, 1.0, 10.0, 100.0)  # µ/√W = µ/√(Σ C_jj σ_j²)
EX1_DIRECTIONS = ("largest", "smallest", "spread")  # where ∇g(x) = v puts its C-norm µ


def _ex1_direction(w: np.ndarray, C: np.ndarray, mu: float, how: str) -> np.ndarray:
    """v with ‖v‖_C = µ: on the coordinate of the largest (or smallest) w_j = C_jj σ_j², or spread evenly."""
    v = np.zeros_like(w)
    if how == "spread":
        return mu / np.sqrt(np.sum(C)) * np.ones_like(w)
    j = int(np.argmax(w) if how == "largest" else np.argmin(w))
    v[j] = mu / math.sqrt(C[j])
    return v


#: pagan.example1.mu's grid (its own settings; the same values as pagan.example1's)
EXAMPLE1_MU_BUDGETS = Budgets(quick=Example1Grid(dims=(10, 100), kmax=10),
                              full=Example1Grid(dims=(10, 100, 1000, 10000), kmax=20))


def _ex1_mu_constant_trends(dims, kmax: int, ps: np.ndarray, bound) -> list[dict]:
    """The fitted constant K̂ = max_p G_p(µ = 0)/bound(0, 1, p, W) of example1.mu is an O(1): per (σ-profile, C),
    the log-log slope of K̂ over the last decade of d, and over the profile's scale t ∈ EX1_SCALES at d = dims[0]
    (as pagan.example1 rules: exact values, margin EX1_SLOPE_MARGIN over ≥ 1 decade)."""
    def k_hat(sigma: np.ndarray, geo: str) -> float:
        w = _geometry(sigma, geo) * sigma**2
        g0 = tp.noncentral_norm_moments(w, np.zeros_like(w), kmax) ** (1.0 / ps)
        return max(g0[i] / bound(0.0, 1.0, float(pp), float(w.sum())) for i, pp in enumerate(ps))

    out = []
    for pname, decay in EX1_PROFILES.items():
        for geo in EX1_GEOMETRIES:
            ks = [k_hat(np.arange(1, d + 1, dtype=float) ** -decay, geo) for d in dims]
            slope, span = _last_decade_slope(dims, ks)
            out.append(dict(profile=pname, C=geo, along="d", slope=slope, span=span))
            kt = [k_hat(t * np.arange(1, dims[0] + 1, dtype=float) ** -decay, geo) for t in EX1_SCALES]
            out.append(dict(profile=pname, C=geo, along=f"the profile's scale t (d = {dims[0]})",
                            slope=float(np.polyfit(np.log(EX1_SCALES), np.log(kt), 1)[0]),
                            span=float(np.log10(max(EX1_SCALES) / min(EX1_SCALES)))))
    return out


@claim(
    "pagan.example1.mu",
    kind="exact",
    statement="""Example 1, eq. (3), with µ > 0: for F(x; Z) = g(x) + ⟨x, Z⟩ with independent σ_j-sub-Gaussian Z_j
    and ‖∇g(x)‖_C ≤ µ, G_p(C) ≤ µ + O(1)·√p·√(Σ_j C_jj σ_j²) — with the same O(1) constant as at µ = 0, whatever
    µ and wherever ∇g points.""",
    theory=(tp.example1_bound, tp.noncentral_norm_moments),
    weaker_if={tp.example1_bound: "larger", tp.noncentral_norm_moments: "smaller"},
    notes="Exact (tests = 0). Gaussian Z_j ~ N(0, σ_j²) as in pagan.example1; for ∇g(x) = v, "
    "G_p = (E‖v + Z‖_C^p)^{1/p} is computed exactly for even p from the cumulants of the non-central weighted χ² "
    "(theory.pagan.noncentral_norm_moments). The constant K̂ is fitted at µ = 0 per configuration (σ-profile, C, d): "
    "the largest G_p/example1_bound(µ = 0, K = 1) over p. Then at µ/√W ∈ {0.1, 1, 10, 100}, v with ‖v‖_C = µ on the "
    "largest-variance coordinate, the smallest, or spread evenly, every even p: holds when G_p ≤ example1_bound(µ, "
    "K̂) within a relative rounding bound (1e-12) everywhere (Minkowski's inequality says it must), violated "
    "with the smallest such µ otherwise. A bound without the term µ, or with a smaller constant, is caught: "
    "G_p → µ as µ grows. The constant is an O(1), so K̂ (fitted per configuration) must not trend: its log-log "
    "slope over the last decade of d, and over the profile's scale t ∈ {0.1, 1, 10} at the smallest d, at most "
    "0.1 in size (pagan.example1's rule and margin, exact values); violated otherwise.",
)
def example1_mu(budget: str, seed: int) -> Outcome:
    dims, kmax = EXAMPLE1_MU_BUDGETS.at(budget)
    ps = 2 * np.arange(1, kmax + 1)
    f_bound = numeric(tp.example1_bound())

    def bound(mu: float, K: float, p: float, W: float) -> float:
        vals = dict(mu=mu, K=K, p=p, W=W)
        return float(f_bound(**{k: vals[k] for k in f_bound.names}))

    rows, worst = [], None
    series = []
    for pname, decay in EX1_PROFILES.items():
        for geo in EX1_GEOMETRIES:
            for d in dims:
                sigma = np.arange(1, d + 1, dtype=float) ** -decay
                C = _geometry(sigma, geo)
                w = C * sigma**2
                W = float(w.sum())
                g0 = tp.noncentral_norm_moments(w, np.zeros_like(w), kmax) ** (1.0 / ps)
                K_hat = max(g0[i] / bound(0.0, 1.0, float(pp), W) for i, pp in enumerate(ps))
                for level in EX1_MU_LEVELS:
                    mu = level * math.sqrt(W)
                    for how in EX1_DIRECTIONS:
                        v = _ex1_direction(w, C, mu, how)
                        gp = tp.noncentral_norm_moments(w, v / sigma, kmax) ** (1.0 / ps)
                        bs = np.array([bound(mu, K_hat, float(pp), W) for pp in ps])
                        slack = (bs - gp) / bs
                        r = dict(profile=pname, C=geo, d=d, mu_over_sqrtW=level, direction=how, K_hat=K_hat,
                                 min_slack=float(slack.min()), p=int(ps[int(np.argmin(slack))]),
                                 G_p=float(gp[int(np.argmin(slack))]), bound=float(bs[int(np.argmin(slack))]))
                        rows.append(r)
                        if worst is None or r["min_slack"] < worst["min_slack"]:
                            worst = r
                        if d == dims[-1] and pname == "j^-1.5" and geo == "pagan" and how == "largest":
                            series.append(Series(f"µ/√W = {level:g}", ps, (gp - mu) / np.sqrt(ps * W)))
    tol = 1e-12
    broken = [r for r in rows if r["min_slack"] < -tol]
    trends = _ex1_mu_constant_trends(dims, kmax, ps, bound)
    trending = [t for t in trends if abs(t["slope"]) > EX1_SLOPE_MARGIN and t["span"] >= 1.0 - 1e-12]
    verdict = "violated" if broken or trending else "holds"
    counter = (dict(min(broken, key=lambda r: r["mu_over_sqrtW"])) if broken
               else dict(max(trending, key=lambda t: abs(t["slope"])), margin=EX1_SLOPE_MARGIN) if trending else None)
    steepest = max(trends, key=lambda t: abs(t["slope"]))
    evidence = (f"{verdict} (exact): {len(rows)} configurations (3 σ-profiles × 3 geometries × d ∈ {list(dims)} × "
                f"µ/√W ∈ {list(EX1_MU_LEVELS)} × 3 directions, p = 2..{ps[-1]}); smallest relative slack "
                f"(bound − G_p)/bound = {worst['min_slack']:.3g} (σ {worst['profile']}, C {worst['C']}, "
                f"d = {worst['d']}, µ/√W = {worst['mu_over_sqrtW']:g}, {worst['direction']}, p = {worst['p']}); "
                f"{len(broken)} configurations above the bound; the fitted constant K̂ (an O(1): uniform) trends "
                f"at most {abs(steepest['slope']):.3g} in log-log slope (along {steepest['along']}, σ "
                f"{steepest['profile']}, C {steepest['C']}; margin {EX1_SLOPE_MARGIN:g} over ≥ 1 decade)"
                + (f"; violated: K̂ is not O(1) — slope {trending[0]['slope']:+.3g} along {trending[0]['along']}"
                   if trending and not broken else ""))
    fig = Figure("example1_mu", "pagan Example 1 with µ > 0: (G_p − µ)/(√p·√W)", [Panel(
        f"σ_j = j^-1.5, C = σ^(-4/3), d = {dims[-1]}, ∇g on the largest-variance coordinate", "moment order p",
        "(G_p − µ)/(√p·√W)", series, xscale="log")])
    numbers = {"configurations": len(rows), "broken": len(broken), "min_relative_slack": worst["min_slack"],
               "max_K_hat": max(r["K_hat"] for r in rows), "steepest_K_hat_slope": abs(steepest["slope"])}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


# ======================================================================================
# §6.1: the high-privacy panel of Figure 1 and the PDP-SGD comparison
# ======================================================================================
S61_PRIVATE = ("pasan", "pagan", "pagan_opt", "pdp_sgd")
S61_PUBLIC = ("sgd", "adagrad")
S61_EPSILON = 0.1


@claim(
    "pagan.section6.1",
    kind="experiment",
    tests=len(S61_PRIVATE) * len(S61_PUBLIC) + 1,
    theory=(tp.noise_multiplier,),
    statement="""§6.1 on Figure 1(a): "In the high-privacy setting (ε = 0.1), we see that the performance of all
    private methods is worse than the non-private algorithms, though PAGAN (Alg. 2) seems to be outperforming
    other algorithms" — the private methods including PDP-SGD (Zhou et al., projection onto the top-10 public
    eigenvectors), which §6.1 compares against.""",
    notes="Runs: pagan.figure1's (the same tasks, seeds and stepsize selection: verify.papers.pagan.figure1_runs), "
    "final-iterate loss. Reading: 'all private methods' = PASAN and PAGAN with A = I, PAGAN with the optimal A and "
    "PDP-SGD; 'the non-private algorithms' = SGD and AdaGrad, each; 'PAGAN (Alg. 2)' = PAGAN with the optimal A "
    "(the method the section proposes; PAGAN with A = I against PASAN is pagan.figure1's), and 'other algorithms' "
    "adds PDP-SGD to the two figure1 already compares it with. 9 orderings, each decided by verify.decide.better "
    "(Welch t on the mean final losses; holds when the upper 95% bound of the difference is below 0, violated when "
    "its family-corrected lower bound exceeds the margin 0.01 of figure1, fixed before the data). Reported beside "
    "it, not in the verdict: PAGAN-opt against PDP-SGD at ε = 1 and 4, and the accountant ε of the ε = 0.1 runs. "
    "The orderings compare measured losses; a 10th, exact decision (fig1_mechanism_decision, no runs) checks that "
    "the runs are 'the high-privacy setting (ε = 0.1)': each private method's configuration projects its records "
    "and draws whitened noise whose multiplier equals theory.pagan.noise_multiplier √(log(1/δ))/ε at ε = 0.1 in "
    "every coordinate, to 1e-9 relative (the kernels compute it themselves; the closed form also feeds the "
    "reported accountant ε).",
)
def section6_1(budget: str, seed: int) -> Outcome:
    r = figure1_runs(budget, seed)
    res = r["res"]
    decisions, numbers = [], {}
    for pv in S61_PRIVATE:
        for pub in S61_PUBLIC:
            d = decide.better(_fig1_final(res, pub, None), _fig1_final(res, pv, S61_EPSILON),
                              what=f"ε={S61_EPSILON:g}: {pub} < {pv}", margin=FIG1_MARGIN)
            decisions.append(d)
            numbers[f"diff_{pub}_minus_{pv}"] = d.estimate
    d = decide.better(_fig1_final(res, "pagan_opt", S61_EPSILON), _fig1_final(res, "pdp_sgd", S61_EPSILON),
                      what=f"ε={S61_EPSILON:g}: PAGAN-opt < PDP-SGD", margin=FIG1_MARGIN)
    decisions.append(d)
    numbers["diff_pagan_opt_minus_pdp_sgd_eps0.1"] = d.estimate
    d, zs = fig1_mechanism_decision(seed, r["steps"], S61_PRIVATE, (S61_EPSILON,))  # "high-privacy (ε = 0.1)": exact
    decisions.append(d)
    numbers.update(zs)
    for e in FIG1_EPSILONS:
        for a in S61_PRIVATE:
            numbers[f"mean_{a}_eps{e:g}"] = float(np.mean(_fig1_final(res, a, e)))
    for a in S61_PUBLIC:
        numbers[f"mean_{a}"] = float(np.mean(_fig1_final(res, a, None)))
    for e in FIG1_EPSILONS[1:]:
        numbers[f"diff_pagan_opt_minus_pdp_sgd_eps{e:g}"] = float(
            np.mean(_fig1_final(res, "pagan_opt", e)) - np.mean(_fig1_final(res, "pdp_sgd", e)))
    z = float(numeric(tp.noise_multiplier())(epsilon=S61_EPSILON, delta=FIG1_DELTA))
    numbers["accountant_epsilon_eps0.1"] = float(with_replacement_epsilon(5000, FIG1_BATCH, z, r["steps"],
                                                                          FIG1_DELTA))
    verdict = decide.combine(decisions)
    order = sorted(decisions, key=lambda d: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d.verdict)])
    n_holds = sum(str(d.verdict) == "holds" for d in decisions)
    evidence = (f"{n_holds}/{len(decisions)} orderings hold at ε = 0.1 ({r['runs']} runs, T = {r['steps']}, mean "
                f"final loss, margin {FIG1_MARGIN:g}); "
                + "".join(d.phrase() + "; " for d in order if str(d.verdict) != "holds")
                + "means at ε = 0.1: " + ", ".join(f"{a} {numbers[f'mean_{a}_eps0.1']:.4g}" for a in S61_PRIVATE)
                + ", " + ", ".join(f"{a} {numbers[f'mean_{a}']:.4g}" for a in S61_PUBLIC)
                + "; PAGAN-opt − PDP-SGD at ε = 1, 4 (reported): "
                + ", ".join(f"{numbers[f'diff_pagan_opt_minus_pdp_sgd_eps{e:g}']:.3g}" for e in FIG1_EPSILONS[1:]))
    counter = None
    if verdict == "violated":
        counter = {d.reason: str(d.verdict) for d in decisions if str(d.verdict) == "violated"}
        counter.update(dict(n=5000, d=100, batch_size=FIG1_BATCH, steps=r["steps"], runs=r["runs"], epsilon=0.1))
    labels = list(S61_PUBLIC) + list(S61_PRIVATE)
    vals = [_fig1_final(res, a, S61_EPSILON) for a in labels]
    xs = np.arange(len(labels), dtype=float)
    means = np.array([float(np.mean(v)) for v in vals])
    ses = np.array([float(np.std(v, ddof=1) / math.sqrt(v.size)) for v in vals])
    fig = Figure("section6_1", "pagan §6.1: final loss at ε = 0.1 (Figure 1(a)), mean ± 2 s.e.", [Panel(
        "0 SGD, 1 AdaGrad (non-private); 2 PASAN, 3 PAGAN A=I, 4 PAGAN opt, 5 PDP-SGD", "method", "final loss f(x_T)",
        [Series("mean ± 2 s.e.", xs, means, means - 2 * ses, means + 2 * ses, style="points")], yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# §3.1: Theorem 1 with C = I and p = ∞ is the standard DP-SGD rate
# ======================================================================================
@claim(
    "pagan.theorem1.dp_sgd",
    kind="exact",
    statement="""§3.1 after eq. (5): "In the standard setting of gradients uniformly bounded in ℓ2-norm, where C = I
    and p = ∞, this bound recovers the standard rate diam₂(X)·G_∞(I)·√(d log(1/δ))/(nε)": Theorem 1's privacy term
    tends, as p → ∞ with C = I (tr C⁻¹ = d, diam_{C⁻¹} = diam₂), to that rate, as does eq. (5)'s; and Theorem 1's
    radius B tends to 2G_∞, so no gradient is projected and PASAN with A = I/B² is DP-SGD.""",
    theory=(tp.theorem1_bound, tp.theorem1_large_p, tp.theorem1_radius, tp.standard_dp_sgd_rate),
    notes="Exact (tests = 0), SymPy. The rate's layout is damaged in the extraction (√ and the fraction bar are "
    "split); the reading diam₂·G_∞·√(d log(1/δ))/(nε) is the one whose factors all appear there and the standard "
    "DP-SGD rate. With G_2p(C) → G_∞(I) as p → ∞ and R_std = 0 (the privacy term): lim_{p→∞} theorem1_bound, "
    "theorem1_large_p at C = I, and the rate must agree symbolically (simplified difference 0) and numerically at "
    "64 seeded points (relative difference ≤ 1e-12); lim_{p→∞} theorem1_radius must be 2G_∞ (≥ G_∞, so ‖g‖ ≤ G_∞ "
    "is never projected). Violated when one of them differs, with the expressions.",
)
def theorem1_dp_sgd(budget: str, seed: int) -> Outcome:
    subs = {tp.tr_Cinv: tp.d, tp.diam_C: tp.diam2, tp.R_std: 0, tp.G_2p: tp.G_inf}
    rate = tp.standard_dp_sgd_rate()
    general = sp.limit(tp.theorem1_bound().subs(subs), tp.p, sp.oo)
    large = tp.theorem1_large_p().subs(subs)
    radius = sp.limit(tp.theorem1_radius().subs(subs), tp.p, sp.oo)
    parts = {"lim_p theorem1_bound": general, "eq. (5) at C = I": large}
    symbolic = {k: sp.simplify(v - rate) == 0 for k, v in parts.items()}
    radius_ok = sp.simplify(radius - 2 * tp.G_inf) == 0
    rng = np.random.default_rng(child_seed(seed, "pagan.theorem1.dp_sgd"))
    syms = sorted(set().union(*(e.free_symbols for e in (rate, *parts.values()))), key=lambda s_: s_.name)
    worst = 0.0
    points = by_budget(budget, 64, 512)
    for _ in range(points):
        vals = {s_: (float(rng.uniform(1e-12, 0.5)) if s_ == tp.delta else float(10 ** rng.uniform(-2, 4)))
                for s_ in syms}
        r = float(rate.subs(vals))
        for v in parts.values():
            worst = max(worst, abs(float(v.subs(vals)) - r) / r)
    numeric_ok = worst <= 1e-12
    ok = all(symbolic.values()) and radius_ok and numeric_ok
    verdict = "holds" if ok else "violated"
    evidence = (f"{verdict} (exact, SymPy): with C = I, R_std = 0 and G_2p → G_∞: lim_(p→∞) of Theorem 1's bound = "
                f"{sp.sstr(general)}, eq. (5) = {sp.sstr(large)}, the standard rate = {sp.sstr(rate)} "
                f"(symbolic agreement: {symbolic}); largest relative difference at {points} seeded points "
                f"{worst:.2g}; lim_(p→∞) B = {sp.sstr(radius)} (2G_∞: {radius_ok})")
    counter = None if ok else {"lim_general": sp.sstr(general), "eq5_C_I": sp.sstr(large), "rate": sp.sstr(rate),
                               "lim_radius": sp.sstr(radius)}
    ps = np.array([1.5, 2, 3, 5, 10, 20, 50, 100, 1000])
    vals = {tp.diam2: 2.0, tp.G_inf: 1.0, tp.d: 100, tp.delta: 1e-5, tp.n: 5000, tp.epsilon: 1.0}
    f_gen = sp.lambdify(tp.p, tp.theorem1_bound().subs(subs).subs(vals))
    fig = Figure("theorem1_dp_sgd", "pagan Theorem 1 with C = I: the privacy term as p grows", [Panel(
        "diam₂ = 2, G = 1, d = 100, δ = 1e-5, n = 5000, ε = 1", "p", "privacy term of Theorem 1",
        [Series("Theorem 1 (general p)", ps, [float(f_gen(x)) for x in ps]),
         Series("standard DP-SGD rate", ps, [float(rate.subs(vals))] * ps.size, style="dashed")],
        xscale="log", yscale="log")])
    numbers = {"symbolic_agreements": float(sum(symbolic.values())), "radius_limit_is_2G": float(radius_ok),
               "max_relative_difference": worst, "points": points}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


# ======================================================================================
# §3.2's special case: PAGAN against PASAN on the box, measured
# ======================================================================================
#: margin on the geometric-mean excess ratio PAGAN/PASAN: PAGAN counts as worse only beyond 10% (fixed before data)
BOX_LOG_MARGIN = math.log(1.1)
BOX_DIMS_FULL = RATE_GRIDS["full"]["axes"]["d"]


@claim(
    "pagan.section3.2.box",
    kind="ratio",
    tests=len(BOX_DIMS_FULL),
    statement="""§3.2 after eq. (9): "As a special case, consider X = [−1, +1]^d and assume {σ_j} decrease quickly,
    e.g. σ_j = 1/j^{3/2}. In such a setting, the upper bound of PAGAN is roughly poly(log d)/(nε) while PASAN
    achieves √d/(nε)" — "there are situations in which PAGAN offers significant improvements": on this box, PAGAN
    (C_jj = σ_j^{-4/3}) reaches a lower excess loss than PASAN (C_jj = σ_j^{-1}), each as its theorem prescribes.""",
    theory=(tp.box_rate_ratio,),
    weaker_if={tp.box_rate_ratio: "larger"},
    notes="Runs: the d axis of the rate sweeps (verify.papers.pagan.rate_tasks: n = 16000, ε = 1, c = 1/4, "
    "linear_subgaussian data with σ_j = j^{-3/2}; quick d ∈ {5, 10, 30}, 4 datasets; full d ∈ {5, 10, 30, 100, 300}, "
    "12 datasets), PAGAN as in pagan.theorem2 and PASAN with Theorem 1's prescription on the same box "
    "(RATE_SETTINGS 'pasan_box'). Reading: the bound comparison is pagan.eq7's (exact); the measured statement is "
    "that PAGAN's excess is the lower one. Per d, verify.decide.better on the log excess losses of the datasets "
    "(Welch t; geometric means): holds when the upper 95% bound of mean log(PAGAN) − mean log(PASAN) is below 0, "
    "violated when its family-corrected lower bound exceeds log 1.1 (PAGAN more than 10% worse), else "
    "inconclusive; the claim holds when every d holds. Reported beside it: the measured ratio PASAN/PAGAN against "
    "the ratio of the upper bounds' rate factors √d·Σσ_j/(Σσ_j^{2/3})^{3/2} (theory.pagan.box_rate_ratio). The "
    "bound comparison the statement quotes is checked exactly too (violated if it fails, whatever the runs): that "
    "ratio is ≥ 1 at every d swept (PAGAN's bound the lower; within rounding) and, for σ_j = j^{-3/2}, ratio · "
    "log^{3/2} d/√d has a finite positive limit (SymPy; PASAN √d, PAGAN poly(log d)). A larger ratio only weakens "
    "that part (weaker_if)."
    " Probe (exact, no runs): both kernels' configurations (PAGAN; PASAN on the box) at the base point must keep "
    "the prescribed α, project onto A and draw noise with whitened multiplier √(log(1/δ))/ε "
    "(_rate_setting_departures); if it does not, a holds is not established, a violation that rests on the runs "
    "alone is withdrawn (the exact bound comparison's stands) and an undecided check gets no verdict "
    "(decide.after_probe).",
)
def section3_2_box(budget: str, seed: int) -> Outcome:
    pag_tasks = rate_tasks("pagan", budget, seed, axes=("d",))
    pas_tasks = rate_tasks("pasan_box", budget, seed, axes=("d",))
    pag = _memo_sweep(_rate_task, pag_tasks, "pagan PAGAN on the box (d axis)")
    pas = _memo_sweep(_rate_task, pas_tasks, "pagan PASAN on the box (d axis)")
    f_ratio = numeric(tp.box_rate_ratio())
    decisions, numbers, ds, meas, pred = [], {}, [], [], []
    tiny = np.finfo(float).tiny
    for t, a, b_ in zip(pag_tasks, pag, pas):
        d = int(t["d"])
        la, lb = np.log(np.maximum(a["excess"], tiny)), np.log(np.maximum(b_["excess"], tiny))
        dec = decide.better(la, lb, what=f"d={d}: log excess PAGAN < PASAN", margin=BOX_LOG_MARGIN)
        decisions.append(dec)
        sigma = kernels.pagan_problems.power_law_sigma(d, RATE_DECAY)
        r_bound = float(f_ratio(d=d, S_1=float(sigma.sum()), S_2_3=float(np.sum(sigma ** (2 / 3)))))
        ds.append(d)
        meas.append(float(np.exp(lb.mean() - la.mean())))
        pred.append(r_bound)
        numbers[f"pasan_over_pagan_geomean_d{d}"] = meas[-1]
        numbers[f"bound_ratio_d{d}"] = r_bound
        numbers[f"log_diff_upper_d{d}"] = dec.holds_bound
    # the bound comparison the statement quotes, exact: PASAN's rate factor over PAGAN's is ≥ 1 at every d swept
    # (PAGAN's bound is the lower one) and grows like √d/poly(log d): for σ_j = j^{-3/2} the ratio times
    # log^{3/2} d/√d has a finite positive limit (SymPy, generalised harmonic numbers)
    bound_low = [(d, r) for d, r in zip(ds, pred) if not r >= 1.0 - rounding_tolerance(d, 1.0)]
    lim = sp.limit(tp.box_rate_ratio().subs(tp.power_law_sums(sp.Rational(3, 2))) * sp.log(tp.d)
                   ** sp.Rational(3, 2) / sp.sqrt(tp.d), tp.d, sp.oo)
    lim_ok = bool(lim.is_finite and lim.is_positive)
    numbers["bound_ratio_limit_times_log_1.5_over_sqrt_d"] = float(lim) if lim.is_finite else float("inf")
    verdict = decide.combine(decisions) if not bound_low and lim_ok else "violated"
    # both runs must be the stated algorithms with their theorems' prescriptions (exact probe, no runs)
    departures = [f"{s_}: {x}" for s_ in ("pagan", "pasan_box") for x in _rate_setting_departures(s_, budget)]
    numbers["mechanism_departures"] = len(departures)
    order = sorted(decisions, key=lambda d_: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d_.verdict)])
    n_holds = sum(str(d_.verdict) == "holds" for d_ in decisions)
    evidence = (f"bounds (exact): PASAN/PAGAN rate-factor ratio ≥ 1 at {len(ds) - len(bound_low)}/{len(ds)} d, "
                f"ratio·log^(3/2) d/√d → {lim} (σ_j = j^-1.5; finite and positive: {lim_ok}); "
                f"{n_holds}/{len(decisions)} dimensions: PAGAN's excess below PASAN's on [−1, 1]^d "
                f"({pag_tasks[0]['trials']} datasets per d, n = {pag_tasks[0]['n']}, ε = {pag_tasks[0]['epsilon']:g}); "
                + "".join(d_.phrase() + "; " for d_ in order if str(d_.verdict) != "holds")
                + "measured PASAN/PAGAN (geometric means) against the bounds' ratio: "
                + ", ".join(f"d={d}: {m:.3g} ({p_:.3g})" for d, m, p_ in zip(ds, meas, pred)))
    if verdict == "inconclusive" and budget == "quick":
        evidence += " (--budget full runs 12 datasets per d and d up to 300)"
    if departures and verdict == "violated" and not bound_low and lim_ok:  # rests on the runs alone: no evidence
        verdict = "inconclusive"
    verdict, evidence = decide.after_probe("; ".join(departures), "pagan section3.2.box", verdict, evidence,
                                           violation_from_runs=False)  # a run-based violation was voided above
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if str(d_.verdict) == "violated"}
        if bound_low or not lim_ok:
            counter.update(bound_ratio_below_1={int(d): float(r) for d, r in bound_low},
                           bound_ratio_limit_times_log_1_5_over_sqrt_d=str(lim))
    fig = Figure("section3_2_box", "pagan §3.2: PASAN against PAGAN on X = [−1, 1]^d, σ_j = j^(-3/2)", [Panel(
        f"n = {pag_tasks[0]['n']}, ε = {pag_tasks[0]['epsilon']:g}", "d", "PASAN / PAGAN excess loss",
        [Series("measured (geometric means)", ds, meas, style="points"),
         Series("√d Σσ_j / (Σσ_j^(2/3))^(3/2) (upper bounds)", ds, pred),
         Series("equal", [ds[0], ds[-1]], [1.0, 1.0], style="dashed")], xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Theorem 3, second part: PAGAN with the geometry Ĉ estimated by Algorithm 3 (b = 1), measured rate
# ======================================================================================
THM3P_D = 4  # (10) holds on ≥ 95% of datasets from n = 1000 at d = 4, σ_j = j^-1 (probe: 38/40 at n = 1000)
THM3P_DECAY = 1.0  # s_j = j^-1 before the planted means
THM3P_C = 1 / 16  # T = c n² (b = 1); inside the c = 0.375 that lemma3.1 certifies for ε ≤ 1
THM3P_EPSILON = 1.0  # ε of Algorithm 3 and ε of PAGAN (each; (2ε, 2δ) in all by basic composition)
THM3P_GRIDS = {
    # quick: one decade of n (it can decide either way); full: 1.2 decades, more datasets.  T = n²/16 steps.
    "quick": dict(n=(1000, 3162, 10000), datasets=8, runs=4),
    "full": dict(n=(1000, 2000, 4000, 8000, 16000), datasets=16, runs=4),
}


def _g2p_gaussian(C: np.ndarray, sigma: np.ndarray, p: int) -> float:
    """G_2p(C) = (E‖g‖_C^{2p})^{1/2p} for g ~ N(0, diag σ²) (exact weighted χ² moment)."""
    w = C * sigma**2
    return math.sqrt(float(w.sum())) * float(gaussian_norm_moments(w, p)[p - 1]) ** (1.0 / (2 * p))


def thm3p_dataset(n: int, d: int, c: float, data_seed: int):
    """Planted dataset of pagan.theorem3.pagan: z_i = μ + N(0, diag s²), s_j = j^{-THM3P_DECAY}, μ_j = ±ADV_PLANTED ×
    the per-coordinate std of PAGAN's privacy noise in the T-step average at b = 1 with the optimal C = s^{-4/3}
    (z·B·C_jj^{-1/2}/√T, random signs; as the planted sweep of the rate claims), rescaled so that max_j σ_j = 1
    with σ_j² = s_j² + μ_j² = E z_j² (Theorem 3's normalisation).

    Parameters
    ----------
    n : int
        Number of records (≥ 2).
    d : int
        Dimension.
    c : float
        Lemma 3.1's constant: PAGAN runs T = c n² steps at b = 1 (sets the planted level).
    data_seed : int
        Seed of the records and of the signs of μ.

    Returns
    -------
    dataset : kernels Dataset
        The linear problem on X∞ = [−1, 1]^d with the planted, rescaled records.
    sigma : numpy.ndarray
        Shape (d,): σ_j = √(E z_j²) after the rescaling (max 1).
    """
    s = kernels.pagan_problems.power_law_sigma(d, THM3P_DECAY)
    C0 = _geometry(s, "pagan")
    p = moment_order(d)
    vals = dict(domain_diameters("box", C0), G_2p=_g2p_gaussian(C0, s, p), p=p, n=n, epsilon=THM3P_EPSILON,
                delta=RATE_DELTA, tr_Cinv_half=float(np.sum(C0**-0.5)))
    f_B = numeric(tp.theorem2_radius())
    B = float(f_B(**{k: vals[k] for k in f_B.names}))
    z_mult = float(numeric(tp.noise_multiplier())(epsilon=THM3P_EPSILON, delta=RATE_DELTA))
    signs = np.random.default_rng(data_seed + 1).choice(np.array([-1.0, 1.0]), size=d)
    mu = signs * ADV_PLANTED * z_mult * B / (np.sqrt(C0) * math.sqrt(lemma31_steps(c, n, 1)))
    sig = np.sqrt(s**2 + mu**2)
    scale = float(sig.max())
    ds = kernels.make_problem("linear_subgaussian", seed=data_seed, n=n, d=d, decay=THM3P_DECAY, domain="box")
    return dataclasses.replace(ds, features=(ds.features + mu) / scale), sig / scale


def shifted_gaussian_moment_ratio(d: int) -> float:
    """An upper bound on Definition 4.1's r² for z_j = μ_j + s_j·N(0,1), any μ_j, s_j: for p ≤ 2, E|z|^p^{2/p} ≤
    E z² ≤ p·E z² (Jensen); for 2 ≤ p ≤ 2 log d, Minkowski and Cauchy–Schwarz give E|z|^p^{2/p} ≤ (|μ| + s·m_p)² ≤
    (1 + m_p²)(μ² + s²) with m_p² = E|N|^p^{2/p}, so r² ≤ sup_p (1 + m_p²)/p (computed, gamma functions).

    Parameters
    ----------
    d : int
        Dimension: Definition 4.1 asks for 1 ≤ p ≤ 2 log d.

    Returns
    -------
    float
        max(1, sup over p ∈ [2, max(2, 2 log d)] of (1 + m_p²)/p), an upper bound on r².
    """
    from scipy.special import gammaln
    hi = max(2.0, 2 * math.log(d))
    ps = np.linspace(2.0, hi, 200)
    m2 = np.exp(2 / ps * (ps / 2 * math.log(2) + gammaln((ps + 1) / 2) - 0.5 * math.log(math.pi)))
    return float(max(1.0, np.max((1 + m2) / ps)))


def _thm3p_task(n: int, d: int, c: float, datasets: int, runs: int, seed: int, data_seed: int) -> dict:
    """``datasets`` planted datasets (:func:`thm3p_dataset`); per dataset Algorithm 3 on the same records (r = THM3_R,
    ε = THM3P_EPSILON, δ = RATE_DELTA), whether (10) holds for its σ̂, and where it does PAGAN with Ĉ = (rσ̂)^{-4/3}/4
    (Theorem 2's prescription at C = Ĉ: p = ⌈log d⌉, α = diam∞, b = 1, T = c n², A = Ĉ/B²) ``runs`` times with fresh
    noise on the same S: the mean excess of the average iterate estimates E[f(x̄_T;S) − min f(·;S)]."""
    f_chat = numeric(tp.theorem3_estimated_C())
    f_lo, f_up = numeric(tp.theorem3_lower()), numeric(tp.theorem3_upper())
    p = moment_order(d)
    steps = lemma31_steps(c, n, 1)
    keys = ("ok10", "excess", "excess_se", "trivial", "factor_ratio") + _THM3P_VALS
    res: dict = {k: np.full(datasets, np.nan) for k in keys}
    data_seeds = np.random.SeedSequence(data_seed).generate_state(datasets)
    for i in range(datasets):
        ds, sigma = thm3p_dataset(n, d, c, int(data_seeds[i]))
        rng = np.random.default_rng(child_seed(seed, "pagan.theorem3.pagan", "algorithm3", i))
        sh = kernels.moments.second_moment_estimate(ds.features, r=THM3_R, epsilon=THM3P_EPSILON, delta=RATE_DELTA,
                                                    rng=rng)["sigma_hat"]
        lower = np.asarray(f_lo(sigma_j=sigma, d=d), dtype=float) * np.ones(d)
        ok = bool(np.all(lower <= sh) and np.all(sh <= np.asarray(f_up(sigma_j=sigma), dtype=float)))
        res["ok10"][i] = float(ok)
        zbar = ds.features.mean(axis=0)
        res["trivial"][i] = float(np.abs(zbar).sum())  # f(0) − min_X f: the free constant output 0
        if not ok:  # outside the theorem's hypothesis: not run
            continue
        c_hat = np.asarray(f_chat(r=THM3_R, sigmahat_j=sh), dtype=float) * np.ones(d)
        res["factor_ratio"][i] = (float(np.sum(c_hat**-0.5)) * math.sqrt(float(np.sum(c_hat * sigma**2)))
                                  / float(np.sum(sigma ** (2 / 3))) ** 1.5)
        # b = 1 draws one record per step: E g_j² = mean_i z_ij², so R_ada(T) = Σ_j √(E g_j²)/√T (Jensen, as the
        # rate claims); G_2p(Ĉ) from the Gaussian moments at σ² = E z² (the data's second moments)
        vals = dict(domain_diameters("box", c_hat), G_2p=_g2p_gaussian(c_hat, sigma, p), p=p, n=n,
                    epsilon=THM3P_EPSILON, delta=RATE_DELTA, tr_Cinv_half=float(np.sum(c_hat**-0.5)), d=d,
                    r=THM3_R, S_2_3=float(np.sum(sigma ** (2 / 3))),
                    R_ada=float(np.sum(np.sqrt(np.mean(ds.features**2, axis=0)))) / math.sqrt(steps))

        def ev(expr, vals=vals) -> float:
            f = numeric(expr)
            return float(f(**{k: vals[k] for k in f.names}))

        B = ev(tp.theorem2_radius())
        out = kernels.run_algorithm("pagan", ds, epsilon=THM3P_EPSILON, delta=RATE_DELTA, steps=steps, batch_size=1,
                                    alpha=vals["diam_inf"], ellipsoid=c_hat / B**2, trials=runs,
                                    seed=child_seed(seed, "pagan.theorem3.pagan", "pagan", i), n_log=2)
        ex = np.array([ds.loss(x) for x in out.x_avg]) - ds.min_loss()
        res["excess"][i] = float(ex.mean())
        res["excess_se"][i] = float(ex.std(ddof=1) / math.sqrt(runs)) if runs > 1 else float("nan")
        for k in _THM3P_VALS:  # the bounds are evaluated by the claim (theory mutants then reuse the runs)
            res[k][i] = vals[k]
    res.update(steps=steps, p=p)
    return res


_THM3P_VALS = ("G_2p", "diam_C", "tr_Cinv_half", "S_2_3", "R_ada")  # per-dataset inputs of the bounds


def _thm3p_bounds(t: dict, o: dict) -> dict:
    """The task's output with each dataset's bounds added (NaN where (10) fails): ``bound`` = Theorem 3's
    (theory.pagan.theorem3_rate), ``bound_thm2`` = Theorem 2's general-p bound at C = Ĉ (constant 1 both)."""
    out = dict(o)
    for key, expr in (("bound", tp.theorem3_rate()), ("bound_thm2", tp.theorem2_bound())):
        f = numeric(expr)
        vals = dict(diam_inf=2.0, p=int(o["p"]), n=t["n"], epsilon=THM3P_EPSILON, delta=RATE_DELTA, d=t["d"],
                    r=THM3_R)
        col = np.full(len(o["ok10"]), np.nan)
        for i in range(col.size):
            if o["ok10"][i] > 0.5:
                vals.update({k: float(o[k][i]) for k in _THM3P_VALS})
                col[i] = float(f(**{k: vals[k] for k in f.names}))
        out[key] = col
    return out


def _thm3p_runs(budget: str, seed: int) -> tuple[list[dict], list[dict]]:
    g = THM3P_GRIDS[by_budget(budget, "quick", "full")]
    tasks = [dict(n=n, d=THM3P_D, c=THM3P_C, datasets=g["datasets"], runs=g["runs"],
                  seed=child_seed(seed, "pagan.theorem3.pagan", "runs", n),
                  data_seed=child_seed(seed, "pagan.theorem3.pagan", "data", n)) for n in g["n"]]
    return tasks, _memo_sweep(_thm3p_task, tasks, "pagan.theorem3.pagan PAGAN with Algorithm 3's Ĉ (b = 1)")


def _thm3p_row(t: dict, o: dict, bound_key: str) -> dict:
    """One n of the sweep in the shape :func:`_rate_decision` reads: per-dataset ratios (mean excess over the runs /
    the dataset's bound) over the datasets where (10) holds."""
    ok = np.asarray(o["ok10"]) > 0.5
    ex = np.asarray(o["excess"], dtype=float)[ok]
    bd = np.asarray(o[bound_key], dtype=float)[ok]
    triv = np.asarray(o["trivial"], dtype=float)[ok]
    ratios = ex / bd if ex.size else np.array([])
    m = float(np.mean(ratios)) if ratios.size >= 2 else float("nan")
    se = float(np.std(ratios, ddof=1) / math.sqrt(ratios.size)) if ratios.size >= 2 else float("nan")
    return dict(task=t, ci=stats.mean_ci(ex) if ex.size >= 2 else None, ratios=ratios,
                bound=float(np.mean(bd)) if ok.any() else float("nan"),
                trivial=float(np.mean(triv)) if ok.any() else float("nan"), ratio_mean=m, ratio_se=se,
                assumption=bool(ok.sum() >= 2), datasets_failed=int((~ok).sum()), out=o,
                resolved=bool(ratios.size >= 2 and m > 0 and se <= m))


def _thm3p_slope(rows: list[dict]) -> float:
    """Whole-range log-log slope of the mean ratio along n (shown, no test); NaN with fewer than 3 usable points."""
    use = [r for r in rows if r["assumption"] and r["ratio_mean"] > 0]
    if len(use) < 3:
        return float("nan")
    return stats.loglog_slope([r["task"]["n"] for r in use], [r["ratio_mean"] for r in use]).slope.estimate


def _thm3p_theorem2_rate_mutant():
    """A declared mutant: the stated rate with Theorem 2's n-dependence at p = ⌈log d⌉, (nε)^{-(p-1)/p} in place of
    (nε)^{-1} (the factor (nε)^{1/p} the statement drops, restored)."""

    def rate():
        return tp.R_ada + tp.diam_inf * tp.r_moment * tp.power_sum(sp.Rational(2, 3)) ** sp.Rational(3, 2) \
            * sp.log(tp.d / tp.delta) / (tp.n * tp.epsilon) ** ((tp.p - 1) / tp.p)

    return Mutant("theorem3_rate:(nε)^((p-1)/p)", "theory.pagan.theorem3_rate: r·(Σσ^{2/3})^{3/2}·log(d/δ)/"
                  "(nε)^{(p−1)/p} (Theorem 2's dependence on nε at p = ⌈log d⌉) in place of the stated …/(nε)",
                  "theory", lambda: substituted("theory.pagan.theorem3_rate", rate))


@claim(
    "pagan.theorem3.pagan",
    kind="rate",
    tests=1,
    statement="""Theorem 3 (second part): when condition (10) holds, PAGAN (Alg. 2) with Ĉ_j = (rσ̂_j)^{-4/3}/4 (σ̂ from
    Algorithm 3 on S), p = log d and b = 1 has E[f(x_T; S) − min_{x∈X} f(x; S)] ≤ R_ada(T) +
    O(1)·diam∞(X)·r·(Σ_j σ_j^{2/3})^{3/2}/(nε)·log(d/δ): one constant for every n (and S satisfying (10)).""",
    theory=(tp.theorem3_rate, tp.theorem3_estimated_C, tp.theorem2_radius, tp.theorem3_lower, tp.theorem3_upper),
    mutants=[_thm3p_theorem2_rate_mutant()],
    notes="Reading of the damaged privacy term: after 'O(1)diam∞(X)r' the extraction keeps Σ_{j=1}^d σ_j^{2/3}, the "
    "exponent 3/2, nε below and 'd … log … δ': r·(Σσ_j^{2/3})^{3/2}·log(d/δ)/(nε), eq. (7)'s term times r "
    "(theory.pagan.theorem3_rate); another reading of the factors after nε (e.g. √(d·log(1/δ))) changes the bound "
    "by a factor fixed at d = 4, so not the verdict, which depends only on the power of n. It is Theorem 2 "
    "evaluated at C = Ĉ in its large-p form (eq. (6)): G_2p(Ĉ) ≲ "
    "r√p·√(ΣĈσ²), tr(Ĉ^{-1/2})·√(ΣĈσ²) ≤ 2^{4/3}(Σσ^{2/3})^{3/2} under (10) (theory.pagan.theorem3_factor_bound) "
    "and √(log d·log(1/δ)) ≤ log(d/δ); the general-p Theorem 2 at Ĉ keeps a factor (nε)^{1/p} that the statement "
    "drops (as eq. (7) does; pagan.eq7.rate), so the measured excess is also divided by Theorem 2's bound at Ĉ "
    "(shown, not deciding). What runs: X∞ = [−1,1]^d, F(x;z) = ⟨x,z⟩, d = 4, z = μ + N(0, diag s²), s_j = j^{-1}, "
    "planted means μ_j = ±1 × PAGAN's per-coordinate privacy-noise level in the T-step average (z·B·C_jj^{-1/2}/√T "
    "at b = 1 with C = s^{-4/3}, random signs; the planted data of the rate claims: the bound is over every S), "
    "rescaled so that max_j σ_j = 1 with σ_j² = E z_j² (Theorem 3's normalisation); such z has moment ratio r = 1 "
    "(Definition 4.1, bound computed: shifted_gaussian_moment_ratio). Per dataset S: Algorithm 3 on S (r = 1, ε = 1, "
    "δ = 1e-5, the reconstruction of kernels.moments); the paper states no split of the budget: Algorithm 3 and "
    "PAGAN each run at (ε, δ) = (1, 1e-5), (2ε, 2δ) in all by basic composition. (10) is checked for its σ̂ and "
    "only datasets where it holds are run and counted (how many: evidence). PAGAN with Ĉ = (rσ̂)^{-4/3}/4 and "
    "Theorem 2's prescription at C = Ĉ: p = ⌈log d⌉ = 2 (the paper's p = log 4 ≈ 1.39 would make B, hence the "
    "noise, grow faster with n), α = diam∞ = 2, b = 1, T = c n² with c = 1/16 (Lemma 3.1's "
    "T; lemma3.1 certifies c ≤ 0.375 at ε ≤ 1), A = Ĉ/B², B = theorem2_radius with G_2p(Ĉ) the Gaussian moment at "
    "σ² = E z²; 4 runs with fresh noise per S (the expectation is over PAGAN for fixed S); excess f(x̄_T;S) − "
    "min_X f(·;S) of the average iterate (as pagan.theorem2; Theorem 2's analysis bounds x̄_T), R_ada(T) = "
    "Σ_j√(mean_i z_ij²)/√T (b = 1, Jensen). Decision (verify.decide.rate, one test): per dataset the ratio "
    "measured/bound (constant 1); equivalence test on the log-log slope of the ratio along n, margin 0.1 fixed "
    "before the data (decide.SLOPE_MARGIN as the rate claims), over the asymptotic window of the planted sweeps: "
    "bound < f(0) − min f (non-vacuous) and Monte-Carlo s.e. of the mean ratio ≤ the mean; violated needs growth "
    "over ≥ 1 decade of n inside the window. n: 1000, 3162, 10000 (quick, 8 datasets) and 1000–16000 doubling "
    "(full, 16 datasets); d is not swept (at d ≥ 6 with this profile (10) fails on most datasets at n ≤ 16000). "
    "Exact part (no runs): the kernel's configuration for this prescription (b = 1, α = 2, geometry s^{-4/3}) must "
    "keep α, project onto A and draw noise with whitened multiplier √(log(1/δ))/ε in every coordinate (to 1e-9 "
    "relative); if it does not, the runs are not the stated PAGAN and the verdict is inconclusive whatever they show.",
)
def theorem3_pagan(budget: str, seed: int) -> Outcome:
    tasks, outs = _thm3p_runs(budget, seed)
    outs = [_thm3p_bounds(t, o) for t, o in zip(tasks, outs)]
    rows = [_thm3p_row(t, o, "bound") for t, o in zip(tasks, outs)]
    rows2 = [_thm3p_row(t, o, "bound_thm2") for t, o in zip(tasks, outs)]
    r2 = shifted_gaussian_moment_ratio(THM3P_D)
    n_ok = sum(int(np.sum(np.asarray(o["ok10"]) > 0.5)) for o in outs)
    n_all = sum(t["datasets"] for t in tasks)
    numbers = {"moment_ratio_r2_bound": r2, "datasets_with_10": n_ok, "datasets": n_all, "d": THM3P_D,
               "c": THM3P_C}
    crit = "planted means at the noise level, b = 1; bound < f(0) − min f and s.e. of measured/bound ≤ its mean"
    dec, _ = _rate_decision(rows, "n", crit, None)
    verdict = str(dec.verdict)
    if r2 > THM3_R**2 * (1 + 1e-12) and verdict == "violated":  # the data would be outside Definition 4.1 at r
        verdict = "inconclusive"
    # the runs must be the stated PAGAN (b = 1, α = diam∞ = 2, T = c n², noise √(log(1/δ))/ε whitened by the
    # ellipsoid, projection on), checked exactly on the kernel's configuration at the profile's geometry s^{-4/3}
    s0 = kernels.pagan_problems.power_law_sigma(THM3P_D, THM3P_DECAY)
    departures = _rate_mechanism_faults("pagan", THM3P_D, THM3P_DECAY, THM3P_EPSILON, RATE_DELTA,
                                        lemma31_steps(THM3P_C, int(tasks[0]["n"]), 1), 1, 2.0,
                                        _geometry(s0, "pagan"))
    numbers["mechanism_departures"] = len(departures)
    if departures:
        verdict = "inconclusive"
    for r, r_2 in zip(rows, rows2):
        n = int(r["task"]["n"])
        numbers.update({f"with_10_n{n}": int(len(r["ratios"])), f"ratio_mean_n{n}": r["ratio_mean"],
                        f"ratio_thm2_mean_n{n}": r_2["ratio_mean"], f"steps_n{n}": int(r["out"]["steps"])})
    numbers.update({"ratio_slope_n": dec.estimate, "ratio_slope_n_holds_bound": dec.holds_bound,
                    "ratio_slope_n_violated_bound": dec.violated_bound,
                    "asymptotic_points_n": sum(r.get("asymptotic", False) for r in rows),
                    "ratio_thm2_slope_n": _thm3p_slope(rows2)})
    fr = np.concatenate([np.asarray(o["factor_ratio"], dtype=float) for o in outs])
    fr = fr[np.isfinite(fr)]
    if fr.size:
        numbers["plugin_factor_ratio_max"] = float(fr.max())
    numbers = {k: v for k, v in numbers.items() if not (isinstance(v, float) and not math.isfinite(v))}
    per_n = ", ".join(f"n={int(r['task']['n'])}: {len(r['ratios'])}/{r['task']['datasets']} with (10), ratio "
                      f"{r['ratio_mean']:.3g} (to Theorem 2 at Ĉ: {r2_['ratio_mean']:.3g})"
                      for r, r2_ in zip(rows, rows2))
    evidence = (dec.phrase() + f" [measured/bound per n: {per_n}; (10) held on {n_ok}/{n_all} datasets; d = "
                f"{THM3P_D}, b = 1, T = n²/{round(1 / THM3P_C)}; whole-range slope of the ratio to Theorem 2's "
                f"general-p bound at Ĉ {numbers.get('ratio_thm2_slope_n', float('nan')):+.2g} (shown)]")
    if departures:
        evidence = _MECHANISM_INCONCLUSIVE.format("; ".join(departures)) + "; " + evidence
    elif verdict == "inconclusive" and by_budget(budget, "quick", "full") == "quick":
        evidence += " (--budget full runs n = 1000–16000, 16 datasets per n)"
    counter = None
    if verdict == "violated":
        counter = {"decision": dec.reason, "slope": dec.estimate, "violated_bound": dec.violated_bound,
                   "points": [dict(n=int(r["task"]["n"]), d=THM3P_D, ratio_mean=r["ratio_mean"],
                                   ratio_se=r["ratio_se"], bound=r["bound"], trivial=r["trivial"],
                                   asymptotic=r.get("asymptotic", False)) for r in rows if r["assumption"]]}
    kmax = max((float(np.max(r["ratios"])) for r in rows if r["assumption"]), default=float("nan"))
    fig = Figure("theorem3_pagan", "pagan Theorem 3: PAGAN with Algorithm 3's Ĉ, b = 1, planted data", [
        _sweep_panel(f"d = {THM3P_D}, b = 1, T = c n², datasets where (10) holds", "n", rows, kmax)])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=[dec])
