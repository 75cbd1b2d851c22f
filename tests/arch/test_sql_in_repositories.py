"""SQL lives in repositories: no module under app/ but a `repository.py` (and the table
definitions under app/models/, whose server defaults are SQL text) builds a statement."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
CONSTRUCTS = frozenset({"select", "text", "insert", "update", "delete"})


def _sql_imports(path: Path) -> list[str]:
    """The statement constructs a module imports from SQLAlchemy (or uses as sqlalchemy.X)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            found += [a.name for a in node.names if a.name in CONSTRUCTS]
        elif (isinstance(node, ast.Attribute) and node.attr in CONSTRUCTS
              and isinstance(node.value, ast.Name) and node.value.id in ("sa", "sqlalchemy")):
            found.append(node.attr)
    return found


def test_no_sql_outside_repositories() -> None:
    offenders = {
        str(path.relative_to(APP.parent)): names
        for path in sorted(APP.rglob("*.py"))
        if path.name != "repository.py" and "models" not in path.relative_to(APP).parts
        and (names := _sql_imports(path))
    }
    assert offenders == {}


def test_the_check_sees_a_statement(tmp_path: Path) -> None:
    module = tmp_path / "service.py"
    module.write_text(
        "from sqlalchemy import func, select\nimport sqlalchemy as sa\nsa.text('1')\n"
    )
    assert _sql_imports(module) == ["select", "text"]
