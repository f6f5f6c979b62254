"""The privacy adaptor over dp-accounting: agreement, monotonicity, composition, sampling with replacement."""

import dataclasses
import math

import numpy as np
import pytest
from dp_accounting import dp_event as dpe
from dp_accounting.gaussian_mechanism import get_epsilon_gaussian
from hypothesis import given, settings
from hypothesis import strategies as st

from dpvalidate import InvalidParameter
from verify.privacy import (
    Mechanism,
    NeighboringRelation,
    composed_epsilon,
    dp_sgd_epsilon,
    epsilon_of,
    gaussian_epsilon,
    gaussian_epsilon_exact,
    gaussian_epsilon_interval,
    with_replacement_epsilon,
    with_replacement_event,
)

FEW = settings(max_examples=6, derandomize=True, deadline=None)
PAGAN_SIGMA = math.sqrt(math.log(1e5))  # sqrt(log(1/delta))/epsilon at delta = 1e-5, epsilon = 1


# ---------------------------------------------------------------------------- RDP vs PLD
@pytest.mark.parametrize("q, sigma, steps", [(0.01, 1.0, 1000), (0.05, 2.0, 200), (1.0, 5.0, 10)])
def test_rdp_is_looser_than_pld_but_not_by_much(q, sigma, steps):
    rdp = dp_sgd_epsilon(q, sigma, steps, 1e-5, "rdp")
    pld = dp_sgd_epsilon(q, sigma, steps, 1e-5, "pld")
    assert pld <= rdp * 1.005  # PLD is the tighter accountant (up to its grid)
    assert rdp <= 1.6 * pld  # RDP's conversion to (eps, delta) costs a bounded factor here


def test_gaussian_pld_matches_the_analytic_gaussian_mechanism():
    for sigma in (0.8, 2.0, 10.0):
        exact = get_epsilon_gaussian(sigma, 1e-6)
        assert gaussian_epsilon(sigma, 1e-6) == pytest.approx(exact, rel=2e-3, abs=1e-4)
        assert gaussian_epsilon(sigma, 1e-6, accountant="rdp") >= exact * (1 - 1e-9)



def _gaussian_delta_mp(eps, z):
    """δ(ε) of N(0, z²) vs N(1, z²) in 50-digit arithmetic (Balle & Wang's closed form)."""
    import mpmath as mp
    with mp.workdps(50):
        eps, z = mp.mpf(eps), mp.mpf(z)
        return mp.ncdf(-eps * z + 1 / (2 * z)) - mp.e ** eps * mp.ncdf(-eps * z - 1 / (2 * z))


@pytest.mark.parametrize("z, delta, steps", [(0.05, 1e-12, 1), (0.12, 1e-5, 1), (1.0, 1e-5, 1), (40.0, 1e-5, 1600),
                                             (1000.0, 1e-5, 1), (3.0, 0.1, 4)])
def test_exact_gaussian_epsilon_brackets_the_50_digit_root(z, delta, steps):
    """δ(ε) is decreasing: the 50-digit δ at the bracket's ends lies on either side of the target."""
    lo, hi = gaussian_epsilon_exact(z, delta, steps)
    zz = z / math.sqrt(steps)
    assert 0 < lo < hi and (hi - lo) / hi < 1e-8
    assert _gaussian_delta_mp(lo, zz) > delta > _gaussian_delta_mp(hi, zz)


def test_exact_gaussian_epsilon_is_zero_when_zero_already_reaches_delta():
    assert _gaussian_delta_mp(0, 10.0) < 0.1 and gaussian_epsilon_exact(10.0, 0.1) == (0.0, 0.0)


@pytest.mark.parametrize("z", [0.8, 2.0, 5.0])
def test_exact_gaussian_epsilon_lies_in_the_pld_bracket(z):
    lo, hi = gaussian_epsilon_exact(z, 1e-5)
    plo, phi = gaussian_epsilon_interval(z, 1e-5)
    assert plo <= (lo + hi) / 2 <= phi


