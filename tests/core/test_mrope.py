"""M-RoPE against transformers' Qwen2-VL: Qwen2VLRotaryEmbedding + apply_rotary_pos_emb for the
rotation and Qwen2VLModel.get_rope_index for the position ids (on a tiny config, no model)."""

from __future__ import annotations

import math
import random
import types

import pytest
import torch

from rope_viz.mrope import apply_mrope, mrope_angles, mrope_axes, mrope_position_ids

MERGE = 2


@pytest.fixture(scope="module")
def qwen():
    from transformers import Qwen2VLConfig
    from transformers.models.qwen2_vl import modeling_qwen2_vl as qwen2_vl

    config = Qwen2VLConfig(
        text_config=dict(hidden_size=64, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=1,
                         intermediate_size=32, vocab_size=128, bos_token_id=0, eos_token_id=1,
                         rope_parameters=dict(rope_type="default", rope_theta=1e6, mrope_section=[4, 6, 6])),
        vision_config=dict(depth=1, embed_dim=32, num_heads=2, hidden_size=64, spatial_merge_size=MERGE),
    )
    # get_rope_index only reads self.config and calls self.get_vision_position_ids
    holder = types.SimpleNamespace(config=config)
    holder.get_vision_position_ids = types.MethodType(qwen2_vl.Qwen2VLModel.get_vision_position_ids, holder)
    return types.SimpleNamespace(config=config, module=qwen2_vl, holder=holder)


def reference_ids(qwen, segments):
    """transformers' get_rope_index for the same sequence (grids in vision patches, merge 2)."""
    token_types, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            token_types += [0] * size
            continue
        t, h, w = size
        (images if kind == "image" else videos).append([t, h, w])
        token_types += [1 if kind == "image" else 2] * (t * h * w // MERGE**2)
    types_tensor = torch.tensor([token_types])
    ids, _ = qwen.module.Qwen2VLModel.get_rope_index(
        qwen.holder, torch.zeros_like(types_tensor), types_tensor,
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
    )
    return ids[:, 0]


def random_segments(rng):
    segments = [("text", rng.randint(1, 4))]
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["image", "video"])
        t = 1 if kind == "image" else rng.randint(1, 6)
        segments.append((kind, (t, MERGE * rng.randint(1, 3), MERGE * rng.randint(1, 3))))
        segments.append(("text", rng.randint(1, 4)))  # vision start/end tokens separate grids
    return segments


@pytest.mark.parametrize("seed", range(8))
def test_position_ids_match_get_rope_index(qwen, seed):
    segments = random_segments(random.Random(seed))
    got = mrope_position_ids(segments, spatial_merge_size=MERGE)
    expected = reference_ids(qwen, segments)
    assert got.shape == expected.shape
    assert torch.equal(got, expected.to(torch.int64))


def test_position_ids_by_hand_and_resume_rules():
    segments = [("text", 2), ("image", (2, 3)), ("text", 1), ("video", (4, 1, 2)), ("text", 2)]
    spatial = mrope_position_ids(segments)
    paper = mrope_position_ids(segments, text_resume="largest_id")
    text_a = [[0, 1]] * 3
    image = [[2] * 6, [2, 2, 2, 3, 3, 3], [2, 3, 4, 2, 3, 4]]
    text_b = [[5]] * 3  # after the image: 2 + max(2, 3) under both rules
    video = [[6, 6, 7, 7, 8, 8, 9, 9], [6] * 8, [6, 7] * 4]
    expected_spatial = [a + b + c + d + e for a, b, c, d, e in
                        zip(text_a, image, text_b, video, [[8, 9]] * 3)]   # 6 + max(1, 2)
    expected_paper = [a + b + c + d + e for a, b, c, d, e in
                      zip(text_a, image, text_b, video, [[10, 11]] * 3)]  # 6 + max(4, 1, 2)
    assert spatial.tolist() == expected_spatial
    assert paper.tolist() == expected_paper


@pytest.mark.parametrize("seed", range(3))
def test_apply_mrope_matches_qwen2vl_rotary(qwen, seed):
    segments = random_segments(random.Random(100 + seed))
    ids = mrope_position_ids(segments, spatial_merge_size=MERGE)
    rotary = qwen.module.Qwen2VLRotaryEmbedding(qwen.config.text_config)
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, 2, ids.shape[1], 32, generator=gen)
    cos, sin = rotary(q, ids[:, None, :])
    q_ref, _ = qwen.module.apply_rotary_pos_emb(q, q, cos, sin)
    got = apply_mrope(q, ids, mrope_section=[4, 6, 6], base=1e6)
    diff = (got - q_ref).abs().max().item()
    assert diff < 2e-5, diff


def test_mrope_angles_by_hand():
    ids = [[3.0], [5.0], [7.0]]
    table = mrope_angles(ids, 12, 10000.0, mrope_section=[1, 2, 3])
    theta = [10000.0 ** (-2.0 * j / 12) for j in range(6)]
    expected = [3 * theta[0], 5 * theta[1], 5 * theta[2], 7 * theta[3], 7 * theta[4], 7 * theta[5]]
    assert max(abs(a - b) for a, b in zip(table[0].tolist(), expected)) < 1e-14


def test_text_only_mrope_is_plain_rope_loop():
    gen = torch.Generator().manual_seed(9)
    x = torch.randn(5, 8, generator=gen, dtype=torch.float64)
    ids = mrope_position_ids([("text", 5)])
    got = apply_mrope(x, ids, mrope_section=[1, 1, 2], layout="half")
    expected = x.clone()
    for m in range(5):
        for j in range(4):
            angle = m * 10000.0 ** (-2.0 * j / 8)
            a, b = float(x[m, j]), float(x[m, j + 4])
            expected[m, j] = a * math.cos(angle) - b * math.sin(angle)
            expected[m, j + 4] = a * math.sin(angle) + b * math.cos(angle)
    assert (got - expected).abs().max().item() < 1e-12


