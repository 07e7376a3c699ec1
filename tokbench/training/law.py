"""Compute-optimal vocabulary size after Tao et al. 2024 (pure math, numpy only).

Tao, Liu, Dou, Muennighoff, Wan, Luo, Lin, Wong, "Scaling Laws with Vocabulary: Larger
Models Deserve Larger Vocabularies", NeurIPS 2024, arXiv 2407.13623; code and fitted
coefficients in github ``sail-sg/scaling-with-vocab``. The facts (formulas, coefficients,
the table of model widths) are carried over from that repository and cited where used;
the code is tokbench's.

Notation (the paper's): ``N_nv`` non-vocabulary parameters, ``d`` model width, ``V``
vocabulary size, ``N_v = V d`` vocabulary parameters (one V x d matrix), ``H`` training
characters, ``f(V)`` tokens per character at size V, ``D = H f(V)`` training tokens and
``C = 6 (N_nv + V d) D`` training FLOPs.

The paper's three approaches use its own corpus (SlimPajama, English). The sweep measures
``f(V)`` on the user's corpus; ``fit_tokens_per_char`` fits the paper's form to it and
``derivative_optimum`` / ``fit_gamma`` redo approach 2 with it, only inside the swept
sizes (``TokensPerChar.valid_range``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tokbench.errors import InputError

SOURCE = ("Tao et al. 2024, Scaling Laws with Vocabulary (arXiv 2407.13623; "
          "github sail-sg/scaling-with-vocab)")

# f(V) = a ln(V)^2 + b ln(V) + c, tokens per character on the paper's corpus; the code caps
# V at 200,000 inside the log (sail-sg/scaling-with-vocab utils.py: H_to_D, D_to_H,
# func_flops; fit_tokenization_func.py fits it; approach2_derivative.py uses the same a, b, c)
PAPER_F = (0.00639222, -0.15811069, 1.20470122)
PAPER_F_CAP = 200_000

# Approach 1 (IsoFLOPs): N_nv_opt = exp(K1) C^0.5, N_v_opt = exp(K2) C^ALPHA2
# (optimal_Nv_predict.py: Nnvopt_to_flops, approach1_isoflops; approach1_isoflops.py fixes
# the exponent of N_nv and H at 0.5 "following Deepmind" and fits N_v's)
A1_K_NNV = -2.4846510161625193
A1_K_NV = -1.589031299255507
A1_ALPHA_NV = 0.4163622634135234

# Approach 2 (derivative): N_v_opt = ANCHOR_NV (N_nv / ANCHOR_NNV)^GAMMA
# (optimal_Nv_predict.py approach2_derivative: best_vocab_para = 3145728, the 33M model's
# best V = 6144 at d = 512 in its IsoFLOPs runs at 2.7e17 FLOPs, approach2_derivative.py;
# GAMMA fitted to the derivative optima at GAMMA_GRID with a Huber loss, delta = 0.001)
A2_ANCHOR_NV = 3_145_728
A2_ANCHOR_NNV = 33_000_000
A2_GAMMA = 0.8353974035228025
GAMMA_GRID = (33_000_000, 85_000_000, 151_000_000, 302_000_000, 631_000_000,
              1_130_000_000, 2_870_000_000)  # approach2_derivative.py Nnvs_solutions
HUBER_DELTA = 0.001

# Approach 3 (parametric loss): L_u = -E + A1 / N_nv^alpha1 + A2 / (V d)^alpha2 + B / D^beta,
# D = C / (6 (N_nv + V d)), in units N_nv: 1e6, V: 1e3, d: 1e3, C: 1e15 (D: 1e9 tokens)
# (optimal_Nv_predict.py approach3_isoloss; fit in approach3_isoloss.py with alpha1 = beta)
A3 = {"A1": 1.8313851559554126, "A2": 0.19584238398665638, "B": 2.1241123120064955,
      "E": 5.5327846803337435, "alpha1": 0.44660634152009615,
      "alpha2": 0.6707374679896795, "beta": 0.44660634152009615}

# model width from N_nv when none is given (utils.py Nnv_to_d): (upper bound of N_nv, d)
D_TABLE = ((50e6, 512), (200e6, 768), (500e6, 1024), (1e9, 1536), (2e9, 2048), (5e9, 3200),
           (10e9, 4096), (20e9, 5120), (50e9, 6048), (100e9, 8192), (200e9, 12288),
           (500e9, 16384), (1000e9, 20480))
D_BEYOND = 24576

#: a prediction may lie up to this factor outside the swept sizes, flagged; further is refused
EXTRAPOLATION = 2.0
MIN_SIZES = 3

# what the inputs may be (anything else is a typo, not a model)
NNV_RANGE = (1e6, 1e14)
FLOPS_RANGE = (1e15, 1e30)
D_RANGE = (16, 1 << 17)

ASSUMPTIONS = {
    "vocabulary_parameters": "N_v = V x d: one V x d matrix, as the paper counts it (its models "
                             "had untied input and output embeddings; the input embedding is a "
                             "lookup that costs no FLOPs)",
    "flops": "C = 6 (N_nv + V d) D training FLOPs (forward + backward matmuls), D = H f(V) "
             "tokens for H characters; attention's sequence-length term is not counted",
    "d_model": "when not given, d comes from N_nv by the paper's table (utils.py Nnv_to_d: "
               "3200 for 2-5B, 4096 for 5-10B, 8192 for 50-100B, ...)",
    "flops_default": "when not given, C is the compute-optimal budget for N_nv from approach 1 "
                     "(N_nv = exp(-2.4847) C^0.5)",
    "tied": "--tied changes only the parameter cost table; the scaling formulas count V d once",
    "f_of_v": "f(V) = tokens per character (Unicode code points) of the evaluation text, "
              "fitted over the swept sizes by least squares as the paper's a ln(V)^2 + "
              "b ln(V) + c or as exp(a ln(V)^2 + b ln(V) + c), whichever misses the measured "
              "values by less (both recorded)",
    "corpus": "approaches 1-3 are the paper's fits on its English corpus; only approach 2 is "
              "redone with your f(V), keeping the paper's 33M-parameter anchor",
}


# -- inputs ------------------------------------------------------------------------------------


def check_model_params(n_nv: float, what: str = "--model-params") -> float:
    """A number of non-vocabulary parameters between 1M and 100T (one-line error otherwise)."""
    if not math.isfinite(n_nv) or not NNV_RANGE[0] <= n_nv <= NNV_RANGE[1]:
        raise InputError(f"{what} {n_nv:g} is not a model size; give non-vocabulary parameters "
                         f"between {NNV_RANGE[0]:.0e} and {NNV_RANGE[1]:.0e}, e.g. 7e9")
    return float(n_nv)


def check_flops(flops: float) -> float:
    if not math.isfinite(flops) or not FLOPS_RANGE[0] <= flops <= FLOPS_RANGE[1]:
        raise InputError(f"--flops {flops:g} is not a training budget; give FLOPs between "
                         f"{FLOPS_RANGE[0]:.0e} and {FLOPS_RANGE[1]:.0e}, e.g. 1e22")
    return float(flops)


def check_d_model(d: int) -> int:
    if not D_RANGE[0] <= d <= D_RANGE[1]:
        raise InputError(f"--d-model {d} is not a model width; give one between {D_RANGE[0]} "
                         f"and {D_RANGE[1]:,}, e.g. 4096")
    return int(d)


def parse_number(text: str, what: str) -> float:
    """``"7e9"``, ``"7B"``, ``"70b"``, ``"350M"``, ``"7000000000"`` -> a float."""
    raw = text.strip().replace("_", "").replace(",", "")
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}.get(raw[-1:].lower(), 1.0)
    if scale != 1.0:
        raw = raw[:-1]
    try:
        return float(raw) * scale
    except ValueError:
        raise InputError(f"{what} {text.strip()!r} is not a number like 7e9 or 7B") from None


def d_from_nnv(n_nv: float) -> int:
    """The paper's model width for ``n_nv`` non-vocabulary parameters (utils.py Nnv_to_d)."""
    for bound, d in D_TABLE:
        if n_nv <= bound:
            return d
    return D_BEYOND


