"""``dp_adam_design`` §5 (Empirical comparisons).

* §5.1: one-dimensional sparse logistic regression, the ordering of the private AdaGrad variants' test losses
  (``dp_adam_design.section5.1``) and the "IME for free" row of its table (``section5.1.ime_for_free``), with the
  calibration of the stylised setting (:func:`s51_calibration`);
* §5.2, Figure 4 (stylised on synthetic gradients): the per-round fraction of negative bias-corrected v̂
  coordinates under heavy-tailed coordinate scales (``figure4``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dpvalidate import InvalidParameter
from kernels import dp_adam as kd
from kernels import dp_adam_problems as kdp
from theory import dp_adam_design as td
from theory import numeric
from verify import decide
from verify.exact import EPS
from verify.findings import Finding, PaperSetting, Region, Repair
from verify.mutants import kernel_mutant
from verify.papers.dp_adam_design._common import (
    AT_THRESHOLD_BAND,
    RARE,
    _verdict,
    decided_finding,
    declare_stepsize_equivalent,
)
from verify.privacy import gaussian_epsilon_interval
from verify.registry import Budgets, Figure, Outcome, Panel, Series, Verdict, child_seed, claim
from verify.runner import claim_scope, sweep
from verify.stats import mean_ci

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


class S51Settings(NamedTuple):
    """section5.1's trials per method and learning rate."""

    trials: int  # noise draws per method and learning rate (one data set; every method shares the draws)


#: quick: the paper's 30 trials (its table is a mean of 30); full: 10× more draws, for the paired tests' power
S51_BUDGETS = Budgets(quick=S51Settings(trials=30), full=S51Settings(trials=300))
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


