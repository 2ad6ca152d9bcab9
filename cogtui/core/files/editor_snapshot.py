"""Files as the editor sees them: a snapshot taken when loaded, change detection, atomic saves.

A save keeps the file's encoding, byte-order mark and line endings, writes a
temp file (fsynced) and renames it into place, so a crash never leaves half a
file. `changed_on_disk` compares the disk against the snapshot, so a save
never silently overwrites what another program wrote meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogtui.core.files.confined import read_confined
from cogtui.core.files.decoding import decode_bytes
from cogtui.core.files.module_folder import lexists
from cogtui.core.files.sourcemap import ParseFailure
from cogtui.core.files.text_codec import DEFAULT_STYLE, TextStyle, detect_style, sha256
from cogtui.core.files.transaction import FileTransaction


@dataclass(frozen=True)
class FileSnapshot:
    path: Path
    text: str  # decoded, line ends as stored
    style: TextStyle
    sha: str  # of the bytes on disk; "" when the file did not exist
    exists: bool = True

    @classmethod
    def read(cls, path: Path, root: Path | None = None) -> FileSnapshot:
        """Raises ParseFailure (a located P003/P005 diagnostic) when the file cannot be read or decoded, and
        ConfinementError (F001-F004) when it leads outside `root` (the module folder) or is no regular file."""
        if not lexists(path):
            return cls(path, "", DEFAULT_STYLE, "", exists=False)
        raw = read_confined(path, root)  # a FIFO or /dev/zero behind a link is refused, never read (docs/security.md)
        text = decode_bytes(raw, path)
        return cls(path, text, detect_style(raw, text), sha256(raw))

    def encode(self, text: str) -> bytes:
        """Bytes for `text` (line ends as the editor holds them) in this file's encoding."""
        return self.style.encode_raw(text)


def disk_sha(path: Path) -> str:
    try:
        return sha256(read_confined(path))
    except ParseFailure:  # missing, or a file the editor would refuse to open
        return ""


def changed_on_disk(snapshot: FileSnapshot) -> bool:
    try:
        return disk_sha(snapshot.path) != snapshot.sha
    except OSError:
        return True


def atomic_write(path: Path, data: bytes) -> None:
    tx = FileTransaction(path.parent)
    tx.write(path.name, data)
    tx.commit()


def save_text(snapshot: FileSnapshot, text: str) -> FileSnapshot:
    """Write `text` in the snapshot's style, atomically; returns the new snapshot."""
    data = snapshot.encode(text)
    atomic_write(snapshot.path, data)
    return FileSnapshot(snapshot.path, text, snapshot.style, sha256(data))
