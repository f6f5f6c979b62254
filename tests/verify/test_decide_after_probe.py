"""verify.decide.after_probe: a mechanism probe's failure withdraws a 'holds', and refuses an undecided or run-based
'violated' verdict (runs of a kernel that is not the stated mechanism are no evidence); an exact violation stands."""

import pytest

from verify import decide


def test_after_probe_withdraws_holds_refuses_undecided_and_run_based_violations():
    assert decide.after_probe("", "x", "inconclusive", "e") == ("inconclusive", "e")
    assert decide.after_probe("", "x", "holds", "e") == ("holds", "e")
    assert decide.after_probe("", "x", "violated", "e") == ("violated", "e")
    verdict, evidence = decide.after_probe("noise 3x", "x", "holds", "e")
    assert verdict == "inconclusive" and "does not run the stated mechanism (noise 3x)" in evidence
    # a violation shown by runs of a kernel that is not the stated mechanism is no evidence
    for v in ("inconclusive", "violated"):
        with pytest.raises(decide.MechanismMismatch, match="x: the kernel does not run the stated mechanism"):
            decide.after_probe("noise 3x", "x", v, "e")
    # a violation from an exact part (the caller set the run decisions aside) stands
    verdict, evidence = decide.after_probe("noise 3x", "x", "violated", "e", violation_from_runs=False)
    assert verdict == "violated" and evidence.endswith("; e")
