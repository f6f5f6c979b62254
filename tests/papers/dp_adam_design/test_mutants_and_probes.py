"""dp_adam_design checks under theory mutants and kernel faults: section 4.3.1 refutes a wrong E[v] exactly and names
a symbol outside the setting, section 4.4.1 evaluates closed forms at τ = 1 only where they have τ, section 3.1
evaluates App. A's sum under an exponent mutant, and section 5.1's step and noise probes pass the unfaulted kernels
and name a faulted method."""

import contextlib
import math

import numpy as np
import pytest

from kernels import faults
from theory import dp_adam_design as td
from theory import numeric
from verify import mutants
from verify.papers import dp_adam_design as vd


@contextlib.contextmanager
def _theory_mutant(module: str, path: str, name: str):
    """The generic theory mutant ``name`` of ``theory.<module>.<path>`` active in the block, with the memos cleared
    on entry and exit (as ``dpverify mutants`` does: lru-cached closed forms derived from it must not leak)."""
    fn = {n: f for n, _, f, _ in mutants.THEORY_MUTATIONS}[name]
    mutants.reset_caches()
    try:
        with mutants.theory_mutant(f"theory.{module}.{path}", name, name, fn).apply():
            yield
    finally:
        mutants.reset_caches()


@pytest.mark.parametrize("name", ["x10", "pow1.25", "pow0.75"])
def test_section431_a_wrong_expected_v_is_refuted_exactly(name):
    with _theory_mutant("dp_adam_design", "stp_expected_v", name):
        out = vd.section4_3_1("quick", 0)
    assert out.verdict == "violated" and out.evidence.startswith("exact (no Monte Carlo)")
    f = out.finding  # one exact part, failing; no repair (the statement's own α, κ are what is tested)
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing) == (1, 1) and f.repair is None
    assert "α and κ as numbers of β₂ and s" in f.region.text and f.no_repair_reason
    assert ("v_prev" in out.evidence) == name.startswith("pow")  # x10: a negative κ; pow: α depends on v_{t−1}


def test_section431_setting_evaluation_names_a_symbol_outside_the_setting():
    import sympy as sp

    v, b2, s = sp.symbols("v_prev beta2 s", positive=True)
    assert vd._stp_at_setting(b2 + s, beta2=0.9, s=0.5) == (pytest.approx(1.4), "")
    value, why = vd._stp_at_setting(b2 * v, beta2=0.9, s=0.5)
    assert math.isnan(value) and "v_prev" in why


def test_section441_unit_tau_passes_tau_only_where_the_expression_has_it():
    import sympy as sp

    tau, b2 = sp.symbols("tau beta2", positive=True)
    assert vd._at_unit_tau(numeric(b2 * tau**2))(beta2=0.5) == pytest.approx(0.5)
    f = numeric(b2 + 1)
    assert vd._at_unit_tau(f) is f


def test_section31_dpmf_sum_is_evaluated_under_an_exponent_mutant():
    r = np.linspace(1.0, 2.0, 200)
    exact = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 10)
    assert exact == pytest.approx(float(td.dpmf_bias_numeric(r, 0.95, 1.0)[9]), rel=1e-12)
    with _theory_mutant("dp_adam_design", "postprocessing_bias_dpmf", "pow1.25"):
        at10 = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 10)  # k = 1..17 (10^1.25 = 17.8): a number, not App. A's
        beyond = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 200)  # 200^1.25 > 200 rows: not evaluable
    assert np.isfinite(at10) and abs(at10 / exact - 1) > 0.1
    assert math.isnan(beyond)


def test_s51_step_probe_passes_unfaulted_and_names_a_scaled_step():
    methods = ("nonprivate", "ime_for_free", "ime", "post_processing")
    ok, numbers = vd._s51_step_probe(methods)
    assert ok == "" and max(numbers.values()) <= vd.S51_PROBE_RTOL
    with faults.inject(stepsize_scale=10.0, only_methods=("ime_for_free",)):
        why, _ = vd._s51_step_probe(methods)
    assert why.startswith("ime_for_free: the first step is 10 ×") and "nonprivate" not in why


def test_s51_noise_probe_reads_each_private_methods_noise():
    stds = (0.275 * math.sqrt(2), 0.275 * math.sqrt(2))
    ok, numbers = vd._s51_noise_probe(vd.S51_METHODS, stds)
    assert ok == "" and set(numbers) == {f"probe_noise_std_ratio[{m}]" for m in ("post_processing", "ime",
                                                                                "ime_for_free")}
    with faults.inject(noise_scale=3.0, only_methods=("ime",)):
        why, numbers = vd._s51_noise_probe(vd.S51_METHODS, stds)
    assert why.startswith("ime: the gradient noise in the update is") and numbers["probe_noise_std_ratio[ime]"] > 2.5
