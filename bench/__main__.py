"""Run every benchmark module listed in BENCHES and print its report; ``soak [--minutes N] [--seed S]`` runs the
chaos soak (bench/soak.py); ``hub --emulator [--count N] [--trials N]`` the hub on an emulated RP2040
(bench/hub_emulator.py)."""

import importlib
import sys

BENCHES: tuple[str, ...] = ("rules", "nfc", "hub", "daemon", "web", "speech")


def main() -> int:
    if sys.argv[1:2] == ["soak"]:  # the chaos soak takes its own options and is not in the default run
        from bench import soak

        return soak.main(sys.argv[2:])
    if sys.argv[1:2] == ["hub"] and "--emulator" in sys.argv[2:]:  # slow, and needs the emulator and the UF2
        from bench import hub_emulator

        return hub_emulator.main(sys.argv[2:])
    selected = sys.argv[1:] or BENCHES
    for name in selected:
        module = importlib.import_module(f"bench.{name}" if not name.startswith("bench.") else name)
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
