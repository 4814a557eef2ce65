"""A series' numbers, judged from what the counter gave out and what the documents (and the
records of those the retention job deleted) hold: operations/reconciliation/invoice_numbering.py."""

from operations.reconciliation.invoice_numbering import NumberingFaults, numbering_faults, numbering_words


def test_numbers_held_once_each_up_to_the_counter_are_no_fault():
    faults = numbering_faults(base=0, counter=3, held=[1, 2, 3], highest=3)
    assert not faults
    assert faults == NumberingFaults(gaps=[], twice=[], highest=3, counter=3)


def test_numbers_below_the_window_are_not_looked_at():
    assert not numbering_faults(base=10, counter=12, held=[11, 12], highest=12)


def test_a_gap_in_the_middle_and_numbers_given_out_past_the_last_document_are_gaps():
    faults = numbering_faults(base=0, counter=9, held=[1, 3, 4, 6], highest=6)
    assert faults.gaps == [(2, 2), (5, 5), (7, 9)]
    assert numbering_words(faults).startswith("no document holds number(s) 2, 5, 7-9 (given out")


def test_a_number_held_twice_and_a_counter_behind_are_faults():
    faults = numbering_faults(base=0, counter=1, held=[1, 1, 2], highest=2)
    assert (faults.gaps, faults.twice) == ([], [1])
    assert numbering_words(faults) == (
        "number(s) 1 held by two documents; its counter gives out 2 next, yet 2 is already held: "
        "the next document would be refused its number"
    )


def test_a_long_list_of_gaps_is_cut_short():
    held = list(range(1, 60, 2))  # every other number
    words = numbering_words(numbering_faults(base=0, counter=59, held=held, highest=59))
    assert "2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 19 more" in words
