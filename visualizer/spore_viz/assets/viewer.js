/* Spore graph viewer: one implementation for every host (the standalone page spore_viz writes, the
 * notebook renderer and the "Spore: Show Graph" webview of the VS Code extension).
 *
 *   import { mount } from ".../viewer.js";
 *   const view = mount(rootElement, payload, { onReveal(loc) {...} });
 *   view.highlightLines(file, [12, 13]); view.open("#select=n0"); view.destroy();
 *
 * `payload` is what `spore_viz.view_payload` computes (the size-independent layout order, items,
 * details). It comes from a graph file, so every value in it is untrusted: it reaches the DOM only
 * through `textContent` and `setAttribute` on elements this file creates (SVG via createElementNS);
 * nothing here parses markup, so a name holding a tag with an onerror handler is shown as text.
 *
 * place()/routes() mirror spore_viz/place.py operation for operation (same float order, same
 * snapping), and the elements mirror spore_viz/svg_view.py's markup (classes, attribute order):
 * change them together. No dependencies; an ES module so esbuild bundles it into the extension. */

const NS = "http://www.w3.org/2000/svg";

/* ---- element helpers: the only way this file makes DOM ------------------------------------------ */
function setAttrs(node, attrs) {
  if (attrs) for (const k of Object.keys(attrs)) if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, String(attrs[k]));
  return node;
}
function append(node, kids) {
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    node.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
  }
  return node;
}
/** An HTML element with attributes and children (strings become text nodes). */
function h(tag, attrs, ...kids) { return append(setAttrs(document.createElement(tag), attrs), kids); }
/** An SVG element, likewise. */
function s(tag, attrs, ...kids) { return append(setAttrs(document.createElementNS(NS, tag), attrs), kids); }
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
function str(v) { return v === null || v === undefined ? "" : String(v); }
/** A positive integer line/column from untrusted data, or undefined. */
function posInt(v) { return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined; }

function isSize(v) { return typeof v === "number" && isFinite(v) && v >= 0 && v <= 1e7; }
/** Checks the payload's outline before anything is built, so a malformed file fails with one clear message. */
function check(D) {
  const bad = function (what) { throw new Error("spore graph viewer: malformed payload: " + what); };
  if (!D || typeof D !== "object") bad("not an object");
  if (!Array.isArray(D.items) || !D.items.length) bad("'items' must be a non-empty list");
  D.items.forEach(function (a, i) {
    if (!Array.isArray(a) || a.length < 10) bad("item " + i + " is not a 10-field row");
    // parents come first, so walking up always ends (a notebook's saved output can carry any payload)
    if (i === 0 ? a[2] !== -1 : !(Number.isInteger(a[2]) && a[2] >= 0 && a[2] < i)) bad("item " + i + " has a bad parent");
    if (!isSize(a[4]) || !isSize(a[5])) bad("item " + i + " has no size");
  });
  if (!D.C || typeof D.C !== "object") bad("'C' (layout constants) missing");
  for (const k of ["PAD", "HEADER", "HGAP", "DGAP", "VGAP", "PORT_GAP", "DUMMY_W", "LABEL_CH"]) if (!isSize(D.C[k])) bad("C." + k);
  if (!(Number.isInteger(D.C.PASSES) && D.C.PASSES >= 0 && D.C.PASSES <= 20)) bad("C.PASSES must be 0..20");
  if (!Array.isArray(D.C.WEAK)) bad("C.WEAK must be a list");
  for (const k of ["levels", "details", "sources"]) if (D[k] === null || typeof D[k] !== "object") bad("'" + k + "' must be an object");
  if (!Array.isArray(D.edges) || !Array.isArray(D.labels) || !Array.isArray(D.expanded)) bad("'edges', 'labels', 'expanded' must be lists");
}

/**
 * Build the viewer inside `root` (which gets class `spore-graph-view`) and return its controller.
 * hooks.onReveal({file, line, col, cellId}) is called when a node with a source location is clicked;
 * hooks.keys: bind "/" to the search box on the whole window (the standalone page only);
 * hooks.hash: the deep link to open on ("#select=n0&expand=all", see open());
 * hooks.wheelZoom: "modifier" to zoom only with Ctrl/Cmd held (hosts where the wheel must scroll the page).
 */
