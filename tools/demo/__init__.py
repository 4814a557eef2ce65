"""`make demo`: a few minutes of a realistic shop against `make run`, with a provider that
misbehaves the ways real ones do, so that every screen has something to show: the review
screen, the dead letters, the dashboard, the reconciliation, Flower, `trace_event`."""
