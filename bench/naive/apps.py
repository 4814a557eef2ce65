from django.apps import AppConfig


class NaiveConfig(AppConfig):
    name = "bench.naive"
    label = "naive"
    verbose_name = "Benchmark: the naive baseline"
