"""Claims of ``noisy_adagrad``: the privacy statements (App. A.2; §4.1 with App. C.6).

- Lemma 5 (§4.1, App. C.6): the sensitivity of the preconditioner G_t over neighbouring datasets
  (``noisy_adagrad.lemma5``);
- Theorem 10 (App. A.2, Theorem A.1 of Dwork and Roth): the classical Gaussian-mechanism calibration against the
  accountant (``noisy_adagrad.theorem10``);
- §4.1's noise scales σ_b and σ_B of private noisy AdaGrad against the accountant
  (``noisy_adagrad.section4.1.sigma``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import sympy as sp

from dpvalidate import InvalidParameter
from theory import noisy_adagrad as tn
from theory import numeric
from verify import decide
from verify.exact import adversarial_search
from verify.findings import Finding, PaperSetting, Region, parts_finding
from verify.mutants import declare_equivalent
from verify.papers.noisy_adagrad._common import _fmt_ci, _sweep
from verify.privacy import (
    calibrate_multiplier,
    epsilon_of,
    gaussian_epsilon,
    gaussian_epsilon_exact,
    gaussian_epsilon_interval,
)
from verify.registry import Budgets, Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.stats import loglog_slope


# ======================================================================================
# Lemma 5: sensitivity of G_t over neighbouring datasets
# ======================================================================================
def lemma5_gap(a: np.ndarray, h: np.ndarray) -> float:
    """‖G^D − G^{D'}‖_F for per-step averages a_i (D', without the record) and a_i + h_i (D).

    Parameters
    ----------
    a : numpy.ndarray
        The per-step average gradients on D′, shape (t, p).
    h : numpy.ndarray
        The record's contributions, shape (t, p).

    Returns
    -------
    float
        The Frobenius distance of the two G = (MᵀM)^{1/2}.
    """
    def root(M):
        w, U = np.linalg.eigh(M.T @ M)
        return (U * np.sqrt(np.clip(w, 0, None))) @ U.T
    return float(np.linalg.norm(root(a + h) - root(a)))


def lemma5_gaps(a: np.ndarray, h: np.ndarray) -> np.ndarray:
    """:func:`lemma5_gap` of a stack of pairs, bit-for-bit, in stacked NumPy calls (one eigh per side for the
    whole stack; NumPy loops the same LAPACK/BLAS routines over it).

    Parameters
    ----------
    a : numpy.ndarray
        The per-step average gradients on D′ of each pair, shape (k, t, p).
    h : numpy.ndarray
        The record's contributions of each pair, shape (k, t, p).

    Returns
    -------
    numpy.ndarray
        The Frobenius distance of the two G = (MᵀM)^{1/2} of each pair, shape (k,).
    """
    def root(M):
        w, U = np.linalg.eigh(np.swapaxes(M, 1, 2) @ M)
        return (U * np.sqrt(np.clip(w, 0, None))[:, None, :]) @ np.swapaxes(U, 1, 2)
    D = (root(a + h) - root(a)).reshape(len(a), 1, -1)
    return np.sqrt((D @ np.swapaxes(D, 1, 2))[:, 0, 0])  # each D·D, as np.linalg.norm of one pair computes it


def _to_balls(x: np.ndarray, t: int, p: int, n: int, L: float = 1.0):
    """Map a box point to (a_i) with ‖a_i‖ ≤ L(n−1)/n and (h_i) with ‖h_i‖ ≤ L/n (t rows each); a stack of
    points (shape (k, 2tp)) to stacks of both, shape (k, t, p) each, with the same arithmetic per point."""
    z = x.reshape(2, t, p) if x.ndim == 1 else x.reshape(len(x), 2, t, p)
    nz = np.maximum(1.0, np.linalg.norm(z, axis=-1, keepdims=True))
    z = z / nz
    return z[..., 0, :, :] * L * (n - 1) / n, z[..., 1, :, :] * L / n


def lemma5_worst(t: int, n: int, p: int, starts: int, random_cases: int, seed: int) -> dict:
    """Worst ‖G_t^D − G_t^{D'}‖_F/(L√t/n) found (L = 1): seeded random + structured cases + L-BFGS-B.

    Parameters
    ----------
    t : int
        Steps.
    n : int
        Records.
    p : int
        The dimension.
    starts : int
        L-BFGS-B starts.
    random_cases : int
        Random cases.
    seed : int
        The claim's base seed (a noisy_adagrad.lemma5 child seed per (t, n, p)).

    Returns
    -------
    dict
        ``worst`` (the ratio), ``worst_gap`` (the distance) and ``evaluated`` (cases evaluated).
    """
    rng = np.random.default_rng(child_seed(seed, "noisy_adagrad.lemma5", t, n, p))
    scale = math.sqrt(t) / n
    best = 0.0
    for _ in range(random_cases):
        x = rng.uniform(-1, 1, 2 * t * p) * 10.0 ** rng.uniform(-3, 0, 2 * t * p)
        best = max(best, lemma5_gap(*_to_balls(x, t, p, n)) / scale)
    # structured: a_i along e1 with magnitudes 10^u (inside the ball ‖a_i‖ ≤ L(n−1)/n), h_i = ±L/n along e2 or mixed
    for mag in (0.0, 1e-3, 1e-2, 0.1, 1.0):
        for mix in (0.0, 0.5, 1.0):
            a = np.zeros((t, p))
            h = np.zeros((t, p))
            a[:, 0] = mag * (n - 1) / n
            h[:, 0] = (1 - mix) / n
            if p > 1:
                h[:, 1] = math.sqrt(max(0.0, 1 - (1 - mix) ** 2)) / n
            best = max(best, lemma5_gap(a, h) / scale)
    adv = adversarial_search(lambda x: -lemma5_gap(*_to_balls(x, t, p, n)) / scale, 2 * t * p, (-1.0, 1.0), starts,
                             int(rng.integers(0, 2**31)),
                             batch=lambda xs: -lemma5_gaps(*_to_balls(xs, t, p, n)) / scale)
    if -adv.slack > best:
        best = -adv.slack
    return {"worst": best, "worst_gap": best * scale, "evaluated": random_cases + 15 + adv.evaluated}


#: a fixed witness pair at n = 2 (found once by a search over one-column pairs, fixed before the check): every
#: a_i = L(n−1)/n·e₁ and h_i = (L/n)(cos φ, sin φ, 0), φ = 1.68 rad, in the lemma's balls; its gap is ≈ 1.262·L√t/n
#: at every t (G_t = √t·|a + h|-rank-one), close to the supremum at n = 2, where the proof's line (48) equals the
#: rigorous √2·L√t/n
LEMMA5_WITNESS_PHI = 1.68
#: (L, t) of the witness points (n = 2): the statements are claimed for every L, t and n ≥ 2; a small L with t < n
#: and a large L with t > n² are where a wrong power of L, t or n in the two explicit bounds would show
LEMMA5_WITNESS_POINTS = ((1e-2, 1), (1e2, 16))


def lemma5_witness_gap(L: float, t: int, n: int = 2, p: int = 3) -> float:
    """‖G_t^D − G_t^{D'}‖_F of the fixed witness pair (:data:`LEMMA5_WITNESS_PHI`) at (L, t, n): a valid
    neighbouring pair (‖a_i‖ = L(n−1)/n, ‖h_i‖ = L/n), so its gap is a lower bound on the sensitivity.

    Parameters
    ----------
    L : float
        The gradient bound.
    t : int
        Steps.
    n : int
        Records (>= 2).
    p : int
        The dimension (>= 2).

    Returns
    -------
    float
        The gap, exactly as :func:`lemma5_gap` computes it.
    """
    a, h = np.zeros((t, p)), np.zeros((t, p))
    a[:, 0] = L * (n - 1) / n
    h[:, 0] = L / n * math.cos(LEMMA5_WITNESS_PHI)
    h[:, 1] = L / n * math.sin(LEMMA5_WITNESS_PHI)
    return lemma5_gap(a, h)


class Lemma5Settings(NamedTuple):
    ts: tuple[int, ...]  # steps t of the grid
    ns: tuple[int, ...]  # dataset sizes n of the grid
    starts: int  # L-BFGS-B starts per grid point
    cases: int  # seeded random cases per grid point


#: the largest log-log slope (along t, along n) of the worst ratio to the statement's L√t/n that a bounded ratio may
#: show on the grid (the decide default margin; fixed before the data: the search found 1.3582–1.4142 flat in t)
LEMMA5_SLOPE_MARGIN = decide.SLOPE_MARGIN

LEMMA5_BUDGETS = Budgets(quick=Lemma5Settings(ts=(1, 2, 4), ns=(10, 100, 1000), starts=1, cases=30),
                         full=Lemma5Settings(ts=(1, 2, 4, 8, 16, 32), ns=(10, 100, 1000, 10000), starts=10,
                                             cases=400))


@claim(
    "noisy_adagrad.lemma5",
    kind="rate",
    statement="""Lemma 5: the Frobenius (ℓ2) sensitivity of the preconditioner G_t = (Σ_{i≤t}∇_i∇_iᵀ)^{1/2} over
    neighbouring datasets is O(L√t/n); the proof's last line (48) reads L√t/√n.""",
    theory=(tn.lemma5_statement, tn.lemma5_proof_line, tn.lemma5_rigorous),
    notes="Neighbours as in the proof: ∇_i^D = ∇_i^{D'} + g_{i,n}, ‖g_{i,n}‖ ≤ L/n, ‖∇_i^{D'}‖ ≤ L(n−1)/n, the past "
    "iterates fixed (adaptive composition). Adversarial search (seeded random, structured cases, L-BFGS-B) for the "
    "worst ‖G^D − G^{D'}‖_F/(L√t/n) at p = 3 over t and n. Exact decision (no statistical test): the statement holds "
    "with the constant √2 by Araki–Yamagami (G = |Aᵀ|), so the verdict is holds when every ratio found is ≤ √2 "
    "(rounding allowance 1e-9) and violated, with the case, when the search exceeds that ceiling (a kernel or "
    "ceiling fault; the negative control plants such growth). The rate is decided too: the log-log slopes in n and "
    "in t of the worst ratio to the statement's form (a certified lower bound on the supremum at every grid point) "
    "may not exceed the margin 0.1 (decide.SLOPE_MARGIN, fixed in advance) — growth along the grid contradicts a "
    "bounded ratio (violated). "
    "The declared forms are the ones evaluated: the ratio is to lemma5_statement on the grid, the ceiling is "
    "lemma5_rigorous/lemma5_statement (√2), and every worst gap is also compared with lemma5_rigorous and with the "
    "proof's line lemma5_proof_line pointwise (both are upper bounds; a gap above either is violated). Both explicit "
    "bounds are also checked, exactly, at fixed witness pairs off the grid (n = 2, where line (48) equals the "
    "rigorous bound; (L, t) = (0.01, 1) and (100, 16); LEMMA5_WITNESS_PHI): on the grid (L = 1, t < n) a wrong power "
    "of L, t or n can only loosen them. The search's structured cases keep ‖a_i‖ ≤ L(n−1)/n, inside the hypothesis "
    "(‖a_i‖ = L would be outside it).",
)
def lemma5(budget: str, seed: int) -> Outcome:
    ts, ns, starts, cases = LEMMA5_BUDGETS.at(budget)
    tasks = [dict(t=int(t), n=int(n), p=3, starts=starts, random_cases=cases, seed=seed) for t in ts for n in ns]
    outs = _sweep(lemma5_worst, tasks, "noisy_adagrad.lemma5 search")
    gap = np.array([float(o["worst_gap"]) for o in outs]).reshape(len(ts), len(ns))  # worst ‖G^D − G^{D'}‖_F, L = 1
    tt, nn = np.meshgrid(np.array(ts, float), np.array(ns, float), indexing="ij")
    # the declared forms evaluated on the grid (L = 1): the statement's unit, the rigorous bound, the proof's line
    unit = np.asarray(numeric(tn.lemma5_statement())(L=1.0, n=nn, t=tt), float)
    rig_bound = np.asarray(numeric(tn.lemma5_rigorous())(L=1.0, n=nn, t=tt), float)
    line48 = np.asarray(numeric(tn.lemma5_proof_line())(L=1.0, n=nn, t=tt), float)
    W = gap / unit
    evaluated = int(sum(int(o["evaluated"]) for o in outs))
    worst = float(W.max())
    # reported, not deciding: the growth of the worst ratio along n and t (a search result, no sampling error)
    fit_n = loglog_slope(np.array(ns, float), W.max(axis=0))
    fit_t = loglog_slope(np.array(ts, float), W.max(axis=1))
    proof_line = gap / line48  # ratio to the proof's L√t/√n
    fit_proof = loglog_slope(np.array(ns, float), proof_line.max(axis=0))
    rig = float(numeric(tn.lemma5_rigorous())(L=1.0, n=1.0, t=1.0) / numeric(tn.lemma5_statement())(L=1.0, n=1.0,
                                                                                                       t=1.0))
    # exact decision: the O(L√t/n) statement holds with the constant √2 (Araki–Yamagami, a proof); the search can
    # refute that ceiling (a worst ratio above √2 beyond rounding), never confirm a larger constant. Both bounds the
    # paper and the proof give are also checked pointwise: the rigorous √2·L√t/n and the proof's line (48), L√t/√n
    # (looser by √(n/2) ≥ 1 on the grid, n ≥ 10)
    exceeds = bool(np.any(gap > rig_bound * (1 + 1e-9)) or np.any(gap > line48 * (1 + 1e-9)))
    # the two explicit bounds at fixed witness pairs off the grid (n = 2, any L, t): exact, no search
    wit = []
    for Lw, tw in LEMMA5_WITNESS_POINTS:
        gw = lemma5_witness_gap(Lw, tw)
        wit.append(dict(L=Lw, t=tw, n=2, gap=gw,
                        rigorous=float(numeric(tn.lemma5_rigorous())(L=Lw, n=2.0, t=float(tw))),
                        proof_line=float(numeric(tn.lemma5_proof_line())(L=Lw, n=2.0, t=float(tw)))))
    wit_broken = [w for w in wit if w["gap"] > w["rigorous"] * (1 + 1e-9) or w["gap"] > w["proof_line"] * (1 + 1e-9)]
    exceeds = exceeds or bool(wit_broken)
    # the rate itself: O(L√t/n) says the worst ratio to L√t/n stays bounded along t and n.  The search's worst gap is
    # a certified lower bound on the supremum, so a ratio that grows along the grid (log-log slope above the margin
    # fixed in advance) contradicts the stated rate; flat (≤ margin) is what a bounded ratio gives
    grows = bool(fit_t.slope.estimate > LEMMA5_SLOPE_MARGIN or fit_n.slope.estimate > LEMMA5_SLOPE_MARGIN)
    verdict = "violated" if worst > rig * (1 + 1e-9) or exceeds or grows else "holds"
    fig = Figure("lemma5", "noisy_adagrad Lemma 5: preconditioner sensitivity", [
        Panel("worst ‖G^D − G^{D'}‖_F found, in units of L√t/n", "n", "ratio",
              [Series(f"t = {t}", ns, W[i], style="points") for i, t in enumerate(ts)]
              + [Series("√2 (rigorous ceiling)", [ns[0], ns[-1]], [rig, rig], style="dashed")], xscale="log"),
        Panel("the same, in units of the proof's L√t/√n", "n", "ratio",
              [Series(f"t = {t}", ns, proof_line[i], style="points") for i, t in enumerate(ts)],
              xscale="log", yscale="log")])
    evidence = (f"{'holds (exact)' if verdict == 'holds' else 'violated (exact)'}: {evaluated} evaluations over "
                f"t ∈ {list(ts)}, n ∈ {list(ns)}: worst ratio to L√t/n = {worst:.4f} "
                f"({'>' if worst > rig * (1 + 1e-9) else '≤'} the rigorous ceiling √2 = 1.4142); slope in "
                f"n {_fmt_ci(fit_n.slope)}, in t {_fmt_ci(fit_t.slope)} "
                f"({'>' if grows else '≤'} the margin {LEMMA5_SLOPE_MARGIN:g}); against the proof's L√t/√n the ratio "
                f"falls "
                f"with slope {_fmt_ci(fit_proof.slope)} in n (≈ −1/2: that line is loose by √n — and §4.1's σ_B(t) = "
                f"O(L√(Tt log(1/δ))/(ε√n)), built on it, carries √n more preconditioner noise than privacy needs); "
                "fixed witness pairs at n = 2: " + "; ".join(
                    f"L = {w['L']:g}, t = {w['t']}: gap {w['gap']:.4g} against the rigorous {w['rigorous']:.4g} and "
                    f"line (48) {w['proof_line']:.4g}" for w in wit)
                + f" ({len(wit_broken)} above a bound)")
    summary = (f"{verdict} (exact): the worst ‖G^D − G^D'‖_F over {evaluated} evaluations is {worst:.4f}·L√t/n "
               f"({'above' if worst > rig * (1 + 1e-9) else 'within'} √2), "
               f"{'growing' if grows else 'flat'} in t and n; the proof's line (48), L√t/√n, and §4.1's σ_B built on "
               "it are loose by √n.")

    def fin(v):
        return v if math.isfinite(v) else str(v)

    points = [{"part": "search grid", "t": int(t), "n": int(nv), "worst gap": float(gap[i, j]),
               "ratio to L√t/n": float(W[i, j]), "ratio to L√t/√n": float(proof_line[i, j]),
               "rigorous √2·L√t/n": float(rig_bound[i, j]), "line (48)": float(line48[i, j])}
              for i, t in enumerate(ts) for j, nv in enumerate(ns)]
    points += [{"part": f"log-log slope of the worst ratio {what}", "along": ax, "slope": fin(f.slope.estimate),
                "lo": fin(f.slope.lo), "hi": fin(f.slope.hi), "margin": LEMMA5_SLOPE_MARGIN if decides else None,
                "decides": decides}
               for what, ax, f, decides in (("to L√t/n", "n", fit_n, True), ("to L√t/n", "t", fit_t, True),
                                            ("to the proof's L√t/√n", "n", fit_proof, False))]
    points += [{"part": "witness pair", "L": w["L"], "t": w["t"], "n": w["n"], "gap": w["gap"],
                "rigorous √2·L√t/n": w["rigorous"], "line (48)": w["proof_line"], "above a bound": w in wit_broken}
               for w in wit]
    points.append({"part": "witness pairs above a bound", "count": len(wit_broken), "of": len(wit)})
    figures = {"evaluations": evaluated, "witness_points_broken": len(wit_broken),
               "witness_min_bound_over_gap": min(min(w["rigorous"], w["proof_line"]) / w["gap"] for w in wit),
               "worst_ratio_L_sqrt_t_over_n": worst, "rigorous_ceiling": rig,
               "slope_in_n": fit_n.slope.estimate, "slope_in_t": fit_t.slope.estimate,
               "slope_vs_proof_line_in_n": fit_proof.slope.estimate}
    counter = None if verdict == "holds" else {"worst_ratio": worst, "ceiling": rig, "slope_in_t": fit_t.slope.estimate,
                                               "slope_in_n": fit_n.slope.estimate, "witness_broken": wit_broken}
    finding = None
    if verdict == "violated":
        bad = (gap > rig_bound * (1 + 1e-9)) | (gap > line48 * (1 + 1e-9)) | (W > rig * (1 + 1e-9))
        n_bad = int(bad.sum()) + len(wit_broken)
        finding = Finding(
            region=Region(explored=W.size + len(wit), failing=n_bad,
                          text=f"{int(bad.sum())} of {W.size} grid points (t ∈ {list(ts)}, n ∈ {list(ns)}) above "
                          f"√2·L√t/n or line (48), {len(wit_broken)} of {len(wit)} witness pairs above a bound; "
                          f"worst ratio {worst:.4g}, slopes in t {fit_t.slope.estimate:.3g} and in n "
                          f"{fit_n.slope.estimate:.3g} (margin {LEMMA5_SLOPE_MARGIN:g})"),
            at_paper_setting=PaperSetting(
                where="§4.1's use: the sensitivity at every step t ≤ T (the grid's t and n; the paper fixes no n)",
                measure="worst ‖G^D − G^{D'}‖_F/(L√t/n) over √2", size=worst / rig,
                fails=bool(worst > rig * (1 + 1e-9) or exceeds or grows)),
            no_repair_reason="the statement holds with the constant √2 (Araki–Yamagami, ‖|A| − |B|‖_F ≤ √2‖A − B‖_F): "
                             "a ratio above it or growth along the grid is a search or kernel fault")
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=points)


