"""Predicted statements/s vs sqlglot ``parse_one`` alone on the same statements, side by side.

Two workloads: (1) distinct statements — every statement text differs (its own table, columns and
literals, so neither the text nor the template caches can help); (2) 100k statements drawn from 50
templates with varying literals (template_key serves the analysis, autocommitted DML is replayed).
Targets: ratio >= 1x on (1), >= 20x on (2). Both sides count CPU time (process_time), best of 5, timed
alternately: on a shared machine wall time moves with the load far more. parse_one is timed on a
3000-statement sample, as parsing 100k statements alone takes minutes.

Measured 2026-11-22 (session 14) on the 2-core dev machine, the two sides timed alternately: distinct
2.4-2.6x (predict 6.5-9.3k stmt/s), templates 23.9-27.5x (predict 65-74k stmt/s, parse_one 2.6-2.7k stmt/s).
Timed one after the other, the same code gave 17.1-25.1x in three runs (parse_one 2.9-4.2k stmt/s).
See predictor/PERFORMANCE.md.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlglot

from predictor.predict import predict_workload
from predictor.workload import parse_workload

TEMPLATES = [
    "INSERT INTO t{k} (id, a, b) VALUES ({i}, {j}, 'v{j}')",
    "UPDATE t{k} SET a = a + {j} WHERE id = {i}",
    "DELETE FROM t{k} WHERE id = {i}",
    "INSERT INTO m{k} VALUES ({i}, {j}, 'x')",
    "UPDATE m{k} SET b = 'y{j}' WHERE id = {i} LIMIT 1",
    "SELECT a, b FROM t{k} WHERE id = {i}",
    "REPLACE INTO m{k} (id, a) VALUES ({i}, {j})",
    "INSERT INTO t{k} (id, a) SELECT id + {i}, a FROM m{k} WHERE a > {j}",
    "UPDATE t{k} SET a = RAND() WHERE id = {i}",
    "INSERT INTO t{k} (id, a, b) VALUES ({i}, {j}, UUID())",
]


def schema(tables: int) -> list[str]:
    out = []
    for k in range(tables):
        out.append(f"CREATE TABLE t{k} (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=InnoDB;")
        out.append(f"CREATE TABLE m{k} (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=MyISAM;")
    return out


def distinct_workload(n: int) -> list[str]:
    rnd = random.Random(1)
    stmts = []
    for x in range(n):
        tpl = TEMPLATES[x % len(TEMPLATES)]
        # a distinct table and column list per statement defeats every cache
        sql = tpl.format(k=x % 25, i=rnd.randint(1, 10**6), j=rnd.randint(1, 10**6))
        stmts.append(sql.replace(" a ", f" a /* {x} */ ") if "SELECT" in sql else sql + f" -- {x}")
    return stmts


def template_workload(n: int, templates: int = 50) -> list[str]:
    rnd = random.Random(2)
    tpls = [(TEMPLATES[i % len(TEMPLATES)], i % 5) for i in range(templates)]
    return [tpl.format(k=k, i=rnd.randint(1, 10**6), j=rnd.randint(1, 10**6))
            for tpl, k in (tpls[rnd.randrange(templates)] for _ in range(n))]


def rates(stmts: list[str], tables: int, sample: int, repeat: int = 5) -> tuple[float, float]:
    """(predicted statements/s, parse_one statements/s), best of ``repeat`` each, the two timed alternately so
    that both see the same state of a shared machine (timed one after the other, the ratio moved by a third
    between runs with the machine's load, mostly parse_one's side)."""
    text = "\n".join(schema(tables) + [s + ";" for s in stmts])
    w = parse_workload(text)
    part = stmts[:sample]
    best_predict = best_parse = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        predict_workload(w, "mariadb-10.11", {"binlog_format": "MIXED"})
        best_predict = min(best_predict, time.process_time() - t0)
        t0 = time.process_time()
        for sql in part:
            sqlglot.parse_one(sql, read="mysql")
        best_parse = min(best_parse, time.process_time() - t0)
    return len(w.statements) / best_predict, len(part) / best_parse


def main() -> None:
    d = distinct_workload(3000)
    p_rate, b_rate = rates(d, 25, 3000)
    print(f"distinct statements (3000): predict {p_rate:,.0f} stmt/s | parse_one {b_rate:,.0f} stmt/s "
          f"| ratio {p_rate / b_rate:.2f}x (target >= 1x)")
    t = template_workload(100_000)
    p_rate, b_rate = rates(t, 5, 3000)
    print(f"100k statements from 50 templates: predict {p_rate:,.0f} stmt/s | parse_one {b_rate:,.0f} stmt/s "
          f"| ratio {p_rate / b_rate:.1f}x (target >= 20x)")


if __name__ == "__main__":
    main()
