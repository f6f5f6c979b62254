"""Section 6.1 (centralized training) and App. C (additional results) of ``adadps``: the experiments' orderings
on stand-in problems.

Table 6 (with Tables 1 and 4's ordering: ``adadps.table.adadps_best``), Table 10 (25× less public data:
``adadps.table10``), Table 9 (non-private AdaS ≈ Adam: ``adadps.table9``), Table 8 (DP-Adam-Pub:
``adadps.table8``) and Table 4's TF-IDF row (``adadps.table4``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from kernels import adadps as ka
from kernels import adadps_reference as ref
from kernels import faults
from verify import decide, stats
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.papers.adadps._common import (
    PAPER_LR_GRID,
    _central_mechanism_probe,
    _central_task,
    _one_arm_mutants,
    _split_eval,
    _tune,
    make_problem,
    points_finding,
)
from verify.privacy import dp_sgd_epsilon
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import sweep

# ======================================================================================
# Table 6 / 1 / 4 ordering on zipf_bow_logistic
# ======================================================================================
TABLE_METHODS = ("dp_sgd", "dp_adam", "dp_rmsprop", "dp_r_pub", "adadps_rmsprop", "adadps_fixed")
TABLE_LABELS = {"dp_sgd": "DP-SGD", "dp_adam": "DP-Adam", "dp_rmsprop": "DP-RMSProp", "dp_r_pub": "DP-R-Pub",
                "adadps_rmsprop": "AdaDPS (public)", "adadps_fixed": "AdaDPS (frequency)"}
TABLE_GRIDS = {
    "quick": dict(problem=dict(n=1500, d=200, n_test=1000, n_users=30, seed=11, public_fraction=0.05), batch_size=32,
                  steps=300, lrs=(0.01, 0.1, 1.0, 3.0, 10.0), clips=(0.1, 1.0), tune_trials=2, trials=8),
    "full": dict(problem=dict(n=4000, d=1000, n_test=2000, n_users=100, seed=11, public_fraction=0.1), batch_size=64,
                 steps=1000, lrs=PAPER_LR_GRID + (3.0, 10.0), clips=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0), tune_trials=2,
                 trials=20),
}
TABLE_SIGMA = 1.0  # the paper's σ for IMDB (convex)
TABLE_MARGIN = 0.01  # test accuracy: AdaDPS worse than a baseline by more than 1 point refutes "beats"
TABLE_RELATIONS = tuple((big, small) for big in ("adadps_rmsprop", "adadps_fixed")
                        for small in ("dp_sgd", "dp_adam", "dp_rmsprop")) + (("adadps_rmsprop", "dp_r_pub"),)


def _method_points(methods, labels: dict, means: dict, chosen: dict, trials: int, **same) -> list[dict]:
    """One point per method: its mean test accuracy with the 95% interval, its tuned (lr, C) and the seeds.

    Parameters
    ----------
    methods : sequence of str
        The methods' keys, in the evidence's order.
    labels : dict
        Key -> the method's name.
    means : dict
        Key -> its :class:`verify.stats` interval (``estimate``, ``lo``, ``hi``).
    chosen : dict
        Key -> the tuned grid point (``lr`` and, where tuned, ``clip``).
    trials : int
        The test seeds per method.
    **same
        Columns with the same value in every row (the privacy level, the setting).

    Returns
    -------
    list of dict
        The rows (see :func:`verify.registry.check_points`).
    """
    rows = []
    for m in methods:
        row = {"method": labels[m], "test accuracy": means[m].estimate, "95% CI lo": means[m].lo,
               "95% CI hi": means[m].hi, "lr": chosen[m]["lr"]}
        if "clip" in chosen[m]:
            row["C"] = chosen[m]["clip"]
        rows.append(dict(row, seeds=trials, **same))
    return rows


def _summary_head(probe_why: str, verdict: str) -> str:
    """The start of a summary: the reported verdict, after the mechanism probe's finding when it failed."""
    return (f"the kernel does not run the stated mechanism ({probe_why}); " if probe_why else "") + f"{verdict}: "


def _methods_panel(title: str, xlabel: str, methods, labels: dict, means: dict) -> Panel:
    """A panel of test accuracies (mean, 95% CI) with the methods on a categorical axis, in the order given.

    Parameters
    ----------
    title, xlabel : str
        The panel's title and x label.
    methods : sequence of str
        The methods' keys, in the order they are drawn.
    labels : dict
        Key -> the name on the axis.
    means : dict
        Key -> its :class:`verify.stats` interval (``estimate``, ``lo``, ``hi``).

    Returns
    -------
    Panel
    """
    return Panel(title, xlabel, "test accuracy", [Series(
        "mean ± 95% CI", list(range(len(methods))), [means[m].estimate for m in methods],
        [means[m].lo for m in methods], [means[m].hi for m in methods], style="points")],
        categories=[labels[m] for m in methods])

