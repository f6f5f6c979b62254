r"""The runnable algorithms of every paper, in one table, behind one entry point (``dpverify run``).

:data:`RUNNABLES` maps an algorithm name to a :class:`Runnable`: its paper, the stylized problems it
runs on (the paper's own first), whether it is private, and a runner.  :func:`run` validates the
inputs, fills in the paper's defaults and returns a :class:`RunResult`: the logged steps, a
trials × points array of the tracked metric, the per-trial final value, the resolved parameters and,
for private algorithms, the privacy record.

Names.  The PAGAN family keeps the names of ``kernels.SPECS`` (``sgd``, ``adagrad``, ``dp_sgd``,
``pasan``, ``pagan``, ``pagan_opt``, ``pdp_sgd``).  The other papers' algorithms carry a name that
cannot be confused across papers: ``adp_sgd*`` / ``dp_sgd_<stepsize>`` (``adp``), ``noisy_adagrad``,
``adagrad_full``, ``dp_gd`` (``noisy_adagrad``), ``dp_adam_<variant>`` (``dp_adam_design``), and
``adadps*`` / ``adadps_<baseline>`` (``adadps``; its DP-SGD, DP-Adam, … baselines as that paper runs them).

Privacy.  Every private algorithm of the four newer families gets its noise multiplier from
(ε, δ) through dp-accounting (:mod:`verify.privacy`): :func:`calibrate` bisects for the smallest
multiplier (to 0.1 %, rounded up) whose accountant ε is at most the requested ε, for the mechanism
the kernel actually runs (its sampling scheme, number of releases, adjacency; see each runner).  The
PAGAN family keeps its kernel's calibration, the paper's Algorithms 1/2 line 6 (z = √(log(1/δ))/ε),
and the record carries the with-replacement accountant's ε of that z beside it, where it is cheap
enough to compute.  The privacy record (``RunResult.privacy``) names the calibration, the noise
multiplier, the accountant ε, the accountant and the mechanism; ``RunResult.epsilon_at`` is the
accountant as a function of the noise multiplier (None for non-private runs and for PAGAN).
"""

from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

import dpvalidate as V
import kernels
from dpvalidate import InvalidParameter
from kernels import adadps as ka
from kernels import adp as kadp
from kernels import dp_adam as kd
from kernels import noisy_adagrad as kn
from kernels.pagan import SPECS
from theory import noisy_adagrad as tn
from theory import numeric
from verify import privacy as _privacy
from verify import stats
from verify.privacy import composed_epsilon, dp_sgd_epsilon, gaussian_epsilon, with_replacement_epsilon
from verify.registry import jsonable

#: Metric keys -> how a summary line and a plot axis call them.
METRICS = {"training_loss": "loss", "grad_norm2": "‖∇F(θ)‖²", "test_loss": "test loss"}
N_POINTS = 51  # logged points of a curve (at most)
CALIBRATION_REL = 1e-3  # the calibrated multiplier is within 0.1 % above the smallest certified one
Z_MIN, Z_MAX = _privacy.Z_MIN, _privacy.Z_MAX  # the range of noise multipliers calibrate searches
PAGAN_ACCOUNTANT_MIN_Z = 1.0  # below this the with-replacement PLD takes tens of seconds to minutes
PAGAN_ACCOUNTANT_MAX_Z = 1e4  # above this it does not return (z = 1e6: minutes, then a RecursionError)
PAGAN_ACCOUNTANT_MAX_DRAWS = 100_000  # steps × batch size above which it is not computed either
NOISY_ADAGRAD_MAX_T = 10_000  # cap on the default horizon T = (εn)²
ADP_BLOCKS = 16  # ADP steps are accounted in at most this many blocks, each at its smallest α (as verify.papers.adp)


@dataclass(frozen=True)
class RunResult:
    algorithm: str
    paper: str
    problem: str
    metric: str  # a key of METRICS
    steps: np.ndarray  # (points,) the logged steps
    values: np.ndarray  # (trials, points) the metric at those steps
    final: np.ndarray  # (trials,) the metric at the last step
    params: dict  # the resolved command-line parameters: epsilon, delta, trials, seed, steps, batch_size, alpha
    settings: dict  # the algorithm's other settings (paper defaults)
    problem_params: dict
    privacy: dict | None  # None for non-private algorithms
    notes: tuple = ()
    epsilon_at: Callable[[float], float] | None = field(default=None, repr=False, compare=False)

    def summary(self) -> dict:
        """The curve's median and 95% band per logged step, and the final values' median with its 95% CI.

        Returns
        -------
        dict
            ``median``, ``lo``, ``hi``: arrays over the logged steps (:func:`verify.stats.median_bands`);
            ``final``: the :class:`verify.stats.Interval` of the final values' median.
        """

        trials = int(np.asarray(self.final).size)
        values = np.asarray(self.values, dtype=float).reshape(trials, -1)
        med, lo, hi = stats.median_bands(values)
        ci = stats.median_ci(np.asarray(self.final, dtype=float).ravel())
        return {"median": med, "lo": lo, "hi": hi, "final": ci}

    def to_dict(self) -> dict:
        """The ``run.json`` record (plain JSON types; non-finite CI ends as null).

        Returns
        -------
        dict
            Algorithm, problem, paper, metric, params, ``final_loss`` (median, CI, per trial), ``curve``
            (steps, median, band), privacy, settings, problem parameters and notes.
        """

        s = self.summary()
        ci = s["final"]
        fin = lambda v: float(v) if np.isfinite(v) else None  # noqa: E731
        return jsonable({
            "algorithm": self.algorithm,
            "problem": self.problem,
            "paper": self.paper,
            "metric": self.metric,
            "params": dict(self.params),
            "final_loss": {"median": ci.estimate, "lo": fin(ci.lo), "hi": fin(ci.hi), "level": ci.level,
                           "per_trial": np.asarray(self.final, dtype=float).ravel()},
            "curve": {"steps": np.asarray(self.steps).ravel().tolist(), "median": s["median"],
                      "lo": [fin(v) for v in s["lo"]], "hi": [fin(v) for v in s["hi"]]},
            "privacy": self.privacy,
            "settings": self.settings,
            "problem_params": self.problem_params,
            "notes": list(self.notes),
        })


@dataclass(frozen=True)
class Runnable:
    name: str
    paper: str
    problems: tuple  # the paper's default first
    private: bool
    description: str
    runner: Callable
    options: tuple = ("steps", "batch_size", "alpha")  # the command-line options it takes
    fixed: dict = field(default_factory=dict)  # option -> why it is not taken


