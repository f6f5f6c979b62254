"""Claims of ``noisy_adagrad``: §3, the regret of noisy AdaGrad (Algorithm 1, Theorem 3.1, Corollary 3, Remark 4).

- Theorem 3.1, eq. (25): measured regret against the explicit bound as σ_B grows (``noisy_adagrad.theorem3.1``);
- Corollary 3 (App. C.5): σ_b(t) ∝ ‖∇_t‖ with ‖∇_t‖ ≍ t^(−1/4) (``noisy_adagrad.corollary3.algorithm1``);
- Theorem 3.1's O-form (13) (``noisy_adagrad.theorem3.1.o_form``) and Remark 4 (``noisy_adagrad.remark4``);
- Theorem 3.1's hypothesis on the tracked subspace Ṽ ⊆ span V, the γ term (``noisy_adagrad.theorem3.1.gamma``).
"""

from __future__ import annotations

import contextlib
import math
from functools import lru_cache

import numpy as np
import sympy as sp

from kernels import noisy_adagrad as kn
from theory import noisy_adagrad as tn
from theory import numeric
from verify import decide
from verify.exact import EPS, random_search
from verify.findings import Finding, PaperSetting, Region, Repair, parts_finding
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.papers.noisy_adagrad._common import (
    NA_PROBE_STEPS,
    _fmt_ci,
    _kernel_probe,
    _orthonormal,
    _Probe,
    _sweep,
    expectation_below,
)
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import claim_scope
from verify.stats import loglog_slope, mean_ci, weighted_loglog_slope

# ======================================================================================
# Theorem 3.1 / eq. (25): measured regret against the explicit bound as σ_B grows
# ======================================================================================
THM31 = {"quick": dict(p=20, n=100, k=3, T=2000, trials=8, rhos=(0.0, 0.1, 0.3, 1.0, 10.0, 100.0, 1000.0),
                       gammas=(0.2,), clip_rhos=(0.3, 1.0)),
         "full": dict(p=50, n=200, k=3, T=5000, trials=32, rhos=(0.0, 0.01, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1000.0),
                      gammas=(0.05, 0.2, 0.5), clip_rhos=(0.1, 0.3, 1.0, 10.0, 100.0))}
THM31_RADIUS, THM31_SIGMA_B = 1.0, 0.05


@lru_cache(maxsize=8)
def _thm31_scale(p: int, n: int, k: int, T: int, seed: int) -> float:
    """λ_min⁺(G_T) of the noiseless run (AdaGrad, δ = 0), the unit in which σ_B is swept."""

    prob = kn.low_rank_glm(n=n, p=p, k=k, loss="absolute", w_norm=0.8, seed=seed)
    out = kn.run_noisy_adagrad(prob, T, float(tn.theorem3_1_eta().subs(tn.C, 2 * THM31_RADIUS)), THM31_RADIUS,
                               trials=1, seed=seed)
    return float(out["lam_min"][0, -1])


def _thm31_task(p: int, n: int, k: int, T: int, trials: int, sigma_B: float, gamma: float, seed: int,
                indefinite: str = "abs") -> dict:

    prob = kn.low_rank_glm(n=n, p=p, k=k, loss="absolute", w_norm=0.8, seed=seed)
    Vt = kn.subspace_oracle(prob, "rotated" if gamma > 0 else "exact", gamma=gamma, seed=seed)
    C_ = 2 * THM31_RADIUS
    eta_ = float(tn.theorem3_1_eta().subs(tn.C, C_))
    out = kn.run_noisy_adagrad(prob, T, eta_, THM31_RADIUS, Vt=Vt, sigma_b=THM31_SIGMA_B, sigma_B=sigma_B,
                               options=kn.NoisyAdagradOptions(indefinite=indefinite), trials=trials,
                               seed=child_seed(seed, "noisy_adagrad.theorem3.1", "runs"))
    regret = out["losses"].mean(axis=1)  # L* = 0
    noise = np.sum(out["sigma_b_used"] ** 2 * out["tr_ginv"], axis=1)
    f = numeric(tn.theorem3_1_bound())
    bound = np.array([f(C=C_, L=prob.lipschitz, T=T, eta=eta_, gamma=gamma, noise_sum=float(ns), trG=float(tg))
                      for ns, tg in zip(noise, out["tr_g"][:, -1])])
    return {"regret": regret, "bound": bound, "avg_excess": out["loss_avg"],
            "indefinite_frac": (out["indefinite"] > 0).mean(axis=1), "trG": out["tr_g"][:, -1]}


@contextlib.contextmanager
def _thm31_sigma_b_zero():
    saved = {b: THM31[b]["rhos"] for b in THM31}
    try:
        for b in THM31:
            THM31[b]["rhos"] = (0.0,)
        yield
    finally:
        for b, r in saved.items():
            THM31[b]["rhos"] = r


def _thm31_sigma_b_zero_mutant() -> Mutant:
    return Mutant("theorem3_1:sigma_B_zero", "verify.papers.noisy_adagrad.regret.THM31: the repaired statement — "
                  "eq. (25) for σ_B = 0, the preconditioner noise the proof accounts for, instead of 'whatever σ_B' "
                  "(the check's σ_B grid cut to ρ = 0)", "theory", _thm31_sigma_b_zero)


#: eq. (25) is stated for whatever learning rate η the algorithm runs with ("Letting η be the
#: learning rate ... we get (25)"); theorem3_1_eta is the check's choice of the instance (the minimiser of (25)'s
#: noiseless part, the η Theorem 1.1 picks), used alike in the runs, in the σ_B unit and in the bound. A mutated η,
#: still a finite η > 0 at C = 2 (tests/papers/noisy_adagrad/test_regret.py), runs another instance of the
#: same universally quantified statement, so it cannot change that statement's truth.
for _m in ("x10", "x0.1", "pow1.25", "pow0.75"):
    declare_equivalent("noisy_adagrad.theorem3.1", f"theorem3_1_eta:{_m}",
                       "eq. (25) is stated for whatever learning rate η > 0 the algorithm runs with ('Letting η be "
                       "the learning rate'); theorem3_1_eta is only the check's choice of η (used alike in the runs "
                       "and the bound), and the mutated η is still a finite η > 0, so it tests another instance of "
                       "the same statement and cannot change its truth")


#: the exact counterexample to eq. (25) with every exponent 5/4 (theorem3_1_bound:pow1.25):
#: f(θ) = |θ| on [−1, 1] (p = k = 1, Ṽ = V, L = 1, C = 2), σ_b = σ_B = 0, the subgradient +1 at θ = 0, θ_1 = 0 and
#: the check's η = C√(3/8). Every |∇_t| = 1, so Tr(G_T) = √T; after the first step (projected onto −1) no step is
#: projected (η/√t ≤ η/√2 < 1), so |θ_t| + |θ_{t+1}| ≥ |θ_{t+1} − θ_t| = η/√t for t ≥ 2 and the average regret is at
#: least η(√T − √2)/T (exact). tests/papers/noisy_adagrad/test_regret.py evaluates the mutated bound there.
THM31_POW125_COUNTEREXAMPLE = dict(T=10**6, C=2, L=1, gamma=0, noise_sum=0)
declare_equivalent("noisy_adagrad.theorem3.1", "theorem3_1_bound:pow1.25",
                   "the mutated statement is still false: for f(θ) = |θ| on [−1, 1] (p = k = 1, Ṽ = V, L = 1, C = 2), "
                   "σ_b = σ_B = 0, subgradient +1 at 0, θ_1 = 0 and η = C√(3/8), every |∇_t| = 1 (Tr G_T = √T) and no "
                   "step after the first is projected, so |θ_t| + |θ_{t+1}| ≥ η/√t and the average regret is at least "
                   "η(√T − √2)/T (exact); at T = 10⁶ that is 1.22e-3, above the mutated bound T^(−5/8)·(C^(5/2)/"
                   "(2η^(5/4)) + 4η^(5/4)/3) = 6.96e-4 (eq. (25) itself: 3.27e-3)")


