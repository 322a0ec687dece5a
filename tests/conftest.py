"""Suite-wide settings. Hypothesis runs without a deadline: a busy CI machine must not fail a property."""

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("default")
