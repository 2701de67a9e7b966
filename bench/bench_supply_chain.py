"""Known vulnerabilities in the installed environment (boardref, its dependencies
and the tools the tests and benches use), by ``pip-audit`` against its vulnerability
source (PyPI's advisory data).

A dependency pip-audit could not look up is not clean: when its source cannot be
reached (offline, a filtering proxy) pip-audit may still say "No known
vulnerabilities found" while it skipped every package, so this bench counts what was
really audited and prints "not checked: <why>" unless every dependency was. Prints
one JSON line; exits 1 when not everything was checked or something is vulnerable.
The smoke run sends pip-audit to a proxy that does not answer, so it must end in
"not checked" (and exits 1 if it does not): it never needs the network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from smoke import SMOKE

#: a proxy address nothing listens on: the smoke run's unreachable source
NOWHERE = "http://127.0.0.1:9"
#: how long pip-audit may take to look up every dependency
SECONDS = 600


def audit(proxy: str | None = None) -> dict:
    """pip-audit over this interpreter's environment: what was audited, what was
    skipped and why, the vulnerabilities found; ``checked`` only when nothing was
    skipped."""
    tool = shutil.which("pip-audit", path=str(Path(sys.executable).parent)) or shutil.which(
        "pip-audit"
    )
    if tool is None:
        return not_checked("pip-audit is not installed (pip install -e '.[dev]')")
    env = dict(os.environ)
    if proxy is not None:
        env.update(HTTPS_PROXY=proxy, HTTP_PROXY=proxy, https_proxy=proxy, http_proxy=proxy)
    try:
        done = subprocess.run(
            [tool, "--local", "--format", "json", "--progress-spinner", "off"],
            capture_output=True,
            text=True,
            env=env,
            timeout=SECONDS,
        )
    except subprocess.TimeoutExpired:
        return not_checked(f"pip-audit took longer than {SECONDS} s")
    try:
        found = json.loads(done.stdout)
    except ValueError:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        why = said[-1] if said else f"pip-audit exited {done.returncode} with no report"
        return not_checked(f"its vulnerability source could not be reached: {why[:200]}")
    dependencies = found.get("dependencies", [])
    skipped = [d for d in dependencies if d.get("skip_reason")]
    vulnerable = sorted(
        f"{d['name']} {d.get('version', '')}: {', '.join(v['id'] for v in d['vulns'])}"
        for d in dependencies
        if d.get("vulns")
    )
    result = {
        "audited": len(dependencies) - len(skipped),
        "skipped": len(skipped),
        "vulnerable": vulnerable or None,
    }
    if skipped or not dependencies:
        why = skipped[0]["skip_reason"] if skipped else "pip-audit listed no dependency"
        return {
            **not_checked(f"{len(skipped)} of {len(dependencies)} not audited: {why}"),
            **result,
        }
    return {"checked": True, "said": "vulnerable" if vulnerable else "clean", **result}


def not_checked(why: str) -> dict:
    return {"checked": False, "said": f"not checked: {why}"}


def main() -> int:
    found = audit(NOWHERE if SMOKE else None)
    print(json.dumps({"bench": "supply_chain", **found}), flush=True)
    print(found["said"], file=sys.stderr)
    if SMOKE:  # an unreachable source must never read as clean
        return 0 if not found["checked"] else 1
    return 0 if found["checked"] and not found.get("vulnerable") else 1


if __name__ == "__main__":
    sys.exit(main())
