// An emulated Raspberry Pi Pico running MicroPython's real rp2 port (rp2040js), its USB serial port bridged to
// this process's stdin and stdout: what the host sends on stdin reaches MicroPython's USB CDC, what MicroPython
// writes comes out on stdout, byte for byte. Diagnostics go to stderr.
//
//   node run.mjs --bootrom rp2040-bootrom-B1.bin --uf2 micropython.uf2 [--fs littlefs.img] [--pin-high N ...]
//                [--pin-low N ...] [--leds PIN]
//
// With --leds, the WS2812 chain's data pin is decoded (a high pulse of more than 0.6 µs is a 1, its datasheet's
// T0H is 0.4 µs and T1H 0.8 µs; 50 µs low ends a frame) and each frame is written to stderr as
// `emulator: leds HEX` (3 bytes a LED, in the chain's G, R, B order).
//                [--spi0 OUT_FD,IN_FD --select PIN ... --reset PIN]
//
// With --spi0, every byte of SPI0 and every chip select's falling edge goes to the host on OUT_FD, which answers
// each byte with the byte on MISO (the MFRC522 model of companion/sim/chip.py, tests/firmware/rp2040_hub.py):
// 10-byte messages, a letter, a byte and the emulated time in ns (little-endian float64):
// 'S' pin (selected), 'U' pin (released), 'B' mosi (answered with one byte on IN_FD), 'R' pin (readers' reset).
//
//                [--cpu-scale F] [--usb-times]
//
// With --cpu-scale, each instruction takes F times its cycles at 125 MHz in emulated time; the peripherals (the
// SPI's bytes on the wire, the timers, the readers' clock) keep their own. rp2040js counts too few cycles for
// MicroPython (a pin on/off loop takes about half the time it takes on a Pico): bench/hub_emulator.py gives the F
// that makes it take a real Pico's. With --usb-times, each packet the device sends on USB CDC is written to stderr
// as `emulator: usb NS BYTES`, its emulated time (ns since the first power-up) and its size.
//
// The test suite puts a pty's master side on stdin and stdout (tests/firmware/emulator.py), so the daemon's hub
// back-end opens the other side with pyserial as it opens a real Pico's /dev/ttyACM0.
import { readFileSync, readSync, writeSync } from 'node:fs';
import { ConsoleLogger, GPIOPinState, LogLevel, Simulator, setDeviceAddressPacket, USBCDC } from 'rp2040js';

const FLASH_START = 0x10000000;
// Where the rp2 port keeps its filesystem (ports/rp2/rp2_flash.c): MICROPY_HW_FLASH_STORAGE_BASE =
// PICO_FLASH_SIZE_BYTES - MICROPY_HW_FLASH_STORAGE_BYTES, for RPI_PICO 2 MiB - 1408 KiB (ports/rp2/mpconfigport.h)
export const FS_OFFSET = 2 * 1024 * 1024 - 1408 * 1024;
const UF2_MAGIC = [0x0a324655, 0x9e5d5157];
const UF2_END = 0x0ab16f30;

function parseArgs(argv) {
  const args = { pinHigh: [], pinLow: [], select: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--usb-times') {
      args.usbTimes = true;
      i -= 1;
      continue;
    }
    if (value === undefined) throw new Error(`${name}: give it a value`);
    if (name === '--bootrom') args.bootrom = value;
    else if (name === '--uf2') args.uf2 = value;
    else if (name === '--fs') args.fs = value;
    else if (name === '--pin-high') args.pinHigh.push(Number(value));
    else if (name === '--pin-low') args.pinLow.push(Number(value));
    else if (name === '--spi0') args.spi0 = value.split(',').map(Number);
    else if (name === '--select') args.select.push(Number(value));
    else if (name === '--reset') args.reset = Number(value);
    else if (name === '--leds') args.leds = Number(value);
    else if (name === '--cpu-scale') args.cpuScale = Number(value);
    else throw new Error(`unknown option ${name}`);
  }
  if (!args.bootrom || !args.uf2) throw new Error('give --bootrom and --uf2');
  return args;
}

