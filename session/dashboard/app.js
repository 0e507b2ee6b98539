// strand's dashboard: a page per route (#/, #/jobs/ID/graph, …/vertices/N,
// …/checkpoints, …/savepoints, …/query), each redrawn every second from the
// JSON API of the process that serves it. Rates and the charts' series are
// computed here from successive polls, so the server keeps no history for
// pages nobody has open. Nothing here changes a job but the two buttons of
// the savepoints page, which POST to the API the CLI uses.

const POLL_MS = 1000;
const KEEP_MS = 5 * 60 * 1000; // the charts show the last five minutes

const main = document.getElementById("main");
const crumbs = document.getElementById("crumbs");
const banner = document.getElementById("alert");
let lostAt = 0; // when the server stopped answering, 0 while it answers

// ---- formatting: every figure carries its unit ----

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const int = (n) => Math.round(n).toLocaleString("en-US");
const rate = (n) => n == null ? "–" : `${n >= 100 ? int(n) : n.toFixed(1)} rows/s`;
const rows = (n) => `${int(n)} rows`;
const pct = (f) => `${Math.round(f * 100)} %`;
function bytes(n) {
  if (n == null) return "–";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${u[i]}`;
}
function dur(ms) {
  if (ms == null || ms < 0) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60), h = Math.floor(m / 60);
  return h ? `${h} h ${m % 60} min` : `${m} min ${Math.floor(s % 60)} s`;
}
const time = (ms) => ms > 0 ? new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC") : "–";
const status = (s) => `<span class="status ${esc(s)}">${esc(s)}</span>`;

// ---- the API ----

async function get(path) {
  const r = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((body.errors || [r.statusText]).join("; "));
  return body;
}

async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const out = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((out.errors || [r.statusText]).join("; "));
  return out;
}

// ---- per-job history, from successive polls of GET /jobs/ID ----

const history = new Map(); // job id -> {samples: [{t, job}], rates: Map(vid -> {in, out})}

function observe(job) {
  let h = history.get(job.id);
  if (!h) history.set(job.id, h = { samples: [] });
  const t = Date.now();
  const prev = h.samples.at(-1);
  const sample = { t, job, vertices: new Map() };
  for (const v of job.vertices) {
    const p = prev && prev.vertices.get(v.id);
    const dt = p ? (t - prev.t) / 1000 : 0;
    sample.vertices.set(v.id, {
      ...v,
      rateIn: p && dt > 0 ? Math.max(0, (v["rows-in"] - p["rows-in"]) / dt) : null,
      rateOut: p && dt > 0 ? Math.max(0, (v["rows-out"] - p["rows-out"]) / dt) : null,
      lag: v.watermark != null ? Math.max(0, t - v.watermark) : null,
    });
  }
  h.samples.push(sample);
  while (h.samples.length > 2 && h.samples[0].t < t - KEEP_MS) h.samples.shift();
  return sample;
}

// series returns [t, value] points of a vertex's field over the history.
function series(jobId, vid, field) {
  const h = history.get(jobId);
  if (!h) return [];
  return h.samples.map((s) => [s.t, s.vertices.get(vid)?.[field]]).filter(([, v]) => v != null);
}

// ---- charts: hand-written SVG ----

// lineChart draws lines of [t, value] points against time; the value
// axis runs from 0 to the highest value, or to max if given.
function lineChart(title, unit, lines, fmt, max) {
  const W = 420, H = 150, L = 64, R = 8, T = 10, B = 22;
  const pts = lines.flatMap((l) => l.points);
  let body = "";
  if (pts.length < 2) {
    body = `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">collecting samples…</text>`;
  } else {
    const t0 = Math.min(...pts.map((p) => p[0])), t1 = Math.max(...pts.map((p) => p[0]));
    const vmax = max ?? Math.max(...pts.map((p) => p[1]), 1e-9) * 1.1;
    const x = (t) => L + (t1 > t0 ? (t - t0) / (t1 - t0) : 0) * (W - L - R);
    const y = (v) => T + (1 - v / vmax) * (H - T - B);
    body += `<line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"/><line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"/>`;
    body += `<text x="${L - 4}" y="${T + 8}" text-anchor="end">${esc(fmt(vmax))}</text><text x="${L - 4}" y="${H - B}" text-anchor="end">${esc(fmt(0))}</text>`;
    body += `<text x="${L}" y="${H - 6}">−${dur(t1 - t0)}</text><text x="${W - R}" y="${H - 6}" text-anchor="end">now</text>`;
    lines.forEach((l, i) => {
      body += `<polyline class="s${i + 1}" points="${l.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`;
    });
  }
  const legend = lines.map((l, i) => `<span class="lg-s${i + 1}">${esc(l.name)}</span>`).join("");
  return `<figure class="chart card"><h3>${esc(title)} <span class="muted">(${esc(unit)})</span></h3>
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)} in ${esc(unit)} over the last minutes">${body}</svg>
    <div class="legend">${legend}</div></figure>`;
}

