"""Section 4.1 (:mod:`verify.papers.adadps.toy`, ``adadps.section4.1``): the stated (4.13, 10⁻³)-DP against the
accountants, the verdict against its interval, a negative control, and the mechanism probe before the runs."""

import logging

import pytest

from kernels import faults
from tests.verify.evidence_support import lost_numbers
from verify.papers.adadps import _common as common
from verify.papers.adadps import toy
from verify.privacy import dp_sgd_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_section41_privacy_numbers_are_the_accountants(quick):
    f = quick["section4_1"].numbers
    assert f["epsilon_rdp"] == pytest.approx(dp_sgd_epsilon(0.008, 0.7, 2250, 1e-3, "rdp"))
    assert abs(f["epsilon_rdp"] - 4.13) < 0.005  # the paper's (4.13, 1e-3) is the RDP accountant's value
    assert f["epsilon_pld"] < f["epsilon_rdp"] < f["epsilon_rdp_fixed_batch_replace_one"]
    assert (f["sigma"], f["batch_size"], f["steps"], f["delta"]) == (0.7, 8, 2250, 1e-3)


def test_section41_verdict_follows_its_interval(quick):
    out = quick["section4_1"]
    f = out.numbers
    assert out.verdict == "holds" and out.decisions[0].verdict == "holds" and f["loss_ratio_ci_lo"] > 1
    assert f["final_loss_dpsgd"] > f["final_loss_adadps"]
    assert f["lr_adadps"] in common.PAPER_LR_GRID and f["lr_dpsgd"] in common.PAPER_LR_GRID


def test_section41_negative_control_understated_epsilon(monkeypatch):
    monkeypatch.setitem(common.TOY, "stated_epsilon", 3.0)
    out = toy.section4_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["stated_epsilon"] == 3.0


def test_section41_is_not_run_on_a_kernel_that_skips_clipping(monkeypatch):
    # the accountant's ε (seconds of PLD) is stubbed: consistent with the stated 4.13, so only the probe decides
    monkeypatch.setattr(toy, "toy_privacy", lambda: {"epsilon_rdp": 4.1, "epsilon_pld": 4.0})
    with faults.inject(skip_clipping=True):
        out = toy.section4_1("quick", 0)
    assert out.verdict == "inconclusive" and "does not run the stated mechanism" in out.evidence
    assert out.numbers["probe_step_rel_error[dp_sgd]"] > 1


def test_section4_1_summary_and_points_keep_every_number_of_its_evidence(quick):
    """The toy example's evidence reads as one short sentence (the loss comparison, the stated ε) and points (per
    method, the ratio, the accountant, the decision); no number of the evidence is lost."""
    out = quick["section4_1"]
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240 and ". " not in out.summary
    assert "[" not in out.summary and "{" not in out.summary
    assert [p["method"] for p in out.points[:2]] == ["AdaDPS", "DP-SGD"]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    assert lost_numbers(out.evidence, out.summary, out.points[:2], out.decisions)  # the other rows carry numbers