@claim(
    "adadps.table.adadps_best",
    kind="experiment",
    statement="""Tables 1, 4 and 6: on sparse text-like convex problems at the same privacy, AdaDPS with public data
    and AdaDPS with token-frequency side information reach a higher test accuracy than DP-SGD, DP-Adam and
    DP-RMSProp, and AdaDPS (public) beats DP-R-Pub (privatise, then precondition with public statistics); DP-Adam
    does not necessarily outperform DP-SGD (no ordering among the baselines is claimed).""",
    theory=(),  # noise_ratio_adadps_over_dpsgd: not evaluated by the check
    mutants=_one_arm_mutants(("adadps_rmsprop", "adadps_fixed"), "AdaDPS"),
    notes="Replaces the retired id adadps.table, whose statement also claimed 'DP-Adam ≈ DP-RMSProp ≥ DP-SGD', "
    "which the paper does not (it says DP-Adam does not necessarily outperform DP-SGD; Table 4's TF-IDF row). "
    "Stand-in problem: zipf_bow_logistic (docs/catalogue.md; IMDB/StackOverflow cannot be downloaded), defaults fixed "
    "before running (Zipf s = 1.1, 40 tokens per record, rare tokens predictive). Public split: 5% at quick "
    "(75 records), 10% at full (400), chosen so that at most 10% of the features are unseen in it (the first "
    "version's 1% split left 73 of 200 features at A = 1e-3, ×1000 before clipping, and 640 of 1000 at full). "
    "Every method: σ = 1 (the paper's IMDB value), the same batch and steps, Poisson sampling, δ = 1/n, so the same "
    "accountant ε (reported); (lr, C) tuned on the same grid by validation accuracy (tuning seeds), test accuracy "
    "reported on fresh seeds. Learning rates: quick {0.01, 0.1, 1, 3, 10}, full the paper's grid plus 3 and 10 "
    "(the first "
    "version's quick grid stopped at 1, where every method's best value sat). Tests (verify.decide.better, Welch t, "
    "7 tests): each 'AdaDPS beats X' holds if the difference of mean test accuracies is above 0, violated if "
    "AdaDPS is below X by more than 0.01 (margin fixed before the data), else inconclusive. "
    "Mechanism probe first (_central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=7,
)
def table(budget: str, seed: int) -> Outcome:
    g = TABLE_GRIDS[by_budget(budget, "quick", "full")]
    # the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(TABLE_METHODS, TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table.adadps_best")
    base = dict(problem="zipf_bow_logistic", problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"],
                steps=g["steps"], side_info="frequency", n_log=11)
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    chosen = {}
    for m in TABLE_METHODS:
        chosen[m], _ = _tune(f"adadps.table tune {m}", dict(base, method=m, trials=g["tune_trials"]), grid, "val_acc",
                             child_seed(seed, "adadps.table.adadps_best", "tune"))
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table.adadps_best", "run"),
                  **chosen[m])
             for m in TABLE_METHODS]
    outs = dict(zip(TABLE_METHODS, sweep(_central_task, tasks, "adadps.table runs")))
    acc = {m: np.asarray(outs[m]["test_acc"]) for m in TABLE_METHODS}
    decisions = [decide.better(-acc[big], -acc[small],
                               what=f"test accuracy {TABLE_LABELS[small]} − {TABLE_LABELS[big]}",
                               margin=TABLE_MARGIN) for big, small in TABLE_RELATIONS]
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in TABLE_METHODS}
    eps_rdp = dp_sgd_epsilon(g["batch_size"] / g["problem"]["n"], TABLE_SIGMA, g["steps"], 1.0 / g["problem"]["n"],
                             "rdp")
    prob = make_problem("zipf_bow_logistic", g["problem"])
    unseen = int(np.sum(~(prob.public_features > 0).any(axis=0)))
    key = next((dd for dd in decisions if dd.verdict == "violated"), None) or \
        next((dd for dd in decisions if dd.verdict == "inconclusive"), None) or decisions[0]
    edge = [m for m in TABLE_METHODS if chosen[m]["lr"] == max(g["lrs"])]
    evidence = (f"{key.phrase()}; n = {g['problem']['n']}, d = {g['problem']['d']}, public split "
                f"{prob.public_features.shape[0]} records ({unseen} features unseen); "
                f"test accuracy ({g['trials']} seeds, "
                f"ε = {eps_rdp:.3g} RDP, δ = 1/n): " + ", ".join(f"{TABLE_LABELS[m]} {means[m]}" for m in TABLE_METHODS)
                + "; " + "; ".join(f"{TABLE_LABELS[b_]} > {TABLE_LABELS[s_]}: {dd.verdict}"
                                   for (b_, s_), dd in zip(TABLE_RELATIONS, decisions))
                + (f"; tuned lr at the grid's top ({max(g['lrs']):g}) for {', '.join(TABLE_LABELS[m] for m in edge)}"
                   if edge else ""))
    order = sorted(TABLE_METHODS, key=lambda m: means[m].estimate)
    fig = Figure("table", "adadps method ordering (zipf_bow_logistic)", [_methods_panel(
        f"mean ± 95% CI; σ = {TABLE_SIGMA}, ε = {eps_rdp:.2f} (RDP)", "method (by mean accuracy)", order,
        TABLE_LABELS, means)])
    figures = {"epsilon_rdp": eps_rdp, "sigma": TABLE_SIGMA, "steps": g["steps"], "batch_size": g["batch_size"],
               "public_records": prob.public_features.shape[0], "features_unseen_in_public": unseen}
    for m in TABLE_METHODS:
        figures[f"test_acc[{m}]"] = means[m].estimate
        figures[f"lr[{m}]"] = chosen[m]["lr"]
        figures[f"clip[{m}]"] = chosen[m]["clip"]
    for (b_, s_), dd in zip(TABLE_RELATIONS, decisions):
        figures[f"diff[{b_}>{s_}]"] = -dd.estimate
    counter = None
    if verdict == "violated":
        counter = {f"{b_}>{s_}": {"verdict": str(dd.verdict), "difference": -dd.estimate}
                   for (b_, s_), dd in zip(TABLE_RELATIONS, decisions) if dd.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table.adadps_best", verdict, evidence)
    groups = []
    for big in dict.fromkeys(b_ for b_, _ in TABLE_RELATIONS):
        by_verdict = {}
        for (b_, s_), dd in zip(TABLE_RELATIONS, decisions):
            if b_ == big:
                by_verdict.setdefault(str(dd.verdict), []).append(TABLE_LABELS[s_])
        groups.append(f"{TABLE_LABELS[big]} > " + ", > ".join(f"{'/'.join(v_)} {k_}" for k_, v_ in by_verdict.items()))
    summary = (_summary_head(probe_why, verdict) + "; ".join(groups)
               + f" (Welch t on test accuracy, {g['trials']} seeds per method)")
    points = ([{"setting": "zipf_bow_logistic", "n": g["problem"]["n"], "d": g["problem"]["d"],
                "public records": prob.public_features.shape[0], "features unseen in public": unseen,
                "ε (RDP)": eps_rdp, "δ": "1/n", "lr grid top": max(g["lrs"])}]
              + _method_points(TABLE_METHODS, TABLE_LABELS, means, chosen, g["trials"])
              + decide.decision_points(decisions))
    finding = points_finding(verdict, [(d_.reason, d_.verdict) for d_ in decisions],
                             what="'AdaDPS beats X' comparisons",
                             paper_where="Tables 1, 4 and 6 (IMDB, StackOverflow, MNIST)", surrogate=True)
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


# ======================================================================================
# Table 10: AdaDPS with 25× less public data (zipf_bow_logistic)
# ======================================================================================
@lru_cache(maxsize=16)
def _public_subset_cached(problem_items: tuple, keep: int):
    """The zipf_bow_logistic of ``problem_items`` with its public split cut to its first ``keep`` records (the
    private, test and side information unchanged: a nested, smaller public sample from the same population)."""
    import dataclasses

    prob = make_problem("zipf_bow_logistic", dict(problem_items))
    if keep >= prob.public_features.shape[0]:
        return prob
    return dataclasses.replace(prob, public_features=np.ascontiguousarray(prob.public_features[:keep]),
                               public_labels=np.ascontiguousarray(prob.public_labels[:keep]))


def _acc_task(problem_kw: dict, public_keep: int, method: str, lr: float, clip: float, sigma: float, batch_size: int,
              steps: int, trials: int, seed: int, side_info: str = "frequency") -> dict:
    """``trials`` runs of one kernel method on a zipf_bow_logistic whose public split keeps ``public_keep`` records:
    validation and test accuracy per run (the halves of the test split, as :func:`_central_task`)."""

    prob = _public_subset_cached(tuple(sorted(problem_kw.items())), int(public_keep))
    out = ka.run_central(prob, method, lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         side_info=side_info, options=ka.CentralOptions(eps_a=1e-3, n_log=2), trials=trials,
                         seed=seed)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _tune_acc(label: str, base: dict, grid: list[dict], seed: int) -> dict:
    """The grid point with the best mean validation accuracy (tuning seed ``seed``; same grid for every method)."""

    outs = sweep(_acc_task, [dict(base, **g, seed=seed) for g in grid], label)
    return grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]


