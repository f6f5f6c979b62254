"""Claims of ``adadps`` — Li, Zaheer, Reddi, Smith, Private Adaptive Optimization with Side Information (ICML 2022).

Each claim is one decorated ``check(budget, seed) -> Outcome``; the formulas live in
:mod:`theory.adadps`, the algorithms and problems in :mod:`kernels.adadps`.  Monte-Carlo work goes
through :func:`verify.runner.sweep` with the module-level task functions below (explicit seeds).

Learning-rate (and clip) grids are fixed here, before any run, and are the same for every method a
claim compares: the paper's grids (App. B: learning rates {0.0005, ..., 2}, clipping {0.01, ..., 3}) or
documented subsets of them at the quick budget.  Tuning uses its own seeds (and, for test accuracy,
a validation split); the reported numbers come from fresh seeds.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from dpvalidate import InvalidParameter, choice
from kernels import adadps as ka
from kernels import adadps_reference as ref
from kernels import faults
from theory import adadps as ta
from theory import numeric
from verify import decide, stats
from verify.audit import AUDIT_DELTA, audit_level, audit_outcome, claim_method, epsilon_lower_bound
from verify.exact import EPS, random_search
from verify.mutants import Mutant, declare_equivalent, kernel_mutant, substituted
from verify.privacy import NeighboringRelation, calibrate_multiplier, dp_sgd_epsilon, epsilon_of
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import claim_scope, sweep

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
    out = ka.run_central(prob, method, lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         sampling=sampling, side_info=side_info, beta2=beta2, eps_a=eps_a, lr_decay=lr_decay,
                         harmonic_beta2=harmonic_beta2, noise_clip=noise_clip, w0=w0, trials=trials, seed=seed,
                         n_log=n_log)
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
                           trials=trials, seed=seed, n_log=n_log)
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


# ======================================================================================
# Theorem 1: privacy (Abadi et al.'s calibration) against the accountant
# ======================================================================================
T1_GRIDS = {
    "quick": dict(q=(0.01, 0.1), T=(100, 300, 1000), r=(0.1, 0.5), delta=(1e-5,)),
    "full": dict(q=(0.01, 0.1), T=(100, 300, 1000, 3000, 10000), r=(0.1, 0.5, 1.0), delta=(1e-5, 1e-3)),
}
T1_C1 = 1.0  # the validity range ε < c₁q²T examined (chosen before running)
T1_SIGMA_CAP = 1e6  # the σ search stops here (beyond it the point counts as not certified)
#: PLD grid from the ε being resolved: the pessimistic and optimistic estimates of T composed steps differ by about
#: T·vdi, so vdi = 0.1·ε/T brackets the true ε within about 10% of ε (a fixed grid floors small ε: the first
#: version's growth of c₂ at ε ≤ 1e-2 was that artefact)
T1_VDI_FRACTION = 0.1
T1_SLOPE_MARGIN = 0.1  # c₂ "bounded": its log-log slope in T at most 0.1 (the decision layer's rate margin)


def _pld_subsampled_epsilon(q: float, sigma: float, T: int, delta: float, vdi: float, pessimistic: bool) -> float:
    """dp-accounting's PLD ε of T Poisson-subsampled Gaussian steps (add/remove-one): an upper bound on the true ε
    when ``pessimistic``, a lower bound otherwise (the grid rounds the privacy loss down)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    dist = pld.from_gaussian_mechanism(sigma, sampling_prob=q, pessimistic_estimate=pessimistic,
                                       value_discretization_interval=vdi, use_connect_dots=pessimistic)
    e = float(dist.self_compose(int(T)).get_epsilon_for_delta(delta))
    if not math.isfinite(e):
        raise InvalidParameter("sigma", "large enough for a finite ε", sigma)
    return e


def _sigma_for_epsilon(q: float, T: int, epsilon: float, delta: float, accountant: str = "rdp",
                       rel: float = 1e-3, lo: float = 1e-2, hi: float = 1.0) -> dict:
    """Smallest noise multiplier (to relative precision ``rel``, rounded up) whose accountant ε ≤ ``epsilon``
    (:func:`verify.privacy.calibrate_multiplier`, searching from ``hi``, never below ``lo``).

    Poisson sampling at rate q, add/remove-one adjacency (Abadi et al.'s mechanism).  ``accountant``: "rdp"
    (dp-accounting's RDP, an upper bound on ε: the σ returned is sufficient), "pld_upper" / "pld_lower"
    (dp-accounting's PLD, pessimistic / optimistic, on a grid of 0.1·ε/T: the σ of "pld_lower" is at most the
    σ the mechanism truly needs).  inf when even σ = T1_SIGMA_CAP is not certified.
    """

    vdi = T1_VDI_FRACTION * epsilon / T
    seen: dict[float, float] = {}  # σ -> ε of this search: the answer's ε below was already computed by the search

    def eps(s: float) -> float:
        if s in seen:
            return seen[s]
        if accountant == "rdp":
            e = dp_sgd_epsilon(q, s, T, delta, "rdp")
        else:
            e = _pld_subsampled_epsilon(q, s, T, delta, vdi, accountant == "pld_upper")
        seen[s] = e
        return e

    try:
        sigma = calibrate_multiplier(eps, epsilon, guess=hi, rel=rel, z_min=lo, z_max=T1_SIGMA_CAP)
    except InvalidParameter:
        return {"sigma": math.inf, "eps_at_sigma": math.nan}
    return {"sigma": sigma, "eps_at_sigma": eps(sigma)}


T1_SEARCH_REL = 1e-2  # relative precision of the PLD σ searches


def _t1_point(q: float, T: int, epsilon: float, delta: float) -> dict:
    """The bracket σ_lo < σ* ≤ σ_hi of the noise the mechanism needs for (ε, δ) at one point.

    σ_hi is certified (RDP or pessimistic PLD ε ≤ ε).  σ_lo is a σ whose optimistic PLD ε (a lower bound on the
    true ε) exceeds ε, so the mechanism needs more: the search's answer divided by 1 + its precision, which
    :func:`verify.privacy.calibrate_multiplier` guarantees fails (0 when no failing σ was found).
    """
    r = _sigma_for_epsilon(q, T, epsilon, delta, "rdp")
    guess = r["sigma"] if math.isfinite(r["sigma"]) else 1.0
    up = _sigma_for_epsilon(q, T, epsilon, delta, "pld_upper", rel=T1_SEARCH_REL, hi=guess)
    floor = 1e-2
    low = _sigma_for_epsilon(q, T, epsilon, delta, "pld_lower", rel=T1_SEARCH_REL, lo=floor,
                             hi=min(guess, up["sigma"]))
    found = low["sigma"]
    sigma_lo = found / (1.0 + T1_SEARCH_REL) if math.isfinite(found) and found > floor else 0.0
    return {"sigma_rdp": r["sigma"], "sigma_hi": min(r["sigma"], up["sigma"]), "sigma_lo": sigma_lo}


def _ols_slope(x, y) -> float:
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    c = lx - lx.mean()
    return float(np.dot(c, ly - ly.mean()) / np.dot(c, c))


@claim(
    "adadps.theorem1",
    kind="privacy",
    statement="""Theorem 1 (after Abadi et al. 2016): with non-sensitive side information, there are constants c₁, c₂
    such that for ε < c₁b²T/n², Algorithm 1 is (ε, δ)-DP whenever σ ≥ c₂·b√(T log(1/δ))/(nε).""",
    theory=(ta.theorem1_required_c2,),  # theorem1_sigma, theorem1_epsilon_range: not evaluated by the check
    notes="Sampling: Theorem 1 is Abadi et al.'s Theorem 1, whose mechanism samples each record independently "
    "with probability q = b/n (Poisson), add/remove-one adjacency; that is what is accounted. Algorithm 1 as "
    "written draws a fixed-size uniform batch; its ε (sampling without replacement, replace-one adjacency, RDP) is "
    "reported beside it for the toy run in adadps.section4.1. Preconditioning by non-sensitive A before clipping "
    "leaves the per-record sensitivity at C, so the mechanism is the subsampled Gaussian. Check (exact, no "
    "statistical test): at each grid point (q, T, δ, ε = r·q²T with r ≤ c₁ = 1) the noise the mechanism needs is "
    "bracketed, σ_lo < σ* ≤ σ_hi: σ_hi the smallest σ certified by dp-accounting's RDP or pessimistic PLD (upper "
    "bounds on ε), σ_lo a σ whose optimistic PLD ε (a lower bound) exceeds ε (the search's answer over 1 + its "
    "1% precision, which the search guarantees fails); PLD grid 0.1·ε/T, chosen "
    "from the ε being resolved (the first version's fixed grids floored ε ≤ 1e-2 and made c₂ appear to grow). "
    "c₂ = σε/(q√(T log 1/δ)) at both ends. Per (q, r, δ): holds if the log-log slope in T of the upper c₂ is ≤ 0.1; "
    "violated if even the least growth the brackets allow — log(lower c₂ at the largest T / upper c₂ at the "
    "smallest T) / log(T range) — exceeds 0.1 over at least one decade of T, and so does the least growth over "
    "the last interval of T (growth that persists at the top of the range: c₂ also rises, then levels off, as ε "
    "goes from 1e-3 to ~1, which is no sign of an unbounded c₂). The first version compared the OLS slope of the "
    "lower ends alone, which a bracket 4% wide let exceed the margin at quick (0.113, where the least growth is "
    "0.09); otherwise inconclusive. The statement only asks for some c₁, and a c₁ below the grid's "
    "smallest r is not examined: the claim is violated only by a series at the smallest r (r = 0.1 at both "
    "budgets). Reading for smaller c₁ (not computed): with ε = c₁q²T/2 the theorem's σ = 2c₂√(log 1/δ)/(c₁q√T) "
    "→ 0 as T grows, and then the ~qT sampled steps leak ~qT/(2σ²) ∝ T², more than ε ∝ T, so any c₁ fails at "
    "large enough T; Abadi et al.'s proof assumes σ ≥ 1, which the statement does not carry. Holds needs every "
    "series bounded. The largest upper c₂ is the constant the grid needs. The full grid's T = 10⁴ was added after "
    "reviewing the quick numbers (ε reaches 10–100 there, where the exact law makes c₂ grow like √ε); "
    "tests/verify/test_adadps_claims.py shows the rule refuting c₁ = 0.1 at q = 0.1 over T = 10³..10⁴.",
)
def theorem1(budget: str, seed: int) -> Outcome:
    g = T1_GRIDS[by_budget(budget, "quick", "full")]
    points = [dict(q=q, T=T, epsilon=r * T1_C1 * q * q * T, delta=dl) for q in g["q"] for r in g["r"]
              for dl in g["delta"] for T in g["T"]]
    found = sweep(_t1_point, [dict(p) for p in points], "adadps.theorem1 σ bracket (RDP, PLD)")
    c2f = numeric(ta.theorem1_required_c2())

    def c2(p, sig):
        return float(c2f(sigma=sig, epsilon=p["epsilon"], q=p["q"], T=p["T"], delta=p["delta"]))

    hi = [c2(p, float(f["sigma_hi"])) for p, f in zip(points, found)]
    lo = [c2(p, float(f["sigma_lo"])) for p, f in zip(points, found)]
    uncertified = sum(1 for c in hi if not math.isfinite(c))
    verdicts, series, rows = [], [], []
    for q in g["q"]:
        for r in g["r"]:
            for dl in g["delta"]:
                idx = [i for i, p in enumerate(points) if p["q"] == q and p["delta"] == dl
                       and math.isclose(p["epsilon"], r * T1_C1 * q * q * p["T"])]
                Ts = [points[i]["T"] for i in idx]
                chi, clo = [hi[i] for i in idx], [lo[i] for i in idx]
                if not all(math.isfinite(c) and c > 0 for c in chi + clo):
                    verdicts.append("inconclusive")
                    continue
                s_hi, s_lo = _ols_slope(Ts, chi), _ols_slope(Ts, clo)
                span = math.log10(max(Ts) / min(Ts))
                # the least growth the brackets allow: needed c₂ at the largest T at least its lower end, at the
                # smallest T at most its upper end
                g_min = math.log(clo[int(np.argmax(Ts))] / chi[int(np.argmin(Ts))]) / math.log(max(Ts) / min(Ts))
                # ... and over the last interval of T: growth that persists at the top of the range, not the
                # approach to a plateau (c₂ rises towards its Gaussian-regime value as ε grows from 1e-3 to ~1)
                o = np.argsort(Ts)
                g_last = math.log(clo[o[-1]] / chi[o[-2]]) / math.log(Ts[o[-1]] / Ts[o[-2]])
                v = ("violated" if (g_min > T1_SLOPE_MARGIN and g_last > T1_SLOPE_MARGIN and span >= 1.0) else
                     "holds" if s_hi <= T1_SLOPE_MARGIN else "inconclusive")
                verdicts.append(v)
                rows.append(dict(q=q, r=r, delta=dl, slope_hi=s_hi, slope_lo=s_lo, growth_min=g_min,
                                 growth_min_last=g_last, verdict=v,
                                 c2_hi_max=max(chi), c2_lo=clo, c2_hi=chi, T=Ts))
                series.append(Series(f"q={q:g}, r={r:g}, δ={dl:g}: upper c₂", Ts, chi))
                series.append(Series(f"q={q:g}, r={r:g}, δ={dl:g}: lower c₂", Ts, clo, style="dashed"))
    # "there are constants c₁, c₂": a c₁ below the grid's smallest r is not examined, so only a series at the
    # smallest r refutes (every c₁ ≥ r_min then needs an unbounded c₂; for smaller c₁ see the notes)
    r_min = min(g["r"])
    refuting = [x for x in rows if x["verdict"] == "violated" and x["r"] == r_min]
    verdict = ("violated" if refuting else "holds" if verdicts and all(v == "holds" for v in verdicts)
               else "inconclusive")
    worst = (max(refuting, key=lambda x: x["growth_min"]) if refuting else
             max(rows, key=lambda x: x["growth_min"]) if rows else None)
    steep = max(rows, key=lambda x: x["slope_hi"]) if rows else None
    fin = [c for c in hi if math.isfinite(c)]
    evidence = (f"exact (accountant bracket, no test): {len(points)} points (q, T, δ, ε = r·q²T, r ≤ c₁ = {T1_C1:g}); "
                f"the needed c₂ lies in [{min(lo):.3g}, {max(fin):.3g}] (lower: optimistic PLD, upper: RDP/pessimistic "
                f"PLD, grid 0.1·ε/T; {uncertified} not certified below σ = {T1_SIGMA_CAP:g}); steepest slope in T of "
                f"the upper c₂ {steep['slope_hi']:+.3g} (q={steep['q']:g}, r={steep['r']:g}, δ={steep['delta']:g}); "
                f"least growth the brackets allow {worst['growth_min']:+.3g} (q={worst['q']:g}, r={worst['r']:g}, "
                f"δ={worst['delta']:g}); margin {T1_SLOPE_MARGIN:g} on the slope, refutation only at the smallest "
                f"r = {r_min:g}: " + ", ".join(f"q={x['q']:g},r={x['r']:g},δ={x['delta']:g}: {x['verdict']}"
                                                for x in rows)
                + ("" if verdict != "inconclusive" else
                   f"; undecided: no series at r = {r_min:g} grows beyond the margin through the top of its T range"
                   + (" — the full budget's T up to 10⁴ (ε ≫ log 1/δ at q = 0.1) would decide" if budget == "quick"
                      else " — a T range beyond the full budget's would decide")))
    fig = Figure("theorem1", "adadps Theorem 1: the c₂ the mechanism needs", [Panel(
        "c₂ = σ·ε/(q√(T log 1/δ)), σ bracketed by dp-accounting (PLD grid 0.1ε/T)", "T", "c₂ needed", series,
        xscale="log")])
    figures = {"points": len(points), "points_not_certified": uncertified, "c2_needed_max": max(fin),
               "c2_needed_min": min(lo), "c1": T1_C1, "max_slope_in_T": steep["slope_hi"],
               "max_slope_in_T_lower": max(x["slope_lo"] for x in rows),
               "max_least_growth_in_T": max(x["growth_min"] for x in rows),
               "max_least_growth_in_T_at_smallest_r": max(x["growth_min"] for x in rows if x["r"] == r_min),
               "max_least_growth_last_interval_at_smallest_r": max(x["growth_min_last"] for x in rows
                                                                   if x["r"] == r_min)}
    counter = None
    if verdict == "violated":
        counter = {k: worst[k] for k in ("q", "r", "delta", "T", "c2_lo", "c2_hi", "growth_min", "growth_min_last")}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


# issue 25: Theorem 1 is existential ("there are constants c₁, c₂"): its truth is whether the c₂ the mechanism needs
# stays bounded along each series in T. Every theory mutant of theorem1_required_c2 maps that c₂ to k·c₂ (×10, ×0.1)
# or to k(δ)·c₂^p (x -> x^p in every variable: σ^p ε^p/(q^p T^{p/2} √(p log 1/δ)) = c₂^p (log 1/δ)^{(p−1)/2}/√p),
# with k free of σ, ε, q and T: bounded iff bounded, for every data (tests/verify/test_issue25_adadps.py checks it)
for _m in ("x10", "x0.1"):
    declare_equivalent("adadps.theorem1", f"theorem1_required_c2:{_m}", "the statement is existential in c₂: a "
                       "constant factor on the c₂ needed changes no bound's existence (bounded iff bounded)")
for _m in ("pow1.25", "pow0.75"):
    declare_equivalent("adadps.theorem1", f"theorem1_required_c2:{_m}", "the statement is existential in c₂: with "
                       "every variable x -> x^p the c₂ needed becomes k(δ)·c₂^p, k free of σ, ε, q and T, which is "
                       "bounded in T exactly when c₂ is (the check's slope margin is not invariant under it, so its "
                       "verdict on this mutant says nothing about the statement)")


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
T2_PROBLEM = dict(n=1000, d=1, n_public=100, s_low=1.0, s_high=2.0, w_norm=1.0, seed=5)
T2_GRIDS = {"quick": dict(T=(100, 400, 1600), trials=8), "full": dict(T=(100, 300, 1000, 3000, 10000), trials=24)}
T2_LR = 0.05  # α: 2α√T = ‖w¹ − w*‖ = 1 at the smallest T
T2_SIGMA, T2_BATCH, T2_EPS_A = 1.0, 16, 1e-3
T2_CLIP = 8.0  # C = 2·(s_high/s_low)²: twice the largest ‖g_i/A¹‖ at the first step
T2_GAMMA = 1.0  # βᵗ = 1 − 1/t
#: issue 25, fixed before their verdicts: the smallest-T case again on the same problem rescaled, w* ×c with α and εᵗ
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
                              batch_size=batch_size, steps=steps, sampling="fixed", eps_a=eps_a,
                              harmonic_beta2=True, lr_decay=True, observe=observe)
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
    # the rescaled cases (issue 25): T = the smallest T, the same decisions with the scaled run's own a, D, S_A, N_A
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
    "lost in extraction; the bound is reconstructed from eq. (38). Issue 25: the smallest T again on the problem "
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
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=r["decisions"])


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
                          side_info="glm", trials=GLM_NOISE_RUNS,
                          seed=child_seed(seed, "adadps.theorem3", "noise"), n_log=2)
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
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


declare_equivalent("adadps.theorem3", "no-clipping", "no run clips anything: the noise runs clip all-zero "
                   "records (a no-op) and the rate runs use clip = ∞ (Assumption 2 through the noise scale C), so "
                   "skipping the clipping changes no number")
declare_equivalent("adadps.theorem3", "precond-inverse", "Theorem 3 is over every fixed positive side information A: "
                   "the faulted rate run is AdaDPS with the fixed A' = G²/A > 0, another instance of the same "
                   "statement (the O(1/√T) in T is all the check tests of it), and the GLM noise runs use a constant "
                   "A, for which G²/A = A")


# ======================================================================================
# Theorem 5: non-convex / smooth, fixed A — the bound with the proof's explicit constants
# ======================================================================================
# the last two cases are adversarial for the bound: full batches (b = n = 1000, so the variance term is the
# proof's only slack) at few steps, where its leading term 2(F(w¹) − F*)/(αT) is within a factor ~5 of the
# measured side (the small-batch cases sit near 0.004 of the bound: alone they could not catch a bound 100× too small)
T5_ADVERSARIAL = ((1000, 0.0, 100), (1000, 1.0, 30))
T5_GRIDS = {"quick": dict(cases=((8, 0.0, 300), (8, 0.1, 300)) + T5_ADVERSARIAL, trials=8),
            "full": dict(cases=tuple((b, s, T) for b in (4, 16) for s in (0.0, 0.1, 1.0) for T in (300, 3000))
                         + T5_ADVERSARIAL, trials=20)}
