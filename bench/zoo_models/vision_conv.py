"""Convolutional vision models as torchvision writes them: resnet, mobilenet_v3, convnext,
efficientnet, regnet (tiny widths and depths, the same blocks)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

Tensor = torch.Tensor


def _bn_act(cin: int, cout: int, k: int, s: int = 1, g: int = 1, act: type | None = nn.ReLU):
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, k, s, (k - 1) // 2, groups=g, bias=False),
        nn.BatchNorm2d(cout),
    ]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


# --- resnet (torchvision.models.resnet.BasicBlock) -------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x: Tensor) -> Tensor:
        idt = x if self.down is None else self.down(x)
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + idt)


class ResNet(nn.Module):
    def __init__(self, widths=(8, 16, 32, 64), classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, widths[0], 7, 2, 3, bias=False),
            nn.BatchNorm2d(widths[0]),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        blocks, cin = [], widths[0]
        for i, w in enumerate(widths):
            blocks.append(BasicBlock(cin, w, 1 if i == 0 else 2))
            cin = w
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- mobilenet_v3 (torchvision.models.mobilenetv3.InvertedResidual, SqueezeExcitation) -------


def _make_divisible(v: float, d: int = 8) -> int:
    new = max(d, int(v + d / 2) // d * d)
    return new + d if new < 0.9 * v else new


class SqueezeExcitation(nn.Module):
    def __init__(
        self, c: int, sq: int, scale_act: type = nn.Hardsigmoid, act: type = nn.ReLU
    ) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(c, sq, 1)
        self.fc2 = nn.Conv2d(sq, c, 1)
        self.act = act()
        self.scale_act = scale_act()

    def forward(self, x: Tensor) -> Tensor:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.scale_act(self.fc2(self.act(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(
        self, cin: int, k: int, exp: int, cout: int, se: bool, hs: bool, stride: int
    ) -> None:
        super().__init__()
        act = nn.Hardswish if hs else nn.ReLU
        layers: list[nn.Module] = []
        if exp != cin:
            layers.append(_bn_act(cin, exp, 1, act=act))
        layers.append(_bn_act(exp, exp, k, stride, g=exp, act=act))
        if se:
            layers.append(SqueezeExcitation(exp, _make_divisible(exp // 4)))
        layers.append(_bn_act(exp, cout, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.res = stride == 1 and cin == cout

    def forward(self, x: Tensor) -> Tensor:
        y = self.block(x)
        return y + x if self.res else y


class MobileNetV3(nn.Module):
    # (kernel, expanded, out, SE, hardswish, stride): the first rows of mobilenet_v3_small
    CFG = (
        (3, 16, 16, True, False, 2),
        (3, 72, 24, False, False, 2),
        (3, 88, 24, False, False, 1),
        (5, 96, 40, True, True, 2),
        (5, 240, 40, True, True, 1),
    )

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        layers: list[nn.Module] = [_bn_act(3, 16, 3, 2, act=nn.Hardswish)]
        cin = 16
        for k, e, c, se, hs, s in self.CFG:
            layers.append(InvertedResidual(cin, k, e, c, se, hs, s))
            cin = c
        layers.append(_bn_act(cin, 6 * cin, 1, act=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.Linear(6 * cin, 64), nn.Hardswish(), nn.Linear(64, classes)
        )

    def forward(self, x: Tensor) -> Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# --- convnext (torchvision.models.convnext.CNBlock, LayerNorm2d) ----------------------------


class Permute(nn.Module):
    def __init__(self, dims: list[int]) -> None:
        super().__init__()
        self.dims = dims

    def forward(self, x: Tensor) -> Tensor:
        return torch.permute(x, self.dims)


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x: Tensor) -> Tensor:
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.layer_scale = nn.Parameter(torch.ones(dim, 1, 1) * 1e-6 * 1e5)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]),
            nn.LayerNorm(dim, eps=1e-6),
            nn.Linear(dim, 4 * dim, bias=True),
            nn.GELU(),
            nn.Linear(4 * dim, dim, bias=True),
            Permute([0, 3, 1, 2]),
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.layer_scale * self.block(x) + x


class ConvNeXt(nn.Module):
    def __init__(self, dims=(16, 32, 48, 64), depths=(1, 1, 2, 1), classes: int = 10) -> None:
        super().__init__()
        layers: list[nn.Module] = [
            nn.Sequential(nn.Conv2d(3, dims[0], 4, 4, bias=True), LayerNorm2d(dims[0], eps=1e-6))
        ]
        for i, (d, n) in enumerate(zip(dims, depths)):
            layers.append(nn.Sequential(*[CNBlock(d) for _ in range(n)]))
            if i + 1 < len(dims):
                layers.append(
                    nn.Sequential(LayerNorm2d(d, eps=1e-6), nn.Conv2d(d, dims[i + 1], 2, 2))
                )
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            LayerNorm2d(dims[-1], eps=1e-6), nn.Flatten(1), nn.Linear(dims[-1], classes)
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(F.adaptive_avg_pool2d(self.features(x), 1))


# --- efficientnet (torchvision.models.efficientnet.MBConv, SiLU SE) -------------------------


class MBConv(nn.Module):
    def __init__(self, cin: int, cout: int, k: int, stride: int, ratio: int) -> None:
        super().__init__()
        exp = cin * ratio
        layers: list[nn.Module] = []
        if exp != cin:
            layers.append(_bn_act(cin, exp, 1, act=nn.SiLU))
        layers.append(_bn_act(exp, exp, k, stride, g=exp, act=nn.SiLU))
        layers.append(SqueezeExcitation(exp, max(1, cin // 4), scale_act=nn.Sigmoid, act=nn.SiLU))
        layers.append(_bn_act(exp, cout, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.res = stride == 1 and cin == cout

    def forward(self, x: Tensor) -> Tensor:
        y = self.block(x)
        return y + x if self.res else y


class EfficientNet(nn.Module):
    # (ratio, kernel, stride, in, out, layers): the first stages of efficientnet_b0
    CFG = ((1, 3, 1, 16, 8, 1), (6, 3, 2, 8, 12, 2), (6, 5, 2, 12, 20, 1))

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        layers: list[nn.Module] = [_bn_act(3, 16, 3, 2, act=nn.SiLU)]
        for r, k, s, cin, cout, n in self.CFG:
            for i in range(n):
                layers.append(MBConv(cin if i == 0 else cout, cout, k, s if i == 0 else 1, r))
        layers.append(_bn_act(20, 80, 1, act=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(80, classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))


# --- regnet (torchvision.models.regnet.ResBottleneckBlock, group width, SE) -----------------


class ResBottleneck(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, group_width: int, se_ratio: float) -> None:
        super().__init__()
        groups = cout // group_width
        self.f = nn.Sequential(
            _bn_act(cin, cout, 1),
            _bn_act(cout, cout, 3, stride, g=groups),
            SqueezeExcitation(cout, max(1, round(se_ratio * cin)), scale_act=nn.Sigmoid),
            _bn_act(cout, cout, 1, act=None),
        )
        self.proj = None
        if stride != 1 or cin != cout:
            self.proj = _bn_act(cin, cout, 1, stride, act=None)

    def forward(self, x: Tensor) -> Tensor:
        idt = x if self.proj is None else self.proj(x)
        return F.relu(idt + self.f(x))


class RegNet(nn.Module):
    def __init__(
        self, widths=(16, 32, 48), depths=(1, 2, 1), group_width: int = 8, classes: int = 10
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = [_bn_act(3, 16, 3, 2)]
        cin = 16
        for w, d in zip(widths, depths):
            for i in range(d):
                layers.append(ResBottleneck(cin, w, 2 if i == 0 else 1, group_width, 0.25))
                cin = w
        self.trunk = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.trunk(x), 1), 1))
