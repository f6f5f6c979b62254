"""Scalar/vector helpers written once in plain Python, compiled per target.

These functions use only loops, arithmetic and ``math`` so that the same source
compiles with ``numba.njit(inline="always")`` for the CPU (see ``kernels._cpu``)
and with ``numba.cuda.jit(device=True)`` for the GPU path: CPU and GPU cannot drift.

The two projections of the PAGAN family reduce to one secular equation.
For x ∈ R^d and positive a ∈ R^d, the points y(μ) = x/(1 + μ a) (coordinatewise)
trace the projections onto level sets:

* Euclidean projection onto the ellipsoid E_A = {y : Σ a_j y_j² ≤ 1}:
  q(μ) = Σ a_j x_j²/(1+μ a_j)² = 1   (``weighted=True``)
* projection in the H-norm (H = diag(h)) onto the ℓ₂ ball of radius R:
  with a_j = 1/h_j,  q(μ) = Σ x_j²/(1+μ a_j)² = R²   (``weighted=False``)

Both q are of the trust-region form Σ w_j²/(λ_j+μ)², so ψ(μ) = q(μ)^{-1/2} − target^{-1/2}
is concave and increasing; Newton's method from μ = 0 (where ψ < 0) increases
monotonically to the root without overshooting.
"""

import math

NEWTON_MAX_ITER = 60
NEWTON_RTOL = 1e-13


def shrink_q(x, a, weighted, mu):
    """q(μ) and dq/dμ for the secular equation (see module docstring).

    Parameters
    ----------
    x : array
        (d,) the point.
    a : array
        (d,) positive weights.
    weighted : bool
        True for the ellipsoid's q (terms times a_j), False for the H-norm ball's.
    mu : float
        μ ≥ 0.

    Returns
    -------
    q : float
        q(μ).
    dq : float
        dq/dμ at μ.
    """
    q = 0.0
    dq = 0.0
    for j in range(x.shape[0]):
        t = 1.0 / (1.0 + mu * a[j])
        w = x[j] * x[j] * t * t
        if weighted:
            w *= a[j]
        q += w
        dq -= 2.0 * w * a[j] * t
    return q, dq


def shrink_mu(x, a, weighted, target):
    """The μ ≥ 0 with q(μ) = target (0 when q(0) ≤ target).

    Newton starts at μ₀ = (√(q(0)/target) − 1)/max_j a_j, a lower bound on the root
    (q(μ) ≥ q(0)/(1 + μ max a)²) that is the root itself when a is constant; from a
    point left of the root the iteration stays left of it.

    Parameters
    ----------
    x : array
        (d,) the point.
    a : array
        (d,) positive weights.
    weighted : bool
        As :func:`shrink_q`.
    target : float
        The level, > 0 (1 for the ellipsoid, R² for the ball).

    Returns
    -------
    float
        μ (after at most :data:`NEWTON_MAX_ITER` Newton steps, relative tolerance :data:`NEWTON_RTOL`).
    """
    q0 = 0.0
    amax = 0.0
    for j in range(x.shape[0]):
        w = x[j] * x[j]
        if weighted:
            w *= a[j]
        q0 += w
        if a[j] > amax:
            amax = a[j]
    if q0 <= target:
        return 0.0
    rt = math.sqrt(target)
    mu = (math.sqrt(q0) / rt - 1.0) / amax
    q, dq = shrink_q(x, a, weighted, mu)
    for _ in range(NEWTON_MAX_ITER):
        if abs(q - target) <= NEWTON_RTOL * target:
            break
        # psi = q^{-1/2} - target^{-1/2};  psi' = -q'/(2 q^{3/2})
        psi = 1.0 / math.sqrt(q) - 1.0 / rt
        dpsi = -dq / (2.0 * q * math.sqrt(q))
        step = -psi / dpsi
        mu += step
        q, dq = shrink_q(x, a, weighted, mu)
        if step <= NEWTON_RTOL * mu:
            break
    return mu


def project_ellipsoid(x, a, out):
    """Euclidean projection of x onto {y : Σ a_j y_j² ≤ 1}; returns True when x was outside.

    A final rescaling by 1/√q (a relative change below 1e-12 after Newton) makes
    the output satisfy the constraint exactly up to rounding, so the sensitivity
    bound used by the privacy analysis is never exceeded.

    Parameters
    ----------
    x : array
        (d,) the point.
    a : array
        (d,) the positive diagonal of A.
    out : array
        (d,) receives the projection (may not alias ``x``).

    Returns
    -------
    bool
        Whether x was outside the ellipsoid (``out`` = x when it was not).
    """
    mu = shrink_mu(x, a, True, 1.0)
    if mu == 0.0:
        for j in range(x.shape[0]):
            out[j] = x[j]
        return False
    q = 0.0
    for j in range(x.shape[0]):
        out[j] = x[j] / (1.0 + mu * a[j])
        q += a[j] * out[j] * out[j]
    if q > 1.0:
        s = 1.0 / math.sqrt(q)
        for j in range(x.shape[0]):
            out[j] *= s
    return True


