// The dashboard of `orrery serve` (docs/server.md, "Dashboard"): the API's
// documents rendered with textContent only (every name and output is user
// data, never markup), refreshed when the event stream says something changed.
"use strict";

const DAY_MS = 24 * 3600 * 1000;
let token = sessionStorage.getItem("orrery-token") || "";
let refreshTimer = null;
let lastRefresh = 0;
// A busy daemon sends many events a second; the page reads at most this often.
const MIN_REFRESH_MS = 1000;

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

function headers() {
  const h = { "Accept": "application/json" };
  if (token) h["Authorization"] = "Bearer " + token;
  return h;
}

async function api(method, path, body) {
  const options = { method, headers: headers() };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 401) {
    document.getElementById("token-form").hidden = false;
    throw new Error("this server needs its bearer token");
  }
  const document_ = await response.json().catch(() => null);
  if (!response.ok) {
    const message = document_ && document_.error ? document_.error.message : response.statusText;
    throw new Error(message);
  }
  return document_;
}

function relative(iso, now) {
  if (!iso) return "—";
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  let text;
  if (abs < 60e3) text = Math.round(abs / 1e3) + "s";
  else if (abs < 3600e3) text = Math.round(abs / 60e3) + "m";
  else if (abs < DAY_MS) text = (abs / 3600e3).toFixed(1).replace(/\.0$/, "") + "h";
  else text = Math.round(abs / DAY_MS) + "d";
  return ms >= 0 ? "in " + text : text + " ago";
}

function duration(ms) {
  if (ms % DAY_MS === 0) return ms / DAY_MS + "d";
  if (ms % 3600e3 === 0) return ms / 3600e3 + "h";
  if (ms % 60e3 === 0) return ms / 60e3 + "m";
  return ms / 1e3 + "s";
}

function schedule(loop) {
  const s = loop.schedule || {};
  if (s.type === "interval") return "every " + duration(s.every_ms);
  if (s.type === "cron") return "cron " + (s.expression || s.cron || "") + (s.tz ? " " + s.tz : "");
  if (s.type === "once") return "at " + (s.at || "");
  return s.type || "";
}

function status(text) {
  return el("span", { class: "status " + String(text).replace(/[^a-z_]/g, "") }, text);
}

function nextRun(loop, cooldowns, now) {
  if (loop.status !== "active") return el("span", { class: "muted" }, loop.status);
  const provider = loop.target && loop.target.provider;
  const cooling = cooldowns.find((c) => c.provider === provider && Date.parse(c.until) > now);
  if (cooling) return el("span", {}, "cooldown, " + relative(cooling.until, now));
  return el("span", { "data-at": loop.next_run_at || "" }, relative(loop.next_run_at, now));
}

function timeline(runs, now) {
  const bar = el("div", { class: "timeline", title: "the last 24 hours" });
  for (const run of runs) {
    const start = Date.parse(run.started_at || run.scheduled_for);
    if (!(start > now - DAY_MS)) continue;
    const end = run.finished_at ? Date.parse(run.finished_at) : now;
    const left = ((start - (now - DAY_MS)) / DAY_MS) * 100;
    const width = Math.max(((end - start) / DAY_MS) * 100, 0);
    const mark = el("span", { class: run.status, title: run.status + " " + (run.started_at || "") });
    mark.style.left = left.toFixed(3) + "%";
    mark.style.width = width.toFixed(3) + "%";
    bar.append(mark);
  }
  return bar;
}

function actions(loop) {
  const act = (what) => async () => {
    try {
      await api("POST", "/v1/loops/" + encodeURIComponent(loop.id) + "/" + what);
      scheduleRefresh(0);
    } catch (error) {
      showError(error);
    }
  };
  const cell = el("td", {});
  if (loop.status === "active") cell.append(el("button", { onclick: act("pause") }, "Pause"));
  if (loop.status === "paused") cell.append(el("button", { onclick: act("resume") }, "Resume"));
  cell.append(el("button", { onclick: act("trigger"), "data-action": "trigger" }, "Trigger"));
  return cell;
}

function renderLoops(loops, runs, cooldowns, now) {
  const byLoop = new Map();
  for (const run of runs) {
    if (!byLoop.has(run.loop_id)) byLoop.set(run.loop_id, []);
    byLoop.get(run.loop_id).push(run);
  }
  const body = document.querySelector("#loops tbody");
  body.replaceChildren();
  for (const loop of loops) {
    const mine = byLoop.get(loop.id) || [];
    const last = mine[0];
    body.append(el("tr", { "data-loop": loop.id },
      el("td", { class: "name" }, loop.name),
      el("td", {}, status(loop.status)),
      el("td", {}, schedule(loop)),
      el("td", { class: "next" }, nextRun(loop, cooldowns, now)),
      el("td", { class: "last" }, last ? status(last.status) : "—",
         last ? el("span", { class: "muted" }, " " + relative(last.finished_at || last.started_at || last.scheduled_for, now)) : null),
      el("td", {}, timeline(mine, now)),
      actions(loop)));
  }
}

// Empties the section, saying so when there is nothing to show.
function startSection(box, list, emptyText) {
  box.replaceChildren();
  if (list.length === 0) box.append(el("p", { class: "muted" }, emptyText));
}

