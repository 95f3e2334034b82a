"""The NPU compiler: frontends -> graph IR -> passes -> int8 quantization -> hand-off to codegen."""
