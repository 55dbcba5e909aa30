"""junit.xml: one testcase per statement x dimension, a failure per mismatch (for CI test tabs)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from harness.compare.columnar import EXCLUDED
from harness.compare.results import Report
from predictor.records import DIMENSIONS

MAX_FAILURES = 10_000
"""Without per-statement verdicts, junit.xml lists at most this many failing testcases (ordered by run,
seq and dimension): CI test tabs do not show more, and 600k of them took 12 s to write.
mismatches.parquet always has every one."""

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: Any) -> str:
    return _XML_BAD.sub("\ufffd", str(text))


def _case(suite: ET.Element, run: str, seq: int, dim: str, sql: str) -> ET.Element:
    name = _clean(f"seq {seq}: {sql}"[:200])
    return ET.SubElement(suite, "testcase", classname=_clean(f"{run}.{dim}"), name=name, time="0")


def write_junit(report: Report, path: Path, max_failures: int = MAX_FAILURES) -> None:
    """Every statement x dimension when the per-statement verdicts were collected, else the first
    ``max_failures`` failures."""
    listed = report.mismatches if report.statements is not None else report.mismatches.slice(0, max_failures)
    failures: dict[tuple[str, int, str], dict[str, Any]] = {
        (m["run"], m["seq"], m["dimension"]): m for m in listed.to_pylist()}
    root = ET.Element("testsuites", name="rplay compare")
    suites: dict[str, ET.Element] = {}
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tests, failures, skipped

    def suite(run: str) -> ET.Element:
        if run not in suites:
            suites[run] = ET.SubElement(root, "testsuite", name=_clean(run))
        return suites[run]

    def fail(case: ET.Element, m: dict[str, Any]) -> None:
        f = ET.SubElement(case, "failure", message=_clean(m["code"]), type=_clean(m["code"]))
        f.text = _clean(f"{m['sql']}\npredicted: {m['predicted']}\nobserved:  {m['observed']}")

    if report.statements is not None:
        cols = report.statements.to_pydict()
        for i in range(report.statements.num_rows):
            run, seq, sql = cols["run"][i], cols["seq"][i], cols["sql"][i]
            for d in DIMENSIONS:
                case = _case(suite(run), run, seq, d, sql)
                st = stats[run]
                st[0] += 1
                code = cols[f"code_{d}"][i]
                if code == EXCLUDED:
                    ET.SubElement(case, "skipped", message="not observable on this statement")
                    st[2] += 1
                elif code is not None:
                    fail(case, failures[(run, seq, d)])
                    st[1] += 1
    else:
        note = "too many statements: only failing testcases are listed"
        if listed.num_rows < report.mismatches.num_rows:
            note += (f"; the first {listed.num_rows} of {report.mismatches.num_rows}, all of them are in "
                     "mismatches.parquet")
        ET.SubElement(ET.SubElement(root, "properties"), "property", name="note", value=note)
        for (run, seq, d), m in sorted(failures.items()):
            fail(_case(suite(run), run, seq, d, m["sql"]), m)
            stats[run][0] += 1
            stats[run][1] += 1
    for run, el in suites.items():
        tests, failed, skipped = stats[run]
        el.set("tests", str(tests))
        el.set("failures", str(failed))
        el.set("skipped", str(skipped))
        el.set("errors", "0")
    root.set("tests", str(sum(s[0] for s in stats.values())))
    root.set("failures", str(sum(s[1] for s in stats.values())))
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
