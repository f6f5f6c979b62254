"""Section 6.1 and App. C (:mod:`verify.papers.adadps.experiments`): Tables 6, 10, 9, 8 and 4 at quick (verdicts
at seed 0, pinned counterexamples), a declared mutant that each check catches, and DP-Adam-Pub honouring the
kernels' fault hooks."""

import logging

import numpy as np
import pytest

from kernels import faults
from tests.papers.adadps.support import claim_record, mutant_verdicts
from tests.verify.evidence_support import lost_numbers
from verify.papers.adadps import _common as common
from verify.papers.adadps import experiments
from verify.privacy import dp_sgd_epsilon
from verify.registry import REGISTRY, load_all

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_table_adadps_best_replaces_the_retired_table_id(quick):
    load_all()
    assert "adadps.table" not in REGISTRY and REGISTRY["adadps.table.adadps_best"].tests == 7
    out = quick["table"]
    f = out.numbers
    # quick (8 seeds): AdaDPS (frequency) beats every baseline; AdaDPS (public) against DP-SGD is a near-tie
    assert out.verdict == "inconclusive" and len(out.decisions) == 7
    assert all(f[f"diff[adadps_fixed>{m}]"] > 0 for m in ("dp_sgd", "dp_adam", "dp_rmsprop"))
    assert f["features_unseen_in_public"] <= 0.1 * 200  # the public split covers ≥ 90% of the features
    assert 3.0 in experiments.TABLE_GRIDS["quick"]["lrs"] and max(experiments.TABLE_GRIDS["quick"]["lrs"]) > 3.0
    assert f["epsilon_rdp"] == pytest.approx(dp_sgd_epsilon(32 / 1500, 1.0, 300, 1 / 1500, "rdp"))


def test_table10_close_to_all_public_but_undecided_against_dp_sgd():
    out = claim_record("adadps.table10").check("quick", 0)
    assert out.verdict == "inconclusive"
    assert [str(d.verdict) for d in out.decisions] == ["holds", "inconclusive"]
    assert out.numbers["public_all"] == 75 and out.numbers["public_small"] == 3
    assert out.numbers["drop"] < 0.05


def test_table10_public_statistics_of_the_wrong_features_are_caught():
    v = mutant_verdicts("adadps.table10", {"public-features-reversed"})
    assert v == {"public-features-reversed": "violated"}


def test_table9_non_private_adas_matches_adam_within_two_points():
    """Quick seed 0: AdaS without public data is within ±0.02 of Adam (holds); AdaS with public data is 0.0126 below
    Adam with an interval that crosses −0.02, undecided, so the claim is inconclusive. (With the child_seed streams
    quick holds at 4 of seeds 0–7: the equivalence test needs more than 10 seeds to decide at this budget.)"""
    out = claim_record("adadps.table9").check("quick", 0)
    assert [str(d.verdict) for d in out.decisions] == ["inconclusive", "holds"]
    assert out.verdict == "inconclusive"
    f = out.numbers
    assert abs(f["test_acc[adas_frequency]"] - f["test_acc[adam]"]) < 0.02
    assert abs(f["test_acc[adas_public]"] - f["test_acc[adam]"]) < 0.02  # the point estimate; its interval is not


def test_table9_adas_without_side_information_is_not_a_match():
    v = mutant_verdicts("adadps.table9", {"adas-without-side-information"})
    assert v["adas-without-side-information"] != "holds"


def test_table8_the_verdict_turns_on_the_unstated_beta1():
    """β₁ = 1 (the caption's clean preconditioner only): AdaDPS above DP-Adam-Pub (holds); β₁ = 0.9 (the displayed
    update, a tenth of the clean public gradient in m): DP-Adam-Pub above AdaDPS at quick (undecided at 12 seeds,
    violated at full). The readings disagree: inconclusive."""
    out = claim_record("adadps.table8").check("quick", 0)
    assert out.verdict == "inconclusive"
    assert [str(d.verdict) for d in out.decisions] == ["inconclusive", "holds"]
    assert out.numbers["diff_adadps_minus[dp_adam_pub_formula]"] < 0 < out.numbers[
        "diff_adadps_minus[dp_adam_pub_caption]"]


