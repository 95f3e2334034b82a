"""Transformer models built in code: BERT-tiny (post-LN encoder), ViT-Ti/16 (pre-LN encoder on
16x16 patches) and GPT-2 small (pre-LN causal decoder: a prefill of `seq` tokens, or one decode
step reading and appending a KV cache), with seeded, well-scaled random weights."""

from __future__ import annotations

import numpy as np

from ..errors import ZooError
from ..frontend.builder import GraphBuilder
from .params import ParamGen

MASK_DROP = -1e4  # the additive mask value of a dropped score (as exporters write it)
LM_HEAD_BLOCK = 8192  # GPT-2's LM head in blocks of this many vocabulary entries


class _Blocks:
    """One model's builder, weights and sizes; attention and MLP blocks on (1, seq, hidden)."""

    def __init__(self, name: str, hidden: int, heads: int, ffn: int, seed: int):
        if hidden % heads:
            raise ZooError(f"{name}: hidden {hidden} is not a multiple of heads {heads}")
        self.b, self.p = GraphBuilder(name), ParamGen(seed)
        self.h, self.heads, self.ffn = hidden, heads, ffn
        self.d = hidden // heads

    def linear(self, x, fin: int, fout: int, name: str, gain: float = 1.0):
        w, bias = self.p.dense(fin, fout)
        return self.b.dense(x, w * np.float32(gain), bias, name=name)

    def norm(self, x, name: str):
        r = self.p.rng
        g = r.uniform(0.8, 1.2, self.h).astype(np.float32)
        beta = r.normal(0.0, 0.05, self.h).astype(np.float32)
        return self.b.op("nn.layer_norm", [x, g, beta], name=name, epsilon=1e-5)

    def split_heads(self, x, seq: int, name: str, keys: bool = False):
        """(1, seq, hidden) -> (1, heads, seq, d), or (1, heads, d, seq) for the keys (K^T)."""
        r = self.b.reshape(x, (1, seq, self.heads, self.d), name=f"{name}.heads")
        return self.b.transpose(r, (0, 2, 3, 1) if keys else (0, 2, 1, 3), name=f"{name}.t")

    def attention(self, x, seq: int, name: str, mask=None, past=None):
        """Multi-head self-attention; past = (k, v) caches (1, past, hidden): the new keys and
        values are appended (concat), returned as the present caches."""
        b, h = self.b, self.h
        q = self.linear(x, h, h, f"{name}.q")
        k = self.linear(x, h, h, f"{name}.k")
        v = self.linear(x, h, h, f"{name}.v")
        present = None
        kv_seq = seq
        if past is not None:
            k = b.concat([past[0], k], axis=1, name=f"{name}.k_cache")
            v = b.concat([past[1], v], axis=1, name=f"{name}.v_cache")
            present = (k, v)
            kv_seq = k.shape[1]
        qh = self.split_heads(q, seq, f"{name}.q")
        kt = self.split_heads(k, kv_seq, f"{name}.k", keys=True)
        vh = self.split_heads(v, kv_seq, f"{name}.v")
        s = b.op("nn.matmul", [qh, kt], name=f"{name}.scores", alpha=1.0 / np.sqrt(self.d))
        p = b.op("nn.softmax", [s] + ([mask] if mask is not None else []), name=f"{name}.probs",
                 axis=-1)
        ctx = b.transpose(b.matmul(p, vh, name=f"{name}.ctx"), (0, 2, 1, 3),
                          name=f"{name}.ctx.t")
        ctx = b.reshape(ctx, (1, seq, h), name=f"{name}.ctx.merge")
        return self.linear(ctx, h, h, f"{name}.out", gain=0.5), present

    def mlp(self, x, name: str):
        y = self.linear(x, self.h, self.ffn, f"{name}.fc1")
        y = self.b.op("gelu", [y], name=f"{name}.gelu")
        return self.linear(y, self.ffn, self.h, f"{name}.fc2", gain=0.5)


