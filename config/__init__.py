# The Celery app is loaded with Django so that on_commit publishing and shared_task work.
from config.celery import app as celery_app

__all__ = ("celery_app",)