def test_table8_decisions_respond_to_public_statistics_of_the_wrong_features():
    c = claim_record("adadps.table8")
    m = next(x for x in c.mutants if x.name == "public-features-reversed")
    with m.apply():
        out = c.check("quick", 0)
    assert [str(d.verdict) for d in out.decisions] == ["violated", "inconclusive"]


def test_table4_adadps_gap_over_fairly_tuned_baselines_is_far_below_the_papers():
    """Quick seed 0: AdaDPS is above DP-SGD (by 0.013: holds) but not separated from DP-Adam (undecided), so the
    claim is inconclusive; its lead over the best baseline is nowhere near the paper's ~0.10."""
    out = claim_record("adadps.table4").check("quick", 0)
    assert out.verdict == "inconclusive"
    assert [str(d.verdict) for d in out.decisions] == ["holds", "inconclusive", "holds"]
    f = out.numbers
    best = max(f["test_acc[dp_sgd]"], f["test_acc[dp_adam]"])
    assert f["test_acc[adadps]"] - best < 0.05  # far from the paper's ~0.10 gap


def test_table4_inverted_side_information_is_caught():
    v = mutant_verdicts("adadps.table4", {"tfidf-side-information-inverted"})
    assert v == {"tfidf-side-information-inverted": "violated"}


def _pub_run(**kw):
    prob = common.make_problem("zipf_bow_logistic", experiments.T8_GRIDS["quick"]["problem"])
    return experiments.dp_adam_pub(prob, np.random.default_rng(3), lr=0.1, clip=0.5, sigma=1.0, batch_size=8, steps=3,
                                   **kw)


def test_dp_adam_pub_visits_and_applies_the_noise_stepsize_and_clipping_faults():
    faults.clear_visited()
    base = _pub_run()
    assert {"noise_scale", "stepsize_scale", "skip_clipping"} <= faults.visited()
    for fault in (dict(noise_scale=3.0), dict(stepsize_scale=10.0), dict(skip_clipping=True)):
        with faults.inject(**fault):
            w = _pub_run()
        assert set(fault) <= faults.applied_names() and not np.array_equal(w, base), fault
    with faults.inject(noise_scale=3.0, only_methods=("adadps_rmsprop",)):  # a one-arm fault leaves it alone
        assert np.array_equal(_pub_run(), base)
    assert "noise_scale" not in faults.applied_names()


@pytest.mark.parametrize("name", ["table", "table10", "table9", "table8", "table4"])
def test_table_evidence_is_a_short_summary_and_points_that_keep_every_number(quick, name):
    """Each table's evidence reads as one short sentence (the verdict and each comparison's verdict) and one point
    per method and per decision; no number of the evidence is lost, and the evidence itself is unchanged."""
    out = quick[name]
    assert out.summary.startswith(f"{out.verdict}") and len(out.summary) <= 240
    assert "; test accuracy" not in out.summary and "[" not in out.summary  # no intervals: those are points
    assert out.summary.count(". ") == 0 and "\n" not in out.summary
    methods = [p["method"] for p in out.points if "method" in p]
    assert len(methods) >= 3 and all(m in out.evidence for m in methods)
    assert len([p for p in out.points if "test" in p]) == len(out.decisions)
    assert all(p["95% CI lo"] <= p["test accuracy"] <= p["95% CI hi"] for p in out.points if "method" in p)
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_lost_numbers_would_notice_a_table_point_dropped(quick):
    """The check above can fail: without the method rows the intervals of the evidence are lost."""
    out = quick["table10"]
    assert lost_numbers(out.evidence, out.summary, [p for p in out.points if "method" not in p], out.decisions)
