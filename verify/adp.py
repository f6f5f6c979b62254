"""Claims of ``adp`` — Wu et al., ADP-SGD: noise adapted to the stepsize (2021).

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the formulas it tests
live in :mod:`theory.adp`.  (Issue 7 in progress: the kernels, the privacy claims and the
measured-utility claims are not written yet.)
"""

from __future__ import annotations

import numpy as np

from theory import adp as ta
from verify.exact import EPS, adversarial_search, edge_values, random_search
from verify.registry import Figure, Outcome, Panel, Series, claim


def _budget(budget: str, quick, full):
    if budget not in ("quick", "full"):
        raise ValueError(f"budget must be quick or full (got {budget!r})")
    return quick if budget == "quick" else full


def relative_tolerance(T: int) -> float:
    """Rounding bound for comparing two M values of length-T sequences, relative to their size.

    Each M is a product of two sums of T positive terms (relative error ≤ (T + 4)u each, u the unit
    roundoff, recursive-summation bound) and a quotient; a difference of two such is within 4(T + 4)u.
    """
    return 4.0 * (T + 4) * EPS


@claim(
    "adp.remark4.1",
    kind="exact",
    statement="""Remark 4.1: for any positive {b_t} and {α_t}, M({α},{b}) = Σ(α_t/b_t)²·Σ1/α_t² ≥ M_adp = (Σ1/b_t)²,
    with equality at α_t² = b_t; hence M_dp/M_adp = T·Σ1/b_t²/(Σ1/b_t)² ≥ 1 (Cauchy–Schwarz).""",
    theory=("theory.adp.m_value", "theory.adp.m_adp", "theory.adp.m_dp", "theory.adp.m_ratio"),
    notes="Exact: seeded search over sequences with exponents drawn from edge values in [-6, 6] (α_t, b_t = 10^u), "
    "lengths 1..200, plus L-BFGS-B over log α for fixed b; the equality case α² = b is evaluated on every b drawn. "
    "The tolerance is the rounding bound of theory's sums (verify.adp.relative_tolerance).",
)
def remark4_1(budget: str, seed: int) -> Outcome:
    examples, starts, tmax = _budget(budget, (400, 6, 60), (4000, 30, 200))

    def pair(rng):
        k = int(rng.integers(1, tmax + 1))
        return 10.0 ** edge_values(rng, k, -6.0, 6.0), 10.0 ** edge_values(rng, k, -6.0, 6.0)

    eq_dev, ratio_min = [0.0], [np.inf]

    def slack(p) -> float:
        alpha, b = p
        tol = relative_tolerance(b.size)
        m, madp = ta.m_value(alpha, b), ta.m_adp(b)
        eq_dev[0] = max(eq_dev[0], abs(ta.m_value(np.sqrt(b), b) - madp) / madp / tol)
        ratio_min[0] = min(ratio_min[0], (ta.m_ratio(b) - 1.0) / tol)
        return (m - madp) / m / tol  # in units of the rounding bound: ≥ −1 means "holds"

    hw = random_search(slack, pair, examples, seed)
    adv = []
    for k, dim in enumerate((2, 5, 20)):
        b = 10.0 ** np.random.default_rng(seed + k).uniform(-3, 3, dim)
        adv.append(adversarial_search(lambda u, b=b: slack((10.0 ** u, b)), dim, (-6.0, 6.0), starts, seed + 7 + k))
    worst = min([hw] + adv, key=lambda w: w.slack)
    holds = worst.slack >= -1.0 and eq_dev[0] <= 1.0 and ratio_min[0] >= -1.0
    counter = None
    if not holds:
        alpha, b = worst.example if isinstance(worst.example, tuple) else (10.0 ** worst.example, None)
        counter = {"alpha": np.asarray(alpha).tolist(), "b": None if b is None else np.asarray(b).tolist(),
                   "slack_in_rounding_units": worst.slack}
    n_eval = hw.evaluated + sum(w.evaluated for w in adv)
    evidence = (f"{n_eval} evaluations: min (M − M_adp)/M = {worst.slack:.3g} rounding bounds (≥ −1 holds); "
                f"|M(√b) − M_adp|/M_adp ≤ {eq_dev[0]:.3g} rounding bounds; min (M_dp/M_adp − 1) = {ratio_min[0]:.3g} "
                "rounding bounds")
    Ts = np.unique(np.logspace(0, 6, 13).astype(int))
    ratios = [ta.m_ratio(ta.polynomial_schedule(int(k), 1.0, 1.0)) for k in Ts]
    fig = Figure("remark4_1", "adp Remark 4.1: M_dp/M_adp ≥ 1", [Panel(
        "b_t = √(1 + t)", "T", "M_dp / M_adp", [Series("exact ratio", Ts, ratios),
                                                 Series("Cauchy–Schwarz floor 1", Ts, np.ones(Ts.size), style="dashed")],
        xscale="log")])
    figures = {"evaluations": n_eval, "min_slack_rounding_units": worst.slack,
               "max_equality_deviation_rounding_units": eq_dev[0], "min_ratio_minus_1_rounding_units": ratio_min[0]}
    return Outcome("holds" if holds else "violated", evidence, figures, counter, [fig])


