"""Claims of ``adp`` — Wu et al., ADP-SGD: noise adapted to the stepsize (2021).

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the formulas it tests live in
:mod:`theory.adp`, the algorithm and the ``smooth_nonconvex`` stand-in problem in :mod:`kernels.adp`.
Exact claims (Remark 4.1, Lemma 2.2, Theorem 4.1's calibration, Propositions 5.1/5.2's closed forms, the
adaptive stepsize's privacy) decide by computation with rounding or accountant-grid allowances (no statistical
test); the measured comparisons (Table 1's trend, Proposition 5.1's measured utilities) run both methods at a
matched accountant ε and decide through :mod:`verify.decide`.  The privacy audits of the suite's ADP-SGD
kernels are registered by :mod:`verify.audit`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import dp_accounting as dpa
import mpmath as mp
import numpy as np
import sympy as sp
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.pld import privacy_loss_mechanism as plm
from dp_accounting.rdp import rdp_privacy_accountant as rdpa
from scipy.special import log_ndtr

from kernels import adp as kadp
from kernels.adp import NonconvexProblem, run_adp
from kernels.adp_reference import adp_reference
from theory import adp as tadp
from theory import numeric
from verify import decide, stats
from verify.audit import AUDIT_DELTA, audit_level, audit_outcome, claim_method, epsilon_lower_bound
from verify.decide import Estimate
from verify.exact import EPS, adversarial_search, edge_values, random_search
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.privacy import (
    calibrate_multiplier,
    composed_epsilon,
    gaussian_epsilon_interval,
    optimal_composition_epsilon,
)
from verify.registry import Budgets, Figure, Outcome, Panel, Series, Verdict, by_budget, child_seed, claim
from verify.runner import sweep


def relative_tolerance(T: int) -> float:
    """Rounding bound for comparing two M values of length-T sequences, relative to their size.

    Each M is a product of two sums of T positive terms (relative error ≤ (T + 4)u each, u the unit
    roundoff, recursive-summation bound) and a quotient; a difference of two such is within 4(T + 4)u.

    Parameters
    ----------
    T : int
        The sequences' length.

    Returns
    -------
    float
        4(T + 4)u, u the unit roundoff.
    """
    return 4.0 * (T + 4) * EPS


class Remark41Settings(NamedTuple):
    examples: int  # seeded random (α, b) pairs
    starts: int  # L-BFGS-B starts
    tmax: int  # longest sequence


REMARK41_BUDGETS = Budgets(quick=Remark41Settings(examples=400, starts=6, tmax=60),
                           full=Remark41Settings(examples=4000, starts=30, tmax=200))


@claim(
    "adp.remark4.1",
    kind="exact",
    statement="""Remark 4.1: for any positive {b_t} and {α_t}, M({α},{b}) = Σ(α_t/b_t)²·Σ1/α_t² ≥ M_adp = (Σ1/b_t)²,
    with equality at α_t² = b_t; hence M_dp/M_adp = T·Σ1/b_t²/(Σ1/b_t)² ≥ 1 (Cauchy–Schwarz).""",
    theory=(tadp.m_value, tadp.m_adp, tadp.m_ratio),
    notes="Exact: seeded search over sequences with exponents drawn from edge values in [-6, 6] (α_t, b_t = 10^u), "
    "lengths 1..200, plus L-BFGS-B over log α for fixed b; the equality case α² = b is evaluated on every b drawn, "
    "and so is the identity M_dp/M_adp = M(α ≡ 1, b)/M_adp (m_ratio against m_value and m_adp with correctly rounded "
    "sums). "
    "The tolerance is the rounding bound of theory's sums (verify.papers.adp.relative_tolerance).",
)
def remark4_1(budget: str, seed: int) -> Outcome:
    examples, starts, tmax = REMARK41_BUDGETS.at(budget)

    def pair(rng):
        k = int(rng.integers(1, tmax + 1))
        return 10.0 ** edge_values(rng, k, -6.0, 6.0), 10.0 ** edge_values(rng, k, -6.0, 6.0)

    eq_dev, ratio_min, id_dev = [0.0], [np.inf], [0.0]

    def slack(p) -> float:
        alpha, b = p
        tol = relative_tolerance(b.size)
        m, madp = tadp.m_value(alpha, b), tadp.m_adp(b)
        eq_dev[0] = max(eq_dev[0], abs(tadp.m_value(np.sqrt(b), b) - madp) / madp / tol)
        r = tadp.m_ratio(b)
        ratio_min[0] = min(ratio_min[0], (r - 1.0) / tol)
        # the identity M_dp/M_adp = M(α ≡ 1, b)/M_adp (DP-SGD's constant α), against correctly rounded sums
        ref = tadp.m_value(np.ones_like(b), b, exact=True) / tadp.m_adp(b, exact=True)
        id_dev[0] = max(id_dev[0], abs(r - ref) / ref / tol)
        return (m - madp) / m / tol  # in units of the rounding bound: ≥ −1 means "holds"

    hw = random_search(slack, pair, examples, seed)
    adv = []
    for k, dim in enumerate((2, 5, 20)):
        b = 10.0 ** np.random.default_rng(child_seed(seed, "adp.remark4.1", "b", k)).uniform(-3, 3, dim)
        adv.append(adversarial_search(lambda u, b=b: slack((10.0 ** u, b)), dim, (-6.0, 6.0), starts,
                                      child_seed(seed, "adp.remark4.1", "adversarial", k)))
    worst = min([hw] + adv, key=lambda w: w.slack)
    holds = worst.slack >= -1.0 and eq_dev[0] <= 1.0 and ratio_min[0] >= -1.0 and id_dev[0] <= 1.0
    counter = None
    if not holds:
        alpha, b = worst.example if isinstance(worst.example, tuple) else (10.0 ** worst.example, None)
        counter = {"alpha": np.asarray(alpha).tolist(), "b": None if b is None else np.asarray(b).tolist(),
                   "slack_in_rounding_units": worst.slack, "identity_deviation_rounding_units": id_dev[0]}
    n_eval = hw.evaluated + sum(w.evaluated for w in adv)
    evidence = (f"{'holds' if holds else 'violated'} (exact): {n_eval} evaluations: min (M − M_adp)/M = "
                f"{worst.slack:.3g} rounding bounds ({'≥' if worst.slack >= -1.0 else '<'} −1, the rounding "
                "allowance); "
                f"|M(√b) − M_adp|/M_adp ≤ {eq_dev[0]:.3g} rounding bounds; min (M_dp/M_adp − 1) = {ratio_min[0]:.3g} "
                f"rounding bounds; |M_dp/M_adp − M(1, b)/M_adp|/(M_dp/M_adp) ≤ {id_dev[0]:.3g} rounding bounds (the "
                "identity)")
    Ts = np.unique(np.logspace(0, 6, 13).astype(int))
    ratios = [tadp.m_ratio(tadp.polynomial_schedule(int(k), 1.0, 1.0)) for k in Ts]
    fig = Figure("remark4_1", "adp Remark 4.1: M_dp/M_adp ≥ 1", [Panel(
        "b_t = √(1 + t)", "T", "M_dp / M_adp", [Series("exact ratio", Ts, ratios),
                                                 Series("Cauchy–Schwarz floor 1", Ts, np.ones(Ts.size),
                                                        style="dashed")],
        xscale="log")])
    figures = {"evaluations": n_eval, "min_slack_rounding_units": worst.slack,
               "max_equality_deviation_rounding_units": eq_dev[0], "min_ratio_minus_1_rounding_units": ratio_min[0],
               "max_identity_deviation_rounding_units": id_dev[0]}
    return Outcome(verdict="holds" if holds else "violated", evidence=evidence, numbers=figures, counterexample=counter,
                   plots=[fig])


# ======================================================================================
# Lemma 2.2: extended advanced composition against the optimal composition
# ======================================================================================
def _lemma22_case(rng: np.random.Generator, kmax: int) -> tuple[np.ndarray, np.ndarray, float]:
    k = int(rng.integers(1, kmax + 1))
    eps = np.clip(edge_values(rng, k, 1e-3, 0.999), 1e-3, 0.999)  # the lemma needs ε_i ∈ (0, 1)
    deltas = 10.0 ** -edge_values(rng, k, 2.0, 12.0)
    delta_prime = float(10.0 ** -rng.uniform(0.05, 10.0))
    return eps, deltas, delta_prime


class Lemma22Settings(NamedTuple):
    cases: int  # seeded compositions
    kmax: int  # most mechanisms composed


LEMMA22_BUDGETS = Budgets(quick=Lemma22Settings(cases=40, kmax=6), full=Lemma22Settings(cases=400, kmax=12))


@claim(
    "adp.lemma2.2",
    kind="privacy",
    statement="""Lemma 2.2: if M_i is (ε_i, δ_i)-DP with ε_i, δ_i ∈ (0,1), the composition is (ε̃, δ̃)-DP with
    ε̃ = √(2 log(1/δ')·Σε_i²) + Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) and δ̃ = 1 − Π(1 − δ_i) + δ', for every δ' ∈ (0,1).""",
    theory=(tadp.extended_advanced_composition,),
    weaker_if={"theory.adp.extended_advanced_composition": "larger"},  # a larger ε̃ is a weaker promise
    notes="Checked against the worst case over all mechanisms with those parameters: dp-accounting's PLD of the "
    "dominating pair of a generic (ε_i, δ_i)-DP mechanism, composed, read at δ̃ (verify.privacy."
    "optimal_composition_epsilon; its grid rounds pessimistically, so it over-states the optimal ε by at most "
    "k·grid). Violated if that ε exceeds ε̃ by more than the grid allowance; the worst ratio is reported. Cases: "
    "seeded edge values for k ≤ 12 (ε_i near 0 and 1, ties, spikes), δ_i ∈ [1e-12, 1e-2], δ' ∈ [1e-10, 0.9].",
)
def lemma2_2(budget: str, seed: int) -> Outcome:
    cases, kmax = LEMMA22_BUDGETS.at(budget)
    vdi = 1e-4
    rng = np.random.default_rng(child_seed(seed, "adp.lemma2.2"))
    rows = []
    for _ in range(cases):
        eps, deltas, dp_ = _lemma22_case(rng, kmax)
        e_t, d_t = tadp.extended_advanced_composition(eps, deltas, dp_)
        if d_t >= 1:
            continue
        # the composed dominating pair puts mass 1 − Π(1 − δ_i) at an infinite privacy loss: at δ̃ not above it no
        # finite ε is valid (the promised (ε̃, δ̃) fails whatever ε̃), so the optimal ε there is +∞
        floor = -math.expm1(float(np.sum(np.log1p(-deltas))))
        e_opt = optimal_composition_epsilon(eps, deltas, d_t, vdi) if d_t > floor else math.inf
        rows.append(dict(k=eps.size, eps=eps.tolist(), deltas=deltas.tolist(), delta_prime=dp_, eps_tilde=e_t,
                         delta_tilde=d_t, eps_optimal=e_opt, slack=e_t - (e_opt - eps.size * vdi)))
    worst = min(rows, key=lambda r: r["slack"])
    finite = [r for r in rows if math.isfinite(r["eps_optimal"])]
    ratio = max((r["eps_optimal"] / r["eps_tilde"] for r in finite), default=0.0)
    verdict = "holds" if worst["slack"] >= 0 else "violated"
    if verdict == "holds":
        evidence = (f"{len(rows)} cases (k ≤ {kmax}): optimal-composition ε ≤ ε̃ in every case; largest ratio "
                    f"optimal/ε̃ = {ratio:.3f}")
    elif math.isfinite(worst["eps_optimal"]):
        evidence = f"ε̃ = {worst['eps_tilde']:.4g} < optimal ε {worst['eps_optimal']:.4g} at k = {worst['k']}"
    else:
        evidence = (f"δ̃ = {worst['delta_tilde']:.4g} is not above 1 − Π(1 − δ_i) at k = {worst['k']}: no finite ε "
                    f"(ε̃ = {worst['eps_tilde']:.4g} included) makes the composition (ε, δ̃)-DP")
        worst = dict(worst, eps_optimal=None, slack=None, no_finite_epsilon=True)
    ks = [r["k"] for r in finite]
    fig = Figure("lemma2_2", "adp Lemma 2.2 vs optimal composition", [Panel(
        "optimal ε / Lemma 2.2's ε̃ (≤ 1 means the lemma is valid there)", "number of mechanisms k", "ratio",
        [Series("cases", ks, [r["eps_optimal"] / r["eps_tilde"] for r in finite], style="points"),
         Series("1", [min(ks, default=1), max(ks, default=1)], [1.0, 1.0], style="dashed")])])
    return Outcome(verdict=verdict, evidence=evidence,
                   numbers={"cases": len(rows), "max_ratio_optimal_over_tilde": ratio,
                            "min_slack": min((r["slack"] for r in finite), default=0.0),
                            "cases_without_finite_epsilon": len(rows) - len(finite)},
                                       counterexample=worst if verdict == "violated" else None, plots=[fig])


# ======================================================================================
# Theorem 4.1: the noise calibration against the accountant
# ======================================================================================
THM41_GRIDS = {
    "quick": dict(T=(100, 1000), n=(1000, 10000), epsilon=(0.5, 2.0), delta=(1e-5,)),
    "full": dict(T=(100, 1000, 10000, 100000), n=(1000, 10000), epsilon=(0.5, 1.0, 2.0, 4.0), delta=(1e-5, 1e-8)),
}
#: α blocks of the PLD accounts (upper bound: each block at its smallest α; lower bound: at its largest)
THM41_PLD_BLOCKS = {"quick": 4, "full": 16}
THM41_PLD_GRID = {"quick": 1e-2, "full": 1e-4}  # dp-accounting's value discretisation interval
THM41_PLD_MIN_Z = 0.3  # below this per-step multiplier the PLD grid is too large for a sweep
#: the schedules of the theorem: DP-SGD and ADP-SGD with α_t² = b_t = √(1 + t) (the former third row,
#: "adp_adaptive" α_t = (1 + t)^{1/4}, was the same schedule as adp_poly and is dropped)
THM41_SCHEDULES = ("dp", "adp_poly")


def alpha_schedule(kind: str, T: int) -> np.ndarray:
    """α_t, t = 1..T: "dp" (α ≡ 1), "adp_poly" (α_t² = b_t, b_t = √(1 + t)), "adp_adaptive" (α_t = (1 + t)^{1/4},
    the same numbers as adp_poly: kept for callers, not swept).

    Parameters
    ----------
    kind : str
        "dp", "adp_poly" or "adp_adaptive".
    T : int
        The steps.

    Returns
    -------
    numpy.ndarray
        α_1..α_T.

    Raises
    ------
    ValueError
        When ``kind`` is none of the three.
    """
    t = np.arange(1, T + 1, dtype=np.float64)
    if kind == "dp":
        return np.ones(T)
    if kind == "adp_poly":
        return np.sqrt(np.sqrt(1.0 + t))
    if kind == "adp_adaptive":
        return (1.0 + 1.0 * t) ** 0.25  # b_0² = 1, C = 1
    raise ValueError(f"schedule must be dp, adp_poly or adp_adaptive (got {kind!r})")


def replace_one_pld_epsilon(alpha: np.ndarray, sigma: float, n: int, delta: float, blocks: int,
                            pessimistic: bool, vdi: float) -> float:
    """dp-accounting's PLD ε at ``delta`` of T one-record steps (sampling rate 1/n) with multipliers α_t·σ under
    REPLACE_ONE adjacency (the paper's).  ``pessimistic``: connect-the-dots, each α block at its smallest α (an upper
    bound on the true ε); otherwise privacy buckets with pessimistic_estimate=False, each block at its largest α
    (a lower bound: the mechanism's ε is at least this).  NaN when a block's multiplier is below THM41_PLD_MIN_Z.

    Parameters
    ----------
    alpha : numpy.ndarray
        α_1..α_T.
    sigma : float
        The base noise multiplier σ.
    n : int
        Records (sampling rate 1/n).
    delta : float
        The δ at which ε is read.
    blocks : int
        The number of blocks of consecutive steps that share one multiplier (at most T).
    pessimistic : bool
        Upper bound (True) or lower bound (False), as above.
    vdi : float
        dp-accounting's value discretisation interval.

    Returns
    -------
    float
        The ε (NaN as above).
    """

    dist = None
    for b in np.array_split(np.arange(alpha.size), min(blocks, alpha.size)):
        z = float(alpha[b].min() if pessimistic else alpha[b].max()) * sigma
        if z < THM41_PLD_MIN_Z:
            return float("nan")
        step = pld.from_gaussian_mechanism(z, sampling_prob=1.0 / n, pessimistic_estimate=pessimistic,
                                           use_connect_dots=pessimistic, value_discretization_interval=vdi,
                                           neighboring_relation=NeighboringRelation.REPLACE_ONE)
        part = step.self_compose(int(b.size))
        dist = part if dist is None else dist.compose(part)
    return float(dist.get_epsilon_for_delta(delta))


def _thm41_task(schedule: str, T: int, n: int, epsilon: float, delta: float, pld_blocks: int = 16,
                vdi: float = 1e-4) -> dict:
    """σ from eq. (6) (G = 1); PLD upper and lower bounds on the ε of the T steps under replace-one adjacency; a
    rigorous event-based lower bound on δ(ε).

    Step t releases ∇f(θ; x_ξ) + α_t c_t with ξ uniform on n records (one draw): a subsampled Gaussian with rate 1/n
    and noise multiplier α_t σ/G, the replaced record's gradient moving by up to 2G.
    """
    alpha = alpha_schedule(schedule, T)
    s_inv = float(np.sum(1.0 / alpha**2))
    var = float(numeric(tadp.theorem4_1_variance())(G=1.0, S_inv_alpha2=s_inv, T=T, delta=delta, epsilon=epsilon, n=n))
    sigma = var**0.5
    eps_hi = replace_one_pld_epsilon(alpha, sigma, n, delta, pld_blocks, True, vdi)
    eps_lo = replace_one_pld_epsilon(alpha, sigma, n, delta, pld_blocks, False, vdi)
    return {"sigma": sigma, "z_min": float(alpha.min()) * sigma, "eps_upper": eps_hi, "eps_lower": eps_lo,
            "delta_lower": delta_lower_bound(alpha * sigma, 1.0 / n, epsilon)}


#: the thresholds τ of :func:`delta_lower_bound` (in units of the shift G): the bound holds at every τ, so the claim
#: takes the largest over a uniform grid 0.1, 0.2, …, 6 (issue 25: 0.5, 0.7, 0.9 before; small per-step
#: multipliers z need τ above the shift, where P₀'s tail is e^(−τ²/2z²) and P₁'s only q·e^(−(τ−1)²/2z²))
DELTA_LB_THRESHOLDS = tuple(round(0.1 * j, 1) for j in range(1, 61))


def delta_lower_bound(z: np.ndarray, q: float, epsilon: float, thresholds=DELTA_LB_THRESHOLDS) -> float:
    """A rigorous lower bound on the δ at ``epsilon`` of T steps with noise multipliers ``z`` and one-of-n sampling.

    Neighbouring datasets whose differing record has gradient G·u at every θ and the zero-out neighbour 0
    (e.g. f(θ; x) = G·h(⟨θ, u⟩) with h' = 1 on the reachable range — smooth, bounded gradient): the
    steps' outputs along u are N(0, z_t²) under one and (1 − q)N(0, z_t²) + qN(1, z_t²) under the other,
    given the past.  For the event E = {some step's output along u exceeds τ}, δ(ε) ≥ P₁(E) − e^ε P₀(E)
    (the definition of (ε, δ)-DP applied to one event), evaluated exactly in log space.

    Parameters
    ----------
    z : numpy.ndarray
        The steps' noise multipliers z_t.
    q : float
        The sampling probability of the differing record per step.
    epsilon : float
        The ε at which δ is bounded.
    thresholds : sequence of float, optional
        The thresholds τ tried (the best bound is kept); default :data:`DELTA_LB_THRESHOLDS`.

    Returns
    -------
    float
        The largest P₁(E) − e^ε P₀(E) over the thresholds (0 when none is positive).
    """
    best = 0.0
    for tau in thresholds:
        log_p0 = log_ndtr(-tau / z)  # P(N(0, z²) > τ)
        log_p1 = log_ndtr((1.0 - tau) / z)  # P(N(1, z²) > τ)
        p0 = np.exp(log_p0)
        mix = q * np.exp(log_p1) + (1.0 - q) * p0
        prob0 = -np.expm1(np.sum(np.log1p(-p0)))
        prob1 = -np.expm1(np.sum(np.log1p(-mix)))
        best = max(best, float(prob1 - math.exp(epsilon) * prob0))
    return best


@claim(
    "adp.theorem4.1",
    kind="privacy",
    statement="""Theorem 4.1: with c_t ~ N(0, σ²I), σ² = (16G)²·B_δ/(n²ε²)·Σ_t 1/α_t², B_δ = log(16T/(nδ))·log(1.25/δ),
    Algorithm 1 (one record drawn uniformly per step, gradients bounded by G) is (ε, δ)-DP.""",
    theory=(tadp.theorem4_1_variance, tadp.b_delta),
    # more noise only weakens a privacy promise (σ² grows with both)
    weaker_if={"theory.adp.theorem4_1_variance": "larger", "theory.adp.b_delta": "larger"},
    notes="Exact (accountant bounds and a probability computation; tests = 0). Adjacency: replace-one (the paper's; "
    "the replaced record's gradient moves by up to 2G). Each step draws one record uniformly: a subsampled Gaussian "
    "of rate 1/n and multiplier α_t σ/G. dp-accounting PLD under REPLACE_ONE, the α_t grouped into blocks (4 quick, "
    "16 full; grid 1e-2 quick, 1e-4 full): an upper bound on ε (connect-the-dots, pessimistic, each block at its "
    "smallest α) and a lower bound (privacy buckets, optimistic, each block at its largest α). Below a per-step "
    "multiplier of 0.3 the PLD grid is too large for a sweep and that point has no PLD bound. violated when a point "
    "provably fails: the optimistic (lower) PLD ε exceeds the promised ε, or a rigorous event bound gives δ(ε) > δ "
    "(neighbours whose differing record has a constant gradient G·u: the event 'some step's output along u exceeds "
    "τ' has P₁ − e^ε P₀ > δ, the best τ of 0.1, 0.2, …, 6 in units of G; verify.papers.adp.delta_lower_bound). "
    "holds when the upper PLD ε is ≤ the promise at every point; inconclusive otherwise. Schedules: DP-SGD (α ≡ 1) "
    "and ADP-SGD with α_t² = √(1 + t) (the earlier 'adp_adaptive' rows were the same schedule and are dropped).",
)
def theorem4_1(budget: str, seed: int) -> Outcome:
    g = THM41_GRIDS[by_budget(budget, "quick", "full")]
    points = [dict(schedule=s, T=T, n=n, epsilon=e, delta=d, pld_blocks=THM41_PLD_BLOCKS[budget],
                   vdi=THM41_PLD_GRID[budget])
              for s in THM41_SCHEDULES for T in g["T"] for n in g["n"] for e in g["epsilon"] for d in g["delta"]]
    rows = sweep(_thm41_task, points, "adp.theorem4.1 accountant")
    hi = [float(r["eps_upper"]) for r in rows]
    factors = [p["epsilon"] / h for p, h in zip(points, hi) if math.isfinite(h) and h > 0]
    above = [(p, r) for p, r in zip(points, rows) if not float(r["eps_upper"]) <= p["epsilon"]]
    by_pld = [(p, r) for p, r in zip(points, rows) if float(r["eps_lower"]) > p["epsilon"]]
    by_event = [(p, r) for p, r in zip(points, rows) if float(r["delta_lower"]) > p["delta"]]
    broken = [(p, r) for p, r in zip(points, rows)
              if float(r["eps_lower"]) > p["epsilon"] or float(r["delta_lower"]) > p["delta"]]
    verdict = "violated" if broken else ("holds" if not above else "inconclusive")
    evidence = (f"{verdict} (exact, replace-one): {len(broken)}/{len(points)} (schedule, T, n, ε, δ) points provably "
                f"fail ({len(by_pld)} with the optimistic PLD ε above the promise, {len(by_event)} by the event bound "
                f"on δ(ε)); {len(points) - len(above)}/{len(points)} certified by the pessimistic PLD ε; "
                f"promised/accountant ε from {min(factors):.3g} to {max(factors):.3g} where the PLD bound exists")
    counter = None
    if broken:
        p, r = min(broken, key=lambda pr: (pr[0]["T"], pr[0]["n"], pr[0]["epsilon"], pr[0]["schedule"]))
        counter = dict(p, sigma=float(r["sigma"]), smallest_noise_multiplier=float(r["z_min"]),
                       delta_lower_bound=float(r["delta_lower"]), epsilon_lower_bound=float(r["eps_lower"]))
        evidence += (f"; smallest: {p['schedule']}, T={p['T']}, n={p['n']}, ε={p['epsilon']:g}, δ={p['delta']:g}: "
                     f"σ = {float(r['sigma']):.3g}, optimistic PLD ε ≥ {float(r['eps_lower']):.3g}, "
                     f"δ(ε) ≥ {float(r['delta_lower']):.3g}")
    elif above:
        p, r = above[0]
        evidence += f"; not certified e.g. {p}: ε ≤ {float(r['eps_upper']):.4g}"
    series = []
    for s in THM41_SCHEDULES:
        sel = [(p["T"], p["epsilon"] / h) for p, h in zip(points, hi)
               if math.isfinite(h) and h > 0 and p["schedule"] == s and p["n"] == g["n"][0]
               and p["epsilon"] == g["epsilon"][0] and p["delta"] == g["delta"][0]]
        series.append(Series(s, [x[0] for x in sel], [x[1] for x in sel]))
    fig = Figure("theorem4_1", "adp Theorem 4.1: how conservative the calibration is", [Panel(
        f"promised ε / accountant ε (n = {g['n'][0]}, ε = {g['epsilon'][0]:g}, δ = {g['delta'][0]:g})", "T",
        "conservativeness factor", series, xscale="log", yscale="log")])
    figures = {"points": len(points), "points_not_certified": len(above), "points_broken": len(broken),
               "points_broken_by_pld_lower": len(by_pld), "points_broken_by_event": len(by_event),
               "min_conservativeness": min(factors), "max_conservativeness": max(factors)}
    for p, r in zip(points, rows):  # the calibration table: promised ε vs accountant ε per point (where bounded)
        if not math.isfinite(float(r["eps_upper"])):
            continue
        figures[f"eps_accountant[{p['schedule']},T={p['T']},n={p['n']},eps={p['epsilon']:g},delta={p['delta']:g}]"] = \
            float(r["eps_upper"])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


#: an explicit point of Theorem 4.1's grid where the promise provably fails under the exponent mutants too (issue 25)
THM41_POW_COUNTEREXAMPLE = dict(schedule="adp_poly", T=100, n=10_000, epsilon=2.0, delta=1e-5)
for _fn, _m in (("theorem4_1_variance", "pow1.25"), ("b_delta", "pow1.25"), ("b_delta", "pow0.75")):
    declare_equivalent("adp.theorem4.1", f"{_fn}:{_m}", "the mutated statement is still false: at ADP-SGD's "
                       "schedule with T = 100, n = 10⁴, ε = 2, δ = 1e-5 the claim's rigorous event bound at the "
                       "mutated σ still gives δ(2) ≥ 0.0098 > 1e-5 (verify.papers.adp.delta_lower_bound, exact normal "
                       "tails; tests/verify/test_adp_mutation_power.py)")

#: an explicit point where the promise provably fails with ten times Theorem 4.1's σ² (issue 25): DP-SGD's schedule
THM41_X10_COUNTEREXAMPLE = dict(schedule="dp", T=100, n=10_000, epsilon=2.0, delta=1e-5)
for _fn in ("theorem4_1_variance", "b_delta"):
    declare_equivalent("adp.theorem4.1", f"{_fn}:x10", "the mutated statement is still false: with σ² ten times "
                       "eq. (6)'s (B_δ ×10 gives the same σ²), at DP-SGD's schedule with T = 100, n = 10⁴, ε = 2, "
                       "δ = 1e-5 (σ = 0.27) the claim's rigorous event bound gives δ(2) ≥ 8.7e-4 > 1e-5 at τ = 1.3 "
                       "(verify.papers.adp.delta_lower_bound, exact normal tails; "
                       "tests/verify/test_adp_mutation_power.py)")
#: an explicit point of the full grid where the promise provably fails with eq. (6)'s variables to the power 3/4
THM41_POW075_COUNTEREXAMPLE = dict(schedule="dp", T=100, n=10_000, epsilon=4.0, delta=1e-5)
declare_equivalent("adp.theorem4.1", "theorem4_1_variance:pow0.75", "the mutated statement is still false: with "
                   "every positive variable of eq. (6) to the power 3/4, at DP-SGD's schedule with T = 100, n = 10⁴, "
                   "ε = 4, δ = 1e-5 (σ = 0.267) the claim's rigorous event bound gives δ(4) ≥ 2.5e-4 > 1e-5 "
                   "(verify.papers.adp.delta_lower_bound, exact normal tails; tests/verify/test_adp_mutation_power.py)")

# ======================================================================================
# Proposition 5.1: M_dp/M_adp = Θ(log T) for b_t = √(a + ct); measured utilities
# ======================================================================================
P51_A, P51_C = 1.0, 1.0
P51_EPS, P51_DELTA = 1.0, 1e-5
P51_GRIDS = {
    "quick": dict(T_exact=(10, 10**3, 10**5, 10**7), T_run=(100, 1000, 4000), trials=6, n=20000, d=10),
    "full": dict(T_exact=(10, 100, 10**3, 10**4, 10**5, 10**6, 10**7), T_run=(100, 300, 1000, 3000, 10000, 30000),
                 trials=30, n=50000, d=20),
}


#: blocks in which a heterogeneous α schedule is accounted (each at its smallest α: an upper bound on ε)
MATCHED_BLOCKS = 8
#: relative precision of the matched σ (the two methods' accountant ε then agree to well under 1%)
MATCHED_REL = 3e-3


def _schedule_phases(alpha: np.ndarray, sigma: float, n: int, blocks: int = MATCHED_BLOCKS) -> list:
    """(rate 1/n, multiplier, steps) phases of T one-record steps with multipliers α_t·σ (G = 1), in ≤ ``blocks``
    blocks each accounted at its smallest α (more privacy loss, so the ε is an upper bound)."""
    out: list = []
    for b in np.array_split(np.arange(alpha.size), min(blocks, alpha.size)):
        z = float(alpha[b].min()) * sigma
        if out and out[-1][1] == z:
            out[-1] = (out[-1][0], z, out[-1][2] + int(b.size))
        else:
            out.append((1.0 / n, z, int(b.size)))
    return out


def matched_sigma(alpha: np.ndarray, n: int, epsilon: float, delta: float) -> float:
    """The smallest σ (relative precision MATCHED_REL) whose T steps of multipliers α_t·σ the accountant (dp-accounting RDP,
    add/remove, the α blocks of :func:`_schedule_phases`) certifies (ε, δ)-DP: both methods of a comparison are run
    at this same accountant ε, whatever Theorem 4.1 would give them.

    Parameters
    ----------
    alpha : numpy.ndarray
        α_1..α_T.
    n : int
        Records.
    epsilon, delta : float
        The target (ε, δ).

    Returns
    -------
    float
        The multiplier σ (results are cached per argument values).
    """  # noqa: E501
    return _matched_sigma_cached(tuple(np.asarray(alpha, float).tolist()), int(n), float(epsilon), float(delta))


@lru_cache(maxsize=64)
def _matched_sigma_cached(alpha: tuple, n: int, epsilon: float, delta: float) -> float:
    alpha = np.asarray(alpha)
    return calibrate_multiplier(lambda s: composed_epsilon(_schedule_phases(alpha, s, n), delta, "rdp"), epsilon,
                                guess=0.5, rel=MATCHED_REL)


def _p51_task(alpha_rule: str, T: int, n: int, d: int, trials: int, seed: int, a: float = P51_A,
              epsilon: float = P51_EPS, noise: str = "matched") -> dict:
    """ADP-SGD or DP-SGD with b_t = √(a + ct); σ at a matched accountant ε (``noise="matched"``, the default) or from
    Theorem 4.1 (``"theorem4.1"``, which the suite's own theorem4.1 shows is not (ε, δ)-DP at these sizes);
    ‖∇F(θ_t)‖² traces."""
    prob = kadp.smooth_nonconvex(n=n, d=d, seed=seed % (2**31))
    b = tadp.polynomial_schedule(T, a, P51_C)
    alpha = np.sqrt(b) if alpha_rule == "adp" else np.ones(T)
    if noise == "matched":
        sigma = matched_sigma(alpha, n, epsilon, P51_DELTA) * prob.gradient_bound
    elif noise == "theorem4.1":
        sigma = float(numeric(tadp.theorem4_1_variance())(G=prob.gradient_bound,
                                                          S_inv_alpha2=float(np.sum(1 / alpha**2)),
                                                          T=T, delta=P51_DELTA, epsilon=epsilon, n=n)) ** 0.5
    else:
        raise ValueError(f"noise must be matched or theorem4.1 (got {noise!r})")
    out = kadp.run_adp(prob, steps=T, eta=1.0, b_rule="poly", alpha_rule=alpha_rule, sigma=sigma, a=a, c=P51_C,
                     trials=trials, seed=child_seed(seed, "adp.proposition5.1", "runs"), n_log=41)
    return {"steps": out["steps"], "grad_norm2": out["grad_norm2"], "sigma": sigma}


@claim(
    "adp.proposition5.1",
    kind="ratio",
    statement="""Proposition 5.1: for b_t = √(a + ct), M_dp/M_adp = T·Σ1/b_t²/(Σ1/b_t)² = Θ(log T), so ADP-SGD's
    utility bound improves on DP-SGD's by a log T factor at the same privacy (σ from Theorem 4.1).""",
    theory=(tadp.m_ratio, tadp.poly_ratio_brackets, tadp.poly_ratio_asymptotic, tadp.proposition5_1_privacy_ratio),
    notes="Verdict on the exact part: the exact ratio (vectorised sums up to T = 10⁷) must lie in the closed-form "
    "integral brackets at every T, and both brackets over log T must tend to the log T coefficient of "
    "poly_ratio_asymptotic (¼ log T; sympy limits) — Θ(log T) with constant 1/4. Reported beside it: the ratio of "
    "the privacy terms of (10) and (9), 2·log(1 + Tc/a), and the "
    "measured utility ratio DP/ADP of min_t E‖∇F(θ_t)‖² over the logged t ≥ 1 on smooth_nonconvex (a = c = 1, η = 1, "
    "n = 20000 quick / 50000 full), both methods at the same accountant ε = 1, δ = 1e-5 (σ calibrated per method by "
    "dp-accounting RDP: verify.papers.adp.matched_sigma; not Theorem 4.1's σ, which the suite's theorem4.1 shows is "
    "not DP at these sizes) — information, not part of the verdict (the proposition bounds utilities, it does not "
    "predict them; a measured ratio below the bound's is not a refutation).",
)
def proposition5_1(budget: str, seed: int) -> Outcome:
    g = P51_GRIDS[by_budget(budget, "quick", "full")]
    lo_e, hi_e = tadp.poly_ratio_brackets()
    f_lo, f_hi = numeric(lo_e), numeric(hi_e)
    exact, brackets, inside = [], [], True
    for T in g["T_exact"]:
        r = tadp.m_ratio(tadp.polynomial_schedule(T, P51_A, P51_C))
        lo = float(f_lo(T=T, a=P51_A, c=P51_C))
        hi = float(f_hi(T=T, a=P51_A, c=P51_C))
        exact.append(r)
        brackets.append((lo, hi))
        inside &= lo * (1 - 1e-12) <= r <= hi * (1 + 1e-12)
    lims = [sp.simplify(sp.limit(e / sp.log(tadp.T), tadp.T, sp.oo)) for e in (lo_e, hi_e)]
    # the stated leading behaviour: its log T coefficient (¼) is what both brackets must tend to
    lead = sp.simplify(sp.limit(tadp.poly_ratio_asymptotic() / sp.log(tadp.T), tadp.T, sp.oo))
    theta_log = bool(lead.is_positive and lead.is_finite) and all(sp.simplify(lim - lead) == 0 for lim in lims)
    # "improves by a log T factor": the ratio of the utility bounds' privacy terms, (10)/(9), is Θ(log T) too
    priv_lim = sp.simplify(sp.limit(tadp.proposition5_1_privacy_ratio() / sp.log(tadp.T), tadp.T, sp.oo))
    priv_theta = bool(priv_lim.is_positive and priv_lim.is_finite)
    verdict = "holds" if inside and theta_log and priv_theta else "violated"
    f_priv = numeric(tadp.proposition5_1_privacy_ratio())
    priv = [float(f_priv(T=T, a=P51_A, c=P51_C)) for T in g["T_exact"]]

    tasks = [dict(alpha_rule=r, T=T, n=g["n"], d=g["d"], trials=g["trials"],
                  seed=child_seed(seed, "adp.proposition5.1", k))
             for k, T in enumerate(g["T_run"]) for r in ("dp", "adp")]
    outs = sweep(_p51_task, tasks, "adp.proposition5.1 runs")
    meas = {}
    for t_, o in zip(tasks, outs):
        mean = np.mean(np.asarray(o["grad_norm2"]), axis=0)
        best = 1 + int(np.argmin(mean[1:]))  # θ_0 = 0 is shared by both methods and tells nothing
        meas[(t_["alpha_rule"], t_["T"])] = (float(mean[best]), np.asarray(o["grad_norm2"])[:, best])
    util_ratio, util_ci = [], []
    for k, T in enumerate(g["T_run"]):
        dp_v, adp_v = meas[("dp", T)][1], meas[("adp", T)][1]
        ci = stats.bootstrap_ci(lambda u, v: np.mean(u) / np.mean(v), dp_v, adp_v,
                                seed=child_seed(seed, "adp.proposition5.1", "bootstrap", k))
        util_ratio.append(ci.estimate)
        util_ci.append(ci)
    evidence = (f"exact M_dp/M_adp inside the integral brackets at all {len(exact)} T up to {max(g['T_exact']):.0e} "
                f"[{'yes' if inside else 'NO'}]; brackets/log T → {lims[0]}, {lims[1]}; at T = {g['T_exact'][-1]:.0e} "
                "the "
                f"ratio is {exact[-1]:.3f} (¼·log T = {np.log(g['T_exact'][-1]) / 4:.3f}) while (10)/(9) state "
                f"{priv[-1]:.2f} (over log T → {priv_lim}: Θ(log T) [{'yes' if priv_theta else 'NO'}]); "
                f"measured DP/ADP utility ratio at a matched accountant ε = {P51_EPS:g} (reported, "
                f"not deciding) " + ", ".join(
                    f"T={T}: {ci}" for T, ci in zip(g["T_run"], util_ci)))
    figures = {f"exact_ratio_T{T}": r for T, r in zip(g["T_exact"], exact)}
    figures.update({f"measured_utility_ratio_T{T}": r for T, r in zip(g["T_run"], util_ratio)})
    figures.update({f"stated_privacy_term_ratio_T{T}": r for T, r in zip(g["T_exact"], priv)})
    fig = Figure("proposition5_1", "adp Proposition 5.1: DP-SGD over ADP-SGD", [
        Panel("M_dp/M_adp, b_t = √(1 + t)", "T", "ratio", [
            Series("exact", g["T_exact"], exact),
            Series("integral brackets (lower)", g["T_exact"], [b[0] for b in brackets], style="dashed"),
            Series("integral brackets (upper)", g["T_exact"], [b[1] for b in brackets], style="dashed"),
            Series("¼·log T", g["T_exact"], [np.log(T) / 4 for T in g["T_exact"]], style="dashed"),
            Series("(10)/(9) privacy terms: 2 log(1 + Tc/a)", g["T_exact"], priv)], xscale="log"),
        Panel("measured utility ratio (matched accountant ε = 1)", "T", "min_t E‖∇F‖²: DP / ADP", [
            Series("measured (bootstrap 95% CI)", g["T_run"], util_ratio, [c.lo for c in util_ci],
                   [c.hi for c in util_ci], style="points"),
            Series("exact M_dp/M_adp", g["T_run"], [tadp.m_ratio(tadp.polynomial_schedule(T, P51_A, P51_C))
                                                     for T in g["T_run"]])], xscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=None if verdict == "holds" else {"brackets_hold": inside,
                                                                   "limits": [str(x) for x in lims],
                                                                   "privacy_ratio_over_log_T": str(priv_lim)},
                   plots=[fig])


for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("adp.proposition5.1", f"proposition5_1_privacy_ratio:{_m}", "the statement is Θ(log T): a "
                       "constant factor, or T, a, c raised to a fixed power (which only rescales the logarithm), "
                       "leaves the ratio Θ(log T)")
for _m in ("noise*3", "stepsize*10"):
    declare_equivalent("adp.proposition5.1", _m, "the statement compares closed-form utility bounds; the kernel runs "
                       "are reported beside it and decide nothing, so a kernel fault cannot change its truth")


# ======================================================================================
# Proposition 5.2: adaptive stepsizes, α_t = (b_0² + tC)^{1/4}
# ======================================================================================
for _m in ("x10", "x0.1"):
    declare_equivalent("adp.proposition5.2", f"proposition5_2_terms:{_m}", "the statement compares the two privacy "
                       "terms (11) and (12) only through their ratio; one constant factor on both leaves the ratio, "
                       "its break-even T and every comparison unchanged")
for _fn in ("proposition5_2_terms", "proposition5_2_ratio"):
    for _m, _k in (("pow0.75", "3/4"), ("pow1.25", "5/4")):
        declare_equivalent("adp.proposition5.2", f"{_fn}:{_m}", "the mutated statement is still false: every "
                           f"variable to the power {_k} makes (12)/(11) = ¼·log(1 + (Tν/b_0²)^{{{_k}}}), which at "
                           f"T = 2, b_0² = ν is ¼·log(1 + 2^{{{_k}}}) < 1: ADP-SGD's term (11) is still the larger "
                           "one there")
declare_equivalent("adp.proposition5.2", "proposition5_2_ratio:x10", "the mutated statement is still false: it says "
                   "(12)/(11) = (10/4)·log(1 + Tν/b_0²), but the stated terms (11) and (12) themselves have the ratio "
                   "¼·log(1 + Tν/b_0²) (exact, SymPy), so the stated identity fails at every T")
for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("adp.proposition5.2", f"proposition5_2_break_even:{_m}", "the mutated statement is still "
                       "false: the break-even T* is a number the check derives and reports, not part of the "
                       "statement, and the statement's (11) ≤ (12) fails at T = 2, b_0² = ν ((12)/(11) = ¼·log 3 < 1) "
                       "whatever T* is")
#: the paper's own experiment for the adaptive stepsize (b_0² = 20, ν = 1e-5, T = 11700)
P52_PAPER = {"b0_sq": 20.0, "nu": 1e-5, "T": 11700}


class P52Settings(NamedTuple):
    trials: int  # seeded admissible b sequences of the schedule-level M
    T_m: int  # their length T


P52_BUDGETS = Budgets(quick=P52Settings(trials=200, T_m=2000), full=P52Settings(trials=2000, T_m=20000))


@claim(
    "adp.proposition5.2",
    kind="ratio",
    statement="""Proposition 5.2 and the sentence after it: with b²_{t+1} = b_t² + max(‖∇f‖², ν) and α_t = (b_0² + tC)^{1/4},
    ADP-SGD's bound (11) is tighter than DP-SGD's bound (12) by a factor O(log T): (12)/(11) = ¼·log(1 + Tν/b_0²).""",  # noqa: E501
    theory=(tadp.proposition5_2_terms, tadp.proposition5_2_ratio, tadp.proposition5_2_break_even),
    # the statement: ADP's term (11) ≤ DP-SGD's (12), i.e. (12)/(11) ≥ 1 — a larger ratio only weakens it
    weaker_if={"theory.adp.proposition5_2_ratio": "larger"},
    notes="Exact (sympy): the ratio of the stated privacy terms and its break-even T* = (e⁴ − 1)·b_0²/ν. The verdict "
    "asks whether (11) ≤ (12) — ADP's guarantee at least as tight — for every T ≥ 2 the proposition allows: "
    "violated when T* > 2, with the smallest counterexample at the natural start b_0² = ν (the first b² is at least "
    "ν). "
    "Also reported: the schedule-level M({α},{b})/M_dp over admissible b (b_t² between b_0² + tν and b_0² + tG²), "
    "worst and best of seeded extremes (piecewise slow/fast growth), to show when α_t = (b_0² + tC)^{1/4} helps; and "
    "(12)/(11) at the paper's own experiment (b_0² = 20, ν = 1e-5, T = 11700), where T* ≈ 1.1e8 ≫ T: how many times "
    "looser the stated ADP bound is there.",
)
def proposition5_2(budget: str, seed: int) -> Outcome:
    ratio = tadp.proposition5_2_ratio()
    t_star = tadp.proposition5_2_break_even()
    ok = sp.simplify(ratio - sp.log(1 + tadp.T * tadp.nu / tadp.b0**2) / 4) == 0
    t_star_nat = float(t_star.subs({tadp.b0: 1, tadp.nu: 1}))  # b_0² = ν
    f_ratio = sp.lambdify((tadp.T, tadp.nu, tadp.b0), ratio)
    Ts = np.unique(np.logspace(np.log10(2), 7, 40).astype(int))
    ratios = np.array([f_ratio(T, 1.0, 1.0) for T in Ts])
    failing = Ts[ratios < 1]
    verdict = "violated" if failing.size else "holds"
    if not ok:
        verdict = "violated"
    # schedule-level M for admissible b sequences
    trials, T_m = P52_BUDGETS.at(budget)
    rng = np.random.default_rng(child_seed(seed, "adp.proposition5.2"))
    G2, nu_, C = 1.0, 1e-2, 0.1
    t = np.arange(1, T_m + 1, dtype=np.float64)
    alpha = (1.0 + t * C) ** 0.25
    vals = []
    for _ in range(trials):
        cut = int(rng.integers(0, T_m + 1))
        slow_first = rng.random() < 0.5
        inc = np.where((t <= cut) == slow_first, nu_, G2)  # b² grows by ν (slowest) or G² (fastest) per step
        b = np.sqrt(1.0 + np.cumsum(inc))
        vals.append(tadp.m_value(alpha, b) / tadp.m_dp(b))
    vals = np.array(vals)
    # the paper's own experiment: b_0² = 20, ν = 1e-5, T = 11700 — how much looser the stated ADP term (11) is
    paper_ratio = float(ratio.subs({tadp.T: P52_PAPER["T"], tadp.nu: P52_PAPER["nu"],
                                    tadp.b0: math.sqrt(P52_PAPER["b0_sq"])}))
    paper_t_star = float(t_star.subs({tadp.nu: P52_PAPER["nu"], tadp.b0: math.sqrt(P52_PAPER["b0_sq"])}))
    counter = None
    if verdict == "violated":
        counter = {"T": int(failing.min()) if failing.size else None, "identity_exact": ok, "b0_squared": 1.0,
                   "nu": 1.0, "stated_ratio_12_over_11": float(ratios[0]),
                   "break_even_T": t_star_nat, "paper_experiment": dict(P52_PAPER, stated_ratio_12_over_11=paper_ratio,
                                                                         adp_looser_by=1.0 / paper_ratio,
                                                                         break_even_T=paper_t_star)}
    evidence = (f"(12)/(11) = {ratio} (exact: {ok}); break-even T* = {t_star} = {t_star_nat:.1f} at b_0² = ν: for "
                f"T < T* the stated ADP bound is the looser one ({failing.size}/{Ts.size} grid T fail; e.g. T = "
                f"{int(Ts[0])}: ratio {ratios[0]:.3f}); schedule-level M(α_C, b)/M_dp(b) over {trials} admissible b "
                f"(T = {T_m}, ν = {nu_}, G² = {G2}, C = {C}): from {vals.min():.3f} to {vals.max():.3f}; at the "
                "paper's "
                f"own experiment (b_0² = {P52_PAPER['b0_sq']:g}, ν = {P52_PAPER['nu']:g}, T = {P52_PAPER['T']}) "
                f"(12)/(11) = {paper_ratio:.3g}: the stated ADP bound is {1.0 / paper_ratio:.4g}× looser than DP-SGD's "
                f"(break-even T* = {paper_t_star:.3g})")
    fig = Figure("proposition5_2", "adp Proposition 5.2: stated DP/ADP privacy terms", [Panel(
        "(12)/(11) = ¼ log(1 + Tν/b₀²), b₀² = ν", "T", "ratio", [
            Series("(12)/(11)", Ts, ratios), Series("1 (break-even)", Ts, np.ones(Ts.size), style="dashed")],
        xscale="log")])
    return Outcome(verdict=verdict, evidence=evidence,
                   numbers={"break_even_T": t_star_nat, "grid_T_failing": int(failing.size),
                                       "paper_experiment_ratio_12_over_11": paper_ratio,
                                       "paper_experiment_adp_looser_by": 1.0 / paper_ratio,
                                       "paper_experiment_break_even_T": paper_t_star,
                                       "M_ratio_min": float(vals.min()), "M_ratio_max": float(vals.max())},
                   counterexample=counter, plots=[fig])


# ======================================================================================
# Table 1's trend: the ADP–DP gap grows with T at fixed privacy
# ======================================================================================
TABLE1_GRIDS = {
    "quick": dict(T=(300, 3000), epsilon=(1.0,), trials=8, n=20000, d=10),
    "full": dict(T=(300, 1000, 3000, 10000), epsilon=(0.5, 1.0, 2.0), trials=30, n=50000, d=20),
}


def _utility_at_best_t(o: dict) -> np.ndarray:
    """Per-trial ‖∇F(θ_τ)‖² at τ = the logged t ≥ 1 with the smallest mean over trials."""
    g = np.asarray(o["grad_norm2"])
    best = 1 + int(np.argmin(np.mean(g, axis=0)[1:]))
    return g[:, best]


def log_growth_estimate(d0, a0, d1, a1):
    """log of advantage(T1)/advantage(T0) with advantage = mean(DP)/mean(ADP): Σ ± log(mean) of four independent
    samples, delta-method standard error Σ s_i²/(n_i m_i²), Welch–Satterthwaite degrees of freedom.

    Parameters
    ----------
    d0, a0 : array_like
        DP-SGD's and ADP-SGD's samples at T0.
    d1, a1 : array_like
        Their samples at T1.

    Returns
    -------
    verify.decide.Estimate
        The log growth, its standard error and degrees of freedom.
    """
    parts = [(np.asarray(x, float), sgn) for x, sgn in ((d1, 1), (a1, -1), (d0, -1), (a0, 1))]
    val = sum(sgn * math.log(float(x.mean())) for x, sgn in parts)
    terms = np.array([float(x.var(ddof=1)) / (x.size * float(x.mean()) ** 2) for x, _ in parts])
    dfs = np.array([x.size - 1.0 for x, _ in parts])
    df = float(terms.sum() ** 2 / np.sum(terms**2 / dfs)) if np.sum(terms**2) > 0 else math.inf
    return Estimate(val, float(math.sqrt(terms.sum())), df)


#: issue 25: the kernel probe of adp.table1 — steps of run_adp against kernels.adp_reference (the NumPy twin, same
#: draws) with the declared η, σ, schedule; relative tolerance on θ (rounding: the two agree to ~1e-12)
TABLE1_PROBE_STEPS, TABLE1_PROBE_RTOL = 20, 1e-6


def _table1_kernel_probe(n: int, d: int, sigmas: dict, a: float, seed: int) -> tuple[str, dict]:
    """Does run_adp run ADP-SGD / DP-SGD with the declared η = 1, σ and b_t = √(a + ct)? (a calibration probe)

    ``TABLE1_PROBE_STEPS`` steps of each arm (``sigmas``: alpha_rule -> σ, the runs' own) on the runs' problem, one
    trial, against :func:`kernels.adp_reference.adp_reference` given the same draws; a last iterate off by more
    than ``TABLE1_PROBE_RTOL`` (relative, in ℓ∞ over ‖θ‖∞) means the kernel runs another mechanism (more noise
    than the accountant was told, another stepsize), so its utilities say nothing about the table.
    Returns ("", numbers) when both arms agree, else (the reason, numbers)."""
    prob = kadp.smooth_nonconvex(n=n, d=d, seed=seed % (2**31))
    bad, numbers = [], {}
    for rule, sigma in sigmas.items():
        kw = dict(steps=TABLE1_PROBE_STEPS, eta=1.0, b_rule="poly", alpha_rule=rule, sigma=float(sigma), a=a,
                  c=P51_C)
        pseed = child_seed(seed, "adp.table1", "probe", rule)
        out = run_adp(prob, trials=1, seed=pseed, n_log=2, **kw)
        ref = adp_reference(prob, np.random.default_rng(np.random.SeedSequence(pseed).spawn(1)[0]), **kw)
        rel = float(np.max(np.abs(out["theta"][0] - ref)) / max(float(np.max(np.abs(ref))), 1e-300))
        numbers[f"probe_rel_diff[{rule}]"] = rel
        if not rel <= TABLE1_PROBE_RTOL:
            bad.append(f"{rule}: run_adp's θ after {TABLE1_PROBE_STEPS} steps is off its NumPy twin's (same draws, "
                       f"declared η = 1 and σ = {float(sigma):.3g}) by {rel:.3g} relative")
    return "; ".join(bad), numbers


@claim(
    "adp.table1",
    kind="experiment",
    statement="""Table 1's trend: with b_t = √(20 + t) and the same privacy budget, the advantage of ADP-SGD over DP-SGD
    grows with the number of iterations T.""",
    theory=(),  # theorem4_1_variance, m_ratio: not evaluated (σ is calibrated by the accountant, not by eq. (6))
    notes="Stylized reproduction: smooth_nonconvex (docs/catalogue.md: a stand-in for CIFAR-10), one record per step "
    "(the paper's "
    "Table 1 used minibatches of 256 and ε̄ = ε/16: not reproduced, the kernel draws one record), utility min_t "
    "E‖∇F(θ_t)‖² over the logged t ≥ 1, both methods at the same accountant ε (σ calibrated per method and T by "
    "verify.papers.adp.matched_sigma: dp-accounting RDP, δ = 1e-5; Theorem 4.1's σ is not DP at these sizes, see "
    "adp.theorem4.1), η = 1. Advantage = DP utility / ADP utility (> 1: ADP better). Per ε, the log of "
    "advantage(T_max)/advantage(T_min) with a delta-method t interval (verify.papers.adp.log_growth_estimate) through "
    "verify.decide.upper_bounded: holds when it is > 0 at 95% one-sided; otherwise inconclusive — a stylized "
    "stand-in that does not show the trend is a failure to reproduce, not a refutation of the paper's table, so "
    "this claim never says violated. tests = 3 (one per ε of the full grid). Kernel probe (issue 25, fixed in "
    "advance): 20 steps of run_adp per arm, with the runs' σ at the first ε and T, against the NumPy twin "
    "kernels.adp_reference with the same draws must agree to 1e-6 (relative θ); otherwise the runs are not the "
    "stated mechanism: a 'holds' becomes inconclusive and an undecided check gives no verdict (decide.after_probe).",
    tests=3,
)
def table1(budget: str, seed: int) -> Outcome:
    g = TABLE1_GRIDS[by_budget(budget, "quick", "full")]
    tasks = [dict(alpha_rule=r, T=T, n=g["n"], d=g["d"], trials=g["trials"],
                  seed=child_seed(seed, "adp.table1", k), a=20.0,
                  epsilon=e) for k, (T, e) in enumerate((T, e) for e in g["epsilon"] for T in g["T"])
             for r in ("dp", "adp")]
    outs = sweep(_p51_task, tasks, "adp.table1 runs")
    util = {(t_["alpha_rule"], t_["T"], t_["epsilon"]): _utility_at_best_t(o) for t_, o in zip(tasks, outs)}
    sig = {(t_["alpha_rule"], t_["T"], t_["epsilon"]): float(o["sigma"]) for t_, o in zip(tasks, outs)}
    decs, figures, series, parts = [], {}, [], []
    for e in g["epsilon"]:
        adv = [float(np.mean(util[("dp", T, e)]) / np.mean(util[("adp", T, e)])) for T in g["T"]]
        t0, t1 = g["T"][0], g["T"][-1]
        est = log_growth_estimate(util[("dp", t0, e)], util[("adp", t0, e)], util[("dp", t1, e)], util[("adp", t1, e)])
        neg = decide.Estimate(-est.value, est.se, est.df)
        d = decide.upper_bounded(
            neg, 0.0, test=f"ε = {e:g}: −log(advantage(T={t1})/advantage(T={t0})), delta-method t (Welch df)",
            holds_reason=f"ε = {e:g}: the advantage grows T = {t0} → {t1} by {math.exp(est.value):.3g}× "
                         f"(lower bound {math.exp(est.lower(1 - decide.HOLDS_LEVEL)):.3g}× > 1)",
            can_violate=False,
            why_not="a stylized stand-in that does not show the trend is a failure to reproduce, not a refutation")
        if d.verdict != decide.Verdict.HOLDS:
            d = decide.Decision(d.verdict, d.control, d.estimate, d.holds_bound, d.violated_bound,
                                f"ε = {e:g}: Table 1's trend not reproduced on the stand-in (growth "
                                f"{math.exp(est.value):.3g}×, 95% lower bound {math.exp(est.lower(0.05)):.3g}×): a "
                                "failure to reproduce, not a refutation (a minibatch kernel at the paper's setting "
                                "would decide)")
        decs.append(d)
        parts.append(f"ε={e:g}: advantage " + ", ".join(f"T={T}: {a:.3g}" for T, a in zip(g["T"], adv))
                     + f" (σ DP/ADP at T={t1}: {sig[('dp', t1, e)]:.3g}/{sig[('adp', t1, e)]:.3g})")
        figures.update({f"advantage_eps{e:g}_T{T}": a for T, a in zip(g["T"], adv)})
        figures[f"growth_eps{e:g}"] = math.exp(est.value)
        series.append(Series(f"ε = {e:g}", g["T"], adv))
    series.append(Series("no advantage", [g["T"][0], g["T"][-1]], [1.0, 1.0], style="dashed"))
    verdict = str(decide.combine(decs))
    decisive = next((d for d in decs if d.verdict != decide.Verdict.HOLDS), decs[0])
    fig = Figure("table1", "adp Table 1 trend (stylized, matched accountant ε): DP-SGD / ADP-SGD utility", [Panel(
        "min_t E‖∇F‖²: DP / ADP", "T", "advantage of ADP", series, xscale="log")])
    # issue 25: the utilities say something only if the kernel runs the declared mechanism (σ of the first ε and T)
    e0, t0 = g["epsilon"][0], g["T"][0]
    probe_why, probe_numbers = _table1_kernel_probe(g["n"], g["d"], {r: sig[(r, t0, e0)] for r in ("dp", "adp")},
                                                    20.0, seed)
    figures.update(probe_numbers)
    evidence = decisive.phrase() + "; " + "; ".join(parts) + (
        f"; kernel probe: run_adp agrees with its NumPy twin over {TABLE1_PROBE_STEPS} steps (both arms)"
        if not probe_why else "")
    verdict, evidence = decide.after_probe(probe_why, "adp.table1", verdict, evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=None, plots=[fig],
                   decisions=decs)


# ======================================================================================
# The adaptive stepsize's privacy: Algorithm 1 line 4 reads the clean gradient
# ======================================================================================
#: (b_0², ν) of the points checked: the paper's experiment (20, 1e-5) and the natural start b_0² = 1
ADAPTIVE_POINTS = {"quick": dict(b0_sq=(20.0, 1.0), z=(0.5, 1.0, 2.0, 4.0)),
                   "full": dict(b0_sq=(20.0, 5.0, 1.0, 0.1), z=(0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 8.0))}
ADAPTIVE_NU, ADAPTIVE_DELTA, ADAPTIVE_G = 1e-5, 1e-5, 1.0
_MP_DIGITS = 60  # working precision of the hockey-stick integrals (rounding ≪ 1e-40 relative)


def gaussian_hockey_stick(m1: float, s1: float, m2: float, s2: float, epsilon: float) -> float:
    """δ(ε) = ∫ max(0, p − e^ε q) of P = N(m1, s1²) against Q = N(m2, s2²), exactly (mpmath, 60 digits).

    The privacy-loss log p/q − ε is a quadratic a·y² + b·y + c; the set where it is positive is an interval,
    its complement, a half-line or empty, and δ = P(set) − e^ε·Q(set) in normal CDFs.

    Parameters
    ----------
    m1, s1 : float
        P's mean and standard deviation.
    m2, s2 : float
        Q's mean and standard deviation.
    epsilon : float
        The ε.

    Returns
    -------
    float
        δ(ε) (>= 0).
    """
    with mp.workdps(_MP_DIGITS):
        m1, s1, m2, s2, eps = (mp.mpf(x) for x in (m1, s1, m2, s2, epsilon))
        a = 1 / (2 * s2**2) - 1 / (2 * s1**2)
        b = m1 / s1**2 - m2 / s2**2
        c = -m1**2 / (2 * s1**2) + m2**2 / (2 * s2**2) + mp.log(s2 / s1) - eps

        def mass(lo, hi, m, s):  # P(lo < N(m, s²) < hi)
            return mp.ncdf((hi - m) / s) - mp.ncdf((lo - m) / s)

        def delta_of(intervals):
            return sum(mass(lo, hi, m1, s1) - mp.e**eps * mass(lo, hi, m2, s2) for lo, hi in intervals)

        if a == 0:
            if b == 0:
                return float(max(mp.mpf(0), delta_of([(-mp.inf, mp.inf)]) if c > 0 else mp.mpf(0)))
            r = -c / b
            return float(max(mp.mpf(0), delta_of([(r, mp.inf)] if b > 0 else [(-mp.inf, r)])))
        disc = b * b - 4 * a * c
        if disc <= 0:  # the quadratic keeps one sign
            return float(max(mp.mpf(0), delta_of([(-mp.inf, mp.inf)]))) if a > 0 else 0.0
        r1, r2 = sorted(((-b - mp.sqrt(disc)) / (2 * a), (-b + mp.sqrt(disc)) / (2 * a)))
        parts = [(-mp.inf, r1), (r2, mp.inf)] if a > 0 else [(r1, r2)]
        return float(max(mp.mpf(0), delta_of(parts)))


def adaptive_step_delta(b0_sq: float, z: float, epsilon: float, nu: float = ADAPTIVE_NU, G: float = ADAPTIVE_G,
                        adaptive: bool = True) -> float:
    """Exact δ(ε) of one released update of Algorithm 1 (η = 1) for the replace-one pair whose drawn record has
    gradient G·u on D and 0 on D′: the update is −(g + ασ·c)/b₁ with b₁² = b_0² + max(‖g‖², ν) computed from the
    clean g (line 4), so along u it is N(−G/b₁, (zG/b₁)²) on D and N(0, (zG/b₁′)²) on D′ (z = ασ/G).  Both
    orderings; ``adaptive=False`` uses D's b₁ for both (the stepsize treated as public: a control).

    Parameters
    ----------
    b0_sq : float
        b_0².
    z : float
        ασ/G.
    epsilon : float
        The ε.
    nu : float
        The floor ν of ‖g‖² in b₁.
    G : float
        The gradient bound.
    adaptive : bool
        Whether b₁ depends on the data (False: the control).

    Returns
    -------
    float
        The larger δ(ε) of the two orderings.
    """
    b1 = math.sqrt(b0_sq + max(G * G, nu))
    b2 = math.sqrt(b0_sq + max(0.0, nu)) if adaptive else b1
    s1, s2 = z * G / b1, z * G / b2
    return max(gaussian_hockey_stick(G / b1, s1, 0.0, s2, epsilon), gaussian_hockey_stick(0.0, s2, G / b1, s1, epsilon))


def replace_one_gaussian_epsilon(z: float, delta: float) -> float:
    """dp-accounting's ε (PLD, connect-the-dots, pessimistic, 1e-4 grid) of one Gaussian release of multiplier z under
    replace-one adjacency (gradients bounded by G: the accountant shifts by 2G), the ε the paper's analysis certifies
    for the step.

    Parameters
    ----------
    z : float
        The multiplier.
    delta : float
        The δ.

    Returns
    -------
    float
        ε at ``delta``.
    """

    dist = pld.from_gaussian_mechanism(float(z), pessimistic_estimate=True, value_discretization_interval=1e-4,
                                       neighboring_relation=NeighboringRelation.REPLACE_ONE)
    return float(dist.get_epsilon_for_delta(delta))


def _public_stepsize_mutant():
    """A mutant of the exact computation: b₁ treated as public (the same on both datasets), i.e. the stepsize's
    dependence on the clean gradient dropped — the error the check exists to expose."""
    original = adaptive_step_delta

    def public(b0_sq, z, epsilon, nu=ADAPTIVE_NU, G=ADAPTIVE_G, adaptive=True):
        return original(b0_sq, z, epsilon, nu, G, adaptive=False)

    return Mutant("adaptive_step_delta:b1-public", "verify.papers.adp.adaptive_step_delta: b₁ computed as if public "
                  "(the data-dependent stepsize ignored)", "kernel",
                  lambda: substituted("verify.papers.adp.adaptive_step_delta", public))


@claim(
    "adp.algorithm1.adaptive_stepsize_privacy",
    kind="privacy",
    statement="""Proposition 5.2's privacy: ADP-SGD with the adaptive stepsize of Algorithm 1 (line 4: b²_{t+1} =
    b_t² + max(‖∇f(θ_t; x_ξ)‖², ν), computed from the clean gradient) is as private as its Gaussian noise: each
    released update is (ε, δ)-DP at the ε a Gaussian accountant gives that step's noise, as Theorem 4.1's analysis
    (which treats b_{t+1} as given) certifies.""",
    mutants=[_public_stepsize_mutant()],
    notes="Exact computation, no statistical test (tests = 0). One released update θ_{t+1} − θ_t = −(η/b_{t+1})(g + "
    "α_{t+1}c_t) at the first step (b_t = b_0), the drawn record differing (replace-one, the paper's adjacency): "
    "gradient G·u on D, 0 on D′, so b₁ differs (√(b_0² + G²) vs √(b_0² + ν)) and the update's law along u is "
    "N(−ηG/b₁, (ηzG/b₁)²) vs N(0, (ηzG/b₁′)²), z = ασ/G. The accountant's ε: dp-accounting PLD (pessimistic, "
    "1e-4 grid, an upper bound) of one Gaussian of multiplier z under REPLACE_ONE at δ = 1e-5. The exact δ of the "
    "real pair at that ε: the hockey-stick divergence of the two Gaussians in closed form (normal CDFs at 60 digits, "
    "both orderings). violated when it exceeds 1e-5 at some point (the counterexample), holds when it is ≤ 1e-5 "
    "everywhere. Control: the same pair with b₁ treated as public (equal on both sides) stays ≤ 1e-5. Points: "
    "(b_0², z) with ν = 1e-5, G = η = 1; b_0² = 20, ν = 1e-5 is the paper's experiment. This replaces relying on "
    "the adaptive audits alone (whose quick verdict depends on a sample-size ceiling). proposition5_2_terms is no "
    "longer declared (the check never evaluated it: no closed form decides here); its declared mutant computes b₁ "
    "as if public, which must turn the verdict.",
)
def adaptive_stepsize_privacy(budget: str, seed: int) -> Outcome:
    g = ADAPTIVE_POINTS[by_budget(budget, "quick", "full")]
    rows = []
    for b0_sq in g["b0_sq"]:
        for z in g["z"]:
            eps = replace_one_gaussian_epsilon(z, ADAPTIVE_DELTA)
            d_ad = adaptive_step_delta(b0_sq, z, eps)
            d_pub = adaptive_step_delta(b0_sq, z, eps, adaptive=False)
            rows.append(dict(b0_sq=b0_sq, z=z, accountant_epsilon=eps, delta_exact=d_ad, delta_public_b=d_pub,
                             nu=ADAPTIVE_NU, G=ADAPTIVE_G, delta=ADAPTIVE_DELTA))
    broken = [r for r in rows if r["delta_exact"] > ADAPTIVE_DELTA]
    control_ok = all(r["delta_public_b"] <= ADAPTIVE_DELTA for r in rows)
    verdict = "violated" if broken else "holds"
    worst = max(rows, key=lambda r: r["delta_exact"] / r["delta"])
    paper = [r for r in rows if r["b0_sq"] == 20.0]
    pw = max(paper, key=lambda r: r["delta_exact"])
    evidence = (f"{verdict} (exact): at the accountant's ε (PLD, replace-one, δ = {ADAPTIVE_DELTA:g}) the exact δ of "
                f"one adaptive update exceeds {ADAPTIVE_DELTA:g} at {len(broken)}/{len(rows)} (b_0², z) points; worst "
                f"b_0² = {worst['b0_sq']:g}, z = {worst['z']:g}: ε = {worst['accountant_epsilon']:.3g}, δ = "
                f"{worst['delta_exact']:.3g} ({worst['delta_exact'] / ADAPTIVE_DELTA:.3g}× the promise); at the "
                f"paper's b_0² = 20, ν = 1e-5 the largest is δ = {pw['delta_exact']:.3g} (z = {pw['z']:g}); control "
                f"with b₁ public: δ ≤ {max(r['delta_public_b'] for r in rows):.3g} "
                f"({'≤' if control_ok else '>'} {ADAPTIVE_DELTA:g} everywhere)")
    figures = {"points": len(rows), "points_broken": len(broken),
               "worst_delta_ratio": worst["delta_exact"] / ADAPTIVE_DELTA,
               "paper_point_max_delta": pw["delta_exact"], "control_max_delta": max(r["delta_public_b"] for r in rows)}
    for r in rows:
        figures[f"delta_exact[b0_sq={r['b0_sq']:g},z={r['z']:g}]"] = r["delta_exact"]
    counter = min(broken, key=lambda r: (-r["b0_sq"], r["z"])) if broken else None
    zs = list(g["z"])
    fig = Figure("adaptive_stepsize_privacy", "adp: exact δ of one adaptive-stepsize update at the accountant's ε", [
        Panel(f"replace-one pair ‖g‖ = G vs 0, ν = {ADAPTIVE_NU:g}", "noise multiplier z", "δ(ε_accountant)",
              [Series(f"b_0² = {b:g}", zs, [r["delta_exact"] for r in rows if r["b0_sq"] == b], style="points")
               for b in g["b0_sq"]]
              + [Series("b₁ public (control)", zs, [r["delta_public_b"] for r in rows if r["b0_sq"] == g["b0_sq"][0]],
                        style="points"),
                 Series("promised δ", [zs[0], zs[-1]], [ADAPTIVE_DELTA] * 2, style="dashed")],
              xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig])


# -- ADP-SGD and DP-SGD of `adp` (kernels.adp) --------------------------------------------------
ADP_AUDITS = {  # claim suffix: (b rule, α rule)
    "dp_sgd": ("poly", "dp"),
    "adp_sgd": ("poly", "adp"),
    "dp_sgd_adaptive": ("adaptive", "dp"),
    "adp_sgd_adaptive": ("adaptive", "adp"),
}
ADP_AUDIT_CONFIGS = ((1, 1), (4, 3))  # (n, T): one Gaussian step; one-of-4 sampling composed over 3 steps
ADP_AUDIT_SIGMA = 0.8
ADP_AUDIT_D = 20


def adp_noise_scales(b_rule: str, alpha_rule: str, steps: int) -> np.ndarray:
    """α_t of the steps t = 1..T as kernels.adp computes them (a = c = b₀ = C = 1); 1 for DP-SGD.

    Parameters
    ----------
    b_rule : str
        The b rule ("poly" or "adaptive"; both give the same α here).
    alpha_rule : str
        "dp" (α ≡ 1) or "adp".
    steps : int
        T.

    Returns
    -------
    numpy.ndarray
        α_1..α_T.
    """
    t = np.arange(1, steps + 1, dtype=float)
    if alpha_rule == "dp":
        return np.ones(steps)
    return (1.0 + t) ** 0.25  # poly: √b_t with b_t = √(1 + t); adaptive: (b₀² + tC)^{1/4}


def adp_audit_task(b_rule: str, alpha_rule: str, n: int, steps: int, canary: bool, trials: int, seed: int,
                   noise_scale: float = 1.0) -> dict:
    """θ_T of ``trials`` runs from θ₀ = 0 with λ = 0 on D (n zero records: zero gradient) or D′ (record 0 = 10·e₁,
    whose logistic gradient is clipped to G = 1).  Two scores: the shift θ_T[0] along the canary, and
    −‖θ_T[1:]‖², which sees the *scale* of the update (a stepsize that depends on the data).

    Parameters
    ----------
    b_rule, alpha_rule : str
        kernels.adp.run_adp's rules.
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

    Returns
    -------
    dict
        ``shift`` and ``spread``: one score per run each.
    """
    X = np.zeros((n, ADP_AUDIT_D))
    if canary:
        X[0, 0] = 10.0
    prob = NonconvexProblem(X, np.ones(n), 0.0, np.zeros(ADP_AUDIT_D), {"audit": True})
    out = run_adp(prob, steps=steps, eta=1.0, b_rule=b_rule, alpha_rule=alpha_rule,
                  sigma=ADP_AUDIT_SIGMA * noise_scale, clip=1.0, trials=trials, seed=seed, n_log=2)
    th = out["theta"]
    return {"shift": th[:, 0], "spread": -np.sum(th[:, 1:] ** 2, axis=1)}


def audit_adp(name: str, budget: str, seed: int, noise_scale: float = 1.0):
    """The audit claim ``adp.audit.<name>``: per ADP_AUDIT_CONFIGS entry the better of two scores' ε lower bounds.

    Parameters
    ----------
    name : str
        A key of ADP_AUDITS.
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
    b_rule, alpha_rule = ADP_AUDITS[name]
    trials = by_budget(budget, 20_000, 200_000)
    n_tests = len(ADP_AUDIT_CONFIGS) * 2  # two scores per configuration; each at the ledger's per-test level
    level = audit_level(n_tests)
    tasks = [dict(b_rule=b_rule, alpha_rule=alpha_rule, n=n, steps=T, canary=c, trials=trials,
                  seed=child_seed(seed, f"adp.audit.{name}", k, int(c)), noise_scale=noise_scale)
             for k, (n, T) in enumerate(ADP_AUDIT_CONFIGS) for c in (False, True)]
    outs = sweep(adp_audit_task, tasks, f"audit adp {name}")
    rows = []
    for k, (n, T) in enumerate(ADP_AUDIT_CONFIGS):
        a, c = outs[2 * k], outs[2 * k + 1]
        z = adp_noise_scales(b_rule, alpha_rule, T) * ADP_AUDIT_SIGMA  # G = 1
        acct = composed_epsilon([(1.0 / n, float(zt), 1) for zt in z], AUDIT_DELTA, "pld",
                                value_discretization_interval=0.01)
        bounds = {s: epsilon_lower_bound(a[s], c[s], AUDIT_DELTA, level,
                                         seed=child_seed(seed, f"adp.audit.{name}", "bound", k, j),
                                         method=claim_method(1.0 / n))
                  for j, s in enumerate(("shift", "spread"))}
        best = max(bounds, key=lambda s: bounds[s].epsilon_lb)
        rows.append(dict(n=n, steps=T, accountant_epsilon=acct, score=best, audit_method=bounds[best].method,
                         audit_epsilon_lb=bounds[best].epsilon_lb,
                         **{f"audit_{s}_epsilon_lb": b.epsilon_lb for s, b in bounds.items()}))
    labels = [f"n={r['n']} T={r['steps']} ({r['score']} score)" for r in rows]
    return audit_outcome(f"audit_{name}", f"Privacy audit of adp {name}", rows, labels, trials=trials, level=level,
                         budget=budget, family="the ledger's statistical tests",
                         series=(("audit: shift score", "audit_shift_epsilon_lb"),
                                 ("audit: spread score", "audit_spread_epsilon_lb")))


def _register_adp() -> None:
    for name, (b_rule, alpha_rule) in ADP_AUDITS.items():
        claim(
            f"adp.audit.{name}",
            kind="privacy",
            tests=2 * len(ADP_AUDIT_CONFIGS),
            statement=f"""The suite's ADP-SGD kernel with b rule '{b_rule}' and α rule '{alpha_rule}' is as private as
            the Gaussian mechanism Theorem 4.1 accounts for (one record drawn per step, gradient clipped to G, noise
            α_t·σ): no distinguishing test between neighbouring datasets certifies a larger ε than dp-accounting's.""",
            theory=(),
            notes="Runs from θ₀ = 0 (λ = 0, d = 20, σ = 0.8, η = 1) on D (zero records) and D′ (record 0 = 10·e₁, "
            "gradient clipped to G = 1). Scores: θ_T[0] (the canary's push) and −‖θ_T[1:]‖² (the scale of the update, "
            "which reveals a data-dependent stepsize). Accountant: Poisson-subsampled Gaussian steps at rate 1/n with "
            "multipliers α_t·σ/G, PLD on a 0.01 grid. Estimator: Gaussian-DP bound for n=1 (a Gaussian claim), "
            "Clopper–Pearson for n=4 (sampled). Bonferroni over the ledger's statistical tests (verify.decide). "
            "Configurations: n=1,T=1 "
            "and n=4,T=3. For the adaptive b rule, b_{t+1} is computed from the clean gradient as Algorithm 1 line 4 "
            "says; the accountant (like Theorem 4.1) does not charge for it.",
        )(lambda budget, seed, _n=name: audit_adp(_n, budget, seed))


_register_adp()


# ======================================================================================
# Remark 4.1, last paragraph: the alternative relation α_t·α_{T−t+1} = b_t "also gives M_adp"
# ======================================================================================
def alternative_alphas(b: np.ndarray, free: np.ndarray) -> np.ndarray:
    """α solving Remark 4.1's alternative relation α_t·α_{T−t+1} = b_t for a palindromic b (b_t = b_{T−t+1}, which
    the relation forces): α_t = ``free[t]`` for the first half, α_{T−t+1} = b_t/α_t, and α_m = √b_m in the middle
    of an odd T.  ``free`` has length ⌊T/2⌋.

    Parameters
    ----------
    b : numpy.ndarray
        b_1..b_T (palindromic, positive).
    free : numpy.ndarray
        The free first-half values α_1..α_⌊T/2⌋ (positive).

    Returns
    -------
    numpy.ndarray
        α_1..α_T.
    """
    T = b.size
    alpha = np.empty(T)
    h = T // 2
    alpha[:h] = free
    alpha[T - h:] = (b[:h] / free)[::-1]
    if T % 2:
        alpha[h] = math.sqrt(b[h])
    return alpha


def _alternative_mutant():
    """A declared mutant: the remark's relation replaced by the paper's α_t² = b_t (which does give M_adp)."""
    return Mutant("alternative_alphas:sqrt-b", "verify.papers.adp.alternative_alphas: α_t = √b_t, the relation "
                  "α_t² = b_t instead of α_t·α_{T−t+1} = b_t", "theory",
                  lambda: substituted("verify.papers.adp.alternative_alphas", lambda b, free: np.sqrt(b)))


REMARK41_ALT_SMALLEST = dict(b=(1.0, 1.0), alpha=(2.0, 0.5))  # T = 2: M = (17/4)² = 289/16 against M_adp = 4


class Remark41AltSettings(NamedTuple):
    examples: int  # seeded palindromic b with free α
    tmax: int  # longest sequence


REMARK41_ALT_BUDGETS = Budgets(quick=Remark41AltSettings(examples=300, tmax=60),
                               full=Remark41AltSettings(examples=3000, tmax=400))


@claim(
    "adp.remark4.1.alternative",
    kind="exact",
    statement="""Remark 4.1 (its last paragraph): "in addition to α_t² = b_t, there are other relationships ... that
    could lead to the same M_adp. For instance, setting α_t·α_{T−(t−1)} = b_t is another possibility": for positive
    {b_t}, any {α_t} with α_t·α_{T−t+1} = b_t for every t gives M({α},{b}) = M_adp = (Σ1/b_t)².""",
    theory=(tadp.m_value, tadp.m_adp),
    mutants=[_alternative_mutant()],
    notes="Exact, no statistical test. Read as written: the relation for every t = 1..T. Taking t and T−t+1 in it "
    "gives b_t = b_{T−t+1}, so for a non-palindromic b (the paper's b_t = √(a + ct), or any increasing schedule with "
    "T ≥ 2) no α satisfies it; for a palindromic b its solutions are α_t free on the first half and "
    "α_{T−t+1} = b_t/α_t, on which M = (Σ1/α_t²)² ≥ (Σ1/b_t)² with equality only where α_t² = b_t. The check "
    "evaluates M and M_adp with theory.adp on the smallest case (T = 2, b = (1, 1), α = (2, 1/2)) and on seeded "
    "palindromic b with free α (exponents in [−3, 3], T up to 60 quick, 400 full): violated when M exceeds M_adp "
    "by more than the rounding bound (verify.papers.adp.relative_tolerance) at a solution of the relation; also "
    "reported: that the paper's polynomial schedule is not palindromic. Declared mutant: α_t = √b_t in place of the "
    "relation, which must turn the verdict to holds. The generic constant and exponent mutants of m_value and m_adp "
    "are equivalent: on the relation's solutions for one b, M takes a continuum of values while M_adp is fixed, so "
    "no function of M_adp equals M there.",
)
def remark4_1_alternative(budget: str, seed: int) -> Outcome:
    examples, tmax = REMARK41_ALT_BUDGETS.at(budget)
    b0, a0 = (np.array(REMARK41_ALT_SMALLEST[k]) for k in ("b", "alpha"))
    free0 = a0[: b0.size // 2]
    alpha0 = alternative_alphas(b0, free0)
    m0, madp0 = tadp.m_value(alpha0, b0), tadp.m_adp(b0)

    def pair(rng):
        T = int(rng.integers(2, tmax + 1))
        half = 10.0 ** rng.uniform(-3.0, 3.0, (T + 1) // 2)
        b = np.concatenate([half, half[: T // 2][::-1]])
        return b, 10.0 ** rng.uniform(-3.0, 3.0, T // 2)

    excess = [0.0]

    def slack(p) -> float:
        b, free = p
        alpha = alternative_alphas(b, free)
        madp, m = tadp.m_adp(b), tadp.m_value(alpha, b)
        excess[0] = max(excess[0], m / madp - 1.0)
        return (madp - m) / madp / relative_tolerance(b.size)  # ≥ −1: M = M_adp within rounding

    smallest = slack((b0, free0))
    worst = random_search(slack, pair, examples, seed)
    poly = tadp.polynomial_schedule(10, 1.0, 1.0)
    poly_palindromic = bool(np.allclose(poly, poly[::-1]))
    violated = smallest < -1.0 or worst.slack < -1.0
    counter = None
    if violated:
        counter = dict(T=int(b0.size), b=b0.tolist(), alpha=alpha0.tolist(), M=m0, M_adp=madp0,
                       relation=[float(alpha0[t] * alpha0[b0.size - 1 - t]) for t in range(b0.size)])
    evidence = (f"{'violated' if violated else 'holds'} (exact): T = 2, b = (1, 1), α = (2, 1/2) satisfies "
                f"α_t·α_{{T−t+1}} = b_t and gives M = {m0:.6g} against M_adp = {madp0:.6g}; over {worst.evaluated} "
                f"seeded palindromic b with free α the largest M/M_adp − 1 is {excess[0]:.3g} "
                f"({worst.slack:.3g} rounding bounds); the paper's "
                f"b_t = √(1 + t) is {'palindromic' if poly_palindromic else 'not palindromic'}, so for it the relation "
                f"has {'solutions' if poly_palindromic else 'no solution at all (it forces b_t = b_{T−t+1})'}")
    ks = np.linspace(0.25, 4.0, 61)
    ms = [tadp.m_value(alternative_alphas(b0, np.array([k])), b0) for k in ks]
    fig = Figure("remark4_1_alternative", "adp Remark 4.1: the alternative relation α_t·α_{T−t+1} = b_t", [Panel(
        "T = 2, b = (1, 1): α = (k, 1/k)", "k = α₁", "M({α},{b})",
        [Series("M on the relation's solutions", ks, ms), Series("M_adp", ks, [madp0] * ks.size, style="dashed")],
        xscale="log", yscale="log")])
    numbers = {"smallest_M": m0, "smallest_M_adp": madp0, "smallest_slack_rounding_units": smallest,
               "search_min_slack_rounding_units": worst.slack, "search_max_relative_excess": excess[0],
               "evaluations": worst.evaluated + 1,
               "paper_schedule_palindromic": float(poly_palindromic)}
    return Outcome(verdict="violated" if violated else "holds", evidence=evidence, numbers=numbers,
                   counterexample=counter, plots=[fig])


for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    for _fn in ("m_value", "m_adp"):
        declare_equivalent("adp.remark4.1.alternative", f"{_fn}:{_m}", "on the relation's solutions for one b, M "
                           "takes a continuum of values while M_adp is fixed: no function of M_adp equals M there, so "
                           "the mutated statement is false as well")


# ======================================================================================
# Footnote 3: the ε of the experiments' calibration, by the accountants
# ======================================================================================
FOOTNOTE3 = dict(n=50_000, batch=256, T=11_700, delta=1e-5, clip=1.0,
                 eps_bar=(0.8, 1.2, 1.6, 3.2, 6.4), stated=(0.29, 0.43, 0.57, 1.23, 3.24))
#: the RDP orders of the TensorFlow Privacy moments accountant of the paper's time (its default list)
MOMENTS_ACCOUNTANT_ORDERS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))


def footnote3_multiplier(eps_bar: float) -> float:
    """The noise multiplier of the experiments: σ of Theorem 4.1 (eq. (6)) at ε = 16·ε̄ with α ≡ 1 (DP-SGD), n, T and
    δ of the footnote, G = C_G = 1, added to the sum of a batch of 256 clipped gradients: z = 256·σ/C_G.

    Parameters
    ----------
    eps_bar : float
        The footnote's ε̄.

    Returns
    -------
    float
        z.
    """
    f = FOOTNOTE3
    var = numeric(tadp.theorem4_1_variance())(G=f["clip"], S_inv_alpha2=f["T"], T=f["T"], delta=f["delta"],
                                               epsilon=16 * eps_bar, n=f["n"])
    return math.sqrt(float(var)) * f["batch"] / f["clip"]


def footnote3_readings(z: float) -> dict:
    """ε at the footnote's δ of T Poisson-subsampled Gaussian steps (rate 256/n, multiplier z, add/remove) by the
    standard readings: dp-accounting's RDP (its conversion), RDP at the moments-accountant orders with the 2016
    conversion ε = min_α RDP(α) + log(1/δ)/(α − 1), and PLD bounds (optimistic buckets ≤ ε ≤ pessimistic).

    Parameters
    ----------
    z : float
        The multiplier.

    Returns
    -------
    dict
        ``rdp``, ``moments_accountant_2016``, ``pld_lower`` and ``pld_upper``.
    """

    f = FOOTNOTE3
    q, T, delta = f["batch"] / f["n"], f["T"], f["delta"]
    event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
    acc = rdpa.RdpAccountant()
    acc.compose(event, T)
    classic = rdpa.RdpAccountant(orders=list(MOMENTS_ACCOUNTANT_ORDERS))
    classic.compose(event, T)
    orders = np.asarray(MOMENTS_ACCOUNTANT_ORDERS)
    out = {"rdp": float(acc.get_epsilon(delta)),
           "moments_accountant_2016": float(np.min(np.asarray(classic.rdp) + math.log(1 / delta) / (orders - 1)))}
    for name, pessimistic in (("pld_lower", False), ("pld_upper", True)):
        dist = pld.from_gaussian_mechanism(z, sampling_prob=q, pessimistic_estimate=pessimistic,
                                           value_discretization_interval=1e-4, use_connect_dots=pessimistic)
        out[name] = float(dist.self_compose(T).get_epsilon_for_delta(delta))
    return out


declare_equivalent("adp.footnote3", "theorem4_1_variance:pow0.75", "the statement is about five fixed points "
                   "(n = 50 000, T = 11 700, δ = 1e-5, C_G = 1, ε = 16ε̄); at each of them eq. (6) with every variable "
                   "to the power 3/4 gives a σ² 46× to 132× larger (exact, SymPy), and more noise only lowers every "
                   "accountant's ε (a larger multiplier z, the same sampling): the mutated promise is implied by the "
                   "original one")


@claim(
    "adp.footnote3",
    kind="privacy",
    statement="""Footnote 3: with the noise Theorem 4.1 gives at ε = 16·ε̄ for ε̄ ∈ {0.8, 1.2, 1.6, 3.2, 6.4}, δ = 1e-5,
    T = 11 700 steps (60 epochs of batches of 256) and clipping C_G = 1, the training runs' privacy "calculated by the
    moments accountant" is ε = {0.29, 0.43, 0.57, 1.23, 3.24}.""",
    theory=(tadp.theorem4_1_variance,),
    weaker_if={tadp.theorem4_1_variance: "larger"},  # more noise only strengthens the privacy promise
    notes="Exact (accountant bounds; tests = 0). Reading (the calibration code of Appendix G is not in the extracted "
    "text): CIFAR-10's n = 50 000, σ² of eq. (6) at ε = 16ε̄ with α ≡ 1 and G = C_G = 1, added to the sum of the 256 "
    "clipped gradients of a batch, i.e. noise multiplier z = 256σ; Poisson sampling at rate 256/n (the moments "
    "accountant's model), add/remove adjacency. The promise checked: the runs are (ε_stated, 1e-5)-DP — holds when "
    "dp-accounting's pessimistic PLD ε (grid 1e-4) is at most each stated value, violated when its optimistic "
    "(privacy-bucket) ε exceeds one. Reported beside it, per ε̄: dp-accounting's RDP ε, the 2016 moments "
    "accountant's ε (RDP at TensorFlow Privacy's default orders, ε = min_α RDP + log(1/δ)/(α − 1)), which reading "
    "is nearest to the stated value and how far.",
)
def footnote3(budget: str, seed: int) -> Outcome:
    f = FOOTNOTE3
    rows = []
    for eb, stated in zip(f["eps_bar"], f["stated"]):
        z = footnote3_multiplier(eb)
        r = footnote3_readings(z)
        nearest = min(r, key=lambda k: abs(r[k] - stated))
        rows.append(dict(eps_bar=eb, stated=stated, z=z, **r, nearest=nearest, distance=r[nearest] - stated))
    broken = [r for r in rows if r["pld_lower"] > r["stated"]]
    certified = [r for r in rows if r["pld_upper"] <= r["stated"]]
    verdict = "violated" if broken else ("holds" if len(certified) == len(rows) else "inconclusive")
    readings = ("rdp", "moments_accountant_2016", "pld_lower", "pld_upper")
    reproduced = sum(any(abs(r[k] - r["stated"]) <= 0.005 for k in readings) for r in rows)  # to the stated 2 decimals
    evidence = (f"{verdict} (exact): at the reconstructed calibration (z = 256σ from {rows[0]['z']:.3g} at "
                f"ε̄ = {rows[0]['eps_bar']:g} to {rows[-1]['z']:.3g} at {rows[-1]['eps_bar']:g}) "
                f"{len(certified)}/{len(rows)} stated ε are certified by the pessimistic PLD ε and {len(broken)} are "
                "exceeded by the optimistic one; per ε̄ (stated: RDP, 2016 moments accountant, PLD): "
                + "; ".join(f"{r['eps_bar']:g}: {r['stated']:g}: {r['rdp']:.3g}, {r['moments_accountant_2016']:.3g}, "
                            f"{r['pld_upper']:.3g}" for r in rows)
                + "; nearest reading: " + ", ".join(f"{r['nearest']} ({r['distance']:+.3g})" for r in rows)
                + f"; {reproduced}/{len(rows)} stated values reproduced to their two decimals by some reading")
    counter = dict(min(broken, key=lambda r: r["eps_bar"])) if broken else None
    xs = list(f["eps_bar"])
    fig = Figure("footnote3", "adp footnote 3: the experiments' ε by the accountants", [Panel(
        "σ of Theorem 4.1 at ε = 16ε̄, T = 11 700, batch 256 of 50 000, δ = 1e-5", "ε̄ (the paper's budget / 16)", "ε",
        [Series("stated (footnote 3)", xs, list(f["stated"]), style="points"),
         Series("dp-accounting RDP", xs, [r["rdp"] for r in rows]),
         Series("2016 moments accountant", xs, [r["moments_accountant_2016"] for r in rows]),
         Series("PLD (pessimistic)", xs, [r["pld_upper"] for r in rows], style="dashed")],
        xscale="log", yscale="log")])
    numbers = {"certified": len(certified), "broken": len(broken), "reproduced_to_two_decimals": reproduced,
               "max_abs_distance_nearest": max(abs(r["distance"]) for r in rows)}
    for r in rows:
        for k in ("z", "rdp", "moments_accountant_2016", "pld_lower", "pld_upper"):
            numbers[f"{k}[eps_bar={r['eps_bar']:g}]"] = r[k]
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


# ======================================================================================
# Lemma 2.1: the Gaussian mechanism's calibration, for every ε > 0 as stated
# ======================================================================================
#: relative allowance on dp-accounting's closed-form δ(ε) of the Gaussian mechanism (normal CDFs with relative
#: error ~1e-15 and one cancellation between two terms; 1e-9 is far above it)
LEMMA21_RELATIVE_TOLERANCE = 1e-9


def gaussian_delta_at(sigma_over_delta: float, epsilon: float) -> float:
    """δ(ε) of the Gaussian mechanism with noise std σ and ℓ2 sensitivity Δ (only σ/Δ matters): dp-accounting's
    closed form Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) for the dominating pair N(0, σ²), N(Δ, σ²).

    Parameters
    ----------
    sigma_over_delta : float
        σ/Δ.
    epsilon : float
        The ε.

    Returns
    -------
    float
        δ(ε).
    """
    return float(plm.GaussianPrivacyLoss(standard_deviation=sigma_over_delta, sensitivity=1.0)
                 .get_delta_for_epsilon(epsilon))


def _dwork_roth_range_mutant():
    return Mutant("lemma2_1_epsilon_range:dwork-roth", "theory.adp.lemma2_1_epsilon_range: the lemma restricted to "
                  "ε < 1, the hypothesis of the Dwork–Roth theorem it cites", "theory",
                  lambda: substituted("theory.adp.lemma2_1_epsilon_range", lambda: 1.0))


class Lemma21Settings(NamedTuple):
    deltas: tuple[float, ...]  # the δ grid
    n_eps: int  # points of the log grid of promised ε


LEMMA21_BUDGETS = Budgets(
    quick=Lemma21Settings(deltas=(1e-10, 1e-5, 1e-2, 0.5, 0.9), n_eps=60),
    full=Lemma21Settings(deltas=(1e-12, 1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9,
                                 0.99), n_eps=400))


@claim(
    "adp.lemma2.1",
    kind="privacy",
    statement="""Lemma 2.1 (Gaussian mechanism): for h with ℓ2 sensitivity Δ, h(D) + Z with Z ~ N(0, σ²I_d) satisfies
    (√(2 log(1.25/δ))·Δ/σ, δ)-DP, "where ... ε, δ > 0" — for every σ > 0 and δ ∈ (0, 1), no other hypothesis.""",
    theory=(tadp.lemma2_1_epsilon, tadp.lemma2_1_epsilon_range),
    weaker_if={tadp.lemma2_1_epsilon: "larger"},  # a larger promised ε is a weaker promise
    mutants=[_dwork_roth_range_mutant()],
    notes="Exact (tests = 0). Read as written: the lemma states no bound on ε (the Dwork–Roth theorem it cites needs "
    "ε < 1). For δ on a grid in (0, 1) and σ/Δ such that the promised ε = √(2 log(1.25/δ))·Δ/σ runs over a log grid "
    "(0.01 to 100), the true δ at the promised ε is dp-accounting's closed form for the Gaussian mechanism "
    "(GaussianPrivacyLoss.get_delta_for_epsilon; the mechanism's dominating pair, so it is the exact privacy "
    "curve for every h of sensitivity Δ). Violated when it exceeds δ by more than a relative 1e-9 at a point "
    "inside the lemma's range (lemma2_1_epsilon_range, ∞ as stated), and the smallest such ε is certified again by "
    "dp-accounting's optimistic PLD ε (privacy buckets, grid 1e-4) exceeding the promise; holds when no grid point "
    "breaks it. Reported: for each δ the smallest broken ε on the grid, and that no point with ε < 1 breaks it. "
    "Declared mutant: the range cut to ε < 1, which must turn the verdict to holds.",
)
def lemma2_1(budget: str, seed: int) -> Outcome:
    deltas, n_eps = LEMMA21_BUDGETS.at(budget)
    eps_max = float(tadp.lemma2_1_epsilon_range())
    promised = numeric(tadp.lemma2_1_epsilon())
    grid = np.geomspace(0.01, 100.0, n_eps)
    rows, curves = [], {}
    for dl in deltas:
        c = float(promised(delta=dl, Delta=1.0, sigma=1.0))  # ε·σ/Δ: σ/Δ = c/ε
        ratios = []
        for e in grid:
            z = c / e
            eps = float(promised(delta=dl, Delta=1.0, sigma=z))
            true_delta = gaussian_delta_at(z, eps)
            ratios.append(true_delta / dl)
            rows.append(dict(delta=float(dl), epsilon=eps, sigma_over_Delta=float(z), true_delta=true_delta,
                             inside=eps < eps_max))
        curves[float(dl)] = np.asarray(ratios)
    def breaks(r) -> bool:
        return r["true_delta"] > r["delta"] * (1 + LEMMA21_RELATIVE_TOLERANCE)

    broken = [r for r in rows if r["inside"] and breaks(r)]
    below_one = [r for r in rows if r["epsilon"] < 1 and breaks(r)]
    counter, certified = None, False
    if broken:
        s = min(broken, key=lambda r: r["epsilon"])
        lo, hi = gaussian_epsilon_interval(s["sigma_over_Delta"], s["delta"])
        certified = lo > s["epsilon"]
        counter = dict(s, pld_epsilon_lower=lo, pld_epsilon_upper=hi)
        counter.pop("inside")
    verdict = "violated" if broken and certified else ("holds" if not broken else "inconclusive")
    first_broken = {}
    for r in broken:
        first_broken[r["delta"]] = min(first_broken.get(r["delta"], math.inf), r["epsilon"])
    evidence = (f"{verdict} (exact): {len(broken)}/{len(rows)} grid points (δ ∈ [{min(deltas):g}, {max(deltas):g}], "
                f"promised ε ∈ [0.01, 100]) have a true δ above the stated one; ")
    if counter:
        evidence += (f"the smallest: δ = {counter['delta']:g}, σ/Δ = {counter['sigma_over_Delta']:.4g}, promised "
                     f"ε = {counter['epsilon']:.4g}, true δ = {counter['true_delta']:.3g} "
                     f"({counter['true_delta'] / counter['delta']:.3g}× the stated δ), dp-accounting PLD ε at the "
                     f"stated δ in [{counter['pld_epsilon_lower']:.4g}, {counter['pld_epsilon_upper']:.4g}]; "
                     "smallest broken ε per δ: "
                     + ", ".join(f"{k:g}: {v:.3g}" for k, v in sorted(first_broken.items())) + "; ")
    evidence += f"{len(below_one)} broken points with ε < 1 (Dwork–Roth's hypothesis)"
    fig = Figure("lemma2_1", "adp Lemma 2.1: the classical Gaussian calibration at every ε", [Panel(
        "σ = √(2 log(1.25/δ))·Δ/ε", "promised ε", "true δ at the promised ε / stated δ",
        [Series(f"δ = {k:g}", grid, np.maximum(v, 1e-300)) for k, v in curves.items()]
        + [Series("promise", [grid[0], grid[-1]], [1.0, 1.0], style="dashed")]
        + ([Series("smallest counterexample", [counter["epsilon"]], [counter["true_delta"] / counter["delta"]],
                   style="violation")] if counter else []),
        xscale="log", yscale="log")])
    numbers = {"points": len(rows), "points_broken": len(broken), "points_broken_below_epsilon_1": len(below_one),
               "counterexample_certified_by_pld": float(certified)}
    if counter:
        numbers.update(smallest_broken_epsilon=counter["epsilon"], smallest_broken_delta=counter["delta"],
                       smallest_true_delta_over_stated=counter["true_delta"] / counter["delta"])
    for k, v in sorted(first_broken.items()):
        numbers[f"smallest_broken_epsilon[delta={k:g}]"] = v
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


for _m in ("x10", "x0.1"):
    declare_equivalent("adp.lemma2.1", f"lemma2_1_epsilon_range:{_m}", "the range as stated is unbounded "
                       "(ε ∈ (0, ∞)); a constant multiple of ∞ is ∞, the same statement")

#: explicit points (δ, σ/Δ) where Lemma 2.1 with every variable's exponent mutated still fails (issue 25): the true
#: δ at the mutated promise exceeds the stated δ and dp-accounting's optimistic PLD ε exceeds the mutated promise
LEMMA21_POW_COUNTEREXAMPLES = {"pow1.25": (0.5, 0.2), "pow0.75": (1e-5, 0.5)}
for _m, (_d, _z) in LEMMA21_POW_COUNTEREXAMPLES.items():
    declare_equivalent("adp.lemma2.1", f"lemma2_1_epsilon:{_m}", "the mutated statement is still false: at "
                       f"δ = {_d:g}, Δ = 1, σ = {_z:g} the mutated promise ε is below dp-accounting's optimistic "
                       "PLD ε of that Gaussian mechanism at δ (and its closed-form δ at the promised ε exceeds the "
                       "stated δ), the same exact certificate the claim uses (tests/verify/test_adp_mutation_power.py)")


# ======================================================================================
# (7), (9) and (10): does Proposition 5.1 follow from Theorem 4.2?
# ======================================================================================
P51_CONSISTENCY_SMALLEST = dict(a=1.0, c=1.0, T=9, etaL=1.0)  # T = 9 = 5 + 4a/c, the smallest T the proposition allows


def eq7_against_eq9_eq10(a_: float, c_: float, T_: int, etaL: float) -> dict:
    """The privacy terms of (9) and (10) (as stated) against (7)'s at b_t = √(a + ct), α_t² = b_t (ADP-SGD) and
    α_t = 1 (DP-SGD), all in units of K = d(16G)²B_δ/(2n²ε²); (7) read as printed and with the factor ηL.

    Parameters
    ----------
    a_, c_ : float
        The schedule's a and c.
    T_ : int
        T.
    etaL : float
        The product ηL.

    Returns
    -------
    dict
        ``eq9``, ``eq10``, ``eq7_adp``, ``eq7_dp``, ``eq7_adp_etaL``, ``eq7_dp_etaL``, ``ratio_stated`` ((10)/(9))
        and ``ratio_eq7`` (DP over ADP under (7)).
    """
    b = tadp.polynomial_schedule(T_, a_, c_)
    vals = dict(eta=etaL, L=1.0, T=T_, a=a_, c=c_)
    t9, t10 = (float(numeric(e)(**{s.name: vals[s.name] for s in e.free_symbols}))
               for e in tadp.proposition5_1_privacy_terms())
    adp7, dp7 = tadp.eq7_privacy_term(np.sqrt(b), b), tadp.eq7_privacy_term(np.ones_like(b), b)
    return {"eq9": t9, "eq10": t10, "eq7_adp": adp7, "eq7_dp": dp7, "eq7_adp_etaL": etaL * adp7,
            "eq7_dp_etaL": etaL * dp7, "ratio_stated": t10 / t9, "ratio_eq7": dp7 / adp7}


class P51FromT42Settings(NamedTuple):
    examples: int  # seeded (a, c, T, ηL)
    tmax: int  # largest T


P51_FROM_T42_BUDGETS = Budgets(quick=P51FromT42Settings(examples=200, tmax=10_000),
                               full=P51FromT42Settings(examples=1000, tmax=100_000))


@claim(
    "adp.proposition5.1.from_theorem4.2",
    kind="exact",
    statement="""Proposition 5.1 "under the conditions of Theorem 4.2", with b_t = (a + ct)^{1/2}, a, c > 0 and
    T ≥ 5 + 4a/c: the privacy terms of (9) (ADP-SGD, α_t² = b_t), ηL(16G)²dB_δ√T/(2n²ε²√c), and of (10) (DP-SGD),
    ηL(16G)²dB_δ√T·log(1 + Tc/a)/(n²ε²√c), are what bound (7), d(16G)²B_δ·M({α},{b})/(2n²ε²·Σ_t 1/b_t), gives for
    those schedules: (7), (9) and (10) are consistent with one another.""",
    theory=(tadp.proposition5_1_privacy_terms, tadp.eq7_privacy_term),
    # a larger stated term, or a smaller derived one, follows more easily from (7)
    weaker_if={tadp.proposition5_1_privacy_terms: "larger", tadp.eq7_privacy_term: "smaller"},
    notes="Exact (tests = 0). A bound derived from (7) by substitution can only be looser, so consistency means: at "
    "every admissible (a, c, T) and ηL > 0, (9)'s privacy term ≥ (7)'s at α_t² = b_t and (10)'s ≥ (7)'s at α ≡ 1 "
    "(both in units of K = d(16G)²B_δ/(2n²ε²); the optimisation terms are left out, they carry B_T, which the "
    "text does not define). Two readings of (7): as printed (third term without ηL) and with the factor ηL that "
    "(9) and (10) carry (the descent-lemma derivation). Violated when under both readings some admissible point has "
    "a stated term below (7)'s beyond the rounding bound (exact sums: math.fsum), with the smallest counterexample "
    "a = c = 1, T = 9 (the smallest T allowed), ηL = 1; holds when neither reading is contradicted at the smallest "
    "case nor over a seeded search (a, c ∈ [1e-2, 1e2], T up to 10⁴ quick and 10⁵ full, ηL ∈ [1e-2, 1e2]). "
    "Reported: the improvement factor the proposition states, (10)/(9) = 2·log(1 + Tc/a), beside the one (7) gives, "
    "M_dp/M_adp (about ¼·log T).",
)
def proposition5_1_from_theorem4_2(budget: str, seed: int) -> Outcome:
    examples, tmax = P51_FROM_T42_BUDGETS.at(budget)
    tol = relative_tolerance(tmax)
    s0 = P51_CONSISTENCY_SMALLEST
    r0 = eq7_against_eq9_eq10(s0["a"], s0["c"], s0["T"], s0["etaL"])

    def slacks(r) -> dict:
        return {"printed": min(r["eq9"] / r["eq7_adp"], r["eq10"] / r["eq7_dp"]) - 1.0,
                "etaL": min(r["eq9"] / r["eq7_adp_etaL"], r["eq10"] / r["eq7_dp_etaL"]) - 1.0}

    def sample(rng):
        a_, c_ = 10.0 ** rng.uniform(-2, 2, 2)
        tmin = math.ceil(5 + 4 * a_ / c_)
        T_ = int(min(tmax, round(tmin * 10 ** rng.uniform(0, math.log10(max(tmax / tmin, 1.0))))))
        return a_, c_, max(T_, tmin), 10.0 ** rng.uniform(-2, 2)

    worst = {"printed": (math.inf, None), "etaL": (math.inf, None)}
    ratios = []

    def slack(p) -> float:
        r = eq7_against_eq9_eq10(*p)
        ratios.append((p[2] * p[1] / p[0], r["ratio_stated"], r["ratio_eq7"]))
        s = slacks(r)
        for k in worst:
            if s[k] < worst[k][0]:
                worst[k] = (s[k], p)
        return max(s.values())

    both = random_search(slack, sample, examples, seed)
    s_small = slacks(r0)
    broken_small = all(v < -tol for v in s_small.values())
    violated = broken_small or both.slack < -tol
    verdict = "violated" if violated else "holds"
    counter = dict(s0, **r0) if broken_small else (
        dict(zip(("a", "c", "T", "etaL"), both.example), **eq7_against_eq9_eq10(*both.example)) if violated else None)
    evidence = (f"{verdict} (exact): at a = c = 1, T = 9, ηL = 1 (units of K) (9) gives {r0['eq9']:.4g} against "
                f"(7)'s {r0['eq7_adp']:.4g} for ADP-SGD (both readings of (7) coincide at ηL = 1); (10) gives "
                f"{r0['eq10']:.4g} against {r0['eq7_dp']:.4g} for DP-SGD; over {both.evaluated} seeded admissible "
                f"points the smallest stated/derived − 1 is {worst['printed'][0]:.3g} with (7) as printed and "
                f"{worst['etaL'][0]:.3g} with the factor ηL (the larger of the two per point: {both.slack:.3g}); "
                f"the stated improvement (10)/(9) = 2·log(1 + Tc/a) is {r0['ratio_stated']:.3g} at the smallest case "
                f"where (7) gives M_dp/M_adp = {r0['ratio_eq7']:.3g}")
    xs = np.array([x for x, _, _ in ratios])
    order = np.argsort(xs)
    fig = Figure("proposition5_1_from_theorem4_2", "adp: Proposition 5.1's privacy terms against bound (7)", [Panel(
        "improvement factor, seeded admissible (a, c, T)", "Tc/a", "DP-SGD term / ADP-SGD term",
        [Series("stated: (10)/(9) = 2 log(1 + Tc/a)", xs[order], np.array([s for _, s, _ in ratios])[order],
                style="points"),
         Series("from (7): M_dp/M_adp", xs[order], np.array([m for _, _, m in ratios])[order], style="points")],
        xscale="log", yscale="log")])
    numbers = {"smallest_eq9": r0["eq9"], "smallest_eq7_adp": r0["eq7_adp"], "smallest_eq10": r0["eq10"],
               "smallest_eq7_dp": r0["eq7_dp"], "min_slack_printed": worst["printed"][0],
               "min_slack_etaL": worst["etaL"][0], "min_slack_both": both.slack, "evaluations": both.evaluated + 1,
               "smallest_ratio_stated": r0["ratio_stated"], "smallest_ratio_eq7": r0["ratio_eq7"]}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


for _m in ("pow1.25", "pow0.75"):
    declare_equivalent("adp.proposition5.1.from_theorem4.2", f"proposition5_1_privacy_terms:{_m}", "the mutated "
                       "statement is still false: at the smallest admissible case a = c = 1, T = 9, ηL = 1 (η = "
                       "L = 1) the mutated (9) is 9^{k/2} (k = 5/4 or 3/4), below (7)'s ADP-SGD term 4.02 under both "
                       "readings of (7) (they coincide at ηL = 1)")


# ======================================================================================
# Theorem 4.2: bound (7) itself, measured
# ======================================================================================
#: the configuration (fixed before any run): f(θ; x) = (G²/L)(√(1 + (L‖θ‖/G)²) − 1) for every record (L-smooth,
#: ‖∇f‖ < G, F* = 0 at θ = 0: Assumptions 2.1, 2.2, 3.1 hold), constant b_t = b and α_t = 1 (deterministic), the
#: stepsize η/b = 1/L (Theorem 4.2 puts no condition on η), σ² of (6), θ_0 on the first axis with
#: ‖∇F(θ_0)‖² = g0_over_noise²·dσ²
class Thm42Setting(NamedTuple):
    G: float  # the gradient bound (Assumption 2.2)
    L: float  # the smoothness (Assumption 2.1)
    d: int
    T: int
    b: float  # b_t ≡ b
    n: int
    epsilon: float
    delta: float
    g0_over_noise: float  # ‖∇F(θ_0)‖ in units of √(dσ²)


THM42 = Thm42Setting(G=1.0, L=1.0, d=20, T=50, b=8.0, n=1_000_000, epsilon=1.0, delta=1e-5, g0_over_noise=2.0)


def pseudo_huber_grad(theta: np.ndarray, G: float, L: float) -> np.ndarray:
    """∇f of f(θ) = (G²/L)(√(1 + (L‖θ‖/G)²) − 1): Lθ/√(1 + (L‖θ‖/G)²), rows of ``theta`` independently.

    Parameters
    ----------
    theta : numpy.ndarray
        Points, one per row (the last axis is θ's).
    G : float
        The gradient bound (the supremum of ‖∇f‖).
    L : float
        The smoothness.

    Returns
    -------
    numpy.ndarray
        The gradients, the shape of ``theta``.
    """
    r2 = np.sum(theta * theta, axis=-1, keepdims=True)
    return L * theta / np.sqrt(1.0 + (L * L / (G * G)) * r2)


def theorem4_2_runs(trials: int, seed: int, setting: Thm42Setting) -> dict:
    """Algorithm 1 (lines 3–7, literally; every record has the same f, so ξ_t does not matter) on the pseudo-Huber
    objective, ``trials`` independent runs vectorised in NumPy. Returns ‖∇F(θ_t)‖² for t = 0..T−1 per run,
    E‖∇f(θ_t, ξ_t)‖² per run (the same numbers: f is deterministic), σ², D_F and the schedules.

    Parameters
    ----------
    trials : int
        Independent runs.
    seed : int
        The claim's base seed (the noise comes from its adp.theorem4.2 child seed).
    setting : Thm42Setting
        G, L, d, T, b, n, ε, δ and the initial gradient over the noise.

    Returns
    -------
    dict
        ``grad_sq`` (trials, T), ``sigma2``, ``D_F``, ``eta``, ``b`` and ``alpha``.

    Raises
    ------
    ValueError
        When σ² of (6) is not positive (nδ ≥ 16T).
    """
    G, L, d, T, b, n, epsilon, delta, g0_over_noise = setting
    b_t = np.full(T, float(b))
    alpha = np.ones(T)
    sigma2 = float(numeric(tadp.theorem4_1_variance())(G=G, S_inv_alpha2=float(np.sum(1 / alpha**2)), T=T,
                                                         delta=delta, epsilon=epsilon, n=n))
    if not sigma2 > 0:
        raise ValueError(f"σ² of (6) must be positive (B_δ > 0 needs nδ < 16T; got σ² = {sigma2})")
    eta_ = b / L
    g0 = g0_over_noise * math.sqrt(d * sigma2)
    r0 = g0 / (L * math.sqrt(1.0 - (g0 / G) ** 2))
    D_F = (G * G / L) * (math.sqrt(1.0 + (L * r0 / G) ** 2) - 1.0)
    rng = np.random.default_rng(child_seed(seed, "adp.theorem4.2"))
    theta = np.zeros((trials, d))
    theta[:, 0] = r0
    grad_sq = np.empty((trials, T))
    for t in range(T):
        g = pseudo_huber_grad(theta, G, L)
        grad_sq[:, t] = np.sum(g * g, axis=1)
        c_t = rng.normal(0.0, math.sqrt(sigma2), (trials, d))
        theta = theta - (eta_ / b_t[t]) * (g + alpha[t] * c_t)
    return {"grad_sq": grad_sq, "sigma2": sigma2, "D_F": D_F, "eta": eta_, "b": b_t, "alpha": alpha}


def _eta_l_mutant():
    original = tadp.theorem4_2_bound

    def with_eta_l(b, alpha, expected_grad_sq, D_F, eta_, L_, d_, sigma2):
        """(7) with ηL·σ² in the third term (the first two terms do not contain σ²)."""
        return original(b, alpha, expected_grad_sq, D_F, eta_, L_, d_, eta_ * L_ * sigma2)

    return Mutant("theorem4_2_bound:etaL-privacy-term", "theory.adp.theorem4_2_bound: the third term of (7) with "
                  "the factor ηL that (9) and (10) carry", "theory",
                  lambda: substituted("theory.adp.theorem4_2_bound", with_eta_l))


@claim(
    "adp.theorem4.2",
    kind="expectation",
    tests=1,
    statement="""Theorem 4.2, bound (7): with σ² of (6), Assumptions 2.1, 2.2, 3.1 and deterministic α_t, b_t,
    min_{k ∈ [T−1]} E‖∇F(θ_k)‖² ≤ (1/Σ_t 1/b_{t+1})·(D_F/η + (ηL/2)·Σ_t E‖∇f(θ_t, ξ_t)‖²/b_{t+1}²
    + d(16G)²B_δ·M({α}, {b})/(2n²ε²)), with [N] = {0, …, N} (the paper's notation).""",
    theory=(tadp.theorem4_2_bound,),  # σ² of (6) is the theorem's premise (adp.theorem4.1 tests it), not (7)
    weaker_if={tadp.theorem4_2_bound: "larger"},  # a larger right-hand side is a weaker bound
    mutants=[_eta_l_mutant()],
    notes="Measured (one statistical test). The objective: the same pseudo-Huber f for every record, "
    "f(θ) = (G²/L)(√(1 + (L‖θ‖/G)²) − 1) (L-smooth, ‖∇f‖ < G, F* = 0, D_F = f(θ_0) exactly), G = L = 1, d = 20, "
    "T = 50, b_t ≡ 8, α_t ≡ 1, η = b/L (the theorem puts no condition on η), n = 10⁶, ε = 1, δ = 1e-5, σ² of (6), "
    "θ_0 with ‖∇F(θ_0)‖² = 4dσ²; Algorithm 1 run literally in NumPy (vectorised over runs; 400 quick, 4000 full). "
    "Per run j and step k, X_jk = ‖∇F(θ_k)‖² − B_j, where B_j is (7) evaluated with run j's Σ_t‖∇f(θ_t)‖²/b² "
    "(E[B_j] is the bound). The statement fails iff E[X_k] > 0 for every k: violated by the intersection-union "
    "test — every k's one-sided t lower bound above 0 at the family-corrected level (one test: an IUT needs no "
    "correction over k); holds when some k's upper bound is ≤ 0 at 95% with a Bonferroni split over the T steps; "
    "else inconclusive. Declared mutant: (7) with the factor ηL in its third term (the reading (9) and (10) "
    "imply), which must turn the verdict to holds.",
)
def theorem4_2(budget: str, seed: int) -> Outcome:
    trials = by_budget(budget, 400, 4000)
    cfg = THM42
    runs = theorem4_2_runs(trials, seed, cfg)
    g2 = runs["grad_sq"]
    bounds = np.array([tadp.theorem4_2_bound(runs["b"], runs["alpha"], g2[j], runs["D_F"], runs["eta"], cfg.L,
                                             cfg.d, runs["sigma2"]) for j in range(trials)])
    X = g2 - bounds[:, None]
    ests = [decide.mean_estimate(X[:, k]) for k in range(cfg.T)]
    alpha = decide.spend(1)
    lows = np.array([e.lower(alpha) for e in ests])
    highs = np.array([e.upper((1 - decide.HOLDS_LEVEL) / cfg.T) for e in ests])
    if np.all(lows > 0):
        verdict = "violated"
    elif np.any(highs <= 0):
        verdict = "holds"
    else:
        verdict = "inconclusive"
    k_min = int(np.argmin(g2.mean(axis=0)))
    measured, bound = float(g2.mean(axis=0)[k_min]), float(bounds.mean())
    ctrl = decide.Control("min_k E‖∇F(θ_k)‖² ≤ (7): intersection-union of one-sided t tests over k (violated), "
                          "Bonferroni over k (holds)", alpha, decide.family_text())
    reason = (f"min_k mean ‖∇F(θ_k)‖² = {measured:.4g} (k = {k_min}) against (7) = {bound:.4g}; smallest lower "
              f"bound of E[‖∇F(θ_k)‖²] − (7) over k: {lows.min():.3g}, smallest 95% (Bonferroni) upper bound: "
              f"{highs.min():.3g}")
    dec = decide.Decision(Verdict(verdict), ctrl, measured / bound, float(highs.min()), float(lows.min()), reason)
    counter = None
    if verdict == "violated":
        counter = dict(cfg._asdict(), trials=trials, sigma2=runs["sigma2"], D_F=runs["D_F"], eta=runs["eta"],
                       min_mean_grad_sq=measured, argmin_k=k_min, bound=bound, ratio=measured / bound)
    evidence = (f"{dec.phrase()}; at σ² = {runs['sigma2']:.3g} of (6) (dσ² = {cfg.d * runs['sigma2']:.3g}), "
                f"η = b/L = {runs['eta']:g}, T = {cfg.T}: measured/bound = {measured / bound:.3f}")
    ks = np.arange(cfg.T)
    m, lo, hi = g2.mean(axis=0), g2.mean(axis=0) - 2 * g2.std(axis=0) / math.sqrt(trials), \
        g2.mean(axis=0) + 2 * g2.std(axis=0) / math.sqrt(trials)
    fig = Figure("theorem4_2", "adp Theorem 4.2: E‖∇F(θ_k)‖² against bound (7)", [Panel(
        "pseudo-Huber f, b ≡ 8, α ≡ 1, η = b/L, σ² of (6)", "step k", "E‖∇F(θ_k)‖² / (dσ²)",
        [Series("measured (±2 s.e.)", ks, m / (cfg.d * runs["sigma2"]), lo / (cfg.d * runs["sigma2"]),
                hi / (cfg.d * runs["sigma2"]), style="points"),
         Series("bound (7)", [0, cfg.T - 1], [bound / (cfg.d * runs["sigma2"])] * 2, style="dashed")],
        yscale="log")])
    numbers = {"min_mean_grad_sq": measured, "bound": bound, "ratio": measured / bound, "argmin_k": k_min,
               "min_lower_bound_difference": float(lows.min()), "min_upper_bound_difference": float(highs.min()),
               "sigma2": runs["sigma2"], "D_F": runs["D_F"], "trials": trials}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=[dec])
