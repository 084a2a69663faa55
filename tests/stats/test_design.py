import pytest

from crseval.stats.design import harmonic_k


def test_harmonic_k_by_hand():
    # items with 2, 1 and 4 ratings: 3 / (1/2 + 1 + 1/4) = 12/7
    assert harmonic_k(["a", "a", "b", "c", "c", "c", "c"]) == pytest.approx(12 / 7)
