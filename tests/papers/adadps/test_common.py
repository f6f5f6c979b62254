"""The central mechanism probe of :mod:`verify.papers.adadps._common`: it passes the unfaulted kernels and names
each kernel fault (noise, step, clipping) in the methods the Section 4.1 and Section 6.1 claims run."""

import logging
import math

from kernels import faults
from verify.papers.adadps import _common as common
from verify.papers.adadps import experiments

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_central_probe_passes_unfaulted_and_names_each_fault():
    ok, numbers = common._central_mechanism_probe(("adadps_fixed", "dp_sgd"), 0.7, 8, 0, "test")
    assert ok == "" and all(abs(numbers[f"probe_noise_std_ratio[{m}]"] - 1) < 0.05 for m in ("adadps_fixed", "dp_sgd"))
    for fault, words in ((dict(noise_scale=3.0), "noise in the update"), (dict(stepsize_scale=10.0), "clipped step"),
                         (dict(skip_clipping=True), "clipped step")):
        with faults.inject(**fault):
            why, _ = common._central_mechanism_probe(("adadps_fixed", "dp_sgd"), 0.7, 8, 0, "test")
        assert words in why and "dp_sgd" in why, fault


def test_table_probes_pass_unfaulted_and_fail_under_the_faults():
    # unfaulted, every table's method list passes (dp_r_pub, whose noise is preconditioned after the draw, and the
    # Adam-type methods are not read; the others are)
    for methods in (experiments.TABLE_METHODS, tuple(experiments.T4T_KERNEL.values())):
        ok, numbers = common._central_mechanism_probe(methods, 1.0, 32, 0, "test")
        assert ok == "" and "probe_noise_std_ratio[adadps_rmsprop]" in numbers
    with faults.inject(noise_scale=3.0, only_methods=("adadps_rmsprop",)):  # a one-arm fault on the public method
        why, _ = common._central_mechanism_probe(experiments.TABLE_METHODS, 1.0, 32, 0, "test")
    assert why.startswith("adadps_rmsprop: the noise in the update is")


def test_unclipped_step_probe_for_runs_that_clip_nothing():
    ok, numbers = common._central_mechanism_probe(("dp_sgd", "adadps_fixed", "dp_adam"), 0.0, 8, 0, "test",
                                                   clip=math.inf)
    assert ok == "" and set(numbers) == {"probe_step_rel_error[dp_sgd]", "probe_step_rel_error[adadps_fixed]"}
    with faults.inject(skip_clipping=True):  # nothing to skip at C = ∞: the probe still passes
        assert common._central_mechanism_probe(("dp_sgd",), 0.0, 8, 0, "test", clip=math.inf)[0] == ""
