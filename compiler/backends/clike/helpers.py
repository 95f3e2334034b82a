"""The integer rules of isa.semantics as C helper functions, shared by every C-like backend.

These are the one place the rules exist in C: saturation, round-half-up shifts, requantize
and the residual add, written to match isa.semantics exactly (the backend tests check the
generated code bit for bit against the compiler's integer reference, which calls those)."""

from __future__ import annotations

# `{fn}` is the renderer's prefix for device/host helper functions (e.g. "static inline").
HELPERS = """\
{fn} int32_t npu_sat32(int64_t v) {{
  return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}}
{fn} int32_t npu_sat8(int64_t v) {{
  return v < -128 ? -128 : v > 127 ? 127 : (int32_t)v;
}}
/* round half up: (x + 2^(s-1)) >> s, arithmetic; s == 0 returns x (vshr, vrequant) */
{fn} int64_t npu_round_shift(int64_t x, int32_t s) {{
  return s > 0 ? (x + ((int64_t)1 << (s - 1))) >> s : x;
}}
/* vrequant: sat8(round_shift(acc * mult, shift) + zp), relu clamps below at zp */
{fn} int32_t npu_requant(int32_t acc, int32_t mult, int32_t shift, int32_t zp, int relu) {{
  int64_t y = npu_round_shift((int64_t)acc * mult, shift) + zp;
  if (relu && y < zp) y = zp;
  return npu_sat8(y);
}}
/* the int8 add: vmul, vmul, vadd (each saturating to int32), vshr to int8 */
{fn} int32_t npu_add(int32_t a, int32_t b, int32_t lhs_mult, int32_t rhs_mult,
                     int32_t shift) {{
  int32_t t = npu_sat32((int64_t)a * lhs_mult), u = npu_sat32((int64_t)b * rhs_mult);
  return npu_sat8(npu_round_shift(npu_sat32((int64_t)t + u), shift));
}}
/* vclip: min(max(v, lo), hi) in that order, then int8 saturation */
{fn} int32_t npu_clip8(int32_t v, int32_t lo, int32_t hi) {{
  int32_t m = v > lo ? v : lo;
  return npu_sat8(m < hi ? m : hi);
}}
{fn} int32_t npu_relu8(int32_t v) {{
  return npu_sat8(v > 0 ? v : 0);
}}
"""


def helpers(fn_prefix: str) -> str:
    return HELPERS.format(fn=fn_prefix)
