"""Section 6 of ``pagan``: Figure 1 (private absolute regression) and §6.1's high-privacy comparison.

Claims ``pagan.figure1`` (the ordering of the algorithms' final losses in Figure 1) and ``pagan.section6.1`` (the
high-privacy panel and the PDP-SGD comparison).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

import dpvalidate
import kernels
import kernels.moments
from theory import numeric
from theory import pagan as tp
from verify import decide, stats
from verify.findings import Finding, parts_finding
from verify.papers.pagan._common import (
    FIG1_Z_RTOL,
    PAPER_SETTING_61_TEXT,
)
from verify.privacy import with_replacement_epsilon
from verify.registry import Budgets, Figure, Outcome, Panel, Series, child_seed, claim
from verify.runner import claim_scope, sweep

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
#: the margin of the two 'closer to' orderings, on the log of the loss as the paper's figure shows it: a 10% ratio
FIG1_LOG_MARGIN = math.log(1.1)


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
            cfg = kernels.make_config(a, ds, steps=steps, batch_size=FIG1_BATCH, alpha=FIG1_STEPSIZES[0],
                                      settings=kernels.LoopSettings(n_log=2))
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
    "data), a near-tie otherwise. 'Closer to AdaGrad than to SGD' is measured as the figure shows it, on a log "
    "axis: the mean log loss below the midpoint of AdaGrad's and SGD's mean log losses (their geometric means' "
    "geometric midpoint; AdaGrad below SGD, as in the paper's figure; both means are reported), decided on the log "
    "losses with the margin log 1.1 (a 10% ratio, FIG1_LOG_MARGIN); an earlier form compared the losses with a "
    "linear midpoint and the absolute margin 0.01. Stepsizes are chosen on separate tuning runs "
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
    # Figure 1 draws the loss on a log axis, so "closer" is measured on the log of the loss: below (above) the
    # midpoint of the mean log losses of AdaGrad and SGD (the log of their geometric means' geometric midpoint).
    tiny = np.finfo(float).tiny
    lag, lsg = (np.log(np.maximum(np.asarray(x, dtype=float), tiny)) for x in (ag, sg))
    mid = (lag + lsg) / 2.0
    figures["geometric_midpoint_adagrad_sgd"] = float(np.exp(np.mean(mid)))

    def log_final(a):
        return np.log(np.maximum(np.asarray(final(a, e_top), dtype=float), tiny))

    def better_log(name: str, a, b):
        d = decide.better(a, b, what=name, margin=FIG1_LOG_MARGIN)
        decisions.append(d)
        return d

    d = better_log(f"ε={e_top:g}: PAGAN-opt closer to AdaGrad than to SGD (log loss)", log_final("pagan_opt"), mid)
    figures["log_pagan_opt_minus_log_midpoint_eps4"] = d.estimate
    d = better_log(f"ε={e_top:g}: PAGAN(A=I) closer to SGD than to AdaGrad (log loss)", mid, log_final("pagan"))
    figures["log_midpoint_minus_log_pagan_I_eps4"] = d.estimate

    # the private runs are the paper's ε-mechanism: projection on, noise multiplier √(log(1/δ))/ε (exact)
    d, zs = fig1_mechanism_decision(seed, steps, FIG1_ALGORITHMS, FIG1_EPSILONS)
    mechanism = d
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
    parts = [d.phrase() for d in order if str(d.verdict) != "holds"]
    if acct:
        parts.append("accountant ε of the runs (with replacement, T steps, δ=1e-5): "
                     + ", ".join(f"{e:g}→{a:.3g}" for e, a in acct))
    evidence = (f"{n_holds}/{len(decisions)} orderings hold ({runs} runs, T={steps}, mean final loss, margin "
                f"{FIG1_MARGIN:g}; the two 'closer to' orderings on the log loss, margin log 1.1; at ε = {e_top:g} "
                f"the log-loss gaps to the AdaGrad–SGD geometric midpoint "
                f"{figures['geometric_midpoint_adagrad_sgd']:.3g}: PAGAN-opt "
                f"{figures['log_pagan_opt_minus_log_midpoint_eps4']:+.3g}, PAGAN(A=I) "
                f"{-figures['log_midpoint_minus_log_pagan_I_eps4']:+.3g})"
                + "".join("; " + x for x in parts))
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
    gm = {a: float(np.exp(np.mean(np.log(np.maximum(final(a, e_top), tiny))))) for a in FIG1_ALGORITHMS}
    names = list(FIG1_ALGORITHMS)
    panels.append(Panel(f"ε = {e_top:g}: final loss (geometric mean) on a log axis", "method", "final loss",
                        [Series("geometric mean of the final loss", list(range(len(names))), [gm[a] for a in names],
                                style="points"),
                         Series("AdaGrad–SGD geometric midpoint", [0, len(names) - 1],
                                [figures["geometric_midpoint_adagrad_sgd"]] * 2, style="dashed")],
                        yscale="log", categories=[FIG1_LABELS[a] for a in names]))
    fig = Figure("figure1", f"pagan Figure 1 — abs_regression, {runs} runs per curve", panels)
    finding = fig1_finding(decisions, mechanism, "Figure 1's orderings (mean final loss; the two 'closer to' orderings "
                           "on the log loss) and the exact mechanism check") if verdict == "violated" else None
    summary = (f"{verdict}: {n_holds}/{len(decisions)} of Figure 1's tests hold (PAGAN-opt ahead per ε, its gap to "
               f"AdaGrad shrinking, the two 'closer to' orderings, the exact mechanism check; {runs} runs, "
               f"T = {steps})")
    table = decide.decision_points(decisions)
    table.append({"setting": "runs", "runs": runs, "T": steps, "margin (mean final loss)": FIG1_MARGIN,
                  "margin ('closer to', log loss)": "log 1.1", "δ": FIG1_DELTA})
    table.append({"setting": f"log-loss gaps at ε = {e_top:g}",
                  "AdaGrad–SGD geometric midpoint": figures["geometric_midpoint_adagrad_sgd"],
                  "PAGAN-opt − midpoint": figures["log_pagan_opt_minus_log_midpoint_eps4"],
                  "PAGAN(A=I) − midpoint": -figures["log_midpoint_minus_log_pagan_I_eps4"]})
    table += [{"setting": "accountant ε (with replacement, T steps)", "ε": e, "accountant ε": a, "δ": FIG1_DELTA}
              for e, a in acct]
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=table)


def fig1_finding(decisions: Sequence, mechanism, what: str) -> Finding:
    """The finding of a violated Figure 1 or §6.1 outcome: each ordering and the exact mechanism decision is one
    part; the runs are §6.1's own setting, so a violated ordering fails at the paper's setting (its size: the
    largest estimate among the violated orderings, a mean difference with the claimed better method first).

    Parameters
    ----------
    decisions : sequence of verify.decide.Decision
        Every decision of the check (the orderings and ``mechanism``).
    mechanism : verify.decide.Decision
        The exact decision that the private runs are the paper's ε-mechanism (:func:`fig1_mechanism_decision`).
    what : str
        What the parts are, for the region's sentence.

    Returns
    -------
    verify.findings.Finding
    """
    bad = [x for x in decisions if x is not mechanism and str(x.verdict) == "violated"]
    return parts_finding(
        [(x.reason, str(x.verdict)) for x in decisions], what=what,
        paper_where=PAPER_SETTING_61_TEXT + " — the runs' own setting (n, d, σ_j, ε and δ = 1e-5 as §6.1 states)",
        paper_measure="largest violated ordering's estimate (mean difference, claimed better minus worse: > the "
                      "margin means reversed)",
        paper_size=max((float(x.estimate) for x in bad), default=float("nan")), paper_fails=bool(bad),
        no_repair_reason="an experimental ordering: the runs measure it reversed (or the private runs are not the "
                         "stated mechanism); no corrected statement of the paper follows from it")


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
    notes="Runs: pagan.figure1's (the same tasks, seeds and stepsize selection: "
    "verify.papers.pagan.experiments.figure1_runs), "
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
    mechanism = d
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
        "final loss per method (SGD and AdaGrad non-private)", "method", "final loss f(x_T)",
        [Series("mean ± 2 s.e.", xs, means, means - 2 * ses, means + 2 * ses, style="points")], yscale="log",
        categories=[FIG1_LABELS[a] for a in labels])])
    finding = fig1_finding(decisions, mechanism, "§6.1's orderings at ε = 0.1 (every private method behind SGD and "
                           "AdaGrad, PAGAN-opt ahead of PDP-SGD) and the exact mechanism check"
                           ) if verdict == "violated" else None
    summary = (f"{verdict}: {n_holds}/{len(decisions)} of §6.1's tests at ε = {S61_EPSILON:g} hold (SGD and AdaGrad "
               f"ahead of every private method, PAGAN-opt ahead of PDP-SGD, the exact mechanism check)")
    table = decide.decision_points(decisions)
    table.append({"setting": "runs", "runs": r["runs"], "T": r["steps"], "margin (mean final loss)": FIG1_MARGIN})
    table += [{"setting": "mean final loss", "method": a, "ε": S61_EPSILON, "mean": numbers[f"mean_{a}_eps0.1"]}
              for a in S61_PRIVATE]
    table += [{"setting": "mean final loss", "method": a, "ε": "none (non-private)", "mean": numbers[f"mean_{a}"]}
              for a in S61_PUBLIC]
    table += [{"setting": "PAGAN-opt − PDP-SGD (reported)", "ε": e,
               "difference of means": numbers[f"diff_pagan_opt_minus_pdp_sgd_eps{e:g}"]} for e in FIG1_EPSILONS[1:]]
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=table)