// The UF2 format (github.com/microsoft/uf2): 512-byte blocks, each with its flash address and up to 476 bytes.
function loadUF2(path, mcu) {
  const data = readFileSync(path);
  if (data.length % 512 !== 0) throw new Error(`${path}: not a UF2 file (its size is no multiple of 512)`);
  for (let at = 0; at < data.length; at += 512) {
    const block = new DataView(data.buffer, data.byteOffset + at, 512);
    const magic = [block.getUint32(0, true), block.getUint32(4, true)];
    if (magic[0] !== UF2_MAGIC[0] || magic[1] !== UF2_MAGIC[1] || block.getUint32(508, true) !== UF2_END) {
      throw new Error(`${path}: block ${at / 512} is not a UF2 block`);
    }
    const address = block.getUint32(12, true);
    const size = block.getUint32(16, true);
    mcu.flash.set(data.subarray(at + 32, at + 32 + size), address - FLASH_START);
  }
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const rom = readFileSync(args.bootrom);
  const bootrom = new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4);
  let offset = 0; // emulated ns before this power-up: the time the readers see never goes back
  // What the host sends waits here until the device has enumerated and its FIFO (512 bytes) has room, as a host's
  // writes wait for the port to open and for the device to take them; it outlives a reset of the chip.
  const queue = [];
  let board = null;
  const powerUp = (flash) => {
    board?.stop();
    if (board !== null) offset += board.clock.nanos;
    board = boot(args, offset, bootrom, flash, queue, powerUp);
  };
  process.stdin.on('data', (chunk) => {
    queue.push(...chunk);
    board.pump();
  });
  process.stdin.on('end', () => process.exit(0));
  // The host closing and opening the port: SIGUSR1 drops DTR (and RTS), SIGUSR2 raises them again (CDC
  // SET_CONTROL_LINE_STATE, as a host's serial driver sends on close and open).
  process.on('SIGUSR1', () => board.lineState(0));
  process.on('SIGUSR2', () => board.lineState(3));
  // A pty's master side never ends while this process holds it: stop when the one that started it is gone.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
  powerUp(null);
}

