"""``companion doctor`` and the table's voice, on a Pi in a folder: its sound cards in ``/proc/asound/cards``, the
real espeak-ng (Debian's package) rendering the test phrase, and aplay as :class:`fake_pi.Aplay` answers."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import wave
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from fake_pi import CARDS, MAX98357A, NO_CARDS, Pi

from companion.cli import build_parser
from companion.commands.doctor import run
from companion.doctor.checks import Check
from companion.doctor.diagnose import diagnose
from companion.doctor.sound import PHRASE, wav_sound
from companion.i18n import language, set_language, translate

SPEAKS = '[zones]\nz1 = "table"\nz2 = "O"\n[speech]\nlevel = "rulings"\n'
SHIPPED_PINMAP = (Path(__file__).parents[2] / "hardware/pinmap.toml").read_text("utf-8")


@pytest.fixture
def speaking(pi: Pi) -> Pi:
    pi.write_config(SPEAKS)
    return pi


@pytest.fixture(params=["es", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    before = language()
    set_language(request.param)
    yield request.param
    set_language(before)


def checks(pi: Pi) -> dict[str, Check]:
    return {check.name: check for check in diagnose(pi.config, pi.system())}


def espeak(lang: str, text: str) -> bytes:
    return subprocess.run(["espeak-ng", "-v", lang, "--stdout", text], capture_output=True, check=True).stdout


def test_a_pi_that_speaks_plays_the_test_phrase_in_the_command_lines_language(speaking: Pi, lang: str) -> None:
    out = io.StringIO()
    args = build_parser().parse_args(["doctor", "--config", str(speaking.config), "--root", str(speaking.root)])
    status = run(args, speaking.system(), out)
    said = out.getvalue()
    assert status == 0 and "✗" not in said, said
    names = [line.split(":")[0] for line in said.splitlines() if line[:1] in "✓✗"]
    sound, voice = ("sonido", "voz") if lang == "es" else ("sound", "voice")
    assert names[-4:] == [f"✓ {sound}", "✓ espeak-ng", f"✓ {voice}", "✓ " + ("diario" if lang == "es" else "journal")]
    card = "tarjeta" if lang == "es" else "card"
    assert f"✓ {sound}: default: {card} 0 Headphones (bcm2835 Headphones)" in said
    # The service user opens the card's nodes too.
    assert "/dev/snd/controlC0, /dev/snd/pcmC0D0p" in said
    [(device, wav)] = speaking.aplay.played
    phrase = translate(PHRASE, lang)
    assert device == "default" and f"«{phrase}»" in said
    # What was played is espeak-ng's own rendering of the catalogue's phrase in this language: speech, not silence,
    # of a length a spoken sentence of a dozen words has.
    assert wav == espeak(lang, phrase)
    assert wav != espeak("en" if lang == "es" else "es", translate(PHRASE, "en" if lang == "es" else "es"))
    seconds, peak = wav_sound(wav)
    assert 2.0 < seconds < 8.0 and peak > 5000
    with wave.open(io.BytesIO(wav)) as read:
        assert (read.getnchannels(), read.getsampwidth(), read.getframerate()) == (1, 2, 22050)


def test_espeak_ngs_header_lies_about_its_length_and_the_samples_are_read_to_the_end() -> None:
    """espeak-ng writing to a pipe leaves its header's sizes as placeholders: a reader that trusted them would count
    a WAV of 12 hours; the samples are counted to the end of the data."""
    wav = espeak("en", translate(PHRASE, "en"))
    assert int.from_bytes(wav[40:44], "little") == 0x7FFFF000  # the data chunk's size, never filled in
    seconds, _peak = wav_sound(wav)
    assert seconds == pytest.approx((len(wav) - 44) / 2 / 22050)


def test_a_table_that_does_not_speak_checks_no_sound(pi: Pi) -> None:
    """No [speech] (or level "off"): no sound check, and the Pi's sound is not touched."""
    pi.sound_cards(NO_CARDS)
    found = checks(pi)
    assert not {"sound", "espeak-ng", "voice"} & found.keys() and all(check.ok for check in found.values())
    pi.write_config(SPEAKS.replace("rulings", "off"))
    assert "sound" not in checks(pi) and pi.aplay.played == []


def test_no_sound_card_names_the_three_choices_and_plays_nothing(speaking: Pi) -> None:
    speaking.sound_cards(NO_CARDS)
    sound = checks(speaking)["sound"]
    assert not sound.ok and sound.detail == "no sound card (/proc/asound/cards)"
    assert "the headphone jack" in sound.fix and "a USB speaker" in sound.fix and "dtoverlay=max98357a" in sound.fix
    assert "voice" not in checks(speaking) and speaking.aplay.played == []


