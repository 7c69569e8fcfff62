"""Strings of the landing page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "home.nav": ("Home", "首页"),
    "home.title": ("RoPE Explorer", "RoPE 探索器"),
    "home.intro": (
        "**Rotary Position Embedding (RoPE)** tells a transformer where each token sits by *turning* "
        "its query and key vectors instead of adding a position vector to them. The vector is cut "
        "into 2-D pairs and pair *i* is rotated by the angle *m·θᵢ* at position *m*, with "
        "θᵢ = base^(−2i/d). Because both vectors are turned, their dot product only sees the "
        "*difference* of the two angles, so attention scores depend on the offset *m − n* and "
        "never on where the two tokens sit in absolute terms. LLaMA, Qwen, Mistral and most "
        "current language models use it.",
        "**旋转位置编码（RoPE）** 不是给查询/键向量加上一个位置向量，而是按位置把它们*旋转*。"
        "向量被切成若干个二维小对，位置 *m* 处第 *i* 对旋转角度 *m·θᵢ*，其中 θᵢ = base^(−2i/d)。"
        "查询和键都被旋转后，它们的点积只感受到两个角度之*差*，因此注意力分数只取决于相对距离 "
        "*m − n*，与两个词元的绝对位置无关。LLaMA、Qwen、Mistral 等大多数现代大模型都采用它。",
    ),
    "home.pages": ("What each page shows", "各页面内容"),
    "home.start": (
        "Pick a page in the sidebar; every knob is kept in the address bar, so a link reopens the exact view.",
        "在侧边栏选择页面；所有参数都保存在地址栏里，分享链接即可打开完全相同的视图。",
    ),
    "home.page_complex_plane": (
        "multiplying by a unit complex number turns a vector without stretching it.",
        "乘以模为 1 的复数只旋转向量、不改变长度。",
    ),
    "home.page_rotations": (
        "every pair is a clock running at its own speed; press play and watch them turn.",
        "每个维度对都是一只以自己速度走动的时钟；点击播放，看它们转动。",
    ),
    "home.page_phase": (
        "R_j R_i⁻¹ = R_{j−i}: absolute angles cancel and only the offset survives.",
        "R_j R_i⁻¹ = R_{j−i}：绝对角度相互抵消，只剩下相对距离。",
    ),
    "home.page_relative": (
        "attention heatmaps that are constant along diagonals, and stay put when every position shifts.",
        "沿对角线恒定的注意力热力图，整体平移位置后分数纹丝不动。",
    ),
    "home.page_implementation": (
        "the worked example step by step, and the matrix, elementwise and complex forms timed side by side.",
        "逐步计算示例，并对比矩阵、逐元素和复数三种实现的结果与耗时。",
    ),
    "home.page_versus": (
        "RoPE against the additive sinusoidal encoding, with every claim measured.",
        "RoPE 与加性正弦位置编码的对比，每项结论都有实测数字。",
    ),
    "home.page_decay": (
        "why scores tend to shrink with distance, and why the curve ripples.",
        "为什么分数随距离增大而趋于衰减，以及曲线为何起伏。",
    ),
    "home.page_linear": (
        "RoPE inside linear attention: rotated numerator, unrotated denominator.",
        "线性注意力中的 RoPE：分子旋转，分母保持不旋转。",
    ),
}
