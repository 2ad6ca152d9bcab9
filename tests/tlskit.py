"""Self-signed certificates for the tests' HTTPS servers, made with the openssl CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def make_cert(tmp_path: Path, name: str, san: str | None = None) -> tuple[Path, Path]:
    """(certificate, key) for `name`; `san` is the subjectAltName (default `DNS:name`; `IP:127.0.0.1` for a
    server reached by address)."""
    assert shutil.which("openssl"), "the TLS tests make certificates with the openssl CLI (.ci/run installs it)"
    cert, key = tmp_path / f"{name}.crt", tmp_path / f"{name}.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName={san or f'DNS:{name}'}",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key
