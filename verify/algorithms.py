"""Run your own algorithm with ``dpverify run``: register a function, its problems and its privacy mechanism.

::

    import numpy as np
    from verify.algorithms import algorithm, problem
    import kernels

    @problem("mylab.tiny")
    def tiny(seed: int) -> kernels.Dataset:
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((500, 10))
        return kernels.make_dataset(X, X @ np.ones(10), loss="absolute")

    @algorithm("mylab.noisy_sgd", problems=("mylab.tiny", "abs_regression"), sampling="poisson")
    def noisy_sgd(ds, *, noise_multiplier, steps, batch_size, alpha, rng, log_steps):
        ...  # one trial: return the training loss at each of log_steps (a 1-d array)

``dpverify run mylab.noisy_sgd --load mylab_algos.py --epsilon 1`` then calibrates the noise multiplier
from (ε, δ) with dp-accounting for the declared mechanism, runs the trials (one seeded
``numpy.random.Generator`` each), and writes the same ``run.json`` and curve as the built-in algorithms.

The function's contract: ``fn(dataset, *, noise_multiplier, steps, batch_size, alpha, rng, log_steps)``
returns the metric at every step in ``log_steps`` (a finite 1-d array of that length).  ``noise_multiplier``
is the Gaussian noise's standard deviation over the sensitivity (0 for a non-private algorithm); the
sensitivity is the function's business (e.g. clip each record to norm C, add N(0, (z·C)²) to the sum).

Mechanisms (``sampling``): ``"poisson"`` — each step a Poisson sample at rate batch_size/n, one Gaussian
release of its sum (DP-SGD's accountant); ``"full"`` — each step a Gaussian release of the whole dataset's
sum (the Gaussian mechanism composed ``steps`` times).  Adjacency: add/remove one record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import dpvalidate as V
import kernels
from verify import privacy as _privacy
from verify import runs
from verify.registry import PAPERS

SAMPLINGS = ("poisson", "full")
_NAME = r"[a-z][a-z0-9_]*\.[a-z0-9_.]+"


@dataclass(frozen=True)
class Defaults:
    steps: int = 500
    batch_size: int = 64
    alpha: float = 0.1
    epsilon: float = 1.0
    delta: float = 1e-5


PROBLEMS: dict[str, Callable[[int], kernels.Dataset]] = {}


def problem(name: str):
    """Register ``fn(seed) -> kernels.Dataset`` (build it with :func:`kernels.make_dataset`) as a problem name.

    Parameters
    ----------
    name : str
        ``KEY.name`` with a key of your own (not a built-in paper key).

    Returns
    -------
    callable
        A decorator that registers ``fn`` under ``name`` and returns it unchanged.

    Raises
    ------
    InvalidParameter
        (from the name check) When ``name`` is not ``KEY.name`` or uses a built-in paper key.
    """
    _check_name("problem", name)

    def register(fn):
        PROBLEMS[name] = fn
        return fn

    return register


def dataset(name: str, seed: int) -> kernels.Dataset:
    """A registered user problem, or a built-in PAGAN-family problem, as a dataset.

    Parameters
    ----------
    name : str
        A problem registered with :func:`problem`, or a built-in problem name.
    seed : int
        The dataset's seed.

    Returns
    -------
    kernels.Dataset
        The dataset (a user problem's is checked by ``kernels.pagan_problems.check_dataset``).
    """
    if name in PROBLEMS:
        ds = PROBLEMS[name](seed)
        return kernels.pagan_problems.check_dataset(ds, f"problem {name}")
    return kernels.make_problem(name, seed=seed)


def _check_name(what: str, name: str) -> None:
    import re

    if not (isinstance(name, str) and re.fullmatch(_NAME, name)):
        raise V.InvalidParameter(what, "a name KEY.name with a key of your own, e.g. 'mylab.noisy_sgd'", name)

    key = name.split(".", 1)[0]
    if key in PAPERS:
        raise V.InvalidParameter(what, f"under a key of your own (the keys {', '.join(PAPERS)} are the "
                                 "built-in papers')", name)


def algorithm(name: str, *, problems, private: bool = True, sampling: str = "poisson",
              metric: str = "training_loss", description: str = "", defaults: Defaults = Defaults()):
    """Register ``fn`` (see the module's contract) as the algorithm ``name`` of ``dpverify run``.

    Parameters
    ----------
    name : str
        ``KEY.name`` with a key of your own.
    problems : iterable of str
        The problems it runs on (registered or built-in; the first is the default), at least one.
    private : bool, optional
        Whether it is private: its noise multiplier is then calibrated through the accountant to ε.
    sampling : str, optional
        "poisson" (DP-SGD accounting at rate batch_size/n) or "full" (composed Gaussian releases).
    metric : str, optional
        A key of :data:`verify.runs.METRICS`.
    description : str, optional
        One line for ``dpverify run --help`` (default: the first line of ``fn``'s docstring, else ``name``).
    defaults : Defaults, optional
        The settings used where the command line gives none.

    Returns
    -------
    callable
        A decorator that adds ``fn`` to :data:`verify.runs.RUNNABLES` and returns it unchanged.

    Raises
    ------
    InvalidParameter
        When ``name`` is malformed or uses a built-in key, ``problems`` is empty, or ``sampling`` or ``metric``
        is not accepted.
    """
    _check_name("algorithm", name)
    problems = tuple(problems)
    if not problems:
        raise V.InvalidParameter("problems", "at least one problem name", problems)
    V.choice("sampling", sampling, SAMPLINGS)
    V.choice("metric", metric, tuple(runs.METRICS))

    def register(fn):
        spec = runs.Runnable(name, name.split(".", 1)[0], problems, bool(private),
                             description or (fn.__doc__ or name).strip().splitlines()[0],
                             _runner(fn, sampling, metric, defaults))
        runs.register(spec)
        return fn

    return register


def _runner(fn, sampling: str, metric: str, defaults: Defaults):
    def run_it(spec: runs.Runnable, problem: str, *, epsilon, delta, trials, seed, steps, batch_size, alpha):
        for p in spec.problems:
            if p not in PROBLEMS and p not in kernels.PROBLEMS:
                raise V.InvalidParameter("problem", f"a registered problem ({', '.join(sorted(PROBLEMS))}) or one of "
                                         f"{', '.join(kernels.PROBLEMS)}", p)
        ds = dataset(problem, seed)
        steps = defaults.steps if steps is None else steps
        batch_size = defaults.batch_size if batch_size is None else batch_size
        alpha = defaults.alpha if alpha is None else alpha
        if sampling == "poisson" and batch_size > ds.n:
            raise V.InvalidParameter("batch_size", f"at most n = {ds.n} (the Poisson rate is batch_size/n)", batch_size)
        z, record = 0.0, None
        params = {"trials": trials, "seed": seed, "steps": steps, "batch_size": batch_size, "alpha": alpha}
        epsilon_at = None
        if spec.private:
            epsilon = defaults.epsilon if epsilon is None else epsilon
            delta = defaults.delta if delta is None else delta
            q = batch_size / ds.n

            def epsilon_at(zz: float) -> float:
                if sampling == "poisson":
                    return _privacy.dp_sgd_epsilon(q, zz, steps, delta)
                return _privacy.gaussian_epsilon(zz, delta, steps)

            z = _privacy.calibrate_multiplier(epsilon_at, epsilon)
            mech = {"sampling": sampling, "rate": q if sampling == "poisson" else 1.0, "releases": steps,
                    "adjacency": "add/remove one record"}
            record = runs.privacy_record(z, epsilon_at(z), delta, "dp-accounting "
                                          + ("RDP (Poisson-subsampled Gaussian)" if sampling == "poisson"
                                             else "PLD (Gaussian, composed)"), mech)
            params.update(epsilon=epsilon, delta=delta)
        log_steps = runs.log_points(steps)
        values = np.empty((trials, log_steps.size))
        for i, child in enumerate(np.random.SeedSequence(seed).spawn(trials)):
            out = np.asarray(fn(ds, noise_multiplier=z, steps=steps, batch_size=batch_size, alpha=alpha,
                                rng=np.random.default_rng(child), log_steps=log_steps.copy()), dtype=float)
            if out.shape != log_steps.shape:
                raise V.InvalidParameter("algorithm", f"a function returning one value per logged step (shape "
                                         f"{log_steps.shape})", f"shape {out.shape} from {spec.name}")
            values[i] = out
        return runs.RunResult(spec.name, spec.paper, problem, metric, log_steps, values, values[:, -1].copy(), params,
                              {"sampling": sampling}, {"n": ds.n, "d": ds.d}, record, (), epsilon_at)

    return run_it