@pytest.mark.parametrize("kw, name", [(dict(noise_multiplier=0.0, delta=1e-5), "noise_multiplier"),
                                      (dict(noise_multiplier=1.0, delta=1.0), "delta"),
                                      (dict(noise_multiplier=1.0, delta=1e-5, steps=0), "steps")])
def test_exact_gaussian_epsilon_names_a_bad_parameter(kw, name):
    with pytest.raises(InvalidParameter, match=name):
        gaussian_epsilon_exact(**kw)

@FEW
@given(q=st.sampled_from([0.001, 0.01, 0.1]), sigma=st.floats(0.6, 4.0), steps=st.integers(1, 5000),
       factor=st.floats(1.1, 3.0))
def test_rdp_monotone(q, sigma, steps, factor):
    eps = dp_sgd_epsilon(q, sigma, steps, 1e-5)
    assert dp_sgd_epsilon(q, sigma * factor, steps, 1e-5) <= eps
    assert dp_sgd_epsilon(q, sigma, int(steps * factor) + 1, 1e-5) >= eps


@settings(max_examples=4, derandomize=True, deadline=None)
@given(q=st.sampled_from([0.01, 0.05]), sigma=st.floats(0.8, 3.0), steps=st.integers(1, 300))
def test_pld_monotone(q, sigma, steps):
    eps = dp_sgd_epsilon(q, sigma, steps, 1e-5, "pld")
    assert dp_sgd_epsilon(q, sigma * 1.3, steps, 1e-5, "pld") <= eps + 1e-9
    assert dp_sgd_epsilon(q, sigma, 2 * steps, 1e-5, "pld") >= eps - 1e-9


# ---------------------------------------------------------------------------- composition
@pytest.mark.parametrize("accountant, rel", [("rdp", 1e-12), ("pld", 2e-3)])
def test_equal_phases_compose_to_one_phase(accountant, rel):
    phases = [(0.02, 1.2, 150), (0.02, 1.2, 250)]
    single = dp_sgd_epsilon(0.02, 1.2, 400, 1e-5, accountant)
    assert composed_epsilon(phases, 1e-5, accountant) == pytest.approx(single, rel=rel)


def test_mixed_phases_lie_between_their_extremes():
    mixed = composed_epsilon([(0.02, 1.0, 100), (0.02, 2.0, 100)], 1e-5)
    assert dp_sgd_epsilon(0.02, 2.0, 200, 1e-5) < mixed < dp_sgd_epsilon(0.02, 1.0, 200, 1e-5)


# ---------------------------------------------------------------------------- with replacement
def test_with_replacement_batch_one_is_poisson_at_one_over_n():
    wr = with_replacement_epsilon(2000, 1, 1.5, 500, 1e-5)
    poisson = dp_sgd_epsilon(1 / 2000, 1.5, 500, 1e-5, "pld")
    assert wr == pytest.approx(poisson, rel=2e-3)


def test_with_replacement_close_to_poisson_at_small_rate():
    # the pagan experiment point (n=5000, b=70, eps=1, delta=1e-5) run for 1000 steps
    wr = with_replacement_epsilon(5000, 70, PAGAN_SIGMA, 1000, 1e-5)
    poisson = dp_sgd_epsilon(70 / 5000, PAGAN_SIGMA, 1000, 1e-5, "pld")
    assert wr == pytest.approx(0.475, abs=2e-3)
    assert wr == pytest.approx(poisson, rel=0.03)  # no ordering asserted: neither dominates in general


def test_with_replacement_event_is_the_binomial_mixture():
    ev = with_replacement_event(1000, 250, 1.3, tail=1e-14)
    assert isinstance(ev, dpe.MixtureOfGaussiansDpEvent)
    assert ev.standard_deviation == 1.3
    probs = np.asarray(ev.sampling_probs)
    assert list(ev.sensitivities) == list(range(len(probs)))
    assert probs.sum() == pytest.approx(1.0, abs=1e-15)
    from scipy import stats

    kmax = len(probs) - 1
    assert stats.binom.sf(kmax - 1, 250, 1e-3) >= 1e-14 > stats.binom.sf(kmax, 250, 1e-3)
    np.testing.assert_allclose(probs[:-1], stats.binom.pmf(np.arange(kmax), 250, 1e-3), rtol=1e-12)
    # a deeper cut keeps more of the support
    assert len(with_replacement_event(1000, 250, 1.3, tail=1e-30).sensitivities) > len(probs)


