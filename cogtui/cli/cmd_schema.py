"""`cogn schema manifest [--format v2.2|v2.5|v1]`: the manifest's JSON Schema, for editors and other tools.

Made from the field data docs/manifest-fields.md documents (cogtui/core/assist/fields.py); docs/editors.md shows
the YAML language server's `# yaml-language-server: $schema=` line that uses it.
"""

from __future__ import annotations

import argparse
import json
import sys

FORMATS = ("v2.2", "v2.5", "v1")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=("manifest",), help="the schema to print (manifest: module.yaml or MODULE.md)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="v2.2",
        help="v2.2 or v2.5 (module.yaml), v1 (MODULE.md frontmatter); default v2.2",
    )


def run(args: argparse.Namespace) -> int:
    from cogtui.core.assist.manifest_schema import manifest_schema

    sys.stdout.write(json.dumps(manifest_schema(args.format), indent=2, ensure_ascii=False) + "\n")
    return 0
