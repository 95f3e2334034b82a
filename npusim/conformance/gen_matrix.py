"""Conformance tests of the matrix engine: gemm shapes at the array's limits, accumulate vs
overwrite, int32 wrap-around, addresses at the buffer ends; conv with every padding side, stride,
dilation, several channel blocks, register extremes; and seeded random tiles."""

from __future__ import annotations

import numpy as np

from npusim.conformance.case import Builder
from npusim.conformance.gen_vector import I32


def _conv_window(h, w, regs):
    """(oh, ow, kh, kw) of an h x w input tile under the spec's reset registers with these
    conv_* writes (regs keyed without the conv_ prefix)."""
    from isa.checks import reset_registers
    from isa.operands import window_out_hw
    full = reset_registers() | {f"conv_{k}": v for k, v in regs.items()}
    oh, ow = window_out_hw("conv", {"in_h": h, "in_w": w}, full)
    return oh, ow, full["conv_kh"], full["conv_kw"]


def _random_window(rng):
    """(h, w, window registers) of a seeded random conv/dwconv tile: a kernel of 1-3 rows and
    columns, stride 1-2, padding below the kernel on each side, an input 0-3 past the kernel."""
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    regs = {"kh": kh, "kw": kw, "stride_h": int(rng.integers(1, 3)),
            "stride_w": int(rng.integers(1, 3)), "pad_top": int(rng.integers(0, kh)),
            "pad_left": int(rng.integers(0, kw)), "pad_bottom": int(rng.integers(0, kh)),
            "pad_right": int(rng.integers(0, kw))}
    return int(rng.integers(kh, kh + 4)), int(rng.integers(kw, kw + 4)), regs


def gemm_case(name, t, m, k, n, rng, acc_init=None, chain=1, top=False, doc="", a=None, w=None,
              wt=0):
    """gemm m x k x n; acc_init: abuf preloaded (then acc=1); chain: that many gemms in a row,
    the later ones accumulating onto the first; wt=1: the k x n weights are stored transposed
    (n x k), as K of Q.K^T is."""
    b = Builder(name, t, doc)
    a = rng.integers(-128, 128, (chain, m, k)) if a is None else a
    w = rng.integers(-128, 128, (chain, k, n)) if w is None else w
    ia = b.put("A", a, "ibuf", top=top)
    iw = b.put("W", np.swapaxes(w, 1, 2) if wt else w, "wbuf", top=top)
    if acc_init is not None:
        ac = b.put("ACC", acc_init, "abuf", top=top)
    else:
        ac = b.alloc("abuf", m * n, top=top)
    b.handoff("dma0", "matrix")
    for i in range(chain):
        b.emit("gemm", ibuf=ia + i * m * k, wbuf=iw + i * k * n, abuf=ac, m=m, k=k, n=n,
               acc=int(acc_init is not None or i > 0), wt=wt)
    b.output("abuf", ac, m * n, src="matrix")
    return b


def conv_case(name, t, h, w, cin, cout, rng, regs=None, acc_init=None, chain=1, doc="",
              x=None, wt=None):
    return _window_case("conv", name, t, h, w, cin, cout, (cin, cout), dict(cin=cin, cout=cout),
                        rng, regs, acc_init, chain, doc, x, wt)


def dwconv_case(name, t, h, w, c, rng, regs=None, acc_init=None, chain=1, doc="", x=None,
                wt=None):
    """dwconv of an h x w x c tile (the array's depthwise mode) with these conv_* registers."""
    return _window_case("dwconv", name, t, h, w, c, c, (c,), dict(channels=c), rng, regs,
                        acc_init, chain, doc, x, wt)


def _window_case(mnemonic, name, t, h, w, cin, cout, wshape, fields, rng, regs, acc_init,
                 chain, doc, x, wt):
    """`chain` conv/dwconv instructions (kernel (kh, kw) + wshape weights each) over an
    h x w x cin tile into one oh x ow x cout accumulator tile, after these conv_* registers."""
    regs = dict(regs or {})
    oh, ow, kh, kw = _conv_window(h, w, regs)
    b = Builder(name, t, doc)
    x = rng.integers(-128, 128, (h, w, cin)) if x is None else x
    wt = rng.integers(-128, 128, (chain, kh, kw) + wshape) if wt is None else wt
    ix = b.put("X", x, "ibuf")
    iw = b.put("Wt", wt, "wbuf")
    ac = b.put("ACC", acc_init, "abuf") if acc_init is not None else b.alloc("abuf",
                                                                             oh * ow * cout)
    for r, v in regs.items():
        b.emit("cfg", unit="matrix", reg=f"conv_{r}", value=v)
    b.handoff("dma0", "matrix")
    per = kh * kw * int(np.prod(wshape))
    for i in range(chain):
        b.emit(mnemonic, ibuf=ix, wbuf=iw + i * per, abuf=ac, in_h=h, in_w=w, **fields,
               acc=int(acc_init is not None or i > 0))
    b.output("abuf", ac, oh * ow * cout, src="matrix")
    return b