function barChart(title, unit, bars, fmt) {
  const W = 420, H = 150, L = 64, R = 8, T = 10, B = 22;
  let body = "";
  if (!bars.length) {
    body = `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">none yet</text>`;
  } else {
    const vmax = Math.max(...bars.map((b) => b.value), 1e-9) * 1.1;
    const bw = (W - L - R) / bars.length;
    body += `<line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"/>`;
    body += `<text x="${L - 4}" y="${T + 8}" text-anchor="end">${esc(fmt(vmax))}</text><text x="${L - 4}" y="${H - B}" text-anchor="end">${esc(fmt(0))}</text>`;
    bars.forEach((b, i) => {
      const h = (b.value / vmax) * (H - T - B);
      body += `<rect class="${b.failed ? "s2" : "s1"}" x="${(L + i * bw + 1).toFixed(1)}" y="${(H - B - h).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>#${b.id}: ${esc(fmt(b.value))}</title></rect>`;
    });
    body += `<text x="${L}" y="${H - 6}">#${bars[0].id}</text><text x="${W - R}" y="${H - 6}" text-anchor="end">#${bars.at(-1).id}</text>`;
  }
  return `<figure class="chart card"><h3>${esc(title)} <span class="muted">(${esc(unit)})</span></h3>
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)} in ${esc(unit)} per checkpoint">${body}</svg>
    <div class="legend"><span class="lg-s1">completed</span><span class="lg-s2">failed</span></div></figure>`;
}

// ---- the job graph ----

// health is how a vertex is coloured: high or low when it is
// backpressured (its output channels are full) or busy (its input
// channels are full), idle when no rows went through it since the last
// poll.
function health(v) {
  const f = Math.max(v["output-fill"], v["input-fill"]);
  if (f > 0.5) return "high";
  if (f > 0.1) return "low";
  if (v.rateIn === 0 && v.rateOut === 0) return "idle";
  return "ok";
}

// clip shortens s to n characters: SVG text does not wrap.
const clip = (s, n) => s.length > n ? `${s.slice(0, n - 1)}…` : s;

function edgeLabel(input) {
  const s = input.ship_strategy.toLowerCase();
  return input.keys?.length ? `${s}[${input.keys.join(", ")}]` : s;
}

