"""One-arm kernel faults (kernels.faults.Faults.only_methods) on a comparison's claimed winner.

The generic noise*3 / stepsize*10 hit every arm of a comparison alike, so "AdaDPS beats DP-SGD" cannot see them;
the declared one-arm mutants hit the winner alone.  Here: each comparative claim declares them with the winner's
method names, and the ones the check catches (quick budget, seed 0, as ``dpverify mutants`` runs them) do change
the verdict."""

import pytest

from kernels import adadps as ka
from kernels import dp_adam as kd
from verify import registry
from verify.testing import run_claim

WINNERS = {
    "adadps.section4.1": ("adadps_fixed",),
    "adadps.table.adadps_best": ("adadps_rmsprop", "adadps_fixed"),
    "adadps.figure6": ("fed_adadps",),
    "adadps.figure6.fedadam": ("fed_adadps",),
    "adadps.table10": ("adadps_rmsprop",),
    "adadps.table8": ("adadps_rmsprop",),
    "adadps.table4": ("adadps_fixed",),
    "dp_adam_design.section5.1": ("ime",),
    "dp_adam_design.section5.1.ime_for_free": ("ime_for_free",),
}
KNOWN = set(ka.METHODS) | {ka.federated_method_name(s, v) for s in ("ones", "frequency") for v in ("sgd", "adam")} \
    | set(kd.VARIANTS) | {"ime_for_free"}


def _one_arm(claim_id):
    (c,) = registry.select([claim_id])
    return c, {m.name.split("[")[0]: m for m in c.mutants if "[" in m.name}


@pytest.mark.parametrize("claim_id", sorted(WINNERS))
def test_claim_declares_one_arm_faults_on_its_winner(claim_id):
    from kernels import faults

    c, arms = _one_arm(claim_id)
    assert set(arms) == {"noise*3"}  # a one-arm stepsize fault is undone by each method's learning-rate tuning
    assert set(WINNERS[claim_id]) <= KNOWN
    for name, field, factor in (("noise*3", "noise_scale", 3.0),):
        with arms[name].apply() as f:
            assert f.only_methods == WINNERS[claim_id] and getattr(f, field) == factor
        assert faults.active() == faults.NONE


# (claim, one-arm mutant) pairs that `dpverify mutants CLAIM --budget quick` caught, with the unmutated verdict
CAUGHT = [
    ("adadps.section4.1", "noise*3", "holds"),
    ("adadps.table.adadps_best", "noise*3", "inconclusive"),
    ("adadps.figure6", "noise*3", "holds"),
    ("adadps.figure6.fedadam", "noise*3", "holds"),
    ("adadps.table10", "noise*3", "inconclusive"),
    ("adadps.table4", "noise*3", "inconclusive"),
    ("dp_adam_design.section5.1", "noise*3", "inconclusive"),
    ("dp_adam_design.section5.1.ime_for_free", "noise*3", "holds"),
]


@pytest.mark.parametrize("claim_id, mutant, original", CAUGHT)
def test_one_arm_fault_is_caught(claim_id, mutant, original):
    from verify.decide import MechanismMismatch

    _, arms = _one_arm(claim_id)
    with arms[mutant].apply():
        try:
            verdict = run_claim(claim_id, "quick", 0).verdict
        except MechanismMismatch:  # the probe refuses the faulty kernel (a crash catch in verify.mutants)
            verdict = "error"
    assert verdict != original
