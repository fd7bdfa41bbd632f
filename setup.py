"""The optional native move generator; all other metadata is in pyproject.toml.

`referee._movegen` speeds up `Rules.outcomes`. It is optional: without a C compiler the build
goes on without it and the rules run in pure Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("referee._movegen", ["referee/_movegen.c"], optional=True)])
