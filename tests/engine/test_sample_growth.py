"""The sample-doubling loop stops when a doubling leaves the rank unchanged."""

from algebra.engine import dimension
from algebra.models.cnn import CNN


def test_defective_model_beyond_the_cramer_limits_stops_uncertified():
    # a defective CNN (rank 808 of 904 parameters) whose Cramer block is above the rung's limits: before the
    # fix the loop kept doubling the samples (11 GB and minutes); now it stops after one unchanged doubling
    m = CNN(40, [5, 5, 5], channels=(1, 8, 8, 8), activations="t^2", dense=1)
    r = dimension(m)
    assert (r.lower_bound, r.certified) == (808, False)
    assert r.upper_bound > r.lower_bound and r.to_json()["dimension_status"] == "lower bound only"
    assert any("not growing further" in n for n in r.notes)
    assert any("cramer rung skipped" in n for n in r.notes)