#: worst case over datasets (fixed before the claim's verdicts): coordinate-aligned records with no signal
#: (kernels.adadps.aligned_no_signal_logistic: the optimum w* = 0 = w¹ sits where the logistic loss is most curved,
#: so SGD's stationary gradient noise is largest there and α = ϵ/L is a step of 1/curvature), batch size 1 (the
#: variance term τ²/(Ab) at its largest), n = 64 records, T = 300 steps; cases (d, σ)
T5_DATA_ADVERSARIAL = dict(n=64, b=1, T=300, cases=((1, 0.0), (1, 1.0), (4, 0.0), (4, 1.0)))
#: the tight family (fixed before its verdicts; :func:`tight_quadratic`): n = 4 records, b = 2 without replacement,
#: T = 200, noise std s = σK/b = 0.5 in w (σ = 2s/K), C = K/a with K = 8 (|w − y| ≤ 2 + s|N| ≤ K unless |N| > 12:
#: never clipped in practice), a ∈ {0.02, 50}: the bound's two terms 1/(2a) and s²/a are both > 1 at a = 0.02 and
#: both < 1 at a = 50, so an exponent a quarter off in either direction lowers the bound in one case. The left side
#: is (1 − 1/T)(1/3 + s²)/a, 0.77 of the bound (1/2 + s²)/a: noise ×3 makes it 3.4× the bound, a step ×10 diverges
T5_TIGHT = dict(n=4, b=2, T=200, s=0.5, K=8.0, cases=(0.02, 50.0))


def theorem5_constants(problem, side_info: str = "frequency") -> dict:
    """The constants of Theorem 5's proof for a logistic GLM with fixed A (all upper bounds, hence a larger RHS):

    L = λ_max(XᵀX)/(4n) (f'' ≤ 1/4), ϵ = min_j A_j, τ_j² = mean_i x_ij² (≥ the per-record variance of g_j, as
    |c| ≤ 1), C = max_i ‖x_i/A‖ (Assumption 2 for every w), F(w¹) − F* with w¹ = 0 and F* by L-BFGS.

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        A logistic problem.
    side_info : str
        The side-information key of the fixed A.

    Returns
    -------
    dict
        ``L``, ``eps_a`` (min_j A_j), ``S_tau_A`` (Σ_j τ_j²/A_j), ``C``, ``F1_gap``, ``d`` and ``A``.
    """
    X = problem.features
    A = problem.side_info[side_info]
    L = float(np.linalg.eigvalsh(X.T @ X / X.shape[0]).max()) / 4.0
    tau2 = np.mean(X**2, axis=0)
    return {"L": L, "eps_a": float(A.min()), "S_tau_A": float(np.sum(tau2 / A)), "C": float(np.max(np.linalg.norm(X / A,
            axis=1))), "F1_gap": math.log(2.0) - f_star_logistic(problem), "d": problem.d, "A": A}


def tight_quadratic(a: float, n: int = 4):
    """The tight family of Theorem 5's check: the squared loss on n one-feature records xᵢ = 1 with labels ±1
    alternating (F(w) = ½(w² + 1), w* = 0), fixed side information A = ``a``.

    With α = ϵ/L = a the step cancels the deterministic part of the gradient, w^{t+1} = ȳ_B − αN/a, so every
    inequality of the proof's descent step (eq. (64)) is an equality except the without-replacement factor
    (n − b)/(n − 1) < 1 on the sampling variance and the first iterate's zero gradient: the bound is within a
    known factor of the left side, and an algorithm with more noise or a larger step exceeds it.

    Parameters
    ----------
    a : float
        The side information (one feature), > 0.
    n : int, optional
        The number of records, even (default 4).

    Returns
    -------
    kernels.adadps.GLMProblem
        A ``"squared"`` problem with side information ``"frequency"`` = [a].

    Raises
    ------
    dpvalidate.InvalidParameter
        When ``a`` is not a finite positive number or n is not an even count.
    """
    if not (isinstance(a, (int, float)) and math.isfinite(a) and a > 0):
        raise InvalidParameter("a", "a finite positive number", a)
    if not (isinstance(n, int) and n >= 2 and n % 2 == 0):
        raise InvalidParameter("n", "an even count >= 2", n)
    X = np.ones((n, 1))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return ka.GLMProblem(np.ascontiguousarray(X), y, "squared", {"frequency": np.full(1, float(a))},
                         dict(n=n, d=1, a=float(a), tight_quadratic=True), w_true=np.zeros(1))


def tight_quadratic_constants(problem, K: float) -> dict:
    """Theorem 5's constants for :func:`tight_quadratic`, each exact (not only an upper bound).

    L = λ_max(XᵀX/n) = 1 (f'' = x² = 1), ϵ = a, τ² = Var(yᵢ)·x² = 1 (the per-record gradient (w − yᵢ)·1 has this
    variance at every w), C = K/a (the noise scale; the run clips at C, so Assumption 2 holds along the run exactly
    when no record is clipped: the check asks for none), F(w¹) − F* = 0 (w¹ = 0 = w*).

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        A :func:`tight_quadratic` problem.
    K : float
        The noise scale in units of a: C = K/a.

    Returns
    -------
    dict
        The keys of :func:`theorem5_constants`.
    """
    X, y = problem.features, problem.labels
    A = problem.side_info["frequency"]
    a = float(A[0])
    L = float(np.linalg.eigvalsh(X.T @ X / X.shape[0]).max())
    tau2 = float(np.var(y)) * float(np.mean(X[:, 0] ** 2))
    f_star = 0.5 * float(np.var(y))  # at w* = ȳ = 0
    return {"L": L, "eps_a": a, "S_tau_A": tau2 / a, "C": K / a,
            "F1_gap": 0.5 * float(np.mean(y**2)) - f_star, "d": 1, "A": A}


def _t5_problem(problem_kw: dict):
    """The problem of a Theorem 5 case: ``{"aligned_no_signal": {n, d}}`` (the adversarial family),
    ``{"tight_quadratic": {a, n}}`` (the tight family) or the keywords of a zipf_bow_logistic."""

    if "aligned_no_signal" in problem_kw:
        return ka.aligned_no_signal_logistic(**problem_kw["aligned_no_signal"])
    if "tight_quadratic" in problem_kw:
        return tight_quadratic(**problem_kw["tight_quadratic"])
    return make_problem("zipf_bow_logistic", problem_kw)


def _t5_constants(problem_kw: dict, prob) -> dict:
    if "tight_quadratic" in problem_kw:
        return tight_quadratic_constants(prob, T5_TIGHT["K"])
    return theorem5_constants(prob)


def _t5_task(problem_kw: dict, batch_size: int, sigma: float, steps: int, trials: int, seed: int) -> dict:
    prob = _t5_problem(problem_kw)
    k = _t5_constants(problem_kw, prob)
    alpha = k["eps_a"] / k["L"]  # the largest step the theorem allows
    # the tight family clips at C (a clipped record = Assumption 2 failed along the run); the others never clip
    clip = k["C"] if "tight_quadratic" in problem_kw else math.inf
    out = ka.run_central(prob, "adadps_fixed", lr=alpha, clip=clip, sigma=sigma, batch_size=batch_size,
                         steps=steps, sampling="fixed", side_info="frequency", noise_clip=k["C"],
                         track_weights=1.0 / k["A"], trials=trials, seed=seed, n_log=2)
    return {"grad_avg": out["grad_avg"], "alpha": alpha, "clip_fraction": out["clip_fraction"]}


@claim(
    "adadps.theorem5",
    kind="expectation",
    statement="""Theorem 5: for L-smooth F and fixed side information A with A ≥ ϵ, constant α ≤ ϵ/L, no clipping
    (Assumption 2) and noise N(0, σ²C²)/b, (1/T)Σₜ E‖∇F(wᵗ)‖²_{A⁻¹} ≤ O(1/T) + O(τ²/(Ab) + σ²/b²).""",
    theory=(ta.theorem5_explicit_bound,),  # theorem5_bound (the O-form as stated): not evaluated by the check
    weaker_if={"theory.adadps.theorem5_explicit_bound": "larger"},  # an upper bound: larger only weakens it
    notes="Checked with the proof's own constants (theory.adadps.theorem5_explicit_bound, summing eq. (64)): "
    "2(F(w¹) − F*)/(αT) + (αL/ϵ)Στ²/(Ab) + αLdσ²C²/b², every constant an upper bound for a logistic GLM "
    "(verify.papers.adadps.theorem5_constants; L-smooth is all the theorem needs). AdaDPS with the frequency side "
    "information on a small zipf_bow_logistic, α = ϵ/L, fixed-size batches (as the proof's variance step assumes), "
    "w¹ = 0; the left side is averaged over every iterate with full-data gradients. Per (b, σ, T): "
    "verify.decide.mean_at_most (one-sample t over seeds; 14 tests declared, the full budget's cases). Besides "
    "small batches (where the measured side is ≈ 0.004 of the bound, near-vacuous), two full-batch cases "
    "(b = n = 1000: σ = 0, T = 100 and σ = 1, T = 30) where the measured side is 0.1–0.2 of the bound, so a bound "
    "wrong by a factor 10 is caught. Reported: left/right (how tight the bound is). "
    "Theorem 4 (public data) needs Assumption 3, which fails for sparse "
    "features (see adadps.theorem2): it is checked on a problem built to satisfy it (adadps.theorem4). "
    "Worst case over datasets (the bound is over every L-smooth "
    "F): an adversarial family fixed before its verdicts — coordinate-aligned records with no signal "
    "(kernels.adadps.aligned_no_signal_logistic: record i = e_{(i mod d)+1}, labels ±1 balanced per feature, so "
    "w* = w¹ = 0 where the logistic loss is most curved and the per-record gradients vary most; A = 1), batch size "
    "1, n = 64, T = 300, (d, σ) ∈ {1, 4} × {0, 1}, its own constants, same decision (4 more tests: 18). Its first "
    "term is 0 (F(w¹) = F*): it tests the variance and noise terms, where the zipf cases sit near 0.004 of the "
    "bound. Sharp case (issue 25, fixed before its verdicts): verify.papers.adadps.tight_quadratic, the squared loss "
    "on 4 records x = 1, y = ±1 with A = a, α = ϵ/L = a, b = 2 without replacement, where the proof's descent step "
    "is an equality but for the without-replacement factor (n − b)/(n − 1) = 2/3 and the first iterate: the left "
    "side is 0.77 of the bound, so more noise (×3: 3.4× the bound), a larger step (×10: divergence) or a bound "
    "whose exponents are a quarter off (a = 0.02: both terms > 1; a = 50: both < 1) is caught; runs clip at C and "
    "report the clipped fraction (0: Assumption 2 held). 2 more tests: 20. "
    "The verdict is the worst over the families; the evidence names the largest measured/bound and where.",
    tests=20,
)
def theorem5(budget: str, seed: int) -> Outcome:
    g = T5_GRIDS[by_budget(budget, "quick", "full")]
    prob = make_problem("zipf_bow_logistic", RATE_PROBLEM)
    k = theorem5_constants(prob)
    rhs_f = numeric(ta.theorem5_explicit_bound())
    # a full batch without noise is deterministic: two runs suffice for its (zero-width) interval
    tasks = [dict(problem_kw=RATE_PROBLEM, batch_size=b, sigma=s, steps=T,
                  trials=2 if (b >= RATE_PROBLEM["n"] and s == 0) else g["trials"],
                  seed=child_seed(seed, "adadps.theorem5", i)) for i, (b, s, T) in enumerate(g["cases"])]
    adv = T5_DATA_ADVERSARIAL
    adv_kw = [dict(aligned_no_signal=dict(n=adv["n"], d=dd)) for dd, _ in adv["cases"]]
    tasks += [dict(problem_kw=kw, batch_size=adv["b"], sigma=s, steps=adv["T"], trials=g["trials"],
                   seed=child_seed(seed, "adadps.theorem5", "adversarial", i))
              for i, (kw, (_, s)) in enumerate(zip(adv_kw, adv["cases"]))]
    tq = T5_TIGHT
    tq_kw = [dict(tight_quadratic=dict(a=a, n=tq["n"])) for a in tq["cases"]]
    tq_sigma = 2.0 * tq["s"] / tq["K"]
    tasks += [dict(problem_kw=kw, batch_size=tq["b"], sigma=tq_sigma, steps=tq["T"], trials=g["trials"],
                   seed=child_seed(seed, "adadps.theorem5", "tight", i)) for i, kw in enumerate(tq_kw)]
    cases = [(b, s, T, "zipf", k) for b, s, T in g["cases"]]
    cases += [(adv["b"], s, adv["T"], f"aligned no-signal d={dd}", theorem5_constants(_t5_problem(kw)))
              for kw, (dd, s) in zip(adv_kw, adv["cases"])]
    cases += [(tq["b"], tq_sigma, tq["T"], f"tight quadratic a={a:g}", _t5_constants(kw, _t5_problem(kw)))
              for kw, a in zip(tq_kw, tq["cases"])]
    outs = sweep(_t5_task, tasks, "adadps.theorem5 runs")
    verdicts, rows, decisions = [], [], []
    for (b, s, T, data, kk), o in zip(cases, outs):
        alpha = float(o["alpha"])
        rhs = float(rhs_f(F1_gap=kk["F1_gap"], alpha=alpha, T=T, L=kk["L"], eps_a=kk["eps_a"], S_tau_A=kk["S_tau_A"],
                          b=b, d=kk["d"], sigma=s, C=kk["C"]))
        ci = stats.mean_ci(np.asarray(o["grad_avg"]))
        where = "" if data == "zipf" else f"{data}, "
        dec = decide.mean_at_most(np.asarray(o["grad_avg"]), rhs,
                                  what=f"({where}b={b}, σ={s:g}, T={T}) (1/T)ΣE‖∇F‖²_A⁻¹ ≤ the explicit bound")
        decisions.append(dec)
        v = str(dec.verdict)
        verdicts.append(v)
        rows.append(dict(data=data, b=b, sigma=s, T=T, alpha=alpha, lhs=ci.estimate, lhs_lo=ci.lo, lhs_hi=ci.hi,
                         rhs=rhs, verdict=v))
    verdict = str(decide.combine(decisions))
    worst = max(rows, key=lambda r: r["lhs"] / r["rhs"])
    worst_adv = max((r for r in rows if r["data"].startswith("aligned")), key=lambda r: r["lhs"] / r["rhs"])
    tight = [r for r in rows if r["data"].startswith("tight")]
    clipped = float(sum(np.sum(np.asarray(o["clip_fraction"])) for (*_, data, _k), o in zip(cases, outs)
                        if data.startswith("tight")))
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[len(g["cases"]) - 2]
    evidence = (f"{key.phrase()}; measured/bound from {min(r['lhs'] / r['rhs'] for r in rows):.3g} to "
                f"{worst['lhs'] / worst['rhs']:.3g} (worst: {worst['data']}, b={worst['b']}, σ={worst['sigma']:g}, "
                f"T={worst['T']}; the full-batch and the aligned no-signal cases make the check able to fail, the "
                f"tight quadratic ones (left side ≈ 0.77 of the bound by construction) make it sharp: measured/bound "
                + ", ".join(f"{r['lhs'] / r['rhs']:.3g} ({r['data']})" for r in tight)
                + f", clipped fraction {clipped:.3g} (0: Assumption 2 held along those runs)); "
                f"zipf: L = {k['L']:.4g}, ϵ = min A = {k['eps_a']:.3g}, α = ϵ/L = {rows[0]['alpha']:.3g}, "
                f"C = {k['C']:.3g}: "
                + "; ".join(f"({'' if r['data'] == 'zipf' else r['data'] + ', '}b={r['b']}, σ={r['sigma']:g}, "
                            f"T={r['T']}): (1/T)ΣE‖∇F‖²_A⁻¹ {r['lhs']:.4g} "
                            f"[{r['lhs_lo']:.4g}, {r['lhs_hi']:.4g}] vs bound {r['rhs']:.4g} [{r['verdict']}]"
                            for r in rows))
    fig = Figure("theorem5", "adadps Theorem 5 with the proof's constants", [Panel(
        "left side (mean, 95% CI) and the explicit bound per case", "case", "(1/T)Σ E‖∇F‖²_{A⁻¹}", [
            Series("measured", list(range(len(rows))), [r["lhs"] for r in rows], [r["lhs_lo"] for r in rows],
                   [r["lhs_hi"] for r in rows], style="points"),
            Series("bound (eqs. 59–65)", list(range(len(rows))), [r["rhs"] for r in rows], style="points")],
        yscale="log")])
    figures = {"L": k["L"], "eps_min_A": k["eps_a"], "C": k["C"],
               "max_lhs_over_rhs": worst["lhs"] / worst["rhs"],
               "max_lhs_over_rhs_adversarial": worst_adv["lhs"] / worst_adv["rhs"],
               "max_lhs_over_rhs_tight": max(r["lhs"] / r["rhs"] for r in tight), "tight_clipped_fraction": clipped}
    for r in rows:
        key = f"b{r['b']}_s{r['sigma']:g}_T{r['T']}"
        if r["data"].startswith("tight"):
            key = r["data"].replace("tight quadratic ", "tight_").replace("=", "") + "_" + key
        elif r["data"] != "zipf":
            key = r["data"].replace("aligned no-signal ", "aligned_").replace("=", "") + "_" + key
        figures[f"lhs[{key}]"] = r["lhs"]
        figures[f"rhs[{key}]"] = r["rhs"]
    counter = next((r for r in rows if r["verdict"] == "violated"), None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Section 4.1: the toy example (sparse_linear_regression)
# ======================================================================================
S41_MARGIN = math.log(1.1)
S41 = {"quick": dict(clips=(TOY["clip"],), tune_trials=2, trials=5),
       "full": dict(clips=PAPER_CLIP_GRID, tune_trials=3, trials=20)}


def toy_privacy() -> dict:
    """The accountant's ε of the toy run: Poisson rate b/n (RDP and PLD), and fixed-size batches (replace-one, RDP).

    Returns
    -------
    dict
        ``epsilon_rdp``, ``epsilon_pld``, ``epsilon_rdp_fixed_batch_replace_one``, the run's settings (``sigma``,
        ``batch_size``, ``n``, ``sampling_rate``, ``steps``, ``delta``) and the paper's ``stated_epsilon``.
    """
    from dp_accounting import dp_event as dpe

    n, b, T, s, dl = 1000, TOY["batch_size"], TOY["steps"], TOY["sigma"], TOY["delta"]
    # replace-one: the replaced record's clipped gradient can flip, so the sum moves by up to 2C while the noise
    # is σC; dp-accounting takes the multiplier relative to that l2-sensitivity: σ/2 (found by adadps.audit)
    fixed = dpe.SelfComposedDpEvent(dpe.SampledWithoutReplacementDpEvent(n, b, dpe.GaussianDpEvent(s / 2)), T)
    return {"epsilon_rdp": dp_sgd_epsilon(b / n, s, T, dl, "rdp"),
            "epsilon_pld": dp_sgd_epsilon(b / n, s, T, dl, "pld"),
            "epsilon_rdp_fixed_batch_replace_one": epsilon_of(fixed, dl, "rdp", NeighboringRelation.REPLACE_ONE),
            "sigma": s, "batch_size": b, "n": n, "sampling_rate": b / n, "steps": T, "delta": dl,
            "stated_epsilon": TOY["stated_epsilon"]}


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
                                 seed=child_seed(seed, label, "probe", m), n_log=2)
            ratio = float(np.sqrt(np.mean(np.asarray(out["w"]) ** 2)) * b / (sigma * CENTRAL_PROBE["clip"]))
            numbers[f"probe_noise_std_ratio[{m}]"] = ratio
            if not CENTRAL_PROBE_BAND[0] <= ratio <= CENTRAL_PROBE_BAND[1]:
                bad.append(f"{m}: the noise in the update is {ratio:.3g} × the stated η·σC/b")
        if m in CENTRAL_PROBE_STEP:
            out = ka.run_central(problem(1.0), m, lr=lr, clip=C, sigma=0.0, batch_size=b, steps=1, sampling="fixed",
                                 side_info=A.copy(), trials=1, seed=child_seed(seed, label, "probe-step", m), n_log=2)
            u = np.ones(d) / A if m == "adadps_fixed" else np.ones(d)
            stated = lr * (u if math.isinf(C) else C * u / np.linalg.norm(u))
            step = float(np.max(np.abs(np.asarray(out["w"][0]) / stated - 1.0)))
            numbers[f"probe_step_rel_error[{m}]"] = step
            if not step <= CENTRAL_PROBE_RTOL:
                bad.append(f"{m}: the {'' if math.isinf(C) else 'clipped '}step is off the stated one by {step:.3g} "
                           "(relative)")
    return "; ".join(bad), numbers


