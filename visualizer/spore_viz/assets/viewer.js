/* Spore graph viewer: builds the SVG from the embedded payload, lays it out again on every
 * expand/collapse, and handles pan/zoom, selection, details and search. No dependencies.
 *
 * place()/routes() mirror spore_viz/place.py operation for operation (same float order, same
 * snapping), and the markup mirrors spore_viz/svg_view.py: change them together. */
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("spore-data").textContent);
  const C = D.C;
  const NS = "http://www.w3.org/2000/svg";
  const N = D.items.length;

  // ---- model --------------------------------------------------------------------------------
  const items = D.items.map(function (a) {
    return { kind: a[0], label: a[1], parent: a[2], sub: a[3], w: a[4], h: a[5], nOps: a[6], path: a[7],
             cat: a[8], fused: a[9] || [], children: [], depth: 0 };
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
  D.expanded.forEach(function (i) { expanded[i] = true; });
  const labels = D.labels;
  const edges = D.edges; // [src, dst, label index, [container, lifted-edge index, ...] hops in path order]

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
    const w = [], h = [], preds = [], succs = [];
    for (let i = 0; i < size; i++) {
      w.push(i < nc ? W[lv.children[i]] : C.DUMMY_W);
      h.push(i < nc ? H[lv.children[i]] : 0.0);
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
      layer.forEach(function (v) { hl = Math.max(hl, h[v]); });
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

  function reps(G) {
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
    const rep = reps(G), seen = new Map(), out = [];
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
      const r = { src: a, dst: b, pts: pts, label: labels[e[2]], count: 1 };
      seen.set(key, r);
      out.push(r);
    });
    return out;
  }

  // ---- markup (mirror of svg_view.py) -------------------------------------------------------
  function n(v) { const r = Math.floor(v * 10 + 0.5) / 10; return Number.isInteger(r) ? String(r) : r.toFixed(1); }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function base(p) { return String(p).split(/[\\/]/).pop(); }
  function title(i) {
    const it = items[i], parts = [it.label];
    if (it.path) parts.push(it.path);
    if (it.fused.length) parts.push("fused: " + it.fused.join(" + "));
    const nd = D.details[i];
    if (nd && nd.loc) parts.push(base(nd.loc.file) + ":" + nd.loc.line);
    return "<title>" + esc(parts.join(" · ")) + "</title>";
  }
  function leaf(i, x, y, w, h, collapsed) {
    const it = items[i], tr = ' data-i="' + i + '" transform="translate(' + n(x) + "," + n(y) + ')"', cx = n(w / 2);
    if (it.kind === "op") {
      const cls = "node op cat-" + it.cat + (it.fused.length ? " fused" : "") + (it.children.length ? " cf" : "");
      let s = '<g class="' + cls + '"' + tr + '><rect class="body" width="' + n(w) + '" height="' + n(h) + '" rx="5"/>' +
        '<rect class="stripe" width="4" height="' + n(h) + '" rx="2"/>' +
        '<text class="lbl" x="' + cx + '" y="15">' + esc(it.label) + "</text>" +
        '<text class="sub" x="' + cx + '" y="29">' + esc(it.sub) + "</text>";
      if (it.fused.length) {
        s += '<text class="fz" x="' + cx + '" y="43">' + esc(it.fused.join("+")) + "</text>" +
          '<g class="badge" transform="translate(' + n(w - 16) + ',-8)"><rect width="30" height="15" rx="7"/>' +
          '<text x="15" y="11">×' + it.fused.length + "</text></g>";
      }
      if (it.children.length) {
        s += '<g class="tog" transform="translate(' + n(w - 22) + ',4)"><rect width="18" height="16" rx="3"/>' +
          '<text x="9" y="12">+' + it.children.length + "</text></g>";
      }
      return s + title(i) + "</g>";
    }
    if (collapsed) {
      return '<g class="scope collapsed"' + tr + '><rect class="stack" x="4" y="4" width="' + n(w) + '" height="' + n(h) +
        '" rx="6"/><rect class="body" width="' + n(w) + '" height="' + n(h) + '" rx="6"/>' +
        '<text class="lbl" x="' + cx + '" y="17">▸ ' + esc(it.label) + "</text>" +
        '<text class="sub" x="' + cx + '" y="31">' + it.nOps + " ops</text>" + title(i) + "</g>";
    }
    return '<g class="io ' + it.kind + '"' + tr + '><rect class="body" width="' + n(w) + '" height="' + n(h) + '" rx="' +
      n(h / 2) + '"/><text class="lbl" x="' + cx + '" y="13">' + esc(it.label) + "</text>" +
      '<text class="sub" x="' + cx + '" y="25">' + esc(it.sub) + "</text>" + title(i) + "</g>";
  }
  function box(i, x, y, w, h) {
    const it = items[i];
    let cls, head;
    if (it.kind === "op") { cls = "node op cf open cat-" + it.cat; head = "▾ " + it.label + "  (" + it.sub + ")"; }
    else { cls = (it.kind === "graph" ? "branch" : "scope") + " open d" + (it.depth % 4); head = "▾ " + it.label; }
    return '<g class="' + cls + '" data-i="' + i + '" transform="translate(' + n(x) + "," + n(y) + ')">' +
      '<rect class="box" width="' + n(w) + '" height="' + n(h) + '" rx="8"/>' +
      '<text class="hdr" x="10" y="16">' + esc(head) + "</text>" + title(i) + "</g>";
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
  function scene(G) {
    const boxes = [], leaves = [], paths = [], labs = [];
    for (let i = 1; i < N; i++) {
      if (!G.visible[i]) continue;
      if (isBox(i) && expanded[i]) boxes.push(box(i, G.x[i], G.y[i], G.w[i], G.h[i]));
      else leaves.push(leaf(i, G.x[i], G.y[i], G.w[i], G.h[i], isBox(i)));
    }
    const labelled = new Set();
    routes(G).forEach(function (r) {
      const p0 = r.pts[0], p1 = r.pts[1];
      const text = r.label + (r.count > 1 ? " ×" + r.count : "");
      paths.push('<path class="edge" data-s="' + r.src + '" data-t="' + r.dst + '" d="' + pathD(r.pts) + '"/>');
      // one label per value leaving a box; none from parameters, whose pill already shows the shape
      if (labelled.has(r.src + "|" + text) || items[r.src].kind === "param") return;
      labelled.add(r.src + "|" + text);
      labs.push('<text class="elabel" x="' + n((p0[0] + p1[0]) / 2 + 5) + '" y="' + n((p0[1] + p1[1]) / 2 + 3) + '">' +
        esc(text) + "</text>");
    });
    return '<g class="boxes">' + boxes.join("") + '</g><g class="edges">' + paths.join("") + "</g>" +
      '<g class="elabels">' + labs.join("") + '</g><g class="leaves">' + leaves.join("") + "</g>";
  }

  // ---- view: render, pan/zoom ---------------------------------------------------------------
  const svg = document.getElementById("canvas"), vp = document.getElementById("viewport");
  const stage = document.getElementById("stage");
  let G = null, view = { x: 20, y: 20, s: 1 }, selected = -1, hits = [];

  function applyView() {
    vp.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.s + ")");
    svg.classList.toggle("lod1", view.s < 0.6);
    svg.classList.toggle("lod2", view.s < 0.3);
  }
  function render() {
    const t0 = performance.now();
    G = place();
    vp.innerHTML = scene(G);
    let vis = 0;
    for (let i = 1; i < N; i++) if (G.visible[i] && !(isBox(i) && expanded[i])) vis++;
    document.getElementById("stats").textContent =
      D.nOps + " ops · " + vis + " boxes shown · layout " + Math.round(performance.now() - t0) + " ms";
    svg.setAttribute("data-rendered", String(vis));
    decorate();
  }
  function fit(topAlign) {
    const r = stage.getBoundingClientRect(), W = G.w[0], H = G.h[0];
    let s = Math.min(1.1, (r.width - 40) / W, (r.height - 40) / H);
    if (topAlign && s < 0.45) s = Math.min(1.1, Math.max(0.45, (r.width - 40) / W));
    view.s = s;
    view.x = Math.max(20, (r.width - W * s) / 2);
    view.y = H * s < r.height - 40 ? (r.height - H * s) / 2 : 20;
    applyView();
  }
  function centerOn(i) {
    const r = stage.getBoundingClientRect();
    view.s = Math.max(view.s, 0.8);
    view.x = r.width / 2 - (G.x[i] + G.w[i] / 2) * view.s;
    view.y = r.height / 2 - (G.y[i] + G.h[i] / 2) * view.s;
    applyView();
  }
  stage.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    const r = stage.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    const k = Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 0.0015)), s = Math.min(4, Math.max(0.02, view.s * k));
    view.x = px - (px - view.x) * s / view.s;
    view.y = py - (py - view.y) * s / view.s;
    view.s = s;
    applyView();
  }, { passive: false });
  let drag = null;
  stage.addEventListener("pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false }; });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
    if (drag.moved) { view.x = drag.vx + dx; view.y = drag.vy + dy; applyView(); }
  });
  window.addEventListener("pointerup", function () { setTimeout(function () { drag = null; }, 0); });

  // ---- interaction: toggle, select, details, search -----------------------------------------
  function toggle(i, open) {
    expanded[i] = open === undefined ? !expanded[i] : open;
    render();
  }
  svg.addEventListener("click", function (ev) {
    if (drag && drag.moved) return;
    const g = ev.target.closest("[data-i]");
    if (!g) { select(-1); return; }
    const i = +g.getAttribute("data-i");
    const onToggle = ev.target.closest(".tog") || ev.target.closest(".hdr") || g.classList.contains("collapsed");
    if (isBox(i) && onToggle) toggle(i);
    select(i);
  });
  svg.addEventListener("dblclick", function (ev) {
    const g = ev.target.closest("[data-i]");
    if (g && isBox(+g.getAttribute("data-i"))) toggle(+g.getAttribute("data-i"));
  });
  function decorate() {
    vp.querySelectorAll(".sel, .hot, .hit").forEach(function (el) { el.classList.remove("sel", "hot", "hit"); });
    if (!G) return;
    const rep = reps(G);
    hits.forEach(function (i) { const el = vp.querySelector('[data-i="' + rep[i] + '"]'); if (el) el.classList.add("hit"); });
    if (selected < 0) return;
    const el = vp.querySelector('[data-i="' + rep[selected] + '"]');
    if (el) el.classList.add("sel");
    vp.querySelectorAll('.edge[data-s="' + rep[selected] + '"], .edge[data-t="' + rep[selected] + '"]')
      .forEach(function (p) { p.classList.add("hot"); });
  }
  function row(k, v) { return "<tr><th>" + esc(k) + "</th><td>" + v + "</td></tr>"; }
  function code(v) { return "<code>" + esc(typeof v === "string" ? v : JSON.stringify(v)) + "</code>"; }
  function select(i) {
    selected = i;
    decorate();
    const panel = document.getElementById("details");
    if (i < 0) { panel.innerHTML = '<p class="hint">Click a node for its details; click a ▸ box or header to expand or collapse it.</p>'; return; }
    const it = items[i], nd = D.details[i];
    let h = "<h2>" + esc(it.label) + ' <span class="kind">' + esc(it.kind === "graph" ? "branch" : it.kind) + "</span></h2><table>";
    if (nd) {
      h += row("id", code(nd.id));
      if (nd.scope) h += row("scope", code(nd.scope));
      h += row("outputs", (nd.outputs || []).map(function (v, k) {
        return code(v) + " " + esc(((nd.shapes || [])[k] ? "[" + nd.shapes[k].join(", ") + "]" : "[]") + " " + ((nd.dtypes || [])[k] || ""));
      }).join("<br>"));
      h += row("inputs", (nd.inputs || []).map(code).join(" "));
      if (nd.fused && nd.fused.length) h += row("fused", nd.fused.map(function (f) { return '<span class="chip">' + esc(f) + "</span>"; }).join(" "));
      const attrs = nd.attrs || {};
      Object.keys(attrs).forEach(function (k) { h += row(k, code(attrs[k])); });
      h += "</table>";
      if (nd.loc) {
        const lines = (D.sources[nd.loc.file] || {}), text = lines[nd.loc.line];
        h += '<div class="loc"><div class="where" title="' + esc(nd.loc.file) + '">' + esc(base(nd.loc.file)) + ":" + nd.loc.line +
          ":" + (nd.loc.col + 1) + '</div><div class="path">' + esc(nd.loc.file) + "</div>";
        if (text !== undefined) {  // the statement, dedented, with the node's span marked
          const lead = text.length - text.trimStart().length, line = text.slice(lead);
          const a = Math.max(0, (nd.loc.col || 0) - lead), b = nd.loc.end_col == null ? line.length : nd.loc.end_col - lead;
          h += "<pre>" + esc(line.slice(0, a)) + "<mark>" + esc(line.slice(a, b)) + "</mark>" + esc(line.slice(b)) + "</pre>";
        }
        h += "</div>";
      }
    } else {
      if (it.path) h += row(it.kind === "param" ? "name" : "path", code(it.path));
      if (it.sub) h += row("value", code(it.sub));
      if (isBox(i)) h += row("contains", it.nOps + " ops in " + it.children.length + " children");
      h += "</table>";
    }
    if (isBox(i)) {
      h += '<button id="tog-sel">' + (expanded[i] ? "Collapse" : "Expand") + "</button>";
    }
    panel.innerHTML = h;
    const b = document.getElementById("tog-sel");
    if (b) b.addEventListener("click", function () { toggle(i); select(i); });
  }
  function reveal(i) {
    results.innerHTML = "";
    for (let p = items[i].parent; p >= 0; p = items[p].parent) expanded[p] = true;
    render();
    select(i);
    centerOn(i);
  }
  const input = document.getElementById("search"), results = document.getElementById("results");
  let timer = 0;
  function search() {
    const q = input.value.trim().toLowerCase();
    hits = [];
    results.innerHTML = "";
    if (q) {
      for (let i = 1; i < N; i++) {
        const it = items[i], nd = D.details[i];
        if (it.label.toLowerCase().includes(q) || it.path.toLowerCase().includes(q) || (nd && nd.id.toLowerCase() === q)) hits.push(i);
      }
      const shown = hits.slice(0, 200).map(function (i) {
        const it = items[i];
        return '<li data-r="' + i + '"><b>' + esc(it.label) + "</b> <span>" + esc(it.path || it.kind) + "</span></li>";
      });
      results.innerHTML = '<li class="count">' + hits.length + " match" + (hits.length === 1 ? "" : "es") +
        (hits.length > 200 ? " (first 200)" : "") + "</li>" + shown.join("");
    }
    decorate();
  }
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 120); });
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && hits.length) reveal(hits[0]);
    if (ev.key === "Escape") { input.value = ""; search(); }
  });
  results.addEventListener("click", function (ev) {
    const li = ev.target.closest("[data-r]");
    if (li) reveal(+li.getAttribute("data-r"));
  });
  window.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== input) { ev.preventDefault(); input.focus(); }
  });
  document.getElementById("fit").addEventListener("click", function () { fit(false); });
  document.getElementById("expand-all").addEventListener("click", function () {
    for (let i = 0; i < N; i++) if (isBox(i)) expanded[i] = true;
    render(); fit(true);
  });
  document.getElementById("collapse-all").addEventListener("click", function () {
    for (let i = 1; i < N; i++) if (isBox(i)) expanded[i] = false;
    render(); fit(false);
  });

  // Deep links, so the IDE can open the page on a node: #select=<node id | op | scope>, #expand=all.
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("expand") === "all") for (let i = 0; i < N; i++) if (isBox(i)) expanded[i] = true;
    render();
    fit(true);
    select(-1);
    const q = params.get("select");
    if (q) {
      input.value = q;
      search();
      const exact = hits.filter(function (i) { return D.details[i] && D.details[i].id === q; });
      if (hits.length) reveal(exact.length ? exact[0] : hits[0]);
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
