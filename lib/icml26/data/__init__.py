"""Offline data: synthetic generators and loaders for data shipped inside installed packages."""
