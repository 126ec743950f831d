// pprofx flame graph renderer. Part of pprofx (Apache-2.0); no third-party code.
//
// The data holds every distinct stack once, root first, sorted frame by
// frame, so each frame of the flame graph (a call path) is one contiguous
// run of stacks [lo, hi), found by binary search, and its value is a
// difference of prefix sums. Nothing is built per frame up front: a render
// walks down only into frames at least MIN_PX wide; runs of narrower
// siblings are drawn as one grey block ("N small frames"), so a profile of
// 100k distinct stacks draws as fast as a small one.
(function () {
  "use strict";
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById("pprofx-data").textContent);
  var ROW = 16, MIN_PX = 1, FONT = "11px monospace";
  var names = D.names, n = D.pre.length;

  // Stacks: fr[off[k] .. off[k+1]) root first.
  var off = new Int32Array(n + 1), len = 0, k, j, q = 0;
  for (k = 0; k < n; k++) len += D.pre[k] + D.cnt[k];
  var fr = new Int32Array(len), p = 0;
  for (k = 0; k < n; k++) {
    off[k] = p;
    if (D.pre[k] > 0) fr.copyWithin(p, off[k - 1], off[k - 1] + D.pre[k]);
    p += D.pre[k];
    for (j = 0; j < D.cnt[k]; j++) fr[p++] = D.fr[q++];
  }
  off[n] = p;
  function L(i) { return off[i + 1] - off[i]; }
  function F(i, d) { return fr[off[i] + d]; }

  var prefix = [];
  function P(t) {
    if (!prefix[t]) {
      var v = D.types[t].values, a = new Float64Array(n + 1);
      for (var i = 0; i < n; i++) a[i + 1] = a[i] + v[i];
      prefix[t] = a;
    }
    return prefix[t];
  }
  //diff:begin
  // A differential page (pprofx diff -o x.html): D.types[t].base holds
  // BASE's value of each stack, as a positive number; values are NEW's.
  // Frames are sized by NEW and coloured by NEW - BASE over the same
  // stacks: red grew, blue shrank, full colour at +-50% of BASE.
  var prefixBase = [];
  function PB(t) {
    if (!prefixBase[t]) {
      var v = D.types[t].base, a = new Float64Array(n + 1);
      for (var i = 0; i < n; i++) a[i + 1] = a[i] + v[i];
      prefixBase[t] = a;
    }
    return prefixBase[t];
  }
  function baseOf(r) { var a = PB(S.type); return a[r.hi] - a[r.lo]; }
  function baseTotal() { var a = PB(S.type); return a[n] - a[0]; }
  function change(nv, bv) { return bv !== 0 ? (nv - bv) / Math.abs(bv) : (nv > 0 ? 1 : nv < 0 ? -1 : 0); }
  function diffColor(nv, bv, dim) {
    var c = change(nv, bv), s = Math.min(1, Math.abs(c) / 0.5), to = c > 0 ? [214, 39, 40] : [31, 90, 200];
    var r = 235 + (to[0] - 235) * s, g = 235 + (to[1] - 235) * s, b = 235 + (to[2] - 235) * s;
    if (dim) { r = (r + 255 * 2) / 3; g = (g + 255 * 2) / 3; b = (b + 255 * 2) / 3; }
    return "rgb(" + Math.round(r) + "," + Math.round(g) + "," + Math.round(b) + ")";
  }
  function changeText(nv, bv) {
    var d = nv - bv, sign = d > 0 ? "+" : "";
    return sign + unitFmt(d) + (bv !== 0 ? " (" + sign + (Math.round(d / Math.abs(bv) * 1000) / 10) + "%)" : nv !== 0 ? " (new)" : "");
  }
  //diff:end

  var S = { type: D.active, icicle: false, path: [], query: "", match: null, matched: 0,
    drawn: [], renderMs: 0, loadMs: 0, rows: 0 };
  var canvas = document.getElementById("fg"), ctx = canvas.getContext("2d");
  var tip = document.getElementById("tip"), status = document.getElementById("status");

  // Calls fn(nameId, lo, hi) for each child (at depth d+1) of the frame at
  // depth d spanning stacks [lo, hi). The one stack that ends at the frame,
  // if any, sorts first and is skipped.
  function eachChild(d, lo, hi, fn) {
    var cd = d + 1, i = lo;
    while (i < hi && L(i) <= cd) i++;
    while (i < hi) {
      var f = F(i, cd), a = i, b = i + 1, step = 1;
      while (b < hi && F(b, cd) === f) { a = b; step *= 2; b = i + step; }
      if (b > hi) b = hi;
      while (b - a > 1) { var m = (a + b) >> 1; if (F(m, cd) === f) a = m; else b = m; }
      fn(f, i, a + 1);
      i = a + 1;
    }
  }

  function color(id, dim) {
    var s = names[id], h = 0;
    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    h = Math.abs(h);
    var r = 205 + (h % 50), g = 80 + ((h >> 8) % 130), b = 40 + ((h >> 16) % 50);
    if (dim) { r = (r + 255 * 2) / 3 | 0; g = (g + 255 * 2) / 3 | 0; b = (b + 255 * 2) / 3 | 0; }
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function unitFmt(v) {
    var u = D.types[S.type].unit, a = Math.abs(v), x, s;
    function f(x, s) { return (Math.round(x * 100) / 100) + s; }
    if (u === "nanoseconds") {
      if (a >= 1e9) return f(v / 1e9, "s");
      if (a >= 1e6) return f(v / 1e6, "ms");
      if (a >= 1e3) return f(v / 1e3, "µs");
      return v + "ns";
    }
    if (u === "bytes") {
      var us = ["B", "kB", "MB", "GB", "TB"];
      for (x = v, s = 0; Math.abs(x) >= 1024 && s < us.length - 1; s++) x /= 1024;
      return f(x, us[s]);
    }
    return v.toLocaleString("en-US") + (u && u !== "count" ? " " + u : "");
  }
  function pct(v, tot) { return tot ? (Math.round(v / tot * 10000) / 100) + "%" : "-"; }

  function total() { var a = P(S.type); return a[n] - a[0]; }

  function computeMatches() {
    S.match = null; S.matched = 0;
    if (!S.query) return;
    var re = null;
    try { re = new RegExp(S.query); } catch (e) { re = null; }
    var m = new Uint8Array(names.length), any = false;
    for (var i = 0; i < names.length; i++) {
      if (re ? re.test(names[i]) : names[i].indexOf(S.query) >= 0) { m[i] = 1; any = true; }
    }
    S.match = m;
    if (!any) return;
    var a = P(S.type), sum = 0;
    for (var k = 0; k < n; k++) {
      for (var x = off[k]; x < off[k + 1]; x++) if (m[fr[x]]) { sum += a[k + 1] - a[k]; break; }
    }
    S.matched = sum;
  }

  function layout() {
    var a = P(S.type), W = canvas.clientWidth || 800;
    var z = S.path.length ? S.path[S.path.length - 1] : { d: -1, lo: 0, hi: n };
    var zv = a[z.hi] - a[z.lo], scale = zv > 0 ? W / zv : 0, x0 = a[z.lo];
    var rects = [], maxRow = 0;
    rects.push({ row: 0, x: 0, w: W, name: "all", id: -1, value: total(), d: -1, lo: 0, hi: n, anc: S.path.length > 0 });
    for (var i = 0; i < S.path.length; i++) {
      var nd = S.path[i];
      rects.push({ row: nd.d + 1, x: 0, w: W, name: names[nd.id], id: nd.id, value: a[nd.hi] - a[nd.lo],
        d: nd.d, lo: nd.lo, hi: nd.hi, anc: i < S.path.length - 1 });
      maxRow = Math.max(maxRow, nd.d + 1);
    }
    function kids(d, lo, hi) {
      var mlo = -1, mhi = -1, mcount = 0;
      function flush() {
        if (mlo < 0) return;
        var v = a[mhi] - a[mlo];
        rects.push({ row: d + 2, x: (a[mlo] - x0) * scale, w: v * scale, name: mcount + " small frame" + (mcount > 1 ? "s" : ""),
          id: -2, value: v, d: d + 1, lo: mlo, hi: mhi, merged: true });
        maxRow = Math.max(maxRow, d + 2);
        mlo = -1; mcount = 0;
      }
      eachChild(d, lo, hi, function (f, clo, chi) {
        var v = a[chi] - a[clo];
        if (v * scale < MIN_PX) {
          if (v === 0 && mlo < 0) return;
          if (mlo < 0) mlo = clo;
          mhi = chi; mcount++;
          return;
        }
        flush();
        rects.push({ row: d + 2, x: (a[clo] - x0) * scale, w: v * scale, name: names[f], id: f, value: v, d: d + 1, lo: clo, hi: chi });
        maxRow = Math.max(maxRow, d + 2);
        kids(d + 1, clo, chi);
      });
      flush();
    }
    if (scale > 0) kids(z.d, z.lo, z.hi);
    S.drawn = rects;
    S.rows = maxRow + 1;
    return W;
  }

  function paint(W) {
    var dpr = window.devicePixelRatio || 1, H = S.rows * ROW;
    canvas.style.height = H + "px";
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = FONT; ctx.textBaseline = "middle";
    var cw = 6.7;
    for (var i = 0; i < S.drawn.length; i++) {
      var r = S.drawn[i], y = S.icicle ? r.row * ROW : H - (r.row + 1) * ROW;
      if (r.merged) ctx.fillStyle = "#ccc";
      //diff:begin
      else if (D.diff && r.id === -1) ctx.fillStyle = diffColor(r.value, baseOf(r), r.anc);
      //diff:end
      else if (r.id === -1) ctx.fillStyle = "#e0d7c6";
      else if (S.match && S.match[r.id]) ctx.fillStyle = "#e040c0";
      //diff:begin
      else if (D.diff) ctx.fillStyle = diffColor(r.value, baseOf(r), r.anc);
      //diff:end
      else ctx.fillStyle = color(r.id, r.anc);
      ctx.fillRect(r.x, y, Math.max(r.w - (r.w > 3 ? 1 : 0), 0.5), ROW - 1);
      if (r.w > 3 * cw) {
        var chars = Math.floor((r.w - 4) / cw), label = r.name;
        if (label.length > chars) label = chars > 2 ? label.slice(0, chars - 2) + ".." : "";
        ctx.fillStyle = "#000";
        ctx.fillText(label, r.x + 2, y + ROW / 2);
      }
    }
  }

  function render() {
    var t = performance.now();
    paint(layout());
    S.renderMs = performance.now() - t;
    var tot = total(), z = S.path.length ? S.drawn[S.path.length] : null, msg = "";
    msg += D.types[S.type].name + ": total " + unitFmt(tot);
    if (z) msg += " · zoomed to " + z.name + ": " + unitFmt(z.value) + " (" + pct(z.value, tot) + ")";
    //diff:begin
    if (D.diff) {
      msg = D.types[S.type].name + ": NEW total " + unitFmt(tot) + " · BASE total " + unitFmt(baseTotal()) +
        " · change " + changeText(tot, baseTotal());
      if (z) msg += " · zoomed to " + z.name + ": BASE " + unitFmt(baseOf(z)) + " → NEW " + unitFmt(z.value) +
        " (" + changeText(z.value, baseOf(z)) + ")";
    }
    //diff:end
    status.innerHTML = "";
    status.appendChild(document.createTextNode(msg));
    if (S.query) {
      var sp = document.createElement("span");
      sp.className = "match";
      sp.textContent = " · matched " + unitFmt(S.matched) + " (" + pct(S.matched, tot) + ")";
      status.appendChild(sp);
    }
  }

  function rectAt(ev) {
    var b = canvas.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
    var H = S.rows * ROW, row = S.icicle ? Math.floor(y / ROW) : Math.floor((H - y) / ROW);
    for (var i = 0; i < S.drawn.length; i++) {
      var r = S.drawn[i];
      if (r.row === row && x >= r.x && x < r.x + Math.max(r.w, 1)) return r;
    }
    return null;
  }

  function zoomTo(r) {
    if (!r || r.merged) return;
    if (r.id === -1) { S.path = []; render(); return; }
    // The path from the root: the frames at depths 0..r.d over r's stacks.
    var path = [];
    var a = 0, b = n;
    for (var d = 0; d <= r.d; d++) {
      var want = F(r.lo, d), found = null;
      eachChild(d - 1, a, b, function (f, lo, hi) { if (f === want && lo <= r.lo && r.lo < hi) found = { lo: lo, hi: hi }; });
      path.push({ d: d, id: want, lo: found.lo, hi: found.hi });
      a = found.lo; b = found.hi;
    }
    S.path = path;
    render();
  }

  canvas.addEventListener("click", function (ev) { zoomTo(rectAt(ev)); });
  canvas.addEventListener("mousemove", function (ev) {
    var r = rectAt(ev);
    if (!r) { tip.style.display = "none"; return; }
    var tot = total();
    tip.textContent = r.name + "\n" + unitFmt(r.value) + " (" + pct(r.value, tot) + " of all" +
      (S.path.length ? ", " + pct(r.value, S.drawn[S.path.length].value) + " of zoom" : "") + ")";
    //diff:begin
    if (D.diff) tip.textContent = r.name + "\nBASE " + unitFmt(baseOf(r)) + " → NEW " + unitFmt(r.value) +
      "\nchange " + changeText(r.value, baseOf(r)) + "\nNEW is " + pct(r.value, tot) + " of NEW's total";
    //diff:end
    tip.style.whiteSpace = "pre-wrap";
    tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 300) + "px";
    tip.style.top = (ev.clientY + 14) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });

  var sel = document.getElementById("type");
  for (var t = 0; t < D.types.length; t++) {
    var o = document.createElement("option");
    o.value = t; o.textContent = D.types[t].name;
    sel.appendChild(o);
  }
  sel.value = S.type;
  sel.addEventListener("change", function () {
    S.type = +sel.value; S.path = []; computeMatches(); render();
  });
  var search = document.getElementById("search");
  search.addEventListener("input", function () { S.query = search.value; computeMatches(); render(); });
  document.getElementById("reset").addEventListener("click", function () { S.path = []; render(); });
  var flip = document.getElementById("flip");
  flip.addEventListener("click", function () {
    S.icicle = !S.icicle; flip.textContent = S.icicle ? "Flame" : "Icicle"; render();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { S.path = []; render(); }
  });
  window.addEventListener("resize", render);

  //diff:begin
  if (D.diff) {
    var legend = document.createElement("div");
    legend.id = "legend";
    var scale = "";
    for (var li = -4; li <= 4; li++) scale += '<i style="background:' + diffColor(100 + li * 12.5, 100, false) + '"></i>';
    legend.innerHTML = "Frames sized by NEW, coloured by the change from BASE: <b>shrank</b> " + scale +
      " <b>grew</b> (full colour at 50% of BASE or more; a frame only in BASE is not drawn). ";
    var names2 = document.createElement("span");
    names2.textContent = "BASE: " + D.diff.base + " · NEW: " + D.diff.new;
    legend.appendChild(names2);
    status.parentNode.insertBefore(legend, status.nextSibling);
  }
  //diff:end
  render();
  S.loadMs = performance.now() - t0;

  // For tests and scripts: read-only views of the state.
  window.pprofx = {
    state: function () {
      var z = S.path.length ? S.drawn[S.path.length] : null;
      return { type: S.type, typeName: D.types[S.type].name, total: total(), icicle: S.icicle,
        zoom: z ? { name: z.name, value: z.value, depth: z.d } : null, query: S.query, matched: S.matched,
        rows: S.rows, renderMs: S.renderMs, loadMs: S.loadMs, stacks: n, frames: S.drawn.length };
    },
    drawn: function () {
      return S.drawn.map(function (r) {
        var H = S.rows * ROW;
        return { name: r.name, value: r.value, depth: r.d, x: r.x, w: r.w, merged: !!r.merged, ancestor: !!r.anc,
          y: S.icicle ? r.row * ROW : H - (r.row + 1) * ROW, matched: !!(S.match && r.id >= 0 && S.match[r.id]) };
      });
    }
  };
  //diff:begin
  if (D.diff) {
    window.pprofx.diff = function () {
      return { base: D.diff.base, new: D.diff.new, baseTotal: baseTotal(), newTotal: total() };
    };
    window.pprofx.baseValues = function () { return S.drawn.map(baseOf); };
  }
  //diff:end
})();
