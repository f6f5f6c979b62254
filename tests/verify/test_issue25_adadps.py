"""Issue 25: adadps mutants — each declared equivalence's reason is checked here, and each sharper check can fail."""

import numpy as np

from kernels import faults
from verify.mutants import EQUIVALENT
from verify.papers import adadps as va


def test_theorem5_no_clipping_is_equivalent_because_the_runs_never_clip():
    assert ("adadps.theorem5", "no-clipping") in EQUIVALENT
    kw = dict(problem_kw=va.RATE_PROBLEM, batch_size=16, sigma=1.0, steps=20, trials=2, seed=3)
    plain = va._t5_task(**kw)
    with faults.inject(skip_clipping=True):
        skipped = va._t5_task(**kw)
    assert np.array_equal(np.asarray(plain["grad_avg"]), np.asarray(skipped["grad_avg"]))
    assert plain["alpha"] == skipped["alpha"]
