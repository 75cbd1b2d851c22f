// Capture's auditor console: reads the auditors' lists with a key kept in sessionStorage.
// Every stored string is attacker-controlled, so text only ever reaches the page through
// textContent (el() and svgText()); no markup is built from data.

const KEY = "capture.console.key";
const SVG_NS = "http://www.w3.org/2000/svg";
const PAGE = 200;
const MAX_PAGES = 10;

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "onclick" || name === "onsubmit" || name === "onchange") node[name] = value;
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(path, params = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") url.searchParams.set(name, value);
  }
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${sessionStorage.getItem(KEY) || ""}` },
  });
  if (!response.ok) {
    let code = "error";
    let message = `${response.status}`;
    try {
      const body = await response.json();
      code = body.error?.code || code;
      message = body.error?.message || message;
    } catch (_) { /* not JSON */ }
    throw new ApiError(response.status, code, message);
  }
  return response.json();
}

// Every item of a cursor-paged list, up to MAX_PAGES pages.
async function all(path, params = {}) {
  const items = [];
  let cursor = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const body = await api(path, { ...params, limit: PAGE, cursor });
    items.push(...body.items);
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return items;
}

const short = (id) => (id ? String(id).slice(0, 8) : "");
const when = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC") : "");
const badge = (value) => el("span", { class: `badge ${value}` }, value);
const clip = (text, n) => (text && text.length > n ? `${text.slice(0, n - 1)}…` : text || "");

function table(headers, rows, attrs = {}) {
  return el("table", attrs,
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.length
      ? rows
      : [el("tr", {}, el("td", { colspan: headers.length, class: "muted" }, "none"))]));
}

function hashParams() {
  const [, query = ""] = window.location.hash.split("?");
  return new URLSearchParams(query);
}

function link(view, params, text) {
  return el("a", { href: `#${view}?${new URLSearchParams(params)}` }, text);
}

async function users() {
  return all("/v1/users");
}

async function userSelect(name, selected) {
  const list = await users();
  const select = el("select", { name },
    list.map((u) => el("option", { value: u.user_id }, u.user_id)));
  if (selected) select.value = selected;
  return select;
}

// ---- graphs: columns of boxes, edges between them, drawn as SVG ----

