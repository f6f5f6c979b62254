"""Privacy audits of noisy_adagrad's DP-GD and noisy AdaGrad kernels (claims noisy_adagrad.audit.*): add/remove
(zero-out) and replace-one adjacency, one step and composed steps."""

import numpy as np
import pytest
from dp_accounting import dp_event as dpe

from verify.audit import _QUICK_CAVEAT, AUDIT_DELTA
from verify.papers import noisy_adagrad as vn
from verify.privacy import InvalidParameter, NeighboringRelation, epsilon_of, gaussian_epsilon
from verify.registry import load_all


def test_audit_claims_are_registered():
    reg = load_all()
    assert {f"noisy_adagrad.audit.{name}" for name in vn.NA_AUDITS} <= set(reg)
    assert {"dp_gd", "noisy_adagrad", "dp_gd_replace_one", "noisy_adagrad_replace_one",
            "noisy_adagrad_composed"} <= set(vn.NA_AUDITS)
    # each claim declares its (configuration, score) bounds as tests of the ledger's family; the notes say how many
    assert vn.NA_AUDIT_TESTS == sum(reg[f"noisy_adagrad.audit.{name}"].tests for name in vn.NA_AUDITS) == 10
    for name in vn.NA_AUDITS:
        c = reg[f"noisy_adagrad.audit.{name}"]
        assert f"each of its {c.tests} bounds at the per-test level of the ledger's Bonferroni family" in c.notes


def test_canary_datasets_differ_in_one_record_by_the_full_sensitivity():
    d0, d1 = vn.na_audit_datasets(4)
    assert np.count_nonzero(np.any(d0.X != d1.X, axis=1)) == 1
    # the canary's average-gradient contribution is −e₁/n (norm L/n) wherever ⟨x, θ⟩ < 10⁶; D's gradient is 0
    for th in (np.zeros(2), np.array([5.0, -3.0])):
        assert np.array_equal(d0.gradient(th), np.zeros(2))
        assert np.allclose(d1.gradient(th), [-0.25, 0.0])


def test_replace_one_datasets_differ_in_one_record_by_twice_the_bound():
    """Replace-one: the same record set but record 0's target flips, so its gradient goes from +e₁/n to −e₁/n
    (2L/n apart, the replace-one sensitivity of the average gradient) and the gradients' outer products — hence
    G_t — are the same on both datasets."""
    d0, d1 = vn.na_audit_datasets(4, adjacency="replace_one")
    assert np.array_equal(d0.X, d1.X) and np.count_nonzero(d0.y != d1.y) == 1
    for th in (np.zeros(2), np.array([5.0, -3.0])):
        g0, g1 = d0.gradient(th), d1.gradient(th)
        assert np.allclose(g0, [0.25, 0.0]) and np.allclose(g1, [-0.25, 0.0])
        assert np.allclose(np.outer(g0, g0), np.outer(g1, g1))
    with pytest.raises(InvalidParameter, match="adjacency"):
        vn.na_audit_datasets(4, adjacency="add_one")


@pytest.mark.parametrize("task,n,T", [(vn.na_dpgd_audit_task, 1, 2), (vn.na_dpgd_audit_task, 4, 4),
                                      (vn.na_adagrad_audit_task, 1, 1), (vn.na_adagrad_audit_task, 1, 4)])
def test_replace_one_doubles_both_the_gap_and_the_noise(task, n, T):
    """Without noise the replace-one pair's released scores are twice as far apart as the zero-out pair's, and the
    calibrated multiplier (noise in units of one record's bound) is twice as large: the same signal-to-noise ratio,
    i.e. the noise is calibrated to the replace-one sensitivity 2L/n."""
    kw = dict(trials=2, seed=3, noise_scale=0.0)
    gap = {}
    for adj in ("zero_out", "replace_one"):
        off, on = task(n, T, False, adjacency=adj, **kw), task(n, T, True, adjacency=adj, **kw)
        gap[adj] = (on["shift"] - off["shift"], off["multiplier"])
    assert np.all(gap["zero_out"][0] > 0)
    np.testing.assert_allclose(gap["replace_one"][0], 2.0 * gap["zero_out"][0], rtol=1e-12)
    assert gap["replace_one"][1] == pytest.approx(2.0 * gap["zero_out"][1], rel=1e-12)


@pytest.mark.parametrize("z,releases", [(1.6965, 2), (2.3993, 4), (2.0672, 2), (4.1344, 8)])
def test_replace_one_accountant_is_the_gaussian_at_half_the_multiplier(z, releases):
    """The replace-one accountant (dp-accounting's PLD under REPLACE_ONE, per-record multiplier 2z) equals the
    mechanism derived by hand: releases Gaussians of multiplier z against the replace-one sensitivity (the same
    0.01 grid, so the same pessimistic estimate).  Its RDP accountant under REPLACE_ONE does not double the
    sensitivity of a GaussianDpEvent (dp-accounting issue #378): it would certify less than the mechanism's ε —
    the trap the audit's accountant avoids."""
    told = vn.na_audit_accountant_epsilon(2.0 * z, releases, "replace_one")
    derived = gaussian_epsilon(z, AUDIT_DELTA, releases, value_discretization_interval=0.01)
    assert abs(told - derived) <= releases * 0.01  # two pessimistic estimates on the same grid
    assert vn.na_audit_accountant_epsilon(z, releases, "zero_out") == derived
    rdp_replace = epsilon_of(dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(2.0 * z), releases), AUDIT_DELTA, "rdp",
                             NeighboringRelation.REPLACE_ONE)
    assert rdp_replace < 0.75 * derived  # RDP is looser than PLD, yet here it reports far less: no doubling


