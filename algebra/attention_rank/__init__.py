"""Approximation rank of softmax attention: certificates, geometry, constructions.

Modules
-------
certificates
    Upper (truncated SVD, representative rows) and lower (selection/decoder)
    approximation-rank certificates as ``interval_inequality`` payloads, and
    an mpmath interval check of them.
geometry
    Softmax-visible interaction geometry: exact visible dimension, Chebyshev
    radii, the SVD chain ``r_int^SVD`` (Sui & Zhang, Appendices B, C, F).
constructions
    Synthetic lower constructions (Appendices D, E) and slope fits.
heads
    Offline all-MiniLM-L6-v2 heads: safetensors reader, WordPiece, numpy BERT.
training
    Lightning vs softmax attention training (proximity-bias paper, Figure 5).
"""

from algebra.attention_rank.certificates import (
    approximation_rank_certificates,
    check_interval_inequality,
)

__all__ = ["approximation_rank_certificates", "check_interval_inequality"]
