"""Training, evaluation past the training length, and the results every run reports.

`train(config)` returns one results document (see `rope_viz.toy.results`) holding a single run;
the grid of the CLI merges many runs into one document of the same schema, so a live run can be
shown beside the shipped ones.
"""

from __future__ import annotations

import math
import platform
import shlex
import time
from dataclasses import asdict, dataclass, fields

import torch
import torch.nn.functional as F

from .._checks import check_choice, check_int, check_positive, check_real
from .model import POSITION_SCHEMES, ModelConfig, ToyTransformer
from .tasks import IGNORE, TASK_NAMES, make_batch, task_spec

EVAL_FACTORS = (1.0, 1.5, 2.0, 4.0, 8.0)
SCALINGS = ("none", "pi", "ntk", "yarn")
EVAL_SEED_OFFSET = 1_000_003  # evaluation sequences never share a generator with training ones
MAX_EVAL_TOKENS = 8192        # tokens per evaluation forward pass (keeps attention maps small)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a run. The defaults are the short live run (600 steps).

    task, encoding: see TASK_NAMES and POSITION_SCHEMES. n_layers: 4 for the schemes with a NoPE
    layer; their window (local-rope+global-nope) and floor scale (nope-every-4th+temperature) are
    train_len // 4 (see model_config). layout, base: RoPE's pair layout and base (base also
    sets the sinusoidal frequencies). train_len: tokens per training sequence. eval_factors:
    evaluation lengths as multiples of train_len. scalings: inference-time RoPE scalings to
    evaluate besides "none" (ignored for other encodings). eval_sequences: fresh sequences per
    evaluation length. log_every: steps between recorded training losses.
    """

    task: str = "recall"
    encoding: str = "rope"
    steps: int = 600
    seed: int = 0
    batch_size: int = 32
    train_len: int = 32
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup: int = 50
    n_layers: int = 2
    d_model: int = 64
    n_heads: int = 4
    layout: str = "interleaved"
    base: float = 10000.0
    eval_factors: tuple = EVAL_FACTORS
    eval_sequences: int = 128
    scalings: tuple = ("pi", "ntk", "yarn")
    log_every: int = 10

    def __post_init__(self):
        check_choice(self.task, "task", TASK_NAMES)
        check_choice(self.encoding, "encoding", POSITION_SCHEMES)
        check_int(self.steps, "steps", minimum=1)
        check_int(self.seed, "seed")
        check_int(self.batch_size, "batch_size", minimum=1)
        check_int(self.train_len, "train_len", minimum=task_spec(self.task).min_length())
        check_positive(self.lr, "lr")
        check_real(self.weight_decay, "weight_decay", at_least=0)
        check_int(self.warmup, "warmup")
        check_int(self.eval_sequences, "eval_sequences", minimum=1)
        check_int(self.log_every, "log_every", minimum=1)
        factors = tuple(self.eval_factors)
        if not factors or any(isinstance(f, bool) or not isinstance(f, (int, float)) or not f >= 1
                              for f in factors):
            raise ValueError(f"eval_factors must be a non-empty list of numbers >= 1, got {self.eval_factors!r}")
        object.__setattr__(self, "eval_factors", tuple(float(f) for f in factors))
        scalings = tuple(self.scalings)
        for s in scalings:
            check_choice(s, "scalings entry", SCALINGS)
        object.__setattr__(self, "scalings", scalings)
        self.model_config()  # validates the architecture

    def model_config(self) -> ModelConfig:
        """The architecture this run trains. The sliding window of local-rope+global-nope and the
        temperature's floor scale are a quarter of the training length (at least 1)."""
        quarter = max(1, self.train_len // 4)
        return ModelConfig(vocab_size=task_spec(self.task).vocab_size, encoding=self.encoding,
                           n_layers=self.n_layers, d_model=self.d_model, n_heads=self.n_heads,
                           layout=self.layout, base=self.base,
                           window=quarter if self.encoding == "local-rope+global-nope" else 0,
                           floor_scale=quarter if self.encoding == "nope-every-4th+temperature" else 0)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["eval_factors"], d["scalings"] = list(self.eval_factors), list(self.scalings)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TrainConfig:
        """Inverse of to_dict; unknown keys raise ValueError."""
        if not isinstance(d, dict):
            raise ValueError(f"config must be a dict, got {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"config has unknown keys {unknown}; allowed: {sorted(known)}")
        d = dict(d)
        for key in ("eval_factors", "scalings"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)

    def eval_lengths(self) -> list[int]:
        """Evaluation sequence lengths, round(factor * train_len) for each factor."""
        return [int(round(f * self.train_len)) for f in self.eval_factors]

    def cli_command(self) -> str:
        """The `python -m rope_viz.toy train ...` command line that reproduces this run."""
        default = TrainConfig()
        args = ["python", "-m", "rope_viz.toy", "train"]
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("task", "encoding", "steps", "seed") or value != getattr(default, f.name):
                flag = "--" + f.name.replace("_", "-")
                args.append(flag)
                args.extend(str(v) for v in value) if isinstance(value, tuple) else args.append(str(value))
        return shlex.join(args)


def _lr_at(step: int, config: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def masked_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the positions whose target is not IGNORE."""
    return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), ignore_index=IGNORE)


def rope_frequencies(config: ModelConfig, scaling: str, factor: float, train_len: int):
    """(inv_freq, attention_factor) of an inference-time RoPE scaling stretching a context of
    `train_len` positions by `factor`: "pi" (position interpolation, Hugging Face's "linear"),
    "ntk" (static NTK-aware base), "yarn". None for "none" or factor <= 1 (the trained speeds).
    The formulas are rope_viz.scaling's."""
    check_choice(scaling, "scaling", SCALINGS)
    if scaling == "none" or factor <= 1.0:
        return None
    from ..scaling import scaled_inv_freq
    rope_type = {"pi": "linear", "ntk": "ntk", "yarn": "yarn"}[scaling]
    params = {"rope_type": rope_type, "factor": float(factor)}
    inv_freq, attention_factor = scaled_inv_freq(config.d_head, config.base, params,
                                                 max_position_embeddings=int(train_len))
    return inv_freq.float(), float(attention_factor)


@torch.no_grad()
def evaluate(model: ToyTransformer, task: str, length: int, *, sequences: int = 128, seed: int = 0,
             rope_freqs: tuple[torch.Tensor, float] | None = None) -> dict:
    """Accuracy and loss on `sequences` fresh sequences of `length` tokens (scored positions only).

    Returns {"accuracy", "loss", "scored"} (scored = number of answers counted)."""
    correct, total, loss_sum = 0, 0, 0.0
    for _tokens, targets, logits in eval_batches(model, task, length, sequences=sequences, seed=seed,
                                                 rope_freqs=rope_freqs):
        scored = targets != IGNORE
        loss_sum += float(F.cross_entropy(logits[scored], targets[scored], reduction="sum"))
        correct += int((logits[scored].argmax(-1) == targets[scored]).sum())
        total += int(scored.sum())
    return {"accuracy": correct / total, "loss": loss_sum / total, "scored": total}


@torch.no_grad()
def eval_batches(model: ToyTransformer, task: str, length: int, *, sequences: int = 128, seed: int = 0,
                 rope_freqs=None):
    """The evaluation sequences of `evaluate` (fresh ones, never the training ones; the same for
    every model given the seed and length), in chunks: yields (tokens, targets, logits) on the
    model's device, the model in eval mode meanwhile."""
    length = check_int(length, "length", minimum=task_spec(task).min_length())
    sequences = check_int(sequences, "sequences", minimum=1)
    was_training = model.training
    model.eval()
    gen = torch.Generator().manual_seed(check_int(seed, "seed") + EVAL_SEED_OFFSET + length)
    device = next(model.parameters()).device
    chunk = max(1, MAX_EVAL_TOKENS // length)
    try:
        for start in range(0, sequences, chunk):
            tokens, targets = make_batch(task, min(chunk, sequences - start), length, generator=gen)
            tokens, targets = tokens.to(device), targets.to(device)
            yield tokens, targets, model(tokens, rope_freqs=rope_freqs)
    finally:
        model.train(was_training)


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    threads = torch.get_num_threads()
    return f"cpu ({platform.processor() or platform.machine()}, {threads} thread{'' if threads == 1 else 's'})"


def train_run(config: TrainConfig, *, progress=None, should_stop=None, device=None):
    """Train one model and evaluate it. Returns (model, run), run being one entry of a results
    document's "runs" list (see rope_viz.toy.results.RUN_KEYS).

    progress(step, steps, loss): called after every logged step (and the last one).
    should_stop(): polled every step; when it returns True training stops early, the model is
        still evaluated and the run records "stopped_at".
    """
    if not isinstance(config, TrainConfig):
        raise ValueError(f"config must be a TrainConfig, got {type(config).__name__}")
    device = torch.device(device or "cpu")
    started = time.perf_counter()
    torch.manual_seed(config.seed)
    model = ToyTransformer(config.model_config()).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay,
                            betas=(0.9, 0.98))
    gen = torch.Generator().manual_seed(config.seed)
    losses, stopped_at = [], None
    model.train()
    for step in range(config.steps):
        if should_stop is not None and should_stop():
            stopped_at = step
            break
        for group in opt.param_groups:
            group["lr"] = _lr_at(step, config)
        tokens, targets = make_batch(config.task, config.batch_size, config.train_len, generator=gen)
        loss = masked_loss(model(tokens.to(device)), targets.to(device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % config.log_every == 0 or step == config.steps - 1:
            value = float(loss.detach())
            losses.append([step, value])
            if progress is not None:
                progress(step + 1, config.steps, value)
    train_s = time.perf_counter() - started
    scalings = ("none",) + tuple(s for s in config.scalings if s != "none") if config.encoding == "rope" \
        else ("none",)
    evals = []
    for factor, length in zip(config.eval_factors, config.eval_lengths()):
        for scaling in scalings:
            freqs = rope_frequencies(model.config, scaling, length / config.train_len, config.train_len)
            if freqs is not None:
                freqs = (freqs[0].to(device), freqs[1])
            result = evaluate(model, config.task, length, sequences=config.eval_sequences,
                              seed=config.seed, rope_freqs=freqs)
            evals.append({"scaling": scaling, "factor": factor, "length": length, **result})
    run = {
        "config": config.to_dict(),
        "command": config.cli_command(),
        "train_loss": losses,
        "stopped_at": stopped_at,
        "eval": evals,
        "train_seconds": round(train_s, 3),
        "wall_seconds": round(time.perf_counter() - started, 3),
        "device": _device_name(device),
        "weights": None,
    }
    return model, run
