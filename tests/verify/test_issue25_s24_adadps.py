"""Issue 25, session 24: adadps and dp_adam_design checks that used to crash under a theory mutant now decide it,
adadps.section6.2 has a falsifiable part (one round's exact ε), and DP-Adam-Pub (Table 8) honours the kernels'
fault hooks.  Each test is cheap (no Monte Carlo of a whole claim)."""

import contextlib
import logging
import math

import numpy as np
import pytest
from scipy import integrate, stats

from kernels import faults
from theory import dp_adam_design as td
from verify import decide, mutants
from verify.papers import adadps as va
from verify.papers import dp_adam_design as vd
from verify.privacy import dp_sgd_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


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


# ---- dp_adam_design.section4.3.1: α and κ must be numbers of the setting (β₂, s) --------------------------------
@pytest.mark.parametrize("name", ["x10", "pow1.25", "pow0.75"])
def test_section431_a_wrong_expected_v_is_refuted_exactly(name):
    with _theory_mutant("dp_adam_design", "stp_expected_v", name):
        out = vd.section4_3_1("quick", 0)
    assert out.verdict == "violated" and out.evidence.startswith("exact (no Monte Carlo)")
    assert ("v_prev" in out.evidence) == name.startswith("pow")  # x10: a negative κ; pow: α depends on v_{t−1}


def test_section431_setting_evaluation_names_a_symbol_outside_the_setting():
    import sympy as sp

    v, b2, s = sp.symbols("v_prev beta2 s", positive=True)
    assert vd._stp_at_setting(b2 + s, beta2=0.9, s=0.5) == (pytest.approx(1.4), "")
    value, why = vd._stp_at_setting(b2 * v, beta2=0.9, s=0.5)
    assert math.isnan(value) and "v_prev" in why


# ---- dp_adam_design.section4.4.1: closed forms evaluated at τ = 1 where they have τ -----------------------------
def test_section441_unit_tau_passes_tau_only_where_the_expression_has_it():
    import sympy as sp

    from theory import numeric

    tau, b2 = sp.symbols("tau beta2", positive=True)
    assert vd._at_unit_tau(numeric(b2 * tau**2))(beta2=0.5) == pytest.approx(0.5)
    f = numeric(b2 + 1)
    assert vd._at_unit_tau(f) is f


# ---- dp_adam_design.section3.1: App. A's sum with a range that is not 1..t ---------------------------------------
def test_section31_dpmf_sum_is_evaluated_under_an_exponent_mutant():
    r = np.linspace(1.0, 2.0, 200)
    exact = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 10)
    assert exact == pytest.approx(float(td.dpmf_bias_numeric(r, 0.95, 1.0)[9]), rel=1e-12)
    with _theory_mutant("dp_adam_design", "postprocessing_bias_dpmf", "pow1.25"):
        at10 = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 10)  # k = 1..17 (10^1.25 = 17.8): a number, not App. A's
        beyond = vd.dpmf_bias_closed_form(r, 0.95, 1.0, 200)  # 200^1.25 > 200 rows: not evaluable
    assert np.isfinite(at10) and abs(at10 / exact - 1) > 0.1
    assert math.isnan(beyond)


# ---- adadps.section6.2: one round's exact ε bounds every run ------------------------------------------------------
def test_one_round_epsilon_solves_the_hockey_stick_divergence_by_quadrature():
    q, sigma, delta = 0.05, 0.3, 0.0025
    eps = va.one_round_epsilon(q, sigma, delta)

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
    from dpvalidate import InvalidParameter

    for kw in (dict(q=0.0, sigma=1.0, delta=0.1), dict(q=0.1, sigma=0.0, delta=0.1), dict(q=0.1, sigma=1.0, delta=1)):
        with pytest.raises(InvalidParameter):
            va.one_round_epsilon(**kw)


