from crseval.core.glossary import describe


def test_registered_metric_uses_its_label_and_description():
    label, text = describe("explicit_ba")
    assert label == "explicit BA (formula)" and "published" in text


def test_context_and_derived_columns():
    assert describe("eta_squared")[0] == "η²"
    label, text = describe("rel_k_lo")
    assert label.endswith(" lo") and text.startswith("lower end of the 95 % CI of")
    assert describe("pearson_p")[1].startswith("p-value of")


def test_unknown_column_has_no_description():
    assert describe("no_such_column_at_all") == ("no_such_column_at_all", "")