function graphSVG(jobId, plan, sample) {
  const nodes = plan.plan.nodes;
  if (!nodes.length) return `<p class="muted">The job has not started a run yet.</p>`;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const layer = new Map();
  for (const n of nodes) { // nodes come in topological order
    layer.set(n.id, Math.max(0, ...n.inputs.map((i) => (layer.get(i.id) ?? 0) + 1)));
  }
  const layers = [];
  for (const n of nodes) (layers[layer.get(n.id)] ??= []).push(n);
  const BW = 300, GAP = 40, VG = 70;
  const boxH = (n) => 58 + 15 * n.operators.length + 30;
  const width = Math.max(...layers.map((l) => l.length)) * (BW + GAP) + GAP;
  const pos = new Map();
  let y = 16;
  for (const l of layers) {
    const h = Math.max(...l.map(boxH));
    const x0 = (width - l.length * (BW + GAP) + GAP) / 2;
    l.forEach((n, i) => pos.set(n.id, { x: x0 + i * (BW + GAP), y, h: boxH(n) }));
    y += h + VG;
  }
  const height = y - VG + 16;
  let edges = "", boxes = "";
  for (const n of nodes) {
    const to = pos.get(n.id);
    for (const inp of n.inputs) {
      const from = pos.get(inp.id);
      if (!from || !byId.has(inp.id)) continue;
      const x1 = from.x + BW / 2, y1 = from.y + from.h, x2 = to.x + BW / 2, y2 = to.y - 6;
      const my = (y1 + y2) / 2;
      edges += `<path class="edge" d="M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}"/>`;
      edges += `<path class="arrow" d="M${x2 - 5},${y2 - 7} L${x2 + 5},${y2 - 7} L${x2},${y2} Z"/>`;
      edges += `<text class="elabel" x="${(x1 + x2) / 2 + 6}" y="${my + 4}">${esc(edgeLabel(inp))}</text>`;
    }
    const v = sample.vertices.get(n.id) || { "input-fill": 0, "output-fill": 0 };
    const hl = health(v);
    let lines = `<text class="title" x="${to.x + 10}" y="${to.y + 19}">${esc(n.id)}: ${esc(n.description)}</text>`;
    lines += `<text x="${to.x + 10}" y="${to.y + 36}">parallelism ${n.parallelism} · buffers full: in ${pct(v["input-fill"])}, out ${pct(v["output-fill"])}</text>`;
    n.operators.forEach((op, i) => {
      const label = `→ ${op.name}${op.uid && !op.name.includes(op.uid) ? ` (uid ${op.uid})` : ""}`;
      lines += `<text class="small" x="${to.x + 10}" y="${to.y + 54 + 15 * i}">${esc(clip(label, 44))}<title>${esc(label)}</title></text>`;
    });
    const foot = to.y + to.h - 24;
    const metrics = `in ${rate(v.rateIn)} · out ${rate(v.rateOut)}`;
    const wm = v.watermark != null ? `watermark ${time(v.watermark).slice(11, 23)} · lag ${dur(v.lag)}` : "no watermark";
    lines += `<rect class="band ${hl}" x="${to.x}" y="${foot - 4}" width="${BW}" height="28" rx="0"/>`;
    lines += `<text class="onband" x="${to.x + 10}" y="${foot + 8}">${esc(metrics)}</text><text class="onband" x="${to.x + 10}" y="${foot + 20}">${esc(wm)}</text>`;
    boxes += `<a href="#/jobs/${esc(jobId)}/vertices/${n.id}" aria-label="vertex ${n.id}, ${esc(n.description)}, parallelism ${n.parallelism}"><rect class="box ${hl}" x="${to.x}" y="${to.y}" width="${BW}" height="${to.h}" rx="8" data-vertex="${n.id}" data-parallelism="${n.parallelism}"/>${lines}</a>`;
  }
  return `<svg id="graph" viewBox="0 0 ${width} ${height}" width="${width}" role="img" aria-label="job graph">${edges}${boxes}</svg>`;
}

// ---- pages ----

const pages = [];
function route(re, render) { pages.push({ re, render }); }

route(/^#?\/?$/, async () => {
  const { jobs } = await get("/jobs");
  crumbs.innerHTML = "Jobs";
  const rowsHtml = jobs.map((j) => {
    const end = j["end-time"] > 0 ? j["end-time"] : Date.now();
    const cp = j["last-checkpoint"];
    return `<tr data-job="${esc(j.id)}"><td><a href="#/jobs/${esc(j.id)}/graph">${esc(j.name)}</a><br><span class="muted">${esc(j.id)}</span></td>
      <td>${status(j.status)}</td><td>${esc(time(j["start-time"]))}</td><td class="num">${dur(end - j["start-time"])}</td>
      <td class="num">${rows(j["rows-read"])}</td><td class="num">${rows(j["rows-written"])}</td>
      <td>${cp ? `#${cp.id} at ${esc(time(cp.timestamp))}` : "–"}</td></tr>`;
  }).join("");
  return `<h1>Jobs</h1><div class="scroll"><table id="jobs"><thead><tr><th>job</th><th>status</th><th>started</th><th class="num">uptime</th>
    <th class="num">rows read</th><th class="num">rows written</th><th>last checkpoint</th></tr></thead>
    <tbody>${rowsHtml || `<tr><td colspan="7" class="muted">No jobs in this process.</td></tr>`}</tbody></table></div>`;
});

