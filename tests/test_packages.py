"""The two distributions agree with each other and with the code (#31 item 1).

card-arena-sdk (packages/card-arena-sdk: the core and the SDK) is what a bot author
installs: grpcio and protobuf, nothing more, so no module of it may import anything else
(the training environments may use their extra). card-arena (the top-level pyproject: the
arbiter, the bots) depends on it at exactly its own version, and every package of the
repository is in exactly one of the two. tests/e2e/test_wheels.py builds both and plays
from the author's alone.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
import tomllib

from tests.conftest import ROOT

AUTHOR_DIR = ROOT / "packages" / "card-arena-sdk"
AUTHOR = tomllib.loads((AUTHOR_DIR / "pyproject.toml").read_text())["project"]
PLATFORM_TOML = tomllib.loads((ROOT / "pyproject.toml").read_text())
PLATFORM = PLATFORM_TOML["project"]

#: The author's packages (hatch_build.py's list) and what each may import beyond the
#: standard library and the author's own packages: the distribution's dependencies.
AUTHOR_PACKAGES = ("cardarena", "sdk", "cardarena_envs")
RUNTIME = {"grpc", "google.protobuf"}
EXTRA = {"cardarena_envs": {"numpy", "gymnasium", "pettingzoo",  # the envs extra
                            "pyspiel", "open_spiel"}}  # the OpenSpiel adapter: only in the bench's own venv


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower()


def test_the_author_package_depends_on_grpcio_and_protobuf_only():
    assert sorted(_name(r) for r in AUTHOR["dependencies"]) == ["grpcio", "protobuf"]


def test_the_platform_pins_the_author_package_at_its_own_version():
    assert AUTHOR["version"] == PLATFORM["version"], "the two distributions are released together"
    pins = [r for r in PLATFORM["dependencies"] if _name(r) == "card-arena-sdk"]
    assert pins == [f"card-arena-sdk=={AUTHOR['version']}"]
    envs = PLATFORM["optional-dependencies"]["envs"]
    assert envs == [f"card-arena-sdk[envs]=={AUTHOR['version']}"], "the envs extra is the author package's"


def test_the_hook_ships_the_packages_listed_here():
    tree = ast.parse((AUTHOR_DIR / "hatch_build.py").read_text())
    listed = next(ast.literal_eval(n.value) for n in tree.body
                  if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PACKAGES")
    assert tuple(listed) == AUTHOR_PACKAGES


def test_every_package_is_in_exactly_one_distribution():
    include = PLATFORM_TOML["tool"]["setuptools"]["packages"]["find"]["include"]
    top = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")
    for name in top:
        in_platform = any(fnmatch.fnmatch(name, pattern) for pattern in include)
        assert in_platform != (name in AUTHOR_PACKAGES), \
            f"package {name!r} is in {'both distributions' if in_platform else 'neither distribution'}"


def _imports(path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module)
    return found


def test_the_author_code_imports_nothing_its_distribution_does_not_bring():
    own = set(AUTHOR_PACKAGES)
    wrong = []
    for package in AUTHOR_PACKAGES:
        allowed = RUNTIME | EXTRA.get(package, set())
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in _imports(path):
                top = module.split(".")[0]
                if top in own or top in sys.stdlib_module_names:
                    continue
                if not any(module == a or module.startswith(a + ".") for a in allowed):
                    wrong.append(f"{path.relative_to(ROOT)}: {module}")
    assert not wrong, "imports card-arena-sdk does not depend on: " + "; ".join(wrong)
