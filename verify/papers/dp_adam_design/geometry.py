"""``dp_adam_design`` §4.1–§4.3 and §4.5 (Theoretical explorations): the geometry of the preconditioner.

* §4.1 (a quadratic example): the noise puts a floor (σC/B)² under DP-Adam's per-coordinate second moment
  (``dp_adam_design.section4.1``);
* §4.3.1 and App. B: scale-then-privatize's steady state κg² and the contraction of a multiplicative error
  (``section4.3.1``);
* §4.3.2: scale-then-privatize's private gradients have second moments proportional to the clean ones on the
  quadratic example (``section4.3.2``);
* §4.5: the per-update noise of scale-then-privatize is close to isotropic, post-processing's is not
  (``section4.5``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from kernels import dp_adam as kd
from kernels import dp_adam_problems as kdp
from theory import dp_adam_design as td
from theory import numeric
from verify import decide
from verify.mutants import declare_equivalent
from verify.papers.dp_adam_design._common import (
    _rel_estimate,
    _verdict,
    decided_finding,
    declare_stepsize_equivalent,
    equivalence_points,
)
from verify.registry import Budgets, Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import sweep
from verify.stats import mean_ci

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

    out = kd.run_stream(cfg, grad_fn, 4, rounds, trials=trials, seed=seed, start=kd.StreamStart(theta0=theta0),
                        record_v=True)
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
    finding = None
    if verdict == "violated":
        finding = decided_finding(decisions, what="§4.1's per-coordinate tests of E[v̂_j] = E[ḡ_j²] + (σC/B)² "
                                  "(four coordinates, clean second moments from 2.5e-3 to 2.5e5 around the floor)")
    n_hold = sum(d_.verdict == "holds" for d_ in decisions)
    summary = (f"{verdict}: DP-Adam's mean v̂ matches E ḡ² + (σC/B)² on {n_hold} of {len(decisions)} coordinates; "
               f"the floor {floor:g} shrinks the learning-rate ratio of coordinates 2 : 1 to {lr_ratio_dp:.3g} "
               f"(vs {lr_ratio_clean:.3g} without noise)"
               + ("" if setting_ok else "; the setting is off (clipping active or θ drifting)"))
    points = [{"coordinate": j + 1, "E ḡ²": float(clean[j]), "mean v̂": float(meas[j]), "closed form": float(pred[j]),
               "trials": trials, "rounds": rounds} for j in range(4)]
    points += equivalence_points(decisions)
    points.append({"setting": "quadratic", "floor (σC/B)²": floor, "lr ratio 2 : 1, DP-Adam": lr_ratio_dp,
                   "lr ratio 2 : 1, no noise": lr_ratio_clean,
                   "max record norm / C": float(r["max_record_norm_over_C"]), "θ drift": float(r["theta_drift"])})
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


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
                       start=kd.StreamStart(v0=(1 + delta0) * kappa * g * g, t0=p["t0"]), record_v=True)
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
    """section4.3.1's verdict when the declared α or κ contradicts the statement exactly (no Monte Carlo).

    Parameters
    ----------
    why : str
        What the declared closed form contradicts.
    alpha, kappa : float
        The declared α and κ at the setting (NaN where not computed).

    Returns
    -------
    Outcome
        Violated, with the finding of its one exact part (the closed form as a number of β₂ and s).
    """
    finding = decided_finding([], [(f"α and κ as numbers of β₂ and s = σC/B, with κ > 0: {why}", False)],
                              what="§4.3.1's exact part (the declared contraction and steady state at the setting)",
                              no_repair_reason="the declared closed form is not a number of β₂ and s (or κ ≤ 0): "
                              "the statement's own α = β₂ + (1 − β₂)s², κ = 1/(1 − s²) are what the check tests, "
                              "so no other form is decided")
    return Outcome(verdict="violated", evidence=f"exact (no Monte Carlo): {why}",
                   numbers={"alpha": alpha, "kappa": kappa}, counterexample=dict(kind="closed form", reason=why),
                   finding=finding)


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
    "stp_error_after_one_round = α·δ at the setting within 64 rounding units (no test). α and κ must be "
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
    finding = None
    if verdict == "violated":
        finding = decided_finding(decisions, [("one-round error closed form = α·δ at the setting (64 rounding units; "
                                               f"max relative gap {one_round_gap:.2g})", bool(exact_ok))],
                                  what="§4.3.1's tests (δ₀ ∈ {−0.5, 2} at rounds 1 and 10, the proportionality "
                                  "slope on log|g|) and its exact part")
    n_hold = sum(d_.verdict == "holds" for d_ in decisions)
    summary = (f"{verdict}: scale-then-privatize's relative error of v contracts as α^t·δ₀ (α = {alpha:.4f}) to the "
               f"steady state κg², final v proportional to g², in {n_hold} of {len(decisions)} tests; the one-round "
               "closed form is αδ " + ("to rounding" if exact_ok else "NOT (exact)")
               + ("" if figures["max_scaled_norm_over_C"] <= 1.0 else "; the scaled clipping is active"))
    points = [{"δ₀": dl, "round-1 relative error": figures[f"rel_error_round1_delta{dl:g}"], "αδ₀": alpha * dl}
              for dl in deltas]
    points += equivalence_points(decisions)
    points.append({"setting": "App. B", "α": alpha, "κ": kappa, "one-round closed form vs αδ, max relative gap":
                   one_round_gap, "tested rounds": str(tuple(S431_TESTED_ROUNDS)),
                   "largest |deviation|/|δ₀|": worst[0], "max scaled norm / C": figures["max_scaled_norm_over_C"]})
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures,
                   counterexample=counter if verdict == "violated" else None, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


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
    finding = None
    if verdict == "violated":
        finding = decided_finding(decisions, what="§4.3.2's per-coordinate tests (E g̃²/E ḡ² = 1 + κs² and v̂/E ḡ² = κ "
                                  "on four coordinates, clean second moments from 1.6e-4 to 1.6e4)")
    n_hold = sum(d_.verdict == "holds" for d_ in decisions)
    summary = (f"{verdict}: under scale-then-privatize the kernel's E g̃²/E ḡ² = 1 + κs² and v̂/E ḡ² = κ = "
               f"{kappa:.4f} in {n_hold} of {len(decisions)} tests (four coordinates, clean second moments over "
               "eight decades), where post-processing's factors would spread widely"
               + ("" if setting_ok else "; NOT the setting"))
    points = [{"coordinate": j + 1, "E ḡ²": float(clean[j]), "E g̃²/E ḡ²": float(g_ratio[j]),
               "v̂/E ḡ²": float(v_ratio[j]), "post-processing factor": float(pp_ratio[j]), "trials": trials,
               "rounds": rounds, "burn-in": p["burn"]} for j in range(d)]
    points += equivalence_points(decisions)
    points.append({"setting": "quadratic", "κ": kappa, "1 + κs²": factor,
                   "max scaled record norm / C": float(r["max_scaled_norm_over_C"]),
                   "θ drift": float(r["theta_drift"])})
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


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
    "afterwards: v decays as fast as the noise lets it), and 'late' (the spike's decay from "
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
    finding = None
    if verdict == "violated":
        exact = [(f"benign stream after the burn-in: multiplier²/bound = {float(stp['mult_over_bound_max']):.6f} ≤ 1",
                  float(stp["mult_over_bound_max"]) <= 1.0 + 1e-9)]
        exact += [(f"'{st_}' stream: multiplier²/bound = {float(a['worst']):.6f} ≤ 1 (round {a['round']})",
                   float(a["worst"]) <= 1.0 + 1e-9) for st_, a in zip(S45_STREAMS, adv)]
        finding = decided_finding([dec], exact, what="§4.5's anisotropy test and its exact multiplier bound on the "
                                  "benign and the three adversarial gradient streams")
    summary = (f"{verdict}: scale-then-privatize's update noise is less anisotropic than post-processing's "
               f"({an[0]:.3g} vs {an[1]:.3g}): {dec.verdict}; its per-round multiplier² stays within the exact bound "
               "on the benign and the adversarial streams: " + ("holds" if bound_ok else "FAILS")
               + ("" if stable else "; v̂ is not stable"))
    starts = {"pulses": "2", "spike": "2", "late": "10⁶"}  # the streams' first round, as the evidence states them
    points = [{"method": "scale-then-privatize", "anisotropy (geometric mean)": an[0], "trials": trials,
               "σC/B": float(stp["s"]), "max v̂": float(stp["vhat_max"]),
               "max multiplier²/bound after the burn-in": float(stp["mult_over_bound_max"]), "bound": 1.0},
              {"method": "post-processing", "anisotropy (geometric mean)": an[1], "trials": trials}]
    points += [{"stream": st_, "from round": starts.get(st_, ""), "max multiplier²/bound": float(a["worst"]),
                "at round": int(a["round"]), "worst": st_ == adv_worst[0]} for st_, a in zip(S45_STREAMS, adv)]
    points += decide.decision_points([dec])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, finding=finding, summary=summary,
                   points=points, counterexample=None if verdict != "violated" else {
        "anisotropy_stp": an[0], "anisotropy_pp": an[1],
        "max_multiplier_over_bound": float(stp["mult_over_bound_max"]),
        "adversarial_stream": adv_worst[0], "adversarial_max_multiplier_over_bound": float(adv_worst[1]["worst"]),
        "adversarial_round": int(adv_worst[1]["round"])}, plots=[fig], decisions=[dec])


# the stepsize mutant moves only θ; this claim measures the moment estimates of a fixed gradient stream
declare_stepsize_equivalent("dp_adam_design.section4.3.1")
