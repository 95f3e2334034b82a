"""ONNX pattern rewrites before import: the decomposed LayerNorm (ReduceMean, Sub, Pow, Add,
Sqrt, Div, Mul, Add) and GELU (Erf or Tanh forms, as PyTorch exports them) subgraphs become
one LayerNormalization / Gelu node, which the importer's handlers read."""

from __future__ import annotations

import math

import numpy as np

SQRT2 = math.sqrt(2.0)
TANH_C = math.sqrt(2.0 / math.pi)


class _Match:
    """The node list with its producers, reader counts and constants, for matching."""

    def __init__(self, nodes: list, consts: dict):
        self.nodes, self.consts = nodes, dict(consts)
        for n in nodes:  # Constant nodes hold values too
            if n.op_type == "Constant":
                v = _constant_value(n)
                if v is not None:
                    self.consts[n.output[0]] = v
        self.prod = {o: n for n in nodes for o in n.output if o}
        self.readers: dict = {}
        for n in nodes:
            for v in n.input:
                self.readers.setdefault(v, []).append(n)

    def const(self, v: str):
        return self.consts.get(v)

    def near(self, v: str, value: float, rel: float = 1e-3) -> bool:
        c = self.const(v)
        return c is not None and c.size == 1 and \
            abs(float(np.asarray(c).reshape(-1)[0]) - value) <= rel * abs(value)

    def by(self, v: str, op: str):
        n = self.prod.get(v)
        return n if n is not None and n.op_type == op else None

    def only_reader(self, v: str, op: str | None = None):
        rs = self.readers.get(v, [])
        if len(rs) != 1 or (op is not None and rs[0].op_type != op):
            return None
        return rs[0]

    def other(self, n, v: str) -> str | None:
        """The input of binary `n` that is not `v` (None when both are)."""
        a, b = n.input[0], n.input[1]
        return b if a == v else a if b == v else None


def _constant_value(n):
    from onnx import helper, numpy_helper
    for a in n.attribute:
        if a.name == "value":
            return numpy_helper.to_array(a.t)
        if a.name in ("value_float", "value_floats", "value_int", "value_ints"):
            return np.asarray(helper.get_attribute_value(a))
    return None


def _gelu_tail(m: _Match, x: str, one_plus: str):
    """0.5 * x * (1 + f) in the orders exporters write it, from the (1 + f) value: (output,
    nodes of the tail) or None."""
    m1 = m.only_reader(one_plus, "Mul")
    if m1 is None:
        return None
    other = m.other(m1, one_plus)
    if other == x:  # (x * (1 + f)) * 0.5
        m2 = m.only_reader(m1.output[0], "Mul")
        if m2 is not None and m.near(m.other(m2, m1.output[0]) or "", 0.5):
            return m2.output[0], [m1, m2]
    half = m.by(other, "Mul") if other else None
    if half is not None and m.other(half, x) is not None and \
            m.near(m.other(half, x), 0.5) and m.only_reader(half.output[0]) is m1:
        return m1.output[0], [half, m1]  # (x * 0.5) * (1 + f)
    if other is not None and m.near(other, 0.5):  # ((1 + f) * 0.5) * x
        m2 = m.only_reader(m1.output[0], "Mul")
        if m2 is not None and m.other(m2, m1.output[0]) == x:
            return m2.output[0], [m1, m2]
    return None


def _one_plus(m: _Match, f: str):
    a = m.only_reader(f, "Add")
    return a if a is not None and m.near(m.other(a, f) or "", 1.0) else None


def _erf_gelu(m: _Match, e):
    t = e.input[0]
    p = m.prod.get(t)
    if p is None or m.only_reader(t) is not e:
        return None
    if p.op_type == "Div" and m.near(p.input[1], SQRT2):
        x = p.input[0]
    elif p.op_type == "Mul" and m.other(p, p.input[0]) is not None:
        x = next((v for v in p.input if m.near(m.other(p, v) or "", 1 / SQRT2)), None)
        if x is None:
            return None
    else:
        return None
    a = _one_plus(m, e.output[0])
    tail = _gelu_tail(m, x, a.output[0]) if a is not None else None
    if tail is None:
        return None
    return x, tail[0], [p, e, a] + tail[1], "none"


def _cube_of(m: _Match, v: str):
    """x when `v` is x**3 (Pow(x, 3), x*x*x in either grouping), else None."""
    p = m.prod.get(v)
    if p is None:
        return None, []
    if p.op_type == "Pow" and m.near(p.input[1], 3.0):
        return p.input[0], [p]
    if p.op_type == "Mul":
        for sq_v, x in ((p.input[0], p.input[1]), (p.input[1], p.input[0])):
            sq = m.by(sq_v, "Mul")
            if sq is not None and sq.input[0] == sq.input[1] == x:
                return x, [sq, p]
    return None, []