export function mount(root, D, hooks) {
  hooks = hooks || {};
  check(D);
  const C = D.C;
  const N = D.items.length;
  const cleanups = [];
  function listen(target, type, fn, opts) { target.addEventListener(type, fn, opts); cleanups.push(function () { target.removeEventListener(type, fn, opts); }); }

  // ---- model --------------------------------------------------------------------------------
  const items = D.items.map(function (a) {
    return { kind: str(a[0]), label: str(a[1]), parent: a[2], sub: str(a[3]), w: a[4], h: a[5], nOps: a[6], path: str(a[7]),
             cat: str(a[8]).replace(/[^a-z]/g, ""), fused: Array.isArray(a[9]) ? a[9].map(str) : [], children: [], depth: 0 };
  });
  for (let i = 1; i < N; i++) {
    const p = items[i].parent;
    items[p].children.push(i);
    items[i].depth = items[p].depth + 1;
  }
  const levels = {};
  for (const key in D.levels) {
    const c = +key, L = D.levels[key];
    const lv = { children: items[c].children, nd: L[0], layers: L[1], ledges: L[2], rev: L[3], layerOf: [] };
    lv.size = lv.children.length + lv.nd;
    lv.layers.forEach(function (layer, li) { layer.forEach(function (v) { lv.layerOf[v] = li; }); });
    levels[c] = lv;
  }
  const isBox = function (i) { return levels[i] !== undefined; };
  const expanded = new Array(N).fill(false);
  D.expanded.forEach(function (i) { if (i >= 0 && i < N) expanded[i] = true; });
  const labels = D.labels;
  const edges = D.edges; // [src, dst, label index, [container, lifted-edge index, ...] hops in path order]
  const details = function (i) { const d = D.details[i]; return d && typeof d === "object" ? d : null; };
  const locOf = function (i) { const d = details(i); return d && d.loc && typeof d.loc === "object" ? d.loc : null; };

  // ---- layout (mirror of place.py) ----------------------------------------------------------
  function even(v) { const n = Math.ceil(v); return n + (n & 1); }
  function gap(a, b, nc) { return a < nc && b < nc ? C.HGAP : C.DGAP; }

  function align(layer, nbrs, x, w, nc, wk) {
    const offs = [], bsum = [], bw = [], bn = [];
    let s = 0.0;
    for (let k = 0; k < layer.length; k++) {
      const v = layer[k];
      if (k > 0) s += w[layer[k - 1]] / 2 + gap(layer[k - 1], v, nc) + w[v] / 2;
      offs.push(s);
      const nb = nbrs[v];
      let d, q;
      if (nb.length) {  // boxes follow boxes, not passing dummies (see place.py)
        let t = 0.0, cnt = 0;
        if (v < nc) for (let j = 0; j < nb.length; j++) if (nb[j] < nc) { t += x[nb[j]]; cnt++; }
        if (cnt === 0) for (let j = 0; j < nb.length; j++) { t += x[nb[j]]; cnt++; }
        d = t / cnt;
        q = wk[v] ? 0.001 : cnt * (v >= nc ? 0.02 : 1.0);
      } else { d = x[v]; q = 0.05; }
      bsum.push((d - s) * q); bw.push(q); bn.push(1);
      while (bsum.length > 1 && bsum[bsum.length - 2] / bw[bw.length - 2] > bsum[bsum.length - 1] / bw[bw.length - 1]) {
        bsum[bsum.length - 2] += bsum.pop();
        bw[bw.length - 2] += bw.pop();
        bn[bn.length - 2] += bn.pop();
      }
    }
    let k = 0;
    for (let j = 0; j < bsum.length; j++) {
      const z = bsum[j] / bw[j];
      for (let r = 0; r < bn[j]; r++) { x[layer[k]] = z + offs[k]; k++; }
    }
  }

  function placeLevel(c, lv, W, H, G) {
    const nc = lv.children.length, size = lv.size;
    const w = [], hh = [], preds = [], succs = [];
    for (let i = 0; i < size; i++) {
      w.push(i < nc ? W[lv.children[i]] : C.DUMMY_W);
      hh.push(i < nc ? H[lv.children[i]] : 0.0);
      preds.push([]); succs.push([]);
    }
    const wk = [];  // params follow their consumer, never lead it
    for (let i = 0; i < size; i++) wk.push(i < nc && C.WEAK.indexOf(items[lv.children[i]].kind) >= 0);
    lv.ledges.forEach(function (e) {
      let prev = e[0];
      e[2].concat([e[1]]).forEach(function (v) {
        if (!wk[prev]) preds[v].push(prev);
        succs[prev].push(v);
        prev = v;
      });
    });
    const x = new Array(size).fill(0.0);
    lv.layers.forEach(function (layer) {
      let s = 0.0;
      for (let k = 0; k < layer.length; k++) {
        if (k > 0) s += w[layer[k - 1]] / 2 + gap(layer[k - 1], layer[k], nc) + w[layer[k]] / 2;
        x[layer[k]] = s;
      }
    });
    for (let p = 0; p < C.PASSES; p++) {
      for (let li = 1; li < lv.layers.length; li++) align(lv.layers[li], preds, x, w, nc, wk);
      for (let li = lv.layers.length - 2; li >= 0; li--) align(lv.layers[li], succs, x, w, nc, wk);
    }
    let left = Infinity, right = 0.0;
    for (let v = 0; v < size; v++) left = Math.min(left, x[v] - w[v] / 2);
    for (let v = 0; v < size; v++) {
      x[v] = Math.floor(x[v] - left + 0.5) + C.PAD;
      right = Math.max(right, x[v] + w[v] / 2);
    }
    const header = c === 0 ? 0 : C.HEADER;
    const tops = [], heights = [];
    lv.layers.forEach(function (layer) {
      let hl = 0.0;
      layer.forEach(function (v) { hl = Math.max(hl, hh[v]); });
      heights.push(hl);
    });
    let y = header + C.PAD;
    for (let li = 0; li < heights.length; li++) {
      if (li > 0) y += heights[li - 1] + (heights[li - 1] > 0 && heights[li] > 0 ? C.VGAP : C.PORT_GAP);
      tops.push(y);
    }
    G.cx[c] = x; G.tops[c] = tops; G.heights[c] = heights;
    const minW = c === 0 ? 0 : [...items[c].label].length * C.LABEL_CH + 48;
    const height = lv.layers.length ? y + heights[heights.length - 1] + C.PAD : header + 2 * C.PAD;
    return [Math.max(even(right + C.PAD), even(minW)), height];
  }

  function place() {
    const W = items.map(function (it) { return it.w; }), H = items.map(function (it) { return it.h; });
    const G = { x: new Array(N).fill(0.0), y: new Array(N).fill(0.0), w: W, h: H, cx: {}, tops: {}, heights: {},
                visible: new Array(N).fill(false) };
    const pre = [], stack = [0];
    G.visible[0] = true;
    while (stack.length) {
      const c = stack.pop();
      if (isBox(c) && expanded[c]) {
        pre.push(c);
        const ch = items[c].children;
        for (let k = ch.length - 1; k >= 0; k--) { G.visible[ch[k]] = true; stack.push(ch[k]); }
      }
    }
    for (let j = pre.length - 1; j >= 0; j--) {
      const r = placeLevel(pre[j], levels[pre[j]], W, H, G);
      W[pre[j]] = r[0]; H[pre[j]] = r[1];
    }
    pre.forEach(function (c) {
      const lv = levels[c];
      lv.children.forEach(function (k, i) {
        G.x[k] = G.x[c] + G.cx[c][i] - W[k] / 2;
        G.y[k] = G.y[c] + G.tops[c][lv.layerOf[i]];
      });
    });
    return G;
  }

  function reps() {
    const rep = new Array(N);
    for (let i = 0; i < N; i++) {
      const p = items[i].parent;
      rep[i] = p >= 0 && (rep[p] !== p || !expanded[p]) ? rep[p] : i;
    }
    return rep;
  }

  function hopPoints(lv, li, c, G, rev) {
    const e = lv.ledges[li], a = e[0], b = e[1], nc = lv.children.length, pts = [];
    if (a >= nc) {
      const px = G.x[c] + G.cx[c][a];
      pts.push([px, G.y[c]], [px, G.y[c] + G.tops[c][0] + G.heights[c][0]]);
    }
    const chain = rev ? e[2].slice().reverse() : e[2];
    chain.forEach(function (d) {
      const dx = G.x[c] + G.cx[c][d];
      const top = G.y[c] + G.tops[c][lv.layerOf[d]];
      const bot = top + G.heights[c][lv.layerOf[d]];
      if (rev) pts.push([dx, bot], [dx, top]); else pts.push([dx, top], [dx, bot]);
    });
    if (b >= nc) {
      const px = G.x[c] + G.cx[c][b];
      pts.push([px, G.y[c] + G.tops[c][lv.layerOf[b]]], [px, G.y[c] + G.h[c]]);
    }
    return pts;
  }

  function routes(G) {
    const rep = reps(), seen = new Map(), out = [];
    edges.forEach(function (e) {
      const a = rep[e[0]], b = rep[e[1]], path = e[3];
      if (!path.length || a === b) return;
      const key = a * N + b;
      if (seen.has(key)) { seen.get(key).count++; return; }
      const rev = path.length === 2 && levels[path[0]].rev[path[1]] === 1;
      let pts = [[G.x[a] + G.w[a] / 2, G.y[a] + (rev ? 0 : G.h[a])]];
      for (let k = 0; k < path.length; k += 2) {
        const c = path[k];
        if (G.visible[c] && expanded[c]) pts = pts.concat(hopPoints(levels[c], path[k + 1], c, G, rev));
      }
      pts.push([G.x[b] + G.w[b] / 2, G.y[b] + (rev ? G.h[b] : 0)]);
      const r = { src: a, dst: b, pts: pts, label: str(labels[e[2]]), count: 1 };
      seen.set(key, r);
      out.push(r);
    });
    return out;
  }

  // ---- scene elements (mirror of svg_view.py) -----------------------------------------------
  function n(v) { const r = Math.floor(v * 10 + 0.5) / 10; return Number.isInteger(r) ? String(r) : r.toFixed(1); }
  function base(p) { return str(p).split(/[\\/]/).pop(); }
  function title(i) {
    const it = items[i], parts = [it.label];
    if (it.path) parts.push(it.path);
    if (it.fused.length) parts.push("fused: " + it.fused.join(" + "));
    const loc = locOf(i);
    if (loc) parts.push(base(loc.file) + ":" + str(loc.line));
    return s("title", null, parts.join(" · "));
  }
  function group(cls, i, x, y) { return s("g", { class: cls, "data-i": i, transform: "translate(" + n(x) + "," + n(y) + ")" }); }
  function text(cls, x, y, content) { return s("text", { class: cls, x: x, y: y }, content); }
  /** The DOM contract the e2e suite and the IDE hosts rely on: op nodes carry their id and line. */
  function contract(g, i) {
    const d = details(i), loc = locOf(i);
    if (d && d.id !== undefined) g.setAttribute("data-node-id", str(d.id));
    if (loc && posInt(loc.line) !== undefined) g.setAttribute("data-line", String(loc.line));
    return g;
  }
  function leaf(i, x, y, w, hgt, collapsed) {
    const it = items[i], cx = n(w / 2);
    if (it.kind === "op") {
      const cls = "node op cat-" + it.cat + (it.fused.length ? " fused" : "") + (it.children.length ? " cf" : "");
      const g = contract(group(cls, i, x, y), i);
      append(g, [s("rect", { class: "body", width: n(w), height: n(hgt), rx: 5 }),
        s("rect", { class: "stripe", width: 4, height: n(hgt), rx: 2 }),
        text("lbl", cx, 15, it.label), text("sub", cx, 29, it.sub)]);
      if (it.fused.length) {
        append(g, [text("fz", cx, 43, it.fused.join("+")),
          s("g", { class: "badge", transform: "translate(" + n(w - 16) + ",-8)" },
            s("rect", { width: 30, height: 15, rx: 7 }), s("text", { x: 15, y: 11 }, "×" + it.fused.length))]);
      }
      if (it.children.length) {
        g.appendChild(s("g", { class: "tog", transform: "translate(" + n(w - 22) + ",4)" },
          s("rect", { width: 18, height: 16, rx: 3 }), s("text", { x: 9, y: 12 }, "+" + it.children.length)));
      }
      return append(g, [title(i)]);
    }
    if (collapsed) {
      return append(group("scope collapsed", i, x, y), [
        s("rect", { class: "stack", x: 4, y: 4, width: n(w), height: n(hgt), rx: 6 }),
        s("rect", { class: "body", width: n(w), height: n(hgt), rx: 6 }),
        text("lbl", cx, 17, "▸ " + it.label), text("sub", cx, 31, str(it.nOps) + " ops"), title(i)]);
    }
    return append(group("io " + it.kind.replace(/[^a-z]/g, ""), i, x, y), [
      s("rect", { class: "body", width: n(w), height: n(hgt), rx: n(hgt / 2) }),
      text("lbl", cx, 13, it.label), text("sub", cx, 25, it.sub), title(i)]);
  }
  function box(i, x, y, w, hgt) {
    const it = items[i];
    let cls, head;
    if (it.kind === "op") { cls = "node op cf open cat-" + it.cat; head = "▾ " + it.label + "  (" + it.sub + ")"; }
    else { cls = (it.kind === "graph" ? "branch" : "scope") + " open d" + (it.depth % 4); head = "▾ " + it.label; }
    const g = group(cls, i, x, y);
    if (it.kind === "op") contract(g, i);
    return append(g, [s("rect", { class: "box", width: n(w), height: n(hgt), rx: 8 }), text("hdr", 10, 16, head), title(i)]);
  }
  function pathD(pts) {
    let d = "M" + n(pts[0][0]) + "," + n(pts[0][1]);
    for (let k = 1; k < pts.length; k++) {
      const x0 = pts[k - 1][0], y0 = pts[k - 1][1], x1 = pts[k][0], y1 = pts[k][1];
      if (x0 === x1) d += "L" + n(x1) + "," + n(y1);
      else { const ym = (y0 + y1) / 2; d += "C" + n(x0) + "," + n(ym) + " " + n(x1) + "," + n(ym) + " " + n(x1) + "," + n(y1); }
    }
    return d;
  }
  function scene(G, into) {
    const boxes = s("g", { class: "boxes" }), paths = s("g", { class: "edges" }), labs = s("g", { class: "elabels" });
    const leaves = s("g", { class: "leaves" });
    for (let i = 1; i < N; i++) {
      if (!G.visible[i]) continue;
      if (isBox(i) && expanded[i]) boxes.appendChild(box(i, G.x[i], G.y[i], G.w[i], G.h[i]));
      else leaves.appendChild(leaf(i, G.x[i], G.y[i], G.w[i], G.h[i], isBox(i)));
    }
    const labelled = new Set();
    routes(G).forEach(function (r) {
      const p0 = r.pts[0], p1 = r.pts[1];
      const label = r.label + (r.count > 1 ? " ×" + r.count : "");
      paths.appendChild(s("path", { class: "edge", "data-s": r.src, "data-t": r.dst, d: pathD(r.pts) }));
      // one label per value leaving a box; none from parameters, whose pill already shows the shape
      if (labelled.has(r.src + "|" + label) || items[r.src].kind === "param") return;
      labelled.add(r.src + "|" + label);
      labs.appendChild(text("elabel", n((p0[0] + p1[0]) / 2 + 5), n((p0[1] + p1[1]) / 2 + 3), label));
    });
    append(into, [boxes, paths, labs, leaves]);
  }

  // ---- chrome: toolbar, stage, details --------------------------------------------------------
  root.classList.add("spore-graph-view");
  clear(root);
  const input = h("input", { class: "sv-search", type: "search", placeholder: "Search op, scope, parameter…  ( / )",
                             autocomplete: "off", "aria-label": "Search the graph" });
  const stats = h("span", { class: "sv-stats" });
  const btn = function (cls, label, tip) { return h("button", { class: cls, type: "button", title: tip }, label); };
  const fitBtn = btn("sv-fit", "Fit", "Fit the graph to the view");
  const expandBtn = btn("sv-expand-all", "Expand all", "Open every scope");
  const collapseBtn = btn("sv-collapse-all", "Collapse all", "Close every scope");
  const results = h("ul", { class: "sv-results" });
  const vp = s("g", { class: "sv-viewport" });
  const marker = s("defs", null, s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
                                                orient: "auto-start-reverse" }, s("path", { d: "M0,0L10,5L0,10z", class: "arrowhead" })));
  const svg = s("svg", { class: "spore-graph sv-canvas" }, marker, vp);
  const stage = h("div", { class: "sv-stage" }, svg);
  const panel = h("div", { class: "sv-details" });
  append(root, [h("div", { class: "sv-top" }, h("h1", null, h("span", null, "spore"), " " + str(D.name)), input, fitBtn,
                  expandBtn, collapseBtn, stats), results, stage, panel]);

  let G = null, view = { x: 20, y: 20, s: 1 }, selected = -1, hits = [], lineHits = [], pendingFit = false, moved = false;
  const NARROW = 720;  // px: below this the details panel goes under the graph

  function applyView() {
    vp.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.s + ")");
    svg.classList.toggle("lod1", view.s < 0.6);
    svg.classList.toggle("lod2", view.s < 0.3);
  }
  function render() {
    const t0 = performance.now();
    G = place();
    clear(vp);
    scene(G, vp);
    let vis = 0;
    for (let i = 1; i < N; i++) if (G.visible[i] && !(isBox(i) && expanded[i])) vis++;
    stats.textContent = str(D.nOps) + " ops · " + vis + " boxes shown · layout " + Math.round(performance.now() - t0) + " ms";
    svg.setAttribute("data-rendered", String(vis));
    decorate();
  }
  function fit(topAlign) {
    const r = stage.getBoundingClientRect(), W = G.w[0], H = G.h[0];
    if (!r.width || !r.height) { pendingFit = true; return; }  // not laid out yet (a hidden notebook output)
    pendingFit = false;
    let sc = Math.min(1.1, (r.width - 40) / W, (r.height - 40) / H);
    if (topAlign && sc < 0.45) sc = Math.min(1.1, Math.max(0.45, (r.width - 40) / W));
    view.s = sc;
    view.x = Math.max(20, (r.width - W * sc) / 2);
    view.y = H * sc < r.height - 40 ? (r.height - H * sc) / 2 : 20;
    applyView();
  }
  function centerOn(i) {
    const r = stage.getBoundingClientRect();
    view.s = Math.max(view.s, 0.8);
    view.x = r.width / 2 - (G.x[i] + G.w[i] / 2) * view.s;
    view.y = r.height / 2 - (G.y[i] + G.h[i] / 2) * view.s;
    applyView();
  }
  listen(stage, "wheel", function (ev) {
    // in a notebook output the wheel scrolls the notebook; zoom there takes Ctrl/Cmd (or a pinch)
    if (hooks.wheelZoom === "modifier" && !(ev.ctrlKey || ev.metaKey)) return;
    ev.preventDefault();
    const r = stage.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    const k = Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 0.0015)), sc = Math.min(4, Math.max(0.02, view.s * k));
    view.x = px - (px - view.x) * sc / view.s;
    view.y = py - (py - view.y) * sc / view.s;
    view.s = sc;
    moved = true;
    applyView();
  }, { passive: false });
  let drag = null;
  listen(stage, "pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false }; });
  listen(window, "pointermove", function (ev) {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
    if (drag.moved) { view.x = drag.vx + dx; view.y = drag.vy + dy; moved = true; applyView(); }
  });
  listen(window, "pointerup", function () { setTimeout(function () { drag = null; }, 0); });

  // ---- interaction: toggle, select, details, search, reveal ------------------------------------
  function toggle(i, open) {
    expanded[i] = open === undefined ? !expanded[i] : open;
    render();
  }
  function revealLoc(i) {
    const loc = locOf(i);
    if (!loc || typeof hooks.onReveal !== "function" || typeof loc.file !== "string" || posInt(loc.line) === undefined) return;
    const msg = { file: loc.file, line: loc.line, col: posInt(loc.col) === undefined ? 0 : loc.col };
    if (typeof loc.cell === "number" && Number.isInteger(loc.cell)) msg.cellId = loc.cell;
    hooks.onReveal(msg);
  }
  listen(svg, "click", function (ev) {
    if (drag && drag.moved) return;
    const g = ev.target.closest("[data-i]");
    if (!g) { select(-1); return; }
    const i = +g.getAttribute("data-i");
    const onToggle = ev.target.closest(".tog") || ev.target.closest(".hdr") || g.classList.contains("collapsed");
    if (isBox(i) && onToggle) toggle(i);
    select(i);
    if (!onToggle) revealLoc(i);
  });
  listen(svg, "dblclick", function (ev) {
    const g = ev.target.closest("[data-i]");
    if (g && isBox(+g.getAttribute("data-i"))) toggle(+g.getAttribute("data-i"));
  });
  function mark(rep, list, cls) {
    list.forEach(function (i) { const el = vp.querySelector('[data-i="' + rep[i] + '"]'); if (el) el.classList.add(cls); });
  }
  function decorate() {
    vp.querySelectorAll(".sel, .hot, .hit, .lhit").forEach(function (el) { el.classList.remove("sel", "hot", "hit", "lhit"); });
    if (!G) return;
    const rep = reps();
    mark(rep, hits, "hit");
    mark(rep, lineHits, "lhit");
    if (selected < 0) return;
    const el = vp.querySelector('[data-i="' + rep[selected] + '"]');
    if (el) el.classList.add("sel");
    vp.querySelectorAll('.edge[data-s="' + rep[selected] + '"], .edge[data-t="' + rep[selected] + '"]')
      .forEach(function (p) { p.classList.add("hot"); });
  }
  function row(k, ...cells) { return h("tr", null, h("th", null, k), h("td", null, ...cells)); }
  function code(v) { return h("code", null, typeof v === "string" ? v : JSON.stringify(v)); }
  function join(nodes, sep) { const out = []; nodes.forEach(function (x, k) { if (k) out.push(sep()); out.push(x); }); return out; }
  function select(i) {
    selected = i;
    decorate();
    clear(panel);
    if (i < 0) {
      panel.appendChild(h("p", { class: "hint" }, "Click a node for its details; click a ▸ box or header to expand or collapse it."));
      return;
    }
    const it = items[i], nd = details(i);
    panel.appendChild(h("h2", null, it.label + " ", h("span", { class: "kind" }, it.kind === "graph" ? "branch" : it.kind)));
    const table = h("table");
    panel.appendChild(table);
    if (nd) {
      table.appendChild(row("id", code(str(nd.id))));
      if (nd.scope) table.appendChild(row("scope", code(str(nd.scope))));
      const outs = Array.isArray(nd.outputs) ? nd.outputs : [], shapes = Array.isArray(nd.shapes) ? nd.shapes : [];
      const dtypes = Array.isArray(nd.dtypes) ? nd.dtypes : [];
      table.appendChild(row("outputs", ...join(outs.map(function (v, k) {
        const shp = Array.isArray(shapes[k]) ? "[" + shapes[k].map(str).join(", ") + "]" : "[]";
        return h("span", null, code(str(v)), " " + shp + " " + str(dtypes[k]));
      }), function () { return h("br"); })));
      table.appendChild(row("inputs", ...join((Array.isArray(nd.inputs) ? nd.inputs : []).map(function (v) { return code(str(v)); }),
        function () { return " "; })));
      if (Array.isArray(nd.fused) && nd.fused.length) {
        table.appendChild(row("fused", ...join(nd.fused.map(function (f) { return h("span", { class: "chip" }, str(f)); }),
          function () { return " "; })));
      }
      const attrs = nd.attrs && typeof nd.attrs === "object" ? nd.attrs : {};
      Object.keys(attrs).forEach(function (k) { table.appendChild(row(k, code(attrs[k]))); });
      const loc = locOf(i);
      if (loc) {
        const file = str(loc.file), lines = D.sources[file], srcText = lines && typeof lines === "object" ? lines[str(loc.line)] : undefined;
        const col = posInt(loc.col);
        const where = base(file) + ":" + str(loc.line) + (col === undefined ? "" : ":" + (col + 1));
        const box = h("div", { class: "loc" }, h("div", { class: "where", title: file }, where), h("div", { class: "path" }, file));
        if (typeof srcText === "string") {  // the statement, dedented, with the node's span marked
          const lead = srcText.length - srcText.trimStart().length, line = srcText.slice(lead);
          const endCol = posInt(loc.end_col);
          const a = Math.max(0, (col || 0) - lead), b = endCol === undefined ? line.length : endCol - lead;
          box.appendChild(h("pre", null, line.slice(0, a), h("mark", null, line.slice(a, b)), line.slice(b)));
        }
        if (typeof hooks.onReveal === "function" && posInt(loc.line) !== undefined) {
          const go = h("button", { type: "button", class: "sv-reveal" }, "Go to source");
          go.addEventListener("click", function () { revealLoc(i); });
          box.appendChild(go);
        }
        panel.appendChild(box);
      }
    } else {
      if (it.path) table.appendChild(row(it.kind === "param" ? "name" : "path", code(it.path)));
      if (it.sub) table.appendChild(row("value", code(it.sub)));
      if (isBox(i)) table.appendChild(row("contains", str(it.nOps) + " ops in " + it.children.length + " children"));
    }
    if (isBox(i)) {
      const b = h("button", { type: "button", class: "sv-toggle" }, expanded[i] ? "Collapse" : "Expand");
      b.addEventListener("click", function () { toggle(i); select(i); });
      panel.appendChild(b);
    }
  }
  function reveal(i) {
    clear(results);
    for (let p = items[i].parent; p >= 0; p = items[p].parent) expanded[p] = true;
    render();
    select(i);
    centerOn(i);
  }
  let timer = 0;
  function search() {
    const q = input.value.trim().toLowerCase();
    hits = [];
    clear(results);
    if (q) {
      for (let i = 1; i < N; i++) {
        const it = items[i], nd = details(i);
        if (it.label.toLowerCase().includes(q) || it.path.toLowerCase().includes(q) || (nd && str(nd.id).toLowerCase() === q)) hits.push(i);
      }
      results.appendChild(h("li", { class: "count" }, hits.length + " match" + (hits.length === 1 ? "" : "es") +
        (hits.length > 200 ? " (first 200)" : "")));
      hits.slice(0, 200).forEach(function (i) {
        const it = items[i];
        results.appendChild(h("li", { "data-r": i }, h("b", null, it.label), " ", h("span", null, it.path || it.kind)));
      });
    }
    decorate();
  }
  listen(input, "input", function () { clearTimeout(timer); timer = setTimeout(search, 120); });
  listen(input, "keydown", function (ev) {
    if (ev.key === "Enter" && hits.length) reveal(hits[0]);
    if (ev.key === "Escape") { input.value = ""; search(); }
  });
  listen(results, "click", function (ev) {
    const li = ev.target.closest("[data-r]");
    if (li) reveal(+li.getAttribute("data-r"));
  });
  if (hooks.keys) {
    listen(window, "keydown", function (ev) {
      if (ev.key === "/" && document.activeElement !== input) { ev.preventDefault(); input.focus(); }
    });
  }
  listen(fitBtn, "click", function () { fit(false); });
  listen(expandBtn, "click", function () {
    for (let i = 0; i < N; i++) if (isBox(i)) expanded[i] = true;
    render(); fit(true);
  });
  listen(collapseBtn, "click", function () {
    for (let i = 1; i < N; i++) if (isBox(i)) expanded[i] = false;
    render(); fit(false);
  });

  /** Deep links (#select=<node id | op | scope>, #expand=all): how the IDE opens the page on a node. */
  function open(hash) {
    const params = new URLSearchParams(str(hash).replace(/^#/, ""));
    if (params.get("expand") === "all") for (let i = 0; i < N; i++) if (isBox(i)) expanded[i] = true;
    render();
    fit(true);
    select(-1);
    const q = params.get("select");
    if (q) {
      input.value = q;
      search();
      const exact = hits.filter(function (i) { const d = details(i); return d && d.id === q; });
      if (hits.length) reveal(exact.length ? exact[0] : hits[0]);
    }
  }

  /** Mark the nodes made by these lines of `file` (the editor's cursor line), opening their scopes. */
  function highlightLines(file, lines) {
    const want = new Set((Array.isArray(lines) ? lines : []).filter(function (l) { return posInt(l) !== undefined; }));
    lineHits = [];
    for (let i = 1; i < N; i++) {
      const loc = locOf(i);
      if (loc && want.has(loc.line) && (file === undefined || file === null || loc.file === file)) lineHits.push(i);
    }
    let opened = false;
    lineHits.forEach(function (i) {
      for (let p = items[i].parent; p > 0; p = items[p].parent) if (!expanded[p]) { expanded[p] = true; opened = true; }
    });
    if (opened) render(); else decorate();
    return lineHits.map(function (i) { return str(details(i).id); });
  }

  // Narrow hosts (an editor split, a notebook column) stack the details under the graph instead of
  // beside it; until the user pans or zooms, the graph is fitted again whenever the size changes
  // (a notebook output is measured only once shown).
  function layoutForWidth() {
    const w = root.getBoundingClientRect().width;
    if (w > 0) root.classList.toggle("sv-narrow", w < NARROW);
  }
  layoutForWidth();
  open(hooks.hash || "");
  const ro = typeof ResizeObserver === "function" ? new ResizeObserver(function () {
    layoutForWidth();
    if (G && (pendingFit || !moved)) fit(true);
  }) : null;
  if (ro) { ro.observe(root); cleanups.push(function () { ro.disconnect(); }); }
  return {
    open: open,
    highlightLines: highlightLines,
    fit: function () { fit(false); },
    destroy: function () { cleanups.forEach(function (f) { f(); }); clear(root); },
  };
}
