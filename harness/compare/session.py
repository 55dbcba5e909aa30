"""A quiet SparkSession bound to 127.0.0.1, stopped whatever happens."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from predictor.exceptions import CompareError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOG4J_CONF = Path(__file__).with_name("log4j2.properties")
"""Spark's JVM logs errors only. A file in the package: a temp dir here was re-created after cleanup."""

PROJECT_ROOT = Path(__file__).resolve().parents[2]
"""Put on the Python workers' path so they can import harness/predictor (the python engine needs it)."""


class PendingSpark:
    """A SparkSession starting in a background thread: the JVM takes ~10 s to start here, so the driver
    reads and stages the inputs meanwhile. ``get()`` waits for it and turns a failed start into a
    CompareError."""

    def __init__(self, future: Future[SparkSession], master: str) -> None:
        self._future = future
        self._master = master

    def get(self) -> SparkSession:
        try:
            return self._future.result()
        except Exception as e:  # py4j / pyspark raise many types when Java or the master is unusable
            raise CompareError(f"could not start Spark on {self._master!r}: {_first_line(e)}") from None


def _start(builder: SparkSession.Builder) -> SparkSession:
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def starting_spark_session(master: str = "local[*]", *, shuffle_partitions: int = 8,
                           driver_memory: str = "4g", app: str = "rplay-compare") -> Iterator[PendingSpark]:
    """Start Spark in the background; whatever happens in the block, the session is stopped on exit
    (after its start has finished: a half-started JVM cannot be interrupted)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise CompareError("PySpark is not installed: pip install 'rplay[spark]'") from None
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    pythonpath = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    # C1 only: the JVM mostly plans and moves Arrow batches here, so the C2 JIT's warm-up never pays off
    # (small comparisons 1.5-2 s faster, the 10M benchmark no slower)
    java_opts = f"-Dlog4j2.configurationFile={LOG4J_CONF.as_uri()} -XX:TieredStopAtLevel=1"
    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", java_opts)
               .config("spark.executor.extraJavaOptions", java_opts)
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
               .config("spark.driver.memory", driver_memory)
               .config("spark.driver.maxResultSize", "0")
               .config("spark.sql.adaptive.enabled", "true")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.executorEnv.PYTHONPATH", pythonpath)
               .config("spark.executorEnv.SPARK_LOCAL_IP", "127.0.0.1"))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rplay-spark-start") as pool:
        future = pool.submit(_start, builder)
        try:
            yield PendingSpark(future, master)
        finally:
            spark: SparkSession | None = None
            try:
                spark = future.result()
            except Exception:  # the start failed: nothing to stop (get() reported it, if it was asked)
                pass
            if spark is not None:
                spark.stop()


@contextmanager
def spark_session(master: str = "local[*]", *, shuffle_partitions: int = 8, driver_memory: str = "4g",
                  app: str = "rplay-compare") -> Iterator[SparkSession]:
    """A started session, stopped whatever happens."""
    with starting_spark_session(master, shuffle_partitions=shuffle_partitions, driver_memory=driver_memory,
                                app=app) as pending:
        yield pending.get()


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
