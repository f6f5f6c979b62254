"""Privacy audits of the PAGAN family's kernels (:mod:`kernels.pagan`).

Claims ``pagan.audit.<algorithm>`` for dp_sgd, pasan, pagan, pagan_opt and pdp_sgd: no distinguishing test between
neighbouring datasets certifies a larger ε than the accountant's for the mechanism.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import kernels
import kernels.moments
from dpvalidate import choice
from kernels.pagan import run_trials_one_stream
from verify.audit import AUDIT_DELTA, AUDIT_EPSILON, audit_level, audit_outcome, claim_method, epsilon_lower_bound
from verify.privacy import with_replacement_epsilon
from verify.registry import by_budget, child_seed, claim
from verify.runner import sweep

# --------------------------------------------------------------------------------------
# privacy audits of the PAGAN family's kernels (kernels.pagan)
# --------------------------------------------------------------------------------------
PAGAN_FAMILY_AUDITS = ("dp_sgd", "pasan", "pagan", "pagan_opt", "pdp_sgd")
# (n, batch size, steps): every draw is the canary (one Gaussian step), and a sampled, composed run
PAGAN_AUDIT_CONFIGS = ((1, 1, 1), (4, 2, 3))
# PASAN's and PAGAN's clipping ellipsoid {Σ a_j g_j² ≤ 1} in the audits: anisotropic (semi-axes 3 and 1), so that the
# noise's geometry is exercised (N(0, A⁻¹) matches the ellipsoid on every axis; with A = I, the default, a kernel
# drawing N(0, A) instead is indistinguishable).  The accountant's ε does not depend on A.
PAGAN_AUDIT_ELLIPSOID = (1.0 / 9.0, 1.0)


def _pagan_family_datasets(n: int):
    """D: n zero records (zero gradient for the linear loss); D′: record 0 replaced by the canary 10·e₁
    (clipped by the mechanism to its geometry's boundary).  Zero-out adjacency, as the accountant assumes."""
    base = kernels.make_problem("linear_subgaussian", n=n, d=2, sigma=np.array([1.0, 0.3]), n_public=200, seed=0)
    zero = np.zeros((n, 2))
    canary = zero.copy()
    canary[0, 0] = 10.0
    return dataclasses.replace(base, features=zero), dataclasses.replace(base, features=canary)


PAGAN_NOISE_GEOMETRIES = ("inverse", "direct")


def pagan_family_audit_task(algorithm: str, n: int, batch_size: int, steps: int, canary: bool, trials: int,
                            seed: int, noise_scale: float = 1.0, noise_geometry: str = "inverse") -> dict:
    """Scores −x_T[j] of ``trials`` runs of ``algorithm`` from x₀ = 0 on D (or D′ with ``canary``).

    The canary is 10·e_j on the coordinate j where the implemented noise is smallest relative to the clipping set
    (largest semi-axis 1/√a_j over noise std: the worst case for the mechanism; for a correct kernel every axis
    gives the same ratio and j = 0).  Mutants for the negative controls (mechanism options, no file edits):
    ``noise_scale`` multiplies the noise the mechanism adds (1 = as implemented); ``noise_geometry="direct"`` draws
    the noise with covariance ∝ A instead of A⁻¹ (std z·√a_j/b instead of z/(b·√a_j)).

    Parameters
    ----------
    algorithm : str
        The kernel algorithm.
    n : int
        Records.
    batch_size : int
        The batch size.
    steps : int
        T.
    canary : bool
        Run on D′ rather than D.
    trials : int
        Independent runs.
    seed : int
        The runs' seed.
    noise_scale : float
        Multiplies the mechanism's noise.
    noise_geometry : str
        "inverse" (as implemented) or "direct" (the mutant).

    Returns
    -------
    dict
        ``score`` (per run), ``noise_multiplier`` and ``canary_axis`` (j).
    """
    choice("noise_geometry", noise_geometry, PAGAN_NOISE_GEOMETRIES)
    d_without, _ = _pagan_family_datasets(n)
    ell = np.array(PAGAN_AUDIT_ELLIPSOID) if algorithm in ("pasan", "pagan") else None
    cfg = kernels.make_config(algorithm, d_without, epsilon=AUDIT_EPSILON, delta=AUDIT_DELTA, steps=steps,
                              batch_size=batch_size, alpha=0.01, ellipsoid=ell,
                              settings=kernels.LoopSettings(n_log=2))
    std = cfg.noise_std * noise_scale
    if noise_geometry == "direct":
        std = cfg.info["noise_multiplier"] * np.sqrt(cfg.ellipsoid) / batch_size * noise_scale
    cfg = dataclasses.replace(cfg, noise_std=std)
    ratio = np.where(std > 0, 1.0 / (np.sqrt(cfg.ellipsoid) * np.where(std > 0, std, 1.0)), np.inf)
    j = int(np.argmax(np.round(ratio, 12)))  # ties (a correct kernel) -> the first axis
    ds = d_without
    if canary:
        feats = d_without.features.copy()
        feats[0, j] = 10.0
        ds = dataclasses.replace(d_without, features=feats)
    x, _ = run_trials_one_stream(cfg, ds, trials, seed)
    return {"score": -x[:, j], "noise_multiplier": cfg.info["noise_multiplier"], "canary_axis": j}


def audit_pagan_family(algorithm: str, budget: str, seed: int, noise_scale: float = 1.0,
                       noise_geometry: str = "inverse"):
    """The audit claim ``pagan.audit.<algorithm>``: an ε lower bound per PAGAN_AUDIT_CONFIGS entry.

    Parameters
    ----------
    algorithm : str
        The kernel algorithm audited.
    budget : str
        "quick" or "full".
    seed : int
        The claim's base seed.
    noise_scale : float
        Multiplies the mechanism's noise (the negative control).
    noise_geometry : str
        "inverse" or "direct" (see :func:`pagan_family_audit_task`).

    Returns
    -------
    Outcome
        The audit's outcome.
    """
    trials = by_budget(budget, 50_000, 500_000)
    n_tests = len(PAGAN_AUDIT_CONFIGS)  # this claim's bounds; each at the ledger's per-test level
    level = audit_level(n_tests)
    tasks = [dict(algorithm=algorithm, n=n, batch_size=b, steps=T, canary=c, trials=trials,
                  seed=child_seed(seed, f"pagan.audit.{algorithm}", k, int(c)), noise_scale=noise_scale,
                  noise_geometry=noise_geometry)
             for k, (n, b, T) in enumerate(PAGAN_AUDIT_CONFIGS) for c in (False, True)]
    outs = sweep(pagan_family_audit_task, tasks, f"audit {algorithm}")
    rows = []
    for k, (n, b, T) in enumerate(PAGAN_AUDIT_CONFIGS):
        a, c = outs[2 * k], outs[2 * k + 1]
        z = float(a["noise_multiplier"])
        # PLD on a 0.01 grid: a pessimistic estimate, above the exact ε by at most T·0.01
        acct = with_replacement_epsilon(n, b, z, T, AUDIT_DELTA, value_discretization_interval=0.01)
        # n = 1: every draw (with replacement) is the canary, T Gaussian steps, a Gaussian claim
        bound = epsilon_lower_bound(a["score"], c["score"], AUDIT_DELTA, level,
                                    seed=child_seed(seed, f"pagan.audit.{algorithm}", "bound", k),
                                    method=claim_method(1.0 if n == 1 else 0.0))
        rows.append(dict(n=n, batch_size=b, steps=T, noise_multiplier=z, accountant_epsilon=acct,
                         **{f"audit_{key}": v for key, v in bound.to_dict().items()}))
    labels = [f"n={r['n']} b={r['batch_size']} T={r['steps']}" for r in rows]
    return audit_outcome(f"audit_{algorithm}", f"Privacy audit of {algorithm}", rows, labels, trials=trials,
                         level=level, budget=budget, family="the ledger's statistical tests")


def _register_pagan_family() -> None:
    for name in PAGAN_FAMILY_AUDITS:
        claim(
            f"pagan.audit.{name}",
            kind="privacy",
            tests=len(PAGAN_AUDIT_CONFIGS),
            statement=f"""The suite's {name} kernel is as private as the accountant says: no distinguishing
            test between neighbouring datasets (a canary record added by zero-out) certifies a larger ε than
            dp-accounting's for the mechanism (sampling with replacement, PAGAN's noise multiplier).""",
            theory=(),
            notes="Runs from x₀ = 0 on D (zero records) and D′ (record 0 = canary 10·e₁, clipped by the mechanism); "
            "score −x_T[j] on the canary's axis j (the one where the implemented noise is smallest relative to the "
            "clipping set; j = 0 for a correct kernel); threshold chosen on a quarter of the runs, error rates on the "
            "rest "
            "(verify.audit.epsilon_lower_bound: Gaussian-DP bound for n=1, Clopper–Pearson for the sampled n=4), "
            "Bonferroni over the ledger's statistical tests (verify.decide). Nominal ε = 4, δ = 1e-5. "
            "Configurations: n=1,b=1,T=1 (one Gaussian step) and n=4,b=2,T=3 (sampled, composed). Accountant: "
            "dp-accounting PLD on a 0.01 grid (pessimistic, ≤ T·0.01 above the exact ε)."
            + (" Clipping ellipsoid A = diag(1/9, 1) (semi-axes 3 and 1; PAGAN_AUDIT_ELLIPSOID): with A = I the "
               "noise's geometry could not be told apart from N(0, A) instead of N(0, A⁻¹)." if name in
               ("pasan", "pagan") else ""),
        )(lambda budget, seed, _n=name: audit_pagan_family(_n, budget, seed))


_register_pagan_family()
