"""Reusable test helpers: local servers and model factories."""
