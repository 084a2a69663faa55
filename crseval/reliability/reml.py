"""Profiled REML for a mean plus K random intercepts (K = 1: one-way; K = 2: crossed item × rater).

    y = μ + Σ_k Z_k u_k + ε,   u_k ~ N(0, σ²_k I),   ε ~ N(0, σ²_e I)

Written the lme4 way (Bates et al. 2015): relative standard deviations λ_k = σ_k / σ_e enter a
diagonal Λ; for given λ the penalised least-squares system

    A = Λ Z'Z Λ + I   (sparse, q × q),   S = X'X − X'ZΛ A⁻¹ ΛZ'X

gives β, the (spherical) conditional modes and the penalised residual r², and the REML deviance

    d(λ) = log|A| + log|S| + (n − p) (1 + log(2π r² / (n − p)))

is minimised over λ ≥ 0 (bounded L-BFGS-B from several starts, boundary λ_k = 0 included — the
boundary is a legitimate answer, not an optimiser failure). Z'Z has diagonal blocks, so ``A`` is
factorised by eliminating the larger factor's diagonal block and Cholesky-factorising the dense
Schur complement of the smaller one, accumulated from precomputed rater pairs (O(n) per evaluation).
When both factors have thousands of levels, the whole sparse PLS matrix is factorised with SuperLU
(scipy.sparse.linalg.splu) instead; log|A| comes from the diagonal of U. σ²_e = r² / (n − p).

Crossed, not nested: each factor has its own levels across the whole data set (a rater keeps one
effect for every item they rate). Putting the rater component *inside* item groups (statsmodels
``groups=item`` + ``vc_formula`` rater) fits a nested model that collapses to ICC(1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
import scipy.sparse as sp
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.sparse.linalg import splu


@dataclass
class RemlFit:
    variances: dict[str, float]  # per factor, plus "residual"
    mean: float
    deviance: float
    n: int
    levels: dict[str, int]
    converged: bool = True
    modes: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    theta: np.ndarray | None = field(
        default=None, repr=False
    )  # relative SDs σ_k / σ_e, in factor order
    problem: "_Problem | None" = field(
        default=None, repr=False
    )  # the PLS system: profile the deviance with it

    @property
    def residual(self) -> float:
        return self.variances["residual"]


DENSE_LIMIT = (
    3000  # the smaller factor's levels up to which its Schur complement is factorised densely
)


class _Problem:
    """The PLS system for one or two random-intercept factors. Z'Z has diagonal blocks (level counts),
    so for two factors the larger one is eliminated analytically and only the Schur complement of
    the smaller one (``q_b × q_b``, e.g. 117 raters) is factorised densely: O(n) work per evaluation."""

    def __init__(self, y: np.ndarray, factors: dict[str, np.ndarray]) -> None:
        if not 1 <= len(factors) <= 2:
            raise ValueError("one or two random-intercept factors are supported")
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.yy, self.ysum = float(self.y @ self.y), float(self.y.sum())
        self.names = list(factors)
        self.codes, self.sizes = [], []
        for name in self.names:
            _, codes = np.unique(np.asarray(factors[name]), return_inverse=True)
            self.codes.append(codes)
            self.sizes.append(int(codes.max()) + 1)
        # order: a = larger factor (eliminated), b = smaller (dense Schur complement)
        self.order = sorted(range(len(self.names)), key=lambda i: -self.sizes[i])
        self.counts = [
            np.bincount(c, minlength=k).astype(float) for c, k in zip(self.codes, self.sizes)
        ]
        self.sums = [
            np.bincount(c, weights=self.y, minlength=k) for c, k in zip(self.codes, self.sizes)
        ]
        if len(self.names) == 2:
            a, b = self.order
            self.ca, self.cb = self.codes[a], self.codes[b]
            # N'diag(w)N = Σ_items w_i n_i n_i': precompute every (item, rater j, rater j') triple once,
            # so each evaluation is one weighted bincount (O(pairs)) instead of a sparse product
            order = np.argsort(self.ca, kind="stable")
            ca_s, cb_s = self.ca[order], self.cb[order]
            starts = np.flatnonzero(np.r_[True, ca_s[1:] != ca_s[:-1]])
            ends = np.r_[starts[1:], len(ca_s)]
            sizes = ends - starts
            self.sparse = (
                self.sizes[b] > DENSE_LIMIT or int(np.sum(sizes.astype(np.int64) ** 2)) > 20_000_000
            )
            if self.sparse:  # both factors large: sparse LU of the whole PLS matrix instead
                z = [
                    sp.csc_matrix((np.ones(self.n), (np.arange(self.n), c)), shape=(self.n, k))
                    for c, k in zip(self.codes, self.sizes)
                ]
                self.ZtZ = (sp.hstack(z).T @ sp.hstack(z)).tocsc()
                return
            pi, pj, pk = [], [], []
            for s_, e_ in zip(starts, ends):
                rs = cb_s[s_:e_]
                pi.append(np.full(len(rs) ** 2, ca_s[s_]))
                pj.append(np.repeat(rs, len(rs)))
                pk.append(np.tile(rs, len(rs)))
            self.pair_item = np.concatenate(pi)
            self.pair_flat = np.concatenate(pj) * self.sizes[b] + np.concatenate(pk)

    def _crossed(self, lam: np.ndarray):
        """Two crossed factors, the first one's block diagonal: (log|A|, Z'1 and Z'y scaled by Λ, A⁻¹ of
        each) by the Schur complement of the second factor's block (Cholesky)."""
        ia, ib = self.order
        la, lb = lam[ia], lam[ib]
        a1 = 1.0 + la * la * self.counts[ia]
        qb = self.sizes[ib]
        rhs1 = np.column_stack([la * self.counts[ia], la * self.sums[ia]])
        rhs2 = np.column_stack([lb * self.counts[ib], lb * self.sums[ib]])
        ntwn = np.bincount(
            self.pair_flat, weights=(1.0 / a1)[self.pair_item], minlength=qb * qb
        ).reshape(qb, qb)
        s22 = np.diag(1.0 + lb * lb * self.counts[ib]) - (la * la * lb * lb) * ntwn
        chol, info = dpotrf(
            s22, lower=1, clean=0, overwrite_a=1
        )  # LAPACK directly: no input checks
        if info:
            raise np.linalg.LinAlgError("Schur complement is not positive definite")
        scaled1 = rhs1 / a1[:, None]  # A11⁻¹ rhs1
        nt_scaled1 = np.column_stack(
            [np.bincount(self.cb, weights=scaled1[self.ca, c], minlength=qb) for c in range(2)]
        )  # N' A11⁻¹ rhs1
        x2 = dpotrs(chol, rhs2 - la * lb * nt_scaled1, lower=1)[0]
        n_x2 = np.column_stack(
            [
                np.bincount(self.ca, weights=x2[self.cb, c], minlength=self.sizes[ia])
                for c in range(2)
            ]
        )  # N x2
        x1 = (rhs1 - la * lb * n_x2) / a1[:, None]
        logdet = float(np.sum(np.log(a1)) + 2.0 * np.sum(np.log(np.diag(chol))))
        b = np.concatenate([rhs1[:, 0], rhs2[:, 0]])
        ainv_b = np.concatenate([x1[:, 0], x2[:, 0]])
        ainv_c = np.concatenate([x1[:, 1], x2[:, 1]])
        cc = np.concatenate([rhs1[:, 1], rhs2[:, 1]])
        return logdet, b, ainv_b, ainv_c, cc

    def solve(self, lam: np.ndarray):
        """(log|A|, Schur S, β, spherical modes per factor, penalised RSS r²)."""
        lam = np.maximum(np.asarray(lam, float), 0.0)
        if len(self.names) == 1:
            l, c = lam[0], self.counts[0]
            a1 = 1.0 + l * l * c
            b, cc = l * c, l * self.sums[0]
            ainv_b, ainv_c = b / a1, cc / a1
            logdet = float(np.sum(np.log(a1)))
            mode_parts = None
        elif self.sparse:
            d = np.concatenate([np.full(k, l) for k, l in zip(self.sizes, lam)])
            A = (sp.diags(d) @ self.ZtZ @ sp.diags(d) + sp.identity(len(d))).tocsc()
            lu = splu(A)
            b = d * np.concatenate(self.counts)
            cc = d * np.concatenate(self.sums)
            ainv_b, ainv_c = lu.solve(b), lu.solve(cc)
            logdet = float(np.sum(np.log(np.abs(lu.U.diagonal()))))
            mode_parts = (0, 1)
        else:
            logdet, b, ainv_b, ainv_c, cc = self._crossed(lam)
            mode_parts = self.order
        schur = self.n - b @ ainv_b
        beta = (self.ysum - b @ ainv_c) / schur
        u = ainv_c - ainv_b * beta
        if mode_parts is None:
            modes = {0: u}
        else:
            ia, ib = mode_parts
            modes = {ia: u[: self.sizes[ia]], ib: u[self.sizes[ia] :]}
        # at the PLS optimum ||y − Xβ − ZΛu||² + ||u||² = y'y − β Σy − u'ΛZ'y (no pass over the data)
        r2 = float(self.yy - beta * self.ysum - u @ cc)
        return logdet, float(schur), float(beta), modes, r2

    def deviance(self, lam: np.ndarray) -> float:
        logdet, schur, _, _, r2 = self.solve(lam)
        dof = self.n - 1
        return logdet + np.log(schur) + dof * (1.0 + np.log(2.0 * np.pi * max(r2, 1e-300) / dof))