def optimal_flops(n_nv: float) -> float:
    """The compute-optimal training FLOPs for ``n_nv`` (approach 1: N_nv = exp(K1) C^0.5)."""
    return float((n_nv / math.exp(A1_K_NNV)) ** 2)


# -- the paper's three approaches (its coefficients) ------------------------------------------


def approach1(n_nv: float, d: float, flops: float | None = None) -> float:
    """Optimal V by IsoFLOPs power laws: N_v = exp(K2) C^0.41636, V = N_v / d."""
    c = optimal_flops(n_nv) if flops is None else flops
    return float(math.exp(A1_K_NV) * c ** A1_ALPHA_NV / d)


def approach2(n_nv: float, d: float, gamma: float = A2_GAMMA) -> float:
    """Optimal V by the derivative-based estimate: N_v = 3,145,728 (N_nv / 33M)^gamma / d."""
    return float(A2_ANCHOR_NV * (n_nv / A2_ANCHOR_NNV) ** gamma / d)


def approach3_loss(v: float, n_nv: float, d: float, flops: float) -> float:
    """The paper's fitted unigram-normalized loss L_u at size ``v`` (for checks and plots)."""
    p = A3
    n, vv, dd, c = n_nv / 1e6, v / 1e3, d / 1e3, flops / 1e15
    tokens = c / (6 * (n + vv * dd))
    return float(-p["E"] + p["A1"] / n ** p["alpha1"] + p["A2"] / (vv * dd) ** p["alpha2"]
                 + p["B"] / tokens ** p["beta"])