// One power-up of the chip, from the boot ROM: a new RP2040 (its clock from 0 again, the readers' time going on
// from ``offset``), its flash the UF2 and filesystem image at the first boot and, after a reset, what the flash
// held. Gap: rp2040js's watchdog only calls a hook when it fires (peripherals/watchdog.js,
// onWatchdogTrigger: "override with your own soft reset implementation"), whether by its timer or by
// machine.reset(), which the rp2 port does through the watchdog (ports/rp2/modmachine.c, watchdog_reboot): here the
// hook powers the chip up again, as the watchdog's reset of the whole chip would.
function boot(args, offset, bootrom, flash, queue, powerUp) {
  const simulator = new Simulator();
  const { clock } = simulator;
  const mcu = simulator.rp2040;
  mcu.logger = new ConsoleLogger(LogLevel.Error);
  mcu.loadBootrom(bootrom);
  if (flash === null) {
    loadUF2(args.uf2, mcu);
    if (args.fs) mcu.flash.set(readFileSync(args.fs), FS_OFFSET);
  } else {
    mcu.flash.set(flash);
  }
  let stopped = false;
  const watchdog = mcu.peripherals[0x40058];
  watchdog.onWatchdogTrigger = () => {
    // Its timer would fire again at once, for ever (utils/timer32.js reschedules a periodic alarm at 0 ticks)
    watchdog.alarm.enable = false;
    if (stopped) return;
    stopped = true;
    process.stderr.write(`emulator: watchdog reset at ${((offset + clock.nanos) / 1e6).toFixed(1)} ms\n`);
    const kept = mcu.flash.slice();
    setImmediate(() => powerUp(kept));
  };

  // Gap: rp2040js 1.4.1 does not apply the pads' pull-ups (gpio-pin.js reads an input with no level set from the
  // outside as low), so a pin MicroPython sets to Pin.PULL_UP reads 0. Each pin given with --pin-high is held high
  // from outside instead, as its pull-up would on a real Pico with nothing attached (the maintenance jumper left off).
  // A pin given with --pin-low is held to ground (the jumper fitted).
  for (const pin of args.pinHigh) mcu.gpio[pin].setInputValue(true);
  for (const pin of args.pinLow) mcu.gpio[pin].setInputValue(false);

  if (args.spi0) bridgeSpi(simulator, args, offset);
  if (args.leds !== undefined) watchLeds(mcu, clock, args.leds);
  const romHooks = flashRom(mcu);

  const cdc = new USBCDC(mcu.usbCtrl);
  const usb = mcu.usbCtrl;
  // Gap: rp2040js's USBCDC sends SET_ADDRESS the moment the device clears the bus reset in its interrupt handler
  // (usb/cdc.js, onResetReceived), before TinyUSB's task has handled the reset, and the request is lost: USB never
  // enumerates. A real host leaves the device 10 ms to recover from a reset (USB 2.0, 7.1.7.5, TRSTRCY).
  const setAddress = clock.createAlarm(() => usb.sendSetupPacket(setDeviceAddressPacket(1)));
  usb.onResetReceived = () => setAddress.schedule(10e6);
  // Gap: rp2040js's USBCDC answers every read the device arms on its OUT endpoint at once, with an empty packet when
  // the host has nothing to send (usb/cdc.js, onEndpointRead), so TinyUSB re-arms and is interrupted again every
  // 10 µs of emulated time: MicroPython then runs 3-4 times slower. A real host sends nothing until it has data
  // (it NAKs the OUT token's absence by not sending one), so here an armed read waits until bytes arrive.
  let pendingRead = null;
  let connected = false;
  const pump = () => {
    if (connected) {
      while (queue.length > 0 && !cdc.txFIFO.full) cdc.sendSerialByte(queue.shift());
    }
    if (pendingRead === null || cdc.txFIFO.empty) return;
    const { endpoint, size } = pendingRead;
    pendingRead = null;
    const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
    for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
    usb.endpointReadDone(endpoint, buffer);
  };
  const hostRead = usb.onEndpointRead;
  usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) {
      hostRead(endpoint, size);
      return;
    }
    pendingRead = { endpoint, size };
    pump();
  };
  cdc.onDeviceConnected = () => {
    connected = true;
    process.stderr.write('emulator: USB CDC connected\n');
    pump();
  };
  cdc.onSerialData = (buffer) => {
    if (stopped) return;
    if (args.usbTimes) process.stderr.write(`emulator: usb ${offset + clock.nanos} ${buffer.length}\n`);
    process.stdout.write(buffer);
  };

  mcu.core.PC = FLASH_START;
  execute(simulator, () => stopped, romHooks, args.cpuScale ?? 1);
  return {
    clock,
    pump,
    lineState: (value) => connected && cdc.cdcSetControlLineState(value),
    stop: () => {
      stopped = true;
    },
  };
}

function watchLeds(mcu, clock, pin) {
  let bits = [];
  let roseAt = null;
  let fellAt = -Infinity;
  const flush = () => {
    const bytes = [];
    for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(bits.slice(i, i + 8).reduce((b, bit) => (b << 1) | bit, 0));
    if (bytes.length > 0) process.stderr.write(`emulator: leds ${Buffer.from(bytes).toString('hex')}\n`);
    bits = [];
  };
  mcu.gpio[pin].addListener((state) => {
    const now = clock.nanos;
    if (state === GPIOPinState.High) {
      if (now - fellAt > 50_000) flush();
      roseAt = now;
    } else if (state === GPIOPinState.Low && roseAt !== null) {
      bits.push(now - roseAt > 600 ? 1 : 0);
      roseAt = null;
      fellAt = now;
    }
  });
  // A frame is over once the line has stayed low for 50 µs: looked at from time to time, as no edge comes then.
  setInterval(() => clock.nanos - fellAt > 50_000 && bits.length > 0 && flush(), 50).unref();
}