def _moment_start(prob: _Problem) -> list[float]:
    """Relative SDs from per-factor one-way ANOVA estimates: a start near the optimum."""
    total = float(np.var(prob.y, ddof=1))
    start = []
    for counts, sums in zip(prob.counts, prob.sums):
        means = sums / counts
        between = float(np.sum(counts * (means - prob.y.mean()) ** 2) / max(len(counts) - 1, 1))
        n0 = (prob.n - np.sum(counts**2) / prob.n) / max(len(counts) - 1, 1)
        within = max(total - (between - total) / max(n0, 1.0), 1e-6 * total)
        start.append(float(np.sqrt(max((between - within) / max(n0, 1.0), 1e-4 * total) / within)))
    return start


def fit_reml(y, factors: dict[str, np.ndarray], starts: list[list[float]] | None = None) -> RemlFit:
    """REML variance components of ``factors`` (name → level labels, one per observation)."""
    prob = _Problem(np.asarray(y, dtype=float), factors)
    k = len(prob.names)
    if prob.n < 3 or np.ptp(prob.y) == 0:
        raise ValueError("need at least 3 observations with some variation")
    starts = starts or [_moment_start(prob), [1.0] * k]
    best = None
    for s in starts:  # the second start only matters when the first does not converge
        res = minimize(
            prob.deviance,
            np.asarray(s, float),
            method="L-BFGS-B",
            bounds=[(0.0, 50.0)] * k,
            options={"maxiter": 200},
        )
        if best is None or res.fun < best.fun:
            best = res
        if res.success:
            break
    lam = np.maximum(best.x, 0.0)
    # the boundary is a candidate in its own right: compare with each component set to exactly 0
    for i in range(k):
        edge = lam.copy()
        edge[i] = 0.0
        if prob.deviance(edge) <= prob.deviance(lam) + 1e-9:
            lam = edge
    _, _, beta, u, r2 = prob.solve(lam)
    sigma2 = r2 / (prob.n - 1)
    variances = {name: float(l**2 * sigma2) for name, l in zip(prob.names, lam)}
    variances["residual"] = float(sigma2)
    modes = {name: lam[i] * u[i] * np.sqrt(sigma2) for i, name in enumerate(prob.names)}  # BLUPs
    return RemlFit(
        variances,
        beta,
        float(prob.deviance(lam)),
        prob.n,
        dict(zip(prob.names, prob.sizes)),
        bool(best.success),
        modes,
        lam,
        prob,
    )