@claim(
    "noisy_adagrad.theorem3.1",
    kind="expectation",
    statement="""Theorem 3.1 with the explicit constants of eq. (25): noisy AdaGrad's expected average regret is at
    most (C²/(2ηT) + 8η/(6T))·E Tr(G_T) + (η/(2T))·E Σ_t σ_b(t)² Tr(G_t⁻¹) + γ (C·L·γ by eq. (24)), whatever the
    preconditioner noise σ_B.""",
    theory=(tn.theorem3_1_bound, tn.theorem3_1_eta),
    weaker_if={"theory.noisy_adagrad.theorem3_1_bound": "larger"},  # an upper bound on the regret
    mutants=[_thm31_sigma_b_zero_mutant()],
    notes="low_rank_glm (absolute loss, clean labels, L* = 0, θ* inside the unit ball), ball of radius 1 (C = 2), "
    "η = C√(3/8), σ_b = 0.05 constant, exact oracle; σ_B = ρ·λ_min⁺(G_T) of the noiseless run, ρ from 0 upward; "
    "indefinite H_t handled by |eigenvalues| (kernel default; the 'clip' convention is run at some ρ and reported). "
    "Per trial the bound uses that trial's Tr(G_T) and "
    "Σσ_b²Tr(G_t⁺); verdict per ρ by verify.decide.mean_at_most on the paired per-trial differences regret − bound "
    "(E[regret − bound] ≤ 0; one-sample t, family-corrected for violated; tests = 9, one per ρ of the full grid). "
    "The explicit constants are what is tested here; the O-form (13) is noisy_adagrad.theorem3.1.o_form. γ part "
    "(reported, "
    "not in the verdict): rotated oracle at principal-angle distance γ, σ_B = 0 — that oracle breaks the theorem's "
    "side assumption ṼṼᵀ(I − VVᵀ) = 0, which together with γ < 1 would force Ṽ = V. Declared repair mutant: the "
    "statement for σ_B = 0 only (what the proof accounts for), which must hold. Kernel probe (fixed in advance): "
    "20 steps of the Numba kernel at ρ = 1 against its NumPy twin with the same noise and the declared η, σ_b, "
    "σ_B must agree to 1e-6 (relative loss); otherwise the runs are not Algorithm 1 as stated and the verdict is "
    "inconclusive. (25) is stated for any learning rate η: η = C√(3/8) (theorem3_1_eta) is the check's instance, "
    "so its mutants are declared equivalent.",
    tests=9,
)
def theorem3_1(budget: str, seed: int) -> Outcome:
    g = by_budget(budget, THM31["quick"], THM31["full"])
    scale = _thm31_scale(g["p"], g["n"], g["k"], g["T"], seed)
    base = dict(p=g["p"], n=g["n"], k=g["k"], T=g["T"], trials=g["trials"], seed=seed)
    tasks = [dict(base, sigma_B=float(r * scale), gamma=0.0) for r in g["rhos"]]
    tasks += [dict(base, sigma_B=0.0, gamma=float(gm)) for gm in g["gammas"]]
    tasks += [dict(base, sigma_B=float(r * scale), gamma=0.0, indefinite="clip") for r in g["clip_rhos"]]
    outs = _sweep(_thm31_task, tasks, "noisy_adagrad.theorem3.1 runs")
    nr, ng = len(g["rhos"]), len(g["gammas"])
    clip_outs = outs[nr + ng:]
    outs = outs[:nr + ng]
    clip_v = [expectation_below(o["regret"], o["bound"])[0] for o in clip_outs]  # reported only
    checks = [expectation_below(o["regret"], o["bound"]) for o in outs]  # the γ part's report
    # the decision: E[regret − bound] ≤ 0 per ρ, paired within each trial (one-sample t on the differences)
    decs = [decide.mean_at_most(np.asarray(o["regret"]) - np.asarray(o["bound"]), 0.0,
                                what=f"E[regret − eq.(25) bound] at σ_B = {r:g}·λ_min⁺(G_T)")
            for r, o in zip(g["rhos"], outs[:nr])]
    verdicts = [str(d.verdict) for d in decs]
    verdict = str(decide.combine(decs))
    # the runs decide only if the kernel runs Algorithm 1 with the declared η and noise (probe at ρ = 1)
    probe = _kernel_probe(kn.low_rank_glm(n=g["n"], p=g["p"], k=g["k"], loss="absolute", w_norm=0.8, seed=seed),
                          float(tn.theorem3_1_eta().subs(tn.C, 2 * THM31_RADIUS)), THM31_RADIUS, THM31_SIGMA_B,
                          scale, seed=seed)
    if not probe.ok:
        verdict = str(decide.Verdict.INCONCLUSIVE)
    first_bad = next((i for i, v in enumerate(verdicts) if v == "violated"), None) if probe.ok else None
    reg = [mean_ci(o["regret"]) for o in outs]
    bnd = [float(np.mean(o["bound"])) for o in outs]
    rhos_plot = np.array([max(r, 1e-3) for r in g["rhos"]])
    fig = Figure("theorem3_1", "noisy_adagrad Theorem 3.1 / eq. (25) vs σ_B", [
        Panel(f"p = {g['p']}, k = {g['k']}, T = {g['T']}, σ_b = {THM31_SIGMA_B} (ρ = 0 plotted at 1e-3)",
              "σ_B / λ_min⁺(G_T)", "average regret",
              [Series("measured (95% CI)", rhos_plot, [c.estimate for c in reg[:nr]], [c.lo for c in reg[:nr]],
                      [c.hi for c in reg[:nr]], style="points"),
               Series("eq. (25) bound (mean over trials)", rhos_plot, bnd[:nr], style="dashed"),
               Series("measured, negative eigenvalues clipped", list(g["clip_rhos"]),
                      [float(np.mean(o["regret"])) for o in clip_outs], style="points")],
              xscale="log", yscale="log"),
        Panel("subspace mismatch γ (σ_B = 0; rotated oracle)", "γ", "average regret",
              [Series("measured", list(g["gammas"]), [c.estimate for c in reg[nr:]], [c.lo for c in reg[nr:]],
                      [c.hi for c in reg[nr:]], style="points"),
               Series("eq. (25) with C·L·γ", list(g["gammas"]), bnd[nr:], style="dashed")])])
    gam_v = [c[0] for c in checks[nr:]]
    decisive = decs[first_bad] if first_bad is not None else next(
        (d for d in decs if d.verdict != decide.Verdict.HOLDS), decs[-1])
    worst_factor = max(reg[i].estimate / bnd[i] for i in range(nr))
    i_dec = decs.index(decisive)
    rho_decisive = g["rhos"][i_dec]
    o_dec = outs[i_dec]
    spread = (f" (per trial there: regret {float(np.min(o_dec['regret'])):.3g}–{float(np.max(o_dec['regret'])):.3g}, "
              f"bound {float(np.min(o_dec['bound'])):.3g}–{float(np.max(o_dec['bound'])):.3g})")
    evidence = (f"ρ = {rho_decisive:g}: {decisive.phrase()}{spread}; largest mean regret / mean "
                f"bound {worst_factor:.3g}; "
                + "; ".join(f"ρ={r:g}: regret {reg[i].estimate:.3g} vs bound {bnd[i]:.3g} ({verdicts[i]}, "
                          f"indefinite steps {float(np.mean(outs[i]['indefinite_frac'])):.0%})"
                          for i, r in enumerate(g["rhos"]))
                + "; γ part: " + ", ".join(f"γ={gm:g} {v}" for gm, v in zip(g["gammas"], gam_v))
                + "; 'clip' convention for indefinite H_t: " + ", ".join(f"ρ={r:g} {v}" for r, v in
                                                                          zip(g["clip_rhos"], clip_v))
                + f"; λ_min⁺(G_T) = {scale:.3g}; {probe.text}")
    summary = (f"eq. (25) checked at {nr} noise levels σ_B = ρ·λ_min⁺(G_T), λ_min⁺(G_T) = {scale:.3g} (the γ part and "
               f"the 'clip' convention reported only): at ρ = {rho_decisive:g}, {decisive.phrase()}{spread}; largest "
               f"mean regret / mean bound {worst_factor:.3g}; {probe.text}")
    points = [{"part": "ρ sweep (decides)", "ρ": float(r), "σ_B": float(r * scale), "mean regret": reg[i].estimate,
               "mean bound": bnd[i], "indefinite steps": float(np.mean(outs[i]["indefinite_frac"])),
               "verdict": verdicts[i]} for i, r in enumerate(g["rhos"])]
    points += [{"part": "γ, σ_B = 0 (reported)", "γ": float(gm), "mean regret": reg[nr + j].estimate,
                "mean bound": bnd[nr + j], "verdict": v} for j, (gm, v) in enumerate(zip(g["gammas"], gam_v))]
    points += [{"part": "'clip' convention (reported)", "ρ": float(r), "verdict": v}
               for r, v in zip(g["clip_rhos"], clip_v)]
    if not probe.ok:
        evidence = f"inconclusive: {probe.text}; " + evidence
        summary = f"inconclusive: {probe.text}; " + summary
    figures = {"lambda_min_pos_GT": scale, "max_regret_over_bound": worst_factor,
               "kernel_probe_rel_diff": probe.rel_diff}
    for i, r in enumerate(g["rhos"]):
        figures[f"regret_rho{r:g}"] = reg[i].estimate
        figures[f"bound_rho{r:g}"] = bnd[i]
    for j, gm in enumerate(g["gammas"]):
        figures[f"regret_gamma{gm:g}"] = reg[nr + j].estimate
        figures[f"bound_gamma{gm:g}"] = bnd[nr + j]
    counter = None
    if first_bad is not None:
        counter = {"rho": g["rhos"][first_bad], "sigma_B": g["rhos"][first_bad] * scale,
                   "regret_ci": [reg[first_bad].lo, reg[first_bad].hi], "bound_mean": bnd[first_bad],
                   "regret_minus_bound_lower_family": decs[first_bad].violated_bound,
                   "p": g["p"], "k": g["k"], "T": g["T"], "n": g["n"]}
    finding = _thm31_finding(g, verdicts, reg, bnd) if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decs, finding=finding, summary=summary, points=points)


