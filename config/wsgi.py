import os

from django.core.wsgi import get_wsgi_application

from infra.checks import deploy_check_refusal

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

application = get_wsgi_application()
# In production a web process refuses to load while `check --deploy` reports an error.
deploy_check_refusal()
