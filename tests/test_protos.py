"""The committed stubs in cardarena/v1 are exactly what `make proto` generates."""

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.e2e
def test_generated_stubs_match_the_protos(tmp_path):
    protos = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "protos/cardarena/v1").glob("*.proto"))
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", "protos", f"--python_out={tmp_path}", f"--pyi_out={tmp_path}",
         f"--grpc_python_out={tmp_path}", *protos],
        cwd=ROOT, check=True,
    )
    generated = sorted(p.name for p in (tmp_path / "cardarena/v1").iterdir())
    committed = sorted(p.name for p in (ROOT / "cardarena/v1").iterdir() if p.suffix in (".py", ".pyi") and p.name != "__init__.py")
    assert generated == committed, "stub files differ: run `make proto`"
    for name in generated:
        assert filecmp.cmp(tmp_path / "cardarena/v1" / name, ROOT / "cardarena/v1" / name, shallow=False), (
            f"cardarena/v1/{name} is stale: run `make proto` and commit the result"
        )


def test_every_message_and_field_is_commented():
    """A bot in another language is written from the .proto alone."""
    import re

    for path in (ROOT / "protos/cardarena/v1").glob("*.proto"):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            s = line.strip()
            is_decl = re.match(r"^(message|enum|service|rpc|oneof)\s", s) or re.match(
                r"^(repeated\s+|optional\s+)?[\w.<>, ]+\s+\w+\s*=\s*\d+;", s
            )
            if not is_decl or s.startswith("//"):
                continue
            j = i - 1
            while j >= 0 and lines[j].strip().startswith("option"):
                j -= 1
            prev = lines[j].strip() if j >= 0 else ""
            assert prev.startswith("//") or "//" in s, f"{path.name}:{i + 1}: no comment on `{s}`"


def test_the_ladder_row_is_declared_once_and_the_wire_carries_its_fields():
    """A bot's standing in an arena is declared once (``arbiter.store.arenas.Standing``);
    the server sends it and the client reads it by those fields, so the wire message must
    carry exactly them (a field added to one and not the other fails here)."""
    from dataclasses import fields

    from arbiter.server.bots import standing_to_proto
    from arbiter.store.arenas import Standing
    from cardarena.v1 import bots_pb2 as bpb

    assert [f.name for f in fields(Standing)] == [f.name for f in bpb.LadderStanding.DESCRIPTOR.fields]
    s = Standing("ladder", "p1", "active", "", 27.5, 3.25, 4, 8, 1)
    msg = standing_to_proto(s)
    assert Standing(*(getattr(msg, f.name) for f in fields(Standing))) == s


def test_the_error_codes_are_the_same_in_the_proto_the_docs_and_the_arbiter():
    """A bot in another language learns the Error codes from arena.proto and the table of
    docs/other-languages.md: both name every code the arbiter sends and no other ("busy"
    was sent but missing from the table, and the proto said it was no longer sent)."""
    import re

    proto = (ROOT / "protos/cardarena/v1/arena.proto").read_text()
    error = proto[proto.index("message Error {"):]
    in_proto = set(re.findall(r'"([a-z_]+)"', error[:error.index("string code = 1;")]))
    docs = (ROOT / "docs/other-languages.md").read_text()
    table = docs[docs.index("## Errors"):docs.index("## Connecting")]
    in_docs = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    stream = (ROOT / "arbiter/server/botstream.py").read_text()
    runner = (ROOT / "arbiter/match/runner.py").read_text()
    sent = set(re.findall(r'_err\(\s*"([a-z_]+)"', stream)) | set(re.findall(r'return "([a-z_]+)", \(?f?"', stream))
    sent |= set(re.findall(r'reject\([^)]*?"([a-z_]+)"', runner)) | set(re.findall(r'_refused\([^)]*?"([a-z_]+)"', runner))
    assert sent >= {"auth", "version", "protocol", "busy", "flood", "unknown_request", "wrong_seat", "malformed",
                    "illegal", "crash", "late", "stopped"}, sent  # the patterns still find what the arbiter sends
    assert in_docs == sent, f"docs/other-languages.md's Errors table: {sorted(in_docs ^ sent)}"
    assert in_proto == sent, f"arena.proto's Error.code comment: {sorted(in_proto ^ sent)}"