def _thm31_finding(g: dict, verdicts: list[str], reg: list, bnd: list[float]) -> Finding:
    """Theorem 3.1's finding: the ρ grid's per-ρ verdicts, the size at Algorithm 1's σ_B, the σ_B = 0 repair."""

    rhos = list(g["rhos"])
    bad = [r for r, v in zip(rhos, verdicts) if v == "violated"]
    i1 = rhos.index(1.0) if 1.0 in rhos else None  # a grid without ρ = 1 (the σ_B = 0 repair's) does not reach it
    return Finding(
        region=Region(explored=len(rhos), failing=len(bad),
                      text=f"fails at σ_B/λ_min⁺(G_T) = {', '.join(f'{r:g}' for r in bad)} of the grid "
                      f"{', '.join(f'{r:g}' for r in rhos)} (holds at "
                      + ", ".join(f"{r:g}" for r, v in zip(rhos, verdicts) if v == "holds")
                      + "; undecided at " + (", ".join(f"{r:g}" for r, v in zip(rhos, verdicts) if v == "inconclusive")
                                             or "none")
                      + f"); p = {g['p']}, k = {g['k']}, T = {g['T']}"),
        at_paper_setting=PaperSetting(
            where="Algorithm 1's preconditioner noise σ_B = λ_min⁺(G_T) (ρ = 1), the check's GLM (p = "
                  f"{g['p']}, k = {g['k']}, T = {g['T']}); the paper has no experiment",
            measure="mean regret / mean eq.-(25) bound",
            size=reg[i1].estimate / bnd[i1] if i1 is not None else float("nan"),
            fails=i1 is not None and verdicts[i1] == "violated"),
        repair=Repair(
            statement="eq. (25) for σ_B = 0 only (the gradient noise σ_b, which is all the proof accounts for)",
            verdict=verdicts[0] if rhos[0] == 0.0 else "inconclusive",
            evidence=f"ρ = 0 in the same run: mean regret {reg[0].estimate:.3g} vs mean bound {bnd[0]:.3g} "
                     f"({verdicts[0]})"))


# ======================================================================================
# Corollary 3 and Remark 4: σ_b(t) ∝ ‖∇_t‖, ‖∇_t‖ ≍ t^(−1/4); the O-form (13) of Theorem 3.1
# ======================================================================================
COR3 = {"quick": dict(Ts=(100, 200, 400, 800, 1600, 3200, 6400), trials=8, p=20, n=100, k=3),
        "full": dict(Ts=(100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 102400), trials=24, p=50, n=200,
                     k=3)}
COR3_ALPHA, COR3_C = 0.25, 1.0
#: Corollary 3's runs: σ_b(t) = COR3_C·‖∇_t‖ and the losses scaled by t^(−COR3_ALPHA)
COR3_OPTIONS = kn.NoisyAdagradOptions(sigma_b_mode="grad_norm", decay_alpha=COR3_ALPHA)
#: the O(·) window of Corollary 3 and of the O-form (13): T where the rate's own scale Tr(G_T)/T is at most a tenth
#: of the trivial average regret L·C (fixed before the data: below it the O(·) term is not dominated by the range)
COR3_WINDOW_FRACTION = 0.1
#: equivalence margin on the log-log slope of regret / rate along T (the decide default)
COR3_SLOPE_MARGIN = decide.SLOPE_MARGIN