def test_with_replacement_truncation_is_paid_for():
    # cutting K shallower can only lower epsilon (less mass at large sensitivities) ...
    mech = Mechanism("with_replacement", 2.0, 20, n=1000, batch_size=40)
    grid = dict(value_discretization_interval=1e-3)
    shallow = epsilon_of(mech.event(1e-4), 1e-5, "pld", NeighboringRelation.REPLACE_SPECIAL, **grid)
    exact_cut = epsilon_of(mech.event(1e-14), 1e-5, "pld", NeighboringRelation.REPLACE_SPECIAL, **grid)
    assert shallow <= exact_cut + 1e-9
    # ... and the adaptor cuts deep enough and keeps delta back for the rest
    eps = mech.epsilon(1e-5, **grid)
    assert eps >= exact_cut - 1e-9
    assert mech.is_private(eps * 1.01, 1e-5, **grid)
    assert not mech.is_private(eps * 0.99, 1e-5, **grid)


def test_cached_one_step_pld_matches_the_pld_accountant():
    from verify.privacy import _with_replacement_step_pld

    ev = with_replacement_event(2000, 30, 2.5, tail=1e-16)
    direct = _with_replacement_step_pld(2000, 30, 2.5, 1e-16, 1e-3).self_compose(300).get_epsilon_for_delta(1e-6)
    via_accountant = epsilon_of(dpe.SelfComposedDpEvent(ev, 300), 1e-6, "pld", NeighboringRelation.REPLACE_SPECIAL,
                                value_discretization_interval=1e-3)
    assert direct == pytest.approx(via_accountant, rel=1e-9)


def test_vectorised_mixture_pld_is_dp_accountings_bit_for_bit():
    # the one-step PLD with replacement inverts the privacy loss by dp-accounting's bisection run level by level:
    # both PLDs (remove and add) must be dp-accounting's own, every probability and offset the same float
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    from verify.privacy import _VECTORISED_MIXTURE_PLD, _with_replacement_step_pld

    assert _VECTORISED_MIXTURE_PLD  # the installed dp-accounting has the pieces: the vectorised route is compared
    for n, b, sigma, tail, vdi in ((2000, 30, 2.5, 1e-16, 1e-2), (100, 10, 0.8, 1e-14, 5e-2)):
        ev = with_replacement_event(n, b, sigma, tail)
        ref = pld_lib.from_mixture_gaussian_mechanism(standard_deviation=ev.standard_deviation,
                                                      sensitivities=ev.sensitivities, sampling_probs=ev.sampling_probs,
                                                      value_discretization_interval=vdi)
        ours = _with_replacement_step_pld(n, b, sigma, tail, vdi)
        for mine, theirs in ((ours._pmf_remove, ref._pmf_remove), (ours._pmf_add, ref._pmf_add)):
            assert type(mine) is type(theirs) and mine.__dict__.keys() == theirs.__dict__.keys()
            for key, value in theirs.__dict__.items():  # dense (_probs array) or sparse (_loss_probs dict) PMFs
                if isinstance(value, np.ndarray):
                    assert mine.__dict__[key].tobytes() == value.tobytes(), key
                else:
                    assert mine.__dict__[key] == value, key


def _same_pmf(mine, theirs):
    """Every field of two dp-accounting PMFs the same float (arrays byte for byte)."""
    assert type(mine) is type(theirs) and mine.__dict__.keys() == theirs.__dict__.keys()
    for key, value in theirs.__dict__.items():
        if isinstance(value, np.ndarray):
            assert mine.__dict__[key].dtype == value.dtype and mine.__dict__[key].tobytes() == value.tobytes(), key
        else:
            assert mine.__dict__[key] == value, key


