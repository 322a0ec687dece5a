"""Doctor's checks of the table's voice, when the config's ``[speech]`` makes the table speak: the ALSA card the
config's PCM names (the Pi's headphone jack, a USB speaker, or an I2S amplifier such as the MAX98357A), espeak-ng
and its voices, and a test phrase, in the command line's language, played through that PCM.

The cards are read from ``/proc/asound/cards``, which the kernel writes two lines a card (sound/core/init.c,
``snd_card_info_read``: ``"%2i [%-15s]: %s - %s"`` with the card's number, id, driver and short name, then its long
name), or ``--- no soundcards ---``::

    >>> parse_cards(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\\n      bcm2835 Headphones\\n")
    [Card(index=0, id='Headphones', driver='bcm2835_headpho', name='bcm2835 Headphones')]
    >>> card_of("plughw:CARD=Headphones,DEV=0"), card_of("hw:1,0"), card_of("default"), card_of("speaker")
    ('Headphones', '1', '', None)
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import wave
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from companion.doctor.checks import Check, System
from companion.doctor.pi import UNIT, boot_config
from companion.hardware import HEADER_PINS, PinMap
from companion.i18n import N_, _, language, translate

__all__ = [
    "I2S_OVERLAYS",
    "I2S_PINS",
    "PHRASE",
    "Card",
    "Speech",
    "card_of",
    "check_card",
    "check_espeak",
    "check_voice",
    "parse_cards",
    "sound_checks",
    "sound_nodes",
    "unit_shuts_out_sound",
    "wav_sound",
]

PHRASE = N_("This is the table's voice: if you hear it, the sound works.")
VOICES = ("es", "en")  # the table speaks both (the menu switches): both voices must be there
SOUND, ESPEAK, VOICE = N_("sound"), "espeak-ng", N_("voice")
# The I2S pins the Pi's device tree gives the I2S block (raspberrypi/linux, bcm2708-rpi.dtsi: i2s_pins,
# brcm,pins = <18 19 20 21>, ALT0), each by its name on the Pi and on an amplifier's board. GPIO20 (PCM_DIN, the
# Pi's input) goes to I2S too, though an amplifier leaves it unwired.
I2S_PINS = {18: "PCM_CLK (BCLK)", 19: "PCM_FS (LRCLK)", 20: "PCM_DIN", 21: "PCM_DOUT (DIN)"}
# The overlays that drive an I2S amplifier with no control bus, and the card id each makes (the overlay's card
# name: max98357a-overlay.dts, simple-audio-card,name = "MAX98357A"; hifiberry-dac's snd_rpi_hifiberry_dac).
I2S_OVERLAYS = {"max98357a": "MAX98357A", "hifiberry-dac": "sndrpihifiberry"}
# raspberrypi/linux arch/arm/boot/dts/overlays/README, max98357a: "sdmode-pin ... (default GPIO4 if parameter
# omitted)"; "no-sdmode: Driver does not manage the state of the DAC's SD_MODE pin (i.e. chip is always on)".
SDMODE_DEFAULT = 4
CHOICES = N_(
    "give the table a speaker (hardware/README.md, Sound): the headphone jack (Pi 3 and 4: dtparam=audio=on in "
    "config.txt), a USB speaker, or a MAX98357A amplifier on the I2S pins (dtoverlay=max98357a in config.txt); "
    "then sudo reboot"
)
LOUD = 1000  # a sample peak (of 32767) that is speech, not a silent or empty render
SECONDS = (1.0, 20.0)  # how long the test phrase may last when spoken: a shorter render lost its words


@dataclass(frozen=True)
class Speech:
    """The config's ``[speech]`` as doctor needs it (:class:`~companion.config.SpeechConfig`): whether the table
    speaks, and through which ALSA PCM."""

    level: str = "off"
    device: str = "default"

    @property
    def on(self) -> bool:
        return self.level != "off"


@dataclass(frozen=True)
class Card:
    """One ALSA card: its number, its id (what ``CARD=`` names), its driver and its short name."""

    index: int
    id: str
    driver: str
    name: str

    @property
    def hdmi(self) -> bool:
        """An HDMI output (vc4-hdmi on a Pi 4 or 5): silent without a screen that has speakers."""
        return "hdmi" in f"{self.id} {self.driver}".lower()

    def said(self) -> str:
        return f"{self.index} {self.id} ({self.name})"


_CARD_LINE = re.compile(r"^\s*(\d+) \[(.*?)\s*\]: (.*?) - (.*)$")


def parse_cards(text: str) -> list[Card]:
    """The cards of a ``/proc/asound/cards``; its long-name lines and ``--- no soundcards ---`` are no card."""
    found = (_CARD_LINE.match(line) for line in text.splitlines())
    return [Card(int(m[1]), m[2], m[3].strip(), m[4].strip()) for m in found if m]


def card_of(pcm: str) -> str | None:
    """The card an ALSA PCM name plays on: its ``CARD=`` or first argument (a number or an id), ``""`` for ALSA's
    default card (``default``, ``sysdefault``), None for a PCM only an ALSA config defines (``speaker``)."""
    plugin, _colon, arguments = pcm.partition(":")
    if not arguments:
        return "" if plugin in ("default", "sysdefault") else None
    named = re.search(r"(?:^|,)CARD=([^,]+)", arguments)
    return named[1] if named else arguments.split(",")[0]


def _find(cards: Sequence[Card], ref: str) -> Card | None:
    return next((card for card in cards if ref in (str(card.index), card.id)), None)


def _overlays(system: System) -> dict[str, dict[str, str]]:
    """The I2S amplifier overlays of ``config.txt`` and their parameters (``dtoverlay=max98357a,no-sdmode``)."""
    config, _params, names = boot_config(system)
    if config is None or not names & I2S_OVERLAYS.keys():
        return {}
    found: dict[str, dict[str, str]] = {}
    for raw in config.read_text("utf-8", errors="replace").splitlines():
        key, _equals, value = raw.split("#", 1)[0].strip().partition("=")
        name, *params = (part.strip() for part in value.split(","))
        if key.strip() == "dtoverlay" and name in I2S_OVERLAYS:
            found[name] = dict((param.partition("=")[0], param.partition("=")[2]) for param in params)
    return found


def _i2s_pins(overlays: dict[str, dict[str, str]]) -> dict[int, str]:
    """The GPIOs the amplifier's overlays take: the I2S pins, and the MAX98357A's SD_MODE unless ``no-sdmode``."""
    pins = dict(I2S_PINS) if overlays else {}
    params = overlays.get("max98357a")
    if params is not None and "no-sdmode" not in params:
        sdmode = params.get("sdmode-pin", "")
        pins[int(sdmode) if sdmode.isdigit() else SDMODE_DEFAULT] = "MAX98357A SD_MODE"
    return pins


def unit_shuts_out_sound(system: System) -> bool:
    """Whether the installed unit keeps the service from the sound card: a device policy (``DevicePolicy=closed``
    or ``strict``, or any ``DeviceAllow=``, systemd.resource-control(5)) whose list has neither ALSA's driver
    (``char-alsa``) nor a ``/dev/snd`` node. doctor, run from a shell, opens the card all the same."""
    try:
        text = system.path("/").joinpath(UNIT).read_text("utf-8", errors="replace")
    except OSError:
        return False  # no unit installed: nothing shuts it out
    policy = "auto"
    allowed: list[str] = []
    for line in text.splitlines():
        key, _equals, value = line.strip().partition("=")
        if key == "DevicePolicy":
            policy = value.strip()
        elif key == "DeviceAllow":  # entries add up; an empty assignment resets the list
            allowed = [*allowed, value.split()[0]] if value.strip() else []
    if policy == "auto" and not allowed:
        return False
    return not any(entry == "char-alsa" or entry.startswith("/dev/snd") for entry in allowed)


def check_card(system: System, speech: Speech, pinmap: PinMap, config: str) -> tuple[Check, Card | None]:
    """The card ``speech.device`` plays on is there; an I2S amplifier's pins are free in the pin map; the installed
    unit lets the service open it; the card found (None when the PCM is an ALSA config's own, which the test phrase
    tries)."""
    name, device = _(SOUND), speech.device
    if unit_shuts_out_sound(system):
        detail = _("the installed unit's DeviceAllow= has no char-alsa: the service cannot open the sound card")
        fix = _(
            "sudo make install (its unit allows char-alsa), then sudo systemctl daemon-reload && sudo systemctl "
            "restart companion"
        )
        return Check(name, False, detail, fix), None
    overlays = _overlays(system)
    for gpio, line in sorted(_i2s_pins(overlays).items()):
        taken = next((key for key, pin in pinmap.gpios() if pin == gpio), None)
        if taken is not None:
            overlay = next(iter(overlays))
            detail = _("{overlay} in config.txt takes GPIO{gpio} (pin {pin}, {line}), which {pinmap} gives to {key}")
            fix = _(
                "move {key} to a free GPIO in {pinmap} and rewire it; or, for the MAX98357A's SD_MODE, use "
                "dtoverlay=max98357a,no-sdmode (the amplifier stays on)"
            )
            named = {"overlay": f"dtoverlay={overlay}", "gpio": gpio, "pin": HEADER_PINS[gpio], "line": line}
            where = {"key": taken, "pinmap": pinmap.source}
            return Check(name, False, detail.format(**named, **where), fix.format(**where)), None
    try:
        cards = parse_cards(system.path("/proc/asound/cards").read_text("utf-8", errors="replace"))
    except OSError:
        cards = []  # a kernel without ALSA, or an SD card mounted elsewhere: no card either way
    ref = card_of(device)
    # An amplifier's card appears at boot from its overlay alone (no bus to probe): none yet is a Pi not rebooted.
    pending = [overlay for overlay in overlays if not _find(cards, I2S_OVERLAYS[overlay])]
    if pending and (not cards or ref in [I2S_OVERLAYS[overlay] for overlay in pending]):
        detail = _("dtoverlay={overlay} is in config.txt but its card, {card}, is not there yet")
        return Check(name, False, detail.format(overlay=pending[0], card=I2S_OVERLAYS[pending[0]]), "sudo reboot"), None
    if not cards:
        return Check(name, False, _("no sound card (/proc/asound/cards)"), _(CHOICES)), None
    listed = ", ".join(card.said() for card in cards)
    if ref is None:
        detail = _("{device} is a PCM of ALSA's config, not a card (the test phrase tries it); cards: {cards}")
        return Check(name, True, detail.format(device=device, cards=listed)), None
    card = _find(cards, ref) if ref else _find(cards, "0")
    others = [c for c in cards if not c.hdmi]
    example = f"plughw:CARD={(others or cards)[0].id},DEV=0"
    set_device = _('set device = "{example}" in [speech] of {config} (cards: {cards})').format(
        example=example, config=config, cards=listed
    )
    if card is None:
        detail = _("{device} names card {card}, which this Pi does not have").format(device=device, card=ref or 0)
        return Check(name, False, detail, set_device), None
    said = _("{device}: card {card}").format(device=device, card=card.said())
    if not ref and system.path("/etc/asound.conf").exists():
        detail = _("{device}: as /etc/asound.conf says; cards: {cards}").format(device=device, cards=listed)
        return Check(name, True, detail), card
    if card.hdmi:
        hdmi = said + _(": HDMI, silent without a screen with speakers")
        return Check(name, False, hdmi, set_device if others else _(CHOICES)), card
    return Check(name, True, said), card


def sound_nodes(system: System, speech: Speech) -> list[str]:
    """The ALSA device nodes the voice opens on the card its PCM names: the card's control and playback PCMs."""
    try:
        cards = parse_cards(system.path("/proc/asound/cards").read_text("utf-8", errors="replace"))
    except OSError:
        return []
    ref = card_of(speech.device)
    card = None if ref is None else _find(cards, ref or "0")
    if card is None:
        return []
    snd = system.path("/dev/snd")
    nodes = [snd / f"controlC{card.index}", *sorted(snd.glob(f"pcmC{card.index}D*p"))]
    return [system.shown(node) for node in nodes if node.exists()]