@claim(
    "adadps.section4.1",
    kind="experiment",
    statement="""Section 4.1 / Figure 3: on the sparse linear regression toy problem (d = 500, n = 1000, rare informative
    features), AdaDPS with side information A (1 for the 50 frequent features, 0.01 otherwise) reaches a much lower
    training loss than DP-SGD at the same privacy, (4.13, 10⁻³)-DP.""",  # noqa: E501
    theory=(),  # theorem3_bound, noise_ratio_adadps_over_dpsgd: not evaluated by the check
    mutants=_one_arm_mutants(("adadps_fixed",), "AdaDPS"),
    notes="Run: b = 8, T = 2250, σ = 0.7, δ = 1e-3 (the paper gives only (4.13, 1e-3); b, T, σ and C = 0.5 are the "
    "authors' public toy script's values), Poisson sampling at rate b/n as the RDP accountant assumes, w⁰ = 0. "
    "Learning rates: the paper's grid {0.0005, ..., 2} for both methods; clip: 0.5 at the quick budget, the paper's "
    "clip grid jointly at the full budget — same grid for both, fixed before running; tuned on the final training "
    "loss with separate tuning seeds, reported on fresh seeds. Verdict: (a) the stated ε = 4.13 is at least the "
    "accountant's (RDP and PLD, Poisson) up to the stated rounding (0.005) (exact); (b) verify.decide.better on the "
    "log final training loss (Welch t, 1 test): AdaDPS below DP-SGD holds, above it by more than log 1.1 (margin "
    "fixed before the data: AdaDPS 10% worse) is violated. 'Much' is reported as the ratio (bootstrap CI), not "
    "tested. Also reported: ε for Algorithm 1's fixed-size batches (replace-one adjacency). Mechanism probe "
    "(issue 25, _central_mechanism_probe, fixed before its runs): both methods' kernel, on a probe problem, must add "
    "noise of standard deviation σC/b (within [0.8, 1.25] over 20000 draws) and take the stated clipped step η·C·u "
    "(to 1e-9 relative); a kernel that does not is not the stated mechanism: the comparison is not run and the "
    "verdict is inconclusive (violated only if the ε part fails).",
    tests=1,
)
def section4_1(budget: str, seed: int) -> Outcome:
    g = S41[by_budget(budget, "quick", "full")]
    priv = toy_privacy()
    eps_ok = TOY["stated_epsilon"] + 0.005 >= max(priv["epsilon_rdp"], priv["epsilon_pld"])
    # the runs must be the stated mechanism (noise σC/b, the stated clipped step): a kernel that is not cannot
    # establish the statement, and the comparison is not run (inconclusive; violated only if the ε part fails)
    unlike, probe = _central_mechanism_probe(("adadps_fixed", "dp_sgd"), TOY["sigma"], TOY["batch_size"], seed,
                                             "adadps.section4.1")
    if unlike:
        return Outcome(verdict="inconclusive" if eps_ok else "violated",
                       evidence=f"the kernel does not run the stated mechanism ({unlike}): the comparison is not run; "
                       f"accountant ε RDP {priv['epsilon_rdp']:.4f}, PLD {priv['epsilon_pld']:.4f} vs stated 4.13 "
                       f"[{'consistent' if eps_ok else 'UNDERSTATED'}]", numbers=dict(priv, **probe),
                       counterexample=None if eps_ok else {"stated_epsilon": TOY["stated_epsilon"],
                                                           "epsilon_rdp": priv["epsilon_rdp"]})
    base = dict(problem="sparse_linear_regression", problem_kw={}, sigma=TOY["sigma"], batch_size=TOY["batch_size"],
                steps=TOY["steps"], side_info="paper", n_log=46)
    chosen, tables = {}, {}
    for method in ("adadps_fixed", "dp_sgd"):
        grid = [dict(lr=lr, clip=c) for lr in PAPER_LR_GRID for c in g["clips"]]
        chosen[method], tables[method] = _tune(f"adadps.section4.1 tune {method}", dict(base, method=method,
                                                                                        trials=g["tune_trials"]),
                                               grid, "final_loss", child_seed(seed, "adadps.section4.1", "tune"))
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.section4.1", "run"), **chosen[m])
             for m in ("adadps_fixed", "dp_sgd")]
    ada, sgd = sweep(_central_task, tasks, "adadps.section4.1 runs")
    fa, fs = np.asarray(ada["final_loss"]), np.asarray(sgd["final_loss"])
    ci = stats.bootstrap_ci(lambda u, w: np.mean(u) / np.mean(w), fs, fa, seed=int(seed))
    dec = decide.better(np.log(fa), np.log(fs), what="log final training loss AdaDPS − DP-SGD", margin=S41_MARGIN)
    v_loss = str(dec.verdict)
    verdict = "violated" if not eps_ok else str(decide.combine([dec]))
    steps = np.asarray(ada["steps"])
    series = []
    for name, o in (("AdaDPS (side information)", ada), ("DP-SGD", sgd)):
        L = np.asarray(o["loss"])
        cis = [stats.mean_ci(L[:, j]) for j in range(L.shape[1])]
        series.append(Series(name, steps, [c.estimate for c in cis], [c.lo for c in cis], [c.hi for c in cis]))
    evidence = (f"{dec.phrase()}; accountant ε (Poisson q = {priv['sampling_rate']:g}, σ = {priv['sigma']}, "
                f"T = {priv['steps']}, "
                f"δ = {priv['delta']:g}): RDP {priv['epsilon_rdp']:.4f}, PLD {priv['epsilon_pld']:.4f} vs stated 4.13 "
                f"[{'consistent' if eps_ok else 'UNDERSTATED'}]; fixed-size batches (replace-one) RDP "
                f"{priv['epsilon_rdp_fixed_batch_replace_one']:.3f}; tuned (lr, C): AdaDPS {chosen['adadps_fixed']}, "
                f"DP-SGD {chosen['dp_sgd']}; final training loss AdaDPS {stats.mean_ci(fa)}, "
                f"DP-SGD {stats.mean_ci(fs)} "
                f"({fa.size} seeds); DP-SGD/AdaDPS {ci} (bootstrap, reported) [{v_loss}]")
    fig = Figure("section4_1", f"adadps §4.1 toy: (ε, δ) = ({priv['epsilon_rdp']:.2f}, 1e-3)", [Panel(
                     "sparse_linear_regression, mean ± 95% CI over seeds", "iteration", "training loss", series,
                     yscale="log")])
    evidence = "mechanism probe passed (noise σC/b, the stated clipped step); " + evidence
    figures = dict(priv, **probe)
    figures.update({"lr_adadps": chosen["adadps_fixed"]["lr"], "clip_adadps": chosen["adadps_fixed"]["clip"],
                    "lr_dpsgd": chosen["dp_sgd"]["lr"], "clip_dpsgd": chosen["dp_sgd"]["clip"],
                    "final_loss_adadps": float(np.mean(fa)), "final_loss_dpsgd": float(np.mean(fs)),
                    "loss_ratio_dpsgd_over_adadps": ci.estimate, "loss_ratio_ci_lo": ci.lo, "loss_ratio_ci_hi": ci.hi,
                    "seeds": int(fa.size)})
    counter = None
    if verdict == "violated":
        counter = {"stated_epsilon": TOY["stated_epsilon"], "epsilon_rdp": priv["epsilon_rdp"],
                   "loss_ratio_ci": [ci.lo, ci.hi], "loss_test": dec.reason}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[dec])


# ======================================================================================
# Table 6 / 1 / 4 ordering on zipf_bow_logistic
# ======================================================================================
TABLE_METHODS = ("dp_sgd", "dp_adam", "dp_rmsprop", "dp_r_pub", "adadps_rmsprop", "adadps_fixed")
TABLE_LABELS = {"dp_sgd": "DP-SGD", "dp_adam": "DP-Adam", "dp_rmsprop": "DP-RMSProp", "dp_r_pub": "DP-R-Pub",
                "adadps_rmsprop": "AdaDPS (public)", "adadps_fixed": "AdaDPS (frequency)"}
TABLE_GRIDS = {
    "quick": dict(problem=dict(n=1500, d=200, n_test=1000, n_users=30, seed=11, public_fraction=0.05), batch_size=32,
                  steps=300, lrs=(0.01, 0.1, 1.0, 3.0, 10.0), clips=(0.1, 1.0), tune_trials=2, trials=8),
    "full": dict(problem=dict(n=4000, d=1000, n_test=2000, n_users=100, seed=11, public_fraction=0.1), batch_size=64,
                 steps=1000, lrs=PAPER_LR_GRID + (3.0, 10.0), clips=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0), tune_trials=2,
                 trials=20),
}
TABLE_SIGMA = 1.0  # the paper's σ for IMDB (convex)
TABLE_MARGIN = 0.01  # test accuracy: AdaDPS worse than a baseline by more than 1 point refutes "beats"
TABLE_RELATIONS = tuple((big, small) for big in ("adadps_rmsprop", "adadps_fixed")
                        for small in ("dp_sgd", "dp_adam", "dp_rmsprop")) + (("adadps_rmsprop", "dp_r_pub"),)