def _dwconv(t, rng):
    """The depthwise mode's tiles, on a Target that has it (isa.timing.depthwise_cols)."""
    from isa.timing import depthwise_cols
    C = depthwise_cols(t)
    if not C:
        return
    R = t.array_rows
    yield dwconv_case("dwconv/3x3-all-columns", t, 5, 5, C, rng,
                      {"kh": 3, "kw": 3, "pad_top": 1, "pad_left": 1, "pad_bottom": 1,
                       "pad_right": 1}, doc="channels = array cols, MobileNet's 3x3 pad 1")
    yield dwconv_case("dwconv/1-channel", t, 3, 4, 1, rng, {"kh": 2, "kw": 3})
    for side in ("top", "left", "bottom", "right"):
        yield dwconv_case(f"dwconv/pad-{side}", t, 4, 4, 3, rng,
                          {"kh": 3, "kw": 3, f"pad_{side}": 2}, doc=f"zero padding on the {side}")
    yield dwconv_case("dwconv/stride-2", t, 7, 6, 2, rng,
                      {"kh": 3, "kw": 3, "stride_h": 2, "stride_w": 3, "pad_top": 1})
    yield dwconv_case("dwconv/dilation-2", t, 7, 7, 2, rng,
                      {"kh": 3, "kw": 2, "dilation_h": 2, "dilation_w": 3})
    kh = min(R + 1, 15)  # kh * 2 taps > R rows
    yield dwconv_case("dwconv/taps-over-rows", t, kh + 1, 4, 2, rng, {"kh": kh, "kw": 2},
                      doc="kh * kw > array rows: several passes of R taps")
    yield dwconv_case("dwconv/accumulate-chain", t, 4, 4, 2, rng, {"kh": 2, "kw": 2}, chain=2)
    yield dwconv_case("dwconv/accumulate-preloaded", t, 3, 3, 2, rng,
                      acc_init=rng.integers(-2**20, 2**20, (3, 3, 2)))
    yield dwconv_case("dwconv/wrap-int32", t, 1, 1, 1, rng, acc_init=np.array([[[I32[1]]]]),
                      x=np.array([[[127]]]), wt=np.array([[[[127]]]]))
    for i in range(4):
        h, w, regs = _random_window(rng)
        yield dwconv_case(f"dwconv/random-{i}", t, h, w, int(rng.integers(1, C + 1)), rng, regs,
                          doc="seeded random dwconv")


def _gemm(t, rng):
    R, C = t.array_rows, t.array_cols
    yield gemm_case("gemm/1x1x1", t, 1, 1, 1, rng)
    yield gemm_case("gemm/full-array", t, 2 * R, R, C, rng, doc="k = array rows, n = array cols")
    yield gemm_case("gemm/k-max-n-1", t, 3, R, 1, rng)
    yield gemm_case("gemm/k-1-n-max", t, 3, 1, C, rng)
    yield gemm_case("gemm/ragged", t, 5, max(1, R - 1), max(1, C - 1), rng)
    yield gemm_case("gemm/accumulate-chain", t, 4, R, C, rng, chain=3,
                    doc="acc=0 then acc=1 twice onto the same abuf tile")
    yield gemm_case("gemm/accumulate-preloaded", t, 3, 2, 3, rng,
                    acc_init=rng.integers(-2**20, 2**20, (3, 3)), doc="acc=1 onto DMA-loaded abuf")
    yield gemm_case("gemm/overwrite-dirty", t, 3, 2, 3, rng, doc="acc=0 over abuf a gemm wrote")
    yield gemm_case("gemm/wrap-int32", t, 2, R, 2, rng, acc_init=np.array(
        [[I32[1] - 10, I32[0] + 10], [I32[1], I32[0]]]), a=np.full((1, 2, R), 127),
        w=np.array([np.full((R, 2), 127) * np.array([1, -1])]),
        doc="the int32 accumulator wraps (two's complement), it does not saturate")
    yield gemm_case("gemm/extremes", t, 4, R, C, rng, a=np.full((1, 4, R), -128),
                    w=np.full((1, R, C), -128), doc="(-128)*(-128) products")
    yield gemm_case("gemm/addresses-top", t, 3, R, C, rng, top=True)
    # the overwrite case must start from an abuf tile that holds something else
    b = gemm_case("gemm/overwrite-after-accumulate", t, 2, 2, 2, rng, chain=2)
    b.handoff("dma0", "matrix")  # the store above reads the tile the next gemm overwrites
    b.emit("gemm", ibuf=0, wbuf=0, abuf=0, m=2, k=2, n=2, acc=0)
    b.output("abuf", 0, 4, src="matrix")
    yield b


