"""Attention vision models and others as torchvision / transformers write them (tiny
configs): ViT, CLIP vision, Swin (shifted windows via roll), MLP-Mixer, plus
ShuffleNetV2 (channel shuffle), ESPCN (pixel shuffle) and a UNet (upsample + cat)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

Tensor = torch.Tensor


# --- ViT (torchvision.models.vision_transformer: conv_proj, class token, MHA encoder) ------


class ViT(nn.Module):
    def __init__(
        self,
        patch: int = 8,
        d: int = 32,
        n: int = 4,
        layers: int = 2,
        img: int = 32,
        classes: int = 10,
    ) -> None:
        super().__init__()
        self.patch = patch
        self.conv_proj = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d, n, 4 * d, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x: Tensor) -> Tensor:
        n = x.shape[0]
        x = self.conv_proj(x)
        x = x.reshape(n, x.shape[1], -1).permute(0, 2, 1)
        x = torch.cat([self.cls.expand(n, -1, -1), x], dim=1)
        x = self.ln(self.encoder(x + self.pos))
        return self.head(x[:, 0])


# --- CLIP vision (transformers CLIPVisionTransformer: quick_gelu, pre_layrnorm) -----------


class CLIPLayer(nn.Module):
    def __init__(self, d: int, n: int) -> None:
        super().__init__()
        self.n, self.hd = n, d // n
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        h = self.ln1(x)
        q = self.q(h).view(b, t, self.n, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.n, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.n, self.hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        h = self.fc1(self.ln2(x))
        return x + self.fc2(h * torch.sigmoid(1.702 * h))


class CLIPVision(nn.Module):
    def __init__(
        self, patch: int = 8, d: int = 32, n: int = 4, layers: int = 2, img: int = 32
    ) -> None:
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, d, patch, patch, bias=False)
        self.class_embedding = nn.Parameter(torch.randn(d))
        self.position_embedding = nn.Embedding((img // patch) ** 2 + 1, d)
        self.pre, self.post = nn.LayerNorm(d), nn.LayerNorm(d)
        self.layers = nn.ModuleList(CLIPLayer(d, n) for _ in range(layers))

    def forward(self, x: Tensor) -> Tensor:
        b = x.shape[0]
        p = self.patch_embedding(x).flatten(2).transpose(1, 2)
        cls = self.class_embedding.expand(b, 1, -1)
        h = torch.cat([cls, p], dim=1)
        h = h + self.position_embedding(torch.arange(h.shape[1], device=x.device))[None]
        h = self.pre(h)
        for layer in self.layers:
            h = layer(h)
        return self.post(h[:, 0, :])


# --- Swin (torchvision.models.swin_transformer: shifted_window_attention, PatchMerging) ----


def _window_attention(
    x: Tensor, qkv: nn.Linear, proj: nn.Linear, n: int, ws: int, shift: int, bias: Tensor
) -> Tensor:
    b, h, w, c = x.shape
    pad_r, pad_b = (ws - w % ws) % ws, (ws - h % ws) % ws
    x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
    _, ph, pw, _ = x.shape
    if shift > 0:
        x = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
    nw = (ph // ws) * (pw // ws)
    x = (
        x.view(b, ph // ws, ws, pw // ws, ws, c)
        .permute(0, 1, 3, 2, 4, 5)
        .reshape(b * nw, ws * ws, c)
    )
    q, k, v = qkv(x).reshape(x.size(0), x.size(1), 3, n, c // n).permute(2, 0, 3, 1, 4)
    attn = (q * (c // n) ** -0.5).matmul(k.transpose(-2, -1)) + bias
    attn = F.softmax(attn, dim=-1)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), c)
    x = proj(x)
    x = x.view(b, ph // ws, pw // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, ph, pw, c)
    if shift > 0:
        x = torch.roll(x, shifts=(shift, shift), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


class SwinBlock(nn.Module):
    def __init__(self, d: int, n: int, ws: int, shift: int) -> None:
        super().__init__()
        self.n, self.ws, self.shift = n, ws, shift
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.bias_table = nn.Parameter(torch.randn((2 * ws - 1) ** 2, n) * 0.02)
        coords = torch.stack(
            torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")
        ).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (ws - 1)
        self.register_buffer(
            "rel_index", (rel[:, :, 0] * (2 * ws - 1) + rel[:, :, 1]).flatten(), persistent=False
        )
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: Tensor) -> Tensor:
        ws2 = self.ws * self.ws
        bias = (
            self.bias_table[self.rel_index]
            .view(ws2, ws2, -1)
            .permute(2, 0, 1)
            .contiguous()
            .unsqueeze(0)
        )
        x = x + _window_attention(
            self.norm1(x), self.qkv, self.proj, self.n, self.ws, self.shift, bias
        )
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.reduction = nn.Linear(4 * d, 2 * d, bias=False)
        self.norm = nn.LayerNorm(4 * d)

    def forward(self, x: Tensor) -> Tensor:
        x0, x1 = x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :]
        x2, x3 = x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]
        return self.reduction(self.norm(torch.cat([x0, x1, x2, x3], -1)))


class Swin(nn.Module):
    def __init__(self, d: int = 16, n: int = 2, ws: int = 4, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, d, 4, 4),
        )
        self.norm0 = nn.LayerNorm(d)
        self.stage1 = nn.Sequential(SwinBlock(d, n, ws, 0), SwinBlock(d, n, ws, ws // 2))
        self.merge = PatchMerging(d)
        self.stage2 = nn.Sequential(
            SwinBlock(2 * d, 2 * n, ws, 0), SwinBlock(2 * d, 2 * n, ws, ws // 2)
        )
        self.norm = nn.LayerNorm(2 * d)
        self.head = nn.Linear(2 * d, classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.norm0(self.stem(x).permute(0, 2, 3, 1))
        x = self.stage2(self.merge(self.stage1(x)))
        x = self.norm(x).permute(0, 3, 1, 2)
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- MLP-Mixer (token mixing through transposes) ---------------------------------------


class MixerBlock(nn.Module):
    def __init__(self, tokens: int, d: int) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.tok = nn.Sequential(
            nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens)
        )
        self.ch = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.tok(self.ln1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.ln2(x))


class MLPMixer(nn.Module):
    def __init__(
        self, patch: int = 8, d: int = 32, img: int = 32, layers: int = 2, classes: int = 10
    ) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, d, patch, patch)
        self.blocks = nn.Sequential(*[MixerBlock((img // patch) ** 2, d) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.ln(self.blocks(x)).mean(dim=1))


# --- ShuffleNetV2 (torchvision.models.shufflenetv2.channel_shuffle, chunk) ----------------


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.stride = stride
        bf = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(
                nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                nn.BatchNorm2d(cin),
                nn.Conv2d(cin, bf, 1, bias=False),
                nn.BatchNorm2d(bf),
                nn.ReLU(),
            )
        c2 = cin if stride > 1 else bf
        self.branch2 = nn.Sequential(
            nn.Conv2d(c2, bf, 1, bias=False),
            nn.BatchNorm2d(bf),
            nn.ReLU(),
            nn.Conv2d(bf, bf, 3, stride, 1, groups=bf, bias=False),
            nn.BatchNorm2d(bf),
            nn.Conv2d(bf, bf, 1, bias=False),
            nn.BatchNorm2d(bf),
            nn.ReLU(),
        )

    def forward(self, x: Tensor) -> Tensor:
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()
        )
        self.stages = nn.Sequential(
            ShuffleUnit(16, 32, 2), ShuffleUnit(32, 32, 1), ShuffleUnit(32, 64, 2)
        )
        self.fc = nn.Linear(64, classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.stages(F.max_pool2d(self.conv1(x), 3, 2, 1))
        return self.fc(x.mean([2, 3]))


# --- ESPCN super-resolution (pixel shuffle) and a small UNet (upsample + skip cat) -------


class ESPCN(nn.Module):
    def __init__(self, scale: int = 3) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 5, padding=2), nn.Tanh(), nn.Conv2d(16, 8, 3, padding=1), nn.Tanh()
        )
        self.tail = nn.Conv2d(8, 3 * scale * scale, 3, padding=1)
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x: Tensor) -> Tensor:
        return torch.sigmoid(self.shuffle(self.tail(self.body(x))))


def _double_conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
    )


class UNet(nn.Module):
    def __init__(self, c: int = 8, classes: int = 2) -> None:
        super().__init__()
        self.inc, self.d1, self.d2 = (
            _double_conv(3, c),
            _double_conv(c, 2 * c),
            _double_conv(2 * c, 4 * c),
        )
        self.u1, self.u2 = _double_conv(6 * c, 2 * c), _double_conv(3 * c, c)
        self.out = nn.Conv2d(c, classes, 1)

    def _up(self, x: Tensor, skip: Tensor, conv: nn.Module) -> Tensor:
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
        dy, dx = skip.size(2) - x.size(2), skip.size(3) - x.size(3)
        x = F.pad(x, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return conv(torch.cat([skip, x], dim=1))

    def forward(self, x: Tensor) -> Tensor:
        x1 = self.inc(x)
        x2 = self.d1(F.max_pool2d(x1, 2))
        x3 = self.d2(F.max_pool2d(x2, 2))
        return self.out(self._up(self._up(x3, x2, self.u1), x1, self.u2))