def _embed(b: GraphBuilder, name: str, seq: int, hidden: int, vocab: int, positions: int,
           first: int, seed: int, token_type: bool = False):
    """Token ids (1, seq) int64 -> the embedded sequence (1, seq, hidden): the word
    embedding's rows gathered by the ids (an embedding lookup: on the host, before the NPU),
    plus the learned position embedding of positions first .. first + seq - 1 (a constant:
    the positions are known at compile time; BERT's token-type-0 row joins it). Tables from
    their own generator, so the blocks' weights are those of the embedded-input form."""
    if first + seq > positions:
        raise ZooError(f"{name}: positions {first}..{first + seq - 1} pass the position "
                       f"table's {positions} rows; use a shorter sequence")
    p = ParamGen(seed + 7919)
    word = p.normal((vocab, hidden), 1.0)
    pos = p.normal((positions, hidden), 0.5)[first:first + seq]
    if token_type:
        pos = pos + p.normal((2, hidden), 0.5)[0]
    ids = b.input("input_ids", (1, seq), "int64")
    x = b.op("embedding", [b.const(word, "emb.word_table"), ids], name="emb.word")
    return b.add(x, b.const(pos.reshape(1, seq, hidden).astype(np.float32), "emb.pos_table"),
                 name="emb.pos")


def _causal(seq: int) -> np.ndarray:
    keep = np.tril(np.ones((seq, seq), bool))
    return np.where(keep, 0.0, MASK_DROP).astype(np.float32).reshape(1, 1, seq, seq)


def bert_tiny(seq: int = 128, hidden: int = 128, heads: int = 2, layers: int = 2,
              ffn: int | None = None, vocab: int = 30522, positions: int = 512,
              embedded: bool = False, seed: int = 0):
    """BERT-tiny encoder (2 layers, hidden 128, 2 heads, seq 128): token ids `input_ids`
    (1, seq) int64, the word embedding looked up on the host, position and token-type
    embeddings added on the NPU, post-LN blocks. embedded=True: the input is the embedded
    sequence `embeddings` (1, seq, hidden) instead (the lookup and the adds are the caller's)."""
    m = _Blocks("bert_tiny", hidden, heads, ffn or 4 * hidden, seed)
    x = m.b.input("embeddings", (1, seq, hidden)) if embedded else \
        _embed(m.b, "bert_tiny", seq, hidden, vocab, positions, 0, seed, token_type=True)
    x = m.norm(x, "emb.ln")
    for i in range(layers):
        a, _ = m.attention(x, seq, f"l{i}.attn")
        x = m.norm(m.b.add(x, a, name=f"l{i}.attn.res"), f"l{i}.ln1")
        x = m.norm(m.b.add(x, m.mlp(x, f"l{i}.mlp"), name=f"l{i}.mlp.res"), f"l{i}.ln2")
    return m.b.build(x)