const plans = new Map(); // job id -> plan; a job's plan changes only with a restart

async function jobData(id) {
  const job = await get(`/jobs/${encodeURIComponent(id)}`);
  let plan = plans.get(job.id);
  if (!plan || plan.plan.nodes.length !== job.vertices.length) {
    plan = await get(`/jobs/${encodeURIComponent(job.id)}/plan`);
    plans.set(job.id, plan);
  }
  return { job, plan, sample: observe(job) };
}

function jobHeader(job, tab) {
  crumbs.innerHTML = `<a href="#/">Jobs</a> › ${esc(job.name)}`;
  const m = job.metrics, end = job["end-time"] > 0 ? job["end-time"] : Date.now();
  const tabs = [["graph", "Graph"], ["checkpoints", "Checkpoints"], ["savepoints", "Savepoints"], ["query", "Query"]]
    .map(([k, n]) => `<a href="#/jobs/${esc(job.id)}/${k}"${k === tab ? ' aria-current="page"' : ""}>${n}</a>`).join("");
  return `<h1>${esc(job.name)} ${status(job.status)}</h1>
    ${job.error ? `<p class="error">${esc(job.error)}</p>` : ""}
    <dl class="stats">
      <div><dt>job id</dt><dd class="id">${esc(job.id)}</dd></div>
      <div><dt>uptime</dt><dd>${dur(end - job["start-time"])}</dd></div>
      <div><dt>rows read</dt><dd>${rows(m["rows-read"])}</dd></div>
      <div><dt>rows written</dt><dd>${rows(m["rows-written"])}</dd></div>
      <div><dt>late rows dropped</dt><dd>${rows(m["late-rows"])}</dd></div>
      <div><dt>bad rows skipped</dt><dd>${rows(m["bad-rows"])}</dd></div>
      <div><dt>windows spilled</dt><dd>${int(m.spills)}</dd></div>
      <div><dt>checkpoints</dt><dd>${int(m["checkpoints-completed"])} ok, ${int(m["checkpoints-failed"])} failed</dd></div>
    </dl><nav class="tabs" aria-label="Job pages">${tabs}</nav>`;
}

route(/^#\/jobs\/([^/]+)(?:\/graph)?$/, async ([, id]) => {
  const { job, plan, sample } = await jobData(id);
  const table = plan.plan.nodes.map((n) => {
    const v = sample.vertices.get(n.id) || {};
    return `<tr data-vertex="${n.id}"><td><a href="#/jobs/${esc(job.id)}/vertices/${n.id}">${n.id}: ${esc(n.description)}</a></td>
      <td class="num parallelism">${n.parallelism}</td>
      <td>${n.inputs.map((i) => `${i.id} via ${esc(edgeLabel(i))}`).join("<br>") || "source"}</td>
      <td class="num">${rows(v["rows-in"] ?? 0)}</td><td class="num rate-in">${rate(v.rateIn)}</td>
      <td class="num">${rows(v["rows-out"] ?? 0)}</td><td class="num rate-out">${rate(v.rateOut)}</td>
      <td class="num">${v.watermark != null ? esc(time(v.watermark)) : "–"}</td><td class="num">${dur(v.lag)}</td>
      <td class="num">${pct(v["input-fill"] ?? 0)}</td><td class="num">${pct(v["output-fill"] ?? 0)}</td></tr>`;
  }).join("");
  return `${jobHeader(job, "graph")}
    <div class="legend"><span class="lg-ok">running freely</span><span class="lg-low">busy or backpressured (10–50 % of buffers full)</span><span class="lg-high">over 50 % full</span><span class="lg-idle">no rows in the last second</span></div>
    <div class="card scroll">${graphSVG(job.id, plan, sample)}</div>
    <h2>Vertices</h2><div class="scroll"><table id="vertices"><thead><tr><th>vertex</th><th class="num">parallelism</th><th>inputs</th>
    <th class="num">rows in</th><th class="num">in</th><th class="num">rows out</th><th class="num">out</th>
    <th class="num">watermark</th><th class="num">watermark lag</th><th class="num">input buffers full (busy)</th><th class="num">output buffers full (backpressure)</th></tr></thead>
    <tbody>${table}</tbody></table></div>`;
});