def test_sparse_size_test_without_the_power_is_dp_accountings():
    # dp-accounting densifies a sparse PMF composed num_times times when size ** num_times > its bound; the test
    # made without the power must give the same answer on both sides of the bound and at it
    from dp_accounting.pld import pld_pmf

    from verify.privacy import _sparse_result_too_large

    bound = pld_pmf._MAX_PMF_SPARSE_SIZE
    for size in (0, 1, 2, 3, 10, 31, 32, bound, bound + 1):
        for num_times in (1, 2, 3, 9, 10, 11, 100):
            assert _sparse_result_too_large(size, num_times) == (size ** num_times > bound), (size, num_times)
    assert _sparse_result_too_large(2, 10**7) and not _sparse_result_too_large(1, 10**7)


def test_self_composition_is_dp_accountings_bit_for_bit():
    # the self-composition that skips dp-accounting's size ** num_times gives its PLD, every field the same float:
    # sparse PMFs composed sparsely (few steps) and densified (many), dense PMFs, a symmetric PLD, and the one-step
    # PLDs with replacement of pagan's Lemma 3.1 check (the 10^6-step case is the one the shortcut is for)
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    from verify.privacy import _DIRECT_SELF_COMPOSE, _self_compose, _with_replacement_step_pld

    assert _DIRECT_SELF_COMPOSE  # the installed dp-accounting has the pieces: the direct route is compared
    symmetric = pld_lib.PrivacyLossDistribution.create_from_rounded_probability({0: 0.5, 3: 0.3, 7: 0.2}, 1e-9, 1e-2)
    dense = pld_lib.from_gaussian_mechanism(1.0, value_discretization_interval=1e-2)
    cases = [(symmetric, t) for t in (1, 2, 6, 7, 50)] + [(dense, t) for t in (1, 3, 40)]
    cases += [(_with_replacement_step_pld(1000, 5, 40.0, 1e-16, 1e-3), t) for t in (1, 2, 3, 4000)]
    cases += [(_with_replacement_step_pld(100000, 70, 429.19, 1e-20, 1.6e-7), 2 * 10**6)]
    for pld, num_times in cases:
        mine, theirs = _self_compose(pld, num_times), pld.self_compose(num_times)
        assert mine._symmetric == theirs._symmetric
        _same_pmf(mine._pmf_remove, theirs._pmf_remove)
        _same_pmf(mine._pmf_add, theirs._pmf_add)
        assert mine.get_delta_for_epsilon(0.5) == theirs.get_delta_for_epsilon(0.5)
    with pytest.raises(ValueError):  # dp-accounting's own refusal of no steps
        _self_compose(symmetric, 0)


def test_grid_guards_per_step_rdp_is_the_rdp_accountants_epsilon():
    # the PLD grid guard's RDP ε of T Poisson-subsampled Gaussian steps, from a per-step RDP kept per (q, σ), is the
    # float a fresh RdpAccountant composing the same event gives
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    from verify.privacy import _poisson_gaussian_rdp_epsilon, _self_composed_poisson_gaussian

    for q, sigma, steps, delta in ((0.01, 1.0, 1000, 1e-5), (1.0, 3.0, 7, 1e-9), (0.2, 0.7, 50, 0.3)):
        ev = dpe.SelfComposedDpEvent(dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(q, dpe.GaussianDpEvent(sigma)),
                                                             steps), 3)
        acc = rdpa.RdpAccountant()
        acc.compose(ev)
        assert _self_composed_poisson_gaussian(ev) == (3 * steps, q, sigma)
        assert _poisson_gaussian_rdp_epsilon(3 * steps, q, sigma, delta) == float(acc.get_epsilon(delta))
    assert _self_composed_poisson_gaussian(dpe.GaussianDpEvent(1.0)) is None


