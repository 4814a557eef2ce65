"""What a replay run keeps in memory does not grow with the queue."""

from operations.dead_letters.batch import MAX_REASONS, BatchProgress


def test_the_reasons_for_leaving_messages_stay_few_however_many_messages():
    progress = BatchProgress(present=1000)
    for n in range(1000):
        progress.leave(f"the order {n} does not exist: discard it")
    progress.leave("the order 0 does not exist: discard it")
    assert len(progress.left_why) == MAX_REASONS + 1
    assert progress.left_why["other reasons"] == 1000 - MAX_REASONS
    assert progress.left_why["the order 0 does not exist: discard it"] == 2