function svgNode(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

const KIND_FILL = {
  event: "#e3ecfa", hypothesis: "#efe6fa", decision: "#fbefd9", version: "#dff3e7",
  node: "#dff3e7", memory: "#dff3e7", write: "#e3ecfa", processing: "#fbefd9",
  retrieval: "#e6f4f6", action: "#f8dede",
};

function drawGraph(columns, edges, attrs = {}) {
  const boxW = 210;
  const boxH = 46;
  const gapX = 70;
  const gapY = 14;
  const top = 28;
  const rows = Math.max(1, ...columns.map((c) => c.nodes.length));
  const width = columns.length * boxW + (columns.length - 1) * gapX + 20;
  const height = top + rows * (boxH + gapY) + 10;
  const svg = svgNode("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", ...attrs });
  const defs = svgNode("defs");
  const marker = svgNode("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svgNode("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8a93a6" }));
  defs.append(marker);
  svg.append(defs);
  const at = new Map();
  columns.forEach((column, i) => {
    const x = 10 + i * (boxW + gapX);
    svg.append(svgNode("text", { x, y: 16, class: "legend" }, column.title));
    column.nodes.forEach((n, j) => at.set(n.id, { x, y: top + j * (boxH + gapY) }));
  });
  const edgeLayer = svgNode("g");
  svg.append(edgeLayer);
  for (const edge of edges) {
    const a = at.get(edge.src);
    const b = at.get(edge.dst);
    if (!a || !b) continue;
    const [x1, y1] = [a.x + boxW, a.y + boxH / 2];
    const [x2, y2] = b.x > a.x ? [b.x, b.y + boxH / 2] : [b.x + boxW, b.y + boxH / 2];
    const bend = b.x > a.x ? (x2 - x1) / 2 : 40;
    const path = svgNode("path", {
      d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - (b.x > a.x ? bend : -bend)} ${y2}, ${x2} ${y2}`,
      class: `edge${edge.verified === false ? "" : " verified"}`,
      "marker-end": "url(#arrow)", "data-relation": edge.relation || "",
    });
    if (edge.verified === false) path.setAttribute("stroke-dasharray", "4 3");
    path.append(svgNode("title", {}, edge.relation || ""));
    edgeLayer.append(path);
    if (edge.label) {
      edgeLayer.append(svgNode("text", { x: (x1 + x2) / 2 - 20, y: (y1 + y2) / 2 - 4,
        class: "legend" }, clip(edge.label, 24)));
    }
  }
  columns.forEach((column) => column.nodes.forEach((n) => {
    const p = at.get(n.id);
    const g = svgNode("g", { "data-id": n.id, "data-kind": n.kind });
    g.append(svgNode("rect", { x: p.x, y: p.y, width: boxW, height: boxH, rx: 5,
      fill: KIND_FILL[n.kind] || "#eee", stroke: "#9aa3b5" }));
    g.append(svgNode("text", { x: p.x + 7, y: p.y + 17 }, clip(n.label, 32)));
    g.append(svgNode("text", { x: p.x + 7, y: p.y + 35, class: "legend" }, clip(n.sub, 34)));
    g.append(svgNode("title", {}, [n.label, n.sub].filter(Boolean).join("\n")));
    svg.append(g);
  }));
  return svg;
}

// ---- views ----

function dayOf(iso) {
  return iso ? iso.slice(0, 10) : "";
}

function barChart(series, days) {
  const colors = ["#2f5fb3", "#2f855a", "#b7791f", "#805ad5", "#b83232"];
  const max = Math.max(1, ...series.flatMap((s) => days.map((d) => s.byDay.get(d) || 0)));
  const groupW = series.length * 16 + 24;
  const height = 190;
  const base = 150;
  const width = Math.max(360, 50 + days.length * groupW);
  const svg = svgNode("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "counts per day", id: "overview-chart" });
  svg.append(svgNode("line", { x1: 40, y1: base, x2: width - 5, y2: base, stroke: "#9aa3b5" }));
  svg.append(svgNode("text", { x: 4, y: 24, class: "legend" }, String(max)));
  days.forEach((day, i) => {
    const x0 = 50 + i * groupW;
    series.forEach((s, k) => {
      const count = s.byDay.get(day) || 0;
      const h = Math.round((count / max) * 120);
      const rect = svgNode("rect", { x: x0 + k * 16, y: base - h, width: 13, height: h,
        fill: colors[k % colors.length], "data-series": s.name, "data-day": day,
        "data-count": count });
      rect.append(svgNode("title", {}, `${s.name} ${day}: ${count}`));
      svg.append(rect);
    });
    svg.append(svgNode("text", { x: x0, y: base + 16, class: "legend" }, day.slice(5)));
  });
  series.forEach((s, k) => {
    const x = 50 + k * 110;
    svg.append(svgNode("rect", { x, y: height - 14, width: 10, height: 10, fill: colors[k % colors.length] }));
    svg.append(svgNode("text", { x: x + 14, y: height - 5 }, s.name));
  });
  return svg;
}

const ADMITTED = new Set(["add", "revise", "retain", "scope"]);

async function overview(view) {
  const [userList, decisions, pending, deferred, answered, denies] = await Promise.all([
    users(),
    all("/v1/decisions"),
    all("/v1/clarifications", { status: "pending" }),
    all("/v1/clarifications", { status: "deferred" }),
    all("/v1/clarifications", { status: "answered" }),
    all("/v1/tool-checks", { decision: "deny" }),
  ]);
  const events = (await Promise.all(userList.slice(0, 50).map((u) =>
    api(`/v1/users/${encodeURIComponent(u.user_id)}/events`, { limit: PAGE })))).flatMap((p) => p.items);
  const questions = [...pending, ...deferred, ...answered];
  const metrics = [
    { name: "events", items: events, at: "received_at", total: userList.reduce((n, u) => n + u.events, 0) },
    { name: "admissions", items: decisions.filter((d) => ADMITTED.has(d.action)), at: "created_at" },
    { name: "quarantines", items: decisions.filter((d) => d.action === "quarantine"), at: "created_at" },
    { name: "questions", items: questions, at: "created_at" },
    { name: "denies", items: denies, at: "created_at" },
  ];
  view.append(el("h2", {}, "Overview"),
    el("div", { class: "cards" }, metrics.map((m) =>
      el("div", { class: "card", dataset: { metric: m.name } },
        el("b", {}, String(m.total ?? m.items.length)), el("span", {}, m.name)))));
  const series = metrics.map((m) => {
    const byDay = new Map();
    for (const item of m.items) byDay.set(dayOf(item[m.at]), (byDay.get(dayOf(item[m.at])) || 0) + 1);
    return { name: m.name, byDay };
  });
  const days = [...new Set(series.flatMap((s) => [...s.byDay.keys()]))].filter(Boolean).sort();
  view.append(el("h3", {}, "Per day (time received or decided)"), barChart(series, days));
  view.append(el("p", { class: "muted" },
    `${userList.length} users. Events are counted per user; the chart reads each user's first ${PAGE}.`));
}

async function held(view) {
  const [quarantined, clarified, pending, deferred, userList] = await Promise.all([
    all("/v1/decisions", { action: "quarantine" }),
    all("/v1/decisions", { action: "clarify" }),
    all("/v1/clarifications", { status: "pending" }),
    all("/v1/clarifications", { status: "deferred" }),
    users(),
  ]);
  const nodes = (await Promise.all(userList.slice(0, 50).map(async (u) => {
    const page = await api(`/v1/users/${encodeURIComponent(u.user_id)}/nodes`,
      { state: "quarantined", limit: 200 });
    return page.nodes.map((n) => ({ ...n, user_id: u.user_id }));
  }))).flat();
  view.append(el("h2", {}, "Quarantine queue"),
    table(["user", "claim held", "origin", "authenticity", "held since", "lineage"],
      nodes.map((n) => el("tr", { dataset: { node: n.id } },
        el("td", {}, n.user_id), el("td", { class: "text" }, n.claim ?? "(erased)"),
        el("td", {}, n.origin), el("td", {}, n.authenticity.toFixed(3)),
        el("td", {}, when(n.quarantined_at)),
        el("td", {}, link("lineage", { node: n.id }, short(n.id))))),
      { id: "quarantine-queue" }));
  view.append(el("h2", {}, "Questions held for the user"),
    el("p", { class: "muted" }, "Pending questions were asked; deferred ones wait for the user's question budget. The text is what the user would see."),
    table(["user", "status", "question the user sees", "asked", "memory"],
      [...pending, ...deferred].map((c) => el("tr", { dataset: { clarification: c.id } },
        el("td", {}, c.user_id), el("td", {}, badge(c.status)),
        el("td", { class: "text" }, c.question ?? "(erased)"), el("td", {}, when(c.created_at)),
        el("td", {}, link("lineage", { node: c.node_id }, short(c.node_id))))),
      { id: "questions" }));
  view.append(el("h2", {}, "Held decisions"),
    table(["decided", "user", "action", "proposed", "authenticity", "reasons", "event"],
      [...quarantined, ...clarified]
        .sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
        .map((d) => el("tr", { dataset: { decision: d.id } },
          el("td", {}, when(d.created_at)), el("td", {}, d.user_id), el("td", {}, badge(d.action)),
          el("td", {}, d.proposed_action ?? ""), el("td", {}, d.authenticity.toFixed(3)),
          el("td", {}, d.reasons.join(", ")), el("td", { class: "id" }, short(d.event_id)))),
      { id: "held-decisions" }));
}

async function eventText(id, cache) {
  if (!cache.has(id)) {
    cache.set(id, api(`/v1/events/${id}`).catch(() => null));
  }
  return cache.get(id);
}

async function tools(view) {
  const decision = hashParams().get("decision") || "";
  const select = el("select", { name: "decision" },
    ["", "deny", "ask", "allow"].map((d) => el("option", { value: d }, d || "every decision")));
  select.value = decision;
  select.onchange = () => { window.location.hash = `#tools?decision=${select.value}`; };
  view.append(el("h2", {}, "Tool-call decisions"), el("form", { class: "inline" },
    el("label", {}, "decision", select)));
  const checks = await all("/v1/tool-checks", { decision });
  const cache = new Map();
  const rows = [];
  for (const check of checks) {
    const evidence = [];
    for (const [argument, values] of Object.entries(check.arg_provenance || {})) {
      for (const value of values) {
        for (const source of value.sources || []) {
          const event = source.event_id ? await eventText(source.event_id, cache) : null;
          evidence.push(el("div", { class: "evidence", dataset: { argument, event: source.event_id || "" } },
            el("b", {}, `${argument}[${value.index}]`), " ← ",
            badge(value.verdict || "none"), " ", source.kind, " via ", source.origin || "",
            source.event_id ? el("span", { class: "id" }, ` event ${short(source.event_id)}`) : "",
            source.node_id ? el("span", { class: "id" }, ` memory ${short(source.node_id)}`) : "",
            event ? el("div", { class: "text muted" }, `“${clip(event.text ?? "(erased)", 200)}”`) : ""));
        }
      }
    }
    rows.push(el("tr", { dataset: { check: check.id, decision: check.decision } },
      el("td", {}, when(check.created_at)), el("td", {}, check.user_id),
      el("td", {}, check.tool_name), el("td", {}, badge(check.decision)),
      el("td", {}, check.reasons.map((r) => `${r.code}${r.argument ? ` (${r.argument})` : ""}`).join(", ")),
      el("td", { class: "text" }, evidence.length ? evidence : el("span", { class: "muted" }, "no argument traced")),
      el("td", {}, link("session", { user: check.user_id, check: check.id }, "graph"))));
  }
  view.append(table(["checked", "user", "tool", "decision", "reasons", "evidence per argument", ""],
    rows, { id: "tool-checks" }));
}

async function lineage(view) {
  const params = hashParams();
  const user = params.get("user") || "";
  const userField = await userSelect("user", user);
  const nodeField = el("input", { name: "node", value: params.get("node") || "", size: 38,
    placeholder: "memory id" });
  const form = el("form", { class: "inline" }, el("label", {}, "user", userField),
    el("label", {}, "memory", nodeField), el("button", { type: "submit" }, "Show"));
  form.onsubmit = (e) => {
    e.preventDefault();
    window.location.hash = `#lineage?user=${encodeURIComponent(userField.value)}&node=${encodeURIComponent(nodeField.value.trim())}`;
  };
  view.append(el("h2", {}, "A memory's lineage"), form);
  let nodeId = params.get("node");
  if (!nodeId && userField.value) {
    const page = await api(`/v1/users/${encodeURIComponent(userField.value)}/nodes`, { limit: 200 });
    view.append(table(["memory", "state", "claim"], page.nodes.map((n) => el("tr", {},
      el("td", {}, link("lineage", { user: userField.value, node: n.id }, short(n.id))),
      el("td", {}, badge(n.state)), el("td", { class: "text" }, n.claim ?? "(erased)"))),
    { id: "lineage-pick" }));
    return;
  }
  if (!nodeId) return;
  const body = await api(`/v1/provenance/nodes/${encodeURIComponent(nodeId)}`);
  const cache = new Map();
  const texts = await Promise.all(body.events.map((e) => eventText(e.event_id, cache)));
  const columns = [
    { title: "events", nodes: body.events.map((e, i) => ({ id: `e:${e.event_id}`, kind: "event",
      label: texts[i]?.text ?? (e.erased ? "(erased)" : ""), sub: `${e.origin} · ${e.relation} · ${when(e.occurred_at)}` })) },
    { title: "hypotheses", nodes: body.hypotheses.map((h) => ({ id: `h:${h.id}`, kind: "hypothesis",
      label: h.claim ?? "(erased)", sub: `${h.provenance} · confidence ${h.confidence}` })) },
    { title: "decisions", nodes: body.decisions.map((d) => ({ id: `d:${d.id}`, kind: "decision",
      label: d.action, sub: `authenticity ${d.authenticity.toFixed(3)} · ${d.policy}` })) },
    { title: "versions", nodes: body.versions.map((v) => ({ id: `v:${v.version}`, kind: "version",
      label: `v${v.version} ${v.change}`, sub: `${v.state} · ${v.claim ?? "(erased)"}` })) },
  ];
  const edges = [
    ...body.events.filter((e) => e.hypothesis_id).map((e) => ({ src: `e:${e.event_id}`, dst: `h:${e.hypothesis_id}`, relation: e.relation })),
    ...body.decisions.map((d) => ({ src: `h:${d.hypothesis_id}`, dst: `d:${d.id}`, relation: "decided" })),
    ...body.versions.filter((v) => v.decision_id).map((v) => ({ src: `d:${v.decision_id}`, dst: `v:${v.version}`, relation: v.change })),
  ];
  const node = body.node;
  view.append(el("p", {}, badge(node.state), " ", el("b", {}, node.claim ?? "(erased)"),
    el("span", { class: "muted" }, ` · ${node.subject} = ${node.value ?? ""} · ${node.origin} · `),
    el("span", { class: "id" }, node.id)));
  view.append(drawGraph(columns, edges, { id: "lineage-graph", "aria-label": "lineage graph" }));
  view.append(el("h3", {}, "Relations to other memories"),
    table(["relation", "from", "to", "probability"], body.edges.map((e) => el("tr", {},
      el("td", {}, e.relation), el("td", {}, link("lineage", { node: e.src_node_id }, short(e.src_node_id))),
      el("td", {}, link("lineage", { node: e.dst_node_id }, short(e.dst_node_id))),
      el("td", {}, e.probability.toFixed(3))))));
  view.append(el("h3", {}, "Retrievals and tool checks that used it"),
    table(["what", "when", "detail"], [
      ...body.retrievals.map((r) => el("tr", {}, el("td", {}, "retrieval"), el("td", {}, when(r.at ?? r.created_at)), el("td", { class: "id" }, JSON.stringify(r)))),
      ...body.tool_checks.map((t) => el("tr", {}, el("td", {}, `tool check ${t.tool_name}`), el("td", {}, when(t.at)), el("td", {}, badge(t.decision)))),
    ]));
}

const SESSION_COLUMNS = [
  ["write", "events written"], ["processing", "decisions"], ["memory", "memories"],
  ["retrieval", "retrievals"], ["action", "tool calls"],
];

async function session(view) {
  const params = hashParams();
  const userField = await userSelect("user", params.get("user"));
  let sessionId = params.get("session") || "";
  const check = params.get("check");
  if (!sessionId && check && userField.value) {
    // A tool check names no session: find the user's session whose graph holds the call.
    const user = encodeURIComponent(userField.value);
    const events = await all(`/v1/users/${user}/events`);
    for (const id of [...new Set(events.map((e) => e.session_id))].reverse().slice(0, 20)) {
      const graph = await api(`/v1/provenance/sessions/${encodeURIComponent(id)}`, { user_id: userField.value });
      if (graph.vertices.some((v) => v.id === `action:${check}`)) { sessionId = id; break; }
    }
  }
  if (!sessionId && userField.value) {
    const events = await api(`/v1/users/${encodeURIComponent(userField.value)}/events`, { limit: PAGE });
    sessionId = events.items.length ? events.items[events.items.length - 1].session_id : "";
  }
  const sessionField = el("input", { name: "session", value: sessionId, size: 24 });
  const form = el("form", { class: "inline" }, el("label", {}, "user", userField),
    el("label", {}, "session", sessionField), el("button", { type: "submit" }, "Show"));
  form.onsubmit = (e) => {
    e.preventDefault();
    window.location.hash = `#session?user=${encodeURIComponent(userField.value)}&session=${encodeURIComponent(sessionField.value.trim())}`;
  };
  view.append(el("h2", {}, "A session's retrieval-to-action graph"), form);
  if (!sessionId || !userField.value) return;
  const graph = await api(`/v1/provenance/sessions/${encodeURIComponent(sessionId)}`, { user_id: userField.value });
  const columns = SESSION_COLUMNS.map(([kind, title]) => ({ title, nodes: graph.vertices
    .filter((v) => v.kind === kind)
    .map((v) => ({ id: v.id, kind, label: `${v.operation}${v.attributes.origin ? ` · ${v.attributes.origin}` : ""}`,
      sub: `${v.id.split(":")[0]} ${short(v.id.split(":")[1])} · ${v.observability}` })) }));
  const edges = graph.edges.map((e) => ({ ...e, label: e.argument ? `${e.argument} ← ${e.source}` : e.relation }));
  view.append(drawGraph(columns, edges, { id: "session-graph", "aria-label": "session graph" }));
  view.append(el("p", { class: "muted" }, "Solid edges are recorded; dashed ones are only ordered in time."));
  view.append(table(["from", "relation", "to", "argument"], graph.edges.map((e) => el("tr", {},
    el("td", { class: "id" }, e.src), el("td", {}, e.relation), el("td", { class: "id" }, e.dst),
    el("td", {}, e.argument ? `${e.argument} (${e.source})` : "")))));
}

async function timeline(view) {
  const params = hashParams();
  const userField = await userSelect("user", params.get("user"));
  const asOf = params.get("as_of") || new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const atField = el("input", { name: "as_of", value: asOf, size: 24 });
  const form = el("form", { class: "inline" }, el("label", {}, "user", userField),
    el("label", {}, "held at (UTC, ISO 8601)", atField), el("button", { type: "submit" }, "Show"));
  form.onsubmit = (e) => {
    e.preventDefault();
    window.location.hash = `#timeline?user=${encodeURIComponent(userField.value)}&as_of=${encodeURIComponent(atField.value.trim())}`;
  };
  view.append(el("h2", {}, "What was held at a time"), form);
  if (!userField.value) return;
  const user = encodeURIComponent(userField.value);
  const [held, events] = await Promise.all([
    api(`/v1/users/${user}/nodes`, { as_of: asOf, limit: 200 }),
    all(`/v1/users/${user}/events`),
  ]);
  view.append(el("h3", {}, `Memories held at ${when(asOf)}`),
    table(["state", "claim", "layer", "origin", "valid from", "memory"], held.nodes.map((n) =>
      el("tr", { dataset: { node: n.id } }, el("td", {}, badge(n.state)),
        el("td", { class: "text" }, n.claim ?? "(erased)"), el("td", {}, n.layer), el("td", {}, n.origin),
        el("td", {}, when(n.valid_from)), el("td", {}, link("lineage", { node: n.id }, short(n.id))))),
    { id: "held-at" }));
  const before = events.filter((e) => e.occurred_at <= asOf);
  view.append(el("h3", {}, `Events that had occurred by then (${before.length} of ${events.length})`),
    table(["#", "occurred", "session", "origin", "status", "text"], before.map((e) =>
      el("tr", {}, el("td", {}, e.seq), el("td", {}, when(e.occurred_at)), el("td", {}, e.session_id),
        el("td", {}, e.origin + (e.tool_name ? ` (${e.tool_name})` : "")), el("td", {}, badge(e.status)),
        el("td", { class: "text" }, e.erased ? "(erased)" : e.text))),
    { id: "timeline-events" }));
}

async function erasures(view) {
  const receipts = await all("/v1/erasures");
  view.append(el("h2", {}, "Erasure receipts"),
    el("p", { class: "muted" }, "A receipt names the user only by the SHA-256 of their id and counts the rows deleted per table."),
    table(["requested", "completed", "status", "user (SHA-256)", "rows deleted"], receipts.map((r) =>
      el("tr", { dataset: { erasure: r.id } }, el("td", {}, when(r.requested_at)), el("td", {}, when(r.completed_at)),
        el("td", {}, badge(r.status)), el("td", { class: "id" }, short(r.user_ref_sha256)),
        el("td", {}, Object.entries(r.counts).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(", ")))),
    { id: "erasure-receipts" }));
}

const VIEWS = { overview, held, tools, lineage, session, timeline, erasures };

let rendering = 0;

// Each view is built detached and swapped in whole; a render overtaken by a later one
// (another click, a hash change) is dropped.
async function render() {
  const name = (window.location.hash.slice(1).split("?")[0]) || "overview";
  const show = VIEWS[name] || overview;
  const turn = ++rendering;
  for (const a of document.querySelectorAll("nav a")) {
    a.classList.toggle("active", a.getAttribute("href") === `#${name}`);
  }
  const target = $("view");
  target.dataset.view = name;
  target.dataset.ready = "false";
  $("status").textContent = "Loading…";
  const view = el("div");
  let failure = "";
  try {
    await show(view);
  } catch (error) {
    if (turn !== rendering) return;
    if (error instanceof ApiError && error.status === 401) {
      signOut("The key is no longer accepted.");
      return;
    }
    failure = `Could not load: ${error.message}`;
  }
  if (turn !== rendering) return;
  target.replaceChildren(...view.childNodes);
  $("status").textContent = failure;
  target.dataset.ready = "true";
}

function signOut(message = "") {
  sessionStorage.removeItem(KEY);
  $("nav").hidden = true;
  $("view").replaceChildren();
  $("status").textContent = "";
  $("signin").hidden = false;
  $("signin-error").textContent = message;
}

async function signIn(event) {
  event.preventDefault();
  const key = $("key").value.trim();
  sessionStorage.setItem(KEY, key);
  try {
    const me = await api("/v1/keys/me");
    if (me.role !== "auditor" && me.role !== "admin") {
      signOut(`This is an ${me.role} key. The console needs an auditor or admin key.`);
      return;
    }
  } catch (error) {
    signOut(error instanceof ApiError && error.status === 401
      ? "The key was not accepted." : `Could not sign in: ${error.message}`);
    return;
  }
  $("key").value = "";
  started();
}

function started() {
  $("signin").hidden = true;
  $("nav").hidden = false;
  render();
}

$("signin").onsubmit = signIn;
$("signout").onclick = () => signOut();
window.addEventListener("hashchange", () => {
  if (sessionStorage.getItem(KEY)) render();
});
if (sessionStorage.getItem(KEY)) started();
else signOut();
