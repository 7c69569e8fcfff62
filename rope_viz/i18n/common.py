"""Strings shared by the app shell and every page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "common.app_title": ("RoPE Explorer", "RoPE 探索器"),
    "common.language": ("Language", "语言"),
    "common.device": ("Computing on: **{device}**", "计算设备：**{device}**"),
    "common.device_fallback": (
        "The requested compute device is not usable here; computing on the CPU instead.",
        "所请求的计算设备在此不可用，已改用 CPU 计算。",
    ),
    "common.gpu_fallback": (
        "The GPU failed on this request (out of memory or driver error); it was computed on the CPU.",
        "GPU 处理此请求时出错（显存不足或驱动问题），已改用 CPU 完成计算。",
    ),
    "common.notice_replaced": (
        "The link's value for “{name}” was missing, malformed or out of range, so **{value}** is used instead.",
        "链接中参数 “{name}” 的值缺失、格式错误或超出范围，已改用 **{value}**。",
    ),
    "common.too_large": (
        "That combination is too large to compute here; the page uses smaller sizes.",
        "该参数组合过大，无法在此计算；页面已改用较小的规模。",
    ),
    "common.share": ("Share this view", "分享当前视图"),
    "common.share_help": (
        "This link reopens the page with every knob exactly as it is now.",
        "打开此链接即可还原当前页面及所有参数设置。",
    ),
    "common.computing": ("Computing…", "计算中…"),
    "common.position": ("Position", "位置"),
    "common.head_dim": ("Head dimension d", "头维度 d"),
    "common.head_dim_help": (
        "Size of each query/key vector; it is split into d/2 rotating pairs.",
        "每个查询/键向量的维度；它被分成 d/2 个独立旋转的二维对。",
    ),
    "common.base": ("Base", "底数 base"),
    "common.base_help": (
        "The frequencies are theta_i = base^(-2i/d): a larger base makes the slow pairs slower.",
        "频率为 theta_i = base^(-2i/d)：底数越大，慢速的维度对转得越慢。",
    ),
    "common.layout": ("Pair layout", "配对方式"),
    "common.layout_help": (
        "Interleaved pairs coordinates (2i, 2i+1) as in the paper; half pairs (i, i+d/2) as in GPT-NeoX.",
        "交错式将 (2i, 2i+1) 配对（论文写法）；半分式将 (i, i+d/2) 配对（GPT-NeoX 写法）。",
    ),
    "common.layout_interleaved": ("interleaved (2i, 2i+1)", "交错式 (2i, 2i+1)"),
    "common.layout_half": ("half (i, i+d/2)", "半分式 (i, i+d/2)"),
    "common.seq_len": ("Sequence length", "序列长度"),
    "common.seed": ("Random seed", "随机种子"),
    "common.seed_help": ("Change it to draw other random vectors.", "修改它以抽取另一组随机向量。"),
    "common.query_position": ("Query position m", "查询位置 m"),
    "common.key_position": ("Key position n", "键位置 n"),
    "common.offset": ("Relative offset m − n", "相对距离 m − n"),
    "common.score": ("Score q·k", "分数 q·k"),
    "common.pair": ("pair {i}", "第 {i} 对"),
    "common.yes": ("yes", "是"),
    "common.no": ("no", "否"),
}
