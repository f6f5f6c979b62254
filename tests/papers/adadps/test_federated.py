"""Section 6.2 (:mod:`verify.papers.adadps.federated`): one round's exact ε (quadrature and input checks), the
stated user-level privacy, Figure 6 against DP-FedAvg and DP-FedAdam, and the federated mechanism probe."""

import logging
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpvalidate import InvalidParameter
from kernels import faults
from tests.papers.adadps.support import claim_record
from tests.verify.evidence_support import lost_numbers
from verify import mutants, registry
from verify.papers.adadps import federated
from verify.privacy import dp_sgd_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_one_round_epsilon_solves_the_hockey_stick_divergence_by_quadrature():
    q, sigma, delta = 0.05, 0.3, 0.0025
    eps = federated.one_round_epsilon(q, sigma, delta)

    def hockey(e):  # ∫ (p − e^ε q)₊ for P = (1 − q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²), by quadrature
        def f(x):
            return max((1 - q) * stats.norm.pdf(x, 0, sigma) + q * stats.norm.pdf(x, 1, sigma)
                       - math.exp(e) * stats.norm.pdf(x, 0, sigma), 0.0)

        return integrate.quad(f, -10, 10, points=[0.5, 1.0, 2.0], limit=400, epsabs=1e-13)[0]

    assert hockey(eps) == pytest.approx(delta, rel=1e-5)
    assert hockey(0.98 * eps) > delta > hockey(1.02 * eps)
    # a lower bound: no accountant's (upper-bound) ε of one round is below it
    assert eps < dp_sgd_epsilon(q, sigma, 1, delta, "rdp")
    assert eps == pytest.approx(7.2397, abs=1e-3)


def test_one_round_epsilon_rejects_bad_input():
    for kw in (dict(q=0.0, sigma=1.0, delta=0.1), dict(q=0.1, sigma=0.0, delta=0.1), dict(q=0.1, sigma=1.0, delta=1)):
        with pytest.raises(InvalidParameter):
            federated.one_round_epsilon(**kw)


def test_section62_reports_the_round_budget_of_the_stated_epsilon(quick):
    out = quick["section6_2"]
    f = out.numbers
    assert out.verdict == "inconclusive"
    assert f["epsilon_rdp_rounds30"] <= 34.0 < f["epsilon_rdp_rounds40"]
    assert f["max_rounds_within_stated"] == 30
    assert f["epsilon_rdp_rounds1"] == pytest.approx(dp_sgd_epsilon(0.05, 0.3, 1, 0.0025, "rdp"))