# ======================================================================================
# Theorem 10: the classical Gaussian-mechanism calibration against the accountant
# ======================================================================================
def _thm10_point(epsilon: float, delta: float, Delta: float = 1.0) -> dict:
    # the noise multiplier σ/Δ: the accountant's ε depends on nothing else
    z = float(numeric(tn.theorem10_sigma())(Delta=Delta, delta=delta, epsilon=epsilon)) / Delta
    try:
        lo, hi = gaussian_epsilon_interval(z, delta, 1, 1e-4)
    except InvalidParameter as exc:
        # a multiplier far below the calibration's: its losses pass 200 nats and the 1e-4 grid would hold more than
        # MAX_PLD_POINTS points.  A coarser grid is no way out: there dp-accounting's PLD ε goes wrong once ε passes
        # ~709 (e^ε overflows; its optimistic ε exceeds the true one by ~1 nat at z = 0.025), so the point takes
        # dp-accounting's analytic Gaussian ε instead (no grid; bracketed to its rounding)
        if exc.name != "value_discretization_interval":
            raise
        lo, hi = gaussian_epsilon_exact(z, delta)
        return {"z": z, "eps_lo": lo, "eps_hi": hi, "grid": 0.0}
    return {"z": z, "eps_lo": lo, "eps_hi": hi, "grid": 1e-4}


