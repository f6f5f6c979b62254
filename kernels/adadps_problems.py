"""The GLM problems of ``adadps`` (Li, Zaheer, Reddi, Smith, ICML 2022): datasets with public, test and user
splits and named side information, for the kernels of :mod:`kernels.adadps` (which re-exports them)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import dpvalidate as V
from kernels.problem_data import DataMatrix

LOSSES = {"squared": 0, "logistic": 1}


MAX_DOC_LEN = 10**6  # zipf_bow_logistic: tokens drawn per record


@dataclass(frozen=True)
class GLMProblem(DataMatrix):
    """A GLM dataset (private records, optional public and test splits, users, side information)."""

    features: np.ndarray  # (n, d) private training records
    labels: np.ndarray  # (n,)
    loss: str
    side_info: dict  # name -> (d,) positive vector A (non-sensitive)
    params: dict
    public_features: np.ndarray | None = None
    public_labels: np.ndarray | None = None
    test_features: np.ndarray | None = None
    test_labels: np.ndarray | None = None
    user_ptr: np.ndarray | None = None  # (U+1,) records of user u are rows user_ptr[u]:user_ptr[u+1]
    w_true: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n_users(self) -> int:
        """The number of users U (0 for a problem without user splits).

        Returns
        -------
        int
            ``len(user_ptr) − 1``, or 0 when ``user_ptr`` is None.
        """
        return 0 if self.user_ptr is None else self.user_ptr.size - 1

    def loss_value(self, w: np.ndarray, X: np.ndarray | None = None, y: np.ndarray | None = None) -> float:
        """Mean loss (NumPy; the reference for the kernel's logged losses).

        Parameters
        ----------
        w : ndarray of float, shape (d,)
            The weights.
        X : ndarray of float, shape (m, d), optional
            The records; None (default) for the private training features.
        y : ndarray of float, shape (m,), optional
            Their labels; None (default) for the training labels.

        Returns
        -------
        float
            The mean of ½(⟨x, w⟩ − y)² (``loss="squared"``) or log(1 + exp(−y⟨x, w⟩)) (``"logistic"``).

        Raises
        ------
        KeyError
            When ``self.loss`` is not a key of ``LOSSES``.
        """
        X = self.features if X is None else X
        y = self.labels if y is None else y
        return float(np.mean(_np_losses(LOSSES[self.loss], X @ w, y)))

    def accuracy(self, w: np.ndarray, X: np.ndarray | None = None, y: np.ndarray | None = None) -> float:
        """Fraction of correct signs (logistic problems; default: the test split).

        Parameters
        ----------
        w : ndarray of float, shape (d,)
            The weights; the prediction is +1 where ⟨x, w⟩ ≥ 0, else −1.
        X : ndarray of float, shape (m, d), optional
            The records; None (default) for the test features.
        y : ndarray of float, shape (m,), optional
            Their ±1 labels; None (default) for the test labels.

        Returns
        -------
        float
            The fraction of records whose predicted sign equals the label.
        """
        X = self.test_features if X is None else X
        y = self.test_labels if y is None else y
        return float(np.mean(np.where(X @ w >= 0, 1.0, -1.0) == y))


def _np_losses(kind: int, z: np.ndarray, y: np.ndarray) -> np.ndarray:
    if kind == 0:
        return 0.5 * (z - y) ** 2
    return np.logaddexp(0.0, -y * z)


def _finite(name: str, value) -> float:
    """A finite real number of either sign."""
    v = V.real(name, value)
    if not math.isfinite(v):
        raise V.InvalidParameter(name, "a finite number", value)
    return v


def sparse_linear_regression(n: int = 1000, d: int = 500, n_frequent: int = 50, p_frequent: float = 0.9,
                             p_rare: float = 0.01, w_frequent: float = 0.01, w_rare: float = 1.0,
                             noise_std: float = 0.01, a_frequent: float = 1.0, a_rare: float = 0.01,
                             seed: int = 0) -> GLMProblem:
    """The toy problem of Section 4.1 (docs/catalogue.md ``sparse_linear_regression``).

    x_j ∈ {0, 1} with P(x_j = 1) = 0.9 for the first 50 (frequent, uninformative) coordinates and 0.01
    for the other 450; w_j = 0.01 / 1.0 likewise; y = ⟨w, x⟩ + N(0, 0.01²) (the paper writes N(0, 0.01);
    the authors' generator uses 0.01 as the standard deviation, taken here); loss ½(⟨w, x⟩ − y)².
    Side information ``"paper"``: A_j = 1 (frequent) and 0.01 (rare), as in the paper; ``"mean"``:
    A_j = E|x_j| (Theorem 3's GLM choice).  Limits: n, d ≤ 10⁹ with the (n, d) features ≤ 8 GiB.

    Parameters
    ----------
    n : int, optional
        Number of records (default 1000).
    d : int, optional
        Dimension (default 500).
    n_frequent : int, optional
        How many leading coordinates are frequent, 0 ≤ n_frequent ≤ d (default 50).
    p_frequent, p_rare : float, optional
        P(x_j = 1) for frequent and rare coordinates, each in (0, 1] (defaults 0.9, 0.01).
    w_frequent, w_rare : float, optional
        The true weights of frequent and rare coordinates, finite (defaults 0.01, 1.0).
    noise_std : float, optional
        Standard deviation of the label noise, ≥ 0 (default 0.01).
    a_frequent, a_rare : float, optional
        The ``"paper"`` side information of frequent and rare coordinates, > 0 (defaults 1.0, 0.01).
    seed : int, optional
        Seed ≥ 0 of the generator (default 0).

    Returns
    -------
    GLMProblem
        A ``"squared"`` problem with side information ``"paper"`` and ``"mean"`` and ``w_true`` the true weights
        (no public, test or user splits).

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above, ``n_frequent`` exceeds d, or the features would not fit
        in memory.
    """
    n, d = V.count("n", n), V.count("d", d)
    V.memory("n, d", n, d)
    n_frequent = V.count("n_frequent", n_frequent, 0)
    if n_frequent > d:
        raise V.InvalidParameter("n_frequent", f"an integer in [0, d = {d}]", n_frequent)
    p_frequent, p_rare = V.unit_interval("p_frequent", p_frequent), V.unit_interval("p_rare", p_rare)
    w_frequent, w_rare = _finite("w_frequent", w_frequent), _finite("w_rare", w_rare)
    noise_std = V.nonnegative("noise_std", noise_std)
    a_frequent, a_rare = V.positive("a_frequent", a_frequent), V.positive("a_rare", a_rare)
    V.integer("seed", seed, 0)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 41]))
    p = np.where(np.arange(d) < n_frequent, p_frequent, p_rare)
    X = (rng.random((n, d)) < p).astype(np.float64)
    w = np.where(np.arange(d) < n_frequent, w_frequent, w_rare)
    y = X @ w + noise_std * rng.standard_normal(n)
    A = np.where(np.arange(d) < n_frequent, a_frequent, a_rare)
    params = dict(n=n, d=d, n_frequent=n_frequent, p_frequent=p_frequent, p_rare=p_rare, w_frequent=w_frequent,
                  w_rare=w_rare, noise_std=noise_std, seed=seed)
    return GLMProblem(np.ascontiguousarray(X), y, "squared", {"paper": A, "mean": p.copy()}, params, w_true=w)


def zipf_bow_logistic(n: int = 4000, d: int = 1000, zipf_s: float = 1.1, doc_len: float = 40.0,
                      predictive_power: float = 1.0, signal: float = 4.0, public_fraction: float = 0.01,
                      n_test: int = 2000, n_users: int = 100, user_skew: float = 1.0, seed: int = 0) -> GLMProblem:
    """Bag-of-words logistic regression with Zipf token frequencies (docs/catalogue.md stand-in for IMDB/StackOverflow).

    Token j (rank j + 1) has base probability p_j ∝ (j + 1)^(−s).  Each record belongs to one of
    ``n_users`` users; user u draws tokens from p tilted by exp(user_skew·z_uj), z ~ N(0, 1)
    (heterogeneous users for the federated variant).  A record has 1 + Poisson(doc_len − 1) tokens and
    binary features x_j = 1{token j present}.  The label is ±1 with P(y = 1) = σ(⟨w*, x⟩) where
    w*_j = signal·ξ_j·((j + 1)/d)^predictive_power, ξ_j = ±1: rare tokens are the predictive ones.
    Splits: private training (n records), a public split of ⌈public_fraction·n⌉ records from the same
    population, and a test split of ``n_test`` records.  Records are sorted by user (``user_ptr``).
    Side information (non-sensitive, from the population law, not the data): ``"frequency"``
    A_j = P(x_j = 1) under the base law (Theorem 3's A_j = E|x_j|), ``"inverse_idf"`` A_j = 1/log(1/P(x_j = 1))
    (inversely proportional to the token's IDF); both rescaled to max 1.

    Limits: n, d, n_test, n_users ≤ 10⁹, ``doc_len`` ≤ 10⁶ tokens, and the (n, d), (n_test, d), (n_users, d)
    and public (⌈public_fraction·n⌉, d) arrays ≤ 8 GiB each.

    Parameters
    ----------
    n : int, optional
        Private training records (default 4000).
    d : int, optional
        Vocabulary size (default 1000).
    zipf_s : float, optional
        The Zipf exponent s > 0 (default 1.1).
    doc_len : float, optional
        Mean tokens per record, in [1, 10⁶] (default 40).
    predictive_power : float, optional
        The exponent of ((j + 1)/d) in w*, ≥ 0 (default 1).
    signal : float, optional
        The scale of w*, > 0 (default 4).
    public_fraction : float, optional
        The public split's size as a fraction of n, in (0, 1) (default 0.01; at least one record).
    n_test : int, optional
        Test records (default 2000).
    n_users : int, optional
        Number of users (default 100).
    user_skew : float, optional
        Standard deviation of the users' log-tilts, ≥ 0 (default 1; 0: identical users).
    seed : int, optional
        Seed ≥ 0 of the generator (default 0).

    Returns
    -------
    GLMProblem
        A ``"logistic"`` problem with public and test splits, ``user_ptr``, side information ``"frequency"``
        and ``"inverse_idf"``, and ``w_true`` = w*.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above, an array would not fit in memory, or some token is certain
        to appear in every record (its IDF would be 0).
    """
    n, d = V.count("n", n), V.count("d", d)
    zipf_s = V.positive("zipf_s", zipf_s)
    doc_len = V.positive("doc_len", doc_len)
    if not 1 <= doc_len <= MAX_DOC_LEN:
        raise V.InvalidParameter("doc_len", f"in [1, {MAX_DOC_LEN}] (tokens per record)", doc_len)
    predictive_power = V.nonnegative("predictive_power", predictive_power)
    signal = V.positive("signal", signal)
    public_fraction = V.open_unit("public_fraction", public_fraction)
    n_test = V.count("n_test", n_test)
    n_users = V.count("n_users", n_users)
    V.memory("n, d", n, d)
    V.memory("n_test, d", n_test, d)
    V.memory("n_users, d", n_users, d, itemsize=24)  # tilt, user_p, cum
    V.memory("public_fraction, n, d", math.ceil(public_fraction * n), d)
    user_skew = V.nonnegative("user_skew", user_skew)
    V.integer("seed", seed, 0)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 42]))
    ranks = np.arange(1, d + 1, dtype=np.float64)
    base = ranks**-zipf_s
    base /= base.sum()
    w_star = signal * np.where(rng.random(d) < 0.5, -1.0, 1.0) * (ranks / d) ** predictive_power
    tilt = np.exp(user_skew * rng.standard_normal((n_users, d)))
    user_p = base * tilt
    user_p /= user_p.sum(axis=1, keepdims=True)
    cum = np.cumsum(user_p, axis=1)
    n_pub = max(1, int(math.ceil(public_fraction * n)))

    def draw(m: int, users: np.ndarray) -> np.ndarray:
        X = np.zeros((m, d))
        lens = 1 + rng.poisson(doc_len - 1.0, m)
        for i in range(m):
            toks = np.searchsorted(cum[users[i]], rng.random(lens[i]) * cum[users[i], -1])
            X[i, np.minimum(toks, d - 1)] = 1.0
        return X

    def labels(X: np.ndarray) -> np.ndarray:
        return np.where(rng.random(X.shape[0]) < 1.0 / (1.0 + np.exp(-(X @ w_star))), 1.0, -1.0)

    users = np.sort(rng.integers(0, n_users, n))
    X = draw(n, users)
    y = labels(X)
    Xp = draw(n_pub, rng.integers(0, n_users, n_pub))
    yp = labels(Xp)
    Xt = draw(n_test, rng.integers(0, n_users, n_test))
    yt = labels(Xt)
    ptr = np.searchsorted(users, np.arange(n_users + 1)).astype(np.int64)
    # expected document frequency under the base law with the mean document length
    freq = 1.0 - (1.0 - base) ** doc_len
    if np.any(freq >= 1.0):  # a token in every record has IDF log(1/1) = 0: "inverse_idf" would divide by it
        raise V.InvalidParameter("d, doc_len, zipf_s", "such that no token is certain to appear in every record "
                                 "(d >= 2 and a document length short enough that 1 − (1 − p_1)^doc_len < 1)",
                                 (d, doc_len, zipf_s))
    side = {"frequency": freq / freq.max(),
            "inverse_idf": (1.0 / np.log(1.0 / freq)) / (1.0 / np.log(1.0 / freq)).max()}
    params = dict(n=n, d=d, zipf_s=zipf_s, doc_len=doc_len, predictive_power=predictive_power, signal=signal,
                  public_fraction=public_fraction, n_test=n_test, n_users=n_users, user_skew=user_skew, seed=seed)
    return GLMProblem(np.ascontiguousarray(X), y, "logistic", side, params, np.ascontiguousarray(Xp), yp,
                      np.ascontiguousarray(Xt), yt, ptr, w_star)


def collinear_regression(n: int = 1000, d: int = 1, n_public: int = 100, s_low: float = 1.0, s_high: float = 2.0,
                         decay: float = 1.0, w_norm: float = 1.0, seed: int = 0) -> GLMProblem:
    """Noiseless least squares on collinear records, built so that adadps Assumption 3 holds by construction.

    Record i is x_i = s_i·u with s_i ~ U[s_low, s_high] and u_j ∝ j^(−decay) (dense, positive, ‖u‖ = 1); the label
    is y_i = ⟨w*, x_i⟩ exactly, w* = w_norm·(1, ..., 1)/√d; loss ½(⟨w, x⟩ − y)², so F* = 0 (attained at w*).
    Record i's gradient is s_i²·(⟨w, u⟩ − ⟨w*, u⟩)·u, so the mean gradient of any non-empty batch is
    (mean of s_i² over the batch)·(⟨w, u⟩ − ⟨w*, u⟩)·u: a private and a public batch's gradients are proportional
    coordinate by coordinate, (g_j/ĝ_j)² ∈ [(s_low/s_high)⁴, (s_high/s_low)⁴], at every w.  The public split
    (``n_public`` records) is drawn from the same law.  Side information ``"scale"``: A = u.
    Limits: n, d, n_public ≤ 10⁹ with each (·, d) array ≤ 8 GiB; 0 < s_low ≤ s_high.

    Parameters
    ----------
    n : int, optional
        Private records (default 1000).
    d : int, optional
        Dimension (default 1).
    n_public : int, optional
        Public records (default 100).
    s_low, s_high : float, optional
        The range of the record scales s_i, 0 < s_low ≤ s_high < ∞ (defaults 1, 2).
    decay : float, optional
        The exponent of u_j ∝ j^(−decay), ≥ 0 (default 1).
    w_norm : float, optional
        The scale of w* = w_norm·(1, ..., 1)/√d, finite (default 1; ‖w*‖ = abs(w_norm)).
    seed : int, optional
        Seed ≥ 0 of the generator (default 0).

    Returns
    -------
    GLMProblem
        A ``"squared"`` problem with a public split, side information ``"scale"``, ``w_true`` = w* and
        ``extra["u"]`` = u.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above or an array would not fit in memory.
    """
    n, d, n_public = V.count("n", n), V.count("d", d), V.count("n_public", n_public)
    V.memory("n, d", n, d)
    V.memory("n_public, d", n_public, d)
    s_low, s_high = V.positive("s_low", s_low), V.positive("s_high", s_high)
    if not (math.isfinite(s_high) and s_low <= s_high):
        raise V.InvalidParameter("s_high", f"a finite number ≥ s_low = {s_low}", s_high)
    decay = V.nonnegative("decay", decay)
    w_norm = _finite("w_norm", w_norm)
    V.integer("seed", seed, 0)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 43]))
    u = np.arange(1, d + 1, dtype=np.float64) ** -decay
    u /= np.linalg.norm(u)
    w_star = np.full(d, w_norm / math.sqrt(d))
    s = rng.uniform(s_low, s_high, n)
    sp = rng.uniform(s_low, s_high, n_public)
    X, Xp = np.ascontiguousarray(s[:, None] * u), np.ascontiguousarray(sp[:, None] * u)
    params = dict(n=n, d=d, n_public=n_public, s_low=s_low, s_high=s_high, decay=decay, w_norm=w_norm, seed=seed)
    return GLMProblem(X, X @ w_star, "squared", {"scale": u.copy()}, params, Xp, Xp @ w_star, w_true=w_star,
                      extra={"u": u})


def aligned_no_signal_logistic(n: int = 64, d: int = 1, value: float = 1.0) -> GLMProblem:
    """Coordinate-aligned records with no signal (an adversarial instance for the bounds of smooth GLMs): record i
    is ``value``·e_{(i mod d)+1}, labels ±1 alternating within each feature, so every feature is balanced, the
    optimum is w* = 0 (F* = log 2) and sits where the logistic loss is most curved (f'' = 1/4): stochastic
    gradients keep their largest variance there and a step of 1/curvature is the largest a smoothness bound allows.
    Side information "frequency": 1 for every feature (all features equally frequent).  Deterministic (no seed).

    Parameters
    ----------
    n : int, optional
        Number of records, a multiple of 2d (default 64).
    d : int, optional
        Dimension (default 1).
    value : float, optional
        The non-zero entry of every record, > 0 and finite (default 1).

    Returns
    -------
    GLMProblem
        A ``"logistic"`` problem with ``w_true`` = 0 and no public, test or user splits.

    Raises
    ------
    dpvalidate.InvalidParameter
        When n or d is not a count, n is not a multiple of 2d, or ``value`` is not a finite positive number.
    """
    n = V.count("n", n)
    d = V.count("d", d)
    if n % (2 * d):
        raise V.InvalidParameter("n", f"a multiple of 2d = {2 * d} (each feature's labels balanced)", n)
    value = _finite("value", value)
    if value <= 0:
        raise V.InvalidParameter("value", "a positive number", value)
    X = np.zeros((n, d))
    X[np.arange(n), np.arange(n) % d] = value
    y = np.where((np.arange(n) // d) % 2 == 0, 1.0, -1.0)
    return GLMProblem(np.ascontiguousarray(X), y, "logistic", {"frequency": np.ones(d)},
                      dict(n=n, d=d, value=value, aligned_no_signal=True), w_true=np.zeros(d))
