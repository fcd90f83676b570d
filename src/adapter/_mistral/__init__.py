"""The Mistral client.

Wire models, request mapping, stream mapping, error translation, the client core and
its sync and async shells.
"""
