"""Fixtures for the docker tests: a Docker engine (required when ``RPLAY_REQUIRE_DOCKER=1``), the images
(built through harness.images, cached), and a check after every test that no container or temp dir leaked."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from docker_support import TARGETS, engine_error, leaked

from harness import images

__all__ = ["TARGETS"]


@pytest.fixture(scope="session")
def docker_engine() -> None:
    err = engine_error()
    if err is None:
        return
    msg = f"no Docker engine ({err}); start it with docker/start-dockerd.sh"
    if os.environ.get("RPLAY_REQUIRE_DOCKER") == "1":
        pytest.fail("RPLAY_REQUIRE_DOCKER=1 but " + msg, pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def built_images(docker_engine: None) -> list[images.BuildResult]:
    """Our images for the tested targets (a no-op when their definitions did not change)."""
    return images.build_images(list(TARGETS))


@pytest.fixture(autouse=True)
def no_leaks(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test that does not hold a shared pair, nothing of ours may be left."""
    yield
    if "docker_engine" not in request.fixturenames or "shared_pair" in request.fixturenames:
        return
    if engine_error() is not None:
        return
    containers, dirs = leaked()
    assert containers == [], f"containers left behind: {containers}"
    assert dirs == [], f"temp dirs left behind: {dirs}"


@pytest.fixture(scope="session", autouse=True)
def private_tmpdir() -> Iterator[None]:
    """Pairs of this run (and of its subprocesses) make their temp dirs in a private RPLAY_TMPDIR, so the
    leak checks see only this run's dirs; it is removed at the end."""
    old = os.environ.get("RPLAY_TMPDIR")
    tmp = tempfile.mkdtemp(prefix="rplay-test-docker-")
    os.environ["RPLAY_TMPDIR"] = tmp
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("RPLAY_TMPDIR", None)
        else:
            os.environ["RPLAY_TMPDIR"] = old
        shutil.rmtree(tmp, ignore_errors=True)
