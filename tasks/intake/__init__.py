"""Intake: files handed in by curators, read and checked before anything is stored."""
