r"""ADP-SGD of ``adp`` (Wu et al.): noise scaled with the stepsize, on ``smooth_nonconvex``.

Algorithm 1, one record per step (ξ_t uniform on the n records, with replacement):

    b_{t+1}: "poly"      b_{t+1} = √(a + c(t+1))                        (known in advance)
             "adaptive"  b²_{t+1} = b_t² + max(‖∇f(θ_t; x_ξ)‖², ν)        (from the gradients)
    α_{t+1}: "dp"  α ≡ 1 (DP-SGD);  "adp"  α² = b (poly) or α = (b_0² + (t+1)C)^{1/4} (adaptive)
    θ_{t+1} = θ_t − (η/b_{t+1})·(∇f(θ_t; x_ξ) + α_{t+1}·σ·N(0, I))

The per-record gradient is clipped to norm G (Assumption 2.2's bound; for ``smooth_nonconvex``
the bound holds exactly, so clipping never triggers unless G is set lower).  Utility is the
full-gradient norm ‖∇F(θ_t)‖², recorded at ``log_steps``.

``smooth_nonconvex``: F(θ) = (1/n)Σ log(1 + exp(−y_i⟨x_i, θ⟩)) + λ Σ_j θ_j²/(1 + θ_j²), with
unit-norm x_i and labels from a planted θ* flipped with probability ``flip``: smooth,
non-convex, and ‖∇f(θ; x, y)‖ ≤ 1 + λ·√d·max_u 2u/(1+u²)² = 1 + λ√d·3√3/8.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

import dpvalidate as V
from kernels import _cpu, faults
from kernels.adp_problems import (  # noqa: F401  (re-exported)
    REG_GRAD_MAX,
    AdpSchedule,
    NonconvexProblem,
    smooth_nonconvex,
)

B_RULES = {"poly": 0, "adaptive": 1}
ALPHA_RULES = {"dp": 0, "adp": 1}


@njit(cache=True, nogil=True)
def _record_grad(x, y, lam, theta, out):
    d = theta.shape[0]
    m = 0.0
    for j in range(d):
        m += x[j] * theta[j]
    m *= y
    w = -y / (1.0 + math.exp(m)) if m > -700.0 else -y
    for j in range(d):
        u = theta[j]
        q = 1.0 + u * u
        out[j] = w * x[j] + lam * 2.0 * u / (q * q)


@njit(cache=True, nogil=True)
def _full_grad_norm2(X, Y, lam, theta, tmp, acc):
    n, d = X.shape
    for j in range(d):
        acc[j] = 0.0
    for i in range(n):
        m = 0.0
        for j in range(d):
            m += X[i, j] * theta[j]
        m *= Y[i]
        w = -Y[i] / (1.0 + math.exp(m)) if m > -700.0 else -Y[i]
        for j in range(d):
            acc[j] += w * X[i, j]
    s = 0.0
    for j in range(d):
        u = theta[j]
        q = 1.0 + u * u
        v = acc[j] / n + lam * 2.0 * u / (q * q)
        s += v * v
    return s


class AdpParams(NamedTuple):
    """The validated scalar settings of one ADP-SGD/DP-SGD run, as the jitted loops take them (one argument).

    Built by :func:`check_run`; :func:`run_adp` and :func:`kernels.cuda.loops.run_adp_batch` pass it to their loops.
    """

    lam: float  # the problem's regulariser λ
    steps: int
    eta: float  # the base stepsize
    b_rule: int  # the b_t schedule's code (B_RULES; 2 only under the public-stepsize fault)
    a: float
    c: float
    b0: float
    nu: float
    alpha_rule: int  # the α_t rule's code (ALPHA_RULES)
    C: float
    sigma: float  # the noise standard deviation (times α_t)
    clip: float  # the per-record clipping threshold


@njit(cache=True, nogil=True)
def _adp_loop(X, Y, theta0, prm, rng, log_steps, grad_norms, theta):
    lam, steps, eta, b0, sigma, clip = prm.lam, prm.steps, prm.eta, prm.b0, prm.sigma, prm.clip
    n, d = X.shape
    g = np.empty(d)
    tmp = np.empty(d)
    acc = np.empty(d)
    for j in range(d):
        theta[j] = theta0[j]
    b2 = b0 * b0
    li = 0
    for t in range(steps + 1):
        while li < log_steps.shape[0] and log_steps[li] == t:
            grad_norms[li] = _full_grad_norm2(X, Y, lam, theta, tmp, acc)
            li += 1
        if t == steps:
            break
        i = _cpu.randint_below(rng, n)
        _record_grad(X[i], Y[i], lam, theta, g)
        gn2 = 0.0
        for j in range(d):
            gn2 += g[j] * g[j]
        if gn2 > clip * clip:
            f = clip / math.sqrt(gn2)
            for j in range(d):
                g[j] *= f
            gn2 = clip * clip
        b, al, b2 = _cpu.adp_scales(prm, t, b2, gn2)
        step = eta / b
        for j in range(d):
            theta[j] -= step * (g[j] + al * sigma * rng.standard_normal())


@njit(cache=True, nogil=True)
def _adp_trials_one_stream(X, Y, theta0, prm, rng, log_steps, grad_norms, theta):
    # run_adp's per-trial loop in one call, every trial drawing in turn from ``rng`` (_adp_loop resets θ to θ₀ and
    # b² to b₀², the whole state of a trial)
    for k in range(theta.shape[0]):
        _adp_loop(X, Y, theta0, prm, rng, log_steps, grad_norms[k], theta[k])


def log_points(steps: int, n_log: int) -> np.ndarray:
    """The steps at which the loss is recorded: ``n_log`` (at most ``steps`` + 1) evenly spaced in [0, steps].

    Parameters
    ----------
    steps : int
        The run's length.
    n_log : int
        The number of checkpoints wanted.

    Returns
    -------
    numpy.ndarray
        Sorted distinct int64 steps, rounded to the nearest integer; 0 and ``steps`` included.
    """
    return np.unique(np.linspace(0, steps, min(n_log, steps + 1)).round().astype(np.int64))


def _check_problem(problem) -> NonconvexProblem:
    if not isinstance(problem, NonconvexProblem):
        raise V.InvalidParameter("problem", "a kernels.adp.NonconvexProblem (see smooth_nonconvex)",
                                 type(problem).__name__)
    X, Y = problem.features, problem.labels
    if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 and min(X.shape) >= 1
            and X.flags.c_contiguous and np.all(np.isfinite(X))):
        raise V.InvalidParameter("problem", "a NonconvexProblem with finite C-contiguous float64 (n, d) features",
                                 V.describe_array(X))
    if not (isinstance(Y, np.ndarray) and Y.dtype == np.float64 and Y.shape == (X.shape[0],)
            and np.all(np.isfinite(Y))):
        raise V.InvalidParameter("problem", "a NonconvexProblem with finite float64 (n,) labels",
                                 getattr(Y, "shape", type(Y).__name__))
    try:
        V.nonnegative("lam", problem.lam)
    except V.InvalidParameter:
        raise V.InvalidParameter("problem", "a NonconvexProblem with a finite lam >= 0", problem.lam) from None
    return problem


def _check_schedule(schedule) -> AdpSchedule:
    if not isinstance(schedule, AdpSchedule):
        raise V.InvalidParameter("schedule", "a kernels.adp.AdpSchedule (the constants a, c, b0, nu, C)",
                                 type(schedule).__name__)
    values = []
    for field, value in zip(AdpSchedule._fields, schedule):
        try:
            values.append(V.positive(field, value))
        except V.InvalidParameter:
            raise V.InvalidParameter("schedule", f"an AdpSchedule whose {field} is a finite number > 0",
                                     value) from None
    return AdpSchedule(*values)


def check_run(problem, *, steps, eta, b_rule, alpha_rule, sigma, schedule, clip) -> AdpParams:
    """Validate the settings of an ADP-SGD/DP-SGD run into the record its jitted loop takes.

    Parameters
    ----------
    problem : NonconvexProblem
        The problem (checked; gives λ and the default clipping threshold).
    steps : int
        Iterations, at most 10⁹.
    eta : float
        The base stepsize, > 0.
    b_rule : str
        One of :data:`B_RULES`.
    alpha_rule : str
        One of :data:`ALPHA_RULES`.
    sigma : float
        The noise standard deviation, >= 0.
    schedule : AdpSchedule
        The constants of the b_t and α_t schedules, each > 0.
    clip : float or None
        The per-record clipping threshold, > 0 (None: the problem's gradient bound).

    Returns
    -------
    AdpParams
        The validated values, the rules as their integer codes; no fault hook applied.

    Raises
    ------
    dpvalidate.InvalidParameter
        A malformed problem or a setting outside what it accepts (the message names it).
    """
    _check_problem(problem)
    V.choice("b_rule", b_rule, tuple(B_RULES))
    V.choice("alpha_rule", alpha_rule, tuple(ALPHA_RULES))
    steps, eta, sigma = V.count("steps", steps), V.positive("eta", eta), V.nonnegative("sigma", sigma)
    a, c, b0, nu, C = _check_schedule(schedule)
    clip = V.positive("clip", problem.gradient_bound if clip is None else clip)
    return AdpParams(problem.lam, steps, eta, B_RULES[b_rule], a, c, b0, nu, ALPHA_RULES[alpha_rule], C, sigma, clip)


def run_adp(problem: NonconvexProblem, *, steps: int = 1000, eta: float = 1.0, b_rule: str = "poly",
            alpha_rule: str = "adp", sigma: float = 0.0, schedule: AdpSchedule = AdpSchedule(),
            clip: float | None = None, trials: int = 1, seed: int = 0, n_log: int = 51,
            one_stream: bool = False) -> dict:
    """ADP-SGD (``alpha_rule="adp"``) or DP-SGD (``"dp"``) for ``trials`` seeded trials (a stream each, or one).

    Returns {"steps": (m,), "grad_norm2": (trials, m) ‖∇F(θ_t)‖², "theta": (trials, d)}.

    Limits: ``steps``, ``trials``, ``n_log`` ≤ 10⁹ with the (trials, m) and (trials, d) outputs ≤ 8 GiB.  A run
    that overflows float64 (``eta``·``sigma`` near 1e308) raises InvalidParameter naming them.

    Parameters
    ----------
    problem : NonconvexProblem
    steps : int, optional
    eta : float, optional
        The base stepsize.
    b_rule : str, optional
        The schedule of b_t (one of :data:`B_RULES`).
    alpha_rule : str, optional
        ``"adp"`` (α_t = √b_t) or ``"dp"`` (α_t = 1).
    sigma : float, optional
        The standard deviation of the Gaussian noise added to each coordinate (times α_t).
    schedule : AdpSchedule, optional
        The constants a, c, b0, nu, C of the b_t and α_t schedules (module docstring; default ``AdpSchedule()``).
    clip : float, optional
        The per-record clipping threshold.
    trials, seed, n_log : int, optional
        Trials (one spawned stream each, unless ``one_stream``), their root seed, and the number of logged steps.
    one_stream : bool, optional
        Draw every trial, in order, from one stream seeded by ``seed`` in one jitted call (for many short trials,
        e.g. privacy audits: no per-trial Python), instead of a stream per trial (the default).  Other numbers than
        the default's, equally reproducible.

    Returns
    -------
    dict
        ``run_adp``'s arrays, listed above.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_adp`` outside what it accepts, outputs over the size limit, or a float64 overflow.
    """
    prm = check_run(problem, steps=steps, eta=eta, b_rule=b_rule, alpha_rule=alpha_rule, sigma=sigma,
                    schedule=schedule, clip=clip)
    steps = prm.steps
    # fault hooks for mutation analysis (kernels/faults.py): factors of exactly 1 outside a mutation run
    # (no clipping fault: on smooth_nonconvex the gradient bound is exact and clipping never triggers)
    prm = prm._replace(eta=prm.eta * faults.stepsize_scale(), sigma=prm.sigma * faults.noise_factor(prm.sigma))
    if b_rule == "adaptive" and faults.public_stepsize():
        prm = prm._replace(b_rule=2)  # the fault: b grows by ν alone (kernels._shared.adp_scales)
    trials = V.count("trials", trials)
    log_steps = log_points(steps, V.count("n_log", n_log, 2))
    V.memory("trials, n_log", trials, log_steps.size)
    V.memory("trials", trials, problem.d)
    seed = V.integer("seed", seed, 0)
    one_stream = V.flag("one_stream", one_stream)
    out_g = np.empty((trials, log_steps.size))
    out_t = np.empty((trials, problem.d))
    if one_stream:
        _adp_trials_one_stream(problem.features, problem.labels, np.zeros(problem.d), prm, np.random.default_rng(seed),
                               log_steps, out_g, out_t)
    else:
        children = np.random.SeedSequence(seed).spawn(trials)
        for k, rng in enumerate(_cpu.reseeded_generators(children)):  # default_rng(child)'s streams, one object
            _adp_loop(problem.features, problem.labels, np.zeros(problem.d), prm, rng, log_steps, out_g[k], out_t[k])
    V.finite_output("eta, sigma, schedule", out_g, out_t)
    return {"steps": log_steps, "grad_norm2": out_g, "theta": out_t}


