"""Run every benchmark module listed in BENCHES and print its report."""

import importlib
import sys

BENCHES: tuple[str, ...] = ("rules", "nfc", "hub", "daemon")


def main() -> int:
    selected = sys.argv[1:] or BENCHES
    for name in selected:
        module = importlib.import_module(f"bench.{name}" if not name.startswith("bench.") else name)
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
