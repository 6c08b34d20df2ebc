"""A Llama-style decoder written here (RMSNorm, rotary embeddings, grouped-query attention, a
SwiGLU MLP), as a whole-sequence forward and as one decode step over a KV cache held in mutable
buffers (each layer's keys and values written at the step's position with index_put, then
attended over, masked past the position), the latter also with ExecuTorch's run_reinplace_pass
(the cache written in place by index_put_ instead of a copy back)."""

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate(x, cos, sin):
    """Rotary embedding of x [B, H, T, hd] with cos/sin [T, hd]."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


def tables(hd, n):
    inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
    f = torch.outer(torch.arange(n).float(), inv)
    f = torch.cat([f, f], dim=-1)
    return f.cos(), f.sin()


class Attention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.wq = nn.Linear(d, heads * self.hd, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, d, bias=False)

    def project(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        return rotate(q, cos, sin), rotate(k, cos, sin), v

    def attend(self, q, k, v, mask):
        rep = self.h // self.kv
        b, _, s, hd = k.shape
        k = k[:, :, None].expand(b, self.kv, rep, s, hd).reshape(b, self.h, s, hd)
        v = v[:, :, None].expand(b, self.kv, rep, s, hd).reshape(b, self.h, s, hd)
        scores = (q @ k.transpose(-1, -2)) * (hd ** -0.5)
        scores = torch.where(mask, scores, torch.full_like(scores, -1e9))
        out = torch.softmax(scores, dim=-1) @ v
        b, h, t, hd = out.shape
        return self.wo(out.transpose(1, 2).reshape(b, t, h * hd))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        hidden = 2 * d
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        return self.w2(nn.functional.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.attn, self.mlp = Attention(d, heads, kv_heads), MLP(d)


class Llama(nn.Module):
    """The whole sequence at once, causal."""

    def __init__(self, layers, d, heads, kv_heads, vocab, seq):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads, kv_heads) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        cos, sin = tables(d // heads, seq)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)),
                             persistent=False)

    def forward(self, tokens):
        x = self.emb(tokens)
        for blk in self.blocks:
            q, k, v = blk.attn.project(blk.n1(x), self.cos, self.sin)
            x = x + blk.attn.attend(q, k, v, self.mask)
            x = x + blk.mlp(blk.n2(x))
        return self.head(self.norm(x))


class LlamaDecode(nn.Module):
    """One token at position pos: each layer's keys and values written into its cache (mutable
    buffers [1, kv_heads, cache, hd]) at pos, attention over the cache masked past pos."""

    def __init__(self, layers, d, heads, kv_heads, vocab, cache):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads, kv_heads) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        cos, sin = tables(hd, cache)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.register_buffer("positions", torch.arange(cache), persistent=False)
        for i in range(layers):
            self.register_buffer(f"k_cache{i}", torch.zeros(1, kv_heads, cache, hd))
            self.register_buffer(f"v_cache{i}", torch.zeros(1, kv_heads, cache, hd))

    def forward(self, token, pos):
        x = self.emb(token)
        cos, sin = self.cos[pos], self.sin[pos]
        mask = (self.positions <= pos).view(1, 1, 1, -1)
        for i, blk in enumerate(self.blocks):
            q, k, v = blk.attn.project(blk.n1(x), cos, sin)
            kc, vc = getattr(self, f"k_cache{i}"), getattr(self, f"v_cache{i}")
            # index_put_ with the cache's rank kept ([None, None, pos], values [1, kv, 1, hd]):
            # `kc[:, :, pos] = k` exports values as [kv, 1, hd], which ExecuTorch 1.5.1's
            # in-place index_put_ kernel refuses once run_reinplace_pass makes it in place
            torch.ops.aten.index_put_(kc, [None, None, pos], k)
            torch.ops.aten.index_put_(vc, [None, None, pos], v)
            x = x + blk.attn.attend(q, kc, vc, mask)
            x = x + blk.mlp(blk.n2(x))
        return self.head(self.norm(x))


def llama_forward(layers=2, d_model=64, heads=4, kv_heads=2, vocab=128, seq=16):
    """Llama-style decoder stack, the whole sequence (RMSNorm, RoPE, GQA, SwiGLU)"""
    torch.manual_seed(0)
    m = Llama(layers, d_model, heads, kv_heads, vocab, seq)
    return m, (torch.randint(0, vocab, (1, seq)),)


def llama_decode(layers=2, d_model=64, heads=4, kv_heads=2, vocab=128, cache=16):
    """one decode step, the KV cache as mutable buffers written by index_put and copied back"""
    torch.manual_seed(0)
    m = LlamaDecode(layers, d_model, heads, kv_heads, vocab, cache)
    return m, (torch.tensor([[3]]), torch.tensor([cache // 2]))


def llama_decode_reinplace(layers=2, d_model=64, heads=4, kv_heads=2, vocab=128, cache=16):
    """the decode step with run_reinplace_pass: the cache written in place by index_put_"""
    m, inputs = llama_decode(layers, d_model, heads, kv_heads, vocab, cache)
    return m, inputs, {"run_reinplace_pass": True}