def _cor3_task(T: int, trials: int, p: int, n: int, k: int, seed: int, precond: str = "none") -> dict:
    """One T of Corollary 3's setting.  ``precond``: "none" (σ_B = 0) or "lambda_min" (Algorithm 1's σ_B(t) =
    λ_min⁺(G_t), taken from a pilot run of the same data with σ_B = 0: the mean over its trials of λ_min⁺(G_t),
    a schedule fixed before the measured runs, as a privacy calibration must be)."""

    prob = kn.low_rank_glm(n=n, p=p, k=k, loss="absolute", w_norm=0.8, seed=seed)
    eta_ = float(tn.theorem3_1_eta().subs(tn.C, 2.0))
    sigma_B = 0.0
    if precond == "lambda_min":
        pilot = kn.run_noisy_adagrad(prob, T, eta_, 1.0, sigma_b=COR3_C, sigma_B=0.0, options=COR3_OPTIONS,
                                     trials=max(2, trials // 4),
                                     seed=child_seed(seed, "noisy_adagrad.corollary3.algorithm1", "pilot", T))
        sigma_B = np.ascontiguousarray(np.mean(pilot["lam_min"], axis=0))
    elif precond != "none":
        raise ValueError(f"precond must be none or lambda_min (got {precond!r})")
    out = kn.run_noisy_adagrad(prob, T, eta_, 1.0, sigma_b=COR3_C, sigma_B=sigma_B, options=COR3_OPTIONS,
                               trials=trials,
                               seed=child_seed(seed, "noisy_adagrad.corollary3.algorithm1", "runs", T))
    regret = (out["losses"] * out["scales"][None, :]).mean(axis=1)  # (1/T) Σ f_t(θ_t) − f_t(θ*), L* = 0
    noise = np.sum(out["sigma_b_used"] ** 2 * out["tr_ginv"], axis=1)  # Σ σ_b(t)² Tr G_t⁺ (eq. (13)'s noise term)
    f = numeric(tn.theorem3_1_bound())
    bound = np.array([f(C=2.0, L=prob.lipschitz, T=T, eta=eta_, gamma=0.0, noise_sum=float(ns), trG=float(tg))
                      for ns, tg in zip(noise, out["tr_g"][:, -1])])
    return {"regret": regret, "trG": out["tr_g"][:, -1], "noise_sum": noise, "bound25": bound,
            "gnorm_first": out["gnorm"][:, 0], "gnorm_last": out["gnorm"][:, -1],
            "indefinite_frac": (out["indefinite"] > 0).mean(axis=1), "lipschitz": prob.lipschitz}


@lru_cache(maxsize=4)
def _cor3_runs(budget: str, seed: int, precond: str = "none"):
    g = by_budget(budget, COR3["quick"], COR3["full"])
    tasks = [dict(T=int(T), trials=g["trials"], p=g["p"], n=g["n"], k=g["k"], seed=seed, precond=precond)
             for T in g["Ts"]]
    # corollary3.algorithm1 and theorem3.1.o_form both ask for these runs: one scope (cache folder and task keys), so
    # that worker processes of a ledger compute them once (the lru_cache only spares a second call in one process)
    with claim_scope("noisy_adagrad.corollary3.algorithm1"):
        return g, _sweep(_cor3_task, tasks, f"noisy_adagrad.corollary3 runs (σ_B: {precond})")


def _cor3_fits(budget: str, seed: int, precond: str = "none"):
    g, outs = _cor3_runs(budget, seed, precond)
    Ts = np.array(g["Ts"], float)
    def stat(key):
        m = np.array([np.mean(o[key]) for o in outs])
        s = np.array([max(np.std(o[key], ddof=1) / math.sqrt(len(o[key])), 1e-12 * abs(np.mean(o[key])))
                      for o in outs])
        return m, s
    trg, trg_se = stat("trG")
    reg, reg_se = stat("regret")
    return g, Ts, outs, trg, reg, weighted_loglog_slope(Ts, trg, trg_se), loglog_slope(Ts, reg), reg_se


@lru_cache(maxsize=4)
def _cor3_probe(budget: str, seed: int) -> _Probe:
    """The kernel probe in Corollary 3's setting with Algorithm 1's σ_B(t) = λ_min⁺(G_t) (a short pilot's)."""

    g = by_budget(budget, COR3["quick"], COR3["full"])
    prob = kn.low_rank_glm(n=g["n"], p=g["p"], k=g["k"], loss="absolute", w_norm=0.8, seed=seed)
    eta_ = float(tn.theorem3_1_eta().subs(tn.C, 2.0))
    pilot = kn.run_noisy_adagrad(prob, NA_PROBE_STEPS, eta_, 1.0, sigma_b=COR3_C, options=COR3_OPTIONS, trials=2,
                                 seed=seed)
    return _kernel_probe(prob, eta_, 1.0, COR3_C, np.mean(pilot["lam_min"], axis=0), sigma_b_mode="grad_norm",
                         decay_alpha=COR3_ALPHA, seed=seed)


def _cor3_window(Ts, outs) -> tuple[list[bool], str]:
    trivial = 2.0 * float(outs[0]["lipschitz"])  # L·C with C = 2
    keep = [float(np.mean(o["trG"])) / T <= COR3_WINDOW_FRACTION * trivial for T, o in zip(Ts, outs)]
    return keep, f"Tr(G_T)/T ≤ {COR3_WINDOW_FRACTION:g}·L·C"


def _growth_region(Ts, means, keep, what: str) -> Region:
    """Where a rate statement fails along T: the window's points after its first whose mean ratio ``what`` has grown
    faster than T^margin since the window's first point (the decision's margin, COR3_SLOPE_MARGIN)."""

    idx = [i for i, k in enumerate(keep) if k]
    i0 = idx[0]
    grown = [i for i in idx[1:] if means[i] > means[i0] * (Ts[i] / Ts[i0]) ** COR3_SLOPE_MARGIN]
    return Region(explored=len(idx), failing=len(grown),
                  text=f"{what} grows faster than T^{COR3_SLOPE_MARGIN:g} at {len(grown)} of the {len(idx) - 1} "
                  f"window points after T = {int(Ts[i0])} ({means[i0]:.3g} → {means[idx[-1]]:.3g} up to "
                  f"T = {int(Ts[idx[-1]])}); no edge: the growth is along the whole window")


def _cor3_setting(Ts, means, fails: bool, what: str) -> PaperSetting:
    """The paper's own setting of Corollary 3 / Remark 4: Algorithm 1's σ_B(t) = λ_min⁺(G_t), ‖∇_t‖ ≍ t^(−1/4)."""

    return PaperSetting(
        where="Corollary 3 (App. C.5) in Remark 4's case ‖∇_t‖ ≍ t^(−1/4), with Algorithm 1's preconditioner noise "
              "σ_B(t) = λ_min⁺(G_t) and σ_b(t) = ‖∇_t‖ (the check's runs; the paper has no experiment)",
        measure=f"growth of {what} over T ∈ [{int(Ts[0])}, {int(Ts[-1])}]", size=float(means[-1] / means[0]),
        fails=fails)


def _sigma_B_zero_repair(d0, what: str) -> Repair:
    """The repair 'σ_B = 0' decided as the statement is, on the σ_B = 0 runs of the same setting and seed."""

    return Repair(statement=f"{what} for σ_B = 0 (gradient noise only: the preconditioner noise is what the proof "
                            "does not account for)",
                  verdict=str(d0.verdict), evidence=f"the same decision on the σ_B = 0 runs: {d0.phrase()}")


for _m in ("pow1.25", "pow0.75"):
    declare_equivalent("noisy_adagrad.corollary3.algorithm1", f"theorem3_1_bound:{_m}",
                       "the statement is regret = O(Tr(G_T)/T); eq. (25) is not part of it and enters the check only "
                       "as the reported envelope (the decision divides by corollary3_rate alone), so no change of it "
                       "can change the statement's truth")
declare_equivalent("noisy_adagrad.corollary3.algorithm1", "corollary3_rate:pow1.25",
                   "Tr(G_T)/T → 0, so (Tr(G_T)/T)^(5/4) ≤ Tr(G_T)/T for large T: a regret that is not O(Tr(G_T)/T) "
                   "is not O of the smaller rate either; the violated statement stays false")
@claim(
    "noisy_adagrad.corollary3.algorithm1",
    kind="rate",
    statement="""Corollary 3 for Algorithm 1 with its preconditioner noise: with gradient noise σ_b(t) = O(‖∇_t‖),
    preconditioner noise σ_B(t) = λ_min⁺(G_t) and an exact subspace oracle (γ = 0), the regret of noisy AdaGrad is
    O(Tr(G_T)/T).""",
    theory=(tn.corollary3_rate, tn.theorem3_1_bound),
    notes="Replaces the retired noisy_adagrad.corollary3, whose check fixed σ_B = 0 without saying so (Corollary 3 is "
    "about Algorithm 1, which adds GOE noise σ_B to the preconditioner). low_rank_glm (absolute loss, L* = 0), online "
    "losses f_t = t^(−1/4)·L so that ‖∇_t‖ ≍ t^(−1/4) (Remark 4's case), σ_b(t) = ‖∇_t‖, σ_B(t) = λ_min⁺(G_t) of a "
    "pilot run (same data, σ_B = 0, mean over its trials), η = C√(3/8), ball of radius 1 (C = 2); T swept. Decision: "
    "verify.decide.rate on the log-log slope of regret·T/Tr(G_T) (per trial) along T over the window Tr(G_T)/T ≤ "
    "0.1·L·C, margin ±0.1 (decide default); tests = 1 for the statement. The ratio's denominator is "
    "corollary3_rate evaluated "
    "(Tr(G_T)/T + γ at γ = 0), so a wrong rate changes the decided slope; theorem3_1_bound (eq. (25)) is only "
    "reported as the envelope and is no part of the statement, so its mutants are declared equivalent. The "
    "verdict is violated at quick (slope +0.39, family lower bound +0.35 against the 0.1 margin): the rate made "
    "smaller (pow1.25) is declared equivalent; a rate with "
    "exponents ¾ changes the slope by about −0.2 and stays refuted. Kernel probe (fixed in advance): 20 steps of "
    "the Numba kernel (σ_B(t) from a 20-step pilot) against its NumPy twin with the same noise and the declared η, "
    "σ_b, σ_B must agree to 1e-6 (relative loss); otherwise (e.g. more noise than declared, another stepsize) the "
    "runs are not Algorithm 1 as stated and the verdict is inconclusive. When violated, the finding's repair (σ_B = 0) "
    "is the same decision on the σ_B = 0 runs of the same setting and seed: the second declared test.",
    tests=2,
)
def corollary3_algorithm1(budget: str, seed: int) -> Outcome:
    g, Ts, outs, trg, reg, _, _, _ = _cor3_fits(budget, seed, "lambda_min")
    rate = numeric(tn.corollary3_rate())  # Tr(G_T)/T + γ, with the exact oracle's γ = 0
    ratio = reg / np.asarray(rate(T=Ts, gamma=0.0, trG=trg), float)
    keep, crit = _cor3_window(Ts, outs)
    d = decide.rate(Ts, [np.asarray(o["regret"]) / np.asarray(rate(T=T, gamma=0.0, trG=np.asarray(o["trG"])), float)
                         for T, o in zip(Ts, outs)], axis="T",
                    asymptotic=keep, criterion=crit, margin=COR3_SLOPE_MARGIN)
    env = np.array([np.mean(o["bound25"]) for o in outs]) * Ts / trg
    indef = float(np.mean(outs[-1]["indefinite_frac"]))
    probe = _cor3_probe(budget, seed)  # the runs decide only if the kernel is Algorithm 1 as declared
    fig = Figure("corollary3_algorithm1", "noisy_adagrad Corollary 3 with σ_B(t) = λ_min⁺(G_t): regret vs Tr(G_T)/T",
                 [Panel("σ_b(t) = ‖∇_t‖, ‖∇_t‖ ≍ t^(−1/4), σ_B(t) = λ_min⁺(G_t); ratios to Tr(G_T)/T", "T", "ratio",
                        [Series("measured regret·T/Tr(G_T)", Ts, ratio, style="points"),
                         Series("eq. (25) bound·T/Tr(G_T)", Ts, env, style="dashed")], xscale="log", yscale="log")])
    evidence = (f"{d.phrase()}; regret·T/Tr(G_T) {ratio[0]:.3g} → {ratio[-1]:.3g} over T ∈ [{int(Ts[0])}, "
                f"{int(Ts[-1])}] ({sum(keep)} T in the window {crit}); eq.-(25) bound·T/Tr(G_T) {env[0]:.3g} → "
                f"{env[-1]:.3g}; indefinite H_t in {indef:.0%} of the steps at T = {int(Ts[-1])}; {probe.text}")
    figures = {"ratio_first": ratio[0], "ratio_last": ratio[-1], "slope": d.estimate, "slope_upper": d.holds_bound,
               "slope_lower_family": d.violated_bound, "window_points": int(sum(keep)), "envelope_last": env[-1],
               "kernel_probe_rel_diff": probe.rel_diff}
    for T, r in zip(Ts, ratio):
        figures[f"ratio_T{int(T)}"] = float(r)
    verdict = str(d.verdict) if probe.ok else str(decide.Verdict.INCONCLUSIVE)
    summary = (f"{verdict}: with σ_B(t) = λ_min⁺(G_t), regret·T/Tr(G_T) goes from {ratio[0]:.3g} to {ratio[-1]:.3g} "
               f"over T ∈ [{int(Ts[0])}, {int(Ts[-1])}] (log-log slope {d.estimate:.3g}), so regret = O(Tr(G_T)/T) "
               f"{d.verdict} on these runs.")
    points = [{"part": "runs", "T": int(T), "in the window": bool(k), "regret·T/Tr(G_T)": float(r),
               "bound": "eq. (25)", "bound·T/Tr(G_T)": float(e),
               "indefinite steps": float(np.mean(o["indefinite_frac"]))}
              for T, k, r, e, o in zip(Ts, keep, ratio, env, outs)]
    points += [{"part": "decision", **q} for q in decide.decision_points([d])]
    points.append({"part": "kernel probe", "relative loss difference": probe.rel_diff, "detail": probe.text})
    if not probe.ok:
        evidence = f"inconclusive: {probe.text}; " + evidence
        summary = f"inconclusive: {probe.text}; " + summary
    counter = None
    if verdict == decide.Verdict.VIOLATED:
        counter = {"T": Ts.tolist(), "regret_T_over_trG": ratio.tolist(), "slope_lower_family": d.violated_bound,
                   "p": g["p"], "n": g["n"], "k": g["k"]}
    finding = None
    if verdict == decide.Verdict.VIOLATED:
        _, Ts0, outs0, _, _, _, _, _ = _cor3_fits(budget, seed, "none")
        keep0, crit0 = _cor3_window(Ts0, outs0)
        d0 = decide.rate(Ts0, [np.asarray(o["regret"]) / np.asarray(rate(T=T, gamma=0.0, trG=np.asarray(o["trG"])),
                                                                     float) for T, o in zip(Ts0, outs0)],
                         axis="T", asymptotic=keep0, criterion=crit0, margin=COR3_SLOPE_MARGIN)
        finding = Finding(region=_growth_region(Ts, ratio, keep, "regret·T/Tr(G_T)"),
                          at_paper_setting=_cor3_setting(Ts, ratio, True, "regret·T/Tr(G_T)"),
                          repair=_sigma_B_zero_repair(d0, "regret = O(Tr(G_T)/T)"))
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[d], finding=finding, summary=summary, points=points)