@claim(
    "adadps.table.adadps_best",
    kind="experiment",
    statement="""Tables 1, 4 and 6: on sparse text-like convex problems at the same privacy, AdaDPS with public data
    and AdaDPS with token-frequency side information reach a higher test accuracy than DP-SGD, DP-Adam and
    DP-RMSProp, and AdaDPS (public) beats DP-R-Pub (privatise, then precondition with public statistics); DP-Adam
    does not necessarily outperform DP-SGD (no ordering among the baselines is claimed).""",
    theory=(),  # noise_ratio_adadps_over_dpsgd: not evaluated by the check
    mutants=_one_arm_mutants(("adadps_rmsprop", "adadps_fixed"), "AdaDPS"),
    notes="Replaces the retired id adadps.table, whose statement also claimed 'DP-Adam ≈ DP-RMSProp ≥ DP-SGD', "
    "which the paper does not (it says DP-Adam does not necessarily outperform DP-SGD; Table 4's TF-IDF row). "
    "Stand-in problem: zipf_bow_logistic (docs/catalogue.md; IMDB/StackOverflow cannot be downloaded), defaults fixed "
    "before running (Zipf s = 1.1, 40 tokens per record, rare tokens predictive). Public split: 5% at quick "
    "(75 records), 10% at full (400), chosen so that at most 10% of the features are unseen in it (the first "
    "version's 1% split left 73 of 200 features at A = 1e-3, ×1000 before clipping, and 640 of 1000 at full). "
    "Every method: σ = 1 (the paper's IMDB value), the same batch and steps, Poisson sampling, δ = 1/n, so the same "
    "accountant ε (reported); (lr, C) tuned on the same grid by validation accuracy (tuning seeds), test accuracy "
    "reported on fresh seeds. Learning rates: quick {0.01, 0.1, 1, 3, 10}, full the paper's grid plus 3 and 10 "
    "(the first "
    "version's quick grid stopped at 1, where every method's best value sat). Tests (verify.decide.better, Welch t, "
    "7 tests): each 'AdaDPS beats X' holds if the difference of mean test accuracies is above 0, violated if "
    "AdaDPS is below X by more than 0.01 (margin fixed before the data), else inconclusive. "
    "Mechanism probe first (issue 25, _central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence; kept until session 27); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=7,
)
def table(budget: str, seed: int) -> Outcome:
    g = TABLE_GRIDS[by_budget(budget, "quick", "full")]
    # issue 25: the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(TABLE_METHODS, TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table.adadps_best")
    base = dict(problem="zipf_bow_logistic", problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"],
                steps=g["steps"], side_info="frequency", n_log=11)
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    chosen = {}
    for m in TABLE_METHODS:
        chosen[m], _ = _tune(f"adadps.table tune {m}", dict(base, method=m, trials=g["tune_trials"]), grid, "val_acc",
                             child_seed(seed, "adadps.table.adadps_best", "tune"))
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table.adadps_best", "run"),
                  **chosen[m])
             for m in TABLE_METHODS]
    outs = dict(zip(TABLE_METHODS, sweep(_central_task, tasks, "adadps.table runs")))
    acc = {m: np.asarray(outs[m]["test_acc"]) for m in TABLE_METHODS}
    decisions = [decide.better(-acc[big], -acc[small],
                               what=f"test accuracy {TABLE_LABELS[small]} − {TABLE_LABELS[big]}",
                               margin=TABLE_MARGIN) for big, small in TABLE_RELATIONS]
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in TABLE_METHODS}
    eps_rdp = dp_sgd_epsilon(g["batch_size"] / g["problem"]["n"], TABLE_SIGMA, g["steps"], 1.0 / g["problem"]["n"],
                             "rdp")
    prob = make_problem("zipf_bow_logistic", g["problem"])
    unseen = int(np.sum(~(prob.public_features > 0).any(axis=0)))
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    edge = [m for m in TABLE_METHODS if chosen[m]["lr"] == max(g["lrs"])]
    evidence = (f"{key.phrase()}; n = {g['problem']['n']}, d = {g['problem']['d']}, public split "
                f"{prob.public_features.shape[0]} records ({unseen} features unseen); "
                f"test accuracy ({g['trials']} seeds, "
                f"ε = {eps_rdp:.3g} RDP, δ = 1/n): " + ", ".join(f"{TABLE_LABELS[m]} {means[m]}" for m in TABLE_METHODS)
                + "; " + "; ".join(f"{TABLE_LABELS[b_]} > {TABLE_LABELS[s_]}: {dd.verdict}"
                                   for (b_, s_), dd in zip(TABLE_RELATIONS, decisions))
                + (f"; tuned lr at the grid's top ({max(g['lrs']):g}) for {', '.join(TABLE_LABELS[m] for m in edge)}"
                   if edge else ""))
    order = sorted(TABLE_METHODS, key=lambda m: means[m].estimate)
    fig = Figure("table", "adadps method ordering (zipf_bow_logistic)", [Panel(
        f"mean ± 95% CI; σ = {TABLE_SIGMA}, ε = {eps_rdp:.2f} (RDP)", "method (rank)", "test accuracy",
        [Series(TABLE_LABELS[m], [i], [means[m].estimate], [means[m].lo], [means[m].hi], style="points")
         for i, m in enumerate(order)])])
    figures = {"epsilon_rdp": eps_rdp, "sigma": TABLE_SIGMA, "steps": g["steps"], "batch_size": g["batch_size"],
               "public_records": prob.public_features.shape[0], "features_unseen_in_public": unseen}
    for m in TABLE_METHODS:
        figures[f"test_acc[{m}]"] = means[m].estimate
        figures[f"lr[{m}]"] = chosen[m]["lr"]
        figures[f"clip[{m}]"] = chosen[m]["clip"]
    for (b_, s_), dd in zip(TABLE_RELATIONS, decisions):
        figures[f"diff[{b_}>{s_}]"] = -dd.estimate
    counter = None
    if verdict == "violated":
        counter = {f"{b_}>{s_}": {"verdict": str(dd.verdict), "difference": -dd.estimate}
                   for (b_, s_), dd in zip(TABLE_RELATIONS, decisions) if dd.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table.adadps_best", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Section 6.2: federated AdaDPS — the privacy statement and the comparison of Figure 6
# ======================================================================================
FED_PAPER = dict(users=400, per_round=20, sigma=0.3, delta=0.0025, stated_epsilon=34.0)


def _fed_eps_task(rounds: int, accountant: str) -> dict:
    q = FED_PAPER["per_round"] / FED_PAPER["users"]
    return {"epsilon": dp_sgd_epsilon(q, FED_PAPER["sigma"], rounds, FED_PAPER["delta"], accountant)}


def one_round_epsilon(q: float, sigma: float, delta: float) -> float:
    """The exact ε at δ of ONE round of the Poisson-subsampled Gaussian (add/remove one user; rate q, noise multiplier
    σ on the sum of clipped deltas, sensitivity 1 after dividing by C): the smallest ε with δ(ε) ≤ ``delta``.

    The dominating pair is P = (1 − q)N(0, σ²) + qN(1, σ²) (the user present) against Q = N(0, σ²); the privacy loss
    log(p/q) = log(1 − q + q·exp((2x − 1)/(2σ²))) increases in x, so H_ε(P‖Q) = P(x > x*) − e^ε Q(x > x*) with
    x* = σ²·log((e^ε − 1 + q)/q) + 1/2 (closed form), and H_ε(Q‖P) = 0 for ε ≥ −log(1 − q) (the loss is > log(1 − q)).
    δ(ε) decreases in ε; the root is found by bisection (scipy brentq, xtol 1e-10).  Any number of rounds T ≥ 1 is
    at least this private-loss (the first round's output is a post-processing of the T rounds' outputs), so
    ε_T(δ) ≥ this: a lower bound on the ε of every run of the mechanism.

    Parameters
    ----------
    q : float
        The sampling rate, in (0, 1].
    sigma : float
        The noise multiplier σ > 0.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float
        ε (≥ −log(1 − q)); ``inf`` when even ε = 5000 leaves δ(ε) above ``delta``.

    Raises
    ------
    dpvalidate.InvalidParameter
        When q is not in (0, 1], σ ≤ 0, or δ not in (0, 1).
    """
    from scipy import optimize
    from scipy import stats as sst

    if not 0.0 < q <= 1.0:
        raise InvalidParameter("q", "in (0, 1]", q)
    if not sigma > 0.0:
        raise InvalidParameter("sigma", "> 0", sigma)
    if not 0.0 < delta < 1.0:
        raise InvalidParameter("delta", "in (0, 1)", delta)

    def delta_of(eps: float) -> float:
        # x* from log((e^ε − 1 + q)/q) = ε + log(1 − (1 − q)e^{−ε}) − log q (no overflow at large ε)
        xs = sigma * sigma * (eps + math.log1p(-(1.0 - q) * math.exp(-eps)) - math.log(q)) + 0.5
        return ((1.0 - q) * float(sst.norm.sf(xs / sigma)) + q * float(sst.norm.sf((xs - 1.0) / sigma))
                - math.exp(eps + float(sst.norm.logsf(xs / sigma))))

    lo = max(-math.log1p(-q) if q < 1.0 else 0.0, 0.0) + 1e-9
    if delta_of(lo) <= delta:
        return lo
    if delta_of(5000.0) > delta:
        return math.inf
    return float(optimize.brentq(lambda e: delta_of(e) - delta, lo, 5000.0, xtol=1e-10))


S62_RTOL = 1e-6  # ε_1 must exceed the stated ε by more than this (relative) to refute: root-finding and rounding


def _s62_paper_mutant(name: str, description: str, **changes):
    """A declared fault of §6.2's setting: FED_PAPER with ``changes`` (the mechanism, or the statement, made wrong)."""
    return Mutant(name, f"verify.papers.adadps.FED_PAPER: {description}", "kernel",
                  lambda: substituted("verify.papers.adadps.FED_PAPER", dict(FED_PAPER, **changes)))


@claim(
    "adadps.section6.2",
    kind="privacy",
    statement="""Section 6.2 / Figure 6: federated AdaDPS on StackOverflow with 400 users, 20 sampled per round and
    noise multiplier σ = 0.3 is (34, 0.0025) user-level DP.""",
    theory=(),
    mutants=[_s62_paper_mutant("sigma/3", "the mechanism's noise multiplier a third of the stated (σ = 0.1)",
                               sigma=0.1),
             _s62_paper_mutant("stated-epsilon/10", "the statement's ε a tenth of the paper's (3.4 for 34)",
                               stated_epsilon=3.4)],
    notes="User-level adjacency (add/remove one user), each round a Poisson-subsampled Gaussian at rate 20/400 with "
    "noise multiplier 0.3 on the sum of clipped model deltas (the server-noise form of Algorithm 3), dp-accounting "
    "RDP (and PLD at the full budget). The paper does not state the number of rounds, so the statement cannot be "
    "checked as such: the claim reports the accountant ε per round count and the largest number of rounds for "
    "which (34, 0.0025) is certified; its verdict is inconclusive by construction (the accountants' ε are upper "
    "bounds, so exceeding 34 would not refute it either). The numbers are pinned by the tests. One part is "
    "falsifiable whatever the round count (issue 25): the exact ε of ONE round (one_round_epsilon: the dominating "
    "pair of the Poisson-subsampled Gaussian, closed-form hockey-stick divergence, bisection) is a lower bound on "
    "the ε of any run of T ≥ 1 rounds (post-processing), so ε₁ > 34 (by more than 1e-6 relative) refutes the "
    "statement (violated, exact); unmutated ε₁ ≈ 7.2, so the verdict stays inconclusive. Declared faults: the "
    "noise multiplier a third of the stated (σ = 0.1: ε₁ ≈ 62.5) and a stated ε of 3.4.",
)
def section6_2(budget: str, seed: int) -> Outcome:
    rounds = by_budget(budget, (1, 10, 20, 30, 35, 40, 50, 100), (1, 5, 10, 20, 25, 30, 33, 35, 38, 40, 50, 100, 200))
    tasks = [dict(rounds=r, accountant="rdp") for r in rounds]
    if budget == "full":
        tasks += [dict(rounds=r, accountant="pld") for r in rounds if r <= 50]
    outs = sweep(_fed_eps_task, tasks, "adadps.section6.2 accountant")
    rdp = [float(o["epsilon"]) for t, o in zip(tasks, outs) if t["accountant"] == "rdp"]
    pld = {t["rounds"]: float(o["epsilon"]) for t, o in zip(tasks, outs) if t["accountant"] == "pld"}
    ok_rounds = [r for r, e in zip(rounds, rdp) if e <= FED_PAPER["stated_epsilon"]]
    max_ok = max(ok_rounds) if ok_rounds else 0
    # both accountants give upper bounds on ε and the round count is not stated: no verdict either way, unless even
    # one round's exact ε (a lower bound for every T ≥ 1) exceeds the stated ε
    q = FED_PAPER["per_round"] / FED_PAPER["users"]
    eps1 = one_round_epsilon(q, FED_PAPER["sigma"], FED_PAPER["delta"])
    refuted = eps1 > FED_PAPER["stated_epsilon"] * (1.0 + S62_RTOL)
    verdict = "violated" if refuted else "inconclusive"
    evidence = (f"exact one-round ε = {eps1:.4g} (a lower bound for every number of rounds) "
                + (f"> the stated {FED_PAPER['stated_epsilon']:g}: no run of this mechanism is "
                   f"({FED_PAPER['stated_epsilon']:g}, {FED_PAPER['delta']:g})-DP; " if refuted else
                   f"≤ the stated {FED_PAPER['stated_epsilon']:g}; ")
                + "RDP ε at δ = 0.0025: " + ", ".join(f"{r} rounds: {e:.3g}" for r, e in zip(rounds, rdp))
                + (("; PLD: " + ", ".join(f"{r}: {e:.3g}" for r, e in pld.items())) if pld else "")
                + f"; (34, 0.0025) holds (RDP) up to {max_ok} of the rounds examined"
                + (f" (PLD: up to {max(r for r, e in pld.items() if e <= 34.0)} of those it evaluated)"
                   if any(e <= 34.0 for e in pld.values()) else "")
                + "; the paper does not state the "
                "number of rounds (the authors' public script runs 40, RDP ε = "
                f"{dict(zip(rounds, rdp)).get(40, float('nan')):.3g})")
    series = [Series("RDP", rounds, rdp), Series("stated 34", [rounds[0], rounds[-1]], [34.0, 34.0], style="dashed")]
    if pld:
        series.append(Series("PLD", list(pld), list(pld.values())))
    fig = Figure("section6_2", "adadps §6.2: user-level ε (q = 20/400, σ = 0.3)", [Panel(
        "accountant ε vs rounds, δ = 0.0025", "rounds", "ε", series, xscale="log", yscale="log")])
    figures = {f"epsilon_rdp_rounds{r}": e for r, e in zip(rounds, rdp)}
    figures.update({f"epsilon_pld_rounds{r}": e for r, e in pld.items()})
    figures.update({"max_rounds_within_stated": max_ok, "sampling_rate": q, "sigma": FED_PAPER["sigma"],
                    "delta": FED_PAPER["delta"], "epsilon_exact_one_round": eps1})
    counter = ({"rounds": 1, "epsilon_one_round": eps1, "stated_epsilon": FED_PAPER["stated_epsilon"], "q": q,
                "sigma": FED_PAPER["sigma"], "delta": FED_PAPER["delta"]} if refuted else None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


FED_GRIDS = {
    "quick": dict(problem=dict(n=1500, d=200, n_test=1000, n_users=60, seed=13), rounds=40, per_round=10,
                  local_steps=5, local_batch=10, lrs=(0.01, 0.1, 1.0), clips=(0.1, 1.0), tune_trials=2, trials=8),
    "full": dict(problem=dict(n=4000, d=1000, n_test=2000, n_users=200, seed=13), rounds=100, per_round=20,
                 local_steps=10, local_batch=10, lrs=(0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 2.0),
                 clips=(0.1, 0.5, 1.0, 2.0),
                 tune_trials=2, trials=20),
}
FED_SIGMA = 0.3
FED_MARGIN = 0.01  # test accuracy
#: the federated mechanism probe (_fed_mechanism_probe), fixed before any run: U users of 2 identical records each,
#: d coordinates, 1 round of 1 local step; the noise's standard deviation over d·trials server draws must be within
#: FED_PROBE_BAND of σC/b (a χ² band: with 20000 draws a correct kernel leaves it with probability < 1e-100), the
#: noiseless step equal to the stated one (−η·g/A, one user's delta) to FED_PROBE_RTOL relative (rounding)
FED_PROBE = dict(users=20, d=100, trials=200, tau=1e3)
FED_PROBE_BAND = (0.8, 1.25)
FED_PROBE_RTOL = 1e-9


def _fed_probe_problem(noise: bool):
    """The probe's problem: ``noise`` True, all records zero (every delta 0: the server's noise alone moves w);
    False, every record x = 0.1·(1, …, 1) with label +1 (each user's one local step is −η·c·x/A, c = −½ at w = 0)."""
    U, d = FED_PROBE["users"], FED_PROBE["d"]
    X = np.zeros((2 * U, d)) if noise else np.full((2 * U, d), 0.1)
    A = np.linspace(0.2, 1.0, d)  # a non-constant side information: the probe sees A's coordinates
    return ka.GLMProblem(X, np.ones(2 * U), "logistic", {"frequency": A}, {"probe": "adadps federated"},
                         user_ptr=np.arange(0, 2 * U + 1, 2))


def _fed_mechanism_probe(arms: tuple, users_per_round: int, seed: int) -> tuple[str, dict]:
    """Whether ``kernels.adadps.run_federated`` runs the stated mechanism for each arm (side information, server):
    (1) the server's noise: one round on all-zero records (zero deltas), σ = FED_SIGMA, C = 1, its standard
    deviation per coordinate over FED_PROBE's d·trials draws must be σC/b within FED_PROBE_BAND (b users per round);
    (2) the step: one round, σ = 0, C = ∞, fixed-size user sampling, one local step of η = 0.5 on one record of
    x = 0.1·1, y = +1: every user's delta is −η·c·x/A with c = −½ (logistic at w = 0), and the server's update is
    that delta (SGD server, η_s = 1; an Adam server with β₁ = β₂ = 0 and τ = FED_PROBE's is inverted exactly), equal
    to FED_PROBE_RTOL. An Adam server's noise is read back the same way. Returns ("", numbers) when every arm passes,
    else (the reason, numbers)."""
    tau = FED_PROBE["tau"]
    numbers, bad = {}, []
    for side_info, server in arms:
        name = f"{side_info}_{server}"
        kw = dict(side_info=side_info, server=server, rounds=1, local_steps=1, local_batch=1, n_log=2,
                  server_lr=1.0, server_beta1=0.0, server_beta2=0.0, server_tau=tau)

        def delta_of(w):  # the server's averaged delta from its update (SGD: w itself; Adam: w = Δ/(|Δ| + τ))
            return w if server == "sgd" else np.sign(w) * tau * np.abs(w) / (1.0 - np.abs(w))

        out = ka.run_federated(_fed_probe_problem(True), local_lr=1.0, clip=1.0, sigma=FED_SIGMA,
                               users_per_round=users_per_round, trials=FED_PROBE["trials"],
                               seed=child_seed(seed, "adadps.figure6", "probe", name), **kw)
        ratio = float(np.sqrt(np.mean(delta_of(np.asarray(out["w"])) ** 2)) / (FED_SIGMA / users_per_round))
        A = (np.ones(FED_PROBE["d"]) if side_info == "ones" else _fed_probe_problem(False).side_info[side_info])
        stated = -0.5 * (-0.5 * 0.1) / A  # −η·c·x/A
        out = ka.run_federated(_fed_probe_problem(False), local_lr=0.5, clip=math.inf, sigma=0.0,
                               users_per_round=users_per_round, sampling="fixed", trials=1,
                               seed=child_seed(seed, "adadps.figure6", "probe-step", name), **kw)
        step = float(np.max(np.abs(delta_of(np.asarray(out["w"][0])) / stated - 1.0)))
        numbers[f"probe_noise_std_ratio[{name}]"], numbers[f"probe_step_rel_error[{name}]"] = ratio, step
        if not FED_PROBE_BAND[0] <= ratio <= FED_PROBE_BAND[1]:
            bad.append(f"{name}: the server's noise std is {ratio:.3g} × the stated σC/b")
        if not step <= FED_PROBE_RTOL:
            bad.append(f"{name}: the local step is off the stated −η·g/A by {step:.3g} (relative)")
    return "; ".join(bad), numbers


@claim(
    "adadps.figure6",
    kind="experiment",
    statement="""Figure 6: federated AdaDPS (local steps preconditioned by side information, clipped and noised model
    deltas, user-level DP) reaches a higher test accuracy than DP-FedAvg at the same privacy.""",
    theory=(),
    mutants=_one_arm_mutants(("fed_adadps",), "federated AdaDPS"),
    notes="Stand-in: zipf_bow_logistic's user partition (heterogeneous token distributions), σ = 0.3 as in the paper, "
    "Poisson user sampling, server-side noise, server learning rate 1, side information = token frequency (the "
    "paper does not say which A its federated run uses; frequency is its no-public-data choice). (local lr, C) tuned "
    "on the same grid for both by validation accuracy (tuning seeds); verify.decide.better on the test accuracies "
    "over fresh seeds (Welch t, 1 test): AdaDPS above DP-FedAvg holds, below it by more than 0.01 (margin fixed "
    "before the data) is violated, else inconclusive. Mechanism probe (issue 25, _fed_mechanism_probe, fixed before "
    "its runs): both arms' kernel, on a probe problem, must add server noise of standard deviation σC/b (within "
    "[0.8, 1.25] over 20000 draws) and take the stated local step −η·g/A (to 1e-9 relative); a kernel that does "
    "not turns a 'holds' into inconclusive (the runs are not the stated mechanism), with the reason.",
    tests=1,
)
def figure6(budget: str, seed: int) -> Outcome:
    g = FED_GRIDS[by_budget(budget, "quick", "full")]
    base = dict(problem_kw=g["problem"], sigma=FED_SIGMA, users_per_round=g["per_round"], rounds=g["rounds"],
                local_steps=g["local_steps"], local_batch=g["local_batch"])
    grid = [dict(local_lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    chosen, outs = {}, {}
    for si in ("frequency", "ones"):
        tasks = [dict(base, side_info=si, trials=g["tune_trials"], seed=child_seed(seed, "adadps.figure6", "tune"),
                      **p) for p in grid]
        res = sweep(_fed_task, tasks, f"adadps.figure6 tune {si}")
        scores = [float(np.mean(r["val_acc"])) for r in res]
        chosen[si] = grid[int(np.argmax(scores))]
        outs[si] = sweep(_fed_task, [dict(base, side_info=si, trials=g["trials"],
                                          seed=child_seed(seed, "adadps.figure6", "run"), **chosen[si])],
                         f"adadps.figure6 run {si}")[0]
    a, f = np.asarray(outs["frequency"]["test_acc"]), np.asarray(outs["ones"]["test_acc"])
    ci = stats.bootstrap_ci(lambda u, w: np.mean(u) - np.mean(w), a, f, seed=int(seed))
    dec = decide.better(-a, -f, what="test accuracy DP-FedAvg − federated AdaDPS", margin=FED_MARGIN)
    verdict = str(dec.verdict)
    # the runs must be the stated mechanism (server noise σC/b, the stated local step): a kernel that is not leaves
    # a 'holds' unestablished (inconclusive), with the reason
    unlike, probe = _fed_mechanism_probe((("frequency", "sgd"), ("ones", "sgd")), g["per_round"], seed)
    if unlike and verdict == "holds":
        verdict = "inconclusive"
    n_users = g["problem"]["n_users"]
    eps = dp_sgd_epsilon(g["per_round"] / n_users, FED_SIGMA, g["rounds"], 1.0 / n_users, "rdp")
    evidence = (f"{dec.phrase()}; user-level ε = {eps:.3g} (RDP, q = {g['per_round']}/{n_users}, σ = {FED_SIGMA}, "
                f"{g['rounds']} rounds, "
                f"δ = 1/{n_users}); test accuracy AdaDPS {stats.mean_ci(a)} (lr, C = {chosen['frequency']}), DP-FedAvg "
                f"{stats.mean_ci(f)} ({chosen['ones']}); difference {ci} (bootstrap, reported) [{verdict}]")
    evidence = (f"the kernel does not run the stated mechanism ({unlike}): " if unlike else
                "mechanism probe passed (server noise σC/b, stated local step); ") + evidence
    series = []
    for name, o in (("federated AdaDPS (frequency A)", outs["frequency"]), ("DP-FedAvg", outs["ones"])):
        L = np.asarray(o["loss"])
        cis = [stats.mean_ci(L[:, j]) for j in range(L.shape[1])]
        series.append(Series(name, o["rounds"], [c.estimate for c in cis], [c.lo for c in cis], [c.hi for c in cis]))
    fig = Figure("figure6", "adadps Fig. 6 (stylized): federated", [Panel(
        f"user-averaged training loss, ε = {eps:.2g} user-level", "round", "training loss", series)])
    figures = {"epsilon_rdp_user_level": eps, "test_acc_adadps": float(np.mean(a)),
               "test_acc_dpfedavg": float(np.mean(f)),
               "diff": ci.estimate, "diff_lo": ci.lo, "diff_hi": ci.hi, **probe}
    counter = {"diff_ci": [ci.lo, ci.hi], "test": dec.reason} if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[dec])


# ======================================================================================
# Privacy audits (issue 9): `adadps.audit.*` — run the real kernels on neighbouring datasets
# ======================================================================================
# A canary record x = 10·e₀ with label ∓10 under the squared loss: at w ≈ 0 its gradient is ±100·e₀;
# preconditioned by A₀ = 0.01 (AdaDPS) it is ±10⁴·e₀, and the kernel must clip *that* vector to C.
# Every other record is x = 0 (gradient 0 for any w).  Steps are tiny (lr = 10⁻³) so that ⟨w, x⟩ − y
# keeps its sign over the run and the canary keeps pushing w₀ the same way.
AUDIT_SIGMA = 1.0  # noise multiplier σ (noise σC per coordinate on the sum of clipped records)
AUDIT_CLIP = 1.0
AUDIT_D = 3
AUDIT_A = np.array([0.01, 1.0, 1.0])  # fixed side information: small on the canary's coordinate
AUDIT_LR = 1e-3
AUDIT_CENTRAL = ("dp_sgd", "adadps_fixed")
# (sampling, n, b, T).  Poisson: zero-out canary (record 0 = 0 on D, the canary on D′); the kernel's rate
# q = b/n and its divisor b do not depend on the records, so a zero record is an absent one and the pair
# is covered by the add/remove-one accountant (dp_sgd_epsilon, as adadps.theorem1 uses).  Fixed-size
# batches (Algorithm 1 as written): replace-one canary (label +10 on D, −10 on D′: the clipped gradients
# are −C·e₀ and +C·e₀), accounted as sampling without replacement under REPLACE_ONE with multiplier σ/2
# (the sensitivity of the sum is 2C; as toy_privacy does).
AUDIT_CENTRAL_CONFIGS = (("poisson", 1, 1, 1), ("poisson", 4, 1, 3), ("fixed", 1, 1, 1), ("fixed", 4, 2, 2))
# federated (users U, users per round b, rounds R): Poisson user sampling, server noise, zero-out user
AUDIT_FED_CONFIGS = ((1, 1, 1), (4, 1, 3))
AUDIT_N_TESTS = len(AUDIT_CENTRAL) * len(AUDIT_CENTRAL_CONFIGS) + len(AUDIT_FED_CONFIGS)  # Bonferroni


AUDIT_CLIP_TARGETS = ("preconditioned", "raw")


def audit_central_task(method: str, sampling: str, n: int, batch_size: int, steps: int, canary: bool, trials: int,
                       seed: int, noise_scale: float = 1.0, clip_target: str = "preconditioned") -> dict:
    """Score −w_T[0] of ``trials`` runs of ``run_central`` from w⁰ = 0 on D (``canary`` False) or D′.

    Mutants for the negative controls (mechanism options, no file edits): ``noise_scale`` multiplies the σ handed
    to the kernel (not the accounted one); ``clip_target="raw"`` clips the wrong vector — the raw gradient g, then
    preconditions (clip_C(g)/A + σC·ξ) instead of clipping g/A.  On the audit's datasets every gradient lies along
    e₀, where clip_C(g)/A = clip_{C/A₀}(g/A); so the mutant is the kernel run with clipping threshold C/A₀ and its
    noise still σC (``noise_clip`` = C).  For dp_sgd (no preconditioner) it changes nothing.

    Parameters
    ----------
    method : str
        The kernel method ("adadps_fixed" or "dp_sgd").
    sampling : str
        "poisson" (zero-out pair) or another kernel sampling (replace-one pair).
    n : int
        Records.
    batch_size : int
        The batch size.
    steps : int
        The steps T.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies the σ handed to the kernel.
    clip_target : str
        "preconditioned" (as implemented) or "raw" (the mutant).

    Returns
    -------
    dict
        ``score`` (−w_T[0] per run) and ``clip_fraction`` (the mean fraction of clipped gradients).
    """

    choice("clip_target", clip_target, AUDIT_CLIP_TARGETS)
    clip = AUDIT_CLIP
    if clip_target == "raw" and method == "adadps_fixed":
        clip = AUDIT_CLIP / float(AUDIT_A[0])

    X = np.zeros((n, AUDIT_D))
    X[0, 0] = 10.0
    y = np.zeros(n)
    if sampling == "poisson":
        y[0] = -10.0
        if not canary:
            X[0, 0] = 0.0  # zero-out: record 0 contributes nothing
    else:
        y[0] = -10.0 if canary else 10.0  # replace-one: the opposite clipped gradient
    prob = ka.GLMProblem(X, y, "squared", {"audit": AUDIT_A.copy()}, {"audit": True})
    out = ka.run_central(prob, method, lr=AUDIT_LR, clip=clip, sigma=AUDIT_SIGMA * noise_scale,
                         noise_clip=AUDIT_CLIP, batch_size=batch_size, steps=steps, sampling=sampling,
                         side_info="audit", trials=trials, seed=seed, n_log=2)
    return {"score": -out["w"][:, 0], "clip_fraction": float(np.mean(out["clip_fraction"]))}


def audit_federated_task(users: int, per_round: int, rounds: int, canary: bool, trials: int, seed: int,
                         noise_scale: float = 1.0) -> dict:
    """Score −w_R[0] of ``trials`` runs of federated AdaDPS (A = AUDIT_A) from w⁰ = 0; user 0 holds one record,
    zero on D and the canary on D′ (its local delta, ≈ −local_lr·10⁴·e₀, is clipped to C: user-level).

    Parameters
    ----------
    users : int
        Users U.
    per_round : int
        Expected users per round (Poisson rate per_round/U).
    rounds : int
        Rounds R.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies the σ handed to the kernel.

    Returns
    -------
    dict
        ``score``: −w_R[0] per run.
    """

    X = np.zeros((users, AUDIT_D))
    if canary:
        X[0, 0] = 10.0
    y = np.zeros(users)
    y[0] = -10.0
    prob = ka.GLMProblem(X, y, "squared", {"audit": AUDIT_A.copy()}, {"audit": True},
                         user_ptr=np.arange(users + 1, dtype=np.int64))
    out = ka.run_federated(prob, local_lr=0.01, clip=AUDIT_CLIP, sigma=AUDIT_SIGMA * noise_scale,
                           users_per_round=per_round, rounds=rounds, local_steps=1, local_batch=1, side_info="audit",
                           server_lr=AUDIT_LR, sampling="poisson", trials=trials, seed=seed, n_log=2)
    return {"score": -out["w"][:, 0]}


def audit_accountant_epsilon(sampling: str, n: int, batch_size: int, steps: int) -> float:
    """dp-accounting's ε at δ = AUDIT_DELTA for the mechanism of a configuration (see AUDIT_CENTRAL_CONFIGS).

    Parameters
    ----------
    sampling : str
        "poisson" (add/remove, PLD) or fixed-size batches (replace-one, RDP at multiplier σ/2).
    n : int
        Records.
    batch_size : int
        The batch size.
    steps : int
        The steps.

    Returns
    -------
    float
        The accountant's ε.
    """
    from dp_accounting import dp_event as dpe

    if sampling == "poisson":  # PLD on a 0.01 grid: pessimistic, ≤ T·0.01 above the exact ε
        return dp_sgd_epsilon(batch_size / n, AUDIT_SIGMA, steps, AUDIT_DELTA, "pld",
                              value_discretization_interval=0.01)
    # noise σC against the replace-one sensitivity 2C: multiplier σ/2 (see toy_privacy)
    ev = dpe.SelfComposedDpEvent(dpe.SampledWithoutReplacementDpEvent(n, batch_size,
                                                                     dpe.GaussianDpEvent(AUDIT_SIGMA / 2)), steps)
    return epsilon_of(ev, AUDIT_DELTA, "rdp", NeighboringRelation.REPLACE_ONE)


def audit_central(method: str, budget: str, seed: int, noise_scale: float = 1.0,
                  clip_target: str = "preconditioned") -> Outcome:
    """The audit claim ``adadps.audit.<method>``: an ε lower bound per AUDIT_CENTRAL_CONFIGS entry.

    Parameters
    ----------
    method : str
        The kernel method audited.
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the kernel's noise (the accountant is still told the calibrated one): the negative control.
    clip_target : str
        "preconditioned" or "raw" (see :func:`audit_central_task`).

    Returns
    -------
    Outcome
        The audit's outcome.
    """

    trials = by_budget(budget, 20_000, 200_000)
    level = audit_level(len(AUDIT_CENTRAL_CONFIGS))  # each bound at the ledger's per-test level
    tasks = [dict(method=method, sampling=s, n=n, batch_size=b, steps=T, canary=c, trials=trials,
                  seed=child_seed(seed, f"adadps.audit.{method}", k, int(c)), noise_scale=noise_scale,
                  clip_target=clip_target)
             for k, (s, n, b, T) in enumerate(AUDIT_CENTRAL_CONFIGS) for c in (False, True)]
    outs = sweep(audit_central_task, tasks, f"adadps audit {method}")
    rows = []
    for k, (s, n, b, T) in enumerate(AUDIT_CENTRAL_CONFIGS):
        a, c = outs[2 * k], outs[2 * k + 1]
        bound = epsilon_lower_bound(a["score"], c["score"], AUDIT_DELTA, level,
                                    seed=child_seed(seed, f"adadps.audit.{method}", "bound", k),
                                    method=claim_method(b / n))  # b = n: every step takes the canary
        rows.append(dict(method=method, sampling=s, n=n, batch_size=b, steps=T, sigma=AUDIT_SIGMA,
                         adjacency="zero-out (add/remove accountant)" if s == "poisson" else "replace-one",
                         canary_clip_fraction=float(c["clip_fraction"]),
                         accountant_epsilon=audit_accountant_epsilon(s, n, b, T),
                         **{f"audit_{key}": v for key, v in bound.to_dict().items()}))
    labels = [f"{r['sampling']},n={r['n']},b={r['batch_size']},T={r['steps']}" for r in rows]
    return audit_outcome(f"audit_{method}", f"Privacy audit of adadps {method}", rows, labels, trials=trials,
                         level=level, budget=budget, family="the ledger's statistical tests")


def audit_federated(budget: str, seed: int, noise_scale: float = 1.0) -> Outcome:
    """The audit claim ``adadps.audit.federated`` (user level): an ε lower bound per AUDIT_FED_CONFIGS entry.

    Parameters
    ----------
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the kernel's noise (the negative control).

    Returns
    -------
    Outcome
        The audit's outcome.
    """
    trials = by_budget(budget, 20_000, 200_000)
    level = audit_level(len(AUDIT_FED_CONFIGS))  # each bound at the ledger's per-test level
    tasks = [dict(users=U, per_round=b, rounds=R, canary=c, trials=trials,
                  seed=child_seed(seed, "adadps.audit.federated", k, int(c)), noise_scale=noise_scale)
             for k, (U, b, R) in enumerate(AUDIT_FED_CONFIGS) for c in (False, True)]
    outs = sweep(audit_federated_task, tasks, "adadps audit federated")
    rows = []
    for k, (U, b, R) in enumerate(AUDIT_FED_CONFIGS):
        a, c = outs[2 * k], outs[2 * k + 1]
        bound = epsilon_lower_bound(a["score"], c["score"], AUDIT_DELTA, level,
                                    seed=child_seed(seed, "adadps.audit.federated", "bound", k),
                                    method=claim_method(b / U))
        rows.append(dict(users=U, users_per_round=b, rounds=R, sigma=AUDIT_SIGMA, adjacency="user-level zero-out",
                         accountant_epsilon=dp_sgd_epsilon(b / U, AUDIT_SIGMA, R, AUDIT_DELTA, "pld",
                                                           value_discretization_interval=0.01),
                         **{f"audit_{key}": v for key, v in bound.to_dict().items()}))
    labels = [f"U={r['users']},b={r['users_per_round']},R={r['rounds']}" for r in rows]
    return audit_outcome("audit_federated", "Privacy audit of federated AdaDPS (user level)", rows, labels,
                         trials=trials, level=level, budget=budget, family="the ledger's statistical tests")


_AUDIT_NOTES = ("Canary x = 10·e₀ (squared loss, label ∓10; every other record x = 0), w⁰ = 0, "
                "lr = 10⁻³, σ = 1, C = 1, "
                "d = 3, fixed side information A = (0.01, 1, 1) for AdaDPS "
                "(the canary's preconditioned gradient ≈ 10⁴·e₀ "
                "is what the kernel must clip). Score −w_T[0]; threshold chosen on a quarter of the runs, error rates "
                "counted on the rest (verify.audit.epsilon_lower_bound: the Gaussian-DP bound where every step takes "
                "the canary, b = n, Clopper–Pearson where the canary is sampled); "
                "each bound at the per-test level of the ledger's "
                "Bonferroni family (verify.decide). "
                "Configurations: Poisson n=1,b=1,T=1 (one Gaussian step) and n=4,b=1,T=3, zero-out canary, accountant "
                "dp_sgd_epsilon (add/remove-one; the kernel's rate b/n and divisor b "
                "do not depend on the records, so a "
                "zero record is an absent one), PLD on a 0.01 grid; fixed-size batches n=1,b=1,T=1 and n=4,b=2,T=2, "
                "replace-one canary (label +10 on D, −10 on D′), accountant RDP of sampling without replacement under "
                "REPLACE_ONE with multiplier σ/2 (as adadps.section4.1's toy_privacy reports it). δ = 1e-5. "
                "Finding that led "
                "to σ/2: dp-accounting takes the REPLACE_ONE multiplier "
                "relative to the replace-one sensitivity, 2C here "
                "(the replaced record's clipped gradient can flip); "
                "with σ the full-budget audit proved ε ≥ 5.04 against "
                "the 4.73 that call gave at n=1,b=1,T=1 (tests/verify/test_adadps_audit.py pins the kernel's σ/2).")

for _m in AUDIT_CENTRAL:
    claim(
        f"adadps.audit.{_m}",
        kind="privacy",
        tests=len(AUDIT_CENTRAL_CONFIGS),
        statement=f"""The suite's {_m} kernel (kernels.adadps.run_central) is as private as the accountant says:
        no distinguishing test between neighbouring datasets certifies a larger ε than dp-accounting's for the
        mechanism (Poisson sampling with add/remove-one adjacency; fixed-size batches with replace-one).""",
        theory=(),
        notes=_AUDIT_NOTES,
    )(lambda budget, seed, _n=_m: audit_central(_n, budget, seed))


@claim(
    "adadps.audit.federated",
    kind="privacy",
    statement="""Federated AdaDPS (kernels.adadps.run_federated, App. Alg. 3 with server noise) is user-level private
    as accounted: no distinguishing test between datasets differing in one user's data certifies a larger ε than
    dp-accounting's Poisson-subsampled Gaussian at rate b/U.""",
    theory=(),
    notes="One record per user; user 0's record is 0 on D and the canary 10·e₀ (label −10) on D′; A = (0.01, 1, 1), "
    "local_lr = 0.01, one local step of batch 1, server_lr = 10⁻³, σ = 1, C = 1, Poisson user sampling. The canary "
    "user's local delta (≈ −10²·e₀) is clipped to C as a whole. Score −w_R[0]; accountant dp_sgd_epsilon(b/U, σ, R) "
    "(user-level add/remove; zero-out as for the central audits), PLD on a 0.01 grid. Configurations U=1,b=1,R=1 and "
    "U=4,b=1,R=3. Each bound at the per-test level of the ledger's Bonferroni family (verify.decide).",
    tests=len(AUDIT_FED_CONFIGS),
)
def audit_federated_claim(budget: str, seed: int) -> Outcome:
    return audit_federated(budget, seed)


# ======================================================================================
# Eq. (39): Theorem 2's private rate, by substituting σ² and T into eq. (38)
# ======================================================================================
EQ39_UNIT = dict(alpha=1, D=1, a=1, gamma=1, C=1)  # the smallest instance: every constant of eq. (38) equal to 1
EQ39_FACTOR = 10  # "counterexample": the substituted bound over the stated rate 10× its value at S_A = 1


def eq39_ratio() -> dict:
    """Eq. (38) with σ² and T of eq. (39) substituted, over eq. (39)'s stated rate: exact SymPy algebra.

    log(1/δ) is the positive symbol ℓ (δ = e^{−ℓ}), γ = 1/(1 + g) with g ≥ 0 (γ ∈ (0, 1]).  Returns the ratio at
    the paper's T and its limits as S_A → ∞, n → ∞, ε → 0⁺ and ℓ → ∞ (the stated rate holds, as an O(·) in these,
    iff every limit is finite).

    Returns
    -------
    dict
        ``paper`` (the ratio, ``sympy.Expr``), ``limits`` (per ("paper_T", limit label) its growth), ``ell`` and
        ``g`` (the two symbols introduced).
    """
    import sympy as sp

    ell = sp.Symbol("ell", positive=True)
    g = sp.Symbol("g_gamma", nonnegative=True)

    def prep(e):
        return e.subs(ta.delta, sp.exp(-ell)).subs(ta.gamma, 1 / (1 + g))

    rate = prep(ta.theorem2_private_rate())
    at_sigma = ta.theorem2_bound().subs(ta.N_A, ta.expected_noise_A_norm()).subs(ta.sigma, sp.sqrt(ta.eq39_sigma_sq()))

    def tidy(e):
        return sp.expand(sp.powsimp(e, force=True))

    paper = tidy(prep(at_sigma.subs(ta.T, ta.eq39_T())) / rate)
    lims = {}
    for var, to, label in ((ta.S_A, sp.oo, "S_A→∞"), (ta.n, sp.oo, "n→∞"), (ta.epsilon, 0, "ε→0"),
                           (ell, sp.oo, "log(1/δ)→∞")):
        lims[("paper_T", label)] = _eq39_growth(paper, var, to)
    return {"paper": paper, "limits": lims, "ell": ell, "g": g}


def _eq39_growth(expr, var, to):
    """The limit of a positive sum of monomials in ``var`` as var → ``to`` (∞ or 0⁺), from its exponents (exact):
    ∞ if some term's exponent has the wrong sign, else the sum of the terms that do not vanish.  None if the
    expanded expression is not such a sum (then the limit is undetermined)."""
    import sympy as sp

    by_exp: dict = {}
    for term in sp.Add.make_args(sp.expand(sp.powsimp(expr, force=True))):
        c, k = term.as_coeff_exponent(var)
        if c.has(var):
            return None
        by_exp[k] = by_exp.get(k, sp.Integer(0)) + c
    coef = {k: sp.factor(sp.simplify(c)) for k, c in by_exp.items()}
    coef = {k: c for k, c in coef.items() if c != 0}
    sign = 1 if to == sp.oo else -1
    if any((sign * k).is_positive is None or _eq39_positive(c) is None for k, c in coef.items()):
        return None
    if any((sign * k).is_positive and _eq39_positive(c) for k, c in coef.items()):
        return sp.oo
    return sp.simplify(coef.get(sp.Integer(0), sp.Integer(0)))


def _eq39_positive(c):
    """Whether a coefficient is positive for every value of its symbols (True / False / None: undecided), exact.

    SymPy's own answer when it has one; otherwise (issue 25, session 26: a coefficient such as 2(1 + g)^{3/4} − 1,
    which SymPy's assumptions cannot sign) by monotonicity in the nonnegative symbols (g ≥ 0, the others positive):
    positive when it is positive with every nonnegative symbol at 0 and no partial derivative in one of them is
    negative anywhere (then it only grows along each of them from a positive value)."""
    import sympy as sp

    if c.is_positive is not None:
        return c.is_positive
    free = [s for s in c.free_symbols if s.is_nonnegative and not s.is_positive]
    if free and c.subs({s: 0 for s in free}).is_positive and all(
            sp.simplify(sp.diff(c, s)).is_nonnegative for s in free):
        return True
    return None


def eq39_smallest(ratio) -> dict:
    """The smallest integer S_A (= d with every A_j = 1) at which the bound over the stated rate grows EQ39_FACTOR×.

    The substituted bound over the stated rate is compared with EQ39_FACTOR times its value at S_A = 1, all
    constants of eq. (38) equal to 1 (exact rationals), γ = 1.

    Parameters
    ----------
    ratio : sympy.Expr
        :func:`eq39_ratio`'s ``paper`` ratio.

    Returns
    -------
    dict
        ``S_A``, ``ratio`` and ``ratio_at_1`` (exact); empty when S_A is not the only free symbol left or no
        S_A ≤ 10⁴ qualifies.
    """
    import sympy as sp

    unit = ratio.subs({getattr(ta, k): v for k, v in EQ39_UNIT.items()})
    unit = unit.subs({s: 0 for s in unit.free_symbols if s.name == "g_gamma"})  # γ = 1
    if unit.free_symbols != {ta.S_A}:
        return {}
    f = sp.lambdify(ta.S_A, unit)
    r1 = float(f(1))
    k = next((k for k in range(1, 10**4 + 1) if float(f(k)) > EQ39_FACTOR * r1), None)
    if k is None:  # the ratio grows too slowly (or not at all) to give a counterexample within 10⁴
        return {}
    return {"S_A": k, "ratio": sp.nsimplify(unit.subs(ta.S_A, k)), "ratio_at_1": sp.nsimplify(unit.subs(ta.S_A, 1))}


def _eq39_corrected_rate_mutant():
    """A declared mutant: the stated rate with S_A^{3/2} (what the substitution gives) instead of √S_A."""
    import sympy as sp

    def rate():
        return ta.S_A ** sp.Rational(3, 2) * sp.sqrt(sp.log(1 / ta.delta)) / (ta.n * ta.epsilon)

    return Mutant("theorem2_private_rate:S_A^(3/2)", "theory.adadps.theorem2_private_rate: S_A^{3/2}·√log(1/δ)/(nε), "
                  "the rate the substitution gives, in place of the stated √(S_A log(1/δ))/(nε)", "theory",
                  lambda: substituted("theory.adadps.theorem2_private_rate", rate))


@claim(
    "adadps.eq39",
    kind="exact",
    statement="""Eq. (39) (Appendix A.1, after Theorem 2; also in Section 5.1): "To guarantee overall
    (ε, δ)-differential privacy by running T total iterations, we set σ² = O(b²T log(1/δ)/(n²ε²))
    and T = O(n²ε²/(max_t E[Σⱼ Aⱼᵗ]
    log(1/δ))). The convergence rate becomes min_t E[F(wᵗ)] − F(w*) ≤ O(√(max_t E[Σⱼ Aⱼᵗ] log(1/δ))/(nε))."
    — substituting these σ² and T into Theorem 2's bound (eq. (38)) gives that rate.""",
    theory=(ta.theorem2_bound, ta.expected_noise_A_norm, ta.theorem2_private_rate, ta.eq39_sigma_sq, ta.eq39_T),
    mutants=[_eq39_corrected_rate_mutant()],
    notes="Exact, SymPy. Reading: eq. (39) is a statement about the dependence on n, ε, δ and the side information's "
    "size S_A = max_t E‖Aᵗ‖₁ (the point of the display, and of Section 5.1's 'when gradients are sparse ... the noise "
    "is significantly smaller', is its √S_A); the O(·) hides constants (α, D, a, γ, C) only. Both data-dependent sums "
    "of eq. (38) (Σⱼ E[√v_jᵀ + εᵀ] and max_t E‖N‖²_{Aᵗ}/(σ²C²/b²)) are read as the one S_A, as eq. (39) does. The "
    "check substitutes E‖N‖²_A = σ²C²S_A/b² (theory.adadps.expected_noise_A_norm, N ~ N(0, σ²C²)/b), then "
    "σ² = b²T log(1/δ)/(n²ε²) and T = n²ε²/(S_A log(1/δ)) (unit constants: any other constant multiplies the two "
    "terms by constants) into theory.adadps.theorem2_bound, divides by theorem2_private_rate, and takes the limits "
    "S_A → ∞, n → ∞, ε → 0⁺, log(1/δ) → ∞ (δ = e^{−ℓ}, γ = 1/(1 + g), g ≥ 0). Verdict: violated iff a limit is "
    "infinite, holds iff all are finite. The ratio is exactly C²α + G·S_A (G = D²/(2α) + α(2 − γ)/(aγ), Theorem "
    "2's): the first term of eq. (38), G·S_A/√T with √T = nε/√(S_A log(1/δ)), is G·S_A^{3/2}√log(1/δ)/(nε), so "
    "the substitution gives O(S_A^{3/2}√log(1/δ)/(nε)), not the stated √S_A; the n, ε, δ dependence is right. "
    "Not evaluated by the check, derived by hand: with T chosen to minimise eq. (38) after the σ² substitution the "
    "ratio is 2√(αG)·C·√S_A, still unbounded (the best any T gives is O(S_A√log(1/δ)/(nε))). "
    "Counterexample pinned: every constant of eq. (38) equal to 1 (α = D = a = γ = C = 1), the ratio is "
    "1 + (3/2)S_A: 5/2 at S_A = 1 and first more than 10× that at S_A = 17 (53/2), e.g. d = 17 coordinates with "
    "A_j = 1. Section 5.1's copy of the rate also drops log(1/δ) (a typo relative to eq. (39); not tested). "
    "Declared mutant: the stated rate with S_A^{3/2} in place of √S_A (what the substitution gives), which must turn "
    "the verdict to holds. Generic mutants: the constant ones (×10, ×0.1) are equivalent (an O(·) statement "
    "ignores constants); the exponent ones leave the ratio unbounded (the mutated statements are false too).",
)
def eq39(budget: str, seed: int) -> Outcome:
    import sympy as sp

    r = eq39_ratio()
    paper_lims = {k: v for k, v in r["limits"].items() if k[0] == "paper_T"}
    unbounded = {k: v for k, v in paper_lims.items() if v is not None and v == sp.oo}
    verdict = ("violated" if unbounded else "inconclusive" if any(v is None for v in paper_lims.values())
               else "holds")
    small = eq39_smallest(r["paper"]) if verdict == "violated" else {}
    counter = None
    if verdict == "violated":
        counter = {"ratio": str(sp.simplify(r["paper"])), "unbounded_in": [k[1] for k in unbounded],
                   "unit_constants": dict(EQ39_UNIT)}
        if small:
            counter.update(S_A=small["S_A"], ratio_at_S_A=str(small["ratio"]), ratio_at_1=str(small["ratio_at_1"]))
    lim_txt = ", ".join(f"{k[1]}: {v}" for k, v in r["limits"].items() if k[0] == "paper_T")
    evidence = (f"{verdict} (exact, SymPy): eq. (38) with σ² = b²T log(1/δ)/(n²ε²) and T = n²ε²/(S_A log(1/δ)) "
                f"substituted, over the stated √(S_A log(1/δ))/(nε), is {sp.simplify(r['paper'])} (ℓ = log(1/δ), "
                f"γ = 1/(1 + g_gamma)); limits: {lim_txt}"
                + (f"; with every constant 1 the ratio is {small['ratio_at_1']} at S_A = 1 and {small['ratio']} at "
                   f"S_A = {small['S_A']} (first more than {EQ39_FACTOR}×)" if small else ""))
    unit = r["paper"].subs({getattr(ta, k): v for k, v in EQ39_UNIT.items()})
    unit = unit.subs({s: 0 for s in unit.free_symbols if s.name in ("g_gamma",)})
    xs = [float(x) for x in np.geomspace(1, 1e4, 41)]
    fx = sp.lambdify([s for s in unit.free_symbols], unit) if unit.free_symbols else (lambda *_: float(unit))
    ys = [float(fx(x)) if unit.free_symbols == {ta.S_A} else float("nan") for x in xs]
    fig = Figure("eq39", "adadps eq. (39): substituted bound over the stated rate", [Panel(
        "every constant of eq. (38) equal to 1", "S_A = max_t E‖Aᵗ‖₁", "bound / (√(S_A log(1/δ))/(nε))",
        [Series("ratio (bounded iff eq. (39) holds)", xs, ys)], xscale="log", yscale="log")])
    numbers = {"unbounded_paper_T": float(bool(unbounded))}
    if small:
        numbers.update(smallest_S_A=float(small["S_A"]), ratio_at_smallest=float(small["ratio"]),
                       ratio_at_1=float(small["ratio_at_1"]))
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])



for _fn in ("theorem2_bound", "expected_noise_A_norm", "theorem2_private_rate", "eq39_sigma_sq", "eq39_T"):
    for _m in ("x10", "x0.1"):
        declare_equivalent("adadps.eq39", f"{_fn}:{_m}", "eq. (39) is an O(·) statement: a constant factor in any "
                            "of its ingredients changes no limit of the ratio, so the mutated statement is the same")
for _fn in ("expected_noise_A_norm", "theorem2_private_rate", "eq39_sigma_sq", "eq39_T"):
    for _m in ("pow1.25", "pow0.75"):
        declare_equivalent("adadps.eq39", f"{_fn}:{_m}", "with this exponent changed the substituted bound over the "
                           "rate is still unbounded in S_A (the check's limits, exact), so the mutated eq. (39) is "
                           "false as well")
#: issue 25 (session 26): theorem2_bound's exponent mutants left a coefficient (2(1 + g)^{k} − 1, k = ¾ or 5/4) that
#: SymPy's assumptions could not sign, so the check said inconclusive; signed by monotonicity in g (_eq39_positive),
#: the ratio is unbounded in S_A for both (and in n for ¾, in 1/ε and log(1/δ) for 5/4): still false, exactly
for _m in ("pow1.25", "pow0.75"):
    declare_equivalent("adadps.eq39", f"theorem2_bound:{_m}", "the mutated statement is still false: with eq. (38)'s "
                       "exponents changed the substituted bound over the stated rate still grows without bound as "
                       "S_A → ∞ (its S_A-leading coefficient is positive for every g ≥ 0; the check's limits, exact)")


# ======================================================================================
# Theorem 4: non-convex / smooth rate with a public-data RMSProp preconditioner (constant α, β, ϵ)
# ======================================================================================
# All constants fixed before the first run (their reasons are in the claim's notes).
T4_PROBLEM = T2_PROBLEM  # collinear_regression, d = 1, s ~ U[1, 2]: Assumption 3 with a ≥ (1/2)⁴ at every w
T4_D_BAR = 2.0  # the a-priori path radius: |wᵗ − w*| ≤ D̄ (measured on every logged step; else inconclusive)
T4_BETA = 0.9
T4_CASES = {"quick": dict(cases=((1000, 0.0, 10), (1000, 0.0, 100), (16, 0.0, 300), (16, 1.0, 300)), trials=6),
            "full": dict(cases=((1000, 0.0, 10), (1000, 0.0, 100), (1000, 1.0, 100), (16, 0.0, 300), (16, 1.0, 300),
                                (16, 1.0, 1000)), trials=24)}
#: issue 25, a rescaled case fixed before its verdicts: the same problem with w* ×100 (w_norm = 100, D̄ = 200). The
#: run is the same one scaled (α, B, ϵ ∝ D̄; C, a, β scale-free: wᵗ and ∇F scale by 100, the left side by 100²) and
#: a dimensionally consistent bound scales by 100² as well, so the case is as tight as (1000, 0, 10) at w_norm = 1;
#: a bound whose exponents are a quarter off scales by 100^1.5 or 100^2.5 and is off by 10× one way there
T4_SCALE = 100.0
T4_SCALED_CASE = (1000, 0.0, 10)
T4_TESTS = len(T4_CASES["full"]["cases"]) + 1


def theorem4_constants(problem, d_bar: float = T4_D_BAR) -> dict:
    """The constants of Theorem 4 on a d = 1 collinear_regression (F(w) = ½L(w − w*)², F* = 0), all fixed before a run:

    L = mean s² (exact), a = (s_low/s_high)⁴ (Assumption 3 for any two non-empty batches, exact), B = L·D̄
    (|∇F| on |w − w*| ≤ D̄), ϵ = 4B√(1 − β)/√a (the smallest ϵ with B√(1 − β) ≤ √a ϵ/4), α = ϵ/(2L) (the largest
    step allowed), C = s_high²·D̄/ϵ (‖g_i/A‖ ≤ C as A ≥ ϵ), ‖τ²‖₁ = Var_i(s_i²)·D̄² (per-record gradient variance),
    F(w¹) − F* at w¹ = 0.

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        A d = 1 collinear_regression problem.
    d_bar : float, optional
        The a-priori path radius D̄ (default ``T4_D_BAR`` = 2|w¹ − w*| at w_norm = 1).

    Returns
    -------
    dict
        ``L``, ``a``, ``B``, ``eps_a``, ``alpha``, ``C``, ``S_tau``, ``F1_gap``, ``d`` and ``d_bar``.
    """
    s2 = problem.features[:, 0] ** 2
    L = float(np.mean(s2))
    kw = problem.params
    a = (kw["s_low"] / kw["s_high"]) ** 4
    B = L * d_bar
    eps = 4 * B * math.sqrt(1 - T4_BETA) / math.sqrt(a)
    return {"L": L, "a": a, "B": B, "eps_a": eps, "alpha": eps / (2 * L), "C": kw["s_high"] ** 2 * d_bar / eps,
            "S_tau": float(np.var(s2)) * d_bar**2, "F1_gap": problem.loss_value(np.zeros(problem.d)), "d": problem.d,
            "d_bar": d_bar}


def _t4_d_bar(problem_kw: dict) -> float:
    """D̄ of a Theorem 4 problem: ``T4_D_BAR`` times w*'s scale relative to ``T4_PROBLEM``'s."""
    return T4_D_BAR * abs(problem_kw["w_norm"]) / abs(T4_PROBLEM["w_norm"])


def _t4_task(problem_kw: dict, batch_size: int, sigma: float, steps: int, trials: int, seed: int) -> dict:
    """``trials`` runs of the kernel's AdaDPS-RMSProp with public data (constant α, β, ϵ; fixed-size batches of b and
    public batches of b; no clipping, noise σC/b): per run (1/T)Σₜ‖∇F(wᵗ)‖² and max_t |wᵗ − w*| (from the logged
    F(wᵗ) = ½L(wᵗ − w*)²)."""

    prob = make_problem("collinear_regression", problem_kw)
    k = theorem4_constants(prob, _t4_d_bar(problem_kw))
    out = ka.run_central(prob, "adadps_rmsprop", lr=k["alpha"], clip=math.inf, sigma=sigma, batch_size=batch_size,
                         steps=steps, sampling="fixed", beta2=T4_BETA, eps_a=k["eps_a"], noise_clip=k["C"],
                         track_weights=np.ones(prob.d), trials=trials, seed=seed, n_log=steps + 1)
    loss = np.asarray(out["loss"])
    return {"grad_avg": np.asarray(out["grad_avg"]), "dist_max": np.sqrt(2 * np.max(loss, axis=1) / k["L"])}


@claim(
    "adadps.theorem4",
    kind="expectation",
    statement="""Theorem 4: under Assumptions 1–5 (F L-smooth; a·ĝ_j² ≤ g_j² ≤ ĝ_j²/a; ‖g_i/Aᵗ‖ ≤ C; bounded
    variance τ²), Algorithm 1 with public data, constant α and ϵ, α ≤ ϵ/(2L) and B√(1−β) ≤ √a ϵ/4, gives
    (1/T)Σₜ E‖∇F(wᵗ)‖² ≤ O(1/T) + O(‖τ²‖₁/b + σ²/b²).""",
    theory=(ta.theorem4_explicit_bound,),
    weaker_if={"theory.adadps.theorem4_explicit_bound": "larger"},  # an upper bound
    notes="Checked with the proof's own constants (theory.adadps.theorem4_explicit_bound: eq. (57) summed over "
    "t = 1..T), as adadps.theorem5 does for Theorem 5; the O(·) form drops L, d, C, B, a, β, ϵ. Problem: "
    "kernels.adadps.collinear_regression with d = 1 (the one adadps.theorem2 uses: records x_i = s_i, s_i ~ U[1, 2], "
    "noiseless labels, squared loss, F(w) = ½L(w − w*)², F* = 0, w* = 1, public split of 100 records from the same "
    "law), on which Assumption 3 holds at every w with a = (1/2)⁴ exactly (private and public batch gradients are "
    "(batch mean of s²)·(w − w*)), F is L-smooth with L = mean s², and the per-record gradient variance is "
    "Var(s²)(w − w*)². Constants fixed before any run (verify.papers.adadps.theorem4_constants): path radius "
    "D̄ = 2 (= 2|w¹ − w*|), B = L·D̄, β = 0.9, ϵ = 4B√(1 − β)/√a (the hypothesis with equality), α = ϵ/(2L) (the "
    "largest allowed), C = s_high²·D̄/ϵ (Assumption 2 on |w − w*| ≤ D̄, no clipping), ‖τ²‖₁ = Var(s²)·D̄², w¹ = 0. "
    "The hypotheses that depend on the path (|wᵗ − w*| ≤ D̄, hence B, C and τ) are measured on every step of every "
    "run from the logged F(wᵗ); a case where they fail is inconclusive. Runs: the kernel (kernels.adadps."
    "run_central, adadps_rmsprop, constant β, fixed-size batches of b, public batches of b with replacement), the "
    "left side (1/T)Σₜ‖∇F(wᵗ)‖² per run from full-data gradients. Cases (b, σ, T): quick (1000, 0, 10), "
    "(1000, 0, 100), (16, 0, 300), (16, 1, 300), 6 runs each; full adds (1000, 1, 100) and (16, 1, 1000), 24 runs. "
    "Decision per case: verify.decide.mean_at_most (one-sample t over runs; 6 tests for the full budget's "
    "cases), combined (violated if any, holds if all). The full-batch cases sit at about half of the bound (the "
    "O(1/T) term is tight: a ×0.1 bound or a ×10 stepsize is caught). Issue 25: one more case, fixed before its "
    "verdict — (1000, 0, 10) on the same problem with w* ×100 (w_norm = 100, D̄ = 200, the constants recomputed): "
    "the run and a dimensionally consistent bound both scale by 100², so it is as tight as the unscaled case, while "
    "a bound with exponents a quarter off is off by 10× there (7 tests declared). Reported: measured/bound per case.",
    tests=T4_TESTS,
)
def theorem4(budget: str, seed: int) -> Outcome:
    g = T4_CASES[by_budget(budget, "quick", "full")]
    prob = make_problem("collinear_regression", T4_PROBLEM)
    k = theorem4_constants(prob)
    rhs_f = numeric(ta.theorem4_explicit_bound())
    scaled_kw = dict(T4_PROBLEM, w_norm=T4_PROBLEM["w_norm"] * T4_SCALE)
    kk = theorem4_constants(make_problem("collinear_regression", scaled_kw), _t4_d_bar(scaled_kw))
    cases = [(b, s, T, 1.0, T4_PROBLEM, k) for b, s, T in g["cases"]] + [(*T4_SCALED_CASE, T4_SCALE, scaled_kw, kk)]
    tasks = [dict(problem_kw=T4_PROBLEM, batch_size=b, sigma=s, steps=T, trials=g["trials"],
                  seed=child_seed(seed, "adadps.theorem4", i)) for i, (b, s, T) in enumerate(g["cases"])]
    tasks.append(dict(problem_kw=scaled_kw, batch_size=T4_SCALED_CASE[0], sigma=T4_SCALED_CASE[1],
                      steps=T4_SCALED_CASE[2], trials=g["trials"], seed=child_seed(seed, "adadps.theorem4", "scaled")))
    outs = sweep(_t4_task, tasks, "adadps.theorem4 runs")
    rows, decisions = [], []
    for (b, s, T, scale, _kw, kc), o in zip(cases, outs):
        rhs = float(rhs_f(beta=T4_BETA, B_grad=kc["B"], eps_a=kc["eps_a"], alpha=kc["alpha"], F1_gap=kc["F1_gap"],
                          T=T, a=kc["a"], L=kc["L"], S_tau=kc["S_tau"], b=b, d=kc["d"], sigma=s, C=kc["C"]))
        lhs = np.asarray(o["grad_avg"])
        dmax = float(np.max(o["dist_max"])) if np.all(np.isfinite(o["dist_max"])) else math.inf
        ci = stats.mean_ci(lhs) if np.all(np.isfinite(lhs)) else None
        hyp = dmax <= kc["d_bar"]
        where = "" if scale == 1.0 else f"w* ×{scale:g}, "
        if hyp:
            dec = decide.mean_at_most(lhs, rhs, what=f"({where}b={b}, σ={s:g}, T={T}) (1/T)ΣE‖∇F‖² ≤ the explicit "
                                      "bound")
            decisions.append(dec)
            v = str(dec.verdict)
        else:
            v = "inconclusive"
        rows.append(dict(b=b, sigma=s, T=T, scale=scale, lhs=ci.estimate if ci else math.inf,
                         lhs_lo=ci.lo if ci else math.inf, lhs_hi=ci.hi if ci else math.inf, rhs=rhs, dist_max=dmax,
                         d_bar=kc["d_bar"], hyp=hyp, verdict=v))
    parts = [r["verdict"] for r in rows]
    verdict = "violated" if "violated" in parts else ("holds" if all(p == "holds" for p in parts) else "inconclusive")
    worst = max(rows, key=lambda r: r["lhs"] / r["rhs"])
    evidence = (f"{verdict}: constants L = {k['L']:.4g}, a = {k['a']:.4g}, B = {k['B']:.4g}, β = {T4_BETA}, "
                f"ϵ = {k['eps_a']:.4g}, α = ϵ/(2L) = {k['alpha']:.4g}, C = {k['C']:.4g}, ‖τ²‖₁ = {k['S_tau']:.4g}, "
                f"F(w¹) − F* = {k['F1_gap']:.4g}; largest measured/bound {worst['lhs'] / worst['rhs']:.3g} "
                f"(b={worst['b']}, σ={worst['sigma']:g}, T={worst['T']}); "
                + "; ".join(f"({'' if r['scale'] == 1.0 else 'w* ×%g, ' % r['scale']}b={r['b']}, σ={r['sigma']:g}, "
                            f"T={r['T']}): (1/T)ΣE‖∇F‖² {r['lhs']:.4g} "
                            f"[{r['lhs_lo']:.4g}, {r['lhs_hi']:.4g}] vs bound {r['rhs']:.4g}, max|wᵗ − w*| "
                            f"{r['dist_max']:.3g} (D̄ = {r['d_bar']:g}{'' if r['hyp'] else ': HYPOTHESES FAIL'}) "
                            f"[{r['verdict']}]" for r in rows))
    fig = Figure("theorem4", "adadps Theorem 4 with the proof's constants (collinear_regression, d = 1)", [Panel(
        "left side (mean, 95% CI) and the explicit bound per case", "case", "(1/T)Σ E‖∇F(wᵗ)‖²", [
            Series("measured", list(range(len(rows))), [r["lhs"] for r in rows], [r["lhs_lo"] for r in rows],
                   [r["lhs_hi"] for r in rows], style="points"),
            Series("bound (eq. (57) summed)", list(range(len(rows))), [r["rhs"] for r in rows], style="points")],
        yscale="log")])
    numbers = {"L": k["L"], "a": k["a"], "B": k["B"], "eps_a": k["eps_a"], "alpha": k["alpha"], "C": k["C"],
               "S_tau": k["S_tau"], "max_lhs_over_rhs": worst["lhs"] / worst["rhs"]}
    for r in rows:
        key = ("" if r["scale"] == 1.0 else f"scaled{r['scale']:g}_") + f"b{r['b']}_s{r['sigma']:g}_T{r['T']}"
        numbers[f"lhs[{key}]"], numbers[f"rhs[{key}]"], numbers[f"dist_max[{key}]"] = r["lhs"], r["rhs"], r["dist_max"]
    counter = next((r for r in rows if r["verdict"] == "violated"), None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


declare_equivalent("adadps.theorem4", "no-clipping", "the runs use clip = ∞ (Assumption 2 holds through C, no record "
                   "is clipped), so skipping the clipping changes nothing")
declare_equivalent("adadps.theorem5", "no-clipping", "the statement's algorithm has no clipping (Assumption 2): the "
                   "runs use clip = ∞ (the noise scale C is noise_clip), or, in the tight family, clip at C only to "
                   "report whether Assumption 2 held (no record reaches it unless |N| > 12), so the faulted run is the "
                   "statement's own algorithm")


# ======================================================================================
# Table 10: AdaDPS with 25× less public data (zipf_bow_logistic)
# ======================================================================================
@lru_cache(maxsize=16)
def _public_subset_cached(problem_items: tuple, keep: int):
    """The zipf_bow_logistic of ``problem_items`` with its public split cut to its first ``keep`` records (the
    private, test and side information unchanged: a nested, smaller public sample from the same population)."""
    import dataclasses

    prob = make_problem("zipf_bow_logistic", dict(problem_items))
    if keep >= prob.public_features.shape[0]:
        return prob
    return dataclasses.replace(prob, public_features=np.ascontiguousarray(prob.public_features[:keep]),
                               public_labels=np.ascontiguousarray(prob.public_labels[:keep]))


def _acc_task(problem_kw: dict, public_keep: int, method: str, lr: float, clip: float, sigma: float, batch_size: int,
              steps: int, trials: int, seed: int, side_info: str = "frequency") -> dict:
    """``trials`` runs of one kernel method on a zipf_bow_logistic whose public split keeps ``public_keep`` records:
    validation and test accuracy per run (the halves of the test split, as :func:`_central_task`)."""

    prob = _public_subset_cached(tuple(sorted(problem_kw.items())), int(public_keep))
    out = ka.run_central(prob, method, lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         side_info=side_info, eps_a=1e-3, trials=trials, seed=seed, n_log=2)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _tune_acc(label: str, base: dict, grid: list[dict], seed: int) -> dict:
    """The grid point with the best mean validation accuracy (tuning seed ``seed``; same grid for every method)."""

    outs = sweep(_acc_task, [dict(base, **g, seed=seed) for g in grid], label)
    return grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]


T10_GRIDS = {
    "quick": dict(TABLE_GRIDS["quick"], lrs=(0.1, 1.0, 3.0, 10.0), clips=(0.1, 1.0), trials=12),
    "full": dict(TABLE_GRIDS["quick"], lrs=(0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 10.0), clips=(0.05, 0.1, 0.5, 1.0),
                 tune_trials=3, trials=40),
}
T10_SHRINK = 25  # "25× less" public data
T10_DROP = 0.05  # the paper's largest drop from 1% public to 25× less (IMDB: 0.80 → 0.75), fixed before the data
T10_MARGIN = TABLE_MARGIN  # "beats DP-SGD": violated if below it by more than 0.01 (adadps.table's margin)
T10_METHODS = ("all", "small", "dp_sgd")
T10_LABELS = {"all": "AdaDPS (all public)", "small": f"AdaDPS ({T10_SHRINK}× less public)", "dp_sgd": "DP-SGD"}


def _t10_wrong_public_mutant():
    """A declared fault: the public split's feature columns reversed (public statistics of the wrong features)."""

    original = _public_subset_cached

    def reversed_public(problem_items: tuple, keep: int):
        import dataclasses

        prob = original(problem_items, keep)
        return dataclasses.replace(prob, public_features=np.ascontiguousarray(prob.public_features[:, ::-1]))

    return Mutant("public-features-reversed", "verify.papers.adadps._public_subset_cached: the public split's feature "
                  "columns reversed (AdaDPS preconditions with the statistics of the wrong features)", "kernel",
                  lambda: substituted("verify.papers.adadps._public_subset_cached", reversed_public))


@claim(
    "adadps.table10",
    kind="experiment",
    statement="""Table 10 / App. C.3: "Only a very small set of public data (even 0.04% the size of private training
    data) can provide good preconditioner estimates": AdaDPS with 25× less public data (0.75 on IMDB, 0.39 on
    StackOverflow) stays close to AdaDPS with 1% public data (0.80, 0.40) and above DP-SGD (0.63, 0.28).""",
    theory=(),
    mutants=[_t10_wrong_public_mutant(), *_one_arm_mutants(("adadps_rmsprop",), "AdaDPS")],
    notes="Stand-in problem: adadps.table's zipf_bow_logistic at its quick size at both budgets (n = 1500, d = 200, "
    "public split 75 records = 5% of n, chosen there so that at most 10% of the features are unseen in it); '25× "
    "less' keeps its first 3 records (the same population, nested). Every method: σ = 1, b = 32, 300 steps, "
    "Poisson sampling, the same accountant ε; (lr, C) tuned separately per method on the same grid by validation "
    "accuracy (tuning seeds), test accuracy on fresh seeds (12 runs quick, 40 full). Two relations, 2 tests "
    "(verify.decide): (a) close: E[acc(all) − acc(25× less)] ≤ 0.05, the paper's own largest drop (IMDB), by "
    "decide.upper_bounded on the Welch difference (violated if the family-level lower bound exceeds 0.05); "
    "(b) above DP-SGD: decide.better on test accuracy with adadps.table's margin 0.01. Verdict: the conjunction; "
    "a near-tie with DP-SGD is inconclusive (adadps.table finds AdaDPS (public) ≈ DP-SGD on this problem at this "
    "size: the stylized problem may lack the power for (b)). Reported: the features unseen in each public split. "
    "Mechanism probe first (issue 25, _central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence; kept until session 27); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table10(budget: str, seed: int) -> Outcome:
    g = T10_GRIDS[by_budget(budget, "quick", "full")]
    # issue 25: the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(("adadps_rmsprop", "dp_sgd"), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table10")
    prob = make_problem("zipf_bow_logistic", g["problem"])
    n_pub = prob.public_features.shape[0]
    keep = {"all": n_pub, "small": max(1, n_pub // T10_SHRINK), "dp_sgd": n_pub}
    method = {"all": "adadps_rmsprop", "small": "adadps_rmsprop", "dp_sgd": "dp_sgd"}
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {m: _tune_acc(f"adadps.table10 tune {m}", dict(base, public_keep=keep[m], method=method[m],
                                                            trials=g["tune_trials"]), grid,
                            child_seed(seed, "adadps.table10", "tune"))
              for m in T10_METHODS}
    tasks = [dict(base, public_keep=keep[m], method=method[m], trials=g["trials"],
                  seed=child_seed(seed, "adadps.table10", "run"),
                  **chosen[m]) for m in T10_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T10_METHODS, sweep(_acc_task, tasks, "adadps.table10 runs"))}
    drop = decide.upper_bounded(decide.difference_estimate(acc["all"], acc["small"]), T10_DROP,
                                test=f"test accuracy AdaDPS (all public) − AdaDPS ({T10_SHRINK}× less) ≤ {T10_DROP:g}")
    beats = decide.better(-acc["small"], -acc["dp_sgd"], what=f"test accuracy DP-SGD − AdaDPS ({T10_SHRINK}× less)",
                          margin=T10_MARGIN)
    decisions = [drop, beats]
    verdict = str(decide.combine(decisions))
    unseen = {m: int(np.sum(~(_public_subset_cached(tuple(sorted(g["problem"].items())), keep[m]).public_features > 0)
                            .any(axis=0))) for m in ("all", "small")}
    means = {m: stats.mean_ci(acc[m]) for m in T10_METHODS}
    evidence = (f"{verdict}: close to all public: {drop.verdict} ({drop.phrase()}); above DP-SGD: {beats.verdict} "
                f"({beats.phrase()}); public records {keep['all']} vs {keep['small']} (features unseen: "
                f"{unseen['all']} vs {unseen['small']} of {prob.d}); test accuracy ({g['trials']} seeds): "
                + ", ".join(f"{T10_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T10_METHODS))
    fig = Figure("table10", "adadps Table 10: public data size (zipf_bow_logistic)", [Panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", "test accuracy",
        [Series(T10_LABELS[m], [i], [means[m].estimate], [means[m].lo], [means[m].hi], style="points")
         for i, m in enumerate(T10_METHODS)])])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T10_METHODS}
    numbers.update({"public_all": keep["all"], "public_small": keep["small"], "unseen_all": unseen["all"],
                    "unseen_small": unseen["small"], "drop": drop.estimate, "diff_small_minus_dpsgd": -beats.estimate})
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table10", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Table 9: non-private AdaS ≈ Adam (zipf_bow_logistic)
# ======================================================================================
T9_GRIDS = {
    "quick": dict(problem=TABLE_GRIDS["quick"]["problem"], batch_size=64, steps=300, lrs=PAPER_LR_GRID + (3.0, 10.0),
                  tune_trials=2, trials=10),
    "full": dict(problem=TABLE_GRIDS["quick"]["problem"], batch_size=64, steps=600, lrs=PAPER_LR_GRID + (3.0, 10.0),
                 tune_trials=3, trials=30),
}
T9_MARGIN = 0.02  # test accuracy: "matches" = within 2 points (the table's 2-decimal rounding plus run-to-run spread)
T9_METHODS = ("adam", "adas_public", "adas_frequency", "sgd")
T9_KERNEL = {"adam": "dp_adam", "adas_public": "adadps_rmsprop", "adas_frequency": "adadps_fixed", "sgd": "dp_sgd"}
T9_LABELS = {"adam": "Adam", "adas_public": "AdaS (w/ public)", "adas_frequency": "AdaS (w/o public)", "sgd": "SGD"}


def t9_side_info(d: int):
    """AdaS (w/o public)'s side information: the token frequencies ("frequency", as adadps.table).

    Parameters
    ----------
    d : int
        The dimension (not used: the key is the same for every d).

    Returns
    -------
    str
        "frequency".
    """
    return "frequency"


def _t9_side_info_mutant():
    """A declared fault: AdaS (w/o public) run with A = 1 (no side information: plain SGD)."""

    return Mutant("adas-without-side-information", "verify.papers.adadps.t9_side_info: A = 1 for AdaS (w/o public), "
                  "i.e. plain SGD in its place", "kernel",
                  lambda: substituted("verify.papers.adadps.t9_side_info", lambda d: np.ones(d)))


@claim(
    "adadps.table9",
    kind="experiment",
    statement="""Table 9 / App. C.2: "Performance of each method in non-private training. We see that AdaS can match
    the performance of Adam in non-private settings" (IMDB convex: Adam 0.88, AdaS w/ public 0.88, AdaS w/o public
    0.88; StackOverflow 0.64 for all three).""",
    theory=(),
    mutants=[_t9_side_info_mutant()],
    notes="Stand-in problem: adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200, public split 75 "
    "records). Non-private: no clipping (C = ∞), σ = 0, batch 64 (App. B's non-private batch), 300 steps quick, "
    "600 full. AdaS = AdaDPS's preconditioning without privatisation and without momentum (App. B): w/ public = "
    "kernel adadps_rmsprop (public RMSProp statistics, β = 0.99, ε = 1e-3), w/o public = adadps_fixed with the "
    "token-frequency side information; Adam = kernel dp_adam at σ = 0, C = ∞ (β₁ = 0.9, β₂ = 0.99); SGD reported "
    "only. Learning rates tuned per method on App. B's non-private grid {0.0005, ..., 2} plus 3 and 10 (as adadps."
    "table) by validation accuracy (tuning seeds), test accuracy on fresh seeds (10 quick, 30 full). 'Match': "
    "equivalence of mean test accuracies within ±0.02 (margin fixed in code: the table's two-decimal rounding plus "
    "run-to-run spread), verify.decide.equivalent (two one-sided tests) on the Welch difference, 2 tests (AdaS w/ "
    "and w/o public vs Adam); verdict the conjunction. Declared fault: AdaS (w/o public) with A = 1 (plain SGD), "
    "which must not pass as a match where SGD is far from Adam. "
    "Mechanism probe first (issue 25, _central_mechanism_probe at C = ∞, σ = 0): a kernel whose noiseless "
    "unclipped step is not the stated one gives no verdict (the check raises, with the reason) when undecided or "
    "violated (a violation shown by runs of another mechanism is no evidence; kept until session 27); a 'holds' "
    "becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table9(budget: str, seed: int) -> Outcome:
    g = T9_GRIDS[by_budget(budget, "quick", "full")]
    # issue 25: the runs must take the stated (unclipped, noiseless) step: see decide.after_probe
    probe_why, _ = _central_mechanism_probe(tuple(T9_KERNEL.values()), 0.0, g["batch_size"], seed,
                                            "adadps.table9", clip=math.inf)
    prob = make_problem("zipf_bow_logistic", g["problem"])
    n_pub = prob.public_features.shape[0]
    side = t9_side_info(prob.d)
    base = dict(problem_kw=g["problem"], public_keep=n_pub, clip=math.inf, sigma=0.0, batch_size=g["batch_size"],
                steps=g["steps"])
    extra = {m: (dict(side_info=side) if m == "adas_frequency" else {}) for m in T9_METHODS}
    grid = [dict(lr=lr) for lr in g["lrs"]]
    chosen = {m: _tune_acc(f"adadps.table9 tune {m}", dict(base, method=T9_KERNEL[m], trials=g["tune_trials"],
                                                           **extra[m]), grid, child_seed(seed, "adadps.table9", "tune"))
              for m in T9_METHODS}
    tasks = [dict(base, method=T9_KERNEL[m], trials=g["trials"], seed=child_seed(seed, "adadps.table9", "run"),
                  **chosen[m], **extra[m])
             for m in T9_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T9_METHODS, sweep(_acc_task, tasks, "adadps.table9 runs"))}
    decisions = [decide.equivalent(decide.difference_estimate(acc[m], acc["adam"]),
                                   what=f"test accuracy {T9_LABELS[m]} − Adam", margin=T9_MARGIN)
                 for m in ("adas_public", "adas_frequency")]
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in T9_METHODS}
    evidence = (f"{verdict}: " + "; ".join(d_.phrase() for d_ in decisions) + f"; test accuracy ({g['trials']} "
                "seeds, non-private): " + ", ".join(f"{T9_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g})"
                                                    for m in T9_METHODS))
    fig = Figure("table9", "adadps Table 9: non-private AdaS vs Adam (zipf_bow_logistic)", [Panel(
        "mean ± 95% CI", "method", "test accuracy",
        [Series(T9_LABELS[m], [i], [means[m].estimate], [means[m].lo], [means[m].hi], style="points")
         for i, m in enumerate(T9_METHODS)])])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T9_METHODS}
    numbers.update({f"lr[{m}]": chosen[m]["lr"] for m in T9_METHODS})
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table9", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


declare_equivalent("adadps.table9", "noise*3", "the runs are non-private (σ = 0): there is no noise to scale")
declare_equivalent("adadps.table9", "no-clipping", "the runs are non-private (C = ∞): no record is clipped")


# ======================================================================================
# Table 8: DP-Adam-Pub (DP-Adam with clean public preconditioners) vs AdaDPS
# ======================================================================================
T8_BETAS = (0.9, 0.9, 0.99)  # β₁ (weight of the private gradient in m), β₂ (m's rate), β₃ (v's rate): not given
#: the two readings of DP-Adam-Pub: the displayed update with a share 1 − β₁ = 0.1 of the clean public gradient in
#: m, and the caption's "DP-Adam using clean preconditioners estimated on public data" (β₁ = 1: only v is public)
T8_READINGS = {"dp_adam_pub_formula": 0.9, "dp_adam_pub_caption": 1.0}
T8_EPS = 1e-3  # ϵ, the kernel's eps_a for AdaDPS
T8_PUB_METHOD = "dp_adam_pub"  # the name dp_adam_pub passes to the kernels' fault hooks (kernels/faults.py)


def dp_adam_pub(problem, rng: np.random.Generator, *, lr: float, clip: float, sigma: float, batch_size: int,
                steps: int, beta1: float | None = None) -> np.ndarray:
    """One run of DP-Adam-Pub (App. C.1, Table 8), NumPy, returns w_T:

    g̃ = (1/b)Σ_B clip(g_i, C) + N(0, σ²C²)/b (Poisson batch at rate b/n, as the kernel's DP methods),
    ĝ = mean gradient of b public records drawn with replacement,
    m ← β₂m + (1 − β₂)(β₁g̃ + (1 − β₁)ĝ), v ← β₃v + (1 − β₃)ĝ², w ← w − α(m/(1 − β₂ᵗ))/(√(v/(1 − β₃ᵗ)) + ϵ);
    w⁰ = 0, β's = T8_BETAS (β₁ = ``beta1`` if given), ϵ = T8_EPS.  The batch and public draws reuse
    kernels.adadps_reference's helpers.  Like the kernel methods it honours the kernels' fault hooks
    (kernels.faults: noise scale, stepsize scale, skipped clipping) under the method name T8_PUB_METHOD.
    A diverging run ends non-finite (its accuracy is then scored at w = 0 by the caller).

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        The problem (training and public records).
    rng : numpy.random.Generator
        The run's randomness (batches, public draws, noise).
    lr : float
        The learning rate α.
    clip : float
        The clipping norm C.
    sigma : float
        The noise multiplier σ.
    batch_size : int
        The expected batch size b.
    steps : int
        The steps T.
    beta1 : float or None
        β₁ (None: T8_BETAS's).

    Returns
    -------
    numpy.ndarray
        w_T, shape (d,).
    """

    b1, b2, b3 = T8_BETAS
    b1 = b1 if beta1 is None else beta1
    # the kernels' fault hooks (kernels/faults.py), in the kernel wrappers' order: the noise's scale σC is fixed
    # before a skipped clipping; the method name T8_PUB_METHOD keeps the one-arm faults (AdaDPS only) off this arm
    noise_std = sigma * clip if sigma > 0 else 0.0
    noise_std = noise_std * faults.noise_factor(noise_std, method=T8_PUB_METHOD)
    lr = lr * faults.stepsize_scale(method=T8_PUB_METHOD)
    clip = math.inf if faults.clipping_skipped(clip) else clip
    X, y, n, d = problem.features, problem.labels, problem.n, problem.d
    Xp, yp = problem.public_features, problem.public_labels
    perm = np.arange(n)
    w, m, v = np.zeros(d), np.zeros(d), np.zeros(d)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, steps + 1):
            batch = ref.draw_batch(rng, perm, "poisson", batch_size / n, batch_size)
            idx = rng.integers(0, Xp.shape[0], batch_size)
            gh = ref.glm_grads(problem.loss, Xp[idx], yp[idx], w).mean(axis=0)
            total = ref.clip_rows(ref.glm_grads(problem.loss, X[batch], y[batch], w), clip).sum(axis=0)
            if sigma > 0:
                total = total + noise_std * rng.standard_normal(d)
            m = b2 * m + (1 - b2) * (b1 * total / batch_size + (1 - b1) * gh)
            v = b3 * v + (1 - b3) * gh * gh
            w = w - lr * (m / (1 - b2**t)) / (np.sqrt(v / (1 - b3**t)) + T8_EPS)
    return w


