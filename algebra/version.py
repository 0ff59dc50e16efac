"""The toolkit's version, recorded in every certificate's ``tool`` field.

A module of its own (layer 0, beside :mod:`algebra.errors`) so that the packages recording it import this file,
never the root package: the root resolves its public API from :mod:`algebra.api` (the top layer), and an import
of the root from below would close a cycle through it.

Examples
--------
>>> from algebra.version import __version__
>>> __version__.count(".")
2
"""

__version__ = "0.1.0"
