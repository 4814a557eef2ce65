"""docs/personal-data.md maps every text column of the database: each is either in its table of
columns that hold personal data or in its table of columns that hold none, never both, and
every table and column it names exists. A new column that can hold what a person wrote or
something about a person fails here until someone decides, in the document, which it is.

Read from the document and Django's model registry alone (no database needed): every concrete
model of every installed app, ours and the third-party ones (admin, auth, sessions, Celery's
results), except the tools' own (the bench's naive pipeline, when a tool installs it).
"""

import re
from collections.abc import Iterable
from pathlib import Path

from django.apps import apps
from django.db import models

from orders.models import Order

DOC = Path(__file__).resolve().parents[2] / "docs" / "personal-data.md"
PERSONAL_HEADING = "## Columns that hold personal data"
NOT_PERSONAL_HEADING = "## Columns that hold no personal data"
# Fields that can hold text a person wrote, or text about a person. EmailField, URLField and
# SlugField are CharFields; a CharField with `choices` holds one of a fixed set of words.
TEXT_FIELDS = (
    models.CharField,
    models.TextField,
    models.JSONField,
    models.EmailField,
    models.GenericIPAddressField,
    models.URLField,
    models.SlugField,
    models.BinaryField,
)
_MODEL_CELL = re.compile(r"`([\w.]+)`")

ColumnMap = dict[str, set[str]]  # model label -> field names


def covered_models() -> list[type[models.Model]]:
    """Every concrete model of the installed apps (a proxy shares its model's table), but the
    tools' own."""
    return [
        model
        for model in apps.get_models()
        if not model._meta.proxy and not model._meta.app_config.name.startswith("tools.")
    ]


def text_fields(model: type[models.Model]) -> list[str]:
    """The columns of the model that can hold a person's words or words about a person."""
    return [
        field.name
        for field in model._meta.concrete_fields
        if isinstance(field, TEXT_FIELDS) and not (isinstance(field, models.CharField) and field.choices)
    ]


def map_tables(text: str) -> tuple[ColumnMap, ColumnMap]:
    """The document's two tables: (personal, not personal)."""
    return _table_under(text, PERSONAL_HEADING), _table_under(text, NOT_PERSONAL_HEADING)


def _table_under(text: str, heading: str) -> ColumnMap:
    """The rows of the first table after `heading`: `| `app.Model` | field, field | …`."""
    lines = text.splitlines()
    assert heading in lines, f"docs/personal-data.md has no section {heading!r}"
    mapped: ColumnMap = {}
    in_table = False
    for line in lines[lines.index(heading) + 1 :]:
        if not line.startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        model = _MODEL_CELL.fullmatch(cells[0])
        if model is None or len(cells) < 2:
            continue  # the header and the separator
        names = {name.strip(" `") for name in cells[1].split(",")}
        mapped.setdefault(model[1], set()).update(name for name in names if name)
    return mapped


def map_problems(
    models_covered: Iterable[type[models.Model]], personal: ColumnMap, not_personal: ColumnMap
) -> list[str]:
    """What is wrong with the map for these models, one line each: a text column in neither
    table, a column in both, a table or column the map names that does not exist."""
    columns = {model._meta.label: model for model in models_covered}
    problems = []
    for label, model in columns.items():
        for name in text_fields(model):
            if name not in personal.get(label, set()) | not_personal.get(label, set()):
                problems.append(
                    f"{label}.{name} is not mapped: add it to docs/personal-data.md, to the table of "
                    "columns that hold personal data or to the one of columns that hold none"
                )
    for label in sorted(personal.keys() & not_personal.keys()):
        for name in sorted(personal[label] & not_personal[label]):
            problems.append(f"{label}.{name} is in both tables of docs/personal-data.md: keep it in one")
    for label in sorted(personal.keys() | not_personal.keys()):
        if label not in columns:
            problems.append(f"docs/personal-data.md names {label}, which is no model here: remove its rows")
            continue
        existing = {field.name for field in columns[label]._meta.concrete_fields}
        for name in sorted((personal.get(label, set()) | not_personal.get(label, set())) - existing):
            problems.append(f"docs/personal-data.md names {label}.{name}, which does not exist: remove it")
    return problems


def test_the_map_covers_the_personal_data_tables_and_the_third_party_ones():
    # a check over nothing would pass whatever the document says
    personal, not_personal = map_tables(DOC.read_text())
    labels = {model._meta.label for model in covered_models()}
    assert {"orders.Order", "notifications.Suppression", "admin.LogEntry", "sessions.Session"} <= labels
    assert "django_celery_results.TaskResult" in labels
    assert {"customer_email", "customer_name"} <= personal["orders.Order"]
    assert "address" in personal["notifications.Suppression"]
    assert "address_hash" in not_personal["notifications.Suppression"]
    assert sum(len(text_fields(model)) for model in covered_models()) > 150


def test_every_text_column_is_mapped_once_and_every_mapped_column_exists():
    # given the document's two tables and the models of every installed app
    personal, not_personal = map_tables(DOC.read_text())
    # when the map is checked against them
    problems = map_problems(covered_models(), personal, not_personal)
    # then nothing is missing, doubled or gone
    assert not problems, "\n".join(problems)


def test_a_column_missing_from_the_map_is_named_with_where_to_add_it():
    # given the document's rows of the order, without its customer_email
    personal, not_personal = _rows_of_the_order()
    personal["orders.Order"].remove("customer_email")
    # when the map is checked against the order's model
    problems = map_problems([Order], personal, not_personal)
    # then the one column is named, with what to do
    assert problems == [
        "orders.Order.customer_email is not mapped: add it to docs/personal-data.md, to the table of "
        "columns that hold personal data or to the one of columns that hold none"
    ]


def test_a_column_in_both_tables_and_rows_of_what_does_not_exist_are_reported():
    # given the document's rows of the order, with a column in both tables, a made-up column
    # and a made-up model
    personal, not_personal = _rows_of_the_order()
    not_personal["orders.Order"] |= {"customer_name", "shoe_size"}
    personal["orders.GiftWrap"] = {"recipient"}
    # when the map is checked against the order's model
    problems = map_problems([Order], personal, not_personal)
    # then each is named
    assert problems == [
        "orders.Order.customer_name is in both tables of docs/personal-data.md: keep it in one",
        "docs/personal-data.md names orders.GiftWrap, which is no model here: remove its rows",
        "docs/personal-data.md names orders.Order.shoe_size, which does not exist: remove it",
    ]


def test_a_table_is_read_from_its_rows_under_its_heading():
    text = "\n".join(
        [
            "## Columns that hold personal data",
            "",
            "Some words first.",
            "",
            "| Table | Columns | What |",
            "|---|---|---|",
            "| `orders.Order` | customer_email, `customer_name` | the customer |",
            "| `orders.Order` | number | again |",
            "",
            "| `orders.Refund` | reason | a second table, not read |",
            "## Columns that hold no personal data",
            "| `orders.Order` | currency | a code |",
        ]
    )
    assert map_tables(text) == (
        {"orders.Order": {"customer_email", "customer_name", "number"}},
        {"orders.Order": {"currency"}},
    )


def _rows_of_the_order() -> tuple[ColumnMap, ColumnMap]:
    """The document's two tables, reduced to their rows of orders.Order."""
    personal, not_personal = map_tables(DOC.read_text())
    label = Order._meta.label
    return {label: set(personal[label])}, {label: set(not_personal[label])}