def test_dp_sgd_rdp_epsilon_is_a_fresh_rdp_accountants_float_and_reuses_the_step_rdp():
    # dp_sgd_epsilon / epsilon_of with "rdp" take the per-step route for Poisson-subsampled Gaussian steps under
    # add/remove-one: the same float as a fresh RdpAccountant, and one step RDP per (q, σ) whatever the step counts
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    from verify import privacy

    privacy._poisson_gaussian_step_rdp.cache_clear()
    q, sigma, delta = 0.037, 1.234567, 1e-6
    for steps in (1, 10, 333):
        acc = rdpa.RdpAccountant()
        acc.compose(dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(q, dpe.GaussianDpEvent(sigma)), steps))
        assert dp_sgd_epsilon(q, sigma, steps, delta, "rdp") == float(acc.get_epsilon(delta))
    info = privacy._poisson_gaussian_step_rdp.cache_info()
    assert (info.misses, info.hits) == (1, 2)
    # an event of another shape (no subsampling) keeps the accountant's own route
    ev = dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(sigma), 5)
    assert epsilon_of(ev, delta, "rdp") == float(_rdp_of(ev, delta))


def _rdp_of(event, delta):
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    acc = rdpa.RdpAccountant()
    acc.compose(event)
    return acc.get_epsilon(delta)


def test_with_replacement_rejects_rdp_and_names_pld():
    with pytest.raises(InvalidParameter, match="accountant") as info:
        with_replacement_epsilon(5000, 70, 1.0, 10, 1e-5, accountant="rdp")
    assert "sampling with replacement" in str(info.value) and "'pld'" in str(info.value)


