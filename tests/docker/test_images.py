"""The image definitions and the offline builder: cached by definition hash, clear errors, no leftovers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import images
from harness.backends.base import Flavor
from predictor.exceptions import ImageBuildError, UsageError


def _dockerfile_packages(path: Path) -> tuple[str, ...]:
    m = re.search(r"apt-get install -y --no-install-recommends ([^\\&]+)", path.read_text())
    assert m, f"no apt-get install line in {path}"
    return tuple(m.group(1).split())


@pytest.mark.parametrize("spec", images.load_definitions().images, ids=lambda s: s.name)
def test_dockerfile_matches_recipe(spec: images.ImageSpec) -> None:
    path = images.docker_dir() / spec.dockerfile
    text = path.read_text()
    assert f"FROM debian:{spec.suite}\n" in text
    assert _dockerfile_packages(path) == spec.packages
    assert "mkdir -p /var/lib/mysql-files" in text


def test_definitions() -> None:
    defs = images.load_definitions()
    names = {s.name: s for s in defs.images}
    assert {"mysql-9.7", "mariadb-11.8", "mariadb-10.11"} <= set(names)
    assert names["mysql-9.7"].flavor is Flavor.MYSQL and names["mysql-9.7"].suite == "sid"
    assert defs.get("rplay/mariadb:11.8").name == "mariadb-11.8"
    with pytest.raises(UsageError, match="unknown image"):
        defs.get("oracle-23")


def test_definition_hash_follows_the_definition(tmp_path: Path) -> None:
    text = (images.docker_dir() / "images.toml").read_text()
    base = images.load_definitions()
    (tmp_path / "images.toml").write_text(text.replace('"mariadb-client"]', '"mariadb-client", "less"]', 1))
    changed = images.load_definitions(tmp_path / "images.toml")
    for name in ("mysql-9.7", "mariadb-11.8"):
        same = base.definition_hash(base.get(name)) == changed.definition_hash(changed.get(name))
        assert same == (name == "mysql-9.7")


@pytest.mark.parametrize("bad, match", [
    ("[images.x]\ntag = 'rplay/x:1'\nflavor = 'oracle'\nsuite = 'sid'\npackages = []\n", "oracle"),
    ("[images.x]\ntag = 'rplay/x:1'\nsuite = 'sid'\npackages = []\n", "missing key"),
    ("[images.x]\ntag = 'Bad Tag'\nflavor = 'mysql'\nsuite = 'sid'\npackages = []\n", "bad tag"),
    ("[images.x\n", "images.toml"),
])
def test_bad_definitions(tmp_path: Path, bad: str, match: str) -> None:
    (tmp_path / "images.toml").write_text(bad)
    with pytest.raises(ImageBuildError, match=match):
        images.load_definitions(tmp_path / "images.toml")


def test_mirror_is_the_one_apt_uses() -> None:
    assert images.debian_mirror().startswith("http")
    assert images.debian_mirror().endswith("/debian")


@pytest.mark.docker
def test_build_is_cached(built_images: list[images.BuildResult]) -> None:
    again = images.build_images([r.name for r in built_images])
    assert [r.built for r in again] == [False] * len(again)
    defs = images.load_definitions()
    for r in again:
        status = images.image_status(defs, defs.get(r.name))
        assert status.current and (status.size or 0) > 0


@pytest.mark.docker
def test_failed_build_raises_with_tail_and_removes_rootfs(docker_engine: None, tmp_path: Path) -> None:
    (tmp_path / "images.toml").write_text(
        "[images.broken]\ntag = 'rplay-test/broken:1'\nflavor = 'mariadb'\nsuite = 'rplay-no-such-suite'\n"
        "packages = ['mariadb-server']\n")
    defs = images.load_definitions(tmp_path / "images.toml")
    with pytest.raises(ImageBuildError) as info:
        images.build_image(defs.get("broken"), defs=defs, log=lambda _m: None)
    assert "debootstrap failed" in str(info.value)
    assert "rplay-no-such-suite" in str(info.value)  # the tail of debootstrap's own output
    assert list(Path("/var/tmp").glob("rplay-rootfs-broken-*")) == []
    assert images.inspect_image("rplay-test/broken:1") is None