route(/^#\/jobs\/([^/]+)\/vertices\/(\d+)$/, async ([, id, vid]) => {
  const { job, plan } = await jobData(id);
  const d = await get(`/jobs/${encodeURIComponent(job.id)}/vertices/${vid}`);
  const node = plan.plan.nodes.find((n) => String(n.id) === vid);
  const header = jobHeader(job, "");
  crumbs.innerHTML = `<a href="#/">Jobs</a> › <a href="#/jobs/${esc(job.id)}/graph">${esc(job.name)}</a> › vertex ${esc(vid)}`;
  const vidN = Number(vid);
  const charts = [
    lineChart("Rows per second", "rows/s", [{ name: "in", points: series(job.id, vidN, "rateIn") }, { name: "out", points: series(job.id, vidN, "rateOut") }], rate),
    lineChart("Watermark lag behind the wall clock", "ms", [{ name: "lag", points: series(job.id, vidN, "lag") }], dur),
    lineChart("Buffers full", "% of the channels' capacity", [{ name: "input (busy)", points: series(job.id, vidN, "input-fill") }, { name: "output (backpressure)", points: series(job.id, vidN, "output-fill") }], pct, 1),
  ].join("");
  const subs = d.subtasks.map((s) => `<tr><td class="num">${s.subtask}</td><td class="num">${rows(s["rows-in"])}</td><td class="num">${rows(s["rows-out"])}</td>
    <td class="num">${rows(s["late-rows"])}</td><td class="num">${rows(s["bad-rows"])}</td><td class="num">${bytes(s["state-memory-bytes"])}</td>
    <td class="num">${bytes(s["state-spilled-bytes"])}</td><td class="num">${int(s.spills)}</td><td class="num">${pct(s["input-fill"])}</td>
    <td class="num">${pct(s["output-fill"])} (${esc(s["backpressure-level"])})</td><td class="num">${s.watermark != null ? esc(time(s.watermark)) : "–"}</td></tr>`).join("");
  const ops = node ? node.operators.map((o) => `<li>${esc(o.name)}${o.uid && !o.name.includes(o.uid) ? ` <span class="muted">uid ${esc(o.uid)}</span>` : ""}</li>`).join("") : "";
  return `${header}<h2>Vertex ${esc(d.id)}: ${esc(d.name)}</h2>
    <dl class="stats"><div><dt>parallelism</dt><dd>${d.parallelism}</dd></div>
      <div><dt>rows in</dt><dd>${rows(d["rows-in"])}</dd></div><div><dt>rows out</dt><dd>${rows(d["rows-out"])}</dd></div>
      <div><dt>watermark</dt><dd>${d.watermark != null ? esc(time(d.watermark)) : "–"}</dd></div>
      <div><dt>watermark lag</dt><dd>${d.watermark != null ? dur(d.now - d.watermark) : "–"}</dd></div>
      <div><dt>backpressure</dt><dd>${esc(d["backpressure-level"])} (${pct(d["output-fill"])} full)</dd></div></dl>
    <p>Chained operators, first to last:</p><ol>${ops}</ol>
    <h2>Last minutes</h2><div class="charts">${charts}</div>
    <h2>Subtasks</h2><div class="scroll"><table id="subtasks"><thead><tr><th class="num">subtask</th><th class="num">rows in</th><th class="num">rows out</th>
    <th class="num">late rows</th><th class="num">bad rows</th><th class="num">state in memory</th><th class="num">state on disk</th><th class="num">spills</th>
    <th class="num">input buffers full</th><th class="num">output buffers full</th><th class="num">watermark</th></tr></thead><tbody>${subs}</tbody></table></div>`;
});

function checkpointRows(list, savepoints) {
  return list.map((c) => `<tr data-checkpoint="${c.id}"><td class="num">${c.id}</td><td>${status(c.status)}</td><td>${esc(time(c.trigger_timestamp))}</td>
    <td class="num">${c.status === "IN_PROGRESS" ? "–" : dur(c.end_to_end_duration)}</td><td class="num">${c.status === "COMPLETED" ? bytes(c.state_size) : "–"}</td>
    ${savepoints ? `<td class="path">${esc(c.external_path || "")}</td>` : `<td class="num">${c.status === "COMPLETED" ? bytes(c.checkpointed_size) : "–"}</td>`}
    <td class="error">${esc(c.failure_message || "")}</td></tr>`).join("");
}

