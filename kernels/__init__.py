"""Fast kernels for the papers' algorithms and stylized problems (Numba; optional CUDA path).

Public entry points::

    from kernels import make_problem, run_algorithm, ALGORITHMS, PROBLEMS
    ds = make_problem("abs_regression", seed=0)
    out = run_algorithm("pagan", ds, epsilon=1.0, delta=1e-5, steps=500, batch_size=70,
                        alpha=0.1, trials=10, seed=1)

``kernels.reference`` holds the NumPy references (test oracles and benchmark
baselines); ``kernels.projections`` the standalone projection/clipping kernels;
``kernels.moments`` Algorithm 3 of ``pagan`` (private second-moment estimation).
"""

from kernels.adaptive import ALGORITHMS, SPECS, LoopConfig, RunOutput, make_config, run_algorithm, run_config
from kernels.problems import PROBLEMS, Dataset, make_problem
from kernels.validate import InvalidParameter

__all__ = [
    "ALGORITHMS",
    "PROBLEMS",
    "SPECS",
    "Dataset",
    "InvalidParameter",
    "LoopConfig",
    "RunOutput",
    "make_config",
    "make_problem",
    "run_algorithm",
    "run_config",
]
