"""``rplay images build [NAME...]`` / ``rplay images list``: the server images, built offline and cached."""

from __future__ import annotations

import argparse
from typing import Any

from harness import images


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "images", help="build or list the rplay server images (rplay/mysql:9.7, rplay/mariadb:11.8, ...)")
    sub = p.add_subparsers(dest="images_command", required=True)
    b = sub.add_parser("build", help="build images whose definition changed (all when none are named)")
    b.add_argument("names", nargs="*", metavar="NAME", help="mysql-9.7, mariadb-11.8, mariadb-10.11")
    b.add_argument("--force", action="store_true", help="rebuild even when the cached image is current")
    b.add_argument("--jobs", "-j", type=int, default=1, help="images built at once (default 1)")
    b.set_defaults(func=_build)
    ls = sub.add_parser("list", help="show each image's state: current, outdated or missing")
    ls.set_defaults(func=_list)


def _build(args: argparse.Namespace) -> int:
    for r in images.build_images(args.names, force=args.force, jobs=args.jobs):
        size = f"{r.size / 1e6:.0f} MB" if r.size else "?"
        state = "built" if r.built else "cached"
        print(f"{r.name:<15} {r.tag:<22} {state:<7} {r.seconds:6.1f}s  {size}")
    return 0


def _list(args: argparse.Namespace) -> int:
    defs = images.load_definitions()
    images.require_docker()
    print(f"{'NAME':<15} {'TAG':<22} {'STATE':<9} {'SIZE':>8}  DEFINITION")
    for spec in defs.images:
        st = images.image_status(defs, spec)
        size = f"{st.size / 1e6:.0f} MB" if st.size else "-"
        print(f"{spec.name:<15} {spec.tag:<22} {st.state:<9} {size:>8}  {st.want_hash}")
    return 0
