"""The product runs from its image's files on requirements.txt alone, and nothing of the tools,
the tests or the development set is there to import. Without a container engine: a new
virtualenv gets requirements.txt as the Dockerfile installs it (--require-hashes), a
directory gets the files the image would hold (tests/image_files.py), and every command runs
there with that virtualenv only. A minute of installing: `make test-tools` and CI."""

import base64
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from django.conf import settings

from tests.deployment_files import image_env, kubernetes_configmap, kubernetes_container_env
from tests.image_files import image_files
from tests.waiting import answers, wait_until
from tools.drill.processes import REPO, ManagedProcess, free_port

pytestmark = pytest.mark.tool_check

NOT_IN_THE_IMAGE = ["tools.drill", "tools.mailsim", "tests", "pytest", "playwright", "moto", "matplotlib"]
NOT_IN_THE_IMAGE += ["schemathesis", "hypothesis", "honcho", "aiosmtpd"]


def made_up_key(prefix: str) -> str:
    """A key of the provider's shape (Resend's API key, its Svix signing secret), made here."""
    return prefix + base64.b64encode(secrets.token_bytes(24)).decode()


class Runtime:
    """A virtualenv of requirements.txt and a copy of the image's files (its /app)."""

    def __init__(self, root: Path):
        self.venv, self.app = root / "venv", root / "app"
        self.home = root

    def env(self, *overrides: dict[str, str]) -> dict[str, str]:
        """The image's environment with this virtualenv alone on PATH: no variable leads
        Python to this checkout or to the development virtualenv. Later overrides win."""
        env = {"PATH": f"{self.venv / 'bin'}:/usr/bin:/bin", "HOME": str(self.home), **image_env()}
        for override in overrides:
            env |= override
        return env

    def python(self, code: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", code, *args],
            cwd=self.app,
            env=self.env({"DJANGO_ENV": "development"}),
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture(scope="module")
def runtime(tmp_path_factory) -> Runtime:
    runtime = Runtime(tmp_path_factory.mktemp("image"))
    subprocess.run([sys.executable, "-m", "venv", str(runtime.venv)], check=True, timeout=120)
    pip = [str(runtime.venv / "bin" / "python"), "-m", "pip"]
    # A current pip, as `make venv` installs (the image's base image ships a newer one than this
    # Python's own): pip 23.2 refuses a hashed lock whose package another requires with an
    # extra (WeasyPrint's fonttools[woff]) once the index holds a newer release than the pin.
    subprocess.run([*pip, "install", "--quiet", "--upgrade", "pip"], check=True, timeout=300)
    install = subprocess.run(
        [*pip, "install", "--quiet", "--require-hashes", "-r", str(REPO / "requirements.txt")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    for in_image, source in image_files().items():
        destination = runtime.app / in_image.removeprefix("/app/")
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / source, destination)
    return runtime


def test_the_runtime_is_the_new_virtualenv_and_the_image_s_files_alone(runtime):
    done = runtime.python("import django, sys; print(django.__file__); print(sys.path)")
    assert done.returncode == 0, done.stderr
    django_file, path = done.stdout.splitlines()
    assert django_file.startswith(str(runtime.venv))
    assert str(REPO) not in path
    assert ".venv" not in path


def test_the_product_imports_its_settings_and_every_module_on_requirements_txt_alone(runtime):
    done = runtime.python("import django; import config.settings.base")
    assert done.returncode == 0, done.stderr
    modules = sorted(
        path.removeprefix("/app/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for path in image_files()
        if path.endswith(".py") and path != "/app/manage.py"
    )
    assert len(modules) > 200
    done = runtime.python(
        "import importlib, sys, django\n"
        "django.setup()\n"
        "for name in sys.argv[1:]: importlib.import_module(name)\n"
        "print('imported', len(sys.argv) - 1)",
        *modules,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == f"imported {len(modules)}"
    check = subprocess.run(
        [str(runtime.venv / "bin" / "python"), "manage.py", "check"],
        cwd=runtime.app,
        env=runtime.env({"DJANGO_ENV": "development"}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr
    assert "System check identified no issues" in check.stdout


@pytest.mark.parametrize("module", NOT_IN_THE_IMAGE)
def test_no_tool_test_or_development_package_can_be_imported_there(runtime, module):
    done = runtime.python(f"import {module}")
    assert done.returncode != 0
    assert f"ModuleNotFoundError: No module named '{module.split('.')[0]}'" in done.stderr


@pytest.mark.django_db  # the web reads the test database (pytest-django makes it for a test that asks)
def test_the_web_and_the_worker_start_from_the_image_s_files_as_production(
    runtime, broker, processes_database_url, tmp_path
):
    # given production's environment, as the example Kubernetes pod has it (its Secret's
    # values: the test's database and broker and made-up keys)
    port = free_port()
    env = runtime.env(
        kubernetes_configmap(),
        kubernetes_container_env("web", "web", pod_name="orders-web-0"),
        {
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "PERSONAL_DATA_HASH_KEY": secrets.token_urlsafe(32),
            "DATABASE_URL": processes_database_url,
            "CELERY_BROKER_URL": broker,
            "RABBITMQ_MANAGEMENT_URL": settings.RABBITMQ_MANAGEMENT_URL,
            "MAIL_PROVIDER_API_KEY": made_up_key("re_"),
            "RESEND_WEBHOOK_SECRET": made_up_key("whsec_"),
            # what differs here: the port (8000 may be taken), loopback, a metrics directory
            "WEB_PORT": str(port),
            "WEB_BIND": "127.0.0.1",
            "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
            "WORKER_NAME": "image",
        },
    )
    web = ManagedProcess("web", ["bin/web"], env=env, log_path=tmp_path / "web.log", cwd=runtime.app)
    worker = ManagedProcess(
        "worker", ["bin/worker"], env=env, log_path=tmp_path / "worker.log", cwd=runtime.app
    )
    try:
        # when bin/web and bin/worker start from the image's files on requirements.txt
        web.start(ready="Booting worker", timeout=60)
        worker.start(ready=r"image@\S+ ready\.", timeout=60)
        # then the web is ready (database migrated, queues declared) and serves from there
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(f"{url}/healthz"), timeout=30, message="web up")
        ready = requests.get(f"{url}/readyz", headers={"Host": f"127.0.0.1:{port}"}, timeout=10)
        assert ready.status_code == 200, ready.text[:300]
        assert ready.json() == {"ready": True, "problems": []}
        # and both run that virtualenv's Python in the image's directory
        for process in (web, worker):
            command = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
            assert command[0].decode().startswith(str(runtime.venv)), command
            assert Path(f"/proc/{process.pid}/cwd").resolve() == runtime.app.resolve()
    finally:
        worker.stop()
        web.stop()
