"""The reader hub's configuration: the one file to edit on the board (``mpremote edit :hub_config.py``).

Pin numbers are the Pico's GP numbers, as wired in hardware/hub/README.md. A mistake here is not a crash: the
hub reports it to the companion at start-up (the daemon logs it and the screen says "hub lost").
"""

# One MFRC522 reader and one LED per zone, zone 0 first; up to 16. A table layout's own file
# (hardware/layouts/<name>/hub_config.py) gives its readers' chip selects here; for 16 zones add
# (10, 11, 12, 13, 14, 15, 20, 21).
CHIP_SELECTS = (0, 1, 2, 3, 4, 5, 6, 7)
ZONES = len(CHIP_SELECTS)  # what the hub tells the companion in its HELLO: as many zones as the config names

SPI_ID = 0
SCK = 18
MOSI = 19
MISO = 16
# 1 MHz on 8 readers' 40 cm flat cables (the bill of materials), with the Pico's pads at their 4 mA default: every
# line of the shared bus carries 200 to 400 pF, which a 4 mA driver (the Pico's on SCK and MOSI, the MFRC522's on
# MISO) takes about 200 ns to lift to a logic high; at 4 MHz a half period is 125 ns. hardware/hub/README.md,
# "Cables and SPI speed", has the figures; the MFRC522 itself takes up to 10 MHz on short leads.
SPI_BAUDRATE = 1_000_000

READER_RESET = 8  # NRSTPD of every reader, wired together
# How long an empty zone is listened to after a frame. A tag answers 91 us after it (ISO/IEC 14443-3, 6.2.1.1)
# and the reader's timer stops at its answer's 5th bit, so 0.3 ms is three times what a tag needs; the chip's timer
# then fires as a WUPA's answer would be complete, and an empty zone is looked at once (companion/nfc/rc522.py).
READER_TIMEOUT_MS = 0.3
LIFT_SCANS = 3  # scans of a zone in a row without a card before it counts as lifted (a tag at the edge of range
# misses some). The hub scans a zone whose card was missed again every ZONES // LIFT_SCANS zones: a lift takes
# 25 to 40 ms on a Pico at the median, 72 ms at worst, alone or among 7 other cards (python -m bench hub --emulator)
LED_DATA = 9  # WS2812B chain, zone 0 first
MAINTENANCE_PIN = 22  # held to GND at power-up: maintenance mode (the REPL, no scanning, no watchdog)

HEARTBEAT_MS = 250  # the companion declares the hub lost after 1 s without one
SNAPSHOT_MS = 1000  # every zone's cards, so that a lost frame heals within a second
WATCHDOG_MS = 2000  # machine.WDT: a scan loop stuck this long resets the board (at most 8388 on an RP2040)
