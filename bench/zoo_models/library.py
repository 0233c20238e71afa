"""The same models built from torchvision / transformers when those are importable (the GPU
machine): each builder returns a module whose forward takes the zoo's inputs and returns
tensors, or raises ImportError.  Configurations are small (few layers, narrow widths) except
where the issue measured the library's named model (convnext_tiny, mobilenet_v3_small,
resnet18, efficientnet_b0, regnet_y_400mf, shufflenet_v2_x0_5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch import nn


class _Hidden(nn.Module):
    """A transformers model's ``last_hidden_state`` (or pooled output) as a plain tensor."""

    def __init__(self, model: nn.Module, key: str = "last_hidden_state") -> None:
        super().__init__()
        self.model, self.key = model, key

    def forward(self, x: Any) -> Any:
        out = self.model(x)
        return getattr(out, self.key)


def _tv(name: str, **kw: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import torchvision.models as tvm

        return getattr(tvm, name)(weights=None, **kw)

    return build


def _tv_vit() -> nn.Module:
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(
        image_size=32,
        patch_size=8,
        num_layers=2,
        num_heads=4,
        hidden_dim=32,
        mlp_dim=128,
        num_classes=10,
    )


def _tv_swin() -> nn.Module:
    from torchvision.models.swin_transformer import SwinTransformer

    return SwinTransformer(
        patch_size=[4, 4],
        embed_dim=16,
        depths=[2, 2],
        num_heads=[2, 4],
        window_size=[4, 4],
        num_classes=10,
    )


_TEXT = dict(
    vocab_size=128,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=64,
    max_position_embeddings=64,
)


def _hf(
    model_cls: str, config_cls: str, key: str = "last_hidden_state", **cfg: Any
) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import transformers

        config = getattr(transformers, config_cls)(**cfg)
        return _Hidden(getattr(transformers, model_cls)(config), key)

    return build


class _Whisper(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        import transformers

        cfg = transformers.WhisperConfig(
            num_mel_bins=16,
            d_model=32,
            encoder_layers=2,
            encoder_attention_heads=4,
            encoder_ffn_dim=128,
            max_source_positions=32,
            decoder_layers=1,
            decoder_attention_heads=4,
            decoder_ffn_dim=64,
            vocab_size=128,
        )
        self.enc = transformers.WhisperModel(cfg).get_encoder()

    def forward(self, feats: Any) -> Any:
        return self.enc(feats).last_hidden_state


class _CLIP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        import transformers

        cfg = transformers.CLIPVisionConfig(
            hidden_size=32,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            image_size=32,
            patch_size=8,
        )
        self.m = transformers.CLIPVisionModel(cfg)

    def forward(self, x: Any) -> Any:
        return self.m(pixel_values=x).pooler_output


LIBRARY: dict[str, Callable[[], nn.Module]] = {
    "resnet18": _tv("resnet18", num_classes=10),
    "mobilenet_v3_small": _tv("mobilenet_v3_small", num_classes=10),
    "convnext_tiny": _tv("convnext_tiny", num_classes=10),
    "efficientnet_b0": _tv("efficientnet_b0", num_classes=10),
    "regnet_y_400mf": _tv("regnet_y_400mf", num_classes=10),
    "shufflenet_v2": _tv("shufflenet_v2_x0_5", num_classes=10),
    "vit": _tv_vit,
    "swin": _tv_swin,
    "clip_vision": _CLIP,
    "whisper_encoder": _Whisper,
    "gpt2": _hf(
        "GPT2Model", "GPT2Config", vocab_size=128, n_embd=32, n_layer=2, n_head=4, n_positions=64
    ),
    "llama": _hf("LlamaModel", "LlamaConfig", num_key_value_heads=2, **_TEXT),
    "mistral": _hf(
        "MistralModel", "MistralConfig", num_key_value_heads=2, sliding_window=8, **_TEXT
    ),
    "qwen2": _hf("Qwen2Model", "Qwen2Config", num_key_value_heads=2, **_TEXT),
    "bert": _hf("BertModel", "BertConfig", key="pooler_output", **_TEXT),
    "t5_encoder": _hf(
        "T5EncoderModel",
        "T5Config",
        vocab_size=128,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_heads=4,
    ),
    "deberta": _hf("DebertaV2Model", "DebertaV2Config", **_TEXT),
}
