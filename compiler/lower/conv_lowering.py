"""The conv2d lowering: the cheapest of the plain, swapped-roles, space-to-depth,
folded-columns, im2col and strided-load candidates the cost model estimates (qnn/fused conv2d)."""

from __future__ import annotations

from copy import copy as shallow_copy
from dataclasses import replace

from ..errors import CompilerError
from ..ir.graph import Node
from ..ops import register_hook
from .conv import TOLERANCE, ConvLayer, choose_schedule, split_rows
from .copy import CopyLayer, copy_cycles, plan_copy
from .cost import FIELD_MAX
from .depthwise import depthwise_candidate
from .dwconv import dwconv_candidate
from .epilogue import Epilogue
from .fold import FoldCopyLayer, fold, fold_strided, make_fold_copy, with_fold_copy
from .geometry import ConvGeom, space_to_depth, subsample
from .im2col import Im2colCopyLayer, im2col, make_im2col_copy, with_im2col_copy
from .tconv import TConvLayer, applies, choose_tconv, live_columns, live_passes

SWAP_MARGIN = 0.9
FEWER_CORES_MARGIN = 0.8  # a conv on fewer cores than the Target's: its estimate must be 20% less
# estimated-cycle slack within which a conv keeps the form it takes with one DMA engine less
# (choose_form): a program for fewer engines runs on more, and the estimates of forms this
# close err by more than a channel gains
ENGINE_MARGIN = 0.05
STACK_MARGIN = 0.98  # the stacked form's estimate is close (545.6k, simulated 537.7k on layer3.0.2)


@register_hook("lower", "qnn.conv2d", "fused.conv2d")
def lower_conv(lw, n: Node) -> None:
    a = n.attrs
    x = lw.g.type_of(n.inputs[0])
    w = lw.weights(n.inputs[1])
    if a.get("layout", "NHWC") != "NHWC" or a.get("kernel_layout", "HWIO") != "HWIO":
        raise CompilerError(f"node '{n.name}': conv must be NHWC/HWIO (run convert-layout)")
    nb, h, wd, cin = x.shape
    geom = ConvGeom(nb, h, wd, cin, w.shape[3], w.shape[0], w.shape[1], *a["strides"],
                    tuple(a["pads"]), *a.get("dilations", (1, 1)), a.get("groups", 1))
    epi = lw.epilogue(n, geom.cout)
    x_in = n.inputs[0]
    sub = subsample(geom) if "subsample" in lw.rewrites else None
    if sub is not None:  # strided 1x1: the loads subsample, the conv runs at stride 1
        cost, layers = plain_or_swapped(lw, n, x_in, sub, w, epi, "strided loads",
                                        sub=(geom.h, geom.w, geom.sh, geom.sw))
        lw.layers += layers
        for name, (shape, dtype) in getattr(layers[0], "scratch_types", {}).items():
            lw.add_tensor(name, shape, dtype, in_dram=True)
        return
    _, cost, layers = choose_form(lw, n, x_in, geom, w, epi)
    for layer in layers:  # register the DRAM tensors of the chosen candidate only
        if isinstance(layer, Im2colCopyLayer):
            lw.add_tensor(layer.y, layer.im.y_shape, x.dtype)
        elif isinstance(layer, (CopyLayer, FoldCopyLayer)):
            new = layer.f.new if isinstance(layer, FoldCopyLayer) else space_to_depth(geom).new
            lw.add_tensor(layer.y, (new.n, new.h, new.w, new.cin), x.dtype)
        for name, (shape, dtype) in getattr(layer, "scratch_types", {}).items():
            lw.add_tensor(name, shape, dtype, in_dram=True)
        lw.layers.append(layer)


