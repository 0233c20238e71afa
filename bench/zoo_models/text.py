"""Transformer language / audio encoders as Hugging Face transformers writes them (tiny
configs): GPT-2, Llama (GQA, RoPE, RMSNorm), Mistral (sliding window), Qwen2 (qkv bias),
BERT, T5 encoder (relative position bias), Whisper encoder (conv front end), DeBERTa-v2
(disentangled attention)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

Tensor = torch.Tensor


def _heads(x: Tensor, n: int) -> Tensor:
    """(b, t, n*d) -> (b, n, t, d), as every HF attention does."""
    b, t, _ = x.shape
    return x.view(b, t, n, -1).transpose(1, 2)


def _merge(x: Tensor) -> Tensor:
    b, n, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, n * d)


def _eager_attn(q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None = None) -> Tensor:
    w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
    if bias is not None:
        w = w + bias
    return torch.matmul(F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype), v)


# --- GPT-2 (Conv1D fused qkv, causal mask from a buffer, learned positions) -----------------


class GPT2Block(nn.Module):
    def __init__(self, d: int, n: int) -> None:
        super().__init__()
        self.n = n
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d)
        )

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        q, k, v = self.c_attn(self.ln_1(x)).split(x.size(-1), dim=2)
        q, k, v = (_heads(t, self.n) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.size(-1))
        w = torch.where(mask, w, torch.finfo(w.dtype).min)
        a = torch.matmul(F.softmax(w, dim=-1), v)
        x = x + self.c_proj(_merge(a))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(
        self, vocab: int = 128, d: int = 32, n: int = 4, layers: int = 2, ctx: int = 64
    ) -> None:
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.register_buffer(
            "bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)), persistent=False
        )
        self.h = nn.ModuleList(GPT2Block(d, n) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids: Tensor) -> Tensor:
        t = ids.size(1)
        pos = torch.arange(0, t, device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        mask = self.bias[:t, :t].view(1, 1, t, t)
        for blk in self.h:
            x = blk(x, mask)
        return self.ln_f(x)


# --- Llama / Mistral / Qwen2 (RMSNorm, rotate_half RoPE, repeat_kv GQA, SwiGLU) ------------


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x: Tensor) -> Tensor:
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


def _rotate_half(x: Tensor) -> Tensor:
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def _repeat_kv(x: Tensor, rep: int) -> Tensor:
    b, n, t, d = x.shape
    if rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, n, rep, t, d).reshape(b, n * rep, t, d)


class LlamaLayer(nn.Module):
    def __init__(
        self, d: int, n: int, kv: int, ff: int, qkv_bias: bool, window: int | None
    ) -> None:
        super().__init__()
        self.n, self.kv, self.hd, self.window = n, kv, d // n, window
        self.q_proj = nn.Linear(d, d, bias=qkv_bias)
        self.k_proj = nn.Linear(d, kv * self.hd, bias=qkv_bias)
        self.v_proj = nn.Linear(d, kv * self.hd, bias=qkv_bias)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.gate, self.up = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)
        self.ln1, self.ln2 = RMSNorm(d), RMSNorm(d)

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        h = self.ln1(x)
        q, k, v = (
            _heads(self.q_proj(h), self.n),
            _heads(self.k_proj(h), self.kv),
            _heads(self.v_proj(h), self.kv),
        )
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        k, v = _repeat_kv(k, self.n // self.kv), _repeat_kv(v, self.n // self.kv)
        t = x.size(1)
        i = torch.arange(t, device=x.device)
        allowed = i[None, :] <= i[:, None]
        if self.window is not None:  # Mistral's sliding window
            allowed = allowed & (i[:, None] - i[None, :] < self.window)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        x = x + self.o_proj(_merge(a))
        h = self.ln2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(
        self,
        vocab: int = 128,
        d: int = 32,
        n: int = 4,
        kv: int = 2,
        ff: int = 64,
        layers: int = 2,
        qkv_bias: bool = False,
        window: int | None = None,
        theta: float = 10000.0,
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(
            LlamaLayer(d, n, kv, ff, qkv_bias, window) for _ in range(layers)
        )
        self.norm = RMSNorm(d)
        hd = d // n
        self.register_buffer(
            "inv_freq", 1.0 / theta ** (torch.arange(0, hd, 2).float() / hd), persistent=False
        )

    def forward(self, ids: Tensor) -> Tensor:
        x = self.embed(ids)
        pos = torch.arange(ids.size(1), device=ids.device)[None, :].float()
        freqs = (self.inv_freq[None, :, None] @ pos[:, None, :]).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.norm(x)


def mistral() -> Llama:
    return Llama(window=8)


def qwen2() -> Llama:
    return Llama(qkv_bias=True, theta=1000000.0)


# --- BERT (post-norm, token type + position embeddings, extended attention mask) -----------


class BertLayer(nn.Module):
    def __init__(self, d: int, n: int) -> None:
        super().__init__()
        self.n = n
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: Tensor, bias: Tensor) -> Tensor:
        a = _eager_attn(
            _heads(self.q(x), self.n), _heads(self.k(x), self.n), _heads(self.v(x), self.n), bias
        )
        x = self.ln1(x + self.o(_merge(a)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Bert(nn.Module):
    def __init__(
        self, vocab: int = 128, d: int = 32, n: int = 4, layers: int = 2, ctx: int = 64
    ) -> None:
        super().__init__()
        self.word, self.pos, self.tok = (
            nn.Embedding(vocab, d),
            nn.Embedding(ctx, d),
            nn.Embedding(2, d),
        )
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, n) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, ids: Tensor) -> Tensor:
        t = ids.size(1)
        pos = torch.arange(t, device=ids.device)[None]
        x = self.ln(self.word(ids) + self.pos(pos) + self.tok(torch.zeros_like(ids)))
        mask = (ids != 0).to(x.dtype)[:, None, None, :]
        bias = (1.0 - mask) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, bias)
        return torch.tanh(self.pool(x[:, 0]))


# --- T5 encoder (RMS LayerNorm, relative position buckets, no scaling) --------------------


def _relative_bucket(rel: Tensor, num_buckets: int = 32, max_distance: int = 128) -> Tensor:
    num_buckets //= 2  # bidirectional
    out = (rel > 0).to(torch.long) * num_buckets
    rel = torch.abs(rel)
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (
        torch.log(rel.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return out + torch.where(is_small, rel, large)


class T5Layer(nn.Module):
    def __init__(self, d: int, n: int, ff: int) -> None:
        super().__init__()
        self.n = n
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.ln1, self.ln2 = RMSNorm(d), RMSNorm(d)
        self.wi, self.wo = nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)

    def forward(self, x: Tensor, bias: Tensor) -> Tensor:
        h = self.ln1(x)
        q, k, v = (_heads(f(h), self.n) for f in (self.q, self.k, self.v))
        w = torch.matmul(q, k.transpose(3, 2)) + bias
        a = torch.matmul(F.softmax(w.float(), dim=-1).type_as(w), v)
        x = x + self.o(_merge(a))
        return x + self.wo(F.relu(self.wi(self.ln2(x))))


class T5Encoder(nn.Module):
    def __init__(
        self, vocab: int = 128, d: int = 32, n: int = 4, ff: int = 64, layers: int = 2
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.rel_bias = nn.Embedding(32, n)
        self.layers = nn.ModuleList(T5Layer(d, n, ff) for _ in range(layers))
        self.norm = RMSNorm(d)

    def forward(self, ids: Tensor) -> Tensor:
        t = ids.size(1)
        ctx = torch.arange(t, dtype=torch.long, device=ids.device)[:, None]
        mem = torch.arange(t, dtype=torch.long, device=ids.device)[None, :]
        buckets = _relative_bucket(mem - ctx)
        bias = self.rel_bias(buckets).permute([2, 0, 1]).unsqueeze(0)
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, bias)
        return self.norm(x)


# --- Whisper encoder (two Conv1d, GELU, sinusoidal positions sliced, pre-norm) ------------


class WhisperLayer(nn.Module):
    def __init__(self, d: int, n: int) -> None:
        super().__init__()
        self.n = n
        self.q, self.v, self.o = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.k = nn.Linear(d, d, bias=False)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: Tensor) -> Tensor:
        h = self.ln1(x)
        a = _eager_attn(
            _heads(self.q(h), self.n), _heads(self.k(h), self.n), _heads(self.v(h), self.n)
        )
        x = x + self.o(_merge(a))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class WhisperEncoder(nn.Module):
    def __init__(
        self, mels: int = 16, d: int = 32, n: int = 4, layers: int = 2, ctx: int = 64
    ) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("pos", torch.randn(ctx, d) * 0.02, persistent=False)
        self.layers = nn.ModuleList(WhisperLayer(d, n) for _ in range(layers))
        self.ln = nn.LayerNorm(d)

    def forward(self, feats: Tensor) -> Tensor:
        x = F.gelu(self.conv2(F.gelu(self.conv1(feats)))).permute(0, 2, 1)
        x = x + self.pos[: x.size(1)]
        for layer in self.layers:
            x = layer(x)
        return self.ln(x)


# --- DeBERTa-v2 (disentangled c2p / p2c attention with relative positions, gathers) --------


class DebertaLayer(nn.Module):
    def __init__(self, d: int, n: int, span: int) -> None:
        super().__init__()
        self.n, self.span = n, span
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: Tensor, rel_emb: Tensor, rel_pos: Tensor) -> Tensor:
        b, t, _ = x.shape
        q, k, v = (_heads(f(x), self.n) for f in (self.q, self.k, self.v))
        scale = math.sqrt(q.size(-1) * 3)
        score = torch.matmul(q, k.transpose(-1, -2)) / scale
        pk = _heads(self.k(rel_emb)[None], self.n)  # (1, n, 2*span, d)
        pq = _heads(self.q(rel_emb)[None], self.n)
        c2p_idx = torch.clamp(rel_pos + self.span, 0, 2 * self.span - 1)
        c2p = torch.matmul(q, pk.transpose(-1, -2))
        c2p = torch.gather(c2p, -1, c2p_idx[None, None].expand(b, self.n, t, t)) / scale
        p2c = torch.matmul(k, pq.transpose(-1, -2))
        p2c_idx = torch.clamp(-rel_pos + self.span, 0, 2 * self.span - 1)
        p2c = (
            torch.gather(p2c, -1, p2c_idx[None, None].expand(b, self.n, t, t)).transpose(-1, -2)
            / scale
        )
        a = torch.matmul(F.softmax(score + c2p + p2c, dim=-1), v)
        x = self.ln1(x + self.o(_merge(a)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Deberta(nn.Module):
    def __init__(
        self, vocab: int = 128, d: int = 32, n: int = 4, layers: int = 2, span: int = 16
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.rel = nn.Embedding(2 * span, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList(DebertaLayer(d, n, span) for _ in range(layers))

    def forward(self, ids: Tensor) -> Tensor:
        t = ids.size(1)
        i = torch.arange(t, device=ids.device)
        rel_pos = i[:, None] - i[None, :]
        x = self.ln(self.embed(ids))
        for layer in self.layers:
            x = layer(x, self.rel.weight, rel_pos)
        return x