# ======================================================================================
# Lemma 2.2: extended advanced composition against the optimal composition
# ======================================================================================
def _lemma22_case(rng: np.random.Generator, kmax: int) -> tuple[np.ndarray, np.ndarray, float]:
    k = int(rng.integers(1, kmax + 1))
    eps = np.clip(edge_values(rng, k, 1e-3, 0.999), 1e-3, 0.999)  # the lemma needs ε_i ∈ (0, 1)
    deltas = 10.0 ** -edge_values(rng, k, 2.0, 12.0)
    delta_prime = float(10.0 ** -rng.uniform(0.05, 10.0))
    return eps, deltas, delta_prime


@claim(
    "adp.lemma2.2",
    kind="privacy",
    statement="""Lemma 2.2: if M_i is (ε_i, δ_i)-DP with ε_i, δ_i ∈ (0,1), the composition is (ε̃, δ̃)-DP with
    ε̃ = √(2 log(1/δ')·Σε_i²) + Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) and δ̃ = 1 − Π(1 − δ_i) + δ', for every δ' ∈ (0,1).""",
    theory=("theory.adp.extended_advanced_composition",),
    notes="Checked against the worst case over all mechanisms with those parameters: dp-accounting's PLD of the "
    "dominating pair of a generic (ε_i, δ_i)-DP mechanism, composed, read at δ̃ (verify.privacy."
    "optimal_composition_epsilon; its grid rounds pessimistically, so it over-states the optimal ε by at most "
    "k·grid). Violated if that ε exceeds ε̃ by more than the grid allowance; the worst ratio is reported. Cases: "
    "seeded edge values for k ≤ 12 (ε_i near 0 and 1, ties, spikes), δ_i ∈ [1e-12, 1e-2], δ' ∈ [1e-10, 0.9].",
)
def lemma2_2(budget: str, seed: int) -> Outcome:
    from verify.privacy import optimal_composition_epsilon

    cases, kmax = _budget(budget, (40, 6), (400, 12))
    vdi = 1e-4
    rng = np.random.default_rng(np.random.SeedSequence([seed, 22]))
    rows = []
    for _ in range(cases):
        eps, deltas, dp_ = _lemma22_case(rng, kmax)
        e_t, d_t = ta.extended_advanced_composition(eps, deltas, dp_)
        if d_t >= 1:
            continue
        e_opt = optimal_composition_epsilon(eps, deltas, d_t, vdi)
        rows.append(dict(k=eps.size, eps=eps.tolist(), deltas=deltas.tolist(), delta_prime=dp_, eps_tilde=e_t,
                         delta_tilde=d_t, eps_optimal=e_opt, slack=e_t - (e_opt - eps.size * vdi)))
    worst = min(rows, key=lambda r: r["slack"])
    ratio = max(r["eps_optimal"] / r["eps_tilde"] for r in rows)
    verdict = "holds" if worst["slack"] >= 0 else "violated"
    evidence = (f"{len(rows)} cases (k ≤ {kmax}): optimal-composition ε ≤ ε̃ in every case; largest ratio "
                f"optimal/ε̃ = {ratio:.3f}" if verdict == "holds" else
                f"ε̃ = {worst['eps_tilde']:.4g} < optimal ε {worst['eps_optimal']:.4g} at k = {worst['k']}")
    ks = [r["k"] for r in rows]
    fig = Figure("lemma2_2", "adp Lemma 2.2 vs optimal composition", [Panel(
        "optimal ε / Lemma 2.2's ε̃ (≤ 1 means the lemma is valid there)", "number of mechanisms k", "ratio",
        [Series("cases", ks, [r["eps_optimal"] / r["eps_tilde"] for r in rows], style="points"),
         Series("1", [min(ks), max(ks)], [1.0, 1.0], style="dashed")])])
    return Outcome(verdict, evidence, {"cases": len(rows), "max_ratio_optimal_over_tilde": ratio,
                                       "min_slack": worst["slack"]}, worst if verdict == "violated" else None, [fig])


