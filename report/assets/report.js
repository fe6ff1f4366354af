// tcpviz interactive report. Reads the metadata (JSON) and the series blob
// (base64 of gzip of delta + zig-zag varint integer columns, see
// report/encode.go), and draws linked uPlot panels. Every series is stored at
// several resolutions (report/levels.go); each redraw takes, per series, the
// finest level whose points in the visible range fit the panel's budget.
(function () {
  'use strict';
  const T = window.tcpviz = { ready: false, errors: [], loadMs: 0, panels: {} };
  window.addEventListener('error', e => T.errors.push(String(e.message || e)));
  window.addEventListener('unhandledrejection', e => T.errors.push(String(e.reason)));

  const $ = id => document.getElementById(id);
  let META = null; // the metadata (gzip + base64 JSON in #meta)
  let B = null; // the inflated blob

  // ---------- decoding ----------
  const decoded = new Map(); // columns stored once (encode.go) are decoded once
  function decodeCol(c, scale) {
    if (!c) return null;
    const key = c[0] + '/' + scale;
    if (!decoded.has(key)) decoded.set(key, decodeRaw(c, scale));
    return decoded.get(key);
  }
  function decodeRaw(c, scale) {
    const off = c[0], end = c[0] + c[1], n = c[2];
    const out = new Float64Array(n);
    let p = off, prev = 0, i = 0;
    while (p < end) {
      let x = 0, mul = 1, b;
      do { b = B[p++]; x += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      prev += (x % 2 === 1) ? -(x + 1) / 2 : x / 2;
      out[i++] = prev;
    }
    if (scale !== 1) for (let j = 0; j < n; j++) out[j] *= scale;
    return out;
  }
  async function gunzip(id) {
    const b64 = $(id).textContent.trim();
    let u;
    if (Uint8Array.fromBase64) u = Uint8Array.fromBase64(b64); // native, where the browser has it
    else {
      const s = atob(b64);
      u = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    }
    const st = new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(st).arrayBuffer());
  }
  async function inflate() {
    META = JSON.parse(new TextDecoder().decode(await gunzip('meta')));
    if (META.palette && META.palette.length) RUNC = META.palette;
    B = await gunzip('blob');
    st.view = META.open;
  }
  // level(s, j) decodes level j of series s once: x in s, y in display units.
  function yScaleOf(s, j) {
    if (s.y_scale) return s.y_scale;                          // "more": stored integers → unit
    if (s.panel === 'rtt') return 1e-3;                       // µs → ms
    if (s.bin_us) return 8 / s.bin_us[j] * 1000;              // bytes per bin → kbit/s
    return 1;
  }
  // Only x is decoded to count points; the other columns when the level is
  // drawn (full).
  function level(s, j) {
    s._lv = s._lv || [];
    if (!s._lv[j]) s._lv[j] = { x: decodeCol(s.levels[j].x, 1e-6), j: j, s: s };
    return s._lv[j];
  }
  function frames(lv) { // frame numbers, for tooltips only
    if (!lv.f) lv.f = decodeCol(lv.s.levels[lv.j].f, 1);
    return lv.f;
  }
  function full(lv) {
    if (!lv.y) {
      const L = lv.s.levels[lv.j];
      lv.y = decodeCol(L.y, yScaleOf(lv.s, lv.j)); lv.y2 = decodeCol(L.y2, 1); lv.n = decodeCol(L.n, 1);
    }
    return lv;
  }
  function lowerBound(a, v) { let lo = 0, hi = a.length; while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] < v) lo = m + 1; else hi = m; } return lo; }
  function upperBound(a, v) { let lo = 0, hi = a.length; while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] <= v) lo = m + 1; else hi = m; } return lo; }

  // ---------- formatting ----------
  function fmtBytes(v) {
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' GB';
    if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 1 : 2) + ' MB';
    if (a >= 1e3) return (v / 1e3).toFixed(a >= 1e4 ? 1 : 2) + ' KB';
    return Math.round(v) + ' B';
  }
  function fmtInt(v) { return Math.round(v).toLocaleString('en-US'); }
  function fmtRate(v) { return v >= 1000 ? (v / 1000).toFixed(v >= 1e4 ? 1 : 2) + ' Mbit/s' : v.toFixed(1) + ' kbit/s'; }
  function fmtT(v) { return v.toFixed(6) + ' s'; }
  function byteTicks(u, vals) {
    const span = Math.max(...vals.map(Math.abs));
    let unit = 1, suf = ' B';
    if (span >= 1e9) { unit = 1e9; suf = ' GB'; } else if (span >= 1e6) { unit = 1e6; suf = ' MB'; } else if (span >= 1e3) { unit = 1e3; suf = ' KB'; }
    const step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) / unit : 1;
    const dec = decimals(step);
    return vals.map(v => tickNum(v / unit, dec) + suf);
  }

  // decimals returns how many decimals print every multiple of step exactly.
  function decimals(step) {
    for (let d = 0; d < 9; d++) { const v = step * Math.pow(10, d); if (Math.abs(v - Math.round(v)) < 1e-6 * Math.max(1, v)) return d; }
    return 9;
  }
  function rateTicks(u, vals) { // kbit/s in, the unit chosen from the range
    const span = Math.max(...vals.map(Math.abs));
    let unit = 1, suf = ' kbit/s';
    if (span >= 1e6) { unit = 1e6; suf = ' Gbit/s'; } else if (span >= 1e3) { unit = 1e3; suf = ' Mbit/s'; }
    const step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) / unit : 1;
    const dec = decimals(step);
    return vals.map(v => tickNum(v / unit, dec) + suf);
  }
  function plainTicks(u, vals) { // as many decimals as the tick step needs
    const step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) : 1;
    const dec = decimals(step);
    return vals.map(v => tickNum(v, dec));
  }
  // tickNum prints a tick value with dec decimals; zero is "0", never "0.0" or "-0.0".
  function tickNum(v, dec) { return Math.abs(v) < 1e-12 || Number(v.toFixed(dec)) === 0 ? '0' : v.toFixed(dec); }

  // ---------- styles ----------
  // Line widths and marks by series id. Colours are not here: each series
  // carries the figures' colour of the same series (s.color, from package
  // plot: report/vantage.go seriesColours), and compare's runs and the
  // "more" series take plot's palette (META.palette), as compare's figures.
  const STYLE = {
    seg: { w: 1 }, synfin: { w: 2 }, retx: { w: 2, mark: 'x' },
    ooo: { w: 2, mark: 'd' }, probe: { w: 2 }, ack: { w: 1.5, step: true },
    edge: { w: 1.5, step: true }, sack: { w: 3 },
    rtt_ack: { sz: 3 }, rtt_ts: { sz: 5, ring: true }, rtt_ts_rev: { sz: 3 }, rtt_hs: { sz: 7 },
    tput: { w: 1.5, step: true }, goodput: { w: 1.5, step: true }, zw: { w: 0 },
    rwnd: { w: 1.5, step: true }, flight: { w: 1.5, step: true }, flight_sack: { w: 1.5, step: true },
  };
  const YAXIS = 96; // every panel's y axis has this width, so that the time axes line up
  let RUNC = ['#444']; // META.palette once read
  const PANELS = [
    { id: 'seq', title: 'Time-sequence (Stevens) graph', y: 'relative sequence number', h: 340, bytes: true },
    { id: 'rtt', title: 'Round-trip time at the capture point', y: 'RTT (ms)', h: 190, zero: true },
    { id: 'tput', title: 'Throughput and goodput', y: 'bit rate', h: 170, zero: true, rate: true },
    { id: 'win', title: 'Receive window and bytes in flight', y: 'bytes', h: 170, zero: true, bytes: true },
    { id: 'ev', title: 'Events', y: '', h: 150, lanes: true },
    { id: 'more', title: 'Other metrics (every metric of package query the panels above do not draw)', y: 'value (see legend)', h: 170, zero: true },
  ];

  // ---------- state ----------
  const st = { mode: 'single', view: 0, runs: [], full: [0, 1], x: [0, 1], panels: [], syncing: false };

  // runOf is a compare run from META.compare's entry c; refOf where run r
  // is aligned, µs since its connection's first packet: its own (a
  // server-side half is aligned where its client side is) or its view's.
  function runOf(c) { return { view: c.view, label: c.label, ref_us: c.ref_us, e2e: c.e2e_kbps, with: c.with }; }
  function refOf(r) { return r.ref_us != null ? r.ref_us : META.views[r.view].ref_us; }

  // layers(panelId): what a panel draws in the current mode. A layer is one
  // stored series with a colour, a shape and an x offset (compare mode).
  function layersFor(pid) {
    const out = [];
    if (st.mode === 'single') {
      const v = META.views[st.view];
      let k = 0;
      for (const s of v.series) {
        if (s.panel !== pid) continue;
        const sty = Object.assign({ w: 1, sz: 5 }, STYLE[s.id], { c: s.color || RUNC[k++ % RUNC.length] });
        out.push({ s: s, name: s.name, color: sty.c, sty: sty, off: 0, run: '' });
      }
      return out;
    }
    const pick = { seq: ['seg', 'retx', 'ooo', 'ack'], rtt: ['rtt_ack', 'rtt_ts'], tput: ['goodput'], win: ['flight'], ev: null };
    // A server-side half (r.with: its client side's view) takes its client
    // run's colour, dashed, as in tcpviz compare's figures.
    const colour = {}, onView = new Set(st.runs.map(r => r.view));
    st.runs.filter(r => r.with == null || !onView.has(r.with)).forEach((r, k) => { colour[r.view] = RUNC[k % RUNC.length]; });
    st.runs.forEach((r, ri) => {
      const v = META.views[r.view];
      const half = r.with != null && onView.has(r.with);
      const c = half ? colour[r.with] : colour[r.view];
      for (const s of v.series) {
        if (s.panel !== pid) continue;
        if (pick[pid] && !pick[pid].includes(s.id)) continue;
        if (pid === 'ev' && !['ev_rto', 'ev_fast', 'ev_spurious', 'ev_pmtu', 'ev_unknown', 'ev_out_of_order'].includes(s.id)) continue;
        const base = STYLE[s.id] || { w: 1, sz: 5 };
        const sty = Object.assign({}, base, { c: c });
        if (s.id === 'ack') sty.dash = [4, 3];
        if (half) sty.dash = s.id === 'ack' ? [1, 3] : [6, 3];
        let nm = r.label + ': ' + s.name;
        out.push({ s: s, name: nm, color: c, sty: sty, off: refOf(r) * 1e-6, run: r.label });
      }
    });
    return out;
  }

  // slice returns the points of layer L with x in [a, b] (panel x), at the
  // finest level that fits budget, one point beyond each end for lines.
  function slice(L, a, b, budget) {
    const s = L.s, nl = s.levels.length;
    const A = a + L.off, Bv = b + L.off;
    let j = nl - 1;
    let lv = level(s, j);
    while (j > 0) {
      const fin = level(s, j - 1);
      const n = upperBound(fin.x, Bv) - lowerBound(fin.x, A);
      if (n > budget) break;
      j--; lv = fin;
    }
    full(lv);
    let i0 = lowerBound(lv.x, A), i1 = upperBound(lv.x, Bv);
    if (s.shape === 'span') i0 = 0; // a period that began before a may still be open
    if (s.shape === 'line') { i0 = Math.max(0, i0 - 1); i1 = Math.min(lv.x.length, i1 + 1); }
    return { L: L, lv: lv, i0: i0, i1: i1, off: L.off };
  }

  // ---------- drawing (uPlot custom paths) ----------
  function pathsFor(P, k) {
    return (u) => {
      const sl = P.cur && P.cur[k];
      if (!sl) return null;
      const lv = sl.lv, x = lv.x, y = lv.y, y2 = lv.y2, sh = sl.L.s.shape, sty = sl.L.sty;
      const bb = u.bbox, xs = u.scales.x, ys = u.scales.y;
      const kx = bb.width / (xs.max - xs.min), ky = bb.height / (ys.max - ys.min);
      const X = v => bb.left + (v - sl.off - xs.min) * kx;
      const Y = v => bb.top + bb.height - (v - ys.min) * ky;
      const lane = P.layerLane ? P.layerLane[k] : 0;
      const stroke = new Path2D();
      let fill = null;
      const dpr = devicePixelRatio || 1;
      if (sh === 'bars') {
        const min = 1.5 * dpr;
        for (let i = sl.i0; i < sl.i1; i++) {
          const px = Math.round(X(x[i])) + 0.5;
          let top = Y(y[i]), bot = Y(y2[i]);
          if (bot - top < min) { const m = (top + bot) / 2; top = m - min / 2; bot = m + min / 2; }
          stroke.moveTo(px, bot); stroke.lineTo(px, top);
        }
        if (sty.mark) { // a mark above each retransmitted / out-of-order bar, visible when zoomed out
          fill = new Path2D();
          const r = 3 * dpr;
          for (let i = sl.i0; i < sl.i1; i++) {
            const px = X(x[i]), py = Y(y[i]) - r - 1;
            if (sty.mark === 'x') { stroke.moveTo(px - r, py - r); stroke.lineTo(px + r, py + r); stroke.moveTo(px + r, py - r); stroke.lineTo(px - r, py + r); }
            else { fill.moveTo(px, py - r); fill.lineTo(px + r, py); fill.lineTo(px, py + r); fill.lineTo(px - r, py); fill.closePath(); }
          }
        }
      } else if (sh === 'line') {
        let first = true, py = 0;
        for (let i = sl.i0; i < sl.i1; i++) {
          const px = X(x[i]), yy = Y(y[i]);
          if (first) { stroke.moveTo(px, yy); first = false; }
          else if (sty.step) { stroke.lineTo(px, py); stroke.lineTo(px, yy); }
          else stroke.lineTo(px, yy);
          py = yy;
        }
        if (sty.step && !first && sl.L.s.bin_us) { // the last bin reaches its end
          const w = sl.L.s.bin_us[lv.j] * 1e-6;
          stroke.lineTo(X(x[sl.i1 - 1] + w), py);
        }
      } else if (sh === 'span') { // shaded intervals, y is their end time
        fill = new Path2D();
        for (let i = sl.i0; i < sl.i1; i++) {
          const x0 = Math.max(bb.left, X(x[i])), x1 = Math.min(bb.left + bb.width, X(y[i] * 1e-6));
          if (x1 > x0) fill.rect(x0, bb.top, Math.max(x1 - x0, dpr), bb.height);
        }
      } else { // points and lanes: filled squares
        fill = new Path2D();
        const r = (sh === 'lane' ? 3 : (sty.sz || 3) / 2) * dpr;
        for (let i = sl.i0; i < sl.i1; i++) {
          const px = X(x[i]), yy = sh === 'lane' ? Y(lane) : Y(y[i]);
          if (sh === 'lane') { fill.rect(px - 1 * dpr, yy - 6 * dpr, 2 * dpr, 12 * dpr); }
          else if (sty.ring) { stroke.moveTo(px + r, yy); stroke.arc(px, yy, r, 0, 2 * Math.PI); }
          else if (sl.L.s.id === 'rtt_hs') { fill.moveTo(px, yy - r); fill.lineTo(px + r, yy + r); fill.lineTo(px - r, yy + r); fill.closePath(); }
          else fill.rect(px - r, yy - r, 2 * r, 2 * r);
        }
      }
      return { stroke: stroke, fill: fill, clip: null, flags: 0 };
    };
  }

  // ---------- panels ----------
  function budgetOf(P) { return Math.max(200, Math.round((P.u ? P.u.bbox.width / (devicePixelRatio || 1) : 1000) * 2)); }

  function recompute(P) {
    const [a, b] = st.x;
    const budget = budgetOf(P);
    P.cur = P.layers.map(L => slice(L, a, b, L.s.bin_us ? budget / 12 : L.s.shape === 'bars' ? budget / 2 : budget));
    if (P.def.id === 'tput' && P.cur.length) { // name the interval drawn
      const sl = P.cur[0], w = sl.L.s.bin_us[sl.lv.j];
      const n = document.getElementById('tputnote');
      if (n) n.textContent = ' — per ' + (w >= 1e6 ? (w / 1e6) + ' s' : (w / 1e3) + ' ms') + ' interval (finer when zoomed in)';
    }
  }

  function yRange(P) {
    const def = P.def;
    if (def.lanes) return [-0.6, P.nLanes - 0.4];
    let lo = Infinity, hi = -Infinity;
    const full = st.x[0] <= st.full[0] && st.x[1] >= st.full[1];
    P.cur.forEach((sl, k) => {
      if (P.u && !P.u.series[k + 1].show) return;
      if (!full && (sl.L.s.id === 'edge' || sl.L.s.id === 'sack')) return; // zoomed in: fit the data and ACKs, not the window edge
      if (sl.L.s.shape === 'span') return;
      const lv = sl.lv;
      for (let i = sl.i0; i < sl.i1; i++) {
        const v = lv.y[i]; if (v < lo) lo = v; if (v > hi) hi = v;
        if (lv.y2) { const w = lv.y2[i]; if (w < lo) lo = w; }
      }
    });
    if (!isFinite(lo)) return [0, 1];
    if (def.zero || (full && lo >= 0)) lo = Math.min(0, lo);
    if (hi === lo) hi = lo + 1;
    const pad = (hi - lo) * 0.04;
    return [def.zero || (full && lo === 0) ? lo : lo - pad, hi + pad];
  }

  function applyX(a, b, src) {
    if (st.ready) saveHash();
    const span = st.full[1] - st.full[0];
    if (!(b > a)) return;
    const minSpan = 1e-6;
    if (b - a < minSpan) { const m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
    const lo = st.full[0] - span * 0.05, hi = st.full[1] + span * 0.05, w = b - a;
    if (a < lo) { a = lo; b = Math.min(lo + w, hi); } // a pan stops at the ends and keeps the width
    if (b > hi) { b = hi; a = Math.max(hi - w, lo); }
    st.x = [a, b];
    st.syncing = true;
    try {
      for (const P of st.panels) {
        recompute(P);
        const keepY = P === src && P.userY && P.boxY;
        if (P !== src) P.userY = false;
        const yr = keepY ? P.boxY : yRange(P);
        P.u.batch(() => {
          P.u.setScale('x', { min: a, max: b });
          P.u.setScale('y', { min: yr[0], max: yr[1] });
        });
        P.u.redraw(true, false);
      }
    } finally { st.syncing = false; }
  }

  function laneAxis(P) {
    return {
      label: '', size: YAXIS,
      splits: () => P.lanes.map((_, i) => i),
      values: (u, vals) => vals.map(v => P.lanes[v] || ''),
      grid: { show: true, stroke: '#eee' },
    };
  }

  // caveatsFor(pid) is what the verbs say about the capture point's
  // vantage beside panel pid (the view's caveats, report/vantage.go: query's
  // notes and title lines, pep's note, never copied here): in compare mode
  // each run's, after its label.
  function caveatsFor(pid) {
    const out = { titles: [], notes: [], warnings: [] };
    const runs = st.mode === 'single' ? [{ view: st.view, label: '' }] : st.runs;
    for (const r of runs) {
      const c = (META.views[r.view].caveats || {})[pid];
      if (!c) continue;
      const pre = r.label ? r.label + ': ' : '';
      for (const k of ['titles', 'notes', 'warnings']) for (const t of c[k] || []) out[k].push(pre + t);
    }
    return out;
  }
  // vantageMark names a view's capture point when it changes what the
  // numbers mean (relay, overheard only, not beside the sender, sender's
  // radio; report/vantage.go vantageOf), else ''.
  function vantageMark(v) { const w = META.views[v].vantage; return w ? ' [capture point: ' + w + ']' : ''; }

  function buildPanel(def, host, xlabel) {
    const layers = layersFor(def.id);
    if (!layers.length) return null;
    const P = { def: def, layers: layers, cur: null, userY: false };
    if (def.lanes) { // one lane per class (single) or per run and class (compare)
      P.lanes = []; const idx = {};
      P.layerLane = layers.map(L => {
        const key = (L.run ? L.run + ': ' : '') + L.s.name;
        if (!(key in idx)) { idx[key] = P.lanes.length; P.lanes.push(key); }
        return idx[key];
      });
      P.nLanes = P.lanes.length;
    }
    const div = document.createElement('div');
    div.className = 'panel';
    const h = document.createElement('h2');
    h.textContent = def.title;
    if (def.id === 'tput') { // bytes a PEP acknowledged are never called goodput
      const views = st.mode === 'single' ? [st.view] : st.runs.map(r => r.view);
      const n = views.filter(v => META.views[v].pep_acked).length;
      const m = views.filter(v => META.views[v].pep_possible).length;
      if (n === views.length) h.textContent = 'Throughput and bytes accepted, likely by a PEP';
      else if (n + m > 0) h.textContent = 'Throughput, and goodput or bytes accepted by a PEP' + (m > 0 ? ' (PEP? unknown)' : '');
    }
    if (def.id === 'seq' && st.mode === 'single' && !META.views[st.view].wscale_known) {
      const n = document.createElement('span'); n.className = 'note';
      n.textContent = ' — window scale unknown (handshake not captured): no receive-window line';
      h.appendChild(n);
    }
    if (def.id === 'tput') {
      const n = document.createElement('span'); n.className = 'note';
      n.id = 'tputnote'; h.appendChild(n);
    }
    // The vantage: the figure's title lines in the heading, the verb's
    // warnings and notes under it, before the plot.
    const cav = caveatsFor(def.id);
    for (const t of cav.titles) {
      const n = document.createElement('span'); n.className = 'vtitle';
      n.textContent = t; h.appendChild(n);
    }
    div.appendChild(h);
    if (cav.notes.length || cav.warnings.length) {
      const box = document.createElement('div');
      box.className = 'caveats'; box.id = 'caveats-' + def.id;
      for (const [k, pre, cls] of [['warnings', 'warning: ', 'cw'], ['notes', 'note: ', 'cn']]) {
        for (const t of cav[k]) { const p = document.createElement('div'); p.className = cls; p.textContent = pre + t; box.appendChild(p); }
      }
      div.appendChild(box);
    }
    host.appendChild(div);
    const series = [{}];
    layers.forEach((L, k) => {
      series.push({ label: L.name, stroke: L.color, width: L.sty.w || 1, dash: L.sty.dash, fill: ((L.s.shape === 'points' && !L.sty.ring) || L.s.shape === 'lane' || L.s.shape === 'span' || L.sty.mark === 'd') ? L.color : undefined,
                    paths: pathsFor(P, k), points: { show: false }, spanGaps: true });
    });
    const yaxis = def.lanes ? laneAxis(P) : { label: def.y, size: YAXIS, values: def.bytes ? byteTicks : def.rate ? rateTicks : plainTicks, grid: { stroke: '#eee' } };
    const opts = {
      width: host.clientWidth || 1000, height: def.h,
      series: series,
      scales: { x: { time: false, auto: false }, y: { auto: false } },
      axes: [{ label: def.id === 'ev' ? xlabel : '', labelSize: def.id === 'ev' ? 20 : 0, size: 34, values: plainTicks, grid: { stroke: '#eee' } }, yaxis],
      legend: { live: false },
      cursor: {
        drag: { x: true, y: def.id === 'seq', uni: 30, setScale: false },
        points: { show: false },
        sync: { key: 'tcpviz' },
        bind: { dblclick: () => () => { reset(); return null; } },
      },
      hooks: {
        setScale: [(u, key) => {
          if (st.syncing) return;
          if (key === 'y') { P.userY = true; return; }
          if (key === 'x') applyX(u.scales.x.min, u.scales.x.max, P);
        }],
        setSelect: [u => boxZoom(P, u)],
        setCursor: [u => tip(P, u)],
        setSeries: [() => { if (!st.syncing) { const yr = yRange(P); st.syncing = true; P.u.setScale('y', { min: yr[0], max: yr[1] }); st.syncing = false; } }],
        ready: [u => wheel(P, u)],
      },
    };
    const data = [[st.full[0], st.full[1]]];
    layers.forEach(() => data.push([null, null]));
    P.u = new uPlot(opts, data, div);
    return P;
  }

  // boxZoom applies a drag on panel P: its x extent to every panel, and on
  // the Stevens graph its y extent too (unless the drag was flat: uPlot's
  // uni threshold makes it span the whole height then).
  function boxZoom(P, u) {
    const s = u.select;
    if (st.syncing || (s.width < 2 && s.height < 2)) return;
    if (st.dragFrom !== P) { // the copy of another panel's selection (cursor sync)
      if (s.width > 0) u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
      return;
    }
    const W = u.over.clientWidth, H = u.over.clientHeight;
    let a = u.posToVal(s.left, 'x'), b = u.posToVal(s.left + s.width, 'x');
    if (s.width >= W - 2) { a = st.x[0]; b = st.x[1]; }
    const yz = P.def.id === 'seq' && s.height > 2 && s.height < H - 2;
    P.boxY = yz ? [u.posToVal(s.top + s.height, 'y'), u.posToVal(s.top, 'y')] : null;
    P.userY = yz;
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    applyX(a, b, P);
  }

  function wheel(P, u) {
    u.over.addEventListener('mousedown', () => { st.dragFrom = P; });
    u.over.addEventListener('wheel', e => {
      if (!e.ctrlKey && !e.metaKey && !e.shiftKey) return; // the plain wheel scrolls the page
      e.preventDefault();
      const [a, b] = st.x, span = b - a;
      const rect = u.over.getBoundingClientRect();
      const frac = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
      if (e.shiftKey) { const d = span * 0.1 * Math.sign(e.deltaY || e.deltaX); applyX(a + d, b + d, null); return; }
      const f = e.deltaY < 0 ? 0.8 : 1.25;
      const c = a + frac * span;
      applyX(c - (c - a) * f, c + (b - c) * f, null);
    }, { passive: false });
  }

  // ---------- tooltip ----------
  const tipEl = $('tip');
  function tip(P, u) {
    const left = u.cursor.left, top = u.cursor.top;
    if (left == null || left < 0 || !P.cur || st.syncing) { tipEl.style.display = 'none'; return; }
    const dpr = devicePixelRatio || 1;
    const xs = u.scales.x, ys = u.scales.y, bb = u.bbox;
    const W = bb.width / dpr, H = bb.height / dpr;
    const X = v => (v - xs.min) / (xs.max - xs.min) * W;
    const Y = v => H - (v - ys.min) / (ys.max - ys.min) * H;
    const tol = 8;
    let best = null, bd = tol + 1;
    P.cur.forEach((sl, k) => {
      if (!u.series[k + 1].show) return;
      const lv = sl.lv, sh = sl.L.s.shape;
      const a = xs.min + (left - tol - 2) / W * (xs.max - xs.min) + sl.off;
      const b = xs.min + (left + tol + 2) / W * (xs.max - xs.min) + sl.off;
      const i0 = Math.max(sl.i0, lowerBound(lv.x, a)), i1 = Math.min(sl.i1, upperBound(lv.x, b));
      for (let i = i0; i < i1; i++) {
        const px = X(lv.x[i] - sl.off);
        let d;
        if (sh === 'bars') {
          const t = Y(lv.y[i]), bt = Y(lv.y2[i]);
          const dy = top < t ? t - top : top > bt ? top - bt : 0;
          d = Math.hypot(px - left, dy);
        } else if (sh === 'lane') {
          d = Math.hypot(px - left, Y(P.layerLane[k]) - top);
        } else if (sh === 'span') {
          continue;
        } else d = Math.hypot(px - left, Y(lv.y[i]) - top);
        if (d < bd) { bd = d; best = { sl: sl, i: i }; }
      }
    });
    if (!best) { // inside a shaded period?
      const tv = xs.min + left / W * (xs.max - xs.min);
      P.cur.forEach((sl, k) => {
        if (best || sl.L.s.shape !== 'span' || !u.series[k + 1].show) return;
        for (let i = sl.i0; i < sl.i1; i++) if (sl.lv.x[i] - sl.off <= tv && tv <= sl.lv.y[i] * 1e-6 - sl.off) { best = { sl: sl, i: i }; break; }
      });
    }
    if (!best) { tipEl.style.display = 'none'; return; }
    tipEl.textContent = describe(best.sl, best.i);
    const r = u.over.getBoundingClientRect();
    tipEl.style.display = 'block';
    const tx = r.left + left + 14, ty = r.top + top + 14;
    tipEl.style.left = Math.min(tx, window.innerWidth - tipEl.offsetWidth - 8) + 'px';
    tipEl.style.top = Math.min(ty, window.innerHeight - tipEl.offsetHeight - 8) + 'px';
  }

  function describe(sl, i) {
    const L = sl.L, s = L.s, lv = sl.lv;
    frames(lv);
    const t = lv.x[i];
    const lines = [(L.run ? L.run + ': ' : '') + s.name];
    const n = lv.n ? lv.n[i] : 1;
    if (n > 1) {
      lines.push(fmtInt(n) + ' points from frame ' + fmtInt(lv.f[i]) + ', t ≥ ' + fmtT(t));
      if (s.shape === 'bars') lines.push('seq ' + fmtInt(lv.y2[i]) + ' – ' + fmtInt(lv.y[i]));
      else if (s.shape !== 'lane') lines.push('value ' + value(s, lv.y[i]) + ' (the lowest or highest of its bucket)');
      lines.push('zoom in to see each one');
      return lines.join('\n');
    }
    if (s.bin_us) {
      const w = s.bin_us[lv.j] * 1e-6;
      lines.push('interval ' + t.toFixed(6) + ' – ' + (t + w).toFixed(6) + ' s');
      lines.push(fmtRate(lv.y[i]));
      return lines.join('\n');
    }
    if (s.shape === 'span') {
      const t1 = lv.y[i] * 1e-6;
      lines.push(t.toFixed(6) + ' – ' + t1.toFixed(6) + ' s (' + ((t1 - t) * 1000).toFixed(3) + ' ms)');
      lines.push('frames ' + fmtInt(lv.f[i]) + ' – ' + (lv.y2[i] ? fmtInt(lv.y2[i]) : 'still closed when the capture ends'));
      return lines.join('\n');
    }
    lines.push('frame ' + fmtInt(lv.f[i]) + ', t = ' + fmtT(t) + (L.off ? ' (' + (t - L.off).toFixed(6) + ' s after the alignment point)' : ''));
    if (s.shape === 'bars') {
      const len = lv.y[i] - lv.y2[i];
      const cls = { seg: 'new', synfin: 'SYN/FIN', retx: 'retransmitted', ooo: 'out of order', probe: 'probe', sack: 'SACK block' }[s.id] || s.id;
      lines.push('seq ' + fmtInt(lv.y2[i]) + ' – ' + fmtInt(lv.y[i]) + ' (' + fmtInt(len) + ' B), class ' + cls);
    } else if (s.shape === 'lane') {
      lines.push('class ' + s.name + (lv.y2 ? ', seq ' + fmtInt(lv.y2[i]) : ''));
    } else {
      lines.push(value(s, lv.y[i]));
    }
    return lines.join('\n');
  }
  function value(s, v) {
    if (s.unit) return (+v.toPrecision(6)) + ' ' + s.unit;
    if (s.panel === 'rtt') return v.toFixed(3) + ' ms';
    if (s.bin_us) return fmtRate(v);
    if (s.id === 'ack') return 'ack ' + fmtInt(v);
    if (s.id === 'edge') return 'ack + rwnd = ' + fmtInt(v);
    return fmtInt(v) + ' B (' + fmtBytes(v) + ')';
  }

  // ---------- views ----------
  function render() {
    const host = $('panels');
    for (const P of st.panels) P.u.destroy();
    host.innerHTML = '';
    st.panels = [];
    let xlabel;
    if (st.mode === 'single') {
      const v = META.views[st.view], c = META.conns[v.conn], cap = META.captures[c.cap];
      st.full = [0, Math.max(v.dur_us * 1e-6, 1e-6)];
      $('viewtitle').textContent = cap.label + ' — conn ' + c.conn + ', data ' + v.src + ' → ' + v.dst + vantageMark(st.view);
      xlabel = 'time since the connection\'s first packet (s)';
    } else {
      let lo = Infinity, hi = -Infinity;
      for (const r of st.runs) { const v = META.views[r.view]; lo = Math.min(lo, -refOf(r) * 1e-6); hi = Math.max(hi, (v.dur_us - refOf(r)) * 1e-6); }
      st.full = [lo, Math.max(hi, lo + 1e-6)];
      const at = { syn: 'the connection\'s first packet', data: 'the first data segment' }[META.align] || 'the first bulk segment (≥ 512 B payload)';
      const e2e = st.runs.filter(r => r.e2e != null);
      // A run whose goodput is not the connection's (a relay's, an
      // overhearer's) or unknown (a PEP's, one capture) shows '–', as the
      // compare table does.
      $('viewtitle').textContent = 'compare: ' + st.runs.map(r => r.label + vantageMark(r.view)).join(' vs ') + ' (each aligned at ' + at + ')' +
        (e2e.length ? '; goodput end to end (as tcpviz compare): ' + st.runs.filter(r => r.with == null).map(r => r.label + ' ' + (r.e2e != null ? fmtRate(r.e2e) : '–')).join(', ') : '');
      xlabel = 'time since ' + at + ' (s)';
    }
    capNotes();
    st.x = st.full.slice();
    for (const def of PANELS) {
      const P = buildPanel(def, host, xlabel);
      if (P) { st.panels.push(P); T.panels[def.id] = P; }
    }
    // the x label goes on the last panel
    applyX(st.full[0], st.full[1], null);
    markPicker();
    const fp = META.focus && T.panels[META.focus];
    if (fp && !st.focused) { st.focused = true; fp.u.root.parentNode.scrollIntoView(); }
  }
  // capNotes shows above the panels what the verbs warn about the 802.11
  // node each capture on view was taken on (META.captures[].node).
  function capNotes() {
    const box = $('capnotes');
    box.textContent = '';
    const views = st.mode === 'single' ? [st.view] : st.runs.map(r => r.view);
    const caps = [...new Set(views.map(v => META.conns[META.views[v].conn].cap))];
    for (const c of caps) {
      for (const t of META.captures[c].node || []) {
        const p = document.createElement('div'); p.className = 'cw'; p.textContent = 'warning: ' + t; box.appendChild(p);
      }
    }
    box.hidden = !box.firstChild;
  }
  // The address keeps the view and the time range, naming a view by its
  // connection as tcpviz numbers it and its direction (#c=3&d=ab&x=1.25,1.45;
  // f=N first when the report holds several captures: the N-th capture
  // given, from 0), or the runs of compare mode (#cmp=0.3.ab,1.5.ab&x=…), so
  // that a zoomed view can be bookmarked or sent. The older #v=N and
  // #cmp=N,M (view numbers) still open.
  let hashTimer = 0;
  function viewKey(v) { const vw = META.views[v], c = META.conns[vw.conn]; return { f: c.cap, c: c.conn, d: vw.dir }; }
  function findView(f, c, d) {
    for (let i = 0; i < META.views.length; i++) {
      const vw = META.views[i], s = META.conns[vw.conn];
      if (s.cap === f && s.conn === c && (!d || vw.dir === d)) return i;
    }
    return -1;
  }
  function saveHash() {
    clearTimeout(hashTimer);
    hashTimer = setTimeout(() => {
      let v;
      if (st.mode === 'single') {
        const k = viewKey(st.view);
        v = (META.captures.length > 1 ? 'f=' + k.f + '&' : '') + 'c=' + k.c + '&d=' + k.d;
      } else {
        v = 'cmp=' + st.runs.map(r => { const k = viewKey(r.view); return k.f + '.' + k.c + '.' + k.d; }).join(',');
      }
      const full = st.x[0] <= st.full[0] && st.x[1] >= st.full[1];
      history.replaceState(null, '', '#' + v + (full ? '' : '&x=' + st.x[0].toPrecision(10) + ',' + st.x[1].toPrecision(10)));
    }, 200);
  }
  // hashWarn says what of the address names nothing this report holds
  // (a connection that does not exist opens the default view, and says so).
  const hashWarn = [];
  function loadHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    const ok = v => Number.isInteger(v) && v >= 0 && v < META.views.length;
    if (h.has('v')) {
      if (ok(+h.get('v'))) { st.mode = 'single'; st.view = +h.get('v'); } else hashWarn.push('the address names view ' + h.get('v') + ', which this report does not have');
    }
    if (h.has('c')) {
      const v = findView(h.has('f') ? +h.get('f') : 0, +h.get('c'), h.get('d'));
      if (v >= 0) { st.mode = 'single'; st.view = v; } else {
        hashWarn.push('the address names ' + (h.has('f') ? 'capture ' + h.get('f') + ' ' : '') + 'conn ' + h.get('c') + (h.get('d') ? ' direction ' + h.get('d') : '') +
          ', which this report does not hold (or holds without its series); showing the default');
      }
    }
    if (h.has('cmp')) {
      const all = h.get('cmp').split(',').map(k => {
        const p = k.split('.');
        return p.length === 3 ? findView(+p[0], +p[1], p[2]) : Number(k);
      });
      const vs = all.filter(ok);
      if (vs.length < all.length) hashWarn.push('the address names ' + (all.length - vs.length) + ' compare run(s) this report does not hold');
      if (vs.length >= 2) {
        const cm = {}; (META.compare || []).forEach(c => { cm[c.view] = c; });
        st.mode = 'compare'; st.runs = vs.map(v => cm[v] ? runOf(cm[v]) : { view: v, label: runLabel(v) });
      }
    }
    const x = (h.get('x') || '').split(',').map(Number);
    return x.length === 2 && x[1] > x[0] ? x : null;
  }
  function reset() { for (const P of st.panels) P.userY = false; applyX(st.full[0], st.full[1], null); }
  function zoom(f) { const [a, b] = st.x, c = (a + b) / 2, h = (b - a) / 2 * f; applyX(c - h, c + h, null); }
  function pan(f) { const [a, b] = st.x, d = (b - a) * f; applyX(a + d, b + d, null); }

  // ---------- picker ----------
  const ticked = new Set();
  // Sort keys of the picker's columns (click a header to sort by it).
  const SORT = [c => (c.views && c.views.length ? 0 : 1), c => META.captures[c.cap].label, c => c.conn, c => c.a, c => c.b, c => c.vantage || '', c => c.start_s, c => c.dur_s,
    c => c.pkts[0], c => c.pkts[1], c => c.bytes[0], c => c.bytes[1], c => c.retx_bytes[0], c => c.retx_bytes[1], c => gpKey(c, 0), c => gpKey(c, 1),
    c => c.handshake ? 1 : 0, c => c.wscale[0], c => c.bytes[0] + c.bytes[1]];
  let sortCol = -1, sortDesc = false;
  function pickerRows() {
    const q = $('filter').value.trim().toLowerCase();
    let rows = [];
    META.conns.forEach((c, i) => {
      const cap = META.captures[c.cap];
      const txt = (cap.label + ' ' + c.conn + ' ' + c.a + ' ' + c.b).toLowerCase();
      if (!q || txt.includes(q)) rows.push(i);
    });
    if (sortCol >= 0) {
      const k = SORT[sortCol], sg = sortDesc ? -1 : 1;
      rows.sort((a, b) => { const x = k(META.conns[a]), y = k(META.conns[b]); return (x < y ? -1 : x > y ? 1 : a - b) * sg; });
    }
    return rows;
  }
  // gpKey sorts a goodput that is not the connection's below every other.
  function gpKey(c, d) { return c.not_own ? -1 : c.goodput_kbps[d]; }
  // gpCell is the picker's goodput cell of direction d of c: where a PEP
  // acknowledged the data, the same bytes are named as the CLI names them;
  // at a relay or a node that only overheard the connection it is not the
  // connection's goodput: '–', as compare shows it, with the note saying
  // why and the bytes-over-duration figure of tcpviz flows.
  function gpCell(c, d) {
    if (c.not_own) {
      return '<td class="vant" title="' + esc(c.vantage_note + ' (tcpviz flows: ' + fmtRate(c.goodput_kbps[d]) + ')') + '">– (' + esc(c.vantage) + ')</td>';
    }
    if (c.pep_possible && c.pep_possible[d]) {
      return '<td class="pep" title="unknown whether the receiver or a split-TCP PEP on the sender\'s link acknowledged this direction: one capture cannot tell; tcpviz flows --path-rtt, or a capture behind the acknowledger, decides">' +
        fmtRate(c.goodput_kbps[d]) + ' PEP? (goodput, or accepted by a PEP: unknown)</td>';
    }
    if (!(c.pep_acked && c.pep_acked[d])) return '<td>' + fmtRate(c.goodput_kbps[d]) + '</td>';
    return '<td class="pep" title="this direction is likely acknowledged by a split-TCP PEP: bytes it accepted, not delivered end to end (one capture cannot prove it; a capture behind the PEP does)">' +
      fmtRate(c.goodput_kbps[d]) + ' accepted, likely by a PEP (not end-to-end goodput)</td>';
  }
  function drawPicker() {
    const tb = $('picker');
    const head = ['', 'capture', 'conn', 'a (SYN sender)', 'b', 'vantage', 'start s', 'dur s', 'pkts a→b', 'pkts b→a', 'bytes a→b', 'bytes b→a', 'retx a→b', 'retx b→a', 'goodput a→b (whole conn.)', 'goodput b→a (whole conn.)', 'handshake', 'wscale a/b', 'data'];
    const left = new Set([1, 3, 4, 5]);
    const vTitle = 'where the capture was taken, for the data direction, when that changes what the numbers mean (as the verbs\' notes): relay, overheard only, not beside the sender, sender\'s radio; empty: beside the sender, or nothing tells (docs/metrics.md#own-frames, #rtt). Sort by this column';
    const gpTitle = 'delivered bytes × 8 / the connection\'s duration, as tcpviz flows; tcpviz compare\'s goodput end to end is over the receiving application\'s interval (docs/metrics.md#goodput). Sort by this column';
    let h = '<thead><tr>' + head.map((x, i) => '<th data-s="' + i + '" title="' + (i === 14 || i === 15 ? gpTitle : i === 5 ? vTitle : 'sort by this column') + '"' + (left.has(i) ? ' class="l"' : '') + '>' + x + (i === sortCol ? (sortDesc ? ' ▼' : ' ▲') : '') + '</th>').join('') + '</tr></thead><tbody>';
    const rows = pickerRows();
    const limit = 2000;
    const shown = rows.slice(0, limit);
    if (st.mode === 'single' && META.views.length) { // the connection on view is always listed
      const cur = META.views[st.view].conn;
      if (!shown.includes(cur) && rows.includes(cur)) shown.unshift(cur);
    }
    for (const i of shown) {
      const c = META.conns[i], cap = META.captures[c.cap];
      const ws = w => w < 0 ? '?' : String(w);
      const has = c.views && c.views.length > 0;
      const dirs = has ? c.views.map(v => '<button data-v="' + v + '">' + META.views[v].dir + '</button>').join(' ') : 'summary only';
      h += '<tr data-c="' + i + '"' + (has ? '' : ' class="nodata"') + '><td>' + (has ? '<input type="checkbox" data-t="' + c.views[0] + '"' + (ticked.has(c.views[0]) ? ' checked' : '') + '>' : '') + '</td>' +
        '<td class="l">' + esc(cap.label) + '</td><td>' + c.conn + '</td><td class="l">' + esc(c.a) + '</td><td class="l">' + esc(c.b) + '</td>' +
        '<td class="l vant"' + (c.vantage_why ? ' title="' + esc(c.vantage_why) + '"' : '') + '>' + esc(c.vantage || '') + '</td>' +
        '<td>' + c.start_s.toFixed(3) + '</td><td>' + c.dur_s.toFixed(3) + '</td><td>' + c.pkts[0] + '</td><td>' + c.pkts[1] + '</td>' +
        '<td>' + fmtBytes(c.bytes[0]) + '</td><td>' + fmtBytes(c.bytes[1]) + '</td><td>' + fmtBytes(c.retx_bytes[0]) + '</td><td>' + fmtBytes(c.retx_bytes[1]) + '</td>' +
        gpCell(c, 0) + gpCell(c, 1) + '<td>' + (c.handshake ? 'yes' : 'no') + '</td><td>' + ws(c.wscale[0]) + '/' + ws(c.wscale[1]) + '</td><td>' + dirs + '</td></tr>';
    }
    h += '</tbody>';
    tb.innerHTML = h;
    $('pickinfo').textContent = META.conns.length + ' connections in ' + META.captures.length + ' capture(s)' +
      (rows.length > limit ? '; showing the first ' + limit + ' of ' + rows.length + ' matches' : '') + '; ' + META.views.length + ' direction(s) with series';
    markPicker();
  }
  function markPicker() {
    const cur = new Set(st.mode === 'single' ? [META.views[st.view].conn] : st.runs.map(r => META.views[r.view].conn));
    let first = null;
    for (const tr of $('picker').querySelectorAll('tbody tr')) {
      const on = cur.has(+tr.dataset.c);
      tr.classList.toggle('sel', on);
      if (on && !first) first = tr;
    }
    const wrap = $('pickerwrap');
    if (first && (first.offsetTop < wrap.scrollTop + 20 || first.offsetTop > wrap.scrollTop + wrap.clientHeight - 20)) wrap.scrollTop = first.offsetTop - 24;
  }
  function esc(s) { return String(s).replace(/[&<>"]/g, ch => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[ch])); }
  function runLabel(v) { const vw = META.views[v], c = META.conns[vw.conn]; return META.captures[c.cap].label + '#' + c.conn + (c.views.length > 1 ? ' ' + vw.dir : ''); }

  function wire() {
    $('picker').addEventListener('click', e => {
      const t = e.target;
      if (t.dataset.s !== undefined) { const c = +t.dataset.s; sortDesc = c === sortCol ? !sortDesc : c >= 6; sortCol = c; drawPicker(); return; }
      if (t.dataset.t !== undefined) { const v = +t.dataset.t; if (t.checked) ticked.add(v); else ticked.delete(v); return; }
      let v;
      if (t.dataset.v !== undefined) v = +t.dataset.v;
      else { const tr = t.closest('tr'); if (!tr || tr.dataset.c === undefined) return; const c = META.conns[+tr.dataset.c]; if (!c.views || !c.views.length) return; v = c.views[0]; }
      st.mode = 'single'; st.view = v; render();
      if (!$('picker').querySelector('tr.sel')) drawPicker();
    });
    $('filter').addEventListener('input', drawPicker);
    $('cmpbtn').addEventListener('click', () => {
      if (ticked.size < 2) { $('pickinfo').textContent = 'tick two or more connections to compare'; return; }
      st.mode = 'compare'; st.runs = [...ticked].map(v => ({ view: v, label: runLabel(v) })); render();
    });
    $('singlebtn').addEventListener('click', () => { st.mode = 'single'; render(); });
    $('reset').addEventListener('click', reset);
    $('zin').addEventListener('click', () => zoom(0.5));
    $('zout').addEventListener('click', () => zoom(2));
    $('left').addEventListener('click', () => pan(-0.25));
    $('right').addEventListener('click', () => pan(0.25));
    document.addEventListener('keydown', e => {
      if (e.target.tagName === 'INPUT') return;
      if (e.key === '+' || e.key === '=') zoom(0.5); else if (e.key === '-') zoom(2);
      else if (e.key === 'ArrowLeft') pan(-0.25); else if (e.key === 'ArrowRight') pan(0.25); else if (e.key === '0') reset();
    });
    let rt = 0;
    window.addEventListener('resize', () => { clearTimeout(rt); rt = setTimeout(() => { for (const P of st.panels) P.u.setSize({ width: $('panels').clientWidth, height: P.def.h }); applyX(st.x[0], st.x[1], null); }, 100); });
  }

  // ---------- test hooks ----------
  T.setRange = (a, b) => applyX(a, b, null);
  T.ranges = () => Object.fromEntries(st.panels.map(P => [P.def.id, [P.u.scales.x.min, P.u.scales.x.max]]));
  T.full = () => st.full.slice();
  T.viewCount = () => META.views.length;
  T.open = v => { st.mode = 'single'; st.view = v; render(); };
  T.compare = (vs) => { st.mode = 'compare'; st.runs = vs.map(v => ({ view: v, label: runLabel(v) })); render(); };
  T.levels = () => Object.fromEntries(st.panels.map(P => [P.def.id, P.cur.map(sl => sl.lv.j)]));

  async function main() {
    try {
      T.timing = { start: performance.now() };
      await inflate();
      T.timing.inflated = performance.now();
      wire();
      if (META.compare && META.compare.length >= 2) {
        st.mode = 'compare'; st.runs = META.compare.map(runOf);
        for (const c of META.compare) ticked.add(c.view);
      }
      const x = loadHash() || META.x || null; // the verb's --from/--to window
      drawPicker();
      T.timing.picker = performance.now();
      render();
      if (x) applyX(x[0], x[1], null);
      st.ready = true;
      T.timing.rendered = performance.now();
      const warn = META.captures.flatMap(c => (c.warnings || []).map(w => c.label + ': ' + w)).concat(hashWarn);
      $('status').textContent = warn.length ? 'warnings: ' + warn.join('; ') : '';
      if (warn.length) $('status').className = 'warn';
      T.loadMs = performance.now();
      T.ready = true;
    } catch (e) {
      $('status').textContent = 'error: ' + e;
      $('status').className = 'error';
      T.errors.push(String(e && e.stack || e));
      console.error(e);
    }
  }
  main();
})();