#: sensitivities Δ₂ ≠ 1 at which the calibration is also checked (at every ε < 1 of the grid and the largest δ): the
#: theorem is for every Δ₂ > 0, and σ/Δ₂ must not depend on it — a wrong power of Δ₂ shows only away from Δ₂ = 1
THEOREM10_DELTA2 = (1e-2, 1e2)


class Theorem10Settings(NamedTuple):
    eps_in: tuple[float, ...]  # ε inside the hypothesis (ε < 1)
    eps_out: tuple[float, ...]  # ε outside it (reported only)
    deltas: tuple[float, ...]


THEOREM10_BUDGETS = Budgets(
    quick=Theorem10Settings(eps_in=(0.1, 0.5, 0.99), eps_out=(2.0,), deltas=(1e-3, 1e-10)),
    full=Theorem10Settings(eps_in=(0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99), eps_out=(1.0, 2.0, 4.0, 8.0, 16.0),
                           deltas=(1e-2, 1e-3, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12)))


@claim(
    "noisy_adagrad.theorem10",
    kind="privacy",
    statement="""Theorem 10 (Dwork–Roth A.1): for ε ∈ (0, 1) and c² > 2 ln(1.25/δ), the Gaussian mechanism with
    σ ≥ cΔ₂/ε is (ε, δ)-DP.""",
    theory=(tn.theorem10_sigma,),
    weaker_if={"theory.noisy_adagrad.theorem10_sigma": "larger"},  # more noise required: a weaker promise
    notes="σ at the boundary c = √(2 ln(1.25/δ)); dp-accounting's PLD of the Gaussian mechanism (optimistic and "
    "pessimistic discretisations bracket the true ε). Holds if the upper ε ≤ the promised ε at every grid point with "
    "ε < 1; violated if the lower ε exceeds it anywhere there. Points with ε ≥ 1 lie outside the hypothesis and are "
    "reported only. The extraction prints '2 ln(1.25δ)'; the classical 1.25/δ is used. The theorem is for every "
    "Δ₂ > 0: every ε < 1 of the grid is also checked at Δ₂ = 0.01 and 100 (largest δ of the grid; the accountant sees "
    "σ/Δ₂ only), where a wrong power of Δ₂ shows. PLD grid 1e-4 nats; where dp-accounting cannot hold that grid "
    "(a multiplier far below the calibration's, losses beyond ~200 nats) its analytic Gaussian ε (no grid, "
    "gaussian_epsilon_exact; its PLD ε on coarser grids is wrong past ε ≈ 709).",
)
def theorem10(budget: str, seed: int) -> Outcome:
    eps_in, eps_out, deltas = THEOREM10_BUDGETS.at(budget)
    tasks = [dict(epsilon=float(e), delta=float(d)) for e in eps_in + eps_out for d in deltas]
    scale_tasks = [dict(epsilon=float(e), delta=float(max(deltas)), Delta=float(D)) for e in eps_in
                   for D in THEOREM10_DELTA2]
    outs = _sweep(_thm10_point, tasks + scale_tasks, "noisy_adagrad.theorem10 accountant")
    rows = [dict(**t, **{k: float(v) for k, v in o.items()}) for t, o in zip(tasks + scale_tasks, outs)]
    rows, scale_rows = rows[:len(tasks)], rows[len(tasks):]
    inside = [r for r in rows if r["epsilon"] < 1] + scale_rows
    outside = [r for r in rows if r["epsilon"] >= 1]
    broken = [r for r in inside if r["eps_lo"] > r["epsilon"]]
    uncertain = [r for r in inside if r["eps_hi"] > r["epsilon"] >= r["eps_lo"]]
    verdict = "violated" if broken else ("inconclusive" if uncertain else "holds")
    worst_in = max(inside, key=lambda r: r["eps_hi"] / r["epsilon"])
    out_broken = [r for r in outside if r["eps_lo"] > r["epsilon"]]
    fig = Figure("theorem10", "noisy_adagrad Theorem 10: classical Gaussian calibration vs accountant", [Panel(
        "σ = √(2 ln(1.25/δ))·Δ/ε", "promised ε", "accountant ε / promised ε",
        [Series(f"δ = {d:g}, Δ₂ = 1", [r["epsilon"] for r in rows if r["delta"] == d],
                [r["eps_hi"] / r["epsilon"] for r in rows if r["delta"] == d], style="points") for d in deltas]
        + [Series("promise", [min(eps_in), max(eps_out)], [1, 1], style="dashed")], xscale="log")])
    evidence = (f"{len(inside)} points with ε < 1: accountant ε ≤ promised everywhere, largest ratio "
                f"{worst_in['eps_hi'] / worst_in['epsilon']:.3f} (ε = {worst_in['epsilon']:g}, δ "
                f"= {worst_in['delta']:g}); "
                f"outside the hypothesis (ε ≥ 1) the calibration fails at {len(out_broken)}/{len(outside)} points; "
                f"{len(scale_rows)} of the points with ε < 1 at Δ₂ ∈ {list(THEOREM10_DELTA2)}"
                if verdict == "holds" else f"{len(broken)} broken, {len(uncertain)} uncertain of {len(inside)} points")
    figures = {"points": len(inside), "points_broken": len(broken), "points_uncertain": len(uncertain),
               "max_ratio_inside": worst_in["eps_hi"] / worst_in["epsilon"],
               "outside_points_broken": len(out_broken), "outside_points": len(outside)}
    finding = None
    if broken:
        worst_lo = max(broken, key=lambda r: r["eps_lo"] / r["epsilon"])
        finding = Finding(
            region=Region(explored=len(inside), failing=len(broken),
                          text=f"the accountant's lower ε exceeds the promised ε at {len(broken)} of {len(inside)} "
                          "points with ε < 1 (δ and Δ₂ of the grid)"),
            at_paper_setting=PaperSetting(
                where="the theorem's hypothesis ε < 1 at the grid's δ (the paper fixes no ε, δ for Theorem 10)",
                measure="largest lower accountant ε / promised ε", size=worst_lo["eps_lo"] / worst_lo["epsilon"],
                fails=True),
            no_repair_reason="Theorem 10 is Dwork–Roth's Theorem A.1, proved for every ε < 1 and δ: a failure here "
                             "is an accountant or calibration fault, not the statement")
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=broken[0] if broken else None,
                   plots=[fig], finding=finding)


