"""RoPE inside real pretrained models: Gemma 3 270M and SmolLM2-135M-Instruct, run on the CPU from weights that
pip packages ship (see rope_viz.real.weights), by a small decoder whose rotation in each layer is that layer's
LayerRoPE (rope_viz.real.decoder), and the measurements the app makes in them (rope_viz.real.measure)::

    lm = rope_viz.real_model("smollm2-135m")
    ids = lm.encode("The capital of France is")
    logits = lm.logits(ids)                                  # (seq, vocab) float32
    shifted = lm.logits(ids, positions=torch.arange(len(ids)) + 1000)   # equal up to float rounding
    swapped = [dataclasses.replace(layer, layout="interleaved") for layer in lm.rope.layers]
    broken = lm.logits(ids, layers=swapped)                  # the pairs read with the other layout
"""

from .decoder import Forward, RealModel, checkpoints, loaded, next_token_losses, real_model
from .weights import NAMES, SOURCES, Source, installed

__all__ = ["Forward", "NAMES", "RealModel", "SOURCES", "Source", "checkpoints", "installed", "loaded",
           "next_token_losses", "real_model"]
