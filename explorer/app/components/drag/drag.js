/* Direct manipulation for RoPE Explorer: points on the complex plane (args.kind "plane") or a query and a key
   position on a track (args.kind "track"), dragged with the mouse or moved with the arrow keys.

   Streamlit's component protocol (1.67), spoken by hand: the frame announces "streamlit:componentReady"
   (apiVersion 1), draws the args of every "streamlit:render" message from its parent, reports its height with
   "streamlit:setFrameHeight" and sends its value with "streamlit:setComponentValue" (dataType "json").
   A value goes out only when a drag ends or an arrow key is released: {knobs: {name: number}, release: stamp};
   while a point moves only this frame changes (the drawing and the readout), the server hears nothing.

   The readouts evaluate, for display only, what the server computes with rope_viz: the complex product and
   polar form (rope_viz.complex2d) on the plane, and the RoPE score (R_m q)·(R_n k) summed pair by pair on
   the track, from the per-pair query, key and frequency the page passes in. The page's own numbers come
   from the core. Text from the args is only ever set as textContent. */
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  const root = document.getElementById("root");
  let view = null;      // what is drawn: {signature, set(args), draw()}
  let busy = false;     // a drag or a held arrow key is under way: renders wait, the value is sent at its end
  let deferred = null;  // args that arrived while busy: drawn after an unchanged move, dropped after a sent one
  let stamp = Date.now();  // every sent value is new, so a move back to an earlier value still counts

  function post(type, extra) {
    window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type: type }, extra), "*");
  }

  function sendKnobs(knobs) {
    stamp += 1;
    post("streamlit:setComponentValue", { value: { knobs: knobs, release: stamp }, dataType: "json" });
  }

  let height = -1;
  function fitHeight() {  // a message to the page around the frame only (a readout line may wrap while moving)
    const now = Math.ceil(root.getBoundingClientRect().height) + 2;
    if (now !== height) post("streamlit:setFrameHeight", { height: now });
    height = now;
  }

  function svgNode(tag, attrs, parent) {
    const node = document.createElementNS(NS, tag);
    setAttrs(node, attrs);
    if (parent) parent.appendChild(node);
    return node;
  }

  function setAttrs(node, attrs) {
    for (const name of Object.keys(attrs)) node.setAttribute(name, String(attrs[name]));
  }

  function htmlNode(tag, className, parent) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    parent.appendChild(node);
    return node;
  }

  function text(value) {
    return value === undefined || value === null ? "" : String(value);
  }

  // A text template from the page ("m = {m}"): placeholders filled with numbers, the result used as text.
  function fill(template, values) {
    return text(template).replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
  }

  function finite(value, fallback) {
    const number = Number(value);
    return Number.isFinite(number) ? number : fallback;
  }

  function clamp(value, lo, hi) {
    return Math.min(Math.max(value, lo), hi);
  }

  function snap(value, lo, hi, digits) {
    const scale = Math.pow(10, digits);
    return Math.round(clamp(value, lo, hi) * scale) / scale;
  }

  function fixed(value, digits) {
    const shown = value.toFixed(digits);
    return (shown.startsWith("-") ? "−" + shown.slice(1) : shown).replace(/^−(0\.?0*)$/, "$1");
  }

  function complexText(x, y) {
    const im = fixed(Math.abs(y), 2);
    return fixed(x, 2) + (y < 0 && im !== fixed(0, 2) ? " − " : " + ") + im + "i";
  }

  // Pointer and keyboard moves of one handle. `start()` begins a move, `move(dx, dy, fine)` (keys) or
  // `moveTo(clientX, clientY)` (pointer) changes it, `knobs()` says what to send once it ends.
  function attachMoves(handle, item, redraw) {
    let before = null;
    let pointer = null;
    let keyed = false;

    function begin() {
      busy = true;
      before = JSON.stringify(item.knobs());
    }

    function finish() {
      busy = false;
      const knobs = item.knobs();
      const waiting = deferred;
      deferred = null;
      if (JSON.stringify(knobs) !== before) {
        sendKnobs(knobs);  // the server answers with a fresh render
      } else if (waiting) {
        show(waiting);
      }
      before = null;
    }

    handle.addEventListener("pointerdown", (event) => {
      if (busy) return;
      event.preventDefault();
      handle.focus();
      handle.setPointerCapture(event.pointerId);
      pointer = event.pointerId;
      begin();
      item.grab(event.clientX, event.clientY);
      document.body.classList.add("dragging");
    });
    handle.addEventListener("pointermove", (event) => {
      if (event.pointerId !== pointer) return;
      item.moveTo(event.clientX, event.clientY);
      redraw();
      fitHeight();
    });
    const release = (event) => {
      if (event.pointerId !== pointer) return;
      pointer = null;
      document.body.classList.remove("dragging");
      finish();
    };
    handle.addEventListener("pointerup", release);
    handle.addEventListener("pointercancel", release);
    handle.addEventListener("keydown", (event) => {
      const step = ARROWS[event.key];
      if (!step || pointer !== null || (busy && !keyed)) return;  // another handle is moving
      event.preventDefault();
      if (!keyed) {
        keyed = true;
        begin();
      }
      item.move(step[0], step[1], event.shiftKey);
      redraw();
      fitHeight();
    });
    handle.addEventListener("keyup", (event) => {
      if (!ARROWS[event.key] || !keyed) return;
      event.preventDefault();
      keyed = false;
      finish();
    });
    handle.addEventListener("blur", () => {
      if (keyed) {
        keyed = false;
        finish();
      }
    });
  }

  // the colour of a concept ("query", "key", "offset", "rope", ...): the page's charts colour it the same way
  function paint(args, concept) {
    const concepts = args.concepts && typeof args.concepts === "object" ? args.concepts : {};
    return text(concepts[text(concept)] || ink(args, "unknown"));
  }

  // the colour of a part of the drawing ("grid", "zero", "circle", ...): explorer.pure.figures.style.DRAG_COLOURS
  function ink(args, role) {
    const colours = args.colours && typeof args.colours === "object" ? args.colours : {};
    return text(colours[role]);
  }

  function handleGroup(parent, label) {
    const handle = svgNode("g", { class: "handle", tabindex: 0, role: "slider" }, parent);
    handle.setAttribute("aria-label", text(label));
    return handle;
  }

  /* ---- the plane: points given by their knobs, by coordinates ("xy") or by length and angle ("polar") ---- */

  function planePoint(spec, color) {
    const point = {
      id: text(spec.id), name: text(spec.name), form: spec.form === "polar" ? "polar" : "xy",
      names: (spec.knobs || []).map(text), lo: (spec.lo || []).map(Number), hi: (spec.hi || []).map(Number),
      digits: (spec.digits || []).map(Number), color: color, values: [0, 0],
    };
    point.xy = function () {
      if (point.form === "xy") return point.values;
      const angle = point.values[1] * Math.PI / 180;
      return [point.values[0] * Math.cos(angle), point.values[0] * Math.sin(angle)];
    };
    point.place = function (x, y) {
      if (point.form === "xy") {
        point.values = [snap(x, point.lo[0], point.hi[0], point.digits[0]),
          snap(y, point.lo[1], point.hi[1], point.digits[1])];
        return;
      }
      const modulus = snap(Math.hypot(x, y), point.lo[0], point.hi[0], point.digits[0]);
      const angle = modulus > 0 ? snap(Math.atan2(y, x) * 180 / Math.PI, point.lo[1], point.hi[1], point.digits[1])
        : point.values[1];  // the origin has no angle: keep the last one
      point.values = [modulus, angle];
    };
    point.knobs = function () {
      const knobs = {};
      point.names.forEach((name, i) => { knobs[name] = point.values[i]; });
      return knobs;
    };
    return point;
  }

  function planeView(args) {
    const labels = args.labels || {};
    const points = (args.points || []).map((spec) => planePoint(spec, paint(args, spec.color)));
    const product = args.product || null;
    const extent = finite(args.extent, 3.5);
    const keyStep = finite(args.key_step, 0.1);
    const row = htmlNode("div", "row", root);
    const svg = svgNode("svg", { role: "group" }, row);
    svg.setAttribute("aria-label", text(labels.group));
    const grid = svgNode("g", {}, svg);
    const productColor = product ? paint(args, product.color) : "";
    const productParts = product ? {
      line: svgNode("line", { stroke: productColor, "stroke-width": 3, "stroke-dasharray": "6 3" }, svg),
      dot: svgNode("circle", { r: 5, fill: productColor }, svg),
      name: svgNode("text", { fill: productColor, "font-weight": 600 }, svg),
    } : null;
    const parts = points.map((point) => ({
      line: svgNode("line", { stroke: point.color, "stroke-width": 3 }, svg),
      name: svgNode("text", { fill: point.color, "font-weight": 600 }, svg),
    }));
    parts.forEach((part, i) => {  // handles last, so that they sit above every line
      part.handle = handleGroup(svg, (args.aria || {})[points[i].id]);
      part.handle.dataset.id = points[i].id;
      part.ring = svgNode("circle", { class: "ring", r: 9, fill: points[i].color, stroke: ink(args, "ring"),
        "stroke-width": 2 }, part.handle);
      part.hit = svgNode("circle", { r: 18, fill: "transparent" }, part.handle);
    });
    const readout = htmlNode("div", "readout", row);
    const lines = points.map((point) => {
      const line = htmlNode("div", "", readout);
      line.dataset.line = point.id;
      return line;
    });
    const productLine = product ? htmlNode("div", "", readout) : null;
    if (productLine) productLine.dataset.line = "product";
    const hint = htmlNode("div", "hint", root);
    hint.textContent = text(labels.hint);
    let side = 300;
    let scale = 1;

    const toX = (x) => side / 2 + x * scale;
    const toY = (y) => side / 2 - y * scale;

    function fromClient(clientX, clientY) {
      const box = svg.getBoundingClientRect();
      return [(clientX - box.left - side / 2) / scale, (side / 2 - (clientY - box.top)) / scale];
    }

    function byId(id) {
      return points.find((point) => point.id === id);
    }

    function productXY() {
      const [a, b] = byId(text(product.of[0])).xy();
      const [c, d] = byId(text(product.of[1])).xy();
      return [a * c - b * d, a * d + b * c];  // (a + bi)(c + di), as rope_viz.complex2d.complex_multiply
    }

    function polarText(point) {
      const [x, y] = point.xy();
      const modulus = Math.hypot(x, y);
      const angle = modulus > 0 ? Math.atan2(y, x) * 180 / Math.PI : 0;
      return point.name + " = " + complexText(x, y) + "   (|" + point.name + "| = " + fixed(modulus, 3)
        + ", arg " + point.name + " = " + fixed(angle, 2) + "°)";
    }

    function drawGrid() {
      grid.textContent = "";
      const width = Math.max(120, Math.min(window.innerWidth || side, finite(args.side, 320)));
      side = width;
      scale = (side / 2 - 14) / extent;
      setAttrs(svg, { width: side, height: side, viewBox: "0 0 " + side + " " + side });
      for (let v = -Math.floor(extent); v <= Math.floor(extent); v += 1) {
        const color = ink(args, v === 0 ? "zero" : "grid");
        svgNode("line", { x1: toX(v), x2: toX(v), y1: 0, y2: side, stroke: color }, grid);
        svgNode("line", { y1: toY(v), y2: toY(v), x1: 0, x2: side, stroke: color }, grid);
        if (v !== 0) {
          svgNode("text", { x: toX(v) + 2, y: toY(0) + 12, fill: ink(args, "ticks"), "font-size": 10 }, grid).textContent = String(v);
          svgNode("text", { x: toX(0) + 3, y: toY(v) + 4, fill: ink(args, "ticks"), "font-size": 10 }, grid).textContent = String(v);
        }
      }
      svgNode("circle", { cx: toX(0), cy: toY(0), r: scale, fill: "none", stroke: ink(args, "circle"), "stroke-dasharray": "3 3" },
        grid);
      svgNode("text", { x: side - 4, y: toY(0) - 6, "text-anchor": "end", fill: ink(args, "axis_text"), "font-size": 11 }, grid)
        .textContent = text(labels.x_axis);
      svgNode("text", { x: toX(0) - 6, y: "1.1em", "text-anchor": "end", fill: ink(args, "axis_text"), "font-size": 11 }, grid)
        .textContent = text(labels.y_axis);
    }

    function arrow(line, name, x, y, label) {
      setAttrs(line, { x1: toX(0), y1: toY(0), x2: toX(x), y2: toY(y) });
      const length = Math.hypot(x, y) || 1;
      // a name past the edge (a long z·w) stays in sight
      setAttrs(name, { x: clamp(toX(x) + 14 * x / length - 4, 4, side - 30),
        y: clamp(toY(y) - 14 * y / length + 4, 14, side - 4) });
      name.textContent = label;
    }

    function draw() {
      points.forEach((point, i) => {
        const [x, y] = point.xy();
        const part = parts[i];
        arrow(part.line, part.name, x, y, point.name);
        setAttrs(part.ring, { cx: toX(x), cy: toY(y) });
        setAttrs(part.hit, { cx: toX(x), cy: toY(y) });
        part.handle.setAttribute("aria-valuetext", polarText(point));
        lines[i].textContent = polarText(point);
      });
      if (product) {
        const [x, y] = productXY();
        arrow(productParts.line, productParts.name, x, y, text(product.name));
        setAttrs(productParts.dot, { cx: toX(x), cy: toY(y) });
        const [p, q] = product.of.map((id) => byId(text(id)).xy());
        const moduli = [Math.hypot(p[0], p[1]), Math.hypot(q[0], q[1])];
        const argsDeg = [p, q].map((v) => (Math.hypot(v[0], v[1]) > 0 ? Math.atan2(v[1], v[0]) * 180 / Math.PI : 0));
        productLine.textContent = text(product.name) + " = " + complexText(x, y) + "   (|" + text(product.name) + "| = "
          + fixed(moduli[0], 3) + " × " + fixed(moduli[1], 3) + " = " + fixed(moduli[0] * moduli[1], 3) + ", arg = "
          + fixed(argsDeg[0], 2) + "° + " + fixed(argsDeg[1], 2) + "° = " + fixed(argsDeg[0] + argsDeg[1], 2) + "°)";
      }
    }

    points.forEach((point, i) => {
      attachMoves(parts[i].handle, {
        grab: () => {},
        moveTo: (clientX, clientY) => point.place(...fromClient(clientX, clientY)),
        move: (dx, dy, fine) => {
          const step = fine ? Math.pow(10, -Math.max(...point.digits, 0)) || keyStep : keyStep;
          const [x, y] = point.xy();
          point.place(x + dx * step, y + dy * step);
        },
        knobs: point.knobs,
      }, draw);
    });

    return {
      set(next) {
        (next.points || []).forEach((spec) => {
          const point = byId(text(spec.id));
          if (point) point.values = (spec.values || [0, 0]).map((v, i) => finite(v, point.values[i]));
        });
        draw();
      },
      draw() {
        drawGrid();
        draw();
      },
    };
  }

  /* ---- the track: the query at m and the key at n, the chosen pair's two arrows and the score ---- */

  function trackView(args) {
    const labels = args.labels || {};
    const colors = { query: paint(args, "query"), key: paint(args, "key"), offset: paint(args, "offset") };
    const state = { lo: 0, hi: 1, m: 0, n: 0, pair: 0, thetas: [], query: [], key: [] };
    const svg = svgNode("svg", { role: "group" }, root);
    svg.setAttribute("aria-label", text(labels.group));
    const axis = svgNode("g", {}, svg);
    const band = handleGroup(svg, labels.both);
    band.dataset.id = "both";
    const bandRect = svgNode("rect", { class: "ring", height: 10, rx: 5, fill: colors.offset, "fill-opacity": 0.6 },
      band);
    const handles = {};
    for (const [id, color, dy] of [["m", colors.query, -1], ["n", colors.key, 1]]) {
      const handle = handleGroup(svg, labels["aria_" + id]);
      handle.dataset.id = id;
      handles[id] = {
        handle: handle, dy: dy,
        stem: svgNode("line", { stroke: text(color), "stroke-width": 2 }, handle),
        ring: svgNode("circle", { class: "ring", r: 9, fill: text(color), stroke: ink(args, "ring"), "stroke-width": 2 },
          handle),
        hit: svgNode("circle", { r: 16, fill: "transparent" }, handle),
        name: svgNode("text", { fill: text(color), "font-weight": 600, "text-anchor": "middle" }, handle),
      };
    }
    const row = htmlNode("div", "row", root);
    const plane = svgNode("svg", { width: 180, height: 180, viewBox: "0 0 180 180", "aria-hidden": "true" }, row);
    svgNode("line", { x1: 0, x2: 180, y1: 90, y2: 90, stroke: ink(args, "face") }, plane);
    svgNode("line", { y1: 0, y2: 180, x1: 90, x2: 90, stroke: ink(args, "face") }, plane);
    const circle = svgNode("circle", { cx: 90, cy: 90, r: 80, fill: "none", stroke: ink(args, "circle"), "stroke-dasharray": "3 3" },
      plane);
    const arrows = {
      query: svgNode("line", { x1: 90, y1: 90, stroke: text(colors.query), "stroke-width": 4 }, plane),
      key: svgNode("line", { x1: 90, y1: 90, stroke: text(colors.key), "stroke-width": 4 }, plane),
    };
    const readout = htmlNode("div", "readout", row);
    const readLines = ["positions", "angles", "score"].map((name) => {
      const line = htmlNode("div", "", readout);
      line.dataset.line = name;
      return line;
    });
    const hint = htmlNode("div", "hint", root);
    hint.textContent = text(labels.hint);
    const trackHeight = 84;
    const lineY = 42;
    let left = 16;
    let right = 300;

    const toX = (position) => left + (position - state.lo) * (right - left) / Math.max(1, state.hi - state.lo);
    const fromClient = (clientX) => state.lo + (clientX - svg.getBoundingClientRect().left - left)
      * Math.max(1, state.hi - state.lo) / (right - left);

    // (R(angle) v), the 2-D turn of one pair (rope_viz.complex2d.rotation_2x2 applied to a point)
    function turned(v, angle) {
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      return [v[0] * c - v[1] * s, v[0] * s + v[1] * c];
    }

    // (R_m q)·(R_n k) in d dimensions: the sum over the pairs of the turned pairs' dot products
    function score() {
      let total = 0;
      state.thetas.forEach((theta, i) => {
        const q = turned(state.query[i], state.m * theta);
        const k = turned(state.key[i], state.n * theta);
        total += q[0] * k[0] + q[1] * k[1];
      });
      return total;
    }

    function drawAxis() {
      axis.textContent = "";
      const width = Math.max(200, window.innerWidth || 300);
      left = 16;
      right = width - 16;
      setAttrs(svg, { width: width, height: trackHeight, viewBox: "0 0 " + width + " " + trackHeight });
      svgNode("line", { x1: left, x2: right, y1: lineY, y2: lineY, stroke: ink(args, "track"), "stroke-width": 3 }, axis);
      const span = state.hi - state.lo;
      const tick = [1, 2, 4, 8, 16, 32, 64, 128, 256].find((t) => span / t <= 12) || Math.ceil(span / 8);
      for (let p = state.lo; p <= state.hi; p += tick) {
        svgNode("line", { x1: toX(p), x2: toX(p), y1: lineY - 4, y2: lineY + 4, stroke: ink(args, "zero") }, axis);
        svgNode("text", { x: toX(p), y: trackHeight - 2, "text-anchor": "middle", fill: ink(args, "ticks"), "font-size": 10 }, axis)
          .textContent = String(p);
      }
    }

    function draw() {
      const m = state.m;
      const n = state.n;
      const x0 = Math.min(toX(m), toX(n));
      const x1 = Math.max(toX(m), toX(n));
      const wide = Math.max(x1 - x0, 14);
      setAttrs(bandRect, { x: (x0 + x1) / 2 - wide / 2, y: lineY - 5, width: wide });
      band.setAttribute("aria-valuenow", m);
      band.setAttribute("aria-valuemin", state.lo + Math.max(0, m - n));
      band.setAttribute("aria-valuemax", state.hi - Math.max(0, n - m));
      band.setAttribute("aria-valuetext", fill(labels.positions, { m: m, n: n, d: n - m }));
      for (const id of ["m", "n"]) {
        const part = handles[id];
        const x = toX(state[id]);
        const y = lineY + part.dy * 20;
        setAttrs(part.stem, { x1: x, x2: x, y1: lineY, y2: y });
        setAttrs(part.ring, { cx: x, cy: y });
        setAttrs(part.hit, { cx: x, cy: y });
        setAttrs(part.name, { x: x + 16, y: y + 4 });
        part.name.textContent = id;
        part.handle.setAttribute("aria-valuenow", state[id]);
        part.handle.setAttribute("aria-valuemin", state.lo);
        part.handle.setAttribute("aria-valuemax", state.hi);
        part.handle.setAttribute("aria-valuetext", fill(labels["value_" + id], { value: state[id] }));
      }
      const theta = state.thetas[state.pair] || 0;
      const q = turned(state.query[state.pair] || [0, 0], m * theta);
      const k = turned(state.key[state.pair] || [0, 0], n * theta);
      const reach = Math.max(Math.hypot(q[0], q[1]), Math.hypot(k[0], k[1]), 1e-12);
      const unit = 80 / reach;
      setAttrs(circle, { r: 80 });
      setAttrs(arrows.query, { x2: 90 + q[0] * unit, y2: 90 - q[1] * unit });
      setAttrs(arrows.key, { x2: 90 + k[0] * unit, y2: 90 - k[1] * unit });
      readLines[0].textContent = fill(labels.positions, { m: m, n: n, d: n - m });
      readLines[1].textContent = fill(labels.angles, { i: state.pair, m_angle: (m * theta).toPrecision(4),
        n_angle: (n * theta).toPrecision(4), d_angle: ((n - m) * theta).toPrecision(4) });
      readLines[2].textContent = fill(labels.score, { i: state.pair, pair_dot: fixed(q[0] * k[0] + q[1] * k[1], 6),
        dot: fixed(score(), 6), pairs: state.thetas.length });
    }

    function moves(id) {
      let grabbed = 0;
      let start = { m: 0, n: 0 };
      const shift = (delta) => {
        if (id === "both") {
          const lowest = state.lo - Math.min(start.m, start.n);
          const highest = state.hi - Math.max(start.m, start.n);
          const by = clamp(Math.round(delta), lowest, highest);
          state.m = start.m + by;
          state.n = start.n + by;
        } else {
          state[id] = clamp(Math.round(start[id] + delta), state.lo, state.hi);
        }
      };
      return {
        grab: (clientX) => {
          grabbed = fromClient(clientX);
          start = { m: state.m, n: state.n };
        },
        moveTo: (clientX) => shift(id === "both" ? fromClient(clientX) - grabbed
          : fromClient(clientX) - start[id]),
        move: (dx, dy, fine) => {
          start = { m: state.m, n: state.n };
          shift((dx || dy) * (fine ? 10 : 1));
        },
        knobs: () => ({ m: state.m, n: state.n }),
      };
    }

    attachMoves(band, moves("both"), draw);
    for (const id of ["m", "n"]) attachMoves(handles[id].handle, moves(id), draw);

    return {
      set(next) {
        state.lo = Math.round(finite(next.lo, 0));
        state.hi = Math.max(state.lo + 1, Math.round(finite(next.hi, state.lo + 1)));
        state.m = clamp(Math.round(finite(next.m, state.lo)), state.lo, state.hi);
        state.n = clamp(Math.round(finite(next.n, state.lo)), state.lo, state.hi);
        state.pair = Math.round(finite(next.pair, 0));
        state.thetas = (next.thetas || []).map((v) => finite(v, 0));
        const pairs = (rows) => (rows || []).map((v) => [finite(v[0], 0), finite(v[1], 0)]);
        state.query = pairs(next.q_pairs);
        state.key = pairs(next.k_pairs);
        drawAxis();
        draw();
      },
      draw() {
        drawAxis();
        draw();
      },
    };
  }

  function show(args) {
    document.body.classList.toggle("present", args.present === true);
    for (const role of ["text", "hint"]) document.body.style.setProperty("--" + role, ink(args, role));
    const signature = JSON.stringify([args.kind, args.present, args.labels, args.aria, args.concepts, args.colours,
      (args.points || []).map((p) => [p.id, p.name, p.form, p.knobs, p.lo, p.hi, p.digits, p.color]), args.product]);
    if (!view || view.signature !== signature) {
      const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.id : null;
      root.textContent = "";
      view = args.kind === "track" ? trackView(args) : planeView(args);
      view.signature = signature;
      view.draw();
      if (focused) {
        const again = root.querySelector('[data-id="' + CSS.escape(focused) + '"]');
        if (again) again.focus();
      }
    }
    view.set(args);
    fitHeight();
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const data = event.data;
    if (!data || data.type !== "streamlit:render" || typeof data.args !== "object" || data.args === null) return;
    if (busy) {
      deferred = data.args;
      return;
    }
    show(data.args);
  });

  window.addEventListener("resize", () => {
    if (view && !busy) {
      view.draw();
      fitHeight();
    }
  });

  post("streamlit:componentReady", { apiVersion: 1 });
}());