# ======================================================================================
# Theorem 4.1: the noise calibration against the accountant
# ======================================================================================
THM41_GRIDS = {
    "quick": dict(T=(100, 1000), n=(1000,), epsilon=(0.5, 2.0), delta=(1e-5,)),
    "full": dict(T=(100, 1000, 10000, 100000), n=(1000, 60000), epsilon=(0.5, 1.0, 2.0, 4.0), delta=(1e-5,)),
}
THM41_BLOCKS = 64
THM41_PLD_BLOCKS = {"quick": 8, "full": 32}


def alpha_schedule(kind: str, T: int) -> np.ndarray:
    """α_t, t = 1..T: "dp" (α ≡ 1), "adp_poly" (α_t² = b_t, b_t = √(1 + t)), "adp_adaptive" (α_t = (1 + t)^{1/4})."""
    t = np.arange(1, T + 1, dtype=np.float64)
    if kind == "dp":
        return np.ones(T)
    if kind == "adp_poly":
        return np.sqrt(np.sqrt(1.0 + t))
    if kind == "adp_adaptive":
        return (1.0 + 1.0 * t) ** 0.25  # b_0² = 1, C = 1
    raise ValueError(f"schedule must be dp, adp_poly or adp_adaptive (got {kind!r})")


def _thm41_task(schedule: str, T: int, n: int, epsilon: float, delta: float, pld_blocks: int = 32) -> dict:
    """σ from eq. (6) (G = 1) and upper bounds on the accountant ε of the T steps (RDP, and PLD where needed).

    Step t releases ∇f(θ; x_ξ) + α_t c_t with ξ uniform on n records (one draw, with replacement) and
    ‖∇f‖ ≤ G: a subsampled Gaussian with rate 1/n and noise multiplier α_t σ/G.  The steps are grouped
    into blocks, each accounted at its smallest α (more privacy loss), so the RDP ε is an upper bound.
    """
    from theory import numeric
    from verify.privacy import composed_epsilon

    alpha = alpha_schedule(schedule, T)
    s_inv = float(np.sum(1.0 / alpha**2))
    var = float(numeric(ta.theorem4_1_variance())(G=1.0, S_inv_alpha2=s_inv, T=T, delta=delta, epsilon=epsilon, n=n))
    sigma = var**0.5
    def phases(k: int):
        return [(1.0 / n, float(alpha[b].min()) * sigma, int(b.size)) for b in np.array_split(np.arange(T), min(k, T))]

    eps_rdp = composed_epsilon(phases(THM41_BLOCKS), delta, "rdp")
    eps_pld = float("nan")
    if eps_rdp > epsilon:  # RDP's conversion is loose at small noise multipliers: ask the PLD accountant
        eps_pld = composed_epsilon(phases(pld_blocks), delta, "pld")
    return {"sigma": sigma, "eps_rdp": eps_rdp, "eps_pld": eps_pld, "eps_upper": float(np.nanmin([eps_rdp, eps_pld]))}


