"""The decision rules' promise, claim by claim: seeds 0, 1, 2 at quick never flip holds ↔ violated.

Slow (the whole quick ledger three times): `pytest -m slow tests/verify/test_consistency.py`.
``dpverify compare`` shows the same for whole output directories, and quick against full.
"""

from __future__ import annotations

import pytest

from verify import compare, registry

IDS = sorted(registry.load_all())


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_seed_never_flips_holds_and_violated(cid):
    check = registry.REGISTRY[cid].check
    verdicts = [str(check("quick", seed).verdict) for seed in (0, 1, 2)]
    assert not compare.contradicts(verdicts), f"{cid}: seeds 0, 1, 2 give {verdicts}"
