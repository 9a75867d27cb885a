"""Presentation-only widgets: they show what they are given and post messages; no advice logic."""
