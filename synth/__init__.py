"""Synthetic scenes with exact labels: dice in a baffle box, boards with checkers, whole games.

Training and test data for the vision, deterministic for a given seed. Rendering tools
(MuJoCo) come from the optional `synth` extra and are imported only by the generators.
"""
