"""A shift run's [scoring] section: what each TAS definition needs and reads."""

import pytest

from crseval.adaptation.config import ScoringSection
from crseval.core.config import validate
from crseval.core.errors import ConfigError


def test_thesis_needs_the_studys_lda():
    with pytest.raises(ConfigError, match="needs lda"):
        validate(ScoringSection, {"definition": "thesis"})
    assert validate(ScoringSection, {"definition": "thesis", "lda": "lda"}).lda == "lda"


@pytest.mark.parametrize("topics", ["keyword", "lda"])
def test_the_studys_lda_is_not_silently_ignored_by_crsevals_definition(topics):
    with pytest.raises(ConfigError, match="read only by definition = 'thesis'"):
        validate(ScoringSection, {"topics": topics, "lda": "lda"})
