r"""Closed forms of ``adadps``: Li, Zaheer, Reddi, Smith — Private Adaptive Optimization with Side Information (ICML 2022).

Notation (paper's): T steps, batch b, n records, noise multiplier σ, clip C (Assumption 2 bounds
‖g/A‖ ≤ C), learning rate αₜ = α/√t, D (Assumption 1: ‖wᵗ − w*‖ ≤ D), a ∈ (0, 1] (Assumption 3:
public/private gradient dissimilarity), γ ∈ (0, 1] (β^t schedule 1 − γ/t ≥ β^t ≥ 1 − 1/t).
The DP noise in the analysed update is N ~ N(0, σ²C²I)/b (eq. (6)).

What is exact and what is not is said in each docstring.  Symbols that stand for data-dependent
sums (Σⱼ E[√v_jᵀ + εᵀ], max_t E‖N‖²_{Aᵗ}, Σⱼ Aⱼ, R) are positive symbols the caller substitutes.
"""  # noqa: E501

from __future__ import annotations

import sympy as sp

# --- symbols --------------------------------------------------------------------------
T = sp.Symbol("T", positive=True)
t = sp.Symbol("t", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
b = sp.Symbol("b", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
alpha = sp.Symbol("alpha", positive=True)
D = sp.Symbol("D", positive=True)
a = sp.Symbol("a", positive=True)  # Assumption 3
gamma = sp.Symbol("gamma", positive=True)
sigma = sp.Symbol("sigma", positive=True)
C = sp.Symbol("C", positive=True)
epsilon = sp.Symbol("epsilon", positive=True)  # privacy ε
delta = sp.Symbol("delta", positive=True)
eps_a = sp.Symbol("eps_a", positive=True)  # the small constant ϵ added to the preconditioner
c1 = sp.Symbol("c1", positive=True)
c2 = sp.Symbol("c2", positive=True)
q = sp.Symbol("q", positive=True)  # sampling rate b/n
p = sp.Symbol("p", positive=True)  # Bernoulli feature probability
v = sp.Symbol("v", positive=True)  # feature value
c_max = sp.Symbol("c_max", positive=True)  # GLM |c(x; w)| ≤ c_max
R = sp.Symbol("R", positive=True)
S_A = sp.Symbol("S_A", positive=True)  # Σ_j A_j  (or Σ_j E[√v_j^T + ε^T])
N_A = sp.Symbol("N_A", positive=True)  # E‖N‖²_A  (or max_t E‖N‖²_{A^t})


# --- Theorem 1: privacy ---------------------------------------------------------------------
def theorem1_sigma() -> sp.Expr:
    """adadps Theorem 1 (from Abadi et al. 2016, Thm 1): σ ≥ c₂·b√(T log(1/δ))/(nε) suffices for (ε, δ)-DP.

    Upper bound with an unknown constant c₂ (and validity range ε < c₁b²T/n², :func:`theorem1_epsilon_range`).
    Abadi et al.'s mechanism samples each record independently with probability q = b/n (Poisson).

    Returns
    -------
    sympy.Expr
        Sufficient noise multiplier c₂·b·√(T·log(1/δ))/(n·ε) in the symbols ``c2, b, T, delta, n, epsilon``.
    """
    return c2 * b * sp.sqrt(T * sp.log(1 / delta)) / (n * epsilon)


def theorem1_epsilon_range() -> sp.Expr:
    """adadps Theorem 1's range of ε: ε < c₁·b²T/n² (= c₁q²T); unknown constant c₁.

    Returns
    -------
    sympy.Expr
        The upper end c₁·b²·T/n² of the admissible ε, in ``c1, b, T, n``.
    """
    return c1 * b**2 * T / n**2


def theorem1_required_c2() -> sp.Expr:
    """c₂ needed at a given (σ, q, T, δ, ε): σ·ε/(q√(T log(1/δ))) — exact rearrangement of theorem1_sigma with q = b/n.

    Returns
    -------
    sympy.Expr
        σ·ε/(q·√(T·log(1/δ))) in ``sigma, epsilon, q, T, delta``: the smallest c₂ for which
        the given σ meets Theorem 1's condition.
    """  # noqa: E501
    return sp.simplify(sigma * epsilon / (q * sp.sqrt(T * sp.log(1 / delta))))


# --- Theorem 2 (convex, public-data RMSProp preconditioner) -----------------------------------
def theorem2_G() -> sp.Expr:
    """G = D²/(2α) + α(2 − γ)/(aγ) of Theorem 2 (exact, eq. (36)).

    Returns
    -------
    sympy.Expr
        D²/(2α) + α(2 − γ)/(aγ) in ``D, alpha, a, gamma``.
    """
    return D**2 / (2 * alpha) + alpha * (2 - gamma) / (a * gamma)


def theorem2_bound() -> sp.Expr:
    """adadps Theorem 2, eq. (38): min_t E F(wᵗ) − F* ≤ G/√T·Σⱼ E[√v_jᵀ + εᵀ] + α/√T·max_t E‖N‖²_{Aᵗ}.

    Upper bound with explicit constants (the statement's display was lost in extraction; reconstructed
    from eq. (38) of Appendix A.1).  S_A = Σⱼ E[√v_jᵀ + εᵀ], N_A = max_t E‖N‖²_{Aᵗ}.

    Returns
    -------
    sympy.Expr
        G·S_A/√T + α·N_A/√T (G from :func:`theorem2_G`), in ``D, alpha, a, gamma, S_A, N_A, T``.
    """
    return theorem2_G() * S_A / sp.sqrt(T) + alpha * N_A / sp.sqrt(T)


def theorem2_private_rate() -> sp.Expr:
    """Theorem 2's private rate (eq. (39)): O(√(max_t E‖Aᵗ‖₁ · log(1/δ))/(nε)); asymptotic, unknown constant.

    Returns
    -------
    sympy.Expr
        √(S_A·log(1/δ))/(n·ε) in ``S_A, delta, n, epsilon`` (S_A standing for max_t E‖Aᵗ‖₁).
    """
    return sp.sqrt(S_A * sp.log(1 / delta)) / (n * epsilon)


# --- Theorem 3 (convex, fixed side information A) -------------------------------------------
def theorem3_bound() -> sp.Expr:
    """adadps Theorem 3 / eq. (45): min_t E F(wᵗ) − F* ≤ O((αR + 1)/√T·Σⱼ Aⱼ + α/√T·E‖N‖²_A).

    Upper bound with an unknown constant (the O(·) is dropped: constant 1).  R = max_{j,t} E[(g_jᵗ)²]/A_j².

    Returns
    -------
    sympy.Expr
        (αR + 1)·S_A/√T + α·N_A/√T in ``alpha, R, S_A, N_A, T`` (S_A = Σⱼ Aⱼ, N_A = E‖N‖²_A).
    """
    return (alpha * R + 1) / sp.sqrt(T) * S_A + alpha / sp.sqrt(T) * N_A


def expected_noise_A_norm(with_batch: bool = True) -> sp.Expr:
    """E‖N‖²_A = Σⱼ Aⱼ E[N_j²] = σ²C²·ΣⱼAⱼ/b² for N ~ N(0, σ²C²I)/b (exact).

    ``with_batch=False`` gives the paper's display σ²C²ΣⱼAⱼ (the 1/b² dropped, i.e. b = 1).

    Parameters
    ----------
    with_batch : bool, optional
        True (default) divides by b² (the noise of eq. (6) is N(0, σ²C²I)/b); False drops the 1/b² as the
        paper's display does.

    Returns
    -------
    sympy.Expr
        σ²C²·S_A/b² (or σ²C²·S_A when ``with_batch`` is False), in ``sigma, C, S_A`` (and ``b``).
    """
    return sigma**2 * C**2 * S_A / (b**2 if with_batch else 1)


# --- GLM with Bernoulli features (Section 5.1.1) ---------------------------------------------
def glm_second_moment() -> sp.Expr:
    """E[x_j²] = p v² for x_j = v w.p. p, 0 otherwise (exact).

    Returns
    -------
    sympy.Expr
        p·v² in ``p, v``.
    """
    return p * v**2


def glm_A() -> sp.Expr:
    """A_j = E|x_j| + ϵ = p v + ϵ (the paper's first-moment side information; exact).

    Returns
    -------
    sympy.Expr
        p·v + ϵ in ``p, v, eps_a``.
    """
    return p * v + eps_a


def glm_R_bound() -> sp.Expr:
    """R ≤ c_max²·E[x_j²]/(E|x_j| + ϵ)² = c_max² p v²/(p v + ϵ)² (exact bound for |c| ≤ c_max, one-record batch).

    The paper's intermediate display writes the denominator as (E|x_j|)² + ϵ², which is smaller than
    (E|x_j| + ϵ)²: a weaker but still valid bound; the two agree as ϵ → 0.

    Returns
    -------
    sympy.Expr
        c_max²·p·v²/(p·v + ϵ)² in ``c_max, p, v, eps_a``.
    """
    return c_max**2 * glm_second_moment() / glm_A() ** 2


def glm_sum_A() -> sp.Expr:
    """Σⱼ Aⱼ = d(p v + ϵ) (exact, identical features).

    Returns
    -------
    sympy.Expr
        d·(p·v + ϵ) in ``d, p, v, eps_a``.
    """
    return d * glm_A()


def glm_R_sum_A() -> sp.Expr:
    """R·ΣⱼAⱼ (using the R bound) = c_max² d p v²/(p v + ϵ) (exact) — the paper states O(1/p)·O(dpv) = O(dv).

    Returns
    -------
    sympy.Expr
        c_max²·d·p·v²/(p·v + ϵ) (simplified) in ``c_max, d, p, v, eps_a``.
    """
    return sp.simplify(glm_R_bound() * glm_sum_A())


def glm_R_sum_A_over_dv_limit() -> sp.Expr:
    """lim_{ϵ→0} R·ΣA/(d v) = c_max² (exact; the O(dv) constant).

    Returns
    -------
    sympy.Expr
        The limit ``c_max**2`` (a SymPy expression in ``c_max``).
    """
    return sp.limit(glm_R_sum_A() / (d * v), eps_a, 0)


# --- the DP-SGD comparison the paper draws (Section 5.1) --------------------------------------
def noise_ratio_adadps_over_dpsgd() -> sp.Expr:
    """E‖N‖²_A (AdaDPS) / E‖N‖²_I (DP-SGD) at the same σ, C, b: ΣⱼAⱼ/d (exact).

    Returns
    -------
    sympy.Expr
        S_A/d (simplified) in ``S_A, d``, with S_A = Σⱼ Aⱼ.
    """
    return sp.simplify(expected_noise_A_norm() / expected_noise_A_norm().subs(S_A, d))


# --- Theorems 4–5 (non-convex, L-smooth) -------------------------------------------------------
L = sp.Symbol("L", positive=True)  # smoothness constant
F1_gap = sp.Symbol("F1_gap", positive=True)  # F(w¹) − F*
S_tau_A = sp.Symbol("S_tau_A", positive=True)  # Σ_j τ_j²/A_j
S_tau = sp.Symbol("S_tau", positive=True)  # ‖τ²‖₁


def theorem5_explicit_bound() -> sp.Expr:
    """adadps Theorem 5 with the explicit constants of its proof (eqs. (59)–(65)): an upper bound.

    adadps Theorem 5 with the constants of its proof (eqs. (59)–(65)), fixed A with A_j ≥ ϵ and α ≤ ϵ/L:

    (1/T)Σₜ E‖∇F(wᵗ)‖²_{A⁻¹} ≤ 2(F(w¹) − F*)/(αT) + (αL/ϵ)·Σⱼ τⱼ²/(Aⱼ b) + αLdσ²C²/b².

    Upper bound with explicit constants (derived here by summing eq. (64) over t = 1..T and dividing by αT/2);
    the statement itself reads O(1/T) + O(τ²/(Ab) + σ²/b²), dropping L, d and C.

    Returns
    -------
    sympy.Expr
        2·F1_gap/(αT) + (αL/ϵ)·S_tau_A/b + αLdσ²C²/b² in ``F1_gap, alpha, T, L, eps_a, S_tau_A,
        b, d, sigma, C`` (F1_gap = F(w¹) − F*, S_tau_A = Σⱼ τⱼ²/Aⱼ).
    """
    return 2 * F1_gap / (alpha * T) + alpha * L / eps_a * S_tau_A / b + alpha * L * d * sigma**2 * C**2 / b**2


def theorem5_bound() -> sp.Expr:
    """adadps Theorem 5 as stated: O(1/T) + O(τ²/(A b) + σ²/b²) (asymptotic; unit constants).

    Returns
    -------
    sympy.Expr
        1/T + S_tau_A/b + σ²/b² in ``T, S_tau_A, b, sigma``.
    """
    return 1 / T + S_tau_A / b + sigma**2 / b**2


def theorem4_bound() -> sp.Expr:
    """adadps Theorem 4 as stated (public data, constant α ≤ ϵ/(2L), B√(1−β) ≤ √a ϵ/4): O(1/T) + O(‖τ²‖₁/b + σ²/b²).

    Returns
    -------
    sympy.Expr
        1/T + S_tau/b + σ²/b² in ``T, S_tau, b, sigma`` (S_tau = ‖τ²‖₁).
    """
    return 1 / T + S_tau / b + sigma**2 / b**2


# --- Eq. (39): Theorem 2's private rate by substitution -------------------------------------------
def eq39_sigma_sq() -> sp.Expr:
    """σ² = b²T·log(1/δ)/(n²ε²) of eq. (39)'s substitution (the paper's O(·) with unit constant).

    Returns
    -------
    sympy.Expr
        b²·T·log(1/δ)/(n²·ε²) in ``b, T, delta, n, epsilon``.
    """
    return b**2 * T * sp.log(1 / delta) / (n**2 * epsilon**2)


def eq39_T() -> sp.Expr:
    """T = n²ε²/(max_t E‖Aᵗ‖₁·log(1/δ)) of eq. (39)'s substitution (unit constant; S_A stands for max_t E‖Aᵗ‖₁).

    Returns
    -------
    sympy.Expr
        n²·ε²/(S_A·log(1/δ)) in ``n, epsilon, S_A, delta``.
    """
    return n**2 * epsilon**2 / (S_A * sp.log(1 / delta))



# --- Theorem 4 with the constants of its proof ------------------------------------------------------
beta = sp.Symbol("beta", positive=True)  # the constant RMSProp rate β of Theorem 4
B_grad = sp.Symbol("B_grad", positive=True)  # B: |∇_j F(wᵗ)| ≤ B on the path (Assumptions 1 and 4)


def theorem4_explicit_bound() -> sp.Expr:
    """adadps Theorem 4 with the explicit constants of its proof (eq. (57)): an upper bound.

    adadps Theorem 4 with the constants of its proof (eq. (57) summed over t = 1..T and divided by αT/(2(√βB + ϵ))):

    (1/T)Σₜ E‖∇F(wᵗ)‖² ≤ (2(√βB + ϵ)/α)·[(F(w¹) − F*)/T + (αB√(1−β)/(√a ϵ²) + Lα²/(2ϵ²√β))‖τ²‖₁/b
    + α²Ldσ²C²/(2b²)],

    for constant α ≤ ϵ/(2L) and B√(1−β) ≤ √a ϵ/4.  Upper bound with explicit constants (derived here from eq. (57));
    the statement reads O(1/T) + O(‖τ²‖₁/b + σ²/b²).

    Returns
    -------
    sympy.Expr
        The right-hand side displayed above, in ``beta, B_grad, eps_a, alpha, F1_gap, T, a, L, S_tau, b,
        d, sigma, C`` (B_grad = B, S_tau = ‖τ²‖₁).
    """
    k = 2 * (sp.sqrt(beta) * B_grad + eps_a) / alpha
    var = (alpha * B_grad * sp.sqrt(1 - beta) / (sp.sqrt(a) * eps_a**2) + L * alpha**2 / (2 * eps_a**2 * sp.sqrt(beta)))
    return k * (F1_gap / T + var * S_tau / b + alpha**2 * L * d * sigma**2 * C**2 / (2 * b**2))