def _t8_task(problem_kw: dict, method: str, lr: float, clip: float, sigma: float, batch_size: int, steps: int,
             trials: int, seed: int) -> dict:
    """``trials`` runs of DP-Adam-Pub (this module's NumPy) or a kernel method (via :func:`_acc_task`, which builds
    the public split through :func:`_public_subset_cached`): validation and test accuracy per run."""
    if method not in T8_READINGS:
        prob = make_problem("zipf_bow_logistic", problem_kw)
        return _acc_task(problem_kw, prob.public_features.shape[0], method, lr, clip, sigma, batch_size, steps,
                         trials, seed)
    prob = make_problem("zipf_bow_logistic", problem_kw)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = [dp_adam_pub(prob, np.random.default_rng(s), lr=lr, clip=clip, sigma=sigma, batch_size=batch_size,
                     steps=steps, beta1=T8_READINGS[method]) for s in np.random.SeedSequence(int(seed)).spawn(trials)]
    W = [np.where(np.isfinite(w), w, 0.0) for w in W]
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


T8_GRIDS = {"quick": dict(T10_GRIDS["quick"], trials=12), "full": dict(T10_GRIDS["full"], trials=40)}
T8_METHODS = ("adadps_rmsprop", "dp_adam_pub_formula", "dp_adam_pub_caption", "dp_sgd")
T8_LABELS = {"adadps_rmsprop": "AdaDPS (w/ public)", "dp_adam_pub_formula": "DP-Adam-Pub (β₁ = 0.9)",
             "dp_adam_pub_caption": "DP-Adam-Pub (β₁ = 1)", "dp_sgd": "DP-SGD"}


