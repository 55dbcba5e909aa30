"""Decode speed of rplay's binlog decoder vs ``mariadb-binlog -vv`` (and python-mysql-replication).

Makes a ~30 MB ROW-format binlog on a throwaway local MariaDB (inserts, updates, deletes over a mixed-type
table, FULL images), then decodes the same file side by side and prints rows/s and the ratio.

    .venv/bin/python benchmarks/binlog_bench.py [--mb 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "harness")]

from binlog_server import LocalMariaDB  # noqa: E402

from harness.binlog.decoder import binlog_files, read_file  # noqa: E402
from harness.binlog.events import Rows  # noqa: E402


def make_binlog(server: LocalMariaDB, mb: int) -> None:
    rows = int(mb * 200_000 / 30)
    stmts = [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(64), c DATETIME, d DECIMAL(10,2),"
        " e TEXT NULL, f DOUBLE, g CHAR(8)) ENGINE=InnoDB",
        f"INSERT INTO t SELECT seq, seq % 100, CONCAT('name-', seq), NOW(), seq / 7,"
        f" IF(seq % 3 = 0, NULL, REPEAT('x', seq % 50)), seq * 1.5, 'abc' FROM seq_1_to_{rows}",
        "UPDATE t SET a = a + 1 WHERE id % 2 = 0",
        "DELETE FROM t WHERE id % 5 = 0",
    ]
    with server.connect("test") as c, c.cursor() as cur:
        for s in stmts:
            cur.execute(s)
        cur.execute("FLUSH BINARY LOGS")


def time_tool_devnull(path: Path) -> float:
    t = time.perf_counter()
    subprocess.run(["mariadb-binlog", "--base64-output=decode-rows", "-vv", str(path)],
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def time_rplay(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    n = sum(e.rows for e in read_file(path) if isinstance(e, Rows))
    return time.perf_counter() - t, n


def time_tool(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    out = subprocess.run(["mariadb-binlog", "--base64-output=decode-rows", "-vv", str(path)],
                         stdout=subprocess.PIPE, check=True).stdout
    el = time.perf_counter() - t
    n = sum(int(line.rsplit(b":", 1)[1]) for line in out.splitlines()
            if line.startswith(b"# Number of rows:"))
    return el, n


def time_pymysqlreplication(server: LocalMariaDB, expected: int, limit: float) -> str:
    try:
        from pymysqlreplication import BinLogStreamReader
        from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent
    except ImportError:
        return "not installed (pip install mysql-replication)"
    result: dict[str, object] = {}

    def run() -> None:
        try:
            stream = BinLogStreamReader(
                connection_settings={"host": server.host, "port": server.port, "user": server.user,
                                     "passwd": server.password},
                server_id=99, blocking=False, is_mariadb=True, log_file="binlog.000001", log_pos=4,
                only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
            t = time.perf_counter()
            n = 0
            for ev in stream:
                n += len(ev.rows)
                if "stop" in result:
                    break
            result["time"] = time.perf_counter() - t
            result["rows"] = n
            stream.close()
        except Exception as e:  # report, never crash the benchmark
            result["error"] = repr(e)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(limit)
    if th.is_alive():
        result["stop"] = True
        return f"did not finish within {limit:.0f} s (no usable result)"
    if "error" in result:
        return f"failed: {result['error']}"
    rows, el = int(result["rows"]), float(result["time"])  # type: ignore[call-overload, arg-type]
    if rows != expected:
        return f"decoded {rows} rows, expected {expected} in {el:.2f} s"
    return f"{rows / el:,.0f} rows/s ({el:.2f} s)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rplay-bench-"))
    try:
        with LocalMariaDB(["--binlog-format=ROW", "--binlog-row-image=FULL", "--binlog-row-metadata=FULL",
                           "--max-binlog-size=1G"]) as server:
            make_binlog(server, args.mb)
            path = binlog_files(server.binlog_dir())[0]
            f = tmp / path.name
            shutil.copy(path, f)
            size = f.stat().st_size / 1e6
            ours = min((time_rplay(f) for _ in range(args.repeat)), key=lambda r: r[0])
            tool = min((time_tool(f) for _ in range(args.repeat)), key=lambda r: r[0])
            print(f"binlog: {size:.1f} MB, {ours[1]:,} row images (mariadb-binlog counts {tool[1]:,})")
            if ours[1] != tool[1]:
                print("ERROR: row counts differ")
                return 1
            print(f"rplay decoder     : {ours[1] / ours[0]:>12,.0f} rows/s  ({ours[0]:.3f} s)")
            print(f"mariadb-binlog -vv: {tool[1] / tool[0]:>12,.0f} rows/s  ({tool[0]:.3f} s)")
            devnull = min(time_tool_devnull(f) for _ in range(args.repeat))
            print(f"mariadb-binlog -vv >/dev/null (decode only, output unread): "
                  f"{tool[1] / devnull:,.0f} rows/s ({devnull:.3f} s)")
            print(f"ratio rplay / mariadb-binlog (output read and counted): {tool[0] / ours[0]:.2f}x")
            print(f"ratio rplay / mariadb-binlog (>/dev/null): {devnull / ours[0]:.2f}x (target >= 1x)")
            print(f"python-mysql-replication: {time_pymysqlreplication(server, ours[1], 120.0)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
