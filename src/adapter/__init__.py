"""A Mistral chat-completions streaming adapter onto the pi content model."""

__all__: list[str] = []
