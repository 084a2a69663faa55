from crseval.core.order import in_key_order, key_order


def test_records_sort_by_key_parts_with_numbers_as_numbers():
    recs = [{"key": "b|1"}, {"key": "a|10"}, {"key": "a|2"}, {"other": 1}, {"key": "a|x"}]
    assert [r.get("key") for r in in_key_order(recs)] == ["a|2", "a|10", "a|x", "b|1", None]
    assert key_order("m|-1") < key_order("m|0") < key_order("m|a")
