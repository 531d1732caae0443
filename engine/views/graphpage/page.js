// The graph page's script: it draws the graph gardener laid out (the data element), and lets a
// reviewer zoom, pan, search and select a component. Every text from the landscape is set as
// textContent, never parsed as HTML.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var NODE_HEIGHT = 22;
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var svg = document.getElementById("graph");
  var viewport = document.getElementById("viewport");
  var edgeLayer = document.getElementById("edges");
  var nodeLayer = document.getElementById("nodes");
  var search = document.getElementById("search");
  var matches = document.getElementById("matches");
  var details = document.getElementById("details");
  var view = { x: 0, y: 0, k: 1 };
  var selected = -1;

  // symbols are the plan's markers per action, as the text plan prints them.
  var symbols = { "create": "+", "update": "~", "replace": "-/+", "delete": "-", "render-during-apply": "<=", "no-op": "", "not planned": "" };

  function make(name, attrs, parent, ns) {
    var e = ns ? document.createElementNS(SVG, name) : document.createElement(name);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function text(name, content, parent, cls) {
    var e = make(name, cls ? { "class": cls } : {}, parent);
    e.textContent = content;
    return e;
  }
  function slug(s) { return String(s).replace(/[^a-z-]/g, "-"); }

  document.getElementById("title").textContent = "Landscape " + data.landscape + ": " + data.nodes.length + " components";
  document.title = "gardener graph: " + data.landscape;
  document.getElementById("summary").textContent = data.summary || "";

  data.edges.forEach(function (e) {
    var a = data.nodes[e.from], b = data.nodes[e.to];
    var x1 = a.x + a.w, y1 = a.y + NODE_HEIGHT / 2, x2 = b.x, y2 = b.y + NODE_HEIGHT / 2, mx = (x1 + x2) / 2;
    e.el = make("path", { "class": "edge " + e.style, d: "M" + x1 + "," + y1 + " C" + mx + "," + y1 + " " + mx + "," + y2 + " " + x2 + "," + y2 }, edgeLayer, true);
    make("title", {}, e.el, true).textContent = b.address + " after " + a.address + ": " + e.reasons.join("; ");
  });

  data.nodes.forEach(function (n, i) {
    var cls = "node kind-" + slug(n.kind || "component");
    if (data.planned) { cls += " action-" + slug(n.action); }
    n.el = make("g", { "class": cls, transform: "translate(" + n.x + "," + n.y + ")", "data-address": n.address, "data-index": String(i) }, nodeLayer, true);
    if (data.planned) { n.el.setAttribute("data-action", n.action); }
    make("rect", { width: n.w, height: NODE_HEIGHT, rx: 4 }, n.el, true);
    var label = n.address;
    if (data.planned && symbols[n.action]) { label = symbols[n.action] + " " + label; }
    make("text", { x: 8, y: 15 }, n.el, true).textContent = label;
    var tip = n.address + (n.type ? " (" + n.type + ")" : "");
    if (data.planned) { tip += ": " + n.action + (n.changes ? ", " + n.changes : ""); }
    make("title", {}, n.el, true).textContent = tip;
    n.el.addEventListener("click", function (ev) { ev.stopPropagation(); select(i); });
  });

  // Zoom and pan: the viewport group is translated and scaled; zooming keeps the point under
  // the pointer (or the centre, for the buttons) where it is.
  function applyView() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")");
  }
  function zoomAt(px, py, factor) {
    var k = Math.min(4, Math.max(0.02, view.k * factor));
    factor = k / view.k;
    view.x = px - (px - view.x) * factor;
    view.y = py - (py - view.y) * factor;
    view.k = k;
    applyView();
  }
  function size() {
    var r = svg.getBoundingClientRect();
    return { w: r.width || 800, h: r.height || 600 };
  }
  function fit() {
    var s = size();
    view.k = Math.min(1, Math.max(0.02, Math.min(s.w / data.width, s.h / data.height)));
    view.x = (s.w - data.width * view.k) / 2;
    view.y = Math.max(0, (s.h - data.height * view.k) / 2);
    applyView();
  }
  function centreOn(n) {
    var s = size();
    view.k = Math.max(view.k, 0.6);
    view.x = s.w / 2 - (n.x + n.w / 2) * view.k;
    view.y = s.h / 2 - (n.y + NODE_HEIGHT / 2) * view.k;
    applyView();
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
  }, { passive: false });
  document.getElementById("zoom-in").addEventListener("click", function () { var s = size(); zoomAt(s.w / 2, s.h / 2, 1.25); });
  document.getElementById("zoom-out").addEventListener("click", function () { var s = size(); zoomAt(s.w / 2, s.h / 2, 0.8); });
  document.getElementById("fit").addEventListener("click", fit);

  var drag = null;
  svg.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
  });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; svg.classList.add("panning"); }
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    applyView();
  });
  window.addEventListener("pointerup", function () { svg.classList.remove("panning"); setTimeout(function () { drag = null; }, 0); });
  svg.addEventListener("click", function () { if (!drag || !drag.moved) { select(-1); } });

  // Search highlights the components whose address contains the text and dims the others;
  // Enter centres the first match.
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    var count = 0, first = null;
    data.nodes.forEach(function (n) {
      var hit = q !== "" && n.address.toLowerCase().indexOf(q) >= 0;
      n.el.classList.toggle("match", hit);
      n.el.classList.toggle("dimmed", q !== "" && !hit);
      if (hit) { count++; if (!first) { first = n; } }
    });
    data.edges.forEach(function (e) { e.el.classList.toggle("dimmed", q !== ""); });
    matches.textContent = q === "" ? "" : count + (count === 1 ? " match" : " matches");
    return first;
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { var first = runSearch(); if (first) { centreOn(first); } }
    if (ev.key === "Escape") { search.value = ""; runSearch(); }
  });

  // closure follows edges from node i: its dependencies (from) or its dependents (to).
  function closure(i, edgesOf, end) {
    var seen = {}, todo = [i];
    while (todo.length) {
      var n = todo.pop();
      edgesOf(data.nodes[n]).forEach(function (e) {
        var m = end(data.edges[e]);
        if (!seen[m]) { seen[m] = true; todo.push(m); }
      });
    }
    return seen;
  }

  // select highlights a component, everything it is applied after (upstream) and everything
  // applied after it (downstream), fades the rest and shows its details; -1 clears.
  function select(i) {
    selected = i;
    var up = i < 0 ? {} : closure(i, function (n) { return n.deps; }, function (e) { return e.from; });
    var down = i < 0 ? {} : closure(i, function (n) { return n.dependents; }, function (e) { return e.to; });
    data.nodes.forEach(function (n, j) {
      n.el.classList.toggle("selected", j === i);
      n.el.classList.toggle("upstream", !!up[j]);
      n.el.classList.toggle("downstream", !!down[j]);
      n.el.classList.toggle("faded", i >= 0 && j !== i && !up[j] && !down[j]);
    });
    data.edges.forEach(function (e) {
      var isUp = (e.to === i || up[e.to]) && up[e.from];
      var isDown = (e.from === i || down[e.from]) && down[e.to];
      e.el.classList.toggle("upstream", !!isUp);
      e.el.classList.toggle("downstream", !!isDown);
      e.el.classList.toggle("faded", i >= 0 && !isUp && !isDown);
    });
    showDetails(i, Object.keys(up).length, Object.keys(down).length);
  }

  function neighbourList(parent, title, edges, end, total) {
    text("h3", title + " (" + edges.length + " directly, " + total + " in all)", parent);
    var ul = make("ul", {}, parent);
    edges.forEach(function (e) {
      var edge = data.edges[e], n = data.nodes[end(edge)];
      var li = make("li", {}, ul);
      var b = text("button", n.address, li, "link");
      b.type = "button";
      b.addEventListener("click", function () { select(end(edge)); centreOn(n); });
      text("span", edge.style + ": " + edge.reasons.join("; "), li, "reason");
    });
  }

  function showDetails(i, ups, downs) {
    details.textContent = "";
    if (i < 0) {
      text("p", "Click a component to see what it is applied after and what is applied after it.", details, "hint");
      return;
    }
    var n = data.nodes[i];
    text("h2", n.address, details);
    var dl = make("dl", {}, details);
    function row(k, v) { if (v) { text("dt", k, dl); text("dd", v, dl); } }
    row("kind", n.kind);
    row("type", n.type);
    row("part of", n.part_of);
    row("declared in", n.source);
    if (data.planned) {
      row("plan", n.action + (n.changes ? ": " + n.changes : ""));
      row("note", n.note);
    }
    neighbourList(details, "Applied after", n.deps, function (e) { return e.from; }, ups);
    neighbourList(details, "Applied before", n.dependents, function (e) { return e.to; }, downs);
  }

  // The legend: edge styles, node kinds and, with a plan, the actions' colours.
  var legend = document.getElementById("legend");
  text("h3", "Edges (from a dependency to its dependent)", legend);
  var ul = make("ul", {}, legend);
  data.styles.forEach(function (s) {
    var li = make("li", {}, ul);
    make("span", { "class": "legend-line " + s.name }, li);
    text("span", s.name + ": " + s.meaning, li);
  });
  if (data.planned) {
    text("h3", "Plan", legend);
    var pl = make("ul", {}, legend);
    ["create", "update", "replace", "delete", "render-during-apply", "no-op"].forEach(function (a) {
      var li = make("li", {}, pl);
      make("span", { "class": "swatch action-" + a }, li);
      text("span", (symbols[a] ? symbols[a] + " " : "") + a, li);
    });
  }

  if (data.removed && data.removed.length) {
    var removed = document.getElementById("removed");
    text("h3", "Planned, no longer in the landscape", removed);
    var rl = make("ul", {}, removed);
    data.removed.forEach(function (c) {
      text("li", c.address + ": " + c.action + (c.changes ? ", " + c.changes : ""), rl);
    });
  }

  // The first view is readable: the whole graph when it fits at half size or more, else its
  // left end (the first components to apply) at half size, vertically centred.
  function start() {
    var s = size();
    fit();
    if (view.k >= 0.5) { return; }
    view.k = 0.5;
    view.x = 0;
    view.y = Math.max(0, (s.h - data.height * view.k) / 2);
    applyView();
  }
  start();
  window.gardenerGraph = { select: select, search: runSearch, fit: fit, view: view, data: data };
}());
