"""Fast kernels for the papers' algorithms and stylized problems (Numba; optional CUDA path).

Public entry points::

    from kernels import make_problem, run_algorithm, ALGORITHMS, PROBLEMS
    ds = make_problem("abs_regression", seed=0)
    out = run_algorithm("pagan", ds, epsilon=1.0, delta=1e-5, steps=500, batch_size=70,
                        alpha=0.1, trials=10, seed=1)

``kernels.pagan_reference`` holds the NumPy references (test oracles and benchmark
baselines); ``kernels.projections`` the standalone projection/clipping kernels;
``kernels.moments`` Algorithm 3 of ``pagan`` (private second-moment estimation).

The other algorithm families live in their own modules, each with a ``*_reference`` NumPy twin:
``kernels.adp`` (ADP-SGD), ``kernels.noisy_adagrad`` (noisy full-matrix AdaGrad, DP-GD),
``kernels.dp_adam`` (private Adam variants, DP-MF noise), ``kernels.adadps`` (AdaDPS and its
baselines, federated AdaDPS); ``kernels.cuda`` is the optional GPU path.  Every stylized problem
of docs/catalogue.md is listed in :data:`PROBLEM_GENERATORS`; :func:`problem_generator` returns its
generator (``(params, seed) -> dataset``)::

    gen = kernels.problem_generator("low_rank_glm")
    prob = gen(n=200, p=50, k=3, seed=0)
"""

# first: every kernel's on-disk cache is stamped with all the package's sources (kernels/_jitcache.py)
from kernels import _jitcache  # noqa: F401,I001
from kernels.pagan import ALGORITHMS, SPECS, LoopConfig, LoopSettings, RunOutput, make_config, run_algorithm, run_config
from kernels.pagan_problems import PROBLEMS, Dataset, make_dataset, make_problem
from dpvalidate import InvalidParameter, choice

# name -> "module:function" (imported on demand, so importing kernels stays light)
PROBLEM_GENERATORS = {
    "abs_regression": "kernels.pagan_problems:abs_regression",
    "linear_subgaussian": "kernels.pagan_problems:linear_subgaussian",
    "sign_mean": "kernels.pagan_problems:sign_mean",
    "low_rank_glm": "kernels.noisy_adagrad:low_rank_glm",
    "quadratic": "kernels.dp_adam_problems:quadratic",
    "sparse_logistic_1d": "kernels.dp_adam_problems:sparse_logistic_1d",
    "synthetic_gradients": "kernels.dp_adam_problems:synthetic_gradients",
    "sparse_linear_regression": "kernels.adadps:sparse_linear_regression",
    "zipf_bow_logistic": "kernels.adadps:zipf_bow_logistic",
    "smooth_nonconvex": "kernels.adp:smooth_nonconvex",
}


def problem_generator(name: str):
    """The generator of the stylized problem ``name`` (one of :data:`PROBLEM_GENERATORS`).

    Parameters
    ----------
    name : str
        A key of :data:`PROBLEM_GENERATORS`.

    Returns
    -------
    callable
        The generator function (its module is imported on first use).

    Raises
    ------
    dpvalidate.InvalidParameter
        An unknown name (raised by :func:`dpvalidate.choice`).
    """
    import importlib

    target = PROBLEM_GENERATORS[choice("problem", name, tuple(PROBLEM_GENERATORS))]
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


__all__ = [
    "make_dataset",
    "PROBLEM_GENERATORS",
    "problem_generator",
    "ALGORITHMS",
    "PROBLEMS",
    "SPECS",
    "Dataset",
    "InvalidParameter",
    "LoopConfig",
    "LoopSettings",
    "RunOutput",
    "make_config",
    "make_problem",
    "run_algorithm",
    "run_config",
]