def _s51_better_paired(a, b, *, what: str, margin: float) -> decide.Decision:
    """Decide "mean(a) < mean(b)" from per-trial differences a − b, the trials paired by their shared noise draws.

    Every §5.1 method runs on one data set with the same noise seed, so trial k of each method sees the same unit
    draws: the difference per trial removes the draws' common part (``decide.better``'s Welch t would treat the rows
    as independent samples).  The rule is ``decide.better``'s: holds when the upper HOLDS_LEVEL bound of the mean
    difference is < 0, violated when its family-corrected lower bound is > ``margin``, otherwise inconclusive (a
    one-sample t on the differences, n − 1 degrees of freedom)."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    est = decide.mean_estimate(diff)
    alpha = decide.spend(1)
    ctrl = decide.Control(f"{what}: paired t on the per-trial differences (shared noise draws), non-inferiority "
                          f"margin {margin:g}", alpha, decide.family_text(), margin)
    hi, lo = est.upper(1 - decide.HOLDS_LEVEL), est.lower(alpha)
    if hi < 0:
        return decide.Decision(Verdict.HOLDS, ctrl, est.value, hi, lo,
                               f"{what}: paired difference {est.value:.4g} < 0 (upper bound {hi:.4g})")
    if lo > margin:
        return decide.Decision(Verdict.VIOLATED, ctrl, est.value, hi, lo,
                               f"{what}: paired difference {est.value:.4g}, family-corrected lower bound "
                               f"{lo:.4g} > margin {margin:g}")
    why = (f"is undecided: the interval is wider than twice the margin {margin:g} (more runs would decide)"
           if hi - lo > 2 * margin else f"is a near-tie within the margin {margin:g}")
    return decide.Decision(Verdict.INCONCLUSIVE, ctrl, est.value, hi, lo,
                           f"{what}: paired difference {est.value:.4g} [{lo:.4g}, {hi:.4g}] {why}")


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
    "signal-to-noise ratio, as the paper says. Trials: 30 at quick (the paper's 30), 300 at full (S51_BUDGETS); "
    "all methods share the noise draws (one data set, one noise seed: trial k of every method sees the same unit "
    "draws), so each test is paired — a one-sample t on the per-trial differences, each method at its own best "
    "learning rate (_s51_better_paired: decide.better's rule, holds if the upper 95% bound is < 0, violated if the "
    "family-corrected lower bound is > the margin). Tests (3, margin "
    "0.0017 = half the paper's post-processing excess, fixed with the calibration before any IME run): "
    "IME < post-processing, non-private < IME, and the paper's 'IME for free' row (kernel: IME without the "
    "privacy split) < post-processing. The paper's regime is its row 'non-private = ground truth': a data set on "
    "which non-private AdaGrad's test loss is more than the calibration's tolerance 1e-4 off the ground truth "
    "(e.g. dataset seed 3, claim seed 2: 0.0042) is rejected — inconclusive with that reason, no test is run. "
    "Preconditions: IME runs at post-processing's privacy (the accountant's ε of "
    "the closed form's stds matches post-processing's: their PLD intervals overlap; otherwise that closed "
    "form, exact, is refuted and the run "
    "is not the stated comparison: violated, with the stds and both ε as the counterexample), and a seed whose "
    "post-processing excess is more than 3× off the paper's, either way, is reported but cannot "
    "give violated (not the paper's setting). History: a first version resampled the dataset in every trial "
    "(IME − PP = −0.0015 [−0.036, 0.033]); a second ran at σ = 1, 20× noisier than the paper (inconclusive by "
    "the setting guard). Mechanism probes first (_s51_noise_probe and _s51_step_probe): a kernel whose "
    "gradient noise is not the stated std (within [0.8, 1.25]) or whose noiseless first AdaGrad step is not the "
    "stated one gives an undecided or violated check no verdict (it raises, with the reason: a violation shown by "
    "runs of another mechanism is no evidence); a 'holds' becomes inconclusive "
    "(decide.after_probe).",
    tests=3,
)
def section5_1(budget: str, seed: int) -> Outcome:
    trials = S51_BUDGETS.at(budget).trials
    lrs = S51_LRS
    ime_stds = tuple(float(v) for v in (numeric(e)(sigma=S51["sigma"], C=S51["clip"], B=1)
                                        for e in td.ime_noise_stds()))
    # the runs must be the stated mechanism (each method's noise and first step): see decide.after_probe
    why = "; ".join(w for w in (_s51_noise_probe(S51_METHODS, ime_stds)[0], _s51_step_probe(S51_METHODS)[0]) if w)
    tasks = [dict(method=m, lrs=lrs, trials=trials, seed=seed + 1) for m in S51_METHODS]
    for tk in tasks:
        if tk["method"] == "ime":
            tk["stds"] = ime_stds
    res = sweep(_s51_task, tasks, "section5.1")
    best = {tk["method"]: _s51_best(r, lrs) for tk, r in zip(tasks, res)}
    gt = float(res[0]["ground_truth"])
    # the paper's regime: its row "non-private 0.5976 = ground truth 0.5976"; a data set on which non-private AdaGrad
    # is off the ground truth by more than the calibration's tolerance is another setting: rejected, not compared
    nonprivate_excess = float(best["nonprivate"][0] - gt)
    dataset_ok = abs(nonprivate_excess) <= S51_CALIBRATION["nonprivate_tol"]
    pairs = [("ime", "post_processing", "test loss IME − post-processing"),
             ("nonprivate", "ime", "test loss non-private − IME"),
             ("ime_for_free", "post_processing", "test loss IME for free − post-processing")]
    decs = [_s51_better_paired(best[a][1], best[b][1], what=w, margin=S51_MARGIN) for a, b, w in pairs] \
        if dataset_ok else []
    diffs = [float(np.mean(best[a][1] - best[b][1])) for a, b, _ in pairs]
    pp_ci = mean_ci(best["post_processing"][1] - gt)
    ratio = pp_ci.estimate / S51_PAPER_PP_EXCESS
    setting_matches = 1.0 / S51_SETTING_FACTOR <= ratio <= S51_SETTING_FACTOR
    priv = _s51_privacy(ime_stds)
    # exact precondition: the declared closed form's split puts IME at post-processing's privacy (the accountant's ε
    # of both releases agrees); either way off, the closed form (exact, §3.2) is refuted and the run is not the
    # stated comparison: a computed counterexample
    same_privacy = priv.pop("same")
    verdict = _verdict(decs, exact_ok=same_privacy) if decs or not same_privacy else "inconclusive"
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
    rejected = (f"inconclusive: this data set (dataset seed {seed + 1}) is outside the paper's regime: non-private "
                f"AdaGrad's test loss is {nonprivate_excess:.3g} off the ground truth (more than the calibration's "
                f"tolerance {S51_CALIBRATION['nonprivate_tol']:g}; the paper's row: non-private 0.5976 = ground "
                "truth 0.5976), so the methods are not compared") if not dataset_ok else ""
    figures = {f"loss_{m}": b[0] for m, b in best.items()}
    figures.update({f"lr_{m}": b[2] for m, b in best.items()})
    figures["loss_ground_truth"] = gt
    figures["ime_minus_pp"], figures["nonprivate_minus_ime"], figures["ime_for_free_minus_pp"] = diffs
    figures["nonprivate_minus_ground_truth"] = nonprivate_excess
    figures["pp_excess"] = pp_ci.estimate
    figures["pp_excess_lo"] = pp_ci.lo
    figures["pp_excess_hi"] = pp_ci.hi
    figures["pp_excess_over_paper"] = ratio
    figures["sigma"] = S51["sigma"]
    figures["trials"] = trials
    figures["ime_std_grad"], figures["ime_std_square"] = ime_stds
    figures.update({k: float(v) for k, v in priv.items()})
    key = next((dd for dd in decs if dd.verdict == "violated"), None) or \
        next((dd for dd in decs if dd.verdict == "inconclusive"), None) or (decs[0] if decs else None)
    head = key.phrase() if key is not None and not (rejected and same_privacy) else (rejected or "violated")
    tests_text = ("; ".join(f"{dd.control.test.split(':')[0]}: {dd.estimate:.4g} ({dd.verdict})" for dd in decs)
                  if decs else "; ".join(f"{w}: {v:.4g} (not tested)" for (_, _, w), v in zip(pairs, diffs)))
    evidence = (f"{head}{why_not}; {trials} trials (paired: every method shares the noise draws), σ = "
                f"{S51['sigma']:g} (calibrated from the paper's PP row; ε {priv['eps_pp']:.3g} at δ = {S51_DELTA:g}), "
                f"best lr per method: test loss ground truth {gt:.4f}, non-private {best['nonprivate'][0]:.4f}, IME "
                f"{best['ime'][0]:.4f}, IME for free {best['ime_for_free'][0]:.4f}, post-processing "
                f"{best['post_processing'][0]:.4f} (paper: 0.5976, 0.5976, 0.5981, 0.5980, 0.6010); "
                + tests_text
                + f"; setting: non-private − ground truth {nonprivate_excess:.3g} "
                f"({'within' if dataset_ok else 'beyond'} {S51_CALIBRATION['nonprivate_tol']:g}), post-processing "
                f"excess {pp_ci.estimate:.3g} [{pp_ci.lo:.3g}, {pp_ci.hi:.3g}] vs the "
                f"paper's {S51_PAPER_PP_EXCESS:.4f}: {'comparable' if setting_matches else 'not the paper’s scale'}; "
                f"IME at PP's privacy: ε {priv['eps_ime']:.3g} = {priv['eps_pp']:.3g}: "
                f"{'yes' if same_privacy else 'NO'}")
    if verdict == "violated" and counterexample is None:
        counterexample = {"test": key.control.test.split(":")[0], "difference": key.estimate,
                          "lower_bound": key.violated_bound, "sigma": S51["sigma"], "seed": seed}
    finding = None
    if verdict == "violated":
        finding = _s51_finding(key if same_privacy else None, seed, trials, ime_stds, priv, pp_ci.estimate)
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
    labels = {"nonprivate": "non-private", "ime": "IME", "ime_for_free": "IME for free",
              "post_processing": "post-processing"}
    summary = ((f"the kernel does not run the stated mechanism ({why}); " if why else "") + f"{verdict}: "
               + (rejected.partition(": ")[2].partition(":")[0] if rejected else
                  "test loss " + ", ".join(f"{labels[a]} < {labels[b]} {dd.verdict}"
                                           for (a, b, _), dd in zip(pairs, decs))
                  + f" (paired, {trials} trials)")
               + ("" if same_privacy else "; IME's noise is not at post-processing's privacy")
               + ("; this seed's setting is not the paper's" if why_not and same_privacy else ""))
    points = [{"method": "ground truth", "test loss": gt, "paper": S51_PAPER["ground_truth"]}]
    points += [{"method": labels[m], "test loss": best[m][0], "paper": S51_PAPER[m], "lr": best[m][2],
                "trials": trials} for m in ("nonprivate", "ime", "ime_for_free", "post_processing")]
    points += (decide.decision_points(decs) if decs else
               [{"test": w, "verdict": "not tested", "estimate": v} for (_, _, w), v in zip(pairs, diffs)])
    points.append({"setting": "§5.1", "σ": S51["sigma"], "ε post-processing": priv["eps_pp"], "ε IME": priv["eps_ime"],
                   "δ": S51_DELTA, "IME std ḡ": ime_stds[0], "IME std ḡ⊙ḡ": ime_stds[1],
                   "dataset seed": seed + 1, "non-private − ground truth": nonprivate_excess,
                   "its tolerance": S51_CALIBRATION["nonprivate_tol"], "post-processing excess": pp_ci.estimate,
                   "excess 95% CI lo": pp_ci.lo, "excess 95% CI hi": pp_ci.hi,
                   "paper's excess": S51_PAPER_PP_EXCESS, "excess / paper's": ratio})
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counterexample, plots=[fig],
                   decisions=decs, finding=finding if verdict == "violated" else None, summary=summary,
                   points=points)


S51_WHERE = ("§5.1's table setting: 1-D sparse logistic regression, 1000 records (90% zero features), one epoch of "
             "batch 1, DP-MF noise, AdaGrad, 30 trials in the paper; σ = 0.275 calibrated to its post-processing row")


def _s51_finding(key, seed: int, trials: int, ime_stds: tuple, priv: dict, pp_excess: float) -> Finding:
    """The finding of a violated §5.1 outcome: a failed ordering test (``key``, the violated decision) or, with
    ``key`` None, IME's noise from the declared closed form not at post-processing's privacy (an exact failure)."""
    if key is None:
        # the exact failure: the paper's own split (√2σ on each part, §3.2) evaluated on the same accountant
        d1, d2 = kd.ime_sensitivities(S51["clip"], 1)
        split = (math.sqrt(2.0) * S51["sigma"] * d1, math.sqrt(2.0) * S51["sigma"] * d2)
        paper_priv = _s51_privacy(split)
        gap = float(priv["eps_ime"] - priv["eps_pp"])
        return Finding(
            region=Region(explored=1, failing=1, text=(
                f"IME's noise stds {ime_stds[0]:.4g}, {ime_stds[1]:.4g} from theory.ime_noise_stds at σ = "
                f"{S51['sigma']:g}, B = 1, C = {S51['clip']:g}: ε {priv['eps_ime']:.4g} vs post-processing's "
                f"{priv['eps_pp']:.4g} at δ = {S51_DELTA:g}")),
            at_paper_setting=PaperSetting(where=S51_WHERE, measure=f"ε(IME) − ε(post-processing) at δ = {S51_DELTA:g}",
                                          size=gap, fails=True),
            repair=Repair(
                statement="IME's stds √2σ·Δ₁ on ḡ and √2σ·Δ₂ on ḡ⊙ḡ (§3.2's equal split) put it at post-processing's "
                          "privacy",
                verdict="holds" if paper_priv["same"] else "violated",
                evidence=(f"dp-accounting at the same δ: ε {paper_priv['eps_ime']:.4g} vs {paper_priv['eps_pp']:.4g} "
                          f"(multiplier {paper_priv['z_ime']:.4g} vs σ = {S51['sigma']:g})"),
                source="paper"))
    return _s51_ordering_finding(key, seed, trials, pp_excess)


def _s51_ordering_finding(key, seed: int, trials: int, pp_excess: float) -> Finding:
    """The finding of a failed §5.1 ordering test ``key`` (a violated decision) on this seed's data set, which the
    setting guards have accepted as the paper's setting: in the regime, no repair (an experimental ordering)."""
    test = key.control.test.split(":")[0]
    bound = key.control.margin if key.control.margin is not None else 0.0
    return Finding(
        region=Region(explored=1, failing=1, text=(
            f"{test} on this seed's data set (dataset seed {seed + 1}, {trials} trials, post-processing excess "
            f"{pp_excess:.3g}, within 3× of the paper's {S51_PAPER_PP_EXCESS:.4f}): mean difference "
            f"{key.estimate:.4g}, family-corrected lower bound {key.violated_bound:.4g} > {bound:.4g}")),
        at_paper_setting=PaperSetting(where=S51_WHERE, measure=f"{test} (mean difference; > 0: the claimed better "
                                      "method is worse)", size=float(key.estimate), fails=True),
        no_repair_reason=("an experimental ordering: the run measures the reversed ordering at the reconstructed "
                          "setting; no corrected statement of the paper follows from it"))


