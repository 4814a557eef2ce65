from django.apps import AppConfig


class NaiveConfig(AppConfig):
    name = "tools.bench.naive"
    label = "naive"
    verbose_name = "Benchmark: the naive baseline"
