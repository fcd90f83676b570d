"""The data tables the classifier reads.

Text patterns, HTTP statuses and provider error types, foreign exception types.
"""
