"""The report's schema: its identity, its version, and the JSON Schema file (schema.json) that
says what each version-1 document holds. A change that removes or renames a field, or changes
its meaning, raises the version; adding a field does not."""
from __future__ import annotations

import json
import os

SCHEMA_ID = "emutrace-report"
SCHEMA_VERSION = 1
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json")


def load_schema() -> dict:
    with open(SCHEMA_FILE, encoding="utf-8") as f:
        return json.load(f)
