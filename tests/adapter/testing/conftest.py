"""Fixtures for adapter.testing: the plugin's ``fake_mistral``.

Imported here, as the ``pytest11`` entry point gives it to users, so this suite has it
even before the plugin is registered by an install.
"""

from adapter.testing._pytest_plugin import fake_mistral

__all__ = ["fake_mistral"]
