"""Strings of the frequency-clocks page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "rotations.nav": ("Frequency clocks", "频率时钟"),
    "rotations.title": ("Every pair is a clock", "每个维度对都是一只时钟"),
    "rotations.intro": (
        "RoPE cuts a d-dimensional vector into d/2 pairs and turns each pair in its own plane. "
        "Moving one position forward turns pair *i* by θᵢ radians, so pair 0 spins fast (one radian "
        "per step) while the last pairs barely move. Read the pairs like the hands of a watch: the "
        "fast hands tell nearby positions apart, the slow hands keep track of far-away ones.",
        "RoPE 把 d 维向量切成 d/2 个二维对，每一对在自己的平面里转动。位置每前进一步，第 *i* 对就转过 "
        "θᵢ 弧度：第 0 对转得最快（每步 1 弧度），最后几对几乎不动。可以把它们想象成手表的指针："
        "快针区分相邻的位置，慢针记录遥远的位置。",
    ),
    "rotations.max_pos": ("Max position", "最大位置"),
    "rotations.max_pos_help": (
        "How many positions the animation and the charts cover (also the context length compared "
        "with each wavelength).",
        "动画和图表覆盖的位置数（同时作为与各波长比较的上下文长度）。",
    ),
    "rotations.pairs": ("Pairs to show", "显示的维度对"),
    "rotations.pairs_help": (
        "Which pairs get a clock (at most 8). Pair i turns by theta_i per position.",
        "为哪些维度对画时钟（最多 8 个）。第 i 对每个位置转过 theta_i。",
    ),
    "rotations.clocks_title": ("The clocks: pair i turns by m·θᵢ at position m",
                               "时钟：第 i 对在位置 m 处转过 m·θᵢ"),
    "rotations.clock_caption": ("pair {i}: θ = {theta:.3g} rad/step, one turn every {wave:,.1f} positions",
                                "第 {i} 对：θ = {theta:.3g} 弧度/步，每 {wave:,.1f} 个位置转一圈"),
    "rotations.clock_short": ("pair {i} · λ={wave:,.3g}", "第 {i} 对 · λ={wave:,.3g}"),
    "rotations.play": ("Play", "播放"),
    "rotations.pause": ("Pause", "暂停"),
    "rotations.angles_title": ("Where every hand points: m·θᵢ mod 2π", "每根指针的方向：m·θᵢ mod 2π"),
    "rotations.pair_axis": ("Pair i", "维度对 i"),
    "rotations.angle_axis": ("angle (rad)", "角度（弧度）"),
    "rotations.wave_title": ("Wavelength 2π/θᵢ of each pair against the context length",
                             "各维度对的波长 2π/θᵢ 与上下文长度"),
    "rotations.wave_axis": ("Positions per full turn (log scale)", "转一整圈所需位置数（对数坐标）"),
    "rotations.wave_series": ("wavelength 2π/θᵢ", "波长 2π/θᵢ"),
    "rotations.context_series": ("context length (max position)", "上下文长度（最大位置）"),
    "rotations.fast_slow": (
        "With this base and context, **{fast}** of the {total} pairs complete at least one full turn "
        "(fast clocks: they separate nearby tokens) and **{slow}** never do (slow clocks: they tell far "
        "tokens apart without wrapping around).",
        "在当前底数与上下文长度下，{total} 个维度对中有 **{fast}** 个至少转满一圈（快时钟：区分相邻词元），"
        "**{slow}** 个一圈也转不完（慢时钟：区分远处词元且不会绕回）。",
    ),
    "rotations.vector_header": ("One vector, before and after", "同一个向量，旋转前后"),
    "rotations.vector_text": (
        "A random d-dimensional vector is rotated to position m. Pick one of its pairs to see it turn; "
        "the length of the pair and of the whole vector stay the same, because a rotation never stretches.",
        "把一个随机的 d 维向量旋转到位置 m。选择其中一对观察它的转动：该对以及整个向量的长度都不变，"
        "因为旋转从不拉伸向量。",
    ),
    "rotations.position_m": ("Position m", "位置 m"),
    "rotations.pair_pick": ("Pair shown", "显示的维度对"),
    "rotations.vector_title": ("Pair {i} of the vector at position 0 and at position {m}",
                               "向量第 {i} 对在位置 0 与位置 {m}"),
    "rotations.before": ("before (m = 0)", "旋转前（m = 0）"),
    "rotations.after": ("after (m = {m})", "旋转后（m = {m}）"),
    "rotations.x_axis": ("first coordinate of the pair", "该对的第一个坐标"),
    "rotations.y_axis": ("second coordinate of the pair", "该对的第二个坐标"),
    "rotations.norm_pair": ("|pair| before → after", "该对长度 旋转前 → 后"),
    "rotations.norm_all": ("|x| before → after", "|x| 旋转前 → 后"),
    "rotations.turned": ("Angle turned", "转过的角度"),
}
