"""`python -m trustaudit.embed prepare [--no-accurate]`: build offline models (`make install`)."""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "prepare":
        print("usage: python -m trustaudit.embed prepare [--no-accurate]", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from trustaudit.embed.models import ensure_models

    print(json.dumps(ensure_models(accurate="--no-accurate" not in args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
