"""The fragment runner (benchmarks/fragments_eval.py) compares what a brief is read as with what its writer expects."""

from benchmarks.fragments_eval import canonical


def test_two_notations_of_one_whole_number_bound_compare_equal_and_others_stay_apart():
    assert canonical("pub_year<1990") == canonical("pub_year<=1989") == "pub_year<=1989"
    assert canonical("SHOULD pages>300") == "SHOULD pages>=301"
    assert canonical("MUST_NOT pub_year>2000") == canonical("MUST_NOT pub_year>=2001")
    assert canonical("pub_year<1990") != canonical("pub_year<=1990")
    assert canonical("rating<4") == "rating<4"  # a rating is not a whole number: 3.9 is under 4
    assert canonical("MUST genre=小说") == "MUST genre=小说"
