"""What follows a conv/dense accumulation on the vector unit: bias, requantize or cast,
activation, residual add. Shared by every backend; the NPU runs it as vector instructions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VECTOR_CHUNK = 4096  # elements of the broadcast multiplier vectors of the residual add


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

    def vector_instrs(self) -> list[tuple[str, dict]]:
        """(mnemonic, fields the cycle rule reads besides len) of the vector instructions
        over one accumulator tile, in order: what cost estimates sum and the NPU codegen
        emits."""
        ops = self.vector_ops()
        if self.fused_bias:
            return [(op, {"bias": 1} if i == 0 else {}) for i, op in enumerate(ops)]
        return [(op, {}) for op in ops]

    def vector_ops(self) -> list:
        """The vector instructions over one accumulator tile, in order (for cost estimates
        and as the contract the NPU codegen follows); a quantized one's first vrequant adds
        the bias (fused_bias)."""
        ops = [] if self.fused_bias else ["vbias"]
        if self.quantized:
            ops.append("vrequant")
            if self.act == "clip" and not self.clip_in_requant:
                ops.append("vclip")
        else:
            if self.act != "none":
                ops.append("vrelu" if self.act == "relu" else "vclip")
        if self.residual and self.quantized:
            ops += ["vmul", "vmul", "vadd"]
            # a ReLU after the add rides on the shift: vrequant by (1, shift) with relu=1
            ops += {"relu": ["vrequant"], "clip": ["vshr", "vclip"]}.get(self.post_act,
                                                                        ["vshr"])
        elif self.residual:
            ops.append("vadd")
            if self.post_act != "none":
                ops.append("vrelu" if self.post_act == "relu" else "vclip")
        if not self.quantized:
            ops.append("vcopy")
        return ops

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
