"""Strings of the complex_plane page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "complex_plane.nav": ("Complex numbers & rotation", "复数与旋转"),
    "complex_plane.title": ("Complex numbers turn the plane", "复数让平面转起来"),
    "complex_plane.intro": (
        "Everything RoPE does happens in the plane, one pair of coordinates at a time, so it pays to "
        "be fluent with one tool first: read the point (a, b) as the complex number z = a + bi. "
        "Then *turning* the point is just *multiplying* it by a complex number of length 1. "
        "Set your own z and angle below and check every claim in numbers.",
        "RoPE 的一切操作都发生在平面里，一次处理一对坐标。所以先熟悉一个工具：把点 (a, b) 看成复数 "
        "z = a + bi。这样，*旋转*这个点就只是*乘以*一个长度为 1 的复数。在下面设定你自己的 z 和角度，"
        "逐条用数字验证。",
    ),
    "complex_plane.a": ("Real part a", "实部 a"),
    "complex_plane.a_help": ("The x coordinate of z = a + bi.", "z = a + bi 的横坐标。"),
    "complex_plane.b": ("Imaginary part b", "虚部 b"),
    "complex_plane.b_help": ("The y coordinate of z = a + bi.", "z = a + bi 的纵坐标。"),
    "complex_plane.theta": ("Rotation angle θ (degrees)", "旋转角 θ（度）"),
    "complex_plane.theta_help": (
        "The angle of the rotor e^(iθ) used in the last two sections; positive turns counter-clockwise.",
        "后两节中旋转子 e^(iθ) 的角度；正值表示逆时针旋转。",
    ),
    "complex_plane.re_axis": ("Re (real part)", "Re（实部）"),
    "complex_plane.im_axis": ("Im (imaginary part)", "Im（虚部）"),
    "complex_plane.z_polar": (
        "Your z = {a:.2f} + {b:.2f}i has length |z| = {modulus:.4f} and angle arg z = {deg:.2f}° "
        "({rad:.4f} rad).",
        "你的 z = {a:.2f} + {b:.2f}i，长度 |z| = {modulus:.4f}，角度 arg z = {deg:.2f}°（{rad:.4f} 弧度）。",
    ),
    "complex_plane.z_origin": (
        "Your z is the origin: its length is 0 and its angle is undefined (shown as 0°), so every "
        "rotation leaves it where it is.",
        "你的 z 是原点：长度为 0，角度没有定义（记作 0°），因此任何旋转都不会移动它。",
    ),
    # multiplying by i
    "complex_plane.i_header": ("Multiplying by i is a quarter turn", "乘以 i 就是转四分之一圈"),
    "complex_plane.i_text": (
        "Since i² = −1, multiplying out i(a + bi) gives −b + ai: the coordinates swap and the new "
        "first one changes sign. That is exactly what a 90° counter-clockwise turn does to a point, "
        "and the length stays the same.",
        "因为 i² = −1，把 i(a + bi) 展开得到 −b + ai：两个坐标交换位置，新的第一个坐标变号。"
        "这正是把一个点逆时针转 90° 的效果，而且长度不变。",
    ),
    "complex_plane.i_title": ("z and i·z: a turn of 90°", "z 与 i·z：转过 90°"),
    "complex_plane.z_name": ("z = a + bi", "z = a + bi"),
    "complex_plane.iz_name": ("i·z", "i·z"),
    "complex_plane.arc_90": ("+90°", "+90°"),
    "complex_plane.iz_value": ("i·z = ({x:.4f}, {y:.4f})", "i·z = ({x:.4f}, {y:.4f})"),
    "complex_plane.iz_check": (
        "Expected (−b, a) = ({nb:.4f}, {a:.4f}); lengths |z| = {mz:.4f}, |i·z| = {miz:.4f}; "
        "angle turned: {turn:.2f}°.",
        "预期 (−b, a) = ({nb:.4f}, {a:.4f})；长度 |z| = {mz:.4f}，|i·z| = {miz:.4f}；转过的角度：{turn:.2f}°。",
    ),
    # a general product
    "complex_plane.product_header": (
        "A product multiplies the lengths and adds the angles",
        "乘积：长度相乘，角度相加",
    ),
    "complex_plane.product_text": (
        "Write both numbers by length and angle. Multiplying them multiplies the lengths and adds "
        "the angles, so any product is a stretch by |w| combined with a turn by arg w. Choose w "
        "below and compare the product computed coordinate by coordinate with the one computed "
        "the polar way.",
        "把两个数都写成“长度 + 角度”的形式。相乘时长度相乘、角度相加，因此任何乘法都是“按 |w| 拉伸”"
        "加上“转过 arg w”。在下面选择 w，比较逐坐标算出的乘积与用极坐标算出的乘积。",
    ),
    "complex_plane.w_modulus": ("Length |w|", "长度 |w|"),
    "complex_plane.w_modulus_help": (
        "How much multiplying by w stretches z (1 means no stretch at all).",
        "乘以 w 会把 z 拉伸多少倍（1 表示完全不拉伸）。",
    ),
    "complex_plane.w_angle": ("Angle arg w (degrees)", "角度 arg w（度）"),
    "complex_plane.w_angle_help": (
        "How far multiplying by w turns z, counter-clockwise.",
        "乘以 w 会把 z 逆时针转过多少度。",
    ),
    "complex_plane.product_title": ("z, w and their product zw", "z、w 与乘积 zw"),
    "complex_plane.w_name": ("w", "w"),
    "complex_plane.zw_name": ("z·w", "z·w"),
    "complex_plane.arc_z": ("arg z", "arg z"),
    "complex_plane.arc_w": ("arg w", "arg w"),
    "complex_plane.arc_sum": ("arg z + arg w", "arg z + arg w"),
    "complex_plane.col_number": ("number", "数"),
    "complex_plane.col_re": ("Re", "Re"),
    "complex_plane.col_im": ("Im", "Im"),
    "complex_plane.col_modulus": ("length", "长度"),
    "complex_plane.col_angle": ("angle (°)", "角度（°）"),
    "complex_plane.product_check": (
        "Polar way: |z|·|w| = **{modulus:.6f}** and arg z + arg w = **{angle:.2f}°**. "
        "Coordinate way: |zw| = **{zw_modulus:.6f}** and arg zw = **{zw_angle:.2f}°**. "
        "The angles agree up to whole turns of 360°.",
        "极坐标算法：|z|·|w| = **{modulus:.6f}**，arg z + arg w = **{angle:.2f}°**。"
        "逐坐标算法：|zw| = **{zw_modulus:.6f}**，arg zw = **{zw_angle:.2f}°**。"
        "两个角度最多相差整数个 360°。",
    ),
    # the rotor
    "complex_plane.rotor_header": (
        "A rotor turns without stretching, and its conjugate turns back",
        "旋转子只转不拉伸，它的共轭把它转回来",
    ),
    "complex_plane.rotor_text": (
        "Take w of length 1: the rotor $e^{i\\theta} = \\cos\\theta + i\\sin\\theta$ sits on the unit circle. "
        "Multiplying by it turns z by θ and leaves |z| alone. Its conjugate cos θ − i sin θ is the "
        "mirror image, the rotor for −θ; since $e^{i\\theta}e^{-i\\theta} = \\cos^2\\theta + \\sin^2\\theta = 1$, "
        "it is also the "
        "inverse, and multiplying by it undoes the turn exactly.",
        "取长度为 1 的 w：旋转子 $e^{i\\theta} = \\cos\\theta + i\\sin\\theta$ 位于单位圆上。乘以它会把 z 转过 θ，"
        "而 |z| 保持不变。它的共轭 cos θ − i sin θ 是关于实轴的镜像，也就是 −θ 对应的旋转子；"
        "又因为 $e^{i\\theta}e^{-i\\theta} = \\cos^2\\theta + \\sin^2\\theta = 1$，它同时是逆元，乘上它就能把旋转完全撤销。",
    ),
    "complex_plane.rotor_title": ("z turned by e<sup>iθ</sup> with θ = {deg}°, then turned back",
                                  "z 乘以 e<sup>iθ</sup>（θ = {deg}°）后再转回来"),
    "complex_plane.rotor_name": ("e<sup>iθ</sup>", "e<sup>iθ</sup>"),
    "complex_plane.turned_name": ("z·e<sup>iθ</sup>", "z·e<sup>iθ</sup>"),
    "complex_plane.back_name": ("z·e<sup>iθ</sup>·e<sup>−iθ</sup> (back to z)",
                                "z·e<sup>iθ</sup>·e<sup>−iθ</sup>（回到 z）"),
    "complex_plane.arc_theta": ("θ", "θ"),
    "complex_plane.rotor_modulus": ("Length of the rotor $|e^{i\\theta}|$", "旋转子的长度 $|e^{i\\theta}|$"),
    "complex_plane.lengths": ("Length before → after $|z| \\to |z\\,e^{i\\theta}|$",
                              "转动前后的长度 $|z| \\to |z\\,e^{i\\theta}|$"),
    "complex_plane.back_error": ("Turned back, distance to z: $|z\\,e^{i\\theta}e^{-i\\theta} - z|$",
                                 "转回后与 z 的距离 $|z\\,e^{i\\theta}e^{-i\\theta} - z|$"),
    # the matrix
    "complex_plane.matrix_header": (
        "The 2×2 rotation matrix does the same thing",
        "2×2 旋转矩阵做的是同一件事",
    ),
    "complex_plane.matrix_text": (
        "Expand (a + bi)(cos θ + i sin θ) and collect the real and imaginary parts: you get "
        "a cos θ − b sin θ and a sin θ + b cos θ. Those are the two rows of the rotation matrix "
        "applied to the column (a, b). RoPE papers write the matrix, LLaMA's code multiplies complex "
        "numbers; for your z and θ both are computed below, independently.",
        "展开 (a + bi)(cos θ + i sin θ)，把实部和虚部分别整理，得到 a cos θ − b sin θ 和 "
        "a sin θ + b cos θ，这正是旋转矩阵作用在列向量 (a, b) 上的两行。论文写矩阵，LLaMA "
        "的代码乘复数；下面对你的 z 和 θ 分别独立地用两种方法计算。",
    ),
    "complex_plane.way": ("computed as", "计算方式"),
    "complex_plane.way_complex": ("complex product z·e^(iθ)", "复数乘积 z·e^(iθ)"),
    "complex_plane.way_matrix": ("matrix product R(θ)·(a, b)ᵀ", "矩阵乘积 R(θ)·(a, b)ᵀ"),
    "complex_plane.way_difference": ("difference", "差值"),
    "complex_plane.first": ("first coordinate", "第一个坐标"),
    "complex_plane.second": ("second coordinate", "第二个坐标"),
    "complex_plane.matrix_gap": (
        "Distance between the two results: **{gap:.1e}**, rounding error of 64-bit floats "
        "(about 10⁻¹⁶ per operation) or exactly zero.",
        "两种结果之间的距离：**{gap:.1e}**，即 64 位浮点数的舍入误差（每次运算约 10⁻¹⁶）或恰好为零。",
    ),
    "complex_plane.bridge": (
        "RoPE applies this to every pair of a query or key vector, with the angle m·θᵢ at position m. "
        "The next pages show why turning both vectors leaves only their distance in the score.",
        "RoPE 对查询或键向量的每一对坐标都这样做，位置 m 处的角度为 m·θᵢ。"
        "后面的页面说明：为什么两个向量都转动之后，分数里只剩下它们的距离。",
    ),
}