T10_GRIDS = {
    "quick": dict(TABLE_GRIDS["quick"], lrs=(0.1, 1.0, 3.0, 10.0), clips=(0.1, 1.0), trials=12),
    "full": dict(TABLE_GRIDS["quick"], lrs=(0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 10.0), clips=(0.05, 0.1, 0.5, 1.0),
                 tune_trials=3, trials=40),
}
T10_SHRINK = 25  # "25× less" public data
T10_DROP = 0.05  # the paper's largest drop from 1% public to 25× less (IMDB: 0.80 → 0.75), fixed before the data
T10_MARGIN = TABLE_MARGIN  # "beats DP-SGD": violated if below it by more than 0.01 (adadps.table's margin)
T10_METHODS = ("all", "small", "dp_sgd")
T10_LABELS = {"all": "AdaDPS (all public)", "small": f"AdaDPS ({T10_SHRINK}× less public)", "dp_sgd": "DP-SGD"}


def _t10_wrong_public_mutant():
    """A declared fault: the public split's feature columns reversed (public statistics of the wrong features)."""

    original = _public_subset_cached

    def reversed_public(problem_items: tuple, keep: int):
        import dataclasses

        prob = original(problem_items, keep)
        return dataclasses.replace(prob, public_features=np.ascontiguousarray(prob.public_features[:, ::-1]))

    return Mutant("public-features-reversed", "verify.papers.adadps.experiments._public_subset_cached: "
                  "the public split's feature "
                  "columns reversed (AdaDPS preconditions with the statistics of the wrong features)", "kernel",
                  lambda: substituted("verify.papers.adadps.experiments._public_subset_cached", reversed_public))