# ======================================================================================
# Calibration through the accountant
# ======================================================================================
def calibrate(epsilon_at: Callable[[float], float], epsilon: float, guess: float = 1.0,
              rel: float = CALIBRATION_REL) -> float:
    """The smallest multiplier with epsilon_at(z) ≤ epsilon, to 0.1 %: :func:`verify.privacy.calibrate_multiplier`.

    Parameters
    ----------
    epsilon_at : callable
        z -> the accountant's ε at noise multiplier z (decreasing).
    epsilon : float
        The target ε.
    guess : float, optional
        Where the search starts.
    rel : float, optional
        Relative precision (default :data:`CALIBRATION_REL`).

    Returns
    -------
    float
        The calibrated multiplier, in [Z_MIN, Z_MAX].

    Raises
    ------
    InvalidParameter
        (from :func:`verify.privacy.calibrate_multiplier`) When no multiplier up to Z_MAX is certified.
    """
    return _privacy.calibrate_multiplier(epsilon_at, epsilon, guess, rel)


_CALIBRATIONS: dict = {}


def _cached_calibration(key: tuple, epsilon_at: Callable[[float], float], epsilon: float, guess: float = 1.0) -> float:
    """:func:`calibrate`, remembered per mechanism ``key`` (the search costs up to seconds; the answer is fixed)."""
    if key not in _CALIBRATIONS:
        if len(_CALIBRATIONS) >= 256:
            _CALIBRATIONS.clear()
        _CALIBRATIONS[key] = calibrate(epsilon_at, epsilon, guess)
    return _CALIBRATIONS[key]


def _gaussian_vdi(epsilon: float) -> float:
    """PLD grid for a Gaussian calibrated to ``epsilon``: 1e-3·ε (a few thousand grid points near the answer), ≤ 1."""
    return min(1e-3 * epsilon, 1.0)


def gaussian_release_epsilon(z: float, delta: float, releases: int, vdi: float) -> float:
    """ε of ``releases`` Gaussian releases, each of noise multiplier z (sensitivity 1, no sampling).

    Gaussian releases compose exactly into one Gaussian of multiplier z/√releases (as verify.papers.noisy_adagrad
    uses), evaluated by dp-accounting's PLD (pessimistic, grid ``vdi``).  Add/remove = zero-out here.

    Parameters
    ----------
    z : float
        Noise multiplier of each release.
    delta : float
        The δ, in (0, 1).
    releases : int
        Number of releases (≥ 1).
    vdi : float
        The PLD grid step in nats.

    Returns
    -------
    float
        The ε (:func:`verify.privacy.gaussian_epsilon`, which raises InvalidParameter for bad input).
    """

    return gaussian_epsilon(z / math.sqrt(releases), delta, 1, "pld", vdi)


@lru_cache(maxsize=64)
def gaussian_multiplier(epsilon: float, delta: float) -> float:
    """Multiplier of ONE Gaussian release that the PLD accountant certifies (ε, δ)-DP (:func:`calibrate`).

    Remembered per (ε, δ).

    Parameters
    ----------
    epsilon : float
        The target ε (> 0).
    delta : float
        The δ, in (0, 1).

    Returns
    -------
    float
        The smallest certified multiplier (to 0.1 %), searched from the classical √(2 log(1.25/δ))/ε.
    """
    guess = math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon  # the classical calibration: a starting point only
    return calibrate(lambda z: gaussian_release_epsilon(z, delta, 1, _gaussian_vdi(epsilon)), epsilon, guess)


def _gaussian_privacy(epsilon: float, delta: float, releases: int, mechanism: dict):
    """(noise multiplier per release, privacy record, epsilon_at) for ``releases`` Gaussian releases."""
    vdi = _gaussian_vdi(epsilon)
    z = gaussian_multiplier(epsilon, delta) * math.sqrt(releases)

    def epsilon_at(zz: float) -> float:
        return gaussian_release_epsilon(zz, delta, releases, vdi)

    return z, privacy_record(z, epsilon_at(z), delta, f"dp-accounting PLD (pessimistic, grid {vdi:.3g})",
                              dict(mechanism, releases=releases, pld_grid=vdi)), epsilon_at


def privacy_record(z: float, eps: float, delta: float, accountant: str, mechanism: dict,
                    calibration: str = "accountant", note: str | None = None) -> dict:
    """The ``privacy`` record of a run (run.json).

    Parameters
    ----------
    z : float
        The noise multiplier used.
    eps : float or None
        The accountant's ε at ``z`` (None when not computed).
    delta : float
        The δ.
    accountant : str
        Which accountant computed ``eps``, in words.
    mechanism : dict
        The mechanism's description (sampling, sizes, steps, adjacency).
    calibration : str, optional
        "accountant" (the multiplier was calibrated through the accountant) or how else it was chosen.
    note : str or None, optional
        A note to record (replaces the automatic one).

    Returns
    -------
    dict
        The fields above; with accountant calibration also ``calibration_precision``, and a note when even
        the smallest multiplier searched is certified.
    """
    rec = {"calibration": calibration, "noise_multiplier": z, "accountant_epsilon": eps, "delta": delta,
           "accountant": accountant, "mechanism": mechanism}
    if calibration == "accountant":
        rec["calibration_precision"] = CALIBRATION_REL
        if z <= Z_MIN:
            rec["note"] = (f"even the smallest multiplier searched ({Z_MIN:g}) is certified: the noise is more "
                           "than needed")
    if note:
        rec["note"] = note
    return rec


# ======================================================================================
# Shared pieces
# ======================================================================================
def log_points(T: int, n_points: int = N_POINTS) -> np.ndarray:
    """Up to ``n_points`` steps from 0 to T, evenly spread, as integers.

    Parameters
    ----------
    T : int
        The last step (≥ 0).
    n_points : int, optional
        Most points returned.

    Returns
    -------
    numpy.ndarray
        Sorted distinct int64 steps, including 0 and T.
    """
    return np.unique(np.linspace(0, T, min(n_points, T + 1)).round().astype(np.int64))


def _generate(problem: str, **params):

    return kernels.problem_generator(problem)(**params)


def _privacy_defaults(epsilon, delta, default_epsilon: float, default_delta: float) -> tuple[float, float]:
    return (default_epsilon if epsilon is None else epsilon, default_delta if delta is None else delta)


def _curve(steps, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=float)
    return np.asarray(steps, dtype=np.int64), values, values[:, -1].copy()