def conv_forms(lw, n: Node, x_in: str, geom: ConvGeom, w, epi: Epilogue) -> list:
    """(form, estimated cycles, layers) of each form of the conv that applies; a kernel past
    the conv instruction's kh/kw registers (ViT's 16x16 patches) runs only as a rewrite that
    shrinks it."""
    cands = [("plain", *plain_or_swapped(lw, n, x_in, geom, w, epi, note=""))] \
        if kernel_fits(geom) else []
    rewrite = space_to_depth(geom) if "s2d" in lw.rewrites else None
    if rewrite is not None and kernel_fits(rewrite.new):
        shape, perm = rewrite.permute()
        chunks = plan_copy(shape, perm, lw.hw.buffer_elems["ibuf"] // 2, n.name)
        xs = f"{x_in}.s2d.{n.name}"
        copy = CopyLayer(f"{n.name}.s2d", x_in, xs, shape, perm, chunks,
                         note="space-to-depth", introduced=True)
        cost, layers = plain_or_swapped(lw, n, xs, rewrite.new, rewrite.weights(w), epi,
                                        note=f"space-to-depth {geom.sh}x{geom.sw}",
                                        useful=geom.macs)
        cands.append(("s2d", cost + copy_cycles(chunks, lw.hw), [copy] + layers))
    for form, folded in ((("fold", fold(geom)), ("fold-strided", fold_strided(geom)))
                         if "fold" in lw.rewrites else ()):
        if folded is None or not kernel_fits(folded.new):
            continue
        copy = make_fold_copy(f"{n.name}.fold", x_in, f"{x_in}.fold.{n.name}", folded,
                              lw.hw)
        cost, layers = plain_or_swapped(lw, n, copy.y, folded.new, folded.weights(w), epi,
                                        note="kernel columns folded into channels"
                                        + (", space-to-depth" if folded.s2d else "")
                                        + (", strided" if folded.strided else ""),
                                        useful=geom.macs)
        cands.append((form, with_fold_copy(copy, layers[0].schedule.est, lw.hw),
                      [copy] + layers))
    im = im2col(geom, lw.hw.rows) if "im2col" in lw.rewrites else None
    copy = im and make_im2col_copy(f"{n.name}.im2col", x_in, f"{x_in}.im2col.{n.name}", im,
                                   lw.hw)
    if copy is not None:  # the window as channels: ceil(K / R) passes (lower/im2col.py)
        cost, layers = plain_or_swapped(lw, n, copy.y, im.new, im.weights(w), epi,
                                        note="im2col", useful=geom.macs)
        cands.append(("im2col", with_im2col_copy(copy, layers[0].schedule.est, lw.hw),
                      [copy] + layers))
    dw = depthwise_candidate(lw, n.name, x_in, n.output, geom, w, epi) \
        if "rowdw" in lw.rewrites else None
    if dw is not None:
        cands.append(("rowdw", *dw))
    dwm = dwconv_candidate(lw, n.name, x_in, n.output, geom, w, epi) \
        if "dwgroup" in lw.rewrites else None
    if dwm is not None:
        cands.append(("dwgroup", *dwm))
    return cands


def choose_form(lw, n: Node, x_in: str, geom: ConvGeom, w, epi: Epilogue) -> tuple:
    """(form, cycles, layers) of the conv form (plain or swapped, space-to-depth, folded,
    im2col, depthwise) to lower: the cheapest estimate, with two tie-breaks.

    Energy: among the forms within conv.TOLERANCE (1%) of the cheapest, the one moving the
    fewest DRAM bytes (form_bytes). The estimates do not rank forms that close, and DRAM
    bytes are most of a layer's energy: on `npu-edge -array=8x8 -dram-bw=32` ResNet-18's
    layer1 convs took im2col (a 9x copy of the input, weights re-read per row tile: 5.6 MB
    each) for an estimated 0.3% over the plain conv (0.5 MB), so the program's energy rose
    from 22.7 to 30.5 mJ with the DRAM bandwidth.

    DMA engines are a choice, not an obligation: where a rewrite would be taken, among the
    forms within ENGINE_MARGIN of the cheapest the one this rule takes with one engine less,
    if it is among them. The forms' estimates differ by their copies' and DRAM round trips'
    guesses, which err by more than another channel gains: the 7x7/2 stem on
    `npu-edge -array=32x32 -dram-bw=32` at 64 is estimated 21.5k cycles folded after
    space-to-depth at 2 and 3 engines, 22.0k folded at its stride at 2 and 20.8k at 3 (its
    copy's serial estimate plus the conv's DMA, which the third channel shortens), and
    simulated 24.3k against 26.8k (stem copy, conv and pool): ResNet-18 took 0.58% more
    cycles at 3 engines than at 2. 5% covers that 3.7% and stays
    under SWAP_MARGIN's 10%."""
    cands = conv_forms(lw, n, x_in, geom, w, epi)
    if not cands:
        raise CompilerError(
            f"layer '{n.name}': conv kernel {geom.kh}x{geom.kw} is larger than the conv "
            f"instruction's kernel registers hold ({FIELD_MAX['conv_kernel']}x"
            f"{FIELD_MAX['conv_kernel']}) and no rewrite applies; hint: keep the im2col and "
            "space-to-depth rewrites on")
    low = min(c[1] for c in cands)
    best = min((c for c in cands if c[1] <= low * (1 + TOLERANCE)),
               key=lambda c: (form_bytes(c[2], lw.hw), c[1]))
    near = [c for c in cands if c[1] <= low * (1 + ENGINE_MARGIN)]
    # (asked only where a rewrite with a copy in front, whose estimate is the rough one, would
    # win: most convs stay plain, and the choice with one engine less costs another search)
    if len(near) > 1 and lw.hw.dma_engines > 1 and best[0] != "plain":
        fewer = _with_hw(lw, replace(lw.hw, dma_engines=lw.hw.dma_engines - 1))
        kept = choose_form(fewer, n, x_in, geom, w, epi)[0]
        best = next((c for c in near if c[0] == kept), best)
    return best


def form_bytes(layers: list, hw) -> int:
    """Estimated DRAM bytes of a form's layers: each schedule's estimate, and a copy's reads
    and writes of the conv's input (as many bytes each)."""
    g = layers[-1].geom
    copied = 2 * g.n * g.h * g.w * g.cin * hw.act_bytes
    return sum(copied if getattr(layer, "schedule", None) is None
               else layer.schedule.est.get("dram_bytes", 0) for layer in layers)


def _with_hw(lw, hw):
    """A view of the lowerer `lw` that lowers for `hw` (the candidates read lw.hw, and add
    nothing to lw: the chosen one's tensors and layers are registered by lower_conv)."""
    view = shallow_copy(lw)
    view.hw = hw
    return view


def kernel_fits(geom: ConvGeom) -> bool:
    """Whether the conv instruction's kernel registers (conv_kh, conv_kw) hold geom's kernel."""
    return max(geom.kh, geom.kw) <= FIELD_MAX["conv_kernel"]


def per_core(lw, geom: ConvGeom, rows: bool = True, by_rows: bool | None = None,
             cores: int | None = None) -> ConvGeom:
    """The share of one core, which sizes the tiles when layers are split over `cores` (all
    the Target's by default), by output rows or output-channel blocks (`by_rows`, else
    conv.split_rows); a depthwise conv's share is its blocks' channels."""
    cores = lw.hw.num_cores if cores is None else cores
    if cores == 1:
        return geom
    blocks = -(-geom.cout // lw.hw.cols)
    if by_rows is None:
        by_rows = split_rows(geom, cores, lw.hw.cols)
    if geom.groups > 1 and not (geom.groups == geom.cin == geom.cout and by_rows and rows):
        if geom.groups == geom.cin == geom.cout and rows:  # depthwise by blocks: its channels
            c = min(geom.cout, -(-blocks // cores) * lw.hw.cols)
            return replace(geom, cin=c, cout=c, groups=c)
        return geom
    if not rows or not by_rows:
        cout = -(-blocks // cores) * lw.hw.cols if blocks >= cores else geom.cout
        return replace(geom, cout=min(cout, geom.cout))
    oh = -(-geom.oh // cores)
    h = min(geom.h, (oh - 1) * geom.sh + (geom.kh - 1) * geom.dh + 1)
    return replace(geom, h=h, pads=(geom.pads[0], geom.pads[1], 0, geom.pads[3]))


def core_counts(hw, geom: ConvGeom) -> list:
    """The numbers of cores a conv may be split over, most first: all of them, and halves of
    that down to one (each costed once more for every conv: halving keeps npu-server's
    ResNet-50 back half at +0.2 s, where every count cost +0.35 s) where that leaves no core
    without work and may move fewer DRAM bytes (each core of a block split loads the whole
    input; of a row split, all the weights); the cost model prices each with that many cores
    on the shared port."""
    if hw.num_cores == 1:
        return [1]
    most = max(-(-geom.cout // hw.cols), geom.oh)
    counts, k = [hw.num_cores], hw.num_cores // 2
    while k >= 1:
        if k <= most:
            counts.append(k)
        k //= 2
    return counts


def plain_or_swapped(lw, n: Node, x_in: str, geom: ConvGeom, w, epi: Epilogue,
                     note: str, useful: int | None = None, sub=None) -> tuple:
    """(cycles, [layer]) of the cheaper of the usual and the swapped-roles schedule; split
    over cores, the usual one by rows or by output-channel blocks, whichever the cost model
    says is faster (both are costed with every core's traffic on the shared port)."""
    plain = []
    for cores in core_counts(lw.hw, geom):
        hw = lw.hw if cores == lw.hw.num_cores else replace(lw.hw, num_cores=cores)
        splits = [None]
        if cores > 1 and geom.groups == 1 and geom.oh >= cores and \
                -(-geom.cout // lw.hw.cols) >= cores:
            splits = [False, True]
        for by_rows in splits:
            s = choose_schedule(per_core(lw, geom, by_rows=by_rows, cores=cores), epi, hw,
                                n.name, table_channels=geom.cout)
            # fewer cores only for a clear win (the estimates are rough): ties keep all
            cost = s.est["cycles"] / (1 if cores == lw.hw.num_cores else FEWER_CORES_MARGIN)
            plain.append((cost, -cores, not by_rows, s, by_rows, cores))
    _, _, _, sched, by_rows, cores = min(plain, key=lambda p: p[:3])
    best = (sched.est["cycles"], [ConvLayer(n.name, x_in, n.output, geom, w, epi, sched,
                                            note=note, useful_macs=useful, sub=sub,
                                            by_rows=by_rows,
                                            cores=None if cores == lw.hw.num_cores
                                            else cores)])
    swapped = None
    share = per_core(lw, geom, rows=False) if "swap" in lw.rewrites else None
    if share is not None and applies(share):  # (choose_tconv's None otherwise)
        live = live_passes(w, lw.hw.rows)  # the weights read once for both counts
        swapped = choose_tconv(share, epi, lw.hw, len(live), table_channels=geom.cout,
                               columns=len(live_columns(w, lw.hw.rows, live)),
                               stack="stack" in lw.rewrites, sub=sub)
    # its estimate is the rougher one (DRAM round trips, tails): demand a clear win
    margin = STACK_MARGIN if swapped is not None and swapped.stack else SWAP_MARGIN
    if swapped is not None and swapped.est["cycles"] < margin * best[0]:
        wg = geom.w + geom.pads[1] + geom.pads[3]
        grid, acc = f"{n.name}.grid", f"{n.name}.acc"
        layer = TConvLayer(n.name, x_in, n.output, geom, w, epi, grid, acc, swapped)
        layer.scratch_types = {
            grid: ((layer.grid_rows, wg, geom.cin),
                   lw.dram_dtype(lw.g.type_of(n.inputs[0]).dtype)),
            acc: ((layer.positions, geom.cout),
                  "float32" if lw.fp16 else "int32")}
        layer.note = "swapped roles" + (f", {note}" if note else "")
        layer.useful_macs = useful
        layer.sub = sub
        best = (swapped.est["cycles"], [layer])
    return best