# ---------------------------------------------------------------------------- the record
def test_mechanism_is_an_immutable_record_behind_every_front_end():
    m = Mechanism("poisson", 1.1, 300, sampling_rate=0.01)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.steps = 5  # type: ignore[misc]
    assert m.epsilon(1e-5, "rdp") == dp_sgd_epsilon(0.01, 1.1, 300, 1e-5)
    assert isinstance(m.event(), dpe.SelfComposedDpEvent) and m.event().count == 300
    assert Mechanism("none", 2.0, 3).epsilon(1e-5) == gaussian_epsilon(2.0, 1e-5, steps=3)
    wr = Mechanism("with_replacement", 2.0, 50, n=1000, batch_size=10)
    assert wr.neighboring_relation is NeighboringRelation.REPLACE_SPECIAL
    assert wr.epsilon(1e-5) == with_replacement_epsilon(1000, 10, 2.0, 50, 1e-5)
    assert wr.with_steps(60).steps == 60 and wr.steps == 50


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dp_sgd_epsilon(0.0, 1.0, 10, 1e-5), "sampling_rate"),
        (lambda: dp_sgd_epsilon(1.5, 1.0, 10, 1e-5), "sampling_rate"),
        (lambda: dp_sgd_epsilon(0.1, 0.0, 10, 1e-5), "noise_multiplier"),
        (lambda: dp_sgd_epsilon(0.1, float("nan"), 10, 1e-5), "noise_multiplier"),
        (lambda: dp_sgd_epsilon(0.1, 1.0, 0, 1e-5), "steps"),
        (lambda: dp_sgd_epsilon(0.1, 1.0, 2.5, 1e-5), "steps"),
        (lambda: dp_sgd_epsilon(0.1, 1.0, 10, 0.0), "delta"),
        (lambda: dp_sgd_epsilon(0.1, 1.0, 10, 1.0), "delta"),
        (lambda: dp_sgd_epsilon(0.1, 1.0, 10, 1e-5, "moments"), "accountant"),
        (lambda: composed_epsilon([], 1e-5), "phases"),
        (lambda: composed_epsilon([(0.1, 1.0)], 1e-5), "phases"),
        (lambda: composed_epsilon([(0.1, -1.0, 5)], 1e-5), "noise_multiplier"),
        (lambda: with_replacement_epsilon(0, 10, 1.0, 10, 1e-5), "n"),
        (lambda: with_replacement_epsilon(100, 0, 1.0, 10, 1e-5), "batch_size"),
        (lambda: with_replacement_event(100, 10, 1.0, tail=0.0), "tail"),
        (lambda: gaussian_epsilon(1.0, 1e-5, steps=0), "steps"),
        (lambda: Mechanism("shuffle", 1.0), "sampling"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name
    assert str(info.value).startswith(name)


def test_accountant_memo_keys_every_argument_exactly():
    from verify.privacy import _memo_key, _Unkeyable

    g = dpe.PoissonSampledDpEvent(0.1, dpe.GaussianDpEvent(1.0))
    assert _memo_key(g) == _memo_key(dpe.PoissonSampledDpEvent(0.1, dpe.GaussianDpEvent(1.0)))
    others = [dpe.PoissonSampledDpEvent(0.1, dpe.GaussianDpEvent(1.0 + 2**-52)),
              dpe.PoissonSampledDpEvent(0.1, dpe.LaplaceDpEvent(1.0)),
              dpe.SampledWithoutReplacementDpEvent(10, 1, dpe.GaussianDpEvent(1.0)),
              dpe.PoissonSampledDpEvent(0.1, dpe.GaussianDpEvent(1))]  # an int is another key
    assert len({_memo_key(e) for e in [g] + others}) == 1 + len(others)
    composed = dpe.ComposedDpEvent([g, dpe.GaussianDpEvent(2.0)])
    assert _memo_key(composed) != _memo_key(dpe.ComposedDpEvent([dpe.GaussianDpEvent(2.0), g]))
    with pytest.raises(_Unkeyable):
        _memo_key(object())


def test_accountant_memo_returns_the_accountants_own_answer(monkeypatch):
    from verify import privacy

    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    event = dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(0.05, dpe.GaussianDpEvent(1.1)), 300)
    first = epsilon_of(event, 1e-5, "rdp")
    assert len(privacy._ACCOUNTANT_MEMO) == 1
    # the second call is answered from the memo: the same float (a fresh accountant gives it too)
    assert epsilon_of(event, 1e-5, "rdp") == first
    assert len(privacy._ACCOUNTANT_MEMO) == 1
    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    assert epsilon_of(event, 1e-5, "rdp") == first
    # another delta, accountant or grid is another entry
    epsilon_of(event, 1e-6, "rdp")
    epsilon_of(event, 1e-5, "pld", value_discretization_interval=1e-2)
    assert len(privacy._ACCOUNTANT_MEMO) == 3
    # with replacement: the whole truncated-PLD answer is kept, keyed by the mechanism, delta and grid
    mech = Mechanism("with_replacement", 2.0, 20, n=1000, batch_size=40)
    eps = mech.epsilon(1e-5, value_discretization_interval=1e-3)
    assert mech.epsilon(1e-5, value_discretization_interval=1e-3) == eps
    assert mech.epsilon(1e-5, value_discretization_interval=2e-3) != eps
    # failures are not stored: they raise again
    bad = dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(1e-3), 10)
    n = len(privacy._ACCOUNTANT_MEMO)
    for _ in range(2):
        with pytest.raises(InvalidParameter):
            epsilon_of(bad, 1e-5, "pld", value_discretization_interval=1e-4)
    assert len(privacy._ACCOUNTANT_MEMO) == n


