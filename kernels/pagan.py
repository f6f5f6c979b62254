r"""The PAGAN family as one fused Numba kernel: SGD/AdaGrad, DP-SGD, PASAN, PAGAN, PDP-SGD.

Every algorithm of ``pagan`` §3 and §6.1 is a choice of four pieces applied per step
to a mini-batch drawn uniformly *with replacement*:

1. privatise each record's subgradient: Euclidean projection onto the ellipsoid
   E_A = {g : Σ a_j g_j² ≤ 1} (A = I/C² is ℓ₂ clipping at C), or nothing;
2. average, then add Gaussian noise with per-coordinate standard deviation
   ``noise_std`` (PAGAN line 6: √(log(1/δ))/(bε)·A^{-1/2});
3. optionally project the noisy gradient onto a public subspace (PDP-SGD);
4. step: constant η, AdaGrad-norm η_k = α/√(Σ_{i≤k}‖ĝ_i‖²) (PASAN), or diagonal
   AdaGrad H_k = diag(Σ_{i≤k} ĝ_i²)^{1/2}/α (PAGAN), followed by the projection onto
   X in the matching norm (Euclidean, or ‖·‖_{H_k}).

The public wrapper :func:`run_algorithm` validates inputs, resolves the algorithm's
name into a :class:`LoopConfig` (the same record the NumPy reference consumes),
spawns one ``numpy.random.Generator`` per trial from a ``SeedSequence``, and hands it
to the jitted kernel: Numba's Generator draws the same stream as NumPy's, so a
kernel and its reference given the same seed see the same batches and noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from numba import njit

import dpvalidate as V
from kernels import _cpu, faults
from kernels.pagan_problems import DOMAIN_CODE, LOSS_ABS, Dataset, check_dataset

STEP_CONSTANT = 0
STEP_ADANORM = 1
STEP_ADAGRAD = 2
CACHE_MAX_ELEMENTS = 2**24  # projected-record cache (128 MiB of float64) used below this n·d
STEP_RULES = {"constant": STEP_CONSTANT, "adanorm": STEP_ADANORM, "adagrad": STEP_ADAGRAD}


@dataclass(frozen=True)
class AlgorithmSpec:
    name: str
    step_rule: str
    private: bool
    geometry: str  # "none" | "identity" | "optimal" | "clip"
    subspace: bool
    description: str


SPECS = {
    s.name: s
    for s in (
        AlgorithmSpec("sgd", "adanorm", False, "none", False, "non-private SGD with AdaGrad-norm stepsize"),
        AlgorithmSpec("adagrad", "adagrad", False, "none", False, "non-private diagonal AdaGrad"),
        AlgorithmSpec("dp_sgd", "constant", True, "clip", False, "DP-SGD: ℓ₂ clipping, isotropic noise, constant step"),
        AlgorithmSpec("pasan", "adanorm", True, "identity", False, "PASAN (pagan Alg. 1), A_k = I unless given"),
        AlgorithmSpec("pagan", "adagrad", True, "identity", False, "PAGAN (pagan Alg. 2), A_k = I unless given"),
        AlgorithmSpec("pagan_opt", "adagrad", True, "optimal", False,
                      "PAGAN with the §3.2 diagonal C_jj = σ_j^(-4/3), A_k = C/B²"),
        AlgorithmSpec("pdp_sgd", "constant", True, "clip", True,
                      "PDP-SGD (Zhou et al.): DP-SGD projected onto a public top-k eigenspace"),
    )
}
ALGORITHMS = tuple(SPECS)


@dataclass(frozen=True)
class LoopConfig:
    """Everything one trial of the loop needs, as plain arrays and numbers."""

    steps: int
    batch_size: int
    step_rule: int
    alpha: float
    clip: bool
    ellipsoid: np.ndarray  # (d,) diagonal a of E_A (unused when clip is False)
    noise: bool
    noise_std: np.ndarray  # (d,) per-coordinate noise standard deviation
    subspace: np.ndarray  # (d, k) orthonormal basis, k = 0 when unused
    domain: int
    radius: float
    eps_stab: float
    log_steps: np.ndarray  # sorted int64 steps at which the loss is recorded
    x0: np.ndarray
    info: dict = field(default_factory=dict)


class LoopSettings(NamedTuple):
    """The loop's bookkeeping settings, as :func:`make_config` takes them (an immutable record).

    ``n_log``: the number of loss checkpoints (at most 10⁹); ``eps_stab``: the stabiliser of the adaptive step
    rules (> 0 for them, ≥ 0 for the constant rule); ``x0``: the starting point (zeros when None).
    """

    n_log: int = 51
    eps_stab: float = 1e-10
    x0: np.ndarray | None = None


class LoopParams(NamedTuple):
    """The scalar settings of one trial of :func:`_adaptive_loop`, as the jitted loop takes them (one argument).

    Built from a :class:`LoopConfig` and its dataset by :func:`loop_params`; the arrays of the configuration
    (ellipsoid, noise standard deviations, subspace basis, checkpoints, starting point) are passed beside it.
    """

    loss_kind: int  # the dataset's loss (LOSS_ABS or linear)
    domain: int  # the constraint set X: 0 none, 1 box, 2 ball (DOMAIN_CODE)
    radius: float  # the radius of X
    steps: int
    batch: int  # records drawn per step, with replacement
    step_rule: int  # STEP_CONSTANT, STEP_ADANORM or STEP_ADAGRAD
    alpha: float  # the stepsize (AdaGrad's α for the adaptive rules)
    eps_stab: float  # the stabiliser of the adaptive step rules
    clip: bool  # project each record's subgradient onto E_A
    noise: bool  # add the Gaussian noise


@dataclass
class RunOutput:
    algorithm: str
    steps: np.ndarray  # (n_log,)
    losses: np.ndarray  # (trials, n_log): f(x_k)
    avg_losses: np.ndarray  # (trials, n_log): f(x̄_k), x̄_k the average of x_1..x_k
    x_final: np.ndarray  # (trials, d)
    x_avg: np.ndarray  # (trials, d)
    clipped_fraction: np.ndarray  # (trials,)
    config: LoopConfig

    @property
    def final_loss(self) -> np.ndarray:
        """The loss at the last checkpoint, per trial.

        Returns
        -------
        numpy.ndarray
            (trials,) ``losses[:, -1]``.
        """
        return self.losses[:, -1]


# --------------------------------------------------------------------------------------
# The fused kernel
# --------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _full_loss(feat, targ, loss_kind, x):
    n, d = feat.shape
    s = 0.0
    for i in range(n):
        r = _cpu.dot(feat[i], x)
        if loss_kind == LOSS_ABS:
            s += abs(r - targ[i])
        else:
            s += r
    return s / n


@njit(cache=True, nogil=True)
def _randint_below(rng, n):
    # ``_cpu.randint_below`` as a call, for n > 2³² − 1 only: inlined, its reference to rng would be taken in the loop
    return _cpu.randint_below(rng, n)


@njit(cache=True, nogil=True, error_model="numpy")
def _adagrad_step(x, gbar, accum, inv_h, alpha, eps_stab):
    # The diagonal AdaGrad step of ``_adaptive_loop``, for eps_stab > 0 only: every divisor is then ≥ eps_stab > 0,
    # so NumPy's error model (no zero-divisor test per element, which kept the loop scalar) changes no result, and
    # the loop vectorises (IEEE sqrt and division are correctly rounded either way: the same bits).
    for j in range(x.shape[0]):
        accum[j] += gbar[j] * gbar[j]
        inv_h[j] = alpha / (eps_stab + math.sqrt(accum[j]))
        x[j] -= inv_h[j] * gbar[j]


@njit(cache=True, nogil=True)
def _adaptive_loop(feat, targ, x0, ell_a, noise_std, basis, prm, rng, log_steps, losses, avg_losses, x, xbar,
                   pcache, pstate, pscale):
    """One trial.  Fills ``losses``/``avg_losses`` at ``log_steps`` and ``x``/``xbar``; returns the clipped fraction.

    ``prm`` is the trial's :class:`LoopParams` (its scalars); the arrays come beside it.

    ``pcache`` (n, d) with ``pstate`` (n,) zeroed, or both empty: a lazy cache of the
    projected records π_A(a_i).  A is fixed for the run and every subgradient is s·a_i
    with s ∈ {−1, 0, 1}, and π_A(s·a) = s·π_A(a) exactly (the projection is odd and the
    Newton iteration sees only squares), so each record is projected once.

    ``pscale`` (n,) with ``pstate`` zeroed, when A = a·I (ℓ₂ clipping): the projection is
    the scaling a_i·min(1, 1/(√a‖a_i‖)), so only that factor is cached and the record's row,
    already loaded for the residual, is reused (one row read per record instead of two).
    """
    loss_kind, domain, radius, steps, batch = prm.loss_kind, prm.domain, prm.radius, prm.steps, prm.batch
    step_rule, alpha, eps_stab, clip, noise = prm.step_rule, prm.alpha, prm.eps_stab, prm.clip, prm.noise
    n, d = feat.shape
    use_scale = clip and pscale.shape[0] == n
    use_cache = clip and not use_scale and pcache.shape[0] == n
    general_clip = clip and not use_scale and not use_cache
    k_sub = basis.shape[1]
    g = np.empty(d)
    gbar = np.empty(d)
    proj = np.empty(d)
    coef = np.empty(k_sub)
    accum = np.zeros(d)  # Σ ĝ² (AdaGrad) ; accum[0] holds Σ‖ĝ‖² for AdaGrad-norm
    inv_h = np.empty(d)
    rows = np.empty(batch, np.int64)  # pass 1's records (those with a nonzero subgradient) and coefficients
    coefs = np.empty(batch)
    for j in range(d):
        x[j] = x0[j]
        xbar[j] = x0[j]
    n_clipped = 0
    li = 0
    bg = rng.bit_generator  # read once: the draws below take no reference to rng per call (see _cpu)
    bits = _cpu.BITGEN_DRAWS and n - 1 < 0xFFFFFFFF
    for k in range(steps + 1):
        while li < log_steps.shape[0] and log_steps[li] == k:
            losses[li] = _full_loss(feat, targ, loss_kind, x)
            avg_losses[li] = _full_loss(feat, targ, loss_kind, xbar)
            li += 1
        if k == steps:
            break
        # 1-2. privatised mean of per-record subgradients, plus noise.  Pass 1 takes each record's residual
        # sign and clip factor (x is fixed within the step); pass 2 sums coefficient × row over the records
        # in order (``_cpu.rows_combination``, register-blocked) — the same sums as adding record by record.
        nrow = 0
        if general_clip:
            for j in range(d):
                gbar[j] = 0.0
        for _ in range(batch):
            i = _cpu.randint_below_bitgen(bg, n) if bits else _randint_below(rng, n)
            if loss_kind == LOSS_ABS:
                r = _cpu.dot(feat[i], x) - targ[i]
                # the sign without branches: r's sign is a coin flip the branch predictor cannot learn
                sgn = np.float64(r > 0) - np.float64(r < 0)
            else:
                sgn = 1.0
            if use_scale:
                if pstate[i] == 0:
                    q = ell_a[0] * _cpu.dot(feat[i], feat[i])
                    if q > 1.0:
                        pstate[i] = 2
                        pscale[i] = 1.0 / math.sqrt(q)
                    else:
                        pstate[i] = 1
                        pscale[i] = 1.0
                # branch-free as well: the slot is always written and kept (nrow advanced) for a nonzero sgn only
                keep = np.int64(sgn != 0.0)
                rows[nrow] = i
                coefs[nrow] = sgn * pscale[i]
                n_clipped += keep & np.int64(pstate[i] == 2)
                nrow += keep
                continue
            if use_cache:
                if pstate[i] == 0:
                    pstate[i] = 2 if _cpu.project_ellipsoid(feat[i], ell_a, pcache[i]) else 1
                keep = np.int64(sgn != 0.0)
                rows[nrow] = i
                coefs[nrow] = sgn
                n_clipped += keep & np.int64(pstate[i] == 2)
                nrow += keep
                continue
            if general_clip:  # the projection without a cache: record by record into gbar
                for j in range(d):
                    g[j] = sgn * feat[i, j]
                if _cpu.project_ellipsoid(g, ell_a, proj):
                    n_clipped += 1
                for j in range(d):
                    gbar[j] += proj[j]
                continue
            rows[nrow] = i
            coefs[nrow] = sgn
            nrow += 1
        if use_cache:
            _cpu.rows_combination(gbar, pcache, rows, coefs, nrow)
        elif not general_clip:
            _cpu.rows_combination(gbar, feat, rows, coefs, nrow)
        for j in range(d):
            gbar[j] /= batch
        if noise:
            for j in range(d):
                z = _cpu.standard_normal_bitgen(bg) if _cpu.BITGEN_DRAWS else rng.standard_normal()
                gbar[j] += noise_std[j] * z
        # 3. public subspace (PDP-SGD)
        if k_sub > 0:
            for c in range(k_sub):
                s = 0.0
                for j in range(d):
                    s += basis[j, c] * gbar[j]
                coef[c] = s
            for j in range(d):
                s = 0.0
                for c in range(k_sub):
                    s += basis[j, c] * coef[c]
                gbar[j] = s
        # 4. step and projection onto X
        if step_rule == STEP_ADAGRAD:
            if eps_stab > 0.0:
                _adagrad_step(x, gbar, accum, inv_h, alpha, eps_stab)
            else:  # (make_config refuses this; kept for a hand-made config) Python's error model raises on 0/0
                for j in range(d):
                    accum[j] += gbar[j] * gbar[j]
                    inv_h[j] = alpha / (eps_stab + math.sqrt(accum[j]))
                    x[j] -= inv_h[j] * gbar[j]
            if domain == 1:
                _cpu.project_box(x, radius)
            elif domain == 2:
                _cpu.project_ball_hnorm(x, inv_h, radius)
        else:
            if step_rule == STEP_ADANORM:
                s = 0.0
                for j in range(d):
                    s += gbar[j] * gbar[j]
                accum[0] += s
                eta = alpha / (eps_stab + math.sqrt(accum[0]))
            else:
                eta = alpha
            for j in range(d):
                x[j] -= eta * gbar[j]
            if domain == 1:
                _cpu.project_box(x, radius)
            elif domain == 2:
                _cpu.project_ball_euclidean(x, radius)
        inv_k = 1.0 / (k + 1)
        for j in range(d):
            xbar[j] += (x[j] - xbar[j]) * inv_k
    return n_clipped / (steps * batch) if clip and steps > 0 else 0.0


# --------------------------------------------------------------------------------------
# Configuration and the public wrapper
# --------------------------------------------------------------------------------------
def pagan_noise_multiplier(epsilon: float, delta: float) -> float:
    """Algorithms 1/2, line 6: the whitened noise std times b, √(log(1/δ))/ε (see theory.pagan.noise_multiplier).

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    float
        √(log(1/δ))/ε.
    """
    return math.sqrt(math.log(1.0 / delta)) / epsilon


def optimal_ellipsoid(dataset: Dataset, clip_norm: float = 1.0) -> tuple[np.ndarray, dict]:
    """The §3.2 ellipsoid A = C/B² with C_jj = σ_j^(−4/3) for PAGAN.

    The paper fixes the shape C but not the radius B for its experiment; we take the B
    at which E_A clips the same fraction of the *public* sample as the ℓ₂ ball of
    radius ``clip_norm`` used with A = I (equal clipping bias, different geometry).
    Returns (a, info).

    Parameters
    ----------
    dataset : Dataset
        The problem; its ``sigma`` (per-coordinate scales) and ``public`` sample are used.
    clip_norm : float, optional
        The ℓ₂ clipping radius whose clipped fraction of the public sample B matches.

    Returns
    -------
    a : numpy.ndarray
        (d,) the diagonal of A = C/B².
    info : dict
        ``B`` and ``public_clipped_fraction`` (the fraction of public records outside the ℓ₂ ball).
    """
    C = dataset.sigma ** (-4.0 / 3.0)
    pub = dataset.public
    frac_iso = float(np.mean(np.linalg.norm(pub, axis=1) > clip_norm))
    norms_c = np.sqrt((pub**2 * C).sum(axis=1))
    B = float(np.quantile(norms_c, 1.0 - frac_iso)) if frac_iso > 0 else float(norms_c.max())
    return C / B**2, {"B": B, "public_clipped_fraction": frac_iso}


def public_subspace(dataset: Dataset, rank: int) -> np.ndarray:
    """Top-``rank`` eigenvectors of the public second-moment matrix (PDP-SGD).

    Parameters
    ----------
    dataset : Dataset
        The problem; its ``public`` sample gives the matrix.
    rank : int
        The number of eigenvectors, 1 ≤ rank ≤ d.

    Returns
    -------
    numpy.ndarray
        (d, rank) C-contiguous, orthonormal columns in decreasing order of eigenvalue.
    """
    pub = dataset.public
    m2 = pub.T @ pub / pub.shape[0]
    w, U = np.linalg.eigh(m2)
    return np.ascontiguousarray(U[:, np.argsort(w)[::-1][:rank]])


#: a bound on |N(0, 1)| draws for the accumulator check below (far beyond any draw a run makes: P(|Z| > 40) ~ 1e-349)
_NOISE_TAIL = 40.0


def _check_accumulator(name, noise_std, terms, z, epsilon, delta, noise_multiplier, steps, batch_size) -> None:
    """Refuse a noise so large that the adaptive step's sum of squared noisy gradients overflows float64.

    The AdaGrad (AdaNorm) accumulator adds ``terms`` squares of noisy gradient coordinates; with a noise std s,
    each is at most (40·s)² in any run: when ``terms``·(40·s)² exceeds the largest float64 the sum can become
    inf, the step α/√inf is 0 and the iterate freezes while the run reports finite losses.  The message names
    the privacy parameter that sets s and the range accepted.
    """
    top = float(np.max(noise_std)) if noise_std.size else 0.0
    if not top > 0.0:
        return
    std_limit = math.sqrt(np.finfo(np.float64).max / terms) / _NOISE_TAIL
    if top <= std_limit:
        return
    why = (f"for {name} with steps = {steps}, batch_size = {batch_size} (a larger noise's squares overflow float64 in "
           "the adaptive step's accumulator, which would freeze the iterate)")
    z_limit = z * std_limit / top
    if noise_multiplier is not None:
        raise V.InvalidParameter("noise_multiplier", f"at most {z_limit:.4g} {why}", noise_multiplier)
    eps_min = epsilon * top / std_limit
    raise V.InvalidParameter("epsilon", f"at least {eps_min:.4g} at delta = {delta:g} {why}", epsilon)


def make_config(name: str, dataset: Dataset, *, epsilon=None, delta=None, noise_multiplier=None,
                steps: int = 1000, batch_size: int = 70, alpha: float = 0.1, clip_norm: float = 1.0,
                ellipsoid=None, subspace_rank=None, settings: LoopSettings = LoopSettings()) -> LoopConfig:
    """Validate and resolve an algorithm name and its parameters into a :class:`LoopConfig`.

    Limits: ``steps``, ``batch_size`` (draws with replacement, so it may exceed n) and ``settings.n_log`` at
    most 10⁹ (:data:`dpvalidate.MAX_COUNT`); ``settings.eps_stab`` > 0 for the adaptive step rules (their first
    step divides by ε_stab + √(Σ ĝ²), zero on a zero gradient).  :func:`config_from_keywords` takes the
    settings as flat keywords instead.

    Parameters
    ----------
    name : str
        One of :data:`ALGORITHMS`.
    dataset : Dataset
        The problem the algorithm runs on.
    epsilon, delta : float, optional
        The privacy target of the private algorithms (or give ``noise_multiplier``).
    noise_multiplier : float, optional
        z, given alone in place of ``epsilon`` and ``delta`` (which give z = :func:`pagan_noise_multiplier`).
    steps, batch_size : int, optional
        Iterations, records drawn per step.
    alpha : float, optional
        The stepsize (AdaGrad's α for the adaptive rules).
    clip_norm : float, optional
        The clipping threshold.
    ellipsoid : array, optional
        The diagonal of A for pasan and pagan.
    subspace_rank : int, optional
        pdp_sgd's public subspace rank.
    settings : LoopSettings, optional
        The loss checkpoints ``n_log``, the stabiliser ``eps_stab`` of the adaptive step rules and the starting
        point ``x0``.

    Returns
    -------
    LoopConfig

    Raises
    ------
    dpvalidate.InvalidParameter
        An unknown name or a parameter outside what it accepts (the message names it).
    """
    V.choice("algorithm", name, ALGORITHMS)
    check_dataset(dataset)
    if not isinstance(settings, LoopSettings):
        raise V.InvalidParameter("settings", "a kernels.pagan.LoopSettings (n_log, eps_stab, x0)",
                                 type(settings).__name__)
    n_log, eps_stab, x0 = settings
    spec = SPECS[name]
    d = dataset.d
    steps = V.count("steps", steps)
    batch_size = V.count("batch_size", batch_size)
    V.memory("batch_size", batch_size, itemsize=16)  # the loop's per-batch rows and coefficients
    alpha = V.positive("alpha", alpha)
    clip_norm = V.positive("clip_norm", clip_norm)
    n_log = V.count("n_log", n_log, 2)
    eps_stab = V.nonnegative("eps_stab", eps_stab) if spec.step_rule == "constant" else V.positive("eps_stab", eps_stab)
    x0 = np.zeros(d) if x0 is None else V.finite_array("x0", x0, shape=(d,))
    info: dict = {"algorithm": name, "description": spec.description}

    z = 0.0
    if spec.private:
        if noise_multiplier is not None:
            if epsilon is not None or delta is not None:
                raise V.InvalidParameter("noise_multiplier", "given alone, without epsilon/delta", noise_multiplier)
            z = V.nonnegative("noise_multiplier", noise_multiplier)
        else:
            if epsilon is None or delta is None:
                raise V.InvalidParameter("epsilon", f"given (with delta) for the private algorithm {name}", epsilon)
            epsilon = V.positive("epsilon", epsilon, allow_inf=True)
            delta = V.open_unit("delta", delta)
            z = 0.0 if math.isinf(epsilon) else pagan_noise_multiplier(epsilon, delta)
        info["noise_multiplier"] = z
    else:
        for pname, val in (("epsilon", epsilon), ("delta", delta), ("noise_multiplier", noise_multiplier)):
            if val is not None:
                raise V.InvalidParameter(pname, f"omitted: {name} is not private", val)

    ell = np.ones(d)
    if spec.geometry == "clip":
        if ellipsoid is not None:
            raise V.InvalidParameter("ellipsoid", f"omitted for {name} (it clips in ℓ₂ at clip_norm)", "an array")
        ell = np.full(d, 1.0 / clip_norm**2)
    elif spec.geometry == "identity":
        ell = np.ones(d) if ellipsoid is None else V.finite_array("ellipsoid", ellipsoid, shape=(d,))
        if np.any(ell <= 0):
            raise V.InvalidParameter("ellipsoid", "positive in every coordinate", "a non-positive entry")
    elif spec.geometry == "optimal":
        if ellipsoid is not None:
            raise V.InvalidParameter("ellipsoid", f"omitted for {name} (it uses the §3.2 choice)", "an array")
        ell, extra = optimal_ellipsoid(dataset, clip_norm)
        info.update(extra)
    info["ellipsoid"] = ell

    basis = np.zeros((d, 0))
    if spec.subspace:
        rank = max(1, d // 10) if subspace_rank is None else V.integer("subspace_rank", subspace_rank, 1)
        if rank > d:
            raise V.InvalidParameter("subspace_rank", f"at most d = {d}", rank)
        basis = public_subspace(dataset, rank)
        info["subspace_rank"] = rank
    elif subspace_rank is not None:
        raise V.InvalidParameter("subspace_rank", "given only for pdp_sgd", subspace_rank)

    noise_std = z / (batch_size * np.sqrt(ell)) if spec.private else np.zeros(d)
    if spec.private and spec.step_rule != "constant":
        _check_accumulator(name, noise_std, steps * (d if spec.step_rule == "adanorm" else 1), z, epsilon, delta,
                           noise_multiplier, steps, batch_size)
    clip = spec.geometry != "none"
    # fault hooks for mutation analysis (kernels/faults.py): factors of exactly 1 outside a mutation run
    alpha = alpha * faults.stepsize_scale()
    if spec.private:
        # with A = I (every ellipsoid weight 1) A and A⁻¹ coincide: the fault would change no draw, so its hook is
        # not visited and the mutant does not apply to such a run
        if clip and np.any(ell != 1.0) and faults.noise_geometry_inverse():
            noise_std = z * np.sqrt(ell) / batch_size  # covariance A instead of A⁻¹
        noise_std = noise_std * faults.noise_factor(noise_std)
    clip = clip and not faults.skip_clipping()
    log_steps = np.unique(np.linspace(0, steps, min(n_log, steps + 1)).round().astype(np.int64))
    return LoopConfig(steps, batch_size, STEP_RULES[spec.step_rule], alpha, clip, ell,
                      spec.private and z > 0, noise_std, basis, DOMAIN_CODE[dataset.domain], dataset.radius,
                      eps_stab, log_steps, x0, info)


def config_from_keywords(name: str, dataset: Dataset, **params) -> LoopConfig:
    """:func:`make_config` with the fields of :class:`LoopSettings` given as flat keywords, as
    :func:`run_algorithm` takes them.

    Parameters
    ----------
    name : str
        One of :data:`ALGORITHMS`.
    dataset : Dataset
        The problem the algorithm runs on.
    **params
        The keyword parameters of :func:`make_config` other than ``settings``, and ``n_log``, ``eps_stab``, ``x0``.

    Returns
    -------
    LoopConfig

    Raises
    ------
    dpvalidate.InvalidParameter
        As :func:`make_config`.
    """
    given = {k: params.pop(k) for k in LoopSettings._fields if k in params}
    return make_config(name, dataset, **params, settings=LoopSettings(**given))


def trial_generators(seed: int, trials: int) -> list[np.random.Generator]:
    """One independent ``Generator`` per trial, spawned from ``SeedSequence(seed)`` (``trials`` ≤ 2·10⁶: ~4 KiB each).

    Parameters
    ----------
    seed : int
        The root seed, ≥ 0.
    trials : int
        The number of generators.

    Returns
    -------
    list of numpy.random.Generator
        One per trial, in spawn order.

    Raises
    ------
    dpvalidate.InvalidParameter
        (from :mod:`dpvalidate`) ``seed`` negative or not an integer, ``trials`` out of range or too large.
    """
    seed = V.integer("seed", seed, 0)
    trials = V.count("trials", trials)
    V.memory("trials", trials, itemsize=4096)
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(trials)]


def loop_params(cfg: LoopConfig, dataset: Dataset) -> LoopParams:
    """The scalar record the jitted loop takes, from a resolved configuration and its dataset.

    Parameters
    ----------
    cfg : LoopConfig
        A configuration from :func:`make_config`.
    dataset : Dataset
        The dataset it was made for (gives the loss kind).

    Returns
    -------
    LoopParams
        ``cfg``'s scalar fields and ``dataset.loss_kind``, unchanged in value and type.
    """
    return LoopParams(dataset.loss_kind, cfg.domain, cfg.radius, cfg.steps, cfg.batch_size, cfg.step_rule, cfg.alpha,
                      cfg.eps_stab, cfg.clip, cfg.noise)


def run_config(cfg: LoopConfig, dataset: Dataset, rng: np.random.Generator) -> dict:
    """One trial of the fused kernel for a resolved configuration.

    Parameters
    ----------
    cfg : LoopConfig
        A configuration from :func:`make_config`.
    dataset : Dataset
    rng : numpy.random.Generator
        The trial's stream.

    Returns
    -------
    dict
        The trial's final and averaged iterates and its loss checkpoints.
    """
    m = cfg.log_steps.shape[0]
    n, d = dataset.features.shape
    pscale = np.empty(0)
    if cfg.clip and np.all(cfg.ellipsoid == cfg.ellipsoid[0]):  # ℓ₂ clipping: cache one factor per record
        pcache, pstate, pscale = np.empty((0, 0)), np.zeros(n, dtype=np.int8), np.empty(n)
    elif cfg.clip and n * d <= CACHE_MAX_ELEMENTS:
        pcache, pstate = np.empty((n, d)), np.zeros(n, dtype=np.int8)
    else:
        pcache, pstate = np.empty((0, 0)), np.zeros(0, dtype=np.int8)
    out = dict(losses=np.empty(m), avg_losses=np.empty(m), x=np.empty(dataset.d), xbar=np.empty(dataset.d))
    frac = _adaptive_loop(dataset.features, dataset.targets, cfg.x0, cfg.ellipsoid, cfg.noise_std, cfg.subspace,
                          loop_params(cfg, dataset), rng, cfg.log_steps, out["losses"], out["avg_losses"], out["x"],
                          out["xbar"], pcache, pstate, pscale)
    out["clipped_fraction"] = frac
    return out


@njit(cache=True, nogil=True)
def _trials_one_stream(feat, targ, x0, ell_a, noise_std, basis, prm, rng, trials, x_out, xbar_out):
    n, d = feat.shape
    log_steps = np.zeros(1, dtype=np.int64)
    losses = np.empty(1)
    avg = np.empty(1)
    for t in range(trials):
        pstate = np.zeros(n, dtype=np.int8)
        _adaptive_loop(feat, targ, x0, ell_a, noise_std, basis, prm, rng, log_steps, losses, avg, x_out[t],
                       xbar_out[t], np.empty((n, d)), pstate, np.empty(0))


def run_trials_one_stream(cfg: LoopConfig, dataset: Dataset, trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` runs of a resolved configuration drawing, in order, from *one* stream seeded by ``seed``.

    For many short trials (privacy audits): one jitted call instead of one per trial.  The
    numbers differ from :func:`run_algorithm`'s (which spawns a stream per trial) but are
    equally reproducible.  Returns (x_final, x_avg), each (trials, d); ``trials`` ≤ 10⁹ with both arrays ≤ 8 GiB.

    Parameters
    ----------
    cfg : LoopConfig
    dataset : Dataset
    trials : int
    seed : int
        Seeds the one stream every trial draws from.

    Returns
    -------
    tuple of numpy.ndarray
        (x_final, x_avg), each (trials, d).

    Raises
    ------
    dpvalidate.InvalidParameter
        ``trials`` or the outputs' size outside the limits.
    """
    if not isinstance(cfg, LoopConfig):
        raise V.InvalidParameter("cfg", "a kernels.LoopConfig (see kernels.make_config)", type(cfg).__name__)
    check_dataset(dataset)
    if cfg.x0.shape != (dataset.d,) or cfg.subspace.shape[0] != dataset.d:
        raise V.InvalidParameter("cfg", f"a LoopConfig made for this dataset (d = {dataset.d})", cfg.x0.shape)
    trials = V.count("trials", trials)
    V.memory("trials", trials, 2 * dataset.d)
    rng = np.random.default_rng(V.integer("seed", seed, 0))
    x_out, xbar_out = np.empty((trials, dataset.d)), np.empty((trials, dataset.d))
    _trials_one_stream(dataset.features, dataset.targets, cfg.x0, cfg.ellipsoid, cfg.noise_std, cfg.subspace,
                       loop_params(cfg, dataset), rng, trials, x_out, xbar_out)
    return x_out, xbar_out


def run_algorithm(name: str, dataset: Dataset, *, trials: int = 1, seed: int = 0, **params) -> RunOutput:
    """Run ``name`` (one of :data:`ALGORITHMS`) on ``dataset`` for ``trials`` independent trials.

    Parameters (keyword): ``epsilon``, ``delta`` (private algorithms; or ``noise_multiplier``),
    ``steps``, ``batch_size``, ``alpha`` (stepsize / AdaGrad α), ``clip_norm``, ``ellipsoid``
    (diagonal of A for pasan/pagan), ``subspace_rank`` (pdp_sgd), ``n_log`` (loss
    checkpoints), ``eps_stab``, ``x0``.  Same ``seed`` ⇒ same numbers.

    Limits: counts as :func:`make_config`; ``trials`` ≤ 10⁹ with every per-trial output (and ~4 KiB of
    bookkeeping per trial) ≤ 8 GiB in all.  A run that overflows float64 (say ``alpha`` = 1e300 with
    a tiny ``eps_stab``) raises :class:`~dpvalidate.InvalidParameter` instead of returning NaN.

    Parameters
    ----------
    name : str
        One of :data:`ALGORITHMS`.
    dataset : Dataset
        The problem.
    trials : int, optional
        Independent trials, one spawned stream each.
    seed : int, optional
        The root of every trial's stream.
    **params
        As :func:`config_from_keywords`.

    Returns
    -------
    RunOutput

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_algorithm`` outside what it accepts, or a run that overflows float64.
    """
    check_dataset(dataset)
    for key in params:
        if key not in _CONFIG_KEYS:
            raise V.InvalidParameter(key, "a parameter of run_algorithm (one of trials, seed, "
                                     + ", ".join(_CONFIG_KEYS) + ")", params[key])
    cfg = config_from_keywords(name, dataset, **params)
    V.count("trials", trials)
    V.memory("trials, n_log", trials, 4096 // 8 + 4 * (cfg.log_steps.size + dataset.d))
    rngs = trial_generators(seed, trials)
    runs = [run_config(cfg, dataset, r) for r in rngs]
    V.finite_output("alpha, eps_stab, epsilon, noise_multiplier, x0",
                    *[r[k] for r in runs for k in ("losses", "avg_losses", "x", "xbar")])
    return RunOutput(
        name,
        cfg.log_steps.copy(),
        np.array([r["losses"] for r in runs]),
        np.array([r["avg_losses"] for r in runs]),
        np.array([r["x"] for r in runs]),
        np.array([r["xbar"] for r in runs]),
        np.array([r["clipped_fraction"] for r in runs]),
        cfg,
    )


_CONFIG_KEYS = ("epsilon", "delta", "noise_multiplier", "steps", "batch_size", "alpha", "clip_norm", "ellipsoid",
                "subspace_rank", "n_log", "eps_stab", "x0")


def with_params(cfg: LoopConfig, **changes) -> LoopConfig:
    """A copy of a configuration with some fields changed (e.g. a different stepsize).

    The fields are not re-validated: change them to values :func:`make_config` would accept.

    Parameters
    ----------
    cfg : LoopConfig
        The configuration to copy.
    **changes
        Field names of :class:`LoopConfig` and their new values.

    Returns
    -------
    LoopConfig
        The copy (``dataclasses.replace``).
    """
    return replace(cfg, **changes)