def _conv(t, rng):
    R, C = t.array_rows, t.array_cols
    yield conv_case("conv/1x1", t, 3, 3, 2, 2, rng)
    yield conv_case("conv/3x3", t, 5, 5, 2, C, rng, {"kh": 3, "kw": 3}, doc="cout = array cols")
    for side in ("top", "left", "bottom", "right"):
        yield conv_case(f"conv/pad-{side}", t, 4, 4, 2, 3, rng,
                        {"kh": 3, "kw": 3, f"pad_{side}": 1}, doc=f"zero padding on the {side}")
    yield conv_case("conv/pad-all", t, 3, 3, 2, 2, rng,
                    {"kh": 3, "kw": 3, "pad_top": 1, "pad_left": 2, "pad_bottom": 2,
                     "pad_right": 1})
    yield conv_case("conv/stride-2", t, 7, 6, 2, 2, rng,
                    {"kh": 3, "kw": 3, "stride_h": 2, "stride_w": 3})
    yield conv_case("conv/dilation-2", t, 7, 7, 2, 2, rng,
                    {"kh": 3, "kw": 2, "dilation_h": 2, "dilation_w": 3})
    yield conv_case("conv/channel-blocks", t, 3, 3, 2 * R + 1, 2, rng, {"kh": 2, "kw": 2},
                    doc="cin > array rows: several passes per tap")
    yield conv_case("conv/accumulate-chain", t, 4, 4, 2, 2, rng, {"kh": 2, "kw": 2}, chain=2)
    yield conv_case("conv/accumulate-preloaded", t, 3, 3, 1, 2, rng,
                    acc_init=rng.integers(-2**20, 2**20, (3, 3, 2)))
    yield conv_case("conv/wrap-int32", t, 1, 1, 1, 1, rng, acc_init=np.array([[[I32[1]]]]),
                    x=np.array([[[127]]]), wt=np.array([[[[[127]]]]]))
    yield conv_case("conv/regs-max", t, 15, 15, 1, 1, rng,
                    {"kh": 15, "kw": 15, "stride_h": 15, "stride_w": 15, "pad_top": 15,
                     "pad_left": 15, "pad_bottom": 15, "pad_right": 15},
                    doc="the largest kernel, stride and pad the registers hold")
    yield conv_case("conv/dilation-max", t, 16, 16, 1, 1, rng,
                    {"kh": 2, "kw": 2, "dilation_h": 15, "dilation_w": 15})


def _random(t, rng, count=8):
    R, C = t.array_rows, t.array_cols
    for i in range(count):
        m, k, n = int(rng.integers(1, 3 * R)), int(rng.integers(1, R + 1)), int(rng.integers(1, C + 1))
        yield gemm_case(f"gemm/random-{i}", t, m, k, n, rng, chain=int(rng.integers(1, 3)),
                        doc="seeded random gemm")
    for i in range(count):
        h, w, regs = _random_window(rng)
        yield conv_case(f"conv/random-{i}", t, h, w, int(rng.integers(1, R + 3)),
                        int(rng.integers(1, C + 1)), rng, regs, doc="seeded random conv")


def _gemm_wt(t, rng):
    """wt = 1: the stationary tile stored n x k (Q.K^T with K as loaded, tokens x head_dim)."""
    R, C = t.array_rows, t.array_cols
    yield gemm_case("gemm/wt-full-array", t, 2 * R, R, C, rng, wt=1,
                    doc="k = array rows, n = array cols, weights stored transposed")
    yield gemm_case("gemm/wt-ragged", t, 5, max(1, R - 1), max(1, C - 1), rng, wt=1,
                    doc="k != n: a transposed read that confuses k and n fails")
    yield gemm_case("gemm/wt-k-1", t, 3, 1, C, rng, wt=1)
    yield gemm_case("gemm/wt-n-1", t, 3, R, 1, rng, wt=1)
    yield gemm_case("gemm/wt-accumulate-chain", t, 3, R, C, rng, chain=2, wt=1)
    yield gemm_case("gemm/wt-addresses-top", t, 2, R, C, rng, top=True, wt=1)
    for i in range(4):
        m, k, n = int(rng.integers(1, 3 * R)), int(rng.integers(1, R + 1)), int(rng.integers(1, C + 1))
        yield gemm_case(f"gemm/wt-random-{i}", t, m, k, n, rng, wt=1, doc="seeded random")


def generate(t, rng):
    yield from _gemm(t, rng)
    yield from _conv(t, rng)
    yield from _random(t, rng)
    yield from _gemm_wt(t, rng)  # last: the earlier tests' seeded draws stay as they were
    yield from _dwconv(t, rng)  # none without the depthwise mode: the others' draws stay
