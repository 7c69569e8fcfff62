"""The 2026 families of rope_viz.models layer by layer against transformers 5.24: each family's own config
class, rotary embedding and apply function (class defaults, seeded variations, the published config
verbatim), layer facts read from transformers' own attention modules built on a tiny copy of the config.
Per layer: attention, window, compress, rotary, inv_freq and attention factor, rotate and rotate_output at
positions past the original context, query_scale. Largest differences are printed at the end."""

from __future__ import annotations

import copy
import importlib
import inspect
import random

import pytest
import torch
from transformers import AutoConfig, masking_utils
from transformers.models.deepseek_v4 import configuration_deepseek_v4 as v4_config
from transformers.models.deepseek_v4 import modeling_deepseek_v4 as v4
from transformers.models.kimi_linear import configuration_kimi_linear as kimi_config
from transformers.models.kimi_linear import modeling_kimi_linear as kimi
from transformers.models.laguna import configuration_laguna as laguna_config
from transformers.models.laguna import modeling_laguna as laguna
from transformers.models.lfm3 import configuration_lfm3 as lfm3_config
from transformers.models.lfm3 import modeling_lfm3 as lfm3
from transformers.models.mimo_v2_flash import configuration_mimo_v2_flash as mimo_config
from transformers.models.mimo_v2_flash import modeling_mimo_v2_flash as mimo
from transformers.models.nemotron_h import configuration_nemotron_h as nemotron_config
from transformers.models.nemotron_h import modeling_nemotron_h as nemotron
from transformers.models.step3p7 import configuration_step3p7 as step_config
from transformers.models.step3p7 import modeling_step3p7 as step
from transformers.models.zaya import configuration_zaya as zaya_config
from transformers.models.zaya import modeling_zaya as zaya
from transformers.utils import logging as hf_logging

from rope_viz import model_rope, preset_info

hf_logging.set_verbosity_error()

MEASURED: dict[str, float] = {}
INV_FREQ_RTOL = 3e-6  # transformers computes inv_freq in float32


def _record(key: str, value: float) -> None:
    MEASURED[key] = max(MEASURED.get(key, 0.0), value)


# ----------------------------------------------------------------------------- DeepSeek-V4 in transformers

TINY_V4 = dict(hidden_size=64, num_attention_heads=2, q_lora_rank=16, o_groups=1, o_lora_rank=8, index_n_heads=2,
               index_head_dim=16, moe_intermediate_size=8, n_routed_experts=2, vocab_size=16)


