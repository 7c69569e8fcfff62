"""Strings of the relative-attention page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "relative.nav": ("Relative attention", "相对注意力"),
    "relative.title": ("Scores that only know the distance", "只认距离的注意力分数"),
    "relative.intro": (
        "RoPE turns every query by an angle set by its own position and every key by an angle set by "
        "its own. When the two are compared with a dot product, only the difference of the two angles "
        "survives. So the score between a query at position m and a key at position n can tell how far "
        "apart they are, m − n, but not where in the text they stand. This page draws the whole score "
        "matrix of a sequence and puts that claim to two tests.",
        "RoPE 把每个查询按它自己的位置转一个角度，把每个键也按它自己的位置转一个角度。用点积比较两者时，"
        "只有两个角度之差会留下来。因此，位置 m 的查询与位置 n 的键之间的分数只能知道它们相距多远（m − n），"
        "却不知道它们在文本中的具体位置。本页画出一整段序列的分数矩阵，并用两个实验检验这一点。",
    ),
    "relative.seq": ("Sequence length", "序列长度"),
    "relative.seq_help": (
        "Number of tokens. Statistics use the full matrix; heatmaps show every s-th row and column "
        "when the sequence is longer than 256.",
        "词元个数。统计量基于完整矩阵计算；序列长于 256 时，热力图每隔 s 行、s 列取一个点绘制。",
    ),
    "relative.content": ("Token content", "词元内容"),
    "relative.content_help": (
        "Same: one random vector repeated at every position, so only the position differs. "
        "Random: a different random vector at every position, like real text.",
        "相同：每个位置都放同一个随机向量，只有位置不同。随机：每个位置放不同的随机向量，更像真实文本。",
    ),
    "relative.content_same": ("same token everywhere", "处处相同的词元"),
    "relative.content_random": ("random token per position", "每个位置随机词元"),
    "relative.shift": ("Shift k", "平移量 k"),
    "relative.shift_help": (
        "Every token moves from position m to position m + k; the tokens themselves stay the same.",
        "每个词元从位置 m 移到 m + k，词元本身不变。",
    ),
    "relative.causal": ("Causal mask", "因果掩码"),
    "relative.causal_help": (
        "A query at position m may only look at keys at positions n ≤ m, as in a decoder.",
        "位置 m 的查询只能看到位置 n ≤ m 的键，与解码器相同。",
    ),
    "relative.scores_title": ("Scores q<sub>m</sub>·k<sub>n</sub> with RoPE", "加入 RoPE 后的分数 q<sub>m</sub>·k<sub>n</sub>"),
    "relative.thinned": (
        "The heatmaps draw 1 in {s} rows and columns (positions 0, {s}, {s2}, …: picked, not averaged, so "
        "the diagonals stay exact); every number on this page uses all {n} × {n} scores.",
        "热力图每 {s} 行、{s} 列取一个绘制（位置 0、{s}、{s2}……：直接抽取而非平均，对角线保持精确）；"
        "本页所有数值都基于完整的 {n} × {n} 个分数计算。",
    ),
    "relative.score_bar": ("score", "分数"),
    "relative.profile_title": ("The same scores against the offset m − n", "同一组分数按距离 m − n 排列"),
    "relative.profile_mean": ("mean over the diagonal", "该对角线上的平均值"),
    "relative.profile_band": ("min … max over the diagonal", "该对角线上的最小值 … 最大值"),
    "relative.why_header": ("Why every diagonal is one colour", "为什么每条对角线只有一种颜色"),
    "relative.why_text": (
        "Write the rotated query as $R_m q$ and the rotated key as $R_n k$. A rotation undone is a rotation "
        "backwards, so comparing them is the same as leaving q where it is and turning k by n − m steps. "
        "Position m and position n never enter on their own, only through their difference. Every cell on "
        "one diagonal of the matrix has the same m − n.",
        "把旋转后的查询写成 $R_m q$，旋转后的键写成 $R_n k$。撤销一次旋转就是反向旋转，所以比较两者等价于让 q "
        "保持不动、只把 k 转过 n − m 步。位置 m 与位置 n 从不单独出现，只以差值的形式出现，而矩阵同一条对角线上"
        "的每个格子都有相同的 m − n。",
    ),
    "relative.same_text": (
        "Here every position holds the same token, so nothing but m − n changes along a diagonal: the matrix "
        "is Toeplitz (constant along each diagonal) and the band around the curve is closed. Largest spread "
        "along any diagonal:",
        "此处每个位置都是同一个词元，沿一条对角线只有 m − n 决定分数：矩阵是 Toeplitz 矩阵（每条对角线为常数），"
        "曲线周围的带宽为零。任一对角线上的最大差值：",
    ),
    "relative.random_text": (
        "Here every position holds a different token, so the cells of one diagonal compare different "
        "vectors and the diagonal is no longer constant (the band opens). That spread comes from the "
        "content, not from the positions: the shift test below shows the position part is still purely "
        "relative. Largest spread along any diagonal:",
        "此处每个位置的词元都不同，同一条对角线上的格子比较的是不同的向量，对角线不再是常数（带宽张开）。"
        "这种差异来自内容而非位置：下面的平移实验表明位置部分仍然是纯相对的。任一对角线上的最大差值：",
    ),
    "relative.deviation": ("Toeplitz deviation (max − min on one diagonal)", "Toeplitz 偏差（对角线上最大值 − 最小值）"),
    "relative.largest": ("Largest |score|, for scale", "最大 |分数|（作为量级参考）"),
    "relative.shift_header": ("Move the whole sequence by k", "把整段序列平移 k"),
    "relative.shift_text": (
        "Keep the tokens and slide them all k places to the right: the pair at (m, n) now sits at "
        "(m + k, n + k). Both rotations grow by the same k steps, their difference does not change, and "
        "so neither does the score. The heatmap shows what is left of |A(m, n) − A(m + k, n + k)|: "
        "only the rounding error of float32 arithmetic, whatever the content and however large k is.",
        "保持词元不变，把它们整体向右移动 k 位：原来位于 (m, n) 的一对现在位于 (m + k, n + k)。两个旋转都多转了"
        "相同的 k 步，它们的差不变，分数也就不变。热力图显示 |A(m, n) − A(m + k, n + k)| 剩下的部分：无论内容"
        "如何、k 有多大，都只有 float32 运算的舍入误差。",
    ),
    "relative.residual_title": ("Residual |A(m, n) − A(m + k, n + k)| for k = {k}",
                                "残差 |A(m, n) − A(m + k, n + k)|，k = {k}"),
    "relative.residual_bar": ("residual", "残差"),
    "relative.max_residual": ("Largest residual", "最大残差"),
    "relative.relative_residual": ("Largest residual / largest |score|", "最大残差 / 最大 |分数|"),
    "relative.weights_header": ("From scores to attention weights", "从分数到注意力权重"),
    "relative.weights_text": (
        "Each query turns its row of scores into weights with a softmax (after scaling by 1/√d), so a row "
        "sums to 1. With the causal mask the keys after the query get weight 0 and the upper triangle goes "
        "blank. The weights inherit the relative structure: with the same token everywhere, how much a "
        "query attends to a key depends on how far back the key is, up to the normalisation over the keys "
        "that exist in its row.",
        "每个查询把自己那一行分数（先乘以 1/√d）经过 softmax 变成权重，每行之和为 1。加上因果掩码后，"
        "查询之后的键权重为 0，上三角变为空白。权重继承了相对结构：词元处处相同时，查询对某个键的关注程度"
        "取决于该键在它之前多远，只是还要在该行现有的键上做归一化。",
    ),
    "relative.weights_title": ("Attention weights softmax(q<sub>m</sub>·k<sub>n</sub> / √d)",
                               "注意力权重 softmax(q<sub>m</sub>·k<sub>n</sub> / √d)"),
    "relative.weights_title_causal": ("Attention weights with the causal mask (n ≤ m)",
                                      "加因果掩码（n ≤ m）的注意力权重"),
    "relative.weight_bar": ("weight", "权重"),
    "relative.weights_caption": (
        "Colours stop at the 99.5th percentile of the weights drawn ({top:.3g}); the few larger weights, such "
        "as the first rows of a causal matrix, where a query has only a handful of keys, share the brightest colour.",
        "颜色上限为所绘权重的 99.5% 分位数（{top:.3g}）；少数更大的权重（例如因果矩阵的前几行，查询只有寥寥几个键）"
        "都显示为最亮的颜色。",
    ),
}
