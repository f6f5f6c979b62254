"""Claims of ``dp_adam_design`` — Ganesh, McMahan, Thakurta, *On Design Principles for Private Adaptive
Optimizers* (2025).

Each claim is one decorated ``check(budget, seed) -> Outcome``; the closed forms are in
:mod:`theory.dp_adam_design` (derived there in SymPy: the paper's formulas were lost in extraction),
the algorithms in :mod:`kernels.dp_adam` and the problems in :mod:`kernels.dp_adam_problems`.
Monte-Carlo work goes through :func:`verify.runner.sweep` with module-level task functions whose
keyword arguments carry their seed.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats as st

import dpvalidate as V
from dpvalidate import InvalidParameter
from kernels import dp_adam as kd
from kernels import dp_adam_problems as kdp
from theory import dp_adam_design as td
from theory import numeric
from verify import decide
from verify.audit import AUDIT_DELTA, audit_level, audit_outcome, claim_method, epsilon_lower_bound
from verify.exact import EPS, adversarial_search, edge_values, random_search
from verify.mutants import declare_equivalent, kernel_mutant
from verify.privacy import gaussian_epsilon, gaussian_epsilon_interval
from verify.registry import Budgets, Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import claim_scope, sweep
from verify.stats import clopper_pearson, mean_ci


def _rel_estimate(samples, target: float) -> decide.Estimate:
    """(mean(samples) − target)/|target| with its t standard error (n − 1 degrees of freedom)."""
    e = decide.mean_estimate(samples)
    scale = abs(float(target))
    return decide.Estimate((e.value - target) / scale, e.se / scale, e.df)


def _verdict(decisions, exact_ok: bool = True) -> str:
    """An exact failure is a violation by itself (a computed counterexample); otherwise the decisions decide."""
    return "violated" if not exact_ok else str(decide.combine(decisions))


# ======================================================================================
# §3.1 the post-processing bias of v (independent noise and DP-MF)
# ======================================================================================
S31_NOISES = ("identity", "half", "banded")


def _s31_task(noise: str, d: int, batch: int, rounds: int, beta2: float, sigma: float, trials: int,
              seed: int) -> dict:
    """Mean over coordinates of (v_t − v_t^clean)/s² per round, per trial, for post-processing DP-Adam.

    The clean stream is the same kernel with σ = 0 on the same data stream (synthetic gradients do not
    depend on θ, so both runs see identical per-record gradients)."""
    prob = kdp.synthetic_gradients(d=d, batch=batch, scale="powerlaw", alpha=1.0, alignment=0.5, norm=1.5,
                                 seed=seed)
    kw = dict(variant="post_processing", lr=1e-3, beta1=0.9, beta2=beta2, xi=1e-8, clip_norm=1.0,
              batch_size=batch)
    noisy = kd.run_stream(kd.RoundConfig(sigma=sigma, **kw), prob.grad_fn(), d, rounds, trials=trials, seed=seed,
                         strat_kind=noise, record_v=True)
    clean = kd.run_stream(kd.RoundConfig(sigma=0.0, **kw), prob.grad_fn(), d, rounds, trials=trials, seed=seed,
                         record_v=True)
    strat = kd.strategy(noise, rounds) if noise != "identity" else None
    s2 = kd.noise_stds(kd.RoundConfig(sigma=sigma, **kw), 1.0 if strat is None else strat.sensitivity)[0] ** 2
    excess = (noisy["v_hist"] - clean["v_hist"]).mean(axis=2) / s2  # (trials, rounds)
    rows = np.ones(rounds) if strat is None else strat.row_norms2()
    return {"excess": excess, "row_norms2": rows, "s2": s2}


def dpmf_bias_closed_form(row_norms2: np.ndarray, beta2: float, s_value: float, t_value: int) -> float:
    """App. A's DP-MF excess of E[v_t], evaluated from its closed form.

    The closed form is theory.dp_adam_design.postprocessing_bias_dpmf, the sum Σ_k (1 − β₂)β₂^{t−k}s²r_k,
    evaluated at round ``t_value`` with r_k = ``row_norms2[k − 1]``.

    Parameters
    ----------
    row_norms2 : numpy.ndarray
        The squared row norms r_1, r_2, … of the DP-MF decoder; at least ``t_value`` entries.
    beta2 : float
        Adam's second-moment decay β₂.
    s_value : float
        The per-round noise scale s (σC/B).
    t_value : int
        The round t (>= 1) at which the sum is evaluated.

    Returns
    -------
    float
        The excess Σ_{k=1..t} (1 − β₂)β₂^{t−k}s²r_k (NaN when the declared sum cannot be evaluated from
        ``row_norms2``: a range beyond its rows, or a term left symbolic).
    """
    import sympy as sp

    e = td.postprocessing_bias_dpmf().subs({td.beta2: beta2, td.s: s_value, td.t: int(t_value)}).doit()
    value = e.xreplace({td.r[i]: float(row_norms2[i - 1]) for i in range(1, int(t_value) + 1)})
    if value.is_number:
        return float(value)
    # a sum left unevaluated (its limits not the integers 1..t: a declared form whose range is not App. A's): summed
    # term by term over the integers k in its range, NaN when that range needs an r_k beyond the decoder's rows
    if isinstance(value, sp.Sum) and len(value.limits) == 1 and value.limits[0][1].is_number \
            and value.limits[0][2].is_number:
        k, lo, hi = value.limits[0]
        ks = range(int(math.ceil(float(lo))), int(math.floor(float(hi))) + 1)
        if ks and (ks[0] < 1 or ks[-1] > len(row_norms2)):
            return math.nan
        terms = [value.function.xreplace({k: j}).xreplace({td.r[j]: float(row_norms2[j - 1])}) for j in ks]
        if all(term.is_number for term in terms):
            return float(sum(float(term) for term in terms))
    return math.nan


S31_MARGIN = 0.1  # relative: a 10% error in the bias (the negative control doubles it) is a wrong closed form
S31_TESTED_ROUNDS = (10, None)  # the decisions: round 10 (transient, 1 − β₂^t ≈ 0.4) and the last round


class S31Settings(NamedTuple):
    """section3.1's Monte Carlo: coordinates, batch size, rounds, trials per noise."""

    d: int
    batch: int
    rounds: int
    trials: int


S31_BUDGETS = Budgets(quick=S31Settings(d=64, batch=8, rounds=200, trials=24),
                      full=S31Settings(d=256, batch=16, rounds=1000, trials=100))


@claim(
    "dp_adam_design.section3.1",
    kind="expectation",
    statement="""§3.1 and App. A: post-processing DP-Adam's second moment is biased upward: with independent noise
    E[v_t] − v_t^clean = (1 − β₂^t)(σC/B)² per coordinate (v̂_t biased by (σC/B)²); with DP-MF noise z̃ = C⁻¹z
    the excess is Σ_k (1 − β₂)β₂^{t−k}(σC·sens/B)²‖row_k(C⁻¹)‖².""",
    theory=(td.postprocessing_bias, td.postprocessing_bias_dpmf, td.dpmf_bias_numeric),
    notes="Monte Carlo of the fused post-processing kernel on synthetic_gradients (power-law scales, partial "
    "alignment, clipping active) against the same kernel with σ = 0 on the same gradient stream; noises: "
    "identity, the half-cancelling example, a 4-band Toeplitz strategy optimised for prefix-sum RMSE. Decisions "
    "(verify.decide.equivalent, 6 tests): per noise, at round 10 and at the last round, the relative deviation "
    "(mean over trials of the coordinate-mean excess/s² − closed form)/closed form lies within ±0.1 (margin fixed "
    "before any run: the negative control's doubled bias is a +1.0 deviation); the other checkpoints are plotted. "
    "For the DP-MF noises the decided closed form is postprocessing_bias_dpmf (App. A's sum, evaluated at the tested "
    "rounds with the strategy's ‖row_k(C⁻¹)‖²); the plotted curve is its recursion (dpmf_bias_numeric), and the two "
    "must agree to 1e-9 relative at the tested rounds (exact, no test: a disagreement is violated).",
    tests=6,
)
def section3_1(budget: str, seed: int) -> Outcome:
    d, batch, rounds, trials = S31_BUDGETS.at(budget)
    beta2, sigma = 0.95, 1.0
    tasks = [dict(noise=n, d=d, batch=batch, rounds=rounds, beta2=beta2, sigma=sigma, trials=trials,
                  seed=child_seed(seed, "dp_adam_design.section3.1", i)) for i, n in enumerate(S31_NOISES)]
    res = sweep(_s31_task, tasks, "section3.1")
    checkpoints = np.unique(np.geomspace(1, rounds, 8).astype(int)) - 1
    tested = [rounds - 1 if r is None else r - 1 for r in S31_TESTED_ROUNDS]
    bias_fn = numeric(td.postprocessing_bias())
    panels, decisions, worst = [], [], (0.0, None)
    forms_disagree: list[dict] = []
    figures: dict[str, float] = {}
    tt = np.arange(1, rounds + 1)
    for noise, r in zip(S31_NOISES, res):
        if noise == "identity":
            theory_curve = bias_fn(beta2=beta2, s=1.0, t=tt)
        else:
            theory_curve = td.dpmf_bias_numeric(r["row_norms2"], beta2, 1.0)
        exc = r["excess"]
        lo, hi, est = [], [], []
        for c in checkpoints:
            ci = mean_ci(exc[:, c])
            est.append(ci.estimate), lo.append(ci.lo), hi.append(ci.hi)
        for c in tested:
            # the decided value is the paper's closed form (the DP-MF sum of App. A; the plotted curve is its recursion)
            closed = (float(theory_curve[c]) if noise == "identity"
                      else dpmf_bias_closed_form(r["row_norms2"], beta2, 1.0, c + 1))
            # exact (no test): App. A's sum and its recursion are the same number up to rounding
            if noise != "identity" and abs(float(theory_curve[c]) - closed) > 1e-9 * abs(closed):
                forms_disagree.append(dict(noise=noise, round=int(c + 1), sum=closed,
                                           recursion=float(theory_curve[c])))
            dec = decide.equivalent(_rel_estimate(exc[:, c], closed),
                                    what=f"{noise} noise, round {c + 1}: relative deviation from the closed form",
                                    margin=S31_MARGIN)
            decisions.append(dec)
            dev = abs(dec.estimate)
            if dev > worst[0]:
                worst = (dev, dict(noise=noise, round=int(c + 1), simulated=float(np.mean(exc[:, c])),
                                   closed_form=closed, relative_deviation=dec.estimate))
        figures[f"excess_over_s2_final_{noise}"] = float(np.mean(exc[:, -1]))
        figures[f"closed_form_final_{noise}"] = float(theory_curve[-1])
        panels.append(Panel(f"noise: {noise}", "round t", "(E v_t − v_t^clean)/s²", [
            Series("closed form", tt, theory_curve),
            Series("simulated (95% CI)", checkpoints + 1, est, lo, hi, style="points")], xscale="log"))
    verdict = "violated" if forms_disagree else _verdict(decisions)
    if forms_disagree:
        worst = (worst[0], dict(kind="App. A's sum and its recursion disagree", **forms_disagree[0]))
    figures["worst_relative_deviation"] = worst[0]
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[-1]
    evidence = (("App. A's DP-MF sum and its recursion disagree (exact): " + str(forms_disagree[0]) + "; "
                 if forms_disagree else "") +
                f"{key.phrase()}; {len(decisions)} tests ({', '.join(S31_NOISES)} × rounds 10 and {rounds}), "
                f"{trials} trials, d = {d}, B = {batch}; largest relative deviation {worst[0]:.3g} at {worst[1]}; "
                f"final excess/s² identity {figures['excess_over_s2_final_identity']:.4f} vs "
                f"{figures['closed_form_final_identity']:.4f}")
    fig = Figure("section3_1_bias", "dp_adam_design §3.1: post-processing bias of v vs t", panels)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=worst[1] if verdict == "violated" else None, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# §3.2 zero-out sensitivity of the squared part; noise split
# ======================================================================================
def squares_sensitivity(records: np.ndarray, clip_norm: float) -> float:
    """The sensitivity of the squared mean gradient ḡ⊙ḡ of one batch under zero-out neighbours.

    The value is max_j ‖ḡ⊙ḡ − ḡ_{−j}⊙ḡ_{−j}‖ over the neighbours that replace record j by a zero gradient; the
    records are clipped to ``clip_norm`` first and ḡ is their mean over the B records.

    Parameters
    ----------
    records : numpy.ndarray
        The batch's gradients, shape (B, d).
    clip_norm : float
        The clipping norm C (each row is scaled to norm at most C).

    Returns
    -------
    float
        The largest Euclidean change of ḡ⊙ḡ over the B zero-out neighbours.
    """
    c = records * np.minimum(1.0, clip_norm / np.maximum(np.linalg.norm(records, axis=1), 1e-300))[:, None]
    B = c.shape[0]
    gbar = c.mean(axis=0)
    best = 0.0
    for j in range(B):
        gm = gbar - c[j] / B
        best = max(best, float(np.linalg.norm(gbar * gbar - gm * gm)))
    return best


def _s32_slack(records: np.ndarray, clip_norm: float) -> float:
    """(bound − actual)/bound in units of a rounding bound (≥ −1: the bound holds)."""
    B, d = records.shape
    bound = float(numeric(td.ime_sensitivity_squares())(B=B, C=clip_norm))
    actual = squares_sensitivity(records, clip_norm)
    tol = 8 * (B + d + 8) * EPS
    return (bound - actual) / bound / tol


class S32Settings(NamedTuple):
    """The §3.2 search: random record sets, optimiser starts."""

    n_rand: int
    starts: int


S32_BUDGETS = Budgets(quick=S32Settings(n_rand=1500, starts=3),
                      full=S32Settings(n_rand=20000, starts=12))


def _s32_compute(budget: str, seed: int) -> dict:
    """The numbers both §3.2 claims read (exact computations: no statistical tests)."""

    n_rand, starts = S32_BUDGETS.at(budget)
    C = 1.0

    def sample(rng):
        B = int(rng.integers(1, 13))
        d = int(rng.integers(1, 9))
        kind = rng.integers(0, 5)
        if kind == 0:  # all equal
            x = np.tile(rng.standard_normal(d), (B, 1))
        elif kind == 1:  # aligned, different lengths
            x = np.outer(rng.uniform(0.1, 3, B), rng.standard_normal(d))
        elif kind == 2:  # one-hot
            x = np.zeros((B, d))
            x[np.arange(B), rng.integers(0, d, B)] = rng.choice([-1, 1], B) * rng.uniform(0.1, 3, B)
        elif kind == 3:  # orthogonal-ish
            x = np.linalg.qr(rng.standard_normal((max(B, d), max(B, d))))[0][:B, :d]
        else:
            x = rng.standard_normal((B, d)) * 10 ** rng.uniform(-2, 1)
        return x

    worst = random_search(lambda x: _s32_slack(x, C), sample, n_rand, seed)
    adv = []
    for k, (B, d) in enumerate([(2, 1), (4, 3), (8, 2)]):
        adv.append(adversarial_search(lambda u, B=B, d=d: -squares_sensitivity(u.reshape(B, d), C) /
                                      float(numeric(td.ime_sensitivity_squares())(B=B, C=C)),
                                      B * d, (-2.0, 2.0), starts,
                                      child_seed(seed, "dp_adam_design.section3.2.bound", "adversarial", k)))
    max_ratio_adv = max(-w.slack for w in adv)
    # tightness at all-equal batches
    Bs = np.arange(1, 33)
    bound = np.array([float(numeric(td.ime_sensitivity_squares())(B=int(b), C=C)) for b in Bs])
    axis_ratio = np.array([squares_sensitivity(np.tile([C, 0.0], (int(b), 1)), C) for b in Bs]) / bound
    dense_ratio = np.array([squares_sensitivity(np.tile([C / math.sqrt(2), C / math.sqrt(2)], (int(b), 1)), C)
                            for b in Bs]) / bound
    dims = np.arange(1, 65)
    dense_d_ratio = np.array([squares_sensitivity(np.full((4, int(dd)), C / math.sqrt(dd)), C) for dd in dims]) / \
        float(numeric(td.ime_sensitivity_squares())(B=4, C=C))
    # privacy: two Gaussians at √2σ vs one at σ
    priv_ok = []
    for sig in by_budget(budget, (1.0,), (0.7, 1.0, 2.0)):
        s1 = float(td.ime_noise_multipliers()[0].subs(td.sigma, sig))
        lo2, hi2 = gaussian_epsilon_interval(s1, 1e-6, steps=2)
        lo1, hi1 = gaussian_epsilon_interval(sig, 1e-6, steps=1)
        priv_ok.append(max(lo1, lo2) <= min(hi1, hi2))
    # the split's exact identity (Gaussian composition: the privacy parameters 1/σ² add): 1/σ₁² + 1/σ₂² = 1/σ²,
    # at σ ∈ {0.7, 1, 2} in every budget (at σ = 1 alone an error in σ's exponent is invisible), 16 rounding units
    split_gap = 0.0
    for sig in (0.7, 1.0, 2.0):
        s1, s2 = (float(x.subs(td.sigma, sig)) for x in td.ime_noise_multipliers())
        split_gap = max(split_gap, abs((1 / s1**2 + 1 / s2**2) * sig**2 - 1))
    priv_ok.append(split_gap <= 16 * EPS)
    rt = 8 * (int(Bs.max()) + 8) * EPS  # rounding bound of one sensitivity / bound ratio (B ≤ 32, d ≤ 3)
    bound_holds = worst.slack >= -1.0 and max_ratio_adv <= 1.0 + rt
    attained = bool(np.all(np.abs(axis_ratio - 1.0) <= rt))
    equal_always_tight = bool(np.all(np.abs(dense_ratio - 1.0) <= rt))
    return dict(worst=worst, max_ratio_adv=max_ratio_adv, Bs=Bs, bound=bound, axis_ratio=axis_ratio,
                dense_ratio=dense_ratio, dims=dims, dense_d_ratio=dense_d_ratio, priv_ok=priv_ok, rt=rt,
                bound_holds=bound_holds, attained=attained, equal_always_tight=equal_always_tight, C=C,
                split_gap=split_gap)


def _s32_figure(r: dict) -> Figure:
    Bs, dims = r["Bs"], r["dims"]
    return Figure("section3_2_sensitivity", "dp_adam_design §3.2: sensitivity of ḡ⊙ḡ / (2B−1)C²/B²", [
        Panel("all records equal", "batch size B", "actual / bound", [
            Series("axis-aligned record (c = C e₁)", Bs, r["axis_ratio"]),
            Series("dense record (C/√2)(1, 1)", Bs, r["dense_ratio"], style="dashed")]),
        Panel("all records equal, dense, B = 4", "dimension d", "actual / bound", [
            Series("c = (C/√d)·1", dims, r["dense_d_ratio"]), Series("1/√d", dims, 1 / np.sqrt(dims), style="dashed")],
            xscale="log", yscale="log")])


@claim(
    "dp_adam_design.section3.2.bound",
    kind="exact",
    statement="""§3.2: under zero-out adjacency the squared clipped average ḡ⊙ḡ has ℓ₂ sensitivity at most
    (2B − 1)C²/B², a bound that is attained (by equal axis-aligned records); noising ḡ and ḡ⊙ḡ each with multiplier √2σ has the privacy of one
    Gaussian mechanism with multiplier σ (post-processing's).""",  # noqa: E501
    theory=(td.ime_sensitivity_squares, td.ime_noise_multipliers),
    notes="Replaces the retired id dp_adam_design.section3.2, which also carried the remark 'tight when all records "
    "are equal' (now dp_adam_design.section3.2.tight_equal). Exact: seeded random search over batches (B ≤ 12, "
    "d ≤ 8; equal, aligned, orthogonal, sparse and random records, norms around C) plus L-BFGS-B maximising "
    "actual/bound over record entries (B = 1 as well as larger batches); slack in rounding units. Attained: "
    "ratio 1 at equal axis-aligned records for B = 1..32. Privacy: dp-accounting PLD intervals of two Gaussians "
    "with multiplier √2σ vs one with σ must overlap, and the split's exact identity 1/σ₁² + 1/σ₂² = 1/σ² (the "
    "Gaussian mechanisms' composition) holds at σ ∈ {0.7, 1, 2} within 16 rounding units (quick's PLD check runs at "
    "σ = 1 only, where a wrong exponent of σ is invisible). No statistical tests.",
)
def section3_2(budget: str, seed: int) -> Outcome:
    r = _s32_compute(budget, seed)
    worst = r["worst"]
    ok = r["bound_holds"] and r["attained"] and all(r["priv_ok"])
    verdict = "holds" if ok else "violated"
    counter = None
    if not r["bound_holds"]:
        counter = {"records": np.asarray(worst.example).tolist(), "slack_rounding_units": worst.slack}
    elif not r["attained"]:
        counter = {"equal_axis_ratio_min": float(r["axis_ratio"].min())}
    elif not all(r["priv_ok"]):
        counter = {"privacy_split_matches": False, "split_identity_relative_gap": r["split_gap"]}
    evidence = (f"exact: bound {'holds' if r['bound_holds'] else 'FAILS'} over {worst.evaluated} random batches "
                f"(min slack {worst.slack:.3g} rounding units) and L-BFGS-B (max actual/bound "
                f"{r['max_ratio_adv']:.6f}); attained by equal axis-aligned records (min ratio "
                f"{float(r['axis_ratio'].min()):.6f} for B = 1..32); the √2σ split matches one σ-Gaussian by the PLD "
                f"accountant: {all(r['priv_ok'])}")
    figures = {"min_slack_rounding_units": worst.slack, "max_adversarial_ratio": r["max_ratio_adv"],
               "equal_axis_ratio_min": float(r["axis_ratio"].min()),
               "privacy_split_matches": float(all(r["priv_ok"])), "evaluations": worst.evaluated,
               "split_identity_relative_gap": r["split_gap"]}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[_s32_figure(r)])


for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("dp_adam_design.section3.2.tight_equal", f"ime_sensitivity_squares:{_m}",
                       "equal axis-aligned and equal dense records of one B differ in sensitivity by √d whatever "
                       "the bound: no bound is attained by both, so the statement stays false")
@claim(
    "dp_adam_design.section3.2.tight_equal",
    kind="exact",
    statement="""§3.2 (remark): the sensitivity bound (2B − 1)C²/B² of ḡ⊙ḡ is tight when all records are equal.""",
    theory=(td.ime_sensitivity_squares,),
    notes="Split from the retired dp_adam_design.section3.2. For B equal clipped records c (‖c‖ = C) the zero-out "
    "change of ḡ⊙ḡ is (2B − 1)/B²·c⊙c, whose norm ‖c⊙c‖ equals C² only when c is axis-aligned; for a dense c it is "
    "C²/√d. Exact: the ratio actual/bound at equal dense records (C/√d)(1, …, 1), B = 1..32 and d = 1..64; the "
    "counterexample B = 1, d = 2 (ratio 1/√2) is pinned in the tests. No statistical tests. Mutants: every generic "
    "mutant of ime_sensitivity_squares is declared equivalent — equal axis-aligned and equal dense records of the "
    "same B have sensitivities in the ratio √d whatever the bound, so no bound (the true one or a mutated one) is "
    "attained by both and the statement stays false.",
)
def section3_2_tight_equal(budget: str, seed: int) -> Outcome:
    r = _s32_compute(budget, seed)
    C = r["C"]
    verdict = "holds" if r["equal_always_tight"] else "violated"
    counter = None
    if verdict == "violated":
        counter = {"B": 1, "d": 2, "records": [[C / math.sqrt(2), C / math.sqrt(2)]], "clip_norm": C,
                   "sensitivity": float(r["dense_ratio"][0] * r["bound"][0]), "bound": float(r["bound"][0]),
                   "ratio": float(r["dense_ratio"][0])}
    evidence = (f"exact: equal axis-aligned records attain the bound (ratio 1), but equal dense records do not: ratio "
                f"‖c⊙c‖/‖c‖² = {r['dense_ratio'][0]:.4f} at B = 1, d = 2, and 1/√d in general (min "
                f"{float(r['dense_d_ratio'].min()):.4f} at d = "
                f"{int(r['dims'][int(np.argmin(r['dense_d_ratio']))])}, B = 4)")
    figures = {"equal_dense_ratio_d2": float(r["dense_ratio"][0]), "equal_axis_ratio_min": float(r["axis_ratio"].min()),
               "equal_dense_ratio_min": float(r["dense_d_ratio"].min())}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[_s32_figure(r)])


# ======================================================================================
# §4.3.1 / App. B scale-then-privatize: steady state and contraction
# ======================================================================================
STP = dict(d=64, batch=64, clip=16.0, sigma=2.0, beta2=0.9, xi=1e-12, t0=10**6)  # s = σC/B = 0.5; clip inactive


