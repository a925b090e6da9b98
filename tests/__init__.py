"""The tests, laid out as the package: ``tests/<layer>/test_<module>.py`` holds the tests of
``arena/<layer>/<module>.py`` (``test_<module>_<aspect>.py`` where a module has several), tests/test_cli*.py those of
arena/cli.py, and ``system/`` the tests of the whole from outside (the sandbox against hostile bots, other languages,
the wheel, a fresh ``make test``).

A package, as is each folder in it, so that modules of two layers may share a name (``sprt/test_run.py`` and
``tournament/test_run.py``). The helpers beside this file (helpers, probing, sandboxing) are imported by their plain
names (pyproject.toml puts tests/ on the path); tests/bots holds the bot scripts the tests run, and the tests of
arena/bots.
"""