route(/^#\/jobs\/([^/]+)\/checkpoints$/, async ([, id]) => {
  const { job } = await jobData(id);
  const cps = await get(`/jobs/${encodeURIComponent(job.id)}/checkpoints`);
  const list = cps.history.filter((c) => !c.is_savepoint);
  const done = list.filter((c) => c.status !== "IN_PROGRESS").reverse();
  const c = cps.counts;
  return `${jobHeader(job, "checkpoints")}
    <dl class="stats"><div><dt>completed</dt><dd>${int(c.completed)}</dd></div><div><dt>failed</dt><dd>${int(c.failed)}</dd></div>
    <div><dt>in progress</dt><dd>${int(c.in_progress)}</dd></div>
    <div><dt>latest completed</dt><dd>${cps.latest.completed ? `#${cps.latest.completed.id}, ${bytes(cps.latest.completed.state_size)}` : "–"}</dd></div></dl>
    <div class="charts">
      ${barChart("Duration", "ms", done.map((x) => ({ id: x.id, value: x.end_to_end_duration, failed: x.status === "FAILED" })), dur)}
      ${barChart("State size", "bytes", done.map((x) => ({ id: x.id, value: x.state_size, failed: x.status === "FAILED" })), bytes)}
      ${barChart("Written by the checkpoint (incremental)", "bytes", done.map((x) => ({ id: x.id, value: x.checkpointed_size, failed: x.status === "FAILED" })), bytes)}
    </div>
    <h2>History</h2><p class="muted">The current run's latest checkpoints, newest first${list.length ? "" : "; none yet (is the job run with --checkpoint-interval?)"}.</p>
    <div class="scroll"><table id="checkpoints"><thead><tr><th class="num">id</th><th>status</th><th>triggered</th><th class="num">duration</th>
    <th class="num">state size</th><th class="num">incremental size</th><th>failure</th></tr></thead><tbody>${checkpointRows(list, false)}</tbody></table></div>`;
});

const requests = new Map(); // job id -> [{kind, id, status, location, error}] asked for from this page

// requestsTable lists the savepoints and stops asked for from this page.
function requestsTable(jobId) {
  const mine = (requests.get(jobId) || []).map((r) => `<tr><td>${r.kind === "stop" ? "stop with savepoint" : "savepoint"}</td><td>${status(r.status)}</td>
    <td class="path savepoint-path">${esc(r.location || "")}</td><td class="error">${esc(r.error || "")}</td></tr>`).join("");
  return mine ? `<h2>Asked for from this page</h2><div class="scroll"><table id="requests"><thead><tr><th>request</th><th>status</th><th>path</th><th>failure</th></tr></thead><tbody>${mine}</tbody></table></div>` : "";
}

async function trigger(jobId, kind) {
  if (kind === "stop" && !confirm("Stop the job with a savepoint? It ends once the savepoint is written.")) return;
  const list = requests.get(jobId) || [];
  requests.set(jobId, list);
  const req = { kind, status: "SENDING" };
  list.unshift(req);
  try {
    const path = kind === "stop" ? `/jobs/${encodeURIComponent(jobId)}/stop` : `/jobs/${encodeURIComponent(jobId)}/savepoints`;
    const { "request-id": rid } = await post(path, kind === "stop" ? { drain: false } : {});
    req.id = rid;
    req.status = "IN_PROGRESS";
    for (;;) {
      const st = await get(`/jobs/${encodeURIComponent(jobId)}/savepoints/${encodeURIComponent(rid)}`);
      if (st.status.id === "COMPLETED") {
        req.status = st.operation?.location ? "COMPLETED" : "FAILED";
        req.location = st.operation?.location;
        req.error = st.operation?.["failure-cause"]?.message;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (e) {
    req.status = "FAILED";
    req.error = e.message;
  }
  // Shown at once, and even if the refresh finds the process gone, as it
  // will after a stop.
  const box = document.getElementById("requests-box");
  if (box) box.innerHTML = requestsTable(jobId);
  refresh();
}

route(/^#\/jobs\/([^/]+)\/savepoints$/, async ([, id]) => {
  const { job } = await jobData(id);
  const cps = await get(`/jobs/${encodeURIComponent(job.id)}/checkpoints`);
  const list = cps.history.filter((c) => c.is_savepoint);
  const running = job.status === "RUNNING";
  return `${jobHeader(job, "savepoints")}
    <div class="actions"><button id="trigger-savepoint" ${running ? "" : "disabled"}>Trigger savepoint</button>
    <button id="stop-savepoint" class="danger" ${running ? "" : "disabled"}>Stop with savepoint</button>
    <span class="muted">into the job's default directory (state.savepoints.dir)</span></div>
    <div id="requests-box">${requestsTable(job.id)}</div>
    <div class="charts">${barChart("Savepoint duration", "ms", list.filter((x) => x.status !== "IN_PROGRESS").reverse().map((x) => ({ id: x.id, value: x.end_to_end_duration, failed: x.status === "FAILED" })), dur)}</div>
    <h2>Savepoints of this run</h2><div class="scroll"><table id="savepoints"><thead><tr><th class="num">id</th><th>status</th><th>triggered</th><th class="num">duration</th>
    <th class="num">size</th><th>path</th><th>failure</th></tr></thead><tbody>${checkpointRows(list, true) || `<tr><td colspan="7" class="muted">None yet.</td></tr>`}</tbody></table></div>`;
});

route(/^#\/jobs\/([^/]+)\/query$/, async ([, id]) => {
  const { job, plan } = await jobData(id);
  return `${jobHeader(job, "query")}<h2>Statement</h2><pre id="statement">${esc(plan.statement)}</pre>
    <h2>EXPLAIN (physical plan)</h2><pre id="explain">${esc(plan.explain)}</pre>
    <p class="muted">Option values whose keys name a password, secret or token are shown as ******.</p>`;
});

// ---- the loop ----

// show replaces the page's content, keeping its buttons and the keyboard
// focus, and leaves it alone while the user has text selected in it (a
// savepoint path being copied, say).
function show(html) {
  const sel = getSelection();
  if (sel && !sel.isCollapsed && main.contains(sel.anchorNode)) return;
  const f = document.activeElement;
  let key = null;
  if (f && f !== main && main.contains(f)) {
    if (f.id) key = `#${CSS.escape(f.id)}`;
    else if (f.getAttribute("href")) key = `[href="${CSS.escape(f.getAttribute("href"))}"]`;
  }
  const next = document.createElement("template");
  next.innerHTML = html;
  // A button that did not change is kept, not replaced: a click whose
  // press and release straddle a refresh would otherwise be lost.
  for (const b of next.content.querySelectorAll("button[id]")) {
    const old = main.querySelector(`#${CSS.escape(b.id)}`);
    if (old && old.outerHTML === b.outerHTML) b.replaceWith(old);
  }
  main.replaceChildren(next.content);
  if (key && document.activeElement !== main.querySelector(key)) main.querySelector(key)?.focus();
}

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  const hash = location.hash || "#/";
  try {
    for (const p of pages) {
      const m = hash.match(p.re);
      if (m) {
        const html = await p.render(m);
        if ((location.hash || "#/") === hash) show(html);
        break;
      }
    }
    banner.textContent = "";
    lostAt = 0;
  } catch (e) {
    // The last figures stay, marked stale: after a stop the process ends,
    // and its last page is still worth reading.
    const gone = e instanceof TypeError; // fetch failed: no answer at all
    if (gone && !lostAt) lostAt = Date.now();
    banner.textContent = gone ? `No answer from strand since ${time(lostAt)}: the process may have ended. The figures below are the last it sent.` : e.message;
    if (!gone) main.innerHTML = `<p><a href="#/">All jobs</a></p>`;
  } finally {
    busy = false;
  }
  document.getElementById("clock").textContent = time(Date.now());
}

main.addEventListener("click", (e) => {
  const m = (location.hash || "").match(/^#\/jobs\/([^/]+)\//);
  if (!m) return;
  if (e.target.id === "trigger-savepoint") trigger(m[1], "savepoint");
  if (e.target.id === "stop-savepoint") trigger(m[1], "stop");
});
addEventListener("hashchange", () => { main.innerHTML = ""; refresh(); });
setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
refresh();
