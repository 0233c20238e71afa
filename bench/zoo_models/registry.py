"""The zoo's models: how to build each (from torchvision / transformers when importable, else
from this package), its inputs, the dimensions marked dynamic, and its tolerance."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from . import text, vision_attn, vision_conv
from .library import LIBRARY

Tensor = torch.Tensor


@dataclasses.dataclass(frozen=True)
class ZooModel:
    name: str
    kind: str  # "image", "tokens", "audio"
    local: Callable[[], nn.Module]
    #: the input's shape; its dimensions named in ``dynamic`` are marked dynamic
    shape: tuple[int, ...]
    dynamic: tuple[int, ...]
    #: the same input at other sizes of the dynamic dimensions (a dynamic kernel's check)
    shape2: tuple[int, ...]
    atol: float = 1e-3
    rtol: float = 1e-3

    def build(self, prefer_library: bool = True) -> tuple[nn.Module, str]:
        """(the model in eval mode with seeded random weights, where it came from)."""
        torch.manual_seed(0)
        source = "zoo_models"
        lib = LIBRARY.get(self.name) if prefer_library else None
        model = None
        if lib is not None:
            try:
                model = lib()
                source = "library"
            except ImportError:
                model = None
            except Exception as exc:  # a library version without this config: say so
                source = f"zoo_models (library failed: {type(exc).__name__}: {str(exc)[:120]})"
                model = None
        if model is None:
            torch.manual_seed(0)
            model = self.local()
        return model.eval(), source

    def inputs(self, device: str, second: bool = False) -> tuple[Tensor, ...]:
        g = torch.Generator().manual_seed(1 if second else 0)
        shape = self.shape2 if second else self.shape
        if self.kind == "tokens":
            x = torch.randint(1, 128, shape, generator=g)
        else:
            x = torch.randn(shape, generator=g)
        return (x.to(device),)


_IMG, _IMG2 = (2, 3, 32, 32), (3, 3, 48, 48)
_TOK, _TOK2 = (2, 16), (3, 24)
_A = (0, 2, 3)  # batch and both spatial dimensions


def _img(name: str, local: Callable[[], nn.Module], **kw: Any) -> ZooModel:
    return ZooModel(name, "image", local, kw.pop("shape", _IMG), _A, kw.pop("shape2", _IMG2), **kw)


def _tok(name: str, local: Callable[[], nn.Module], **kw: Any) -> ZooModel:
    return ZooModel(name, "tokens", local, _TOK, (0, 1), _TOK2, **kw)


MODELS: tuple[ZooModel, ...] = (
    _img("resnet18", vision_conv.ResNet),
    _img("mobilenet_v3_small", vision_conv.MobileNetV3),
    _img("convnext_tiny", vision_conv.ConvNeXt, shape=(2, 3, 64, 64), shape2=(3, 3, 96, 96)),
    _img("efficientnet_b0", vision_conv.EfficientNet),
    _img("regnet_y_400mf", vision_conv.RegNet),
    _img("shufflenet_v2", vision_attn.ShuffleNetV2),
    # the position table has one row per patch: batch dynamic, image fixed
    ZooModel("vit", "image", vision_attn.ViT, _IMG, (0,), (3, 3, 32, 32)),
    ZooModel("clip_vision", "image", vision_attn.CLIPVision, _IMG, (0,), (3, 3, 32, 32)),
    ZooModel("mlp_mixer", "image", vision_attn.MLPMixer, _IMG, (0,), (3, 3, 32, 32)),
    _img("swin", vision_attn.Swin, shape2=(3, 3, 64, 64)),
    _img("espcn", vision_attn.ESPCN, shape=(2, 3, 16, 16), shape2=(3, 3, 20, 24)),
    _img("unet", vision_attn.UNet),
    _tok("gpt2", text.GPT2),
    _tok("llama", text.Llama),
    _tok("mistral", text.mistral),
    _tok("qwen2", text.qwen2),
    _tok("bert", text.Bert),
    _tok("t5_encoder", text.T5Encoder),
    _tok("deberta", text.Deberta),
    ZooModel("whisper_encoder", "audio", text.WhisperEncoder, (2, 16, 64), (0,), (3, 16, 64)),
)

BY_NAME = {m.name: m for m in MODELS}

#: a few small, quick models (``--quick`` and the slow test)
QUICK = ("resnet18", "convnext_tiny", "llama")