# --------------------------------------------------------------------------------------
# §4.1: σ_b and σ_B against the accountant
# --------------------------------------------------------------------------------------
#: the axes along which §4.1's implied constants are followed to their limits (quick, full); the last two points of
#: each axis give the tail slope.  ε ∈ (0, 1] is Theorem 10's range; n, T, t grow; δ shrinks.
SEC41_AXES = {"quick": dict(T=(10, 100, 1000, 10_000), n=(10, 1000, 100_000, 10_000_000), eps=(1.0, 0.1, 0.01),
                            delta=(1e-3, 1e-6, 1e-9, 1e-12)),
              "full": dict(T=(10, 100, 1000, 10_000, 100_000), n=(10, 1000, 100_000, 10_000_000, 1_000_000_000),
                           eps=(1.0, 0.3, 0.1, 0.03, 0.01, 0.003), delta=(1e-3, 1e-5, 1e-7, 1e-9, 1e-11, 1e-13))}
#: the gradient bound L, both ways (the statement is for every L > 0; a correct calibration is scale-free, so the
#: constants do not move with L at all): L → 0 (the slope is taken against 1/L) and L → ∞
SEC41_L_AXES = {"L_small": (1.0, 1e-2, 1e-4, 1e-6), "L_large": (1.0, 1e2, 1e4, 1e6)}
#: the axes decided by the accountant's tail slopes; ε → 0 and δ → 0 are decided in closed form (Theorem 10)
SEC41_SLOPE_AXES = ("T", "n", "L_small", "L_large")
SEC41_DELTA_MAX = 1e-3
SEC41_BASE = dict(T=100, n=1000, eps=1.0, delta=1e-5, L=1.0)
#: tail slopes of log(implied constant) against log(axis): ≤ HOLD bounded (flat or falling), > VIOLATE growing
#: (along T and n, where §4.1's forms carry their exponents; the constants are exact functions of T and n)
SEC41_HOLD, SEC41_VIOLATE = 0.05, 0.1
#: direct accountant checks of the calibrated phases (small T: one Gaussian event per step)
SEC41_DIRECT = ((1.0, 1e-5, 10, 40), (0.5, 1e-6, 20, 60))