@claim(
    "noisy_adagrad.theorem3.1.o_form",
    kind="rate",
    statement="""Theorem 3.1 in its O-form (13): noisy AdaGrad's expected average regret is
    O(Tr(G_T)/T + (1/T)·Σ_t σ_b(t)² Tr(G_t⁺) + γ) (constants free), for Algorithm 1 with its preconditioner
    noise.""",
    theory=(tn.theorem3_1_bound,),
    notes="The explicit constants of eq. (25) are noisy_adagrad.theorem3.1; here only growth can refute. The runs of "
    "noisy_adagrad.corollary3.algorithm1 (σ_b(t) = ‖∇_t‖, σ_B(t) = λ_min⁺(G_t), γ = 0): per trial, regret over the "
    "eq.-(25) expression of the same trial (a representative of (13)'s terms: any fixed constants give the same "
    "slope). Decision: verify.decide.rate along T over the window Tr(G_T)/T ≤ 0.1·L·C, margin ±0.1; tests = 1 for "
    "the statement. "
    "The kernel probe of noisy_adagrad.corollary3.algorithm1 (Numba kernel vs NumPy twin, same noise, declared η "
    "and noise, 1e-6) must pass, else inconclusive. When violated, the finding's repair (σ_B = 0) is the same "
    "decision on the σ_B = 0 runs: the second declared test.",
    tests=2,
)
def theorem3_1_o_form(budget: str, seed: int) -> Outcome:
    g, Ts, outs, trg, reg, _, _, _ = _cor3_fits(budget, seed, "lambda_min")
    keep, crit = _cor3_window(Ts, outs)
    samples = [np.asarray(o["regret"]) / np.asarray(o["bound25"]) for o in outs]
    d = decide.rate(Ts, samples, axis="T", asymptotic=keep, criterion=crit, margin=COR3_SLOPE_MARGIN)
    r = np.array([np.mean(s) for s in samples])
    fig = Figure("theorem3_1_o_form", "noisy_adagrad Theorem 3.1, O-form (13): regret over its terms", [Panel(
        "σ_b(t) = ‖∇_t‖, σ_B(t) = λ_min⁺(G_t), γ = 0", "T", "regret / eq.-(25) terms (mean over trials)",
        [Series("measured", Ts, r, style="points")], xscale="log", yscale="log")])
    probe = _cor3_probe(budget, seed)  # the runs decide only if the kernel is Algorithm 1 as declared
    evidence = (f"{d.phrase()}; regret/terms {r[0]:.3g} → {r[-1]:.3g} over T ∈ [{int(Ts[0])}, {int(Ts[-1])}]; "
                f"{probe.text}")
    figures = {"ratio_first": r[0], "ratio_last": r[-1], "slope": d.estimate, "slope_upper": d.holds_bound,
               "slope_lower_family": d.violated_bound, "kernel_probe_rel_diff": probe.rel_diff}
    verdict = str(d.verdict) if probe.ok else str(decide.Verdict.INCONCLUSIVE)
    summary = (f"{verdict}: with σ_B(t) = λ_min⁺(G_t), regret over the terms of (13) goes from {r[0]:.3g} to "
               f"{r[-1]:.3g} over T ∈ [{int(Ts[0])}, {int(Ts[-1])}] (log-log slope {d.estimate:.3g}), so the O-form "
               f"{d.verdict} on these runs.")
    points = [{"part": "runs", "T": int(T), "in the window": bool(k), "regret / eq.-(25) terms": float(v)}
              for T, k, v in zip(Ts, keep, r)]
    points += [{"part": "decision", **q} for q in decide.decision_points([d])]
    points.append({"part": "kernel probe", "relative loss difference": probe.rel_diff, "detail": probe.text})
    if not probe.ok:
        evidence = f"inconclusive: {probe.text}; " + evidence
        summary = f"inconclusive: {probe.text}; " + summary
    counter = None
    if verdict == decide.Verdict.VIOLATED:
        counter = {"T": Ts.tolist(), "regret_over_terms": r.tolist(), "slope_lower_family": d.violated_bound}
    finding = None
    if verdict == decide.Verdict.VIOLATED:
        _, Ts0, outs0, _, _, _, _, _ = _cor3_fits(budget, seed, "none")
        keep0, crit0 = _cor3_window(Ts0, outs0)
        d0 = decide.rate(Ts0, [np.asarray(o["regret"]) / np.asarray(o["bound25"]) for o in outs0], axis="T",
                         asymptotic=keep0, criterion=crit0, margin=COR3_SLOPE_MARGIN)
        finding = Finding(region=_growth_region(Ts, r, keep, "regret / eq.-(25) terms"),
                          at_paper_setting=_cor3_setting(Ts, r, True, "regret / eq.-(25) terms"),
                          repair=_sigma_B_zero_repair(d0, "the O-form (13)"))
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[d], finding=finding, summary=summary, points=points)


