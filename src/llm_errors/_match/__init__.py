"""The text-matching engine over the pattern table: trigger prefilter and combined matcher."""
