"""An import-linter contract that says what a package MAY import (an allow-list), for
``lint-imports`` (pyproject.toml ``[tool.importlinter] contract_types``).

import-linter's own contracts are deny-lists (``forbidden``) or owner lists (``protected``):
a new dependency nobody thought to forbid passes them. An ``allowlist`` contract names
everything its source packages may import directly, their own package included; any other
import breaks it, so jinja2 or the disclosure module appearing in an engine fails without
anyone having listed it first. Direct imports are enough: each allowed internal package is
held to its own contract, so what they bring in is checked where it is imported.

Loaded only by lint-imports (a tool of the dev environment), never by the product.
"""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain import helpers


class AllowListContract(Contract):
    """Options:
        - source_modules:  the packages (with their descendants) the contract holds;
        - allowed_modules: the only modules they may import directly (a name allows its
                           descendants too): the package itself, the core packages it
                           stands on, and the named standard-library modules.
    """

    type_name = "allowlist"

    source_modules = fields.ListField(subfield=fields.ModuleExpressionField())
    allowed_modules = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        allowed = tuple(self.allowed_modules)  # type: ignore[arg-type]
        sources = {m.name for m in helpers.module_expressions_to_modules(
            graph=graph, expressions=self.source_modules, as_packages=True)}  # type: ignore[arg-type]
        invalid = []
        for importer in sorted(sources):
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if any(imported == a or imported.startswith(a + ".") for a in allowed):
                    continue
                details = graph.get_import_details(importer=importer, imported=imported)
                invalid.append({"importer": importer, "imported": imported,
                                "lines": [(d["line_number"], d["line_contents"]) for d in details]})
        return ContractCheck(kept=not invalid, metadata={"invalid": invalid})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["invalid"]:
            output.print_error(f"{item['importer']} is not allowed to import {item['imported']}:", bold=True)
            for line_number, contents in item["lines"]:
                output.indent_cursor()
                output.print_error(f"{item['importer']}:{line_number}: {contents}")
            output.new_line()
