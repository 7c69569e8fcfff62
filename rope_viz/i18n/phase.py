"""Strings of the phase page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "phase.nav": ("Phase cancellation", "相位相消"),
    "phase.title": ("Absolute angles cancel, the offset stays", "绝对角度相消，只剩相对距离"),
    "phase.intro": (
        "RoPE turns the query at position m by the angle mθ and the key at position n by nθ. Each "
        "vector on its own carries an absolute position, yet their dot product only ever sees "
        "n − m. The reason fits in three short steps about 2×2 rotations, taken one at a time "
        "below, and every step is checked in numbers for the positions and frequency you pick.",
        "RoPE 把位置 m 处的查询转过角度 mθ，把位置 n 处的键转过 nθ。单看每个向量，它们都带着绝对位置；"
        "可它们的点积只看得到 n − m。原因可以归结为关于 2×2 旋转的三个小步骤，下面逐步讲解，"
        "并对你选择的位置和频率逐步做数值验证。",
    ),
    "phase.m_help": ("Where the query sits; it is turned by m·θ.", "查询所在的位置；它被转过 m·θ。"),
    "phase.n_help": ("Where the key sits; it is turned by n·θ.", "键所在的位置；它被转过 n·θ。"),
    "phase.pair": ("Pair i (sets θ = θᵢ)", "维度对 i（决定 θ = θᵢ）"),
    "phase.pair_help": (
        "The 2-D steps use the frequency θᵢ = base^(−2i/d) of this pair, and its two coordinates of q and k.",
        "二维部分使用该维度对的频率 θᵢ = base^(−2i/d)，以及 q、k 在这一对上的两个坐标。",
    ),
    "phase.theta_caption": (
        "$\\theta = \\theta_{{{i}}}$ = {theta:.6g} rad per position, so $R_m$ turns by {m_angle:.4g} rad "
        "and $R_n$ by {n_angle:.4g} rad.",
        "$\\theta = \\theta_{{{i}}}$ = {theta:.6g} 弧度/位置，因此 $R_m$ 转过 {m_angle:.4g} 弧度，"
        "$R_n$ 转过 {n_angle:.4g} 弧度。",
    ),
    # step 1
    "phase.step1_header": ("Step 1: transposing a rotation turns it back", "第一步：旋转矩阵的转置就是反向旋转"),
    "phase.step1_text": (
        "Flip R(α) over its diagonal and the two sine terms swap places. Because cosine is even and "
        "sine is odd, the flipped matrix is exactly the rotation by −α. Turning by α and then by −α "
        "goes nowhere, so the transpose is also the inverse: for a rotation, undoing costs nothing "
        "more than a transpose.",
        "把 R(α) 沿对角线翻转，两个正弦项交换位置。由于余弦是偶函数、正弦是奇函数，翻转后的矩阵恰好是"
        "转 −α 的旋转矩阵。先转 α 再转 −α 等于没转，所以转置同时也是逆矩阵：对旋转而言，求逆只需转置。",
    ),
    "phase.transpose_error": (r"Transpose vs inverse: $\max|R_m^\top - R_m^{-1}|$",
                              r"转置与逆：$\max|R_m^\top - R_m^{-1}|$"),
    "phase.negative_error": (r"Inverse vs turning by −mθ: $\max|R_m^{-1} - R(-m\theta)|$",
                             r"逆与反向旋转：$\max|R_m^{-1} - R(-m\theta)|$"),
    "phase.inverse_note": (
        "$R_m^{-1}$ here comes from a general numerical matrix inversion, not from the formula, so the "
        "check is not circular.",
        "这里的 $R_m^{-1}$ 由通用的数值矩阵求逆得到，而不是直接套公式，因此这个检验不是循环论证。",
    ),
    # step 2
    "phase.step2_header": ("Step 2: angles add, so the absolute angles cancel",
                           "第二步：角度相加，绝对角度因此相消"),
    "phase.step2_text": (
        "Doing one rotation after another adds their angles (that is the angle-addition formula for "
        "sine and cosine, written as a matrix product). Put R(−mθ) from step 1 next to R(nθ): the "
        "angles nθ and −mθ add up to (n − m)θ and the absolute position is gone. Slide m and n "
        "by the same amount: the first two panels change, the last two do not.",
        "两次旋转接连进行，角度相加（这就是正弦、余弦的和角公式写成矩阵乘积的样子）。把第一步中的 "
        "R(−mθ) 与 R(nθ) 相乘：nθ 与 −mθ 相加得到 (n − m)θ，绝对位置消失了。把 m 和 n 同时加上"
        "相同的数：前两个面板会变，后两个不变。",
    ),
    "phase.matrices_title": ("The four 2×2 matrices (numbers in the cells)", "四个 2×2 矩阵（格中为数值）"),
    "phase.panel_rm": ("R<sub>m</sub> = R({m}θ)", "R<sub>m</sub> = R({m}θ)"),
    "phase.panel_rn": ("R<sub>n</sub> = R({n}θ)", "R<sub>n</sub> = R({n}θ)"),
    "phase.panel_product": ("R<sub>n</sub> R<sub>m</sub><sup>−1</sup>", "R<sub>n</sub> R<sub>m</sub><sup>−1</sup>"),
    "phase.panel_relative": ("R<sub>n−m</sub> = R({d}θ)", "R<sub>n−m</sub> = R({d}θ)"),
    "phase.column": ("column", "列"),
    "phase.row": ("row", "行"),
    "phase.relative_error": (r"Phase cancellation: $\max|R_n R_m^{-1} - R_{n-m}|$",
                             r"相位相消：$\max|R_n R_m^{-1} - R_{n-m}|$"),
    # step 3: sliding in 2-D
    "phase.step3_header": ("Step 3: slide both tokens, the score holds still",
                           "第三步：两个词元一起平移，分数纹丝不动"),
    "phase.step3_text": (
        "Write the dot product as a matrix product and move the transpose inside: the query's "
        "rotation arrives as $R_m^\\top$, which step 1 turns into $R_m^{-1}$, and step 2 merges $R_m^{-1}$ "
        "with $R_n$ into $R_{n-m}$. Press play: both tokens move s positions further, so both arrows keep "
        "turning, but the angle between them, and with it the dot product in the title, never changes.",
        "把点积写成矩阵乘积，再把转置移进去：查询的旋转变成 $R_m^\\top$，第一步把它变成 $R_m^{-1}$，第二步把 "
        "$R_m^{-1}$ 与 $R_n$ 合并成 $R_{n-m}$。点击播放：两个词元都向后移动 s 个位置，两支箭头一直在转，"
        "但它们之间的夹角不变，标题中的点积也随之保持不变。",
    ),
    "phase.query_name": ("query pair, turned to m + s", "查询的这一对，转到 m + s"),
    "phase.key_name": ("key pair, turned to n + s", "键的这一对，转到 n + s"),
    "phase.frame_title": ("shift s = {s}: q at {qm}, k at {kn}, q·k = {dot:.6f}",
                          "平移 s = {s}：q 在 {qm}，k 在 {kn}，q·k = {dot:.6f}"),
    "phase.first": ("first coordinate of the pair", "该对的第一个坐标"),
    "phase.second": ("second coordinate of the pair", "该对的第二个坐标"),
    "phase.play": ("Play", "播放"),
    "phase.pause": ("Pause", "暂停"),
    "phase.shift_prefix": ("shift s = ", "平移 s = "),
    "phase.spread": (
        "Over the {frames} frames (shifts 0 to {last}) the dot product moves by at most **{spread:.1e}**.",
        "在 {frames} 帧中（平移 0 到 {last}），点积的变化不超过 **{spread:.1e}**。",
    ),
    # d dimensions
    "phase.dims_header": ("In d dimensions: the same steps, block by block", "d 维情形：逐块重复同样的步骤"),
    "phase.dims_text": (
        "A d-dimensional query is cut into d/2 pairs, and $R_{\\Theta,m}$ holds one 2×2 rotation per pair "
        "on its diagonal, pair i turning by mθᵢ. Block-diagonal matrices multiply and transpose "
        "block by block, so steps 1 and 2 apply to every block at once, each with its own θᵢ. "
        "Below, q and k are random vectors (see the seed) and both sides are computed separately "
        "with dense d×d matrices.",
        "d 维查询被切成 d/2 对，$R_{\\Theta,m}$ 的对角线上每对放一个 2×2 旋转，第 i 对转过 mθᵢ。"
        "分块对角矩阵的乘法和转置都可以逐块进行，所以第一步和第二步同时作用于每一块，各自使用自己的 θᵢ。"
        "下面的 q、k 是随机向量（由随机种子决定），等式两边分别用稠密的 d×d 矩阵独立计算。",
    ),
    "phase.block_title": ("R<sub>Θ,m</sub> at m = {m} (d = {d}): one 2×2 rotation per pair",
                          "R<sub>Θ,m</sub>，m = {m}（d = {d}）：每对一个 2×2 旋转"),
    "phase.entry": ("entry", "元素值"),
    "phase.lhs": (r"Rotate, then dot: $(R_{\Theta,m}\,q)^\top(R_{\Theta,n}\,k)$",
                  r"先旋转再点积：$(R_{\Theta,m}\,q)^\top(R_{\Theta,n}\,k)$"),
    "phase.rhs": (r"Offset only: $q^\top R_{\Theta,n-m}\,k$", r"只用相对距离：$q^\top R_{\Theta,n-m}\,k$"),
    "phase.difference": ("|difference|", "|差值|"),
    "phase.matrix_error": (r"$\max|R_{\Theta,m}^\top R_{\Theta,n} - R_{\Theta,n-m}|$",
                           r"$\max|R_{\Theta,m}^\top R_{\Theta,n} - R_{\Theta,n-m}|$"),
    "phase.shift_title": ("The d-dimensional score as the tokens slide by s", "d 维分数随平移 s 的变化"),
    "phase.shift_axis": ("shift s", "平移 s"),
    "phase.score_axis": ("score q·k", "分数 q·k"),
    "phase.both_series": ("both slide: q at m + s, k at n + s", "两者一起平移：q 在 m + s，k 在 n + s"),
    "phase.key_series": ("only the key slides: q at m, k at n + s", "只平移键：q 在 m，k 在 n + s"),
    "phase.shift_caption": (
        "The flat line is the theorem at work. The moving line is the contrast: change the offset "
        "and the score does change, which is what lets attention tell distances apart.",
        "水平直线正是该定理的体现。另一条变化的曲线作为对照：改变相对距离，分数确实会变，"
        "注意力正是靠这一点分辨距离。",
    ),
}