def _remark4_check(budget: str, seed: int, precond: str):
    """Remark 4's two decisions on Corollary 3's runs with the preconditioner noise ``precond`` ("none": σ_B = 0;
    "lambda_min": Algorithm 1's σ_B(t) = λ_min⁺(G_t)): the outcome's parts and the decisions."""

    g, Ts, outs, trg, reg, fit_tr, fit_reg, reg_se = _cor3_fits(budget, seed, precond)
    e_tr, e_reg = (float(x) for x in tn.remark4_exponents())
    e_true = float(tn.trace_growth_exponent(sp.Rational(1, 4)))
    every = [True] * len(Ts)
    tr_samples = [np.asarray(o["trG"]) / T**e_tr for T, o in zip(Ts, outs)]
    reg_samples = [np.asarray(o["regret"]) * T ** (-e_reg) for T, o in zip(Ts, outs)]
    d_tr = decide.rate(Ts, tr_samples, axis="T", asymptotic=every,
                       criterion="every T (an exponent statement)", margin=decide.SLOPE_MARGIN)
    d_reg = decide.rate(Ts, reg_samples, axis="T",
                        asymptotic=every, criterion="every T (an exponent statement)", margin=decide.SLOPE_MARGIN)
    verdict = str(decide.combine([d_tr, d_reg]))
    noise = "σ_B = 0" if precond == "none" else "σ_B(t) = λ_min⁺(G_t)"
    fig = Figure("remark4" if precond == "none" else "remark4_algorithm1",
                 f"noisy_adagrad Remark 4 ({noise}): growth of Tr(G_T) and decay of the regret", [
        Panel("Tr(G_T)", "T", "Tr(G_T)", [Series("measured", Ts, trg, style="points"),
                                          Series("∝ T^{3/8} (Remark 4)", Ts, trg[0] * (Ts / Ts[0]) ** e_tr,
                                                 style="dashed"),
                                          Series("∝ T^{1/4} (√Σ‖∇_t‖²)", Ts, trg[0] * (Ts / Ts[0]) ** e_true,
                                                 style="dashed")], xscale="log", yscale="log"),
        Panel("average regret", "T", "regret", [Series("measured", Ts, reg, reg - 1.96 * reg_se, reg + 1.96 * reg_se,
                                                       style="points"),
                                                Series("∝ T^{−5/8}", Ts, reg[0] * (Ts / Ts[0]) ** e_reg,
                                                       style="dashed")],
              xscale="log", yscale="log")])
    evidence = (f"Tr(G_T)/T^(3/8): {d_tr.phrase()}; regret·T^(5/8): {d_reg.phrase()}; Tr(G_T) slope "
                f"{_fmt_ci(fit_tr.slope)} (√Σ‖∇_t‖² gives {e_true:g}, Remark 4 states 3/8); regret slope "
                f"{_fmt_ci(fit_reg.slope)}")
    figures = {"trace_slope": fit_tr.slope.estimate, "trace_slope_lo": fit_tr.slope.lo,
               "trace_slope_hi": fit_tr.slope.hi, "regret_slope": fit_reg.slope.estimate,
               "regret_slope_lo": fit_reg.slope.lo, "regret_slope_hi": fit_reg.slope.hi,
               "trace_ratio_slope_upper": d_tr.holds_bound, "regret_ratio_slope_upper": d_reg.holds_bound,
               "paper_trace_exponent": e_tr, "derived_trace_exponent": e_true}
    counter = None if verdict != "violated" else {"T": Ts.tolist(), "trG": trg.tolist(), "regret": reg.tolist()}
    means = {"trace": np.array([np.mean(x) for x in tr_samples]), "regret": np.array([np.mean(x) for x in reg_samples])}
    return Ts, verdict, evidence, figures, counter, fig, [d_tr, d_reg], means


def _remark4_readout(Ts, verdict: str, decs, figures: dict, precond: str) -> tuple[str, list]:
    """The summary sentence and the points of a Remark 4 check (:func:`_remark4_check`'s parts).

    Parameters
    ----------
    Ts : array
        The horizons of the runs.
    verdict : str
        The check's verdict.
    decs : list of verify.decide.Decision
        The two decisions: Tr(G_T)/T^(3/8) and regret·T^(5/8) along T.
    figures : dict
        The check's figures (the measured slopes and the exponents).
    precond : str
        "none" (σ_B = 0) or "lambda_min" (Algorithm 1's σ_B(t) = λ_min⁺(G_t)).

    Returns
    -------
    tuple of (str, list of dict)
        The summary and one point per decision, with its measured slope and the exponents compared.
    """
    d_tr, d_reg = decs
    noise = "σ_B = 0" if precond == "none" else "σ_B(t) = λ_min⁺(G_t)"
    summary = (f"{verdict}: with {noise}, Remark 4's Tr(G_T) = O(T^(3/8)) {d_tr.verdict} and regret = O(T^(−5/8)) "
               f"{d_reg.verdict} over T ∈ [{int(Ts[0])}, {int(Ts[-1])}] (measured Tr(G_T) slope "
               f"{figures['trace_slope']:.3g}; √Σ‖∇_t‖² gives {figures['derived_trace_exponent']:g}).")
    rows = [{"part": "Tr(G_T)/T^(3/8)", "stated exponent": "3/8", "measured slope": figures["trace_slope"],
             "measured slope lo": figures["trace_slope_lo"], "measured slope hi": figures["trace_slope_hi"],
             "√Σ‖∇_t‖² exponent": figures["derived_trace_exponent"]},
            {"part": "regret·T^(5/8)", "stated exponent": "−5/8", "measured slope": figures["regret_slope"],
             "measured slope lo": figures["regret_slope_lo"], "measured slope hi": figures["regret_slope_hi"]}]
    points = [{**r, **q} for r, q in zip(rows, decide.decision_points(decs))]
    return summary, points


@claim(
    "noisy_adagrad.remark4",
    kind="rate",
    statement="""Remark 4 with gradient noise only (σ_B = 0, no preconditioner noise): if ‖∇_t‖ decreases as
    O(t^(−1/4)), then Tr(G_T) = O(T^{3/8}) and (with σ_b(t) ∝ ‖∇_t‖) the regret decreases as O(T^{−5/8}).""",
    theory=(tn.remark4_exponents, tn.trace_growth_exponent),  # remark4_paper_sum_exponent: not evaluated by the check
    notes="Runs of Corollary 3's setting with σ_B = 0 (the remark speaks of the gradient noise only; with "
    "Algorithm 1's preconditioner noise it is noisy_adagrad.remark4.algorithm1). Two decisions "
    "by verify.decide.rate along T, every T in the window (an exponent statement), margin ±0.1: the slope of "
    "Tr(G_T)/T^{3/8} and of regret·T^{5/8} (per trial). The Tr(G_T) slope is also compared with (1 − 2α)/2 = 1/4, the "
    "exponent of √(Σ‖∇_t‖²) (Remark 4 takes the root of Σ t^(−1/4), i.e. of Σ‖∇_t‖, not of Σ‖∇_t‖²). tests = 2.",
    tests=2,
)
def remark4(budget: str, seed: int) -> Outcome:
    Ts, verdict, evidence, figures, counter, fig, decs, means = _remark4_check(budget, seed, "none")
    finding = None
    if verdict == "violated":
        # the two decisions are the parts; the size is the growth of the decided ratio over the window
        key, what = (("regret", "regret·T^(5/8)") if decs[1].verdict == decide.Verdict.VIOLATED
                     else ("trace", "Tr(G_T)/T^(3/8)"))
        finding = parts_finding(
            [(f"Tr(G_T)/T^(3/8) along T: {decs[0].phrase()}", str(decs[0].verdict)),
             (f"regret·T^(5/8) along T: {decs[1].phrase()}", str(decs[1].verdict))],
            what=f"Remark 4's two exponent decisions on σ_B = 0 runs over T ∈ [{int(Ts[0])}, {int(Ts[-1])}]",
            paper_where="Remark 4 (App. C.5) with gradient noise only, ‖∇_t‖ ≍ t^(−1/4): the paper states no numeric "
                        "instance and runs no experiment (the check's runs are its own)",
            paper_measure=f"growth of the mean {what} over the window", paper_size=float(means[key][-1] /
                                                                                       means[key][0]),
            no_repair_reason="the check decides the remark's exponents 3/8 and −5/8 only; the exponent 1/4 of "
                             "√(Σ‖∇_t‖²) is reported, not decided")
    summary, points = _remark4_readout(Ts, verdict, decs, figures, "none")
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decs, finding=finding, summary=summary, points=points)


