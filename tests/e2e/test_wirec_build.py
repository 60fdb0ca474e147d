"""The C extensions' build: packages/card-arena-sdk/hatch_build.py compiles
cardarena/wire/_wirec.c and arbiter/hosting/_copyc.c when make venv installs the author's
package editable; without a compiler it says so and the Python code serves
(docs/performance.md, issue 42 and "One venue, one record")."""

from __future__ import annotations

import importlib.util
import shutil
import sysconfig
from pathlib import Path

import pytest

from cardarena.wire import codec

ROOT = Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location("hatch_build_under_test", ROOT / "packages/card-arena-sdk/hatch_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout's top with the extension's source, and where its build goes."""
    wire = tmp_path / "cardarena" / "wire"
    wire.mkdir(parents=True)
    shutil.copy(ROOT / "cardarena" / "wire" / "_wirec.c", wire)
    return tmp_path, wire / ("_wirec" + sysconfig.get_config_var("EXT_SUFFIX"))


def test_the_hook_compiles_the_extension_the_codec_loads(tmp_path):
    if shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) is None:
        pytest.skip("no C compiler on this machine")
    top, target = _checkout(tmp_path)
    _hook().build_wirec(top)
    spec = importlib.util.spec_from_file_location("_wirec", target)
    built = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(built)
    assert built.VERSION == codec._WIREC_VERSION  # else the codec would take it for a stale build and not use it
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(["_wirec.c", target.name])  # no temporary left


def test_without_a_compiler_the_install_says_so_and_builds_nothing(tmp_path, monkeypatch, capsys):
    top, target = _checkout(tmp_path)
    hook = _hook()
    real = sysconfig.get_config_var
    monkeypatch.setattr(hook.sysconfig, "get_config_var", lambda name: "/nonexistent/cc" if name == "CC" else real(name))
    hook.build_wirec(top)
    assert sorted(p.name for p in target.parent.iterdir()) == ["_wirec.c"]
    assert "the C wire encoder was not built" in capsys.readouterr().err


def test_the_hook_compiles_the_copier_the_in_process_seat_loads(tmp_path):
    """The same hook builds arbiter/hosting/_copyc.c (an in-process seat's copies); a build
    whose VERSION is not the one inprocess.py expects would be taken for stale and not used,
    and the copy tests' C runs skipped."""
    if shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) is None:
        pytest.skip("no C compiler on this machine")
    from arbiter.hosting import inprocess

    hosting = tmp_path / "arbiter" / "hosting"
    hosting.mkdir(parents=True)
    shutil.copy(ROOT / "arbiter" / "hosting" / "_copyc.c", hosting)
    _hook().build_wirec(tmp_path)
    target = hosting / ("_copyc" + sysconfig.get_config_var("EXT_SUFFIX"))
    spec = importlib.util.spec_from_file_location("_copyc", target)
    built = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(built)
    assert built.VERSION == inprocess._COPYC_VERSION
    assert sorted(p.name for p in hosting.iterdir()) == sorted(["_copyc.c", target.name])  # no temporary left