# ======================================================================================
# pagan: the PAGAN family (kernels.run_algorithm)
# ======================================================================================
PAGAN_EPSILON, PAGAN_DELTA = 1.0, 1e-5  # pagan §6.1


def _run_pagan(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size, alpha) -> RunResult:

    ds = kernels.make_problem(problem, seed)
    opts = {k: v for k, v in dict(steps=steps, batch_size=batch_size, alpha=alpha).items() if v is not None}
    if spec.private:
        epsilon, delta = _privacy_defaults(epsilon, delta, PAGAN_EPSILON, PAGAN_DELTA)
        opts.update(epsilon=epsilon, delta=delta)
    res = kernels.run_algorithm(spec.name, ds, trials=trials, seed=seed, **opts)
    cfg = res.config
    privacy = None
    if spec.private:
        privacy = _pagan_privacy(float(cfg.info["noise_multiplier"]), ds.n, cfg.batch_size, cfg.steps, delta)
    steps_, values, final = _curve(res.steps, res.losses)
    return RunResult(spec.name, spec.paper, problem, "training_loss", steps_, values, final,
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=cfg.steps,
                          batch_size=cfg.batch_size, alpha=cfg.alpha),
                     {"description": spec.description, "sampling": "with replacement"}, dict(ds.params), privacy)


def _pagan_privacy(z: float, n: int, batch_size: int, steps: int, delta: float) -> dict:

    mech = {"sampling": "with_replacement", "n": n, "batch_size": batch_size, "steps": steps,
            "adjacency": "zero-out (one record replaced by one contributing 0)"}
    calib = "paper (pagan Algorithms 1/2, line 6: z = √(log(1/δ))/ε; checked against the accountant by pagan.lemma3.1)"
    vdi = 1e-3
    acct = f"dp-accounting PLD of the with-replacement mixture (pessimistic, grid {vdi:g}; verify.privacy)"
    if PAGAN_ACCOUNTANT_MIN_Z <= z <= PAGAN_ACCOUNTANT_MAX_Z and steps * batch_size <= PAGAN_ACCOUNTANT_MAX_DRAWS:
        try:
            eps = with_replacement_epsilon(n, batch_size, z, steps, delta, "pld", vdi)
        except InvalidParameter as exc:
            return privacy_record(z, None, delta, acct, mech, calib, note=f"accountant ε not computed: {exc}")
        return privacy_record(z, eps, delta, acct, mech, calib)
    return privacy_record(z, None, delta, acct, mech, calib,
                           note=f"accountant ε not computed: the with-replacement PLD takes minutes for noise "
                           f"multipliers outside [{PAGAN_ACCOUNTANT_MIN_Z:g}, {PAGAN_ACCOUNTANT_MAX_Z:g}] or above "
                           f"{PAGAN_ACCOUNTANT_MAX_DRAWS} draws (steps × batch size)")


# ======================================================================================
# adp: ADP-SGD and DP-SGD with polynomial / adaptive stepsizes (kernels.adp.run_adp)
# ======================================================================================
ADP_EPSILON, ADP_DELTA = 1.0, 1e-5  # adp Proposition 5.1's runs (verify.papers.adp._common.P51_EPS, P51_DELTA)
ADP_PROBLEM = dict(n=20000, d=10)  # verify.papers.adp Proposition 5.1, quick budget
ADP_SETTINGS = dict(a=1.0, c=1.0, b0=1.0, nu=1e-3, C=1.0)  # b_t = √(a + ct); b₀, ν, C of the adaptive rule
ADP_STEPS, ADP_ETA = 1000, 1.0
ADP_RULES = {"adp_sgd": ("poly", "adp"), "adp_sgd_adaptive": ("adaptive", "adp"),
             "dp_sgd_poly": ("poly", "dp"), "dp_sgd_adaptive": ("adaptive", "dp")}


def adp_alpha(b_rule: str, alpha_rule: str, T: int, a: float = 1.0, c: float = 1.0, b0: float = 1.0,
              C: float = 1.0) -> np.ndarray:
    """α_t, t = 1..T, as kernels._shared.adp_scales sets it (data-independent for every rule).

    Parameters
    ----------
    b_rule : str
        "poly" (b_t = √(a + ct), α_t = √b_t) or "adaptive" (α_t = (b₀² + tC)^{1/4}).
    alpha_rule : str
        "dp" (α_t = 1 for every t: DP-SGD) or "adp".
    T : int
        Number of steps.
    a, c, b0, C : float, optional
        The rules' constants.

    Returns
    -------
    numpy.ndarray
        Shape (T,).
    """
    t = np.arange(1, T + 1, dtype=np.float64)
    if alpha_rule == "dp":
        return np.ones(T)
    if b_rule == "poly":
        return np.sqrt(np.sqrt(a + c * t))  # α² = b_t = √(a + ct)
    return (b0 * b0 + t * C) ** 0.25


def adp_phases(alpha: np.ndarray, z: float, q: float, blocks: int = ADP_BLOCKS) -> list[tuple[float, float, int]]:
    """(q, multiplier, steps) phases: the steps split into ≤ ``blocks`` blocks, each at its smallest α·z.

    Smaller multipliers lose more privacy, so accounting a block at its smallest α is an upper bound
    (the grouping verify.papers.adp.privacy uses for Theorem 4.1); equal neighbours merge (DP-SGD is one phase).

    Parameters
    ----------
    alpha : numpy.ndarray
        α_t per step (:func:`adp_alpha`).
    z : float
        The base noise multiplier.
    q : float
        The Poisson sampling rate.
    blocks : int, optional
        Most blocks.

    Returns
    -------
    list of (float, float, int)
        ``(q, multiplier, steps)`` phases for :func:`verify.privacy.composed_epsilon`.
    """
    out: list = []
    for b in np.array_split(np.arange(alpha.size), min(blocks, alpha.size)):
        zz = float(alpha[b].min()) * z
        if out and out[-1][1] == zz:
            out[-1] = (q, zz, out[-1][2] + int(b.size))
        else:
            out.append((q, zz, int(b.size)))
    return out