def dot(u, v):
    """Σ u_j v_j in a fixed order: sixteen lane sums s_l = Σ_{j ≡ l (mod 16)} u_j v_j over the first
    16·⌊d/16⌋ entries, combined as t_l = (s_l + s_{l+4}) + (s_{l+8} + s_{l+12}), r = (t₀ + t₁) + (t₂ + t₃),
    then the last d mod 16 products added in order.

    Sixteen independent chains break the add-latency chain, and the order is fixed by this source, not
    by the compiler or the CPU's vector width: the CPU build (:mod:`kernels._cpu`) runs the same lanes
    as four 4-wide vectors and gives the same bits (tested).  No fastmath, so no contraction into FMA.

    Parameters
    ----------
    u, v : array
        (d,) vectors of the same length.

    Returns
    -------
    float
        Σ u_j v_j, summed in the order above.
    """
    d = u.shape[0]
    m = d - d % 16
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = 0.0
    for j in range(0, m, 16):
        s0 += u[j] * v[j]
        s1 += u[j + 1] * v[j + 1]
        s2 += u[j + 2] * v[j + 2]
        s3 += u[j + 3] * v[j + 3]
        s4 += u[j + 4] * v[j + 4]
        s5 += u[j + 5] * v[j + 5]
        s6 += u[j + 6] * v[j + 6]
        s7 += u[j + 7] * v[j + 7]
        s8 += u[j + 8] * v[j + 8]
        s9 += u[j + 9] * v[j + 9]
        s10 += u[j + 10] * v[j + 10]
        s11 += u[j + 11] * v[j + 11]
        s12 += u[j + 12] * v[j + 12]
        s13 += u[j + 13] * v[j + 13]
        s14 += u[j + 14] * v[j + 14]
        s15 += u[j + 15] * v[j + 15]
    t0 = (s0 + s4) + (s8 + s12)
    t1 = (s1 + s5) + (s9 + s13)
    t2 = (s2 + s6) + (s10 + s14)
    t3 = (s3 + s7) + (s11 + s15)
    r = (t0 + t1) + (t2 + t3)
    for j in range(m, d):
        r += u[j] * v[j]
    return r


def clip_factor(norm, clip_norm):
    """min(1, C/‖g‖) — the factor of ℓ₂ clipping (1 for a zero vector).

    Parameters
    ----------
    norm : float
        ‖g‖ ≥ 0.
    clip_norm : float
        C > 0.

    Returns
    -------
    float
        1 when ‖g‖ ≤ C, else C/‖g‖.
    """
    if norm <= clip_norm:
        return 1.0
    return clip_norm / norm


def project_box(x, radius):
    """In place: clip every coordinate to [−R, R] (the projection onto the box in any diagonal norm).

    Parameters
    ----------
    x : array
        (d,) the point, overwritten.
    radius : float
        R ≥ 0.
    """
    for j in range(x.shape[0]):
        if x[j] > radius:
            x[j] = radius
        elif x[j] < -radius:
            x[j] = -radius


def project_ball_euclidean(x, radius):
    """In place: Euclidean projection onto {‖y‖₂ ≤ R}.

    Parameters
    ----------
    x : array
        (d,) the point, overwritten.
    radius : float
        R ≥ 0.
    """
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * x[j]
    if s > radius * radius:
        f = radius / math.sqrt(s)
        for j in range(x.shape[0]):
            x[j] *= f


def project_ball_hnorm(x, inv_h, radius):
    """In place: projection onto {‖y‖₂ ≤ R} in the norm ‖·‖_H, H = diag(1/inv_h).

    Parameters
    ----------
    x : array
        (d,) the point, overwritten.
    inv_h : array
        (d,) the positive diagonal of H⁻¹.
    radius : float
        R > 0.
    """
    mu = shrink_mu(x, inv_h, False, radius * radius)
    if mu > 0.0:
        s = 0.0
        for j in range(x.shape[0]):
            x[j] = x[j] / (1.0 + mu * inv_h[j])
            s += x[j] * x[j]
        if s > radius * radius:
            f = radius / math.sqrt(s)
            for j in range(x.shape[0]):
                x[j] *= f


