"""PassManager: parsing, printing, option checks, verification and the per-pass log."""

import pytest

from compiler import zoo
from compiler.errors import PassError
from compiler.passes import PassContext, PassManager, get_pass, list_passes


def test_registry_lists_every_pass():
    assert list_passes() == ["calibrate", "convert-layout", "fold-bn", "fold-constants", "fuse",
                             "infer-types", "plan-memory", "quantize", "simplify"]


def test_from_string_with_options_and_printing():
    pm = PassManager.from_string("simplify, fuse(residual=false, activations=true), "
                                 "plan-memory(alignment=128)")
    assert str(pm) == ("simplify -> fuse(residual=False, activations=True) -> "
                       "plan-memory(alignment=128)")
    assert [p.name for p in pm] == ["simplify", "fuse", "plan-memory"]


@pytest.mark.parametrize("text,msg", [
    ("simplfy", "unknown pass 'simplfy'; did you mean 'simplify'"),
    ("fuse(residul=false)", "pass 'fuse' has no option 'residul'; did you mean 'residual'"),
    ("fuse(residual)", "pass option 'residual' of 'fuse' needs key=value"),
    ("simplify(x=1)", "pass 'simplify' has no option 'x'; it takes none"),
])
def test_bad_pipelines_are_explained(text, msg):
    with pytest.raises(PassError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        PassManager.from_string(text)


def test_run_copies_input_and_logs_each_pass():
    g = zoo.get("small_cnn")
    before = str(g)
    ctx = PassContext()
    out = PassManager([get_pass("simplify"), "fold-bn"]).run(g, ctx)
    assert str(g) == before  # the input graph is not modified
    assert "nn.dropout" not in out.ops() and "nn.batch_norm" not in out.ops()
    assert [name for name, _, _ in ctx.log] == ["simplify", "fold-bn(standalone=depthwise)"]
    assert ctx.log[-1][2] == len(out.nodes)