@claim(
    "adadps.table8",
    kind="experiment",
    statement="""Table 8 / App. C.1: AdaDPS with public data outperforms DP-Adam-Pub (DP-Adam with clean
    preconditioners estimated on public data) at the same privacy (IMDB 0.80 vs 0.74, StackOverflow 0.40 vs 0.31,
    MNIST autoencoder loss 0.036 vs 0.064).""",
    theory=(),
    mutants=[_t10_wrong_public_mutant(), *_one_arm_mutants(("adadps_rmsprop",), "AdaDPS")],
    notes="The ordering stated: AdaDPS (w/ public) above DP-Adam-Pub on every dataset; DP-Adam-Pub vs DP-SGD is not "
    "claimed (above on IMDB and StackOverflow, below on MNIST), so it is only reported. Stand-in problem: "
    "adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200, public split 75 records). DP-Adam-Pub "
    "is not a kernel method: verify.papers.adadps.dp_adam_pub implements App. C.1's update in NumPy (Poisson batch, "
    "clip, noise σC/b, public batch of b with replacement, as the kernel's methods), β₂ = 0.9, β₃ = 0.99, ϵ = 1e-3 "
    "(the paper says only 'small constants'). Two readings of β₁, fixed before the verdicts: the displayed update "
    "m ← β₂m + (1 − β₂)(β₁g̃ + (1 − β₁)ĝ) with β₁ = 0.9 (a tenth of the clean public gradient enters m), and the "
    "caption's 'DP-Adam using clean preconditioners estimated on public data' (β₁ = 1: only v is public). "
    "AdaDPS = kernel adadps_rmsprop (ϵ = 1e-3). Every method σ = 1, b = 32, 300 steps, the same accountant ε; "
    "(lr, C) tuned per method on adadps.table10's grid by validation accuracy, test accuracy on fresh seeds (12 "
    "quick, 40 full). Decisions (2 tests, one per reading): verify.decide.better on test accuracy, margin 0.01 "
    "(adadps.table's): holds if AdaDPS is above, violated if below by more than 0.01. Verdict: the common verdict "
    "where the readings agree, else inconclusive (the paper's text does not fix β₁; at the full budget the first "
    "version, with β₁ = 0.9 only, found DP-Adam-Pub above AdaDPS by 0.035, violated, while β₁ = 1 puts it 0.046 "
    "below: the statement's truth on this problem turns on the share of clean public gradient). Declared fault: "
    "AdaDPS's public split with its feature columns reversed (DP-Adam-Pub keeps the true split). DP-Adam-Pub "
    "honours the kernels' fault hooks (noise scale, stepsize scale, skipped clipping) under the name dp_adam_pub. "
    "Mechanism probe first (issue 25, _central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence; kept until session 27); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table8(budget: str, seed: int) -> Outcome:
    g = T8_GRIDS[by_budget(budget, "quick", "full")]
    # issue 25: the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(("adadps_rmsprop", "dp_sgd"), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table8")
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {}
    for m in T8_METHODS:
        outs = sweep(_t8_task, [dict(base, method=m, trials=g["tune_trials"],
                                     seed=child_seed(seed, "adadps.table8", "tune"), **p)
                                for p in grid], f"adadps.table8 tune {m}")
        chosen[m] = grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table8", "run"), **chosen[m])
             for m in T8_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T8_METHODS, sweep(_t8_task, tasks, "adadps.table8 runs"))}
    decisions = [decide.better(-acc["adadps_rmsprop"], -acc[m], what=f"test accuracy {T8_LABELS[m]} − AdaDPS (w/ "
                               "public)", margin=TABLE_MARGIN) for m in T8_READINGS]
    parts = [str(d_.verdict) for d_ in decisions]
    # the two readings are alternatives: a verdict only where they agree
    verdict = parts[0] if len(set(parts)) == 1 else "inconclusive"
    means = {m: stats.mean_ci(acc[m]) for m in T8_METHODS}
    split = "" if len(set(parts)) == 1 else " (the readings disagree: " + " vs ".join(parts) + ")"
    evidence = (f"{verdict}{split}: " + "; ".join(d_.phrase() for d_ in decisions)
                + f"; test accuracy ({g['trials']} seeds, σ = {TABLE_SIGMA:g}): "
                + ", ".join(f"{T8_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T8_METHODS)
                + "; DP-Adam-Pub − DP-SGD " + ", ".join(f"{means[m].estimate - means['dp_sgd'].estimate:+.4f}"
                                                        for m in T8_READINGS) + " (reported, not claimed)")
    fig = Figure("table8", "adadps Table 8: DP-Adam-Pub vs AdaDPS (zipf_bow_logistic)", [Panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", "test accuracy",
        [Series(T8_LABELS[m], [i], [means[m].estimate], [means[m].lo], [means[m].hi], style="points")
         for i, m in enumerate(T8_METHODS)])])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T8_METHODS}
    numbers.update({f"diff_adadps_minus[{m}]": -d_.estimate for m, d_ in zip(T8_READINGS, decisions)})
    counter = ({m: {"difference": -d_.estimate, "test": d_.reason} for m, d_ in zip(T8_READINGS, decisions)}
               if verdict == "violated" else None)
    verdict, evidence = decide.after_probe(probe_why, "adadps.table8", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Table 4: the TF-IDF row (zipf_bow_logistic with TF-IDF features)
# ======================================================================================
@lru_cache(maxsize=8)
def _tfidf_cached(problem_items: tuple, public: str):
    """adadps.table's zipf_bow_logistic with TF-IDF features: x_ij = idf_j·1{token j in record i}, each row scaled to
    unit L2 norm (the usual TF-IDF vectors, binary term frequency), idf_j = log(1/P(x_j = 1)) from the population
    law (open knowledge; recovered up to a constant, which the row scaling removes, from the problem's
    "inverse_idf" side information 1/idf_j). Private, public and test splits transformed alike. ``public``:
    "public" (the problem's public split) or "private" (the private training records themselves: the 'ideal'
    preconditioner from clean private gradients)."""
    import dataclasses

    prob = make_problem("zipf_bow_logistic", dict(problem_items))
    idf = 1.0 / prob.side_info["inverse_idf"]

    def tfidf(X):
        Z = X * idf
        nrm = np.linalg.norm(Z, axis=1, keepdims=True)
        return np.ascontiguousarray(Z / np.where(nrm > 0, nrm, 1.0))

    out = dataclasses.replace(prob, features=tfidf(prob.features), public_features=tfidf(prob.public_features),
                              test_features=tfidf(prob.test_features))
    if public == "private":
        out = dataclasses.replace(out, public_features=out.features, public_labels=out.labels)
    return out


T4T_METHODS = ("dp_sgd", "dp_adam", "adadps", "ideal")
T4T_KERNEL = {"dp_sgd": "dp_sgd", "dp_adam": "dp_adam", "adadps": "adadps_fixed", "ideal": "adadps_rmsprop"}
T4T_LABELS = {"dp_sgd": "DP-SGD", "dp_adam": "DP-Adam", "adadps": "AdaDPS (A ∝ 1/TF-IDF)", "ideal": "ideal"}
#: adadps.table10's grids widened until no method's tuned (lr, C) sits at an edge (unit-norm TF-IDF rows give small
#: gradients: with the paper's grid plus 3 and 10, DP-SGD's best lr was the top, 10, and then 100 of a first widening)
T4T_GRIDS = {k: dict(T10_GRIDS[k], lrs=T10_GRIDS[k]["lrs"] + (30.0, 100.0, 300.0, 1000.0),
                     clips=(0.01,) + T10_GRIDS[k]["clips"], trials=(12 if k == "quick" else 40)) for k in T10_GRIDS}
T4T_IDEAL_GAP = 0.05  # "only slightly underperforming the ideal oracle": at most 5 points below (paper: 0.03)


def _t4t_task(problem_kw: dict, method: str, lr: float, clip: float, sigma: float, batch_size: int, steps: int,
              trials: int, seed: int) -> dict:
    """``trials`` kernel runs of one Table 4 method on the TF-IDF problem: validation and test accuracy per run."""

    prob = _tfidf_cached(tuple(sorted(problem_kw.items())), "private" if method == "ideal" else "public")
    out = ka.run_central(prob, T4T_KERNEL[method], lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         side_info="inverse_idf", eps_a=1e-3, trials=trials, seed=seed, n_log=2)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _t4t_inverted_side_info_mutant():
    """A declared fault: AdaDPS's side information inverted, A ∝ TF-IDF weight instead of 1/TF-IDF weight."""

    original = _tfidf_cached

    def inverted(problem_items: tuple, public: str):
        import dataclasses

        prob = original(problem_items, public)
        a = 1.0 / prob.side_info["inverse_idf"]
        return dataclasses.replace(prob, side_info=dict(prob.side_info, inverse_idf=a / a.max()))

    return Mutant("tfidf-side-information-inverted", "verify.papers.adadps._tfidf_cached: AdaDPS's side information "
                  "A ∝ TF-IDF weight (idf_j) instead of A ∝ 1/idf_j (the rare features damped, not amplified)",
                  "kernel", lambda: substituted("verify.papers.adadps._tfidf_cached", inverted))


@claim(
    "adadps.table4",
    kind="experiment",
    statement="""Table 4 (TF-IDF row) / Section 6.1.2: with TF-IDF features and A inversely proportional to the
    features' TF-IDF values, "AdaDPS outperforms the baselines [DP-SGD 0.68, DP-Adam 0.65] by ~10% absolute
    accuracy [0.80], only slightly underperforming the 'ideal' oracle [0.83]" (AdaDPS-RMSProp with the second moment
    estimated on clean private gradients).""",
    theory=(),
    mutants=[_t4t_inverted_side_info_mutant(), *_one_arm_mutants(("adadps_fixed",), "AdaDPS")],
    notes="Expressible on the stand-in: adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200) with "
    "TF-IDF features built from its binary bag of words (verify.papers.adadps._tfidf_cached: idf_j = log(1/p_j) from "
    "the population law, rows scaled to unit norm); AdaDPS = kernel adadps_fixed with A = the problem's "
    "'inverse_idf' side information (A_j ∝ 1/idf_j: inversely proportional to the feature's TF-IDF weight); "
    "ideal = kernel adadps_rmsprop whose 'public' split is the private training set itself (clean private "
    "gradients, as the paper's oracle; not private, an upper reference only). Every method σ = 1, b = 32, 300 "
    "steps, Poisson sampling; (lr, C) tuned per method by validation accuracy on adadps.table10's grid widened to "
    "lr up to 1000 and C down to 0.01 (with the narrower grid DP-SGD's tuned lr sat at its top, 10, and the "
    "verdict was an artefact of it: holds there, a near-tie once DP-SGD could take lr = 100), test accuracy on "
    "fresh seeds (12 quick, 40 full). A tuned point at a corner (DP-SGD at lr 1000, C 0.01; DP-Adam at C 0.01) is "
    "degenerate, not an edge: with every record clipped DP-SGD's step depends on lr·C (10 here, also reachable "
    "inside the grid) and DP-Adam's normalisation makes it nearly invariant to C. "
    "Tests (3): AdaDPS > DP-SGD and AdaDPS > DP-Adam by "
    "verify.decide.better (margin 0.01, adadps.table's; the '~10%' size is reported, not tested), and 'slightly "
    "below ideal': E[acc(ideal) − acc(AdaDPS)] ≤ 0.05 by decide.upper_bounded (margin fixed in code; the paper's gap "
    "is 0.03). Verdict: the conjunction. Not tested: the BoW-vs-TF-IDF comparison across methods ('TF-IDF "
    "features result in higher accuracies than BoW features' across all methods), which Table 4 itself "
    "contradicts for DP-Adam (0.65 < 0.68). Declared fault: AdaDPS with A ∝ idf_j (the side information inverted). "
    "Mechanism probe first (issue 25, _central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence; kept until session 27); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=3,
)
def table4(budget: str, seed: int) -> Outcome:
    g = T4T_GRIDS[by_budget(budget, "quick", "full")]
    # issue 25: the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(tuple(T4T_KERNEL.values()), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table4")
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {}
    for m in T4T_METHODS:
        outs = sweep(_t4t_task, [dict(base, method=m, trials=g["tune_trials"],
                                      seed=child_seed(seed, "adadps.table4", "tune"), **p)
                                 for p in grid], f"adadps.table4 tune {m}")
        chosen[m] = grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table4", "run"), **chosen[m])
             for m in T4T_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T4T_METHODS, sweep(_t4t_task, tasks, "adadps.table4 runs"))}
    decisions = [decide.better(-acc["adadps"], -acc[m], what=f"test accuracy {T4T_LABELS[m]} − AdaDPS",
                               margin=TABLE_MARGIN) for m in ("dp_sgd", "dp_adam")]
    decisions.append(decide.upper_bounded(decide.difference_estimate(acc["ideal"], acc["adadps"]), T4T_IDEAL_GAP,
                                          test=f"test accuracy ideal − AdaDPS ≤ {T4T_IDEAL_GAP:g}"))
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in T4T_METHODS}
    evidence = (f"{verdict}: " + "; ".join(d_.phrase() for d_ in decisions) + f"; TF-IDF test accuracy "
                f"({g['trials']} seeds, σ = {TABLE_SIGMA:g}): "
                + ", ".join(f"{T4T_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T4T_METHODS)
                + f"; AdaDPS − best baseline {means['adadps'].estimate - max(means['dp_sgd'].estimate, means['dp_adam'].estimate):+.4f} "  # noqa: E501
                "(the paper: about +0.10; reported)")
    edge = [T4T_LABELS[m] for m in T4T_METHODS if chosen[m]["lr"] == max(g["lrs"])]
    if edge:
        evidence += f"; tuned lr at the grid's top ({max(g['lrs']):g}) for {', '.join(edge)}"
    fig = Figure("table4", "adadps Table 4, TF-IDF row (zipf_bow_logistic with TF-IDF features)", [Panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", "test accuracy",
        [Series(T4T_LABELS[m], [i], [means[m].estimate], [means[m].lo], [means[m].hi], style="points")
         for i, m in enumerate(T4T_METHODS)])])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T4T_METHODS}
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table4", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Figure 6's DP-FedAdam baseline (issue 22): `adadps.figure6.fedadam`
# ======================================================================================
#: DP-FedAdam's server (Reddi et al. 2021, FedAdam): β₁ = 0.9 (the paper's "server-side momentum 0.9"),
#: β₂ = 0.99 and τ = 10⁻³ (the paper gives neither; FedAdam's usual values)
FEDADAM_BETA1, FEDADAM_BETA2, FEDADAM_TAU = 0.9, 0.99, 1e-3
#: DP-FedAdam's tuning grid, (local lr × C × server lr): wider in local lr than FED_GRIDS (a first run on FED_GRIDS'
#: local lrs and server lrs up to 0.1 tuned both at the top edge; on this grid the tuned point is interior).  An Adam
#: server is nearly invariant to the deltas' scale, so fewer clips are needed.
FEDADAM_GRIDS = {
    "quick": dict(lrs=(0.1, 1.0, 3.0, 10.0), clips=(0.1, 1.0), server_lrs=(0.01, 0.03, 0.1, 0.3, 1.0)),
    "full": dict(lrs=(0.1, 0.5, 1.0, 2.0, 5.0, 10.0), clips=(0.5, 1.0, 2.0), server_lrs=(0.01, 0.03, 0.1, 0.3, 1.0)),
}


