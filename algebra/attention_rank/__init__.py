"""Approximation rank of softmax attention: certificates, geometry, constructions.

Modules
-------
certificates
    Float searches for upper (truncated SVD, representative rows) and lower
    (selection/decoder) approximation-rank constructions on the full matrix,
    returned as plain witnesses (:mod:`algebra.certify.attention` seals them
    into ``attention_rank`` certificates that the independent checker
    re-proves in ball arithmetic), and ``interval_inequality`` payloads.
head_certificates
    The committed all-MiniLM-L6-v2 head certificates: each head's inputs, the index.
geometry
    Softmax-visible interaction geometry: exact visible dimension, Chebyshev
    radii, the SVD chain ``r_int^SVD`` (Sui & Zhang, Appendices B, C, F).
constructions
    Synthetic lower constructions (Appendices D, E) and slope fits.
heads
    Offline all-MiniLM-L6-v2 heads: safetensors reader, WordPiece, numpy BERT.
training
    Lightning vs softmax training (proximity-bias paper, Figure 5).
"""

from algebra.attention_rank.certificates import (
    approximation_rank_certificates,
    attention_rank_witness,
    certified_range,
    check_interval_inequality,
)

__all__ = ["approximation_rank_certificates", "attention_rank_witness", "certified_range",
           "check_interval_inequality"]