class DeepseekV4:
    """transformers' DeepSeek-V4: config class, rotary embedding, apply function and attention module."""

    def __init__(self, config: dict):
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = v4_config.DeepseekV4Config(**kwargs)
        self.rotary = v4.DeepseekV4RotaryEmbedding(self.hf)
        # the layer facts come from transformers' attention modules, built on a tiny config of the same layer types
        tiny = v4_config.DeepseekV4Config(**dict(TINY_V4, num_hidden_layers=self.hf.num_hidden_layers,
                                                 layer_types=self.hf.layer_types, head_dim=32,
                                                 sliding_window=self.hf.sliding_window,
                                                 compress_rates=self.hf.compress_rates))
        self.attention = {}
        for kind in set(self.hf.layer_types):
            index = self.hf.layer_types.index(kind)
            self.attention[kind] = v4.DeepseekV4Attention(tiny, index)

    def facts(self, index: int) -> dict:
        kind = self.hf.layer_types[index]
        attention = self.attention[kind]
        compressor = attention.compressor
        return {"attention": kind, "window": attention.sliding_window, "rotary": True,
                "compress": None if compressor is None else compressor.compress_rate}

    def label(self, layer) -> str:
        return self.attention[layer.attention].rope_layer_type

    def inv_freq(self, layer) -> tuple[torch.Tensor, float]:
        label = self.label(layer)
        factor = float(getattr(self.rotary, f"{label}_attention_scaling"))
        return getattr(self.rotary, f"{label}_inv_freq").double(), factor

    def rotate(self, layer, q: torch.Tensor, ids: torch.Tensor, sign: float = 1.0) -> torch.Tensor:
        cos, sin = self.rotary(q, ids[None], layer_type=self.label(layer))
        return v4.apply_rotary_pos_emb(q, cos, sign * sin)

    def rotate_output(self, layer, out: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """DeepseekV4Attention.forward's last step: the output (batch, heads, seq, dim) turned at cos, -sin."""
        return self.rotate(layer, out, ids, sign=-1.0)

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        return torch.ones(len(positions), dtype=torch.float64)  # its queries are only scaled by head_dim ** -0.5


class NemotronH:
    """transformers' Nemotron-H: its config class lists the blocks; its attention takes no positions."""

    def __init__(self, config: dict):
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = nemotron_config.NemotronHConfig(**kwargs)
        self.attention_takes_positions = any(
            name in inspect.signature(nemotron.NemotronHAttention.forward).parameters
            for name in ("position_embeddings", "position_ids"))

    def facts(self, index: int) -> dict:
        kind = self.hf.layers_block_type[index]
        return {"attention": kind, "window": None, "compress": None,
                "rotary": kind == "full_attention" and self.attention_takes_positions}

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        return torch.ones(len(positions), dtype=torch.float64)


class MiMoV2Flash:
    """transformers' MiMo-V2-Flash: config class, rotary embedding per layer type, apply function and the
    attention module's window (built on a tiny copy of the config)."""

    apply = staticmethod(mimo.apply_rotary_pos_emb)
    classes = (mimo_config.MiMoV2FlashConfig, mimo.MiMoV2FlashRotaryEmbedding, mimo.MiMoV2FlashAttention)
    tiny = dict(v_head_dim=16, n_routed_experts=2, moe_intermediate_size=8)

    def __init__(self, config: dict):
        config_cls, rotary_cls, attention_cls = self.classes
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = config_cls(**kwargs)
        self.rotary = rotary_cls(self.hf)
        self.tiny_config = tiny = config_cls(hidden_size=64, num_attention_heads=2, num_key_value_heads=1, head_dim=32,
                                             vocab_size=16, num_hidden_layers=self.hf.num_hidden_layers,
                                             layer_types=self.hf.layer_types, sliding_window=self.hf.sliding_window,
                                             **self.tiny)
        self.attention = {kind: attention_cls(tiny, self.hf.layer_types.index(kind))
                          for kind in set(self.hf.layer_types)}

    def facts(self, index: int) -> dict:
        kind = self.hf.layer_types[index]
        return {"attention": kind, "window": self.attention[kind].sliding_window, "rotary": True, "compress": None}

    def inv_freq(self, layer) -> tuple[torch.Tensor, float]:
        factor = float(getattr(self.rotary, f"{layer.attention}_attention_scaling"))
        return getattr(self.rotary, f"{layer.attention}_inv_freq").double(), factor

    def rotate(self, layer, q: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        cos, sin = self.rotary(q, ids[None], layer_type=layer.attention)
        return self.apply(q, q, cos, sin)[0]

    def rotate_output(self, layer, out: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return out  # its attention hands the output on unturned

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        return torch.ones(len(positions), dtype=torch.float64)


# model_type -> the folder whose modeling code transformers runs for it (5.24's config-only families run
# Llama's, DeepSeek-V3's or GLM-4-MoE's; Apertus 1.5's text model sits in its wrapper's folder)
RUNS_IN = {"exaone": "llama", "sarvam_mla": "deepseek_v3", "sarvam_moe": "glm4_moe", "apertus1p5_text": "apertus1p5",
           "hy_v4_vl_text": "hy_v4_vl"}


class Dory(MiMoV2Flash):
    """transformers' Dory: config class (its files' attention and MLP entries taken in pairs), rotary embedding
    per layer type, apply function; window and the query's per-channel scale from its attention modules,
    built on a tiny copy of the config."""

    def __init__(self, config: dict):
        from transformers.models.dory import configuration_dory, modeling_dory

        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = configuration_dory.DoryConfig(**kwargs)
        self.rotary = modeling_dory.DoryRotaryEmbedding(self.hf)
        self.apply = modeling_dory.apply_rotary_pos_emb
        tiny = configuration_dory.DoryConfig(hidden_size=64, num_attention_heads=1, num_key_value_heads=1,
                                             head_dim=self.hf.head_dim, num_hidden_layers=self.hf.num_hidden_layers,
                                             n_input_layers=0, n_output_layers=0, layer_types=self.hf.layer_types,
                                             sliding_window=self.hf.sliding_window, vocab_size=16,
                                             intermediate_size=8, initializer_range=self.hf.initializer_range)
        self.attention = {kind: modeling_dory.DoryAttention(tiny, self.hf.layer_types.index(kind))
                          for kind in set(self.hf.layer_types)}

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        """DoryAttention.forward's (sqk * sqk_scale)^2 after the rotation, as built (its initial value)."""
        attention = self.attention[self.hf.layer_types[index]]
        channels = (attention.sqk * attention.sqk_scale).square().double()
        assert torch.equal(channels, channels[:1].expand_as(channels))  # the same on every channel at init
        return channels[0].expand(len(positions))


class Zaya(MiMoV2Flash):
    """transformers' Zaya: config class, rotary embedding per layer type ("hybrid" / "hybrid_sliding"), apply
    function and the attention module's window, built on a tiny copy of the config."""

    apply = staticmethod(zaya.apply_rotary_pos_emb)
    classes = (zaya_config.ZayaConfig, zaya.ZayaRotaryEmbedding, zaya.ZayaAttention)
    tiny = dict(num_experts=2)


class Lfm3(MiMoV2Flash):
    """transformers' LFM3: config class, rotary embedding per layer type, apply function, the attention module's
    window, and its decoder layer's own test of whether a layer attends (its "conv" blocks do not)."""

    apply = staticmethod(lfm3.apply_rotary_pos_emb)
    classes = (lfm3_config.Lfm3Config, lfm3.Lfm3RotaryEmbedding, lfm3.Lfm3Attention)
    tiny = {}

    def facts(self, index: int) -> dict:
        kind = self.hf.layer_types[index]
        attends = lfm3.Lfm3DecoderLayer(self.tiny_config, index).is_attention_layer
        return {"attention": kind, "window": self.attention[kind].sliding_window, "rotary": attends, "compress": None}


class Laguna(MiMoV2Flash):
    """transformers' Laguna: config class, rotary embedding per layer type, apply function (the first cos-width
    dims turn), and every layer's attention module with its own number of query heads
    (num_attention_heads_per_layer), built on a copy with a tiny hidden size: window and head size per layer."""

    apply = staticmethod(laguna.apply_rotary_pos_emb)

    def __init__(self, config: dict):
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = laguna_config.LagunaConfig(**kwargs)
        self.rotary = laguna.LagunaRotaryEmbedding(self.hf)
        tiny = copy.deepcopy(self.hf)
        tiny.hidden_size = 16
        self.layers = [laguna.LagunaAttention(tiny, index, heads)
                       for index, heads in enumerate(self.hf.num_attention_heads_per_layer)]

    def facts(self, index: int) -> dict:
        return {"attention": self.hf.layer_types[index], "window": self.layers[index].sliding_window, "rotary": True,
                "compress": None}

    def head_dim(self, index: int) -> int:
        return self.layers[index].head_dim


class Inkling:
    """transformers' Inkling text models: config class, the window of their attention modules (built on a tiny copy
    of the config; Inkling 2 builds its full-attention class for every layer not "hybrid_sliding"), no rotary
    embedding in the text attention (it takes no position_embeddings), and the log query scale: Inkling 2's own
    LogScale module, Inkling 1's formula as its attention writes it (float64 here)."""

    def __init__(self, config: dict):
        family = config["model_type"]
        folder = family.removesuffix("_text")
        self.module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = AutoConfig.for_model(family, **kwargs)
        tiny = AutoConfig.for_model(family, hidden_size=64, num_attention_heads=2, num_key_value_heads=1,
                                    head_dim=self.hf.head_dim, swa_head_dim=self.hf.swa_head_dim,
                                    swa_num_attention_heads=2, swa_num_key_value_heads=1,
                                    vocab_size=16, num_hidden_layers=self.hf.num_hidden_layers,
                                    layer_types=self.hf.layer_types, sliding_window_size=self.hf.sliding_window_size)
        classes = [obj for name, obj in vars(self.module).items() if name.endswith("Attention")
                   and inspect.isclass(obj) and "layer_idx" in inspect.signature(obj).parameters]
        sliding = next((cls for cls in classes if "Sliding" in cls.__name__), classes[0])
        full = next((cls for cls in classes if "Full" in cls.__name__), classes[0])
        self.attention = [(sliding if kind == "hybrid_sliding" else full)(tiny, index)
                          for index, kind in enumerate(self.hf.layer_types)]
        self.takes_positions = any("position_embeddings" in inspect.signature(cls.forward).parameters
                                   for cls in classes)

    def facts(self, index: int) -> dict:
        return {"attention": self.hf.layer_types[index], "window": self.attention[index].sliding_window,
                "rotary": self.takes_positions, "compress": None}

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        hf, attention = self.hf, self.attention[index]
        if hf.model_type == "inkling_text":  # InklingAttention.forward: full layers, with log_scaling_n_floor set
            if attention.is_sliding or hf.log_scaling_n_floor is None:
                return torch.ones(len(positions), dtype=torch.float64)
            return 1.0 + hf.log_scaling_alpha * torch.log(
                ((positions + 1).double() / hf.log_scaling_n_floor).clamp(min=1.0))
        if attention.is_sliding:  # built with log_scaling=False
            return torch.ones(len(positions), dtype=torch.float64)
        log_scale = next(obj for name, obj in vars(self.module).items() if name.endswith("LogScale"))(hf)
        return log_scale(torch.ones(1, len(positions), 1, 1), positions[None])[0, :, 0, 0].double()


class SingleRotary:
    """A family with one rotary embedding for every layer: its config class, rotary class and apply function;
    every layer attends fully unless the config class lists layer types."""

    def __init__(self, config: dict):
        folder = RUNS_IN.get(config["model_type"], config["model_type"].removesuffix("_text"))  # a text config's own
        module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = AutoConfig.for_model(config["model_type"], **kwargs)
        self.module = module
        self.cls = next(obj for name, obj in vars(module).items() if name.endswith("RotaryEmbedding")
                        and "Vision" not in name and "Audio" not in name)
        self.rotary = self.cls(self.hf)

    def facts(self, index: int) -> dict:
        kinds = getattr(self.hf, "layer_types", None)
        return {"attention": kinds[index] if kinds else "full_attention", "window": None, "rotary": True,
                "compress": None}

    def inv_freq(self, layer) -> tuple[torch.Tensor, float]:
        return self.rotary.inv_freq.double(), float(self.rotary.attention_scaling)

    def rotate(self, layer, q: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        cos, sin = self.rotary(q, ids[None])
        start = layer.rotated_from  # MLA: the last dims
        if hasattr(self.module, "apply_rotary_pos_emb_interleave") and getattr(self.hf, "rope_interleave", True):
            turned, _ = self.module.apply_rotary_pos_emb_interleave(q[..., start:], q[..., start:], cos, sin)
            half = turned.shape[-1] // 2  # returned [evens | odds]
            back = torch.empty_like(turned)
            back[..., 0::2], back[..., 1::2] = turned[..., :half], turned[..., half:]
            return torch.cat((q[..., :start], back), dim=-1)
        turned = self.module.apply_rotary_pos_emb(q[..., start:], q[..., start:], cos, sin)[0]
        return torch.cat((q[..., :start], turned), dim=-1)

    def rotate_output(self, layer, out: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return out

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        return torch.ones(len(positions), dtype=torch.float64)


class Step3p5(MiMoV2Flash):
    """transformers' Step-3.5 text model (in its step3p7 folder): text config class, rotary embedding per
    layer type, apply function and the attention module's window (built on a tiny copy of the config)."""

    apply = staticmethod(step.apply_rotary_pos_emb)
    classes = (step_config.Step3p7TextConfig, step.Step3p7RotaryEmbedding, step.Step3p7Attention)
    tiny = dict(moe_intermediate_size=8, n_routed_experts=2, intermediate_size=8, share_expert_dim=8)


class KimiLinear:
    """transformers' Kimi Linear: its config class lists the layers; its modeling file has no rotary
    embedding at all (the shared key part of its latent attention stays unrotated). Each layer's head size is
    its own attention module's (latent: qk_head_dim; KDA: head_dim), built on a copy with a tiny hidden size."""

    def __init__(self, config: dict):
        kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
        self.hf = kimi_config.KimiLinearConfig(**kwargs)
        self.rotary_anywhere = any(name.endswith("RotaryEmbedding") for name in vars(kimi))
        tiny = copy.deepcopy(self.hf)
        tiny.hidden_size, tiny.num_attention_heads, tiny.linear_num_heads, tiny.kv_lora_rank = 16, 1, 1, 8
        heads = {kind: cls(tiny, self.hf.layer_types.index(kind)) for kind, cls in (
            ("full_attention", kimi.KimiLinearAttention), ("linear_attention", kimi.KimiLinearDeltaAttention))
            if kind in self.hf.layer_types}
        self.head_dims = {kind: getattr(module, "qk_head_dim", None) or module.head_dim
                          for kind, module in heads.items()}

    def head_dim(self, index: int) -> int:
        return self.head_dims[self.hf.layer_types[index]]

    def facts(self, index: int) -> dict:
        return {"attention": self.hf.layer_types[index], "window": None, "compress": None,
                "rotary": self.rotary_anywhere}

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        return torch.ones(len(positions), dtype=torch.float64)


class GlobalNoPE(SingleRotary):
    """EXAONE MoE, Kolibri-1, Flint: one rotary embedding; whether a layer rotates and its window are read from
    transformers' own attention modules, built on a tiny copy of the config. The layer type decides the rotation,
    so it stays as layer_types gives it, window and all, even where the window covers the context."""

    def __init__(self, config: dict):
        super().__init__(config)
        tiny = AutoConfig.for_model(config["model_type"], hidden_size=64, num_attention_heads=2, num_key_value_heads=1,
                                    head_dim=32, num_hidden_layers=self.hf.num_hidden_layers,
                                    layer_types=self.hf.layer_types, sliding_window=self.hf.sliding_window,
                                    vocab_size=16, intermediate_size=8)
        cls = next(obj for name, obj in vars(self.module).items() if name.endswith("Attention")
                   and inspect.isclass(obj) and "layer_idx" in inspect.signature(obj).parameters)
        self.attention = {kind: cls(tiny, self.hf.layer_types.index(kind)) for kind in set(self.hf.layer_types)}

    def facts(self, index: int) -> dict:
        kind = self.hf.layer_types[index]
        attention = self.attention[kind]
        if self.hf.model_type == "flint":  # rotates where its attention has a window
            rotary = attention.sliding_window is not None
        elif self.hf.model_type == "lara_mini":  # its model hands positions to sliding layers only
            rotary = attention.layer_type == "sliding_attention"
        else:  # rotates unless a window is set and the layer attends fully
            rotary = attention.sliding_window is None or attention.is_sliding
        window = attention.sliding_window if kind == "sliding_attention" else None
        return dict(attention=kind, window=window, rotary=rotary, compress=None)


def window_facts(hf, kind: str) -> dict:
    """The layer's attention and window: sliding_window on sliding layers, full attention where transformers'
    sliding mask hides no key within the context."""
    window = hf.sliding_window if kind == "sliding_attention" else None
    last, first = torch.tensor(hf.max_position_embeddings - 1), torch.tensor(0)
    if window is not None and masking_utils.sliding_window_causal_mask_function(window)(0, 0, last, first):
        kind, window = "full_attention", None  # its mask hides no key within the context: full attention
    return {"attention": kind, "window": window}


class Cohere2Moe(SingleRotary):
    """transformers' Cohere2-MoE: whether a layer rotates is its attention module's own test (a window, or
    force_rope on dense layers), the module built on a tiny copy of the config."""

    def __init__(self, config: dict):
        super().__init__(config)
        tiny = AutoConfig.for_model("cohere2_moe", hidden_size=64, num_attention_heads=2, num_key_value_heads=1,
                                    head_dim=32, num_hidden_layers=self.hf.num_hidden_layers,
                                    layer_types=self.hf.layer_types, mlp_layer_types=self.hf.mlp_layer_types,
                                    prefix_dense_sliding_window_pattern=self.hf.prefix_dense_sliding_window_pattern,
                                    sliding_window=self.hf.sliding_window, vocab_size=16)
        self.attention = [self.module.Cohere2MoeAttention(tiny, index) for index in range(self.hf.num_hidden_layers)]

    def facts(self, index: int) -> dict:
        attention = self.attention[index]
        return dict(window_facts(self.hf, self.hf.layer_types[index]), compress=None,
                    rotary=attention.sliding_window is not None or attention.force_rope)


class LayerRopeTheta(SingleRotary):
    """Granite-SWA, GraniteMoE-SWA and Muse Spark: layer_rope_theta[i] == 0 is a layer without RoPE (their model
    loops hand it no position embeddings); Granite builds one rotary embedding per non-zero theta, from a copy of
    the config with that rope_theta, Muse Spark one at the global rope_theta."""

    def __init__(self, config: dict):
        super().__init__(config)
        self.per_theta = self.hf.model_type != "muse_spark_text"

    def _rotary(self, layer):
        if not self.per_theta:
            return self.rotary
        theta_config = copy.deepcopy(self.hf)
        theta_config.rope_parameters = {**self.hf.rope_parameters, "rope_theta": self.hf.layer_rope_theta[layer.index]}
        return self.cls(theta_config)

    def facts(self, index: int) -> dict:
        return dict(window_facts(self.hf, self.hf.layer_types[index]), compress=None,
                    rotary=bool(self.hf.layer_rope_theta[index]))

    def inv_freq(self, layer) -> tuple[torch.Tensor, float]:
        rotary = self._rotary(layer)
        return rotary.inv_freq.double(), float(rotary.attention_scaling)

    def rotate(self, layer, q: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        cos, sin = self._rotary(layer)(q, ids[None])
        return self.module.apply_rotary_pos_emb(q, q, cos, sin)[0]


class MistralLarge4(SingleRotary):
    """transformers' Mistral Large 4 text model: its LeRoPE rotary embedding (learned alpha, zeros at construction:
    exp(alpha) = 1), apply_rotary_pos_emb_interleave on the last qk_rope_head_dim dims, no_rope_layers as its
    attention reads it (use_rope), and its learned query scale scale * ln(m + 1) + bias at _init_weights' values."""

    def facts(self, index: int) -> dict:
        return {"attention": self.hf.layer_types[index], "window": None, "compress": None,
                "rotary": bool(self.hf.no_rope_layers[index])}

    def query_scale(self, index: int, positions: torch.Tensor) -> torch.Tensor:
        scaling = self.module.MistralLarge4TextSoftmaxScaling(self.hf.num_attention_heads)
        with torch.no_grad():  # MistralLarge4PreTrainedModel._init_weights
            scaling.scale.zero_()
            scaling.bias.fill_(1.0)
            ones = torch.ones(1, self.hf.num_attention_heads, len(positions), 2)
            scaled = scaling(ones, positions[None], head_dim_first=True)
        assert torch.equal(scaled, scaled[:, :1].expand_as(scaled))  # the same for every head
        return scaled[0, 0, :, 0].double()


REFERENCES = {"deepseek_v4": DeepseekV4, "step3p5": Step3p5, "kimi_linear": KimiLinear, "nemotron_h": NemotronH,
              "mimo_v2_flash": MiMoV2Flash, "glm_moe_dsa": SingleRotary, "minimax_m2": SingleRotary,
              "exaone_moe": GlobalNoPE, "kolibri1": GlobalNoPE, "flint": GlobalNoPE, "hunyuan_v1_dense": SingleRotary,
              "hunyuan_v1_moe": SingleRotary, "cohere2_moe": Cohere2Moe, "granite_swa": LayerRopeTheta,
              "granitemoe_swa": LayerRopeTheta, "muse_spark_text": LayerRopeTheta,
              "mistral_large4_text": MistralLarge4, "lara_mini": GlobalNoPE, "exaone": SingleRotary,
              "apertus1p5_text": SingleRotary, "sarvam_moe": SingleRotary, "sarvam_mla": SingleRotary,
              "dory": Dory, "hy_v4_vl_text": SingleRotary, "zaya": Zaya,
              "lfm3": Lfm3, "minimax_m3_vl_text": SingleRotary,
              "laguna": Laguna, "inkling_text": Inkling, "inkling2_text": Inkling, "inkling2_loop_text": Inkling}


# ----------------------------------------------------------------------------- the comparison

def positions_past_context(model, count: int = 12, seed: int = 0) -> torch.Tensor:
    """0, 1, a few small ones and positions past the original context (up to 2^17)."""
    rng = random.Random(seed)
    top = min(model.max_position_embeddings or 8192, 1 << 17)
    original = top
    for layer in model.layers:
        if layer.rotary and layer.rope_scaling is not None:
            original = min(dict(layer.rope_scaling).get("original_max_position_embeddings") or original, top - 6)
    picks = {0, 1, 17, original, original + 5, top - 1}
    while len(picks) < count:
        picks.add(rng.randrange(top))
    return torch.tensor(sorted(picks))


def check_family(config: dict, family: str, seed: int = 0) -> None:
    model = model_rope(copy.deepcopy(config))
    assert model.family == family
    ref = REFERENCES[family](config)
    assert len(model.layers) == ref.hf.num_hidden_layers
    gen = torch.Generator().manual_seed(seed)
    ids = positions_past_context(model, seed=seed)
    checked = set()
    for index, layer in enumerate(model.layers):
        ours = {"attention": layer.attention, "window": layer.window, "rotary": layer.rotary,
                "compress": layer.compress}
        assert ours == ref.facts(index), (family, index)
        if hasattr(ref, "head_dim"):  # references that read each layer's own head size
            assert layer.head_dim == ref.head_dim(index), (family, index)
        if not layer.rotary:
            x = torch.randn(2, 3, layer.head_dim, generator=gen, dtype=torch.float64)
            assert layer.rotate(x, torch.arange(3)) is x and layer.rotate_output(x, torch.arange(3)) is x
            assert layer.inv_freq()[0].numel() == 0
            continue
        if (layer.attention, layer.base) in checked:
            continue
        checked.add((layer.attention, layer.base))
        inv_freq, factor = layer.inv_freq()
        theirs, their_factor = ref.inv_freq(layer)
        assert inv_freq.shape == theirs.shape
        turning = theirs != 0  # proportional RoPE's pairs that do not turn: exactly 0 on both sides
        assert torch.equal(inv_freq[~turning], theirs[~turning]), (family, layer.attention)
        rel = ((inv_freq - theirs)[turning].abs() / theirs[turning]).max().item()
        _record(f"{family} inv_freq (relative)", rel)
        assert rel < INV_FREQ_RTOL, (family, layer.attention, rel)
        assert factor == pytest.approx(their_factor, rel=1e-6)
        q = torch.randn(1, 2, len(ids), layer.head_dim, generator=gen, dtype=torch.float64)
        allowed = (ids.double() * 4e-6 + 3e-6)[:, None] * q.abs().amax(dim=-1, keepdim=True) * max(factor, 1.0)
        for name, got, expected in (
                ("rotate", layer.rotate(q, ids), ref.rotate(layer, q.float(), ids)),
                ("rotate_output", layer.rotate_output(q, ids), ref.rotate_output(layer, q.float(), ids))):
            difference = (got - expected.double()).abs()
            _record(f"{family} {name} (abs)", difference.max().item())
            assert (difference - allowed).max().item() <= 0, (family, layer.attention, name)
    positions = torch.tensor([0, 1, 8191, 8192, 65536, 100000])
    for index, layer in enumerate(model.layers):
        torch.testing.assert_close(layer.query_scale(positions), ref.query_scale(index, positions), rtol=1e-6, atol=0)


# ----------------------------------------------------------------------------- configs

def v4_variation(rng: random.Random) -> dict:
    layers = rng.choice([3, 5, 6])
    scaled = rng.choice([None, {"type": "yarn", "factor": rng.choice([4, 16]), "original_max_position_embeddings": 4096,
                                "beta_fast": 32, "beta_slow": 1}])
    config = dict(model_type="deepseek_v4", num_hidden_layers=layers, head_dim=64,
                  qk_rope_head_dim=rng.choice([16, 32]), max_position_embeddings=65536,
                  rope_theta=rng.choice([1e4, 5e4]),
                  compress_rope_theta=rng.choice([1.6e5, 1e6]), sliding_window=rng.choice([64, 128]),
                  compress_ratios=[rng.choice([0, 4, 128]) for _ in range(layers)] + [0])
    if scaled:
        config["rope_scaling"] = scaled
    if rng.random() < 0.5:
        config["compress_rates"] = {"compressed_sparse_attention": 8, "heavily_compressed_attention": 64}
    return config


def v4_nested(rng: random.Random) -> dict:
    """rope_parameters keyed by its two labels: taken as is, YaRN's own attention factor kept."""
    return dict(model_type="deepseek_v4", num_hidden_layers=4, head_dim=64, max_position_embeddings=32768,
                rope_parameters={"main": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.25},
                                 "compress": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 1.6e5,
                                              "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.5}})


def v4_defaults() -> dict:
    return dict(v4_config.DeepseekV4Config().to_dict(), model_type="deepseek_v4")


@pytest.mark.parametrize("case", ["defaults", "seed0", "seed1", "seed2", "nested", "published"])
def test_deepseek_v4_layers_match_transformers(case):
    if case == "defaults":
        config = v4_defaults()
    elif case == "nested":
        config = v4_nested(random.Random(0))
    elif case == "published":
        config = preset_info("nvidia/DeepSeek-V4-Flash-NVFP4")["config"]
    else:
        config = v4_variation(random.Random(int(case[-1])))
    check_family(config, "deepseek_v4", seed=len(case))


def nemotron_variation(rng: random.Random) -> dict:
    pattern = "".join(rng.choice("ME*-") for _ in range(rng.randint(3, 9)))
    return dict(model_type="nemotron_h", hybrid_override_pattern=pattern, num_hidden_layers=99, rope_theta=1e4,
                partial_rotary_factor=0.5, head_dim=64)


@pytest.mark.parametrize("case", ["defaults", "seed0", "seed1", "legacy names", "published"])
def test_nemotron_h_layers_match_transformers(case):
    if case == "defaults":
        config = dict(nemotron_config.NemotronHConfig().to_dict(), model_type="nemotron_h")
    elif case == "legacy names":
        config = dict(model_type="nemotron_h", layers_block_type=["mamba", "attention", "moe", "mlp", "mamba"])
    elif case == "published":
        config = preset_info("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")["config"]
    else:
        config = nemotron_variation(random.Random(int(case[-1])))
    check_family(config, "nemotron_h")


def mimo_variation(rng: random.Random) -> dict:
    layers = rng.choice([3, 7, 12])
    config = dict(model_type="mimo_v2_flash", num_hidden_layers=layers, head_dim=rng.choice([96, 192]),
                  max_position_embeddings=32768, rope_theta=123.0, partial_rotary_factor=1.0)
    if rng.random() < 0.5:
        config["layer_types"] = [rng.choice(["full_attention", "sliding_attention"]) for _ in range(layers - 1)]
        config["layer_types"].append("sliding_attention")
        config["rope_parameters"] = {
            "full_attention": {"rope_type": "default", "rope_theta": rng.choice([1e6, 5e6])},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.5}}
    config["sliding_window" if rng.random() < 0.5 else "sliding_window_size"] = rng.choice([64, 128])
    return config


@pytest.mark.parametrize("case", ["defaults", "seed0", "seed1", "seed2", "published"])
def test_mimo_v2_flash_layers_match_transformers(case):
    if case == "defaults":
        config = dict(mimo_config.MiMoV2FlashConfig().to_dict(), model_type="mimo_v2_flash")
    elif case == "published":
        config = preset_info("XiaomiMiMo/MiMo-V2-Flash")["config"]
    else:
        config = mimo_variation(random.Random(int(case[-1])))
    check_family(config, "mimo_v2_flash", seed=len(case))


def single_rotary_variation(family: str, rng: random.Random) -> dict:
    scaled = rng.choice([None, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                "beta_fast": 32.0, "beta_slow": 1.0}])
    common = dict(model_type=family, num_hidden_layers=rng.choice([2, 4]), hidden_size=256, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=16384, rope_theta=rng.choice([1e4, 1e6]))
    if family == "glm_moe_dsa":
        params = dict(scaled or {"rope_type": "default"}, rope_theta=common.pop("rope_theta"))
        if scaled:
            params.update(mscale=1.0, mscale_all_dim=rng.choice([0.0, 1.0]))
        return dict(common, qk_rope_head_dim=rng.choice([16, 32]), qk_nope_head_dim=rng.choice([32, 64]),
                    v_head_dim=32, kv_lora_rank=64, q_lora_rank=64, rope_parameters=params,
                    layer_types=rng.choice([None, ["deepseek_sparse_attention"] * common["num_hidden_layers"]]))
    config = dict(common, head_dim=64, rotary_dim=rng.choice([16, 32, 64]))
    if rng.random() < 0.5:
        config["partial_rotary_factor"] = 0.75  # wins over rotary_dim
    if scaled:
        config["rope_scaling"] = scaled
    return config


@pytest.mark.parametrize("case", ["defaults", "seed0", "seed1", "seed2", "published"])
@pytest.mark.parametrize("family", ["glm_moe_dsa", "minimax_m2"])
def test_single_rotary_families_match_transformers(family, case):
    if case == "defaults":
        config = dict(AutoConfig.for_model(family).to_dict(), model_type=family)
    elif case == "published":
        name = {"glm_moe_dsa": "zai-org/GLM-5.1", "minimax_m2": "MiniMaxAI/MiniMax-M2.5"}[family]
        config = preset_info(name)["config"]
    else:
        config = single_rotary_variation(family, random.Random(int(case[-1])))
    check_family(config, family, seed=len(case))


def test_glm_moe_dsa_softmax_scale_matches_transformers():
    from transformers.models.glm_moe_dsa.modeling_glm_moe_dsa import GlmMoeDsaAttention

    config = single_rotary_variation("glm_moe_dsa", random.Random(0))
    config["rope_parameters"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                 "rope_theta": 1e4, "mscale": 1.0, "mscale_all_dim": 1.0}
    hf = AutoConfig.for_model("glm_moe_dsa", **{k: v for k, v in config.items() if k != "model_type"})
    assert model_rope(config).latent.softmax_scale == pytest.approx(GlmMoeDsaAttention(hf, 0).scaling, rel=1e-12)


def step_variation(rng: random.Random) -> dict:
    """Step-3.5 in its files' form: per-layer lists padded with the next-token layers' entries."""
    layers, extra = rng.choice([4, 6]), rng.choice([0, 2])
    kinds = ["full_attention" if i % rng.choice([2, 4]) == 0 else "sliding_attention" for i in range(layers + extra)]
    thetas = [5e6 if kind == "full_attention" else 1e4 for kind in kinds]
    config = dict(model_type="step3p5", num_hidden_layers=layers, num_nextn_predict_layers=extra, head_dim=64,
                  max_position_embeddings=65536, sliding_window=rng.choice([128, 512]), layer_types=kinds,
                  rope_theta=rng.choice([thetas, 1e6]),
                  partial_rotary_factors=[0.5 if kind == "full_attention" else 1.0 for kind in kinds])
    if rng.random() < 0.5:
        config["rope_scaling"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
    return config


@pytest.mark.parametrize("case", ["defaults", "seed0", "seed1", "seed2", "published"])
def test_step3p5_layers_match_transformers(case):
    if case == "defaults":
        config = dict(step_config.Step3p7TextConfig().to_dict(), model_type="step3p5")
    elif case == "published":  # a flat step3p7 file: its keys are the text model's
        config = dict(preset_info("stepfun-ai/Step-3.7-Flash")["config"], model_type="step3p5")
    else:
        config = step_variation(random.Random(int(case[-1])))
    check_family(config, "step3p5", seed=len(case))


@pytest.mark.parametrize("named", [None, "step3p7"])
def test_step3p7_nested_reads_as_transformers(named):
    """Step3p7Config with a text_config in its files' form (8 layer types for 6 layers and 2 next-token layers),
    its model_type "step3p7" (the hub's) or none: transformers builds Step3p7TextConfig whatever it names."""
    kinds = ["full_attention", "sliding_attention", "sliding_attention", "sliding_attention"] * 2
    text = dict(num_hidden_layers=6, num_nextn_predict_layers=2, head_dim=64, max_position_embeddings=65536,
                sliding_window=512, layer_types=kinds, rope_theta=[5e6 if kind[0] == "f" else 1e4 for kind in kinds],
                partial_rotary_factors=[0.5 if kind[0] == "f" else 1.0 for kind in kinds],
                rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192})
    hf = step_config.Step3p7Config(text_config=copy.deepcopy(dict(text, model_type=named)))
    read = dict(hf.text_config.to_dict(), model_type="step3p5")
    check_family(read, "step3p5")
    named_text = dict(text, **({"model_type": named} if named else {}))
    wrapped = model_rope({"model_type": "step3p7", "text_config": named_text})
    assert wrapped.family == "step3p5" and wrapped.layers == model_rope(read).layers


@pytest.mark.parametrize("key,value", [("rope_theta", [1e4, -1e4, 1e4]), ("rope_theta", [1e4, 1e4]),
                                       ("partial_rotary_factors", [1.0, 0.5]), ("layer_types", ["full_attention"])])
def test_broken_step3p5_lists_raise_value_error_naming_the_key(key, value):
    config = dict(model_type="step3p5", num_hidden_layers=3, head_dim=64, **{key: value})
    with pytest.raises(ValueError, match=key):
        model_rope(config)


@pytest.mark.parametrize("case", ["defaults", "listed", "given"])
def test_kimi_linear_layers_match_transformers(case):
    config = dict(model_type="kimi_linear", num_hidden_layers=6, rope_theta=1e4,
                  rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096})
    if case == "listed":
        config["linear_attn_config"] = {"full_attn_layers": [3, 6], "kda_layers": [1, 2, 4, 5], "head_dim": 64}
    elif case == "given":
        config["layer_types"] = ["linear_attention", "full_attention"] * 3
    check_family(config, "kimi_linear")  # each layer's head size: KDA 128 (64 where listed), latent 192
    model = model_rope(config)
    x = torch.randn(2, 3, model.layers[0].head_dim)
    assert model.layers[0].rotate(x, torch.arange(3)) is x and model.layers[0].rotate_output(x, torch.arange(3)) is x


def test_kimi_linear_class_defaults_match_transformers():
    check_family(dict(kimi_config.KimiLinearConfig().to_dict(), model_type="kimi_linear"), "kimi_linear")


def test_kimi_linear_refuses_a_layer_it_names_no_attention_for():
    """transformers refuses the None it leaves as that layer's type; model_rope names the key."""
    listed = {"full_attn_layers": [1], "kda_layers": [2]}
    with pytest.raises(Exception, match="layer_types"):
        kimi_config.KimiLinearConfig(num_hidden_layers=3, linear_attn_config=listed)
    with pytest.raises(ValueError, match="linear_attn_config"):
        model_rope(dict(model_type="kimi_linear", num_hidden_layers=3, linear_attn_config=listed))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("family", ["exaone_moe", "kolibri1", "flint"])
def test_global_nope_families_match_transformers(family, seed):
    rng = random.Random(seed)
    config = dict(AutoConfig.for_model(family).to_dict(), model_type=family) if seed == 0 else dict(
        model_type=family, num_hidden_layers=rng.choice([5, 8]), hidden_size=256, num_attention_heads=4,
        num_key_value_heads=2, head_dim=64, max_position_embeddings=16384, sliding_window=rng.choice([128, 513]),
        rope_parameters={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                         "rope_theta": 1e6})
    check_family(config, family, seed=seed)  # EXAONE-MoE's defaults: window 4,096 over 2,048 positions
    model = model_rope(config)
    assert {layer.attention for layer in model.layers if not layer.rotary} <= {"full_attention"}
    assert {layer.attention for layer in model.layers if layer.rotary} == {"sliding_attention"}
    assert not all(layer.rotary for layer in model.layers)


HUNYUAN_HUB = {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0,
               "type": "dynamic"}  # the older form of the hub's HunYuan files


@pytest.mark.parametrize("scaling", [None, {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}, HUNYUAN_HUB,
                                     {"type": "dynamic", "factor": 2.0}, {"rope_type": "dynamic", "alpha": 50.0}])
@pytest.mark.parametrize("family", ["hunyuan_v1_dense", "hunyuan_v1_moe"])
def test_hunyuan_ntk_alpha_matches_transformers(family, scaling):
    config = dict(model_type=family, num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                  head_dim=64, max_position_embeddings=32768, rope_theta=1e4, rope_scaling=scaling)
    if scaling and "factor" not in scaling:  # transformers refuses "dynamic" without a factor, alpha or not
        with pytest.raises(KeyError, match="factor"):
            AutoConfig.for_model(family, **{key: value for key, value in config.items() if key != "model_type"})
        with pytest.raises(ValueError, match="factor"):
            model_rope(config)
        return
    check_family(config, family)
    layer = model_rope(config).layers[0]
    assert layer.rope_type == SingleRotary(config).rotary.rope_type  # transformers' own name ("ntk_alpha", ...)
    if scaling and scaling.get("alpha"):  # a fixed base: the frequencies do not move with the length
        assert torch.equal(layer.inv_freq(seq_len=100000)[0], layer.inv_freq()[0])


@pytest.mark.parametrize("seed", [0, 1])
def test_cohere2_moe_layers_match_transformers(seed):
    rng = random.Random(seed)
    config = dict(AutoConfig.for_model("cohere2_moe").to_dict(), model_type="cohere2_moe") if seed == 0 else dict(
        model_type="cohere2_moe", num_hidden_layers=9, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
        head_dim=32, max_position_embeddings=16384, sliding_window=rng.choice([128, 4096]), first_k_dense_replace=3,
        prefix_dense_sliding_window_pattern=1, sliding_window_pattern=3,
        rope_parameters={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                         "rope_theta": 5e4})
    check_family(config, "cohere2_moe", seed=seed)
    # its config class standardises RoPE before it sets the given keys: rope_scaling is never read, and
    # rope_parameters is kept as given (without rope_theta, its rotary embedding fails with KeyError)
    plain = dict(config, rope_scaling={"rope_type": "linear", "factor": 8.0}, rope_theta=2e4)
    plain.pop("rope_parameters")
    check_family(plain, "cohere2_moe", seed=seed)
    assert model_rope(plain).base == 2e4 and model_rope(plain).rope_scaling is None
    bare = dict(config, rope_parameters={"rope_type": "default"}, rope_theta=2e4)
    with pytest.raises(KeyError, match="rope_theta"):
        Cohere2Moe(bare)
    with pytest.raises(ValueError, match=r"rope_parameters'\]\['rope_theta"):
        model_rope(bare)
    with pytest.raises(TypeError):  # an explicit null is kept too
        Cohere2Moe(dict(config, rope_parameters=None))
    with pytest.raises(ValueError, match="rope_parameters"):
        model_rope(dict(config, rope_parameters=None))
    model = model_rope(config)
    if seed:  # dense prefix layers: full attention with RoPE; later full layers: none
        assert [(layer.attention, layer.rotary) for layer in model.layers[:3]] == [("full_attention", True)] * 3
        assert not model.layers[5].rotary and model.layers[5].attention == "full_attention"
        # a prefix pattern other than 1 drops the exception: sliding prefix layers rotate, full ones do not
        config = dict(config, prefix_dense_sliding_window_pattern=2)
        check_family(config, "cohere2_moe", seed=seed)
        assert [layer.rotary for layer in model_rope(config).layers[:3]] == [True, False, True]


def theta_variation(family: str, rng: random.Random) -> dict:
    layers = rng.choice([5, 7])
    return dict(model_type=family, num_hidden_layers=layers, hidden_size=256, num_attention_heads=4,
                num_key_value_heads=2, head_dim=32, max_position_embeddings=16384, sliding_window=rng.choice([64, 256]),
                rope_parameters={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                 "rope_theta": 1e4},
                layer_rope_theta=[rng.choice([0, 1e4, 5e5, 1e6]) for _ in range(layers - 1)] + [2.5e6])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("family", ["granite_swa", "granitemoe_swa", "muse_spark_text"])
def test_layer_rope_theta_families_match_transformers(family, seed):
    config = dict(AutoConfig.for_model(family).to_dict(), model_type=family) if seed == 0 else theta_variation(
        family, random.Random(seed))
    if family == "muse_spark_text":
        config = {key: value for key, value in config.items() if key not in ("vision_config", "audio_config")}
    check_family(config, family, seed=seed)
    model = model_rope(config)
    thetas = AutoConfig.for_model(family, **{k: v for k, v in config.items() if k != "model_type"}).layer_rope_theta
    assert [layer.rotary for layer in model.layers] == [bool(theta) for theta in thetas]
    if seed:
        # Granite: each layer its own theta; Muse Spark: the global 1e4 wherever theta is not 0
        expected = [theta if family != "muse_spark_text" else 1e4 for theta in thetas if theta]
        assert [layer.base for layer in model.layers if layer.rotary] == expected


@pytest.mark.parametrize("family", ["granite_swa", "muse_spark_text"])
@pytest.mark.parametrize("thetas, match", [([1e4, 0], "one entry per layer"), ([1e4, 0, 1e4, 0, 1e4], "one entry"),
                                           ([1e4, -1e4, 0], r"layer_rope_theta'\]\[1\]"),
                                           ([1e4, "1e4", 0], r"\[1\]")])
def test_broken_layer_rope_theta_raises_value_error_naming_the_key(family, thetas, match):
    config = dict(model_type=family, num_hidden_layers=3, hidden_size=128, num_attention_heads=2, head_dim=64,
                  layer_rope_theta=thetas)
    with pytest.raises(ValueError, match="layer_rope_theta"):
        model_rope(config)
    with pytest.raises(ValueError, match=match):
        model_rope(config)


def test_transformers_breaks_on_the_same_layer_rope_theta():
    """What transformers 5.24 does with them: its config classes accept any list; Granite-SWA's model loop indexes
    layer_rope_theta[i], so a short list raises IndexError, a long one is cut silently, and a negative theta gives
    a rotary embedding of NaN frequencies (the model runs and returns NaN)."""
    from transformers.models.granite_swa import modeling_granite_swa as granite
    kwargs = dict(num_hidden_layers=3, hidden_size=128, num_attention_heads=2, num_key_value_heads=2,
                  intermediate_size=8, vocab_size=16)
    short = granite.GraniteSWAModel(AutoConfig.for_model("granite_swa", layer_rope_theta=[1e4, 0], **kwargs))
    with pytest.raises(IndexError):
        short(torch.tensor([[1, 2]]))
    cfg = AutoConfig.for_model("granite_swa", layer_rope_theta=[1e4, -1e4, 0], **kwargs)
    assert granite.GraniteSWAModel(cfg)(torch.tensor([[1, 2]])).last_hidden_state.isnan().any()


@pytest.mark.parametrize("seed", [0, 1])
def test_mistral_large4_layers_match_transformers(seed):
    rng = random.Random(seed)
    family = "mistral_large4_text"
    config = dict(AutoConfig.for_model(family).to_dict(), model_type=family) if seed == 0 else dict(
        model_type=family, num_hidden_layers=6, hidden_size=128, num_attention_heads=2, qk_nope_head_dim=16,
        qk_rope_head_dim=16, v_head_dim=16, kv_lora_rank=32, max_position_embeddings=65536,
        no_rope_layers=[rng.choice([0, 1]) for _ in range(5)] + [1],
        rope_parameters={"rope_type": "yarn", "rope_theta": 1e6, "factor": 16.0,
                         "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0})
    check_family(config, family, seed=seed)
    model = model_rope(config)
    ref = MistralLarge4(config)
    assert [layer.rotary for layer in model.layers] == [bool(flag) for flag in ref.hf.no_rope_layers]
    for layer in model.layers:  # the learned parts are named; a NoPE layer keeps its learned query scale
        assert layer.learned == (("frequency_scale", "query_scale") if layer.rotary else ("query_scale",))
        assert layer.head_dim == ref.hf.qk_nope_head_dim + ref.hf.qk_rope_head_dim
    # its softmax scale: (qk_nope + qk_rope)^-0.5, times mscale^2 only with mscale_all_dim
    assert model.latent.softmax_scale == pytest.approx(
        ref.module.yarn_apply_mscale(ref.hf.rope_parameters, ref.hf.qk_head_dim ** -0.5), rel=1e-12)
    # a loaded alpha moves transformers' frequencies away from the config's: what `learned` warns of
    ids = torch.arange(4)[None]
    before = ref.rotary(torch.ones(1), ids)[0]
    with torch.no_grad():
        ref.rotary.alpha.fill_(0.5)
    assert not torch.allclose(ref.rotary(torch.ones(1), ids)[0], before)


@pytest.mark.parametrize("value", [[1, 0, 1], 4])
def test_broken_mistral_large4_no_rope_layers_raise_value_error_naming_the_key(value):
    """transformers 5.24 keeps a list of any length (a short one fails with IndexError when the attention of a later
    layer is built: config.no_rope_layers[layer_idx]) and refuses a number in its config class."""
    config = dict(model_type="mistral_large4_text", num_hidden_layers=4, no_rope_layers=value)
    kwargs = {key: item for key, item in config.items() if key != "model_type"}
    if isinstance(value, list):
        with pytest.raises(IndexError):
            AutoConfig.for_model("mistral_large4_text", **kwargs).no_rope_layers[3]
    else:
        with pytest.raises(Exception, match="no_rope_layers"):
            AutoConfig.for_model("mistral_large4_text", **kwargs)
    with pytest.raises(ValueError, match=r"no_rope_layers.*one per layer"):
        model_rope(config)


NEW_IN_524 = ["exaone", "lara_mini", "apertus1p5_text", "sarvam_moe", "sarvam_mla", "dory", "hy_v4_vl_text"]


def new_in_524_variation(family: str, rng: random.Random) -> dict:
    """A small seeded config of one of the families new in transformers 5.24, scaled past its context."""
    config = dict(model_type=family, num_hidden_layers=rng.choice([5, 6]), hidden_size=256, num_attention_heads=4,
                  num_key_value_heads=2, head_dim=64, max_position_embeddings=16384)
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    if family == "lara_mini":
        config["sliding_window"] = rng.choice([128, 512])
    elif family == "sarvam_moe":
        config["partial_rotary_factor"] = rng.choice([0.5, 1.0])
    elif family == "sarvam_mla":  # its remote-code files: head_dim kv_lora_rank + qk_rope, "deepseek_yarn"
        rope = rng.choice([16, 32])
        config.update(qk_rope_head_dim=rope, qk_nope_head_dim=32, v_head_dim=32, kv_lora_rank=64,
                      head_dim=64 + rope, rope_interleave=rng.choice([True, False]))
        scaling = {"type": "deepseek_yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                   "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}
        config["rope_scaling"] = dict(scaling, rope_theta=rng.choice([1e4, 5e4]))
        return config
    elif family == "hy_v4_vl_text":
        rope = rng.choice([16, 32])
        config.update(qk_rope_head_dim=rope, qk_nope_head_dim=32, v_head_dim=32, kv_lora_rank=64, q_lora_rank=64)
        scaling = dict(scaling, mrope_section=[rope // 4, rope // 8, rope // 2 - rope // 4 - rope // 8],
                       mscale_all_dim=1.0)
    elif family == "dory":  # its files' form: an "mlp" entry after each attention, the layer counts doubled
        kinds = ["full_attention" if rng.random() < 0.4 else "sliding_attention" for _ in range(4)]
        config.update(num_hidden_layers=8, n_input_layers=2, n_output_layers=2, sliding_window=rng.choice([64, 1024]),
                      layer_types=[block for kind in kinds for block in (kind, "mlp")],
                      initializer_range=rng.choice([0.02, 0.0177]),
                      rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                                       "full_attention": dict(scaling, rope_theta=1e7)})
        return config
    config["rope_parameters"] = dict(scaling, rope_theta=rng.choice([1e4, 1e6]))
    return config


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("family", NEW_IN_524)
def test_families_new_in_524_match_transformers(family, seed):
    """Class defaults (seed 0) and a seeded variation, against transformers 5.24's own classes."""
    config = (dict(AutoConfig.for_model(family).to_dict(), model_type=family) if seed == 0
              else new_in_524_variation(family, random.Random(seed)))
    check_family(config, family, seed=seed)


def test_sarvam_mla_softmax_scale_matches_transformers():
    """Its files' "deepseek_yarn" is read as YaRN, mscale_all_dim included, as DeepSeek-V3's attention reads it."""
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention

    config = new_in_524_variation("sarvam_mla", random.Random(1))
    hf = AutoConfig.for_model("sarvam_mla", **{k: v for k, v in copy.deepcopy(config).items() if k != "model_type"})
    scale = DeepseekV3Attention(hf, 0).scaling
    assert scale != pytest.approx(64 ** -0.5)  # the YaRN mscale is in it
    assert model_rope(config).latent.softmax_scale == pytest.approx(scale, rel=1e-12)


def test_dory_query_scale_is_learned_and_read_at_its_initial_value():
    model = model_rope(dict(model_type="dory", num_hidden_layers=4, n_input_layers=1, n_output_layers=1, head_dim=64))
    assert all(layer.learned == ("query_scale",) for layer in model.layers)
    assert torch.equal(model.layers[0].query_scale([0, 9000]), torch.full((2,), 64.0, dtype=torch.float64))
    assert model_rope(dict(model_type="llama", num_hidden_layers=1, hidden_size=64, num_attention_heads=1)
                      ).layers[0].learned == ()


def test_hy_v4_vl_rotates_image_ids_in_interleaved_pairs_and_sections():
    """Distinct time, height and width ids on the last qk_rope_head_dim dims, pairs (2i, 2i + 1) in place
    (whatever its comment says), and the softmax scale with YaRN's mscale, as transformers' Hy4 VL runs them."""
    from transformers.models.hy_v4_vl import modeling_hy_v4_vl as hy

    config = new_in_524_variation("hy_v4_vl_text", random.Random(2))
    hf = AutoConfig.for_model("hy_v4_vl_text", **{k: v for k, v in copy.deepcopy(config).items() if k != "model_type"})
    model = model_rope(config)
    layer = model.layers[0]
    ids = torch.tensor([[0, 3, 3, 9000], [0, 1, 7, 12], [0, 2, 5, 30]])
    q = torch.randn(1, 2, 4, layer.head_dim, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    cos, sin = hy.HYV4VLRotaryEmbedding(hf)(q.float(), ids[:, None])
    start = layer.rotated_from
    expected = torch.cat((q[..., :start], hy.apply_rotary_pos_emb(q[..., start:].float(), q[..., start:].float(),
                                                                   cos, sin)[0].double()), dim=-1)
    torch.testing.assert_close(layer.rotate(q, ids), expected, rtol=0, atol=2e-3)
    assert hy.HYV4VLAttention(hf, 0).scaling == pytest.approx(model.latent.softmax_scale, rel=1e-12)


def test_deepseek_v4_published_layers():
    model = model_rope(preset_info("nvidia/DeepSeek-V4-Flash-NVFP4")["config"])
    kinds = [layer.attention for layer in model.layers]
    assert kinds[:4] == ["sliding_attention", "sliding_attention", "compressed_sparse_attention",
                         "heavily_compressed_attention"] and len(kinds) == 43  # compress_ratios' 44th entry dropped
    csa, hca = model.layers[2], model.layers[3]
    assert (csa.compress, hca.compress, model.layers[0].compress) == (4, 128, None)
    assert (csa.base, model.layers[0].base, csa.rotated_from, csa.rotary_dim) == (160000, 10000, 448, 64)
    assert csa.inv_freq()[1] == 1.0  # YaRN's attention factor is forced to 1
    # no layer attends fully: the model-level values (the long-context page's) are the first scaled layer's
    assert model.reference_layer is csa and (model.rope_type, model.base) == ("yarn", 160000)
    x = torch.randn(3, 512, dtype=torch.float64)
    ids = torch.tensor([0, 7, 70000])
    # the output rotation undoes the rotation at the same position, and leaves the unrotated dims alone
    torch.testing.assert_close(csa.rotate_output(csa.rotate(x, ids), ids), x, rtol=0, atol=1e-12)
    assert torch.equal(csa.rotate_output(x, ids)[:, :448], x[:, :448])


@pytest.mark.parametrize("config,match", [
    (dict(model_type="deepseek_v4", num_hidden_layers=4, compress_ratios=[0, 4, 128]), "compress_ratios"),
    (dict(model_type="deepseek_v4", num_hidden_layers=3, compress_ratios=[0, 4, 7, 0]), "compress_ratios"),
    (dict(model_type="deepseek_v4", num_hidden_layers=2, layer_types=["full_attention"] * 2), "layer_types"),
    (dict(model_type="deepseek_v4", num_hidden_layers=2, rope_parameters={
        "main": {"rope_type": "default", "rope_theta": -1e4}, "compress": {"rope_type": "default", "rope_theta": 1e4}}),
     "rope_theta"),
    (dict(model_type="deepseek_v4", num_hidden_layers=2, rope_parameters={
        "main": {"rope_type": "default", "rope_theta": 1e4}, "other": {"rope_type": "default", "rope_theta": 1e4}}),
     "other"),
])
def test_broken_deepseek_v4_configs_raise_value_error_naming_the_key(config, match):
    with pytest.raises(ValueError, match=match):
        model_rope(config)


def test_transformers_refuses_or_breaks_on_the_same_deepseek_v4_configs():
    """Where transformers refuses, so does model_rope; a negative base and a stray label it accepts
    (NaN frequencies, a label it ignores with a warning), and model_rope refuses them."""
    with pytest.raises(Exception, match="layer_types"):
        v4_config.DeepseekV4Config(num_hidden_layers=4, compress_ratios=[0, 4, 128])
    with pytest.raises(KeyError):
        v4_config.DeepseekV4Config(num_hidden_layers=3, compress_ratios=[0, 4, 7, 0])
    with pytest.raises(Exception, match="layer_types"):
        v4_config.DeepseekV4Config(num_hidden_layers=2, layer_types=["full_attention"] * 2)
    negative = v4_config.DeepseekV4Config(num_hidden_layers=2, rope_parameters={
        "main": {"rope_type": "default", "rope_theta": -1e4}, "compress": {"rope_type": "default", "rope_theta": 1e4}})
    assert v4.DeepseekV4RotaryEmbedding(negative).main_inv_freq.isnan().any()


def test_an_unknown_model_type_reads_with_family_none():
    config = dict(model_type="made_up_2027", hidden_size=256, num_attention_heads=4, num_hidden_layers=2,
                  partial_rotary_factor=0.5)
    model = model_rope(config)
    assert model.family is None and model.model_type == "made_up_2027"
    assert model.layers[0].rotary_dim == 32  # transformers' generic reading honours partial_rotary_factor
    assert model_rope(dict(config, model_type="llama")).family == "llama"


def zaya_variation(rng: random.Random) -> dict:
    layers = rng.choice([3, 5])
    return dict(model_type="zaya", num_hidden_layers=layers, head_dim=rng.choice([64, 128]), sliding_window=256,
                max_position_embeddings=32768,
                layer_types=["hybrid"] + [rng.choice(["hybrid", "hybrid_sliding"]) for _ in range(layers - 2)]
                + ["hybrid_sliding"],
                rope_parameters={"rope_type": "default",  # the stray key of its published file, dropped
                                 "hybrid": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0,
                                            "original_max_position_embeddings": 8192,
                                            "partial_rotary_factor": rng.choice([0.25, 0.5])},
                                 "hybrid_sliding": {"rope_type": "default", "rope_theta": 1e4,
                                                    "partial_rotary_factor": rng.choice([0.5, 1.0])}})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_zaya_layers_match_transformers(seed):
    """Class defaults (seed 0) and seeded variations; its key scale is learned and starts at zero."""
    config = (dict(zaya_config.ZayaConfig().to_dict(), model_type="zaya") if seed == 0
              else zaya_variation(random.Random(seed)))
    check_family(config, "zaya", seed=seed)
    assert all(layer.learned == ("key_scale",) for layer in model_rope(config).layers)
    assert not zaya.ZayaQKNorm(Zaya(config).hf).temp.any()  # zeros until a checkpoint loads it


def lfm3_variation(rng: random.Random) -> dict:
    layers = rng.choice([5, 9])
    kinds = [rng.choice(["conv", "full_attention", "sliding_attention"]) for _ in range(layers - 2)]
    return dict(model_type="lfm3", num_hidden_layers=layers, head_dim=rng.choice([64, 128]), sliding_window=128,
                max_position_embeddings=32768, layer_types=["conv", *kinds, "full_attention"],
                rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": rng.choice([1e4, 5e4])},
                                 "full_attention": rng.choice([
                                     {"rope_type": "proportional", "rope_theta": 1e6,
                                      "partial_rotary_factor": rng.choice([0.25, 0.5])},
                                     {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0,
                                      "original_max_position_embeddings": 8192}])})


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_lfm3_layers_match_transformers(seed):
    """Class defaults (seed 0) and seeded variations: conv blocks without RoPE, proportional full layers."""
    config = (dict(lfm3_config.Lfm3Config().to_dict(), model_type="lfm3") if seed == 0
              else lfm3_variation(random.Random(seed)))
    check_family(config, "lfm3", seed=seed)
    model = model_rope(config)
    assert [layer.rotary for layer in model.layers] == [kind != "conv" for kind in Lfm3(config).hf.layer_types]


# config class, rotary class and a small config of each family whose rope_parameters are keyed by its labels
LABELLED = {"zaya": (zaya_config.ZayaConfig, zaya.ZayaRotaryEmbedding,
                     dict(num_hidden_layers=2, layer_types=["hybrid", "hybrid_sliding"], sliding_window=8)),
            "lfm3": (lfm3_config.Lfm3Config, lfm3.Lfm3RotaryEmbedding,
                     dict(num_hidden_layers=3, layer_types=["conv", "full_attention", "sliding_attention"]))}


def test_zaya_sliding_layers_need_their_window():
    config = dict(model_type="zaya", num_hidden_layers=2, layer_types=["hybrid", "hybrid_sliding"])
    with pytest.raises(Exception, match="sliding_window"):  # transformers' validation refuses it too
        zaya_config.ZayaConfig(**{key: value for key, value in config.items() if key != "model_type"})
    with pytest.raises(ValueError, match=r"\['sliding_window'\] is missing"):
        model_rope(config)


@pytest.mark.parametrize("family, rope, match", [
    ("zaya", {"hybrid": {"rope_type": "default", "rope_theta": 1e4}, "hybrid_sliding": {"rope_theta": 1e4},
              "full_attention": {"rope_theta": 1e4}}, "'full_attention'"),
    ("zaya", {"rope_type": "default", "rope_theta": 1e4}, "rope_theta"),
    ("zaya", {"hybrid": {"rope_type": "default", "rope_theta": 1e4}}, "hybrid_sliding"),
    ("lfm3", {"full_attention": {"rope_type": "default", "rope_theta": 1e6}, "sliding_attention": {"rope_theta": 1e4},
              "conv": {"rope_theta": 1e4}}, "'conv'"),
    ("lfm3", {"rope_type": "default", "rope_theta": 1e4}, "rope_type"),
    ("lfm3", {"sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}, "full_attention")])
def test_broken_labelled_rope_parameters_raise_value_error_naming_the_key(family, rope, match):
    """Zaya and LFM3: transformers keeps a stray label unread, and fails with KeyError on a flat dict or a missing
    label (Zaya drops a stray top-level rope_type first)."""
    config_cls, rotary_cls, small = LABELLED[family]
    config = dict(small, model_type=family, rope_parameters=rope)
    kwargs = {key: value for key, value in copy.deepcopy(config).items() if key != "model_type"}
    if match.startswith("'"):
        assert match.strip("'") in config_cls(**kwargs).rope_parameters
    else:
        with pytest.raises(KeyError):
            rotary_cls(config_cls(**kwargs))
    with pytest.raises(ValueError, match=rf"rope_parameters.*{match}"):
        model_rope(config)


# MiniMax-M3's published config.json (MiniMaxAI/MiniMax-M3, model_type "minimax_m3"), its position keys
MINIMAX_M3 = dict(model_type="minimax_m3", head_dim=128, hidden_size=6144, num_attention_heads=64, num_hidden_layers=60,
                  num_key_value_heads=4, max_position_embeddings=1048576, partial_rotary_factor=0.5, rope_theta=5000000,
                  rotary_dim=64, sparse_attention_config={"sparse_attention_freq": [0] * 3 + [1] * 57})


@pytest.mark.parametrize("case", ["defaults", "seed1", "seed2", "published", "published without partial"])
def test_minimax_m3_layers_match_transformers(case):
    """MiniMaxM3VLTextConfig and its rotary embedding: rotary_dim is never read, only partial_rotary_factor."""
    family = "minimax_m3_vl_text"
    if case == "defaults":
        config = dict(AutoConfig.for_model(family).to_dict(), model_type=family)
    elif case.startswith("published"):
        config = dict(MINIMAX_M3, model_type=family)
        if case.endswith("partial"):
            del config["partial_rotary_factor"]
    else:
        rng = random.Random(int(case[-1]))
        config = dict(single_rotary_variation("minimax_m2", rng), model_type=family,
                      layer_types=rng.choice([None, ["full_attention", "minimax_m3_sparse"] * 2]), num_hidden_layers=4)
    check_family(config, family, seed=len(case))
    ref = SingleRotary(config)
    assert model_rope(config).layers[0].rotary_dim == 2 * ref.rotary.inv_freq.numel()
    if case.startswith("published"):  # the file's own model_type, and the wrapper's text_config, read the same
        assert model_rope(dict(config, model_type="minimax_m3")).layers == model_rope(config).layers
        text = {key: value for key, value in config.items() if key != "model_type"}
        wrapped = model_rope({"model_type": "minimax_m3_vl", "text_config": text})
        assert wrapped.family == family and wrapped.layers == model_rope(config).layers


def test_broken_minimax_m3_rope_parameters_raise_value_error_naming_the_key():
    """transformers keeps a nested label beside the flat keys and never reads it; model_rope refuses it."""
    rope = {"rope_type": "default", "rope_theta": 1e6, "minimax_m3_sparse": {"rope_type": "default", "rope_theta": 1e4}}
    hf = AutoConfig.for_model("minimax_m3_vl_text", num_hidden_layers=2, rope_parameters=copy.deepcopy(rope))
    assert "minimax_m3_sparse" in hf.rope_parameters
    with pytest.raises(ValueError, match=r"rope_parameters.*minimax_m3_sparse"):
        model_rope(dict(model_type="minimax_m3_vl_text", num_hidden_layers=2, rope_parameters=rope))


@pytest.mark.parametrize("case", ["defaults", "seed1", "poolside/Laguna-S-2.1-FP8", "poolside/Laguna-XS.2-FP8"])
def test_laguna_layers_match_transformers(case):
    """YaRN on half of each full layer's head, the whole head of sliding layers, heads per layer: class defaults,
    a seeded variation and poolside's published files."""
    if case == "defaults":
        config = dict(laguna_config.LagunaConfig().to_dict(), model_type="laguna")
    elif case == "seed1":
        rng = random.Random(1)
        kinds = [rng.choice(["full_attention", "sliding_attention"]) for _ in range(5)]
        config = dict(model_type="laguna", num_hidden_layers=5, head_dim=64, max_position_embeddings=65536,
                      sliding_window=rng.choice([64, 512]), layer_types=kinds,
                      num_attention_heads_per_layer=[4 if kind[0] == "f" else 6 for kind in kinds],
                      rope_parameters={"full_attention": {"rope_type": "yarn", "rope_theta": 5e5, "factor": 8.0,
                                                          "original_max_position_embeddings": 4096,
                                                          "partial_rotary_factor": 0.5},
                                       "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}})
    else:
        config = preset_info(case)["config"]
    check_family(config, "laguna", seed=len(case))
    model = model_rope(config)
    for layer in model.layers:  # half the head turns in full layers, all of it in sliding ones
        assert layer.rotary_dim == layer.head_dim // (2 if layer.attention == "full_attention" else 1)


INKLING = ["inkling_text", "inkling2_text", "inkling2_loop_text"]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("family", INKLING)
def test_inkling_layers_match_transformers(family, seed):
    """No RoPE in any layer; windows, layer types and the log query scale as transformers 5.24 builds them."""
    rng = random.Random(seed)
    config = dict(AutoConfig.for_model(family).to_dict(), model_type=family)
    if seed:
        config = dict(model_type=family, num_hidden_layers=rng.choice([7, 13]), sliding_window=rng.choice([64, 512]),
                      head_dim=128, swa_head_dim=64,
                      log_scaling_n_floor=rng.choice([8192, 64]), log_scaling_alpha=rng.choice([0.1, 0.3]))
        if family == "inkling_text":
            config["local_layer_ids"] = [0, 2, 3]
    check_family(config, family, seed=seed)
    model = model_rope(config)
    assert not model.has_rope and all(layer.learned == ("relative_position_bias",) for layer in model.layers)
    # sliding layers have heads of their own size
    assert [layer.head_dim for layer in model.layers] == [attention.head_dim for attention in Inkling(config).attention]


@pytest.mark.parametrize("family", INKLING)
def test_broken_inkling_layer_types_raise_value_error_naming_the_key(family):
    """transformers' config classes keep any label (Inkling 2 then builds full attention for it)."""
    config = dict(model_type=family, num_hidden_layers=2, layer_types=["hybrid", "sliding_attention"])
    assert AutoConfig.for_model(family, **{k: v for k, v in config.items() if k != "model_type"}).layer_types[1] == \
        "sliding_attention"
    with pytest.raises(ValueError, match=r"layer_types.*sliding_attention"):
        model_rope(config)


def test_report_measured_differences(capsys):
    with capsys.disabled():
        for key in sorted(MEASURED):
            print(f"\n  largest difference vs transformers 5.24, {key}: {MEASURED[key]:.3g}", end="")
