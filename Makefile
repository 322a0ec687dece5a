# The two commands of the README: `make demo` (the main job) and `make test` (what CI runs).
# Each builds its own virtual environment on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint bench clean install debian

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/companion demo

lint: $(BIN)/.installed
	$(BIN)/ruff check companion tests bench
	$(BIN)/ruff format --check companion tests bench
	$(BIN)/mypy

test: lint firmware-check debian
	$(BIN)/pytest -q

# The Debian packages the tests run, installed when missing (quiet when there): mosquitto, the club's broker;
# chromium, the browser of the page's tests; strace, which watches the journal's syncs (tests/daemon/test_power_cut.py);
# espeak-ng, the table's voice (tests/speech/), and alsa-utils, its aplay; locales, whose es_ES the README's journeys
# compile to run its commands on a Spanish machine (tests/machines.py)
debian:
	@.ci/debian mosquitto chromium strace espeak-ng alsa-utils locales

bench: $(BIN)/.installed
	$(BIN)/python -m bench

install:
	systemd/install.sh

# The reader hub (firmware/, a Raspberry Pi Pico): build, check, flash and deploy. See README, "Reader hub".
FIRMWARE_OUT ?= build/firmware
HUB_PORT     ?=
HUB_CONFIG   ?= firmware/hub_config.py
MPREMOTE     := PYTHONPATH=build/mpremote $(BIN)/python -m mpremote $(if $(HUB_PORT),connect $(HUB_PORT))

.PHONY: firmware firmware-check firmware-vm firmware-emulator firmware-flash firmware-deploy firmware-maintenance

firmware: $(BIN)/.installed
	$(BIN)/python firmware/build.py $(FIRMWARE_OUT)

# MicroPython's stubs for mypy, and the MicroPython VM for Node.js (the firmware tests in pytest run it).
typings/.installed: firmware/mypy.ini
	$(BIN)/python -m pip install --quiet --upgrade --target typings micropython-rp2-rpi-pico-stubs==1.29.0.post1
	touch $@

firmware-vm: firmware/vm/node_modules/.package-lock.json

firmware/vm/node_modules/.package-lock.json: firmware/vm/package-lock.json
	cd firmware/vm && npm ci --no-audit --no-fund

# An emulated RP2040 (rp2040js) for MicroPython's real rp2 port: the tests marked rp2040 run the hub on it, with the
# UF2 and boot ROM from ../shared/firmware/rp2/ or $COMPANION_RP2_UF2 and $COMPANION_RP2_BOOTROM (docs/TESTING.md).
firmware-emulator: firmware/emulator/node_modules/.package-lock.json

firmware/emulator/node_modules/.package-lock.json: firmware/emulator/package-lock.json
	cd firmware/emulator && npm ci --no-audit --no-fund

firmware-check: $(BIN)/.installed typings/.installed firmware-vm firmware-emulator
	$(BIN)/ruff check firmware
	$(BIN)/ruff format --check firmware
	$(BIN)/mypy --config-file firmware/mypy.ini
	$(BIN)/mypy --strict firmware/build.py
	$(BIN)/python firmware/build.py $(FIRMWARE_OUT)

build/mpremote/.installed:
	$(BIN)/python -m pip install --quiet --target build/mpremote 'mpremote>=1.23'
	touch $@

# Put MicroPython (v1.23 or later) on a Pico held in BOOTSEL mode: make firmware-flash UF2=RPI_PICO-....uf2
firmware-flash:
	@test -n "$(UF2)" || { echo "give UF2=path: MicroPython for RPI_PICO or RPI_PICO2, v1.23 or later, from micropython.org/download"; exit 1; }
	@drive=$$(findmnt -nro TARGET -S LABEL=RPI-RP2 || findmnt -nro TARGET -S LABEL=RP2350); \
	test -n "$$drive" || { echo "no RPI-RP2 drive: hold the Pico's BOOTSEL button while plugging it in"; exit 1; }; \
	cp "$(UF2)" "$$drive/" && sync && echo "flashed: the Pico restarts into MicroPython"

# Restart the hub into maintenance mode (the REPL, no watchdog; asked over its link), for mpremote. Stop the
# companion service first: it holds the port.
firmware-maintenance: $(BIN)/.installed
	$(BIN)/python -m companion.hub.deploy $(or $(HUB_PORT),auto)

# Copy the built files and the configuration to the Pico in maintenance mode, then restart it into running.
firmware-deploy: firmware build/mpremote/.installed firmware-maintenance
	$(MPREMOTE) cp $(FIRMWARE_OUT)/*.mpy $(FIRMWARE_OUT)/main.py :
	$(MPREMOTE) cp $(HUB_CONFIG) :hub_config.py
	$(MPREMOTE) reset

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
