"""Section 4.1 (the toy example, Figure 3) of ``adadps``: ``adadps.section4.1``.

The stated privacy of the toy run ((4.13, 10⁻³)-DP, :func:`toy_privacy`) and AdaDPS's lower training loss than
DP-SGD on ``sparse_linear_regression``.
"""

from __future__ import annotations

import math

import numpy as np

from verify import decide, stats
from verify.papers.adadps._common import (
    PAPER_CLIP_GRID,
    PAPER_LR_GRID,
    TOY,
    _central_mechanism_probe,
    _central_task,
    _one_arm_mutants,
    _tune,
    points_finding,
)
from verify.privacy import NeighboringRelation, dp_sgd_epsilon, epsilon_of
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import sweep

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


#: the paper's setting of Section 4.1 that the check runs (the finding's paper setting)
S41_PAPER_WHERE = ("Section 4.1 / Figure 3: the toy problem, b = 8, T = 2250, σ = 0.7, δ = 1e-3 "
                   "(the check runs it)")


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
    "(_central_mechanism_probe, fixed before its runs): both methods' kernel, on a probe problem, must add "
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
        finding = points_finding("inconclusive" if eps_ok else "violated", [(
            f"the stated ε = {TOY['stated_epsilon']:g} ≥ the accountant's (RDP {priv['epsilon_rdp']:.4f}, PLD "
            f"{priv['epsilon_pld']:.4f})", "violated")], what="the exact ε part (the comparison is not run)",
            paper_where=S41_PAPER_WHERE, paper_measure="accountant ε (RDP) / stated ε",
            paper_size=priv["epsilon_rdp"] / TOY["stated_epsilon"], paper_fails=True,
            no_repair_reason="the stated ε understates the accountant's at the paper's own parameters: the correction "
            "is the accountant's ε, which the evidence gives")
        return Outcome(verdict="inconclusive" if eps_ok else "violated",
                       evidence=f"the kernel does not run the stated mechanism ({unlike}): the comparison is not run; "
                       f"accountant ε RDP {priv['epsilon_rdp']:.4f}, PLD {priv['epsilon_pld']:.4f} vs stated 4.13 "
                       f"[{'consistent' if eps_ok else 'UNDERSTATED'}]", numbers=dict(priv, **probe),
                       counterexample=None if eps_ok else {"stated_epsilon": TOY["stated_epsilon"],
                                                           "epsilon_rdp": priv["epsilon_rdp"]}, finding=finding)
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
    finding = points_finding(verdict, [(
        f"the stated ε = {TOY['stated_epsilon']:g} ≥ the accountant's (RDP {priv['epsilon_rdp']:.4f}, PLD "
        f"{priv['epsilon_pld']:.4f})", "holds" if eps_ok else "violated"), (dec.reason, dec.verdict)],
        what="the ε part and the loss comparison",
        paper_where=S41_PAPER_WHERE,
        paper_measure="final training loss DP-SGD / AdaDPS (bootstrap; > 1: AdaDPS lower)", paper_size=ci.estimate,
        paper_fails=True)
    summary = (f"{verdict}: AdaDPS with side information reaches a lower final training loss than DP-SGD: "
               f"{dec.verdict} (DP-SGD/AdaDPS {ci.estimate:.3g}, {fa.size} seeds); the stated ε = "
               f"{TOY['stated_epsilon']:g} is " + ("consistent with" if eps_ok else "BELOW") + " the accountant's")
    points = []
    for name, loss, m in (("AdaDPS", fa, "adadps_fixed"), ("DP-SGD", fs, "dp_sgd")):
        lc = stats.mean_ci(loss)
        points.append({"method": name, "final training loss": lc.estimate, "95% CI lo": lc.lo, "95% CI hi": lc.hi,
                       "seeds": int(loss.size), "tuned lr": chosen[m]["lr"], "tuned C": chosen[m]["clip"]})
    points.append({"method": "DP-SGD/AdaDPS (bootstrap, reported)", "final training loss": ci.estimate,
                   "95% CI lo": ci.lo, "95% CI hi": ci.hi})
    points.append({"privacy": "accountant", "q (Poisson)": priv["sampling_rate"], "σ": priv["sigma"],
                   "T": priv["steps"], "δ": priv["delta"], "ε RDP": priv["epsilon_rdp"], "ε PLD": priv["epsilon_pld"],
                   "stated ε": TOY["stated_epsilon"], "ε RDP, fixed-size batches (replace-one)":
                   priv["epsilon_rdp_fixed_batch_replace_one"], "consistent": bool(eps_ok)})
    points += decide.decision_points([dec])
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=[dec], finding=finding, summary=summary, points=points)