def test_an_amplifiers_overlay_without_its_card_needs_a_reboot(speaking: Pi) -> None:
    speaking.boot("dtparam=spi=on\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtoverlay=max98357a\n")
    speaking.sound_cards(NO_CARDS)
    sound = checks(speaking)["sound"]
    assert not sound.ok and sound.fix == "sudo reboot"
    assert sound.detail == "dtoverlay=max98357a is in config.txt but its card, MAX98357A, is not there yet"
    # The headphone jack is there, the amplifier's card not yet: the device that names it needs the reboot too.
    speaking.sound_cards(CARDS)
    speaking.write_config(SPEAKS + 'device = "plughw:CARD=MAX98357A,DEV=0"\n')
    sound = checks(speaking)["sound"]
    assert not sound.ok and sound.fix == "sudo reboot"


def test_the_max98357a_on_hw_refuses_espeaks_mono_and_plughw_converts(speaking: Pi) -> None:
    """The I2S block plays stereo only: hw: fails with aplay's words, and the fix names the plughw: PCM."""
    speaking.boot("dtparam=spi=on\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtoverlay=max98357a\n")
    speaking.sound_cards(MAX98357A)
    speaking.write_config(SPEAKS + 'device = "hw:MAX98357A"\n')
    found = checks(speaking)
    assert found["sound"].ok and found["sound"].detail == "hw:MAX98357A: card 0 MAX98357A (MAX98357A)"
    voice = found["voice"]
    assert not voice.ok
    assert voice.detail == "aplay -D hw:MAX98357A: aplay: set_params:1343: Channels count non available"
    assert voice.fix == (
        'hw:MAX98357A takes no 22050 Hz mono: set device = "plughw:MAX98357A" in [speech] (plughw converts)'
    )
    speaking.write_config(SPEAKS + 'device = "plughw:MAX98357A"\n')
    assert checks(speaking)["voice"].ok and speaking.aplay.played[-1][0] == "plughw:MAX98357A"


@pytest.mark.parametrize(
    ("boot", "key", "said"),
    [
        ("dtoverlay=max98357a", "zones.z1.red", "GPIO4 (pin 7, MAX98357A SD_MODE)"),  # its default SD_MODE pin
        ("dtoverlay=max98357a,sdmode-pin=17", "zones.z1.red", "GPIO17 (pin 11, MAX98357A SD_MODE)"),
        ("dtoverlay=hifiberry-dac", "zones.z1.green", "GPIO18 (pin 12, PCM_CLK (BCLK))"),
    ],
)
def test_an_amplifier_on_a_pin_the_pin_map_uses_is_named(speaking: Pi, boot: str, key: str, said: str) -> None:
    pinmap = SHIPPED_PINMAP.replace("red = 17", "red = 4" if "sdmode-pin" not in boot else "red = 17")
    pinmap = pinmap.replace("green = 27", "green = 18" if "hifiberry" in boot else "green = 27")
    (speaking.root / "etc/companion").mkdir()
    (speaking.root / "etc/companion/pinmap.toml").write_text(pinmap, "utf-8")
    speaking.boot(f"dtparam=spi=on\ndtparam=i2c_arm=on\n{boot}\n")
    speaking.sound_cards(MAX98357A)
    sound = checks(speaking)["sound"]
    assert not sound.ok and said in sound.detail and f"gives to {key}" in sound.detail
    assert sound.fix.startswith(f"move {key} to a free GPIO in /") and "no-sdmode" in sound.fix


def test_no_sdmode_leaves_gpio4_to_the_pin_map(speaking: Pi) -> None:
    (speaking.root / "etc/companion").mkdir()
    (speaking.root / "etc/companion/pinmap.toml").write_text(SHIPPED_PINMAP.replace("red = 17", "red = 4"), "utf-8")
    speaking.boot("dtparam=spi=on\ndtparam=i2c_arm=on\ndtoverlay=max98357a,no-sdmode\n")
    speaking.sound_cards(MAX98357A)
    assert checks(speaking)["sound"].ok


def test_the_shipped_pin_maps_leave_the_i2s_pins_and_sd_mode_free(speaking: Pi) -> None:
    speaking.boot("dtparam=spi=on\ndtparam=i2c_arm=on\ndtoverlay=max98357a\n")
    speaking.sound_cards(MAX98357A)
    for path in (Path(__file__).parents[2] / "hardware/layouts").glob("*/pinmap.toml"):
        (speaking.root / "etc/companion").mkdir(exist_ok=True)
        (speaking.root / "etc/companion/pinmap.toml").write_bytes(path.read_bytes())
        assert checks(speaking)["sound"].ok, path


def test_default_on_a_pi_whose_first_card_is_hdmi_says_which_card_to_name(speaking: Pi) -> None:
    """Card 0 is HDMI (the order a Pi's kernel gives them varies): ALSA's default then speaks to a screen."""
    speaking.sound_cards(
        " 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n                      vc4-hdmi-0\n"
        " 1 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n                      bcm2835 Headphones\n"
    )
    sound = checks(speaking)["sound"]
    assert not sound.ok and sound.detail.endswith(": HDMI, silent without a screen with speakers")
    assert sound.fix.startswith(f'set device = "plughw:CARD=Headphones,DEV=0" in [speech] of {speaking.config}')
    (speaking.root / "etc/asound.conf").write_text("defaults.pcm.card 1\ndefaults.ctl.card 1\n", "utf-8")
    assert checks(speaking)["sound"].ok  # the system's ALSA config chose the card