def approach3(n_nv: float, d: float, flops: float | None = None) -> float:
    """Optimal V where dL_u/dV = 0 for the paper's parametric loss (its normalized units)."""
    p = A3
    c = (optimal_flops(n_nv) if flops is None else flops) / 1e15
    n, dd = n_nv / 1e6, d / 1e3

    def slope(vv: float) -> float:  # dL_u/dV in units of V / 1e3
        vocab = -p["alpha2"] * p["A2"] * dd / (vv * dd) ** (p["alpha2"] + 1)
        u = c / (6 * (n + vv * dd))
        du = c * dd / (6 * (n + vv * dd) ** 2)
        return float(vocab + p["beta"] * p["B"] * du / u ** (p["beta"] + 1))

    return _log_bisect(slope, 1e-3, 1e7) * 1e3


def paper_predictions(n_nv: float, d: float, flops: float | None = None) -> dict[str, float]:
    """The paper's three optimal sizes for one model."""
    return {"approach1": approach1(n_nv, d, flops), "approach2": approach2(n_nv, d),
            "approach3": approach3(n_nv, d, flops)}


def _log_bisect(fn: Callable[[float], float], lo: float, hi: float, steps: int = 200) -> float:
    """The root of ``fn`` (negative at ``lo``, positive at ``hi``), bisected in log space."""
    if fn(lo) >= 0 or fn(hi) <= 0:
        raise ValueError("no sign change")
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        if fn(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-13:
            break
    return math.sqrt(lo * hi)


# -- f(V) on the user's corpus -----------------------------------------------------------------


QUADRATIC = "quadratic"  # the paper's: f = a ln(V)^2 + b ln(V) + c
EXP_QUADRATIC = "exp-quadratic"  # ours: ln f = a ln(V)^2 + b ln(V) + c
FORMS = (QUADRATIC, EXP_QUADRATIC)


@dataclass(frozen=True)
class TokensPerChar:
    """f(V), tokens per character, as a quadratic in ln(V) (the paper's form) or as the
    exponential of one (``EXP_QUADRATIC``: the same three numbers fitted to ln f)."""

    a: float
    b: float
    c: float
    sizes: tuple[int, ...] = ()
    measured: tuple[float, ...] = ()
    cap: float | None = None  # V is capped here inside the log (the paper's 200,000)
    form: str = QUADRATIC
    alternatives: tuple[tuple[str, float], ...] = ()  # (form, max |residual| %) considered

    def _q(self, v: float) -> float:
        x = math.log(min(v, self.cap) if self.cap else v)
        return self.a * x * x + self.b * x + self.c

    def f(self, v: float) -> float:
        q = self._q(v)
        return math.exp(q) if self.form == EXP_QUADRATIC else q

    def df_dv(self, v: float) -> float:
        if self.cap and v >= self.cap:
            return 0.0
        dq = (2 * self.a * math.log(v) + self.b) / v
        return self.f(v) * dq if self.form == EXP_QUADRATIC else dq

    @property
    def formula(self) -> str:
        q = f"{self.a:.6f} ln(V)^2 {self.b:+.6f} ln(V) {self.c:+.6f}"
        return f"exp({q})" if self.form == EXP_QUADRATIC else q

    @property
    def valid_range(self) -> tuple[int, int]:
        """The sizes the fit was made on: predictions outside it are extrapolations."""
        return (min(self.sizes), max(self.sizes)) if self.sizes else (1, PAPER_F_CAP)

    def residuals_pct(self) -> list[float]:
        """(fit - measured) / measured in %, at every swept size."""
        return [(self.f(s) / m - 1.0) * 100.0 for s, m in zip(self.sizes, self.measured,
                                                               strict=True)]

    def max_residual_pct(self) -> float:
        return max((abs(r) for r in self.residuals_pct()), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"form": self.form, "formula": self.formula,
                "a": self.a, "b": self.b, "c": self.c, "sizes": list(self.sizes),
                "measured": list(self.measured),
                "fitted": [self.f(s) for s in self.sizes], "residuals_pct": self.residuals_pct(),
                "max_abs_residual_pct": self.max_residual_pct(),
                "alternatives": {k: v for k, v in self.alternatives},
                "valid_range": list(self.valid_range),
                "degrees_of_freedom": len(self.sizes) - 3}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TokensPerChar:
        return cls(d["a"], d["b"], d["c"], tuple(d["sizes"]), tuple(d["measured"]),
                   form=d.get("form", QUADRATIC))


PAPER_TOKENS_PER_CHAR = TokensPerChar(*PAPER_F, cap=PAPER_F_CAP)


def fit_tokens_per_char(sizes: Sequence[int], values: Sequence[float],
                        what: str = "the sweep", form: str = "auto") -> TokensPerChar:
    """Least-squares fit of f(V) to ``values`` (tokens per character at ``sizes``).

    ``form`` "quadratic" is the paper's a ln(V)^2 + b ln(V) + c, fitted as the paper does
    with ``scipy.optimize.curve_fit`` (fit_tokenization_func.py): unweighted least squares.
    "exp-quadratic" fits the same polynomial to ln f (our variant: over many doublings
    tokens per character falls roughly geometrically, which the paper's form bends away
    from; on FLORES-200 1k..128k it misses by 2.6% where this one misses by 0.5%). "auto"
    fits both and keeps the one with the smaller largest residual, the paper's on a tie;
    both are recorded. Needs 3 distinct sizes; with exactly 3 the curve passes through
    them (0 degrees of freedom, residuals 0 by construction).
    """
    pairs = sorted((int(s), float(v)) for s, v in zip(sizes, values, strict=True))
    if len({s for s, _ in pairs}) < MIN_SIZES:
        raise InputError(f"{what} has {len({s for s, _ in pairs})} vocabulary size(s) with "
                         f"measured tokens per character; fitting f(V) needs at least "
                         f"{MIN_SIZES}, e.g. --sizes 1k,2k,4k,8k")
    for s, v in pairs:
        if s < 2 or not math.isfinite(v) or v <= 0:
            raise InputError(f"{what}: size {s:,} has tokens per character {v!r}; sizes must "
                             "be at least 2 and tokens per character positive")
    if form not in (*FORMS, "auto"):
        raise InputError(f"f(V) form {form!r} is not one of {', '.join(FORMS)} or auto")
    x = np.log(np.array([s for s, _ in pairs], dtype=np.float64))
    y = np.array([v for _, v in pairs], dtype=np.float64)
    design = np.stack([x * x, x, np.ones_like(x)], axis=1)
    fits = {}
    for kind in FORMS if form == "auto" else (form,):
        target = np.log(y) if kind == EXP_QUADRATIC else y
        (a, b, c), *_ = np.linalg.lstsq(design, target, rcond=None)
        fits[kind] = TokensPerChar(float(a), float(b), float(c), tuple(s for s, _ in pairs),
                                   tuple(v for _, v in pairs), form=kind)
    errors = tuple((k, f.max_residual_pct()) for k, f in fits.items())
    best = min(fits, key=lambda k: (round(fits[k].max_residual_pct(), 9), k != QUADRATIC))
    return dataclasses.replace(fits[best], alternatives=errors)


# -- approach 2 with any f(V) ------------------------------------------------------------------


def flops_slope(f: TokensPerChar, n_nv: float, d: float, v: float) -> float:
    """dF/dV / (6 H) for F(V) = 6 (N_nv + V d) H f(V): d f(V) + (N_nv + V d) f'(V)
    (the paper's approach 2; approach2_derivative.py dF_dV)."""
    return d * f.f(v) + (n_nv + d * v) * f.df_dv(v)


def derivative_optimum(f: TokensPerChar, n_nv: float, d: float,
                       bounds: tuple[float, float] | None = None) -> dict[str, Any]:
    """The V that minimizes the FLOPs to train ``n_nv`` on a fixed number of characters.

    Searched within ``bounds`` (default: the fit's valid range widened by ``EXTRAPOLATION``
    each way). ``status`` is "ok" inside the swept sizes, "extrapolated" within a factor
    ``EXTRAPOLATION`` outside them, "above"/"below" when the optimum is beyond the searched
    range (``v`` is then None and ``bound`` says which side).
    """
    lo_valid, hi_valid = f.valid_range
    lo, hi = bounds or (lo_valid / EXTRAPOLATION, hi_valid * EXTRAPOLATION)
    lo = max(lo, 2.0)
    grid = np.exp(np.linspace(math.log(lo), math.log(hi), 241))
    cost = np.array([(n_nv + d * v) * f.f(v) for v in grid])
    i = int(np.argmin(cost))
    if i == 0 and flops_slope(f, n_nv, d, lo) >= 0:
        return {"v": None, "status": "below", "bound": lo}
    if i == len(grid) - 1 and flops_slope(f, n_nv, d, hi) <= 0:
        return {"v": None, "status": "above", "bound": hi}
    left, right = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    try:
        v = _log_bisect(lambda x: flops_slope(f, n_nv, d, x), float(left), float(right))
    except ValueError:
        v = float(grid[i])
    status = "ok" if lo_valid <= v <= hi_valid else "extrapolated"
    return {"v": v, "status": status, "bound": None}


def huber_gamma(ratios_nnv: Sequence[float], ratios_nv: Sequence[float],
                delta: float = HUBER_DELTA) -> float:
    """gamma minimizing sum Huber(gamma ln(dN_nv) - ln(dN_v)), the paper's fit of approach 2's
    exponent (approach2_derivative.py: scipy.special.huber, delta 0.001). The loss is convex
    in gamma; found by golden-section search on [0, 2]."""
    x = np.log(np.asarray(ratios_nnv, dtype=np.float64))
    y = np.log(np.asarray(ratios_nv, dtype=np.float64))

    def loss(g: float) -> float:
        r = np.abs(g * x - y)
        return float(np.where(r <= delta, r * r / 2, delta * (r - delta / 2)).sum())

    lo, hi = 0.0, 2.0
    phi = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
        if loss(m1) <= loss(m2):
            hi = m2
        else:
            lo = m1
    return (lo + hi) / 2


def fit_gamma(f: TokensPerChar, grid: Sequence[float] = GAMMA_GRID,
              only_valid: bool = True) -> dict[str, Any]:
    """Approach 2's exponent from ``f``: derivative optima at the paper's model sizes (with
    its widths), then gamma in N_v ~ N_nv^gamma relative to the smallest.

    With ``only_valid`` only optima inside the swept sizes are used (never the fit's
    extrapolation); fewer than 3 such points give ``gamma`` None and the reason.
    """
    points = []
    for n in grid:
        d = d_from_nnv(n)
        opt = derivative_optimum(f, n, d, None if only_valid else (100.0, float(PAPER_F_CAP)))
        points.append({"n_nv": n, "d": d, **opt})
    used = [p for p in points if p["v"] is not None
            and (p["status"] == "ok" or not only_valid)]
    out: dict[str, Any] = {"points": points, "used": [p["n_nv"] for p in used]}
    if len(used) < 3:
        out.update(gamma=None, reason=f"only {len(used)} of the paper's {len(grid)} model sizes "
                   "(33M..2.87B) have their derivative optimum inside the swept sizes; sweep "
                   "a wider range of sizes")
        return out
    base = used[0]
    out["gamma"] = huber_gamma([p["n_nv"] / base["n_nv"] for p in used[1:]],
                               [p["v"] * p["d"] / (base["v"] * base["d"]) for p in used[1:]])
    return out


# -- published models -------------------------------------------------------------------------


def decoder_nonvocab(hidden: int, layers: int, mlp: int, kv_heads: int, head_dim: int,
                     qkv_bias: bool = False) -> int:
    """Non-vocabulary parameters of a Llama-style decoder (gated MLP, RMSNorm, no other
    biases): attention (q, o: hidden^2 each; k, v: hidden x kv_heads head_dim each),
    3 hidden x mlp, two norms per layer and a final norm."""
    kv = kv_heads * head_dim
    attn = 2 * hidden * hidden + 2 * hidden * kv + ((hidden + 2 * kv) if qkv_bias else 0)
    return layers * (attn + 3 * hidden * mlp + 2 * hidden) + hidden


@dataclass(frozen=True)
class PublishedModel:
    """A released model with its vocabulary: the point it takes on the N_nv-V plane."""

    name: str
    tokenizer: str  # tokbench's name of its tokenizer
    n_nv: int
    vocab: int
    d: int
    note: str = ""


# N_nv from each model's published config (hidden size, layers, MLP width, kv heads);
# e.g. Llama-2-7B: 6,476,271,616 + 2 x 32,000 x 4,096 = 6,738,415,616 parameters in all
PUBLISHED = (
    PublishedModel("GPT-2 (124M)", "gpt2",
                   12 * 7_087_872 + 1536 + 1024 * 768, 50257, 768,
                   "learned positions counted as non-vocabulary; tied embeddings"),
    PublishedModel("Llama-2-7B", "llama-2", decoder_nonvocab(4096, 32, 11008, 32, 128),
                   32000, 4096),
    PublishedModel("Llama-2-13B", "llama-2", decoder_nonvocab(5120, 40, 13824, 40, 128),
                   32000, 5120),
    PublishedModel("Llama-2-70B", "llama-2", decoder_nonvocab(8192, 80, 28672, 8, 128),
                   32000, 8192),
    PublishedModel("Llama-3-8B", "llama-3", decoder_nonvocab(4096, 32, 14336, 8, 128),
                   128256, 4096),
    PublishedModel("Llama-3-70B", "llama-3", decoder_nonvocab(8192, 80, 28672, 8, 128),
                   128256, 8192),
    PublishedModel("Qwen2-7B", "qwen2", decoder_nonvocab(3584, 28, 18944, 4, 128, True),
                   152064, 3584, "embedding rows (152,064) include padding"),
    PublishedModel("Qwen2-72B", "qwen2", decoder_nonvocab(8192, 80, 29568, 8, 128, True),
                   152064, 8192, "embedding rows (152,064) include padding"),
)

#: tokenizers whose models' sizes are not published: only their V is marked
VOCAB_ONLY = {"cl100k_base": 100277, "o200k_base": 200019}


# -- the analysis stored in results ------------------------------------------------------------


@dataclass(frozen=True)
class VocabLawSettings:
    """What the user asked for; recorded in the results like every other setting."""

    model_params: float
    d_model: int | None = None
    flops: float | None = None
    tied: bool = False

    def resolved(self) -> dict[str, Any]:
        d = self.d_model if self.d_model is not None else d_from_nnv(self.model_params)
        return {"model_params": self.model_params, "d_model": d,
                "d_model_source": "given" if self.d_model is not None
                else "from N_nv by the paper's table (utils.py Nnv_to_d)",
                "flops": self.flops if self.flops is not None
                else optimal_flops(self.model_params),
                "flops_source": "given" if self.flops is not None
                else "compute-optimal for N_nv (approach 1)",
                "tied": self.tied}

    def check(self) -> None:
        check_model_params(self.model_params)
        if self.flops is not None:
            check_flops(self.flops)
        if self.d_model is not None:
            check_d_model(self.d_model)


CURVE_NNV = tuple(float(x) for x in np.logspace(7, 12, 31))


def group_analysis(f: TokensPerChar, n_nv: float, d: float) -> dict[str, Any]:
    """One f(V) (a language or all text): its fit, approach 2 with it, and the curves."""
    gamma = fit_gamma(f)
    opt = derivative_optimum(f, n_nv, d)
    out: dict[str, Any] = {"fit": f.to_dict(), "derivative": opt,
                           "gamma": gamma["gamma"], "gamma_points": gamma["used"],
                           "gamma_reason": gamma.get("reason"),
                           "approach2": approach2(n_nv, d, gamma["gamma"])
                           if gamma["gamma"] is not None else None}
    lo, hi = f.valid_range
    vs = np.exp(np.linspace(math.log(lo), math.log(hi), 25))
    out["f_curve"] = {"v": [float(v) for v in vs], "f": [f.f(float(v)) for v in vs]}
    curve_a2, curve_der = [], []
    for n in CURVE_NNV:
        dn = d_from_nnv(n)
        curve_a2.append(approach2(n, dn, gamma["gamma"]) if gamma["gamma"] is not None
                        else None)
        o = derivative_optimum(f, n, dn)
        curve_der.append(o["v"] if o["status"] == "ok" else None)
    out["curve"] = {"approach2": curve_a2, "derivative": curve_der}
    return out


def analyze(settings: VocabLawSettings, tokens_per_char: Mapping[str, Mapping[int, float]],
            overall: str = "all") -> dict[str, Any]:
    """The compute-optimal section of a sweep: the paper's predictions for the model and
    approach 2 redone with f(V) of every group (``overall`` first, then languages)."""
    settings.check()
    s = settings.resolved()
    n, d = s["model_params"], s["d_model"]
    groups: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, values in tokens_per_char.items():
        try:
            f = fit_tokens_per_char(list(values), list(values.values()), what=name)
        except InputError as e:
            if name == overall:
                raise
            skipped[name] = str(e)
            continue
        groups[name] = group_analysis(f, n, d)
    curve = {"n_nv": list(CURVE_NNV)}
    for key, fn in (("approach1", approach1), ("approach2", None), ("approach3", approach3)):
        curve[key] = [approach2(x, d_from_nnv(x)) if fn is None else fn(x, d_from_nnv(x))
                      for x in CURVE_NNV]
    return {
        "source": SOURCE, "settings": s, "assumptions": dict(ASSUMPTIONS),
        "paper": paper_predictions(n, d, settings.flops),
        "paper_f": {"a": PAPER_F[0], "b": PAPER_F[1], "c": PAPER_F[2], "cap": PAPER_F_CAP},
        "extrapolation_factor": EXTRAPOLATION,
        "overall": overall, "groups": groups, "skipped": skipped,
        "curve": curve,
        "published": [{"name": m.name, "tokenizer": m.tokenizer, "n_nv": m.n_nv,
                       "vocab": m.vocab, "d": m.d, "note": m.note} for m in PUBLISHED],
        "vocab_only": dict(VOCAB_ONLY),
    }


def placement(settings: VocabLawSettings, tokenizers: Mapping[str, tuple[int, float]]
              ) -> list[dict[str, Any]]:
    """Existing tokenizers at one model size: ``{name: (V, tokens per char)}`` -> per
    tokenizer its training FLOPs per character, 6 (N_nv + V d) f, against the best of them,
    and its V against the paper's three optimal sizes."""
    settings.check()
    s = settings.resolved()
    n, d = s["model_params"], s["d_model"]
    paper = paper_predictions(n, d, settings.flops)
    rows = []
    for name, (v, tpc) in tokenizers.items():
        if v < 2 or not tpc or tpc <= 0:
            continue
        rows.append({"tokenizer": name, "vocab": v, "tokens_per_char": tpc,
                     "vocab_params": v * d,
                     "flops_per_char": 6.0 * (n + v * d) * tpc,
                     **{f"v_over_{k}": v / p for k, p in paper.items()}})
    best = min((r["flops_per_char"] for r in rows), default=0.0)
    for r in rows:
        r["flops_vs_best_pct"] = (r["flops_per_char"] / best - 1.0) * 100.0 if best else None
    return sorted(rows, key=lambda r: r["flops_per_char"])


# -- existing tokenizers (tokbench recommend) ------------------------------------------------


def pooled_tokens_per_char(rows: Iterable[Any], overall: str = "all"
                           ) -> dict[str, dict[str, float]]:
    """``{tokenizer: {group: tokens per character}}`` from result rows (``tokens`` and
    ``chars_per_token`` of each tokenizer, suite and subset), pooled over suites as a ratio
    of sums: characters = tokens x chars_per_token of each row. Groups are ``overall``
    (the rows' "all" subsets) and every other subset (language)."""
    tokens: dict[tuple[str, str, str], float] = {}
    cpt: dict[tuple[str, str, str], float] = {}
    for r in rows:
        if not isinstance(r.value, (int, float)) or isinstance(r.value, bool):
            continue
        if r.metric == "tokens":
            tokens[(r.tokenizer, r.suite, r.subset)] = float(r.value)
        elif r.metric == "chars_per_token":
            cpt[(r.tokenizer, r.suite, r.subset)] = float(r.value)
    sums: dict[str, dict[str, list[float]]] = {}
    for key, t in tokens.items():
        if key in cpt and t > 0:
            group = overall if key[2] == "all" else key[2]
            acc = sums.setdefault(key[0], {}).setdefault(group, [0.0, 0.0])
            acc[0] += t
            acc[1] += t * cpt[key]
    return {tok: {g: sums[tok][g][0] / sums[tok][g][1]
                  for g in sorted(sums[tok], key=lambda g: (g != overall, g))
                  if sums[tok][g][1] > 0} for tok in sums}


def flops_curve(f: TokensPerChar, n_nv: float, d: float, points: int = 25
                ) -> dict[str, list[float]]:
    """Training FLOPs per character 6 (N_nv + V d) f(V) over the fit's valid range."""
    lo, hi = f.valid_range
    vs = np.exp(np.linspace(math.log(lo), math.log(hi), points))
    return {"v": [float(v) for v in vs],
            "flops_per_char": [6.0 * (n_nv + float(v) * d) * f.f(float(v)) for v in vs]}


def recommend_section(settings: VocabLawSettings, vocab: Mapping[str, int],
                      measured: Mapping[str, Mapping[str, float]],
                      sweep_tpc: Mapping[str, Mapping[int, float]] | None = None,
                      overall: str = "all") -> dict[str, Any]:
    """Existing tokenizers placed at one model size (``tokbench recommend``).

    ``vocab``: each tokenizer's V; ``measured``: its tokens per character by group
    (``pooled_tokens_per_char``); ``sweep_tpc``: optionally a sweep's f(V) by size (its
    overall group only), which adds approach 2 with that corpus's f(V) and the FLOPs curve.
    """
    sweep_groups = {overall: sweep_tpc[overall]} if sweep_tpc and overall in sweep_tpc else {}
    section = analyze(settings, sweep_groups, overall)
    both = [t for t in measured if t in vocab]
    section["tokenizers"] = placement(
        settings, {t: (vocab[t], measured[t][overall]) for t in both if overall in measured[t]})
    languages: dict[str, list[dict[str, Any]]] = {}
    groups = sorted({g for t in both for g in measured[t] if g != overall})
    for g in groups:
        rows = placement(settings, {t: (vocab[t], measured[t][g]) for t in both
                                    if g in measured[t]})
        languages[g] = [{"tokenizer": r["tokenizer"], "tokens_per_char": r["tokens_per_char"],
                         "flops_per_char": r["flops_per_char"],
                         "flops_vs_best_pct": r["flops_vs_best_pct"]} for r in rows]
    section["languages"] = languages
    if sweep_groups:
        g = section["groups"][overall]
        f = TokensPerChar.from_dict(g["fit"])
        s = section["settings"]
        section["flops_curve"] = flops_curve(f, s["model_params"], s["d_model"])
    return section


def mark_caveats(section: dict[str, Any], trust: Any, suites: Iterable[str]) -> None:
    """Note on each placed tokenizer (and each per-language entry) whether its tokens per
    character can be trusted (``tokbench.metrics.trust``): ``caveat`` (the reason) and
    ``caveat_symbols`` on those that are not lossless or map much text to unknown tokens
    on any of ``suites``. Such a tokenizer is never called the best."""
    from tokbench.metrics.trust import combine

    suites = list(suites)

    def caveat(tokenizer: str, subset: str) -> Any:
        found = [(s, c) for s in suites
                 if (c := trust.caveat(tokenizer, s, subset, "chars_per_token")) is not None]
        return combine(found) if found else None

    def mark(rows: list[dict[str, Any]], subset: str) -> None:
        for r in rows:
            c = caveat(r["tokenizer"], subset)
            if c is not None:
                r["caveat"], r["caveat_symbols"] = c.reason, c.symbols
        clean = [r["flops_per_char"] for r in rows
                 if "caveat" not in r and "flops_per_char" in r]
        if clean:  # "vs best" is against the best tokenizer that may be called best
            for r in rows:
                if "flops_per_char" in r:
                    r["flops_vs_best_pct"] = (r["flops_per_char"] / min(clean) - 1.0) * 100.0

    mark(section.get("tokenizers", []), "all")
    for lang, ranked in section.get("languages", {}).items():
        mark(ranked, lang)
