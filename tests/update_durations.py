"""Write tests/durations.json (seconds per test file, setup and teardown included) from the
output of a run with ``--durations=0``, which tests/conftest.py's scheduler uses to hand the
longest files out first:

    bash scripts/test.sh --durations=0 | tee /tmp/run.txt
    .venv/bin/python tests/update_durations.py /tmp/run.txt
"""
from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"^\s*([0-9.]+)s (?:setup|call|teardown)\s+(\S+?\.py)::")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    total: dict[str, float] = collections.defaultdict(float)
    for line in Path(argv[0]).read_text(errors="replace").splitlines():
        if m := LINE.match(line):
            total[m.group(2)] += float(m.group(1))
    if not total:
        print(f"no --durations lines in {argv[0]}", file=sys.stderr)
        return 1
    out = Path(__file__).resolve().parent / "durations.json"
    out.write_text(json.dumps({k: round(v, 1) for k, v in sorted(total.items(), key=lambda kv: -kv[1])}, indent=1)
                   + "\n")
    print(f"{out}: {len(total)} files, {sum(total.values()) / 60:.1f} min in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
