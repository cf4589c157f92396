"""Reusable widgets and rendering helpers."""
