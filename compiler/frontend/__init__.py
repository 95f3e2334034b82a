"""Frontends: the Python graph builder, the ONNX importer and the ONNX exporter."""

from .builder import GraphBuilder, Var

__all__ = ["GraphBuilder", "Var", "import_onnx", "export_onnx"]


def import_onnx(model, input_shapes=None, name=None):
    from .onnx_import import import_onnx as _imp
    return _imp(model, input_shapes=input_shapes, name=name)


def export_onnx(graph, path=None, opset=17):
    from .onnx_export import export_onnx as _exp
    return _exp(graph, path=path, opset=opset)