def _stp_signal(d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(child_seed(seed, "dp_adam_design.section4.3.1", "signal"))
    return rng.choice([-1.0, 1.0], d) * 10 ** rng.uniform(-2, 0, d)  # heterogeneous clean second moments


def _stp_task(delta0: float, rounds: int, trials: int, seed: int, kappa: float) -> dict:
    """Scale-then-privatize from v₀ = (1 + δ₀)κg² (κ: the steady state under test), relative errors v/(κg²) − 1."""
    p = STP
    g = _stp_signal(p["d"], 0)
    grads = np.tile(g, (p["batch"], 1))
    cfg = kd.RoundConfig(variant="scale_then_privatize", lr=1e-6, beta1=0.0, beta2=p["beta2"], xi=p["xi"],
                        clip_norm=p["clip"], sigma=p["sigma"], batch_size=p["batch"])
    out = kd.run_stream(cfg, lambda t, th, rng: grads, p["d"], rounds, trials=trials, seed=seed,
                       v0=(1 + delta0) * kappa * g * g, t0=p["t0"], record_v=True)
    rel = out["v_hist"] / (kappa * g * g) - 1.0  # (trials, rounds, d)
    scaled_norm = math.sqrt(p["d"] / ((1 + delta0) * kappa))  # ‖g/√v₀‖: the scaled records' norm at the start
    return {"rel_mean": rel.mean(axis=2), "rel_final": rel[:, -1, :], "scaled_norm0": scaled_norm}


def _stp_at_setting(expr, **setting) -> tuple[float, str]:
    """``expr`` evaluated at the setting (only the symbols it has): (value, "") , or (NaN, why) when it needs a
    symbol outside the setting (a closed form stated as a number of β₂ and s that depends on something else)."""
    f = numeric(expr)
    extra = [n for n in f.names if n not in setting]
    if extra:
        return math.nan, (f"the declared {expr} depends on {', '.join(extra)}, not only on the setting's "
                          f"{', '.join(sorted(setting))} (α and κ are stated as numbers of β₂ and s)")
    return float(f(**{n: setting[n] for n in f.names})), ""


def _stp_exact_failure(why: str, alpha: float, kappa: float) -> Outcome:
    """section4.3.1's verdict when the declared α or κ contradicts the statement exactly (no Monte Carlo)."""
    return Outcome(verdict="violated", evidence=f"exact (no Monte Carlo): {why}",
                   numbers={"alpha": alpha, "kappa": kappa}, counterexample=dict(kind="closed form", reason=why))


S431_TESTED_ROUNDS = (1, 10)
S431_MARGIN = 0.03
S431_SLOPE_MARGIN = 0.02


class S431Settings(NamedTuple):
    """section4.3.1's Monte Carlo: rounds, trials."""

    rounds: int
    trials: int


S431_BUDGETS = Budgets(quick=S431Settings(rounds=30, trials=200),
                       full=S431Settings(rounds=80, trials=2000))


@claim(
    "dp_adam_design.section4.3.1",
    kind="expectation",
    statement="""§4.3.1 / App. B: with a constant clean gradient g, ξ → 0 and large t, scale-then-privatize has
    E[v_t | v_{t−1}] = αv_{t−1} + (1 − β₂)g², α = β₂ + (1 − β₂)(σC/B)²: its steady state κg², κ = 1/(1 − (σC/B)²),
    is proportional to the clean second moment, and a multiplicative error δ contracts to αδ each round in
    expectation.""",
    theory=(td.stp_expected_v, td.stp_contraction, td.stp_steady_state, td.stp_error_after_one_round),
    notes="Setting reconstructed (the paper's display was lost): d = 64 coordinates with clean magnitudes over two "
    "decades, B = 64 equal records, C = 16 with σ = 2 (s = 0.5), β₂ = 0.9, ξ = 1e-12, rounds counted from "
    "t0 = 10⁶ so Adam's corrections are 1; the scaled clipping stays inactive (‖g/√v‖ ≤ √(d/κ·(1+δ)⁻¹) < C). "
    "Start at v = (1 + δ₀)κg² for δ₀ ∈ {−0.5, 2}; the coordinate-mean relative error per round (t-interval over "
    "trials) is compared with α^t δ₀ at rounds 1 and 10 (verify.decide.equivalent, margin 0.03|δ₀|, fixed before "
    "the data: an error of a quarter in α's noise term moves α^10·δ₀ by 0.085|δ₀|); the final per-coordinate "
    "relative error must not depend on |g| (per-trial slope on log|g| equivalent to 0 within ±0.02: over the two "
    "decades of |g| that is at most a 9% drift). 5 tests. The prediction is stp_error_after_one_round (αδ₀) "
    "contracted by α = stp_contraction per further round: α^(t−1)·αδ₀ = α^t δ₀. The steady state under test is "
    "stp_steady_state's κ (the kernel starts at (1 + δ₀)κg² and errors are measured against κg²; it used to be a "
    "κ computed in the task, so the closed form was only reported); 'δ contracts to αδ' is also checked exactly: "
    "stp_error_after_one_round = α·δ at the setting within 64 rounding units (no test). Issue 25: α and κ are "
    "stated as numbers of β₂ and s, so a declared stp_contraction or stp_steady_state that needs another symbol "
    "(v_{t−1}: an expectation not affine in it), or a κ ≤ 0, is violated exactly, before any Monte Carlo.",
    tests=5,
)
def section4_3_1(budget: str, seed: int) -> Outcome:
    rounds, trials = S431_BUDGETS.at(budget)
    p = STP
    s = p["sigma"] * p["clip"] / p["batch"]
    deltas = (-0.5, 2.0)
    # α and κ as stated are numbers of the setting (β₂, s): a declared form that needs more (v_{t−1}, g: the
    # expectation not affine in v_{t−1}, or a fixed point not proportional to g²), or a κ that is not positive
    # (no steady state of v ≥ 0), contradicts the statement exactly and is decided without the Monte Carlo
    alpha, why_a = _stp_at_setting(td.stp_contraction(), beta2=p["beta2"], s=s)
    if why_a:  # E[v_t | v_{t−1}] not affine in v_{t−1}: its fixed point is not computed
        return _stp_exact_failure(why_a, alpha, math.nan)
    kappa, why_k = _stp_at_setting(td.stp_steady_state(), beta2=p["beta2"], s=s)
    if why_k or not kappa > 0:
        return _stp_exact_failure(why_k or f"the declared steady state κ = {kappa:.6g} is not positive (no "
                                  "steady state of v ≥ 0)", alpha, kappa)
    # the steady state under test is the closed form's κ: the kernel starts at (1 + δ₀)κg² and its errors are
    # measured against κg², so a wrong κ leaves a persistent offset κ_true/κ − 1 that α^t·δ₀ does not have
    res = sweep(_stp_task, [dict(delta0=dl, rounds=rounds, trials=trials, kappa=kappa,
                                 seed=child_seed(seed, "dp_adam_design.section4.3.1", i))
                            for i, dl in enumerate(deltas)], "section4.3.1")
    # "δ contracts to αδ": the closed form of the one-round error equals α·δ at the setting (rounding units)
    err1 = numeric(td.stp_error_after_one_round())  # App. B: E v_t/(κg²) − 1 = αδ after one round from (1 + δ)κg²
    one_round_gap = max(abs(float(err1(beta2=p["beta2"], delta=dl, s=s)) - alpha * dl) / abs(dl) for dl in deltas)
    exact_ok = one_round_gap <= 64 * np.finfo(float).eps
    checkpoints = np.unique(np.linspace(0, rounds - 1, 10).astype(int))
    decisions, worst = [], (0.0, None)
    figures: dict[str, float] = {"alpha": alpha, "kappa": kappa}
    tt = np.arange(1, rounds + 1)
    series = []
    figures["one_round_error_minus_alpha_delta_rel"] = one_round_gap
    for dl, r in zip(deltas, res):
        pred = alpha ** (tt - 1) * float(err1(beta2=p["beta2"], delta=dl, s=s))  # one round, then α per round
        est, lo, hi = [], [], []
        for c in checkpoints:
            ci = mean_ci(r["rel_mean"][:, c])
            est.append(ci.estimate), lo.append(ci.lo), hi.append(ci.hi)
        for c in S431_TESTED_ROUNDS:
            e = decide.mean_estimate(r["rel_mean"][:, c - 1])
            dec = decide.equivalent(decide.Estimate((e.value - pred[c - 1]) / abs(dl), e.se / abs(dl), e.df),
                                    what=f"δ₀ = {dl:g}, round {c}: (mean relative error − α^t·δ₀)/|δ₀|",
                                    margin=S431_MARGIN)
            decisions.append(dec)
            if abs(dec.estimate) > worst[0]:
                worst = (abs(dec.estimate), dict(delta0=dl, round=c, simulated=e.value, predicted=float(pred[c - 1])))
        figures[f"rel_error_round1_delta{dl:g}"] = float(np.mean(r["rel_mean"][:, 0]))
        figures[f"predicted_round1_delta{dl:g}"] = float(alpha * dl)
        series += [Series(f"α^t·δ₀ (δ₀ = {dl:g})", tt, pred),
                   Series(f"simulated δ₀ = {dl:g}", checkpoints + 1, est, lo, hi, style="points")]
    # proportionality: final v/(κg²) independent of |g|
    g = _stp_signal(p["d"], 0)
    fin = np.concatenate([r["rel_final"] for r in res], axis=0)  # (2·trials, d)
    ratio = 1.0 + fin.mean(axis=0)
    lg = np.log(np.abs(g))
    per_trial_slopes = [np.polyfit(lg, row, 1)[0] for row in fin]
    dslope = decide.equivalent(decide.mean_estimate(per_trial_slopes),
                               what="slope of the final v/(κg²) − 1 on log|g| (0 = proportional)",
                               margin=S431_SLOPE_MARGIN)
    decisions.append(dslope)
    figures["slope_rel_error_vs_log_g"] = dslope.estimate
    # the setting needs the scaled clipping inactive: ‖g/√v‖ ≤ C at the start (and it only shrinks from δ₀ > 0)
    figures["max_scaled_norm_over_C"] = max(float(r["scaled_norm0"]) for r in res) / p["clip"]
    figures["final_ratio_cv"] = float(np.std(ratio) / np.mean(ratio))
    verdict = _verdict(decisions, exact_ok)
    if figures["max_scaled_norm_over_C"] > 1.0 and verdict == "holds":
        verdict = "inconclusive"
    figures["worst_deviation_over_delta0"] = worst[0]
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    evidence = (f"{key.phrase()}; α = {alpha:.4f}, κ = {kappa:.4f}; {len(decisions)} tests (δ₀ × rounds "
                f"{S431_TESTED_ROUNDS}, and the proportionality slope); largest |deviation|/|δ₀| {worst[0]:.3g}; "
                f"round-1 error {figures['rel_error_round1_delta2']:.4f} vs αδ₀ = {alpha * 2:.4f}; "
                f"final v/(κg²) vs log|g| slope {dslope.estimate:.4g} ({dslope.verdict})")
    fig = Figure("section4_3_1_stp", "dp_adam_design §4.3.1: scale-then-privatize contracts to κg²", [
        Panel("coordinate-mean relative error of v", "round", "v/(κg²) − 1", series),
        Panel("final v/(κg²) per coordinate", "|g_j|", "v/(κ g²)", [
            Series("coordinates", np.abs(g), ratio, style="points"),
            Series("steady state", [np.abs(g).min(), np.abs(g).max()], [1.0, 1.0], style="dashed")], xscale="log")])
    evidence = (f"one-round error closed form vs α·δ: max relative gap {one_round_gap:.2g} "
                + ("(rounding)" if exact_ok else "FAILS (not αδ)") + "; " + evidence)
    counter = worst[1]
    if not exact_ok:
        counter = dict(kind="one-round error closed form is not α·δ", max_relative_gap=one_round_gap, alpha=alpha)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter if verdict == "violated" else None, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# eq. (2) / eq. (3): negative bias-corrected v̂ beyond a dimension threshold
# ======================================================================================
RARE, CONSTANT_AT_THRESHOLD, CONSTANT_BEYOND = 0.01, 0.05, 0.25  # "rare" / "constant fraction", fixed in advance
# d* is where v̂'s mean equals its noise's standard deviation (the Gaussian prediction there is Φ(−1) = 0.159): the
# exact fraction at d = d* must lie in [Φ(−1.5), Φ(−0.5)] — a d* off by 3× puts it at Φ(−3) or Φ(−1/3)
AT_THRESHOLD_BAND = (float(st.norm.cdf(-1.5)), float(st.norm.cdf(-0.5)))
SIM_MARGIN = 0.02  # pooled |simulated − exact| negative fraction a correct kernel must stay within (absolute)


def _agreement(rows: list, what: str) -> list:
    """Two pooled equivalence tests of the simulated against the exact negative fraction: the mean signed
    difference over the points at d ≤ d* and over those at d > d*, each within ±SIM_MARGIN (a kernel whose
    noise or bias is off shifts the fractions of a whole side of the threshold the same way)."""
    out = []
    for side, sel in (("d ≤ d*", [r for r in rows if r["x"] <= 1.0]), ("d > d*", [r for r in rows if r["x"] > 1.0])):
        k = len(sel)
        diff = float(np.mean([r["sim"] - r["exact"] for r in sel]))
        se = math.sqrt(sum(max(r["exact"] * (1 - r["exact"]), 1.0 / r["n"] ** 2) / r["n"] for r in sel)) / k
        out.append(decide.equivalent(decide.Estimate(diff, se, math.inf),
                                     what=f"{what}, {side}: mean simulated − exact negative fraction over {k} points",
                                     margin=SIM_MARGIN))
    return out


def _regime_ok(sel: list) -> bool:
    lo, hi = AT_THRESHOLD_BAND
    return (all(r["exact"] <= RARE for r in sel if r["x"] <= 0.1)
            and all(lo <= r["exact"] <= hi for r in sel if r["x"] == 1.0)
            and all(r["exact"] >= CONSTANT_BEYOND for r in sel if r["x"] >= 10.0))
X_GRID = {"quick": (0.1, 0.3, 1.0, 3.0, 10.0), "full": (0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)}


def _eq2_task(signal: float, noise_std: float, beta2: float, steps: int, n_coords: int, seed: int) -> dict:
    out = kd.constant_signal_vhat(np.full(n_coords, signal), noise_std, beta2, steps, trials=1, seed=seed)
    return {"neg": float(out["neg_frac"][-1]), "n": n_coords}


def _eq2_ime_task(signal: float, noise_std: float, beta2: float, steps: int, n_coords: int, seed: int) -> dict:
    out = kd.constant_signal_vhat(np.full(n_coords, signal), noise_std, beta2, steps, mode="ime", trials=1,
                                 seed=seed)
    return {"neg": float(out["neg_frac"][-1]), "n": n_coords}


def ime_negative_probability(signal: float, noise_std: float, beta2: float, steps: int) -> float:
    """Exact P(v̂ < 0) for IME with a constant signal.

    With IME the noise enters v̂ linearly: v̂ ~ N(signal², K(β₂, t)·noise_std²), K from
    theory.dp_adam_design.vhat_variance_factor.

    Parameters
    ----------
    signal : float
        The constant clean gradient coordinate.
    noise_std : float
        The standard deviation of IME's noise on the squared-gradient input.
    beta2 : float
        Adam's second-moment decay β₂.
    steps : int
        The round t at which v̂ is read.

    Returns
    -------
    float
        Φ(−signal² / (√K · noise_std)).
    """
    Kv = float(numeric(td.vhat_variance_factor())(beta2=beta2, t=steps))
    return float(st.norm.cdf(-signal**2 / (math.sqrt(Kv) * noise_std)))


def _ime_part(budget: str, seed: int):
    """eq2's IME aside: the same regime statement at IME's own (lower) threshold, and d*_IME < d*_BC."""
    xs = X_GRID[budget]
    grid = by_budget(budget, [(16, 1.0, 0.9), (64, 1.0, 0.99)],
                     [(b, s_, b2) for b in (16, 64, 256) for s_ in (0.5, 1.0, 2.0) for b2 in (0.9, 0.99, 0.999)])
    thr = numeric(td.threshold_ime_optimistic())
    thr_bc = numeric(td.threshold_optimistic())
    rows, tasks = [], []
    for (B, sig, b2) in grid:
        steps = int(math.ceil(5 / (1 - b2)))
        dstar = float(thr(B=B, sigma=sig, beta2=b2))
        tau = float(numeric(td.ime_noise_stds()[1])(B=B, C=1.0, sigma=sig))
        for x in xs:
            d = max(1, int(round(x * dstar)))
            rows.append(dict(B=B, sigma=sig, beta2=b2, steps=steps, x=x, d=d, dstar=dstar, signal=1 / math.sqrt(d),
                             tau=tau, dstar_bc=float(thr_bc(B=B, sigma=sig, beta2=b2))))
            tasks.append(dict(signal=1 / math.sqrt(d), noise_std=tau, beta2=b2, steps=steps,
                              n_coords=by_budget(budget, 4000, 40000),
                              seed=child_seed(seed, "dp_adam_design.eq2", "ime", len(tasks))))
    sims = sweep(_eq2_ime_task, tasks, "eq2 ime")
    exact_ok, bad = True, None
    for r, sres in zip(rows, sims):
        r["exact"] = ime_negative_probability(r["signal"], r["tau"], r["beta2"], r["steps"])
        r["n"] = int(sres["n"])
        ci = clopper_pearson(int(round(float(sres["neg"]) * r["n"])), r["n"])
        r["sim"], r["lo"], r["hi"] = ci.estimate, ci.lo, ci.hi
    decisions = _agreement(rows, "IME")
    for (B, sig, b2) in grid:
        sel = [r for r in rows if (r["B"], r["sigma"], r["beta2"]) == (B, sig, b2)]
        ok = _regime_ok(sel) and sel[0]["dstar"] < sel[0]["dstar_bc"]
        if not ok:
            exact_ok = False
            bad = bad or dict(kind="IME regime statement fails", B=B, sigma=sig, beta2=b2,
                              fractions={f"{r['x']:g}": r["exact"] for r in sel})
    panel = []
    for (B, sig, b2) in grid[:2]:
        sel = [r for r in rows if (r["B"], r["sigma"], r["beta2"]) == (B, sig, b2)]
        dd = [r["d"] for r in sel]
        panel.append(Panel(f"IME: B={B}, σ={sig:g}, β₂={b2:g}", "dimension d", "P(v̂ < 0)", [
            Series("exact (Gaussian, linear noise)", dd, [r["exact"] for r in sel]),
            Series("simulated", dd, [r["sim"] for r in sel], [r["lo"] for r in sel], [r["hi"] for r in sel],
                   style="points"),
            Series("IME threshold", [sel[0]["dstar"]] * 2, [0.0, 0.5], style="step"),
            Series("bias-correction threshold", [sel[0]["dstar_bc"]] * 2, [0.0, 0.5], style="step")],
            xscale="log"))
    figures = {"ime_threshold_over_bc_max": max(r["dstar"] / r["dstar_bc"] for r in rows),
               "ime_exact_at_threshold_min": min(r["exact"] for r in rows if r["x"] == 1.0),
               "ime_max_abs_sim_minus_exact": max(abs(r["sim"] - r["exact"]) for r in rows)}
    return exact_ok, decisions, bad, panel, figures


def _eq3_task(d: int, batch: int, sigma: float, beta2: float, steps: int, trials: int, seed: int) -> dict:
    """The real round kernel (bias correction) on exactly orthogonal records whose average has every
    coordinate ±C/√(Bd) (records = C·(orthonormal frame reflected onto that average))."""
    rng = np.random.default_rng(child_seed(seed, "dp_adam_design.eq3", "records"))
    q = np.linalg.qr(rng.standard_normal((d, batch)))[0]  # d×B orthonormal
    u = rng.choice([-1.0, 1.0], d) / math.sqrt(d)
    m = q.sum(axis=1) / math.sqrt(batch)
    w = m - u
    # Householder reflection H = I − 2wwᵀ/‖w‖² applied without forming the d×d matrix (d reaches ~4·10⁴ at full)
    recs = q.T - np.outer(q.T @ w, w) * (2 / (w @ w)) if np.linalg.norm(w) > 1e-12 else q.T.copy()
    # B×d, orthonormal rows with mean u/√B
    cfg = kd.RoundConfig(variant="bias_correction", lr=1e-6, beta1=0.0, beta2=beta2, xi=1e-12, clip_norm=1.0,
                        sigma=sigma, batch_size=batch)
    out = kd.run_stream(cfg, lambda t, th, r: recs, d, steps, trials=trials, seed=seed)
    return {"neg": float(np.mean(out["vhat"] < 0)), "n": d * trials,
            "gbar_norm": float(out["gbar_norm"][0, 0]), "gmin": float(np.min(np.abs(recs.mean(axis=0))))}


def _threshold_claim(case: str, budget: str, seed: int) -> Outcome:
    xs = X_GRID[budget]
    if case == "optimistic":
        grid = by_budget(budget, [(16, 1.0, 0.9), (64, 1.0, 0.99), (16, 2.0, 0.99)],
                         [(b, s, b2) for b in (16, 64, 256) for s in (0.5, 1.0, 2.0) for b2 in (0.9, 0.99, 0.999)])
        thr = numeric(td.threshold_optimistic())
    else:
        grid = by_budget(budget, [(8, 0.5, 0.9), (16, 1.0, 0.99)],
                         [(b, s, b2) for b in (8, 16, 32) for s in (0.5, 1.0) for b2 in (0.9, 0.99)])
        thr = numeric(td.threshold_pessimistic())
    C = 1.0
    rows, tasks, omitted = [], [], 0
    for (B, sig, b2) in grid:
        steps = int(math.ceil(5 / (1 - b2)))  # K(β₂, t) within 1% of its t → ∞ limit
        dstar = float(thr(B=B, sigma=sig, beta2=b2))
        for x in xs:
            d = max(1, int(round(x * dstar)))
            if case == "pessimistic" and d < B:  # B orthogonal records need d ≥ B
                omitted += 1
                continue
            s = sig * C / B
            a = C / math.sqrt(d) if case == "optimistic" else C / math.sqrt(B * d)
            rows.append(dict(B=B, sigma=sig, beta2=b2, steps=steps, x=x, d=d, dstar=dstar, signal=a, noise_std=s))
            if case == "optimistic":
                tasks.append(dict(signal=a, noise_std=s, beta2=b2, steps=steps,
                                  n_coords=by_budget(budget, 4000, 40000),
                                  seed=child_seed(seed, "dp_adam_design.eq2", len(tasks))))
            else:
                tasks.append(dict(d=d, batch=B, sigma=sig, beta2=b2, steps=steps,
                                  trials=max(1, min(by_budget(budget, 100, 1000), by_budget(budget, 4000, 40000) // d)),
                                  seed=child_seed(seed, "dp_adam_design.eq3", len(tasks))))
    sims = sweep(_eq2_task if case == "optimistic" else _eq3_task, tasks, f"eq {case}")
    for r, sres in zip(rows, sims):
        r["exact"] = td.negative_probability(r["signal"], r["noise_std"], r["beta2"], r["steps"])
        r["predicted"] = float(td.negative_probability_gaussian(r["signal"], r["noise_std"], r["beta2"], r["steps"]))
        r["n"] = int(sres["n"])
        ci = clopper_pearson(int(round(float(sres["neg"]) * r["n"])), r["n"])
        r["sim"], r["lo"], r["hi"] = ci.estimate, ci.lo, ci.hi
    decisions = _agreement(rows, "bias correction")
    # the regime statement, per setting (exact: Imhof inversion, no test)
    regime_fail = None
    for (B, sig, b2) in grid:
        sel = [r for r in rows if r["B"] == B and r["sigma"] == sig and r["beta2"] == b2]
        if sel and not _regime_ok(sel) and regime_fail is None:
            regime_fail = dict(kind="regime statement fails", B=B, sigma=sig, beta2=b2,
                               fractions={f"{r['x']:g}": r["exact"] for r in sel})
    if case == "optimistic" and regime_fail is None:
        # the paper's own mean-vs-std argument made a number (Φ(−E v̂/√Var v̂)) must place the same two regimes:
        # ≤ RARE at d ≤ d*/10, in the band at d*, ≥ CONSTANT_BEYOND at d ≥ 10d* (exact arithmetic, no test)
        for (B, sig, b2) in grid:
            sel = [dict(r, exact=r["predicted"]) for r in rows if (r["B"], r["sigma"], r["beta2"]) == (B, sig, b2)]
            if sel and not _regime_ok(sel):
                regime_fail = dict(kind="the Gaussian mean-vs-std prediction misplaces the regimes", B=B, sigma=sig,
                                   beta2=b2, predicted={f"{r['x']:g}": r["exact"] for r in sel})
                break
    verdict = _verdict(decisions, regime_fail is None)
    at_vals = [r["exact"] for r in rows if r["x"] == 1.0]
    below_vals = [r["exact"] for r in rows if r["x"] <= 0.1]
    max_abs = max(abs(r["sim"] - r["exact"]) for r in rows)
    pred_err = max(abs(r["predicted"] - r["exact"]) for r in rows)
    figures = {"settings": len(grid), "points": len(rows), "exact_at_threshold_min": min(at_vals),
               "exact_at_threshold_max": max(at_vals),
               "points_omitted_d_below_B": omitted,
               "exact_beyond_min": min(r["exact"] for r in rows if r["x"] >= 10.0),
               "max_abs_sim_minus_exact": max_abs, "max_abs_gaussian_minus_exact": pred_err,
               "gaussian_at_threshold_min": min(r["predicted"] for r in rows if r["x"] == 1.0),
               "gaussian_at_threshold_max": max(r["predicted"] for r in rows if r["x"] == 1.0)}
    if below_vals:
        figures["exact_below_max"] = max(below_vals)
    name = "eq2 (optimistic: aligned records, ‖ḡ‖ = C)" if case == "optimistic" else \
        "eq3 (pessimistic: orthogonal records, ‖ḡ‖ = C/√B)"
    evidence = (f"{name}: {len(rows)} points over {len(grid)} (B, σ, β₂) settings"
                + (f" ({omitted} points with d < B omitted: B orthogonal records need d ≥ B)" if omitted else "")
                + f"; exact P(v̂<0) at d = d* in "
                f"[{min(at_vals):.3f}, {max(at_vals):.3f}], "
                f"≤ {figures.get('exact_below_max', float('nan')):.2g} at d ≤ d*/10, "
                f"≥ {figures['exact_beyond_min']:.3f} at d ≥ 10d* "
                f"(exact; at d* the band is [{AT_THRESHOLD_BAND[0]:.3f}, "
                f"{AT_THRESHOLD_BAND[1]:.3f}]); simulation vs exact max |Δ| = {max_abs:.3g}; Gaussian prediction "
                f"max |Δ| = {pred_err:.3g}")
    key = next((dd for dd in decisions if dd.verdict != "holds"), decisions[0])
    evidence = ("exact regime statement " + ("holds" if regime_fail is None else f"FAILS at {regime_fail}")
                + f"; {key.phrase()}; " + evidence)
    panels = []
    for (B, sig, b2) in grid[:6]:
        sel = [r for r in rows if r["B"] == B and r["sigma"] == sig and r["beta2"] == b2]
        if not sel:
            continue
        dd = [r["d"] for r in sel]
        panels.append(Panel(f"B={B}, σ={sig:g}, β₂={b2:g}, t={sel[0]['steps']}", "dimension d", "P(v̂ < 0)", [
            Series("predicted (Gaussian, mean vs std)", dd, [r["predicted"] for r in sel], style="dashed"),
            Series("exact (Imhof)", dd, [r["exact"] for r in sel]),
            Series("simulated (Clopper–Pearson)", dd, [r["sim"] for r in sel], [r["lo"] for r in sel],
                   [r["hi"] for r in sel], style="points"),
            Series("threshold d*", [sel[0]["dstar"]] * 2, [0.0, 0.5], style="step")], xscale="log"))
    fig = Figure(f"{'eq2' if case == 'optimistic' else 'eq3'}_negative_fraction",
                 f"dp_adam_design {name}: negative fraction vs d", panels)
    counter = regime_fail or next((dict(kind="simulation disagrees with the exact law", reason=dd.reason)
                                   for dd in decisions if dd.verdict == "violated"), None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter if verdict == "violated" else None, plots=[fig],
                   decisions=decisions)


@claim(
    "dp_adam_design.eq2",
    kind="threshold",
    statement="""Eq. (2) with App. C's general β₂: with aligned records (‖ḡ‖ ≈ C, coordinates ≈ C/√d) the
    bias-corrected v̂ of DP-Adam is rarely negative for d well below d* = B²/(σ²√(2(1−β₂)/(1+β₂))) and negative
    for a constant fraction of coordinates at and beyond d*; independent moment estimation has the same two regimes
    around its own, lower threshold.""",
    theory=(td.threshold_optimistic, td.negative_probability, td.negative_probability_gaussian),
    notes="'Rarely' = exact P(v̂<0) ≤ 1% at d ≤ d*/10; 'constant fraction' = ≥ 25% at d ≥ 10d*; the threshold's "
    "location: d* is where v̂'s mean equals its noise's standard deviation, so the exact fraction at d = d* must lie "
    "in [Φ(−1.5), Φ(−0.5)] = [0.067, 0.309] (a d* wrong by 3× puts it at Φ(−3) or Φ(−1/3) and is caught; the "
    "first version only asked ≥ 5% there and let a 3× error pass). Constants fixed before any run. "
    "t = ⌈5/(1−β₂)⌉ rounds. Exact = Imhof inversion of the weighted non-central χ² law (the regime statement is "
    "decided on it: no test); simulated = the constant-signal bias-correction kernel over iid coordinates; the "
    "kernel agrees with the exact law if the mean signed simulated − exact fraction, pooled over the points at "
    "d ≤ d* and at d > d*, is within ±0.02 (verify.decide.equivalent). vhat_variance (App. C's Var v̂) is no longer "
    "declared: the check never evaluates it (the exact law decides; d* is threshold_optimistic). IME aside: noise "
    "std √2σ(2B−1)C²/B² on ḡ², "
    "threshold C²/(√K τ), exact law Gaussian; same regime rules, d*_IME < d*_BC, and the same two pooled tests. "
    "The paper's mean-vs-std argument made a number (negative_probability_gaussian, Φ(−E v̂/√Var v̂)) is held to the "
    "same three regime rules at every bias-correction point (exact arithmetic; it used to be only reported, and a "
    "10× or 0.1× wrong prediction passed). 4 tests.",
    tests=4,
)
def eq2(budget: str, seed: int) -> Outcome:
    out = _threshold_claim("optimistic", budget, seed)
    ime_ok, ime_decisions, bad, panels, figs = _ime_part(budget, seed)
    decisions = list(out.decisions) + ime_decisions
    verdict = "violated" if out.verdict == "violated" else _verdict(decisions, ime_ok)
    out.numbers.update(figs)
    # App. C's finite-t form: d*(t)/d*(∞) = √(K(∞)/K(t)) < 1 (more noise early on)
    tt = np.unique(np.geomspace(1, 20000, 60).astype(int))
    ratio = numeric(td.threshold_optimistic(True) / td.threshold_optimistic())
    tpanel = Panel("App. C general-t threshold", "round t", "d*(t) / d*(∞)", [
        Series(f"β₂ = {b2}", tt, ratio(beta2=b2, t=tt)) for b2 in (0.9, 0.99, 0.999)], xscale="log")
    fig = Figure("eq2_ime_and_general_t", "dp_adam_design eq. (2): IME aside and App. C's finite-t form",
                 list(panels) + [tpanel])
    evidence = out.evidence + (f"; IME: threshold d*_IME/d*_BC ≤ {figs['ime_threshold_over_bc_max']:.3f}, exact "
                               f"fraction at d*_IME ≥ {figs['ime_exact_at_threshold_min']:.3f}, sim vs exact max |Δ| "
                               f"{figs['ime_max_abs_sim_minus_exact']:.3g}")
    counter = out.counterexample or (bad if verdict == "violated" else None)
    if verdict == "violated" and counter is None:
        counter = next((dict(kind="IME simulation disagrees with its exact law", reason=dd.reason)
                        for dd in ime_decisions if dd.verdict == "violated"), None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=out.numbers, counterexample=counter,
                   plots=list(out.plots) + [fig], decisions=decisions)


@claim(
    "dp_adam_design.eq3",
    kind="threshold",
    statement="""Eq. (3) with general β₂: with orthogonal records (‖ḡ‖ ≈ C/√B, coordinates ≈ C/√(Bd)) the threshold
    drops to d* = B/(σ²√(2(1−β₂)/(1+β₂))): rarely negative well below, a constant fraction negative at and beyond.""",
    theory=(td.threshold_pessimistic, td.negative_probability),
    tests=2,
    notes="Same definitions (and the same two pooled agreement tests) as eq2. "
    "Simulated with the full fused round kernel (bias correction, clipping, "
    "averaging) on exactly orthogonal unit-norm records whose average has every coordinate ±1/√(Bd) "
    "(orthonormal frame reflected onto that average); points with d < B (no B orthogonal records exist) are "
    "omitted and counted.",
)
def eq3(budget: str, seed: int) -> Outcome:
    return _threshold_claim("pessimistic", budget, seed)


# ======================================================================================
# §4.4.1 / App. C, prefix sums: DP-MF improves the thresholds by at most a constant
# ======================================================================================
def _dpmf_var_factor(cinv: np.ndarray, sens: float, beta2: float, t: int) -> float:
    """sens²·‖wᵀC⁻¹‖²/(1 − β₂^t)² for w_k = (1 − β₂)β₂^{t−k}: the variance of v̂_t's noise per unit τ²."""
    w = (1 - beta2) * beta2 ** np.arange(t - 1, -1, -1, dtype=float)
    Mi = kd.toeplitz_matrix(cinv, t)
    return float(sens**2 * np.sum((w @ Mi) ** 2) / (1 - beta2**t) ** 2)


def dpmf_attaining_strategy(beta2: float, t: int) -> np.ndarray:
    """A lower-triangular DP-MF strategy C (t × t) at which §4.4.1's variance lower bound is attained exactly.

    C = diag(ϵ, …, ϵ, 0) + e_t wᵀ with w_k = (1 − β₂)β₂^{t−k} (v̂_t's weights) and ϵ = w_t√(1 − β₂²)/2: its last row
    is wᵀ, so wᵀC⁻¹ = e_tᵀ, and every column norm is at most w_t (column k < t: √(ϵ² + w_k²) ≤ w_t as
    w_k ≤ β₂w_t), so sens(C) = w_t and the Cauchy–Schwarz step of the bound is an equality: Var = τ²w_t²/(1 − β₂^t)².
    (It serves only the last release; the bound is over every factorisation, and this one shows that it is the
    infimum — no smaller floor, and so no smaller gain bound, is true.)

    Parameters
    ----------
    beta2 : float
        Adam's β₂ in (0, 1).
    t : int
        The round, >= 2.

    Returns
    -------
    numpy.ndarray
        (t, t) lower-triangular, invertible.

    Raises
    ------
    ValueError
        Unless 0 < β₂ < 1 and t >= 2.
    """
    if not (0.0 < beta2 < 1.0 and int(t) == t and t >= 2):
        raise ValueError(f"need 0 < beta2 < 1 and an integer t >= 2 (got {beta2}, {t})")
    t = int(t)
    w = (1 - beta2) * beta2 ** np.arange(t - 1, -1, -1, dtype=float)
    C = np.diag(np.full(t, w[-1] * math.sqrt(1 - beta2**2) / 2))
    C[-1, :] = w
    return C


def _dpmf_var_factor_matrix(C: np.ndarray, beta2: float, t: int) -> float:
    """:func:`_dpmf_var_factor` for a general lower-triangular strategy matrix C: sens(C) = its largest column norm,
    wᵀC⁻¹ by a triangular solve."""
    w = (1 - beta2) * beta2 ** np.arange(t - 1, -1, -1, dtype=float)
    sens = float(np.max(np.linalg.norm(C, axis=0)))
    y = np.linalg.solve(C.T, w)  # yᵀ = wᵀC⁻¹
    return float(sens**2 * np.sum(y**2) / (1 - beta2**t) ** 2)


def _s441_task(kind: str, bands: int, beta2: float, t: int, trials: int, seed: int) -> dict:
    """IME v̂ with DP-MF noise on the squares: simulated variance of the noise part of v̂_t (signal 0)."""
    strat = kd.strategy(kind, t, bands)
    cfg = kd.RoundConfig(variant="ime", lr=1e-9, beta1=0.0, beta2=beta2, xi=1e-12, clip_norm=1.0, sigma=1.0,
                        batch_size=1)
    out = kd.run_stream(cfg, lambda tt, th, r: np.zeros((1, 256)), 256, t, trials=trials, seed=seed,
                       strat_kind=kind, bands=bands)
    tau = kd.noise_stds(cfg, strat.sensitivity)[1] / strat.sensitivity
    return {"var": float(np.var(out["vhat"])), "n": out["vhat"].size, "tau": tau,
            "factor": _dpmf_var_factor(strat.cinv, strat.sensitivity, beta2, t)}


S441_MARGIN = 0.05


def _at_unit_tau(f):
    """``f`` (a :func:`theory.numeric.numeric` evaluator) called with τ = 1 added when its expression has τ."""
    if "tau" not in f.names:
        return f
    return lambda **kw: f(tau=1.0, **kw)


@claim(
    "dp_adam_design.section4.4.1",
    kind="exact",
    statement="""§4.4.1 'prefix sums' / App. C: privatising the decaying sums of independent moment estimation with
    DP-MF cannot push the noise variance of v̂_t below that of privatising only its highest-weight term,
    (1 − β₂)²τ²/(1 − β₂^t)², so the dimension thresholds improve by at most √K(β₂,t)(1 − β₂^t)/(1 − β₂)
    → 1/√(1 − β₂²): a constant.""",
    theory=(td.dpmf_variance_lower, td.dpmf_threshold_gain, td.dpmf_threshold_gain_limit),
    # a smaller variance floor, or a larger gain bound (its limit follows it), only weakens the statement
    weaker_if={"theory.dp_adam_design.dpmf_variance_lower": "smaller",
               "theory.dp_adam_design.dpmf_threshold_gain": "larger"},
    notes="The paper calls the single-term variance an optimistic assumption; by Cauchy–Schwarz "
    "(‖wᵀC⁻¹‖·‖Ce_t‖ ≥ w_t, sens = max column norm) it is a bound for every factorisation, which is what is "
    "checked: over the identity, half, optimised banded (b ≤ 16), square-root and random lower-triangular "
    "Toeplitz strategies (slack in rounding units; exact, no test), plus a Monte-Carlo check that the kernel's IME "
    "v̂ noise has the computed variance: var/computed − 1 within ±0.05 (verify.decide.equivalent, 3 tests: identity, "
    "half, banded; margin fixed before the data — a 5% variance error is a wrong noise scale). The gain part, exact: "
    "every strategy's threshold gain √(independent variance / its variance) ≤ dpmf_threshold_gain(β₂, t) in "
    "rounding units, the identity strategy's variance = vhat_variance_ime, and the gain at β₂^t < 1e-30 equals "
    "dpmf_threshold_gain_limit to 1e-12 (β₂ = 0.9, 0.99, 0.999). Issue 25: the search includes, per (β₂, t), a "
    "strategy at which the floor is attained (verify.papers.dp_adam_design.dpmf_attaining_strategy: the last row "
    "of C is v̂_t's weights, so wᵀC⁻¹ = e_tᵀ and sens = w_t), so a floor or gain bound stated smaller than the "
    "true one is refuted by it (it meets the bound to rounding: reported in rounding units).",
    tests=3,
)
def section4_4_1(budget: str, seed: int) -> Outcome:
    n_rand = by_budget(budget, 200, 3000)
    b2s, ts = (0.9, 0.99), (20, 200)
    rng = np.random.default_rng(child_seed(seed, "dp_adam_design.section4.4.1", "search"))
    worst = (np.inf, None)
    ratios = []
    named = []
    # every variance here is per τ² (the strategies' factors are at τ = 1), so a closed form is evaluated at τ = 1
    # where it has τ at all (the gain and its limit, ratios of variances at the same τ, have none as stated)
    gain_fn = _at_unit_tau(numeric(td.dpmf_threshold_gain()))
    indep_fn = numeric(td.vhat_variance_ime())
    # the gain part: every strategy's threshold gain √(independent variance / its variance) must stay at or below
    # dpmf_threshold_gain(β₂, t), in rounding units (the identity strategy's variance is the independent one,
    # vhat_variance_ime, which is checked too)
    gain_worst = (np.inf, None)
    attained = []  # |variance/floor − 1| of the attaining strategy, in rounding units

    def gain_check(label, f, f_indep, b2, t, tol):
        nonlocal gain_worst
        bound = float(gain_fn(beta2=b2, t=t))
        g = math.sqrt(f_indep / f)
        slack = (bound - g) / bound / tol
        if slack < gain_worst[0]:
            gain_worst = (slack, dict(kind="threshold gain above the bound", strategy=label, beta2=b2, t=t, gain=g,
                                      bound=bound))

    for b2 in b2s:
        for t in ts:
            lower = float(numeric(td.dpmf_variance_lower())(beta2=b2, t=t, tau=1.0))
            f_indep = float(indep_fn(beta2=b2, t=t, tau=1.0))
            for kind, bands in [("identity", 1), ("half", 1), ("banded", 4), ("banded", 16), ("sqrt", 1)]:
                stg = kd.strategy(kind, t, bands)
                f = _dpmf_var_factor(stg.cinv, stg.sensitivity, b2, t)
                slack = (f - lower) / lower / (8 * t * EPS)
                named.append(dict(kind=kind, bands=bands, beta2=b2, t=t, factor=f, lower=lower))
                ratios.append(f / lower)
                if slack < worst[0]:
                    worst = (slack, named[-1])
                tol = 8 * t * EPS * (1 + float(np.max(np.abs(stg.cinv))))
                if kind == "identity" and abs(f / f_indep - 1) > tol:
                    gain_worst = (-np.inf, dict(kind="independent-noise variance differs from vhat_variance_ime",
                                                beta2=b2, t=t, computed=f, closed_form=f_indep))
                gain_check(f"{kind} ({bands} bands)" if kind == "banded" else kind, f, f_indep, b2, t, tol)
            # issue 25: the strategy at which the floor is attained (so the gain bound is the largest gain): it is
            # in the search like the others, and its variance/floor is reported (1 up to rounding)
            Ca = dpmf_attaining_strategy(b2, t)
            f = _dpmf_var_factor_matrix(Ca, b2, t)
            tol = 8 * t * EPS * (1 + float(np.max(np.abs(np.linalg.inv(Ca)))))
            named.append(dict(kind="attaining", bands=0, beta2=b2, t=t, factor=f, lower=lower))
            ratios.append(f / lower)
            attained.append(abs(f / lower - 1) / tol)
            if (f - lower) / lower / tol < worst[0]:
                worst = ((f - lower) / lower / tol, named[-1])
            gain_check("attaining (rank-one last row)", f, f_indep, b2, t, tol)
            for _ in range(n_rand // (len(b2s) * len(ts))):
                nb = int(rng.integers(1, min(t, 12) + 1))
                c = np.concatenate([[1.0], rng.standard_normal(nb - 1) * 10 ** rng.uniform(-2, 0.5)])
                cfull = np.concatenate([c, np.zeros(t - nb)])
                cinv = kd.series_inverse(cfull, t)
                if not np.all(np.isfinite(cinv)) or np.max(np.abs(cinv)) > 1e12:
                    continue
                sens = float(np.max(np.sqrt(np.cumsum(cfull[::-1] ** 2)[::-1])))
                f = _dpmf_var_factor(cinv, sens, b2, t)
                slack = (f - lower) / lower / (8 * t * EPS * (1 + np.max(np.abs(cinv))))
                ratios.append(f / lower)
                if slack < worst[0]:
                    worst = (slack, dict(kind="random", c=c.tolist(), beta2=b2, t=t, factor=f, lower=lower))
                gain_check("random Toeplitz", f, f_indep, b2, t, 8 * t * EPS * (1 + np.max(np.abs(cinv))))
    # the limit part: the gain at a t where β₂^t < 1e-30 equals 1/√(1 − β₂²) (dpmf_threshold_gain_limit) to
    # float64 rounding of the closed forms (relative 1e-12; the t-dependence left is below 1e-30)
    lim_fn = _at_unit_tau(numeric(td.dpmf_threshold_gain_limit()))
    lim_rows = []
    for b2 in (0.9, 0.99, 0.999):
        t_big = int(math.ceil(math.log(1e-30) / math.log(b2)))
        at_t, lim = float(gain_fn(beta2=b2, t=t_big)), float(lim_fn(beta2=b2))
        lim_rows.append(dict(beta2=b2, t=t_big, gain=at_t, limit=lim, rel=abs(at_t / lim - 1)))
    lim_bad = next((r for r in lim_rows if not r["rel"] <= 1e-12), None)
    gain_holds = gain_worst[0] >= -1.0 and lim_bad is None
    bound_holds = worst[0] >= -1.0 and gain_holds
    # Monte Carlo: the kernel's IME noise variance equals the factor
    tasks = [dict(kind=k, bands=b, beta2=0.9, t=40, trials=by_budget(budget, 100, 400),
                  seed=child_seed(seed, "dp_adam_design.section4.4.1", "mc", i))
             for i, (k, b) in enumerate([("identity", 1), ("half", 1), ("banded", 4)])]
    mc = sweep(_s441_task, tasks, "section4.4.1")
    decisions = []
    for (k_, b_), r in zip([("identity", 1), ("half", 1), ("banded", 4)], mc):
        n = int(r["n"])
        target = float(r["factor"]) * float(r["tau"]) ** 2
        # var/target − 1 with the χ²-based standard error √(2/(n − 1)) of a Gaussian sample variance
        decisions.append(decide.equivalent(decide.Estimate(float(r["var"]) / target - 1.0, math.sqrt(2.0 / (n - 1)),
                                                           math.inf),
                                           what=f"{k_} strategy: kernel IME v̂ noise variance / computed − 1",
                                           margin=S441_MARGIN))
    mc_ok = [dd.verdict == "holds" for dd in decisions]
    gain_lim = float(lim_fn(beta2=0.999))
    best_ratio = min(ratios)
    verdict = _verdict(decisions, bound_holds)
    key = next((dd for dd in decisions if dd.verdict != "holds"), decisions[0])
    evidence = (f"exact bound {'holds' if worst[0] >= -1.0 else 'FAILS'}; threshold gains ≤ √K(1 − β₂^t)/(1 − β₂) "
                f"{'for every strategy' if gain_worst[0] >= -1.0 else 'FAILS'} (slack {gain_worst[0]:.3g} rounding "
                f"units) and → 1/√(1 − β₂²) {'to 1e-12' if lim_bad is None else 'FAILS'} at β₂ ∈ {{0.9, 0.99, 0.999}}"
                f"; {key.phrase()}; "
                f"the rank-one strategy attains the floor (|variance/floor − 1| ≤ {max(attained):.3g} rounding "
                f"units: the gain bound is the largest gain, so a smaller one is refuted by it); "
                f"{len(ratios)} strategies × (β₂, t): min variance / single-term bound = {best_ratio:.4f} (≥ 1; "
                f"slack {worst[0]:.3g} rounding units); kernel IME noise variance within ±{S441_MARGIN:g} of the "
                f"computed one in {sum(mc_ok)}/{len(mc_ok)} tests; "
                f"threshold gain ≤ 1/√(1−β₂²) = {gain_lim:.1f} at β₂ = 0.999")
    figures = {"min_variance_over_bound": best_ratio, "min_slack_rounding_units": worst[0],
               "attaining_strategy_max_gap_rounding_units": max(attained),
               "min_gain_slack_rounding_units": gain_worst[0],
               "max_gain_limit_rel_error": max(r["rel"] for r in lim_rows),
               "gain_limit_beta2_0.999": gain_lim, "mc_intervals_ok": float(sum(mc_ok))}
    b2grid = np.linspace(0.5, 0.9999, 200)
    panels = []
    for b2 in b2s:
        series = []
        for kind, bands in [("identity", 1), ("half", 1), ("banded", 4), ("banded", 16), ("sqrt", 1)]:
            sel = [r for r in named if r["beta2"] == b2 and r["kind"] == kind and r["bands"] == bands]
            label = f"banded ({bands} bands)" if kind == "banded" else kind
            series.append(Series(label, [r["t"] for r in sel], [r["factor"] / r["lower"] for r in sel],
                                 style="points"))
        series.append(Series("single-term bound", list(ts), [1.0, 1.0], style="dashed"))
        panels.append(Panel(f"β₂ = {b2}: v̂ noise variance / single-term bound", "rounds t", "ratio (≥ 1)", series,
                            xscale="log", yscale="log"))
    b2grid = np.linspace(0.5, 0.9999, 200)
    panels.append(Panel("largest possible threshold gain", "β₂", "1/√(1−β₂²)", [
        Series("gain bound (t → ∞)", b2grid, 1 / np.sqrt(1 - b2grid**2))], yscale="log"))
    fig = Figure("section4_4_1_dpmf", "dp_adam_design App. C: DP-MF gain on the thresholds", panels)
    counter = (worst[1] if worst[0] < -1.0 else gain_worst[1] if gain_worst[0] < -1.0 else lim_bad) \
        if not bound_holds else next(({"kernel_variance_test": dd.reason} for dd in decisions
                                                      if dd.verdict == "violated"), None)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter if verdict == "violated" else None, plots=[fig], decisions=decisions)


# ======================================================================================
# §4.5 anisotropy of the per-update noise under scale-then-privatize
# ======================================================================================
S45 = dict(batch=16, sigma=1.0, beta2=0.99, clip_pp=1.0, clip_stp=8.0)  # σC/B = 0.5 < 1 for STP: v̂ stays finite


def _s45_task(variant: str, d: int, batch: int, rounds: int, burn: int, beta2: float, trials: int,
              seed: int) -> dict:
    """Per-coordinate variance (units s² = (σC/B)²) of the noise in each Adam update (β₁ = 0), after ``burn`` rounds,
    measured from the kernel: at every round the same state is stepped twice by :func:`kernels.dp_adam.step`, with
    the round's unit noise z and with z = 0; the update noise is the difference of the two updates −Δθ/η.

    For scale-then-privatize the kernel's outputs also give the multiplier of z in gradient space,
    (u⊙(√v̂_t + ξ) − u₀⊙(√v̂⁰_t + ξ))/((√v̂_t + ξ)·s z) = (√v̂_{t−1} + ξ)/(√v̂_t + ξ) (ḡ's unscaled clean average cancels), whose
    square is compared with the exact bound stp_update_noise_bound (coordinates with |z| > 0.1)."""  # noqa: E501
    prob = kdp.synthetic_gradients(d=d, batch=batch, scale="powerlaw", alpha=1.5, alignment=0.5, norm=1.0, seed=0)
    xi, lr = 1e-10, 1e-6
    clip = S45["clip_stp"] if variant == "scale_then_privatize" else S45["clip_pp"]
    cfg = kd.RoundConfig(variant=variant, lr=lr, beta1=0.0, beta2=beta2, xi=xi, clip_norm=clip,
                        sigma=S45["sigma"], batch_size=batch)
    std = kd.noise_stds(cfg)[0]
    bound = numeric(td.stp_update_noise_bound())
    acc = np.zeros((trials, d))
    mult_max, vhat_max = 0.0, 0.0
    zero = np.zeros(d)
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        drng, nrng = (np.random.default_rng(x) for x in ss.spawn(2))
        stt = kd.State.zeros(d)
        fn = prob.grad_fn()
        for t in range(rounds):
            grads = fn(t, stt.theta, drng)
            z = nrng.standard_normal(d)
            if t < burn:
                kd.step(cfg, stt, grads, z)
                continue
            clean = kd.State(stt.theta.copy(), stt.m.copy(), stt.v.copy(), stt.vclean.copy(), stt.t)
            th0 = stt.theta.copy()
            kd.step(cfg, clean, grads, zero)
            kd.step(cfg, stt, grads, z)
            corr = 1 - beta2**stt.t
            u = -(stt.theta - th0) / lr
            u0 = -(clean.theta - th0) / lr
            noise = u - u0
            acc[k] += (noise / std) ** 2
            vh, vh0 = stt.v / corr, clean.v / corr
            vhat_max = max(vhat_max, float(np.max(vh)))
            if variant == "scale_then_privatize":
                big = np.abs(z) > 0.1
                mult = ((u * (np.sqrt(vh) + xi) - u0 * (np.sqrt(vh0) + xi)) / (np.sqrt(vh) + xi))[big] / (std * z[big])
                mult_max = max(mult_max, float(np.max(mult**2)) / float(bound(beta2=beta2, t=stt.t)))
    per_coord = acc / (rounds - burn)  # (trials, d)
    return {"per_coord": per_coord, "mult_over_bound_max": mult_max, "std": std, "vhat_max": vhat_max,
            "s": std}


S45_MARGIN = math.log(2.0)  # violated: STP's per-trial anisotropy above post-processing's by more than a factor 2
#: worst case over gradient streams for the exact multiplier bound (fixed before the claim's verdicts): from round 1
#: (no burn-in: the bound is largest early, (1 + β₂)/β₂ at t = 2), B equal records per round, d = 8 coordinates:
#: "pulses" — round t's records are 10^((t mod 5) − 2)·e_{t mod d} (gradients concentrated in one coordinate,
#: every other coordinate switched off, magnitudes over four decades); "spike" — round 1's records are 10·(1, …, 1),
#: every later round's are zero (v decays as fast as the noise lets it)
S45_STREAMS = ("pulses", "spike", "late")
#: the "late" stream starts at round S45_LATE_T0 (Adam's corrections ≈ 1, the bound ≈ its limit 1/β₂, the regime the
#: statement's "→ 1/β₂" is about) from v = 100 in every coordinate, with zero gradients: v decays as fast as the
#: noise lets it, so the multiplier² comes within (1 − β₂)s²·0.01 of 1/β₂ (|z| > 0.1 is compared)
S45_LATE_T0 = 10**6
S45_ADV = {"quick": dict(d=8, rounds=60, trials=8), "full": dict(d=8, rounds=300, trials=32)}


def _s45_stream(kind: str, t: int, d: int, batch: int) -> np.ndarray:
    g = np.zeros((batch, d))
    if kind == "pulses":
        g[:, t % d] = 10.0 ** ((t % 5) - 2)
    elif kind == "spike":
        if t == 0:
            g[:] = 10.0
    elif kind == "late":
        pass  # zero gradients; the state starts at round S45_LATE_T0 with v = 100 (see _s45_adversarial_task)
    else:
        raise ValueError(f"stream must be one of {S45_STREAMS} (got {kind!r})")
    return g


def _s45_adversarial_task(stream: str, d: int, batch: int, rounds: int, beta2: float, trials: int, seed: int) -> dict:
    """Largest (per-round multiplier)² / stp_update_noise_bound(β₂, t) over rounds t ≥ 2 of scale-then-privatize on an
    adversarial gradient stream (S45_STREAMS), measured from the kernel as in :func:`_s45_task` (the same state
    stepped with the round's noise and with none), and the round where it was found."""
    xi, lr = 1e-10, 1e-6
    cfg = kd.RoundConfig(variant="scale_then_privatize", lr=lr, beta1=0.0, beta2=beta2, xi=xi,
                        clip_norm=S45["clip_stp"], sigma=S45["sigma"], batch_size=batch)
    std = kd.noise_stds(cfg)[0]
    bound = numeric(td.stp_update_noise_bound())
    zero = np.zeros(d)
    worst, worst_t = 0.0, 0
    for ss in np.random.SeedSequence(seed).spawn(trials):
        nrng = np.random.default_rng(ss)
        stt = kd.State.zeros(d)
        if stream == "late":
            stt.t = S45_LATE_T0
            stt.v[:] = 100.0 * (1 - beta2**S45_LATE_T0)  # v̂ = 100
        for t in range(rounds):
            grads = _s45_stream(stream, t, d, batch)
            z = nrng.standard_normal(d)
            if t == 0 and stream != "late":  # round 1 scales by s = 1: no multiplier to compare
                kd.step(cfg, stt, grads, z)
                continue
            clean = kd.State(stt.theta.copy(), stt.m.copy(), stt.v.copy(), stt.vclean.copy(), stt.t)
            th0 = stt.theta.copy()
            kd.step(cfg, clean, grads, zero)
            kd.step(cfg, stt, grads, z)
            corr = 1 - beta2**stt.t
            u, u0 = -(stt.theta - th0) / lr, -(clean.theta - th0) / lr
            vh, vh0 = stt.v / corr, clean.v / corr
            big = np.abs(z) > 0.1
            mult = ((u * (np.sqrt(vh) + xi) - u0 * (np.sqrt(vh0) + xi)) / (np.sqrt(vh) + xi))[big] / (std * z[big])
            r = float(np.max(mult**2, initial=0.0)) / float(bound(beta2=beta2, t=stt.t))
            if r > worst:
                worst, worst_t = r, int(stt.t)
    return {"worst": worst, "round": worst_t}


class S45Settings(NamedTuple):
    """section4.5's benign stream: coordinates, rounds, burn-in rounds, trials."""

    d: int
    rounds: int
    burn: int
    trials: int


S45_BUDGETS = Budgets(quick=S45Settings(d=32, rounds=500, burn=200, trials=16),
                      full=S45Settings(d=128, rounds=1500, burn=500, trials=40))


@claim(
    "dp_adam_design.section4.5",
    kind="ratio",
    statement="""§4.5: with scale-then-privatize the noise added to each Adam update (after dividing by √v̂_t) is
    close to isotropic — its per-coordinate variance is z's times (√v̂_{t−1}/√v̂_t)², at most (1 − β₂^t)/(β₂(1 −
    β₂^{t−1})) → 1/β₂ — whereas post-processing's per-update noise variance varies like 1/v̂_j.""",
    theory=(td.stp_update_noise_bound,),
    weaker_if={"theory.dp_adam_design.stp_update_noise_bound": "larger"},  # an upper bound on the multiplier
    notes="synthetic_gradients with power-law coordinate scales (α = 1.5, 2 decades+), alignment 0.5, B = 16, "
    "β₁ = 0, β₂ = 0.99, σ = 1; C = 8 for scale-then-privatize (σC/B = 0.5 < 1: the stable regime, where its "
    "steady state κ = 1/(1 − (σC/B)²) exists; the first version ran at σC/B = 3.1, where v̂ diverges) and C = 1 for "
    "post-processing; 300 rounds after a 200-round burn-in (quick). The update noise is measured from the kernel "
    "(the same state stepped with the round's noise and with none; the difference of the updates); the first "
    "version computed it from an assumed formula. Exact part: the per-round multiplier recovered from the kernel's "
    "outputs within the bound (rounding tolerance 1e-9 relative). Test (verify.decide.better, 1 test): per trial, "
    "log(max_j/min_j) of the per-coordinate update-noise variance; STP's mean below post-processing's holds, above "
    "it by more than log 2 (margin fixed before the data) is violated. Worst case over gradient streams for the "
    "exact bound (it is claimed whatever the gradients; the benign stream is checked only after its burn-in, where the "
    "bound is ≈ 1/β₂): two adversarial streams fixed before the verdicts, from round 1 (the bound is largest early, "
    "(1 + β₂)/β₂ at t = 2), d = 8, B equal records: 'pulses' (round t's records 10^((t mod 5) − 2)·e_{t mod d}: "
    "gradients concentrated in one coordinate, the others switched off) and 'spike' (10·(1, …, 1) in round 1, zero "
    "afterwards: v decays as fast as the noise lets it), and 'late' (added with issue 25: the spike's decay from "
    "v̂ = 100 with zero gradients but starting at round 10⁶, where the bound is its limit 1/β₂ — the early streams "
    "only reach rounds ≤ 60, where a bound with the wrong exponents is still above the truth and passed); 60 rounds "
    "× 8 trials quick, 300 × 32 full. The exact part "
    "holds only if the largest multiplier²/bound over both families is ≤ 1 + 1e-9; the evidence names the stream and "
    "round of the worst. No statistical test added.",
    tests=1,
)
def section4_5(budget: str, seed: int) -> Outcome:
    d, rounds, burn, trials = S45_BUDGETS.at(budget)
    beta2 = S45["beta2"]
    res = sweep(_s45_task, [dict(variant=v, d=d, batch=S45["batch"], rounds=rounds, burn=burn, beta2=beta2,
                                 trials=trials, seed=child_seed(seed, "dp_adam_design.section4.5", i))
                            for i, v in enumerate(("scale_then_privatize", "post_processing"))], "section4.5")
    stp, pp = res
    ga = S45_ADV[by_budget(budget, "quick", "full")]
    adv = sweep(_s45_adversarial_task, [dict(stream=st_, d=ga["d"], batch=S45["batch"], rounds=ga["rounds"],
                                             beta2=beta2, trials=ga["trials"],
                                             seed=child_seed(seed, "dp_adam_design.section4.5", "adversarial", i))
                                        for i, st_ in enumerate(S45_STREAMS)], "section4.5 adversarial streams")
    adv_worst = max(zip(S45_STREAMS, adv), key=lambda x: float(x[1]["worst"]))
    logan = [np.log(np.max(r["per_coord"], axis=1) / np.min(r["per_coord"], axis=1)) for r in res]
    dec = decide.better(logan[0], logan[1], what="log anisotropy of the update noise, STP − post-processing",
                        margin=S45_MARGIN)
    bound_ok = max(float(stp["mult_over_bound_max"]), float(adv_worst[1]["worst"])) <= 1.0 + 1e-9
    stable = math.isfinite(float(stp["vhat_max"])) and float(stp["vhat_max"]) < 1e6
    verdict = _verdict([dec], bound_ok)
    if verdict == "holds" and not stable:
        verdict = "inconclusive"
    prob = kdp.synthetic_gradients(d=d, batch=S45["batch"], scale="powerlaw", alpha=1.5, alignment=0.5, norm=1.0,
                                   seed=0)
    order = np.argsort(prob.scales)
    stp_pc = stp["per_coord"].mean(0)
    pp_pc = pp["per_coord"].mean(0)
    an = [float(np.exp(np.mean(x))) for x in logan]
    figures = {"anisotropy_stp": an[0], "anisotropy_post_processing": an[1],
               "max_multiplier_over_bound": float(stp["mult_over_bound_max"]), "bound_1_over_beta2": 1 / beta2,
               "sigma_C_over_B_stp": float(stp["s"]), "vhat_max_stp": float(stp["vhat_max"])}
    for st_, a in zip(S45_STREAMS, adv):
        figures[f"max_multiplier_over_bound_{st_}"] = float(a["worst"])
        figures[f"max_multiplier_round_{st_}"] = int(a["round"])
    evidence = (f"{dec.phrase()}; per-trial anisotropy (max/min per-coordinate update-noise variance, measured from "
                f"the kernel; geometric mean over {trials} trials): scale-then-privatize {an[0]:.3g} (σC/B = "
                f"{float(stp['s']):.2g}, max v̂ {float(stp['vhat_max']):.3g}) vs post-processing {an[1]:.3g}; largest "
                f"per-round multiplier² / exact bound = {float(stp['mult_over_bound_max']):.6f} after the burn-in; on "
                "adversarial streams (pulses, spike from round 2; late from round 10⁶): "
                + ", ".join(f"{st_} {float(a['worst']):.6f} (round {a['round']})" for st_, a in zip(S45_STREAMS, adv))
                + f"; worst {float(adv_worst[1]['worst']):.6f} on '{adv_worst[0]}' at round {adv_worst[1]['round']} "
                f"(≤ 1: {'holds' if bound_ok else 'FAILS'})")
    fig = Figure("section4_5_anisotropy", "dp_adam_design §4.5: per-update noise variance by coordinate", [
        Panel("per-coordinate variance of the update noise (normalised by its mean)", "coordinate scale a_j",
              "variance / mean variance", [
                  Series("scale-then-privatize", prob.scales[order], (stp_pc / stp_pc.mean())[order], style="points"),
                  Series("post-processing", prob.scales[order], (pp_pc / pp_pc.mean())[order], style="points")],
              xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=None if verdict != "violated" else {
        "anisotropy_stp": an[0], "anisotropy_pp": an[1],
        "max_multiplier_over_bound": float(stp["mult_over_bound_max"]),
        "adversarial_stream": adv_worst[0], "adversarial_max_multiplier_over_bound": float(adv_worst[1]["worst"]),
        "adversarial_round": int(adv_worst[1]["round"])}, plots=[fig], decisions=[dec])


# ======================================================================================
# §5.1 one-dimensional sparse logistic regression
# ======================================================================================
S51_LRS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)  # base learning rates tuned over (the paper tunes it; grid lost)
S51_PAPER = {"ground_truth": 0.5976, "nonprivate": 0.5976, "post_processing": 0.6010, "ime": 0.5981,
             "ime_for_free": 0.5980}  # the paper's §5.1 table (test loss, mean of 30 trials for the noisy rows)
S51_PAPER_PP_EXCESS = S51_PAPER["post_processing"] - S51_PAPER["ground_truth"]  # 0.0034
#: margin of the three orderings (fixed with the calibration, before any IME run): half of the paper's whole
#: post-processing excess 0.0034.  A reversal is a finding only when the worse method loses by more than half the
#: effect the table is about (IME's advantage there is 0.0029; IME vs IME for free differ by 0.0001).
S51_MARGIN = S51_PAPER_PP_EXCESS / 2
S51_SETTING_FACTOR = 3.0  # a seed whose PP excess is off the paper's by more than 3× (either way) is another setting
S51_DELTA = 1e-6  # δ at which the evidence reports the accountant's ε of the noise multiplier (the paper's δ lost)
#: the noise multiplier, calibrated once from the paper's non-private and post-processing rows (see
#: :func:`s51_calibration` and the claim's notes); everything else was fixed before any run

def _one_arm_mutants(arm: str, label: str) -> list:
    """Declared one-arm fault: noise*3 on the claimed winner's runs only (kernels.faults.Faults.only_methods;
    ``arm``: the kernels.dp_adam.RoundConfig.fault_name of the winner's configuration).

    The generic noise*3 hits every row of the comparison alike; this one hits the winner alone.  No one-arm stepsize
    fault is declared: each row's learning rate is tuned on a grid, fault included, so the tuning undoes it."""

    return [kernel_mutant(f"noise*3[{label} only]", f"the privacy noise's standard deviation ×3 in the {arm} runs "
                          "only (the other rows unchanged)", "noise_scale", "utility", noise_scale=3.0,
                          only_methods=(arm,))]


S51 = dict(clip=1.0, sigma=0.275, xi=1e-8, strategy="sqrt")
S51_CALIBRATION = dict(sigmas=(0.2, 0.225, 0.25, 0.275, 0.3, 0.325, 0.35), dataset_seeds=tuple(range(1, 21)),
                       nonprivate_tol=1e-4, trials=30)
S51_METHODS = {
    "nonprivate": dict(variant="post_processing", sigma=0.0),
    "post_processing": dict(variant="post_processing"),
    "ime": dict(variant="ime", floor=1.0),
    "ime_for_free": dict(variant="ime", floor=1.0, ime_split=False),
}


def _s51_task(method: str, lrs: tuple, trials: int, seed: int, sigma: float | None = None,
              stds: tuple | None = None) -> dict:
    """Test losses (len(lrs), trials): one dataset, ``trials`` noise draws (the same draws for every lr).

    ``sigma``: the noise multiplier (default :data:`S51`'s); ``stds``: IME's per-round noise stds from the closed form
    (``None``: the kernel's own)."""
    prob = kdp.sparse_logistic_1d(seed=seed)
    spec = dict(S51_METHODS[method])
    sigma = spec.pop("sigma", S51["sigma"] if sigma is None else sigma)
    losses = np.empty((len(lrs), trials))
    for i, lr in enumerate(lrs):
        cfg = kd.RoundConfig(optimizer="adagrad", lr=lr, beta1=0.0, xi=S51["xi"], clip_norm=S51["clip"],
                            sigma=sigma, batch_size=1, **spec)
        th = kd.run_logistic_1d(prob.x, prob.y, cfg, strat_kind=S51["strategy"] if sigma > 0 else "identity",
                               trials=trials if sigma > 0 else 1, seed=seed + 7,
                               noise_stds_override=None if stds is None else tuple(stds))
        losses[i] = prob.test_loss(th) if sigma > 0 else np.full(trials, prob.test_loss(th)[0])
    return {"loss": losses, "ground_truth": float(prob.test_loss(prob.theta_star)[0])}


S51_PROBE_LR, S51_PROBE_RTOL = 0.1, 1e-12  # the step probe's learning rate and tolerance (rounding), fixed in advance


def _s51_step_probe(methods) -> tuple[str, dict]:
    """Whether ``kernels.dp_adam.run_logistic_1d`` takes the stated AdaGrad step for each of ``methods``' S51
    configuration (σ = 0: no noise): one record x = 1, y = +1 from θ = 0 (gradient g = −½), so the stated first step
    is θ₁ = η·½/(√max(g², floor) + ξ) (the kernel's documented update, floor and ξ the method's), to S51_PROBE_RTOL
    relative.  Returns ("", numbers) when every method passes, else (the reason, numbers)."""
    numbers, bad = {}, []
    for m in methods:
        spec = dict(S51_METHODS[m])
        spec.pop("sigma", None)
        cfg = kd.RoundConfig(optimizer="adagrad", lr=S51_PROBE_LR, beta1=0.0, xi=S51["xi"], clip_norm=S51["clip"],
                             sigma=0.0, batch_size=1, **spec)
        got = float(kd.run_logistic_1d(np.array([1.0]), np.array([1.0]), cfg, trials=1, seed=0)[0])
        stated = S51_PROBE_LR * 0.5 / (math.sqrt(max(0.25, spec.get("floor", 0.0))) + S51["xi"])
        err = abs(got / stated - 1.0)
        numbers[f"probe_step_rel_error[{m}]"] = err
        if not err <= S51_PROBE_RTOL:
            bad.append(f"{m}: the first step is {got / stated:.4g} × the stated η·|g|/(√max(g², floor) + ξ)")
    return "; ".join(bad), numbers


#: the noise probe (fixed in advance): trials × records (400 sums of 50 draws each) and the band on the std ratio
#: (χ² with 400 degrees of freedom: a correct kernel leaves [0.8, 1.25] with probability < 1e-8)
S51_PROBE_TRIALS, S51_PROBE_RECORDS, S51_PROBE_BAND = 400, 50, (0.8, 1.25)


def _s51_noise_probe(methods, ime_stds: tuple) -> tuple[str, dict]:
    """Whether ``kernels.dp_adam.run_logistic_1d`` draws the stated noise on the gradient part for each private one of
    ``methods``' S51 configuration: S51_PROBE_RECORDS records x = 0 (gradient 0), ξ = 0 and the floor at 10⁶ (so the
    denominator is √10⁶ = 10³ exactly while v̂ < 10⁶), η = 1: θ_T = −Σ_t z_t/10³ with z_t the gradient part's noise
    (identity strategy: independent rounds), whose standard deviation over S51_PROBE_TRIALS runs, divided by
    √S51_PROBE_RECORDS, must be the stated one within S51_PROBE_BAND: σC/B for post-processing and IME for free,
    ``ime_stds[0]`` (theory.ime_noise_stds, as the runs pass it) for IME.  Returns ("", numbers) or (the reason,
    numbers)."""
    numbers, bad = {}, []
    for m in methods:
        spec = dict(S51_METHODS[m])
        sigma = spec.pop("sigma", S51["sigma"])
        if sigma == 0:
            continue
        spec["floor"] = 1e6
        cfg = kd.RoundConfig(optimizer="adagrad", lr=1.0, beta1=0.0, xi=0.0, clip_norm=S51["clip"], sigma=sigma,
                             batch_size=1, **spec)
        th = kd.run_logistic_1d(np.zeros(S51_PROBE_RECORDS), np.ones(S51_PROBE_RECORDS), cfg,
                                trials=S51_PROBE_TRIALS, seed=1,
                                noise_stds_override=tuple(ime_stds) if m == "ime" else None)
        stated = ime_stds[0] if m == "ime" else sigma * S51["clip"]
        ratio = float(np.sqrt(np.mean(th**2) / S51_PROBE_RECORDS) * 1e3 / stated)
        numbers[f"probe_noise_std_ratio[{m}]"] = ratio
        if not S51_PROBE_BAND[0] <= ratio <= S51_PROBE_BAND[1]:
            bad.append(f"{m}: the gradient noise in the update is {ratio:.3g} × the stated η·std")
    return "; ".join(bad), numbers


def _s51_best(r: dict, lrs: tuple) -> tuple[float, np.ndarray, float]:
    """(mean test loss, per-trial losses, lr) at the learning rate with the lowest mean test loss."""
    means = r["loss"].mean(axis=1)
    i = int(np.argmin(means))
    return float(means[i]), r["loss"][i], lrs[i]


def s51_calibration(sigmas=S51_CALIBRATION["sigmas"], dataset_seeds=S51_CALIBRATION["dataset_seeds"],
                    trials: int = S51_CALIBRATION["trials"], nonprivate_tol: float = S51_CALIBRATION["nonprivate_tol"]
                    ) -> dict:
    """The one-off calibration of §5.1's noise multiplier from the paper's non-private and post-processing rows only.

    For each dataset seed: non-private AdaGrad's excess test loss over the ground truth θ* (best lr); datasets with
    |excess| ≤ ``nonprivate_tol`` reproduce the paper's row "non-private 0.5976 = ground truth 0.5976".  For each σ:
    post-processing's excess (best lr, mean of ``trials`` DP-MF noise draws) on each such dataset; the mean over
    them, with its t interval over datasets.  The calibrated σ is the grid point whose mean is nearest the paper's
    0.6010 − 0.5976 = 0.0034.  Independent moment estimation is never run here.

    Parameters
    ----------
    sigmas : sequence of float
        The noise multipliers tried.
    dataset_seeds : sequence of int
        The dataset seeds (each one dataset of the §5.1 stand-in).
    trials : int
        Noise draws per run.
    nonprivate_tol : float
        The largest |non-private excess| for a dataset to be kept.

    Returns
    -------
    dict
        ``nonprivate_excess`` (per dataset seed), ``selected`` (the kept dataset seeds), ``rows`` (per σ: the
        mean post-processing excess, its t interval ``lo``/``hi`` and ``per_dataset``) and ``sigma`` (the
        calibrated multiplier).
    """
    lrs = S51_LRS
    nonprivate = {d: None for d in dataset_seeds}
    for d in dataset_seeds:
        r = _s51_task("nonprivate", lrs, trials, d)
        nonprivate[d] = _s51_best(r, lrs)[0] - r["ground_truth"]
    selected = [d for d in dataset_seeds if abs(nonprivate[d]) <= nonprivate_tol]
    rows = []
    for sg in sigmas:
        exc = []
        for d in selected:
            r = _s51_task("post_processing", lrs, trials, d, sigma=float(sg))
            exc.append(_s51_best(r, lrs)[0] - r["ground_truth"])
        ci = mean_ci(exc)
        rows.append({"sigma": float(sg), "pp_excess": ci.estimate, "lo": ci.lo, "hi": ci.hi,
                     "per_dataset": dict(zip(selected, exc))})
    best = min(rows, key=lambda row: abs(row["pp_excess"] - S51_PAPER_PP_EXCESS))
    return {"nonprivate_excess": nonprivate, "selected": selected, "rows": rows, "sigma": best["sigma"]}


_S51_EPS_MEMO: dict = {}


def _s51_epsilon(z: float) -> tuple[float, float]:
    """(lower, upper) ε of one Gaussian release with multiplier z at δ = S51_DELTA (dp-accounting PLD with its
    pessimistic and optimistic estimates; the grid 0.01, coarser where the accountant needs it: valid bounds)."""

    if z not in _S51_EPS_MEMO:
        for vdi in (1e-2, 1e-1, 1.0):
            try:
                _S51_EPS_MEMO[z] = gaussian_epsilon_interval(z, S51_DELTA, value_discretization_interval=vdi)
                break
            except InvalidParameter:
                if vdi == 1.0:
                    raise
    return _S51_EPS_MEMO[z]


def _s51_privacy(ime_stds: tuple[float, float]) -> dict:
    """ε bounds (dp-accounting PLD, δ = S51_DELTA) of post-processing's release and of IME's with ``ime_stds``.

    Both are one Gaussian mechanism per single-participation DP-MF release (the sensitivity is in the stds): PP has
    multiplier σ; IME noises [ḡ, ḡ²] with stds (a, b) at sensitivities (Δ₁, Δ₂), together the multiplier
    1/√((Δ₁/a)² + (Δ₂/b)²).  "IME for free" (σ on each part) is reported too.  ``same``: the two ε intervals
    overlap (the accountant cannot tell the releases apart)."""
    d1, d2 = kd.ime_sensitivities(S51["clip"], 1)
    a, b = ime_stds
    z_ime = math.inf if min(a, b) <= 0 else 1.0 / math.sqrt((d1 / a) ** 2 + (d2 / b) ** 2)
    pp = _s51_epsilon(S51["sigma"])
    ime = _s51_epsilon(z_ime) if math.isfinite(z_ime) else (0.0, 0.0)
    free = _s51_epsilon(S51["sigma"] / math.sqrt(2.0))
    return {"z_ime": z_ime, "z_pp": S51["sigma"], "eps_pp": pp[1], "eps_ime": ime[1], "eps_ime_for_free": free[1],
            "same": bool(ime[0] <= pp[1] and pp[0] <= ime[1])}


@claim(
    "dp_adam_design.section5.1",
    kind="experiment",
    statement="""§5.1: in one-dimensional sparse logistic regression (1000 records, 90% zero features, one epoch,
    batch 1, DP-MF noise) private AdaGrad via independent moment estimation reaches a lower test loss than via
    post-processing, and non-private AdaGrad is close to the ground truth (ordering ground truth ≈ non-private
    < IME < post-processing, 30 trials).""",
    theory=(td.ime_noise_stds,),
    mutants=_one_arm_mutants("ime", "IME"),
    notes="The seed text of §5.1 lost every constant (the distribution of x, θ*, the zeroed fraction, C, σ, the "
    "learning-rate grid, IME's floor, the test-set size); its table survives: ground truth 0.5976, non-private "
    "0.5976, post-processing 0.6010, IME 0.5981, IME for free 0.5980 (30 trials). Fixed before any run: x ~ N(0,1), "
    "θ* = 1 (population loss 0.599, a 20 000-record test set gives 0.5967 at seed 0: the paper's 0.5976 is within "
    "a test set's Monte-Carlo error), 90% of training x zeroed, C = 1, DP-MF = square-root Toeplitz factorisation "
    "(the unconstrained near-optimal single-epoch one, sensitivity 1.81 at T = 1000), IME with the equal √2σ split "
    "(the noise stds come from theory.ime_noise_stds and drive the kernel) and preconditioner √max(v, C²); the "
    "learning rate tuned per method over {0.01, 0.03, …, 10} by mean test loss (10 added to the old grid, ending "
    "at 3, because post-processing's best sat on that edge; the non-private and post-processing rows only). "
    "The noise multiplier, calibrated once from the paper's non-private and post-processing rows only, before any "
    "IME run in this setting (s51_calibration): of dataset seeds 1–20, the 8 whose non-private excess is ≤ 1e-4 "
    "reproduce the row 'non-private = ground truth' (1, 2, 8, 9, 11, 13, 16, 20; the claim's seed 0 uses dataset "
    "1: −4e-5); over them post-processing's mean excess (best lr, 30 DP-MF draws) is 0.00246 [0.0015, 0.0035] "
    "at σ = 0.25, 0.00323 [0.0019, 0.0046] at σ = 0.275, 0.00418 [0.0025, 0.0058] at σ = 0.3: σ = 0.275 is the "
    "grid point nearest the paper's 0.0034 (the old σ = 1 gave 0.070 on dataset 1, 20× the paper's). The "
    "accountant's ε of that multiplier (PLD, one Gaussian release, δ = 1e-6) is about 23: a small "
    "signal-to-noise ratio, as the paper says. Tests (verify.decide.better, Welch t, 3 tests, margin "
    "0.0017 = half the paper's post-processing excess, fixed with the calibration before any IME run): "
    "IME < post-processing, non-private < IME, and the paper's 'IME for free' row (kernel: IME without the "
    "privacy split) < post-processing. Preconditions: IME runs at post-processing's privacy (the accountant's ε of "
    "the closed form's stds matches post-processing's: their PLD intervals overlap; otherwise that closed "
    "form, exact, is refuted and the run "
    "is not the stated comparison: violated, with the stds and both ε as the counterexample), and a seed whose "
    "post-processing excess is more than 3× off the paper's, either way, is reported but cannot "
    "give violated (not the paper's setting). History: a first version resampled the dataset in every trial "
    "(IME − PP = −0.0015 [−0.036, 0.033]); a second ran at σ = 1, 20× noisier than the paper (inconclusive by "
    "the setting guard). Mechanism probes first (issue 25, _s51_noise_probe and _s51_step_probe): a kernel whose "
    "gradient noise is not the stated std (within [0.8, 1.25]) or whose noiseless first AdaGrad step is not the "
    "stated one gives an undecided or violated check no verdict (it raises, with the reason: a violation shown by "
    "runs of another mechanism is no evidence; kept until session 27); a 'holds' becomes inconclusive "
    "(decide.after_probe).",
    tests=3,
)
def section5_1(budget: str, seed: int) -> Outcome:
    trials = 30
    lrs = S51_LRS
    ime_stds = tuple(float(v) for v in (numeric(e)(sigma=S51["sigma"], C=S51["clip"], B=1)
                                        for e in td.ime_noise_stds()))
    # issue 25: the runs must be the stated mechanism (each method's noise and first step): see decide.after_probe
    why = "; ".join(w for w in (_s51_noise_probe(S51_METHODS, ime_stds)[0], _s51_step_probe(S51_METHODS)[0]) if w)
    tasks = [dict(method=m, lrs=lrs, trials=trials, seed=seed + 1) for m in S51_METHODS]
    for tk in tasks:
        if tk["method"] == "ime":
            tk["stds"] = ime_stds
    res = sweep(_s51_task, tasks, "section5.1")
    best = {tk["method"]: _s51_best(r, lrs) for tk, r in zip(tasks, res)}
    gt = float(res[0]["ground_truth"])
    decs = [decide.better(best["ime"][1], best["post_processing"][1], what="test loss IME − post-processing",
                          margin=S51_MARGIN),
            decide.better(best["nonprivate"][1], best["ime"][1], what="test loss non-private − IME",
                          margin=S51_MARGIN),
            decide.better(best["ime_for_free"][1], best["post_processing"][1],
                          what="test loss IME for free − post-processing", margin=S51_MARGIN)]
    pp_ci = mean_ci(best["post_processing"][1] - gt)
    ratio = pp_ci.estimate / S51_PAPER_PP_EXCESS
    setting_matches = 1.0 / S51_SETTING_FACTOR <= ratio <= S51_SETTING_FACTOR
    priv = _s51_privacy(ime_stds)
    # exact precondition: the declared closed form's split puts IME at post-processing's privacy (the accountant's ε
    # of both releases agrees); either way off, the closed form (exact, §3.2) is refuted and the run is not the
    # stated comparison: a computed counterexample
    same_privacy = priv.pop("same")
    verdict = _verdict(decs, exact_ok=same_privacy)
    why_not = ""
    counterexample = None
    if not same_privacy:
        why_not = (f"; IME's noise from theory.ime_noise_stds (stds {ime_stds[0]:.4g}, {ime_stds[1]:.4g}) is not at "
                   f"post-processing's privacy (dp-accounting ε {priv['eps_ime']:.4g} vs {priv['eps_pp']:.4g} at "
                   f"δ = {S51_DELTA:g}): the closed form of the equal-privacy split is wrong and the run is not the "
                   "stated comparison")
        counterexample = {"ime_std_grad": ime_stds[0], "ime_std_square": ime_stds[1], "sigma": S51["sigma"],
                          "eps_ime": priv["eps_ime"], "eps_post_processing": priv["eps_pp"], "delta": S51_DELTA}
    elif verdict == "violated" and not setting_matches:
        verdict = "inconclusive"
        why_not = (f"; a test says violated, but this seed's setting is not the paper's (post-processing excess "
                   f"{pp_ci.estimate:.3g} vs the paper's {S51_PAPER_PP_EXCESS:.4f}, {ratio:.3g}×), so it is not a "
                   "finding about the paper")
    figures = {f"loss_{m}": b[0] for m, b in best.items()}
    figures.update({f"lr_{m}": b[2] for m, b in best.items()})
    figures["loss_ground_truth"] = gt
    figures["ime_minus_pp"] = decs[0].estimate
    figures["nonprivate_minus_ime"] = decs[1].estimate
    figures["ime_for_free_minus_pp"] = decs[2].estimate
    figures["nonprivate_minus_ground_truth"] = float(best["nonprivate"][0] - gt)
    figures["pp_excess"] = pp_ci.estimate
    figures["pp_excess_lo"] = pp_ci.lo
    figures["pp_excess_hi"] = pp_ci.hi
    figures["pp_excess_over_paper"] = ratio
    figures["sigma"] = S51["sigma"]
    figures["ime_std_grad"], figures["ime_std_square"] = ime_stds
    figures.update({k: float(v) for k, v in priv.items()})
    key = next((dd for dd in decs if dd.verdict == "violated"), None) or \
        next((dd for dd in decs if dd.verdict == "inconclusive"), None) or decs[0]
    evidence = (f"{key.phrase()}{why_not}; {trials} trials (quick = full: the paper's 30), σ = {S51['sigma']:g} "
                f"(calibrated from the paper's PP row; ε {priv['eps_pp']:.3g} at δ = {S51_DELTA:g}), best lr per "
                f"method: test loss ground truth {gt:.4f}, non-private {best['nonprivate'][0]:.4f}, IME "
                f"{best['ime'][0]:.4f}, IME for free {best['ime_for_free'][0]:.4f}, post-processing "
                f"{best['post_processing'][0]:.4f} (paper: 0.5976, 0.5976, 0.5981, 0.5980, 0.6010); "
                + "; ".join(f"{dd.control.test.split(':')[0]}: {dd.estimate:.4g} ({dd.verdict})" for dd in decs)
                + f"; setting: post-processing excess {pp_ci.estimate:.3g} [{pp_ci.lo:.3g}, {pp_ci.hi:.3g}] vs the "
                f"paper's {S51_PAPER_PP_EXCESS:.4f}: {'comparable' if setting_matches else 'not the paper’s scale'}; "
                f"IME at PP's privacy: ε {priv['eps_ime']:.3g} = {priv['eps_pp']:.3g}: "
                f"{'yes' if same_privacy else 'NO'}")
    if verdict == "violated" and counterexample is None:
        counterexample = {"test": key.control.test.split(":")[0], "difference": key.estimate,
                          "lower_bound": key.violated_bound, "sigma": S51["sigma"], "seed": seed}
    names = ["ground truth", "non-private", "IME", "IME for free", "post-processing"]
    vals = [np.full(trials, gt)] + [best[m][1] for m in ("nonprivate", "ime", "ime_for_free", "post_processing")]
    cis = [mean_ci(v) for v in vals]
    fig = Figure("section5_1_logistic", "dp_adam_design §5.1: 1-D sparse logistic regression (AdaGrad)", [
        Panel("mean test loss (95% CI), best learning rate per method, and the paper's table", "method",
              "test loss", [Series("this reconstruction", list(range(5)), [c.estimate for c in cis],
                                   [c.lo for c in cis], [c.hi for c in cis], style="points"),
                            Series("paper", list(range(5)), [S51_PAPER[k] for k in (
                                "ground_truth", "nonprivate", "ime", "ime_for_free", "post_processing")],
                                   style="points")], categories=names)])
    verdict, evidence = decide.after_probe(why, "dp_adam_design.section5.1", str(verdict), evidence)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counterexample, plots=[fig],
                   decisions=decs)


# ======================================================================================
# Figure 4 (stylised): per-round negative fraction under bias correction, heavy-tailed scales
# ======================================================================================
def _fig4_task(scale: str, d: int, batch: int, rounds: int, beta2: float, sigma: float, trials: int,
               seed: int) -> dict:
    prob = kdp.synthetic_gradients(d=d, batch=batch, scale=scale, alpha=1.0, alignment=0.7, norm=1.0, fresh=False,
                                 seed=seed)
    cfg = kd.RoundConfig(variant="bias_correction", lr=1e-6, beta1=0.0, beta2=beta2, xi=1e-12, clip_norm=1.0,
                        sigma=sigma, batch_size=batch)
    out = kd.run_stream(cfg, prob.grad_fn(), d, rounds, trials=trials, seed=seed)
    # the clean average the kernel saw (records are fixed; recompute them from the same data stream)
    ss = np.random.SeedSequence(seed).spawn(trials)
    gbars = []
    for s_ in ss:
        drng = np.random.default_rng(s_.spawn(2)[0])
        g = prob.round(drng)
        c = g * np.minimum(1.0, 1.0 / np.linalg.norm(g, axis=1))[:, None]
        gbars.append(c.mean(axis=0))
    return {"neg_frac": out["neg_frac"], "gbar": np.array(gbars), "gbar_norm": out["gbar_norm"][:, 0]}


F4_MARGIN = 0.05
F4_SUBSTANTIAL = 0.10


class F4Settings(NamedTuple):
    """figure4: rounds, trials, coordinates in the exact quantile subsample."""

    rounds: int
    trials: int
    n_exact: int


F4_BUDGETS = Budgets(quick=F4Settings(rounds=300, trials=2, n_exact=24),
                     full=F4Settings(rounds=1000, trials=8, n_exact=96))


@claim(
    "dp_adam_design.figure4",
    kind="experiment",
    statement="""Fig. 4 (stylised on synthetic gradients): with bias correction a substantial fraction of v̂'s
    coordinates is negative in most rounds even when ‖ḡ‖/C is near the optimistic case and d is far below eq. (2)'s
    threshold, because heavy-tailed coordinate magnitudes leave most coordinates below the bias (σC/B)².""",
    theory=(td.negative_probability, td.threshold_optimistic),
    notes="synthetic_gradients, fixed records, alignment 0.7 (‖ḡ‖/C ≈ 0.7), power-law scales a_j ∝ j^{−1} vs "
    "uniform, B = 64, σ = 1, β₂ = 0.99, d = d*/20. Simulated per-round fraction (fused bias-correction kernel) "
    "vs the exact mean over coordinates of negative_probability at rounds 10, 50 and the last (quantile subsample "
    "of |ḡ_j|). Tests (4): per scale, the mean simulated − exact fraction within ±0.05 (verify.decide.equivalent; "
    "the margin covers the quantile subsample's approximation, ≤ 1/24 at quick, fixed before the data); "
    "'substantial' = the heavy-tailed late-round fraction ≥ 10% (one-sided, binomial se); and it exceeds the "
    "uniform case's (verify.decide.upper_bounded). The premise 'd far below eq. (2)'s threshold' is checked on the "
    "exact law (no test; it used to be taken on trust, and a 10× wrong threshold passed): with aligned records at "
    "t = ⌈5/(1−β₂)⌉ the exact fraction at d* lies in eq. (2)'s band [Φ(−1.5), Φ(−0.5)] and at d = d*/20 is ≤ 1%.",
    tests=4,
)
def figure4(budget: str, seed: int) -> Outcome:
    B, sigma, beta2 = 64, 1.0, 0.99
    dstar = float(numeric(td.threshold_optimistic())(B=B, sigma=sigma, beta2=beta2))
    d = int(dstar / 20)
    rounds, trials, n_exact = F4_BUDGETS.at(budget)
    res = sweep(_fig4_task, [dict(scale=sc, d=d, batch=B, rounds=rounds, beta2=beta2, sigma=sigma, trials=trials,
                                  seed=child_seed(seed, "dp_adam_design.figure4", i))
                             for i, sc in enumerate(("powerlaw", "uniform"))], "figure4")
    s = sigma / B
    checkpoints = [9, 49, rounds - 1]
    decisions, panels, figures = [], [], {"d": d, "dstar": dstar}
    late = {}
    n_co = d * trials
    for sc, r in zip(("powerlaw", "uniform"), res):
        nf = r["neg_frac"]  # (trials, rounds)
        # exact per-round fraction: average of P(v̂<0) over coordinates (quantile subsample of |ḡ_j|)
        gb = np.abs(r["gbar"]).ravel()
        qs = np.quantile(gb, (np.arange(n_exact) + 0.5) / n_exact)
        exact = [float(np.mean([td.negative_probability(q, s, beta2, c + 1) for q in qs])) for c in checkpoints]
        sims = [float(nf[:, c].mean()) for c in checkpoints]
        se = math.sqrt(sum(max(e * (1 - e), 1.0 / n_co**2) / n_co for e in exact)) / len(exact)
        decisions.append(decide.equivalent(
            decide.Estimate(float(np.mean(np.subtract(sims, exact))), se, math.inf),
            what=f"{sc} scales: mean simulated − exact negative fraction at rounds {[c + 1 for c in checkpoints]}",
            margin=F4_MARGIN))
        p_late = float(nf[:, rounds // 2:].mean())
        late[sc] = (p_late, math.sqrt(max(p_late * (1 - p_late), 1.0 / n_co**2) / n_co))
        figures[f"late_negative_fraction_{sc}"] = p_late
        figures[f"gbar_norm_over_C_{sc}"] = float(np.mean(r["gbar_norm"]))
        panels.append(Series(f"{sc}: simulated per round", np.arange(1, rounds + 1), nf.mean(axis=0)))
        panels.append(Series(f"{sc}: exact", np.array(checkpoints) + 1, exact, style="points"))
    ph, pu = late["powerlaw"], late["uniform"]
    decisions.append(decide.upper_bounded(decide.Estimate(-ph[0], ph[1], math.inf), -F4_SUBSTANTIAL,
                                          test="heavy-tailed late-round negative fraction ≥ 0.10 (binomial se)",
                                          holds_reason=f"heavy-tailed late-round negative fraction {ph[0]:.4g}, lower "
                                          f"bound {ph[0] - 1.645 * ph[1]:.4g} ≥ {F4_SUBSTANTIAL:g}"))
    decisions.append(decide.upper_bounded(decide.Estimate(pu[0] - ph[0], math.hypot(pu[1], ph[1]), math.inf), 0.0,
                                          test="uniform minus heavy-tailed late-round negative fraction ≤ 0"))
    # the premise "d far below eq. (2)'s threshold", checked on the exact law (Imhof, no test): with aligned records
    # (coordinates C/√d, noise σC/B, t = ⌈5/(1−β₂)⌉) the fraction at d* lies in eq. (2)'s band and at d ≤ RARE
    t_lim = int(math.ceil(5 / (1 - beta2)))
    at_star = float(td.negative_probability(1.0 / math.sqrt(dstar), s, beta2, t_lim))
    at_d = float(td.negative_probability(1.0 / math.sqrt(d), s, beta2, t_lim))
    figures.update(aligned_exact_at_dstar=at_star, aligned_exact_at_d=at_d)
    premise_ok = AT_THRESHOLD_BAND[0] <= at_star <= AT_THRESHOLD_BAND[1] and at_d <= RARE
    verdict = _verdict(decisions, premise_ok)
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[2]
    evidence = (f"{key.phrase()}; d = {d} = d*/20, B = {B}, σ = {sigma}, β₂ = {beta2}, ‖ḡ‖/C ≈ "
                f"{figures['gbar_norm_over_C_powerlaw']:.2f}: late-round negative fraction heavy-tailed {ph[0]:.4g} "
                f"(se {ph[1]:.2g}) vs uniform {pu[0]:.4g}; simulation vs exact: "
                + ", ".join(f"{dd.estimate:+.3g} ({dd.verdict})" for dd in decisions[:2]))
    fig = Figure("figure4_negative_fraction", "dp_adam_design Fig. 4 (stylised): negative v̂ per round", [
        Panel(f"bias correction, d = {d}", "round", "fraction of v̂ < 0", panels)])
    evidence = (f"premise (exact, aligned records): P(v̂<0) at d* = {at_star:.3g} (band [{AT_THRESHOLD_BAND[0]:.3f}, "
                f"{AT_THRESHOLD_BAND[1]:.3f}]), at d = {at_d:.2g} (≤ {RARE:g}) "
                + ("holds" if premise_ok else "FAILS") + "; " + evidence)
    counter = None
    if verdict == "violated":
        counter = {"late_negative_fraction": {k: v[0] for k, v in late.items()}, "d": d, "B": B,
                   "aligned_exact_at_dstar": at_star, "aligned_exact_at_d": at_d, "premise_ok": premise_ok,
                   "failed": [dd.reason for dd in decisions if dd.verdict == "violated"]}
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# Your own setting: predicted, exact and simulated negative fraction, and the bias
# ======================================================================================
def negative_fraction(d: int, batch_size: int, sigma: float, clip_norm: float, beta2: float, steps: int,
                      case: str = "optimistic", trials: int = 20, seed: int = 0) -> dict:
    """For a user's (d, B, σ, C, β₂, T): the fraction of bias-corrected v̂ coordinates that are negative.

    ``case``: "optimistic" (aligned records, ‖ḡ‖ = C: every coordinate of ḡ is C/√d) or "pessimistic"
    (orthogonal records, ‖ḡ‖ = C/√B: C/√(Bd)).  Returns the threshold d* (eq. (2)/(3), general β₂ at t = T),
    the Gaussian mean-vs-std prediction, the exact probability (:func:`theory.dp_adam_design.negative_probability`),
    the simulated fraction over ``trials``·d coordinates with its Clopper–Pearson interval, and the bias of
    post-processing's v̂, (σC/B)² (section 3.1).

    Parameters
    ----------
    d : int
        The model dimension (>= 1).
    batch_size : int
        The batch size B (>= 1).
    sigma : float
        The noise multiplier σ (> 0).
    clip_norm : float
        The clipping norm C (> 0).
    beta2 : float
        Adam's second-moment decay β₂, in (0, 1).
    steps : int
        The round T at which v̂ is read (>= 1).
    case : str
        "optimistic" or "pessimistic".
    trials : int
        Simulated runs (>= 1).
    seed : int
        The simulation's seed (>= 0).

    Returns
    -------
    dict
        ``d``, ``d_star``, ``signal``, ``noise_std``, ``predicted_gaussian``, ``exact``, ``simulated`` with
        ``simulated_lo``/``simulated_hi``, ``bias_vhat`` ((σC/B)²) and ``bias_v`` ((1 − β₂ᵀ)(σC/B)²).

    Raises
    ------
    kernels.InvalidParameter
        When a parameter is out of range (β₂ outside (0, 1), T·(σC/B)² not finite in float64, …).
    """

    d = V.count("d", d)
    batch_size = V.count("batch_size", batch_size)
    sigma = V.positive("sigma", sigma)
    clip_norm = V.positive("clip_norm", clip_norm)
    beta2 = V.real("beta2", beta2)
    if not 0 < beta2 < 1:
        raise V.InvalidParameter("beta2", "in (0, 1)", beta2)
    steps = V.count("steps", steps)
    V.choice("case", case, ("optimistic", "pessimistic"))
    trials = V.count("trials", trials)
    V.integer("seed", seed, 0)
    V.memory("trials, d", trials, d)
    s = sigma * clip_norm / batch_size
    if not math.isfinite(s * s * steps):  # v̂ sums T squared noisy gradients of scale s
        raise V.InvalidParameter("sigma, clip_norm", "small enough that T·(σC/B)² is finite in float64",
                                  f"σC/B = {s:g}")
    signal = clip_norm / math.sqrt(d) if case == "optimistic" else clip_norm / math.sqrt(batch_size * d)
    expr = td.threshold_optimistic(True) if case == "optimistic" else td.threshold_pessimistic(True)
    dstar = float(numeric(expr)(B=batch_size, sigma=sigma, beta2=beta2, t=steps))
    sim = kd.constant_signal_vhat(np.full(d, signal), s, beta2, steps, trials=trials, seed=seed)
    k = int(round(sim["neg_frac"][-1] * trials * d))
    ci = clopper_pearson(k, trials * d)
    return {"d": d, "d_star": dstar, "signal": signal, "noise_std": s,
            "predicted_gaussian": float(td.negative_probability_gaussian(signal, s, beta2, steps)),
            "exact": float(td.negative_probability(signal, s, beta2, steps)),
            "simulated": ci.estimate, "simulated_lo": ci.lo, "simulated_hi": ci.hi,
            "bias_vhat": s**2, "bias_v": (1 - beta2**steps) * s**2}


# ======================================================================================
# Privacy audits (issue 9): the kernels' private releases against the Gaussian accountant
# ======================================================================================
# mechanism: (variant, DP-MF strategy, ((B, T, σ), ...)).  Adjacency: zero-out (the differing record's
# gradient is 0 in D, the canary in D'; B fixed, so the clipped average moves by ≤ C/B), as §3.2 uses.
DPA_AUDITS = {
    # every round the same B records (full batch): the canary takes part in all T rounds, T Gaussians compose
    "post_processing": ("post_processing", "identity", ((1, 1, 1.0), (4, 3, 1.5))),
    # the 2d-vector [ḡ, γḡ²] at multiplier σ per round; canary = the batch at which (2B−1)C²/B² is attained
    "ime": ("ime", "identity", ((4, 1, 1.0), (4, 2, 1.5))),
    # DP-MF 'half', single participation: batch t is used in round t only; the canary sits in round 1's batch
    # (the column of C with the largest norm), accounted as one Gaussian at multiplier σ (noise σ·sens·C/B)
    "dpmf_half": ("post_processing", "half", ((2, 3, 1.0),)),
}
DPA_AUDIT_TESTS = sum(len(c) for _, _, c in DPA_AUDITS.values())  # Bonferroni over the slice's audit tests
DPA_AUDIT_D = 2
_DPA_CANARY = 10.0  # ‖canary gradient‖ > C = 1: clipped to C·e₁ by the kernel


def _dpa_batches(mech: str, B: int, T: int, canary: bool) -> np.ndarray:
    """(T, B, d) per-record gradients of rounds 1..T on D (canary=False) or D' (canary=True)."""
    G = np.zeros((T, B, DPA_AUDIT_D))
    if mech == "ime":  # records 2..B equal the canary: the all-equal batch attains Δ₂ = (2B − 1)C²/B²
        G[:, 1:, 0] = _DPA_CANARY
    if canary:
        if mech == "dpmf_half":
            G[0, 0, 0] = _DPA_CANARY  # round 1 only (single participation)
        else:
            G[:, 0, 0] = _DPA_CANARY
    return G


def _dpa_released_inputs(cfg, thetas: np.ndarray, v_hist: np.ndarray):
    """The noisy per-round inputs (g̃_t, q_t) (trials, T, d) recovered from the released iterates θ_0..θ_T and
    second moments v_1..v_T of Adam (post-processing of the kernel's outputs; t0 = 0, no bias subtraction):
    q_t = (v_t − β₂v_{t−1})/(1 − β₂); m̂_t = −(θ_t − θ_{t−1})(√max(v̂_t, floor) + ξ)/η; g̃_t = (m_t − β₁m_{t−1})/(1 − β₁)."""  # noqa: E501
    trials, T, d = v_hist.shape
    b1, b2 = cfg.beta1, cfg.beta2
    g = np.empty((trials, T, d))
    q = np.empty((trials, T, d))
    v_prev = np.zeros((trials, d))
    m_prev = np.zeros((trials, d))
    for t in range(1, T + 1):
        v_t = v_hist[:, t - 1]
        q[:, t - 1] = (v_t - b2 * v_prev) / (1.0 - b2)
        vh = np.maximum(v_t / (1.0 - b2**t), cfg.floor)
        mh = -(thetas[:, t] - thetas[:, t - 1]) * (np.sqrt(vh) + cfg.xi) / cfg.lr
        m_t = mh * (1.0 - b1**t)
        g[:, t - 1] = (m_t - b1 * m_prev) / (1.0 - b1)
        v_prev, m_prev = v_t, m_t
    return g, q


def dpa_audit_task(mech: str, B: int, T: int, sigma: float, canary: bool, trials: int, seed: int,
                   noise_scale: float = 1.0) -> dict:
    """Scores of ``trials`` runs of :func:`kernels.dp_adam.run_stream` (Adam, η = 1, ξ = 1) on D or D'.

    The kernel runs at multiplier σ·``noise_scale`` (1 = as implemented; < 1 is the negative control).  The score
    is the likelihood-ratio statistic of the noisy inputs recovered from the released θ and v:
    post-processing Σ_t g̃_t[0]; IME Σ_t (g̃_t[0]/Δ₁ + q_t[0]/Δ₂); DP-MF Σ_t c_t (C g̃)_t[0] (C the strategy).

    Parameters
    ----------
    mech : str
        A key of DPA_AUDITS ("post_processing", "ime" or "dpmf_half").
    B : int
        The batch size.
    T : int
        The rounds.
    sigma : float
        The noise multiplier σ.
    canary : bool
        Run on D′ (with the canary) rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies σ in the kernel only.

    Returns
    -------
    dict
        ``score``: one score per run, shape (trials,).
    """
    variant, kind, _ = DPA_AUDITS[mech]
    G = _dpa_batches(mech, B, T, canary)
    cfg = kd.RoundConfig(variant=variant, lr=1.0, xi=1.0, clip_norm=1.0, sigma=sigma * noise_scale, batch_size=B)
    seen = []

    def grad_fn(t, theta, rng):
        seen.append(theta.copy())  # θ before round t (released after round t − 1)
        return G[t]

    out = kd.run_stream(cfg, grad_fn, DPA_AUDIT_D, T, trials=trials, seed=seed, strat_kind=kind, record_v=True)
    thetas = np.concatenate([np.asarray(seen).reshape(trials, T, DPA_AUDIT_D), out["theta"][:, None]], axis=1)
    g, q = _dpa_released_inputs(cfg, thetas, out["v_hist"])
    if mech == "ime":
        d1, d2 = kd.ime_sensitivities(1.0, B)
        score = np.sum(g[:, :, 0] / d1 + q[:, :, 0] / d2, axis=1)
    elif kind == "identity":
        score = np.sum(g[:, :, 0], axis=1)
    else:
        strat = kd.strategy(kind, T)
        Cm = kd.toeplitz_matrix(strat.c, T)
        score = (g[:, :, 0] @ Cm.T) @ strat.c
    return {"score": score}


def audit_dp_adam(mech: str, budget: str, seed: int, noise_scale: float = 1.0, trials: int | None = None) -> Outcome:
    """The audit claim ``dp_adam_design.audit.<mech>``.

    ``noise_scale`` < 1 under-noises the kernel (negative control) and ``trials`` overrides the budget's runs per
    dataset (the tests' smaller negative controls).

    Parameters
    ----------
    mech : str
        A key of DPA_AUDITS ("post_processing", "ime" or "dpmf_half").
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the kernel's noise (the accountant is still told the calibrated one).
    trials : int or None
        Runs per dataset; None takes the budget's (10⁴ quick, 10⁵ full).

    Returns
    -------
    Outcome
        The audit's outcome: one ε lower bound per configuration against dp-accounting's ε.
    """

    _, kind, configs = DPA_AUDITS[mech]
    # 10⁴ runs per dataset at quick (run_stream's per-trial overhead, ≈ 0.1 ms, keeps a claim near 4 s), 10× at full
    trials = by_budget(budget, 10_000, 100_000) if trials is None else int(trials)
    level = audit_level(len(configs))  # each bound at the ledger's per-test level
    tasks = [dict(mech=mech, B=B, T=Tr, sigma=s, canary=c, trials=trials, noise_scale=noise_scale,
                  seed=child_seed(seed, f"dp_adam_design.audit.{mech}", k, int(c)))
             for k, (B, Tr, s) in enumerate(configs) for c in (False, True)]
    outs = sweep(dpa_audit_task, tasks, f"audit dp_adam {mech}")
    rows = []
    for k, (B, Tr, s) in enumerate(configs):
        # identity: T Gaussians at multiplier σ (the canary in every round); DP-MF single participation: one
        # Gaussian at σ (the kernel's noise is σ·sens·C/B with sens its strategy's largest column norm)
        steps = Tr if kind == "identity" else 1
        # dp-accounting's pessimistic PLD on a 1e-3 grid: an upper bound, at most steps·1e-3 above the exact ε
        acct = gaussian_epsilon(s, AUDIT_DELTA, steps=steps, accountant="pld", value_discretization_interval=1e-3)
        bound = epsilon_lower_bound(outs[2 * k]["score"], outs[2 * k + 1]["score"], AUDIT_DELTA, level,
                                    seed=child_seed(seed, f"dp_adam_design.audit.{mech}", "bound", k),
                                    method=claim_method(1.0))  # no subsampling: a Gaussian claim
        rows.append(dict(batch_size=B, rounds=Tr, sigma=s, strategy=kind, accountant_epsilon=acct,
                         **{f"audit_{key}": v for key, v in bound.to_dict().items()}))
    labels = [f"B={r['batch_size']} T={r['rounds']} σ={r['sigma']}" for r in rows]
    return audit_outcome(f"audit_dp_adam_{mech}", f"Privacy audit of dp_adam_design {mech}", rows, labels,
                         trials=trials, level=level, budget=budget,
                         family="the ledger's statistical tests", figures={"noise_scale": noise_scale})


_DPA_AUDIT_TEXT = {
    "post_processing": ("""Post-processing DP-Adam (Alg. 5) with independent noise is as private as T Gaussian
    mechanisms at multiplier σ: adding N(0, (σC/B)²) to the clipped average of B records, no distinguishing test
    between zero-out neighbours certifies a larger ε than dp-accounting's.""",
                        "D: B zero records; D': record 1 = canary 10·e₁ (clipped to C = 1), the same batch in every "
                        "round. Configurations B=1,T=1,σ=1 and B=4,T=3,σ=1.5. Score Σ_t g̃_t[0], the noisy gradients "
                        "recovered exactly from the released θ_t and v_t."),
    "ime": ("""Independent moment estimation (Alg. 6) is as private as one Gaussian mechanism per round at multiplier
    σ on the 2d-vector [ḡ, γḡ²], given the zero-out sensitivities Δ₁ = C/B and Δ₂ = (2B − 1)C²/B² of §3.2 and
    the √2σ split of the noise: no distinguishing test certifies a larger ε than dp-accounting's.""",
            "D: records 2..B = canary 10·e₁ (clipped to C = 1), record 1 zero; D': all B records the canary — the "
            "all-equal batch at which Δ₂ = (2B−1)C²/B² is attained, so the audit tests the derived sensitivity "
            "where it is tight. Configurations B=4,T=1,σ=1 and B=4,T=2,σ=1.5. Score Σ_t (g̃_t[0]/Δ₁ + q_t[0]/Δ₂) "
            "(the likelihood ratio), with g̃_t and the noisy square q_t recovered from the released θ_t and v_t."),
    "dpmf_half": ("""DP-MF (Alg. 1) with the 'half' strategy (each round adds ζ_t − ½ζ_{t−1}), single participation,
    is as private as one Gaussian mechanism at multiplier σ when the noise is scaled by the strategy's computed
    sensitivity (largest column norm of C): no distinguishing test certifies a larger ε than dp-accounting's.""",
                  "Round t uses its own batch of B = 2 records (T = 3, σ = 1); D: all records zero; D': record 1 of "
                  "round 1's batch = canary 10·e₁ (the largest column of C). Score cᵀ(C g̃)[0], the likelihood "
                  "ratio of the de-correlated noisy gradients (recovered from the released θ_t and v_t)."),
}


def _register_dp_adam_audits() -> None:
    for name, (statement, cfg_notes) in _DPA_AUDIT_TEXT.items():
        claim(
            f"dp_adam_design.audit.{name}",
            kind="privacy",
            tests=len(DPA_AUDITS[name][2]),
            statement=statement,
            theory=(),
            notes=cfg_notes + " Kernel: kernels.dp_adam.run_stream (Adam, η = 1, ξ = 1, d = 2). Zero-out adjacency "
            "(the accountant's; for the Gaussian mechanism without sampling the dominating pair N(0, σ²) vs N(1, σ²) "
            "is the same as add/remove). Threshold chosen on a quarter of the runs, error rates on the rest "
            "(verify.audit.epsilon_lower_bound, Gaussian-DP bound: no subsampling, a Gaussian claim) "
            "at δ = 1e-5, each bound "
            "at the per-test level of the ledger's Bonferroni family (verify.decide). "
            "Accountant: dp-accounting's pessimistic PLD of the Gaussian mechanism on a 1e-3 grid (an upper "
            "bound, ≤ T·1e-3 above the exact ε).",
        )(lambda budget, seed, _n=name: audit_dp_adam(_n, budget, seed))


_register_dp_adam_audits()


# The stepsize mutant moves only θ. These claims feed the kernel a fixed stream of per-record gradients (none is
# computed at θ) and measure its moment estimates and noise, so the mutated algorithm satisfies the same statement.
for _cid in ("dp_adam_design.section3.1", "dp_adam_design.eq3", "dp_adam_design.figure4",
             "dp_adam_design.section4.3.1", "dp_adam_design.section4.4.1"):
    declare_equivalent(_cid, "stepsize*10", "the statement is about the moment estimates (or noise) of a fixed "
                       "gradient stream, which the stepsize does not enter: it moves only θ")


# ======================================================================================
# §3.4.1: the sensitivity of Adam's update does not shrink with the batch size
# ======================================================================================
S341_GRIDS = {
    "quick": dict(B=(1, 8, 64, 1024), t=(1, 2, 10, 100, 1000), beta2=(0.9, 0.99, 0.999), g0=(1.0, 0.3)),
    "full": dict(B=(1, 4, 16, 64, 256, 1024, 8192), t=(1, 2, 5, 10, 100, 1000, 10000),
                 beta2=(0.5, 0.9, 0.99, 0.999), g0=(1.0, 0.3, 1e-3)),
}
S341_XI = 1e-30  # ξ > 0 only so that the zero-gradient rounds are 0/ξ = 0 (the paper's ξ = 0 leaves them 0/0)


def s341_update(B: int, t: int, beta2: float, g0: float, present: bool) -> float:
    """|θ_t − θ_{t−1}|/lr of the suite's Adam round after t − 1 rounds of zero gradients.

    The round is β₁ = 0, bias-corrected, without clipping or noise; the t-th batch has B records whose first is
    g0 (``present``) or zeroed out, the others zero.

    Parameters
    ----------
    B : int
        The batch size.
    t : int
        The round whose update is measured (>= 1).
    beta2 : float
        Adam's second-moment decay β₂.
    g0 : float
        The first record's gradient in round t.
    present : bool
        Whether that record is present (False: zeroed out).

    Returns
    -------
    float
        The size of the t-th update divided by the learning rate.
    """
    cfg = kd.RoundConfig(variant="post_processing", optimizer="adam", lr=1.0, beta1=0.0, beta2=beta2, xi=S341_XI,
                         clip_norm=math.inf, sigma=0.0, batch_size=B)
    st_ = kd.State.zeros(1)
    zero = np.zeros((B, 1))
    z = np.zeros(1)
    for _ in range(t - 1):
        kd.step(cfg, st_, zero, z)
    before = float(st_.theta[0])
    last = np.zeros((B, 1))
    last[0, 0] = g0 if present else 0.0
    kd.step(cfg, st_, last, z)
    return abs(float(st_.theta[0]) - before) / cfg.lr


def s341_tolerance(beta2: float) -> float:
    """Rounding bound of the measured update relative to the exact one.

    A dozen operations of relative error ≤ u, and the two cancellations 1 − β₂ and 1 − β₂ᵗ (relative error
    ≤ u/(1 − β₂) each), doubled.

    Parameters
    ----------
    beta2 : float
        Adam's second-moment decay β₂, in (0, 1).

    Returns
    -------
    float
        2u(12 + 2/(1 − β₂)), u the unit roundoff.
    """
    u = EPS / 2
    return 2 * u * (12 + 2 / (1 - beta2))


@claim(
    "dp_adam_design.section3.4.1",
    kind="exact",
    statement="""§3.4.1 ("Noising the update"): for Adam with β₁ = 0 and ξ = 0 in one dimension, when the first t − 1
    batches have gradient 0 and the t-th batch has a single example with a non-zero gradient, the update has
    magnitude √((1 − β₂ᵗ)/(1 − β₂)) — up to 1/√(1 − β₂) for large t — against 0 on the zero-out neighbour; "it is
    not a function of the batch size, i.e. the sensitivity of the updates cannot be made to vanish by increasing the
    batch size".""",
    theory=(td.update_sensitivity_one_example,),
    notes="Exact (no statistical test). The suite's fused Adam round (kernels.dp_adam, post-processing variant "
    "with σ = 0, no clipping, lr = 1, β₁ = 0, bias-corrected m̂ and v̂) run on the paper's construction: t − 1 "
    "rounds of zero gradients, then a batch of B records whose first has gradient g0 and the others 0; ξ = 1e-30 "
    "so that the zero rounds are 0 (the paper's ξ = 0 makes them 0/0) — the exact value with ξ, "
    "s/(1 + ξ·s·B/|g0|) with s the closed form, is what is compared. The zero-out neighbour (the record zeroed) "
    "must not move. holds when every measured update is within the rounding bound of the exact one "
    "(verify.papers.dp_adam_design.s341_tolerance: a dozen operations and the cancellations 1 − β₂, 1 − β₂ᵗ) and "
    "every neighbour update is 0; the spread of the measured sensitivity over B (≈ 0) is reported beside the "
    "gradient's, C/B, which falls by the ratio of the largest to the smallest B.",
)
def section3_4_1(budget: str, seed: int) -> Outcome:
    g = S341_GRIDS[by_budget(budget, "quick", "full")]
    closed = numeric(td.update_sensitivity_one_example())
    rows = []
    for b2 in g["beta2"]:
        for t_ in g["t"]:
            s_exact = float(closed(beta2=b2, t=t_))
            for B in g["B"]:
                for g0 in g["g0"]:
                    want = s_exact / (1.0 + S341_XI * s_exact * B / g0)
                    got = s341_update(B, t_, b2, g0, True)
                    rows.append(dict(beta2=b2, t=t_, B=B, g0=g0, exact=want, measured=got,
                                     rel_err=abs(got / want - 1.0), tol=s341_tolerance(b2),
                                     neighbour=s341_update(B, t_, b2, g0, False)))
    bad = [r for r in rows if not r["rel_err"] <= r["tol"] or r["neighbour"] != 0.0]
    spread = max(max(r["measured"] for r in rows if (r["beta2"], r["t"]) == k) /
                 min(r["measured"] for r in rows if (r["beta2"], r["t"]) == k) - 1.0
                 for k in {(r["beta2"], r["t"]) for r in rows})
    limit = numeric(td.update_sensitivity_limit())
    verdict = "violated" if bad else "holds"
    worst = max(rows, key=lambda r: r["rel_err"] / r["tol"])
    big = max(rows, key=lambda r: r["measured"])
    evidence = (f"{verdict} (exact): {len(rows)} (β₂, t, B, g0) cases; the measured update matches "
                f"√((1 − β₂ᵗ)/(1 − β₂)) within {worst['rel_err'] / worst['tol']:.3g} of the rounding bound at worst, "
                f"{len(bad)} cases outside it or with a moving neighbour; over B from {min(g['B'])} to {max(g['B'])} "
                f"(the gradient's sensitivity C/B falls {max(g['B']) // min(g['B'])}×) the update's sensitivity "
                f"varies by at most {spread:.3g} (relative); largest {big['measured']:.4g} at β₂ = {big['beta2']:g}, "
                f"t = {big['t']} (limit 1/√(1 − β₂) = {float(limit(beta2=big['beta2'])):.4g})")
    counter = None
    if bad:
        r = min(bad, key=lambda r: (r["t"], r["B"]))
        counter = dict(r)
    series = []
    for b2 in g["beta2"]:
        pts = [r for r in rows if r["beta2"] == b2 and r["B"] == max(g["B"]) and r["g0"] == g["g0"][0]]
        series.append(Series(f"β₂ = {b2:g}, B = {max(g['B'])}", [r["t"] for r in pts], [r["measured"] for r in pts],
                             style="points"))
        series.append(Series(f"√((1 − β₂ᵗ)/(1 − β₂)), β₂ = {b2:g}", [r["t"] for r in pts],
                             [r["exact"] for r in pts], style="dashed"))
    fig = Figure("section3_4_1", "dp_adam_design §3.4.1: the update's sensitivity to one example", [Panel(
        "one example with a non-zero gradient at round t", "t", "|update| / lr", series, xscale="log",
        yscale="log")])
    numbers = {"cases": len(rows), "cases_bad": len(bad), "worst_error_over_bound": worst["rel_err"] / worst["tol"],
               "max_relative_spread_over_B": spread, "largest_update": big["measured"]}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


# ======================================================================================
# §3.2 zero-out vs replace-one: sensitivity of the pair [ḡ, γḡ²]
# ======================================================================================
S32P_GAMMA_C = (0.25, 1.0, 1.5, 0.98, 1.0, 1.02, 2.0, 4.0)  # γC; entries 4–6 are multiples of γ*C (see below)
S32P_STAR_IDX = (3, 4, 5)  # which of S32P_GAMMA_C are multiples of γ*C
S32P_CLIPS = (0.5, 2.0)  # two clip norms (C ≠ 1, so an exponent error in C shows)
S32P_ZERO_OUT_B = (1, 2, 4)
S32P_ATTAIN_TOL = 1e-8  # relative: how close the search's maximum must come to the closed form (L-BFGS-B's reach)


def _clip1(x: np.ndarray, c: float) -> np.ndarray:
    return np.sign(x) * np.minimum(np.abs(x), c)


def _pair_change_zero_out(raw: np.ndarray, c: float, gam: float) -> float:
    """‖[ḡ, γḡ²] − [ḡ', γḡ'²]‖ for one-dimensional raw records ``raw`` (B,) clipped to C, record 0 zeroed in ḡ'."""
    x = _clip1(np.asarray(raw, dtype=float).ravel(), c)
    B = x.size
    gb, gb0 = x.mean(), (x.sum() - x[0]) / B
    return math.hypot(gb - gb0, gam * (gb * gb - gb0 * gb0))


def _pair_change_replace(raw: np.ndarray, c: float, gam: float, B: int = 1) -> float:
    """The same change for replace-one: raw = (record 0, its replacement, the other B − 1 records)."""
    x = _clip1(np.asarray(raw, dtype=float).ravel(), c)
    rest = x[2:].sum()
    gb, gb1 = (x[0] + rest) / B, (x[1] + rest) / B
    return math.hypot(gb - gb1, gam * (gb * gb - gb1 * gb1))


def _s32p_search(fn, dim: int, c: float, n_rand: int, starts: int, seed: int):
    """Max of ``fn``: a seeded edge-value search over raw records in [−2C, 2C]^dim (clipping active) plus L-BFGS-B
    over the clipped records' box [−C, C]^dim (where clipping is the identity and the gradient is informative);
    returns (max, argmax)."""
    from scipy.optimize import minimize_scalar

    w = random_search(lambda u: -fn(u), lambda rng: edge_values(rng, dim, -2 * c, 2 * c), n_rand, seed)
    a = adversarial_search(lambda u: -fn(u), dim, (-c, c), starts,
                           child_seed(seed, "dp_adam_design.section3.2.zero_out_vs_replace", "adversarial"))
    best = w if w.slack <= a.slack else a
    x = np.clip(np.asarray(best.example, dtype=float), -c, c)
    val = fn(x)
    for _ in range(4):  # polish: coordinate ascent with bounded Brent (maxima sit on the box's faces)
        for j in range(dim):
            def f1(v, j=j):
                y = x.copy()
                y[j] = v
                return -fn(y)
            res = minimize_scalar(f1, bounds=(-c, c), method="bounded", options={"xatol": 1e-12 * c})
            if -res.fun > val:
                x[j], val = res.x, -res.fun
            for edge in (-c, c):  # Brent never evaluates the end points themselves
                if -f1(edge) > val:
                    x[j], val = edge, -f1(edge)
    return max(val, -best.slack), x if val >= -best.slack else np.asarray(best.example, dtype=float)


class S32PSettings(NamedTuple):
    """section3.2.zero_out_vs_replace's search: random record pairs, optimiser starts."""

    n_rand: int
    starts: int


S32P_BUDGETS = Budgets(quick=S32PSettings(n_rand=400, starts=8),
                       full=S32PSettings(n_rand=4000, starts=32))


@claim(
    "dp_adam_design.section3.2.zero_out_vs_replace",
    kind="exact",
    statement="""§3.2: Kalinin et al. observed that under the replace adjacency the sensitivity of the vector
    [ḡ, γḡ²] could be the same as the sensitivity of ḡ for γ as large as [lost]: the worst-case pair of values
    satisfies g' = −g, and then g'² = g², so concatenating does not increase the sensitivity; for γ up to that
    bound g' = −g remains the worst case for the pair (footnote: the case d = 1). However, for the zero-out
    adjacency the worst case is g' = 0 instead of g' = −g, i.e. in the zero-out adjacency strictly more noise is
    required if additionally noising γḡ².""",
    theory=(td.pair_sensitivity_zero_out, td.pair_sensitivity_replace_one, td.replace_gamma_max),
    notes="Reading: d = 1 (the footnote's case); replace-one with B = 1 (Kalinin et al.'s continual-release "
    "setting, one record per round: with B ≥ 2 and the other records non-zero, g' = −g changes ḡ² by "
    "2(c − c')S/B², so the pair's sensitivity exceeds ḡ's for every γ > 0 — reported as "
    "replace_B2_excess_at_small_gamma, outside the reading); zero-out for B ∈ {1, 2, 4}. The lost bound on γ is "
    "derived (theory.replace_gamma_max): γ* = √((11 + 5√5)/8)/C ≈ 1.665/C. Exact: for C ∈ {0.5, 2} and γC in a "
    "grid through γ* (0.98γ*, γ*, 1.02γ*), the largest change of the pair over raw records in [−2C, 2C] (clipped "
    "to C) is found by a seeded edge-value random search plus L-BFGS-B over the clipped box "
    "[−C, C], polished by coordinate ascent (bounded Brent), and must equal the closed forms "
    "(pair_sensitivity_zero_out, pair_sensitivity_replace_one) to a relative 1e-8 (never above them by more "
    "than rounding). The relation: zero-out pair sensitivity > C/B (ḡ's) at every γ > 0 (strictly more noise), "
    "replace-one pair sensitivity = 2C (ḡ's) exactly for γ ≤ γ* and > 2C beyond, with the maximiser c' = −c "
    "below γ*. No statistical tests. History: without the coordinate-ascent polish L-BFGS-B stopped 4e-4 short of "
    "the interior maximum at γ = 1.02γ*, C = 0.5 (seed 0), a search failure, not a closed-form one.",
)
def section3_2_zero_out_vs_replace(budget: str, seed: int) -> Outcome:
    n_rand, starts = S32P_BUDGETS.at(budget)
    zo, rp = td.pair_sensitivity_zero_out(), td.pair_sensitivity_replace_one()
    gstar_expr = td.replace_gamma_max()
    rows, bad = [], []
    k = 0
    for c in S32P_CLIPS:
        gstar = float(gstar_expr.subs(td.C, c))
        for i, gc in enumerate(S32P_GAMMA_C):
            gam = (gc * gstar if i in S32P_STAR_IDX else gc / c)
            for B in S32P_ZERO_OUT_B:
                k += 1
                found, _ = _s32p_search(lambda u, B=B: _pair_change_zero_out(u, c, gam), B, c, n_rand, starts,
                                        child_seed(seed, "dp_adam_design.section3.2.zero_out_vs_replace", k))
                closed = float(zo.subs({td.C: c, td.B: B, td.gamma: gam}))
                rows.append(dict(adjacency="zero-out", C=c, B=B, gamma=gam, found=found, closed=closed,
                                 gbar=c / B, argmax_sum=float("nan")))
            k += 1
            found, arg = _s32p_search(lambda u: _pair_change_replace(u, c, gam), 2, c, n_rand, starts,
                                      child_seed(seed, "dp_adam_design.section3.2.zero_out_vs_replace", k))
            cl = _clip1(arg, c)
            closed = float(rp.subs({td.C: c, td.gamma: gam}))
            rows.append(dict(adjacency="replace-one", C=c, B=1, gamma=gam, found=found, closed=closed, gbar=2 * c,
                             argmax_sum=float(abs(cl[0] + cl[1]) / c), below_star=gam < gstar * (1 - 1e-9)))
    for r in rows:
        r["rel_gap"] = (r["found"] - r["closed"]) / r["closed"]
        over = r["rel_gap"] > 64 * EPS
        under = r["rel_gap"] < -S32P_ATTAIN_TOL
        r["matches"] = not (over or under)
        if r["adjacency"] == "zero-out":
            r["relation"] = r["found"] > r["gbar"] * (1 + S32P_ATTAIN_TOL)  # strictly more than ḡ's
        elif r["below_star"] or abs(r["gamma"] * r["C"] - float(gstar_expr.subs(td.C, 1.0))) < 1e-9:
            r["relation"] = abs(r["found"] / r["gbar"] - 1) <= S32P_ATTAIN_TOL and \
                (not r["below_star"] or r["argmax_sum"] < 1e-6)  # same as ḡ's, at c' = −c
        else:
            r["relation"] = r["found"] > r["gbar"] * (1 + S32P_ATTAIN_TOL)  # beyond γ*: the pair costs more
        if not (r["matches"] and r["relation"]):
            bad.append(r)
    # outside the reading: replace-one with B = 2 at small γ (other record non-zero)
    c0, g0 = S32P_CLIPS[0], S32P_GAMMA_C[0] / S32P_CLIPS[0]
    b2, _ = _s32p_search(lambda u: _pair_change_replace(u, c0, g0, B=2), 3, c0, n_rand, starts,
                         child_seed(seed, "dp_adam_design.section3.2.zero_out_vs_replace", "replace B=2"))
    b2_excess = b2 / (2 * c0 / 2) - 1.0
    verdict = "violated" if bad else "holds"
    worst = max(rows, key=lambda r: abs(r["rel_gap"]))
    zo_rows = [r for r in rows if r["adjacency"] == "zero-out"]
    rp_rows = [r for r in rows if r["adjacency"] == "replace-one"]
    min_zo_excess = min(r["found"] / r["gbar"] - 1 for r in zo_rows)
    below = [r for r in rp_rows if r["below_star"]]
    evidence = (f"{verdict} (exact): {len(rows)} (adjacency, C, B, γ) cases, the searched maximum equals the closed "
                f"form within a relative {abs(worst['rel_gap']):.2g} at worst; {len(bad)} cases off the closed form "
                f"or the relation; zero-out: the pair costs at least {min_zo_excess:.3g} (relative) more than ḡ "
                f"(C/B) at every γ; replace-one (B = 1): the pair's sensitivity is 2C, ḡ's, for γC ≤ "
                f"{float(gstar_expr.subs(td.C, 1.0)):.4f} (max |c + c'|/C at the maximiser "
                f"{max(r['argmax_sum'] for r in below):.2g}: c' = −c), and exceeds it beyond; outside the reading, "
                f"replace-one at B = 2, γC = {S32P_GAMMA_C[0]}: {b2_excess:.3g} above ḡ's 2C/B")
    counter = None
    if bad:
        r = bad[0]
        counter = {kk: (float(v) if isinstance(v, (float, np.floating)) else v) for kk, v in r.items()}
    fig_series = []
    for adj, b in (("zero-out", 1), ("zero-out", 4), ("replace-one", 1)):
        pts = sorted([r for r in rows if r["adjacency"] == adj and r["B"] == b and r["C"] == S32P_CLIPS[0]],
                     key=lambda r: r["gamma"])
        fig_series.append(Series(f"{adj}, B = {b}: searched", [r["gamma"] * r["C"] for r in pts],
                                 [r["found"] / r["gbar"] for r in pts], style="points"))
        fig_series.append(Series(f"{adj}, B = {b}: closed form", [r["gamma"] * r["C"] for r in pts],
                                 [r["closed"] / r["gbar"] for r in pts], style="dashed"))
    fig = Figure("section3_2_zero_out_vs_replace", "dp_adam_design §3.2: sensitivity of [ḡ, γḡ²] / sensitivity of ḡ",
                 [Panel(f"C = {S32P_CLIPS[0]}", "γC", "pair / ḡ alone", fig_series, xscale="log")])
    numbers = {"cases": len(rows), "cases_bad": len(bad), "max_abs_rel_gap": abs(worst["rel_gap"]),
               "gamma_star_times_C": float(gstar_expr.subs(td.C, 1.0)), "min_zero_out_excess": min_zo_excess,
               "max_replace_excess_below_star": max(r["found"] / r["gbar"] - 1 for r in below),
               "replace_B2_excess_at_small_gamma": b2_excess}
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig])


# ======================================================================================
# §4.1 the quadratic example: DP-Adam's floor on the per-coordinate second moment
# ======================================================================================
#: fixed before any run: the default two-coordinate quadratic (h = (100, 1), s_x = (10, 0.1)) extended by two
#: intermediate coordinates; B = 4, C = 10⁵ (clipping inactive: records' norms stay below C by ~100 standard
#: deviations), σ = 4·10⁻⁴ so the noise std σC/B = 10 sits between the coordinates' scales; θ held at μ + o
S41 = dict(h=(100.0, 1.0, 10.0, 1.0), s=(10.0, 0.1, 1.0, 3.0), off=(0.0, 0.0, 0.5, 0.0), batch=4, clip=1e5,
           sigma=4e-4, beta2=0.99, lr=1e-12, burn=100)
S41_MARGIN = 0.05  # relative: E[v̂_j] within ±5% of E[ḡ_j²] + (σC/B)² (the noise*3 fault moves the floor 9×)


def _s41_task(rounds: int, trials: int, seed: int) -> dict:
    p = S41
    prob = kdp.quadratic(d=4, h=p["h"], s=p["s"])
    cfg = kd.RoundConfig(variant="post_processing", lr=p["lr"], beta1=0.9, beta2=p["beta2"], xi=1e-12,
                        clip_norm=p["clip"], sigma=p["sigma"], batch_size=p["batch"])
    theta0 = prob.mu + np.asarray(p["off"])
    base = prob.grad_fn(p["batch"])
    top = [0.0]

    def grad_fn(t, theta, rng):
        g = base(t, theta, rng)
        top[0] = max(top[0], float(np.sqrt((g * g).sum(axis=1)).max()))
        return g

    out = kd.run_stream(cfg, grad_fn, 4, rounds, trials=trials, seed=seed, theta0=theta0, record_v=True)
    tt = np.arange(1, rounds + 1)
    vhat = out["v_hist"] / (1 - p["beta2"] ** tt)[None, :, None]
    return {"vhat_mean": vhat[:, p["burn"]:, :].mean(axis=1),  # (trials, d): time-average after burn-in
            "max_record_norm_over_C": top[0] / p["clip"],
            "theta_drift": float(np.abs(out["theta"] - theta0).max())}


declare_equivalent("dp_adam_design.section4.1", "stepsize*10",
                   "the statement is about the second moment at a fixed gradient distribution: θ is held by "
                   "lr = 1e-12, and ×10 (θ drift 1e-9) leaves the distribution, and so the statement, unchanged")


class S41Settings(NamedTuple):
    """section4.1's Monte Carlo: rounds, trials."""

    rounds: int
    trials: int


S41_BUDGETS = Budgets(quick=S41Settings(rounds=300, trials=100),
                      full=S41Settings(rounds=600, trials=400))


@claim(
    "dp_adam_design.section4.1",
    kind="expectation",
    statement="""§4.1 (the quadratic example): ignoring clipping, with noise N(0, (σC/B)²) added to each gradient the
    expected per-coordinate square of the gradient is E[g_j²] + (σC/B)²; so in coordinates where E[g_j²] is much
    smaller than the noise variance DP-Adam uses a smaller per-coordinate learning rate — the noise imposes a floor
    on the second moment (a cap η/(σC/B) on the per-coordinate learning rates), which prevents DP-Adam from
    distinguishing between such coordinates.""",
    theory=(td.quadratic_dp_adam_vhat,),
    notes="Reading (the displays were lost): the stationary second moment of post-processing DP-Adam on "
    "ℓ(θ; x) = ½Σh_j(θ_j − x_j)², x ~ N(μ, diag s_x²), is E[v̂_j] = E[ḡ_j²] + (σC/B)² with E[ḡ_j²] = "
    "h_j²((θ_j − μ_j)² + s_x,j²/B) (theory.quadratic_dp_adam_vhat; exact in expectation at every t when θ is "
    "fixed, because v̂ is normalised by 1 − β₂ᵗ). Setting fixed before any run (S41): four coordinates whose clean "
    "second moments (2.5e5, 2.5e-3, 50, 2.25) lie far above, far below, below and around the noise variance 100; "
    "lr = 1e-12 holds θ at μ + o (the paper's statement is about a fixed gradient distribution); C = 1e5 keeps "
    "clipping inactive (checked: the largest record norm / C is reported and must be < 1). Measured: each trial's "
    "time-average of the kernel's v̂_j over rounds after a burn-in of 100 (same expectation), relative error "
    "to the closed form; verify.decide.equivalent per coordinate with margin ±5% (fixed before the data). 4 "
    "tests. Reported, not tested: the per-coordinate learning-rate ratio √(v̂₁/v̂₂) against the non-private "
    "√(E ḡ₁²/E ḡ₂²) (the floor compresses it).",
    tests=4,
)
def section4_1(budget: str, seed: int) -> Outcome:
    rounds, trials = S41_BUDGETS.at(budget)
    p = S41
    r = sweep(_s41_task, [dict(rounds=rounds, trials=trials, seed=child_seed(seed, "dp_adam_design.section4.1"))],
              "section4.1")[0]
    expr = numeric(td.quadratic_dp_adam_vhat())
    clean_expr = numeric(td.quadratic_clean_second_moment())
    pred = np.array([float(expr(h=p["h"][j], s_x=p["s"][j], o=p["off"][j], B=p["batch"], C=p["clip"],
                                sigma=p["sigma"])) for j in range(4)])
    clean = np.array([float(clean_expr(h=p["h"][j], s_x=p["s"][j], o=p["off"][j], B=p["batch"]))
                      for j in range(4)])
    floor = (p["sigma"] * p["clip"] / p["batch"]) ** 2
    decisions = []
    for j in range(4):
        decisions.append(decide.equivalent(_rel_estimate(r["vhat_mean"][:, j], pred[j]),
                                           what=f"coordinate {j + 1} (E ḡ² = {clean[j]:.3g}, floor {floor:g}): "
                                           "(mean v̂ − closed form)/closed form", margin=S41_MARGIN))
    verdict = _verdict(decisions)
    setting_ok = r["max_record_norm_over_C"] < 1.0 and r["theta_drift"] < 1e-6
    if not setting_ok and verdict == "holds":
        verdict = "inconclusive"
    meas = r["vhat_mean"].mean(axis=0)
    lr_ratio_dp = float(np.sqrt(meas[0] / meas[1]))
    lr_ratio_clean = float(np.sqrt(clean[0] / clean[1]))
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    evidence = (f"{key.phrase()}; {trials} trials × {rounds} rounds; mean v̂ per coordinate "
                + ", ".join(f"{m:.4g} (closed form {q:.4g})" for m, q in zip(meas, pred))
                + f"; floor (σC/B)² = {floor:g}; per-coordinate learning-rate ratio coordinate 2 : 1 is "
                f"{lr_ratio_dp:.3g} under DP-Adam vs {lr_ratio_clean:.3g} without noise; clipping inactive "
                f"(max record norm / C = {r['max_record_norm_over_C']:.3g}), θ drift {r['theta_drift']:.2g}")
    numbers = {f"rel_error_coord{j + 1}": float(d.estimate) for j, d in enumerate(decisions)}
    numbers.update({f"vhat_coord{j + 1}": float(meas[j]) for j in range(4)})
    numbers.update({"floor": floor, "lr_ratio_dp": lr_ratio_dp, "lr_ratio_nonprivate": lr_ratio_clean,
                    "max_record_norm_over_C": float(r["max_record_norm_over_C"]),
                    "theta_drift": float(r["theta_drift"])})
    counter = None
    if verdict == "violated":
        counter = {"test": key.control.test.split(":")[0], "relative_error": key.estimate,
                   "bound": key.violated_bound, "seed": seed}
    ci = [mean_ci(r["vhat_mean"][:, j]) for j in range(4)]
    fig = Figure("section4_1_floor", "dp_adam_design §4.1: DP-Adam's second moment on the quadratic", [Panel(
        "E[v̂_j] against the clean second moment E[ḡ_j²]", "E[ḡ_j²]", "v̂_j", [
            Series("kernel (time-averaged v̂, 95% CI)", clean, [c.estimate for c in ci], [c.lo for c in ci],
                   [c.hi for c in ci], style="points"),
            Series("E[ḡ²] + (σC/B)²", np.sort(clean), np.sort(clean) + floor, style="dashed"),
            Series("no noise: E[ḡ²]", np.sort(clean), np.sort(clean), style="dashed")],
        xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# §4.3.2 scale-then-privatize: proportional geometry on the quadratic example
# ======================================================================================
#: fixed before any run: the four-coordinate quadratic of §4.1's claim (clean second moments over eight decades),
#: B = 64 records per round, C = 128 in the scaled geometry with σ = 0.25 (s = σC/B = 0.5, κ = 4/3), β₂ = 0.9,
#: β₁ = 0 (so m̂ is the private gradient g̃ itself), ξ = 1e-12, rounds counted from t0 = 10⁶ (Adam's corrections
#: are 1), θ held at μ (lr = 1e-12), v started at the clean second moment and burnt in for 150 rounds
#: (α¹⁵⁰ = 0.925¹⁵⁰ ≈ 8e-6)
S432 = dict(h=(100.0, 1.0, 10.0, 1.0), s=(10.0, 0.1, 1.0, 3.0), batch=64, clip=128.0, sigma=0.25, beta2=0.9,
            xi=1e-12, t0=10**6, lr=1e-12, burn=150)
S432_MARGIN = 0.05  # relative: the measured factor within ±5% of κ (the pow1.25 mutant of κ is 9% off)


def _s432_task(rounds: int, trials: int, seed: int) -> dict:
    p = S432
    d = len(p["h"])
    prob = kdp.quadratic(d=d, h=p["h"], s=p["s"])
    cfg = kd.RoundConfig(variant="scale_then_privatize", lr=p["lr"], beta1=0.0, beta2=p["beta2"], xi=p["xi"],
                        clip_norm=p["clip"], sigma=p["sigma"], batch_size=p["batch"]).validated()  # fault hooks
    clean = np.asarray(p["h"]) ** 2 * np.asarray(p["s"]) ** 2 / p["batch"]  # E ḡ² at θ = μ (v's start only)
    g2 = np.zeros((trials, d))
    vh = np.zeros((trials, d))
    top = 0.0
    kept = rounds - p["burn"]
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        data_ss, noise_ss = ss.spawn(2)
        data_rng, noise_rng = np.random.default_rng(data_ss), np.random.default_rng(noise_ss)
        st = kd.State.zeros(d, prob.mu)
        st.t = p["t0"]
        st.v[:] = clean
        ns = kd.NoiseStream(d, noise_rng)
        for t in range(rounds):
            grads = prob.grads(st.theta, prob.sample(data_rng, p["batch"]))
            if t >= p["burn"]:
                scaled = grads / (np.sqrt(st.v) + p["xi"])  # v̂ = v: t0 makes 1 − β₂ᵗ = 1 in float64
                top = max(top, float(np.sqrt((scaled * scaled).sum(axis=1)).max()))
            z = ns.next()
            kd.step(cfg, st, grads, z[0])
            if t >= p["burn"]:
                g2[k] += st.m * st.m  # β₁ = 0 ⇒ m = g̃, the private gradient passed to Adam
                vh[k] += st.v
    return {"g2": g2 / kept, "vhat": vh / kept, "max_scaled_norm_over_C": top / p["clip"],
            "theta_drift": float(np.abs(st.theta - prob.mu).max())}


declare_equivalent("dp_adam_design.section4.3.2", "stepsize*10",
                   "the statement is about the gradient distribution at θ = μ: θ is held by lr = 1e-12, and ×10 "
                   "leaves the distribution, and so the statement, unchanged")


class S432Settings(NamedTuple):
    """section4.3.2's Monte Carlo: rounds, trials."""

    rounds: int
    trials: int


S432_BUDGETS = Budgets(quick=S432Settings(rounds=450, trials=100),
                       full=S432Settings(rounds=650, trials=400))


@claim(
    "dp_adam_design.section4.3.2",
    kind="expectation",
    statement="""§4.3.2: on the quadratic example, if the preconditioner used by scale-then-privatize is proportional
    to the clean second moment, the noise added to the gradients has covariance proportional to it too, so the
    overall distribution of the private gradients (at θ = μ) has second moments proportional to the clean ones:
    the preconditioner matches the geometry of the private gradients, up to a proportionality (which can be
    corrected for with the learning rate) — unlike post-processing, whose private gradients' second moments are
    E[ḡ_j²] + (σC/B)², not proportional to E[ḡ_j²].""",
    theory=(td.stp_steady_state, td.stp_private_gradient_factor),
    notes="Reading (the displays were lost): in §4.3.1's setting (ξ → 0, t large, scaled clipping inactive) the "
    "preconditioner's steady state is v̂ = κE[ḡ²], κ = 1/(1 − s²), s = σC/B (theory.stp_steady_state), and then "
    "E[g̃_j²] = (1 + κs²)E[ḡ_j²] (theory.stp_private_gradient_factor; = κ): one factor for all coordinates. "
    "Measured with the kernel (S432, fixed before any run): four coordinates with E[ḡ_j²] = h_j²s_x,j²/B from "
    "1.6e-4 to 1.6e4, θ held at μ; per trial the time-averages after burn-in of m̂_j² (β₁ = 0: m̂ = g̃, the private "
    "gradient) and of v̂_j, divided by E[ḡ_j²]; verify.decide.equivalent of each ratio's relative error to the "
    "closed-form factor, margin ±5% (fixed before the data), per coordinate: 8 tests. The scaled records' "
    "largest norm / C is reported and must be < 1 (clipping inactive), else not the setting (inconclusive). "
    "History: a first version with C = 64, σ = 0.5 (same s) saw one scaled record reach 1.02C in the full run "
    "(inconclusive by that guard); C was doubled and σ halved.",
    tests=8,
)
def section4_3_2(budget: str, seed: int) -> Outcome:
    rounds, trials = S432_BUDGETS.at(budget)
    p = S432
    s_val = p["sigma"] * p["clip"] / p["batch"]
    kappa = float(numeric(td.stp_steady_state())(s=s_val))
    factor = float(numeric(td.stp_private_gradient_factor())(s=s_val))
    r = sweep(_s432_task, [dict(rounds=rounds, trials=trials, seed=child_seed(seed, "dp_adam_design.section4.3.2"))],
              "section4.3.2")[0]
    clean = np.asarray(p["h"]) ** 2 * np.asarray(p["s"]) ** 2 / p["batch"]
    d = clean.size
    decisions = []
    for j in range(d):
        decisions.append(decide.equivalent(_rel_estimate(r["g2"][:, j] / clean[j], factor),
                                           what=f"coordinate {j + 1} (E ḡ² = {clean[j]:.3g}): (E g̃²/E ḡ² − "
                                           "(1 + κs²))/(1 + κs²)", margin=S432_MARGIN))
    for j in range(d):
        decisions.append(decide.equivalent(_rel_estimate(r["vhat"][:, j] / clean[j], kappa),
                                           what=f"coordinate {j + 1} (E ḡ² = {clean[j]:.3g}): (v̂/E ḡ² − κ)/κ",
                                           margin=S432_MARGIN))
    verdict = _verdict(decisions)
    setting_ok = float(r["max_scaled_norm_over_C"]) < 1.0 and float(r["theta_drift"]) < 1e-6
    if not setting_ok and verdict != "inconclusive":
        verdict = "inconclusive"
    g_ratio = r["g2"].mean(axis=0) / clean
    v_ratio = r["vhat"].mean(axis=0) / clean
    pp_ratio = 1.0 + s_val**2 / clean  # post-processing with the same noise std in gradient units (closed form)
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    evidence = (f"{key.phrase()}; {trials} trials × {rounds} rounds ({p['burn']} burn-in); κ = {kappa:.4f}, "
                f"1 + κs² = {factor:.4f}; E g̃²/E ḡ² per coordinate "
                + ", ".join(f"{x:.4f}" for x in g_ratio) + "; v̂/E ḡ² " + ", ".join(f"{x:.4f}" for x in v_ratio)
                + f" (clean second moments from {clean.min():.2g} to {clean.max():.2g}); post-processing at the same "
                f"noise std would give factors from {pp_ratio.min():.4g} to {pp_ratio.max():.4g}; scaled clipping "
                f"inactive: max scaled record norm / C = {float(r['max_scaled_norm_over_C']):.3g}"
                + ("" if setting_ok else " — NOT the setting"))
    numbers = {"kappa": kappa, "factor": factor, "max_scaled_norm_over_C": float(r["max_scaled_norm_over_C"]),
               "theta_drift": float(r["theta_drift"])}
    numbers.update({f"g2_ratio_coord{j + 1}": float(g_ratio[j]) for j in range(d)})
    numbers.update({f"vhat_ratio_coord{j + 1}": float(v_ratio[j]) for j in range(d)})
    numbers["g2_ratio_spread"] = float(g_ratio.max() / g_ratio.min() - 1)
    counter = None
    if verdict == "violated":
        counter = {"test": key.control.test.split(":")[0], "relative_error": key.estimate,
                   "bound": key.violated_bound, "seed": seed}
    gci = [mean_ci(r["g2"][:, j] / clean[j]) for j in range(d)]
    vci = [mean_ci(r["vhat"][:, j] / clean[j]) for j in range(d)]
    order = np.argsort(clean)
    fig = Figure("section4_3_2_geometry", "dp_adam_design §4.3.2: scale-then-privatize's private geometry", [Panel(
        "second moments relative to the clean E[ḡ_j²]", "E[ḡ_j²]", "ratio", [
            Series("E g̃²/E ḡ² (kernel, 95% CI)", clean, [c.estimate for c in gci], [c.lo for c in gci],
                   [c.hi for c in gci], style="points"),
            Series("v̂/E ḡ² (kernel, 95% CI)", clean, [c.estimate for c in vci], [c.lo for c in vci],
                   [c.hi for c in vci], style="points"),
            Series("1 + κs² = κ", clean[order], np.full(d, factor), style="dashed"),
            Series("post-processing, same noise std: 1 + s²/E ḡ²", clean[order], pp_ratio[order],
                   style="dashed")], xscale="log", yscale="log")])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# §4.4.2 IME lacks post-processing's self-regularisation
# ======================================================================================
#: fixed before any run: B = 16 equal records, d = 32 coordinates each with clean value g0 = 0.14 (‖record‖ =
#: 0.79 < C = 1: no clipping), σ = 1, β₁ = 0 (m̂ = g̃), β₂ = 0.9, ξ = 1e-8, no floor (max(v̂, 0)); 100 rounds, lr = 1
#: (the synthetic gradients do not depend on θ, so the update is −Δθ).  IME's v-noise std (equal √2σ split) is
#: 0.171, and √K(β₂, 100)·0.171 = 0.039, so g0² = 0.0196 gives P(v̂ < 0) ≈ Φ(−0.5) ≈ 0.31 at round 100
S442 = dict(d=32, batch=16, g0=0.14, clip=1.0, sigma=1.0, beta2=0.9, xi=1e-8, rounds=100, burn=10,
            spike_rounds=(1, 5, 50))
S442_MARGIN = 0.03  # absolute: IME's fraction of over-bound updates may fall short of P(v̂ < 0) by at most this
S442_BOUND_TOL = 1e-12  # relative rounding allowance of the exact bound (a few flops per update)
S442_ATTAIN_TOL = 1e-6  # relative: the spike stream attains the bound up to ξ/√v̂ = 1e-8 and rounding
S442_K_TOL = 1e-12  # relative: K(β₂, t) closed form vs the explicit sum of squared weights (rounding of ≤ 100 terms)


def _s442_task(variant: str, bound: tuple, trials: int, seed: int) -> dict:
    """Per trial: max over rounds of max_j |u_j|/bound_t, mean |u| after burn-in, the final round's fractions of
    updates above bound_T and of v ≤ 0 (``bound``: post-processing's bound per round, from the closed form)."""
    p = S442
    d, B = p["d"], p["batch"]
    cfg = kd.RoundConfig(variant=variant, lr=1.0, beta1=0.0, beta2=p["beta2"], xi=p["xi"], clip_norm=p["clip"],
                        sigma=p["sigma"], batch_size=B).validated()  # fault hooks
    lr_nominal = 1.0
    grads = np.full((B, d), p["g0"])
    bound = np.asarray(bound, dtype=float)
    max_ratio = np.empty(trials)
    mean_abs = np.empty(trials)
    frac_large = np.empty(trials)
    frac_neg = np.empty(trials)
    u_final = np.empty((trials, d))
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        st = kd.State.zeros(d)
        ns = kd.NoiseStream(d, np.random.default_rng(ss), parts=2 if variant == "ime" else 1)
        mr, tot = 0.0, 0.0
        for t in range(p["rounds"]):
            before = st.theta.copy()
            z = ns.next()
            kd.step(cfg, st, grads, z[0], z[-1])
            u = np.abs(st.theta - before) / lr_nominal
            mr = max(mr, float(u.max() / bound[t]))
            if t >= p["burn"]:
                tot += float(u.mean())
        u_final[k] = u
        max_ratio[k] = mr
        mean_abs[k] = tot / (p["rounds"] - p["burn"])
        frac_large[k] = float(np.mean(u > bound[-1]))
        frac_neg[k] = float(np.mean(st.v <= 0))
    return {"max_ratio": max_ratio, "mean_abs": mean_abs, "frac_large": frac_large, "frac_neg": frac_neg,
            "median_final": float(np.median(u_final))}


def _s442_spike(t: int) -> float:
    """|update|/lr of noise-free post-processing at round t after t − 1 rounds of zero gradients (one coordinate)."""
    p = S442
    cfg = kd.RoundConfig(variant="post_processing", lr=1.0, beta1=0.0, beta2=p["beta2"], xi=p["xi"],
                        clip_norm=p["clip"], sigma=0.0, batch_size=1).validated()
    st = kd.State.zeros(1)
    zero = np.zeros(1)
    for _ in range(t - 1):
        kd.step(cfg, st, np.zeros((1, 1)), zero)
    before = float(st.theta[0])
    kd.step(cfg, st, np.ones((1, 1)), zero)
    return abs(float(st.theta[0]) - before)


declare_equivalent("dp_adam_design.section4.4.2", "noise*3",
                   "post-processing's bound holds at every noise level, and more IME noise (signal fixed) only raises "
                   "P(v̂ < 0) = Φ(−g0²/(√K·std)) above the unfaulted value the check asks IME's fraction to reach: "
                   "the statement checked is weaker, never false")


@claim(
    "dp_adam_design.section4.4.2",
    kind="expectation",
    statement="""§4.4.2: DP-Adam via post-processing (or with bias correction) has a self-regularization behavior:
    if large noise is added to one coordinate of the gradient, the corresponding coordinate of v̂ will be large,
    hence the per-coordinate learning rate will be small and we avoid taking a large noisy update in that
    coordinate. The decoupling of noises in independent moment estimation prevents this self-regularization: where
    v̂ is negative the per-coordinate learning rate is 1/ξ while the noisy gradient can be much larger than ξ, so
    the update for this coordinate will be very large.""",
    theory=(td.postprocessing_update_bound, td.vhat_variance_factor),
    notes="Reading: self-regularisation = post-processing's per-coordinate update |m̂/√v̂| (β₁ = 0, ξ → 0) is bounded "
    "by √((1 − β₂ᵗ)/(1 − β₂)) whatever the noise (theory.postprocessing_update_bound, exact, attained by a "
    "zero-then-spike stream); IME has no such bound: wherever its v̂ ≤ 0 the update is |g̃|/ξ. Setting S442 "
    "(fixed before any run; a constant small clean signal, as in §4.4.1). Exact part: every post-processing update "
    "in every trial is ≤ the bound (relative rounding 1e-12), and the noise-free spike stream attains it at "
    "t = 1, 5, 50 (relative 1e-6) — a computed counterexample otherwise. Measured (2 tests): (i) IME's fraction of "
    "coordinates whose final-round update exceeds the bound is at least P(v̂ < 0), the exact Gaussian law of IME's "
    "v̂ (K(β₂, t) from theory.vhat_variance_factor), less a margin of 0.03 (verify.decide.upper_bounded on "
    "P − fraction, t interval over trials); (ii) post-processing's mean |update| (rounds 11–100) is below IME's "
    "(verify.decide.better, margin 0, Welch t). The sizes are reported: median final |update| of each. Exact "
    "too: the law's K(β₂, t) (vhat_variance_factor) equals the bias-corrected average's sum of squared weights "
    "Σ_k ((1 − β₂)β₂^{t−k}/(1 − β₂ᵗ))² at t = 1..100 within 1e-12 relative (it was taken on trust; an exponent "
    "error moves P(v̂ < 0) by only 0.01–0.02, below what test (i) can see).",
    tests=2,
    weaker_if={"theory.dp_adam_design.vhat_variance_factor": "smaller"},  # a smaller P(v̂ < 0) only weakens (i)
)
def section4_4_2(budget: str, seed: int) -> Outcome:
    trials = by_budget(budget, 60, 300)
    p = S442
    tt = np.arange(1, p["rounds"] + 1)
    bexpr = numeric(td.postprocessing_update_bound())
    bound = np.array([float(bexpr(beta2=p["beta2"], t=int(x))) for x in tt])
    bt = tuple(float(b) for b in bound)
    s442 = "dp_adam_design.section4.4.2"
    pp, ime = sweep(_s442_task, [dict(variant="post_processing", bound=bt, trials=trials,
                                      seed=child_seed(seed, s442, "post_processing")),
                                 dict(variant="ime", bound=bt, trials=trials, seed=child_seed(seed, s442, "ime"))],
                    "section4.4.2")
    pp_max = float(pp["max_ratio"].max())
    spikes = {t: _s442_spike(t) for t in p["spike_rounds"]}
    spike_rel = {t: spikes[t] / float(bexpr(beta2=p["beta2"], t=t)) - 1 for t in spikes}
    bound_ok = pp_max <= 1 + S442_BOUND_TOL
    attained = all(abs(v) <= S442_ATTAIN_TOL for v in spike_rel.values())
    _, std_v = kd.ime_noise_stds(p["sigma"], p["clip"], p["batch"])
    p_neg = ime_negative_probability(p["g0"], std_v, p["beta2"], p["rounds"])  # the clean value g0 (squared inside)
    # the law's variance factor K(β₂, t) is the bias-corrected average's Σ_k w_k², w_k = (1 − β₂)β₂^{t−k}/(1 − β₂ᵗ):
    # the closed form must equal that sum at every round 1..T (relative 1e-12; exact, no test)
    kexpr = numeric(td.vhat_variance_factor())
    k_gap = 0.0
    for x in tt:
        w = (1 - p["beta2"]) * p["beta2"] ** np.arange(int(x) - 1, -1, -1.0) / (1 - p["beta2"] ** int(x))
        k_gap = max(k_gap, abs(float(kexpr(beta2=p["beta2"], t=int(x))) / float(np.sum(w * w)) - 1))
    k_ok = k_gap <= S442_K_TOL
    e = decide.mean_estimate(ime["frac_large"])
    d_large = decide.upper_bounded(decide.Estimate(p_neg - e.value, e.se, e.df), 0.0, margin=S442_MARGIN,
                                   test="P(v̂ < 0) − IME's fraction of final-round updates above the bound: "
                                   "one-sample t")
    d_mean = decide.better(pp["mean_abs"], ime["mean_abs"], what="mean |update| post-processing − IME", margin=0.0)
    decisions = [d_large, d_mean]
    verdict = _verdict(decisions, exact_ok=bound_ok and attained and k_ok)
    counter = None
    if not k_ok:
        counter = {"vhat_variance_factor_over_sum_of_squared_weights_minus_1": k_gap, "beta2": p["beta2"]}
    elif not bound_ok:
        counter = {"post_processing_max_update_over_bound": pp_max, "beta2": p["beta2"]}
    elif not attained:
        counter = {"spike_update_relative_to_bound": {int(k): float(v) for k, v in spike_rel.items()}}
    elif verdict == "violated":
        key = next(dd for dd in decisions if dd.verdict == "violated")
        counter = {"test": key.control.test.split(":")[0], "estimate": key.estimate, "seed": seed}
    key = next((dd for dd in decisions if dd.verdict != "holds"), None) or decisions[0]
    evidence = (f"{key.phrase()}; exact: K(β₂, t) vs Σ w² max relative gap {k_gap:.2g} "
                f"({'rounding' if k_ok else 'FAILS'}); post-processing's largest |update|/bound {pp_max:.6f} over "
                f"{trials} trials "
                f"× {p['rounds']} rounds × {p['d']} coordinates ({'≤ 1' if bound_ok else 'ABOVE 1'}); the spike "
                f"stream attains the bound (relative errors "
                + ", ".join(f"t={t}: {v:.2g}" for t, v in spike_rel.items()) + f"); IME: fraction of final "
                f"updates above the bound {float(ime['frac_large'].mean()):.4f} vs P(v̂ < 0) = {p_neg:.4f} "
                f"(v̂ ≤ 0 in {float(ime['frac_neg'].mean()):.4f}); mean |update| post-processing "
                f"{float(pp['mean_abs'].mean()):.4g} vs IME {float(ime['mean_abs'].mean()):.4g} ({d_mean.verdict}); "
                f"median final |update| {float(pp['median_final']):.3g} vs {float(ime['median_final']):.3g}")
    numbers = {"pp_max_update_over_bound": pp_max, "ime_frac_large": float(ime["frac_large"].mean()),
               "ime_frac_vhat_nonpositive": float(ime["frac_neg"].mean()), "p_negative_closed_form": p_neg,
               "pp_frac_large": float(pp["frac_large"].mean()), "pp_mean_abs_update": float(pp["mean_abs"].mean()),
               "ime_mean_abs_update": float(ime["mean_abs"].mean()), "pp_median_final": float(pp["median_final"]),
               "ime_median_final": float(ime["median_final"]), "vhat_variance_factor_rel_gap": k_gap}
    numbers.update({f"spike_rel_error_t{t}": float(v) for t, v in spike_rel.items()})
    fig = Figure("section4_4_2_self_regularisation", "dp_adam_design §4.4.2: update sizes, post-processing vs IME", [
        Panel("per-trial mean |update| (rounds 11–100)", "method", "mean |update| / lr", [
            Series("trials", [0] * trials + [1] * trials, np.concatenate([pp["mean_abs"], ime["mean_abs"]]),
                   style="points"),
            Series("post-processing's bound √((1 − β₂ᵗ)/(1 − β₂)), t = 100", [0, 1], [bound[-1]] * 2,
                   style="dashed")], yscale="log", categories=["post-processing", "IME"])])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)


# ======================================================================================
# §5.1 the "IME for free" row: its place in the ordering of the variants
# ======================================================================================
@claim(
    "dp_adam_design.section5.1.ime_for_free",
    kind="experiment",
    statement="""§5.1 (table): AdaGrad via independent moment estimation "for free" (each of ḡ and ḡ² noised with
    the multiplier σ, not the equal-privacy √2σ) reaches test loss 0.5980, between non-private AdaGrad (0.5976) and
    IME at post-processing's privacy (0.5981): the ordering non-private < IME for free < IME.""",
    theory=(td.ime_noise_stds,),
    mutants=_one_arm_mutants("ime_for_free", "IME for free"),
    notes="Reading: the table's place of the 'for free' row — non-private < IME for free < IME. The rest of the "
    "table's chain (IME and IME for free < post-processing, 0.6010) is dp_adam_design.section5.1's statement and "
    "tests, not repeated here (those are unpaired Welch comparisons; in this worktree section5.1 is inconclusive at "
    "quick seeds 0, 1, 2, and at seed 2 post-processing's mean is below both IME rows). The setting, learning-rate "
    "grid, noise multiplier "
    "(σ = 0.275, calibrated once from the non-private and post-processing rows) and trials (30, quick = full) are "
    "dp_adam_design.section5.1's (S51), reused unchanged. IME's stds come from theory.ime_noise_stds (the √2σ "
    "split); IME for free is the kernel's ime_split=False. All methods draw the same unit noise per trial (the "
    "same seed), so IME for free − IME is a paired difference per trial, each at its own best learning rate. "
    "Tests (2): IME for free − IME < 0 (verify.decide.upper_bounded on the paired mean, holds if its upper 95% "
    "bound is < 0, violated if its family-corrected lower bound is > 0) and non-private < IME for free "
    "(verify.decide.better, margin S51_MARGIN = 0.0017, as in section5.1). The setting guard of section5.1 "
    "applies, both ways (issue 25): a seed whose post-processing excess is more than 3× off the paper's 0.0034 "
    "(either way) gives neither violated nor holds — the ordering is then measured at another scale than the "
    "table's (e.g. with 3× the noise in every row). "
    "Reported, not tested: the paper's gap IME − IME for free is 0.0001; this reconstruction's is about 0.001. "
    "Exact premise (issue 25): the IME row is 'at post-processing's privacy' — its two Gaussian mechanisms' "
    "(sensitivity/std)² (ime_sensitivity_first/squares over ime_noise_stds at the setting) sum to 1/σ² within 16 "
    "rounding units; otherwise the row compared is not the paper's and the verdict is violated (the theory is wrong). "
    "Step probe (issue 25, _s51_step_probe, exact): each method's kernel configuration, without noise, must take "
    "the stated first AdaGrad step η·|g|/(√max(g², floor) + ξ) on one record (to 1e-12 relative), and its gradient "
    "noise (_s51_noise_probe) must have the stated std within [0.8, 1.25]; a kernel that does not turns a 'holds' "
    "into inconclusive (the runs are not the stated algorithm).",
    tests=2,
    weaker_if={"theory.dp_adam_design.ime_noise_stds": "larger"},  # noisier IME only makes 'for free < IME' easier
)
def section5_1_ime_for_free(budget: str, seed: int) -> Outcome:
    trials = 30
    lrs = S51_LRS
    ime_stds = tuple(float(v) for v in (numeric(e)(sigma=S51["sigma"], C=S51["clip"], B=1)
                                        for e in td.ime_noise_stds()))
    methods = ("nonprivate", "ime_for_free", "ime", "post_processing")
    tasks = [dict(method=m, lrs=lrs, trials=trials, seed=seed + 1) for m in methods]
    tasks[2]["stds"] = ime_stds
    with claim_scope("dp_adam_design.section5.1"):  # section5.1's four tasks: one cache folder and key, run once
        res = sweep(_s51_task, tasks, "section5.1.ime_for_free")
    best = {m: _s51_best(r, lrs) for m, r in zip(methods, res)}
    gt = float(res[0]["ground_truth"])
    # the premise "IME at post-processing's privacy", exact: the two Gaussian mechanisms' privacy parameters
    # (sensitivity/std)² add up to post-processing's 1/σ² (its std σC/B on ḡ of sensitivity C/B), 16 rounding units
    sens = (float(numeric(td.ime_sensitivity_first())(C=S51["clip"], B=1)),
            float(numeric(td.ime_sensitivity_squares())(C=S51["clip"], B=1)))
    privacy_gap = abs(((sens[0] / ime_stds[0]) ** 2 + (sens[1] / ime_stds[1]) ** 2) * S51["sigma"] ** 2 - 1)
    privacy_ok = privacy_gap <= 16 * EPS
    paired = best["ime_for_free"][1] - best["ime"][1]
    d_pair = decide.upper_bounded(decide.mean_estimate(paired), 0.0,
                                  test="test loss IME for free − IME (paired over the shared noise draws): "
                                  "one-sample t")
    d_np = decide.better(best["nonprivate"][1], best["ime_for_free"][1], what="test loss non-private − IME for free",
                         margin=S51_MARGIN)
    decisions = [d_pair, d_np]
    verdict = _verdict(decisions, privacy_ok)
    pp_excess = float(best["post_processing"][0] - gt)
    ratio = pp_excess / S51_PAPER_PP_EXCESS
    setting_matches = 1.0 / S51_SETTING_FACTOR <= ratio <= S51_SETTING_FACTOR
    probe_why, probe = _s51_step_probe(methods)
    noise_why, noise_probe = _s51_noise_probe(methods, ime_stds)
    probe_why = "; ".join(w for w in (noise_why, probe_why) if w)
    probe.update(noise_probe)
    why_not = ""
    if not privacy_ok:
        why_not = (f"; IME's stds {ime_stds[0]:.4g}, {ime_stds[1]:.4g} do not give post-processing's privacy "
                    f"(relative gap {privacy_gap:.3g} in Σ(sensitivity/std)² vs 1/σ²)")
    elif verdict in ("violated", "holds") and not setting_matches:
        # issue 25: the guard is two-sided — an ordering measured off the paper's scale (post-processing's excess
        # more than 3× from 0.0034, either way) is no evidence about the paper's table, for or against
        why_not = (f"; the tests say {verdict}, but this seed's post-processing excess {pp_excess:.3g} is "
                   f"{ratio:.3g}× the paper's: not the paper's setting")
        verdict = "inconclusive"
    if probe_why and privacy_ok:
        # issue 25: the runs must be the stated algorithm (the kernel's noise and its step at the stated learning
        # rate): a 'holds' on another mechanism is not established
        why_not += (f"; the tests say {verdict}, but the kernel does not run the stated update ({probe_why})"
                    if verdict == "holds" else f"; the kernel does not run the stated update ({probe_why})")
        if verdict == "holds":
            verdict = "inconclusive"
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    order = sorted(methods, key=lambda m: best[m][0])
    evidence = (f"{key.phrase()}{why_not}; {trials} trials, σ = {S51['sigma']:g}; best-lr mean test loss: ground "
                f"truth {gt:.4f}, " + ", ".join(f"{m} {best[m][0]:.4f}" for m in methods)
                + f" (paper 0.5976, 0.5976, 0.5980, 0.5981, 0.6010); measured order {' < '.join(order)}; IME for "
                f"free − IME paired {d_pair.estimate:.4g} ({d_pair.verdict}), non-private − IME for free "
                f"{d_np.estimate:.4g} ({d_np.verdict}); post-processing excess {ratio:.3g}× the paper's")
    numbers = {f"loss_{m}": best[m][0] for m in methods}
    numbers.update({f"lr_{m}": best[m][2] for m in methods})
    numbers.update({"loss_ground_truth": gt, "ime_for_free_minus_ime": d_pair.estimate,
                    "nonprivate_minus_ime_for_free": d_np.estimate, "pp_excess_over_paper": ratio,
                    "ime_std_grad": ime_stds[0], "ime_std_square": ime_stds[1],
                    "ime_privacy_relative_gap": privacy_gap, **probe})
    counter = None
    if not privacy_ok:
        counter = {"ime_stds": list(ime_stds), "sigma": S51["sigma"], "privacy_relative_gap": privacy_gap}
    elif verdict == "violated":
        counter = {"test": key.control.test.split(":")[0], "difference": key.estimate,
                   "lower_bound": key.violated_bound, "sigma": S51["sigma"], "seed": seed}
    cis = [mean_ci(best[m][1]) for m in methods]
    names = ["non-private", "IME for free", "IME", "post-processing"]
    fig = Figure("section5_1_ime_for_free", "dp_adam_design §5.1: where 'IME for free' sits", [
        Panel("mean test loss (95% CI), best learning rate per method", "method", "test loss", [
            Series("this reconstruction", list(range(4)), [c.estimate for c in cis], [c.lo for c in cis],
                   [c.hi for c in cis], style="points"),
            Series("paper", list(range(4)), [S51_PAPER[k] for k in methods], style="points")], categories=names)])
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions)