async function renderWorkflows() {
  const box = document.getElementById("workflows");
  const runs = await api("GET", "/v1/workflow-runs?limit=20");
  const open = runs.filter((r) => r.status === "running" || r.status === "pending");
  startSection(box, open, "No workflow is running.");
  for (const run of open) {
    const shown = await api("GET", "/v1/workflow-runs/" + encodeURIComponent(run.id));
    const steps = el("div", { class: "steps" });
    for (const step of shown.steps || []) {
      const after = (step.depends_on || step.needs || []).join(", ");
      steps.append(el("span", { class: "step " + step.status, title: after ? "after " + after : "" },
        (step.id || step.step_id) + ": " + step.status));
    }
    box.append(el("div", { class: "card" },
      el("strong", {}, run.workflow_name || ""), " ", status(run.status), steps));
  }
}

async function renderQueues() {
  const box = document.getElementById("queues");
  const routes = await api("GET", "/v1/routes");
  startSection(box, routes, "No routes.");
  for (const route of routes) {
    const items = await api("GET", "/v1/routes/" + encodeURIComponent(route.id) + "/items?status=queued&limit=20");
    const list = el("table", {}, el("tr", {}, el("th", {}, "Item"), el("th", {}, "Priority"), el("th", {}, "Waiting on")));
    for (const item of items) {
      list.append(el("tr", {}, el("td", {}, item.key), el("td", {}, item.effective_priority),
        el("td", {}, item.waiting_on || "next tick")));
    }
    const counts = Object.entries(route.counts || {}).filter(([, n]) => n > 0)
      .map(([s, n]) => s + " " + n).join(", ");
    box.append(el("div", { class: "card" }, el("strong", {}, route.name), " ", status(route.status),
      el("span", { class: "muted" }, " " + (counts || "empty")), items.length ? list : null));
  }
}

async function renderGoals() {
  const box = document.getElementById("goals");
  const goals = await api("GET", "/v1/goals");
  startSection(box, goals, "No goals.");
  for (const goal of goals) {
    const used = goal.tokens_used || 0;
    const budget = goal.token_budget;
    const bar = el("span", { class: "budget", title: budget ? used + " of " + budget + " tokens" : used + " tokens" });
    const fill = el("span", {});
    fill.style.width = budget ? Math.min(100, (used / budget) * 100).toFixed(1) + "%" : "0%";
    bar.append(fill);
    const plan = el("div", { class: "steps" });
    for (const node of goal.plan || []) plan.append(el("span", { class: "step " + node.status }, node.key + ": " + node.status));
    box.append(el("div", { class: "card" }, el("strong", {}, goal.objective || goal.id), " ", status(goal.status), " ",
      bar, el("span", { class: "muted" }, budget ? " " + used + " / " + budget + " tokens" : " " + used + " tokens"), plan));
  }
}

function showError(error) {
  document.getElementById("error").textContent = error ? String(error.message || error) : "";
}

async function refresh() {
  const now = Date.now();
  lastRefresh = now;
  try {
    const [loops, runs, statusDoc] = await Promise.all([
      api("GET", "/v1/loops"), api("GET", "/v1/runs?limit=1000"), api("GET", "/v1/status")]);
    renderLoops(loops, runs, statusDoc.cooldowns || [], now);
    const daemon = document.getElementById("daemon");
    daemon.textContent = statusDoc.daemon && statusDoc.daemon.held ? "daemon: running" : "daemon: not running";
    daemon.className = "pill " + (statusDoc.daemon && statusDoc.daemon.held ? "ok" : "bad");
    await Promise.all([renderWorkflows(), renderQueues(), renderGoals()]);
    showError(null);
    document.body.dataset.refreshed = String(now);
  } catch (error) {
    showError(error);
  }
}

function scheduleRefresh(delay) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, delay);
}

// Reads /v1/events with fetch (EventSource cannot send a bearer token) and
// refreshes a moment after each burst of events; reconnects with the last id.
async function follow() {
  let lastId = "";
  const live = document.getElementById("live");
  for (;;) {
    try {
      const h = headers();
      h["Accept"] = "text/event-stream";
      if (lastId) h["Last-Event-ID"] = lastId;
      const response = await fetch("/v1/events", { headers: h });
      if (!response.ok || !response.body) throw new Error("events: " + response.status);
      live.textContent = "live";
      live.className = "pill ok";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let pending = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        let end;
        while ((end = pending.indexOf("\n\n")) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const id = frame.split("\n").find((line) => line.startsWith("id: "));
          if (id) lastId = id.slice(4);
          if (frame.split("\n").some((line) => line.startsWith("event: "))) {
            scheduleRefresh(Math.max(250, MIN_REFRESH_MS - (Date.now() - lastRefresh)));
          }
        }
      }
    } catch (error) {
      // reconnect below
    }
    live.textContent = "reconnecting…";
    live.className = "pill bad";
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function tick() {
  const now = Date.now();
  for (const cell of document.querySelectorAll("[data-at]")) {
    if (cell.dataset.at) cell.textContent = relative(cell.dataset.at, now);
  }
}

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = document.getElementById("token").value.trim();
  sessionStorage.setItem("orrery-token", token);
  document.getElementById("token-form").hidden = true;
  refresh();
});
refresh();
follow();
setInterval(tick, 1000);
setInterval(refresh, 30000);
