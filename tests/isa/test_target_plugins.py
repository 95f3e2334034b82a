"""Target kinds from other packages: isa declares only npu; cpu and gpu come from their backends
through the npusim.target_kinds entry points (isa/target/plugins.py), loaded on first need."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python(code: str, *paths) -> str:
    """Run `code` in a fresh interpreter (the kind registry is process-wide); -> stdout."""
    env_path = ":".join(map(str, [*paths, ROOT]))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_isa_itself_declares_only_the_npu_kind():
    out = python("""
        import isa.target.plugins as plugins
        plugins.entry_points = lambda group: []  # no installed plugin package at all
        import sys
        from isa.target import list_tags, list_target_kinds
        print(list_target_kinds(), list_tags(), 'compiler' in sys.modules)
    """)
    assert out == "['npu'] ['npu-tiny', 'npu-edge', 'npu-server'] False"


def test_a_plugin_package_registers_a_kind_found_from_isa_alone(tmp_path):
    (tmp_path / "toy_kind.py").write_text(textwrap.dedent("""
        from isa.target import Attr, register_tag, register_target_kind
        register_target_kind("toy", (Attr("width", int, 8, 1, 64, doc="lanes"),), doc="a toy")
        register_tag("toy-wide", "toy", {"width": 32}, "a wide toy")
    """))
    info = tmp_path / "toy_kind-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-kind\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[npusim.target_kinds]\ntoy = toy_kind\n")
    out = python("""
        import sys
        from isa.target import Target
        assert 'toy_kind' not in sys.modules          # nothing is loaded for the npu kind
        Target.create('npu-edge -dram-bw=32')
        assert 'toy_kind' not in sys.modules
        print(Target.create('toy-wide').width, Target('toy').width)
    """, tmp_path)
    assert out == "32 8"


def test_the_entry_points_name_the_backends_kind_modules():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "entry-points"]["npusim.target_kinds"]
    assert declared == {"cpu": "compiler.backends.cpu.target",
                        "gpu": "compiler.backends.gpu.target"}
    out = python("""
        import compiler.backends.cpu.target, compiler.backends.gpu.target
        from isa.target import Target, list_tags
        print(list_tags('cpu'), list_tags('gpu'), Target.create('gpu-a100').arch)
    """)
    assert out == "['cpu-host'] ['gpu-t4', 'gpu-a100', 'gpu-h100'] sm_80"


def test_the_installed_metadata_has_the_entry_points():
    """Fails where the package was installed before the entry points existed: pip install -e ."""
    out = python("""
        from isa.target import Target
        print(Target.create('gpu-a100').kind, Target.create('cpu-host').kind)
    """)
    assert out == "gpu cpu"
