"""Synthetic dice scenes: two dice thrown into a baffle box, simulated with MuJoCo, rendered
offscreen with exact labels (value, cocked, tilt, stopped in the box, pose, mask, box).

Importing this package is light; MuJoCo loads only when a command runs (see `cli.py`).
"""