def _run_adp(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size, alpha) -> RunResult:

    epsilon, delta = _privacy_defaults(epsilon, delta, ADP_EPSILON, ADP_DELTA)
    b_rule, alpha_rule = ADP_RULES[spec.name]
    T = ADP_STEPS if steps is None else steps
    eta = ADP_ETA if alpha is None else alpha
    prob = _generate(problem, seed=seed, **ADP_PROBLEM)
    G = prob.gradient_bound
    s = ADP_SETTINGS
    al = adp_alpha(b_rule, alpha_rule, T, s["a"], s["c"], s["b0"], s["C"])
    q = 1.0 / prob.n

    def epsilon_at(z: float) -> float:
        return composed_epsilon(adp_phases(al, z, q), delta, "rdp")

    z = _cached_calibration(("adp", b_rule, alpha_rule, T, prob.n, epsilon, delta), epsilon_at, epsilon)
    schedule = kadp.AdpSchedule(a=s["a"], c=s["c"], b0=s["b0"], nu=s["nu"], C=s["C"])
    out = kadp.run_adp(prob, steps=T, eta=eta, b_rule=b_rule, alpha_rule=alpha_rule, sigma=z * G, schedule=schedule,
                       trials=trials, seed=seed, n_log=N_POINTS)
    mech = {"sampling": "one record uniformly per step (with replacement; the Poisson pair at rate 1/n)",
            "sampling_rate": q, "steps": T, "per_step_multiplier": "α_t·z", "alpha_min": float(al.min()),
            "alpha_max": float(al.max()), "blocks": len(adp_phases(al, z, q)), "sensitivity": G,
            "adjacency": "add/remove-one (= zero-out for one draw with replacement)"}
    notes = ()
    note = None
    if b_rule == "adaptive":
        note = ("the adaptive stepsize b_t is computed from the un-noised per-record gradient norms (adp Algorithm 1); "
                "the accountant covers the noisy gradients with the stepsizes treated as public, as adp Theorem 4.1 "
                "does, so this ε does not account for what the stepsizes reveal")
        notes = (note,)
    privacy = privacy_record(z, epsilon_at(z), delta, f"dp-accounting RDP, ≤ {ADP_BLOCKS} blocks at their smallest α "
                              "(an upper bound)", mech, note=note)
    steps_, values, final = _curve(out["steps"], out["grad_norm2"])
    settings = dict(description=spec.description, b_rule=b_rule, alpha_rule=alpha_rule, sigma=z * G, clip=G, **s)
    return RunResult(spec.name, spec.paper, problem, "grad_norm2", steps_, values, final,
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=T, batch_size=1, alpha=eta),
                     settings, dict(prob.params), privacy, notes, epsilon_at)


# ======================================================================================
# noisy_adagrad: noisy full-matrix AdaGrad, full-matrix AdaGrad, DP-GD (kernels.noisy_adagrad)
# ======================================================================================
NA_EPSILON, NA_DELTA = 1.0, 1e-5  # noisy_adagrad Corollary 6 / Theorem 5.1 (verify.papers.noisy_adagrad)
NA_PROBLEM = dict(n=50, p=20, k=3, loss="absolute", w_norm=0.8)  # verify.papers.noisy_adagrad Corollary 6, quick
NA_RADIUS, NA_DIAMETER = 1.0, 2.0  # the ball of radius 1 (C = 2)
#: the public Lipschitz bound L behind the sensitivities: low_rank_glm scales its records to ‖x_i‖ ≤ 1 and its losses
#: are 1-Lipschitz (the data's own max ‖x_i‖, ``LowRankGLM.lipschitz``, would make the noise depend on the data)
NA_LIPSCHITZ = 1.0


def _na_horizon(steps, epsilon: float, n: int) -> tuple[int, str | None]:
    if steps is not None:
        return steps, None
    T = max(1, int(round((epsilon * n) ** 2)))
    if T > NOISY_ADAGRAD_MAX_T:
        return NOISY_ADAGRAD_MAX_T, (f"the paper's horizon T = (εn)² = {T} is capped at {NOISY_ADAGRAD_MAX_T} "
                                     "(give --steps for more)")
    return T, None


def _na_eta(alpha) -> float:

    return float(tn.theorem3_1_eta().subs(tn.C, NA_DIAMETER)) if alpha is None else alpha


def _run_noisy_adagrad(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size,
                       alpha) -> RunResult:

    epsilon, delta = _privacy_defaults(epsilon, delta, NA_EPSILON, NA_DELTA)
    prob = _generate(problem, seed=seed, **NA_PROBLEM)
    T, cap_note = _na_horizon(steps, epsilon, prob.n)
    eta = _na_eta(alpha)
    L = NA_LIPSCHITZ
    # 2T Gaussian releases at one multiplier z: the T gradients (sensitivity L/n) and the T preconditioners
    # G_t + σ_B(t)·GOE (Frobenius sensitivity Δ_t = √2·L√t/n, GOE multiplier σ_B√2/Δ_t) — verify.papers.noisy_adagrad's
    # Corollary 6 mechanism, here calibrated as a whole instead of half the budget to each noise
    z, privacy, epsilon_at = _gaussian_privacy(epsilon, delta, 2 * T, {
        "sampling": "none (full-batch gradients)", "steps": T, "sigma_b": "z·L/n", "sigma_B(t)": "z·L·√t/n",
        "adjacency": "zero-out (sensitivity L/n of the average gradient, Lemma 5's √2·L√t/n of G_t)"})
    t = np.arange(1, T + 1, dtype=np.float64)
    sigma_b = z * L / prob.n
    sensitivity_G = np.asarray(numeric(tn.lemma5_rigorous())(L=L, t=t, n=prob.n), float)  # Δ_t = √2·L√t/n
    sigma_B = z * sensitivity_G / math.sqrt(2.0)  # GOE multiplier σ_B√2/Δ_t = z
    out = kn.run_noisy_adagrad(prob, T, eta, NA_RADIUS, Vt=prob.V, sigma_b=sigma_b, sigma_B=sigma_B,
                               trials=trials, seed=seed)
    last = np.array([prob.loss_value(th) for th in out["theta_last"]])
    steps_, values, final = _na_curve(out["losses"], last)
    settings = dict(description=spec.description, eta=eta, radius=NA_RADIUS, oracle="exact (the true span V)",
                    lipschitz_bound=L, sigma_b=sigma_b, sigma_B_max=float(sigma_B.max()), indefinite="abs")
    return RunResult(spec.name, spec.paper, problem, "training_loss", steps_, values, final,
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=T, batch_size=None, alpha=eta),
                     settings, dict(prob.params), privacy, tuple(x for x in (cap_note,) if x), epsilon_at)


def _na_curve(losses: np.ndarray, last: np.ndarray):
    """L(θ_t), t = 0..T: the kernel's losses (t = 0..T−1, before each step) and the last iterate's."""
    full = np.concatenate([np.asarray(losses, float), np.asarray(last, float)[:, None]], axis=1)
    idx = log_points(full.shape[1] - 1)
    return idx, full[:, idx], full[:, -1].copy()


