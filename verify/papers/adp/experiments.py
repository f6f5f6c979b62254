"""Claims of ``adp`` about its experiments (Section 6): Table 1's trend and footnote 3's privacy figures.

- Table 1 (Sections 6.1–6.2): ``adp.table1``, the advantage of ADP-SGD over DP-SGD grows with T at fixed
  privacy, measured on the ``smooth_nonconvex`` stand-in problem of :mod:`kernels.adp` with both methods at
  the same accountant ε, behind a kernel probe against :mod:`kernels.adp_reference`; decided through
  :mod:`verify.decide`;
- footnote 3 (Section 6): ``adp.footnote3``, the ε that the paper's training runs report "by the moments
  accountant", recomputed with dp-accounting's accountants.
"""

from __future__ import annotations

import math

import dp_accounting as dpa
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant as rdpa

from kernels import adp as kadp
from kernels.adp import run_adp
from kernels.adp_reference import adp_reference
from theory import adp as tadp
from theory import numeric
from verify import decide
from verify.decide import Estimate
from verify.findings import Finding, parts_finding
from verify.mutants import declare_equivalent
from verify.papers.adp._common import (
    P51_C,
    _p51_task,
)
from verify.registry import Figure, Outcome, Panel, Series, by_budget, child_seed, claim
from verify.runner import sweep

# ======================================================================================
# Table 1's trend: the ADP–DP gap grows with T at fixed privacy
# ======================================================================================
TABLE1_GRIDS = {
    "quick": dict(T=(300, 3000), epsilon=(1.0,), trials=8, n=20000, d=10),
    "full": dict(T=(300, 1000, 3000, 10000), epsilon=(0.5, 1.0, 2.0), trials=30, n=50000, d=20),
}


def _utility_at_best_t(o: dict) -> np.ndarray:
    """Per-trial ‖∇F(θ_τ)‖² at τ = the logged t ≥ 1 with the smallest mean over trials."""
    g = np.asarray(o["grad_norm2"])
    best = 1 + int(np.argmin(np.mean(g, axis=0)[1:]))
    return g[:, best]


def log_growth_estimate(d0, a0, d1, a1):
    """log of advantage(T1)/advantage(T0) with advantage = mean(DP)/mean(ADP): Σ ± log(mean) of four independent
    samples, delta-method standard error Σ s_i²/(n_i m_i²), Welch–Satterthwaite degrees of freedom.

    Parameters
    ----------
    d0, a0 : array_like
        DP-SGD's and ADP-SGD's samples at T0.
    d1, a1 : array_like
        Their samples at T1.

    Returns
    -------
    verify.decide.Estimate
        The log growth, its standard error and degrees of freedom.
    """
    parts = [(np.asarray(x, float), sgn) for x, sgn in ((d1, 1), (a1, -1), (d0, -1), (a0, 1))]
    val = sum(sgn * math.log(float(x.mean())) for x, sgn in parts)
    terms = np.array([float(x.var(ddof=1)) / (x.size * float(x.mean()) ** 2) for x, _ in parts])
    dfs = np.array([x.size - 1.0 for x, _ in parts])
    df = float(terms.sum() ** 2 / np.sum(terms**2 / dfs)) if np.sum(terms**2) > 0 else math.inf
    return Estimate(val, float(math.sqrt(terms.sum())), df)


#: the kernel probe of adp.table1 — steps of run_adp against kernels.adp_reference (the NumPy twin, same
#: draws) with the declared η, σ, schedule; relative tolerance on θ (rounding: the two agree to ~1e-12)
TABLE1_PROBE_STEPS, TABLE1_PROBE_RTOL = 20, 1e-6


