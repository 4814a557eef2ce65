from django.apps import AppConfig


class ShopsConfig(AppConfig):
    name = "shops"
    verbose_name = "Connected shops"
