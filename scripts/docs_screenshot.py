"""Screenshots of the built documentation site, taken with headless Chromium.

    python scripts/docs_screenshot.py                 # build the site, then shoot
    python scripts/docs_screenshot.py --site site     # shoot an existing build
    python scripts/docs_screenshot.py --out docs/screenshots --chromium /usr/bin/chromium

Builds the site with ``mkdocs build --strict`` into a temporary folder (unless ``--site`` names
a built one), opens pages of it from disk (``file://``, no server, no network) in Debian's
Chromium (``apt-get install chromium``) and writes one PNG per page to ``--out``:

* ``home.png``: the home page;
* ``rules.png``: the rule catalogue (generated from the rule tables).

Each PNG is checked before it is kept: a real PNG of the requested size that is not one flat
colour (a blank page or a browser error page would be).  Exit status 0 when every screenshot
was taken, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (file name, page of the site, window height in pixels)
PAGES: tuple[tuple[str, str, int], ...] = (
    ("home.png", "index.html", 1100),
    ("rules.png", "rules/index.html", 1400),
)
WIDTH = 1280

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--run-all-compositor-stages-before-draw",
    "--virtual-time-budget=3000",
)


def find_chromium(explicit: str | None) -> str:
    """The Chromium executable: ``explicit``, else ``chromium`` / ``chromium-browser`` on PATH."""
    for candidate in [explicit] if explicit else ["chromium", "chromium-browser"]:
        path = shutil.which(candidate) if candidate else None
        if path:
            return path
    raise SystemExit("chromium not found: apt-get install -y chromium (or pass --chromium PATH)")


def build_site(target: Path) -> None:
    """``mkdocs build --strict`` of the repository's site into ``target``."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"mkdocs build --strict failed with status {done.returncode}")


def png_info(data: bytes) -> tuple[int, int, bool]:
    """(width, height, varied) of a PNG.  ``varied`` is False for a flat image (a blank page,
    or one colour): its decompressed scanlines then hold only a handful of distinct byte
    values (the colour and the filters' zero differences), where rendered text holds many."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, width, height = 8, 0, 0
    idat = bytearray()
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    distinct = len(set(zlib.decompress(bytes(idat))))
    return width, height, distinct > 16


def screenshot(chromium: str, url: str, out: Path, height: int) -> None:
    """One screenshot of ``url`` at WIDTH x ``height`` into ``out``."""
    with tempfile.TemporaryDirectory(prefix="indexalg-chromium-") as profile:
        cmd = [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{height}",
            f"--screenshot={out}",
            url,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"chromium failed on {url} ({done.returncode}): {done.stderr[-2000:]}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", help="the Chromium executable (default: on PATH)")
    args = parser.parse_args(argv)
    chromium = find_chromium(args.chromium)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="indexalg-site-") as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build_site(site)
        failures = 0
        for name, page, height in PAGES:
            path = (site / page).resolve()
            if not path.is_file():
                print(f"{name}: {page} is not in the built site", file=sys.stderr)
                failures += 1
                continue
            target = args.out / name
            screenshot(chromium, path.as_uri(), target, height)
            width, got_height, varied = png_info(target.read_bytes())
            ok = (width, got_height) == (WIDTH, height) and varied
            size_kb = target.stat().st_size / 1024
            print(
                f"{'ok  ' if ok else 'FAIL'} {target} {width}x{got_height} {size_kb:.0f} KiB "
                f"from {page}" + ("" if varied else " (blank)")
            )
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