def _table1_kernel_probe(n: int, d: int, sigmas: dict, a: float, seed: int) -> tuple[str, dict]:
    """Does run_adp run ADP-SGD / DP-SGD with the declared η = 1, σ and b_t = √(a + ct)? (a calibration probe)

    ``TABLE1_PROBE_STEPS`` steps of each arm (``sigmas``: alpha_rule -> σ, the runs' own) on the runs' problem, one
    trial, against :func:`kernels.adp_reference.adp_reference` given the same draws; a last iterate off by more
    than ``TABLE1_PROBE_RTOL`` (relative, in ℓ∞ over ‖θ‖∞) means the kernel runs another mechanism (more noise
    than the accountant was told, another stepsize), so its utilities say nothing about the table.
    Returns ("", numbers) when both arms agree, else (the reason, numbers)."""
    prob = kadp.smooth_nonconvex(n=n, d=d, seed=seed % (2**31))
    bad, numbers = [], {}
    for rule, sigma in sigmas.items():
        kw = dict(steps=TABLE1_PROBE_STEPS, eta=1.0, b_rule="poly", alpha_rule=rule, sigma=float(sigma),
                  schedule=kadp.AdpSchedule(a=a, c=P51_C))
        pseed = child_seed(seed, "adp.table1", "probe", rule)
        out = run_adp(prob, trials=1, seed=pseed, n_log=2, **kw)
        ref = adp_reference(prob, np.random.default_rng(np.random.SeedSequence(pseed).spawn(1)[0]), **kw)
        rel = float(np.max(np.abs(out["theta"][0] - ref)) / max(float(np.max(np.abs(ref))), 1e-300))
        numbers[f"probe_rel_diff[{rule}]"] = rel
        if not rel <= TABLE1_PROBE_RTOL:
            bad.append(f"{rule}: run_adp's θ after {TABLE1_PROBE_STEPS} steps is off its NumPy twin's (same draws, "
                       f"declared η = 1 and σ = {float(sigma):.3g}) by {rel:.3g} relative")
    return "; ".join(bad), numbers


