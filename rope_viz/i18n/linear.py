"""Strings of the linear-attention page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "linear.nav": ("Linear attention", "线性注意力"),
    "linear.title": ("RoPE inside linear attention", "线性注意力中的 RoPE"),
    "linear.intro": (
        "Softmax attention scores every query against every key, an n × n table. Linear attention "
        "replaces exp(q·k) by a product of non-negative features φ(q)·φ(k), which lets it sum the keys "
        "first and never build that table. Most relative position schemes work by editing the table "
        "(adding a bias per offset), so they have nothing to hold on to here. RoPE does not touch the "
        "table: it rotates each q and k on its own, and the rotations still combine into the offset "
        "j − i. That is why it fits into linear attention, with one twist in the denominator.",
        "softmax 注意力要把每个查询与每个键都打一次分，得到一张 n × n 的表。线性注意力把 exp(q·k) 换成"
        "非负特征的乘积 φ(q)·φ(k)，于是可以先把所有键加起来，根本不必构造这张表。大多数相对位置方案靠修改"
        "这张表来工作（按距离加偏置），在这里便无从下手。RoPE 不碰这张表：它分别旋转每个 q 和 k，而旋转"
        "组合起来仍只取决于距离 j − i。所以它能放进线性注意力，只是分母需要特别处理。",
    ),
    "linear.formula_text": (
        "The general form, and why it is cheap: the sum over keys of φ(k_j) v_jᵀ is one d × d_v "
        "matrix, computed once and shared by every query.",
        "一般形式及其省算力的原因：对所有键求和的 φ(k_j) v_jᵀ 是一个 d × d_v 矩阵，只需算一次，供所有查询共用。",
    ),
    "linear.rope_text": (
        "With RoPE, rotate the features in the numerator only; the denominator keeps the plain, "
        "unrotated features (this page's version, as in RoFormer):",
        "加入 RoPE 时，只在分子中旋转特征，分母保留未旋转的原始特征（本页采用的写法，与 RoFormer 相同）：",
    ),
    "linear.seq": ("Sequence length n", "序列长度 n"),
    "linear.seq_help": (
        "How many tokens. Queries, keys and values are random standard-normal vectors.",
        "词元数量。查询、键和值都是随机的标准正态向量。",
    ),
    "linear.phi": ("Feature map φ", "特征映射 φ"),
    "linear.phi_help": (
        "The non-negative map applied to queries and keys before their dot product: elu(x) + 1 is "
        "always positive, relu(x) is zero for negative x.",
        "在点积之前作用于查询和键的非负映射：elu(x) + 1 始终为正，relu(x) 对负数取零。",
    ),
    "linear.phi_elu": ("elu(x) + 1", "elu(x) + 1"),
    "linear.phi_relu": ("relu(x)", "relu(x)"),
    "linear.outputs_header": ("The same tokens through both attentions", "同一批词元分别经过两种注意力"),
    "linear.softmax_title": ("Softmax attention output (with RoPE)", "softmax 注意力输出（含 RoPE）"),
    "linear.linear_title": ("Linear attention output (RoPE in the numerator)", "线性注意力输出（RoPE 只在分子）"),
    "linear.channel_axis": ("Output channel", "输出通道"),
    "linear.output_axis": ("output", "输出"),
    "linear.heatmap_caption": (
        "Each panel has its own colour scale. Spread of the entries: softmax {soft_std:.3g}, linear "
        "{lin_std:.3g}. The linear kernel is much flatter than exp, so every query averages over nearly "
        "all tokens: its output barely changes along the positions (vertical stripes) and stays small.",
        "两幅图各自使用独立的色标。输出的标准差：softmax 为 {soft_std:.3g}，线性为 {lin_std:.3g}。线性核比 "
        "exp 平坦得多，每个查询几乎对所有词元求平均：输出沿位置方向几乎不变（竖直条纹），幅度也小。",
    ),
    "linear.heatmap_thinned": (
        "Drawn from every {step}-th position; the numbers on this page use all of them.",
        "图中每隔 {step} 个位置取一行；本页的数值统计使用全部位置。",
    ),
    "linear.channel": ("Channel shown", "显示的通道"),
    "linear.channel_help": ("Which output channel (column of the output) the line chart follows.",
                            "折线图所跟踪的输出通道（输出矩阵的列）。"),
    "linear.channel_title": ("Output channel {c} over positions", "第 {c} 个输出通道随位置的变化"),
    "linear.softmax_series": ("softmax attention", "softmax 注意力"),
    "linear.linear_series": ("linear attention + RoPE", "线性注意力 + RoPE"),
    "linear.correlation": ("Correlation softmax ↔ linear", "softmax 与线性的相关系数"),
    "linear.correlation_help": (
        "Pearson correlation between all entries of the two outputs: they follow the same values but "
        "are not equal, since the two similarity functions differ.",
        "两个输出所有元素之间的皮尔逊相关系数：二者随同样的值变化但并不相等，因为两种相似度函数不同。",
    ),
    "linear.shift": ("Shift all positions by {shift}", "所有位置整体平移 {shift}"),
    "linear.shift_help": (
        "Largest change of the linear-attention output when every token moves {shift} positions "
        "later. It stays at rounding level: the numerator depends on positions only through j − i.",
        "当所有词元都向后平移 {shift} 个位置时，线性注意力输出的最大变化。它只在舍入误差的量级："
        "分子只通过 j − i 依赖位置。",
    ),
    "linear.zero_queries": (
        "{count} of the {seq} queries have φ(q) = 0 (every entry ≤ 0 under relu): their denominator is "
        "exactly 0 and their output is 0/0, left blank in the charts. elu(x) + 1 never does this.",
        "{seq} 个查询中有 {count} 个的 φ(q) = 0（relu 下所有分量都 ≤ 0）：它们的分母恰好为 0，输出为 0/0，"
        "图中留空。elu(x) + 1 不会出现这种情况。",
    ),
    "linear.denominator_header": ("Why the denominator stays unrotated", "为什么分母不旋转"),
    "linear.denominator_text": (
        "Every φ feature is ≥ 0, so each φ(q_i)·φ(k_j) is ≥ 0 and their sum is a safe positive "
        "normaliser. A rotation mixes the two coordinates of a pair with cos and sin, so rotated "
        "features have negative entries: the rotated dot products can be negative and their sum can "
        "come close to zero or cross it, and dividing by it blows up. Because rotations do not change "
        "lengths, the unrotated sum is still the right scale. The price: the weights in the numerator "
        "no longer add up to one and can be negative, so the output is not an average in the strict sense.",
        "φ 特征的每个分量都 ≥ 0，所以每个 φ(q_i)·φ(k_j) ≥ 0，它们的和是一个安全的正归一化量。旋转用 cos 和 "
        "sin 把一对坐标混合在一起，旋转后的特征会出现负分量：旋转后的点积可以为负，其和可能接近零甚至"
        "越过零，除以它就会爆炸。由于旋转不改变长度，未旋转的和依然给出合适的尺度。代价是：分子中的权重"
        "之和不再为一，还可能为负，因此输出不再是严格意义上的平均。",
    ),
    "linear.denominator_title": ("The two denominators at every query position", "每个查询位置上的两种分母"),
    "linear.denominator_axis": ("Σ_j φ(q_i)·φ(k_j)", "Σ_j φ(q_i)·φ(k_j)"),
    "linear.query_axis": ("Query position i", "查询位置 i"),
    "linear.unrotated_series": ("unrotated Σ φ(q_i)·φ(k_j) (used)", "未旋转 Σ φ(q_i)·φ(k_j)（采用）"),
    "linear.rotated_series": ("rotated Σ [R_i φ(q_i)]·[R_j φ(k_j)]", "旋转后 Σ [R_i φ(q_i)]·[R_j φ(k_j)]"),
    "linear.zero_series": ("zero", "零"),
    "linear.min_unrotated": ("Smallest unrotated sum", "未旋转和的最小值"),
    "linear.min_rotated": ("Smallest rotated sum", "旋转后和的最小值"),
    "linear.nonpositive": ("Rotated sums ≤ 0", "旋转后和 ≤ 0 的个数"),
    "linear.nonpositive_value": ("{count} of {seq}", "{seq} 个中 {count} 个"),
    "linear.denominator_result": (
        "At worst the rotated sum is {ratio:.0%} of the unrotated one, and {count} of the {seq} rotated "
        "sums are ≤ 0.",
        "旋转后的和最坏时是未旋转和的 {ratio:.0%}，{seq} 个旋转后的和中有 {count} 个 ≤ 0。",
    ),
    "linear.denominator_safe_here": (
        "None crosses zero here: with these settings the slow pairs barely turn, so their terms still "
        "add up and hold the rotated sum up. Lower the base (try 100) or the head dimension (try 2) and "
        "some rotated sums reach zero or go below it.",
        "此处没有越过零的：在当前设置下慢速维度对几乎不转，它们的项仍能累加，把旋转后的和撑住。降低底数"
        "（试试 100）或头维度（试试 2），就会有旋转后的和降到零或以下。",
    ),
    "linear.denominator_broken": (
        "Dividing by those would flip the sign of the output or blow it up: this is why the rotation "
        "stays out of the denominator.",
        "除以这些值会使输出变号或爆炸：这正是分母中不做旋转的原因。",
    ),
    "linear.cost_header": ("What it costs", "计算代价"),
    "linear.cost_text": (
        "Softmax attention multiplies an n × n table by the values: work grows with n². Linear "
        "attention builds the d × d_v summary once and reads it n times: work grows with n and d². "
        "Counting the multiply-adds of the matrix products (d_v = d), linear attention is cheaper as "
        "soon as n > d + 1.",
        "softmax 注意力要把 n × n 的表乘以值向量：工作量随 n² 增长。线性注意力只构造一次 d × d_v 的汇总，"
        "再读取 n 次：工作量随 n 和 d² 增长。统计矩阵乘法中的乘加次数（d_v = d），只要 n > d + 1，"
        "线性注意力就更省。",
    ),
    "linear.cost_latex": (
        r"C_\text{softmax} = n^2 (d + d_v) = O(n^2 d),\qquad C_\text{linear} = 2\,n\,d\,(d_v + 1) = O(n\,d^2)",
        r"C_\text{softmax} = n^2 (d + d_v) = O(n^2 d),\qquad C_\text{线性} = 2\,n\,d\,(d_v + 1) = O(n\,d^2)",
    ),
    "linear.cost_title": ("Multiply-adds of one head, d = {dim}", "单个注意力头的乘加次数，d = {dim}"),
    "linear.cost_axis": ("Multiply-adds (log scale)", "乘加次数（对数坐标）"),
    "linear.length_axis": ("Sequence length n (log scale)", "序列长度 n（对数坐标）"),
    "linear.cost_now": (
        "At n = {seq}, d = {dim}: softmax {soft:,.0f}, linear {lin:,.0f} multiply-adds ({ratio:.2g}×).",
        "在 n = {seq}、d = {dim} 时：softmax {soft:,.0f} 次，线性 {lin:,.0f} 次乘加（{ratio:.2g} 倍）。",
    ),
    "linear.timing": ("Measure wall-clock time", "测量实际耗时"),
    "linear.timing_help": (
        "Time both attentions on this server's device at several lengths (takes a few seconds the "
        "first time, then it is remembered).",
        "在本服务器的计算设备上测量两种注意力在多个长度下的耗时（首次需要几秒，之后会缓存）。",
    ),
    "linear.timing_title": ("Measured time per call on {device}, d = {dim}", "在 {device} 上每次调用的实测耗时，d = {dim}"),
    "linear.time_axis": ("Milliseconds (log scale)", "毫秒（对数坐标）"),
    "linear.timing_caption": (
        "Median of a few timed calls. Small sizes are dominated by fixed overheads, so the measured "
        "curves bend away from the counted ones at the left.",
        "若干次计时调用的中位数。规模较小时固定开销占主导，因此实测曲线在左端偏离计数曲线。",
    ),
}
