"""The suite's CPU report (tests/suite_cpu.py) reads its plugin's files and the kernel's
process accounting records as they are written."""

from __future__ import annotations

import struct
from pathlib import Path

from tests import suite_cpu


def _acct_record(pid: int, started: int, utime: int, stime: int) -> bytes:
    """One ``struct acct_v3`` (64 bytes), times as comp_t clock ticks."""
    return struct.pack("<ccHIIIIIIf8H16s", b"\0", b"\3", 0, 0, 0, 0, pid, 1, started, 0.0,
                       utime, stime, 0, 0, 0, 0, 0, 0, b"python")


def test_comp_t_and_the_report_by_test_file_and_kind(tmp_path: Path):
    assert suite_cpu._comp(150) == 1.5
    assert suite_cpu._comp((1 << 13) | 10) == 0.8  # mantissa 10, exponent 1: 10 * 8 ticks
    (tmp_path / "gw0.tsv").write_text("tests/a.py::t1\t5.000\t1.000\t2.0\ntests/b.py::t2\t1.000\t1.000\t1.0\n")
    (tmp_path / "gw1.tsv").write_text("tests/a.py::t3\t2.000\t0.500\t1.0\n")
    boot = int(next(x for x in Path("/proc/stat").read_text().splitlines() if x.startswith("btime")).split()[1])
    (tmp_path / "procs.tsv").write_text(
        f"100\t500\tpython\t/v/bin/python -m arbiter web --db x\n"
        f"101\t600\tpython\t/v/bin/python /p/arbiter/hosting/zygote.py 5\n")
    (tmp_path / "acct").write_bytes(_acct_record(100, boot + 5, 120, 30) + _acct_record(101, boot + 6, 20, 0)
                                    + _acct_record(102, boot + 6, 999, 0))  # 102 was not one of the run's
    text = suite_cpu.report(tmp_path)
    assert "3 tests: 8 CPU-s in all, 2 in the workers themselves, 6 in the processes they started" in text
    assert "     7.0    1.5    2  tests/a.py" in text
    assert "       1     1.5  python -m arbiter web" in text
    assert "       1     0.2  fork server or forked bot (zygote.py)" in text
    assert "9.99" not in text and "10.0" not in text
