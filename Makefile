# The one entry point. `make run` runs the product, `make test` passes the tests.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Product processes find gunicorn, celery and python of the virtualenv first.
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: run test test-tools drill drill-restore drill-outage demo bench soak lint format messages setup services venv requirements
ORDERS ?= 1000
CLUSTER ?= 1
PLATFORM ?= api
HOSTS ?= 1
DATABASE ?= local
SOAK_SECONDS ?= 600
SOAK_RATE ?= 50
OUTAGE_MINUTES ?= 10
OUTAGE_RATE ?= 2
OUTAGE_MAIL_RATE_LIMIT ?= 5
FALLBACK ?=
OUTAGE_KIND ?= 503

# The development set: the product's runtime (requirements.txt, all the image installs), the
# tools' packages (requirements-tools.txt) and the tests' and linters' (requirements-dev.txt
# holds all three). Every file is locked with hashes: pip refuses a download that differs.
$(BIN)/.installed: requirements.txt requirements-tools.txt requirements-dev.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.txt
	@touch $@

venv: $(BIN)/.installed

## requirements: lock requirements*.in again into requirements*.txt, with every transitive
## package and its hashes (pip-tools, in a virtualenv of its own under var/). A version moves
## only where a .in file's pin moved: pip-compile keeps the versions the .txt files hold.
PIP_TOOLS := var/pip-tools
$(PIP_TOOLS)/bin/pip-compile:
	$(PYTHON) -m venv $(PIP_TOOLS)
	$(PIP_TOOLS)/bin/python -m pip install --quiet pip-tools==7.6.2

requirements: $(PIP_TOOLS)/bin/pip-compile
	@# In layers: the tools' set is constrained by the runtime's lock, the development set by the tools'.
	for set in requirements requirements-tools requirements-dev; do \
	  CUSTOM_COMPILE_COMMAND="make requirements" $(PIP_TOOLS)/bin/pip-compile --quiet \
	    --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
	    --output-file $$set.txt $$set.in || exit 1; \
	done

services:
	@scripts/ensure-services.sh

## setup: database, migrations, broker vhost and topology (idempotent)
setup: venv services
	@scripts/ensure-pdf-libs.sh
	@mkdir -p var
	$(BIN)/python manage.py ensure_database
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py ensure_vhost
	$(BIN)/python manage.py declare_topology

## run: the whole product in the foreground (web, worker, relay, beat, flower, mailsim); Ctrl-C stops all.
## DATABASE_HA=1: on a PostgreSQL cluster of its own (three nodes on Patroni with a synchronous
## standby, tools/drill/pg_cluster.py), started first and torn down after (docs/deploy.md)
ifeq ($(strip $(DATABASE_HA)),)
run: setup
	@test -s var/flower-password || $(BIN)/python -c "import secrets; print(secrets.token_urlsafe(12))" > var/flower-password
	@token=$$($(BIN)/python manage.py create_api_token dev --replace 2>/dev/null); \
	  echo; \
	  echo "  API token (dev):  $$token"; \
	  echo "  try:  curl -s -X POST http://127.0.0.1:8000/api/orders/ -H \"Authorization: Bearer $$token\" \\"; \
	  echo "          -H 'Content-Type: application/json' -d '{\"customer_email\":\"ada@example.com\",\"amount\":\"49.90\",\"currency\":\"EUR\"}'"; \
	  echo "  Flower:           http://127.0.0.1:5555  (user ops, password $$(cat var/flower-password))"; \
	  echo "  Mail simulator:   http://127.0.0.1:8025/_sim/messages"; \
	  echo "  Admin:            http://127.0.0.1:8000/admin/  (manage.py createsuperuser)"; \
	  echo
	@rm -rf var/prometheus  # counts of an earlier run's processes
	@# The simulator posts signed delivery webhooks to our endpoints, with keys made here.
	@PYTHON=$(BIN)/python scripts/dev-webhook-secrets.sh
	set -a; . ./var/webhook-secrets.env; set +a; \
	  FLOWER_BASIC_AUTH=ops:$$(cat var/flower-password) \
	  $(BIN)/honcho start -f Procfile
else
run: venv services
	$(BIN)/python -m tools.drill.pg_cluster -- make --no-print-directory run DATABASE_HA=
endif

