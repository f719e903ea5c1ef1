"""Test package: lets test modules import shared helpers as `tests.emulators`."""