@lru_cache(maxsize=64)
def sec41_half_multiplier(epsilon: float, delta: float) -> float:
    """z₀: the one-release Gaussian multiplier dp-accounting's PLD certifies (ε/2, δ/2)-DP (add/remove-one;
    relative precision 1e-6, rounded up).

    Parameters
    ----------
    epsilon, delta : float
        The whole budget (ε, δ).

    Returns
    -------
    float
        z₀.
    """

    return calibrate_multiplier(lambda z: gaussian_epsilon(z, delta / 2, 1), epsilon / 2, guess=2.0 / epsilon, rel=1e-6)


def sec41_constants(T: int, n: float, eps: float, delta: float, L: float = 1.0) -> dict:
    """The constants §4.1's O(·) must hide: the smallest c such that T releases of the average gradient (sensitivity
    L/n) with noise c·σ_b, and the T preconditioners G_t + c·σ_B(t)·GOE (Frobenius sensitivity Δ_t of
    lemma5_rigorous, GOE multiplier goe_noise_multiplier), are each (ε/2, δ/2)-DP. The T releases of multipliers z_t
    compose to one Gaussian release of multiplier (Σ_t z_t⁻²)^{−1/2}, which must be at least z₀ (the accountant's).

    Parameters
    ----------
    T : int
        Steps.
    n : float
        Records.
    eps, delta : float
        The whole budget (ε, δ).
    L : float
        The gradient bound.

    Returns
    -------
    dict
        ``z0``, ``c_b``, ``c_B``, ``zb_unit`` (the gradient releases' multiplier at c = 1) and ``zB_unit`` (per t).
    """
    z0 = sec41_half_multiplier(eps, delta)
    t = np.arange(1, T + 1, dtype=float)
    sb = float(numeric(tn.sigma_b_calibration())(L=L, T=T, delta=delta, epsilon=eps, n=n))
    zb_unit = sb / (L / n)  # each gradient release's multiplier at c = 1
    c_b = z0 * math.sqrt(T) / zb_unit
    sB = np.asarray(numeric(tn.sigma_B_calibration())(L=L, T=T, t=t, delta=delta, epsilon=eps, n=n), float)
    sB = np.broadcast_to(sB, t.shape)
    dt = np.broadcast_to(np.asarray(numeric(tn.lemma5_rigorous())(L=L, t=t, n=n), float), t.shape)
    zB_unit = np.broadcast_to(np.asarray(numeric(tn.goe_noise_multiplier())(sigma=sB, Delta=dt), float), t.shape)
    c_B = z0 * math.sqrt(float(np.sum(zB_unit ** -2.0)))
    return {"z0": z0, "c_b": c_b, "c_B": c_B, "zb_unit": zb_unit, "zB_unit": zB_unit}