## test: the whole suite against real PostgreSQL and RabbitMQ (own database, own vhost);
## PYTEST_ARGS=tests/unit (or integration, system) runs one layer, see tests/README.md
# Unit tests need no service: when PYTEST_ARGS names paths and every one is under tests/unit,
# none is started (options alone, as --junitxml=F, run the whole suite, which needs them all).
TEST_PATHS := $(filter-out -%,$(PYTEST_ARGS))
UNIT_ONLY := $(if $(strip $(TEST_PATHS)),$(if $(filter-out tests/unit%,$(TEST_PATHS)),,yes))
# The whole suite runs on TEST_PROCESSES pytest processes (pytest-xdist), each with its own
# database, vhost and simulators; a file stays on one process, so its module-wide fixtures
# (a worker for the module) start once; files start in tests/conftest.py's order (the
# `long_running` ones first). Most of a test's time is spent waiting for the processes it
# started, so five processes fill two cores (on 2026-12-05 the suite took 10:58 on
# three, 10:10 on four, 9:49 on five on this kind of machine). TEST_PROCESSES=0: one process.
# A run of chosen tests (PYTEST_ARGS) stays on one process unless TEST_PROCESSES is given.
TEST_PROCESSES ?= $(if $(strip $(PYTEST_ARGS)),0,5)
test: venv
	@scripts/ensure-pdf-libs.sh --tests
	@$(if $(UNIT_ONLY),,scripts/ensure-services.sh && scripts/ensure-browser.sh)
	$(BIN)/python -m pytest $(if $(filter 0,$(TEST_PROCESSES)),,-n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder) $(PYTEST_ARGS)

## test-tools: the long checks that the bench and the drill still work (their short runs and
## the drill's self-tests: a broken build and a refused load must fail it); CI runs them too
test-tools: venv services
	@scripts/ensure-pdf-libs.sh --tests
	$(BIN)/python -m pytest -m tool_check tests/system

## drill: the fault drill (kills, a broker hard kill and restart, dropped connections, provider
## faults, republished events) on its own database and RabbitMQ node; report in docs/drills/.
## CLUSTER=3: on a three-node cluster of its own, whose queue leader and a follower are killed;
## HOSTS=2: the two-host drill instead (network namespaces, one host's link cut; needs root);
## PLATFORM=shopify: the orders come from a Shopify shop's webhooks, each 2 to 4 times, out of order;
## DATABASE=patroni: on a PostgreSQL cluster of its own (three nodes on Patroni, a synchronous
## standby) whose primary is SIGKILLed twice and frozen once past Patroni's ttl;
## DATABASE=patroni-async: the same with asynchronous standbys (the counter-proof)
drill: venv services
	$(BIN)/python -m tools.drill --orders $(ORDERS) --cluster $(CLUSTER) --hosts $(HOSTS) --platform $(PLATFORM) \
	  --database $(DATABASE)

## drill-restore: a real database restore: pg_dump while orders flow, more orders, pg_restore,
## then the runbook's restore steps (docs/operations.md); ORDERS=300 unless given; report in
## docs/drills/restore-latest.*
drill-restore: ORDERS = 300
drill-restore: venv services
	$(BIN)/python -m tools.drill.restore --orders $(ORDERS)

## demo: a few minutes of a realistic shop against `make run` (started if it is not up): refused
## and bouncing addresses, dropped connections, a provider outage, paid and cancelled orders, and
## a Shopify and a WooCommerce shop's webhooks (retried, out of order); then it prints what to
## look at. DEMO_MINUTES (3) sets how long orders come in
DEMO_MINUTES ?= 3
demo: venv services
	$(BIN)/python -m tools.demo --minutes $(DEMO_MINUTES)

## drill-outage: the provider answers 503 to every send for OUTAGE_MINUTES (10) while orders
## arrive at OUTAGE_RATE (2/s), with the product's real retry clocks and a sending limit of
## OUTAGE_MAIL_RATE_LIMIT (5/s); every email must end sent (~15 min); report in docs/drills/.
## FALLBACK=brevo: a second provider takes over (MAIL_PROVIDER_FALLBACK); OUTAGE_KIND=drop: the
## first takes every send and drops the connection (every outcome unknown: none may move)
drill-outage: venv services
	$(BIN)/python -m tools.drill.outage --minutes $(OUTAGE_MINUTES) --rate $(OUTAGE_RATE) \
	  --mail-rate-limit $(OUTAGE_MAIL_RATE_LIMIT) --fallback "$(FALLBACK)" --kind $(OUTAGE_KIND)

## bench: the price of the guarantees, side by side with a naive pipeline and the raw limits,
## on its own database and vhost (~30 min); results in tools/bench/results/ (JSON, Markdown, chart)
bench: venv services
	$(BIN)/python -m tools.bench $(BENCH_ARGS)

## soak: worker and relay memory over a long run at a fixed rate (10 min at 50 orders/s)
soak: venv services
	$(BIN)/python -m tools.bench --phases soak --soak-seconds $(SOAK_SECONDS) --soak-rate $(SOAK_RATE)

## lint: style (ruff), the direction of the dependencies (import-linter), the types of the
## product packages (mypy with django-stubs); all configured in pyproject.toml
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## messages: re-extract the emails' catalogues (notifications/locale, en and ru) from their
## templates, then compile them with Babel (docs/email-content.md, "Translations").
## makemessages runs from inside notifications/ so it scans only that app; it needs GNU
## gettext (xgettext, msgmerge) on the developer's machine, the compiled .mo files do not.
messages: venv
	cd notifications && $(CURDIR)/$(BIN)/python ../manage.py makemessages -l en -l ru \
	  --extension html,txt --no-obsolete
	$(BIN)/python scripts/compile_messages.py
