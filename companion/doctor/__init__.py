"""``companion doctor``: is this Pi ready to run the table? Each check says what is wrong and the exact fix.

The checks live beside what they check; this package holds what is the doctor's own:

* :mod:`~companion.doctor.checks`: what a check finds (``Check``) and where it looks (``System``: a root folder and
  the factories that open the buses, so tests run every check on a Pi in a folder);
* :mod:`~companion.doctor.accounts`: the service user and its groups, from this Pi or from the files under a root;
* :mod:`~companion.doctor.pi`: the Pi's system: SPI and I2C switched on, the GPIO chips, the pin factory, who may
  open the device nodes;
* :mod:`~companion.doctor.diagnose`: every check in order, from the config on.

Each reader kind carries its own checks (:mod:`companion.readers`), the OLED its own
(:mod:`companion.ui.display_checks`).
"""