def sec41_direct(eps: float, delta: float, n: int, T: int) -> dict:
    """dp-accounting's PLD ε (at δ/2, add/remove-one) of each phase at its calibrated constant (c_b, c_B), one
    Gaussian event per step, and of the gradient phase as printed (c = 1).

    Parameters
    ----------
    eps, delta : float
        The whole budget (ε, δ).
    n : int
        Records.
    T : int
        Steps.

    Returns
    -------
    dict
        ``eps_b``, ``eps_B``, ``eps_b_unit_constant``, ``c_b`` and ``c_B``.
    """
    from dp_accounting import dp_event as dpe

    k = sec41_constants(T, n, eps, delta)
    ev_b = dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(k["c_b"] * k["zb_unit"]), T)
    ev_B = dpe.ComposedDpEvent([dpe.GaussianDpEvent(float(k["c_B"] * z)) for z in k["zB_unit"]])
    ev_1 = dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(k["zb_unit"]), T)
    return {"eps_b": epsilon_of(ev_b, delta / 2, "pld"), "eps_B": epsilon_of(ev_B, delta / 2, "pld"),
            "eps_b_unit_constant": epsilon_of(ev_1, delta / 2, "pld"), **{x: k[x] for x in ("c_b", "c_B")}}


def _tail_slope(xs, cs) -> float:
    return float((math.log(cs[-1]) - math.log(cs[-2])) / (math.log(xs[-1]) - math.log(xs[-2])))


for _fn in ("sigma_b_calibration", "sigma_B_calibration", "lemma5_rigorous", "goe_noise_multiplier"):
    for _m in ("x10", "x0.1"):
        declare_equivalent("noisy_adagrad.section4.1.sigma", f"{_fn}:{_m}", "§4.1's forms are O(·): a constant "
                           "factor changes the implied constant, not whether it stays bounded")
declare_equivalent("noisy_adagrad.section4.1.sigma", "theorem10_sigma:x10", "Theorem 10's multiplier serves as an "
                   "upper bound on the accountant's; 10× larger it is still one, and the limits stay finite")


def sec41_closed_constants() -> dict:
    """The constants §4.1's forms need when one release's multiplier is Theorem 10's (an upper bound on the
    accountant's z₀ for ε/2 < 1, checked pointwise): K_b = z₁₀(ε/2, δ/2)·√T·(L/n)/σ_b and K_B = z₁₀(ε/2, δ/2)·√T/z_t
    with z_t = goe_noise_multiplier(σ_B(t), Δ_t) (SymPy, simplified), and their limits ε → 0⁺ and δ → 0⁺.

    Returns
    -------
    dict
        ``K_b`` and ``K_B`` (``sympy.Expr``), and for each ``_eps0``, ``_delta0`` and ``_at_delta_max`` (δ =
        SEC41_DELTA_MAX).
    """
    e, d = tn.epsilon, tn.delta
    half = {e: e / 2, d: d / 2}
    z10 = tn.theorem10_sigma().xreplace({**half, tn.Delta: 1})
    zt = tn.goe_noise_multiplier().xreplace({tn.sigma: tn.sigma_B_calibration(), tn.Delta: tn.lemma5_rigorous()})
    out = {"K_b": sp.simplify(z10 * sp.sqrt(tn.T) * tn.L / tn.n / tn.sigma_b_calibration()),
           "K_B": sp.simplify(z10 * sp.sqrt(tn.T) / zt)}
    for key in ("K_b", "K_B"):
        out[f"{key}_eps0"] = sp.limit(out[key], e, 0, "+")
        out[f"{key}_delta0"] = sp.limit(out[key], d, 0, "+")
        out[f"{key}_at_delta_max"] = out[key].subs(d, sp.Float(SEC41_DELTA_MAX))
    return out


def _bounded(x) -> bool:
    """A limit or value that is a finite number, or finite in the remaining positive symbols (no ∞, no NaN)."""
    x = sp.sympify(x)
    return not (x.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or isinstance(x, sp.Limit) or x.is_infinite)


