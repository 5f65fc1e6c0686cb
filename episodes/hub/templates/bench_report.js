// The trajectory viewer of report.html: one episode at a time, one step at a time, with
// the step's actions drawn over the screenshot the model saw (screen pixel coordinates).
(function () {
  "use strict";
  const episodes = JSON.parse(document.getElementById("episodes-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const state = { episode: 0, step: 0 };
  const num = (v, d) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));

  function el(tag, attrs, text) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
                                        : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // -- what one step shows: an image (or why there is none) and its actions ------------
  function frames(ep) {
    if (ep.steps) {
      return ep.steps.map((s) => ({ image: s.image, actions: s.actions, step: s }));
    }
    return [{ image: ep.final, actions: [], step: null }];
  }

  function showImage(image) {
    const img = $("shot"), missing = $("missing");
    missing.hidden = true;
    img.hidden = false;
    img.onerror = () => {
      if (image.thumb && img.getAttribute("src") !== image.thumb) {
        img.src = image.thumb;  // the full-size file moved: the embedded copy
        return;
      }
      img.hidden = true;
      missing.hidden = false;
      missing.textContent = "screenshot missing: " + (image.src || image.missing || "?");
    };
    const src = image && (image.src || image.thumb);
    if (!src) {
      img.removeAttribute("src");
      img.hidden = true;
      missing.hidden = false;
      missing.textContent = "screenshot missing: " + ((image && image.missing) || "none recorded");
      return;
    }
    img.src = src;
  }

  // -- drawing --------------------------------------------------------------------------
  const CLICKS = { left_click: 1, double_click: 2, triple_click: 3, right_click: 1,
                   middle_click: 1, left_mouse_down: 1, left_mouse_up: 1 };
  const COLORS = ["#ff2d55", "#ff9500", "#00c7be", "#af52de", "#34c759", "#007aff"];

  function marker(svg) {
    const defs = el("svg:defs");
    COLORS.forEach((c, i) => {
      const m = el("svg:marker", { id: "arrow" + i, viewBox: "0 0 10 10", refX: "8", refY: "5",
                                   markerWidth: "5", markerHeight: "5", orient: "auto-start-reverse" });
      m.appendChild(el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: c }));
      defs.appendChild(m);
    });
    svg.appendChild(defs);
  }

  // labels already drawn on this frame, as boxes, so a new one moves down off them
  let placed = [];
  function label(svg, x, y, text, color, opts) {
    const g = el("svg:g", { class: (opts && opts.cls) || "label" });
    const size = (opts && opts.size) || 18;
    const wide = Math.min(1200, text.length * size * 0.62 + 12);
    const clash = (top) => placed.some((b) => x < b.x + b.w && b.x < x + wide &&
                                             top - size * 0.75 < b.y + b.h && b.y < top + size * 0.65);
    for (let tries = 0; tries < 12 && clash(y); tries++) y += size * 1.5;
    placed.push({ x: x, y: y - size * 0.75, w: wide, h: size * 1.4 });
    const t = el("svg:text", { x: x + 6, y: y + size * 0.35, "font-size": size, "font-family": "DejaVu Sans Mono, monospace",
                               fill: "#fff" }, text);
    g.appendChild(el("svg:rect", { x: x, y: y - size * 0.75, width: wide, height: size * 1.4, rx: 3,
                                   fill: color, "fill-opacity": "0.88", stroke: "#000", "stroke-opacity": "0.35" }));
    g.appendChild(t);
    svg.appendChild(g);
  }

  // where the pointer was before a step: the last coordinate of the steps before it
  function pointerBefore(ep, index) {
    for (let i = index - 1; ep.steps && i >= 0; i--) {
      const acts = ep.steps[i].actions;
      for (let j = acts.length - 1; j >= 0; j--) {
        if (Array.isArray(acts[j].coordinate)) return acts[j].coordinate;
      }
    }
    return null;
  }

  function draw(actions, width, height, start) {
    const svg = $("overlay");
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    placed = [];
    marker(svg);
    let pointer = start;
    let keyRow = 0;
    actions.forEach((a, i) => {
      const color = COLORS[i % COLORS.length];
      const tag = actions.length > 1 ? `${i + 1} ` : "";
      const at = Array.isArray(a.coordinate) ? a.coordinate : null;
      const kind = a.action;
      const g = el("svg:g", { class: "action action-" + kind, "data-action": kind });
      svg.appendChild(g);
      if (kind in CLICKS) {
        const p = at || pointer;
        if (!p) { label(svg, 12, 30 + 34 * keyRow++, tag + kind + " (at the pointer)", color); return; }
        for (let r = 0; r < CLICKS[kind]; r++) {
          g.appendChild(el("svg:circle", { cx: p[0], cy: p[1], r: 13 + 8 * r, fill: "none", stroke: color,
                                           "stroke-width": 3.5 }));
        }
        g.appendChild(el("svg:circle", { cx: p[0], cy: p[1], r: 3.5, fill: color }));
        g.appendChild(el("svg:line", { x1: p[0] - 26, y1: p[1], x2: p[0] + 26, y2: p[1], stroke: color, "stroke-width": 1.5 }));
        g.appendChild(el("svg:line", { x1: p[0], y1: p[1] - 26, x2: p[0], y2: p[1] + 26, stroke: color, "stroke-width": 1.5 }));
        const text = tag + kind + (a.text ? " +" + a.text : "");
        const wide = text.length * 15 * 0.62 + 12;
        const lx = p[0] + 30 + wide > width ? p[0] - 30 - wide : p[0] + 30;
        label(svg, lx, Math.max(22, p[1] - 24), text, color, { size: 15 });
        pointer = p;
      } else if (kind === "left_click_drag") {
        const from = Array.isArray(a.start_coordinate) ? a.start_coordinate : pointer;
        if (from && at) {
          g.appendChild(el("svg:circle", { cx: from[0], cy: from[1], r: 7, fill: "none", stroke: color, "stroke-width": 3 }));
          g.appendChild(el("svg:line", { x1: from[0], y1: from[1], x2: at[0], y2: at[1], stroke: color, "stroke-width": 4,
                                         "stroke-dasharray": "10 6", "marker-end": `url(#arrow${i % COLORS.length})` }));
          label(svg, at[0] + 12, at[1] + 26, tag + "drag", color, { size: 15 });
        }
        pointer = at || pointer;
      } else if (kind === "mouse_move") {
        if (at) {
          g.appendChild(el("svg:circle", { cx: at[0], cy: at[1], r: 10, fill: "none", stroke: color, "stroke-width": 2,
                                           "stroke-dasharray": "4 3" }));
          label(svg, at[0] + 14, at[1] - 14, tag + "move", color, { size: 13 });
          pointer = at;
        }
      } else if (kind === "scroll") {
        const p = at || pointer || [width / 2, height / 2];
        const amount = Number(a.scroll_amount || 1);
        const len = Math.min(220, 40 + 18 * amount);
        const d = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] }[a.scroll_direction] || [0, 1];
        g.appendChild(el("svg:circle", { cx: p[0], cy: p[1], r: 6, fill: color }));
        g.appendChild(el("svg:line", { x1: p[0], y1: p[1], x2: p[0] + d[0] * len, y2: p[1] + d[1] * len,
                                       stroke: color, "stroke-width": 6, "marker-end": `url(#arrow${i % COLORS.length})` }));
        label(svg, p[0] + 16, p[1] + (d[1] < 0 ? 22 : -14), `${tag}scroll ${a.scroll_direction || "down"} ×${amount}`, color, { size: 15 });
        pointer = p;
      } else if (kind === "type") {
        const p = pointer || [16, height - 60];
        const text = String(a.text || "").replace(/\n/g, "⏎").replace(/\t/g, "⇥");
        label(svg, Math.min(p[0] + 8, width - 400), Math.min(height - 20, p[1] + 34),
              `${tag}type "${text.length > 60 ? text.slice(0, 59) + "…" : text}"`, color, { size: 17, cls: "typed" });
      } else if (kind === "key" || kind === "hold_key") {
        label(svg, 12, 30 + 34 * keyRow++, `${tag}key ${a.text || ""}${kind === "hold_key" ? " (hold " + a.duration + " s)" : ""}`,
              color, { size: 17, cls: "keys" });
      } else {
        label(svg, 12, 30 + 34 * keyRow++, tag + (a.label || kind), color, { size: 15 });
      }
    });
  }

  // -- panels -------------------------------------------------------------------------------
  function renderEpisode() {
    const ep = episodes[state.episode];
    document.querySelectorAll("tr[data-episode]").forEach((tr) =>
      tr.classList.toggle("selected", Number(tr.dataset.episode) === state.episode));
    $("episode-select").value = String(state.episode);
    const facts = [
      `<b>${esc(ep.alias || ep.task)}</b> ${esc(ep.variant || "")}`,
      ep.title ? esc(ep.title) : null,
      `agent <b>${esc(ep.agent || "–")}</b>` + (ep.observe ? ` · ${esc(ep.observe)}` : ""),
      `${esc(ep.status || "–")}`,
      `score <b>${num(ep.score, 3)}</b>`,
      ep.ended_by ? `ended by <b>${esc(ep.ended_by)}</b>` : null,
      ep.tokens_in !== null && ep.tokens_in !== undefined ? `tokens ${ep.tokens_in}/${ep.tokens_out}` : null,
      ep.cost_usd !== null && ep.cost_usd !== undefined ? `$${num(ep.cost_usd, 4)}` : null,
      ep.model_s !== null && ep.model_s !== undefined ? `model ${num(ep.model_s, 1)} s` : null,
      ep.env_s !== null && ep.env_s !== undefined ? `env ${num(ep.env_s, 1)} s` : null,
      `${num(ep.duration_s, 1)} s`,
    ].filter(Boolean);
    $("episode-facts").innerHTML = facts.join(" · ");
    renderList(ep);
    renderChecks(ep);
    $("prev-episode").disabled = state.episode === 0;
    $("next-episode").disabled = state.episode === episodes.length - 1;
  }

  function renderList(ep) {
    const list = $("step-list");
    list.replaceChildren();
    if (ep.steps) {
      $("list-title").textContent = `steps (${ep.steps.length})`;
      ep.steps.forEach((s, i) => {
        const first = (s.actions[0] && s.actions[0].label) || (s.error ? "error" : "no action");
        const more = s.actions.length > 1 ? ` +${s.actions.length - 1}` : "";
        const li = el("li", { "data-step": i, title: (s.text || "").slice(0, 300) });
        li.appendChild(el("span", { class: "t" }, `${String(s.step).padStart(3)} ${num(s.t, 1).padStart(6)}s `));
        li.appendChild(document.createTextNode(first + more));
        if (s.error) li.classList.add("bad");
        li.onclick = () => go(i);
        list.appendChild(li);
      });
    } else {
      const shown = ep.inputs.length;
      $("list-title").textContent = `trace inputs (${ep.inputs_total}${shown < ep.inputs_total ? ", first " + shown : ""}) · no model steps`;
      ep.inputs.forEach((x) => {
        const li = el("li", { class: "input" });
        li.appendChild(el("span", { class: "t" }, `${String(x.n).padStart(4)} ${num(x.t, 1).padStart(6)}s `));
        li.appendChild(document.createTextNode(`${x.client ? x.client + ": " : ""}${x.what}`));
        list.appendChild(li);
      });
      if (!shown) list.appendChild(el("li", {}, "(the trace has no inputs)"));
    }
  }

  function renderChecks(ep) {
    const body = $("checks").querySelector("tbody");
    body.replaceChildren();
    const score = ep.score === null || ep.score === undefined ? "–" : num(ep.score, 3);
    $("score-line").textContent = `score ${score}` + (ep.veto ? ` · vetoed: ${ep.veto}` : "");
    ep.checks.forEach((c) => {
      const cls = c.fraction === 1 ? "ok" : c.fraction ? "part" : c.status === "graded" ? "no" : "ng";
      const tr = el("tr", { class: "check " + cls });
      tr.appendChild(el("td", {}, c.name));
      tr.appendChild(el("td", { class: "num" }, c.percent + "%"));
      tr.appendChild(el("td", { class: "num frac" }, c.fraction === null || c.fraction === undefined ? "–" : num(c.fraction, 2)));
      tr.appendChild(el("td", {}, c.status || ""));
      const ev = el("td", { class: "ev" });
      if (c.evidence && Object.keys(c.evidence).length) {
        const details = el("details");
        details.appendChild(el("summary", {}, c.line || "evidence"));
        details.appendChild(el("pre", { class: "evidence" }, JSON.stringify(c.evidence, null, 1)));
        ev.appendChild(details);
      } else {
        ev.textContent = c.line || "";
      }
      if (c.veto) ev.appendChild(el("div", { class: "error" }, "veto: " + c.veto));
      tr.appendChild(ev);
      body.appendChild(tr);
    });
    if (!ep.checks.length) {
      const tr = el("tr");
      tr.appendChild(el("td", { colspan: 5 }, ep.error ? "not graded: " + ep.error : "no checks recorded"));
      body.appendChild(tr);
    }
  }

  function renderStep() {
    const ep = episodes[state.episode];
    const all = frames(ep);
    const f = all[state.step];
    showImage(f.image);
    const img = $("shot");
    // actions are in screen pixels: drawn over the screen's size, whatever the image's
    const [width, height] = ep.screen || [1280, 800];
    $("frame").style.aspectRatio = `${width} / ${height}`;
    draw(f.actions, width, height, pointerBefore(ep, state.step));
    const s = f.step;
    $("position").textContent = ep.steps ? `step ${state.step + 1} / ${all.length}` : "final screen";
    $("timing").textContent = s ? [
      `t ${num(s.t, 1)} s`, `model ${num(s.model_s, 2)} s`, `action ${num(s.action_s, 2)} s`,
      `tokens ${s.tokens_in ?? "–"}/${s.tokens_out ?? "–"}`].join(" · ") : "";
    $("model-text").textContent = s ? (s.text || "(no text)") :
      "This agent records no model steps: the final screen and the trace's inputs are shown.";
    const list = $("actions");
    list.replaceChildren();
    (s ? s.actions : []).forEach((a) => list.appendChild(el("li", {}, a.label || a.action)));
    if (s && !s.actions.length) list.appendChild(el("li", { class: "none" }, "(no action)"));
    if (!s) list.appendChild(el("li", { class: "none" }, "(no model steps)"));
    $("step-error").textContent = s && s.error ? "error: " + s.error : "";
    history.replaceState(null, "", `#episode-${state.episode + 1}` +
                         (ep.steps ? `-step-${state.step + 1}` : ""));
    document.querySelectorAll("#step-list li[data-step]").forEach((li) => {
      const current = Number(li.dataset.step) === state.step;
      li.classList.toggle("current", current);
      if (current) li.scrollIntoView({ block: "nearest" });
    });
    $("prev").disabled = $("first").disabled = state.step === 0;
    $("next").disabled = $("last").disabled = state.step >= all.length - 1;
  }

  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  function go(step) {
    const count = frames(episodes[state.episode]).length;
    state.step = Math.max(0, Math.min(count - 1, step));
    renderStep();
  }

  function open(index, scroll) {
    if (!episodes.length) return;
    state.episode = Math.max(0, Math.min(episodes.length - 1, index));
    state.step = 0;
    renderEpisode();
    renderStep();
    if (scroll) $("viewer").scrollIntoView({ block: "start" });
  }

  // -- wiring -----------------------------------------------------------------------------
  if (!episodes.length) { $("viewer").hidden = true; return; }
  episodes.forEach((ep, i) => $("episode-select").appendChild(
    el("option", { value: i }, `${ep.alias || ep.task} · ${ep.variant || ""} · ${ep.agent || ""} · ${num(ep.score, 3)}`)));
  $("episode-select").onchange = (e) => open(Number(e.target.value));
  $("prev").onclick = () => go(state.step - 1);
  $("next").onclick = () => go(state.step + 1);
  $("first").onclick = () => go(0);
  $("last").onclick = () => go(1e9);
  $("prev-episode").onclick = () => open(state.episode - 1);
  $("next-episode").onclick = () => open(state.episode + 1);
  document.querySelectorAll("tr[data-episode]").forEach((tr) =>
    tr.addEventListener("click", () => open(Number(tr.dataset.episode), true)));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = { ArrowRight: () => go(state.step + 1), j: () => go(state.step + 1),
                   ArrowLeft: () => go(state.step - 1), k: () => go(state.step - 1),
                   Home: () => go(0), End: () => go(1e9),
                   "]": () => open(state.episode + 1), "[": () => open(state.episode - 1) };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  // #episode-2-step-5 opens there (links into a report)
  function fromHash() {
    const wanted = /^#episode-(\d+)(?:-step-(\d+))?$/.exec(location.hash);
    open(wanted ? Number(wanted[1]) - 1 : state.episode, false);
    if (wanted && wanted[2]) go(Number(wanted[2]) - 1);
    return Boolean(wanted);
  }
  window.addEventListener("hashchange", () => { if (fromHash()) $("viewer").scrollIntoView(); });
  fromHash();
})();
