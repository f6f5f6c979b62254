"""Stylized problems of the ``pagan`` paper (docs/catalogue.md): generators ``(params, seed) -> Dataset``.

Every problem here is a generalised linear model with per-record loss
F(x; a_i, y_i) whose subgradient is s_i·a_i:

* ``LOSS_ABS``    F = |⟨a_i, x⟩ − y_i|,  s_i = sign(⟨a_i, x⟩ − y_i)  (0 at a kink)
* ``LOSS_LINEAR`` F = ⟨a_i, x⟩,           s_i = 1

A dataset also carries a *public* sample (drawn from the same population with an
independent stream) for choices the paper makes from public data — the optimal
ellipsoid's radius, PDP-SGD's subspace — so that no private record is used to
tune the mechanism.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

import dpvalidate as V
from kernels.problem_data import DataMatrix

LOSS_ABS = 0
LOSS_LINEAR = 1
DOMAINS = ("box", "ball", "none")
DOMAIN_CODE = {"none": 0, "box": 1, "ball": 2}

PROBLEMS = ("abs_regression", "linear_subgaussian", "sign_mean")


@dataclass(frozen=True)
class Dataset(DataMatrix):
    """A PAGAN-family dataset: records, loss, domain and a public sample (the fields' shapes are noted beside them).

    ``loss_kind`` is ``LOSS_ABS`` or ``LOSS_LINEAR``; ``domain`` one of :data:`DOMAINS` with its ``radius``;
    ``params`` records the generator's arguments.  Build one with a generator, :func:`make_problem` or
    :func:`make_dataset`; :func:`check_dataset` says whether a hand-made one can run.
    """

    name: str
    features: np.ndarray  # (n, d): the a_i
    targets: np.ndarray  # (n,): the y_i (zeros for linear losses)
    loss_kind: int
    domain: str
    radius: float
    sigma: np.ndarray  # (d,): the coordinate scales σ_j of the population
    public: np.ndarray  # (m, d): public sample of features
    x_star: np.ndarray | None = None  # population optimum when known
    params: dict = field(default_factory=dict)

    def loss(self, x: np.ndarray) -> np.ndarray:
        """Empirical loss f(x) = (1/n) Σ F(x; z_i) for x of shape (d,) or (k, d).

        Parameters
        ----------
        x : array_like of float, shape (d,) or (k, d)
            One point or k points (rows).

        Returns
        -------
        float or ndarray of float64, shape (k,)
            The mean of abs(⟨a_i, x⟩ − y_i) (absolute loss) or of ⟨a_i, x⟩ (linear loss), per point (a NumPy
            scalar for a single point).
        """
        r = np.asarray(x) @ self.features.T  # (..., n)
        if self.loss_kind == LOSS_ABS:
            return np.mean(np.abs(r - self.targets), axis=-1)
        return np.mean(r, axis=-1)

    def min_loss(self) -> float | None:
        """min_{x∈X} f(x) when it has a closed form (linear losses on the box/ball), else None.

        Returns
        -------
        float or None
            −R‖ā‖₁ on the box [−R, R]^d, −R‖ā‖₂ on the ball of radius R (ā the mean record); None for the
            absolute loss or the unconstrained domain.
        """
        if self.loss_kind != LOSS_LINEAR:
            return None
        mean = self.features.mean(axis=0)
        if self.domain == "box":
            return float(-self.radius * np.abs(mean).sum())
        if self.domain == "ball":
            return float(-self.radius * np.linalg.norm(mean))
        return None


LOSS_NAMES = {"absolute": LOSS_ABS, "linear": LOSS_LINEAR}


def make_dataset(features, targets=None, *, loss: str = "absolute", domain: str = "none", radius: float = 1.0,
                 public=None, name: str = "user") -> Dataset:
    """A dataset of your own for the PAGAN-family kernels (``kernels.run_algorithm``, ``dpverify run``).

    Parameters
    ----------
    features : array_like of float, shape (n, d)
        The records a_i (finite, n, d ≥ 1).
    targets : array_like of float, shape (n,), optional
        The y_i of the absolute loss abs(⟨x, a_i⟩ − y_i) (default zeros; must be omitted or zero for the linear
        loss ⟨x, a_i⟩).
    loss : {"absolute", "linear"}, optional
        The per-record loss (default ``"absolute"``).
    domain : {"none", "box", "ball"}, optional
        The constraint set X: "none" (default), "box" ([−radius, radius]^d) or "ball" (ℓ₂ ball of ``radius``).
    radius : float, optional
        > 0, the size of the domain (default 1).
    public : array_like of float, shape (m, d), optional
        Public sample of features, m ≥ 1 (``pdp_sgd`` projects onto its top singular subspace; default: one zero
        row, i.e. no public information).
    name : str, optional
        A label carried into outputs (default ``"user"``).

    Returns
    -------
    Dataset
        A validated dataset (contiguous float64 arrays; σ_j is the features' coordinate standard deviation,
        floored at the smallest positive float, used only by the §3.2 choice of ``pagan_opt``).

    Raises
    ------
    InvalidParameter
        Naming the argument (shape, non-finite entries, unknown loss or domain, radius ≤ 0, non-zero targets with
        the linear loss, a public sample of the wrong width or with no rows).
    """
    X = V.finite_array("features", features, ndim=2)
    n, d = X.shape
    if n < 1 or d < 1:
        raise V.InvalidParameter("features", "an (n, d) array with n, d ≥ 1", f"shape {X.shape}")
    kind = LOSS_NAMES[V.choice("loss", loss, tuple(LOSS_NAMES))]
    y = np.zeros(n) if targets is None else V.finite_array("targets", targets, shape=(n,))
    if kind == LOSS_LINEAR and np.any(y != 0):
        raise V.InvalidParameter("targets", "omitted (or zero) for the linear loss", "non-zero targets")
    V.choice("domain", domain, DOMAINS)
    radius = V.positive("radius", radius)
    pub = np.zeros((1, d)) if public is None else V.finite_array("public", public, ndim=2)
    if pub.shape[0] < 1 or pub.shape[1] != d:
        raise V.InvalidParameter("public", f"an (m, {d}) array with m ≥ 1 (the features' d)", f"shape {pub.shape}")
    sigma = np.maximum(X.std(axis=0), np.finfo(float).tiny)
    ds = Dataset(str(name), np.ascontiguousarray(X), np.ascontiguousarray(y), kind, domain, float(radius),
                 np.ascontiguousarray(sigma), np.ascontiguousarray(pub))
    return check_dataset(ds)


def check_dataset(dataset, name: str = "dataset") -> "Dataset":
    """``dataset`` if it is a :class:`Dataset` a kernel can run on, else :class:`~dpvalidate.InvalidParameter`.

    A dataset built by hand (or edited with ``dataclasses.replace``) must keep the layout the generators
    make: float64 features (n, d) and targets (n,), coordinate scales σ (d,) > 0, a public sample (m, d),
    m >= 1, all finite; a known loss kind and domain; a positive radius.  O(n·d), once per run.

    Parameters
    ----------
    dataset : object
        The value to check.
    name : str, optional
        The parameter name used in the error message (default ``"dataset"``).

    Returns
    -------
    Dataset
        ``dataset`` itself.

    Raises
    ------
    InvalidParameter
        When ``dataset`` is not a :class:`Dataset`, an array breaks the layout above (dtype, shape, finiteness,
        C-contiguity), the public sample is empty, a scale σ_j ≤ 0, the loss kind or domain is unknown, or the
        radius is not positive (finite unless the domain is ``"none"``).
    """
    if not isinstance(dataset, Dataset):
        raise V.InvalidParameter(name, "a kernels.Dataset (see kernels.make_problem)", type(dataset).__name__)
    feats = dataset.features
    if not (isinstance(feats, np.ndarray) and feats.ndim == 2 and feats.shape[0] >= 1 and feats.shape[1] >= 1):
        raise V.InvalidParameter(name, "a Dataset whose features are an (n, d) array, n, d >= 1",
                                 getattr(feats, "shape", type(feats).__name__))
    n, d = feats.shape
    for field_name, arr, shape in (("features", feats, (n, d)), ("targets", dataset.targets, (n,)),
                                   ("sigma", dataset.sigma, (d,)), ("public", dataset.public, (None, d))):
        a = np.asarray(arr)
        if (a.dtype != np.float64 or a.ndim != len(shape)
                or any(s is not None and s != t for s, t in zip(shape, a.shape))
                or not np.all(np.isfinite(a)) or not a.flags.c_contiguous):
            raise V.InvalidParameter(name, f"a Dataset whose {field_name} is a finite C-contiguous float64 array of "
                                     f"shape {shape}", V.describe_array(a))
    if dataset.public.shape[0] < 1 or np.any(dataset.sigma <= 0):
        raise V.InvalidParameter(name, "a Dataset with a non-empty public sample and positive scales sigma", "other")
    if dataset.loss_kind not in (LOSS_ABS, LOSS_LINEAR) or dataset.domain not in DOMAIN_CODE:
        raise V.InvalidParameter(name, f"a Dataset with loss_kind in (0, 1) and domain in {DOMAINS}",
                                 (dataset.loss_kind, dataset.domain))
    try:
        V.positive("radius", dataset.radius, allow_inf=dataset.domain == "none")
    except V.InvalidParameter:
        raise V.InvalidParameter(name, "a Dataset with a positive radius", dataset.radius) from None
    return dataset


def power_law_sigma(d: int, decay: float) -> np.ndarray:
    """σ_j = j^(−decay), j = 1..d.

    Parameters
    ----------
    d : int
        The dimension.
    decay : float
        The exponent (0: all scales 1).

    Returns
    -------
    ndarray of float64, shape (d,)
        The coordinate scales σ_1 = 1 ≥ σ_2 ≥ … (for decay ≥ 0).
    """
    return np.arange(1, d + 1, dtype=np.float64) ** (-float(decay))


def _streams(seed: int, k: int):
    seed = V.integer("seed", seed, minimum=0)
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(k)]


def _sizes(n, d, n_public) -> tuple[int, int, int]:
    """n, d, n_public as counts (<= dpvalidate.MAX_COUNT) whose (n, d) and (n_public, d) arrays fit in memory."""
    n, d, n_public = V.count("n", n), V.count("d", d), V.count("n_public", n_public)
    V.memory("n, d", n, d)
    V.memory("n_public, d", n_public, d)
    return n, d, n_public


def abs_regression(n: int = 5000, d: int = 100, tau: float = 0.01, decay: float = 1.5,
                   n_public: int = 1000, seed: int = 0) -> Dataset:
    """pagan §6.1: x* ~ U{−1,1}^d, a_i ~ N(0, diag(σ)²), σ_j = j^(−decay), y_i = ⟨a_i,x*⟩ + Laplace(0, τ).

    Limits: n, d, n_public ≤ 10⁹ and each of the (n, d), (n_public, d) arrays ≤ 8 GiB.

    Parameters
    ----------
    n : int, optional
        Private records (default 5000).
    d : int, optional
        Dimension (default 100).
    tau : float, optional
        Scale τ ≥ 0 of the Laplace label noise (default 0.01; 0: none drawn).
    decay : float, optional
        σ_j = j^(−decay), decay ≥ 0 (default 1.5).
    n_public : int, optional
        Public records, drawn from the same population with an independent stream (default 1000).
    seed : int, optional
        Seed ≥ 0; the private and public streams are spawned from it (default 0).

    Returns
    -------
    Dataset
        Absolute loss on the box [−1, 1]^d, with ``x_star`` = x*.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a size is not a count, an array would not fit in memory, ``tau`` or ``decay`` is negative or not
        finite, or ``seed`` is not an integer ≥ 0.
    """
    n, d, n_public = _sizes(n, d, n_public)
    tau = V.nonnegative("tau", tau)
    decay = V.nonnegative("decay", decay)
    r_data, r_pub = _streams(seed, 2)
    sigma = power_law_sigma(d, decay)
    x_star = r_data.choice(np.array([-1.0, 1.0]), size=d)
    a = r_data.standard_normal((n, d)) * sigma
    y = a @ x_star + (r_data.laplace(0.0, tau, size=n) if tau > 0 else 0.0)
    public = r_pub.standard_normal((n_public, d)) * sigma
    return Dataset("abs_regression", a, np.asarray(y, dtype=np.float64), LOSS_ABS, "box", 1.0, sigma, public,
                   x_star, dict(n=n, d=d, tau=tau, decay=decay, seed=seed))


def linear_subgaussian(n: int = 5000, d: int = 100, decay: float = 1.5, variant: str = "gaussian",
                       domain: str = "box", n_public: int = 1000, seed: int = 0, sigma=None) -> Dataset:
    """pagan Example 1 / eqs (7),(9): F(x; Z) = ⟨x, Z⟩, Z_j independent σ_j-sub-Gaussian.

    ``variant`` "gaussian" (Z_j ~ N(0, σ_j²)) or "rademacher" (Z_j = ±σ_j); domain X∞ ("box")
    or the unit ℓ₂ ball ("ball").  σ_j = j^(−decay), or any positive profile given as ``sigma``
    (then of length ``d``).  Limits: n, d, n_public ≤ 10⁹ and each of the (n, d), (n_public, d) arrays ≤ 8 GiB.

    Parameters
    ----------
    n : int, optional
        Private records (default 5000).
    d : int, optional
        Dimension (default 100).
    decay : float, optional
        σ_j = j^(−decay), decay ≥ 0 (default 1.5; unused when ``sigma`` is given).
    variant : {"gaussian", "rademacher"}, optional
        The law of Z_j (default ``"gaussian"``).
    domain : {"box", "ball"}, optional
        The constraint set, radius 1 (default ``"box"``).
    n_public : int, optional
        Public records, drawn from the same population with an independent stream (default 1000).
    seed : int, optional
        Seed ≥ 0; the private and public streams are spawned from it (default 0).
    sigma : array_like of float, shape (d,), optional
        A custom profile of positive scales σ_j.

    Returns
    -------
    Dataset
        Linear loss (targets zero), ``x_star`` None.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above, an array would not fit in memory, or ``sigma`` is not a
        finite (d,) array of positive entries.
    """
    n, d, n_public = _sizes(n, d, n_public)
    decay = V.nonnegative("decay", decay)
    V.choice("variant", variant, ("gaussian", "rademacher"))
    V.choice("domain", domain, ("box", "ball"))
    r_data, r_pub = _streams(seed, 2)
    custom = sigma is not None
    if not custom:
        sigma = power_law_sigma(d, decay)
    else:
        sigma = V.finite_array("sigma", sigma, shape=(d,))
        if np.any(sigma <= 0):
            raise V.InvalidParameter("sigma", "a profile of positive scales σ_j", "a non-positive entry")

    def draw(r, m):
        if variant == "gaussian":
            return r.standard_normal((m, d)) * sigma
        return r.choice(np.array([-1.0, 1.0]), size=(m, d)) * sigma

    return Dataset("linear_subgaussian", draw(r_data, n), np.zeros(n), LOSS_LINEAR, domain, 1.0, sigma,
                   draw(r_pub, n_public), None, dict(n=n, d=d, decay=decay, variant=variant, domain=domain, seed=seed,
                                                     custom_sigma=custom))


def sign_mean(n: int = 1000, d: int = 100, decay: float = 1.5, bias: float = 0.1, domain: str = "box",
              n_public: int = 1000, seed: int = 0) -> Dataset:
    """pagan §5 (Prop. 1, Thm 4): f(x; S) = −xᵀz̄ with |z_ij| ≤ σ_j.

    Hard instance of the lower-bound arguments: a planted sign v_j ∈ {±1}; z_ij = σ_j·s_ij
    with s_ij = ±1 and P(s_ij = v_j) = (1 + bias)/2.  Stored as features a_i = −z_i with
    the linear loss, so F(x; a_i) = ⟨a_i, x⟩ = −⟨z_i, x⟩.  Limits: n, d, n_public ≤ 10⁹ and each of the
    (n, d), (n_public, d) arrays ≤ 8 GiB.

    Parameters
    ----------
    n : int, optional
        Private records (default 1000).
    d : int, optional
        Dimension (default 100).
    decay : float, optional
        σ_j = j^(−decay), decay ≥ 0 (default 1.5).
    bias : float, optional
        The agreement bias in [0, 1] (default 0.1).
    domain : {"box", "ball"}, optional
        The constraint set, radius 1 (default ``"box"``).
    n_public : int, optional
        Public records, drawn from the same population with an independent stream (default 1000).
    seed : int, optional
        Seed ≥ 0; the private and public streams are spawned from it (default 0).

    Returns
    -------
    Dataset
        Linear loss with features −z_i; ``x_star`` the planted signs v on the box, None on the ball.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above or an array would not fit in memory.
    """
    n, d, n_public = _sizes(n, d, n_public)
    decay = V.nonnegative("decay", decay)
    bias = V.nonnegative("bias", bias)
    if bias > 1:
        raise V.InvalidParameter("bias", "in [0, 1]", bias)
    V.choice("domain", domain, ("box", "ball"))
    r_data, r_pub = _streams(seed, 2)
    sigma = power_law_sigma(d, decay)
    planted = r_data.choice(np.array([-1.0, 1.0]), size=d)

    def draw(r, m):
        agree = r.random((m, d)) < (1 + bias) / 2
        return np.where(agree, planted, -planted) * sigma

    z = draw(r_data, n)
    return Dataset("sign_mean", -z, np.zeros(n), LOSS_LINEAR, domain, 1.0, sigma, -draw(r_pub, n_public),
                   planted if domain == "box" else None,
                   dict(n=n, d=d, decay=decay, bias=bias, domain=domain, seed=seed))


_GENERATORS = {"abs_regression": abs_regression, "linear_subgaussian": linear_subgaussian, "sign_mean": sign_mean}


def make_problem(name: str, seed: int = 0, **params) -> Dataset:
    """Build the stylized problem ``name`` (one of :data:`PROBLEMS`) with the paper's defaults.

    Parameters
    ----------
    name : str
        ``"abs_regression"``, ``"linear_subgaussian"`` or ``"sign_mean"``.
    seed : int, optional
        Seed ≥ 0 (default 0).
    **params
        Keyword arguments of that generator (other than ``seed``), overriding its defaults.

    Returns
    -------
    Dataset
        The generator's dataset.

    Raises
    ------
    InvalidParameter
        When ``name`` is not in :data:`PROBLEMS`, a keyword is not a parameter of its generator, or the generator
        refuses a value.
    """
    V.choice("problem", name, PROBLEMS)
    gen = _GENERATORS[name]
    known = [p for p in inspect.signature(gen).parameters if p != "seed"]
    for key in params:
        if key not in known:
            raise V.InvalidParameter(key, f"a parameter of {name} (one of " + ", ".join(known) + ")", params[key])
    key = _problem_key(name, seed, params)
    if key is None:
        return gen(seed=seed, **params)
    made = _MADE.get(key)
    if made is None:
        made = gen(seed=seed, **params)
        if _nbytes(made) <= _MADE_MAX_BYTES:
            if len(_MADE) >= _MADE_MAX:
                _MADE.pop(next(iter(_MADE)))
            _MADE[key] = made
    return _fresh_copy(made)


# The datasets make_problem built in this process, by generator, seed and parameters: a sweep's tasks (e.g. the 140
# of pagan.figure1, one dataset seed) each ask for the same dataset, which is drawn once and handed out as copies
# (a caller may write to its arrays).  The generators are deterministic in their arguments, so a copy is the dataset
# a fresh call would draw, bit for bit.
_MADE: dict = {}
_MADE_MAX = 4  # datasets kept (the oldest goes first)
_MADE_MAX_BYTES = 64 << 20  # larger datasets are drawn afresh each time


def _problem_key(name: str, seed, params: dict):
    """A key of make_problem's call: every argument with its type; None (no memo) for anything but plain scalars."""
    items = [("seed", seed)] + sorted(params.items())
    if not all(isinstance(v, (bool, int, float, str, type(None))) for _, v in items):
        return None
    return (name,) + tuple((k, type(v).__name__, v) for k, v in items)


def _nbytes(ds: Dataset) -> int:
    return sum(a.nbytes for a in (ds.features, ds.targets, ds.sigma, ds.public, ds.x_star) if a is not None)


def _fresh_copy(ds: Dataset) -> Dataset:
    """``ds`` with its own copies of every array and of ``params``."""
    return Dataset(ds.name, ds.features.copy(), ds.targets.copy(), ds.loss_kind, ds.domain, ds.radius,
                   ds.sigma.copy(), ds.public.copy(), None if ds.x_star is None else ds.x_star.copy(),
                   dict(ds.params))
