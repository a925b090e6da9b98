/* The games list: pages of data/games/page-K.js (PAGE_SIZE rows each), filtered in the browser. */
"use strict";
let SUMMARY = null;
const PAGES = {};
const WAITING = {};
const view = { page: 0, rows: null };

function loadScript(src) {
  const s = document.createElement("script");
  s.src = src;
  s.onerror = () => console.warn(`cannot load ${src}`);
  document.head.appendChild(s);
}

function arenaGames(rows) {
  const k = rows.length ? Math.floor(rows[0][0] / SUMMARY.pageSize) : 0;
  PAGES[k] = rows;
  (WAITING[k] || []).forEach((f) => f(rows));
  delete WAITING[k];
}

function page(k) {
  if (PAGES[k]) return Promise.resolve(PAGES[k]);
  return new Promise((resolve) => {
    if (!WAITING[k]) {
      WAITING[k] = [];
      loadScript(`data/games/page-${k}.js`);
    }
    WAITING[k].push(resolve);
  });
}

function filters() {
  return {
    bot: document.getElementById("f-bot").value,
    result: document.getElementById("f-result").value,
    violation: document.getElementById("f-violation").value,
  };
}

function matches(row, f) {
  const [, , , , players, , winners, result, , kinds] = row;
  if (f.bot && !players.includes(f.bot)) return false;
  if (f.result) {
    const won = winners.some((s) => players[s] === f.bot);
    if (f.result === "won" && !(f.bot ? won : result === "decided")) return false;
    if (f.result === "lost" && !(f.bot ? !won && result !== "draw" : result === "decided")) return false;
    if (["decided", "draw", "forfeit"].includes(f.result) && result !== f.result) return false;
  }
  if (f.violation === "*" && !kinds.length) return false;
  if (f.violation === "-" && kinds.length) return false;
  if (f.violation && !["*", "-"].includes(f.violation) && !kinds.includes(f.violation)) return false;
  return true;
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function render(rows, pageIndex, pageCount, total) {
  const tbody = document.querySelector("#games-table tbody");
  tbody.replaceChildren();
  for (const row of rows) {
    const [n, id, key, variant, players, scores, winners, result, hands, kinds, forfeit] = row;
    const tr = document.createElement("tr");
    tr.dataset.n = n;
    const a = document.createElement("a");
    a.href = `viewer.html?n=${n}`;
    a.textContent = id;
    cell(tr, "").appendChild(a);
    cell(tr, key, "key");
    cell(tr, variant);
    cell(tr, players.join(" · "));
    cell(tr, scores.join("–"), "num");
    cell(tr, [...new Set(winners.map((s) => players[s]))].join(", ") || "—");
    cell(tr, hands, "num");
    cell(tr, forfeit ? `forfeit (${players[forfeit[0]]}: ${forfeit[1]})` : result, result);
    cell(tr, kinds.join(", "), kinds.length ? "bad" : "");
    tbody.appendChild(tr);
  }
  document.getElementById("page-label").textContent = `page ${pageIndex + 1} of ${Math.max(pageCount, 1)} (${total} games)`;
  document.getElementById("prev").disabled = pageIndex <= 0;
  document.getElementById("next").disabled = pageIndex >= pageCount - 1;
}

async function show() {
  const f = filters();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) params.set(k, v);
  if (view.page) params.set("page", view.page + 1);
  history.replaceState(null, "", `${location.pathname}${params.toString() ? "?" + params : ""}`);
  const status = document.getElementById("status");
  const size = SUMMARY.pageSize;
  if (!f.bot && !f.result && !f.violation) {
    view.rows = null;
    view.page = Math.min(view.page, SUMMARY.pages - 1);
    render(await page(view.page), view.page, SUMMARY.pages, SUMMARY.games);
    status.textContent = "";
    document.body.dataset.ready = "1";
    return;
  }
  if (view.rows === null) {
    const found = [];
    for (let k = 0; k < SUMMARY.pages; k++) {
      status.textContent = `filtering… ${k * size} of ${SUMMARY.games}`;
      for (const row of await page(k)) if (matches(row, f)) found.push(row);
    }
    view.rows = found;
  }
  const count = Math.ceil(view.rows.length / size);
  view.page = Math.max(0, Math.min(view.page, count - 1));
  render(view.rows.slice(view.page * size, (view.page + 1) * size), view.page, count, view.rows.length);
  status.textContent = `${view.rows.length} of ${SUMMARY.games} games match`;
  document.body.dataset.ready = "1";
}

function arenaSummary(summary) {
  SUMMARY = summary;
  const params = new URLSearchParams(location.search);
  for (const k of ["bot", "result", "violation"]) {
    const el = document.getElementById(`f-${k}`);
    if (params.get(k)) el.value = params.get(k);
    el.addEventListener("change", () => {
      document.body.dataset.ready = "";
      view.rows = null;
      view.page = 0;
      show();
    });
  }
  view.page = Math.max(0, (parseInt(params.get("page"), 10) || 1) - 1);
  document.getElementById("prev").addEventListener("click", () => { view.page -= 1; show(); });
  document.getElementById("next").addEventListener("click", () => { view.page += 1; show(); });
  show();
}
