"""Strings of the RoPE-versus-sinusoidal page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "versus.nav": ("RoPE vs sinusoidal", "RoPE 与正弦编码"),
    "versus.title": ("Turning versus adding", "旋转与相加"),
    "versus.intro": (
        "Before RoPE, a Transformer was usually told where a token stands by adding a fixed vector $p_m$, "
        "built from sines and cosines, to the token's embedding $x_m$. Both encodings use the same "
        "frequencies $\\theta_t = \\text{base}^{-2t/d}$. What differs is how the position gets in: RoPE multiplies "
        "(it turns the query and the key), the sinusoidal encoding adds. Every number on this page is "
        "measured for the knobs you set.",
        "在 RoPE 之前，Transformer 通常把一个由正弦和余弦构成的固定向量 $p_m$ 加到词元嵌入 $x_m$ 上，以此告诉模型"
        "词元的位置。两种编码使用相同的频率 $\\theta_t = \\text{base}^{-2t/d}$，区别在于位置进入的方式：RoPE 用乘法（旋转查询"
        "和键），正弦编码用加法。本页的每个数字都是按你设置的参数实时测得的。",
    ),
    "versus.seq": ("Sequence length", "序列长度"),
    "versus.seq_help": (
        "Number of positions. Heatmaps show every s-th row and column of long sequences; every number "
        "uses the full matrices.",
        "位置个数。序列较长时热力图每隔 s 行、s 列取点绘制；所有数值都基于完整矩阵计算。",
    ),
    "versus.dim": ("Model dimension d", "模型维度 d"),
    "versus.dim_help": (
        "Size of the token embeddings and of the encoding vectors; W_q and W_k are d × d.",
        "词元嵌入与位置编码向量的维度；W_q 与 W_k 为 d × d 矩阵。",
    ),
    "versus.shift": ("Shift k", "平移量 k"),
    "versus.shift_help": (
        "Every token moves from position m to position m + k; the tokens themselves stay the same.",
        "每个词元从位置 m 移到 m + k，词元本身不变。",
    ),
    "versus.table_header": ("The sinusoidal table", "正弦位置编码表"),
    "versus.table_text": (
        "Columns 2t and 2t+1 of row m hold $\\sin(m\\theta_t)$ and $\\cos(m\\theta_t)$: the same clocks RoPE uses, written "
        "down as coordinates instead of applied as rotations. The table on its own is relative as well: for "
        "each pair, $\\sin a \\sin b + \\cos a \\cos b = \\cos(a - b)$, so the dot product of two rows is a sum of cosines "
        "of $(m - n)\\theta_t$ and its band on the right stays closed.",
        "第 m 行的第 2t、2t+1 列是 $\\sin(m\\theta_t)$ 和 $\\cos(m\\theta_t)$：与 RoPE 相同的时钟，只是写成了坐标而不是用作旋转。"
        "这张表本身也是相对的：对每一对，$\\sin a \\sin b + \\cos a \\cos b = \\cos(a - b)$，所以两行的点积是若干 "
        "$(m - n)\\theta_t$ 的余弦之和，右图中的带宽始终闭合。",
    ),
    "versus.pe_title": ("PE(m): sin and cos of m·θ<sub>t</sub>", "PE(m)：m·θ<sub>t</sub> 的正弦与余弦"),
    "versus.dim_axis": ("Dimension (2t: sin, 2t+1: cos)", "维度（2t：sin，2t+1：cos）"),
    "versus.pe_bar": ("value", "取值"),
    "versus.pe_dot_title": ("PE(m)·PE(n) against the offset m − n", "PE(m)·PE(n) 随距离 m − n 的变化"),
    "versus.pe_dot_axis": ("PE(m)·PE(n)", "PE(m)·PE(n)"),
    "versus.mean": ("mean over the diagonal", "该对角线上的平均值"),
    "versus.band": ("min … max over the diagonal", "该对角线上的最小值 … 最大值"),
    "versus.pe_deviation": ("Toeplitz deviation of PE·PEᵀ", "PE·PEᵀ 的 Toeplitz 偏差"),
    "versus.pe_largest": ("Largest PE(m)·PE(n) = d/2", "PE(m)·PE(n) 的最大值 = d/2"),
    "versus.terms_header": ("Where absolute position leaks in: four terms", "绝对位置从哪里混进来：四项分解"),
    "versus.terms_text": (
        "Inside a layer the encoded token passes through the query and key projections, and the logit splits "
        "into four parts. Here every position holds the same token x, so anything that changes along a "
        "diagonal can only come from position. Content–content never sees a position: it is one constant. "
        "Content–position depends on the key's position n alone and position–content on the query's "
        "position m alone: these cross terms read absolute positions, so no diagonal stays constant. Even "
        "position–position stops being a function of m − n once $W_q W_k^\\top$ mixes the sin and cos coordinates "
        "(with $W_q = W_k = I$ it would be the table's own dot product above).",
        "在网络层内部，加了编码的词元要经过查询和键的投影，logit 因而分成四部分。这里每个位置都是同一个词元 x，"
        "所以沿对角线的任何变化都只能来自位置。内容–内容项从不接触位置：它是一个常数。内容–位置项只取决于键的"
        "位置 n，位置–内容项只取决于查询的位置 m：这两个交叉项读取的是绝对位置，因此没有一条对角线保持常数。"
        "一旦 $W_q W_k^\\top$ 把 sin 与 cos 坐标混在一起，就连位置–位置项也不再只是 m − n 的函数"
        "（若 $W_q = W_k = I$，它就是上面编码表自身的点积）。",
    ),
    "versus.terms_title": (
        "The four terms of the additive logits, W = W<sub>q</sub>W<sub>k</sub><sup>T</sup> "
        "(one token repeated at every position)",
        "加法编码 logit 的四项，W = W<sub>q</sub>W<sub>k</sub><sup>T</sup>（每个位置都是同一个词元）",
    ),
    "versus.term_content_content": ("content–content", "内容–内容"),
    "versus.term_content_position": ("content–position", "内容–位置"),
    "versus.term_position_content": ("position–content", "位置–内容"),
    "versus.term_position_position": ("position–position", "位置–位置"),
    "versus.panel": ("{term}:  {formula}", "{term}：{formula}"),
    "versus.logit_bar": ("logit", "logit"),
    "versus.term_deviation": ("Toeplitz deviation", "Toeplitz 偏差"),
    "versus.deviation_caption": (
        "Under each term: the largest spread (max − min) along one of its diagonals; 0 means the term depends "
        "on m − n only. For scale, the largest |logit| of the sum is {largest:.3g}.",
        "每一项下方的数字：该项任一对角线上的最大差值（最大值 − 最小值）；为 0 表示该项只取决于 m − n。"
        "作为量级参考，四项之和的最大 |logit| 为 {largest:.3g}。",
    ),
    "versus.shift_header": ("The shift test, side by side", "平移实验：并排对比"),
    "versus.shift_text": (
        "Keep the tokens (a different random one at every position this time) and move the whole sequence "
        "by k. RoPE gives back the same logits up to rounding error. The added encoding does not: its cross "
        "terms follow the absolute positions. Both panels share one colour scale.",
        "保持词元不变（这次每个位置是不同的随机词元），把整段序列平移 k。RoPE 得到的 logit 除舍入误差外完全相同；"
        "加法编码则不然：它的交叉项跟随绝对位置变化。两幅图使用同一色标。",
    ),
    "versus.shift_title": ("|A(m, n) − A(m + k, n + k)| for k = {k}", "|A(m, n) − A(m + k, n + k)|，k = {k}"),
    "versus.rope_panel": ("RoPE", "RoPE"),
    "versus.sinusoidal_panel": ("sinusoidal, added", "正弦编码（相加）"),
    "versus.residual_bar": ("residual", "残差"),
    "versus.residual_metric": ("Largest residual, {name}", "最大残差：{name}"),
    "versus.norm_header": ("What happens to the length of a token", "词元的长度会怎样"),
    "versus.norm_text": (
        "A rotation never stretches: $|R_m x| = |x|$ at every position. Adding $p_m$ does change the length, "
        "since $|x + p_m|^2 = |x|^2 + 2\\,x \\cdot p_m + d/2$ and $x \\cdot p_m$ swings with m. Here one token x sits at every "
        "position, so all the change comes from the encoding.",
        "旋转从不拉伸：在每个位置都有 $|R_m x| = |x|$。加上 $p_m$ 却会改变长度，因为 $|x + p_m|^2 = |x|^2 + 2\\,x \\cdot p_m + d/2$，"
        "而 $x \\cdot p_m$ 随 m 摆动。这里每个位置都是同一个词元 x，所以全部变化都来自位置编码。",
    ),
    "versus.norm_title": ("Length of the encoded token at each position", "各位置上编码后词元的长度"),
    "versus.norm_axis": ("Length", "长度"),
    "versus.norm_rope": ("|R<sub>m</sub> x| (RoPE)", "|R<sub>m</sub> x|（RoPE）"),
    "versus.norm_sinusoidal": ("|x + p<sub>m</sub>| (sinusoidal)", "|x + p<sub>m</sub>|（正弦编码）"),
    "versus.norm_none": ("|x| (no encoding)", "|x|（无编码）"),
    "versus.compare_header": ("Measured, not claimed", "实测，而非断言"),
    "versus.compare_text": (
        "Each cell below is computed now for the knobs above, on **{device}**. “Depends only on m − n” is "
        "answered from the Toeplitz deviation of the logits of one repeated token: yes when it is below "
        "10⁻⁴ of their largest value.",
        "下表每一格都是按上面的参数、在 **{device}** 上实时计算的。“只取决于 m − n”依据同一词元重复时 logit 的 "
        "Toeplitz 偏差判断：小于其最大值的 10⁻⁴ 即为“是”。",
    ),
    "versus.measuring": ("Timing both encodings on this device…", "正在本设备上为两种编码计时…"),
    "versus.col_measure": ("Measured", "测量项"),
    "versus.col_rope": ("RoPE (turn q and k)", "RoPE（旋转 q 与 k）"),
    "versus.col_sinusoidal": ("Sinusoidal (add pₘ)", "正弦编码（加上 pₘ）"),
    "versus.row_shift": ("Largest shift residual |A(m, n) − A(m + k, n + k)|, k = {k}",
                         "最大平移残差 |A(m, n) − A(m + k, n + k)|，k = {k}"),
    "versus.row_deviation": ("Toeplitz deviation of the logits, one token repeated",
                             "同一词元重复时 logit 的 Toeplitz 偏差"),
    "versus.row_relative": ("Depends only on m − n", "只取决于 m − n"),
    "versus.row_norm": ("Largest change of a token's length", "词元长度的最大变化"),
    "versus.row_cost": ("Cost per token, d = {d} ({tokens:,} tokens timed)", "每个词元的耗时，d = {d}（计时 {tokens:,} 个词元）"),
    "versus.ns": ("{value:,.5g} ns", "{value:,.5g} 纳秒"),
}