@pytest.mark.parametrize("call, message", [
    (lambda: mrope_position_ids([("image", (1, 3, 4))], spatial_merge_size=2), "multiple of"),
    (lambda: mrope_position_ids([("audio", 3)]), "kind"),
    (lambda: mrope_position_ids([("text", 2)], text_resume="paper"), "text_resume"),
    (lambda: mrope_position_ids([]), "segments"),
    (lambda: apply_mrope(torch.zeros(2, 8), torch.zeros(3, 2), mrope_section=[1, 1, 1]), "mrope_section"),
    (lambda: apply_mrope(torch.zeros(2, 8), torch.zeros(2, 2), mrope_section=[1, 1, 2]), "position_ids"),
    (lambda: mrope_position_ids([("video", (2, 2, 2))], time_interval=0), "time_interval"),
    (lambda: mrope_axes([1, -1, 2], 4, interleaved=True), "mrope_section"),
    (lambda: mrope_axes([1, 1, 2], 4, interleaved="yes"), "interleaved"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def qwen25_reference_ids(segments, interval):
    """transformers' Qwen2.5-VL get_rope_index with second_per_grid_ts, tokens_per_second=1, merge 2."""
    from transformers import Qwen2_5_VLConfig
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as qwen25

    config = Qwen2_5_VLConfig(
        text_config=dict(hidden_size=64, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=1,
                         intermediate_size=32, vocab_size=128),
        vision_config=dict(depth=1, hidden_size=32, num_heads=2, out_hidden_size=64, spatial_merge_size=MERGE,
                           tokens_per_second=1))
    holder = types.SimpleNamespace(config=config)
    holder.get_vision_position_ids = types.MethodType(qwen25.Qwen2_5_VLModel.get_vision_position_ids, holder)
    token_types, videos = [], []
    for kind, size in segments:
        if kind == "text":
            token_types += [0] * size
            continue
        videos.append(list(size))
        token_types += [2] * (size[0] * size[1] * size[2] // MERGE**2)
    types_tensor = torch.tensor([token_types])
    ids, _ = qwen25.Qwen2_5_VLModel.get_rope_index(
        holder, torch.zeros_like(types_tensor), types_tensor, video_grid_thw=torch.tensor(videos),
        second_per_grid_ts=torch.tensor([interval] * len(videos)))
    return ids[:, 0]


@pytest.mark.parametrize("interval", [0.5, 1.0, 2.0, 12.5])
def test_qwen25_absolute_time_ids_match_get_rope_index(interval):
    """Qwen2.5-VL: a video's frame f sits at time s + floor(f * tokens_per_second * second_per_grid_t)."""
    segments = [("text", 3), ("video", (4, 4, 2)), ("text", 2), ("video", (3, 2, 6)), ("text", 1)]
    got = mrope_position_ids(segments, spatial_merge_size=MERGE, time_interval=interval)
    expected = qwen25_reference_ids(segments, interval)
    assert torch.equal(got, expected.to(torch.int64))
    first_video_times = got[0, 3:3 + 8].tolist()
    assert first_video_times == [3 + int(f * interval) for f in range(4) for _ in range(2)]


@pytest.mark.parametrize("section", [(24, 20, 20), (11, 11, 10), (2, 3, 3), (0, 5, 1)])
def test_interleaved_mrope_matches_qwen3vl_rotary(section):
    from transformers import Qwen3VLTextConfig
    from transformers.models.qwen3_vl import modeling_qwen3_vl as qwen3vl

    pairs = 32
    config = Qwen3VLTextConfig(hidden_size=128, num_attention_heads=2, head_dim=2 * pairs, num_hidden_layers=1,
                               rope_parameters=dict(rope_type="default", rope_theta=5e6, mrope_section=list(section)))
    rotary = qwen3vl.Qwen3VLTextRotaryEmbedding(config)
    ids = mrope_position_ids([("text", 3), ("image", (1, 4, 6)), ("video", (3, 2, 4)), ("text", 2)],
                             spatial_merge_size=MERGE)
    gen = torch.Generator().manual_seed(sum(section))
    q = torch.randn(1, 2, ids.shape[1], 2 * pairs, generator=gen)
    cos, sin = rotary(q, ids[:, None, :])
    q_ref, _ = qwen3vl.apply_rotary_pos_emb(q, q, cos, sin)
    got = apply_mrope(q, ids, mrope_section=section, base=5e6, interleaved=True)
    assert (got - q_ref).abs().max().item() < 2e-5
    axes = mrope_axes(section, pairs, interleaved=True).tolist()
    by_hand = [1 if j % 3 == 1 and j < 3 * section[1] else 2 if j % 3 == 2 and j < 3 * section[2] else 0
               for j in range(pairs)]
    assert axes == by_hand


def test_interleaved_sections_spread_every_axis_over_fast_and_slow_pairs():
    axes = mrope_axes((24, 20, 20), 64, interleaved=True)
    blocks = mrope_axes((16, 24, 24), 64)
    assert axes[:3].tolist() == [0, 1, 2] and axes[60:].tolist() == [0, 0, 0, 0]
    assert blocks[:16].tolist() == [0] * 16 and blocks[40:].tolist() == [2] * 24
    for axis in (1, 2):  # height and width reach the fastest pairs only when interleaved
        assert int((axes == axis).nonzero().min()) < 3 and int((blocks == axis).nonzero().min()) >= 16