@pytest.mark.parametrize("name", list(vn.NA_AUDITS))
def test_quick_audit_finds_no_leak_and_says_how_much_it_sees(name):
    """DP-GD's audits see more than half of the accountant's ε: holds (with the quick caveat).  The noisy AdaGrad
    audits see less (only θ_T is released, the accountant charges 2T Gaussians): inconclusive, saying so."""
    from verify.audit import AUDIT_POWER

    out = vn.na_audit(name, "quick", 0)
    f = out.figures
    assert out.counterexample is None
    if f["max_audit_over_accountant"] >= AUDIT_POWER:
        assert out.verdict == "holds" and out.evidence.endswith(_QUICK_CAVEAT)
    else:
        assert out.verdict == "inconclusive" and "the audit sees at best" in out.evidence
    assert (f["max_audit_over_accountant"] >= AUDIT_POWER) == (vn.NA_AUDITS[name][0] == "dp_gd")
    assert f["trials_per_dataset"] == 20_000 and f["max_audit_over_accountant"] <= 1.0
    assert len(out.plots) == 1 and len(out.plots[0].panels[0].series) == 2
    mech, adjacency, configs, _ = vn.NA_AUDITS[name]
    rows = len(configs) * len(vn.NA_AUDIT_SCORES[mech])
    assert all(f[f"accountant_epsilon_{k}"] > 0 for k in range(rows)) and f"accountant_epsilon_{rows}" not in f
    if mech == "dp_gd":  # the test has power: the canary is seen at n = 4 (T = 3 or 4)
        assert f["audit_epsilon_lb_1"] > 0.2


# Negative controls: the kernel runs with its noise divided while the accountant is told the calibrated noise; the
# audit must certify more ε than the accountant gives.  Each (scale, runs) is one where that is assured, measured
# over seeds 0..7 (DP-GD) and 0..11 (noisy AdaGrad) of the claim: the smallest largest audited bound was DP-GD 4.78
# at 1/4 and 20 000 runs (zero-out), 4.05 at 1/3 and 60 000 runs (replace-one; accountant 3.55 for both); noisy
# AdaGrad 5.94 (one step), 3.98 (replace-one) and 4.37 (T = 4) at 1/10 and 20 000 runs (accountant 2.84).
# Scored on the released iterate only, the noisy AdaGrad audits are weak: at 1/3 even 200 000 runs certified only
# 1.5 (replace-one) and 1.3 (T = 4), and at 1/4 the one-step audit held at seed 1 — the 1/4 control this file used
# for it passed by the seed's luck.
@pytest.mark.parametrize("name,scale,trials", [
    ("dp_gd", 0.25, None),
    ("dp_gd_replace_one", 1 / 3, 60_000),
    ("noisy_adagrad", 0.1, None),
    ("noisy_adagrad_replace_one", 0.1, None),
    ("noisy_adagrad_composed", 0.1, None),
])
def test_audit_catches_an_under_noised_kernel(name, scale, trials):
    out = vn.na_audit(name, "quick", 0, noise_scale=scale, trials=trials)
    assert out.verdict == "violated" and out.evidence.startswith("LEAKS") and _QUICK_CAVEAT not in out.evidence
    c = out.counterexample
    assert c["audit_epsilon_lb"] > c["accountant_epsilon"] and c["adjacency"] == vn.NA_AUDITS[name][1]


def test_audit_tasks_are_reproducible():
    a = vn.na_dpgd_audit_task(4, 3, True, 300, 5)
    b = vn.na_dpgd_audit_task(4, 3, True, 300, 5)
    assert np.array_equal(a["shift"], b["shift"]) and np.unique(a["shift"]).size == 300
    c = vn.na_adagrad_audit_task(1, 1, True, 300, 5)
    d = vn.na_adagrad_audit_task(1, 1, True, 300, 5)
    assert np.array_equal(c["direction"], d["direction"]) and np.all(np.abs(c["direction"]) <= 1.0)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 4.0])
def test_half_budget_multiplier_certifies_half_the_budget(epsilon):
    """Defect found and fixed: the bisection's bracket ended at z = 200, so for ε ≲ 0.03 (δ = 1e-5) it returned
    200, whose accountant ε/2 is 0.0136 at ε = 0.01 — 2.7× the half budget, i.e. too little noise."""
    from verify.privacy import gaussian_epsilon

    z = vn.half_budget_multiplier(epsilon, 1e-5)
    assert gaussian_epsilon(z, 0.5e-5, 1) <= epsilon / 2 * (1 + 1e-9)
    assert gaussian_epsilon(z * 0.999, 0.5e-5, 1) > epsilon / 2  # and it is tight (not over-noised)