def test_a_usb_speaker_unplugged_is_named_with_the_cards_there(speaking: Pi) -> None:
    speaking.write_config(SPEAKS + 'device = "plughw:CARD=UACDemoV10,DEV=0"\n')
    found = checks(speaking)
    sound = found["sound"]
    assert not sound.ok
    assert sound.detail == "plughw:CARD=UACDemoV10,DEV=0 names card UACDemoV10, which this Pi does not have"
    assert "0 Headphones (bcm2835 Headphones)" in sound.fix and "voice" not in found


def test_a_card_another_program_holds(speaking: Pi) -> None:
    speaking.aplay.busy = True
    voice = checks(speaking)["voice"]
    assert not voice.ok and voice.detail.endswith("audio open error: Device or resource busy")
    assert voice.fix.startswith("another program holds the card") and "sudo systemctl stop companion" in voice.fix


def test_a_pcm_of_alsas_config_is_tried_by_the_phrase(speaking: Pi) -> None:
    speaking.write_config(SPEAKS + 'device = "speaker"\n')
    found = checks(speaking)
    assert found["sound"].ok and "speaker is a PCM of ALSA's config" in found["sound"].detail
    assert not found["voice"].ok and "Unknown PCM speaker" not in found["voice"].detail  # aplay's last line
    assert "audio open error: No such file or directory" in found["voice"].detail
    assert found["voice"].fix.startswith("set device in [speech] to a PCM aplay -L lists")


def test_the_service_user_outside_the_audio_group(speaking: Pi) -> None:
    speaking.groups({"spi": "companion", "i2c": "companion", "gpio": "companion", "dialout": "companion"})
    access = checks(speaking)["user companion"]
    assert not access.ok and access.detail == "companion is not in group audio (for /dev/snd/controlC0)"
    assert access.fix == "sudo usermod -aG audio companion, then sudo systemctl restart companion"


def test_espeak_ng_missing(speaking: Pi, tmp_path: Path) -> None:
    system = replace(speaking.system(), espeak_ng=(str(tmp_path / "no-espeak-ng"),))
    found = {check.name: check for check in diagnose(speaking.config, system)}
    assert not found["espeak-ng"].ok and found["espeak-ng"].fix == "sudo apt install espeak-ng"
    assert "voice" not in found


def espeak_data() -> Path:
    """Where this machine's espeak-ng keeps its voices (``--version`` says: "Data at: ...")."""
    version = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"Data at: (\S+)", version)
    assert found, version
    return Path(found[1])


def test_a_voice_without_its_dictionary_is_caught_though_espeak_ng_exits_0(speaking: Pi, tmp_path: Path) -> None:
    """espeak-ng's data without es_dict (a trimmed espeak-ng-data): espeak-ng exits 0 and says so on stderr only."""
    shutil.copytree(espeak_data(), tmp_path / "espeak-ng-data")
    (tmp_path / "espeak-ng-data/es_dict").unlink()
    done = subprocess.run(
        ["espeak-ng", f"--path={tmp_path}", "-v", "es", "--stdout", "hola"], capture_output=True, check=False
    )
    assert done.returncode == 0 and b"Can't read dictionary file" in done.stderr  # what the check copes with
    system = replace(speaking.system(), espeak_ng=("espeak-ng", f"--path={tmp_path}"))
    found = {check.name: check for check in diagnose(speaking.config, system)}
    espeak_check = found["espeak-ng"]
    assert not espeak_check.ok and espeak_check.detail.startswith("the es voice: Can't read dictionary file")
    assert espeak_check.fix == "sudo apt install --reinstall espeak-ng espeak-ng-data (its es voice)"
    assert speaking.aplay.played == []


def test_an_installed_unit_that_shuts_the_service_out_of_the_sound_card(speaking: Pi) -> None:
    """doctor, run from a shell, plays the phrase; the service, under an older unit's DevicePolicy=closed without
    char-alsa, could not open the card: the sound check says so."""
    unit = speaking.root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    shipped = (Path(__file__).parents[2] / "systemd/companion.service").read_text("utf-8")
    unit.write_text(shipped, "utf-8")
    assert checks(speaking)["sound"].ok
    unit.write_text(shipped.replace("DeviceAllow=char-alsa rw\n", ""), "utf-8")
    sound = checks(speaking)["sound"]
    assert not sound.ok and "DeviceAllow= has no char-alsa" in sound.detail
    assert sound.fix.startswith("sudo make install (its unit allows char-alsa)")
    unit.write_text(shipped.replace("DeviceAllow=char-alsa rw\n", "DeviceAllow=char-alsa rw\nDeviceAllow=\n"), "utf-8")
    assert not checks(speaking)["sound"].ok  # an empty assignment empties the list
    unit.write_text(shipped.replace("DevicePolicy=closed\n", "").replace("DeviceAllow=", "#DeviceAllow="), "utf-8")
    assert checks(speaking)["sound"].ok  # no policy at all: every device
