"""Power and planning for reliability studies.

* Sample size / minimum detectable ICC for testing H0: ρ = ρ0 against H1: ρ = ρ1 with k raters
  per item (Walter, Eliasziw & Donner 1998, Stat Med 17:101–110, eq. 6):
      n = 1 + 2k (z_α + z_β)² / ((k − 1) (ln C0)²),  C0 = (1 + k θ0) / (1 + k θ1),  θ = ρ / (1 − ρ)
  with one-sided α (their convention).
* Expected 95 % CI width of ICC(1) for an assumed ρ, n items and k raters (Bonett 2002, Stat Med
  21:1331–1335): w = √( 8 z² (1 − ρ)² (1 + (k − 1)ρ)² / (k (k − 1) (n − 1)) ).
* Power to detect a correlation r with N items (Fisher z, two-sided).
"""

from __future__ import annotations

import numpy as np
from scipy.special import (
    ndtr,
    ndtri,
)  # the normal cdf and quantile (cheap to import, unlike scipy.stats)


def _theta(rho: float) -> float:
    return rho / (1.0 - rho)


def items_needed(
    rho1: float, k: int, *, rho0: float = 0.0, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Number of items to show ICC > ρ0 when the true ICC is ρ1 (Walter et al. 1998)."""
    if not 0 <= rho0 < rho1 < 1 or k < 2:
        raise ValueError("need 0 ≤ rho0 < rho1 < 1 and k ≥ 2")
    c0 = (1 + k * _theta(rho0)) / (1 + k * _theta(rho1))
    z = ndtri(1 - alpha) + ndtri(power)
    return 1 + 2 * k * z**2 / ((k - 1) * np.log(c0) ** 2)


def min_detectable_icc(n, k: int, *, rho0: float = 0.0, alpha: float = 0.05, power: float = 0.8):
    """Smallest true ICC detectable against ρ0 with n items and k raters: Walter et al.'s equation solved
    for ρ1 in closed form (ln C0 = −√(2k z² / ((k − 1)(n − 1))), θ1 = ((1 + kθ0)/C0 − 1)/k). ``n`` may be
    an array."""
    n_arr = np.asarray(n, float)
    if np.any(n_arr <= 2) or k < 2:
        raise ValueError("need n > 2 items and k ≥ 2 raters")
    z = ndtri(1 - alpha) + ndtri(power)
    c0 = np.exp(-np.sqrt(2 * k * z**2 / ((k - 1) * (n_arr - 1))))
    theta1 = ((1 + k * _theta(rho0)) / c0 - 1) / k
    rho1 = theta1 / (1 + theta1)
    return float(rho1) if np.ndim(rho1) == 0 else rho1


def power_icc(n: int, k: int, rho1: float, *, rho0: float = 0.0, alpha: float = 0.05) -> float:
    """Power of the Walter et al. test with n items, k raters, true ICC ρ1."""
    c0 = (1 + k * _theta(rho0)) / (1 + k * _theta(rho1))
    z = np.sqrt((n - 1) * (k - 1) * np.log(c0) ** 2 / (2 * k)) - ndtri(1 - alpha)
    return float(ndtr(z))


def ci_width(rho: float, n: int, k: int, *, confidence: float = 0.95) -> float:
    """Expected width of the ICC(1) confidence interval (Bonett 2002)."""
    z = ndtri(1 - (1 - confidence) / 2)
    return float(
        np.sqrt(8 * z**2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * (n - 1)))
    )


def items_for_ci_width(rho: float, k: int, width: float, *, confidence: float = 0.95) -> float:
    z = ndtri(1 - (1 - confidence) / 2)
    return 8 * z**2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * width**2) + 1


def power_correlation(r: float, n: int, *, alpha: float = 0.05) -> float:
    """Two-sided power to detect a Pearson correlation r with n items (Fisher z approximation)."""
    if n <= 3:
        return float("nan")
    zr, zc = np.arctanh(abs(r)) * np.sqrt(n - 3), ndtri(1 - alpha / 2)
    return float(ndtr(zr - zc) + ndtr(-zr - zc))


def items_for_correlation(r: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    return float(((ndtri(1 - alpha / 2) + ndtri(power)) / np.arctanh(abs(r))) ** 2 + 3)