@claim(
    "adp.table1",
    kind="experiment",
    statement="""Table 1's trend: with b_t = √(20 + t) and the same privacy budget, the advantage of ADP-SGD over DP-SGD
    grows with the number of iterations T.""",
    theory=(),  # theorem4_1_variance, m_ratio: not evaluated (σ is calibrated by the accountant, not by eq. (6))
    notes="Stylized reproduction: smooth_nonconvex (docs/catalogue.md: a stand-in for CIFAR-10), one record per step "
    "(the paper's "
    "Table 1 used minibatches of 256 and ε̄ = ε/16: not reproduced, the kernel draws one record), utility min_t "
    "E‖∇F(θ_t)‖² over the logged t ≥ 1, both methods at the same accountant ε (σ calibrated per method and T by "
    "verify.papers.adp._common.matched_sigma: dp-accounting RDP, δ = 1e-5; Theorem 4.1's σ is not DP at these sizes, "
    "see adp.theorem4.1), η = 1. Advantage = DP utility / ADP utility (> 1: ADP better). Per ε, the log of "
    "advantage(T_max)/advantage(T_min) with a delta-method t interval "
    "(verify.papers.adp.experiments.log_growth_estimate) through "
    "verify.decide.upper_bounded: holds when it is > 0 at 95% one-sided; otherwise inconclusive — a stylized "
    "stand-in that does not show the trend is a failure to reproduce, not a refutation of the paper's table, so "
    "this claim never says violated. tests = 3 (one per ε of the full grid). Kernel probe (fixed in "
    "advance): 20 steps of run_adp per arm, with the runs' σ at the first ε and T, against the NumPy twin "
    "kernels.adp_reference with the same draws must agree to 1e-6 (relative θ); otherwise the runs are not the "
    "stated mechanism: a 'holds' becomes inconclusive and an undecided check gives no verdict (decide.after_probe).",
    tests=3,
)
def table1(budget: str, seed: int) -> Outcome:
    g = TABLE1_GRIDS[by_budget(budget, "quick", "full")]
    tasks = [dict(alpha_rule=r, T=T, n=g["n"], d=g["d"], trials=g["trials"],
                  seed=child_seed(seed, "adp.table1", k), a=20.0,
                  epsilon=e) for k, (T, e) in enumerate((T, e) for e in g["epsilon"] for T in g["T"])
             for r in ("dp", "adp")]
    outs = sweep(_p51_task, tasks, "adp.table1 runs")
    util = {(t_["alpha_rule"], t_["T"], t_["epsilon"]): _utility_at_best_t(o) for t_, o in zip(tasks, outs)}
    sig = {(t_["alpha_rule"], t_["T"], t_["epsilon"]): float(o["sigma"]) for t_, o in zip(tasks, outs)}
    decs, figures, series, parts, rows = [], {}, [], [], []
    for e in g["epsilon"]:
        adv = [float(np.mean(util[("dp", T, e)]) / np.mean(util[("adp", T, e)])) for T in g["T"]]
        t0, t1 = g["T"][0], g["T"][-1]
        est = log_growth_estimate(util[("dp", t0, e)], util[("adp", t0, e)], util[("dp", t1, e)], util[("adp", t1, e)])
        neg = decide.Estimate(-est.value, est.se, est.df)
        d = decide.upper_bounded(
            neg, 0.0, test=f"ε = {e:g}: −log(advantage(T={t1})/advantage(T={t0})), delta-method t (Welch df)",
            holds_reason=f"ε = {e:g}: the advantage grows T = {t0} → {t1} by {math.exp(est.value):.3g}× "
                         f"(lower bound {math.exp(est.lower(1 - decide.HOLDS_LEVEL)):.3g}× > 1)",
            can_violate=False,
            why_not="a stylized stand-in that does not show the trend is a failure to reproduce, not a refutation")
        if d.verdict != decide.Verdict.HOLDS:
            d = decide.Decision(d.verdict, d.control, d.estimate, d.holds_bound, d.violated_bound,
                                f"ε = {e:g}: Table 1's trend not reproduced on the stand-in (growth "
                                f"{math.exp(est.value):.3g}×, 95% lower bound {math.exp(est.lower(0.05)):.3g}×): a "
                                "failure to reproduce, not a refutation (a minibatch kernel at the paper's setting "
                                "would decide)")
        decs.append(d)
        parts.append(f"ε={e:g}: advantage " + ", ".join(f"T={T}: {a:.3g}" for T, a in zip(g["T"], adv))
                     + f" (σ DP/ADP at T={t1}: {sig[('dp', t1, e)]:.3g}/{sig[('adp', t1, e)]:.3g})")
        rows += [{"part": "runs", "ε": float(e), "T": int(T), "advantage (DP/ADP utility)": a,
                  "σ DP": sig[("dp", T, e)], "σ ADP": sig[("adp", T, e)]} for T, a in zip(g["T"], adv)]
        rows.append({"part": "decision", "ε": float(e), "T from": int(t0), "T to": int(t1),
                     "growth": math.exp(est.value), "95% lower bound": math.exp(est.lower(0.05)),
                     **decide.decision_points([d])[0]})
        figures.update({f"advantage_eps{e:g}_T{T}": a for T, a in zip(g["T"], adv)})
        figures[f"growth_eps{e:g}"] = math.exp(est.value)
        series.append(Series(f"ε = {e:g}", g["T"], adv))
    series.append(Series("no advantage", [g["T"][0], g["T"][-1]], [1.0, 1.0], style="dashed"))
    verdict = str(decide.combine(decs))
    decisive = next((d for d in decs if d.verdict != decide.Verdict.HOLDS), decs[0])
    fig = Figure("table1", "adp Table 1 trend (stylized, matched accountant ε): DP-SGD / ADP-SGD utility", [Panel(
        "min_t E‖∇F‖²: DP / ADP", "T", "advantage of ADP", series, xscale="log")])
    # the utilities say something only if the kernel runs the declared mechanism (σ of the first ε and T)
    e0, t0 = g["epsilon"][0], g["T"][0]
    probe_why, probe_numbers = _table1_kernel_probe(g["n"], g["d"], {r: sig[(r, t0, e0)] for r in ("dp", "adp")},
                                                    20.0, seed)
    figures.update(probe_numbers)
    evidence = decisive.phrase() + "; " + "; ".join(parts) + (
        f"; kernel probe: run_adp agrees with its NumPy twin over {TABLE1_PROBE_STEPS} steps (both arms)"
        if not probe_why else "")
    if not probe_why:
        rows.append({"part": "kernel probe", "steps": TABLE1_PROBE_STEPS, "agrees (both arms)": True})
    verdict, evidence = decide.after_probe(probe_why, "adp.table1", verdict, evidence)
    dec_row = [r for r in rows if r["part"] == "decision"][decs.index(decisive)]
    trend = ("reproduced at every ε" if decisive.verdict == decide.Verdict.HOLDS else
             f"not reproduced on the stand-in at ε = {dec_row['ε']:g} (growth {dec_row['growth']:.3g}×), a failure "
             "to reproduce, not a refutation")
    summary = (f"{verdict}: " + (f"the kernel probe failed ({probe_why}); " if probe_why else "")
               + f"Table 1's trend (ADP-SGD's advantage over DP-SGD growing with T at a matched accountant ε) is "
               f"{trend}.")
    finding = table1_finding(decs, g) if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=figures, counterexample=None, plots=[fig],
                   decisions=decs, finding=finding, summary=summary, points=rows)


