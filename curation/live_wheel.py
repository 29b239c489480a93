"""Package a Live release as its data wheel, and keep the registry of release digests.

`bfcl-action` reads a release it has no directory for from the data wheel
`bfcl-action-live==<year>.<week>` (see `bfcl_action.dataset.live`), pinned by the sha256 of
the release's `MANIFEST.json` in `bfcl_action/dataset/live_wheels.json`. The weekly
workflow builds the wheel here, publishes it by trusted publishing, and the data PR carries
the registry entry, so the next bfcl-action knows the release.

The wheel is a plain zip written in a fixed order with fixed timestamps, so building it twice
from the same release gives the same bytes; the pin does not rely on that (it is on the
manifest, which pins every file), but a reproducible wheel is easier to audit.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from pathlib import Path

from bfcl_action.core.errors import DatasetError
from bfcl_action.dataset import live

DIST = "bfcl_action_live"
_EPOCH = (1980, 1, 1, 0, 0, 0)
REGISTRY = Path(live.__file__).with_name("live_wheels.json")
"""The registry inside the bfcl_action package this module runs with (a source checkout's
file when run from one)."""


def release_files(release: Path) -> list[str]:
    """`MANIFEST.json`, `SHA256SUMS` (when present) and every file the manifest lists, each
    checked against its sha256 first: a wheel is only ever built from an intact release."""
    manifest = live.read_manifest(release)
    files: dict[str, str] = manifest.get("files", {})
    for rel, expected in files.items():
        path = release / rel
        try:
            found = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise DatasetError(f"cannot read {rel}: {exc.strerror}", file=str(path)) from None
        if found != expected:
            raise DatasetError(
                f"sha256 {found} is not the manifest's {expected}", file=str(path), field=rel
            )
    extra = ["SHA256SUMS"] if (release / "SHA256SUMS").is_file() else []
    return sorted({"MANIFEST.json", *extra, *files})


def build_wheel(live_dir: Path, version: str, out_dir: Path) -> Path:
    """Write `bfcl_action_live-<year.week>-py3-none-any.whl` for `live_dir/releases/<version>`
    into `out_dir` and return its path."""
    release = live_dir / "releases" / version
    if not release.is_dir():
        raise DatasetError(f"no release {version}", file=str(release))
    pversion = live.package_version(version)
    dist_info = f"{DIST}-{pversion}.dist-info"
    members: list[tuple[str, bytes]] = [
        (f"{live.WHEEL_PREFIX}{version}/{rel}", (release / rel).read_bytes())
        for rel in release_files(release)
    ]
    members.append(
        (
            f"{dist_info}/METADATA",
            (
                "Metadata-Version: 2.1\n"
                f"Name: {live.PACKAGE}\n"
                f"Version: {pversion}\n"
                f"Summary: bfcl-action Live release {version} (data only; read by bfcl-action)\n"
            ).encode(),
        )
    )
    members.append(
        (
            f"{dist_info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: bfcl-curate\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
        )
    )
    record = "".join(f"{name},sha256={_b64(data)},{len(data)}\n" for name, data in members)
    members.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{DIST}-{pversion}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=9)
    return path


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def registry_for(live_dir: Path) -> dict[str, object]:
    """The registry `live_dir` implies: every release's manifest sha256 and `LATEST`."""
    releases = {}
    for release in sorted(p for p in (live_dir / "releases").iterdir() if p.is_dir()):
        live.package_version(release.name)  # a release name the wheel version can carry
        digest = hashlib.sha256((release / "MANIFEST.json").read_bytes()).hexdigest()
        releases[release.name] = {"manifest_sha256": digest}
    latest = (live_dir / "LATEST").read_text(encoding="utf-8").strip()
    if latest not in releases:
        raise DatasetError(
            f"names {latest!r}, which is not a release", file=str(live_dir / "LATEST")
        )
    return {"latest": latest, "package": live.PACKAGE, "releases": releases}


def render_registry(registry: dict[str, object]) -> str:
    return json.dumps(registry, indent=2, sort_keys=True) + "\n"


def write_registry(live_dir: Path, target: Path = REGISTRY) -> bool:
    """Bring `target` in line with `live_dir`; True when it changed."""
    text = render_registry(registry_for(live_dir))
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    target.write_text(text, encoding="utf-8")
    return True