def _s51_split_gap(stds: tuple) -> float:
    """|Σ(sensitivity/std)²·σ² − 1| of IME's two releases with ``stds`` at the S51 setting (B = 1): 0 when the two
    Gaussian mechanisms together have post-processing's privacy (multiplier σ)."""
    sens = (float(numeric(td.ime_sensitivity_first())(C=S51["clip"], B=1)),
            float(numeric(td.ime_sensitivity_squares())(C=S51["clip"], B=1)))
    return abs(((sens[0] / stds[0]) ** 2 + (sens[1] / stds[1]) ** 2) * S51["sigma"] ** 2 - 1)


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
    "tests, not repeated here (paired over the shared noise draws; at quick seed 2 — dataset seed 3, where "
    "non-private AdaGrad is 0.0042 off the ground truth — section5.1 rejects the data set and post-processing's "
    "mean is below both IME rows). The setting, learning-rate grid and noise multiplier (σ = 0.275, calibrated once "
    "from the non-private and post-processing rows) are dp_adam_design.section5.1's (S51), reused unchanged; "
    "trials: 30 at both budgets (section5.1's quick count, so at quick its four runs are shared through the cache; "
    "section5.1 runs 300 at full). IME's stds come from theory.ime_noise_stds (the √2σ "
    "split); IME for free is the kernel's ime_split=False. All methods draw the same unit noise per trial (the "
    "same seed), so IME for free − IME is a paired difference per trial, each at its own best learning rate. "
    "Tests (2): IME for free − IME < 0 (verify.decide.upper_bounded on the paired mean, holds if its upper 95% "
    "bound is < 0, violated if its family-corrected lower bound is > 0) and non-private < IME for free "
    "(verify.decide.better, margin S51_MARGIN = 0.0017, as in section5.1). The setting guard of section5.1 "
    "applies, both ways: a seed whose post-processing excess is more than 3× off the paper's 0.0034 "
    "(either way) gives neither violated nor holds — the ordering is then measured at another scale than the "
    "table's (e.g. with 3× the noise in every row). "
    "Reported, not tested: the paper's gap IME − IME for free is 0.0001; this reconstruction's is about 0.001. "
    "Exact premise: the IME row is 'at post-processing's privacy' — its two Gaussian mechanisms' "
    "(sensitivity/std)² (ime_sensitivity_first/squares over ime_noise_stds at the setting) sum to 1/σ² within 16 "
    "rounding units; otherwise the row compared is not the paper's and the verdict is violated (the theory is wrong). "
    "Step probe (_s51_step_probe, exact): each method's kernel configuration, without noise, must take "
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
        # the guard is two-sided — an ordering measured off the paper's scale (post-processing's excess
        # more than 3× from 0.0034, either way) is no evidence about the paper's table, for or against
        why_not = (f"; the tests say {verdict}, but this seed's post-processing excess {pp_excess:.3g} is "
                   f"{ratio:.3g}× the paper's: not the paper's setting")
        verdict = "inconclusive"
    if probe_why and privacy_ok:
        # the runs must be the stated algorithm (the kernel's noise and its step at the stated learning
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
    finding = None
    if verdict == "violated" and not privacy_ok:
        d1, d2 = kd.ime_sensitivities(S51["clip"], 1)
        paper_gap = _s51_split_gap((math.sqrt(2.0) * S51["sigma"] * d1, math.sqrt(2.0) * S51["sigma"] * d2))
        finding = Finding(
            region=Region(explored=1, failing=1, text=(
                f"IME's noise stds {ime_stds[0]:.4g}, {ime_stds[1]:.4g} from theory.ime_noise_stds at σ = "
                f"{S51['sigma']:g}, B = 1, C = {S51['clip']:g}: Σ(sensitivity/std)² is {privacy_gap:.3g} (relative) "
                "off post-processing's 1/σ²")),
            at_paper_setting=PaperSetting(where=S51_WHERE, measure="relative gap of Σ(sensitivity/std)² from 1/σ²",
                                          size=privacy_gap, fails=True),
            repair=Repair(
                statement="IME's stds √2σ·Δ₁ on ḡ and √2σ·Δ₂ on ḡ⊙ḡ (§3.2's equal split) put it at post-processing's "
                          "privacy",
                verdict="holds" if paper_gap <= 16 * EPS else "violated",
                evidence=f"relative gap {paper_gap:.3g} (16 rounding units: {16 * EPS:.3g})", source="paper"))
    elif verdict == "violated":
        finding = _s51_ordering_finding(key, seed, trials, pp_excess)
    cis = [mean_ci(best[m][1]) for m in methods]
    names = ["non-private", "IME for free", "IME", "post-processing"]
    fig = Figure("section5_1_ime_for_free", "dp_adam_design §5.1: where 'IME for free' sits", [
        Panel("mean test loss (95% CI), best learning rate per method", "method", "test loss", [
            Series("this reconstruction", list(range(4)), [c.estimate for c in cis], [c.lo for c in cis],
                   [c.hi for c in cis], style="points"),
            Series("paper", list(range(4)), [S51_PAPER[k] for k in methods], style="points")], categories=names)])
    summary = (f"{verdict}: IME for free below IME in test loss {d_pair.verdict} (paired, {trials} trials), "
               f"non-private below IME for free {d_np.verdict}; measured order {' < '.join(order)}"
               + ("; IME's noise is not at post-processing's privacy" if not privacy_ok else
                  "; the tests' verdict is set aside (setting or kernel)" if why_not else ""))
    points = [{"method": "ground truth", "test loss": gt, "paper": S51_PAPER["ground_truth"]}]
    points += [{"method": m, "test loss": best[m][0], "paper": S51_PAPER[m], "lr": best[m][2], "trials": trials}
               for m in methods]
    points += decide.decision_points(decisions)
    points.append({"setting": "§5.1", "σ": S51["sigma"], "IME std ḡ": ime_stds[0], "IME std ḡ⊙ḡ": ime_stds[1],
                   "privacy relative gap": privacy_gap, "post-processing excess": pp_excess,
                   "excess / paper's": ratio})
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


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
    late, equiv = {}, []  # equiv: the simulation-vs-exact estimates, per scale
    n_co = d * trials
    for sc, r in zip(("powerlaw", "uniform"), res):
        nf = r["neg_frac"]  # (trials, rounds)
        # exact per-round fraction: average of P(v̂<0) over coordinates (quantile subsample of |ḡ_j|)
        gb = np.abs(r["gbar"]).ravel()
        qs = np.quantile(gb, (np.arange(n_exact) + 0.5) / n_exact)
        exact = [float(np.mean([td.negative_probability(q, s, beta2, c + 1) for q in qs])) for c in checkpoints]
        sims = [float(nf[:, c].mean()) for c in checkpoints]
        se = math.sqrt(sum(max(e * (1 - e), 1.0 / n_co**2) / n_co for e in exact)) / len(exact)
        equiv.append(decide.Estimate(float(np.mean(np.subtract(sims, exact))), se, math.inf))
        decisions.append(decide.equivalent(
            equiv[-1],
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
    finding = None
    if verdict == "violated":
        finding = decided_finding(decisions, [
            (f"premise: aligned records' exact P(v̂<0) at d* = {at_star:.3g} in eq. (2)'s band, at d = d*/20 "
             f"{at_d:.2g} ≤ {RARE:g}", bool(premise_ok))],
            what="Fig. 4's tests (simulation vs exact per scale, 'substantial', heavy-tailed above uniform) and its "
            "exact premise",
            paper_where=f"Fig. 4's own run is not reproduced: the check runs a stylised synthetic setting (B = {B}, "
            f"σ = {sigma:g}, β₂ = {beta2:g}, d = d*/20 = {d}), so the size at the paper's setting is not computed",
            no_repair_reason="an experimental statement: the run decides it as read at the stylised setting; no "
                             "corrected statement of the figure follows from it")
    summary = (f"{verdict}: at d = d*/20 the heavy-tailed late-round negative fraction is {ph[0]:.3g} vs uniform "
               f"{pu[0]:.3g} (substantial: {decisions[2].verdict}, above uniform: {decisions[3].verdict}); simulation "
               f"vs exact law: {decisions[0].verdict}, {decisions[1].verdict}; exact premise "
               + ("holds" if premise_ok else "FAILS"))
    points = [{"scales": sc, "late-round negative fraction": late[sc][0], "se": late[sc][1],
               "95% lower bound": late[sc][0] - 1.645 * late[sc][1], "‖ḡ‖/C": figures[f"gbar_norm_over_C_{sc}"]}
              for sc in ("powerlaw", "uniform")]
    points += decide.decision_points(decisions)
    for row, est in zip(points[2:], equiv):  # the other end of the two one-sided tests' interval
        row["holds bound, lower"] = est.lower(1 - decide.HOLDS_LEVEL)
    points.append({"premise": "aligned records, exact", "P(v̂<0) at d*": at_star, "band lo": AT_THRESHOLD_BAND[0],
                   "band hi": AT_THRESHOLD_BAND[1], "P(v̂<0) at d": at_d, "at most": RARE, "holds": bool(premise_ok)})
    points.append({"setting": "stylised", "d": d, "d*": dstar, "B": B, "σ": sigma, "β₂": beta2})
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


# the stepsize mutant moves only θ; this claim measures the moment estimates of a fixed gradient stream
declare_stepsize_equivalent("dp_adam_design.figure4")
