"""Strings of the long-term decay page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "decay.nav": ("Long-term decay", "远程衰减"),
    "decay.title": ("Does attention fade with distance?", "注意力会随距离衰减吗？"),
    "decay.intro": (
        "RoFormer argues that RoPE makes far-apart tokens interact more weakly. The argument does not "
        "look at any particular query or key: it bounds the size of the score by a factor that depends "
        "only on the distance r = m − n, the head dimension and the base. This page draws that factor, "
        "sweeps the base, and sets it next to scores actually measured on random vectors.",
        "RoFormer 认为 RoPE 让相距较远的词元之间的相互作用变弱。这个论证并不针对某个具体的查询或键："
        "它给分数的大小找了一个上界因子，该因子只取决于距离 r = m − n、头维度和底数。本页画出这个因子，"
        "扫描不同的底数，并把它与在随机向量上实际测得的分数放在一起比较。",
    ),
    "decay.argument_header": ("Where the bound comes from", "上界从何而来"),
    "decay.argument_pairs": (
        "Read each pair of coordinates as one complex number. Rotating q by m and k by n turns pair *i* "
        "of their product by the angle r·θᵢ, so the score is the real part of a sum of d/2 turned terms, "
        "where hᵢ is the product of pair *i* of q with the conjugate of pair *i* of k:",
        "把每一对坐标看成一个复数。q 转到位置 m、k 转到位置 n 后，二者乘积的第 *i* 对恰好转过角度 r·θᵢ，"
        "因此分数是 d/2 个被转动的项之和的实部，其中 hᵢ 是 q 的第 *i* 对与 k 的第 *i* 对的共轭之积：",
    ),
    "decay.argument_abel": (
        "Now collect the rotations into running sums Sⱼ of unit arrows, with S₀ = 0 and h = 0 past the last pair. "
        "Summation by parts, the discrete twin of integration by parts, moves the differences from the "
        "arrows onto the hᵢ:",
        "再把这些旋转累加成单位箭头的部分和 Sⱼ，并约定 S₀ = 0、最后一对之后的 h 为 0。分部求和（离散版的分部积分）"
        "把“差分”从箭头转移到 hᵢ 上：",
    ),
    "decay.argument_bound": (
        "The triangle inequality then splits content from distance: the first factor depends only on q "
        "and k, the second only on r. At r = 0 all arrows point the same way, |Sⱼ| = j and the average "
        "is (d/2 + 1)/2. As r grows the fast arrows point every which way, their running sums stay "
        "short, and the average shrinks. The chart shows that average, (1/(d/2)) Σ|Sⱼ|.",
        "再用三角不等式把内容与距离分开：第一个因子只与 q、k 有关，第二个只与 r 有关。r = 0 时所有箭头"
        "同向，|Sⱼ| = j，平均值为 (d/2 + 1)/2；r 增大后，转得快的箭头方向四散，部分和始终很短，平均值随之"
        "变小。图中画的就是这个平均值 (1/(d/2)) Σ|Sⱼ|。",
    ),
    "decay.max_r": ("Max distance r", "最大距离 r"),
    "decay.max_r_help": (
        "The largest relative distance m − n on the x axis. The bound is computed at every integer "
        "distance up to it.",
        "横轴上最大的相对距离 m − n。上界在其以内的每个整数距离上都会计算。",
    ),
    "decay.log_x": ("Log distance axis", "距离取对数坐标"),
    "decay.log_x_help": (
        "Spread the distances on a log scale: the first few hundred steps, where most of the fall "
        "happens, get more room (r = 0 is not drawn on a log axis).",
        "以对数刻度展示距离：下降主要发生在前几百步，对数坐标给它们更多空间（对数轴上不画 r = 0）。",
    ),
    "decay.sweep": ("Bases to compare", "对比的底数"),
    "decay.sweep_help": (
        "Extra bases drawn as dashed curves next to the chosen one (at most 6). Long-context models "
        "raise the base, e.g. to 500,000 or 1,000,000.",
        "在所选底数之外再画几条虚线作对比（最多 6 个）。长上下文模型会调大底数，例如 500,000 或 1,000,000。",
    ),
    "decay.bound_title": ("RoFormer's bound (1/(d/2)) Σ|Sⱼ| against distance, d = {dim}",
                          "RoFormer 上界 (1/(d/2)) Σ|Sⱼ| 与距离的关系，d = {dim}"),
    "decay.distance_axis": ("Relative distance r = m − n", "相对距离 r = m − n"),
    "decay.bound_axis": ("Bound factor (1/(d/2)) Σ|Sⱼ|", "上界因子 (1/(d/2)) Σ|Sⱼ|"),
    "decay.chosen_series": ("base {base} (chosen)", "底数 {base}（当前）"),
    "decay.sweep_series": ("base {base}", "底数 {base}"),
    "decay.ripple": (
        "**Measured ripple.** Over every integer distance from 0 to {max_r}, the bound for base {base} "
        "goes *up* at **{rises}** of the {steps} steps ({share:.0%}). It starts at {start:.4g} "
        "(= (d/2 + 1)/2), reaches its lowest value {low:.4g} at r = {low_at} and ends at {end:.4g} "
        "({ratio:.0%} of its start).",
        "**实测的起伏。** 在 0 到 {max_r} 的每个整数距离上，底数 {base} 的上界在 {steps} 步中有 "
        "**{rises}** 步是*上升*的（{share:.0%}）。它从 {start:.4g}（= (d/2 + 1)/2）出发，在 r = {low_at} "
        "处降到最低值 {low:.4g}，终点为 {end:.4g}（起点的 {ratio:.0%}）。",
    ),
    "decay.ripple_remark": (
        "So the decay is a trend of the envelope, not a monotone fall: a farther token can have a "
        "larger bound than a nearer one. And it is only a bound on the size of the score: a "
        "particular query and key can score anything beneath it, including more at a distance than "
        "nearby. A larger base makes the slow pairs slower, so the curve stays high for longer.",
        "因此所谓衰减是包络的趋势，而不是单调下降：较远词元的上界可能比较近词元的更大。而且它只是分数"
        "大小的上界：具体的查询和键可以在其下方取任意值，甚至远处的分数比近处更高。底数越大，慢速维度对"
        "转得越慢，曲线保持在高位的距离也越长。",
    ),
    "decay.empirical_text": (
        "The bound says nothing about a typical score, so here is one measured. Draw q and k with "
        "entries uniform in [0, 1), rotate k by r and average q·R_r k over the samples; the second "
        "curve uses q = k. Because the entries have a positive mean, the average behaves like a "
        "constant times Σᵢ cos(r·θᵢ) (½ for independent vectors, ⅔ for q = k): it falls from d/4 or "
        "d/3 and then wobbles around zero. With zero-mean entries it would be zero at every distance: "
        "decay shows up only when q and k share a direction.",
        "上界并不描述典型的分数，所以这里实际测一次。抽取各分量在 [0, 1) 内均匀分布的 q 和 k，把 k 转过 r，"
        "再对所有样本平均 q·R_r k；第二条曲线取 q = k。由于分量均值为正，平均值近似于一个常数乘以 "
        "Σᵢ cos(r·θᵢ)（独立时为 ½，q = k 时为 ⅔）：它从 d/4 或 d/3 开始下降，随后在零附近摆动。若分量均值为零，"
        "它在任何距离上都是零：只有当 q 与 k 有共同方向时，衰减才会显现。",
    ),
    "decay.samples": ("Samples", "样本数"),
    "decay.samples_help": (
        "How many random (q, k) pairs are averaged at each distance.",
        "在每个距离上平均的随机 (q, k) 对的数量。",
    ),
    "decay.empirical_title": ("Mean score q·R_r k over {samples} random pairs, base {base}",
                              "{samples} 对随机向量的平均分数 q·R_r k，底数 {base}"),
    "decay.score_axis": ("Mean score", "平均分数"),
    "decay.free_series": ("independent q, k", "独立的 q, k"),
    "decay.tied_series": ("q = k", "q = k"),
    "decay.empirical_caption": (
        "Evaluated at {points} distances between 0 and {max_r} (every integer when they fit).",
        "在 0 到 {max_r} 之间的 {points} 个距离上计算（能容纳时取每个整数）。",
    ),
}