def _run_adagrad_full(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size,
                      alpha) -> RunResult:

    prob = _generate(problem, seed=seed, **NA_PROBLEM)
    T, cap_note = _na_horizon(steps, NA_EPSILON, prob.n)
    eta = _na_eta(alpha)
    out = kn.run_adagrad(prob, T, eta, NA_RADIUS, delta=0.0)
    last = prob.loss_value(out["theta_last"])
    # deterministic: every trial is the same run
    steps_, values, final = _na_curve(np.tile(out["losses"], (trials, 1)), np.full(trials, last))
    notes = ("deterministic (full-batch, no noise): every trial is the same run",)
    if cap_note:
        notes += (cap_note,)
    settings = dict(description=spec.description, eta=eta, radius=NA_RADIUS, adagrad_delta=0.0,
                    horizon="the noisy_adagrad horizon (εn)² at ε = 1 unless --steps")
    return RunResult(spec.name, spec.paper, problem, "training_loss", steps_, values, final,
                     dict(epsilon=None, delta=None, trials=trials, seed=seed, steps=T, batch_size=None, alpha=eta),
                     settings, dict(prob.params), None, notes)


def _run_dp_gd(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size, alpha) -> RunResult:

    epsilon, delta = _privacy_defaults(epsilon, delta, NA_EPSILON, NA_DELTA)
    prob = _generate(problem, seed=seed, **NA_PROBLEM)
    T, cap_note = _na_horizon(steps, epsilon, prob.n)
    L = NA_LIPSCHITZ
    z, privacy, epsilon_at = _gaussian_privacy(epsilon, delta, T, {
        "sampling": "none (full-batch gradients)", "steps": T, "sigma": "z·L/n",
        "adjacency": "zero-out (sensitivity L/n of the average gradient)"})
    sigma = z * L / prob.n
    if alpha is None:  # Theorem 5.1's learning rate, with the calibrated σ
        th = float(np.linalg.norm(prob.V.T @ prob.theta_true))
        eta = float(numeric(tn.theorem5_1_eta())(theta_norm=th, T=T, L=L, k=prob.k, sigma=sigma))
    else:
        eta = alpha
    # run_dpgd logs L(θ_t) before each step (it returns θ_T, not L(θ_T)): one step more logs L(θ_T); its first T
    # steps draw exactly the noise of a T-step run (the rows of one (T+1)×p draw), and step T+1 is not released
    out = kn.run_dpgd(prob, T + 1, eta, sigma, trials=trials, seed=seed)
    full = np.asarray(out["losses"], float)
    idx = log_points(T)
    settings = dict(description=spec.description, eta=eta, lipschitz_bound=L, sigma=sigma,
                    output="iterates (the paper releases their average; its loss is not the curve's)")
    return RunResult(spec.name, spec.paper, problem, "training_loss", idx, full[:, idx], full[:, T].copy(),
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=T, batch_size=None, alpha=eta),
                     settings, dict(prob.params), privacy, tuple(x for x in (cap_note,) if x), epsilon_at)


# ======================================================================================
# dp_adam_design: the private Adam variants with DP-MF noise on sparse_logistic_1d (kernels.dp_adam)
# ======================================================================================
DPA_EPSILON, DPA_DELTA = 4.4, 1e-5  # ≈ the accountant ε at δ = 1e-5 of σ = 1 (4.38); §5.1's claim uses 0.275
DPA_STEPS = 1000  # §5.1: one epoch over 1000 records, batch size 1
DPA_MAX_BYTES = 2**33  # the records (steps × batch size) and the logged θ (trials × steps) each fit in 8 GiB
#: the paper's DP-Adam variants (Algs. 5–8, Adam with its usual β₁, β₂, ξ) on §5.1's problem with §5.1's clip norm
#: and DP-MF noise.  (§5.1 itself runs the AdaGrad form; there scale-then-privatize diverges in every run: its
#: noise, unscaled by √v, feeds v = Σg̃², so v grows geometrically until it overflows.)
DPA_SETTINGS = dict(optimizer="adam", beta1=0.9, beta2=0.999, xi=1e-8, clip_norm=1.0, strategy="sqrt")
DPA_VARIANTS = {"dp_adam_post_processing": dict(variant="post_processing"),
                "dp_adam_ime": dict(variant="ime", floor=1.0),  # §5.1's IME preconditioner √max(v̂, C²)
                "dp_adam_bias_correction": dict(variant="bias_correction", floor=1.0),  # the same floor as IME
                "dp_adam_scale_then_privatize": dict(variant="scale_then_privatize")}
#: default learning rates: the best mean final test loss over §5.1's grid
#: (verify.papers.dp_adam_design.experiments.S51_LRS) at the default (ε, δ), 10 trials, seed 0 (tuned once)
DPA_LR = {"dp_adam_post_processing": 0.3, "dp_adam_ime": 0.1, "dp_adam_bias_correction": 0.1,
          "dp_adam_scale_then_privatize": 0.01}


def _run_dp_adam(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size,
                 alpha) -> RunResult:

    epsilon, delta = _privacy_defaults(epsilon, delta, DPA_EPSILON, DPA_DELTA)
    T = DPA_STEPS if steps is None else steps
    B = 1 if batch_size is None else batch_size
    lr = DPA_LR[spec.name] if alpha is None else alpha
    for names, size in (("steps, batch_size", T * B), ("trials, steps", trials * (T + 1))):
        if size * 8 > DPA_MAX_BYTES:
            raise InvalidParameter(names, f"small enough that the array of values they set (their product) fits "
                                   f"in {DPA_MAX_BYTES / 2**30:g} GiB", size)
    prob = _generate(problem, n=T * B, seed=seed)  # one epoch: every record in exactly one round
    # single participation: DP-MF releases C·ḡ + N(0, (σ·sens·C/B)²) with sens the largest column norm of C, so the
    # whole run is ONE Gaussian mechanism at multiplier σ (IME: on the 2d-vector [ḡ, γḡ²]) — as the
    # dp_adam_design audits account it
    st = DPA_SETTINGS
    z, privacy, epsilon_at = _gaussian_privacy(epsilon, delta, 1, {
        "sampling": "none (one epoch, records in order: single participation)", "rounds": T, "batch_size": B,
        "noise": f"DP-MF '{st['strategy']}', σ·sens·C/B", "adjacency": "zero-out"})
    cfg = kd.RoundConfig(optimizer=st["optimizer"], lr=lr, beta1=st["beta1"], beta2=st["beta2"], xi=st["xi"],
                        clip_norm=st["clip_norm"], sigma=z, batch_size=B, **DPA_VARIANTS[spec.name]).validated()
    values, diverged = _dp_adam_trials(kd, cfg, prob, T, B, trials, seed, st["strategy"])
    idx = log_points(T)
    notes = ()
    if diverged:
        notes = (f"diverged in {len(diverged)} of {trials} trials (the second moment overflowed; kernels.dp_adam "
                 f"then divides by zero): rounds {sorted(diverged.values())}; their later values are NaN",)
    settings = dict(description=spec.description, sigma=z, **st, **DPA_VARIANTS[spec.name],
                    ground_truth_test_loss=float(prob.test_loss(prob.theta_star)[0]))
    return RunResult(spec.name, spec.paper, problem, "test_loss", idx, values, values[:, -1].copy(),
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=T, batch_size=B, alpha=lr),
                     settings, dict(n=T * B, seed=seed, n_test=prob.x_test.size, theta_star=prob.theta_star),
                     privacy, notes, epsilon_at)