def vit_tiny(resolution: int = 224, patch: int = 16, hidden: int = 192, heads: int = 3,
             layers: int = 12, ffn: int | None = None, num_classes: int = 1000,
             class_token: bool = True, seed: int = 0):
    """ViT-Ti/16 (12 layers, hidden 192, 3 heads): a 16x16/16 patch conv, the learned class
    token prepended to the patch tokens (a concat of a constant), a learned position
    embedding, pre-LN blocks, and the class token's final LN into the class head.
    class_token=False: no class token, the head reads the mean over the patch tokens."""
    if resolution % patch:
        raise ZooError(f"vit_tiny: resolution {resolution} is not a multiple of the patch "
                       f"{patch}")
    m = _Blocks("vit_tiny", hidden, heads, ffn or 4 * hidden, seed)
    b, g = m.b, resolution // patch
    img = b.input("input", (1, 3, resolution, resolution))
    w = m.p.normal((hidden, 3, patch, patch), np.sqrt(1.0 / (3 * patch * patch)))
    y = b.conv2d(img, w, np.zeros(hidden, np.float32), stride=patch, name="patch")
    patches = g * g
    x = b.transpose(b.reshape(y, (1, hidden, patches), name="patch.flat"), (0, 2, 1),
                    name="tokens")
    seq = patches + class_token
    if class_token:  # drawn from its own generator: the blocks keep the weights of either form
        cls = ParamGen(seed + 104729).normal((1, 1, hidden), 1.0)
        x = b.concat([b.const(cls, "cls_token"), x], axis=1, name="cls")
    x = b.add(x, m.p.normal((1, seq, hidden), 0.2), name="pos")  # learned position embedding
    for i in range(layers):
        a, _ = m.attention(m.norm(x, f"l{i}.ln1"), seq, f"l{i}.attn")
        x = b.add(x, a, name=f"l{i}.attn.res")
        x = b.add(x, m.mlp(m.norm(x, f"l{i}.ln2"), f"l{i}.mlp"), name=f"l{i}.mlp.res")
    if class_token:
        # the class token's row only: the final LN is per token, so LN then slice (as ViT
        # writes it) equals slice then LN, on one row instead of all of them
        first = b.op("slice", [x], name="cls.out", axis=1, start=0, end=1)
        pooled = b.reshape(m.norm(first, "ln"), (1, hidden), name="cls.flat")
        return b.build(m.linear(pooled, hidden, num_classes, "head"))
    x = m.norm(x, "ln")
    # the mean over tokens: a dense of the transposed tokens with a constant 1/seq column
    xt = b.transpose(x, (0, 2, 1), name="pool.t")
    pooled = b.reshape(b.dense(xt, np.full((seq, 1), 1.0 / seq, np.float32), name="pool"),
                       (1, hidden), name="pool.flat")
    return b.build(m.linear(pooled, hidden, num_classes, "head"))


def gpt2(seq: int = 128, decode: bool = False, hidden: int = 768, heads: int = 12,
         layers: int = 12, ffn: int | None = None, vocab: int = 50257, positions: int = 1024,
         embedded: bool = False, seed: int = 0):
    """GPT-2 small (12 layers, hidden 768, 12 heads): a causal prefill of `seq` tokens, or
    with decode=True one token (at position seq) attending to a KV cache of `seq` earlier
    ones (inputs past_k/past_v per layer, outputs the appended caches); logits of the last
    token (the LM head, vocab 50257). The input is token ids `input_ids` (1, seq or 1) int64
    (the word embedding looked up on the host, the position embedding added on the NPU), or
    with embedded=True the embedded tokens `embeddings` (1, seq or 1, hidden)."""
    m = _Blocks("gpt2", hidden, heads, ffn or 4 * hidden, seed)
    b = m.b
    steps = 1 if decode else seq
    x = b.input("embeddings", (1, steps, hidden)) if embedded else \
        _embed(b, "gpt2", steps, hidden, vocab, max(positions, seq + 1),
               seq if decode else 0, seed)
    mask = None if decode or seq == 1 else b.const(_causal(seq), "causal_mask")
    presents = []
    for i in range(layers):
        past = None
        if decode:
            past = (b.input(f"past_k{i}", (1, seq, hidden)), b.input(f"past_v{i}", (1, seq, hidden)))
        a, present = m.attention(m.norm(x, f"l{i}.ln1"), steps, f"l{i}.attn", mask, past)
        x = b.add(x, a, name=f"l{i}.attn.res")
        x = b.add(x, m.mlp(m.norm(x, f"l{i}.ln2"), f"l{i}.mlp"), name=f"l{i}.mlp.res")
        presents += list(present or ())
    last = x if steps == 1 else b.op("slice", [x], name="last", axis=1, start=steps - 1,
                                    end=steps)
    h = m.norm(last, "ln_f")
    # the LM head in column blocks: one dense layer's per-channel epilogue table (bias, mult,
    # shift per output) must fit abuf, and 50257 outputs' do not
    parts = [m.linear(h, hidden, min(LM_HEAD_BLOCK, vocab - v0), f"lm_head{i}")
             for i, v0 in enumerate(range(0, vocab, LM_HEAD_BLOCK))]
    logits = parts[0] if len(parts) == 1 else b.concat(parts, axis=-1, name="lm_head")
    return b.build([logits] + presents)