def table1_finding(decs: list, g: dict) -> Finding:
    """The finding of a violated Table 1 trend: one point per ε of the stylized sweep (its growth decision),
    failing where violated; no edge.  The decisions are declared unable to refute (``can_violate=False``: a
    stand-in that misses the trend fails to reproduce it), so this is reached only if that declaration changes.

    Parameters
    ----------
    decs : list of verify.decide.Decision
        One per ε.
    g : dict
        The budget's grid (``epsilon``, ``T``, ``n``, ``d``).

    Returns
    -------
    verify.findings.Finding
    """
    return parts_finding(
        [(d.reason, str(d.verdict)) for d in decs],
        what=f"the advantage's growth T = {g['T'][0]} → {g['T'][-1]} per ε of the stylized sweep",
        paper_where="Table 1 (§6: MNIST/CIFAR-10, minibatch training): not run — the check runs a stylized "
                    f"stand-in (n = {g['n']}, d = {g['d']}), so the size there is not computed",
        no_repair_reason="an empirical trend checked on a stand-in: no corrected statement follows from it")


# ======================================================================================
# Footnote 3: the ε of the experiments' calibration, by the accountants
# ======================================================================================
FOOTNOTE3 = dict(n=50_000, batch=256, T=11_700, delta=1e-5, clip=1.0,
                 eps_bar=(0.8, 1.2, 1.6, 3.2, 6.4), stated=(0.29, 0.43, 0.57, 1.23, 3.24))
#: the RDP orders of the TensorFlow Privacy moments accountant of the paper's time (its default list)
MOMENTS_ACCOUNTANT_ORDERS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))


def footnote3_multiplier(eps_bar: float) -> float:
    """The noise multiplier of the experiments: σ of Theorem 4.1 (eq. (6)) at ε = 16·ε̄ with α ≡ 1 (DP-SGD), n, T and
    δ of the footnote, G = C_G = 1, added to the sum of a batch of 256 clipped gradients: z = 256·σ/C_G.

    Parameters
    ----------
    eps_bar : float
        The footnote's ε̄.

    Returns
    -------
    float
        z.
    """
    f = FOOTNOTE3
    var = numeric(tadp.theorem4_1_variance())(G=f["clip"], S_inv_alpha2=f["T"], T=f["T"], delta=f["delta"],
                                               epsilon=16 * eps_bar, n=f["n"])
    return math.sqrt(float(var)) * f["batch"] / f["clip"]


def footnote3_readings(z: float) -> dict:
    """ε at the footnote's δ of T Poisson-subsampled Gaussian steps (rate 256/n, multiplier z, add/remove) by the
    standard readings: dp-accounting's RDP (its conversion), RDP at the moments-accountant orders with the 2016
    conversion ε = min_α RDP(α) + log(1/δ)/(α − 1), and PLD bounds (optimistic buckets ≤ ε ≤ pessimistic).

    Parameters
    ----------
    z : float
        The multiplier.

    Returns
    -------
    dict
        ``rdp``, ``moments_accountant_2016``, ``pld_lower`` and ``pld_upper``.
    """

    f = FOOTNOTE3
    q, T, delta = f["batch"] / f["n"], f["T"], f["delta"]
    event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
    acc = rdpa.RdpAccountant()
    acc.compose(event, T)
    classic = rdpa.RdpAccountant(orders=list(MOMENTS_ACCOUNTANT_ORDERS))
    classic.compose(event, T)
    orders = np.asarray(MOMENTS_ACCOUNTANT_ORDERS)
    out = {"rdp": float(acc.get_epsilon(delta)),
           "moments_accountant_2016": float(np.min(np.asarray(classic.rdp) + math.log(1 / delta) / (orders - 1)))}
    for name, pessimistic in (("pld_lower", False), ("pld_upper", True)):
        dist = pld.from_gaussian_mechanism(z, sampling_prob=q, pessimistic_estimate=pessimistic,
                                           value_discretization_interval=1e-4, use_connect_dots=pessimistic)
        out[name] = float(dist.self_compose(T).get_epsilon_for_delta(delta))
    return out