def test_section62_refutes_a_statement_one_round_already_breaks(monkeypatch):
    from verify import registry

    # the reported accountant ε per round count (seconds of RDP) is stubbed: the verdict rests on one round's exact ε
    monkeypatch.setattr(va, "dp_sgd_epsilon", lambda *a, **k: 50.0)

    registry.load_all()
    (c,) = registry.select(["adadps.section6.2"])
    ms = {m.name: m for m in c.mutants}
    assert set(ms) == {"sigma/3", "stated-epsilon/10"}
    with ms["sigma/3"].apply():
        out = va.section6_2("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["epsilon_one_round"] > out.counterexample["stated_epsilon"] == 34.0
    # the other declared fault states ε = 3.4, which one round at σ = 0.3 already exceeds
    assert va.one_round_epsilon(0.05, 0.3, 0.0025) > 3.4 * (1 + va.S62_RTOL)


# ---- adadps.table8: DP-Adam-Pub honours the kernels' fault hooks --------------------------------------------------
def _pub_run(**kw):
    prob = va.make_problem("zipf_bow_logistic", va.T8_GRIDS["quick"]["problem"])
    return va.dp_adam_pub(prob, np.random.default_rng(3), lr=0.1, clip=0.5, sigma=1.0, batch_size=8, steps=3, **kw)


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


# ---- mechanism probes: the kernel runs must be the stated mechanism -----------------------------------------------
FAULTS = (dict(noise_scale=3.0), dict(stepsize_scale=10.0))


def test_central_probe_passes_unfaulted_and_names_each_fault():
    ok, numbers = va._central_mechanism_probe(("adadps_fixed", "dp_sgd"), 0.7, 8, 0, "test")
    assert ok == "" and all(abs(numbers[f"probe_noise_std_ratio[{m}]"] - 1) < 0.05 for m in ("adadps_fixed", "dp_sgd"))
    for fault, words in ((dict(noise_scale=3.0), "noise in the update"), (dict(stepsize_scale=10.0), "clipped step"),
                         (dict(skip_clipping=True), "clipped step")):
        with faults.inject(**fault):
            why, _ = va._central_mechanism_probe(("adadps_fixed", "dp_sgd"), 0.7, 8, 0, "test")
        assert words in why and "dp_sgd" in why, fault


def test_federated_probe_passes_unfaulted_and_names_each_fault():
    arms = (("frequency", "sgd"), ("ones", "adam"))
    ok, numbers = va._fed_mechanism_probe(arms, 10, 0)
    steps = [v for k, v in numbers.items() if "step" in k]
    assert ok == "" and steps and all(v <= va.FED_PROBE_RTOL for v in steps)
    for fault, words in ((dict(noise_scale=3.0), "noise std"), (dict(stepsize_scale=10.0), "local step")):
        with faults.inject(**fault):
            why, _ = va._fed_mechanism_probe(arms, 10, 0)
        assert words in why and "ones_adam" in why and "frequency_sgd" in why, fault


def test_section41_is_not_run_on_a_kernel_that_skips_clipping(monkeypatch):
    # the accountant's ε (seconds of PLD) is stubbed: consistent with the stated 4.13, so only the probe decides
    monkeypatch.setattr(va, "toy_privacy", lambda: {"epsilon_rdp": 4.1, "epsilon_pld": 4.0})
    with faults.inject(skip_clipping=True):
        out = va.section4_1("quick", 0)
    assert out.verdict == "inconclusive" and "does not run the stated mechanism" in out.evidence
    assert out.numbers["probe_step_rel_error[dp_sgd]"] > 1


def test_s51_step_probe_passes_unfaulted_and_names_a_scaled_step():
    methods = ("nonprivate", "ime_for_free", "ime", "post_processing")
    ok, numbers = vd._s51_step_probe(methods)
    assert ok == "" and max(numbers.values()) <= vd.S51_PROBE_RTOL
    with faults.inject(stepsize_scale=10.0, only_methods=("ime_for_free",)):
        why, _ = vd._s51_step_probe(methods)
    assert why.startswith("ime_for_free: the first step is 10 ×") and "nonprivate" not in why


def test_table_probes_pass_unfaulted_and_fail_under_the_faults():
    # unfaulted, every table's method list passes (dp_r_pub, whose noise is preconditioned after the draw, and the
    # Adam-type methods are not read; the others are)
    for methods in (va.TABLE_METHODS, tuple(va.T4T_KERNEL.values())):
        ok, numbers = va._central_mechanism_probe(methods, 1.0, 32, 0, "test")
        assert ok == "" and "probe_noise_std_ratio[adadps_rmsprop]" in numbers
    with faults.inject(noise_scale=3.0, only_methods=("adadps_rmsprop",)):  # a one-arm fault on the public method
        why, _ = va._central_mechanism_probe(va.TABLE_METHODS, 1.0, 32, 0, "test")
    assert why.startswith("adadps_rmsprop: the noise in the update is")


def test_after_probe_withdraws_holds_refuses_undecided_and_run_based_violations():
    assert decide.after_probe("", "x", "inconclusive", "e") == ("inconclusive", "e")
    assert decide.after_probe("", "x", "holds", "e") == ("holds", "e")
    assert decide.after_probe("", "x", "violated", "e") == ("violated", "e")
    verdict, evidence = decide.after_probe("noise 3x", "x", "holds", "e")
    assert verdict == "inconclusive" and "does not run the stated mechanism (noise 3x)" in evidence
    # session 27: a violation shown by runs of a kernel that is not the stated mechanism is no evidence
    for v in ("inconclusive", "violated"):
        with pytest.raises(decide.MechanismMismatch, match="x: the kernel does not run the stated mechanism"):
            decide.after_probe("noise 3x", "x", v, "e")
    # a violation from an exact part (the caller set the run decisions aside) stands
    verdict, evidence = decide.after_probe("noise 3x", "x", "violated", "e", violation_from_runs=False)
    assert verdict == "violated" and evidence.endswith("; e")


def test_unclipped_step_probe_for_runs_that_clip_nothing():
    ok, numbers = va._central_mechanism_probe(("dp_sgd", "adadps_fixed", "dp_adam"), 0.0, 8, 0, "test", clip=math.inf)
    assert ok == "" and set(numbers) == {"probe_step_rel_error[dp_sgd]", "probe_step_rel_error[adadps_fixed]"}
    with faults.inject(skip_clipping=True):  # nothing to skip at C = ∞: the probe still passes
        assert va._central_mechanism_probe(("dp_sgd",), 0.0, 8, 0, "test", clip=math.inf)[0] == ""


def test_s51_noise_probe_reads_each_private_methods_noise():
    stds = (0.275 * math.sqrt(2), 0.275 * math.sqrt(2))
    ok, numbers = vd._s51_noise_probe(vd.S51_METHODS, stds)
    assert ok == "" and set(numbers) == {f"probe_noise_std_ratio[{m}]" for m in ("post_processing", "ime",
                                                                                "ime_for_free")}
    with faults.inject(noise_scale=3.0, only_methods=("ime",)):
        why, numbers = vd._s51_noise_probe(vd.S51_METHODS, stds)
    assert why.startswith("ime: the gradient noise in the update is") and numbers["probe_noise_std_ratio[ime]"] > 2.5


# ---- adadps.theorem3: a declared R·ΣA whose limit keeps symbols is refuted, not a crash ----------------------------
def test_theorem3_decides_a_limit_that_keeps_symbols(monkeypatch):
    from theory import adadps as ta
    from verify import decide

    def fake_mc(d, p, v, records, seed, sigma=1.0, C=1.0, b=va.GLM_B, eps_a=va.GLM_EPS_A):
        # the closed forms themselves, with a small spread (the Monte Carlo is tested elsewhere)
        A = np.full(d, p * v + eps_a)
        r = p * v**2 / (p * v + eps_a) ** 2
        n = sigma**2 * C**2 * A.sum() / b**2
        wiggle = np.linspace(-1e-3, 1e-3, 200)
        return {"R": r * (1 + wiggle), "noise": n * (1 + wiggle), "A": A}

    rate = decide.equivalent(decide.Estimate(0.0, 1e-3, math.inf), what="stub rate", margin=0.1)
    monkeypatch.setattr(va, "glm_kernel_monte_carlo", fake_mc)
    monkeypatch.setattr(va, "_rate_check", lambda *a, **k: (rate, 0.0, 1.0, [10, 100], [0.1, 0.03], [0.01, 0.003],
                                                            None, 1.0))
    assert va.theorem3("quick", 0).verdict == "holds"
    with _theory_mutant("adadps", "glm_R_sum_A", "pow1.25"):
        out = va.theorem3("quick", 0)
    assert out.verdict == "violated" and math.isnan(out.numbers["R_sum_A_over_dv_limit"])
    assert ta.glm_R_sum_A_over_dv_limit() == ta.c_max**2  # the memos are back to the true closed form