def _dp_adam_trials(K, cfg, prob, T: int, B: int, trials: int, seed: int, strat_kind: str):
    """Test loss of θ_t at the logged t (:func:`log_points`), per trial, and {trial: round} for the runs that diverged.

    The loop of kernels.dp_adam.run_stream over its public pieces (State, NoiseStream, step), with its seeding
    (one SeedSequence child per trial, split into a data and a noise stream), so the numbers are run_stream's;
    written out here to log θ after every round and to keep the trials that finish when one overflows.
    """
    strat = kd.strategy(strat_kind, T) if strat_kind != "identity" else None
    sens = 1.0 if strat is None else strat.sensitivity
    bias = kd.bias_schedule(cfg, strat, T) if cfg.variant == "bias_correction" else np.zeros(T)
    parts = 2 if cfg.variant == "ime" else 1
    thetas = np.full((trials, T + 1), np.nan)
    diverged: dict[int, int] = {}
    gb = np.empty(1)
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        _, noise_ss = ss.spawn(2)
        state = kd.State.zeros(1)
        noise = kd.NoiseStream(1, np.random.default_rng(noise_ss), strat, parts)
        thetas[k, 0] = state.theta[0]
        for t in range(T):
            grads = prob.record_grads(float(state.theta[0]), np.arange(t * B, (t + 1) * B))
            zz = noise.next()
            try:
                kd.step(cfg, state, grads, zz[0], zz[-1], sens, bias[t], gb)
            except InvalidParameter as exc:  # the second moment overflowed: this trial diverged
                if "overflowed" not in str(exc):
                    raise
                diverged[k] = t + 1
                break
            thetas[k, t + 1] = state.theta[0]
    idx = log_points(T)
    values = np.full((trials, idx.size), np.nan)
    for k in range(trials):
        th = thetas[k, idx]
        ok = np.isfinite(th)
        if ok.any():
            values[k, ok] = prob.test_loss(th[ok])
    return values, diverged


# ======================================================================================
# adadps: AdaDPS and its baselines (kernels.adadps.run_central)
# ======================================================================================
#: per problem: the paper's run.  sparse_linear_regression: §4.1's toy (b = 8, T = 2250, C = 0.5, (4.13, 1e-3)
#: as verify.papers.adadps._common.TOY); zipf_bow_logistic: Table 6's setting (b = 64, T = 1000, δ = 1/n,
#: ε ≈ that of σ = 1).
ADADPS_RUN = {
    "sparse_linear_regression": dict(batch_size=8, steps=2250, epsilon=4.13, delta=1e-3, side_info="paper"),
    "zipf_bow_logistic": dict(batch_size=64, steps=1000, epsilon=2.7, delta=None, side_info="frequency"),
}
#: as verify.papers.adadps._common._central_task
ADADPS_SETTINGS = dict(sampling="poisson", beta1=0.9, beta2=0.99, eps_a=1e-3)
ADADPS_METHODS = {"adadps": "adadps_fixed", "adadps_rmsprop": "adadps_rmsprop", "adadps_adam": "adadps_adam",
                  "adadps_adagrad": "adadps_adagrad", "adadps_dp_sgd": "dp_sgd", "adadps_dp_adam": "dp_adam",
                  "adadps_dp_rmsprop": "dp_rmsprop", "adadps_dp_r_pub": "dp_r_pub"}
#: default (learning rate, clip) per (algorithm, problem): the best mean final training loss over the paper's
#: grids (verify.papers.adadps._common.PAPER_LR_GRID; clip 0.5 on the toy as verify.papers.adadps.toy.S41 quick,
#: {0.1, 1} on zipf_bow_logistic as verify.papers.adadps.experiments.TABLE_GRIDS quick) at the default (ε, δ),
#: 2 trials, seed 0 (tuned once)
ADADPS_TUNED = {
    ("adadps", "sparse_linear_regression"): (0.2, 0.5),
    ("adadps_dp_sgd", "sparse_linear_regression"): (0.1, 0.5),
    ("adadps", "zipf_bow_logistic"): (0.1, 1.0),
    ("adadps_rmsprop", "zipf_bow_logistic"): (0.05, 1.0),
    ("adadps_adam", "zipf_bow_logistic"): (0.2, 0.1),
    ("adadps_adagrad", "zipf_bow_logistic"): (0.1, 1.0),
    ("adadps_dp_sgd", "zipf_bow_logistic"): (1.0, 1.0),
    ("adadps_dp_adam", "zipf_bow_logistic"): (0.01, 1.0),
    ("adadps_dp_rmsprop", "zipf_bow_logistic"): (0.01, 1.0),
    ("adadps_dp_r_pub", "zipf_bow_logistic"): (0.001, 1.0),
}


@lru_cache(maxsize=2)
def _adadps_problem(problem: str, seed: int):
    """The problem at its paper's size (zipf_bow_logistic takes seconds to draw: kept for the next run)."""
    return _generate(problem, seed=seed)