@claim(
    "noisy_adagrad.remark4.algorithm1",
    kind="rate",
    statement="""Remark 4 for Algorithm 1 with its preconditioner noise σ_B(t) = λ_min⁺(G_t): if ‖∇_t‖ decreases as
    O(t^(−1/4)), then Tr(G_T) = O(T^{3/8}) and (with σ_b(t) ∝ ‖∇_t‖) the regret decreases as O(T^{−5/8}).""",
    theory=(tn.remark4_exponents, tn.trace_growth_exponent),
    notes="The runs of noisy_adagrad.corollary3.algorithm1 (σ_b(t) = ‖∇_t‖, σ_B(t) = λ_min⁺(G_t) of a pilot run, "
    "‖∇_t‖ ≍ t^(−1/4)); the same two decisions as noisy_adagrad.remark4 (σ_B = 0): verify.decide.rate along T, every "
    "T, margin ±0.1, on Tr(G_T)/T^{3/8} and regret·T^{5/8} (per trial). The kernel probe of "
    "noisy_adagrad.corollary3.algorithm1 (Numba kernel vs NumPy twin, same noise, declared η and noise, 1e-6) must "
    "pass, else inconclusive. tests = 4: the two decisions, and, when violated, the same two on the σ_B = 0 runs "
    "for the finding's repair (noisy_adagrad.remark4's statement).",
    tests=4,
)
def remark4_algorithm1(budget: str, seed: int) -> Outcome:
    Ts, verdict, evidence, figures, counter, fig, decs, means = _remark4_check(budget, seed, "lambda_min")
    probe = _cor3_probe(budget, seed)  # the runs decide only if the kernel is Algorithm 1 as declared
    evidence = f"{evidence}; {probe.text}"
    figures["kernel_probe_rel_diff"] = probe.rel_diff
    if not probe.ok:
        verdict, counter = str(decide.Verdict.INCONCLUSIVE), None
        evidence = f"inconclusive: {probe.text}; " + evidence
    finding = None
    if verdict == "violated":
        d_tr, d_reg = decs
        key, what = (("regret", "regret·T^(5/8)") if d_reg.verdict == decide.Verdict.VIOLATED
                     else ("trace", "Tr(G_T)/T^(3/8)"))
        r0 = _remark4_check(budget, seed, "none")[1]
        finding = Finding(
            region=_growth_region(Ts, means[key], [True] * len(Ts), what),
            at_paper_setting=_cor3_setting(Ts, means[key], True, what),
            repair=Repair(statement="Remark 4 for σ_B = 0 (gradient noise only: the preconditioner noise is what "
                                    "the proof does not account for) — noisy_adagrad.remark4",
                          verdict=r0, evidence="the same two decisions on the σ_B = 0 runs of the same setting and "
                                               f"seed: {r0}"))
    summary, points = _remark4_readout(Ts, verdict, decs, figures, "lambda_min")
    points.append({"part": "kernel probe", "relative loss difference": probe.rel_diff, "detail": probe.text})
    if not probe.ok:
        summary = f"inconclusive: {probe.text}; " + summary
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decs, finding=finding, summary=summary, points=points)


# ======================================================================================
# Theorem 3.1's hypothesis on the tracked subspace (the γ term)
# ======================================================================================
def gamma_pair(rng: np.random.Generator, pmax: int = 8) -> tuple[np.ndarray, np.ndarray, str]:
    """A seeded (V, Ṽ, family): 'nested' draws Ṽ inside span V (any k̃ ≤ k, so the hypothesis of Theorem 3.1 holds);
    'rotated' turns span V by principal angles up to 10^u, u ∈ [−6, 0.2] (k̃ = k, the oracle γ is meant to model);
    'random' draws Ṽ independently of V.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    pmax : int
        The largest dimension p (drawn from 2..pmax).

    Returns
    -------
    V : numpy.ndarray
        p×k orthonormal.
    Vt : numpy.ndarray
        p×k̃ orthonormal.
    family : str
        "nested", "rotated" or "random".
    """
    p = int(rng.integers(2, pmax + 1))
    k = int(rng.integers(1, p))
    V = _orthonormal(rng, p, k)
    family = ("nested", "rotated", "random")[int(rng.integers(0, 3))]
    if family == "nested":
        kt = int(rng.integers(0, k + 1))
        return V, V @ _orthonormal(rng, k, kt), family
    if family == "rotated":
        # Ṽ = orth(V + W·tanθ) with W ⊥ span V: principal angles up to θ
        W = (np.eye(p) - V @ V.T) @ rng.standard_normal((p, k))
        W /= max(float(np.linalg.norm(W, 2)), 1e-300)
        q, r = np.linalg.qr(V + W * math.tan(min(10.0 ** rng.uniform(-6.0, 0.2), 1.5)))
        return V, q * np.sign(np.diag(r)), family
    return V, _orthonormal(rng, p, int(rng.integers(0, p + 1))), family


def gamma_witness_slack(V: np.ndarray, Vt: np.ndarray) -> tuple[float, float, float]:
    """(slack, residual, gap): slack < 0 iff (V, Ṽ) satisfies Theorem 3.1's hypothesis ṼṼᵀ(I − VVᵀ) = 0 (to
    rounding) with a gap 0 < ‖VVᵀ − ṼṼᵀ‖_op < 1 clear of both ends by more than rounding; in rounding units.

    Parameters
    ----------
    V, Vt : numpy.ndarray
        Orthonormal bases of the two subspaces (p rows each).

    Returns
    -------
    slack : float
        As above.
    residual : float
        ‖ṼṼᵀ(I − VVᵀ)‖ (theory.noisy_adagrad.theorem3_1_assumption_residual).
    gap : float
        ‖VVᵀ − ṼṼᵀ‖_op.
    """
    res = tn.theorem3_1_assumption_residual(V, Vt)
    gap = tn.subspace_gap(V, Vt)
    tol = 10 * V.shape[0] ** 2 * EPS
    return max(res - tol, tol - min(gap, 1.0 - gap)) / tol, res, gap


THM31_GAMMA_SMALLEST = dict(p=2, k=1)


def _gamma_drop_assumption_mutant() -> Mutant:
    return Mutant("theorem3_1_assumption_residual:dropped", "theory.noisy_adagrad.theorem3_1_assumption_residual: "
                  "the hypothesis ṼṼᵀ(I − VVᵀ) = 0 left out (residual 0 for every pair)", "theory",
                  lambda: substituted("theory.noisy_adagrad.theorem3_1_assumption_residual", lambda V, Vt: 0.0))


declare_equivalent("noisy_adagrad.theorem3.1.gamma", "theorem3_1_assumption_residual:x10",
                   "the hypothesis is an equation residual = 0; a constant factor leaves its solutions unchanged")
declare_equivalent("noisy_adagrad.theorem3.1.gamma", "theorem3_1_assumption_residual:x0.1",
                   "the hypothesis is an equation residual = 0; a constant factor leaves its solutions unchanged")
declare_equivalent("noisy_adagrad.theorem3.1.gamma", "subspace_gap:x10",
                   "under the hypothesis the gap is 0 or 1; ×10 gives 0 or 10, still never in (0, 1): the mutated "
                   "statement is false as well")


