"""The rows our data migrations write (the reviewers' and the email editors' groups, with
their permissions), put back after a transactional test has emptied the tables.

A transactional test ends with Django's flush, which empties every table. Content types and
permissions come back by themselves (Django's post_migrate handlers make them again, under new
keys); the rows of our data migrations do not. In one pytest process that never mattered,
as pytest-django runs every transactional test after all the others; on several processes
(`make test`) a file of ordinary tests can come after a transactional one on the same process
and would find the groups gone. The rows are kept as they were after the migrations, with
natural keys, so the permissions they name are found again under their new keys."""

from django.apps import apps
from django.core import serializers
from django.core.management import call_command

# Made again by post_migrate after each flush; their rows are not ours to put back.
REMADE_BY_POST_MIGRATE = {"contenttypes.contenttype", "auth.permission"}


def migration_rows_dump() -> str:
    """Every row of the freshly migrated test database but those post_migrate makes again."""
    rows = [
        row
        for model in apps.get_models()
        if model._meta.label_lower not in REMADE_BY_POST_MIGRATE
        for row in model._base_manager.all()
    ]
    return serializers.serialize("json", rows, use_natural_foreign_keys=True, use_natural_primary_keys=True)


def migration_rows_restore(dump: str) -> int:
    """Write the dumped rows again (after a flush); returns how many."""
    restored = 0
    for row in serializers.deserialize("json", dump, handle_forward_references=True):
        row.save()
        restored += 1
    return restored


def database_empty(dump: str) -> None:
    """Empty every table as the end of a transactional test does (Django's flush, as
    TransactionTestCase calls it), then write the migrations' rows again."""
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False)
    migration_rows_restore(dump)