def _run_adadps(spec: Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size,
                alpha) -> RunResult:

    prob = _adadps_problem(problem, seed)
    paper = ADADPS_RUN[problem]
    epsilon, delta = _privacy_defaults(epsilon, delta, paper["epsilon"],
                                       paper["delta"] if paper["delta"] is not None else 1.0 / prob.n)
    T = paper["steps"] if steps is None else steps
    b = paper["batch_size"] if batch_size is None else batch_size
    if b > prob.n:
        raise InvalidParameter("batch_size", f"an integer in [1, n = {prob.n}]", b)
    lr0, clip = ADADPS_TUNED[(spec.name, problem)]
    lr = lr0 if alpha is None else alpha
    q = b / prob.n

    def epsilon_at(z: float) -> float:  # Poisson sampling at rate b/n, add/remove-one (as adadps.theorem1)
        return dp_sgd_epsilon(q, z, T, delta, "rdp")

    z = _cached_calibration(("adadps", q, T, epsilon, delta), epsilon_at, epsilon)
    method = ADADPS_METHODS[spec.name]
    s = ADADPS_SETTINGS
    out = ka.run_central(prob, method, lr=lr, clip=clip, sigma=z, batch_size=b, steps=T, sampling=s["sampling"],
                         side_info=paper["side_info"], trials=trials, seed=seed,
                         options=ka.CentralOptions(beta1=s["beta1"], beta2=s["beta2"], eps_a=s["eps_a"],
                                                   n_log=N_POINTS))
    privacy = privacy_record(z, epsilon_at(z), delta, "dp-accounting RDP (an upper bound)", {
        "sampling": "poisson", "sampling_rate": q, "steps": T, "noise": "σ·C on the sum of clipped records",
        "adjacency": "add/remove-one"})
    steps_, values, final = _curve(out["steps"], out["loss"])
    settings = dict(description=spec.description, method=method, clip=clip, sigma=z,
                    side_info=paper["side_info"] if method == "adadps_fixed" else None, **s,
                    clip_fraction=float(np.mean(out["clip_fraction"])))
    return RunResult(spec.name, spec.paper, problem, "training_loss", steps_, values, final,
                     dict(epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=T, batch_size=b, alpha=lr),
                     settings, dict(prob.params), privacy, (), epsilon_at)


# ======================================================================================
# The table
# ======================================================================================
def _table() -> dict[str, Runnable]:
    rows: list[Runnable] = []

    pagan_problems = ("abs_regression", "linear_subgaussian", "sign_mean")
    for s in SPECS.values():
        rows.append(Runnable(s.name, "pagan", pagan_problems, s.private, s.description, _run_pagan))
    one_record = {"batch_size": "adp Algorithm 1 draws one record per step"}
    adp_text = {"adp_sgd": "ADP-SGD (adp Alg. 1): α_t² = b_t, b_t = √(a + ct)",
                "adp_sgd_adaptive": "ADP-SGD with the adaptive stepsize b²_{t+1} = b_t² + max(‖∇f‖², ν), "
                                    "α_t = (b₀² + tC)^{1/4}",
                "dp_sgd_poly": "DP-SGD (α ≡ 1) with b_t = √(a + ct)",
                "dp_sgd_adaptive": "DP-SGD (α ≡ 1) with the adaptive stepsize"}
    for name, text in adp_text.items():
        rows.append(Runnable(name, "adp", ("smooth_nonconvex",), True, text, _run_adp, ("steps", "alpha"), one_record))
    full = {"batch_size": "it uses full-batch gradients"}
    rows += [
        Runnable("noisy_adagrad", "noisy_adagrad", ("low_rank_glm",), True,
                 "noisy full-matrix AdaGrad (noisy_adagrad Alg. 1), exact subspace oracle, Corollary 6's noise",
                 _run_noisy_adagrad, ("steps", "alpha"), full),
        Runnable("adagrad_full", "noisy_adagrad", ("low_rank_glm",), False,
                 "full-matrix AdaGrad (noisy_adagrad App. A.1), non-private", _run_adagrad_full, ("steps", "alpha"),
                 full),
        Runnable("dp_gd", "noisy_adagrad", ("low_rank_glm",), True,
                 "unconstrained DP-GD (noisy_adagrad App. C.8, Alg. 3)", _run_dp_gd, ("steps", "alpha"), full),
    ]
    dpa_text = {"dp_adam_post_processing": "post-processing (dp_adam_design Alg. 5)",
                "dp_adam_ime": "independent moment estimation (Alg. 6)",
                "dp_adam_bias_correction": "DP-AdamBC bias correction (Alg. 7)",
                "dp_adam_scale_then_privatize": "scale-then-privatize (Alg. 8)"}
    for name, text in dpa_text.items():
        rows.append(Runnable(name, "dp_adam_design", ("sparse_logistic_1d",), True,
                             f"DP-Adam via {text}, DP-MF square-root noise, on §5.1's problem", _run_dp_adam))
    both = ("sparse_linear_regression", "zipf_bow_logistic")
    zipf = ("zipf_bow_logistic",)
    adadps_rows = {
        "adadps": (both, "AdaDPS (adadps Alg. 1) with fixed side information A"),
        "adadps_rmsprop": (zipf, "AdaDPS with the RMSProp preconditioner from public data"),
        "adadps_adam": (zipf, "AdaDPS with the Adam preconditioner from public data"),
        "adadps_adagrad": (zipf, "AdaDPS with the AdaGrad preconditioner from public data"),
        "adadps_dp_sgd": (both, "DP-SGD as the adadps paper runs it (Poisson sampling)"),
        "adadps_dp_adam": (zipf, "DP-Adam (adadps App. Alg. 2): Adam on the privatised gradient"),
        "adadps_dp_rmsprop": (zipf, "DP-RMSProp: RMSProp on the privatised gradient"),
        "adadps_dp_r_pub": (zipf, "DP-R-Pub: privatise, then precondition with public statistics"),
    }
    for name, (problems, text) in adadps_rows.items():
        rows.append(Runnable(name, "adadps", problems, True, text, _run_adadps))
    return {r.name: r for r in rows}


RUNNABLES: dict[str, Runnable] = _table()
ALGORITHMS: tuple = tuple(RUNNABLES)
_BUILTIN: frozenset = frozenset(RUNNABLES)
PAPERS: tuple = tuple(dict.fromkeys(r.paper for r in RUNNABLES.values()))


def register(spec: Runnable) -> None:
    """Add a user's algorithm to the table (``verify.algorithms.algorithm`` builds ``spec``).

    A built-in name is refused; a user's name registered again is replaced.  ``ALGORITHMS`` and ``PAPERS`` are
    updated.

    Parameters
    ----------
    spec : Runnable
        The algorithm's entry.

    Raises
    ------
    InvalidParameter
        Naming ``algorithm``, when ``spec.name`` is a built-in algorithm.
    """
    global ALGORITHMS, PAPERS
    old = RUNNABLES.get(spec.name)
    if old is not None and old.name in _BUILTIN:
        raise InvalidParameter("algorithm", "a name that is not a built-in algorithm", spec.name)
    RUNNABLES[spec.name] = spec
    ALGORITHMS = tuple(RUNNABLES)
    PAPERS = tuple(dict.fromkeys(r.paper for r in RUNNABLES.values()))