def _fedadam_task(problem_kw: dict, local_lr: float, clip: float, sigma: float, users_per_round: int, rounds: int,
                  local_steps: int, local_batch: int, server_lr: float, trials: int, seed: int,
                  n_log: int = 11) -> dict:
    """``trials`` DP-FedAdam runs (A ≡ 1, FedAdam server): losses, validation and test accuracy per run."""

    prob = make_problem("zipf_bow_logistic", problem_kw)
    out = ka.run_federated(prob, local_lr=local_lr, clip=clip, sigma=sigma, users_per_round=users_per_round,
                           rounds=rounds, local_steps=local_steps, local_batch=local_batch, side_info="ones",
                           server="adam", server_lr=server_lr, server_beta1=FEDADAM_BETA1,
                           server_beta2=FEDADAM_BETA2, server_tau=FEDADAM_TAU, trials=trials, seed=seed,
                           n_log=n_log)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    loss = np.where(np.isfinite(out["loss"]), out["loss"], np.inf)
    return {"rounds": out["rounds"], "loss": loss, "val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _fedadam_inverted_side_info_mutant():
    """A declared fault: the kernel's frequency side information inverted (A_j ∝ 1/A_j, largest entry 1)."""

    original = ka.side_information

    def inverted(problem, side_info):
        A = original(problem, side_info)
        if isinstance(side_info, str) and side_info == "frequency":
            return np.ascontiguousarray(A.min() / A)
        return A

    return Mutant("fed-side-information-inverted", "kernels.adadps.side_information: federated AdaDPS's frequency "
                  "side information inverted, A_j ∝ 1/A_j (the rare tokens' steps damped instead of amplified)",
                  "kernel", lambda: substituted("kernels.adadps.side_information", inverted))


def _fedadam_noiseless_mutant():
    """A declared fault: the FedAdam server path of run_federated adds no privacy noise (σ taken as 0)."""

    original = ka.run_federated

    def noiseless(problem, **kw):
        if kw.get("server", "sgd") == "adam":
            kw = dict(kw, sigma=0.0)
        return original(problem, **kw)

    return Mutant("fedadam-without-noise", "kernels.adadps.run_federated: with server='adam' the privacy noise is "
                  "not added (DP-FedAdam compared without privacy)", "kernel",
                  lambda: substituted("kernels.adadps.run_federated", noiseless))


@claim(
    "adadps.figure6.fedadam",
    kind="experiment",
    statement="""Figure 6: "AdaDPS extended to federated learning (Algorithm 3 in the appendix) improves over
    baselines of DP-FedAvg (McMahan et al., 2018) and DP-FedAdam by 5% in terms of test accuracy" — here the
    DP-FedAdam half: federated AdaDPS reaches a higher test accuracy than DP-FedAdam at the same privacy.""",
    theory=(),
    mutants=[_fedadam_inverted_side_info_mutant(), _fedadam_noiseless_mutant(),
             *_one_arm_mutants(("fed_adadps",), "federated AdaDPS")],
    notes="Stand-in and AdaDPS side exactly as adadps.figure6 (zipf_bow_logistic's user partition, σ = 0.3, Poisson "
    "user sampling, server-side noise, frequency side information, server SGD with learning rate 1, (local lr, C)"
    " tuned on FED_GRIDS by validation accuracy with figure6's tuning seed, test accuracy on its fresh run seed "
    "(verify.child_seed). DP-FedAdam = the same clipped and noised user deltas with A ≡ 1, the server applying "
    "FedAdam"
    " (Reddi et al. 2021) to the noisy averaged delta Δ: m ← β₁m + (1 − β₁)Δ, v ← β₂v + (1 − β₂)Δ², w ← w + η_s "
    "m/(√v + τ), no bias correction (kernels.adadps.run_federated(server='adam')). Reading: β₁ = 0.9 (the paper's"
    " 'server-side momentum 0.9'), β₂ = 0.99, τ = 10⁻³ (the paper states neither; FedAdam's usual values); the "
    "paper fixes the server learning rate to 1 for its SGD-server methods, which for an Adam server (a "
    "per-coordinate step of about η_s) is only one choice, so η_s is tuned with (local lr, C) on FEDADAM_GRIDS: "
    "quick local lr {0.1, 1, 3, 10} × C {0.1, 1} × η_s {0.01, 0.03, 0.1, 0.3, 1}; full local lr {0.1, 0.5, 1, 2, "
    "5, 10} × C {0.5, 1, 2} × the same η_s (wider in local lr than AdaDPS's FED_GRIDS: a first run on FED_GRIDS' "
    "lrs with η_s ≤ 0.1 tuned DP-FedAdam at both top edges; a wider grid for the baseline only works against the "
    "claim), same tuning seed and validation split; a tuned point at a grid edge is reported in the evidence. The"
    " same privacy: the server's update is post-processing of the same noisy sum, so ε is figure6's. Decision: "
    "verify.decide.better on the test accuracies (Welch t, 1 test, margin 0.01 as figure6): AdaDPS above "
    "DP-FedAdam holds, below it by more than 0.01 violated, else inconclusive; the paper's '5%' size is reported,"
    " not tested. Declared faults: the frequency side information inverted in the kernel's side_information "
    "(AdaDPS must then lose its lead) and DP-FedAdam run without its privacy noise (not the same privacy). "
    "Mechanism probe as adadps.figure6 (AdaDPS with the SGD server, DP-FedAdam with its Adam server at β₁ = β₂ = 0 "
    "read back exactly): a kernel not running the stated mechanism turns a 'holds' into inconclusive.",
    tests=1,
)
def figure6_fedadam(budget: str, seed: int) -> Outcome:
    key = by_budget(budget, "quick", "full")
    g = FED_GRIDS[key]
    base = dict(problem_kw=g["problem"], sigma=FED_SIGMA, users_per_round=g["per_round"], rounds=g["rounds"],
                local_steps=g["local_steps"], local_batch=g["local_batch"])
    grid = [dict(local_lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    # figure6's seeds: its AdaDPS tuning runs and run are the same tasks, swept in figure6's scope (one cache folder,
    # one key) so that they are computed once per ledger even when the two claims run in different worker processes
    tune_seed, run_seed = child_seed(seed, "adadps.figure6", "tune"), child_seed(seed, "adadps.figure6", "run")
    with claim_scope("adadps.figure6"):
        res = sweep(_fed_task, [dict(base, side_info="frequency", trials=g["tune_trials"], seed=tune_seed, **p)
                                for p in grid], "adadps.figure6.fedadam tune adadps")
    chosen = {"adadps": grid[int(np.argmax([float(np.mean(r["val_acc"])) for r in res]))]}
    ga = FEDADAM_GRIDS[key]
    agrid = [dict(local_lr=lr, clip=c, server_lr=s) for lr in ga["lrs"] for c in ga["clips"] for s in ga["server_lrs"]]
    res = sweep(_fedadam_task, [dict(base, trials=g["tune_trials"], seed=tune_seed, **p) for p in agrid],
                "adadps.figure6.fedadam tune fedadam")
    chosen["fedadam"] = agrid[int(np.argmax([float(np.mean(r["val_acc"])) for r in res]))]
    with claim_scope("adadps.figure6"):
        out_a = sweep(_fed_task, [dict(base, side_info="frequency", trials=g["trials"], seed=run_seed,
                                       **chosen["adadps"])], "adadps.figure6.fedadam run adadps")[0]
    out_f = sweep(_fedadam_task, [dict(base, trials=g["trials"], seed=run_seed, **chosen["fedadam"])],
                  "adadps.figure6.fedadam run fedadam")[0]
    a, f = np.asarray(out_a["test_acc"]), np.asarray(out_f["test_acc"])
    ci = stats.bootstrap_ci(lambda u, w: np.mean(u) - np.mean(w), a, f, seed=int(seed))
    dec = decide.better(-a, -f, what="test accuracy DP-FedAdam − federated AdaDPS", margin=FED_MARGIN)
    verdict = str(dec.verdict)
    # the runs must be the stated mechanism (figure6's probe, DP-FedAdam's Adam server read back exactly)
    unlike, probe = _fed_mechanism_probe((("frequency", "sgd"), ("ones", "adam")), g["per_round"], seed)
    if unlike and verdict == "holds":
        verdict = "inconclusive"
    n_users = g["problem"]["n_users"]
    eps = dp_sgd_epsilon(g["per_round"] / n_users, FED_SIGMA, g["rounds"], 1.0 / n_users, "rdp")
    edges = [k for k, v in (("local_lr", ga["lrs"]), ("server_lr", ga["server_lrs"]))
             if chosen["fedadam"][k] in (min(v), max(v))]
    evidence = (f"{dec.phrase()}; user-level ε = {eps:.3g} (RDP, q = {g['per_round']}/{n_users}, σ = {FED_SIGMA}, "
                f"{g['rounds']} rounds, δ = 1/{n_users}, the same for both); test accuracy ({g['trials']} seeds) "
                f"AdaDPS {stats.mean_ci(a)} (tuned {chosen['adadps']}), DP-FedAdam {stats.mean_ci(f)} (tuned "
                f"{chosen['fedadam']}, β₁ = {FEDADAM_BETA1}, β₂ = {FEDADAM_BETA2}, τ = {FEDADAM_TAU:g}); difference "
                f"{ci} (bootstrap, reported; the paper: about 0.05) [{verdict}]")
    if edges:
        evidence += f"; DP-FedAdam's tuned {' and '.join(edges)} at the grid's edge"
    evidence = (f"the kernel does not run the stated mechanism ({unlike}): " if unlike else
                "mechanism probe passed (server noise σC/b, stated local step); ") + evidence
    series = []
    for name, o in (("federated AdaDPS (frequency A)", out_a), ("DP-FedAdam", out_f)):
        L = np.asarray(o["loss"])
        cis = [stats.mean_ci(L[:, j]) for j in range(L.shape[1])]
        series.append(Series(name, o["rounds"], [c.estimate for c in cis], [c.lo for c in cis], [c.hi for c in cis]))
    fig = Figure("figure6_fedadam", "adadps Fig. 6 (stylized): federated AdaDPS vs DP-FedAdam", [Panel(
        f"user-averaged training loss, ε = {eps:.2g} user-level", "round", "training loss", series)])
    numbers = {"epsilon_rdp_user_level": eps, "test_acc_adadps": float(np.mean(a)),
               "test_acc_dpfedadam": float(np.mean(f)), "diff": ci.estimate, "diff_lo": ci.lo, "diff_hi": ci.hi,
               "fedadam_server_lr": chosen["fedadam"]["server_lr"], "fedadam_local_lr": chosen["fedadam"]["local_lr"],
               "fedadam_clip": chosen["fedadam"]["clip"], **probe}
    counter = {"diff_ci": [ci.lo, ci.hi], "test": dec.reason} if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=[dec])
