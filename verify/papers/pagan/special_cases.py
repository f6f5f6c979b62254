"""The special cases of ``pagan``'s rates (§3): the Hölder chain after eq. (9), §3.1's DP-SGD case and §3.2's box.

Claims ``pagan.eq7`` (√d·Σσ_j ≥ (Σσ_j^{2/3})^{3/2} ≥ Σσ_j exactly, and their growth for σ_j = j^{-3/2}),
``pagan.theorem1.dp_sgd`` (Theorem 1 with C = I and p = ∞ is the standard DP-SGD rate) and
``pagan.section3.2.box`` (PAGAN against PASAN on the box, measured).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import sympy as sp

import kernels
import kernels.moments
from theory import numeric
from theory import pagan as tp
from verify import decide, stats
from verify.exact import adversarial_search, edge_values, random_search, rounding_tolerance
from verify.findings import parts_finding
from verify.papers.pagan._common import (
    RATE_DECAY,
    RATE_GRIDS,
    _memo_sweep,
    _rate_setting_departures,
    _rate_task,
    rate_tasks,
)
from verify.registry import Budgets, Figure, Outcome, Panel, Series, by_budget, child_seed, claim


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
    summary = (f"{verdict}: the Hölder chain √dΣσ_j ≥ (Σσ_j^(2/3))^(3/2) ≥ Σσ_j keeps a relative slack of at least "
               f"{worst.slack:.3g} (rounding tolerance {tol:.2g}) over {hw.evaluated + sum(w.evaluated for w in adv)} "
               f"evaluations; the limits for σ_j = j^-1.5 are in the table")
    points = [{"σ_j = j^-1.5": "(Σσ^(2/3))^(3/2)/log^(3/2) d as d → ∞", "limit (SymPy)": str(lim_mid)},
              {"σ_j = j^-1.5": "√dΣσ/√d as d → ∞", "limit (SymPy)": str(lim_up)},
              {"σ_j = j^-1.5": "(PASAN/PAGAN factor ratio)·log^(3/2) d/√d as d → ∞", "limit (SymPy)": str(lim_ratio)},
              {"σ_j = j^-1.5": "log-log slope of the ratio in d", "d from": int(dims[0]), "d to": int(dims[-1]),
               "slope": slope.slope.estimate, "95% lower": slope.slope.lo, "95% upper": slope.slope.hi}]
    panel = Panel("σ_j = j^(-3/2): rate factors", "dimension d", "factor", [
        Series("√d·Σσ_j (PASAN on X∞)", dims, up_v),
        Series("(Σσ_j^(2/3))^(3/2) (PAGAN)", dims, mid_v),
        Series("Σσ_j", dims, low_v),
    ], xscale="log", yscale="log")
    finding = None
    if verdict == "violated":
        up61, low61, tol61 = slacks(np.arange(1, 101, dtype=float) ** -1.5)
        finding = parts_finding(
            [(f"{hw.evaluated} seeded edge-value profiles (min slack {hw.slack:.3g})",
              "holds" if hw.slack >= -tol else "violated")]
            + [(f"L-BFGS-B at d = {dim} (min slack {w.slack:.3g})", "holds" if w.slack >= -tol else "violated")
               for dim, w in zip((2, 5, 20), adv)]
            + [("σ_j = j^-1.5: the limits of the middle and upper factors and of their ratio (SymPy)",
                "holds" if asym_ok else "violated")],
            what=f"the Hölder chain √dΣσ_j ≥ (Σσ_j^(2/3))^(3/2) ≥ Σσ_j (relative slack against {tol:.2g}) and its "
            "limits for σ_j = j^-1.5",
            paper_where="§6.1's profile σ_j = j^{-3/2} at d = 100 (the chain evaluated exactly there)",
            paper_measure="smaller relative slack of the chain's two inequalities", paper_size=min(up61, low61),
            paper_fails=bool(min(up61, low61) < -tol61),
            no_repair_reason="an exact inequality chain refuted by a computed profile (or a limit); the check decides "
                             "no other chain")
    return Outcome(verdict=verdict, evidence=evidence, finding=finding, summary=summary, points=points, numbers={
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
    agree = sum(symbolic.values())
    summary = (f"{verdict} (exact, SymPy): with C = I, R_std = 0 and p → ∞, Theorem 1's bound and eq. (5) equal the "
               f"standard DP-SGD rate in {agree}/{len(symbolic)} cases, lim B = 2G_∞: {radius_ok}; {points} seeded "
               f"points agree to {worst:.2g}")
    table = [{"form": k, "limit (SymPy)": sp.sstr(v), "equals the standard rate": bool(symbolic[k])}
             for k, v in parts.items()]
    table += [{"form": "standard DP-SGD rate", "limit (SymPy)": sp.sstr(rate)},
              {"form": "lim_(p→∞) B", "limit (SymPy)": sp.sstr(radius), "equals the standard rate": None,
               "equals 2G_∞": bool(radius_ok)}]
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
    finding = None
    if verdict == "violated":
        finding = parts_finding(
            [(f"{k} = the standard rate (SymPy)", "holds" if v else "violated") for k, v in symbolic.items()]
            + [("lim_(p→∞) B = 2G_∞ (SymPy)", "holds" if radius_ok else "violated"),
               (f"agreement at {points} seeded points (largest relative difference {worst:.2g})",
                "holds" if numeric_ok else "violated")],
            what="§3.1's special case C = I, p = ∞: Theorem 1's bound, eq. (5) and the radius against the standard "
            "DP-SGD rate",
            paper_where="§3.1 states the special case symbolically (C = I, p → ∞), with no numeric instance: the size "
                        "there is not computed",
            no_repair_reason="an identity of closed forms refuted symbolically; the check decides no other form")
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=table)


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
    achieves √d/(nε)" — "there are situations in which PAGAN offers significant improvements": on this box PAGAN's
    upper bound (C_jj = σ_j^{-4/3}) is below PASAN's (C_jj = σ_j^{-1}) at every d, and their ratio grows like
    √d/poly(log d).""",
    theory=(tp.box_rate_ratio,),
    weaker_if={tp.box_rate_ratio: "larger"},
    notes="Runs: the d axis of the rate sweeps (verify.papers.pagan._common.rate_tasks: n = 16000, ε = 1, c = 1/4, "
    "linear_subgaussian data with σ_j = j^{-3/2}; quick d ∈ {5, 10, 30}, 4 datasets; full d ∈ {5, 10, 30, 100, 300}, "
    "12 datasets), PAGAN as in pagan.theorem2 and PASAN with Theorem 1's prescription on the same box "
    "(RATE_SETTINGS 'pasan_box'). Reading: the paper compares upper bounds ('the upper bound of PAGAN is … while "
    "PASAN achieves …'), so the verdict is the exact bound comparison below. The measured comparison is "
    "information only (an earlier form of the check let it decide, and at quick it could not separate the "
    "methods, which made the verdict inconclusive though the quoted comparison holds exactly): per d, "
    "verify.decide.better on the log excess losses of the datasets (Welch t; geometric means), 'holds' when the "
    "upper 95% bound of mean log(PAGAN) − mean log(PASAN) is below 0, 'violated' when its family-corrected lower "
    "bound exceeds log 1.1 (PAGAN more than 10% worse), else 'inconclusive' — reported, not deciding. Reported "
    "beside it: the measured ratio PASAN/PAGAN against "
    "the ratio of the upper bounds' rate factors √d·Σσ_j/(Σσ_j^{2/3})^{3/2} (theory.pagan.box_rate_ratio). The "
    "bound comparison the statement quotes is checked exactly too (violated if it fails, whatever the runs): that "
    "ratio is ≥ 1 at every d swept (PAGAN's bound the lower; within rounding) and, for σ_j = j^{-3/2}, ratio · "
    "log^{3/2} d/√d has a finite positive limit (SymPy; PASAN √d, PAGAN poly(log d)). A larger ratio only weakens "
    "that part (weaker_if)."
    " Probe (exact, no runs): both kernels' configurations (PAGAN; PASAN on the box) at the base point must keep "
    "the prescribed α, project onto A and draw noise with whitened multiplier √(log(1/δ))/ε "
    "(_rate_setting_departures); a departure is reported beside the measured comparison (which it voids); the "
    "verdict, exact, does not rest on the runs.",
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
    # the verdict is the quoted bound comparison (exact); the measured decisions are information only
    verdict = "holds" if not bound_low and lim_ok else "violated"
    measured = str(decide.combine(decisions))
    numbers["measured_comparison_holds"] = int(measured == "holds")
    # both runs must be the stated algorithms with their theorems' prescriptions (exact probe, no runs)
    departures = [f"{s_}: {x}" for s_ in ("pagan", "pasan_box") for x in _rate_setting_departures(s_, budget)]
    numbers["mechanism_departures"] = len(departures)
    order = sorted(decisions, key=lambda d_: {"violated": 0, "inconclusive": 1, "holds": 2}[str(d_.verdict)])
    n_holds = sum(str(d_.verdict) == "holds" for d_ in decisions)
    evidence = (f"bounds (exact): PASAN/PAGAN rate-factor ratio ≥ 1 at {len(ds) - len(bound_low)}/{len(ds)} d, "
                f"ratio·log^(3/2) d/√d → {lim} (σ_j = j^-1.5; finite and positive: {lim_ok}); "
                f"measured, information only (overall {measured}): "
                f"{n_holds}/{len(decisions)} dimensions: PAGAN's excess below PASAN's on [−1, 1]^d "
                f"({pag_tasks[0]['trials']} datasets per d, n = {pag_tasks[0]['n']}, ε = {pag_tasks[0]['epsilon']:g}); "
                + "".join(d_.phrase() + "; " for d_ in order if str(d_.verdict) != "holds")
                + "measured PASAN/PAGAN (geometric means) against the bounds' ratio: "
                + ", ".join(f"d={d}: {m:.3g} ({p_:.3g})" for d, m, p_ in zip(ds, meas, pred)))
    if measured == "inconclusive" and budget == "quick":
        evidence += " (--budget full runs 12 datasets per d and d up to 300)"
    if departures:  # the runs are not the stated algorithms: the measured comparison says nothing
        evidence += "; the runs depart from the prescriptions (measured comparison void): " + "; ".join(departures)
    summary = (f"{verdict} (exact): the PASAN/PAGAN rate-factor ratio is ≥ 1 at {len(ds) - len(bound_low)}/{len(ds)} d "
               f"and ·log^(3/2) d/√d → {lim} (σ_j = j^-1.5); measured (information only): {measured}, "
               f"{n_holds}/{len(decisions)} d")
    if measured == "inconclusive" and budget == "quick":
        summary += " (--budget full: 12 datasets per d, d up to 300)"
    if departures:
        summary += f"; {len(departures)} departures from the prescriptions void it"
    points = [dict({"d": d, "datasets": t["trials"], "n": t["n"], "ε": t["epsilon"], "measured PASAN/PAGAN": m,
                    "bound ratio": p_}, **row)
              for d, t, m, p_, row in zip(ds, pag_tasks, meas, pred, decide.decision_points(decisions))]
    counter = None
    if verdict == "violated":
        counter = {}
        if bound_low or not lim_ok:
            counter.update(bound_ratio_below_1={int(d): float(r) for d, r in bound_low},
                           bound_ratio_limit_times_log_1_5_over_sqrt_d=str(lim))
    fig = Figure("section3_2_box", "pagan §3.2: PASAN against PAGAN on X = [−1, 1]^d, σ_j = j^(-3/2)", [Panel(
        f"n = {pag_tasks[0]['n']}, ε = {pag_tasks[0]['epsilon']:g}", "d", "PASAN / PAGAN excess loss",
        [Series("measured (geometric means)", ds, meas, style="points"),
         Series("√d Σσ_j / (Σσ_j^(2/3))^(3/2) (upper bounds)", ds, pred),
         Series("equal", [ds[0], ds[-1]], [1.0, 1.0], style="dashed")], xscale="log", yscale="log")])
    finding = None
    if verdict == "violated":
        finding = parts_finding(
            [(f"d = {d}: PASAN/PAGAN bound ratio {r:.4g} ≥ 1", "holds" if all(d != b for b, _ in bound_low)
              else "violated") for d, r in zip(ds, pred)]
            + [(f"σ_j = j^-1.5: ratio·log^(3/2) d/√d → {lim} (finite, positive)", "holds" if lim_ok else "violated")],
            what="§3.2's bound comparison on the box (exact; the measured comparison is information only)",
            paper_where="§3.2's own special case: X = [−1, 1]^d, σ_j = j^{-3/2}, at the d swept "
                        f"({', '.join(str(d) for d in ds)}) and as d → ∞",
            paper_measure="smallest PASAN/PAGAN bound ratio over the d swept (≥ 1 stated)",
            paper_size=min(pred) if pred else float("nan"), paper_fails=bool(bound_low) or not lim_ok,
            no_repair_reason="the statement's bound comparison is refuted exactly; the check decides no other "
                             "comparison")
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)
