"""A Pi in a folder (:mod:`fake_pi`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_pi import BOOT, CARDS, COMPANION_UID, GIDS, NODES, I2CBench, Pi


@pytest.fixture
def pi(tmp_path: Path) -> Pi:
    """A Pi 4 set up as the README says: SPI and I2C on, companion in its groups, an OLED at 0x3C on I2C1; its
    headphone jack and HDMI outputs are its sound cards."""
    root = tmp_path / "pi"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "etc").mkdir()
    config = tmp_path / "config.toml"
    made = Pi(root, config, I2CBench({1: {0x3C}}))
    made.boot(BOOT)
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    made.sound_cards(CARDS)
    for name, group in NODES.items():
        made.node(name, group)
    (root / "etc/passwd").write_text(
        f"root:x:0:0:root:/root:/bin/bash\ncompanion:x:{COMPANION_UID}:{GIDS['companion']}::/var/lib/companion:"
        "/usr/sbin/nologin\n",
        "utf-8",
    )
    made.groups(
        {"spi": "companion", "i2c": "companion", "gpio": "companion", "dialout": "companion", "audio": "companion"}
    )
    made.write_config('[zones]\nz1 = "table"\nz2 = "O"\n')
    return made
