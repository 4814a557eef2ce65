"""DATABASE_URL takes one host, read exactly as before, or every node of a cluster in libpq's
multi-host form, handed to libpq as its host and port lists so that each new connection finds
the primary by itself (config/settings/database.py). No service needed."""

import re

import environ
import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.database import (
    DEFAULT_PORT,
    MULTI_HOST_CONNECT_TIMEOUT_SECONDS,
    database_config,
)

CLUSTER = "postgres://orders:s%2Cecret@db1:5432,db2:5433,db3:5434/orders?target_session_attrs=read-write"


@pytest.mark.parametrize(
    "url",
    [
        "postgres://postgres@127.0.0.1:5432/orders",
        "postgres://orders:secret@db.internal/orders",
        "postgresql://orders:p%40ss@[::1]:6432/orders?sslmode=require",
        "postgres://postgres@127.0.0.1:5432/orders?options=-c%20statement_timeout%3D5000",
        "postgres://postgres@127.0.0.1:5432/orders?connect_timeout=9",
    ],
)
def test_a_single_host_is_read_exactly_as_django_environ_reads_it(url):
    assert database_config(url) == environ.Env().db_url_config(url)


def test_every_host_and_its_port_go_to_libpq_as_lists_in_the_same_order():
    config = database_config(CLUSTER)
    assert (config["HOST"], config["PORT"]) == ("db1,db2,db3", "5432,5433,5434")
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("orders", "orders", "s,ecret")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["OPTIONS"]["target_session_attrs"] == "read-write"


def test_a_host_without_a_port_gets_libpqs_default_not_its_neighbours():
    config = database_config("postgres://u@db1,db2:6000,db3/orders?target_session_attrs=read-write")
    assert config["PORT"] == f"{DEFAULT_PORT},6000,{DEFAULT_PORT}"


def test_ipv6_hosts_lose_their_brackets_as_libpq_wants_them():
    config = database_config("postgres://u@[::1]:5432,[fd00::2]/orders?target_session_attrs=primary")
    assert (config["HOST"], config["PORT"]) == ("::1,fd00::2", f"5432,{DEFAULT_PORT}")


def test_several_hosts_get_a_connect_timeout_per_host_unless_the_url_gives_one():
    assert database_config(CLUSTER)["OPTIONS"]["connect_timeout"] == MULTI_HOST_CONNECT_TIMEOUT_SECONDS
    assert database_config(f"{CLUSTER}&connect_timeout=7")["OPTIONS"]["connect_timeout"] == 7


@pytest.mark.parametrize("query", ["", "?target_session_attrs=any", "?target_session_attrs=prefer-standby"])
def test_several_hosts_that_could_land_on_a_standby_are_refused_in_words(query):
    with pytest.raises(ImproperlyConfigured, match="target_session_attrs=read-write"):
        database_config(f"postgres://u@db1,db2/orders{query}")


@pytest.mark.parametrize(
    ("hosts", "said"),
    [
        ("db1:x,db2", "'db1:x' is not a host"),
        ("db1,", "'' is not a host"),
        ("db1:70000,db2", "'db1:70000' is not a host"),
        ("[::1]x,db2", "'[::1]x' is not a host"),
        ("[::1,db2", "is not a URL"),
    ],
)
def test_a_bad_host_entry_is_refused_in_words_without_the_password(hosts, said):
    url = f"postgres://u:hunter2@{hosts}/orders?target_session_attrs=read-write"
    with pytest.raises(ImproperlyConfigured, match=re.escape(said)) as refused:
        database_config(url)
    assert "hunter2" not in str(refused.value)


def test_libpq_s_other_parameters_in_the_url_reach_the_connection():
    # docs/deploy.md: TCP keepalives and tcp_user_timeout against a machine that died, set in the URL
    url = (
        "postgres://orders@db1:5432,db2:5432/orders?target_session_attrs=read-write"
        "&tcp_user_timeout=10000&keepalives_idle=10&keepalives_interval=2&keepalives_count=3"
    )
    options = database_config(url)["OPTIONS"]
    assert options["tcp_user_timeout"] == 10000
    assert (options["keepalives_idle"], options["keepalives_interval"], options["keepalives_count"]) == (
        10,
        2,
        3,
    )
