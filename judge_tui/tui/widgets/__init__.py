"""Widgets of the rating screen."""
