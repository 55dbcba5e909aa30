"""Build the rplay server images without a registry: debootstrap, apt in a chroot, ``docker import``.

The definitions live in ``docker/images.toml`` (data, not code). Each built image carries a label with a
hash of its definition, so a build is skipped while the definition is unchanged and redone when it changes.
Every failing step raises ImageBuildError with the tail of that step's output; the temporary root file
system is removed whatever happens (success, failure, Ctrl-C).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.backends.base import Flavor
from predictor.exceptions import ImageBuildError, UsageError

BUILDER_VERSION = 1
"""Bump when the build steps below change in a way that changes the images."""

LABEL_HASH = "org.rplay.definition"
LABEL_NAME = "org.rplay.image"

DEFAULT_MIRROR = "http://deb.debian.org/debian"
APT_OPTS = ("-o", "Acquire::Check-Valid-Until=false", "-o", "APT::Install-Recommends=false",
            "-o", "Dpkg::Use-Pty=0")
"""Check-Valid-Until=false: mirrors here may serve a Release file older than its Valid-Until date."""

Log = Callable[[str], None]


def _stderr_log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def docker_dir() -> Path:
    """The directory holding ``images.toml`` and the Dockerfiles (``RPLAY_DOCKER_DIR`` overrides)."""
    env = os.environ.get("RPLAY_DOCKER_DIR")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "docker"


@dataclass(frozen=True)
class BuilderSpec:
    """Steps shared by every image: what dpkg skips, what is removed and created after the install."""

    dpkg_exclude: tuple[str, ...]
    remove: tuple[str, ...]
    mkdir: tuple[str, ...]


@dataclass(frozen=True)
class ImageSpec:
    name: str  # "mysql-9.7"
    tag: str  # "rplay/mysql:9.7"
    flavor: Flavor
    suite: str  # Debian suite: "sid", "trixie", "bookworm"
    packages: tuple[str, ...]
    dockerfile: str  # relative to docker_dir()


@dataclass(frozen=True)
class Definitions:
    builder: BuilderSpec
    images: tuple[ImageSpec, ...]

    def get(self, name: str) -> ImageSpec:
        for spec in self.images:
            if spec.name == name or spec.tag == name:
                return spec
        known = ", ".join(s.name for s in self.images)
        raise UsageError(f"unknown image {name!r}; known: {known}")

    def find(self, name: str) -> ImageSpec | None:
        for spec in self.images:
            if spec.name == name or spec.tag == name:
                return spec
        return None

    def definition_hash(self, spec: ImageSpec) -> str:
        """A short hash of everything that shapes the image (not the mirror: same packages either way)."""
        doc = {"builder_version": BUILDER_VERSION, "builder": asdict(self.builder), "image": asdict(spec)}
        return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _str_tuple(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ImageBuildError(f"{where}: expected a list of strings")
    return tuple(value)


def load_definitions(path: Path | None = None) -> Definitions:
    """Read and check ``images.toml``."""
    path = path or docker_dir() / "images.toml"
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ImageBuildError(f"image definitions not found: {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise ImageBuildError(f"{path}: {e}") from None
    b = data.get("builder", {})
    builder = BuilderSpec(
        dpkg_exclude=_str_tuple(b.get("dpkg_exclude", []), f"{path} [builder].dpkg_exclude"),
        remove=_str_tuple(b.get("remove", []), f"{path} [builder].remove"),
        mkdir=_str_tuple(b.get("mkdir", []), f"{path} [builder].mkdir"),
    )
    images = []
    for name, entry in (data.get("images") or {}).items():
        where = f"{path} [images.{name!r}]"
        try:
            flavor = Flavor(entry["flavor"])
            spec = ImageSpec(name=name, tag=str(entry["tag"]), flavor=flavor, suite=str(entry["suite"]),
                             packages=_str_tuple(entry["packages"], where + ".packages"),
                             dockerfile=str(entry.get("dockerfile", "")))
        except KeyError as e:
            raise ImageBuildError(f"{where}: missing key {e}") from None
        except ValueError as e:
            raise ImageBuildError(f"{where}: {e}") from None
        if not re.fullmatch(r"[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9._-]+", spec.tag):
            raise ImageBuildError(f"{where}: bad tag {spec.tag!r}")
        images.append(spec)
    return Definitions(builder, tuple(images))


def debian_mirror() -> str:
    """The Debian mirror apt uses on this machine (``RPLAY_DEBIAN_MIRROR`` overrides)."""
    env = os.environ.get("RPLAY_DEBIAN_MIRROR")
    if env:
        return env
    files = ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*"))]
    for f in files:
        try:
            text = Path(f).read_text()
        except OSError:
            continue
        for m in re.finditer(r"^\s*(?:deb\s+(?:\[[^\]]*\]\s+)?(\S+)|URIs:\s*(\S+))", text, re.M):
            uri = (m.group(1) or m.group(2)).rstrip("/")
            if uri.endswith("/debian") and "security" not in uri:
                return uri
    return DEFAULT_MIRROR


# --- docker queries -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageStatus:
    spec: ImageSpec
    want_hash: str
    image_id: str | None
    have_hash: str | None
    size: int | None  # bytes

    @property
    def present(self) -> bool:
        return self.image_id is not None

    @property
    def current(self) -> bool:
        return self.present and self.have_hash == self.want_hash

    @property
    def state(self) -> str:
        return "current" if self.current else "outdated" if self.present else "missing"


def _docker(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise ImageBuildError("docker CLI not found: apt-get install -y docker.io") from None


def require_docker() -> None:
    """Fail clearly when no Docker engine answers (start it with docker/start-dockerd.sh)."""
    r = _docker("version", "--format", "{{.Server.Version}}", timeout=20)
    if r.returncode != 0:
        raise ImageBuildError("no Docker engine: run docker/start-dockerd.sh\n" + _tail(r.stderr))


def inspect_image(ref: str) -> dict[str, object] | None:
    r = _docker("image", "inspect", ref)
    if r.returncode != 0:
        return None
    docs = json.loads(r.stdout)
    return docs[0] if docs else None


def image_status(defs: Definitions, spec: ImageSpec) -> ImageStatus:
    doc = inspect_image(spec.tag)
    want = defs.definition_hash(spec)
    if doc is None:
        return ImageStatus(spec, want, None, None, None)
    config = doc.get("Config") or {}
    labels = (config.get("Labels") if isinstance(config, dict) else None) or {}
    size = doc.get("Size")
    have = labels.get(LABEL_HASH) if isinstance(labels, dict) else None
    return ImageStatus(spec, want, str(doc["Id"]), have, int(size) if isinstance(size, int) else None)


# --- the build ----------------------------------------------------------------------------------------


def _tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _run(argv: Sequence[str], step: str, spec: ImageSpec, *, timeout: float,
         env: dict[str, str] | None = None) -> None:
    try:
        r = subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        out = e.output.decode(errors="replace") if isinstance(e.output, bytes) else (e.output or "")
        raise ImageBuildError(f"{spec.name}: {step} timed out after {timeout:.0f}s\n{_tail(out)}") from None
    except FileNotFoundError:
        raise ImageBuildError(f"{spec.name}: {step}: {argv[0]} not found (apt-get install -y debootstrap)") \
            from None
    if r.returncode != 0:
        raise ImageBuildError(f"{spec.name}: {step} failed (exit {r.returncode})\n{_tail(r.stdout)}")


def _mounts_under(root: Path) -> list[str]:
    prefix = str(root).rstrip("/") + "/"
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return []
    points = [ln.split()[1].replace("\\040", " ") for ln in lines if len(ln.split()) > 1]
    return sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True)


def _remove_rootfs(root: Path) -> None:
    """Unmount anything debootstrap left mounted (an interrupted run may leave /proc), then delete."""
    for point in _mounts_under(root):
        subprocess.run(["umount", "-l", point], capture_output=True)
    if _mounts_under(root):
        raise ImageBuildError(f"cannot unmount {', '.join(_mounts_under(root))}; {root} left in place")
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def _rootfs(spec: ImageSpec) -> Iterator[Path]:
    base = os.environ.get("RPLAY_BUILD_DIR", "/var/tmp")
    root = Path(tempfile.mkdtemp(prefix=f"rplay-rootfs-{spec.name}-", dir=base))
    try:
        yield root
    finally:
        _remove_rootfs(root)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    d = Path(base) / "rplay"
    d.mkdir(parents=True, exist_ok=True)
    return d


@contextlib.contextmanager
def file_lock(name: str) -> Iterator[None]:
    """A per-user advisory lock so two processes never build the same thing at once."""
    d = _cache_dir() / "locks"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _populate(defs: Definitions, spec: ImageSpec, root: Path, mirror: str, log: Log) -> None:
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "DEBIAN_FRONTEND": "noninteractive",
           "HOME": "/root"}
    log(f"{spec.name}: debootstrap {spec.suite} from {mirror}")
    _run(["debootstrap", "--variant=minbase", spec.suite, str(root), mirror], "debootstrap", spec,
         timeout=900, env=env)
    policy = root / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\n# never start services inside the image build\nexit 101\n")
    policy.chmod(0o755)
    (root / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True, exist_ok=True)
    (root / "etc/dpkg/dpkg.cfg.d/01-rplay-nodoc").write_text(
        "".join(f"path-exclude={p}\n" for p in defs.builder.dpkg_exclude))
    with contextlib.suppress(OSError):
        shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
    log(f"{spec.name}: apt-get install {' '.join(spec.packages)}")
    _run(["chroot", str(root), "apt-get", *APT_OPTS, "update", "-q"], "apt-get update", spec,
         timeout=600, env=env)
    _run(["chroot", str(root), "apt-get", *APT_OPTS, "install", "-y", "-q", *spec.packages],
         "apt-get install", spec, timeout=1800, env=env)
    _run(["chroot", str(root), "apt-get", "clean"], "apt-get clean", spec, timeout=120, env=env)
    for pattern in defs.builder.remove:
        for p in glob.glob(str(root) + pattern):
            path = Path(p)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    for d in defs.builder.mkdir:
        (root / d.lstrip("/")).mkdir(parents=True, exist_ok=True)


def _import(defs: Definitions, spec: ImageSpec, root: Path, log: Log) -> None:
    log(f"{spec.name}: docker import {spec.tag}")
    changes = [f"LABEL {LABEL_HASH}={defs.definition_hash(spec)}", f"LABEL {LABEL_NAME}={spec.name}",
               f"LABEL org.rplay.flavor={spec.flavor.value}",
               "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 'CMD ["/bin/bash"]']
    argv = ["docker", "import"]
    for c in changes:
        argv += ["--change", c]
    argv += ["-", spec.tag]
    with tempfile.TemporaryFile() as tar_err:
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(root), "-c", "."], stdout=subprocess.PIPE,
                               stderr=tar_err)
        try:
            assert tar.stdout is not None
            r = subprocess.run(argv, stdin=tar.stdout, capture_output=True, text=True, timeout=900)
        finally:
            if tar.stdout is not None:
                tar.stdout.close()
            if tar.poll() is None:
                tar.kill()
            tar.wait()
        tar_err.seek(0)
        err = tar_err.read().decode(errors="replace")
    if tar.returncode != 0:
        raise ImageBuildError(f"{spec.name}: tar of the root file system failed\n{_tail(err)}")
    if r.returncode != 0:
        raise ImageBuildError(f"{spec.name}: docker import failed\n{_tail(r.stdout + r.stderr)}")


@dataclass(frozen=True)
class BuildResult:
    name: str
    tag: str
    built: bool  # False: the cached image was current
    seconds: float
    size: int | None


def build_image(spec: ImageSpec, *, defs: Definitions | None = None, force: bool = False,
                log: Log = _stderr_log) -> BuildResult:
    """Build ``spec`` unless an image with the same definition hash exists (``force`` rebuilds)."""
    defs = defs or load_definitions()
    start = time.monotonic()
    require_docker()
    with file_lock(f"image-{spec.name}"):
        before = image_status(defs, spec)
        if before.current and not force:
            return BuildResult(spec.name, spec.tag, False, time.monotonic() - start, before.size)
        if os.geteuid() != 0:
            raise ImageBuildError(f"{spec.name}: building needs root (debootstrap and chroot)")
        with _rootfs(spec) as root:
            _populate(defs, spec, root, debian_mirror(), log)
            _import(defs, spec, root, log)
        if before.image_id is not None:  # the old image is now untagged: drop it unless a container uses it
            _docker("image", "rm", before.image_id)
        after = image_status(defs, spec)
    secs = time.monotonic() - start
    log(f"{spec.name}: built {spec.tag} in {secs:.0f}s ({(after.size or 0) / 1e6:.0f} MB)")
    return BuildResult(spec.name, spec.tag, True, secs, after.size)


def build_images(names: Sequence[str] = (), *, force: bool = False, jobs: int = 1,
                 log: Log = _stderr_log) -> list[BuildResult]:
    """Build the named images (all when none are named), ``jobs`` at a time."""
    defs = load_definitions()
    specs = [defs.get(n) for n in names] if names else list(defs.images)
    if jobs <= 1 or len(specs) <= 1:
        return [build_image(s, defs=defs, force=force, log=log) for s in specs]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(build_image, s, defs=defs, force=force, log=log) for s in specs]
        return [f.result() for f in futures]


def ensure_image(name: str, *, log: Log = _stderr_log) -> ImageSpec:
    """The spec of our image ``name``, built first if missing or outdated."""
    defs = load_definitions()
    spec = defs.get(name)
    build_image(spec, defs=defs, log=log)
    return spec


__all__ = ["BuildResult", "Definitions", "ImageSpec", "ImageStatus", "build_image", "build_images",
           "debian_mirror", "ensure_image", "image_status", "load_definitions", "require_docker"]
