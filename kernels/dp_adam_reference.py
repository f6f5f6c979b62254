r"""Short NumPy references for :mod:`kernels.dp_adam`, composed in the optax idiom.

Each algorithm is a chain of small transforms, each an ``init``/``update`` pair on an explicit
state record: clip-and-average → (scale) → add noise → (unscale) → moment update → step.  Given
the same unit noise these are the test oracles of the fused kernel and the baseline of the
d = 10⁶ benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np


# --------------------------------------------------------------------------------------
# transforms
# --------------------------------------------------------------------------------------
def clip_average(grads: np.ndarray, clip_norm: float, scale: np.ndarray | None = None) -> np.ndarray:
    """(1/B) Σ clip(s⊙g_i, C) (s = 1 when ``scale`` is None), returned in the scaled geometry.

    Parameters
    ----------
    grads : ndarray of float, shape (B, d)
        The per-record gradients g_i.
    clip_norm : float
        The clipping threshold C (``inf``: no clipping).
    scale : ndarray of float, shape (d,), optional
        The coordinate scaling s applied before clipping; None (default) for none.

    Returns
    -------
    ndarray of float64, shape (d,)
        The average of the clipped (scaled) records; divide by s to return to the original geometry.
    """
    g = grads if scale is None else grads * scale
    norms = np.linalg.norm(g, axis=1)
    f = np.minimum(1.0, clip_norm / np.where(norms > 0, norms, 1.0))
    return (g * f[:, None]).mean(axis=0)


def add_noise(x: np.ndarray, unit_noise: np.ndarray, std: float) -> np.ndarray:
    """x + std·ζ for given unit noise ζ (so the reference and the kernel can share the same draws).

    Parameters
    ----------
    x : ndarray of float, shape (d,)
        The clean vector.
    unit_noise : ndarray of float, shape (d,)
        The unit-variance noise ζ.
    std : float
        The noise standard deviation.

    Returns
    -------
    ndarray of float64, shape (d,)
        The noisy vector.
    """
    return x + std * unit_noise


@dataclass
class AdamState:
    """The optimizer state of the references (changed in place by :func:`moments_update`).

    Attributes
    ----------
    m, v : ndarray of float64, shape (d,)
        First and second moments (AdaGrad: v is the running sum).
    count : int
        Rounds taken so far.
    vclean : ndarray of float64, shape (d,)
        A second moment of the clean gradients (zeros from :func:`adam_init`; not used by the functions here).
    """

    m: np.ndarray
    v: np.ndarray
    count: int = 0
    vclean: np.ndarray = field(default=None)  # type: ignore[assignment]


def adam_init(d: int) -> AdamState:
    """A zero state.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    AdamState
        m, v and vclean zero vectors of length d, count 0.
    """
    return AdamState(np.zeros(d), np.zeros(d), 0, np.zeros(d))


def moments_update(state: AdamState, g: np.ndarray, q: np.ndarray, beta1: float, beta2: float,
                   optimizer: str) -> tuple[np.ndarray, np.ndarray]:
    """Update m from g and v from q; return (m̂, v̂) (Adam bias-corrected; AdaGrad raw sums).

    ``"adam"``: m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)q, m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ) with t the new count.
    Any other optimizer (``"adagrad"``): m ← β₁m + (1 − β₁)g (m = g when β₁ = 0), v ← v + q, returned as is.

    Parameters
    ----------
    state : AdamState
        Updated in place (count, m, v).
    g : ndarray of float, shape (d,)
        The (noisy) gradient feeding m.
    q : ndarray of float, shape (d,)
        The (noisy) squared gradient feeding v.
    beta1, beta2 : float
        The moment rates (β₂ unused by AdaGrad).
    optimizer : str
        ``"adam"`` or ``"adagrad"``.

    Returns
    -------
    m_hat : ndarray of float64, shape (d,)
        The first moment used by the step.
    v_hat : ndarray of float64, shape (d,)
        The second moment used by the step (may be negative where q was).
    """
    state.count += 1
    if optimizer == "adam":
        state.m = beta1 * state.m + (1 - beta1) * g
        state.v = beta2 * state.v + (1 - beta2) * q
        return state.m / (1 - beta1**state.count), state.v / (1 - beta2**state.count)
    state.m = beta1 * state.m + (1 - beta1) * g if beta1 > 0 else g.copy()
    state.v = state.v + q
    return state.m, state.v


def precondition(mh: np.ndarray, vh: np.ndarray, xi: float, floor: float) -> np.ndarray:
    """The preconditioned direction m̂/(√max(v̂, floor) + ξ).

    Parameters
    ----------
    mh, vh : ndarray of float, shape (d,)
        The moments m̂ and v̂.
    xi : float
        The stabiliser ξ.
    floor : float
        The floor on v̂ under the square root (0 for plain Adam; v̂ may be negative in IME and DP-AdamBC).

    Returns
    -------
    ndarray of float64, shape (d,)
        The direction (the step is −lr times it).
    """
    return mh / (np.sqrt(np.maximum(vh, floor)) + xi)


# --------------------------------------------------------------------------------------
# one round of every variant
# --------------------------------------------------------------------------------------
class ReferenceSettings(NamedTuple):
    """The optimizer settings of a reference round that stay fixed over a run (one argument of
    :func:`reference_round` and :func:`benchmark_round_reference`).

    Attributes
    ----------
    lr : float
        The learning rate.
    beta1, beta2 : float
        The moment rates.
    xi : float
        The stabiliser ξ.
    clip_norm : float
        The clipping threshold C.
    floor : float
        The floor on v̂ under the square root (default 0).
    """

    lr: float
    beta1: float
    beta2: float
    xi: float
    clip_norm: float
    floor: float = 0.0


def reference_round(variant: str, optimizer: str, theta: np.ndarray, state: AdamState, grads: np.ndarray,
                    zm: np.ndarray, zv: np.ndarray, settings: ReferenceSettings, *, std_m: float, std_v: float,
                    bc_sub: float = 0.0) -> tuple[np.ndarray, int]:
    """θ after one round and the number of negative corrected v̂ coordinates.

    The variants of :mod:`kernels.dp_adam` (its module docstring gives the algorithm of each): the average of
    clipped records ḡ (for ``scale_then_privatize``/``noiseless_stp`` clipped as s⊙g with
    s = 1/(√max(v̂_{t−1}, 0) + ξ), s = 1 in the first round, and unscaled after the noise), g̃ = ḡ + std_m·zm;
    ``sgd_momentum`` then steps θ − lr·m with m = β₁m + g̃; the others feed m from g̃ and v from
    q = ḡ² + std_v·zv (``ime``), ḡ² (``noiseless``, ``noiseless_stp``) or g̃² (the rest), subtract ``bc_sub``
    from v̂ for ``bias_correction``, and step θ − lr·m̂/(√max(v̂, floor) + ξ).

    Parameters
    ----------
    variant : str
        A key of ``kernels.dp_adam.VARIANTS``.
    optimizer : str
        ``"adam"`` or ``"adagrad"``.
    theta : ndarray of float, shape (d,)
        The iterate before the round.
    state : AdamState
        The optimizer state, updated in place.
    grads : ndarray of float, shape (B, d)
        The round's per-record gradients.
    zm, zv : ndarray of float, shape (d,)
        The round's unit noise for the gradient and (IME only) for the squared gradient.
    settings : ReferenceSettings
        The learning rate, moment rates, ξ, clipping threshold and floor.
    std_m, std_v : float
        The noise standard deviations of the two parts.
    bc_sub : float, optional
        The bias subtracted from v̂ by ``bias_correction`` (default 0).

    Returns
    -------
    theta : ndarray of float64, shape (d,)
        The new iterate.
    negative : int
        The number of coordinates with v̂ < 0 (after ``bc_sub``; 0 for ``sgd_momentum``).
    """
    lr, beta1, beta2, xi, clip_norm, floor = settings
    if variant in ("scale_then_privatize", "noiseless_stp"):
        if state.count == 0:
            s = np.ones(theta.size)
        else:
            vprev = state.v / (1 - beta2**state.count) if optimizer == "adam" else state.v
            s = 1.0 / (np.sqrt(np.maximum(vprev, 0.0)) + xi)
        clean = clip_average(grads, clip_norm, s) / s
        g = add_noise(clip_average(grads, clip_norm, s), zm, std_m) / s
    else:
        clean = clip_average(grads, clip_norm)
        g = add_noise(clean, zm, std_m)
    if variant == "sgd_momentum":
        state.m = beta1 * state.m + g
        state.count += 1
        return theta - lr * state.m, 0
    if variant == "ime":
        q = add_noise(clean**2, zv, std_v)
    elif variant in ("noiseless", "noiseless_stp"):
        q = clean**2
    else:
        q = g**2
    mh, vh = moments_update(state, g, q, beta1, beta2, optimizer)
    if variant == "bias_correction":
        vh = vh - bc_sub
    neg = int(np.sum(vh < 0))
    return theta - lr * precondition(mh, vh, xi, floor), neg


def filter_reference(cinv_coeffs: np.ndarray, zeta: np.ndarray) -> np.ndarray:
    """ζ̃ = C⁻¹ζ with the dense lower-triangular Toeplitz matrix; zeta (T, d).

    Parameters
    ----------
    cinv_coeffs : ndarray of float, shape (≥ T,)
        The first column of C⁻¹: (C⁻¹)_{ts} = cinv_coeffs[t − s] for s ≤ t.
    zeta : ndarray of float, shape (T, d)
        The independent unit noise ζ, one round per row.

    Returns
    -------
    ndarray of float64, shape (T, d)
        The correlated noise ζ̃_t = Σ_{s≤t} (C⁻¹)_{ts} ζ_s.
    """
    T = zeta.shape[0]
    M = np.zeros((T, T))
    for k in range(T):
        M += np.diag(np.full(T - k, cinv_coeffs[k]), -k)
    return M @ zeta


def constant_signal_vhat_reference(signal: np.ndarray, noise: np.ndarray, beta2: float, mode: str,
                                   noise_std: float) -> np.ndarray:
    """v̂_t for a constant signal given the noise (steps, d) of std ``noise_std`` (bias correction or IME).

    ``"bias_correction"``: v ← β₂v + (1 − β₂)(signal + z_t)², v̂ = v/(1 − β₂ᵗ) − noise_std²; otherwise (IME):
    v ← β₂v + (1 − β₂)(signal² + z_t), v̂ = v/(1 − β₂ᵗ).

    Parameters
    ----------
    signal : ndarray of float, shape (d,)
        The constant clean average ḡ.
    noise : ndarray of float, shape (steps, d)
        The noise z_t of each step (already scaled to ``noise_std``).
    beta2 : float
        The second-moment rate β₂.
    mode : str
        ``"bias_correction"`` or any other value for IME.
    noise_std : float
        The noise standard deviation, subtracted squared in ``"bias_correction"`` mode.

    Returns
    -------
    ndarray of float64, shape (d,)
        v̂ after the last step (None when ``noise`` has no rows).
    """
    v = np.zeros(signal.size)
    s2 = None
    for t in range(noise.shape[0]):
        if mode == "bias_correction":
            v = beta2 * v + (1 - beta2) * (signal + noise[t]) ** 2
        else:
            v = beta2 * v + (1 - beta2) * (signal**2 + noise[t])
        s2 = v / (1 - beta2 ** (t + 1)) - (noise_std**2 if mode == "bias_correction" else 0.0)
    return s2


def benchmark_round_reference(grads, theta, m, v, t, zm, settings: ReferenceSettings, *, std, bias):
    """The bias-corrected DP-Adam round written as plain NumPy (the benchmark baseline); returns new θ, m, v.

    g̃ = ḡ + std·zm, Adam moments from g̃, v̂ = v/(1 − β₂^{t+1}) − bias, θ ← θ − lr·m̂/(√max(v̂, floor) + ξ).

    Parameters
    ----------
    grads : ndarray of float, shape (B, d)
        The round's per-record gradients.
    theta, m, v : ndarray of float, shape (d,)
        The iterate and moments before the round (not changed in place).
    t : int
        Rounds already taken (0-based; the bias corrections use t + 1).
    zm : ndarray of float, shape (d,)
        The round's unit noise.
    settings : ReferenceSettings
        The learning rate, moment rates, ξ, clipping threshold and floor.
    std : float
        The noise standard deviation.
    bias : float
        The bias subtracted from v̂ (0 for plain DP-Adam).

    Returns
    -------
    theta, m, v : ndarray of float64, shape (d,)
        The iterate and the moments after the round.
    """
    lr, beta1, beta2, xi, clip_norm, floor = settings
    gbar = clip_average(grads, clip_norm)
    g = gbar + std * zm
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    mh = m / (1 - beta1 ** (t + 1))
    vh = v / (1 - beta2 ** (t + 1)) - bias
    theta = theta - lr * mh / (np.sqrt(np.maximum(vh, floor)) + xi)
    return theta, m, v
