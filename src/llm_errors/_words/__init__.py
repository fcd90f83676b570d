"""The words layer: evidence from the words of a text no rule decided (docs/classifier.md)."""