def _tanh_gelu(m: _Match, th):
    u = m.by(th.input[0], "Mul")
    if u is None:
        return None
    v = next((i for i in u.input if m.near(m.other(u, i) or "", TANH_C)), None)
    add = m.by(v, "Add") if v else None
    if add is None:
        return None
    for x, w in ((add.input[0], add.input[1]), (add.input[1], add.input[0])):
        mw = m.by(w, "Mul")
        if mw is None:
            continue
        cube_v = next((i for i in mw.input if m.near(m.other(mw, i) or "", 0.044715)), None)
        cx, cube = _cube_of(m, cube_v) if cube_v else (None, [])
        if cx != x:
            continue
        a = _one_plus(m, th.output[0])
        tail = _gelu_tail(m, x, a.output[0]) if a is not None else None
        if tail is not None:
            return x, tail[0], cube + [mw, add, u, th, a] + tail[1], "tanh"
    return None


def _axes(m: _Match, n):
    from onnx import helper
    for a in n.attribute:
        if a.name == "axes":
            return [int(v) for v in helper.get_attribute_value(a)]
    if len(n.input) > 1 and n.input[1]:
        c = m.const(n.input[1])
        return None if c is None else [int(v) for v in np.asarray(c).reshape(-1)]
    return None


def _layer_norm(m: _Match, dv):
    d, s = dv.input[0], dv.input[1]
    sub, sq = m.by(d, "Sub"), m.by(s, "Sqrt")
    if sub is None or sq is None:
        return None
    x, mean_v = sub.input
    mean = m.by(mean_v, "ReduceMean")
    if mean is None or mean.input[0] != x or _axes(m, mean) is None or \
            len(_axes(m, mean)) != 1:
        return None
    axis = _axes(m, mean)[0]
    ve = m.by(sq.input[0], "Add")
    if ve is None:
        return None
    v, eps_v = (ve.input[0], ve.input[1]) if m.const(ve.input[1]) is not None else \
        (ve.input[1], ve.input[0])
    eps = m.const(eps_v)
    var = m.by(v, "ReduceMean")
    if eps is None or eps.size != 1 or var is None or _axes(m, var) != [axis]:
        return None
    pw = m.prod.get(var.input[0])
    if pw is None or not ((pw.op_type == "Pow" and pw.input[0] == d and m.near(pw.input[1], 2.0))
                          or (pw.op_type == "Mul" and pw.input[0] == pw.input[1] == d)):
        return None
    inner = [mean, sub, pw, var, ve, sq, dv]
    if any(m.only_reader(n.output[0]) is None for n in (mean, pw, var, ve, sq)) or \
            len(m.readers.get(d, [])) != 2:
        return None
    out, gamma, beta = dv.output[0], "", ""
    mul = m.only_reader(out, "Mul")
    if mul is not None and m.const(m.other(mul, out) or "") is not None:
        gamma, out = m.other(mul, out), mul.output[0]
        inner.append(mul)
        add = m.only_reader(out, "Add")
        if add is not None and m.const(m.other(add, out) or "") is not None:
            beta, out = m.other(add, out), add.output[0]
            inner.append(add)
    return x, out, inner, (gamma, beta, axis, float(np.asarray(eps).reshape(-1)[0]))


def rewrite(nodes: list, consts: dict) -> list:
    """`nodes` with each matched subgraph replaced by one node at its last node's place."""
    from onnx import helper
    m = _Match(list(nodes), consts)
    pos = {id(n): i for i, n in enumerate(m.nodes)}
    replace: dict = {}   # id(last node) -> new node
    drop: set = set()
    for n in m.nodes:
        if id(n) in drop:
            continue
        new = None
        if n.op_type in ("Erf", "Tanh"):
            hit = (_erf_gelu if n.op_type == "Erf" else _tanh_gelu)(m, n)
            if hit is not None:
                x, out, inner, approx = hit
                new = (helper.make_node("Gelu", [x], [out], name=f"{out}__gelu",
                                        approximate=approx), inner)
        elif n.op_type == "Div":
            hit = _layer_norm(m, n)
            if hit is not None:
                x, out, inner, (gamma, beta, axis, eps) = hit
                new = (helper.make_node("LayerNormalization", [x, gamma, beta], [out],
                                        name=f"{out}__layernorm", axis=axis, epsilon=eps),
                       inner)
        if new is None or any(id(k) in drop for k in new[1]):
            continue
        node, inner = new
        last = max(inner, key=lambda k: pos[id(k)])
        drop.update(id(k) for k in inner)
        replace[id(last)] = node
    out = []
    for n in m.nodes:
        if id(n) in replace:
            out.append(replace[id(n)])
        elif id(n) not in drop:
            out.append(n)
    return out
