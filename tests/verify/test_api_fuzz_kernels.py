"""Hypothesis fuzzing of the public kernel entry points: every call either returns finite output
or raises kernels.InvalidParameter whose name is one (or a list) of the function's parameters — never
another exception, never NaN, never an unbounded loop or allocation.

Each example draws every parameter from its "good" strategy (tiny sizes, so a run takes milliseconds)
and then replaces zero, one or two of them by junk: NaN, ±inf, negatives, zero, 1e300, huge counts
(past the 10⁹ work limit), strings, None, booleans, wrong-shaped arrays, corrupted problem objects.
``@example`` pins the inputs that exposed a defect.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kernels
from kernels import InvalidParameter
from kernels import adadps as ka
from kernels import adp as kadp
from kernels import dp_adam as kd
from kernels import moments as km
from kernels import noisy_adagrad as kn
from kernels import projections as kj
from tests.verify.fuzz_support import (
    INF,
    JUNK_ANY,
    JUNK_ARRAY,
    JUNK_COUNT,
    JUNK_NAME,
    JUNK_REAL,
    NAN,
    check,
    examples,
    fuzzed,
    parameter_names,
    reals,
    small,
)

seeds = st.integers(0, 3)

# ---------------------------------------------------------------------------- problems
PAGAN_PROBLEMS = {
    "abs_regression": dict(n=small(1, 12), d=small(1, 4), tau=reals(0, 1), decay=reals(0, 3), n_public=small(1, 8)),
    "linear_subgaussian": dict(n=small(1, 12), d=small(1, 4), decay=reals(0, 3),
                               variant=st.sampled_from(["gaussian", "rademacher"]),
                               domain=st.sampled_from(["box", "ball"]), n_public=small(1, 8)),
    "sign_mean": dict(n=small(1, 12), d=small(1, 4), decay=reals(0, 3), bias=reals(0, 1),
                      domain=st.sampled_from(["box", "ball"]), n_public=small(1, 8)),
}
GENERATOR_PARAMS = dict(PAGAN_PROBLEMS, **{
    "low_rank_glm": dict(n=small(1, 12), p=small(2, 5), k=small(1, 2), loss=st.sampled_from(list(kn.LOSSES)),
                         m_public=small(0, 6), public_shift=reals(0, 1), label_noise=reals(0, 0.49),
                         w_norm=reals(0.1, 3), seed=seeds),
    "quadratic": dict(d=small(1, 4)),
    "sparse_logistic_1d": dict(n=small(1, 20), theta_star=reals(-3, 3), zero_fraction=reals(0, 0.99),
                               n_test=small(1, 20), seed=seeds),
    "synthetic_gradients": dict(d=small(1, 6), batch=small(1, 4), scale=st.sampled_from(["uniform", "powerlaw"]),
                                alpha=reals(0, 3), alignment=reals(0, 1), norm=reals(0.1, 3),
                                fresh=st.booleans(), seed=seeds),
    "sparse_linear_regression": dict(n=small(1, 12), d=small(1, 6), n_frequent=small(0, 1), p_frequent=reals(0.01, 1),
                                     p_rare=reals(0.01, 1), w_frequent=reals(-1, 1), w_rare=reals(-1, 1),
                                     noise_std=reals(0, 1), a_frequent=reals(0.01, 2), a_rare=reals(0.01, 2),
                                     seed=seeds),
    "zipf_bow_logistic": dict(n=small(1, 12), d=small(1, 8), zipf_s=reals(0.5, 2), doc_len=reals(1, 6),
                              predictive_power=reals(0, 2), signal=reals(0.1, 4), public_fraction=reals(0.05, 0.9),
                              n_test=small(1, 6), n_users=small(1, 4), user_skew=reals(0, 1), seed=seeds),
    "smooth_nonconvex": dict(n=small(1, 12), d=small(1, 4), lam=reals(0, 1), flip=reals(0.01, 1), seed=seeds),
})
COUNT_PARAMS = {"n", "d", "p", "k", "n_public", "m_public", "n_test", "n_users", "n_frequent", "batch", "seed"}


def generator_junk(params):
    return {k: (JUNK_COUNT if k in COUNT_PARAMS else JUNK_ANY) for k in params}


GENERATOR_CASES = st.sampled_from(sorted(kernels.PROBLEM_GENERATORS)).flatmap(
    lambda name: fuzzed(GENERATOR_PARAMS[name], generator_junk(GENERATOR_PARAMS[name])).map(lambda kw: (name, kw)))


@settings(max_examples=examples(120))
@given(case=GENERATOR_CASES)
@example(case=("zipf_bow_logistic", dict(n=4, d=3, doc_len=1e300)))  # reached numpy's poisson: unnamed ValueError
@example(case=("abs_regression", dict(n=1e10, d=2)))  # allocated a 10¹⁰ × 2 array
@example(case=("low_rank_glm", dict(n=2, p=3, k=1, label_noise="abc")))  # float("abc"): unnamed ValueError
@example(case=("sparse_linear_regression", dict(n=2, d=10**10)))  # allocated a 2 × 10¹⁰ array
@example(case=("zipf_bow_logistic", dict(n=1, d=1, doc_len=1.0, n_test=1, n_users=1)))  # IDF 0: inf side info
@example(case=("sparse_linear_regression", dict(n=1, d=60, w_frequent=[])))  # float(empty array): TypeError
def test_every_problem_generator(case):
    name, kw = case
    gen = kernels.problem_generator(name)
    check(gen, kw, parameter_names(gen))


@settings(max_examples=examples(40))
@given(name=st.one_of(st.sampled_from(kernels.PROBLEMS), JUNK_NAME), seed=st.one_of(seeds, seeds, JUNK_COUNT),
       extra=st.sampled_from([{}, {"n": 3, "d": 2}, {"nope": 1}, {"n": 1e12, "d": 2}, {"variant": "rademacher"}]))
@example(name="abs_regression", seed=0, extra={"nope": 1})  # an unknown keyword was a TypeError
def test_make_problem(name, seed, extra):
    def make_problem(name, seed, **params):
        return kernels.make_problem(name, seed=seed, **params)

    # an unknown keyword is named itself ("nope must be a parameter of abs_regression (one of ...)")
    params = {"name", "problem", "seed"} | set(extra) | set(GENERATOR_PARAMS["linear_subgaussian"])
    check(make_problem, dict(name=name, seed=seed, **extra), params)


def test_problem_generator_names_the_problem():
    for bad in ("nope", None, 3, ["abs_regression"]):
        with pytest.raises(InvalidParameter, match="^problem must be one of"):
            kernels.problem_generator(bad)


# ---------------------------------------------------------------------------- run_algorithm
_DATASETS = {name: kernels.make_problem(name, n=8, d=3, n_public=6, seed=0) for name in kernels.PROBLEMS}


def _bad_datasets():
    ds = _DATASETS["abs_regression"]
    f = ds.features.copy()
    f[0, 0] = NAN
    return [dataclasses.replace(ds, features=f), dataclasses.replace(ds, targets=np.zeros(3)),
            dataclasses.replace(ds, features=np.zeros((8, 3), dtype=np.float32)),
            dataclasses.replace(ds, public=np.zeros((0, 3))), dataclasses.replace(ds, domain="cube"),
            dataclasses.replace(ds, radius=-1.0), dataclasses.replace(ds, sigma=np.zeros(3)), "abs_regression", None]


RUN_GOOD = dict(
    name=st.sampled_from(kernels.ALGORITHMS), dataset=st.sampled_from(sorted(_DATASETS)).map(_DATASETS.get),
    trials=small(1, 2), seed=seeds, steps=small(1, 6), batch_size=small(1, 10), alpha=reals(1e-3, 2),
    clip_norm=reals(0.1, 5), n_log=small(2, 5), eps_stab=reals(1e-10, 1e-3),
)
RUN_JUNK = dict(dataset=st.sampled_from(_bad_datasets()), trials=JUNK_COUNT, steps=JUNK_COUNT, batch_size=JUNK_COUNT,
                n_log=JUNK_COUNT, seed=JUNK_COUNT, name=JUNK_NAME, epsilon=JUNK_REAL, delta=JUNK_REAL,
                noise_multiplier=JUNK_REAL, x0=JUNK_ARRAY, ellipsoid=JUNK_ARRAY, subspace_rank=JUNK_COUNT,
                alpha=JUNK_REAL, clip_norm=JUNK_REAL, eps_stab=JUNK_REAL)
RUN_PARAMS = {"name", "algorithm", "dataset", "trials", "seed"} | set(kernels.pagan._CONFIG_KEYS)


@settings(max_examples=examples(150))
@given(kw=fuzzed(RUN_GOOD, RUN_JUNK), private=st.booleans(), eps=reals(1e-3, 1e3), delta=reals(1e-12, 0.5))
# UFuncTypeError
@example(kw=dict(name="pagan", dataset=_DATASETS["abs_regression"], trials=1, seed=0, steps=1e300, batch_size=2,
                 alpha=0.1, clip_norm=1.0, n_log=2, eps_stab=1e-10), private=True, eps=1.0, delta=1e-5)
@example(kw=dict(name="pagan", dataset=_DATASETS["abs_regression"], trials=1, seed=0, steps=1e12, batch_size=2,
                 alpha=0.1, clip_norm=1.0, n_log=2, eps_stab=1e-10), private=True, eps=1.0, delta=1e-5)  # 10¹² steps
@example(kw=dict(name="adagrad", dataset=_DATASETS["sign_mean"], trials=1, seed=0, steps=2, batch_size=2,
                 alpha=0.1, clip_norm=1.0, n_log=2, eps_stab=0.0), private=False, eps=1.0, delta=1e-5)  # 0/0 in jit
@example(kw=dict(name="adagrad", dataset=_DATASETS["sign_mean"], trials=1, seed=0, steps=3, batch_size=2,
                 alpha=1e300, clip_norm=1.0, n_log=2, eps_stab=1e-300), private=False, eps=1.0, delta=1e-5)  # NaN
@example(kw=dict(name="sgd", dataset=_DATASETS["sign_mean"], trials=1e9, seed=0, steps=2, batch_size=2, alpha=0.1,
                 clip_norm=1.0, n_log=2, eps_stab=1e-10), private=False, eps=1.0, delta=1e-5)  # 10⁹ generators
def test_run_algorithm(kw, private, eps, delta):
    kw = dict(kw)
    if private and isinstance(kw["name"], str) and kernels.SPECS.get(kw["name"]) and kernels.SPECS[kw["name"]].private:
        kw.setdefault("epsilon", eps)
        kw.setdefault("delta", delta)
    check(kernels.run_algorithm, kw, RUN_PARAMS)


# ---------------------------------------------------------------------------- ADP-SGD
_NC = kadp.smooth_nonconvex(n=10, d=2, seed=0)
ADP_GOOD = dict(problem=st.just(_NC), steps=small(1, 6), eta=reals(1e-3, 2),
                b_rule=st.sampled_from(["poly", "adaptive"]), alpha_rule=st.sampled_from(["dp", "adp"]),
                sigma=reals(0, 10), schedule=st.builds(kadp.AdpSchedule, a=reals(0.1, 3), c=reals(0.1, 3),
                                                       b0=reals(0.1, 3), nu=reals(1e-4, 1), C=reals(0.1, 3)),
                trials=small(1, 2), seed=seeds, n_log=small(2, 4), one_stream=st.booleans())
ADP_JUNK = dict(problem=st.sampled_from([None, _DATASETS["abs_regression"],
                                         dataclasses.replace(_NC, features=np.full((10, 2), NAN)),
                                         dataclasses.replace(_NC, labels=np.ones(3)),
                                         dataclasses.replace(_NC, lam=NAN)]),
                steps=JUNK_COUNT, trials=JUNK_COUNT, n_log=JUNK_COUNT, seed=JUNK_COUNT, clip=JUNK_REAL,
                schedule=st.sampled_from([None, (1.0, 1.0, 1.0, 1e-3, 1.0), kadp.AdpSchedule(a=NAN),
                                          kadp.AdpSchedule(nu=0.0), kadp.AdpSchedule(C=-1.0)]))


@settings(max_examples=examples(80))
@given(kw=fuzzed(ADP_GOOD, ADP_JUNK))
@example(kw=dict(problem=_NC, steps=3, eta=1e300, b_rule="poly", alpha_rule="adp", sigma=1e300,
                 schedule=kadp.AdpSchedule(), trials=1, seed=0, n_log=2))  # θ overflowed to inf -> NaN gradient norms
def test_run_adp(kw):
    check(kadp.run_adp, kw, parameter_names(kadp.run_adp))


# ---------------------------------------------------------------------------- noisy AdaGrad family
_GLM = kn.low_rank_glm(n=10, p=4, k=2, seed=0, m_public=4)
_GLM_BAD = [None, dataclasses.replace(_GLM, X=np.full((10, 4), NAN)), dataclasses.replace(_GLM, y=np.ones(2)),
            dataclasses.replace(_GLM, loss="l1")]
NA_GOOD = dict(prob=st.just(_GLM), steps=small(1, 4), eta=reals(1e-3, 2), radius=st.one_of(reals(0.1, 5), st.just(INF)),
               sigma_b=reals(0, 2), sigma_b_mode=st.sampled_from(["constant", "grad_norm"]), sigma_B=reals(0, 2),
               indefinite=st.sampled_from(["abs", "clip"]), decay_alpha=reals(0, 1), rtol=reals(1e-12, 1e-6),
               trials=small(1, 2), seed=seeds, one_stream=st.booleans())
NA_OPTION_FIELDS = {f.name for f in dataclasses.fields(kn.NoisyAdagradOptions)}
NA_JUNK = dict(prob=st.sampled_from(_GLM_BAD), steps=JUNK_COUNT, trials=JUNK_COUNT, seed=JUNK_COUNT, Vt=JUNK_ARRAY,
               theta0=JUNK_ARRAY, sigma_b=st.one_of(JUNK_REAL, JUNK_ARRAY), sigma_B=st.one_of(JUNK_REAL, JUNK_ARRAY),
               one_stream=JUNK_NAME)


@settings(max_examples=examples(60))
@given(kw=fuzzed(NA_GOOD, NA_JUNK))
@example(kw=dict(prob=_GLM, steps=2, eta=0.5, radius=1.0, sigma_b="abc", sigma_b_mode="constant", sigma_B=0.0,
                 indefinite="abs", decay_alpha=0.0, rtol=1e-10, trials=1, seed=0))  # numpy's unnamed ValueError
@example(kw=dict(prob=_GLM, steps=1e300, eta=0.5, radius=1.0, sigma_b=0.0, sigma_b_mode="constant", sigma_B=0.0,
                 indefinite="abs", decay_alpha=0.0, rtol=1e-10, trials=1, seed=0))  # (steps, p) noise allocation
@example(kw=dict(prob=_GLM, steps=1, eta=1.0, radius=INF, sigma_b=0.0, sigma_b_mode="constant", sigma_B=1e308,
                 indefinite="abs", decay_alpha=0.0, rtol=1e-10, trials=1, seed=1))  # σ_B·M_t overflowed: eigh raised
@example(kw=dict(prob=_GLM, steps=1, eta=1.0, radius=INF, sigma_b=0.0, sigma_b_mode="constant", sigma_B=1e308,
                 indefinite="abs", decay_alpha=0.0, rtol=1e-10, trials=2, seed=0, one_stream=True))  # ditto, one stream
def test_run_noisy_adagrad(kw):
    kw = dict(kw)  # the fields of NoisyAdagradOptions travel in its record, and an invalid one is named as itself
    kw["options"] = kn.NoisyAdagradOptions(**{k: kw.pop(k) for k in NA_OPTION_FIELDS if k in kw})
    check(kn.run_noisy_adagrad, kw, parameter_names(kn.run_noisy_adagrad, NA_OPTION_FIELDS),
          skip=("lam_min",))  # λ_min⁺ = inf at G = 0


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(prob=st.just(_GLM), steps=small(1, 4), eta=reals(1e-3, 2), radius=reals(0.1, 5),
                      delta=reals(0, 1), decay_alpha=reals(0, 1), rtol=reals(1e-12, 1e-6)),
                 dict(prob=st.sampled_from(_GLM_BAD), steps=JUNK_COUNT, theta0=JUNK_ARRAY)))
def test_run_adagrad(kw):
    check(kn.run_adagrad, kw, parameter_names(kn.run_adagrad))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(prob=st.just(_GLM), steps=small(1, 4), eta=reals(1e-3, 2), sigma=reals(0, 3), trials=small(1, 2),
                      seed=seeds, one_stream=st.booleans()),
                 dict(prob=st.sampled_from(_GLM_BAD), steps=JUNK_COUNT, trials=JUNK_COUNT, seed=JUNK_COUNT,
                      one_stream=JUNK_NAME)))
@example(kw=dict(prob=_GLM, steps=2, eta=1e300, sigma=1e300, trials=1, seed=0))  # overflow -> NaN losses
def test_run_dpgd(kw):
    check(kn.run_dpgd, kw, parameter_names(kn.run_dpgd))


@settings(max_examples=examples(30))
@given(kw=fuzzed(dict(prob=st.just(_GLM), kind=st.sampled_from(kn.ORACLES), gamma=reals(0, 1), k=small(1, 2),
                      seed=seeds), dict(k=JUNK_COUNT, seed=JUNK_COUNT, prob=st.sampled_from([None, 3]))))
@example(kw=dict(prob=_GLM, kind="rotated", gamma="abc", k=2, seed=0))  # float("abc") unnamed
def test_subspace_oracle(kw):
    check(kn.subspace_oracle, kw, parameter_names(kn.subspace_oracle))


# ---------------------------------------------------------------------------- private Adam family
def _cfg(draw_kw):
    return kd.RoundConfig(**draw_kw)


CFG_GOOD = dict(variant=st.sampled_from(list(kd.VARIANTS)), optimizer=st.sampled_from(list(kd.OPTIMIZERS)),
                lr=reals(1e-4, 1), beta1=reals(0, 0.99), beta2=reals(0, 0.999), xi=reals(1e-8, 1e-2),
                clip_norm=reals(0.1, 5), sigma=reals(0, 3), batch_size=small(1, 4), floor=reals(0, 1e-3))
CFG_FIELDS = {f.name for f in dataclasses.fields(kd.RoundConfig)}
_QUAD = kernels.problem_generator("quadratic")(d=3)


def _grad_fns():
    good = _QUAD.grad_fn(2)
    return {"good": good, "nan": lambda t, th, rng: np.full((2, 3), NAN), "shape": lambda t, th, rng: np.ones((2, 5)),
            "list": lambda t, th, rng: [[1.0, 2.0, 3.0]], "inf": lambda t, th, rng: np.full((1, 3), INF)}


@settings(max_examples=examples(80))
@given(cfg_kw=fuzzed(CFG_GOOD, {k: (JUNK_COUNT if k == "batch_size" else JUNK_ANY) for k in CFG_GOOD}, max_bad=1),
       kw=fuzzed(dict(grad_fn=st.just("good"), d=st.just(3), rounds=small(1, 5), trials=small(1, 2), seed=seeds,
                      strat_kind=st.sampled_from(kd.STRATEGIES), bands=small(1, 4), t0=small(0, 3),
                      record_v=st.booleans()),
                 dict(grad_fn=st.sampled_from(["nan", "shape", "list", "inf", None]), d=JUNK_COUNT, rounds=JUNK_COUNT,
                      trials=JUNK_COUNT, seed=JUNK_COUNT, strat_kind=JUNK_NAME, bands=JUNK_COUNT, t0=JUNK_COUNT,
                      theta0=JUNK_ARRAY, v0=JUNK_ARRAY, cfg=st.sampled_from([None, {}, "adam"])), max_bad=1))
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr=1e-3, beta1=0.9, beta2=0.999, xi=1e-8,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=2, trials=1, seed=0, strat_kind="identity", bands=4, t0=0, record_v=False,
                 theta0=np.ones(2)))  # a short theta0: numpy's unnamed broadcast ValueError
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr="0.1", beta1=0.9, beta2=0.999, xi=1e-8,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=2, trials=1, seed=0, strat_kind="identity", bands=4, t0=0,
                 record_v=False))  # a numeric string passed validation: Numba TypingError
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr=1e-3, beta1=0.9, beta2=0.999, xi=1e-8,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="nan", d=3, rounds=2, trials=1, seed=0, strat_kind="identity", bands=4, t0=0,
                 record_v=False))  # NaN gradients came back as NaN θ
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr=1e-3, beta1=0.9, beta2=0.999, xi=1e-8,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=10**6, trials=1, seed=0, strat_kind="sqrt", bands=4, t0=0,
                 record_v=False))  # O(T²) strategy build for T = 10⁶: a hang
@example(cfg_kw=dict(variant="scale_then_privatize", optimizer="adam", lr=1.0, beta1=0.0, beta2=0.0, xi=0.0078125,
                     clip_norm=1e300, sigma=1.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=2, trials=1, seed=0, strat_kind="identity", bands=1, t0=0,
                 record_v=False))  # v̂ overflowed, the scale 1/(√v̂ + ξ) became 0: ZeroDivisionError in the round
@example(cfg_kw=dict(variant="ime", optimizer="adam", lr=1.0, beta1=0.0, beta2=0.0, xi=0.0078125, clip_norm=1e-300,
                     sigma=1.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=1, trials=1, seed=0, strat_kind="identity", bands=1, t0=0,
                 record_v=False))  # Δ₂ = C² underflowed to 0: ZeroDivisionError in the IME noise split
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr=1.0, beta1=0.0, beta2=0.0, xi=0.0078125,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(grad_fn="good", d=3, rounds=1, trials=1, seed=1e300, strat_kind="identity", bands=1, t0=0,
                 record_v=False))  # the validated seed was discarded: SeedSequence(1e300) TypeError
def test_run_stream(cfg_kw, kw):
    kw = dict(kw)
    cfg = kw.pop("cfg", None) if "cfg" in kw else kd.RoundConfig(**cfg_kw)
    kw["grad_fn"] = _grad_fns().get(kw["grad_fn"], kw["grad_fn"])
    start = {k: kw.pop(k) for k in kd.StreamStart._fields if k in kw}  # θ₀, v₀, t0 travel in one record
    if start:
        kw["start"] = kd.StreamStart(**start)
    check(kd.run_stream, dict(cfg=cfg, **kw), parameter_names(kd.run_stream, CFG_FIELDS | set(kd.StreamStart._fields)))


@settings(max_examples=examples(50))
@given(cfg_kw=fuzzed(CFG_GOOD, {k: JUNK_ANY for k in CFG_GOOD}, max_bad=1),
       kw=fuzzed(dict(x=st.integers(1, 12).map(lambda T: np.linspace(-1, 1, T)),
                      strat_kind=st.sampled_from(kd.STRATEGIES), trials=small(1, 3), seed=seeds,
                      theta0=reals(-2, 2)),
                 dict(x=JUNK_ARRAY, y=JUNK_ARRAY, trials=JUNK_COUNT, seed=JUNK_COUNT, theta0=JUNK_REAL,
                      strat_kind=JUNK_NAME), max_bad=1))
@example(cfg_kw=dict(variant="post_processing", optimizer="adam", lr=1e-3, beta1=0.9, beta2=0.999, xi=1e-8,
                     clip_norm=1.0, sigma=0.0, batch_size=1, floor=0.0),
         kw=dict(x=np.ones(3), strat_kind="identity", trials=1, seed=0, theta0="abc"))  # float("abc") unnamed
def test_run_logistic_1d(cfg_kw, kw):
    kw = dict(kw)
    if "y" not in kw:
        x = kw["x"]
        kw["y"] = np.where(np.arange(len(x)) % 2 == 0, 1.0, -1.0) if isinstance(x, np.ndarray) and x.ndim == 1 else x
    check(kd.run_logistic_1d, dict(cfg=kd.RoundConfig(**cfg_kw), **kw), parameter_names(kd.run_logistic_1d, CFG_FIELDS))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(signal=st.integers(1, 4).map(lambda d: np.linspace(0.1, 1, d)), noise_std=reals(0, 3),
                      beta2=reals(0, 0.999), steps=small(1, 20), mode=st.sampled_from(["bias_correction", "ime"]),
                      trials=small(1, 3), seed=seeds),
                 dict(signal=JUNK_ARRAY, steps=JUNK_COUNT, trials=JUNK_COUNT, seed=JUNK_COUNT)))
@example(kw=dict(signal=np.ones(2), noise_std=1e300, beta2=0.9, steps=3, mode="bias_correction", trials=1, seed=0))
@example(kw=dict(signal=[], noise_std=0.0, beta2=0.0, steps=1, mode="bias_correction", trials=1, seed=0))
def test_constant_signal_vhat(kw):  # pins: (g + z)² overflowed, v̂ = inf − inf came back NaN; an empty signal: 0/0
    check(kd.constant_signal_vhat, kw, parameter_names(kd.constant_signal_vhat))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(kind=st.sampled_from(kd.STRATEGIES), T=small(1, 50), bands=small(1, 6)),
                 dict(T=JUNK_COUNT, bands=JUNK_COUNT, kind=JUNK_NAME)))
@example(kw=dict(kind="banded", T=10**6, bands=4))  # O(T²) series build: a hang
def test_strategy(kw):
    check(kd.strategy, kw, parameter_names(kd.strategy))


# ---------------------------------------------------------------------------- AdaDPS
_SLR = ka.sparse_linear_regression(n=12, d=4, n_frequent=1, seed=0)
_ZIPF = ka.zipf_bow_logistic(n=12, d=5, n_test=4, n_users=3, public_fraction=0.3, seed=0)
_GLM_PROBLEMS = {"slr": _SLR, "zipf": _ZIPF}
_GLM_PROBLEMS_BAD = [None, dataclasses.replace(_SLR, features=np.full((12, 4), NAN)),
                     dataclasses.replace(_ZIPF, user_ptr=np.array([0, 50])), dataclasses.replace(_SLR, loss="hinge"),
                     dataclasses.replace(_ZIPF, public_features=np.ones((2, 9)))]
CENTRAL_GOOD = dict(problem=st.sampled_from(sorted(_GLM_PROBLEMS)).map(_GLM_PROBLEMS.get),
                    method=st.sampled_from(list(ka.METHODS)), lr=reals(1e-3, 1), clip=reals(0.1, 5),
                    sigma=reals(0, 3), batch_size=small(1, 12), steps=small(1, 5),
                    sampling=st.sampled_from(list(ka.SAMPLINGS)), beta1=reals(0, 0.99), beta2=reals(0.01, 0.999),
                    eps_a=reals(1e-8, 1e-2), harmonic_beta2=st.booleans(), lr_decay=st.booleans(), trials=small(1, 2),
                    seed=seeds, n_log=small(2, 4))
CENTRAL_JUNK = dict(problem=st.sampled_from(_GLM_PROBLEMS_BAD), batch_size=JUNK_COUNT, steps=JUNK_COUNT,
                    trials=JUNK_COUNT, seed=JUNK_COUNT, n_log=JUNK_COUNT, public_batch=JUNK_COUNT, side_info=JUNK_ARRAY,
                    noise_clip=JUNK_REAL, track_weights=JUNK_ARRAY, w0=JUNK_ARRAY)


@settings(max_examples=examples(80))
@given(kw=fuzzed(CENTRAL_GOOD, CENTRAL_JUNK))
@example(kw=dict(problem=_SLR, method="dp_sgd", lr=1e300, clip=INF, sigma=0.0, batch_size=4, steps=3,
                 sampling="fixed", beta1=0.9, beta2=0.99, eps_a=1e-8, harmonic_beta2=False, lr_decay=False, trials=1,
                 seed=0, n_log=2))  # squared loss with lr = 1e300: w overflowed to NaN
def test_run_central(kw):
    if isinstance(kw.get("method"), str) and kw["method"] == "adadps_fixed" and "side_info" not in kw \
            and kw.get("problem") is _ZIPF:
        kw["side_info"] = "frequency"
    kw, fields = _with_options(kw, ka.CentralOptions)
    check(ka.run_central, kw, parameter_names(ka.run_central, fields))


@settings(max_examples=examples(50))
@given(kw=fuzzed(dict(problem=st.just(_ZIPF), local_lr=reals(1e-3, 1), clip=reals(0.1, 5), sigma=reals(0, 3),
                      users_per_round=small(1, 3), rounds=small(1, 4), local_steps=small(1, 3), local_batch=small(1, 3),
                      side_info=st.sampled_from(["frequency", "inverse_idf", "ones"]), server_lr=reals(0.1, 2),
                      sampling=st.sampled_from(list(ka.SAMPLINGS)), device_noise=st.booleans(), trials=small(1, 2),
                      seed=seeds, n_log=small(2, 4)),
                 dict(problem=st.sampled_from(_GLM_PROBLEMS_BAD + [_SLR]), users_per_round=JUNK_COUNT,
                      rounds=JUNK_COUNT, local_steps=JUNK_COUNT, local_batch=JUNK_COUNT, trials=JUNK_COUNT,
                      seed=JUNK_COUNT, n_log=JUNK_COUNT, side_info=JUNK_ARRAY, w0=JUNK_ARRAY)))
def test_run_federated(kw):
    kw, fields = _with_options(kw, ka.FederatedOptions)
    check(ka.run_federated, kw, parameter_names(ka.run_federated, fields))


def _with_options(kw: dict, record: type) -> tuple[dict, set]:
    """``kw`` with the fields of ``record`` (kernels.adadps.CentralOptions or FederatedOptions) gathered into its
    ``options``, and the names of those fields (an error may name one of them)."""
    fields = {f.name for f in dataclasses.fields(record)}
    options = {k: v for k, v in kw.items() if k in fields}
    kw = {k: v for k, v in kw.items() if k not in fields}
    if options:
        kw["options"] = record(**options)
    return kw, fields


def test_run_central_and_run_federated_reject_options_of_another_kind():
    for fn, kw in ((ka.run_central, dict(problem=_SLR, method="dp_sgd", lr=0.1, options=ka.FederatedOptions())),
                   (ka.run_federated, dict(problem=_ZIPF, local_lr=0.1, options=ka.CentralOptions())),
                   (ka.run_central, dict(problem=_SLR, method="dp_sgd", lr=0.1, options={"n_log": 3}))):
        with pytest.raises(InvalidParameter, match="^options"):
            fn(**kw)


# ---------------------------------------------------------------------------- moments, projections
@settings(max_examples=examples(60))
@given(kw=fuzzed(dict(Z=st.tuples(small(1, 6), small(1, 4)).map(lambda s: np.random.default_rng(0).standard_normal(s)),
                      r=reals(0.8, 5), epsilon=reals(1e-2, 10), delta=reals(1e-9, 0.5), seed=seeds),
                 dict(Z=JUNK_ARRAY, rounds=JUNK_COUNT, seed=JUNK_COUNT, rng=st.sampled_from([3, "rng"]))))
@example(kw=dict(Z=np.ones((3, 2)), r=1e300, epsilon=1.0, delta=1e-5, seed=0))  # ρ_t² = inf: inf noise stds returned
@example(kw=dict(Z=np.ones((3, 2)), r=2.0, epsilon=1.0, delta=1e-5, seed=0, rounds=1e9))  # a 10⁹-long Python list
def test_second_moment_estimate(kw):
    check(km.second_moment_estimate, kw, parameter_names(km.second_moment_estimate))


MOMENT_HELPERS = {"rounds_for": dict(d=small(1, 100)), "truncation_level": dict(r=reals(0.8, 5), t=small(1, 10)),
                  "noise_std": dict(rho=reals(0, 3), rounds=small(1, 10), d=small(1, 10), n=small(1, 10),
                                    epsilon=reals(0.01, 5), delta=reals(1e-9, 0.5)),
                  "schedule": dict(n=small(1, 10), d=small(1, 10), r=reals(0.8, 5), epsilon=reals(0.01, 5),
                                   delta=reals(1e-9, 0.5))}


@settings(max_examples=examples(60))
@given(case=st.sampled_from(sorted(MOMENT_HELPERS)).flatmap(
    lambda fn: fuzzed(MOMENT_HELPERS[fn], {k: JUNK_ANY for k in MOMENT_HELPERS[fn]}).map(lambda kw: (fn, kw))))
@example(case=("rounds_for", dict(d="abc")))  # math.log2("abc"): TypeError
@example(case=("schedule", dict(n=3, d=2, r=2.0, epsilon=1.0, delta=1e-5, rounds=1e9)))  # a 10⁹-element list
def test_moment_helpers(case):
    fn, kw = case
    f = getattr(km, fn)
    check(f, kw, parameter_names(f))


ROWS = st.tuples(small(1, 4), small(1, 4)).map(lambda s: np.random.default_rng(1).standard_normal(s) * 3)


def _projection_case(fn, G):
    d = G.shape[1]
    good = {"project_ellipsoid": dict(G=st.just(G), a=st.just(np.linspace(0.5, 2, d))),
            "clip_rows": dict(G=st.just(G), clip_norm=reals(0.1, 5)),
            "project_ball": dict(x=st.just(G[0]), radius=reals(0.1, 5), h=st.one_of(st.none(), st.just(np.ones(d)))),
            "project_box": dict(x=st.just(G[0]), radius=reals(0.1, 5))}[fn]
    junk = {k: (JUNK_ARRAY if k in ("G", "a", "x", "h") else JUNK_REAL) for k in good}
    return fuzzed(good, junk).map(lambda kw: (fn, kw))


PROJECTION_CASES = st.tuples(st.sampled_from(["project_ellipsoid", "clip_rows", "project_ball", "project_box"]),
                             ROWS).flatmap(lambda fg: _projection_case(*fg))


@settings(max_examples=examples(60))
@given(case=PROJECTION_CASES)
@example(case=("project_ellipsoid", dict(G=[[1.0], [1.0, 2.0]], a=np.array([0.5]))))  # ragged G: numpy's ValueError
@example(case=("project_ellipsoid", dict(G=np.full(2, 1e300), a=np.full(2, 1e300))))  # Σ a g² = inf: NaN rows
@example(case=("clip_rows", dict(G=np.full((1, 2), 1e200), clip_norm=1.0)))  # ‖g‖ = inf: a 0 row, not norm C
def test_projections(case):
    fn, kw = case
    f = getattr(kj, fn)
    check(f, kw, parameter_names(f))
