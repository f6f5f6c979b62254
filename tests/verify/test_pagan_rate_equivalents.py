"""The equivalences the pagan rate claims declare are true, not convenient.

noise*3 multiplies every privacy-noise draw by 3; the claims' bounds depend on the noise scale only through 1/ε in
their privacy terms, so the SymPy check is: with ε → ε/3 each bound stays within a constant factor of itself (the
limit of the ratio as n → ∞ is finite and nonzero, and the ratio lies in [1, 3] everywhere).  eq7.rate's verdict does
not read theory.pagan.box_rate_ratio, which it only displays and so does not declare.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants, registry
from verify.papers import pagan

BOUNDS = {"pagan.theorem1": tp.theorem1_bound, "pagan.theorem2": tp.theorem2_bound, "pagan.eq9": tp.eq9_full_rate}


@pytest.mark.parametrize("cid", sorted(BOUNDS))
def test_noise_times_3_keeps_the_bound_within_a_constant_factor(cid):
    bound = BOUNDS[cid]()
    ratio = bound.subs(tp.epsilon, tp.epsilon / 3) / bound
    for pv in (2, 3, 7):  # p = ⌈log d⌉ (SymPy cannot sign (1/n)^((p−1)/p) for a symbolic p)
        r = ratio.subs(tp.p, pv)
        lim = sp.limit(r, tp.n, sp.oo)  # R term held fixed: the privacy term vanishes, ratio → 1
        assert lim.is_finite and lim.is_positive, lim
        # the privacy term alone (R = 0; in the runs R ∝ 1/n, which vanishes faster): the factor itself
        lim_priv = sp.limit(r.subs({tp.R_std: 0, tp.R_ada: 0}), tp.n, sp.oo)
        expected = 3 if cid == "pagan.eq9" else sp.Integer(3) ** sp.Rational(pv - 1, pv)
        assert lim_priv.is_finite and lim_priv.is_positive and sp.simplify(lim_priv - expected) == 0, lim_priv
    f = sp.lambdify(sorted(ratio.free_symbols, key=str), ratio)
    names = [str(s) for s in sorted(ratio.free_symbols, key=str)]
    rng = np.random.default_rng(0)
    for _ in range(300):
        vals = {k: float(rng.uniform(1.0, 50.0)) for k in names}
        vals.update({k: float(rng.uniform(1e-8, 0.5)) for k in names if k == "delta"})
        vals.update({k: float(rng.uniform(0.0, 5.0)) for k in names if k.startswith("R_")})
        r = f(*[vals[k] for k in names])
        assert 1.0 - 1e-12 <= r <= 3.0 + 1e-12, (cid, vals, r)
    registry.load_all()
    assert (cid, "noise*3") in mutants.EQUIVALENT


def test_a_rate_that_depends_on_the_noise_scale_polynomially_would_not_pass():
    """Negative control: a bound ∝ 1/ε² (say) would change by 9 — still constant; one ∝ n^(1/ε) would not."""
    b = tp.n ** (1 / tp.epsilon)
    lim = sp.limit(b.subs(tp.epsilon, tp.epsilon / 3) / b, tp.n, sp.oo)
    assert not lim.is_finite


def test_eq7_rate_verdict_does_not_read_box_rate_ratio(monkeypatch):
    """The mutant box_rate_ratio x -> x^(5/4) changes the displayed bound ratios but neither the decisions nor the
    verdict of eq7.rate (the second run reuses the first's sweeps from the in-process memo)."""
    base = pagan.eq7_rate("quick", 0)
    original = tp.box_rate_ratio
    monkeypatch.setattr(tp, "box_rate_ratio",
                        lambda: mutants.mutate_value(original(), mutants._powers(sp.Rational(5, 4))))
    out = pagan.eq7_rate("quick", 0)
    shown = [k for k in base.numbers if k.startswith("bound_ratio_d")]
    assert shown and all(out.numbers[k] != base.numbers[k] for k in shown)  # the mutation took effect
    assert out.verdict == base.verdict
    assert [(str(d.verdict), d.estimate) for d in out.decisions] == [(str(d.verdict), d.estimate)
                                                                      for d in base.decisions]
    declared = {cid: c.theory for cid, c in registry.load_all().items()}
    assert "theory.pagan.box_rate_ratio" not in declared["pagan.eq7.rate"]  # displayed only: not its theory
    assert "theory.pagan.box_rate_ratio" in declared["pagan.section3.2.box"]
