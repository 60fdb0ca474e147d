"""Vetting a bot before it is hosted: the self-test, run in the bot's own sandbox.

The untrusted code runs confined (``sandbox``), in a process of its own; the smoke match
that follows it is refereed by the arbiter (``arbiter.batch.submissions``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from arbiter.hosting import botenv
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botcheck import Report
from arbiter.hosting.loading import shadowing
from cardarena.runtimes import ManifestError, manifest_of


def overran(timeout: float, positions: int) -> str:
    """Why a self-test that ran out of time failed, in words an author can act on: it asked
    "a decision that never returns?" of a bot whose every decision returned, but whose
    answers, each within the limit, were too slow together (at 0.5 s a decision, 200
    positions and as many again for determinism take more than 120 s)."""
    return (f"did not finish within {timeout:.0f} s: a decision that never returns, or answers too slow together "
            f"({positions} positions a game, as many again for determinism if it says it is deterministic, must all "
            f"fit in it: under {timeout / (2 * positions):.2g} s a decision on average, whatever the limit of one)")


async def self_test(
    path: str | os.PathLike,
    *,
    positions: int = 200,
    decision_ms: int = 2000,
    sandbox: sb.Sandbox | None = None,
    timeout: float = 120.0,
) -> Report:
    """Run the self-test of ``arbiter.hosting.botcheck`` on the bot at ``path``, confined
    in ``sandbox``; its report (a failed one names what went wrong).

    A coroutine, so that a check is one run, stopped as any run is: cancelled (a remote
    submission whose caller is gone, ``arbiter.batch.submissions``), it kills the check's
    process and its session at once, where a blocking wait ran it to its end."""
    box = sandbox or sb.Sandbox()
    path = Path(path).resolve()
    spec = box.code_path(path)
    report = Report(str(path))
    python, system = sys.executable, ()
    try:  # a bot that declares packages runs its self-test in their environment, as it plays
        manifest = manifest_of(path) if path.is_dir() else None
        if manifest is not None and manifest.requirements:
            bot_env = botenv.ensure(path, manifest.requirements)
            python, system = str(botenv.python_of(bot_env)), botenv.visible_dirs(bot_env)
    except (ManifestError, botenv.BotEnvError) as exc:
        report.add("environment", False, str(exc))
        return report
    if why := shadowing(path):
        # its check process would import the bot's module in the SDK's place, and end in the
        # SDK's traceback before it could report
        report.add("import", False, why)
        return report
    argv = [python, "-m", "arbiter.hosting.botcheck", spec, "--positions", str(positions), "--decision-ms", str(decision_ms)]
    env = {"PYTHONPATH": box.code_path(path)} if path.is_dir() else {}
    launch = box.prepare(argv, code=[path], env=env, needs_arbiter=False, system=system)
    try:
        proc = subprocess.Popen(launch.argv, env=launch.env, cwd=launch.cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except BaseException:
        sb.cleanup(launch.workdir)
        raise
    try:
        stdout, stderr = await asyncio.to_thread(proc.communicate, timeout=timeout)
        lines = [ln for ln in stdout.decode("utf-8", "replace").splitlines() if ln.startswith("{")]
        if not lines:
            tail = box.to_host(stderr.decode("utf-8", "replace"), [path]).strip().splitlines()[-8:]
            report.add("self-test", False, f"the check process ended (code {proc.returncode}) without a report: " + " | ".join(tail))
            return report
        report = Report.from_dict(json.loads(lines[-1]))
        report.spec = str(path)
        for c in report.checks:  # the author's own path, not the one the sandbox showed the bot
            c.detail = box.to_host(c.detail, [path])
    except subprocess.TimeoutExpired:
        report.add("self-test", False, overran(timeout, positions))
        return report
    except (ValueError, KeyError) as exc:
        report.add("self-test", False, f"unreadable report: {exc}")
        return report
    finally:
        # out of time, or cancelled: the process and its session (a bot's own children too);
        # its communicate then ends, the pipes closed
        sb.kill_tree(proc)
        sb.cleanup(launch.workdir)
    return report