def test_section62_refutes_a_statement_one_round_already_breaks(monkeypatch):
    # the reported accountant ε per round count (seconds of RDP) is stubbed: the verdict rests on one round's exact ε
    monkeypatch.setattr(federated, "dp_sgd_epsilon", lambda *a, **k: 50.0)

    registry.load_all()
    (c,) = registry.select(["adadps.section6.2"])
    ms = {m.name: m for m in c.mutants}
    assert set(ms) == {"sigma/3", "stated-epsilon/10"}
    with ms["sigma/3"].apply():
        out = federated.section6_2("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["epsilon_one_round"] > out.counterexample["stated_epsilon"] == 34.0
    # the other declared fault states ε = 3.4, which one round at σ = 0.3 already exceeds
    assert federated.one_round_epsilon(0.05, 0.3, 0.0025) > 3.4 * (1 + federated.S62_RTOL)


def test_figure6_verdict_follows_its_interval(quick):
    out = quick["figure6"]
    f = out.numbers
    assert out.verdict == "holds" == out.decisions[0].verdict and f["diff"] > 0
    assert np.isfinite(f["epsilon_rdp_user_level"]) and f["epsilon_rdp_user_level"] > 0


def test_federated_probe_passes_unfaulted_and_names_each_fault():
    arms = (("frequency", "sgd"), ("ones", "adam"))
    ok, numbers = federated._fed_mechanism_probe(arms, 10, 0)
    steps = [v for k, v in numbers.items() if "step" in k]
    assert ok == "" and steps and all(v <= federated.FED_PROBE_RTOL for v in steps)
    for fault, words in ((dict(noise_scale=3.0), "noise std"), (dict(stepsize_scale=10.0), "local step")):
        with faults.inject(**fault):
            why, _ = federated._fed_mechanism_probe(arms, 10, 0)
        assert words in why and "ones_adam" in why and "frequency_sgd" in why, fault


CID = "adadps.figure6.fedadam"


def test_fedadam_quick_verdict_holds_with_an_interior_tuned_baseline():
    """Federated AdaDPS (frequency A) above DP-FedAdam at the same user-level ε; DP-FedAdam's tuned local lr and server
    lr inside FEDADAM_GRIDS (no edge), AdaDPS's tuning the same as adadps.figure6's."""
    out = claim_record(CID).check("quick", 0)
    assert out.verdict == "holds" and out.counterexample is None
    n = out.numbers
    # seed 0's numbers with verify.child_seed's streams (the streams before it gave 0.815 and 0.7985)
    assert n["test_acc_adadps"] == pytest.approx(0.82475, abs=1e-9)
    assert n["test_acc_dpfedadam"] == pytest.approx(0.80375, abs=1e-9)
    assert 0 < n["diff_lo"] <= n["diff"] < 0.05  # ahead, but by less than the paper's ~5 points
    g = federated.FEDADAM_GRIDS["quick"]
    assert min(g["lrs"]) < n["fedadam_local_lr"] < max(g["lrs"])
    assert min(g["server_lrs"]) < n["fedadam_server_lr"] < max(g["server_lrs"])
    assert "grid's edge" not in out.evidence
    assert n["test_acc_adadps"] == pytest.approx(federated.figure6("quick", 0).numbers["test_acc_adadps"], abs=1e-12)


def test_fedadam_check_catches_the_declared_kernel_faults():
    """Inverting the frequency side information (AdaDPS loses its lead) turns the verdict to violated; dropping
    DP-FedAdam's noise (not the same privacy) moves it off holds (violated at some quick seeds, undecided at seed 0
    with the child_seed streams); the generic faults hit both methods alike and may survive."""
    v = {r.mutant: r.verdict for r in mutants.run([claim_record(CID)], "quick", 0)}
    assert v["fed-side-information-inverted"] == "violated"
    assert v["fedadam-without-noise"] in ("violated", "inconclusive")


def test_section6_2_violated_path_carries_a_finding(monkeypatch):
    """With a stated ε below one round's exact ε (5 < 7.24) the claim is violated: its finding fails at the paper's
    setting (which the check runs), sized as the exact one-round ε over the stated one, with no repair."""
    monkeypatch.setitem(federated.FED_PAPER, "stated_epsilon", 5.0)
    out = federated.section6_2("quick", 0)
    f = out.finding
    assert out.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (1, 1) and f.at_paper_setting.fails
    assert f.at_paper_setting.size == pytest.approx(out.numbers["epsilon_exact_one_round"] / 5.0)
    assert f.repair is None and "no number of rounds" in f.no_repair_reason


@pytest.mark.parametrize("name", ["section6_2", "figure6", "figure6_fedadam"])
def test_evidence_is_a_short_summary_and_points_that_keep_every_number(quick, name):
    """The evidence reads as one short sentence (the verdict and its reason) and points (per round, or per arm, the
    bootstrap difference, the privacy and the decision); no number of the evidence is lost."""
    out = quick[name]
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240 and ". " not in out.summary
    assert "[" not in out.summary and "{" not in out.summary  # no intervals or tuned dicts: those are points
    assert len([p for p in out.points if "test" in p]) == len(out.decisions)
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    assert lost_numbers(out.evidence, out.summary, out.points[-1:], out.decisions)  # the other rows carry numbers
