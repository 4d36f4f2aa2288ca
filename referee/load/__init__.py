"""Loaders: files to raw records with their lines."""