def adp_scales(prm, t, b2, gn2):
    """ADP-SGD (``adp`` Algorithm 1) at step t (0-based): (b_{t+1}, α_{t+1}, running b²).

    ``prm`` is the run's settings record (:class:`kernels.adp.AdpParams`: its fields ``b_rule``, ``alpha_rule``,
    ``a``, ``c``, ``b0``, ``C``, ``nu`` are read).

    b_rule 0: b_{t+1} = √(a + c(t+1)); 1: b²_{t+1} = b_t² + max(‖∇f‖², ν) with ``gn2`` = ‖∇f‖²;
    2 (a kernel fault for mutation analysis only): b²_{t+1} = b_t² + ν, the gradient ignored.
    alpha_rule 0: α ≡ 1 (DP-SGD); 1: α = √b (polynomial b) or α = (b₀² + (t+1)C)^{1/4} (adaptive b).

    Parameters
    ----------
    prm : AdpParams
        The run's settings, as above.
    t : int
        The step, 0-based.
    b2 : float
        The running b² before this step (b₀² at t = 0).
    gn2 : float
        ‖∇f‖² of this step's (clipped) record gradient.

    Returns
    -------
    b : float
        b_{t+1}.
    alpha : float
        α_{t+1}.
    b2 : float
        The running b² after this step.
    """
    b_rule, alpha_rule, a, c, b0, C, nu = prm.b_rule, prm.alpha_rule, prm.a, prm.c, prm.b0, prm.C, prm.nu
    if b_rule == 0:
        b = math.sqrt(a + c * (t + 1))
    else:
        if b_rule == 1:
            b2 += gn2 if gn2 > nu else nu
        else:
            b2 += nu
        b = math.sqrt(b2)
    if alpha_rule == 0:
        al = 1.0
    elif b_rule == 0:
        al = math.sqrt(b)
    else:
        al = (b0 * b0 + (t + 1) * C) ** 0.25
    return b, al, b2


def adam_coordinate(prm, acc, g, nv, theta, m, v, c1, c2, bc_sub):
    """One coordinate of a ``dp_adam_design`` round: (θ, m, v, v̂) after it.

    ``prm`` is the run's settings record (:class:`kernels.dp_adam.AdamParams`: its fields ``variant``, ``opt``,
    ``lr``, ``beta1``, ``beta2``, ``xi``, ``std_v``, ``floor`` are read).

    ``acc`` the clean clipped average ḡ_j, ``g`` the privatised gradient fed to m, ``nv`` the unit noise of
    the v part (IME only).  Variant codes as ``kernels.dp_adam.VARIANTS``; ``opt`` 0 Adam (bias-corrected
    with c1 = 1 − β₁ᵗ, c2 = 1 − β₂ᵗ), 1 AdaGrad.  v̂ is the corrected second moment before the floor
    (``bc_sub`` subtracted for bias correction), 0 for momentum SGD (which has none).

    Parameters
    ----------
    prm : AdamParams
        The run's settings, as above.
    acc : float
        ḡ_j, the clean clipped average.
    g : float
        The privatised gradient fed to m.
    nv : float
        IME's unit v-part noise (ignored by the other variants).
    theta, m, v : float
        The coordinate's state before the round.
    c1, c2 : float
        1 − β₁ᵗ and 1 − β₂ᵗ (Adam's bias corrections; unused by AdaGrad).
    bc_sub : float
        The amount bias correction subtracts from v̂ this round.

    Returns
    -------
    theta : float
    m : float
    v : float
    vhat : float
        The state after the round, and v̂ before the floor.
    """
    variant, opt, lr, beta1, beta2, xi, std_v, floor = (prm.variant, prm.opt, prm.lr, prm.beta1, prm.beta2, prm.xi,
                                                         prm.std_v, prm.floor)
    if variant == 1:
        q = acc * acc + std_v * nv
    elif variant == 4 or variant == 5:
        q = acc * acc
    else:
        q = g * g
    if variant == 6:
        m = beta1 * m + g
        return theta - lr * m, m, v, 0.0
    if opt == 0:
        m = beta1 * m + (1.0 - beta1) * g
        v = beta2 * v + (1.0 - beta2) * q
        mh = m / c1
        vh = v / c2
    else:
        m = beta1 * m + (1.0 - beta1) * g if beta1 > 0.0 else g
        v = v + q
        mh = m
        vh = v
    if variant == 2:
        vh -= bc_sub
    vf = floor if vh < floor else vh
    return theta - lr * mh / (math.sqrt(vf) + xi), m, v, vh
