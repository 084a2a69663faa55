from crseval.core.errors import CrsevalError


def test_error_message_names_file_line_field_expected_and_fix():
    e = CrsevalError(
        "bad value", file="a.csv", line=3, field="score", expected="a number", fix="edit it"
    )
    assert str(e) == "a.csv:3: field 'score': bad value (expected a number) — edit it"