def wav_sound(wav: bytes) -> tuple[float, int]:
    """How long a 16-bit WAV lasts (seconds) and its loudest sample. espeak-ng writing to a pipe cannot go back to
    its header: the sizes there are placeholders (src/espeak-ng.c, OpenWavFile: 0x7ffff000), so the samples are
    read to the end of the data, whatever the header says."""
    with wave.open(io.BytesIO(wav)) as read:
        rate, width = read.getframerate(), read.getsampwidth()
        frames = read.readframes(read.getnframes())
    if width != 2 or not rate:
        raise wave.Error(f"{width * 8}-bit samples at {rate} Hz, not 16-bit")
    samples = array("h", frames[: len(frames) // 2 * 2])
    if sys.byteorder == "big":
        samples.byteswap()
    return len(samples) / rate, max((abs(sample) for sample in samples), default=0)


def _render(system: System, lang: str) -> tuple[bytes | None, str]:
    """The test phrase in ``lang`` as espeak-ng's WAV, or None and why not (espeak-ng's words)."""
    command = [*system.espeak_ng, "-v", lang, "--stdout", translate(PHRASE, lang)]
    try:
        done = subprocess.run(command, capture_output=True, check=False, timeout=60)
    except FileNotFoundError:
        return None, ""
    except subprocess.TimeoutExpired:
        return b"", _("espeak-ng did not finish in 60 s")
    # A voice whose dictionary is missing still exits 0 and says so on stderr (espeak-ng's dictionary.c,
    # LoadDictionary: "Can't read dictionary file"): anything on stderr is a problem.
    words = done.stderr.decode("utf-8", errors="replace").strip()
    if done.returncode != 0 or words:
        return b"", words or _("espeak-ng exited with status {status}").format(status=done.returncode)
    try:
        seconds, peak = wav_sound(done.stdout)
    except (wave.Error, EOFError) as exc:
        return b"", _("espeak-ng's output is no WAV ({error})").format(error=exc)
    if peak < LOUD or not SECONDS[0] <= seconds <= SECONDS[1]:
        return b"", _("the phrase came out {seconds:.1f} s long, at most {peak} loud: not speech").format(
            seconds=seconds, peak=peak
        )
    return done.stdout, ""


def check_espeak(system: System) -> tuple[Check, bytes | None]:
    """espeak-ng is installed and speaks each of the table's languages (and the command line's); the test phrase
    rendered in the command line's language, for :func:`check_voice`."""
    spoken: dict[str, bytes] = {}
    for lang in dict.fromkeys((*VOICES, language())):
        wav, why = _render(system, lang)
        if wav is None:
            fix = "sudo apt install espeak-ng"
            return Check(ESPEAK, False, _("espeak-ng is not installed"), fix), None
        if why:
            detail = _("the {lang} voice: {why}").format(lang=lang, why=why)
            fix = _("sudo apt install --reinstall espeak-ng espeak-ng-data (its {lang} voice)").format(lang=lang)
            return Check(ESPEAK, False, detail, fix), None
        spoken[lang] = wav
    seconds, _peak = wav_sound(spoken[language()])
    detail = _("voices {voices}; the test phrase lasts {seconds:.1f} s").format(
        voices=", ".join(spoken), seconds=seconds
    )
    return Check(ESPEAK, True, detail), spoken[language()]


def check_voice(system: System, speech: Speech, wav: bytes, card: Card | None) -> Check:
    """The test phrase played through the PCM: aplay's answer, and the fix its words call for."""
    name, device = _(VOICE), speech.device
    try:
        done = system.play(wav, device)
    except FileNotFoundError:
        return Check(name, False, _("aplay is not installed"), "sudo apt install alsa-utils")
    heard = translate(PHRASE, language())
    through = device if card is None else f"{device} ({card.id})"
    if done.returncode == 0:
        detail = _("played «{phrase}» through {device}: nobody heard it? the speaker's power, its wires, the volume")
        return Check(name, True, detail.format(phrase=heard, device=through))
    words = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    detail = _("aplay -D {device}: {error}").format(device=device, error=words[-1] if words else done.returncode)
    return Check(name, False, detail, _player_fix(" ".join(words), speech, system.user))


def _player_fix(said: str, speech: Speech, user: str) -> str:
    """What to do about aplay's error, by the words alsa-lib and aplay say it with (alsa-utils aplay/aplay.c:
    "audio open error: %s" with snd_strerror's reason, "Channels count non available", "Sample format non
    available"; alsa-lib pcm.c: "Unknown PCM")."""
    device = speech.device
    if "Device or resource busy" in said:
        return _(
            "another program holds the card (the service speaking?): sudo systemctl stop companion, run companion "
            "doctor again, then sudo systemctl start companion"
        )
    if "Permission denied" in said:
        return _("sudo usermod -aG audio {user} (sudo make install does it)").format(user=user)
    if "non available" in said or "not available" in said:
        plug = "plug" + device if device.startswith("hw:") else device
        return _('{device} takes no 22050 Hz mono: set device = "{plug}" in [speech] (plughw converts)').format(
            device=device, plug=plug
        )
    if "Unknown PCM" in said or "No such file or directory" in said:
        return _("set device in [speech] to a PCM aplay -L lists, such as plughw:CARD=Headphones,DEV=0")
    return _("run aplay -D {device} with any WAV file to see ALSA's own words").format(device=device)


def sound_checks(system: System, speech: Speech, pinmap: PinMap, config: str) -> Iterator[Check]:
    """The card, espeak-ng, then the test phrase played (only once the card and the voices are there)."""
    card_check, card = check_card(system, speech, pinmap, config)
    yield card_check
    espeak, wav = check_espeak(system)
    yield espeak
    if card_check.ok and wav is not None:
        yield check_voice(system, speech, wav, card)