@claim(
    "adp.theorem4.1",
    kind="privacy",
    statement="""Theorem 4.1: with c_t ~ N(0, σ²I), σ² = (16G)²·B_δ/(n²ε²)·Σ_t 1/α_t², B_δ = log(16T/(nδ))·log(1.25/δ),
    Algorithm 1 (one record drawn uniformly per step, gradients bounded by G) is (ε, δ)-DP.""",
    theory=("theory.adp.theorem4_1_variance", "theory.adp.b_delta"),
    notes="Accountant: dp-accounting RDP on the composed subsampled Gaussian steps (rate 1/n; for one draw with "
    "replacement the step's privacy-loss pair is that of the Poisson-subsampled Gaussian), add/remove adjacency with "
    "sensitivity G; heterogeneous α_t grouped into ≤ 64 blocks accounted at the block's smallest α, so the ε reported "
    "is an upper bound. Where RDP's bound exceeds the promise, dp-accounting's (pessimistic) PLD on ≤ 32 such blocks "
    "(8 at the quick budget) is asked as well and the smaller upper bound kept. holds when it is ≤ the promised ε at every grid point (with the conservativeness factor "
    "promised/accountant), inconclusive otherwise (an upper bound above ε does not show a violation). Schedules: "
    "DP-SGD (α ≡ 1), ADP with α_t² = √(1 + t), ADP-adaptive α_t = (1 + t)^{1/4}.",
)
def theorem4_1(budget: str, seed: int) -> Outcome:
    from verify.runner import sweep

    g = THM41_GRIDS[_budget(budget, "quick", "full")]
    points = [dict(schedule=s, T=T, n=n, epsilon=e, delta=d, pld_blocks=THM41_PLD_BLOCKS[budget])
              for s in ("dp", "adp_poly", "adp_adaptive")
              for T in g["T"] for n in g["n"] for e in g["epsilon"] for d in g["delta"]]
    rows = sweep(_thm41_task, points, "adp.theorem4.1 accountant")
    factors = [p["epsilon"] / float(r["eps_upper"]) for p, r in zip(points, rows)]
    above = [(p, r) for p, r in zip(points, rows) if float(r["eps_upper"]) > p["epsilon"]]
    verdict = "holds" if not above else "inconclusive"
    evidence = (f"{len(points) - len(above)}/{len(points)} (schedule, T, n, ε, δ) points certified: accountant ε "
                f"(upper bound: RDP, or PLD where RDP exceeds the promise) ≤ promised; promised/accountant ε from {min(factors):.3g} to {max(factors):.3g}")
    if above:
        p, r = above[0]
        evidence += f"; not certified e.g. {p}: ε ≤ {float(r['eps_upper']):.4g}"
    series = []
    for s in ("dp", "adp_poly", "adp_adaptive"):
        sel = [(p["T"], f) for p, f in zip(points, factors) if p["schedule"] == s and p["n"] == g["n"][0]
               and p["epsilon"] == g["epsilon"][0] and p["delta"] == g["delta"][0]]
        series.append(Series(s, [x[0] for x in sel], [x[1] for x in sel]))
    fig = Figure("theorem4_1", "adp Theorem 4.1: how conservative the calibration is", [Panel(
        f"promised ε / accountant ε (n = {g['n'][0]}, ε = {g['epsilon'][0]:g}, δ = {g['delta'][0]:g})", "T",
        "conservativeness factor", series, xscale="log", yscale="log")])
    figures = {"points": len(points), "points_not_certified": len(above), "min_conservativeness": min(factors),
               "max_conservativeness": max(factors)}
    return Outcome(verdict, evidence, figures, None, [fig])