declare_equivalent("adp.footnote3", "theorem4_1_variance:pow0.75", "the statement is about five fixed points "
                   "(n = 50 000, T = 11 700, δ = 1e-5, C_G = 1, ε = 16ε̄); at each of them eq. (6) with every variable "
                   "to the power 3/4 gives a σ² 46× to 132× larger (exact, SymPy), and more noise only lowers every "
                   "accountant's ε (a larger multiplier z, the same sampling): the mutated promise is implied by the "
                   "original one")


@claim(
    "adp.footnote3",
    kind="privacy",
    statement="""Footnote 3: with the noise Theorem 4.1 gives at ε = 16·ε̄ for ε̄ ∈ {0.8, 1.2, 1.6, 3.2, 6.4}, δ = 1e-5,
    T = 11 700 steps (60 epochs of batches of 256) and clipping C_G = 1, the training runs' privacy "calculated by the
    moments accountant" is ε = {0.29, 0.43, 0.57, 1.23, 3.24}.""",
    theory=(tadp.theorem4_1_variance,),
    weaker_if={tadp.theorem4_1_variance: "larger"},  # more noise only strengthens the privacy promise
    notes="Exact (accountant bounds; tests = 0). Reading (the calibration code of Appendix G is not in the extracted "
    "text): CIFAR-10's n = 50 000, σ² of eq. (6) at ε = 16ε̄ with α ≡ 1 and G = C_G = 1, added to the sum of the 256 "
    "clipped gradients of a batch, i.e. noise multiplier z = 256σ; Poisson sampling at rate 256/n (the moments "
    "accountant's model), add/remove adjacency. The promise checked: the runs are (ε_stated, 1e-5)-DP — holds when "
    "dp-accounting's pessimistic PLD ε (grid 1e-4) is at most each stated value, violated when its optimistic "
    "(privacy-bucket) ε exceeds one. Reported beside it, per ε̄: dp-accounting's RDP ε, the 2016 moments "
    "accountant's ε (RDP at TensorFlow Privacy's default orders, ε = min_α RDP + log(1/δ)/(α − 1)), which reading "
    "is nearest to the stated value and how far.",
)
def footnote3(budget: str, seed: int) -> Outcome:
    f = FOOTNOTE3
    rows = []
    for eb, stated in zip(f["eps_bar"], f["stated"]):
        z = footnote3_multiplier(eb)
        r = footnote3_readings(z)
        nearest = min(r, key=lambda k: abs(r[k] - stated))
        rows.append(dict(eps_bar=eb, stated=stated, z=z, **r, nearest=nearest, distance=r[nearest] - stated))
    broken = [r for r in rows if r["pld_lower"] > r["stated"]]
    certified = [r for r in rows if r["pld_upper"] <= r["stated"]]
    verdict = "violated" if broken else ("holds" if len(certified) == len(rows) else "inconclusive")
    readings = ("rdp", "moments_accountant_2016", "pld_lower", "pld_upper")
    reproduced = sum(any(abs(r[k] - r["stated"]) <= 0.005 for k in readings) for r in rows)  # to the stated 2 decimals
    evidence = (f"{verdict} (exact): at the reconstructed calibration (z = 256σ from {rows[0]['z']:.3g} at "
                f"ε̄ = {rows[0]['eps_bar']:g} to {rows[-1]['z']:.3g} at {rows[-1]['eps_bar']:g}) "
                f"{len(certified)}/{len(rows)} stated ε are certified by the pessimistic PLD ε and {len(broken)} are "
                "exceeded by the optimistic one; per ε̄ (stated: RDP, 2016 moments accountant, PLD): "
                + "; ".join(f"{r['eps_bar']:g}: {r['stated']:g}: {r['rdp']:.3g}, {r['moments_accountant_2016']:.3g}, "
                            f"{r['pld_upper']:.3g}" for r in rows)
                + "; nearest reading: " + ", ".join(f"{r['nearest']} ({r['distance']:+.3g})" for r in rows)
                + f"; {reproduced}/{len(rows)} stated values reproduced to their two decimals by some reading")
    summary = (f"{verdict} (exact): at the reconstructed calibration (z = 256σ) the pessimistic PLD ε certifies "
               f"{len(certified)}/{len(rows)} of footnote 3's stated ε and the optimistic one exceeds {len(broken)}; "
               f"{reproduced}/{len(rows)} are reproduced to their two decimals by RDP, the 2016 moments accountant or "
               "PLD.")
    points = [{"ε̄": r["eps_bar"], "stated ε": r["stated"], "z": r["z"], "RDP": r["rdp"],
               "2016 moments accountant": r["moments_accountant_2016"], "PLD optimistic": r["pld_lower"],
               "PLD pessimistic": r["pld_upper"], "certified": r["pld_upper"] <= r["stated"],
               "exceeded": r["pld_lower"] > r["stated"], "nearest reading": r["nearest"],
               "nearest − stated": r["distance"],
               "reproduced": any(abs(r[k] - r["stated"]) <= 0.005 for k in readings)} for r in rows]
    counter = dict(min(broken, key=lambda r: r["eps_bar"])) if broken else None
    xs = list(f["eps_bar"])
    fig = Figure("footnote3", "adp footnote 3: the experiments' ε by the accountants", [Panel(
        "σ of Theorem 4.1 at ε = 16ε̄, T = 11 700, batch 256 of 50 000, δ = 1e-5", "ε̄ (the paper's budget / 16)", "ε",
        [Series("stated (footnote 3)", xs, list(f["stated"]), style="points"),
         Series("dp-accounting RDP", xs, [r["rdp"] for r in rows]),
         Series("2016 moments accountant", xs, [r["moments_accountant_2016"] for r in rows]),
         Series("PLD (pessimistic)", xs, [r["pld_upper"] for r in rows], style="dashed")],
        xscale="log", yscale="log")])
    numbers = {"certified": len(certified), "broken": len(broken), "reproduced_to_two_decimals": reproduced,
               "max_abs_distance_nearest": max(abs(r["distance"]) for r in rows)}
    for r in rows:
        for k in ("z", "rdp", "moments_accountant_2016", "pld_lower", "pld_upper"):
            numbers[f"{k}[eps_bar={r['eps_bar']:g}]"] = r[k]
    finding = footnote3_finding(rows) if verdict == "violated" else None
    return Outcome(verdict=verdict, evidence=evidence, numbers=numbers, counterexample=counter, plots=[fig],
                   finding=finding, summary=summary, points=points)


