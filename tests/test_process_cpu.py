"""scripts/process_cpu.py reads the kernel's accounting records (format 3) as the kernel writes
them: a comp_t's base-8 exponent, the command name, the sums by command and by cost."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("process_cpu", ROOT / "scripts" / "process_cpu.py")
process_cpu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(process_cpu)


def _record(name: str, pid: int, ppid: int, utime: int, stime: int, version: int = 3) -> bytes:
    head = struct.pack("<BBHIIIIIIf", 0, version, 0, 0, 0, 0, pid, ppid, 0, 0.0)
    times = struct.pack("<HH", utime, stime) + b"\0" * 12  # the other six comp_t fields
    return head + times + name.encode().ljust(16, b"\0")


def test_records_are_read_and_summed_by_command(tmp_path):
    # 250 ticks: 13-bit mantissa 250, exponent 0 -> 2.5 s; (1 << 13) | 100: 100 x 8 ticks -> 8 s
    path = tmp_path / "acct"
    path.write_bytes(_record("python", 10, 1, 250, 0) + _record("python", 11, 10, 1, 0)
                     + _record("chromium", 12, 1, (1 << 13) | 100, 50))
    rows = process_cpu.read(str(path))
    assert [(n, p, pp) for n, p, pp, _ in rows] == [("python", 10, 1), ("python", 11, 10), ("chromium", 12, 1)]
    assert [round(c, 2) for *_, c in rows] == [2.5, 0.01, 8.5]
    text = process_cpu.summary(rows)
    assert text.splitlines()[0] == "3 processes, 11.0 CPU-s"
    assert "8.5 CPU-s      1  chromium" in text and "2.5 CPU-s      2  python" in text
    assert "python processes of 0-0.05 CPU-s: 1, 0.0 CPU-s" in text and "python processes of 0.6-5 CPU-s: 1, 2.5 CPU-s" in text


def test_another_format_is_refused_by_name(tmp_path):
    path = tmp_path / "acct"
    path.write_bytes(_record("python", 1, 0, 1, 0, version=2))
    with pytest.raises(SystemExit, match="format 2, this reads format 3"):
        process_cpu.read(str(path))
