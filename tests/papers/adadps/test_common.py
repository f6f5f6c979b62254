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


def test_points_finding_counts_the_decided_parts_and_only_for_violated():
    """The generic finding of the statistical and exact checks: one point per decided part, failing where it is
    violated, no edge (in the regime), no repair with its reason; None unless the verdict is violated."""
    pts = [("A beats B", "holds"), ("A beats C", "violated"), ("A beats D", "inconclusive")]
    assert common.points_finding("holds", pts, what="w", paper_where="Table 1") is None
    f = common.points_finding("violated", pts, what="comparisons", paper_where="Table 1", surrogate=True)
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing, f.region.edge) == (3, 1, "")
    assert f.region.text == "comparisons: 1 of 3 violated — A beats C"
    assert f.at_paper_setting.where.endswith("not the paper's datasets") and not f.at_paper_setting.fails
    assert math.isnan(f.at_paper_setting.size) and f.repair is None and f.no_repair_reason
    assert "Theorem 5 states no numeric instance" in common.points_finding(
        "violated", pts, what="w", no_instance="Theorem 5").at_paper_setting.where


def test_points_finding_names_an_unlisted_failure_and_keeps_a_failure_at_the_paper_setting():
    """A violated verdict whose listed parts all hold counts one more failing part (the rest of the check); a
    failure at the paper's own setting (a check that runs it) needs none."""
    f = common.points_finding("violated", [("x", "holds")], what="w", paper_where="p")
    assert (f.region.explored, f.region.failing) == (2, 1) and "another part of the check" in f.region.text
    g = common.points_finding("violated", [("ε part", "violated")], what="w", paper_where="§6.2", paper_size=1.2,
                              paper_measure="ratio", paper_fails=True)
    assert g.scope == "in_regime" and g.at_paper_setting.fails and g.at_paper_setting.size == 1.2