def footnote3_finding(rows: list) -> Finding:
    """The finding of a violated footnote 3: one point per stated ε̄ (failing when even the optimistic PLD ε
    exceeds the stated ε), the size at the paper's own values (footnote 3's stated ε, the largest excess of the
    optimistic PLD ε over it); no edge.

    Parameters
    ----------
    rows : list of dict
        Per ε̄: ``eps_bar``, ``stated``, ``pld_lower``, ``pld_upper`` (and the other readings).

    Returns
    -------
    verify.findings.Finding
    """
    excess = max(r["pld_lower"] - r["stated"] for r in rows)
    return parts_finding(
        [(f"ε̄ = {r['eps_bar']:g}: stated ε = {r['stated']:g}, PLD ε ∈ [{r['pld_lower']:.4g}, {r['pld_upper']:.4g}]",
          "violated" if r["pld_lower"] > r["stated"] else "holds") for r in rows],
        what="footnote 3's stated ε against dp-accounting's PLD at the reconstructed calibration",
        paper_where="footnote 3 (§6): the stated ε per ε̄ at T = 11 700, batch 256 of 50 000, δ = 1e-5",
        paper_measure="largest PLD ε (optimistic) − stated ε", paper_size=excess, paper_fails=excess > 0,
        no_repair_reason="the stated values are the paper's accountant's output; the check reports every reading "
                         "(RDP, the 2016 moments accountant, PLD) but decides no corrected table")
