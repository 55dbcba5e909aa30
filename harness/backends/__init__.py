"""Server backends (local processes, docker containers) behind one Protocol; see ``base``."""

from __future__ import annotations

from pathlib import Path

from harness.backends.base import Backend, Flavor, ServerSpec
from predictor.exceptions import UsageError


def open_backend(spec: ServerSpec, *, basedir: Path | str | None = None, timeout: float = 30.0) -> Backend:
    """The backend for a ``--server`` spec: ``local:mariadb``, ``local:mysql`` or ``docker:TARGET``."""
    if spec.kind == "local":
        from harness.backends.local import LocalBackend

        try:
            flavor = Flavor(spec.target.lower())
        except ValueError:
            raise UsageError(f"bad --server {spec}: local servers are local:mariadb or local:mysql") from None
        return LocalBackend(flavor, basedir=basedir, timeout=timeout)
    if spec.kind == "docker":
        try:
            from harness.backends.docker import DockerBackend  # type: ignore[import-not-found,unused-ignore]
        except ModuleNotFoundError as e:
            raise UsageError(f"--server {spec}: the docker backend is not available ({e.name})") from None
        backend: Backend = DockerBackend(spec.target)
        return backend
    raise UsageError(f"bad --server {spec}")


__all__ = ["open_backend"]
