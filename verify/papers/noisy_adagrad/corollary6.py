"""Claims of ``noisy_adagrad``: §4.1, Corollary 6 — private noisy AdaGrad at T = (εn)² (App. C.7).

- Corollary 6: excess risk against √(k log(1/δ))/(εn), flat in p, with its privacy half (Lemma 5's sensitivity
  through the exact μ of the audits) and its horizon decided exactly (``noisy_adagrad.corollary6``);
- Corollary 6's dependence on the rank k: the main text against App. C.7 (``noisy_adagrad.corollary6.k``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import sympy as sp

from kernels import noisy_adagrad as kn
from theory import noisy_adagrad as tn
from theory import numeric
from verify import decide
from verify.audit import AUDIT_DELTA
from verify.findings import Finding, PaperSetting, Region, Repair, parts_finding
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.papers.noisy_adagrad._common import _fmt_ci, _kernel_probe, _sweep, half_budget_multiplier
from verify.papers.noisy_adagrad.audits import NA_MU_RTOL, na_adagrad_release_direction
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.stats import weighted_loglog_slope

# ======================================================================================
# Corollary 6: private noisy AdaGrad at T = (εn)², excess risk vs √(k log(1/δ))/(εn), flat in p
# ======================================================================================
COR6 = {"quick": dict(epsilons=(0.5, 1.0, 2.0), n=50, ps=(10, 50, 200), p_rate=20, eps_flat=1.0, k=3, trials=6),
        "full": dict(epsilons=(0.5, 1.0, 2.0, 4.0, 8.0), n=50, ps=(10, 25, 50, 100, 200), p_rate=50, eps_flat=2.0,
                     k=3, trials=16)}
COR6_DELTA = 1e-5
#: equivalence margin on the log-log slopes of excess/rate along εn and along p (the decide default)
COR6_SLOPE_MARGIN = decide.SLOPE_MARGIN


def _cor6_calibration(prob, n: int, epsilon: float, precond_noise: bool) -> tuple:
    """(T, η, σ_b, σ_B per step) of one Corollary 6 run: T = corollary6_T at α = 0, half the (ε, δ) budget each."""
    T = int(round(float(tn.corollary6_T().subs({tn.epsilon: epsilon, tn.n: n, tn.alpha: 0}))))
    z = half_budget_multiplier(float(epsilon), COR6_DELTA) * math.sqrt(T)
    Lg = prob.lipschitz
    sigma_b = z * Lg / n  # sensitivity L/n of the average gradient
    t = np.arange(1, T + 1, dtype=float)
    rig = numeric(tn.lemma5_rigorous())(L=Lg, t=t, n=n)  # Frobenius sensitivity of G_t
    sigma_B = z * rig / math.sqrt(2.0) if precond_noise else np.zeros(T)  # GOE multiplier σ_B√2/Δ = z
    eta_ = float(tn.theorem3_1_eta().subs(tn.C, 2.0))
    return T, eta_, sigma_b, sigma_B


def _cor6_task(n: int, p: int, k: int, epsilon: float, trials: int, precond_noise: bool, seed: int) -> dict:
    prob = kn.low_rank_glm(n=n, p=p, k=k, loss="absolute", w_norm=0.8, seed=seed)
    T, eta_, sigma_b, sigma_B = _cor6_calibration(prob, n, epsilon, precond_noise)
    Lg = prob.lipschitz
    C_ = 2.0
    out = kn.run_noisy_adagrad(prob, T, eta_, 1.0, sigma_b=sigma_b, sigma_B=sigma_B, trials=trials,
                               seed=child_seed(seed, "noisy_adagrad.corollary6", "runs", int(1000 * epsilon)))
    noise = np.sum(out["sigma_b_used"] ** 2 * out["tr_ginv"], axis=1)
    f = numeric(tn.theorem3_1_bound())
    bound = np.array([f(C=C_, L=Lg, T=T, eta=eta_, gamma=0.0, noise_sum=float(ns), trG=float(tg))
                      for ns, tg in zip(noise, out["tr_g"][:, -1])])
    return {"excess": out["loss_avg"], "T": T, "sigma_b": sigma_b, "sigma_B_max": float(np.max(sigma_B)),
            "bound25": bound, "indefinite_frac": (out["indefinite"] > 0).mean(axis=1),
            "loss0": prob.loss_value(np.zeros(p))}


#: lemma5_rigorous with every exponent ¾ or 5/4 calibrates σ_B(t) = z√T·Δ_t/√2 from a wrong
#: sensitivity; at one (ε, T) of the quick sweep (n = 50) the audits' worst-case pair then attains an exact μ above
#: the accountant's (cor6_privacy_decision): the mechanism the mutated statement calls (ε, δ)-DP is not, whatever the
#: runs give (tests/papers/noisy_adagrad/test_corollary6.py evaluates it under verify.mutants' own mutation).
COR6_LEMMA5_POW_COUNTEREXAMPLES = {"pow0.75": (2.0, 10**4), "pow1.25": (0.5, 625)}  # (ε, T = (εn)²) at n = 50
for _m, (_e, _T) in COR6_LEMMA5_POW_COUNTEREXAMPLES.items():
    declare_equivalent("noisy_adagrad.corollary6", f"lemma5_rigorous:{_m}",
                       "the mutated statement is still false: with Δ_t from the mutated lemma5_rigorous the calibrated "
                       "noisy AdaGrad is not (ε, δ)-DP — at n = 50, ε = " + f"{_e:g}, T = {_T}" + " the audits' "
                       "worst-case pair attains an exact μ above the accountant's (cor6_privacy_decision: μ ratio "
                       f"{'1.032' if _m == 'pow0.75' else '1.199'} > 1), whatever the runs give")


@claim(
    "noisy_adagrad.corollary6",
    kind="rate",
    statement="""Corollary 6: with gradients in a rank-k span, ‖∇_t‖ = O(t^(−α)), γ = O(1/(εn)) and
    T = (εn)^{2/(1+2α)}, the (ε, δ)-DP noisy AdaGrad has excess risk O(√(k log(1/δ))/(εn)), independent of p.""",
    theory=(tn.corollary6_T, tn.corollary6_rate, tn.theorem3_1_bound, tn.lemma5_rigorous),
    notes="α = 0 (plain ERM; ‖∇_t‖ ≤ L always), so T = (εn)²; εn swept through ε at fixed n = 50 (the same data). "
    "low_rank_glm absolute loss (L* = 0), exact oracle (γ = 0), δ = 1e-5, ball of radius 1 (C = 2), η = C√(3/8). "
    "Privacy by the accountant, half the budget each: σ_b = z√T·L/n and σ_B(t) = z√T·Δ_t/√2 with Δ_t = √2·L√t/n "
    "(Lemma 5's rate with the rigorous constant; GOE multiplier σ_B√2/Δ_t). Decisions (verify.decide.rate, margin "
    "±0.1, tests = 2): the log-log slope of excess/(√(k log(1/δ))/(εn)) per trial along εn, and of excess along p at "
    "fixed εn. Window along εn: every point — since λ_max(G_t) ≤ L√t and σ_B(t) = z₀√T·L√t/n, the preconditioner's "
    "noise-to-signal ratio σ_B(t)/λ_max(G_t) is at least z₀ε (≈ 7–9) at every t and n: H_t is noise-dominated at "
    "every scale, and no larger εn is more asymptotic (this replaces an earlier 'pre-asymptotic' reading). A violation "
    "needs a decade of εn (full budget: εn = 25–400); the quick sweep (25–100) can only be inconclusive or hold. Also "
    "run with σ_B = 0 (what the proof accounts for), reported. goe_noise_multiplier is no longer declared: σ_B = "
    "z√T·Δ_t/√2 is written out in the task (the audits of Algorithm 1 evaluate that form). At quick the εn sweep "
    "spans less than the decade a violation needs and the verdict is inconclusive, so its mutants survive there by "
    "construction; they are measured at full. The privacy half is decided exactly (no runs, cor6_privacy_decision): "
    "at each (ε, T) of the εn sweep, the worst-case pair of the noisy AdaGrad audits (n = 50, L = 1) may not attain a "
    "μ above the accountant's under the task's calibration. The horizon is decided exactly too (SymPy, no runs, "
    "cor6_horizon_decision): at T = corollary6_T, C.7's route for isotropic rank-k gradients (theorem3_1_bound at its "
    "best η, the traces of corollary6_proof_isotropic) over corollary6_rate must stay bounded as εn → ∞ (α = 0 and "
    "1/4; an upper bound, so a bounded limit suffices); a horizon or an eq. (25) with exponents ¾, or a rate with "
    "exponents 5/4, makes it unbounded (violated). Kernel probe (fixed in advance): 20 steps of the Numba kernel at "
    "the first εn (p = p_rate, calibrated σ_b and σ_B) against its NumPy twin with the same noise must agree to 1e-6 "
    "(relative loss); otherwise the two run decisions are void (inconclusive), the exact ones stand, and a check "
    "left undecided gives no verdict (decide.after_probe).",
    tests=2,
)
def corollary6(budget: str, seed: int) -> Outcome:
    g = by_budget(budget, COR6["quick"], COR6["full"])
    n = g["n"]
    tasks = [dict(n=n, p=g["p_rate"], k=g["k"], epsilon=float(e), trials=g["trials"], precond_noise=pn, seed=seed)
             for pn in (True, False) for e in g["epsilons"]]
    tasks += [dict(n=n, p=int(p), k=g["k"], epsilon=g["eps_flat"], trials=g["trials"], precond_noise=True, seed=seed)
              for p in g["ps"]]
    outs = _sweep(_cor6_task, tasks, "noisy_adagrad.corollary6 runs")
    m = len(g["epsilons"])
    ens = np.array(g["epsilons"], float) * n

    def series(block, key="excess"):
        mm = np.array([np.mean(o[key]) for o in block])
        se = np.array([max(np.std(o[key], ddof=1) / math.sqrt(len(o[key])), 1e-12) for o in block])
        return mm, se

    full_m, full_se = series(outs[:m])
    grad_m, grad_se = series(outs[m:2 * m])
    flat_m, flat_se = series(outs[2 * m:])
    b25 = np.array([np.mean(o["bound25"]) for o in outs[:m]])
    trivial = 2.0  # L·C: L(θ) − L* ≤ L‖θ − θ*‖ ≤ L·C inside the ball
    fit_full = weighted_loglog_slope(ens, full_m, full_se)  # reported
    fit_grad = weighted_loglog_slope(ens, grad_m, grad_se)  # reported
    rate = np.array([float(numeric(tn.corollary6_rate())(k=g["k"], delta=COR6_DELTA, epsilon=float(e), n=n))
                     for e in g["epsilons"]])
    rate_flat = float(numeric(tn.corollary6_rate())(k=g["k"], delta=COR6_DELTA, epsilon=float(g["eps_flat"]), n=n))
    # the noise-to-signal ratio of the preconditioner: λ_max(G_t) ≤ √(Σ‖∇_s‖²) ≤ L√t and σ_B(t) = z₀√T·L√t/n, so
    # σ_B(t)/λ_max(G_t) ≥ z₀√T/n = z₀ε at every t and every n (T = (εn)²): exact, no run needed
    nsr = np.array([half_budget_multiplier(float(e), COR6_DELTA) * float(e) for e in g["epsilons"]])
    crit = (f"σ_B(t)/λ_max(G_t) ≥ z₀ε ∈ [{nsr.min():.3g}, {nsr.max():.3g}] at every t and n: H_t is "
            "noise-dominated at every scale, so no larger εn is closer to a signal-dominated regime")
    d_rate = decide.rate(ens, [np.asarray(o["excess"], float) / r for o, r in zip(outs[:m], rate)], axis="εn",
                         asymptotic=[True] * m, criterion=crit, margin=COR6_SLOPE_MARGIN)
    d_flat = decide.rate(np.array(g["ps"], float), [np.asarray(o["excess"], float) / rate_flat for o in outs[2 * m:]],
                         axis="p", asymptotic=[True] * len(g["ps"]), criterion="every p: the rate has no p in it",
                         margin=COR6_SLOPE_MARGIN)
    d_priv = cor6_privacy_decision(n, [int(o["T"]) for o in outs[:m]], g["epsilons"])
    d_horizon = cor6_horizon_decision(g["k"], COR6_DELTA)
    # the runs decide only if the kernel runs Algorithm 1 with the declared η, σ_b, σ_B (probe fixed in
    # advance: the first εn of the sweep, p = p_rate, σ_B calibrated); otherwise the two run decisions say nothing
    # and are replaced by inconclusive, the exact ones (privacy, horizon) stand, and a check left undecided gives
    # no verdict (decide.after_probe raises MechanismMismatch)
    pprob = kn.low_rank_glm(n=n, p=g["p_rate"], k=g["k"], loss="absolute", w_norm=0.8, seed=seed)
    _, peta, psb, psB = _cor6_calibration(pprob, n, float(g["epsilons"][0]), True)
    probe = _kernel_probe(pprob, peta, 1.0, psb, psB, seed=seed)
    if not probe.ok:
        d_rate, d_flat = (dataclasses.replace(d, verdict=decide.Verdict.INCONCLUSIVE,
                                              reason=f"{d.reason} — not used: {probe.text}")
                          for d in (d_rate, d_flat))
    verdict = str(decide.combine([d_rate, d_flat, d_priv, d_horizon]))
    fig = Figure("corollary6", "noisy_adagrad Corollary 6: private noisy AdaGrad at T = (εn)²", [
        Panel(f"p = {g['p_rate']}, k = {g['k']}, n = {n}, δ = {COR6_DELTA:g}", "εn", "E L(θ_priv) − L*",
              [Series("σ_B calibrated (Lemma 5)", ens, full_m, full_m - 1.96 * full_se, full_m + 1.96 * full_se,
                      style="points"),
               Series("σ_B = 0", ens, grad_m, grad_m - 1.96 * grad_se, grad_m + 1.96 * grad_se, style="points"),
               Series("√(k log(1/δ))/(εn)", ens, rate, style="dashed"),
               Series("eq. (25) bound of the same runs", ens, b25, style="dashed"),
               Series("trivial bound L·C", ens, np.full(m, trivial), style="dashed")], xscale="log", yscale="log"),
        Panel(f"fixed k = {g['k']}, εn = {g['eps_flat'] * n:g}", "p", "E L(θ_priv) − L*",
              [Series("σ_B calibrated", g["ps"], flat_m, flat_m - 1.96 * flat_se, flat_m + 1.96 * flat_se,
                      style="points")], xscale="log", yscale="log")])
    evidence = (f"εn: {d_rate.phrase()}; p: {d_flat.phrase()}; privacy: {d_priv.reason}; horizon: "
                f"{d_horizon.reason}; diagnosis: {crit} "
                f"(z₀ the one-release multiplier of "
                f"(ε/2, δ/2)); excess risk {full_m[0]:.3g} → {full_m[-1]:.3g} over εn ∈ [{ens[0]:g}, {ens[-1]:g}] "
                "(loss at "
                f"θ = 0: {float(outs[0]['loss0']):.3g}; slope {_fmt_ci(fit_full.slope)} against the claimed ≤ −1; "
                f"indefinite H_t in {float(np.mean(outs[m - 1]['indefinite_frac'])):.0%} of the steps at the largest "
                f"εn); with σ_B = 0 slope {_fmt_ci(fit_grad.slope)}; eq.-(25) bound of the runs {b25.min():.3g}–"
                f"{b25.max():.3g} (trivial L·C = {trivial:g}); {probe.text}")
    points = decide.decision_points([d_rate, d_flat, d_priv, d_horizon])
    points[2]["detail"] = d_priv.reason
    points[3]["detail"] = d_horizon.reason
    points = [dict(part=part, **p) for part, p in zip(("εn rate (decides)", "p flatness (decides)",
                                                      "privacy (decides)", "horizon (decides)"), points)]
    points += [{"part": "εn sweep, σ_B calibrated", "εn": float(en), "mean excess risk": float(a),
                "mean excess risk, σ_B = 0": float(b), "rate": float(r), "eq. (25) bound": float(bb),
                "trivial bound L·C": trivial, "z₀ε": float(z), "loss at θ = 0": float(o["loss0"]),
                "indefinite steps": float(np.mean(o["indefinite_frac"]))}
               for en, a, b, r, bb, z, o in zip(ens, full_m, grad_m, rate, b25, nsr, outs[:m])]
    points += [{"part": f"weighted log-log slope in εn, {what} (reported)", "slope": f.slope.estimate,
                "slope lo": f.slope.lo, "slope hi": f.slope.hi, "claimed slope": -1.0}
               for what, f in (("σ_B calibrated", fit_full), ("σ_B = 0", fit_grad))]
    points += [{"part": "p sweep, σ_B calibrated", "p": int(p), "εn": float(g["eps_flat"] * n),
                "mean excess risk": float(a)} for p, a in zip(g["ps"], flat_m)]
    points += [{"part": "kernel probe", "relative loss difference": probe.rel_diff, "detail": probe.text}]
    verdict, evidence = decide.after_probe("" if probe.ok else probe.text, "noisy_adagrad.corollary6", verdict,
                                           evidence, violation_from_runs=False)  # run decisions set aside above
    summary = (f"{verdict}: " + ("" if probe.ok else f"the kernel probe failed ({probe.text}); ")
               + f"excess risk/rate along εn {d_rate.verdict}"
               + (f" (εn spans {d_rate.details.get('decades', float('nan')):.2g} < 1 decade)"
                  if d_rate.verdict == decide.Verdict.INCONCLUSIVE and probe.ok else "")
               + f", flat in p {d_flat.verdict}, privacy half {d_priv.verdict} and horizon {d_horizon.verdict} "
               "(both exact).")
    figures = {"kernel_probe_rel_diff": probe.rel_diff, "slope_eps_n": fit_full.slope.estimate,
               "slope_eps_n_lo": fit_full.slope.lo,
               "slope_eps_n_hi": fit_full.slope.hi, "slope_eps_n_no_precond_noise": fit_grad.slope.estimate,
               "ratio_slope_eps_n": d_rate.estimate, "ratio_slope_p": d_flat.estimate,
               "min_noise_to_signal_z0_eps": float(nsr.min()), "max_noise_to_signal_z0_eps": float(nsr.max()),
               "min_eq25_bound": float(b25.min()), "trivial_bound": trivial,
               "privacy_max_canary_mu_over_accountant_mu": d_priv.estimate,
               "horizon_route_over_rate_unbounded": d_horizon.estimate}
    for e, a, b in zip(g["epsilons"], full_m, grad_m):
        figures[f"excess_eps{e:g}"] = float(a)
        figures[f"excess_no_precond_noise_eps{e:g}"] = float(b)
    counter = None
    if verdict == "violated" and d_priv.verdict == decide.Verdict.VIOLATED:
        counter = {"privacy": d_priv.reason, "canary_mu_over_accountant_mu": d_priv.estimate, "n": n,
                   "epsilons": list(g["epsilons"])}
    elif verdict == "violated" and d_horizon.verdict == decide.Verdict.VIOLATED:
        counter = {"horizon": d_horizon.reason, "k": g["k"], "delta": COR6_DELTA}
    elif verdict == "violated":
        counter = ({"eps_n": ens.tolist(), "excess": full_m.tolist(), "rate": rate.tolist(),
                    "ratio_slope_lower_family": d_rate.violated_bound, "p": g["p_rate"], "k": g["k"], "n": n}
                   if d_rate.verdict == decide.Verdict.VIOLATED else
                   {"p": list(g["ps"]), "excess": flat_m.tolist(), "ratio_slope_lower_family": d_flat.violated_bound})
    finding = None
    if verdict == "violated":
        steps = [int(o["T"]) for o in outs[:m]]
        finding = cor6_finding(
            n, steps, g["epsilons"], g["k"], d_rate, d_flat,
            privacy_ratios=(cor6_privacy_ratios(n, steps, g["epsilons"])
                            if d_priv.verdict == decide.Verdict.VIOLATED else None),
            horizon_limits=(cor6_horizon_limits(g["k"], COR6_DELTA)
                            if d_horizon.verdict == decide.Verdict.VIOLATED else None))
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[d_rate, d_flat, d_priv, d_horizon], finding=finding, summary=summary, points=points)


#: why a violated Corollary 6 has no repair decided in the same run
COR6_NO_REPAIR = {
    "privacy": "the privacy half fails only when the calibration's sensitivity Δ_t is below what the audits' pair "
               "attains; the check calibrates with one Δ_t and decides no second calibration in the same run",
    "horizon": "the horizon and rate are the statement's own; the check derives no other T or rate from C.7's route "
               "(noisy_adagrad.corollary6.proof_k decides the route's k-dependence)",
    "runs": "an O(·) rate refuted by growth over a decade of εn (or along p): the check decides no corrected rate "
            "(the σ_B = 0 runs are reported, not decided)",
}


def cor6_finding(n: int, steps: list, epsilons, k: int, d_rate: decide.Decision, d_flat: decide.Decision, *,
                 privacy_ratios: list | None = None, horizon_limits: list | None = None) -> Finding:
    """The finding of a violated Corollary 6: every part the check decided, one point each (the privacy half per
    (ε, T) of the sweep, the horizon per α, the two run decisions), failing where violated; no edge.

    Corollary 6 states no numeric instance (an O(·) in εn, p and k with no constant), so the size at the paper's
    setting is not computed there; the repair is not decided in the same run (:data:`COR6_NO_REPAIR`, by the
    part that failed first: privacy, horizon, runs).

    Parameters
    ----------
    n : int
        Records of the sweep.
    steps : list of int
        T = (εn)² per ε.
    epsilons : sequence of float
        The swept ε.
    k : int
        The rank.
    d_rate, d_flat : verify.decide.Decision
        The run decisions along εn and along p.
    privacy_ratios : list of float or None, optional
        :func:`cor6_privacy_ratios` when the privacy half is violated (None: it held, one holding part).
    horizon_limits : list or None, optional
        :func:`cor6_horizon_limits` when the horizon is violated (None: it held, one holding part).

    Returns
    -------
    verify.findings.Finding
    """
    parts = []
    if privacy_ratios is None:
        parts.append(("the privacy half at every (ε, T)", "holds"))
    else:
        parts += [(f"privacy at ε = {float(e):g}, T = {int(T)}, n = {n}: the pair's μ = {r:.6g} × the accountant's",
                   "violated" if r > 1.0 + NA_MU_RTOL else "holds") for e, T, r in zip(epsilons, steps, privacy_ratios)]
    if horizon_limits is None:
        parts.append(("the horizon at every α", "holds"))
    else:
        parts += [(f"horizon at α = {a}: route/rate → {lm} as εn → ∞", "holds" if lm.is_finite else "violated")
                  for a, lm in zip(COR6_HORIZON_ALPHAS, horizon_limits)]
    parts += [(f"excess/rate along εn ∈ [{float(epsilons[0]) * n:g}, {float(epsilons[-1]) * n:g}]: {d_rate.phrase()}",
               str(d_rate.verdict)),
              (f"excess along p at k = {k}: {d_flat.phrase()}", str(d_flat.verdict))]
    first = ("privacy" if privacy_ratios is not None and any(v == "violated" for lab, v in parts
                                                             if lab.startswith("privacy")) else
             "horizon" if horizon_limits is not None and not all(lm.is_finite for lm in horizon_limits) else "runs")
    return parts_finding(
        parts, what="Corollary 6's parts (privacy per (ε, T), horizon per α, the runs along εn and p)",
        paper_where="Corollary 6 (§4.1, App. C.7) states no numeric instance: an O(·) in εn, p and k with no "
                    "constant, so the failure's size there is not computed",
        no_repair_reason=COR6_NO_REPAIR[first])


#: the decay exponents α at which Corollary 6's horizon is checked against C.7's route (exact, SymPy)
COR6_HORIZON_ALPHAS = (sp.Integer(0), sp.Rational(1, 4))


def _cor6_route(a) -> sp.Expr:
    """C.7's route for isotropic rank-k gradients ‖∇_t‖ = t^(−α) at T = corollary6_T, evaluated through the declared
    eq. (25) (theorem3_1_bound, γ = 0) at the η minimising its unmutated form, √(a/b) (any η gives an upper bound):
    the traces as in theory.noisy_adagrad.corollary6_proof_isotropic, to which it is equal unmutated."""
    T_ = tn.T
    trg = sp.sqrt(tn.k * T_ ** (1 - 2 * a) / (1 - 2 * a))
    sum_pinv = tn.k ** sp.Rational(3, 2) * sp.sqrt(1 - 2 * a) * 2 * T_ ** ((1 + 2 * a) / 2) / (1 + 2 * a)
    noise = tn.sigma_b_calibration() ** 2 * sum_pinv
    a_, b_ = tn.C**2 * trg / (2 * T_), (sp.Rational(4, 3) * trg + noise / 2) / T_
    route = tn.theorem3_1_bound().subs({tn.eta: sp.sqrt(a_ / b_), tn.trG: trg, tn.noise_sum: noise, tn.gamma: 0})
    return route.subs(T_, tn.corollary6_T().subs(tn.alpha, a))


def cor6_horizon_limits(k: int, delta: float, C: float = 2.0, L: float = 1.0) -> list:
    """The limits as εn → ∞ of C.7's route over Corollary 6's rate at T = corollary6_T, one per α of
    :data:`COR6_HORIZON_ALPHAS` (exact, SymPy; see :func:`cor6_horizon_decision`).

    Parameters
    ----------
    k : int
        The rank.
    delta : float
        δ (taken as the exact rational of its decimal form).
    C, L : float
        Diameter and gradient bound.

    Returns
    -------
    list of sympy.Expr
        One limit per α (``oo`` where the route outgrows the rate).

    Raises
    ------
    ValueError
        If delta is not in (0, 1).
    """
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1) (got {delta})")
    vals = {tn.k: sp.Integer(k), tn.delta: sp.nsimplify(delta), tn.C: sp.nsimplify(C), tn.L: sp.nsimplify(L)}
    limits = []
    for a in COR6_HORIZON_ALPHAS:
        ratio = (_cor6_route(a) / tn.corollary6_rate()).subs(vals)
        limits.append(sp.limit(ratio.subs(tn.n, 1), tn.epsilon, sp.oo))  # a function of εn only: n = 1, ε = εn
    return limits


def cor6_horizon_decision(k: int, delta: float, C: float = 2.0, L: float = 1.0) -> decide.Decision:
    """Corollary 6's horizon against its proof, exact (SymPy, no runs): at T = corollary6_T, C.7's route for
    isotropic rank-k gradients (theorem3_1_bound, eq. (25), at its best η with the traces of
    theory.noisy_adagrad.corollary6_proof_isotropic) over the rate corollary6_rate must stay bounded as εn → ∞ (the
    statement is an upper bound in εn: O(rate)), for each α of :data:`COR6_HORIZON_ALPHAS`. A horizon too short
    leaves the route's Tr(G_T)/T term above 1/(εn); a rate falling faster than 1/(εn) is outgrown by the route's
    noise term; an eq. (25) with exponents ¾ decays slower than 1/(εn).

    Parameters
    ----------
    k : int
        The rank.
    delta : float
        δ (taken as the exact rational of its decimal form).
    C, L : float
        Diameter and gradient bound (C = 2, L = 1: the runs' ball and scale; both factor out in εn).

    Returns
    -------
    verify.decide.Decision
        Violated when the limit is infinite at some α, holds when it is finite at every α; the estimate is 1 for an
        infinite limit, 0 otherwise.

    Raises
    ------
    ValueError
        If delta is not in (0, 1).
    """
    limits = cor6_horizon_limits(k, delta, C, L)
    bad = [a for a, lm in zip(COR6_HORIZON_ALPHAS, limits) if not lm.is_finite]
    ctrl = decide.Control("C.7's route at Corollary 6's T over the rate as εn → ∞ (exact limit, SymPy)", 0.0,
                          "none (exact)", None, None)
    where = ", ".join(f"α = {a}: {lm}" for a, lm in zip(COR6_HORIZON_ALPHAS, limits))
    if bad:
        return decide.Decision(decide.Verdict.VIOLATED, ctrl, 1.0, 1.0, 1.0,
                               f"route/rate → ∞ as εn → ∞ at T = corollary6_T ({where}): that horizon and rate are "
                               "not what the proof gives (exact)")
    return decide.Decision(decide.Verdict.HOLDS, ctrl, 0.0, 0.0, 0.0,
                           f"route/rate stays bounded as εn → ∞ at T = corollary6_T ({where})")


def cor6_privacy_ratios(n: int, steps: list, epsilons) -> list:
    """At each (ε, T) of Corollary 6's sweep, the exact μ the audits' worst-case pair attains under the task's
    calibration over the accountant's μ (no runs; see :func:`cor6_privacy_decision`).

    Parameters
    ----------
    n : int
        Records.
    steps : list of int
        T per ε.
    epsilons : sequence of float
        The swept ε (δ = COR6_DELTA).

    Returns
    -------
    list of float
        One ratio per ε (above 1: that pair is less private than the accountant says).

    Raises
    ------
    ValueError
        When COR6_DELTA differs from the audits' AUDIT_DELTA (the pair's calibration uses the latter).
    """
    if COR6_DELTA != AUDIT_DELTA:
        raise ValueError("cor6_privacy_decision needs COR6_DELTA == AUDIT_DELTA")
    ratios = []
    for T, e in zip(steps, epsilons):
        w = na_adagrad_release_direction(n, int(T), "zero_out", 1.0, float(e))
        ratios.append(w["mu"] / w["mu_accountant"])
    return ratios


def cor6_privacy_decision(n: int, steps: list, epsilons) -> decide.Decision:
    """The privacy half of Corollary 6, exact (no runs): at each (ε, T) of the sweep, the μ-GDP parameter that the
    worst-case pair of the noisy AdaGrad audits (:func:`na_adagrad_audit_datasets`, zero-out, L = 1; its G_t moves
    by ~1.0 of Lemma 5's rigorous √2·L√t/n) attains under the task's calibration (σ_b = z√T·L/n, σ_B(t) =
    z√T·Δ_t/√2, Δ_t from lemma5_rigorous, z the (ε/2, δ/2) one-release multiplier) may not exceed the accountant's
    √(2T)/(z√T) — violated above 1 + NA_MU_RTOL (a leak for that pair), holds otherwise.

    Parameters
    ----------
    n : int
        Records.
    steps : list of int
        T per ε (the task's T = (εn)²).
    epsilons : sequence of float
        The swept ε (δ = COR6_DELTA).

    Returns
    -------
    verify.decide.Decision
        The estimate is the largest μ ratio over the sweep.

    Raises
    ------
    ValueError
        When COR6_DELTA differs from the audits' AUDIT_DELTA (the pair's calibration uses the latter).
    """
    ratios = cor6_privacy_ratios(n, steps, epsilons)
    i = int(np.argmax(ratios))
    a = float(ratios[i])
    ctrl = decide.Control("the worst-case pair's exact μ under the task's calibration vs the accountant's μ (exact, "
                          "no runs)", 0.0, "none (exact)", NA_MU_RTOL, None)
    where = f"ε = {float(epsilons[i]):g}, T = {int(steps[i])}, n = {n}"
    if a > 1.0 + NA_MU_RTOL:
        return decide.Decision(decide.Verdict.VIOLATED, ctrl, a, a, a,
                               f"the pair attains μ = {a:.6g} × the accountant's at {where} (> 1: not (ε, δ)-DP, "
                               "exact)")
    return decide.Decision(decide.Verdict.HOLDS, ctrl, a, a, a,
                           f"the pair's μ is at most {a:.6g} × the accountant's ({where})")


# --------------------------------------------------------------------------------------
# Corollary 6's dependence on k: main text against App. C.7
# --------------------------------------------------------------------------------------
COR6_K_GRID = tuple(range(1, 11))


def k_dependence(expr: sp.Expr) -> sp.Expr:
    """expr / expr|_{k=1}, simplified: the k-dependence of an O(·) rate (its constant cancels).

    Parameters
    ----------
    expr : sympy.Expr
        A rate in the symbol k of theory.noisy_adagrad.

    Returns
    -------
    sympy.Expr
        The simplified ratio.
    """
    return sp.simplify(expr / expr.subs(tn.k, 1))


def _cor6_rate_without_k_mutant() -> Mutant:
    return Mutant("corollary6_rate:no_k", "theory.noisy_adagrad.corollary6_rate: the main text's √k left out "
                  "(√(log(1/δ))/(εn))", "theory",
                  lambda: substituted("theory.noisy_adagrad.corollary6_rate",
                                      lambda: sp.sqrt(sp.log(1 / tn.delta)) / (tn.epsilon * tn.n)))


for _fn in ("corollary6_rate", "corollary6_appendix_rate"):
    for _m in ("x10", "x0.1"):
        declare_equivalent("noisy_adagrad.corollary6.k", f"{_fn}:{_m}", "the check compares k-dependences "
                           "(rate/rate at k = 1), in which a constant factor cancels")
declare_equivalent("noisy_adagrad.corollary6.k", "corollary6_rate:pow1.25", "the mutated main text, with k^{5/8}, "
                   "still depends on k while the appendix's rate has no k: the texts still disagree")
declare_equivalent("noisy_adagrad.corollary6.k", "corollary6_rate:pow0.75", "the mutated main text, with k^{3/8}, "
                   "still depends on k while the appendix's rate has no k: the texts still disagree")
for _m in ("pow1.25", "pow0.75"):
    declare_equivalent("noisy_adagrad.corollary6.k", f"corollary6_appendix_rate:{_m}", "the appendix's rate has no "
                       "k, so changing its exponents leaves it free of k and the texts still disagree")


@claim(
    "noisy_adagrad.corollary6.k",
    kind="exact",
    statement="""Corollary 6 in the main text: "the excess risk of noisy-subspace A_noisy-AdaGrad is
    O(√(k log(1/δ))/(εn))"; Corollary 6 as restated in Appendix C.7, whose proof it heads: "the excess risk ... is
    O(√(log(1/δ))/(εn))". Read: the two statements give the same dependence on the rank k.""",
    theory=(tn.corollary6_rate, tn.corollary6_appendix_rate),
    mutants=[_cor6_rate_without_k_mutant()],
    notes="Exact (SymPy), no statistical test. Reading: k is a parameter of the O(·), as the main text writes it "
    "(√k inside the bound, the p-free rate being the point of the corollary); with k a hidden constant both are the "
    "same O(1/(εn))·√log(1/δ) and they agree — that reading is reported, not used. Decision: the k-dependence of "
    "each rate, rate(k)/rate(1) simplified in SymPy; violated when they differ as functions of k (the smallest "
    "k ∈ 1..10 where they differ is the counterexample), holds when equal. Also reported: what the proof's own "
    "route gives once k is tracked (theory.noisy_adagrad.corollary6_proof_isotropic: Θ(k), neither √k nor k⁰; see "
    "noisy_adagrad.corollary6.proof_k). Mutant: the main text without √k turns it to holds; the generic constant "
    "mutants cancel in rate(k)/rate(1) and the exponent mutants leave one rate with k and the other without: "
    "declared equivalent.",
)
def corollary6_k(budget: str, seed: int) -> Outcome:
    main, appx = tn.corollary6_rate(), tn.corollary6_appendix_rate()
    dep_main, dep_appx = k_dependence(main), k_dependence(appx)
    ratio = sp.simplify(dep_main / dep_appx)
    differ = [kk for kk in COR6_K_GRID if sp.simplify(ratio.subs(tn.k, kk) - 1) != 0]
    proof = k_dependence(tn.corollary6_proof_isotropic().subs({tn.alpha: 0, tn.C: 1, tn.L: 1}))
    proof_at = {kk: float(proof.subs({tn.k: kk, tn.delta: COR6_DELTA})) for kk in COR6_K_GRID}
    verdict = "violated" if differ else "holds"
    counter = None
    if differ:
        k0 = differ[0]
        counter = dict(k=k0, main_over_appendix=str(ratio.subs(tn.k, k0)), main_k_dependence=str(dep_main),
                       appendix_k_dependence=str(dep_appx))
    evidence = (f"{verdict} (exact): k-dependence main text {dep_main}, App. C.7 {dep_appx}; main/appendix = "
                f"{ratio} ({'differs from 1 first at k = ' + str(differ[0]) if differ else 'identically 1'}); "
                f"the proof's route once k is tracked (isotropic rank-k gradients, α = 0, δ = {COR6_DELTA:g}) "
                f"grows by {proof_at[2]:.3f}× at k = 2 and {proof_at[10]:.3f}× at k = 10 over k = 1 (√k: "
                f"{math.sqrt(2):.3f}, {math.sqrt(10):.3f}; k: 2, 10), i.e. Θ(k): it supports neither text's k")
    if differ:
        summary = (f"violated (exact): the main text's rate depends on k as {dep_main} and Appendix C.7's as "
                   f"{dep_appx}, so they differ from k = {differ[0]} on, while the proof's route grows like k "
                   f"({proof_at[10]:.3f}× at k = 10).")
    else:
        summary = (f"holds (exact): the main text and Appendix C.7 give the same k-dependence ({dep_main}); the "
                   f"proof's route grows {proof_at[10]:.3f}× from k = 1 to 10.")
    points = [{"part": "k-dependence (SymPy)", "main text": str(dep_main), "App. C.7": str(dep_appx),
               "main/appendix": str(ratio)}]
    points += [{"part": "relative to k = 1", "k": kk, "main text rate": float(dep_main.subs(tn.k, kk)),
                "App. C.7 rate": float(dep_appx.subs(tn.k, kk)), "√k": math.sqrt(kk),
                "route with k tracked (isotropic, α = 0)": proof_at[kk], "δ": COR6_DELTA,
                "texts differ": kk in differ} for kk in COR6_K_GRID]
    ks = np.array(COR6_K_GRID, float)
    fig = Figure("corollary6_k", "noisy_adagrad Corollary 6: the dependence on k, main text vs App. C.7", [Panel(
        "rate(k)/rate(1)", "k", "relative excess-risk bound",
        [Series("main text √(k log(1/δ))/(εn)", ks, [float(dep_main.subs(tn.k, kk)) for kk in COR6_K_GRID]),
         Series("App. C.7 √(log(1/δ))/(εn)", ks, [float(dep_appx.subs(tn.k, kk)) for kk in COR6_K_GRID],
                style="dashed"),
         Series("C.7's route with k tracked (isotropic, α = 0)", ks, list(proof_at.values()), style="points")],
        xscale="log", yscale="log")])
    numbers = {"k_first_disagreement": float(differ[0]) if differ else 0.0,
               "main_over_appendix_k2": float(ratio.subs(tn.k, 2)),
               "proof_route_growth_k2": proof_at[2], "proof_route_growth_k10": proof_at[10]}
    finding = None
    if differ:
        kmax = max(COR6_K_GRID)
        # the repair: both texts with the k the proof's route gives (Θ(k)); route(k)/route(1) ≤ k on the grid
        over_k = {kk: proof_at[kk] / kk for kk in COR6_K_GRID}
        rep_ok = all(v <= 1 + 1e-9 for v in over_k.values())
        finding = Finding(
            region=Region(explored=len(COR6_K_GRID), failing=len(differ),
                          text=f"the two texts differ at every rank k ≥ 2 (k = {differ[0]}..{differ[-1]} of "
                          f"k ∈ 1..{kmax}): main/appendix = {ratio}"),
            at_paper_setting=PaperSetting(
                where=f"Corollary 6's setting, gradients in a rank-k subspace (k = {kmax}, the largest of the grid)",
                measure="main-text rate / App. C.7 rate", size=float(ratio.subs(tn.k, kmax)), fails=True),
            repair=Repair(
                statement="both texts with the k-dependence the proof's route gives once k is tracked: "
                          "O(k·√(log(1/δ))/(εn)) (see noisy_adagrad.corollary6.proof_k)",
                verdict="holds" if rep_ok else "violated",
                evidence="the route's bound (isotropic rank-k gradients, α = 0) over its value at k = 1, divided by "
                         "k: " + ", ".join(f"k={kk} {v:.3f}" for kk, v in over_k.items() if kk in (2, 5, kmax))
                         + f" ({'≤ 1 at every k of the grid' if rep_ok else 'above 1 somewhere'})"))
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=points)
