"""The message checks of the course's tests accept any wording that names the
right things, PyTorch's included (tests/messages.py)."""

import pytest

from tests.messages import assert_names, missing

# PyTorch's own messages for errors the course's tests check.
PYTORCH = [
    (
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and "
        "[3, 2] at entry 1",
        [(2, 3), (3, 2)],
    ),
    (
        "Expected more than 1 value per channel when training, got input size "
        "torch.Size([1, 2])",
        [(1, 2)],
    ),
    ("Unsupported nonlinearity swish", ["swish"]),
    (
        "index 3 is out of bounds for dimension 1 with size 3",
        [3, 1],
    ),
    ("Dimension out of range (expected to be in range of [-2, 1], but got -3)", [-3]),
]


@pytest.mark.parametrize("message, named", PYTORCH)
def test_pytorchs_wording_names_what_the_tests_ask_for(message, named):
    assert missing(message, *named) == []


def test_a_number_or_shape_must_stand_alone():
    assert missing("k=15 is too large", 5) == [5]
    assert missing("shape (2, 3, 4)", (2, 3)) == [(2, 3)]
    assert missing("got 2.5", 2) == [2]
    with pytest.raises(AssertionError, match=r"should name \(3, 2\)"):
        assert_names(ValueError("shapes (2, 3) and (2, 4) differ"), (2, 3), (3, 2))