@claim(
    "noisy_adagrad.section4.1.sigma",
    kind="privacy",
    statement="""§4.1: "Lemma 5 below and standard use of Renyi composition theorem imply that ensuring σ_B(t) =
    O(L√(Tt log(1/δ))/(ε√n)) in Algorithm A_noisy-AdaGrad ensures (ε/2, δ/2)-differential privacy to the
    computation of all the H_t's"; "ensuring σ_b(t) = O(L√(T log(1/δ))/(εn)) ... ensures (ε/2, δ/2)-differential
    privacy to the computation of all the (∇_t + b_t)'s"; together (ε, δ)-DP.""",
    theory=(tn.sigma_b_calibration, tn.sigma_B_calibration, tn.lemma5_rigorous, tn.goe_noise_multiplier,
            tn.theorem10_sigma),
    notes="Exact (accountant and SymPy; tests = 0). Reading: the paper prints no constant, so 'σ = O(f)' suffices "
    "when one constant c makes c·f (ε/2, δ/2)-private for every T, n, t, every δ ≤ 1e-3 and every ε ∈ (0, 1] "
    "(Theorem 10's range). Sensitivities: L/n for the average gradient, Δ_t = √2·L√t/n (lemma5_rigorous) for G_t in "
    "Frobenius norm, GOE multiplier σ_B√2/Δ_t; add/remove-one. The T releases of a phase with multipliers z_t "
    "compose to one Gaussian of multiplier (Σ z_t⁻²)^{−1/2}, which must be at least z₀, the one-release multiplier "
    "dp-accounting's PLD certifies (ε/2, δ/2)-DP. (i) Along T and n (where the forms carry their exponents) the "
    "constant the accountant requires (sec41_constants) is followed from (T, n, ε, δ) = (100, 1000, 1, 1e-5) to "
    "T = 10⁴ / 10⁵ and n = 10⁷ / 10⁹ (quick/full), and along the gradient bound L from 1 to 10⁻⁶ (slope against "
    "1/L) and to 10⁶ (the statement is for every L; correct forms are scale-free in L): bounded when every tail "
    "log-log slope is ≤ 0.05, growing when one exceeds 0.1. (ii) Along ε → 0 and δ → 0 (where the PLD accountant "
    "cannot follow: it fails below "
    "δ ≈ 1e-20) the constants are bounded in closed form through Theorem 10's multiplier √(2 ln(1.25/δ'))/ε' at "
    "(ε/2, δ/2) — valid since the accountant's z₀ is at most it at every grid point (checked) — with SymPy "
    "limits ε → 0⁺, δ → 0⁺ (K_b → 2√2; K_B → 2√2/√n). (iii) The calibrated phases are checked directly with "
    "dp-accounting, one Gaussian event per step (T = 40, 60): ε ≤ ε/2 to the PLD grid. Verdict: holds when (i) is "
    "bounded, (ii) has finite limits and the pointwise check, and (iii) passes; violated when a tail slope exceeds "
    "0.1, a limit is infinite, or (iii) fails; inconclusive otherwise. Reported: the accountant's constants (c_b ≈ "
    "1.4–2.5: σ_b with the printed constant 1 is NOT (ε/2, δ/2)-DP — its accountant ε is given) and that σ_B "
    "carries √n where the √2·L√t/n sensitivity needs 1/n: over-calibrated by √n (it follows Lemma 5's proof line "
    "L√t/√n, not its statement). Constant mutants are equivalent under the O(·) reading (declared; Theorem 10's "
    "×10 too, its ×0.1 breaks the pointwise bound); exponent mutants move the tail slopes or the limits; those "
    "that σ_B's √n slack absorbs along T and n (σ_B ×5/4, the sensitivity ×3/4, the GOE multiplier ×3/4) break the "
    "scale in L (the constant then moves like L^(∓1/4)).",
)
def section4_1_sigma(budget: str, seed: int) -> Outcome:
    axes = by_budget(budget, SEC41_AXES["quick"], SEC41_AXES["full"])
    base = SEC41_BASE
    curves, slopes, along = {}, {}, {}
    z_check = []
    for ax, vals in {**axes, **SEC41_L_AXES}.items():
        along[ax] = vals
        param = "L" if ax.startswith("L_") else ax
        pts = [sec41_constants(**{**base, param: v}) for v in vals]
        xs = ([1.0 / v for v in vals] if ax in ("eps", "L_small") else [math.log(1.0 / v) for v in vals]
              if ax == "delta" else list(vals))
        for which in ("c_b", "c_B"):
            cs = [p[which] for p in pts]
            curves[(ax, which)] = (xs, cs)
            slopes[f"{which}_{ax}"] = _tail_slope(xs, cs)
        for v, p_ in zip(vals, pts):
            e_, d_ = (v, base["delta"]) if ax == "eps" else (base["eps"], v) if ax == "delta" else \
                (base["eps"], base["delta"])
            z10 = float(numeric(tn.theorem10_sigma())(Delta=1.0, delta=d_ / 2, epsilon=e_ / 2))
            z_check.append(p_["z0"] / z10)
    closed = sec41_closed_constants()
    limits_ok = all(_bounded(closed[f"{k}_{w}"]) for k in ("K_b", "K_B") for w in ("eps0", "delta0", "at_delta_max"))
    th10_bounds = max(z_check) <= 1.0
    direct = [dict(eps=e, delta=d, n=nn, T=TT, **sec41_direct(e, d, nn, TT)) for e, d, nn, TT in SEC41_DIRECT]
    # a PLD grid of 1e-4 per event: allow T·1e-4 of rounding above ε/2
    direct_ok = all(r["eps_b"] <= r["eps"] / 2 + r["T"] * 1e-4 and r["eps_B"] <= r["eps"] / 2 + r["T"] * 1e-4
                    for r in direct)
    decided = {k: v for k, v in slopes.items() if any(k.endswith(f"_{a}") for a in SEC41_SLOPE_AXES)}
    top = max(decided.values())
    worst = max(decided, key=decided.get)
    if top > SEC41_VIOLATE or not limits_ok or not direct_ok:
        verdict = "violated"
    elif top <= SEC41_HOLD and th10_bounds:
        verdict = "holds"
    else:
        verdict = "inconclusive"
    cb_all = [c for (ax, w), (_, cs) in curves.items() if w == "c_b" for c in cs]
    cB_n = curves[("n", "c_B")][1]
    evidence = (f"{verdict} (accountant + SymPy): (i) the constants the accountant requires — c_b ∈ "
                f"[{min(cb_all):.3g}, {max(cb_all):.3g}] for σ_b, c_B from {cB_n[0]:.3g} at n = {axes['n'][0]:g} to "
                f"{cB_n[-1]:.3g} at n = {axes['n'][-1]:g} for σ_B — have tail log-log slopes along T, n and L "
                f"(→ 0 and → ∞) ≤ "
                f"{top:.3g} (largest {worst}; bounded ≤ {SEC41_HOLD}, growing > {SEC41_VIOLATE}); (ii) through "
                f"Theorem 10 (accountant z₀ ≤ {max(z_check):.3f}× its multiplier at every grid point): K_b = "
                f"{closed['K_b']} → {closed['K_b_eps0']} (ε → 0), {closed['K_b_delta0']} (δ → 0); K_B = "
                f"{closed['K_B']} → {closed['K_B_delta0']} (δ → 0); (iii) dp-accounting on the calibrated phases: "
                + "; ".join(f"ε = {r['eps']:g}, δ = {r['delta']:g}, n = {r['n']}, T = {r['T']}: ε_b = "
                            f"{r['eps_b']:.4g}, ε_B = {r['eps_B']:.4g} (target {r['eps'] / 2:g}); σ_b with constant 1:"
                            f" ε = {r['eps_b_unit_constant']:.3g}" for r in direct)
                + ". Both O(·) calibrations suffice with some constant; σ_b's is about 2–3 (the printed constant 1 "
                "is not enough) and σ_B is over-calibrated by √n (it follows Lemma 5's proof line L√t/√n)")
    summary = (f"{verdict}: the constants σ_b and σ_B need (dp-accounting) have tail slopes ≤ {top:.3g} along T, n "
               f"and L, Theorem 10's limits are {'finite' if limits_ok else 'not all finite'} and the calibrated "
               f"phases {'keep' if direct_ok else 'exceed'} ε/2 each; σ_b's constant is about 2–3, not the printed "
               "1, and σ_B is over-calibrated by √n.")
    axis_name = {"T": "T", "n": "n", "eps": "1/ε", "delta": "log(1/δ)", "L_small": "L → 0", "L_large": "L → ∞"}
    points = [{"part": "constant the accountant requires", "axis": axis_name[ax], "constant": which,
               "tail slope": slopes[f"{which}_{ax}"], "decides": ax in SEC41_SLOPE_AXES,
               "bounded if ≤": SEC41_HOLD, "growing if >": SEC41_VIOLATE, "smallest": min(cs), "largest": max(cs),
               "first value": float(along[ax][0]), "constant there": cs[0], "last value": float(along[ax][-1]),
               "constant at last": cs[-1]} for (ax, which), (_, cs) in curves.items()]
    points.append({"part": "Theorem 10", "largest accountant z₀ / Theorem 10's multiplier": max(z_check)})
    points += [{"part": "closed form", "constant": "K_b", "expression": str(closed["K_b"]),
                "ε → 0": str(closed["K_b_eps0"]), "δ → 0": str(closed["K_b_delta0"])},
               {"part": "closed form", "constant": "K_B", "expression": str(closed["K_B"]),
                "δ → 0": str(closed["K_B_delta0"])}]
    points += [{"part": "dp-accounting, calibrated phases", "ε": r["eps"], "δ": r["delta"], "n": r["n"], "T": r["T"],
                "ε_b": r["eps_b"], "ε_B": r["eps_B"], "target": r["eps"] / 2,
                "ε of σ_b with constant 1": r["eps_b_unit_constant"]} for r in direct]
    panels = []
    for ax, label in (("T", "T"), ("n", "n"), ("eps", "1/ε"), ("delta", "log(1/δ)")):
        panels.append(Panel(f"along {label} (others at T = 100, n = 1000, ε = 1, δ = 1e-5)", label,
                            "constant the accountant requires",
                            [Series("c_b (σ_b)", *curves[(ax, "c_b")], style="points"),
                             Series("c_B (σ_B)", *curves[(ax, "c_B")], style="points")], xscale="log", yscale="log"))
    fig = Figure("section4_1_sigma", "noisy_adagrad §4.1: the constants σ_b and σ_B need (dp-accounting)", panels)
    numbers = {f"tail_slope_{k}": v for k, v in slopes.items()}
    numbers.update({"c_b_min": min(cb_all), "c_b_max": max(cb_all), "c_B_at_largest_n": cB_n[-1],
                    "max_accountant_over_theorem10_multiplier": max(z_check), "closed_limits_finite": float(limits_ok)})
    for i, r in enumerate(direct):
        numbers.update({f"direct{i}_eps_b": r["eps_b"], f"direct{i}_eps_B": r["eps_B"],
                        f"direct{i}_eps_b_unit_constant": r["eps_b_unit_constant"]})
    counter = None
    if verdict == "violated":
        counter = {"largest_tail_slope": worst, "value": top, "closed": {k: str(v) for k, v in closed.items()},
                   "direct": direct}
    finding = sec41_finding(decided, closed, direct) if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=points)


