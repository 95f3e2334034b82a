"""Model zoo: ResNet-18/50, MobileNetV2, a small CNN, an MLP and the transformers BERT-tiny,
ViT-Ti/16 and GPT-2 small, with deterministic weights."""

from __future__ import annotations

import inspect

from ..errors import ZooError, did_you_mean
from .mobilenet import mobilenetv2
from .resnet import resnet18, resnet50
from .small import mlp, small_cnn
from .transformer import bert_tiny, gpt2, vit_tiny

MODELS = {"resnet18": resnet18, "resnet50": resnet50, "mobilenetv2": mobilenetv2,
          "small_cnn": small_cnn, "mlp": mlp, "bert-tiny": bert_tiny, "vit-tiny": vit_tiny,
          "gpt2": gpt2}
# the calibration a zoo model is quantized with when the caller names no pipeline (the
# quantize pass's default, absmax, otherwise): ViT's class token reads 24 int8 requantizations
# of the residual stream, which at absmax scales (~4.6 sigma) alone leave its logits at 24.7 dB
# against float; the 99.9th percentile (~3.3 sigma, clipping the tail) gives 26-27 dB
CALIBRATION = {"vit-tiny": "calibrate(method=percentile, percentile=99.9)"}
MIN_RESOLUTION = {"resnet18": 16, "resnet50": 16, "mobilenetv2": 16, "small_cnn": 4,
                  "vit-tiny": 16}


def list() -> list:  # noqa: A001 - zoo.list() is the documented API
    return sorted(MODELS)


def get(name: str, **kwargs):
    """Build zoo model `name` as a float NCHW graph, e.g. get("resnet18", resolution=32)."""
    if name not in MODELS:
        raise ZooError(f"unknown model '{name}'; {did_you_mean(name, MODELS)}")
    fn = MODELS[name]
    params = inspect.signature(fn).parameters
    for key in kwargs:
        if key not in params:
            raise ZooError(f"model '{name}' has no parameter '{key}'; "
                           f"{did_you_mean(key, params)}")
    res = kwargs.get("resolution")
    if res is not None and res < MIN_RESOLUTION.get(name, 1):
        raise ZooError(f"model '{name}' needs resolution >= {MIN_RESOLUTION[name]} (its "
                       f"downsampling would leave nothing), got {res}")
    return fn(**kwargs)


def describe(name: str) -> str:
    get_doc = MODELS[name].__doc__ if name in MODELS else None
    if get_doc is None:
        raise ZooError(f"unknown model '{name}'; {did_you_mean(name, MODELS)}")
    return get_doc.strip().splitlines()[0]
