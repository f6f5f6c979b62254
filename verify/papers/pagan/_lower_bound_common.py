"""The lower bounds' shared machinery of ``pagan`` (§5): Proposition 1 / Theorem 4 on X∞, Proposition 2 / Theorem 5
on X₂.

What :mod:`verify.papers.pagan.lower_bounds` and :mod:`verify.papers.pagan.lower_bounds_l2` both use: the lower
bounds' runs of the private algorithms on the hard instances and their comparison with a bound, the exact edges of
a bound against the largest possible value (at every profile scale), the claims' outcome, and the findings of the
lower-bound claims.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

import kernels
import kernels.moments
from theory import numeric
from theory import pagan as tp
from verify import stats
from verify.findings import Finding, PaperSetting, Region, Repair
from verify.papers.pagan._common import (
    PAPER_SETTING_61,
    PAPER_SETTING_61_TEXT,
    RATE_C,
    _memo_sweep,
    fallback_finding,
    lemma31_steps,
)
from verify.privacy import with_replacement_epsilon
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed

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
                untestable: str = "", edge_what: str = "the largest possible value", finding=None) -> Outcome:
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
    if verdict == "violated" and finding is None:
        finding = fallback_finding(evidence)
    summary, points = _lb_summary(verdict, rows, applicable, held, figures, edge, edge_what, untestable)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter,
                   plots=[Figure(name, f"pagan {title}", panels)], finding=finding if verdict == "violated" else None,
                   summary=summary, points=points)


def _lb_summary(verdict: str, rows, applicable, held: int, figures: dict, edge, edge_what: str,
                untestable: str) -> tuple[str, list[dict]]:
    """The one-sentence summary and the points of a lower-bound claim (:func:`_lb_outcome`), from the same
    quantities its evidence prints.

    Parameters
    ----------
    verdict : str
        The claim's verdict.
    rows, applicable : list of dict
        Every measured (d, ε, algorithm) cell of :func:`_lb_compare`, and those inside the hypothesis.
    held : int
        How many applicable cells show sup_S E ≥ bound.
    figures : dict
        The outcome's figures (``min_sup_over_bound`` is read).
    edge : tuple
        The exact edge of :func:`_lb_edge` / :func:`_lb_edge_scaled`: (verdict, worst point or None, points checked,
        degenerate dimensions).
    edge_what : str
        What the bound is compared with at the edge.
    untestable : str
        What the claim as built cannot test ("" when it can be decided).

    Returns
    -------
    tuple of (str, list of dict)
        The summary sentence, and one row per measured cell, one for the measured part as a whole (when run), one
        for the exact edge and one for any dimension where the bound is undefined.
    """
    _, edge_ex, edge_n, degenerate = edge
    cells = f"{held}/{len(applicable)} applicable cells show sup_S E ≥ the bound"
    if rows:
        cells += f" (smallest lower-CI/bound {figures['min_sup_over_bound']:.3g})"
    if edge_ex:
        what = ("randomized response on the signs ((ε, 0)-DP) attains" if edge_ex.get("witness")
                else "the largest possible value" if edge_what == "the largest possible value"
                else "a data-independent (0, 0)-DP output attains")
        summary = (f"violated (exact): at d = {edge_ex['d']}, nε = {edge_ex['epsilon']:.3g} the bound "
                   f"{edge_ex['lower_bound']:.3g} exceeds the {edge_ex['largest_possible']:.3g} {what}")
    elif verdict == "violated":
        summary = ("violated (exact): a closed-form part of the statement fails; the bound never exceeds the edge's "
                   "value")
    elif untestable:
        summary = (f"inconclusive, the check as built cannot refute the bound: {cells}, and the exact edge "
                   f"({edge_n} points) never breaks it")
    elif verdict == "holds":
        summary = f"holds: {cells}, and the bound never exceeds {edge_what.split(',')[0]} at {edge_n} exact points"
    else:
        summary = f"inconclusive: only {cells}, and the measured part cannot refute a lower bound"
    points = [{"part": "measured cell", "d": r["d"], "ε": r["epsilon"], "accountant ε": r["epsilon_accountant"],
               "algorithm": r["algorithm"], "hypothesis holds": r["hypothesis"], "lower bound": r["lower_bound"],
               "sup over instances (mean)": r["sup_mean"], "sup lower 95% CI": r["sup_lo"],
               "lower-CI/bound": r["sup_lo"] / r["lower_bound"], "planted bias": r["bias"], "verdict": r["verdict"]}
              for r in rows]
    if rows:
        points.append({"part": "measured, all cells", "cells applicable": len(applicable),
                       "cells holding": held, "cells outside the hypothesis": len(rows) - len(applicable),
                       "CI level": 0.95, "smallest lower-CI/bound": figures["min_sup_over_bound"]})
    else:
        points.append({"part": "measured", "verdict": "not run (an exact part refutes the statement)"})
    edge_row = {"part": "exact edge", "compared with": edge_what, "points checked": edge_n}
    if edge_ex:
        edge_row.update({"d": edge_ex["d"], "σ": ", ".join(f"{x:g}" for x in edge_ex["sigma"]), "n": edge_ex["n"],
                         "nε": edge_ex["epsilon"], "lower bound": edge_ex["lower_bound"],
                         "value compared": edge_ex["largest_possible"], "bound/value": edge_ex["ratio"],
                         "profile scale": edge_ex.get("scale", 1.0), "verdict": "violated"})
        if edge_ex.get("witness"):
            edge_row["compared with"] = edge_ex["witness"]
    else:
        edge_row.update({"d at most": 10, "verdict": "holds"})
    points.append(edge_row)
    if degenerate:
        points.append({"part": "bound undefined", "d": ", ".join(str(d) for d in degenerate), "log d": 0.0})
    return summary, points


def _LB_WEAKER(bound: str, condition: str) -> dict:  # noqa: N802 (a constant-like factory)
    """``weaker_if`` of a lower-bound claim: a smaller bound, or a hypothesis ``lhs ≤ rhs`` whose right side is
    made smaller (it then admits fewer (d, nε)), only weakens the statement."""
    return {f"theory.pagan.{bound}": "smaller", f"theory.pagan.{condition}": "smaller"}


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


# --------------------------------------------------------------------------------------
# Findings of the lower-bound claims: where over (d, profile, n, ε) the bound exceeds what a witness attains
# --------------------------------------------------------------------------------------
#: the region's sample sizes and privacy levels: every n·ε the grid reaches at several n, so that ε and nε vary apart
LB_FINDING_NS = (1, 10, 100, 1000)
LB_FINDING_EPS = np.geomspace(1e-2, 1e2, 25)


def lb_compared(top, witness, sigma, epsilon) -> float:
    """The value a lower bound is compared with at (σ, ε): ``top(σ)`` (a mechanism attaining it whatever ε is),
    or the witness's ``witness(σ, ε)`` when smaller (a mechanism that is ε-DP at every n).

    Parameters
    ----------
    top : callable
        σ ↦ the value of an ε-free mechanism (or the largest possible value).
    witness : callable or None
        (σ, ε) ↦ the value of an ε-DP mechanism.
    sigma : numpy.ndarray
        The profile.
    epsilon : float
        ε.

    Returns
    -------
    float
        The smaller of the two.
    """
    v = float(top(sigma))
    return v if witness is None else min(v, float(witness(sigma, epsilon)))


def lb_finding(lower_bound, condition, top, *, dims, edge, edge_text: str, what: str, repair_ok,
               repair_statement: str, witness=None, repair_source: str = "derived",
               extra_points: Sequence[tuple[int, float]] = ()) -> Finding:
    """The finding of a refuted lower bound: the bound against ``top`` (and ``witness``) over d ∈ ``dims``, the
    flat and j^{-3/2} profiles, n ∈ LB_FINDING_NS and ε ∈ LB_FINDING_EPS where the hypothesis holds, plus
    ``extra_points`` (d, nε) at n = 1 (the check's own counterexample); the named ``edge(d, n, ε)``; the statement
    at §6.1's setting; and the repaired statement (``repair_ok(d, n, ε, lb, compared)`` is True where it holds or
    its hypothesis excludes the point) over the same points.

    Parameters
    ----------
    lower_bound : callable
        (d, nε, σ) ↦ the bound.
    condition : callable
        (d, nε) ↦ whether the hypothesis holds.
    top, witness : callable
        As :func:`lb_compared`.
    dims : iterable of int
        The dimensions.
    edge : callable
        (d, n, ε) ↦ whether the point lies on the named edge.
    edge_text, what, repair_statement : str
        The edge, the compared value and the repaired statement, in words.
    repair_ok : callable
        (d, n, ε, bound, compared) ↦ whether the repaired statement holds there.
    repair_source : str, optional
        "derived" or "paper".
    extra_points : sequence of (int, float), optional
        (d, nε) points at n = 1 added to the grid.

    Returns
    -------
    verify.findings.Finding
    """
    explored = failing = on_edge = held_off = repair_fail = 0
    first_repair_fail = None
    pts = [(d, n, float(e)) for d in dims for n in LB_FINDING_NS for e in LB_FINDING_EPS]
    pts += [(int(d), 1, float(ne)) for d, ne in extra_points]
    for d, n, e in pts:
        if not condition(d, n * e):
            continue
        for decay in (0.0, 1.5):
            sigma = kernels.pagan_problems.power_law_sigma(d, decay)
            with np.errstate(divide="ignore"):
                lb = float(lower_bound(d, n * e, sigma))
            if not np.isfinite(lb):  # log d = 0: undefined, not counted
                continue
            cmp = lb_compared(top, witness, sigma, e)
            explored += 1
            bad = lb > cmp
            on = bool(edge(d, n, e))
            failing += bad
            on_edge += bad and on
            held_off += (not bad) and not on
            if not repair_ok(d, n, e, lb, cmp):
                repair_fail += 1
                first_repair_fail = first_repair_fail or dict(d=d, n=n, epsilon=e, decay=decay)
    region = Region(explored=explored, failing=failing, edge=edge_text, failing_on_edge=on_edge,
                    holding_off_edge=held_off,
                    text=f"the bound exceeds {what} at {failing}/{explored} points (d ∈ {list(dims)}, flat and "
                    f"j^-3/2 profiles, n ∈ {list(LB_FINDING_NS)}, ε from 0.01 to 100, hypothesis holding); "
                    f"{on_edge} of them where {edge_text}; {held_off} points off it hold")
    p = PAPER_SETTING_61
    sigma = kernels.pagan_problems.power_law_sigma(p["d"], p["decay"])
    ratios = [float(lower_bound(p["d"], p["n"] * e, sigma)) / lb_compared(top, witness, sigma, e)
              for e in p["epsilons"] if condition(p["d"], p["n"] * e)]
    size = max(ratios) if ratios else float("nan")
    setting = PaperSetting(where=PAPER_SETTING_61_TEXT, measure=f"largest bound / ({what}) over ε", size=size,
                           fails=bool(ratios) and size > 1)
    repair = Repair(statement=repair_statement, verdict="holds" if repair_fail == 0 else "violated",
                    evidence=(f"{explored} points, {repair_fail} failing"
                              + (f" (first at {first_repair_fail})" if first_repair_fail else "")),
                    source=repair_source)
    if failing == 0 and not setting.fails:  # the refuting point lies off this grid (e.g. a rescaled profile)
        return fallback_finding(f"the refuting point lies off the finding's grid ({explored} points there hold)")
    return Finding(region=region, at_paper_setting=setting, repair=repair)