@claim(
    "noisy_adagrad.theorem3.1.gamma",
    kind="exact",
    statement="""Theorem 3.1: "Let γ be a bound on the subspaces' principal angle difference, i.e.,
    ‖V_tV_tᵀ − Ṽ_tṼ_tᵀ‖_op ≤ γ, and assume Ṽ_tṼ_tᵀ(I − V_tV_tᵀ) = 0"; the bound carries "an additive factor γ
    accounting for subspace estimation mismatch" (§1), used with γ = O(1/(εn)) < 1 in Corollary 6 and with a
    public-data estimate of the subspace in §4.2. Read: the hypotheses admit an oracle whose span differs from the
    gradient span, 0 < ‖V_tV_tᵀ − Ṽ_tṼ_tᵀ‖_op ≤ γ < 1, so that the γ term accounts for a mismatch.""",
    theory=(tn.theorem3_1_assumption_residual, tn.subspace_gap),
    mutants=[_gamma_drop_assumption_mutant()],
    notes="Exact, no statistical test. Writing P = VVᵀ, P̃ = ṼṼᵀ, the hypothesis P̃(I − P) = 0 gives P̃ = P̃P and (its "
    "transpose) P̃ = PP̃, so (P − P̃)² = P − P̃: the difference is an orthogonal projection and its norm is 0 (equal "
    "spans) or 1 (span Ṽ a proper subspace of span V). So under the hypothesis γ < 1 forces Ṽ to span V exactly "
    "(γ may as well be 0), and γ ≥ 1 makes the term C·L·γ of eq. (24) at least L·C, which already bounds the excess "
    "risk (L(θ) − L* ≤ L·C): the γ term is either zero or vacuous (the finding's scope; reviewed: P̃ symmetric "
    "and P̃ = P̃P give (P − P̃)² = P − PP̃ − P̃P + P̃ = P − P̃ with no further assumption). "
    "For equal dimensions ‖P̃(I − P)‖ = ‖P − P̃‖ "
    "(both the sine of the largest principal angle), so a rotated oracle violates the hypothesis by exactly its "
    "gap. The check: the smallest case p = 2, k = 1 in SymPy (V = e₁, Ṽ = (cos θ, sin θ): the hypothesis' "
    "solutions θ ∈ {0, π} and the gaps there, {0}); then seeded pairs (p = 2..8, nested/rotated/random Ṽ, "
    "4000 quick, 40 000 full) searched for a witness: hypothesis residual ≤ 10p²·eps with a gap in (10p²·eps, "
    "1 − 10p²·eps). Verdict: violated when the SymPy case admits no gap in (0, 1) and the search finds no witness "
    "(the algebra above is the proof; the search checks it numerically, with the idempotence "
    "‖(P − P̃)² − (P − P̃)‖ reported); holds if a witness is found. Mutants: the hypothesis dropped (declared) and "
    "the gap ×0.1 (generic) turn it to holds; ×10 of the residual (an equation = 0) and of the gap (0 or 10) are "
    "equivalent.",
)
def theorem3_1_gamma(budget: str, seed: int) -> Outcome:
    examples = by_budget(budget, 4000, 40000)
    exact = tn.theorem3_1_gamma_p2k1()
    sym_gaps = sorted(float(g) for g in exact["gaps"])
    sym_witness = any(0 < g < 1 for g in sym_gaps)
    # the p = 2, k = 1 case numerically through the declared theory (the mutants act here too)
    e1 = np.array([[1.0], [0.0]])
    ths = np.linspace(0.0, math.pi, 181)
    p2 = [(tn.theorem3_1_assumption_residual(e1, np.array([[math.cos(a)], [math.sin(a)]])),
           tn.subspace_gap(e1, np.array([[math.cos(a)], [math.sin(a)]]))) for a in ths]
    p2_witness = [a for a, (r, gp) in zip(ths, p2) if r <= 40 * EPS and 40 * EPS < gp < 1 - 40 * EPS]
    stats = {"nested": [0, set()], "rotated": [0, 0.0], "random": [0, 0.0]}
    idem = [0.0]
    gaps_ok: list[float] = []
    rotated_between = [0]  # rotated oracles (hypothesis dropped) with a gap strictly in (0, 1)

    def sample(rng):
        return gamma_pair(rng)

    def slack(ex):
        V, Vt, family = ex
        s, res, gap = gamma_witness_slack(V, Vt)
        st = stats[family]
        st[0] += 1
        if family == "nested":
            D = V @ V.T - Vt @ Vt.T
            idem[0] = max(idem[0], float(np.max(np.abs(D @ D - D))))
            st[1].add(round(gap, 9))
        elif family == "rotated":
            st[1] = max(st[1], abs(res - gap))
            rotated_between[0] += int(1e-9 < gap < 1 - 1e-9)
        if res <= 10 * V.shape[0] ** 2 * EPS:
            gaps_ok.append(gap)
        return s

    worst = random_search(slack, sample, examples, seed)
    witness = worst.slack < 0 or sym_witness or bool(p2_witness)
    verdict = "holds" if witness else "violated"
    in_between = [g for g in gaps_ok if 1e-9 < g < 1 - 1e-9]
    counter = None
    if verdict == "violated":
        counter = dict(p=2, k=1, V=[1.0, 0.0], Vt="(cos θ, sin θ)", residual=str(exact["residual"].tolist()),
                       hypothesis_solutions=[str(s) for s in exact["solutions"]], gaps_at_solutions=sym_gaps)
    evidence = (f"{verdict} (exact): p = 2, k = 1 (SymPy): ṼṼᵀ(I − VVᵀ) = {exact['residual'].tolist()} vanishes "
                "only at "
                f"θ ∈ {{{', '.join(str(s) for s in exact['solutions'])}}}, where ‖VVᵀ − ṼṼᵀ‖_op ∈ "
                f"{{{', '.join(f'{g:g}' for g in sym_gaps)}}}; over {worst.evaluated} seeded pairs (p ≤ 8) "
                f"{len(gaps_ok)} satisfy the hypothesis and their gaps are "
                f"{sorted(stats['nested'][1]) if stats['nested'][1] else '—'} (none strictly between 0 and 1: "
                f"{len(in_between)} found; largest |(P − P̃)² − (P − P̃)| = {idem[0]:.2g}); rotated oracles "
                f"(gap in (0, 1)) violate the hypothesis by exactly their gap (max |residual − gap| = "
                f"{stats['rotated'][1]:.2g}). So under the hypothesis γ < 1 means Ṽ spans V (γ term 0), and γ ≥ 1 "
                "makes C·L·γ ≥ L·C, the trivial bound: the γ term never accounts for a mismatch")
    if verdict == "violated":
        summary = (f"violated (exact): every oracle satisfying ṼṼᵀ(I − VVᵀ) = 0 has gap 0 or 1 (SymPy at p = 2, "
                   f"k = 1; {len(gaps_ok)} of {worst.evaluated} seeded pairs), so the γ term never accounts for a "
                   "mismatch.")
    else:
        summary = (f"holds (exact): an oracle satisfying ṼṼᵀ(I − VVᵀ) = 0 with a gap strictly in (0, 1) exists "
                   f"({len(in_between)} of {len(gaps_ok)} seeded pairs, {len(p2_witness)} angles at p = 2).")
    points = [{"part": "SymPy, p = 2, k = 1", "ṼṼᵀ(I − VVᵀ)": str(exact["residual"].tolist()),
               "vanishes at θ": ", ".join(str(s) for s in exact["solutions"]),
               "gaps there": ", ".join(f"{g:g}" for g in sym_gaps)},
              {"part": "p = 2 angles through the declared theory", "angles": len(ths),
               "hypothesis with a gap in (0, 1)": len(p2_witness)},
              {"part": "seeded pairs", "pairs": worst.evaluated, "largest p": 8,
               "satisfy the hypothesis": len(gaps_ok),
               "their gaps": ", ".join(f"{g!r}" for g in sorted(stats["nested"][1])) or "—",
               "gaps strictly in (0, 1)": len(in_between), "largest |(P − P̃)² − (P − P̃)|": idem[0]},
              {"part": "rotated oracles (hypothesis dropped)", "pairs": stats["rotated"][0],
               "gaps strictly in (0, 1)": rotated_between[0], "largest |residual − gap|": stats["rotated"][1]}]
    fig = Figure("theorem3_1_gamma", "noisy_adagrad Theorem 3.1: the hypothesis ṼṼᵀ(I − VVᵀ) = 0 against the gap γ",
                 [Panel("p = 2, k = 1: V = e₁, Ṽ = (cos θ, sin θ)", "θ", "value",
                        [Series("‖ṼṼᵀ(I − VVᵀ)‖_op (0 iff the hypothesis holds)", ths, [r for r, _ in p2]),
                         Series("‖VVᵀ − ṼṼᵀ‖_op (the gap γ bounds)", ths, [g for _, g in p2], style="dashed")])])
    numbers = {"pairs": worst.evaluated, "pairs_satisfying_hypothesis": len(gaps_ok),
               "gaps_strictly_between_0_and_1": len(in_between), "min_witness_slack_rounding_units": worst.slack,
               "max_idempotence_defect": idem[0], "max_rotated_residual_minus_gap": stats["rotated"][1],
               "p2_witness_angles": len(p2_witness)}
    finding = None
    if verdict == "violated":
        n_ok = len(gaps_ok)
        finding = Finding(
            region=Region(explored=n_ok + 1, failing=n_ok + 1 - len(in_between),
                          text=f"every oracle that satisfies the hypothesis ṼṼᵀ(I − VVᵀ) = 0 has gap 0 or 1: the "
                          f"SymPy case p = 2, k = 1 (gaps {{{', '.join(f'{g:g}' for g in sym_gaps)}}}) and {n_ok} of "
                          f"{worst.evaluated} seeded pairs (p ≤ 8), none with a gap strictly in (0, 1)"),
            at_paper_setting=PaperSetting(
                where="Corollary 6 (γ = O(1/(εn)) < 1) and §4.2 (a public-data estimate of the subspace)",
                measure="oracles satisfying the hypothesis with a gap in (0, γ], γ < 1", size=float(len(in_between)),
                fails=not in_between,
                text="with γ < 1, as Corollary 6 and §4.2 use it, the hypothesis admits only Ṽ spanning V (gap 0): "
                     f"{len(in_between)} of {n_ok} hypothesis-satisfying pairs have a gap in (0, 1), so the γ term "
                     "accounts for no mismatch there"),
            repair=Repair(
                statement="drop the hypothesis ṼṼᵀ(I − VVᵀ) = 0 and keep ‖VVᵀ − ṼṼᵀ‖_op ≤ γ: oracles with a gap in "
                          "(0, 1) are then admitted (whether eq. (25) with C·L·γ holds for them is "
                          "noisy_adagrad.theorem3.1's γ part)",
                verdict="holds" if rotated_between[0] > 0 else "inconclusive",
                evidence=f"{rotated_between[0]} rotated oracles of the search have a gap strictly in (0, 1)"),
            vacuous=not in_between and all(g in (0.0, 1.0) for g in sym_gaps))
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=points)
