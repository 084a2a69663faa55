"""Power and planning formulas at hand-checked points."""

import numpy as np
import pytest

from crseval.reliability import power


def test_walter_formula_hand_checked_points():
    # k = 2, ρ0 = 0.4, ρ1 = 0.6, α = 0.05 (one-sided), power 0.8:
    # θ0 = 2/3, θ1 = 1.5, C0 = (1 + 4/3)/(1 + 3) = 7/12; z = 1.6449 + 0.8416 = 2.4865
    # n = 1 + 2·2·z² / (1 · ln(7/12)²) = 1 + 24.730/0.29050 = 86.13
    assert power.items_needed(0.6, 2, rho0=0.4) == pytest.approx(86.13, abs=0.05)
    # k = 5, ρ0 = 0, ρ1 = 0.2: C0 = 1/(1 + 5·0.25) = 0.4444; n = 1 + 10·6.1826/(4·0.6576) = 24.5
    assert power.items_needed(0.2, 5) == pytest.approx(24.5, abs=0.05)
    n = power.items_needed(0.3, 4)
    assert power.min_detectable_icc(int(np.ceil(n)), 4) <= 0.3
    assert power.power_icc(int(round(n)), 4, 0.3) == pytest.approx(0.8, abs=0.02)


def test_ci_width_and_correlation_power():
    # Bonett (2002): ρ = 0.5, k = 2, w = 0.2 → n = 8·1.96²·0.25·2.25/(2·0.04) + 1 = 217.1
    assert power.items_for_ci_width(0.5, 2, 0.2) == pytest.approx(217.1, abs=0.2)
    assert power.ci_width(0.5, 218, 2) == pytest.approx(0.2, abs=0.002)
    # Fisher z: r = 0.3, α = 0.05, power 0.8 → n = (2.8016/atanh 0.3)² + 3 = 84.93 (the textbook 85)
    assert power.items_for_correlation(0.3) == pytest.approx(84.93, abs=0.02)
    assert power.power_correlation(0.3, 85) == pytest.approx(0.80, abs=0.01)


def test_closed_form_min_detectable_icc_inverts_walter_exactly():
    from scipy.optimize import brentq

    for n, k, rho0 in [(50, 3, 0.0), (200, 5, 0.1), (1000, 2, 0.3)]:
        root = brentq(
            lambda r: power.items_needed(r, k, rho0=rho0) - n, rho0 + 1e-9, 1 - 1e-9, xtol=1e-14
        )
        assert power.min_detectable_icc(n, k, rho0=rho0) == pytest.approx(root, abs=1e-9)
    many = power.min_detectable_icc(np.array([50.0, 200.0]), 3)
    assert many[0] == pytest.approx(power.min_detectable_icc(50, 3))
