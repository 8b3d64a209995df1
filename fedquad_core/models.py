"""Models. Each returns ``(logits, embedding)`` from ``forward``: the embedding is the feature
vector the classifier reads, the space whose geometry the project measures. MOON's projection
head (Linear(d,d)-ReLU-Linear(d,proj_dim), Li et al. 2021) is added on request between the
backbone and the classifier, as in MOON's reference code; the embedding is then its output.

- ``mlp``: digits (8x8 flattened), 64-128-64.
- ``cnn``: the NIID-Bench / MOON "simple CNN" (conv6@5-pool-conv16@5-pool-fc120-fc84), 84-d
  embedding, for 28x28 and 32x32 inputs.
- ``resnet18``: CIFAR-style ResNet-18 (3x3 stem, no max-pool) with GroupNorm instead of
  BatchNorm, the usual choice under federated training; 512-d embedding.
"""
from __future__ import annotations

import torch
from torch import nn


class EmbeddingModel(nn.Module):
    """backbone -> [projection head] -> classifier. ``forward`` returns the logits and the
    embedding the classifier reads: the backbone's features, or, with a projection head (MOON),
    the head's output, as in MOON's reference ``ModelFedCon`` (features -> Linear-ReLU-Linear ->
    classifier)."""

    def __init__(self, backbone: nn.Module, feature_dim: int, num_classes: int, proj_dim: int | None = None):
        super().__init__()
        self.backbone = backbone
        self.feature_dim = feature_dim
        self.projection = (nn.Sequential(nn.Linear(feature_dim, feature_dim), nn.ReLU(),
                                         nn.Linear(feature_dim, proj_dim)) if proj_dim else None)
        self.emb_dim = proj_dim or feature_dim
        self.classifier = nn.Linear(self.emb_dim, num_classes)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        h = self.backbone(x)
        return h if self.projection is None else self.projection(h)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        emb = self.embed(x)
        return self.classifier(emb), emb


def mlp(in_features: int, hidden: int = 128, emb_dim: int = 64) -> tuple[nn.Module, int]:
    return nn.Sequential(nn.Flatten(), nn.Linear(in_features, hidden), nn.ReLU(),
                         nn.Linear(hidden, emb_dim), nn.ReLU()), emb_dim


def simple_cnn(in_channels: int, side: int) -> tuple[nn.Module, int]:
    flat = 16 * (((side - 4) // 2 - 4) // 2) ** 2  # 28x28 -> 256, 32x32 -> 400
    return nn.Sequential(
        nn.Conv2d(in_channels, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(flat, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU()), 84


def _gn(channels: int) -> nn.GroupNorm:
    return nn.GroupNorm(min(32, channels // 4), channels)


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), _gn(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, 1, 1, bias=False), _gn(cout))
        self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), _gn(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


def resnet18_gn(in_channels: int) -> tuple[nn.Module, int]:
    layers: list[nn.Module] = [nn.Conv2d(in_channels, 64, 3, 1, 1, bias=False), _gn(64), nn.ReLU()]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
    return nn.Sequential(*layers), 512


def build_model(name: str, input_shape: tuple[int, ...], num_classes: int, *, proj_dim: int | None = None,
                generator: torch.Generator | None = None) -> EmbeddingModel:
    """Build a model; initialised deterministically from ``generator`` when given."""
    if name == "mlp":
        n = 1
        for s in input_shape:
            n *= s
        backbone, dim = mlp(n)
    elif name == "cnn":
        if len(input_shape) != 3:
            raise ValueError(f"the cnn model needs image input (C,H,W), got shape {input_shape}: use --model mlp")
        backbone, dim = simple_cnn(input_shape[0], input_shape[-1])
    elif name == "resnet18":
        if len(input_shape) != 3:
            raise ValueError(f"resnet18 needs image input (C,H,W), got shape {input_shape}: use --model mlp")
        backbone, dim = resnet18_gn(input_shape[0])
    else:
        raise ValueError(f"unknown model {name!r}: choose mlp, cnn or resnet18")
    model = EmbeddingModel(backbone, dim, num_classes, int(proj_dim) if proj_dim else None)
    if generator is not None:
        _init_from(model, generator)
    return model


def _init_from(model: nn.Module, generator: torch.Generator) -> None:
    """Re-initialise like PyTorch's defaults (kaiming-uniform, a=sqrt(5)) but from our generator."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                fan_in = m.weight[0].numel()
                bound = 1.0 / fan_in ** 0.5
                m.weight.uniform_(-bound, bound, generator=generator)
                if m.bias is not None:
                    m.bias.uniform_(-bound, bound, generator=generator)
