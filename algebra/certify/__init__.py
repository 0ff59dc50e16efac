"""Certificates: emit (heavy side), catalogue of paper claims, export to Singular/Macaulay2.

The independent checker lives in :mod:`algebra.checker` and imports nothing
from here.  See ``docs/certificate-format.md``.
"""
