"""docker-compose.yml cannot be run here (no Docker engine), so its shape is checked."""

import re
from collections.abc import Callable

import yaml

from tests.deployment_files import compose_service_env, image_env
from tests.image_files import image_files
from tools.drill.processes import REPO

APP_PROCESSES = {"web", "worker", "relay", "beat", "flower", "mailsim"}


def _procfile() -> dict[str, str]:
    lines = (REPO / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip() and not line.startswith("#"))


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_compose_runs_every_procfile_process_with_the_same_command():
    procfile = _procfile()
    services = _compose()["services"]
    assert set(procfile) == APP_PROCESSES
    for name, command in procfile.items():
        assert services[name]["command"] == command, name


def test_the_product_runs_from_its_image_and_the_simulator_from_the_tools_stage():
    # the product's image holds no tool (tests/unit/test_image.py); the simulator is one
    services = _compose()["services"]
    assert services["mailsim"]["build"] == {"context": ".", "target": "tools"}
    assert services["mailsim"]["image"] != services["web"]["image"]
    for name in (APP_PROCESSES - {"mailsim"}) | {"init"}:
        assert services[name]["build"] == ".", name
        assert services[name]["image"] == "order-notifications:latest", name
    tools_stage = {path.removeprefix("/app/") for path in image_files("tools")}
    assert services["mailsim"]["command"].split()[0] in tools_stage
    product_image = {path.removeprefix("/app/") for path in image_files()}
    for name in APP_PROCESSES - {"mailsim"}:
        assert services[name]["command"].split()[0] in product_image, name


def test_every_compose_service_has_a_healthcheck_or_is_the_one_shot_init():
    services = _compose()["services"]
    assert {"postgres", "rabbitmq", "init"} | APP_PROCESSES == set(services)
    for name, service in services.items():
        if name == "init":
            assert service["restart"] == "no"
            continue
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"


def test_compose_uses_rabbitmq_with_management_and_postgres_15():
    services = _compose()["services"]
    assert services["rabbitmq"]["image"].startswith("rabbitmq:3.10")
    assert "management" in services["rabbitmq"]["image"]
    assert services["postgres"]["image"] == "postgres:15"


def test_app_services_wait_for_migrations_and_topology():
    services = _compose()["services"]
    assert "declare_topology" in services["init"]["command"]
    assert "migrate" in services["init"]["command"]
    for name in APP_PROCESSES - {"mailsim"}:
        assert services[name]["depends_on"]["init"]["condition"] == "service_completed_successfully"


def test_the_procfile_commands_exist_and_are_executable():
    for command in _procfile().values():
        path = REPO / command.split()[0]
        assert path.is_file(), command
        assert path.stat().st_mode & 0o111, command


def test_every_environment_variable_the_product_reads_is_in_env_example():
    documented = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (REPO / ".env.example").read_text(), re.MULTILINE)
    )
    settings_text = "\n".join(p.read_text() for p in (REPO / "config" / "settings").glob("*.py"))
    # env(...), env.int(...), and switch(...) (config/settings/environment.py: a strict env.bool)
    read = set(re.findall(r"(?:\benv(?:\.\w+)?|\bswitch)\(\s*\"([A-Z][A-Z0-9_]+)\"", settings_text))
    read |= set(re.findall(r"os\.environ\.setdefault\(\"([A-Z][A-Z0-9_]+)\"", settings_text))
    for script in [*(REPO / "bin").iterdir(), *(REPO / "tools" / "bin").iterdir()]:
        read |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", script.read_text()))
    simulator = (REPO / "tools" / "mailsim" / "__main__.py").read_text()
    read |= set(re.findall(r"\"(MAILSIM_[A-Z_]+)\"", simulator))
    assert len(read) > 30
    assert read - documented == set()


def test_env_example_shows_each_number_and_switch_at_its_default_in_the_code():
    # .env.example is where an operator reads the defaults: a value there that differs from the
    # code's (it said a prefetch multiplier of 16 after the code's became 1) misleads them.
    example = dict(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=(.*)$", (REPO / ".env.example").read_text(), re.MULTILINE)
    )
    settings_text = "\n".join(p.read_text() for p in (REPO / "config" / "settings").glob("*.py"))
    declared = re.findall(
        r"env\.(int|float|bool)\(\s*\"([A-Z][A-Z0-9_]+)\",\s*default=([^)\n]+)\)", settings_text
    ) + [
        ("bool", name, default)
        for name, default in re.findall(
            r"\bswitch\(\s*\"([A-Z][A-Z0-9_]+)\",\s*default=([^)\n]+)\)", settings_text
        )
    ]
    compared = 0
    for kind, name, default_source in declared:
        try:  # literal defaults and their arithmetic; one computed from another setting is skipped
            default = eval(default_source, {"__builtins__": {}})  # our own settings' text
        except NameError:
            continue
        if name not in example:
            continue
        readers: dict[str, Callable[[str], object]] = {"int": int, "float": float, "bool": _switch}
        value = readers[kind](example[name])
        assert value == default, f"{name}: .env.example says {example[name]}, the code's default is {default}"
        compared += 1
    assert compared > 40


def _switch(text: str) -> bool:
    return text.lower() == "true"


def test_the_image_runs_as_production_and_compose_s_stack_says_development():
    # A container from the image is production's unless told otherwise (refusals, HTTPS only);
    # compose's stack (the simulator, development keys, plain HTTP) says development itself.
    assert image_env()["DJANGO_ENV"] == "production"
    for name in (APP_PROCESSES - {"mailsim"}) | {"init"}:
        assert compose_service_env(name).get("DJANGO_ENV") == "development", name