def sec41_finding(decided: dict, closed: dict, direct: list) -> Finding:
    """The finding of a violated §4.1 calibration: the parts the verdict rests on, one point each — every decided
    tail slope of the constants (growing above SEC41_VIOLATE), every closed-form limit (infinite) and every direct
    dp-accounting check of a calibrated phase (above ε/2 beyond the PLD grid's rounding) — failing where they fail
    the verdict's rule; no edge.

    §4.1 states no numeric instance (O(·) calibrations with no constant), so the size at the paper's setting is not
    computed there; an O(·) calibration that fails does so in its exponents, and no corrected form is decided.

    Parameters
    ----------
    decided : dict
        Tail slope per decided curve (``c_b_T``, ``c_B_n``, …).
    closed : dict
        :func:`sec41_closed_constants`.
    direct : list of dict
        The rows of :func:`sec41_direct` with their ``eps``, ``delta``, ``n``, ``T``.

    Returns
    -------
    verify.findings.Finding
    """
    parts = [(f"tail log-log slope of {k} = {v:.3g}", "violated" if v > SEC41_VIOLATE else "holds")
             for k, v in decided.items()]
    parts += [(f"{key}_{w} = {closed[f'{key}_{w}']}", "holds" if _bounded(closed[f"{key}_{w}"]) else "violated")
              for key in ("K_b", "K_B") for w in ("eps0", "delta0", "at_delta_max")]
    for r in direct:
        ok = r["eps_b"] <= r["eps"] / 2 + r["T"] * 1e-4 and r["eps_B"] <= r["eps"] / 2 + r["T"] * 1e-4
        parts.append((f"calibrated phases at ε = {r['eps']:g}, δ = {r['delta']:g}, n = {r['n']}, T = {r['T']}: "
                      f"ε_b = {r['eps_b']:.4g}, ε_B = {r['eps_B']:.4g} (target {r['eps'] / 2:g})",
                      "holds" if ok else "violated"))
    return parts_finding(
        parts, what="§4.1's calibrations: tail slopes of the constants, closed-form limits, direct accountant checks",
        paper_where="§4.1 states no numeric instance (σ_b, σ_B given as O(·) with no constant): the failure's size "
                    "there is not computed",
        no_repair_reason="an O(·) calibration fails in its exponents (a constant would be absorbed): the check "
                         "decides no corrected exponent")