def by_paper() -> dict[str, list[Runnable]]:
    """The table grouped by paper, in table order.

    Returns
    -------
    dict of str to list of Runnable
        Paper key -> its algorithms.
    """
    out: dict[str, list[Runnable]] = {}
    for r in RUNNABLES.values():
        out.setdefault(r.paper, []).append(r)
    return out


# ======================================================================================
# The entry point
# ======================================================================================
def run(algorithm: str, problem: str | None = None, *, epsilon=None, delta=None, trials=10, seed=0, steps=None,
        batch_size=None, alpha=None) -> RunResult:
    """Run ``algorithm`` on ``problem`` (default: the paper's) for ``trials`` seeded trials.

    ``epsilon``/``delta`` (private algorithms only; default the paper's), ``steps``, ``batch_size`` and
    ``alpha`` (the stepsize / learning rate) default to the paper's settings; an option the algorithm
    does not take must be omitted.  Bad input raises InvalidParameter naming the parameter.  Same seed ⇒
    same numbers.

    Parameters
    ----------
    algorithm : str
        A name of :data:`ALGORITHMS`.
    problem : str or None, optional
        One of the algorithm's problems (default: its paper's first).
    epsilon : float or None, optional
        The target ε (> 0).
    delta : float or None, optional
        The δ, in (0, 1).
    trials : int, optional
        Number of seeded trials (≥ 1).
    seed : int, optional
        The base seed (≥ 0).
    steps : int or None, optional
        Number of steps (≥ 1).
    batch_size : int or None, optional
        Batch size (≥ 1).
    alpha : float or None, optional
        Stepsize / learning rate (> 0).

    Returns
    -------
    RunResult
        The curves of every trial, their summary inputs, the resolved parameters and the privacy record.

    Raises
    ------
    InvalidParameter
        For a value out of range, an unknown algorithm or problem, counts that would not fit in memory, an
        option the algorithm does not take, ε/δ for a non-private algorithm, or a kernel's refusal (renamed to
        the parameter of ``run`` behind it).
    """
    V.choice("algorithm", algorithm, ALGORITHMS)
    spec = RUNNABLES[algorithm]
    problem = spec.problems[0] if problem is None else V.choice("problem", problem, spec.problems)
    trials = V.integer("trials", trials, 1)
    seed = V.integer("seed", seed, 0)
    steps = None if steps is None else V.integer("steps", steps, 1)
    batch_size = None if batch_size is None else V.integer("batch_size", batch_size, 1)
    alpha = None if alpha is None else V.positive("alpha", alpha)
    _check_work(spec, trials, steps, batch_size)
    for name, value in (("steps", steps), ("batch_size", batch_size), ("alpha", alpha)):
        if value is not None and name not in spec.options:
            raise InvalidParameter(name, f"omitted for {algorithm} ({spec.fixed.get(name, 'it does not take it')})",
                                   value)
    if spec.private:
        epsilon = None if epsilon is None else V.positive("epsilon", epsilon)
        delta = None if delta is None else V.open_unit("delta", delta)
    else:
        for name, value in (("epsilon", epsilon), ("delta", delta)):
            if value is not None:
                raise InvalidParameter(name, f"omitted: {algorithm} is not private", value)
    # a diverging run (a large --alpha) gives inf/NaN values, reported as such; dp-accounting's RDP logs a warning
    # for each order it drops (the ε stays an upper bound without it): both kept off the terminal
    with np.errstate(all="ignore"), _quiet_absl():
        try:
            return spec.runner(spec, problem, epsilon=epsilon, delta=delta, trials=trials, seed=seed, steps=steps,
                               batch_size=batch_size, alpha=alpha)
        except InvalidParameter as exc:
            raise _as_run_parameter(exc) from None


#: per paper: float64 arrays of length steps a run allocates besides (trials, steps) curves, and whether it keeps a
#: value per trial and step (the noisy_adagrad kernels log every step; dp_adam_design keeps θ_t of every trial)
_PER_STEP = {"pagan": (0, False), "adp": (3, False), "noisy_adagrad": (4, True), "dp_adam_design": (2, True),
             "adadps": (0, False)}


def _check_work(spec: Runnable, trials: int, steps: int | None, batch_size: int | None) -> None:
    """Refuse, before anything is allocated, counts whose arrays would not fit in memory (naming the count).

    The estimates are the arrays each family allocates for its counts (lower bounds: a refusal is certain to be
    needed); dpvalidate.memory compares them with what the machine has.  Then every count is held to
    dpvalidate.MAX_COUNT.
    """
    per_step, per_trial_step = _PER_STEP.get(spec.paper, (0, False))
    if steps is not None:
        if per_step:
            V.memory("steps", per_step, steps)
        if per_trial_step:
            V.memory("trials, steps", trials, steps + 1)
    V.memory("trials", trials, N_POINTS + 1)  # the logged curves: trials × at most N_POINTS values
    if batch_size is not None and spec.paper in ("pagan", "adadps", "dp_adam_design"):
        V.memory("batch_size", batch_size, 2)  # the records of one batch (indices and coefficients)
    for name, value in (("trials", trials), ("steps", steps), ("batch_size", batch_size)):
        if value is not None:
            V.count(name, value)


#: kernel and accountant parameter names -> the run() parameter that sets them (σ and z come from ε)
KERNEL_NAMES = {"lr": "alpha", "eta": "alpha", "local_lr": "alpha", "sigma": "epsilon", "noise_multiplier": "epsilon",
                "sigma_b": "epsilon", "sigma_B": "epsilon", "rounds": "steps", "public_batch": "batch_size"}
RUN_PARAMETERS = ("algorithm", "problem", "epsilon", "delta", "trials", "seed", "steps", "batch_size", "alpha")


def _as_run_parameter(exc: InvalidParameter) -> InvalidParameter:
    """A kernel's error renamed to the run() parameters behind the kernel parameters it names (when there are any)."""
    names = [n.strip() for n in str(exc.name).split(",")]
    mapped = list(dict.fromkeys(KERNEL_NAMES.get(n, n) for n in names))
    ours = [n for n in mapped if n in RUN_PARAMETERS]
    if not ours or ours == names:
        return exc
    msg = str(exc)
    head = f"{exc.name} must be "
    return InvalidParameter(", ".join(ours), msg[len(head):] if msg.startswith(head) else exc.accepted)


@contextmanager
def _quiet_absl():
    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)
