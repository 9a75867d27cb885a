"""The app's own persistence: the half-done walk, the last profile and the theme, in the user config dir."""
