"""Statements per second: sqlglot parse_one (baseline) vs rplay parse() vs fingerprint().

The predictor caches analysis per fingerprint, so fingerprint() must cost a small fraction of a parse.
Runs the three interleaved over the same generated workload and prints rates and ratios.
Usage: .venv/bin/python benchmarks/parse_bench.py [--statements N] [--templates K]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import sqlglot

from predictor.fingerprint import fingerprint
from predictor.parse import parse

TEMPLATES = [
    "UPDATE accounts SET balance = balance - {n}.50, note = '{s}' WHERE id = {n} AND status = 'on' LIMIT 1",
    "INSERT INTO orders (customer_id, amount, note) VALUES ({n}, {n}.95, 'it''s {s}'), ({n}, {n}, \"x;{s}\")",
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
    "WHERE o.id IN ({n}, {n}, {n}) ORDER BY o.id DESC LIMIT 10",
    "DELETE FROM sessions WHERE expires < {n} AND user_id = {n} /* cleanup */",
    "REPLACE INTO kv (k, v) VALUES ('{s}', '{s}')",
    "INSERT INTO log SET msg = '{s}', level = {n}, at = NOW()",
    "SELECT COUNT(*) FROM t{k} WHERE a = {n} AND b LIKE '%{s}%'",
    "UPDATE t{k} SET c = c + 1 WHERE id BETWEEN {n} AND {n}",
]


def workload(statements: int, templates: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    shapes = [TEMPLATES[i % len(TEMPLATES)].replace("{k}", str(i)) for i in range(templates)]
    out = []
    for _ in range(statements):
        shape = rng.choice(shapes)
        while "{n}" in shape or "{s}" in shape:
            shape = shape.replace("{n}", str(rng.randint(0, 10**6)), 1).replace(
                "{s}", f"v{rng.random():.6f}", 1
            )
        out.append(shape)
    return out


def rate(fn: Callable[[str], object], sqls: list[str]) -> float:
    start = time.process_time()  # CPU time: other processes on a busy machine distort wall time
    for sql in sqls:
        fn(sql)
    return len(sqls) / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--statements", type=int, default=2000)
    ap.add_argument("--templates", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sqls = workload(args.statements, args.templates)
    base = [0.0] * args.rounds
    ours = [0.0] * args.rounds
    fps = [0.0] * args.rounds
    for r in range(args.rounds):  # interleaved so machine load hits all three alike
        base[r] = rate(lambda s: sqlglot.parse_one(s, read="mysql"), sqls)
        ours[r] = rate(parse, sqls)
        fps[r] = rate(fingerprint, sqls * 10)
    b, o, f = max(base), max(ours), max(fps)
    print(f"statements: {len(sqls)} from {args.templates} templates, best of {args.rounds} rounds")
    print(f"sqlglot parse_one (baseline): {b:10.0f} stmt/s")
    print(f"rplay parse():                {o:10.0f} stmt/s   ratio {o / b:5.2f}x")
    print(f"fingerprint():                {f:10.0f} stmt/s   ratio {f / b:5.1f}x")
    print(f"distinct fingerprints: {len({fingerprint(s) for s in sqls})}")


if __name__ == "__main__":
    main()