@claim(
    "adadps.table10",
    kind="experiment",
    statement="""Table 10 / App. C.3: "Only a very small set of public data (even 0.04% the size of private training
    data) can provide good preconditioner estimates": AdaDPS with 25× less public data (0.75 on IMDB, 0.39 on
    StackOverflow) stays close to AdaDPS with 1% public data (0.80, 0.40) and above DP-SGD (0.63, 0.28).""",
    theory=(),
    mutants=[_t10_wrong_public_mutant(), *_one_arm_mutants(("adadps_rmsprop",), "AdaDPS")],
    notes="Stand-in problem: adadps.table's zipf_bow_logistic at its quick size at both budgets (n = 1500, d = 200, "
    "public split 75 records = 5% of n, chosen there so that at most 10% of the features are unseen in it); '25× "
    "less' keeps its first 3 records (the same population, nested). Every method: σ = 1, b = 32, 300 steps, "
    "Poisson sampling, the same accountant ε; (lr, C) tuned separately per method on the same grid by validation "
    "accuracy (tuning seeds), test accuracy on fresh seeds (12 runs quick, 40 full). Two relations, 2 tests "
    "(verify.decide): (a) close: E[acc(all) − acc(25× less)] ≤ 0.05, the paper's own largest drop (IMDB), by "
    "decide.upper_bounded on the Welch difference (violated if the family-level lower bound exceeds 0.05); "
    "(b) above DP-SGD: decide.better on test accuracy with adadps.table's margin 0.01. Verdict: the conjunction; "
    "a near-tie with DP-SGD is inconclusive (adadps.table finds AdaDPS (public) ≈ DP-SGD on this problem at this "
    "size: the stylized problem may lack the power for (b)). Reported: the features unseen in each public split. "
    "Mechanism probe first (_central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table10(budget: str, seed: int) -> Outcome:
    g = T10_GRIDS[by_budget(budget, "quick", "full")]
    # the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(("adadps_rmsprop", "dp_sgd"), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table10")
    prob = make_problem("zipf_bow_logistic", g["problem"])
    n_pub = prob.public_features.shape[0]
    keep = {"all": n_pub, "small": max(1, n_pub // T10_SHRINK), "dp_sgd": n_pub}
    method = {"all": "adadps_rmsprop", "small": "adadps_rmsprop", "dp_sgd": "dp_sgd"}
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {m: _tune_acc(f"adadps.table10 tune {m}", dict(base, public_keep=keep[m], method=method[m],
                                                            trials=g["tune_trials"]), grid,
                            child_seed(seed, "adadps.table10", "tune"))
              for m in T10_METHODS}
    tasks = [dict(base, public_keep=keep[m], method=method[m], trials=g["trials"],
                  seed=child_seed(seed, "adadps.table10", "run"),
                  **chosen[m]) for m in T10_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T10_METHODS, sweep(_acc_task, tasks, "adadps.table10 runs"))}
    drop = decide.upper_bounded(decide.difference_estimate(acc["all"], acc["small"]), T10_DROP,
                                test=f"test accuracy AdaDPS (all public) − AdaDPS ({T10_SHRINK}× less) ≤ {T10_DROP:g}")
    beats = decide.better(-acc["small"], -acc["dp_sgd"], what=f"test accuracy DP-SGD − AdaDPS ({T10_SHRINK}× less)",
                          margin=T10_MARGIN)
    decisions = [drop, beats]
    verdict = str(decide.combine(decisions))
    unseen = {m: int(np.sum(~(_public_subset_cached(tuple(sorted(g["problem"].items())), keep[m]).public_features > 0)
                            .any(axis=0))) for m in ("all", "small")}
    means = {m: stats.mean_ci(acc[m]) for m in T10_METHODS}
    evidence = (f"{verdict}: close to all public: {drop.verdict} ({drop.phrase()}); above DP-SGD: {beats.verdict} "
                f"({beats.phrase()}); public records {keep['all']} vs {keep['small']} (features unseen: "
                f"{unseen['all']} vs {unseen['small']} of {prob.d}); test accuracy ({g['trials']} seeds): "
                + ", ".join(f"{T10_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T10_METHODS))
    fig = Figure("table10", "adadps Table 10: public data size (zipf_bow_logistic)", [_methods_panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", T10_METHODS, T10_LABELS, means)])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T10_METHODS}
    numbers.update({"public_all": keep["all"], "public_small": keep["small"], "unseen_all": unseen["all"],
                    "unseen_small": unseen["small"], "drop": drop.estimate, "diff_small_minus_dpsgd": -beats.estimate})
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table10", verdict, evidence)
    summary = (_summary_head(probe_why, verdict) + f"AdaDPS with {T10_SHRINK}× less public data "
               f"({keep['small']} records) is close to all of it ({keep['all']}): {drop.verdict}, and above DP-SGD: "
               f"{beats.verdict} ({g['trials']} seeds per method)")
    points = (_method_points(T10_METHODS, T10_LABELS, means, chosen, g["trials"])
              + decide.decision_points(decisions))
    for row, m in zip(points, T10_METHODS):
        if m in unseen:
            row.update({"public records": keep[m], "features unseen in public": unseen[m], "d": prob.d})
    finding = points_finding(verdict, [(d_.reason, d_.verdict) for d_ in decisions], what="Table 10's two parts",
                             paper_where="Table 10 / App. C.3 (IMDB, StackOverflow with 25× less public data)",
                             surrogate=True)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


# ======================================================================================
# Table 9: non-private AdaS ≈ Adam (zipf_bow_logistic)
# ======================================================================================
T9_GRIDS = {
    "quick": dict(problem=TABLE_GRIDS["quick"]["problem"], batch_size=64, steps=300, lrs=PAPER_LR_GRID + (3.0, 10.0),
                  tune_trials=2, trials=10),
    "full": dict(problem=TABLE_GRIDS["quick"]["problem"], batch_size=64, steps=600, lrs=PAPER_LR_GRID + (3.0, 10.0),
                 tune_trials=3, trials=30),
}
T9_MARGIN = 0.02  # test accuracy: "matches" = within 2 points (the table's 2-decimal rounding plus run-to-run spread)
T9_METHODS = ("adam", "adas_public", "adas_frequency", "sgd")
T9_KERNEL = {"adam": "dp_adam", "adas_public": "adadps_rmsprop", "adas_frequency": "adadps_fixed", "sgd": "dp_sgd"}
T9_LABELS = {"adam": "Adam", "adas_public": "AdaS (w/ public)", "adas_frequency": "AdaS (w/o public)", "sgd": "SGD"}


def t9_side_info(d: int):
    """AdaS (w/o public)'s side information: the token frequencies ("frequency", as adadps.table).

    Parameters
    ----------
    d : int
        The dimension (not used: the key is the same for every d).

    Returns
    -------
    str
        "frequency".
    """
    return "frequency"


def _t9_side_info_mutant():
    """A declared fault: AdaS (w/o public) run with A = 1 (no side information: plain SGD)."""

    return Mutant("adas-without-side-information", "verify.papers.adadps.experiments.t9_side_info: "
                  "A = 1 for AdaS (w/o public), "
                  "i.e. plain SGD in its place", "kernel",
                  lambda: substituted("verify.papers.adadps.experiments.t9_side_info", lambda d: np.ones(d)))


@claim(
    "adadps.table9",
    kind="experiment",
    statement="""Table 9 / App. C.2: "Performance of each method in non-private training. We see that AdaS can match
    the performance of Adam in non-private settings" (IMDB convex: Adam 0.88, AdaS w/ public 0.88, AdaS w/o public
    0.88; StackOverflow 0.64 for all three).""",
    theory=(),
    mutants=[_t9_side_info_mutant()],
    notes="Stand-in problem: adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200, public split 75 "
    "records). Non-private: no clipping (C = ∞), σ = 0, batch 64 (App. B's non-private batch), 300 steps quick, "
    "600 full. AdaS = AdaDPS's preconditioning without privatisation and without momentum (App. B): w/ public = "
    "kernel adadps_rmsprop (public RMSProp statistics, β = 0.99, ε = 1e-3), w/o public = adadps_fixed with the "
    "token-frequency side information; Adam = kernel dp_adam at σ = 0, C = ∞ (β₁ = 0.9, β₂ = 0.99); SGD reported "
    "only. Learning rates tuned per method on App. B's non-private grid {0.0005, ..., 2} plus 3 and 10 (as adadps."
    "table) by validation accuracy (tuning seeds), test accuracy on fresh seeds (10 quick, 30 full). 'Match': "
    "equivalence of mean test accuracies within ±0.02 (margin fixed in code: the table's two-decimal rounding plus "
    "run-to-run spread), verify.decide.equivalent (two one-sided tests) on the Welch difference, 2 tests (AdaS w/ "
    "and w/o public vs Adam); verdict the conjunction. Declared fault: AdaS (w/o public) with A = 1 (plain SGD), "
    "which must not pass as a match where SGD is far from Adam. "
    "Mechanism probe first (_central_mechanism_probe at C = ∞, σ = 0): a kernel whose noiseless "
    "unclipped step is not the stated one gives no verdict (the check raises, with the reason) when undecided or "
    "violated (a violation shown by runs of another mechanism is no evidence); a 'holds' "
    "becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table9(budget: str, seed: int) -> Outcome:
    g = T9_GRIDS[by_budget(budget, "quick", "full")]
    # the runs must take the stated (unclipped, noiseless) step: see decide.after_probe
    probe_why, _ = _central_mechanism_probe(tuple(T9_KERNEL.values()), 0.0, g["batch_size"], seed,
                                            "adadps.table9", clip=math.inf)
    prob = make_problem("zipf_bow_logistic", g["problem"])
    n_pub = prob.public_features.shape[0]
    side = t9_side_info(prob.d)
    base = dict(problem_kw=g["problem"], public_keep=n_pub, clip=math.inf, sigma=0.0, batch_size=g["batch_size"],
                steps=g["steps"])
    extra = {m: (dict(side_info=side) if m == "adas_frequency" else {}) for m in T9_METHODS}
    grid = [dict(lr=lr) for lr in g["lrs"]]
    chosen = {m: _tune_acc(f"adadps.table9 tune {m}", dict(base, method=T9_KERNEL[m], trials=g["tune_trials"],
                                                           **extra[m]), grid, child_seed(seed, "adadps.table9", "tune"))
              for m in T9_METHODS}
    tasks = [dict(base, method=T9_KERNEL[m], trials=g["trials"], seed=child_seed(seed, "adadps.table9", "run"),
                  **chosen[m], **extra[m])
             for m in T9_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T9_METHODS, sweep(_acc_task, tasks, "adadps.table9 runs"))}
    diffs = {m: decide.difference_estimate(acc[m], acc["adam"]) for m in ("adas_public", "adas_frequency")}
    decisions = [decide.equivalent(est, what=f"test accuracy {T9_LABELS[m]} − Adam", margin=T9_MARGIN)
                 for m, est in diffs.items()]
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in T9_METHODS}
    evidence = (f"{verdict}: " + "; ".join(d_.phrase() for d_ in decisions) + f"; test accuracy ({g['trials']} "
                "seeds, non-private): " + ", ".join(f"{T9_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g})"
                                                    for m in T9_METHODS))
    fig = Figure("table9", "adadps Table 9: non-private AdaS vs Adam (zipf_bow_logistic)", [_methods_panel(
        "mean ± 95% CI", "method", T9_METHODS, T9_LABELS, means)])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T9_METHODS}
    numbers.update({f"lr[{m}]": chosen[m]["lr"] for m in T9_METHODS})
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table9", verdict, evidence)
    summary = (_summary_head(probe_why, verdict) + ", ".join(f"{T9_LABELS[m]} ≈ Adam {d_.verdict}" for m, d_ in
                                                            zip(("adas_public", "adas_frequency"), decisions))
               + f" (equivalence within ±{T9_MARGIN:g}, non-private, {g['trials']} seeds per method)")
    points = decide.decision_points(decisions)
    for row, est in zip(points, diffs.values()):  # the other end of the two one-sided tests' interval
        row["holds bound, lower"] = est.lower(1 - decide.HOLDS_LEVEL)
    points = _method_points(T9_METHODS, T9_LABELS, means, chosen, g["trials"]) + points
    finding = points_finding(verdict, [(d_.reason, d_.verdict) for d_ in decisions], what="'AdaS matches Adam' "
                             "equivalences", paper_where="Table 9 / App. C.2 (IMDB, StackOverflow, non-private)",
                             surrogate=True)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


declare_equivalent("adadps.table9", "noise*3", "the runs are non-private (σ = 0): there is no noise to scale")
declare_equivalent("adadps.table9", "no-clipping", "the runs are non-private (C = ∞): no record is clipped")


# ======================================================================================
# Table 8: DP-Adam-Pub (DP-Adam with clean public preconditioners) vs AdaDPS
# ======================================================================================
T8_BETAS = (0.9, 0.9, 0.99)  # β₁ (weight of the private gradient in m), β₂ (m's rate), β₃ (v's rate): not given
#: the two readings of DP-Adam-Pub: the displayed update with a share 1 − β₁ = 0.1 of the clean public gradient in
#: m, and the caption's "DP-Adam using clean preconditioners estimated on public data" (β₁ = 1: only v is public)
T8_READINGS = {"dp_adam_pub_formula": 0.9, "dp_adam_pub_caption": 1.0}
T8_EPS = 1e-3  # ϵ, the kernel's eps_a for AdaDPS
T8_PUB_METHOD = "dp_adam_pub"  # the name dp_adam_pub passes to the kernels' fault hooks (kernels/faults.py)


def dp_adam_pub(problem, rng: np.random.Generator, *, lr: float, clip: float, sigma: float, batch_size: int,
                steps: int, beta1: float | None = None) -> np.ndarray:
    """One run of DP-Adam-Pub (App. C.1, Table 8), NumPy, returns w_T:

    g̃ = (1/b)Σ_B clip(g_i, C) + N(0, σ²C²)/b (Poisson batch at rate b/n, as the kernel's DP methods),
    ĝ = mean gradient of b public records drawn with replacement,
    m ← β₂m + (1 − β₂)(β₁g̃ + (1 − β₁)ĝ), v ← β₃v + (1 − β₃)ĝ², w ← w − α(m/(1 − β₂ᵗ))/(√(v/(1 − β₃ᵗ)) + ϵ);
    w⁰ = 0, β's = T8_BETAS (β₁ = ``beta1`` if given), ϵ = T8_EPS.  The batch and public draws reuse
    kernels.adadps_reference's helpers.  Like the kernel methods it honours the kernels' fault hooks
    (kernels.faults: noise scale, stepsize scale, skipped clipping) under the method name T8_PUB_METHOD.
    A diverging run ends non-finite (its accuracy is then scored at w = 0 by the caller).

    Parameters
    ----------
    problem : kernels.adadps.GLMProblem
        The problem (training and public records).
    rng : numpy.random.Generator
        The run's randomness (batches, public draws, noise).
    lr : float
        The learning rate α.
    clip : float
        The clipping norm C.
    sigma : float
        The noise multiplier σ.
    batch_size : int
        The expected batch size b.
    steps : int
        The steps T.
    beta1 : float or None
        β₁ (None: T8_BETAS's).

    Returns
    -------
    numpy.ndarray
        w_T, shape (d,).
    """

    b1, b2, b3 = T8_BETAS
    b1 = b1 if beta1 is None else beta1
    # the kernels' fault hooks (kernels/faults.py), in the kernel wrappers' order: the noise's scale σC is fixed
    # before a skipped clipping; the method name T8_PUB_METHOD keeps the one-arm faults (AdaDPS only) off this arm
    noise_std = sigma * clip if sigma > 0 else 0.0
    noise_std = noise_std * faults.noise_factor(noise_std, method=T8_PUB_METHOD)
    lr = lr * faults.stepsize_scale(method=T8_PUB_METHOD)
    clip = math.inf if faults.clipping_skipped(clip) else clip
    X, y, n, d = problem.features, problem.labels, problem.n, problem.d
    Xp, yp = problem.public_features, problem.public_labels
    perm = np.arange(n)
    w, m, v = np.zeros(d), np.zeros(d), np.zeros(d)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, steps + 1):
            batch = ref.draw_batch(rng, perm, "poisson", batch_size / n, batch_size)
            idx = rng.integers(0, Xp.shape[0], batch_size)
            gh = ref.glm_grads(problem.loss, Xp[idx], yp[idx], w).mean(axis=0)
            total = ref.clip_rows(ref.glm_grads(problem.loss, X[batch], y[batch], w), clip).sum(axis=0)
            if sigma > 0:
                total = total + noise_std * rng.standard_normal(d)
            m = b2 * m + (1 - b2) * (b1 * total / batch_size + (1 - b1) * gh)
            v = b3 * v + (1 - b3) * gh * gh
            w = w - lr * (m / (1 - b2**t)) / (np.sqrt(v / (1 - b3**t)) + T8_EPS)
    return w


def _t8_task(problem_kw: dict, method: str, lr: float, clip: float, sigma: float, batch_size: int, steps: int,
             trials: int, seed: int) -> dict:
    """``trials`` runs of DP-Adam-Pub (this module's NumPy) or a kernel method (via :func:`_acc_task`, which builds
    the public split through :func:`_public_subset_cached`): validation and test accuracy per run."""
    if method not in T8_READINGS:
        prob = make_problem("zipf_bow_logistic", problem_kw)
        return _acc_task(problem_kw, prob.public_features.shape[0], method, lr, clip, sigma, batch_size, steps,
                         trials, seed)
    prob = make_problem("zipf_bow_logistic", problem_kw)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = [dp_adam_pub(prob, np.random.default_rng(s), lr=lr, clip=clip, sigma=sigma, batch_size=batch_size,
                     steps=steps, beta1=T8_READINGS[method]) for s in np.random.SeedSequence(int(seed)).spawn(trials)]
    W = [np.where(np.isfinite(w), w, 0.0) for w in W]
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


T8_GRIDS = {"quick": dict(T10_GRIDS["quick"], trials=12), "full": dict(T10_GRIDS["full"], trials=40)}
T8_METHODS = ("adadps_rmsprop", "dp_adam_pub_formula", "dp_adam_pub_caption", "dp_sgd")
T8_LABELS = {"adadps_rmsprop": "AdaDPS (w/ public)", "dp_adam_pub_formula": "DP-Adam-Pub (β₁ = 0.9)",
             "dp_adam_pub_caption": "DP-Adam-Pub (β₁ = 1)", "dp_sgd": "DP-SGD"}


@claim(
    "adadps.table8",
    kind="experiment",
    statement="""Table 8 / App. C.1: AdaDPS with public data outperforms DP-Adam-Pub (DP-Adam with clean
    preconditioners estimated on public data) at the same privacy (IMDB 0.80 vs 0.74, StackOverflow 0.40 vs 0.31,
    MNIST autoencoder loss 0.036 vs 0.064).""",
    theory=(),
    mutants=[_t10_wrong_public_mutant(), *_one_arm_mutants(("adadps_rmsprop",), "AdaDPS")],
    notes="The ordering stated: AdaDPS (w/ public) above DP-Adam-Pub on every dataset; DP-Adam-Pub vs DP-SGD is not "
    "claimed (above on IMDB and StackOverflow, below on MNIST), so it is only reported. Stand-in problem: "
    "adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200, public split 75 records). DP-Adam-Pub "
    "is not a kernel method: verify.papers.adadps.experiments.dp_adam_pub implements App. C.1's update in NumPy "
    "(Poisson batch, "
    "clip, noise σC/b, public batch of b with replacement, as the kernel's methods), β₂ = 0.9, β₃ = 0.99, ϵ = 1e-3 "
    "(the paper says only 'small constants'). Two readings of β₁, fixed before the verdicts: the displayed update "
    "m ← β₂m + (1 − β₂)(β₁g̃ + (1 − β₁)ĝ) with β₁ = 0.9 (a tenth of the clean public gradient enters m), and the "
    "caption's 'DP-Adam using clean preconditioners estimated on public data' (β₁ = 1: only v is public). "
    "AdaDPS = kernel adadps_rmsprop (ϵ = 1e-3). Every method σ = 1, b = 32, 300 steps, the same accountant ε; "
    "(lr, C) tuned per method on adadps.table10's grid by validation accuracy, test accuracy on fresh seeds (12 "
    "quick, 40 full). Decisions (2 tests, one per reading): verify.decide.better on test accuracy, margin 0.01 "
    "(adadps.table's): holds if AdaDPS is above, violated if below by more than 0.01. Verdict: the common verdict "
    "where the readings agree, else inconclusive (the paper's text does not fix β₁; at the full budget the first "
    "version, with β₁ = 0.9 only, found DP-Adam-Pub above AdaDPS by 0.035, violated, while β₁ = 1 puts it 0.046 "
    "below: the statement's truth on this problem turns on the share of clean public gradient). Declared fault: "
    "AdaDPS's public split with its feature columns reversed (DP-Adam-Pub keeps the true split). DP-Adam-Pub "
    "honours the kernels' fault hooks (noise scale, stepsize scale, skipped clipping) under the name dp_adam_pub. "
    "Mechanism probe first (_central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=2,
)
def table8(budget: str, seed: int) -> Outcome:
    g = T8_GRIDS[by_budget(budget, "quick", "full")]
    # the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(("adadps_rmsprop", "dp_sgd"), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table8")
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {}
    for m in T8_METHODS:
        outs = sweep(_t8_task, [dict(base, method=m, trials=g["tune_trials"],
                                     seed=child_seed(seed, "adadps.table8", "tune"), **p)
                                for p in grid], f"adadps.table8 tune {m}")
        chosen[m] = grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table8", "run"), **chosen[m])
             for m in T8_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T8_METHODS, sweep(_t8_task, tasks, "adadps.table8 runs"))}
    decisions = [decide.better(-acc["adadps_rmsprop"], -acc[m], what=f"test accuracy {T8_LABELS[m]} − AdaDPS (w/ "
                               "public)", margin=TABLE_MARGIN) for m in T8_READINGS]
    parts = [str(d_.verdict) for d_ in decisions]
    # the two readings are alternatives: a verdict only where they agree
    verdict = parts[0] if len(set(parts)) == 1 else "inconclusive"
    means = {m: stats.mean_ci(acc[m]) for m in T8_METHODS}
    split = "" if len(set(parts)) == 1 else " (the readings disagree: " + " vs ".join(parts) + ")"
    evidence = (f"{verdict}{split}: " + "; ".join(d_.phrase() for d_ in decisions)
                + f"; test accuracy ({g['trials']} seeds, σ = {TABLE_SIGMA:g}): "
                + ", ".join(f"{T8_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T8_METHODS)
                + "; DP-Adam-Pub − DP-SGD " + ", ".join(f"{means[m].estimate - means['dp_sgd'].estimate:+.4f}"
                                                        for m in T8_READINGS) + " (reported, not claimed)")
    fig = Figure("table8", "adadps Table 8: DP-Adam-Pub vs AdaDPS (zipf_bow_logistic)", [_methods_panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", T8_METHODS, T8_LABELS, means)])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T8_METHODS}
    numbers.update({f"diff_adadps_minus[{m}]": -d_.estimate for m, d_ in zip(T8_READINGS, decisions)})
    counter = ({m: {"difference": -d_.estimate, "test": d_.reason} for m, d_ in zip(T8_READINGS, decisions)}
               if verdict == "violated" else None)
    verdict, evidence = decide.after_probe(probe_why, "adadps.table8", verdict, evidence)
    summary = (_summary_head(probe_why, verdict) + "AdaDPS (w/ public) above "
               + ", above ".join(f"{T8_LABELS[m]} {d_.verdict}" for m, d_ in zip(T8_READINGS, decisions))
               + (" (the readings of β₁ disagree)" if split else "") + f" ({g['trials']} seeds per method)")
    points = (_method_points(T8_METHODS, T8_LABELS, means, chosen, g["trials"], σ=TABLE_SIGMA)
              + decide.decision_points(decisions))
    for row, m in zip(points, T8_METHODS):
        if m in T8_READINGS:
            row["− DP-SGD (reported)"] = means[m].estimate - means["dp_sgd"].estimate
    finding = points_finding(verdict, [(d_.reason, d_.verdict) for d_ in decisions], what="readings of DP-Adam-Pub "
                             "(β₁), both violated", paper_where="Table 8 / App. C.1 (IMDB, StackOverflow, MNIST)",
                             surrogate=True)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)


# ======================================================================================
# Table 4: the TF-IDF row (zipf_bow_logistic with TF-IDF features)
# ======================================================================================
@lru_cache(maxsize=8)
def _tfidf_cached(problem_items: tuple, public: str):
    """adadps.table's zipf_bow_logistic with TF-IDF features: x_ij = idf_j·1{token j in record i}, each row scaled to
    unit L2 norm (the usual TF-IDF vectors, binary term frequency), idf_j = log(1/P(x_j = 1)) from the population
    law (open knowledge; recovered up to a constant, which the row scaling removes, from the problem's
    "inverse_idf" side information 1/idf_j). Private, public and test splits transformed alike. ``public``:
    "public" (the problem's public split) or "private" (the private training records themselves: the 'ideal'
    preconditioner from clean private gradients)."""
    import dataclasses

    prob = make_problem("zipf_bow_logistic", dict(problem_items))
    idf = 1.0 / prob.side_info["inverse_idf"]

    def tfidf(X):
        Z = X * idf
        nrm = np.linalg.norm(Z, axis=1, keepdims=True)
        return np.ascontiguousarray(Z / np.where(nrm > 0, nrm, 1.0))

    out = dataclasses.replace(prob, features=tfidf(prob.features), public_features=tfidf(prob.public_features),
                              test_features=tfidf(prob.test_features))
    if public == "private":
        out = dataclasses.replace(out, public_features=out.features, public_labels=out.labels)
    return out


T4T_METHODS = ("dp_sgd", "dp_adam", "adadps", "ideal")
T4T_KERNEL = {"dp_sgd": "dp_sgd", "dp_adam": "dp_adam", "adadps": "adadps_fixed", "ideal": "adadps_rmsprop"}
T4T_LABELS = {"dp_sgd": "DP-SGD", "dp_adam": "DP-Adam", "adadps": "AdaDPS (A ∝ 1/TF-IDF)", "ideal": "ideal"}
#: adadps.table10's grids widened until no method's tuned (lr, C) sits at an edge (unit-norm TF-IDF rows give small
#: gradients: with the paper's grid plus 3 and 10, DP-SGD's best lr was the top, 10, and then 100 of a first widening)
T4T_GRIDS = {k: dict(T10_GRIDS[k], lrs=T10_GRIDS[k]["lrs"] + (30.0, 100.0, 300.0, 1000.0),
                     clips=(0.01,) + T10_GRIDS[k]["clips"], trials=(12 if k == "quick" else 40)) for k in T10_GRIDS}
T4T_IDEAL_GAP = 0.05  # "only slightly underperforming the ideal oracle": at most 5 points below (paper: 0.03)


def _t4t_task(problem_kw: dict, method: str, lr: float, clip: float, sigma: float, batch_size: int, steps: int,
              trials: int, seed: int) -> dict:
    """``trials`` kernel runs of one Table 4 method on the TF-IDF problem: validation and test accuracy per run."""

    prob = _tfidf_cached(tuple(sorted(problem_kw.items())), "private" if method == "ideal" else "public")
    out = ka.run_central(prob, T4T_KERNEL[method], lr=lr, clip=clip, sigma=sigma, batch_size=batch_size, steps=steps,
                         side_info="inverse_idf", options=ka.CentralOptions(eps_a=1e-3, n_log=2), trials=trials,
                         seed=seed)
    (Xv, yv), (Xt, yt) = _split_eval(prob)
    W = np.where(np.isfinite(out["w"]), out["w"], 0.0)
    return {"val_acc": np.array([prob.accuracy(w, Xv, yv) for w in W]),
            "test_acc": np.array([prob.accuracy(w, Xt, yt) for w in W])}


def _t4t_inverted_side_info_mutant():
    """A declared fault: AdaDPS's side information inverted, A ∝ TF-IDF weight instead of 1/TF-IDF weight."""

    original = _tfidf_cached

    def inverted(problem_items: tuple, public: str):
        import dataclasses

        prob = original(problem_items, public)
        a = 1.0 / prob.side_info["inverse_idf"]
        return dataclasses.replace(prob, side_info=dict(prob.side_info, inverse_idf=a / a.max()))

    return Mutant("tfidf-side-information-inverted", "verify.papers.adadps.experiments._tfidf_cached: "
                  "AdaDPS's side information "
                  "A ∝ TF-IDF weight (idf_j) instead of A ∝ 1/idf_j (the rare features damped, not amplified)",
                  "kernel", lambda: substituted("verify.papers.adadps.experiments._tfidf_cached", inverted))


@claim(
    "adadps.table4",
    kind="experiment",
    statement="""Table 4 (TF-IDF row) / Section 6.1.2: with TF-IDF features and A inversely proportional to the
    features' TF-IDF values, "AdaDPS outperforms the baselines [DP-SGD 0.68, DP-Adam 0.65] by ~10% absolute
    accuracy [0.80], only slightly underperforming the 'ideal' oracle [0.83]" (AdaDPS-RMSProp with the second moment
    estimated on clean private gradients).""",
    theory=(),
    mutants=[_t4t_inverted_side_info_mutant(), *_one_arm_mutants(("adadps_fixed",), "AdaDPS")],
    notes="Expressible on the stand-in: adadps.table's zipf_bow_logistic at its quick size (n = 1500, d = 200) with "
    "TF-IDF features built from its binary bag of words (verify.papers.adadps.experiments._tfidf_cached: "
    "idf_j = log(1/p_j) from "
    "the population law, rows scaled to unit norm); AdaDPS = kernel adadps_fixed with A = the problem's "
    "'inverse_idf' side information (A_j ∝ 1/idf_j: inversely proportional to the feature's TF-IDF weight); "
    "ideal = kernel adadps_rmsprop whose 'public' split is the private training set itself (clean private "
    "gradients, as the paper's oracle; not private, an upper reference only). Every method σ = 1, b = 32, 300 "
    "steps, Poisson sampling; (lr, C) tuned per method by validation accuracy on adadps.table10's grid widened to "
    "lr up to 1000 and C down to 0.01 (with the narrower grid DP-SGD's tuned lr sat at its top, 10, and the "
    "verdict was an artefact of it: holds there, a near-tie once DP-SGD could take lr = 100), test accuracy on "
    "fresh seeds (12 quick, 40 full). A tuned point at a corner (DP-SGD at lr 1000, C 0.01; DP-Adam at C 0.01) is "
    "degenerate, not an edge: with every record clipped DP-SGD's step depends on lr·C (10 here, also reachable "
    "inside the grid) and DP-Adam's normalisation makes it nearly invariant to C. "
    "Tests (3): AdaDPS > DP-SGD and AdaDPS > DP-Adam by "
    "verify.decide.better (margin 0.01, adadps.table's; the '~10%' size is reported, not tested), and 'slightly "
    "below ideal': E[acc(ideal) − acc(AdaDPS)] ≤ 0.05 by decide.upper_bounded (margin fixed in code; the paper's gap "
    "is 0.03). Verdict: the conjunction. Not tested: the BoW-vs-TF-IDF comparison across methods ('TF-IDF "
    "features result in higher accuracies than BoW features' across all methods), which Table 4 itself "
    "contradicts for DP-Adam (0.65 < 0.68). Declared fault: AdaDPS with A ∝ idf_j (the side information inverted). "
    "Mechanism probe first (_central_mechanism_probe): a kernel whose noise is not σC/b (within "
    "[0.8, 1.25] over 20000 draws) or whose clipped step is not the stated one gives no verdict (the "
    "check raises, with the reason) when undecided or violated (a violation shown by runs of another mechanism is "
    "no evidence); a 'holds' becomes inconclusive (decide.after_probe).",
    tests=3,
)
def table4(budget: str, seed: int) -> Outcome:
    g = T4T_GRIDS[by_budget(budget, "quick", "full")]
    # the runs must be the stated mechanism (noise σC/b, the stated step): see decide.after_probe
    probe_why, _ = _central_mechanism_probe(tuple(T4T_KERNEL.values()), TABLE_SIGMA, g["batch_size"], seed,
                                            "adadps.table4")
    grid = [dict(lr=lr, clip=c) for lr in g["lrs"] for c in g["clips"]]
    base = dict(problem_kw=g["problem"], sigma=TABLE_SIGMA, batch_size=g["batch_size"], steps=g["steps"])
    chosen = {}
    for m in T4T_METHODS:
        outs = sweep(_t4t_task, [dict(base, method=m, trials=g["tune_trials"],
                                      seed=child_seed(seed, "adadps.table4", "tune"), **p)
                                 for p in grid], f"adadps.table4 tune {m}")
        chosen[m] = grid[int(np.argmax([float(np.mean(o["val_acc"])) for o in outs]))]
    tasks = [dict(base, method=m, trials=g["trials"], seed=child_seed(seed, "adadps.table4", "run"), **chosen[m])
             for m in T4T_METHODS]
    acc = {m: np.asarray(o["test_acc"]) for m, o in zip(T4T_METHODS, sweep(_t4t_task, tasks, "adadps.table4 runs"))}
    decisions = [decide.better(-acc["adadps"], -acc[m], what=f"test accuracy {T4T_LABELS[m]} − AdaDPS",
                               margin=TABLE_MARGIN) for m in ("dp_sgd", "dp_adam")]
    decisions.append(decide.upper_bounded(decide.difference_estimate(acc["ideal"], acc["adadps"]), T4T_IDEAL_GAP,
                                          test=f"test accuracy ideal − AdaDPS ≤ {T4T_IDEAL_GAP:g}"))
    verdict = str(decide.combine(decisions))
    means = {m: stats.mean_ci(acc[m]) for m in T4T_METHODS}
    best_gap = means["adadps"].estimate - max(means["dp_sgd"].estimate, means["dp_adam"].estimate)
    evidence = (f"{verdict}: " + "; ".join(d_.phrase() for d_ in decisions) + f"; TF-IDF test accuracy "
                f"({g['trials']} seeds, σ = {TABLE_SIGMA:g}): "
                + ", ".join(f"{T4T_LABELS[m]} {means[m]} (lr {chosen[m]['lr']:g}, C {chosen[m]['clip']:g})"
                            for m in T4T_METHODS)
                + f"; AdaDPS − best baseline {best_gap:+.4f} "
                "(the paper: about +0.10; reported)")
    edge = [T4T_LABELS[m] for m in T4T_METHODS if chosen[m]["lr"] == max(g["lrs"])]
    if edge:
        evidence += f"; tuned lr at the grid's top ({max(g['lrs']):g}) for {', '.join(edge)}"
    fig = Figure("table4", "adadps Table 4, TF-IDF row (zipf_bow_logistic with TF-IDF features)", [_methods_panel(
        f"mean ± 95% CI, σ = {TABLE_SIGMA:g}", "method", T4T_METHODS, T4T_LABELS, means)])
    numbers = {f"test_acc[{m}]": means[m].estimate for m in T4T_METHODS}
    counter = None
    if verdict == "violated":
        counter = {d_.reason: str(d_.verdict) for d_ in decisions if d_.verdict == "violated"}
    verdict, evidence = decide.after_probe(probe_why, "adadps.table4", verdict, evidence)
    summary = (_summary_head(probe_why, verdict) + f"on TF-IDF features {T4T_LABELS['adadps']} above DP-SGD "
               f"{decisions[0].verdict}, above DP-Adam {decisions[1].verdict}, within {T4T_IDEAL_GAP:g} of ideal "
               f"{decisions[2].verdict}; AdaDPS − best baseline {best_gap:+.4f} (the paper: about +0.10)")
    points = (_method_points(T4T_METHODS, T4T_LABELS, means, chosen, g["trials"], σ=TABLE_SIGMA,
                             **{"lr grid top": max(g["lrs"])})
              + decide.decision_points(decisions))
    finding = points_finding(verdict, [(d_.reason, d_.verdict) for d_ in decisions],
                             what="Table 4's TF-IDF comparisons",
                             paper_where="Table 4, TF-IDF row / Section 6.1.2 (IMDB)", surrogate=True)
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   decisions=decisions, finding=finding, summary=summary, points=points)
