"""Small test networks: a two-conv CNN and a multilayer perceptron."""

from __future__ import annotations

from ..frontend.builder import GraphBuilder
from .params import ParamGen


def small_cnn(resolution: int = 32, num_classes: int = 10, channels: tuple = (16, 32),
              batch: int = 1, seed: int = 0):
    """conv-bn-relu-pool x2, flatten (spatial > 1, so layout matters), dense-relu, dense."""
    b, p = GraphBuilder("small_cnn"), ParamGen(seed)
    y = b.input("input", (batch, 3, resolution, resolution))
    for i, c in enumerate(channels):
        y = b.conv2d(y, p.conv(c, y.shape[1], 3), pad=1, name=f"conv{i + 1}")
        y = b.relu(b.batch_norm(y, *p.bn(c), name=f"bn{i + 1}"), name=f"relu{i + 1}")
        y = b.max_pool2d(y, 2, name=f"pool{i + 1}")
    y = b.flatten(y, name="flatten")
    w, bias = p.dense(y.shape[1], 64)
    y = b.dropout(b.relu(b.dense(y, w * 1.4, bias, name="fc1"), name="fc1.relu"), 0.5,
                  name="dropout")
    w, bias = p.dense(64, num_classes)
    return b.build(b.dense(y, w, bias, name="fc2"))


def mlp(in_features: int = 784, hidden: tuple = (256, 128), num_classes: int = 10,
        activation: str = "relu", softmax: bool = False, batch: int = 1, seed: int = 0):
    """Dense layers with relu or sigmoid (a LUT on the NPU); optional softmax on the host."""
    from ..errors import ZooError
    if activation not in ("relu", "sigmoid"):
        raise ZooError(f"mlp activation '{activation}' is not relu or sigmoid")
    b, p = GraphBuilder("mlp"), ParamGen(seed)
    y = b.input("input", (batch, in_features))
    for i, h in enumerate(hidden):
        w, bias = p.dense(y.shape[1], h)
        y = b.dense(y, w * 1.4, bias, name=f"fc{i + 1}")
        y = b.relu(y, name=f"act{i + 1}") if activation == "relu" else \
            b.sigmoid(y, name=f"act{i + 1}")
    w, bias = p.dense(y.shape[1], num_classes)
    y = b.dense(y, w, bias, name="logits")
    return b.build(b.softmax(y, name="probs") if softmax else y)
