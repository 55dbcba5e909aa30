"""Observe speed (binlog units attributed to statements) of this tree vs a baseline git revision.

    .venv/bin/python benchmarks/observe_bench.py [--statements 20000] [--repeat 3] [--baseline 86e5671]

Replays one mixed workload (comments, triggers, stored functions, CREATE ... SELECT, DROP of several tables,
savepoints) on a local MariaDB pair, decodes the primary's binlog once, then times ``observe_events`` on the
same executions and events in two fresh interpreters: the baseline revision's ``harness`` + ``predictor``
(``git archive``, e.g. the regular-expression matcher) and this tree's. Prints both and the ratio.
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.backends.base import Flavor  # noqa: E402
from harness.backends.local import LocalBackend  # noqa: E402
from harness.binlog.decoder import read_dir  # noqa: E402
from harness.replay import ReplayOptions, replay  # noqa: E402
from predictor.workload import parse_workload  # noqa: E402

TIMER = """
import hashlib, pickle, sys, time
sys.path.insert(0, sys.argv[1])
from harness.observe import observe_events
import harness.observe
assert harness.observe.__file__.startswith(sys.argv[1]), harness.observe.__file__
with open(sys.argv[2], "rb") as f:
    executions, events = pickle.load(f)
best = float("inf")
for _ in range(int(sys.argv[3])):
    t = time.perf_counter()
    obs = observe_events(executions, events, columns=lambda tables: {})
    best = min(best, time.perf_counter() - t)
print(best, hashlib.sha256(repr(obs.records).encode()).hexdigest()[:16])
"""


def workload_text(n: int) -> str:
    lines = ["CREATE TABLE ti (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=InnoDB;",
             "CREATE TABLE tm (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=MyISAM;",
             "CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(64)) ENGINE=InnoDB;",
             "DELIMITER //",
             "CREATE TRIGGER tr AFTER UPDATE ON ti FOR EACH ROW INSERT INTO audit (note) VALUES ('u')//",
             "CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x + 1//",
             "DELIMITER ;"]
    i = 0
    while len(lines) < n:
        i += 1
        t = "ti" if i % 2 else "tm"
        k = i % 10
        if k in (0, 1, 2):
            lines.append(f"INSERT INTO {t} VALUES ({i}, {i % 97}, 'row-{i}'); ")
        elif k == 3:
            lines.append(f"/* c{i} */ UPDATE {t} SET a = a + 1 WHERE id = {i - 3};")
        elif k == 4:
            lines.append(f"DELETE FROM {t} WHERE id = {i - 4};")
        elif k == 5:
            lines.append(f"INSERT INTO `{t}` VALUES ({i}, f({i}), 'fn');")
        elif k == 6:
            lines += ["BEGIN;", f"SAVEPOINT s{i};", f"INSERT INTO ti VALUES ({i}, 0, 'sp');",
                      f"ROLLBACK WORK TO SAVEPOINT s{i};", "COMMIT;"]
        elif k == 7:
            lines.append(f"SELECT f({i});")
        elif k == 8 and i % 100 == 8:
            lines += [f"CREATE TABLE c{i} SELECT * FROM ti LIMIT 3;", f"CREATE TABLE d{i} (a INT);",
                      f"DROP TABLE c{i}, d{i};"]
        else:
            lines.append(f"INSERT INTO {t} VALUES ({i}, {i % 89}, 'x') -- tail\n;")
    return "\n".join(lines) + "\n"


def capture(n: int, path: Path) -> int:
    wl = parse_workload(workload_text(n), "observe_bench.sql")
    with LocalBackend(Flavor.MARIADB).start_pair({"binlog_format": "MIXED"}) as pair:
        result = replay(wl, pair, ReplayOptions())
        if result.error is not None:
            raise SystemExit(str(result.error))
        events = list(read_dir(pair.primary.binlog_dir()))
    with open(path, "wb") as f:
        pickle.dump((result.executions, events), f)
    return len(events)


def time_tree(tree: Path, data: Path, repeat: int) -> tuple[float, str]:
    r = subprocess.run([sys.executable, "-c", TIMER, str(tree), str(data), str(repeat)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"timing {tree} failed:\n{r.stderr[-2000:]}")
    best, digest = r.stdout.split()
    return float(best), digest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--statements", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", default="86e5671", help="git revision to compare with")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rplay-obs-bench-") as tmp:
        base = Path(tmp) / "baseline"
        base.mkdir()
        archive = Path(tmp) / "baseline.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.baseline,
                        "harness", "predictor"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(base, filter="data")
        data = Path(tmp) / "run.pickle"
        n_events = capture(args.statements, data)
        b, b_digest = time_tree(base, data, args.repeat)
        c, c_digest = time_tree(ROOT, data, args.repeat)
        print(f"observe_events, {args.statements} statements, {n_events} events (best of {args.repeat}): "
              f"baseline {args.baseline} {b:.2f}s  this tree {c:.2f}s  ratio {c / b:.2f}x")
        same = "same records" if b_digest == c_digest else "RECORDS DIFFER"
        print(f"records digest: baseline {b_digest}, this tree {c_digest} ({same})")


if __name__ == "__main__":
    main()
