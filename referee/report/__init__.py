"""Reporters: each output format is one small module that only formats audit events."""
