"""Tuning Luna's levels: level parameters, their sensitivity, and a search toward designer-given targets."""