def test_shared_memo_answers_another_process_from_its_file(monkeypatch, tmp_path):
    from verify import privacy

    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    monkeypatch.setattr(privacy, "_SHARED_MEMO_DIR", None)
    event = dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(0.05, dpe.GaussianDpEvent(1.1)), 300)
    alone = epsilon_of(event, 1e-5, "rdp")
    privacy.share_memo(tmp_path / "memo")
    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    assert epsilon_of(event, 1e-5, "rdp") == alone  # computed, and written
    mech = Mechanism("with_replacement", 2.0, 20, n=1000, batch_size=40)
    eps_wr = mech.epsilon(1e-5, value_discretization_interval=1e-3)
    assert len(list((tmp_path / "memo").glob("*.pkl"))) == 2
    # another process (an empty in-process memo) that cannot compute gets the same floats from the files
    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    monkeypatch.setattr(privacy.rdpa.RdpAccountant, "get_epsilon", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(privacy, "_poisson_gaussian_rdp_epsilon", lambda *a, **k: 1 / 0)  # DP-SGD's RDP route too
    monkeypatch.setattr(Mechanism, "_with_replacement_epsilon", lambda *a, **k: 1 / 0)
    assert epsilon_of(event, 1e-5, "rdp") == alone
    assert mech.epsilon(1e-5, value_discretization_interval=1e-3) == eps_wr
    # a file whose stored key is another question's (a hash collision) is not taken as the answer
    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    for f in (tmp_path / "memo").glob("*.pkl"):
        f.write_bytes(privacy.pickle.dumps(("another key", 0.5)))
    with pytest.raises(InvalidParameter):  # recomputed: the broken accountant's failure
        epsilon_of(event, 1e-5, "rdp")
    # a directory that cannot be made: answered here, not shared
    monkeypatch.undo()  # the accountants work again
    monkeypatch.setattr(privacy, "_ACCOUNTANT_MEMO", {})
    monkeypatch.setattr(privacy, "_SHARED_MEMO_DIR", None)
    (tmp_path / "a file").write_text("")
    privacy.share_memo(tmp_path / "a file" / "memo")
    assert epsilon_of(event, 1e-5, "rdp") == alone
    privacy.share_memo(None)
    assert privacy._SHARED_MEMO_DIR is None


def test_exact_text_of_a_memo_key_keeps_types_and_every_bit():
    from verify.privacy import _exact_text, _Unkeyable

    keys = [(1,), (1.0,), (True,), (None,), ("1",), (b"\x01",), (0.1,), (0.1 + 2**-56,), (-0.0,), (0.0,),
            ((1, 2),), (1, 2)]
    assert len({_exact_text(k) for k in keys}) == len(keys)
    with pytest.raises(_Unkeyable):
        _exact_text((np.int64(3),))


def test_gaussian_epsilon_interval_asked_twice_is_computed_once(monkeypatch):
    from verify import privacy
    from verify.privacy import gaussian_epsilon_interval

    privacy._ACCOUNTANT_MEMO.clear()
    first = gaussian_epsilon_interval(2.0, 1e-5, 3, 1e-2)
    built = []
    real = privacy._pld_lib.from_gaussian_mechanism
    monkeypatch.setattr(privacy._pld_lib, "from_gaussian_mechanism", lambda *a, **k: built.append(a) or real(*a, **k))
    assert gaussian_epsilon_interval(2.0, 1e-5, 3, 1e-2) == first and not built  # the same floats, no PLD built
    assert gaussian_epsilon_interval(2.0, 1e-5, 4, 1e-2) != first and len(built) == 2  # another question: computed


def test_without_dp_accountings_private_pieces_its_public_routes_give_the_same_numbers(monkeypatch):
    from verify import privacy

    fast = privacy._with_replacement_step_pld(100, 10, 0.8, 1e-14, 5e-2)
    rdp_fast = privacy._poisson_gaussian_rdp_epsilon(1000, 0.01, 1.0, 1e-5)
    privacy._with_replacement_step_pld.cache_clear()
    monkeypatch.setattr(privacy, "_VECTORISED_MIXTURE_PLD", False)
    monkeypatch.setattr(privacy, "_PER_STEP_RDP", False)
    try:
        slow = privacy._with_replacement_step_pld(100, 10, 0.8, 1e-14, 5e-2)
        assert slow is not fast
        assert slow.get_epsilon_for_delta(1e-5) == fast.get_epsilon_for_delta(1e-5)
        assert privacy._poisson_gaussian_rdp_epsilon(1000, 0.01, 1.0, 1e-5) == rdp_fast
    finally:
        privacy._with_replacement_step_pld.cache_clear()