// Gap: rp2040js does not emulate the flash's SPI commands (its SSI and IO_QSPI are stubs), so the boot ROM's
// flash functions write nothing and MicroPython's littlefs reports every write as an I/O error: no file can be
// saved (the hub's maintenance flag among them). Here the ROM's flash functions, as the ROM's function table names
// them (RP2040 datasheet, 2.8.3.1.3, "Flash Access Functions"), are run in JavaScript on the emulated flash:
// flash_range_erase(addr, count, ...) leaves 0xff, flash_range_program(addr, data, count) copies from RAM (a
// NOR flash can only clear bits), and the XIP and cache functions do nothing, then each returns to its caller.
function flashRom(mcu) {
  const { core } = mcu;
  const code = (name) => name.charCodeAt(0) | (name.charCodeAt(1) << 8);
  const lookup = (name) => {
    for (let entry = mcu.readUint16(0x14); ; entry += 4) {
      const found = mcu.readUint16(entry);
      if (found === 0) throw new Error(`boot ROM: no function ${name}`);
      if (found === code(name)) return mcu.readUint16(entry + 2) & ~1;
    }
  };
  const back = () => {
    core.PC = core.LR & ~1;
  };
  const hooks = new Map();
  for (const name of ['IF', 'EX', 'FC', 'CX']) hooks.set(lookup(name), back);
  hooks.set(lookup('RE'), () => {
    const [at, count] = [core.registers[0], core.registers[1]];
    mcu.flash.fill(0xff, at, at + count);
    back();
  });
  hooks.set(lookup('RP'), () => {
    const [at, data, count] = [core.registers[0], core.registers[1], core.registers[2]];
    for (let i = 0; i < count; i++) mcu.flash[at + i] &= mcu.readUint8(data + i);
    back();
  });
  return hooks;
}

// SPI0 and its chip selects to the host's readers. The host's answer is waited for (the emulated chip stands still
// meanwhile); the byte then takes its time on the wire, 8 clocks at the SPI's clock, in emulated time.
function bridgeSpi(simulator, args, offset) {
  const { rp2040: mcu, clock } = simulator;
  const [out, input] = args.spi0;
  const message = new Uint8Array(10);
  const view = new DataView(message.buffer);
  const tell = (letter, value) => {
    message[0] = letter.charCodeAt(0);
    message[1] = value;
    view.setFloat64(2, offset + clock.nanos, true);
    writeSync(out, message);
  };
  for (const pin of args.select) {
    mcu.gpio[pin].addListener((state, old) => {
      if (state === GPIOPinState.Low && old !== GPIOPinState.Low) tell('S', pin);
      else if (state === GPIOPinState.High && old === GPIOPinState.Low) tell('U', pin);
    });
  }
  if (args.reset !== undefined) {
    mcu.gpio[args.reset].addListener((state, old) => {
      if (state === GPIOPinState.High && old === GPIOPinState.Low) tell('R', args.reset);
    });
  }
  const spi = mcu.spi[0];
  const answer = new Uint8Array(1);
  let miso = 0;
  const done = clock.createAlarm(() => spi.completeTransmit(miso));
  spi.onTransmit = (mosi) => {
    tell('B', mosi);
    if (readSync(input, answer, 0, 1, null) !== 1) throw new Error('the SPI host went away');
    miso = answer[0];
    const hz = spi.clockFrequency;
    done.schedule(hz > 0 ? (8 * 1e9) / hz : 0);
  };
}

// Simulator.execute() of rp2040js, but for one gap: when the core sleeps (WFI/WFE) with no timer alarm set, the
// emulated clock stops (simulator.js ticks it only to the next alarm), and so would ticks_ms(); on a real Pico
// time goes on. Here it goes on at the pace of the wall clock until an interrupt (USB data from the host) wakes
// the core, without spinning the host's CPU meanwhile.
function execute(simulator, stopped, romHooks, cpuScale) {
  const { rp2040: mcu, clock } = simulator;
  const cycleNanos = (1e9 / 125e6) * cpuScale;
  let sleptAt = null;
  const slice = () => {
    if (stopped()) return;
    if (sleptAt !== null) {
      const now = performance.now();
      clock.tick((now - sleptAt) * 1e6);
      sleptAt = now;
    }
    for (let i = 0; i < 500_000 && !stopped(); i++) {
      if (mcu.core.waiting) {
        if (clock.nextAlarm === null) {
          sleptAt ??= performance.now();
          setTimeout(slice, 1);
          return;
        }
        const nanos = clock.nanosToNextAlarm;
        clock.tick(nanos);
        i += nanos / cycleNanos;
      } else {
        sleptAt = null;
        const pc = mcu.core.PC;
        if (pc < 0x4000 && romHooks.has(pc)) romHooks.get(pc)();
        else clock.tick(mcu.core.executeInstruction() * cycleNanos);
      }
    }
    setImmediate(slice);
  };
  slice();
}

main();
