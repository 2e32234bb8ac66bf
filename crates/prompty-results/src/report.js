"use strict";
// The rows of an evaluation report: read from the JSON data block, filtered, sorted and
// shown a page at a time. Every value is set as text (textContent), never as markup.
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var runs = data.runs.length;
  var rows = data.rows;
  var keys = data.evaluators;
  var state = { search: "", verdict: "", evaluator: -1, sort: null, desc: false, page: 0, size: 100 };
  var haystacks = null;
  var view = rows.map(function (_, i) { return i; });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fmt(n) {
    if (n === undefined || n === null) return "—";
    var s = n.toFixed(3).replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" ? "0" : s;
  }

  // Long text folds: the first characters stay visible, the rest opens on a click.
  function folded(text, cls) {
    text = String(text);
    if (text.length <= 160 && text.indexOf("\n") < 0) return el("span", cls, text);
    var d = el("details", cls);
    d.appendChild(el("summary", null, text.slice(0, 120).replace(/\s+/g, " ") + "…"));
    d.appendChild(el("pre", null, text));
    return d;
  }

  function judged(c) { return c && (c.o === "pass" || c.o === "fail") && typeof c.s === "number" ? c.s : null; }
  function last(cells) { return cells[cells.length - 1]; }
  function delta(cells) {
    if (runs < 2) return null;
    var a = judged(cells[0]), b = judged(cells[1]);
    return a === null || b === null ? null : b - a;
  }

  function haystack(i) {
    if (!haystacks) haystacks = new Array(rows.length);
    var h = haystacks[i];
    if (h === undefined) {
      var r = rows[i], parts = [r.id];
      r.inputs.forEach(function (kv) { parts.push(kv[0], kv[1]); });
      r.cells.forEach(function (cs) { cs.forEach(function (c) { parts.push(c.o, c.r || "", c.a || ""); }); });
      h = haystacks[i] = parts.join("\n").toLowerCase();
    }
    return h;
  }

  function matches(i) {
    var r = rows[i];
    if (state.verdict) {
      var which = state.evaluator < 0 ? r.cells : [r.cells[state.evaluator]];
      var ok = which.some(function (cs) {
        if (state.verdict === "changed") return runs > 1 && cs[0].o !== cs[1].o;
        return last(cs).o === state.verdict;
      });
      if (!ok) return false;
    }
    return !state.search || haystack(i).indexOf(state.search) >= 0;
  }

  function natural(a, b) {
    var x = Number(a), y = Number(b);
    if (a !== "" && b !== "" && !isNaN(x) && !isNaN(y)) return x - y;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function sortValue(i) {
    var r = rows[i], s = state.sort;
    if (s.kind === "id") return r.id;
    var cs = r.cells[s.evaluator];
    if (s.kind === "score") { var c = last(cs); return typeof c.s === "number" ? c.s : null; }
    if (s.kind === "delta") return delta(cs);
    return last(cs).o;
  }

  function compute() {
    view = [];
    for (var i = 0; i < rows.length; i++) if (matches(i)) view.push(i);
    if (state.sort) {
      var vals = {};
      view.forEach(function (i) { vals[i] = sortValue(i); });
      var sign = state.desc ? -1 : 1;
      view.sort(function (i, j) {
        var a = vals[i], b = vals[j];
        if (a === null && b === null) return i - j;
        if (a === null) return 1;
        if (b === null) return -1;
        var c = typeof a === "number" ? a - b : natural(String(a), String(b));
        return c !== 0 ? sign * c : i - j;
      });
    }
    state.page = 0;
  }

  function header() {
    var thead = document.getElementById("thead");
    thead.textContent = "";
    var tr = el("tr");
    function th(label, sort) {
      var h = el("th", sort ? "sortable" : null);
      if (!sort) { h.textContent = label; tr.appendChild(h); return; }
      var b = el("button", "sort", label);
      b.type = "button";
      var on = state.sort && state.sort.kind === sort.kind && state.sort.evaluator === sort.evaluator;
      if (on) { b.textContent = label + (state.desc ? " ▼" : " ▲"); h.setAttribute("aria-sort", state.desc ? "descending" : "ascending"); }
      b.addEventListener("click", function () {
        if (on) state.desc = !state.desc; else { state.sort = sort; state.desc = false; }
        compute(); header(); render();
      });
      h.appendChild(b);
      tr.appendChild(h);
    }
    th("id", { kind: "id", evaluator: -1 });
    th("inputs", null);
    keys.forEach(function (k, e) {
      th(k + " verdict", { kind: "verdict", evaluator: e });
      th(k + (runs > 1 ? " score A → B" : " score"), { kind: "score", evaluator: e });
      if (runs > 1) th(k + " change", { kind: "delta", evaluator: e });
      th(k + " reason", null);
    });
    thead.appendChild(tr);
  }

  function cellVerdict(cs) {
    var td = el("td", "verdicts");
    cs.forEach(function (c, r) {
      if (r > 0) td.appendChild(el("span", "arrow", " → "));
      td.appendChild(el("span", "verdict v-" + c.o, c.o));
    });
    return td;
  }

  function render() {
    var tbody = document.getElementById("tbody");
    var frag = document.createDocumentFragment();
    var start = state.page * state.size, end = Math.min(view.length, start + state.size);
    for (var n = start; n < end; n++) {
      var r = rows[view[n]];
      var tr = el("tr", r.changed ? "changed" : null);
      tr.dataset.id = r.id;
      var id = el("td", "id", r.id);
      id.title = "data line " + r.line;
      tr.appendChild(id);
      var inputs = el("td", "inputs");
      r.inputs.forEach(function (kv) {
        var d = el("div", "input");
        d.appendChild(el("span", "k", kv[0]));
        d.appendChild(folded(kv[1], "v"));
        inputs.appendChild(d);
      });
      tr.appendChild(inputs);
      r.cells.forEach(function (cs) {
        tr.appendChild(cellVerdict(cs));
        tr.appendChild(el("td", "score", cs.map(function (c) { return fmt(c.s); }).join(" → ")));
        if (runs > 1) {
          var d = delta(cs);
          tr.appendChild(el("td", "delta" + (d > 0 ? " up" : d < 0 ? " down" : ""), d === null ? "—" : (d > 0 ? "+" : "") + fmt(d)));
        }
        var td = el("td", "reason");
        cs.forEach(function (c, i) {
          if (!c.r && !c.a) return;
          var box = el("div", "why");
          if (runs > 1) box.appendChild(el("span", "run", i === 0 ? "A" : "B"));
          if (c.r) box.appendChild(folded(c.r, "r"));
          if (c.a) { box.appendChild(el("span", "k", "answer")); box.appendChild(folded(c.a, "a")); }
          td.appendChild(box);
        });
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    }
    tbody.textContent = "";
    tbody.appendChild(frag);
    var count = document.getElementById("count");
    count.dataset.matching = String(view.length);
    count.dataset.total = String(rows.length);
    count.dataset.shown = String(end - start);
    count.textContent = (view.length === 0 ? "no rows" : "rows " + (start + 1) + "–" + end + " of " + view.length) +
      (view.length !== rows.length ? " (" + rows.length + " in all)" : "");
    var pages = Math.max(1, Math.ceil(view.length / state.size));
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page + 1 >= pages;
  }

  var evaluator = document.getElementById("evaluator");
  keys.forEach(function (k, i) { var o = el("option", null, k); o.value = String(i); evaluator.appendChild(o); });
  if (runs < 2) {
    var changed = document.querySelector('#verdict option[value="changed"]');
    if (changed) changed.remove();
  }
  var timer = null;
  document.getElementById("search").addEventListener("input", function (ev) {
    clearTimeout(timer);
    timer = setTimeout(function () { state.search = ev.target.value.trim().toLowerCase(); compute(); render(); }, 120);
  });
  document.getElementById("verdict").addEventListener("change", function (ev) { state.verdict = ev.target.value; compute(); render(); });
  evaluator.addEventListener("change", function (ev) { state.evaluator = ev.target.value === "" ? -1 : Number(ev.target.value); compute(); render(); });
  document.getElementById("page-size").addEventListener("change", function (ev) { state.size = Number(ev.target.value); state.page = 0; render(); });
  document.getElementById("prev").addEventListener("click", function () { if (state.page > 0) { state.page--; render(); } });
  document.getElementById("next").addEventListener("click", function () {
    if ((state.page + 1) * state.size < view.length) { state.page++; render(); }
  });
  header();
  render();
  document.body.dataset.ready = "true";
})();
