/* tokbench report: theme switch, sortable tables, token viewer. No dependencies. */
(function () {
  "use strict";

  /* ---- theme: auto (system) -> light -> dark ---------------------------------------- */
  var root = document.documentElement;
  var themeBtn = document.getElementById("theme");
  var THEMES = ["auto", "light", "dark"];
  function setTheme(t) {
    if (t === "auto") root.removeAttribute("data-theme"); else root.setAttribute("data-theme", t);
    if (themeBtn) themeBtn.textContent = "Theme: " + t;
    try { localStorage.setItem("tokbench-theme", t); } catch (e) { /* file:// may forbid it */ }
  }
  var saved = null;
  try { saved = localStorage.getItem("tokbench-theme"); } catch (e) { saved = null; }
  setTheme(THEMES.indexOf(saved) >= 0 ? saved : "auto");
  if (themeBtn) {
    themeBtn.addEventListener("click", function () {
      var cur = root.getAttribute("data-theme") || "auto";
      setTheme(THEMES[(THEMES.indexOf(cur) + 1) % THEMES.length]);
    });
  }

  /* ---- sortable tables ---------------------------------------------------------------- */
  function cellKey(row, col) {
    var cell = row.cells[col];
    if (!cell) return null;
    var v = cell.getAttribute("data-v");
    if (v !== null) return v === "" ? null : parseFloat(v);
    return cell.textContent.trim();
  }
  function sortTable(table, col, th) {
    var current = th.getAttribute("aria-sort");
    var ascending;
    if (current === "ascending") ascending = false;
    else if (current === "descending") ascending = true;
    else ascending = th.getAttribute("data-dir") !== "higher"; // best first
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.querySelector("tbody.rows");
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, k) { if (r._pos === undefined) r._pos = k; });
    rows.sort(function (a, b) {
      var x = cellKey(a, col), y = cellKey(b, col);
      if (x === null || x === "" || (typeof x === "number" && isNaN(x))) x = null;
      if (y === null || y === "" || (typeof y === "number" && isNaN(y))) y = null;
      if (x === null && y === null) return a._pos - b._pos;
      if (x === null) return 1; // missing values last, either way
      if (y === null) return -1;
      var c = (typeof x === "number" && typeof y === "number") ? x - y
        : String(x).localeCompare(String(y), undefined, { numeric: true });
      if (c === 0) return a._pos - b._pos;
      return ascending ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      var btn = th.querySelector("button.sort");
      if (btn) btn.addEventListener("click", function () { sortTable(table, col, th); });
    });
  });

  /* ---- token viewer ------------------------------------------------------------------- */
  var dataEl = document.getElementById("viewer-data");
  var tip = document.getElementById("tok-tip");
  if (!dataEl || !tip) return;
  var data = null;
  function viewerData() {
    if (data === null) {
      try { data = JSON.parse(dataEl.textContent); } catch (e) { data = { suites: [], tokenizers: [] }; }
    }
    return data;
  }
  var KINDS = ["text", "partial", "empty", "unknown"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function hexOf(cp) { var h = cp.toString(16).toUpperCase(); while (h.length < 4) h = "0" + h; return h; }
  /* Text with whitespace and invisible characters made visible (as in the Python renderer). */
  var INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}]/u;
  function appendVisible(parent, text) {
    var run = "";
    function flush() { if (run) { parent.appendChild(document.createTextNode(run)); run = ""; } }
    for (var ch of text) {
      var mark = null, brk = false;
      if (ch === " ") mark = "·";
      else if (ch === "\n") { mark = "⏎"; brk = true; }
      else if (ch === "\t") mark = "→";
      else if (ch === "\r") mark = "␍";
      else if (ch === "\u00a0") mark = "⍽";
      else if (INVISIBLE.test(ch)) mark = "⟨U+" + hexOf(ch.codePointAt(0)) + "⟩";
      if (mark === null) { run += ch; continue; }
      flush();
      parent.appendChild(el("span", mark.length > 1 ? "ctl" : "ws", mark));
      if (brk) parent.appendChild(document.createElement("br"));
    }
    flush();
  }
  function quote(s) { return JSON.stringify(s); }

  /* A token row is [id, start, end, kind, display, hex?, piece?] (see tokbench/viewer.py):
     a missing hex is the UTF-8 of display, a missing piece is display. */
  var utf8 = new TextEncoder();
  function tokKind(t) { return KINDS[t[3]] || "text"; }
  function tokHex(t) {
    if (t[5] !== undefined && t[5] !== null) return t[5];
    return Array.prototype.map.call(utf8.encode(t[4]), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join(" ");
  }
  function tokPiece(t) { return (t[6] !== undefined && t[6] !== null) ? t[6] : t[4]; }

  function tokenEl(t, index, group) {
    var kind = tokKind(t);
    var span = el("span", "tok c" + (index % 6) + (kind === "text" ? "" : " " + kind));
    span.tabIndex = -1;
    span.setAttribute("aria-describedby", "tok-tip");
    span._t = t;
    span._g = group || null;
    var display = t[4];
    if (kind === "empty") {
      span.textContent = tokPiece(t) || "∅";
    } else if (Array.isArray(display)) {
      display.forEach(function (p) {
        if (p[0]) span.appendChild(el("span", "hex", p[1]));
        else appendVisible(span, p[1]);
      });
    } else {
      appendVisible(span, display);
    }
    return span;
  }

  function fillTip(span) {
    var t = span._t, kind = tokKind(t);
    tip.textContent = "";
    function line(key, value) {
      var d = el("div");
      d.appendChild(el("span", "k", key));
      d.appendChild(document.createTextNode(" " + value));
      tip.appendChild(d);
    }
    var hex = tokHex(t);
    line("id", String(t[0]));
    line("bytes", hex === "" ? "(none)" : hex);
    line("piece", quote(tokPiece(t)));
    if (kind === "empty") line("text", "none (stands for no text)");
    else if (kind === "unknown") line("text", "unknown token for " + quote(spanText(span)));
    else if (kind === "partial" && span._g) {
      line("text", "part of " + quote(span._g.s || span._g.g) + " (split over "
        + span._g.t.length + " tokens)");
    } else line("text", quote(spanText(span)));
    line("chars", t[1] + "–" + t[2]);
  }
  function spanText(span) {
    var d = span._t[4];
    return Array.isArray(d) ? d.map(function (p) { return p[0] ? "" : p[1]; }).join("") : d;
  }
  var tipAnchor = null;
  function showTip(span) {
    tipAnchor = span;
    fillTip(span);
    tip.hidden = false;
    var r = span.getBoundingClientRect();
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.max(8, Math.min(r.left, window.innerWidth - w - 8));
    var top = r.bottom + 6;
    if (top + h > window.innerHeight - 8) top = Math.max(8, r.top - h - 6);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }
  function hideTip() { tip.hidden = true; tipAnchor = null; }

  function renderRows(box, suite, k) {
    var sample = suite.samples[k];
    var rows = box.querySelector(".vrows");
    var meta = box.querySelector(".vmeta");
    rows.textContent = "";
    meta.textContent = sample.subset + " · " + sample.doc_id + " · " + Array.from(sample.text).length
      + " characters" + (sample.truncated ? " (first part of the document)" : "");
    viewerData().tokenizers.forEach(function (name) {
      var row = el("div", "vrow");
      var head = el("div", "vname", name);
      var toks = el("div", "vtoks");
      toks.setAttribute("role", "group");
      toks.setAttribute("aria-label", name + " tokens");
      toks.setAttribute("dir", "auto");
      var entry = sample.rows[name];
      if (!entry) {
        toks.appendChild(el("span", "muted", "not loaded (see the note above)"));
      } else if (entry.error) {
        toks.appendChild(el("span", "verr", "error: " + entry.error));
      } else {
        var chars = Array.from(sample.text).length;
        head.appendChild(el("span", "vcount", entry.n + " tokens"
          + (entry.n ? " · " + (chars / entry.n).toFixed(2) + " ch/tok" : "")));
        var i = 0;
        entry.segs.forEach(function (seg) {
          if (typeof seg === "string") {
            var gap = el("span", "vgap");
            gap.title = "not covered by any token";
            appendVisible(gap, seg);
            toks.appendChild(gap);
          } else if (Array.isArray(seg)) {
            toks.appendChild(tokenEl(seg, i++));
            toks.appendChild(document.createElement("wbr"));
          } else {
            var ruby = el("ruby", "grp");
            seg.t.forEach(function (t) { ruby.appendChild(tokenEl(t, i++, seg)); });
            var rt = el("rt");
            appendVisible(rt, seg.s || seg.g);
            ruby.appendChild(rt);
            toks.appendChild(ruby);
            toks.appendChild(document.createElement("wbr"));
          }
        });
        var first = toks.querySelector(".tok");
        if (first) first.tabIndex = 0;
        if (sample.text.slice(-1) === "\n") { // no empty line after the text's last newline
          var brs = toks.querySelectorAll("br");
          if (brs.length) brs[brs.length - 1].remove();
        }
      }
      row.appendChild(head);
      row.appendChild(toks);
      rows.appendChild(row);
    });
  }

  function rowTokens(toks) { return Array.prototype.slice.call(toks.querySelectorAll(".tok")); }
  function moveTo(from, to) {
    if (!to) return;
    from.tabIndex = -1;
    to.tabIndex = 0;
    to.focus();
  }
  function nearest(list, start) {
    var best = null;
    list.forEach(function (s) { if (!best && s._t[2] > start) best = s; });
    return best || list[list.length - 1];
  }
  function onKey(ev) {
    var span = ev.target;
    if (!span.classList || !span.classList.contains("tok")) return;
    var toks = span.closest(".vtoks");
    var list = rowTokens(toks);
    var at = list.indexOf(span);
    var target = null;
    if (ev.key === "ArrowRight") target = list[at + 1];
    else if (ev.key === "ArrowLeft") target = list[at - 1];
    else if (ev.key === "Home") target = list[0];
    else if (ev.key === "End") target = list[list.length - 1];
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      var rows = Array.prototype.slice.call(toks.closest(".vrows").querySelectorAll(".vtoks"));
      var r = rows.indexOf(toks) + (ev.key === "ArrowDown" ? 1 : -1);
      while (r >= 0 && r < rows.length && !rows[r].querySelector(".tok")) r += ev.key === "ArrowDown" ? 1 : -1;
      if (r >= 0 && r < rows.length) {
        var other = rowTokens(rows[r]);
        var cur = other.filter(function (s) { return s.tabIndex === 0; })[0];
        if (cur) cur.tabIndex = -1;
        target = nearest(other, span._t[1]);
      }
    } else if (ev.key === "Escape") { hideTip(); return; }
    else return;
    ev.preventDefault();
    moveTo(span, target);
  }

  /* Set up a suite's viewer: parse the data and draw the first sample (on first approach). */
  function setup(box) {
    if (box._ready) return;
    box._ready = true;
    var suite = viewerData().suites[+box.getAttribute("data-suite")];
    if (!suite || !suite.samples.length) return;
    var select = box.querySelector("select");
    suite.samples.forEach(function (s, k) {
      var opt = el("option", null, s.subset + " · " + s.doc_id);
      opt.value = String(k);
      select.appendChild(opt);
    });
    function show(k) {
      k = (k + suite.samples.length) % suite.samples.length;
      select.value = String(k);
      hideTip();
      renderRows(box, suite, k);
    }
    select.addEventListener("change", function () { show(+select.value); });
    box.querySelector(".prev").addEventListener("click", function () { show(+select.value - 1); });
    box.querySelector(".next").addEventListener("click", function () { show(+select.value + 1); });
    var rows = box.querySelector(".vrows");
    rows.addEventListener("keydown", onKey);
    rows.addEventListener("focusin", function (ev) {
      var t = ev.target;
      if (t.classList && t.classList.contains("tok")) {
        rowTokens(t.closest(".vtoks")).forEach(function (s) { s.tabIndex = s === t ? 0 : -1; });
        showTip(t);
      }
    });
    rows.addEventListener("focusout", function () { hideTip(); });
    rows.addEventListener("mouseover", function (ev) {
      var t = ev.target.closest && ev.target.closest(".tok");
      if (t) showTip(t);
    });
    rows.addEventListener("mouseout", function (ev) {
      var t = ev.target.closest && ev.target.closest(".tok");
      if (t && !(ev.relatedTarget && t.contains(ev.relatedTarget))) {
        var active = document.activeElement;
        if (active && active.classList && active.classList.contains("tok")) showTip(active);
        else hideTip();
      }
    });
    show(0);
  }
  var boxes = document.querySelectorAll(".viewer");
  if ("IntersectionObserver" in window) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); setup(e.target); }
      });
    }, { rootMargin: "800px 0px" });
    Array.prototype.forEach.call(boxes, function (box) { seen.observe(box); });
  } else {
    Array.prototype.forEach.call(boxes, setup);
  }
  /* On scroll the tip follows a focused token, and leaves with a hovered one. */
  var pending = false;
  window.addEventListener("scroll", function () {
    if (pending || !tipAnchor) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      if (tipAnchor && tipAnchor === document.activeElement) showTip(tipAnchor);
      else hideTip();
    });
  }, { passive: true });
})();
