"""What follows a conv/dense accumulation on the vector unit: bias, requantize or cast,
activation, residual add. Shared by every backend; the NPU runs it as vector instructions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VECTOR_CHUNK = 4096  # elements of the broadcast multiplier vectors of the residual add
# the vector fields a cycle rule reads besides len (vrequant's bias: one more stage); the
# NPU emitter (npu/emit.py Emitter.vec) prices its instructions by the same
RULE_FIELDS = ("bias",)


@dataclass(frozen=True)
class VectorStep:
    """One vector instruction of an epilogue over an accumulator tile: its operands by role
    and its fields in the order they follow the operands. Roles: "acc" (the accumulators,
    abuf), "out" (the result), "res" (the residual tile), "scratch" (the residual product);
    src1 also "table" (the layer's per-channel table from the tile's first channel, its
    `channels` entries), "lhs_mult"/"rhs_mult" (the add multipliers broadcast) and
    "relu_shift" (the (1, add_shift) pair). `chunked`: run per VECTOR_CHUNK piece of the
    tile (the broadcast vectors' length)."""

    op: str
    dst: str
    src0: str
    src1: str | None = None
    fields: tuple = ()
    chunked: bool = False


def _clip(role: str, lo, hi) -> VectorStep:
    return VectorStep("vclip", role, role, None, (("lo", int(lo)), ("hi", int(hi))))


def _act(role: str, kind: str, lo, hi) -> list:
    """An activation in place on `role`: vrelu, vclip, or nothing."""
    if kind == "relu":
        return [VectorStep("vrelu", role, role)]
    return [_clip(role, lo, hi)] if kind == "clip" else []


@dataclass
class Epilogue:
    """int8: y = act(requant(acc + bias)) [+ residual: post_act(add_int(y, r))];
    float: y = act(acc + bias) [+ residual: post_act(y + r)], cast to the output dtype."""

    bias: np.ndarray                 # int32 (int8 path) or float32, one per output channel
    act: str = "none"                # none | relu | clip
    act_lo: float = -128
    act_hi: float = 127
    mult: np.ndarray | None = None   # int32 per channel (int8 path only)
    shift: np.ndarray | None = None
    out_zp: int = 0
    residual: str | None = None      # tensor added after the activation
    lhs_mult: int = 0
    rhs_mult: int = 0
    add_shift: int = 0
    post_act: str = "none"
    post_lo: float = -128
    post_hi: float = 127

    @property
    def quantized(self) -> bool:
        return self.mult is not None

    @property
    def clip_in_requant(self) -> bool:
        """Whether a quantized clip is vrequant's own clamps, so no vclip follows: its upper
        bound at or past int8's saturation (relu6 whose 6.0 lands at 127) and its lower bound
        below int8's range or at the zero point (vrequant's relu clamps there): then
        clip(sat8(y), lo, hi) == max(sat8(y), zp) == vrequant(relu=1), bit for bit."""
        return self.quantized and self.act == "clip" and self.act_hi >= 127 and \
            (self.act_lo <= -128 or self.act_lo == self.out_zp)

    @property
    def requant_relu(self) -> bool:
        """vrequant's relu flag: a ReLU, or a clip whose lower bound it takes (clip_in_requant)."""
        return self.act == "relu" or (self.clip_in_requant and self.act_lo > -128)

    @property
    def fused_bias(self) -> bool:
        """Whether vrequant adds the bias itself (its bias field, ISA 1.1: one pass, not vbias
        then vrequant, bit for bit the same): every quantized epilogue; a float one has no
        vrequant and adds the bias with vbias."""
        return self.quantized

    def vector_steps(self) -> list:
        """The vector instructions over one accumulator tile, in order, with their operands
        and fields (VectorStep): what the NPU codegen emits (npu/epilogue_gen) and, through
        vector_instrs, what cost estimates sum; the one place the sequence is decided."""
        q = self.quantized
        if self.fused_bias:  # the bias rides on vrequant: one pass, not two
            steps = [VectorStep("vrequant", "out", "acc", "table",
                                (("zp", self.out_zp), ("relu", int(self.requant_relu)),
                                 ("bias", 1)))]
        else:  # a float epilogue (fused_bias is every quantized one: its table has triples)
            steps = [VectorStep("vbias", "acc", "acc", "table")]
        if q:
            if self.act == "clip" and not self.clip_in_requant:
                steps.append(_clip("out", self.act_lo, self.act_hi))
        else:
            steps += _act("acc", self.act, self.act_lo, self.act_hi)
        if self.residual and q:
            # the add in chunks, by the broadcast multiplier vectors (VECTOR_CHUNK long)
            steps += [VectorStep("vmul", "acc", "out", "lhs_mult", chunked=True),
                      VectorStep("vmul", "scratch", "res", "rhs_mult", chunked=True),
                      VectorStep("vadd", "acc", "acc", "scratch", chunked=True)]
            if self.post_act == "relu":  # sat8(max(rs(s), 0)) in one pass, not two
                steps.append(VectorStep("vrequant", "out", "acc", "relu_shift",
                                        (("channels", 1), ("relu", 1)), chunked=True))
            else:
                steps.append(VectorStep("vshr", "out", "acc", None,
                                        (("shift", self.add_shift),), chunked=True))
                steps += _act("out", self.post_act, self.post_lo, self.post_hi)
        elif self.residual:
            steps.append(VectorStep("vadd", "acc", "acc", "res"))
            steps += _act("acc", self.post_act, self.post_lo, self.post_hi)
        if not q:  # the cast to the output dtype
            steps.append(VectorStep("vcopy", "out", "acc"))
        return steps

    def vector_instrs(self) -> list[tuple[str, dict]]:
        """(mnemonic, fields the cycle rule reads besides len) of vector_steps."""
        return [(s.op, {k: v for k, v in s.fields if k in RULE_FIELDS})
                for s in self.vector_steps()]

    def vector_ops(self) -> list:
        """The mnemonics of vector_steps (instruction counts, cache keys)."""
        return [s.op for s in self.vector_steps()]

    def cycles(self, hw, length: int) -> int:
        """Vector cycles of the epilogue of one accumulator tile of `length` elements."""
        return sum(hw.cycles(op, len=length, **fields) for op, fields in self.vector_instrs())

    def table_words(self, channels: int) -> int:
        """abuf words of the layer's constant tables: (bias, mult, shift) triples or the
        float bias, and the add mults."""
        return (3 if self.quantized else 1) * channels + (4 if self.residual else 0)

    def scratch_words(self, tile: int) -> int:
        """abuf words of the residual add's scratch (a product and two multiplier vectors)."""
        if not self.residual or not self.quantized:
            return 0
        return 3 * min(tile, VECTOR_CHUNK)
