"""What people do with dead letters: list, inspect, replay and discard them, from the admin's
"Dead letters" screen or `manage.py replay_dead_letters`, through the same services.

- `reader.py`: reading the dead-letter queues, each message with its reason, acking none
  unless told;
- `replay.py`: what a replay would do with one message, replaying it (published again,
  confirmed, then acked) and discarding it, each recorded as an OperatorAction;
- `batch.py`: going through the messages that match a filter, once each (the command, and
  the screen within its bounds);
- `screen.py`: what the screen shows (a page, a preview before acting); `views.py` and
  `forms.py`: the screen itself; `text.py`: the command's plain-text lines.

Dead-lettering a message in the first place is the consumer's (messaging/dead_lettering.py):
the worker publishes the copy with its reason to the DLQ and only then acks the original.
Its header names are what `reader.py` reads back.
"""
