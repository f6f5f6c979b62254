r"""The one privacy adaptor: mechanism descriptions in, ε out, always through ``dp-accounting``.

Nothing here accounts for privacy by hand.  A mechanism is described by an immutable
record (:class:`Mechanism`: how a step samples records, the noise multiplier, the number
of steps), turned into a ``dp_accounting`` :class:`~dp_accounting.dp_event.DpEvent`, and
evaluated by dp-accounting's RDP accountant (``"rdp"``) or PLD accountant (``"pld"``) in
:func:`epsilon_of`, the only place accountants are built.  The one exception to going
through an accountant object is sampling with replacement, whose one-step PLD is built by
dp-accounting's own constructor and cached so that many step counts cost one
construction (:meth:`Mechanism.epsilon`; a test checks it against :func:`epsilon_of`).

Adjacency, per sampling scheme (each function's docstring repeats it):

* ``"poisson"`` and ``"none"``: add/remove-one adjacency; each record's clipped
  contribution has norm ≤ 1, so the noise multiplier σ is the noise standard deviation
  per unit of sensitivity.
* ``"with_replacement"`` (``pagan``, Algorithms 1/2): zero-out adjacency (one record
  replaced by a record whose contribution is 0; dp-accounting's ``REPLACE_SPECIAL``),
  so that both datasets have ``n`` records and a batch of ``b`` draws with replacement is
  defined on both.

Sampling with replacement has no accountant in dp-accounting
(``SampledWithReplacementDpEvent`` is only a record), so it is written as the mechanism
it is: the number K of copies of the differing record in a batch of b draws from n is
Binomial(b, 1/n), and the step's output is N(0, σ²) on one dataset against
Σₖ P(K = k)·N(k, σ²) on the other — dp-accounting's ``MixtureOfGaussiansDpEvent``,
evaluated by its PLD accountant.  (The K copies of one record add up along one direction,
so this one-dimensional pair is the worst case for a step.)
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from dp_accounting import dp_event as dpe
from dp_accounting.pld import pld_privacy_accountant as _pld
from dp_accounting.pld import privacy_loss_distribution as _pld_lib
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import rdp_privacy_accountant as _rdp
from scipy import stats

from kernels import validate as v
from kernels.validate import InvalidParameter

ACCOUNTANTS = ("rdp", "pld")
SAMPLINGS = ("poisson", "with_replacement", "none")

#: Share of δ kept back to pay for truncating the binomial K of sampling with replacement.
TRUNCATION_DELTA_SHARE = 1e-3
_SMALLEST_TAIL = 1e-200  # deepest cut of K tried (reached only when ε is in the hundreds)

__all__ = [
    "ACCOUNTANTS",
    "SAMPLINGS",
    "InvalidParameter",
    "Mechanism",
    "NeighboringRelation",
    "composed_epsilon",
    "dp_sgd_epsilon",
    "epsilon_of",
    "gaussian_epsilon",
    "with_replacement_epsilon",
    "with_replacement_event",
]


# --------------------------------------------------------------------------------------
# The accountant call, written once
# --------------------------------------------------------------------------------------
def epsilon_of(
    event: dpe.DpEvent,
    delta: float,
    accountant: str,
    neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    value_discretization_interval: float | None = None,
) -> float:
    """ε of ``event`` at ``delta`` from dp-accounting's ``accountant`` ("rdp" or "pld").

    ``neighboring_relation`` is the adjacency (default add/remove-one).
    ``value_discretization_interval`` is the PLD grid (None: dp-accounting's default,
    1e-4); the PLD result is a pessimistic (upper) estimate on that grid, and a grid much
    coarser than the per-step privacy loss makes it loose.  Events an accountant cannot
    evaluate raise :class:`InvalidParameter` naming ``accountant``.
    """
    delta = v.open_unit("delta", delta)
    accountant = v.choice("accountant", accountant, ACCOUNTANTS)
    if accountant == "rdp":
        acc = _rdp.RdpAccountant(neighboring_relation=neighboring_relation)
    else:
        vdi = 1e-4 if value_discretization_interval is None else v.positive(
            "value_discretization_interval", value_discretization_interval)
        acc = _pld.PLDAccountant(neighboring_relation, value_discretization_interval=vdi)
    if not acc.supports(event):
        raise InvalidParameter("accountant", f"one that supports {type(event).__name__} "
                               f"under {neighboring_relation.name}", accountant)
    acc.compose(event)
    return float(acc.get_epsilon(delta))


# --------------------------------------------------------------------------------------
# Sampling with replacement as a mixture of Gaussians
# --------------------------------------------------------------------------------------
def with_replacement_event(n: int, batch_size: int, noise_multiplier: float,
                           tail: float = 1e-14) -> dpe.MixtureOfGaussiansDpEvent:
    """One step of a batch of ``batch_size`` draws with replacement from ``n`` records.

    Zero-out adjacency (``REPLACE_SPECIAL``).  The differing record appears K ~
    Binomial(batch_size, 1/n) times; each copy moves the noised sum by at most 1, so the
    step is N(0, σ²) against Σₖ P(K = k) N(k, σ²) with σ = ``noise_multiplier``.

    K is cut at kmax, the largest k with P(K ≥ k) ≥ ``tail``; the mass P(K > kmax) < tail
    is put on kmax.  This is *not* conservative (moving mass to a smaller sensitivity makes
    the pair more private), but it moves each step's output distribution by less than
    ``tail`` in total variation, so over T steps it can lower the hockey-stick divergence
    at e^ε by less than T·e^ε·tail.  :meth:`Mechanism.epsilon` reserves δ for that.
    """
    n = v.integer("n", n)
    batch_size = v.integer("batch_size", batch_size)
    sigma = v.positive("noise_multiplier", noise_multiplier)
    tail = v.open_unit("tail", tail)
    ks = np.arange(batch_size + 1)
    at_least = stats.binom.sf(ks - 1, batch_size, 1.0 / n)  # P(K >= k)
    kmax = int(np.flatnonzero(at_least >= tail)[-1])
    probs = stats.binom.pmf(ks[: kmax + 1], batch_size, 1.0 / n)
    probs[kmax] = at_least[kmax]
    probs = probs / probs.sum()
    return dpe.MixtureOfGaussiansDpEvent(
        standard_deviation=sigma,
        sensitivities=[float(k) for k in ks[: kmax + 1]],
        sampling_probs=[float(p) for p in probs],
    )


# --------------------------------------------------------------------------------------
# The parameter record
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mechanism:
    """An immutable description of a noisy-gradient mechanism (evaluation is separate).

    ``sampling``: ``"poisson"`` (each record independently with ``sampling_rate``;
    add/remove-one adjacency), ``"with_replacement"`` (``batch_size`` uniform draws with
    replacement from ``n``; zero-out adjacency) or ``"none"`` (every record, every step;
    add/remove-one).  Each step adds Gaussian noise of ``noise_multiplier`` times the
    per-record sensitivity; ``steps`` steps are composed.
    """

    sampling: str
    noise_multiplier: float
    steps: int = 1
    sampling_rate: float | None = None
    n: int | None = None
    batch_size: int | None = None

    def __post_init__(self):
        fix = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        v.choice("sampling", self.sampling, SAMPLINGS)
        fix("noise_multiplier", v.positive("noise_multiplier", self.noise_multiplier))
        fix("steps", v.integer("steps", self.steps))
        if self.sampling == "poisson":
            fix("sampling_rate", v.unit_interval("sampling_rate", self.sampling_rate))
        elif self.sampling == "with_replacement":
            fix("n", v.integer("n", self.n))
            fix("batch_size", v.integer("batch_size", self.batch_size))

    @property
    def neighboring_relation(self) -> NeighboringRelation:
        if self.sampling == "with_replacement":
            return NeighboringRelation.REPLACE_SPECIAL
        return NeighboringRelation.ADD_OR_REMOVE_ONE

    def step_event(self, tail: float = 1e-14) -> dpe.DpEvent:
        """The dp-accounting event of one step (``tail``: see :func:`with_replacement_event`)."""
        if self.sampling == "with_replacement":
            return with_replacement_event(self.n, self.batch_size, self.noise_multiplier, tail)
        gaussian = dpe.GaussianDpEvent(self.noise_multiplier)
        return dpe.PoissonSampledDpEvent(self.sampling_rate, gaussian) if self.sampling == "poisson" else gaussian

    def event(self, tail: float = 1e-14) -> dpe.DpEvent:
        """The dp-accounting event of all ``steps`` steps."""
        return dpe.SelfComposedDpEvent(self.step_event(tail), self.steps)

    def with_steps(self, steps: int) -> "Mechanism":
        """The same mechanism run for ``steps`` steps."""
        return dataclasses.replace(self, steps=steps)

    def epsilon(self, delta: float, accountant: str = "pld",
                value_discretization_interval: float | None = None) -> float:
        """ε at ``delta`` from dp-accounting's ``accountant``, under this mechanism's adjacency.

        With replacement, only "pld" is accepted, and a share
        :data:`TRUNCATION_DELTA_SHARE` of δ pays for truncating K: the binomial tail is
        cut at ``tail`` ≤ that share of δ / (steps·e^ε) (a power of ten), checked against
        the ε found and cut deeper if the check fails, so the returned ε is an upper
        estimate for the untruncated mechanism.  The one-step PLD is built by
        dp-accounting's own constructor (the call its PLDAccountant makes for a
        ``MixtureOfGaussiansDpEvent``) and cached, so evaluating many step counts of one
        mechanism builds it once; ``tests/verify/test_privacy.py`` checks this route
        against :func:`epsilon_of`.
        """
        delta = v.open_unit("delta", delta)
        accountant = v.choice("accountant", accountant, ACCOUNTANTS)
        if self.sampling != "with_replacement":
            return epsilon_of(self.event(), delta, accountant, self.neighboring_relation,
                              value_discretization_interval)
        reserve = TRUNCATION_DELTA_SHARE * delta
        eps_guess = math.log(1e4)
        while True:
            pld, tail = self._truncated_pld(accountant, reserve, eps_guess, value_discretization_interval)
            eps = float(pld.get_epsilon_for_delta(delta - reserve))
            if eps <= eps_guess or tail <= _SMALLEST_TAIL:
                return eps
            eps_guess = eps + math.log(2.0)

    def is_private(self, epsilon: float, delta: float, accountant: str = "pld",
                   value_discretization_interval: float | None = None) -> bool:
        """Does the accountant certify (``epsilon``, ``delta``)-DP?  (Conservative: True is a proof.)

        With replacement the binomial tail is cut at ``tail`` ≤ a share
        :data:`TRUNCATION_DELTA_SHARE` of δ / (steps·e^ε), and that share of δ is kept
        back, so no iteration is needed.
        """
        epsilon = v.positive("epsilon", epsilon)
        delta = v.open_unit("delta", delta)
        accountant = v.choice("accountant", accountant, ACCOUNTANTS)
        if self.sampling != "with_replacement":
            return self.epsilon(delta, accountant, value_discretization_interval) <= epsilon
        reserve = TRUNCATION_DELTA_SHARE * delta
        pld, _ = self._truncated_pld(accountant, reserve, epsilon, value_discretization_interval)
        return float(pld.get_delta_for_epsilon(epsilon)) <= delta - reserve

    def _truncated_pld(self, accountant: str, reserve: float, epsilon: float, vdi: float | None):
        """T-step PLD with replacement, K cut at a power-of-ten tail with steps·tail·e^ε ≤ reserve."""
        if accountant != "pld":
            raise InvalidParameter(
                "accountant", "'pld' for sampling with replacement (dp-accounting's RDP "
                "accountant does not support sampling with replacement)", accountant)
        vdi = 1e-4 if vdi is None else v.positive("value_discretization_interval", vdi)
        exponent = math.floor((math.log(reserve / self.steps) - epsilon) / math.log(10.0))
        tail = max(min(10.0 ** exponent, 1e-14), _SMALLEST_TAIL)
        step = _with_replacement_step_pld(self.n, self.batch_size, self.noise_multiplier, tail, vdi)
        return step.self_compose(self.steps), tail


@lru_cache(maxsize=8)
def _with_replacement_step_pld(n: int, batch_size: int, noise_multiplier: float, tail: float, vdi: float):
    ev = with_replacement_event(n, batch_size, noise_multiplier, tail)
    return _pld_lib.from_mixture_gaussian_mechanism(
        standard_deviation=ev.standard_deviation, sensitivities=ev.sensitivities,
        sampling_probs=ev.sampling_probs, value_discretization_interval=vdi)


# --------------------------------------------------------------------------------------
# Convenience front ends (all through Mechanism / epsilon_of)
# --------------------------------------------------------------------------------------
def dp_sgd_epsilon(sampling_rate: float, noise_multiplier: float, steps: int, delta: float,
                   accountant: str = "rdp", value_discretization_interval: float | None = None) -> float:
    """ε of DP-SGD: ``steps`` Poisson-subsampled Gaussian steps; add/remove-one adjacency."""
    return Mechanism("poisson", noise_multiplier, steps, sampling_rate=sampling_rate).epsilon(
        delta, accountant, value_discretization_interval)


def composed_epsilon(phases: Sequence[tuple[float, float, int]], delta: float, accountant: str = "rdp",
                     value_discretization_interval: float | None = None) -> float:
    """ε of phases ``(sampling_rate, noise_multiplier, steps)`` run one after another.

    Poisson-subsampled Gaussian steps, add/remove-one adjacency; the phases compose
    (``ComposedDpEvent``).
    """
    phases = list(phases)
    if not phases:
        raise InvalidParameter("phases", "a non-empty sequence of (sampling_rate, noise_multiplier, steps)", phases)
    try:
        mechs = [Mechanism("poisson", sigma, steps, sampling_rate=q) for q, sigma, steps in phases]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidParameter):
            raise
        raise InvalidParameter("phases", "a sequence of (sampling_rate, noise_multiplier, steps) triples",
                               phases) from None
    return epsilon_of(dpe.ComposedDpEvent([m.event() for m in mechs]), delta, accountant,
                      NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval)


def with_replacement_epsilon(n: int, batch_size: int, noise_multiplier: float, steps: int, delta: float,
                             accountant: str = "pld", value_discretization_interval: float | None = None) -> float:
    """ε of ``steps`` steps, each a batch of ``batch_size`` draws with replacement from ``n``.

    Zero-out adjacency (``REPLACE_SPECIAL``); PLD only (see :func:`with_replacement_event`
    and :meth:`Mechanism.epsilon` for the binomial truncation and the δ it reserves).
    """
    return Mechanism("with_replacement", noise_multiplier, steps, n=n, batch_size=batch_size).epsilon(
        delta, accountant, value_discretization_interval)


def gaussian_epsilon(noise_multiplier: float, delta: float, steps: int = 1, accountant: str = "pld",
                     value_discretization_interval: float | None = None) -> float:
    """ε of ``steps`` Gaussian mechanisms of sensitivity 1, no sampling; add/remove-one adjacency."""
    return Mechanism("none", noise_multiplier, steps).epsilon(delta, accountant, value_discretization_interval)


def gaussian_epsilon_interval(noise_multiplier: float, delta: float, steps: int = 1,
                              value_discretization_interval: float = 1e-4) -> tuple[float, float]:
    """(lower, upper) bounds on the ε of ``steps`` Gaussian mechanisms with this noise multiplier.

    dp-accounting's PLD with ``pessimistic_estimate=False`` (privacy buckets) and ``True``: the true ε
    lies between them.  A promise is certainly broken when even the lower bound exceeds it.
    Add/remove-style dominating pair N(0, σ²) vs N(1, σ²), i.e. sensitivity 1 in units of the multiplier.
    """
    z = v.positive("noise_multiplier", noise_multiplier)
    delta = v.open_unit("delta", delta)
    steps = v.integer("steps", steps, 1)
    vdi = v.positive("value_discretization_interval", value_discretization_interval)
    out = []
    for pessimistic in (False, True):
        dist = _pld_lib.from_gaussian_mechanism(z, pessimistic_estimate=pessimistic, value_discretization_interval=vdi,
                                            use_connect_dots=pessimistic)
        out.append(float(dist.self_compose(steps).get_epsilon_for_delta(delta)))
    return out[0], out[1]


def optimal_composition_epsilon(epsilons: Sequence[float], deltas: Sequence[float], delta: float,
                                value_discretization_interval: float = 1e-4) -> float:
    """ε at ``delta`` of the worst composition of mechanisms that are (ε_i, δ_i)-DP, one each.

    dp-accounting's PLD of the dominating pair of a generic (ε_i, δ_i)-DP mechanism
    (``from_privacy_parameters``), composed: the exact optimal composition up to the PLD grid
    (rounded pessimistically, so this is an upper bound on the optimal ε, tight as the grid shrinks).
    """
    from dp_accounting.pld import common as _pld_common

    eps = v.finite_array("epsilons", epsilons, ndim=1)
    dl = v.finite_array("deltas", deltas, shape=eps.shape)
    if eps.size == 0 or np.any(eps < 0):
        raise InvalidParameter("epsilons", "a non-empty sequence of numbers >= 0", "an empty or negative entry")
    if np.any((dl < 0) | (dl >= 1)):
        raise InvalidParameter("deltas", "entries in [0, 1)", "an entry outside")
    delta = v.open_unit("delta", delta)
    vdi = v.positive("value_discretization_interval", value_discretization_interval)
    pld = None
    for e, d in zip(eps.tolist(), dl.tolist()):
        step = _pld_lib.from_privacy_parameters(_pld_common.DifferentialPrivacyParameters(e, d),
                                                value_discretization_interval=vdi)
        pld = step if pld is None else pld.compose(step)
    return float(pld.get_epsilon_for_delta(delta))
