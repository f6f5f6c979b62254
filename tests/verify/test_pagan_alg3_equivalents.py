"""The equivalences pagan.algorithm3.privacy declares for its rounds mutants are true, not convenient.

The statement's mechanism: T rounds, round t adding Gaussian noise of variance ρ_t⁴T²d·log(T/δ)/(n²ε²) to a vector one
record moves by ρ_t²√d/n, i.e. per-round multiplier T·√(log(T/δ))/ε.  A mutant that makes T larger at every d gives a
mechanism that is the original's plus independent noise, so it is private wherever the original is.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants
from verify.papers import pagan as vp

ROUND_MUTANTS = ("x10", "pow1.25")


def _mutated_rounds(name: str) -> sp.Expr:
    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.mutate_value(tp.algorithm3_rounds(), fn)


@pytest.mark.parametrize("name", ROUND_MUTANTS)
def test_the_rounds_mutants_are_declared(name):
    assert ("pagan.algorithm3.privacy", f"algorithm3_rounds:{name}") in mutants.EQUIVALENT
    assert ("pagan.algorithm3.privacy", "algorithm3_rounds:pow0.75") not in mutants.EQUIVALENT  # fewer rounds


def test_the_mutated_round_counts_are_at_least_t_at_every_d():
    T = tp.algorithm3_rounds()
    arg = T.args[0]  # T = ⌈arg⌉ with arg = (3/2)·log₂ d ≥ 0 for d ≥ 1
    assert isinstance(T, sp.ceiling) and arg.subs(tp.d, 1) == 0 and sp.diff(arg, tp.d).is_positive
    # ×10: 10·⌈arg⌉ ≥ ⌈arg⌉ since ⌈arg⌉ ≥ 0; x^(5/4): the ceiling's argument is (5/4)·arg ≥ arg (ceiling monotone)
    assert sp.simplify(_mutated_rounds("x10") - 10 * T) == 0
    up = _mutated_rounds("pow1.25")
    assert isinstance(up, sp.ceiling) and sp.simplify(sp.expand_log(up.args[0]) - sp.Rational(5, 4) * arg) == 0
    # and exactly (SymPy integers), at every d up to 64 and at the claim's grid d
    for d in sorted(set(range(2, 65)) | set(vp.ALG3_GRIDS["full"]["d"])):
        t = int(T.subs(tp.d, d))
        assert t >= 1 and all(int(_mutated_rounds(m).subs(tp.d, d)) >= t for m in ROUND_MUTANTS)


def test_the_composed_multiplier_grows_with_the_rounds():
    # the per-round multiplier is free of ρ, n and d, so T rounds compose into one Gaussian with Z² = z²/T
    z = tp.algorithm3_noise_multiplier()
    assert not (z.free_symbols & {tp.rho, tp.n, tp.d})
    Z2 = sp.simplify(z**2 / tp.T)
    dZ2 = sp.diff(Z2, tp.T)
    u, w = sp.Symbol("u", nonnegative=True), sp.Symbol("w", positive=True)  # T = 1 + u ≥ 1, δ = 1/(1 + w) ∈ (0, 1)
    at = sp.expand_log(sp.simplify(dZ2.subs({tp.T: 1 + u, tp.delta: 1 / (1 + w)}) * tp.epsilon**2), force=True)
    assert at.is_positive, at


def test_a_formula_whose_multiplier_shrinks_with_t_would_fail_the_same_check():
    # control: per-round multiplier √(log(T/δ))/ε (the T of the per-round ε/T dropped) composes to
    # Z² = log(T/δ)/(T ε²), decreasing in T for T > e/δ: not positive for every T ≥ 1
    Z2 = sp.log(tp.T / tp.delta) / (tp.T * tp.epsilon**2)
    u, w = sp.Symbol("u", nonnegative=True), sp.Symbol("w", positive=True)
    at = sp.expand_log(sp.simplify(sp.diff(Z2, tp.T).subs({tp.T: 1 + u, tp.delta: 1 / (1 + w)}) * tp.epsilon**2),
                       force=True)
    assert at.is_positive is not True


@pytest.mark.parametrize("name", ROUND_MUTANTS)
def test_the_declared_mechanism_is_no_less_private_under_the_mutant(name, monkeypatch):
    """The claim's own exact accounting (alg3_declared_epsilon) at a few grid points: ε under the mutant ≤ ε without."""
    pts = [(10, 0.1, 1e-5), (100, 1.0, 1e-5), (1000, 4.0, 1e-8)]
    base = [vp.alg3_declared_epsilon(d, e, dl)["eps_hi"] for d, e, dl in pts]
    mutated = _mutated_rounds(name)
    monkeypatch.setattr(tp, "algorithm3_rounds", lambda: mutated)
    for (d, e, dl), b in zip(pts, base):
        x = vp.alg3_declared_epsilon(d, e, dl)
        assert x["decided"] and x["eps_lo"] <= b and math.isfinite(x["eps_lo"]), (d, e, dl, x, b)
