"""Strings of the implementation page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "implementation.nav": ("Implementation", "实现方式"),
    "implementation.title": ("From formula to code", "从公式到代码"),
    "implementation.intro": (
        "The formula for RoPE fits on one line, but a library has to choose how to compute it. This page "
        "first turns one small vector by hand so every number is visible, then compares the three ways "
        "of writing the same rotation and what each costs, shows why two popular memory layouts give the "
        "same model, rotates only part of a vector, and explains why the value vectors are never rotated.",
        "RoPE 的公式一行就能写完，但代码库必须决定怎样去算它。本页先手算一个小向量的旋转，让每个数字都看得见；"
        "再比较同一个旋转的三种写法及其开销；说明两种常见的存储布局为什么给出同一个模型；演示只旋转向量的一部分；"
        "最后解释为什么值向量 V 从不旋转。",
    ),
    # 1. the worked example
    "implementation.worked_header": ("1 · One rotation, every number", "1 · 一次旋转，每一步的数字"),
    "implementation.worked_text": (
        "Take a single pair q = (q₁, q₂) with frequency θ at position m. The pair turns by the angle mθ: "
        "multiply it by the 2×2 rotation matrix. Below, every product and every sum is written out, "
        "so you can redo it on paper. The defaults are the classic example q = [1, 2], θ = 0.5, m = 1.",
        "取一个二维对 q = (q₁, q₂)，频率为 θ，位置为 m。这一对要转过 mθ 的角度：用 2×2 旋转矩阵乘它即可。"
        "下面把每一个乘积、每一次求和都写了出来，你可以在纸上重算一遍。默认值是经典例子 q = [1, 2]，θ = 0.5，m = 1。",
    ),
    "implementation.q1": ("q₁ (first coordinate)", "q₁（第一个坐标）"),
    "implementation.q2": ("q₂ (second coordinate)", "q₂（第二个坐标）"),
    "implementation.q_help": ("A coordinate of the pair to rotate.", "待旋转二维对的一个坐标。"),
    "implementation.theta": ("Frequency θ (rad per position)", "频率 θ（弧度/位置）"),
    "implementation.theta_help": (
        "How far this pair turns per position step; in a real model it is base^(-2i/d) for pair i.",
        "该对每前进一个位置转过的角度；在真实模型中第 i 对的频率是 base^(-2i/d)。",
    ),
    "implementation.m": ("Position m", "位置 m"),
    "implementation.m_help": ("The token's position; the pair turns by m·θ.", "词元所在位置；该对转过 m·θ。"),
    "implementation.result_first": ("q′₁", "q′₁"),
    "implementation.result_second": ("q′₂", "q′₂"),
    "implementation.norm_before": ("|q| before", "旋转前 |q|"),
    "implementation.norm_after": ("|q′| after", "旋转后 |q′|"),
    "implementation.worked_before": ("q (before)", "q（旋转前）"),
    "implementation.worked_after": ("q′ at m = {m}", "m = {m} 处的 q′"),
    "implementation.worked_plot_title": ("q turned by mθ = {angle:.4g} rad", "q 转过 mθ = {angle:.4g} 弧度"),
    "implementation.first_coord": ("first coordinate", "第一个坐标"),
    "implementation.second_coord": ("second coordinate", "第二个坐标"),
    "implementation.note_typo": (
        "**About a misprint.** One of the source notes gives this example's result as [{x}, {y}]. The "
        "second number cannot be right: a rotation never changes length, so |q′| must stay "
        "|q| = √5 = {norm:.5f}, but [{x}, {y}] has length {printed_norm:.4f}. Even with the note's own "
        "four-digit table (cos 0.5 ≈ 0.8776, sin 0.5 ≈ 0.4794) the sum is 0.4794 + 2 × 0.8776 = {rounded:.4f}: "
        "a one-digit slip. The correct result is the one above.",
        "**关于一处笔误。** 有一份参考笔记把这个例子的结果写成 [{x}, {y}]。第二个数不可能正确：旋转从不改变长度，"
        "|q′| 必须仍等于 |q| = √5 = {norm:.5f}，而 [{x}, {y}] 的长度是 {printed_norm:.4f}。即使按笔记自己的四位小数"
        "（cos 0.5 ≈ 0.8776，sin 0.5 ≈ 0.4794）计算，和也应为 0.4794 + 2 × 0.8776 = {rounded:.4f}，"
        "可见只是抄错了一位数字。正确结果就是上面算出的值。",
    ),
    # 2. three forms and their cost
    "implementation.forms_header": ("2 · Three ways to write it, one answer", "2 · 三种写法，同一个答案"),
    "implementation.forms_text": (
        "The rotation of a whole d-dimensional vector can be written as one big block-diagonal matrix, as "
        "two elementwise products with cos and sin tables, or as multiplying d/2 complex numbers by unit "
        "rotors. They are the same arithmetic, so their results agree up to rounding. What differs is the "
        "cost: the matrix is mostly zeros, yet a matrix product still touches all d² entries per token, "
        "while the other forms do a few operations per coordinate.",
        "整个 d 维向量的旋转可以写成一个大的分块对角矩阵，也可以写成与 cos、sin 表的两次逐元素乘法，"
        "还可以看作 d/2 个复数各乘一个单位旋转子。它们做的是同一套算术，所以结果只差舍入误差。"
        "不同的是开销：这个矩阵几乎全是零，但矩阵乘法仍要对每个词元处理全部 d² 个元素；"
        "另外两种写法对每个坐标只做几次运算。",
    ),
    "implementation.method_matrix": ("Matrix R·x", "矩阵 R·x"),
    "implementation.method_pairs": ("Elementwise cos/sin", "逐元素 cos/sin"),
    "implementation.method_complex": ("Complex e^(imθ)", "复数 e^(imθ)"),
    "implementation.method_fast": ("Fast path", "快速路径"),
    "implementation.cost_matrix": ("O(d²) per token", "每个词元 O(d²)"),
    "implementation.cost_pairs": ("O(d) per token", "每个词元 O(d)"),
    "implementation.cost_complex": ("O(d) per token", "每个词元 O(d)"),
    "implementation.batch_text": (
        "Pick a batch of random query vectors (sequence length × head dimension). Every method rotates "
        "the same batch; the tables give the largest difference between any two results and the time "
        "one call takes. The fast path is the library's own choice for this device.",
        "选择一批随机查询向量（序列长度 × 头维度）。每种方法都旋转同一批向量；表格给出任意两种结果之间的最大差异，"
        "以及一次调用所需的时间。“快速路径”是库针对当前设备选择的实现。",
    ),
    "implementation.seq_help": (
        "Rows of the random batch (token positions 0 .. length − 1).",
        "随机批次的行数（词元位置 0 .. 长度 − 1）。",
    ),
    "implementation.matrix_too_large": (
        "The dense matrix method would need more memory than this server allows at these sizes, so it is "
        "left out of the comparison.",
        "在当前规模下，稠密矩阵方法需要的内存超过了服务器允许的上限，因此未参与比较。",
    ),
    "implementation.timing_spinner": ("Timing {methods} methods on this device…", "正在当前设备上为 {methods} 种方法计时…"),
    "implementation.cost_title": ("Time per call, {seq} tokens × d = {dim}", "每次调用耗时：{seq} 个词元 × d = {dim}"),
    "implementation.method_axis": ("method", "方法"),
    "implementation.time_axis": ("microseconds per call (log scale)", "每次调用的微秒数（对数坐标）"),
    "implementation.col_method": ("method", "方法"),
    "implementation.col_time": ("µs per call", "每次调用（微秒）"),
    "implementation.col_relative": ("relative to fastest", "相对最快者"),
    "implementation.col_pair": ("methods compared", "比较的方法"),
    "implementation.col_gap": ("max |difference|", "最大 |差值|"),
    "implementation.timing_caption": (
        "Measured on {device}: median of 3 timed runs after a warm-up, for {seq} × {dim} float32 values. "
        "The timings are kept for these sizes, so moving other knobs does not re-measure. The largest "
        "difference between methods, {gap:.1e}, is float32 rounding (about 1e-7 of the values' size).",
        "在 {device} 上测量：预热一次后取 3 次计时的中位数，数据为 {seq} × {dim} 个 float32 数值。"
        "计时结果按规模缓存，调整其他参数不会重新测量。各方法之间的最大差异 {gap:.1e} 只是 float32 的舍入误差"
        "（约为数值大小的 1e-7）。",
    ),
    # 3. layouts
    "implementation.layout_header": ("3 · Interleaved or half: same model, different storage",
                                     "3 · 交错式还是半分式：同一个模型，不同的存储"),
    "implementation.layout_text": (
        "Which two coordinates form a pair is a convention. The paper and Meta's LLaMA code pair neighbours "
        "(2i, 2i+1); GPT-NeoX and Hugging Face's rotate_half pair coordinate i with i + d/2. With the same "
        "weights the two give different rotated vectors and different attention scores. But the model can "
        "simply store its query and key projection columns in the other order: after the permutation p "
        "below, the half layout reproduces the interleaved scores exactly. That is why checkpoints can be "
        "converted between the two code bases by reordering weights.",
        "哪两个坐标组成一对只是一种约定。论文和 Meta 的 LLaMA 代码把相邻坐标 (2i, 2i+1) 配对；GPT-NeoX 和 "
        "Hugging Face 的 rotate_half 则把第 i 个坐标与第 i + d/2 个配对。权重相同时，两者得到的旋转向量和注意力分数"
        "都不同。但模型只需把查询、键投影矩阵的列换一种顺序存放：按下面的置换 p 重排后，半分式就能精确复现交错式的分数。"
        "这正是两套代码之间可以通过重排权重来互相转换检查点的原因。",
    ),
    "implementation.gap_rotated": ("rotated q: interleaved vs half", "旋转后的 q：交错式 vs 半分式"),
    "implementation.gap_rotated_help": (
        "max |difference| of the rotated query tensors with the same weights: the tensors differ.",
        "权重相同时两种布局旋转后查询张量的最大差值：张量本身不同。",
    ),
    "implementation.gap_scores_same_weights": ("scores, same weights", "分数（相同权重）"),
    "implementation.gap_scores_same_weights_help": (
        "max |difference| of the attention logits when both layouts use the same W_q, W_k.",
        "两种布局使用相同 W_q、W_k 时注意力 logits 的最大差值。",
    ),
    "implementation.gap_scores_permuted_weights": ("scores, permuted weights", "分数（重排权重后）"),
    "implementation.gap_scores_permuted_weights_help": (
        "max |difference| of the logits after the half layout's W_q, W_k columns are reordered by p: "
        "zero up to float32 rounding.",
        "半分式的 W_q、W_k 各列按 p 重排后 logits 的最大差值：只剩 float32 舍入误差。",
    ),
    "implementation.pairs_title": ("Which pair each coordinate belongs to", "每个坐标属于哪一对"),
    "implementation.coordinate_axis": ("coordinate index", "坐标序号"),
    "implementation.layout_axis": ("layout", "布局"),
    "implementation.pair_colorbar": ("pair i", "维度对 i"),
    # 4. partial rotary
    "implementation.partial_header": ("4 · Partial rotary: rotate only the first r coordinates",
                                      "4 · 部分旋转：只转前 r 个坐标"),
    "implementation.partial_text": (
        "Some models rotate only part of each head (GPT-J rotates 64 of 256 coordinates, GPT-NeoX a "
        "quarter). The first r coordinates carry position through their rotation; the rest pass through "
        "untouched and compare content alone. The bars show how much each coordinate of one random "
        "vector changes when it is moved to position m.",
        "有些模型只旋转每个头的一部分坐标（GPT-J 在 256 个坐标中只转 64 个，GPT-NeoX 转四分之一）。"
        "前 r 个坐标通过旋转携带位置信息；其余坐标原样通过，只用于比较内容。"
        "柱状图显示一个随机向量移到位置 m 时每个坐标变化了多少。",
    ),
    "implementation.rotary_dim": ("Rotated coordinates r", "旋转的坐标数 r"),
    "implementation.rotary_dim_help": (
        "How many leading coordinates rotate (even, at most the head dimension); the rest pass through.",
        "前面多少个坐标参与旋转（偶数，不超过头维度）；其余坐标原样通过。",
    ),
    "implementation.position": ("Position m", "位置 m"),
    "implementation.position_help": ("Where the vector is moved to.", "向量被移到的位置。"),
    "implementation.rotated_series": ("rotated (first {r})", "旋转的坐标（前 {r} 个）"),
    "implementation.passed_series": ("passed through", "原样通过的坐标"),
    "implementation.partial_title": ("|change| per coordinate, r = {r} of d = {d}, position {m}",
                                     "各坐标的变化量 |Δ|：r = {r}，d = {d}，位置 {m}"),
    "implementation.change_axis": ("|rotated − original|", "|旋转后 − 原值|"),
    "implementation.partial_caption": (
        "{r} of {d} coordinates rotate; the other {rest} are exactly unchanged. Within the rotated part the "
        "first pairs (fast clocks) have turned many times and land anywhere on their circle, while the last "
        "pairs (slow clocks) have hardly moved.",
        "{d} 个坐标中有 {r} 个旋转，其余 {rest} 个完全不变。在旋转部分中，前面的维度对（快时钟）已经转了许多圈，"
        "可能停在圆上任意位置；后面的维度对（慢时钟）几乎没动。",
    ),
    # 5. values
    "implementation.value_header": ("5 · Why V is not rotated", "5 · 为什么不旋转 V"),
    "implementation.value_text": (
        "Attention does two jobs. The scores q·k decide *how much* each token listens to each other "
        "token: that is where the distance between them should matter, and rotating q and k makes the "
        "score depend on m − n only. The values v are *what* gets passed along: their content. If v were "
        "rotated by its own position, the output would mix in the absolute position of each key, so the "
        "same sentence would give different outputs depending on where it sits in the text. Below, the "
        "whole sequence is shifted by a number of positions and we measure how much each output moves.",
        "注意力做两件事。分数 q·k 决定每个词元对其他词元关注*多少*：词元之间的距离应当在这里起作用，"
        "旋转 q 和 k 正好让分数只依赖 m − n。值向量 v 则是被传递的*内容*本身。如果按各自位置旋转 v，"
        "输出就会混入每个键的绝对位置，同一句话放在文本中不同位置会得到不同的输出。"
        "下面把整个序列整体平移若干位置，测量每个输出因此改变了多少。",
    ),
    "implementation.shift": ("Shift every position by", "所有位置整体平移"),
    "implementation.shift_help": (
        "Positions 0 .. n−1 become shift .. shift+n−1; the tokens and their order stay the same.",
        "位置 0 .. n−1 变为 shift .. shift+n−1；词元及其顺序保持不变。",
    ),
    "implementation.value_plain": ("V not rotated (RoPE as used)", "不旋转 V（RoPE 的实际用法）"),
    "implementation.value_rotated_values": ("V rotated by its position", "按位置旋转 V"),
    "implementation.value_rotated_back": ("V rotated, output rotated back by −m", "旋转 V，输出再反转 −m"),
    "implementation.value_title": ("How far each output moves when all positions shift by {shift}",
                                   "所有位置平移 {shift} 时各输出的变化量"),
    "implementation.query_axis": ("query position", "查询位置"),
    "implementation.output_gap_axis": ("max |output change|", "输出的最大 |变化|"),
    "implementation.value_takeaway": (
        "With V left alone the outputs do not move at all (only float32 rounding remains): attention sees "
        "relative positions only. Rotating V makes the outputs jump, because each value now carries its "
        "absolute angle. Undoing the rotation at the output (multiplying by the query's inverse rotation) "
        "turns this back into relative angles n − m, which shows the problem really is the absolute angle, "
        "but costs an extra rotation per token for no gain in ordinary models; that is why RoPE touches "
        "only q and k.",
        "不旋转 V 时，输出完全不动（只剩 float32 舍入误差）：注意力只看到相对位置。旋转 V 后输出明显跳变，"
        "因为每个值向量都带上了自己的绝对角度。如果在输出端再乘以查询位置的逆旋转，就又变回相对角度 n − m："
        "这说明问题确实出在绝对角度上，但对普通模型而言，这只是为每个词元多做一次旋转而没有收益。"
        "因此 RoPE 只作用于 q 和 k。",
    ),
}
