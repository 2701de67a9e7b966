// @ts-check
// The café dashboard: one row per table, kept live over the WebSocket. The first
// message holds every table, later ones only the fields of the rows that changed;
// they are applied once per frame, to those rows only. Only the rows in view are in
// the document (a head office's thousands would cost the browser a layout of them
// all at every change), so scrolling brings the rows it reaches. It shows; it never
// sends a table anything.
import {
  $, connect, field, loadLanguage, said, say, words,
} from "./core.js";

const body = $("rows");
const tables = new Map(); // name -> {name, row, line, cells, said}
const waiting = new Map(); // name -> fields received since the last frame
const PLAYING = new Set(["move", "chance", "ambiguous"]);
const CATEGORIES = ["playing", "idle", "offline", "alerts"];
const counts = { playing: 0, idle: 0, offline: 0, alerts: 0 };
const known = { site: new Map(), game: new Map() }; // value -> tables with it
const params = new URLSearchParams(location.search);
const view = {
  find: params.get("find") || "",
  site: params.get("site") || "",
  game: params.get("game") || "",
  show: params.get("show") || "",
  sort: params.get("sort") || "table",
};
// the column heads that sort
const headers = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[role=columnheader][data-sort]"));
let order = []; // the tables in the sort order, shown or not
let shown = []; // the tables the view shows, in order; null once that may have changed
let inDocument = []; // the tables whose rows are in the document now
let rowHeight = 0; // px, measured from a row: every row is as high (dashboard.css)
let topRow = 0; // the row (and part of it) at the view's top at the last frame (0: the list's top in view)
let atTheEnd = false; // whether the view was at the list's end at the last frame
const BEYOND_VIEW = 10; // rows kept in the document above and below the view
let clockOffset = 0; // the dashboard's clock minus this page's, in seconds
let frameAsked = false;

// --- words ---------------------------------------------------------------------------
async function sayIn(lang) {
  await loadLanguage(lang);
  fillChoices("site");
  fillChoices("game");
  for (const table of tables.values()) paint(table);
  showCounts();
  document.dispatchEvent(new Event("boardref:words"));
}

// an alert this page has no words for yet is shown as the table sent it
function sayAlert(text) {
  const key = `fleet.alert.${text.replace(/ /g, "_")}`;
  return key in words ? say(key) : text;
}

const gameName = (game) => (game ? say(`game.${game}.title`) : "");

// --- one table -----------------------------------------------------------------------
const COLUMNS = ["table", "site", "game", "players", "to-move", "moves", "time", "alert"];

function category(row) {
  if (row.status === "offline") return "offline";
  return PLAYING.has(row.phase) ? "playing" : "idle";
}

function alertsOf(row) {
  const alerts = (row.alerts || []).map(sayAlert);
  if (row.status === "offline") alerts.unshift(say("fleet.alert.table_offline"));
  return alerts;
}

function minutesIn(row) {
  if (!row.started) return "";
  const seconds = Date.now() / 1000 + clockOffset - row.started;
  return say("fleet.minutes", { m: Math.max(0, Math.floor(seconds / 60)) });
}

// seats in the page's language where the table sent their words (else as it named them)
function toMove(row) {
  if (row.winner) {
    const winner = row.winners_said && row.winners_said.length ? row.winners_said.map((name) => said(name)).join(", ") : row.winner;
    return say("fleet.won", { winner });
  }
  if (row.seat_said) return said(row.seat_said);
  return row.seat_name || (row.phase ? say(`phase_${row.phase}`) : "");
}

function newTable(name) {
  const line = document.createElement("div");
  line.setAttribute("role", "row");
  const cells = {};
  for (const column of COLUMNS) {
    cells[column] = line.appendChild(document.createElement("span"));
    cells[column].className = column;
    cells[column].setAttribute("role", "cell");
  }
  const link = document.createElement("a");
  link.textContent = name;
  link.target = "_blank";
  link.rel = "noopener";
  cells.table.appendChild(link);
  line.dataset.table = name;
  return { name, row: {}, line, cells, link, said: {}, category: null, alerting: false, visible: false };
}

// Write a cell only when its text changed: most of a row stays as it was.
function write(table, column, text) {
  if (table.said[column] !== text) {
    table.said[column] = text;
    table.cells[column].textContent = text;
  }
}

function paint(table) {
  const row = table.row;
  if (table.link.getAttribute("href") !== (row.watch || null)) {
    if (row.watch) table.link.href = row.watch;
    else table.link.removeAttribute("href");
  }
  if (table.line.dataset.status !== row.status) table.line.dataset.status = row.status;
  write(table, "site", row.site ? row.site : "");
  write(table, "game", gameName(row.game));
  write(table, "players", row.players ?? "");
  write(table, "to-move", toMove(row));
  write(table, "moves", row.plies ?? "");
  write(table, "time", minutesIn(row));
  const alerts = alertsOf(row);
  write(table, "alert", alerts.join("; "));
  const alerting = alerts.length > 0;
  if (table.line.classList.contains("alerting") !== alerting) table.line.classList.toggle("alerting", alerting);
}

// --- counts and choices ----------------------------------------------------------------
function count(table, sign) {
  counts[table.category] += sign;
  if (table.alerting) counts.alerts += sign;
  for (const key of ["site", "game"]) {
    const value = table.row[key] || "";
    const now = (known[key].get(value) || 0) + sign;
    if (now > 0) known[key].set(value, now);
    else known[key].delete(value);
    if (now === 0 || (sign > 0 && now === 1)) choicesChanged[key] = true;
  }
}
const choicesChanged = { site: false, game: false };

function fillChoices(key) {
  const select = /** @type {HTMLSelectElement} */ ($(key));
  const named = key === "site" ? (site) => site : gameName;
  const values = [...known[key].keys()].filter((v) => v).sort((a, b) => named(a).localeCompare(named(b)));
  if (view[key] && !values.includes(view[key])) values.push(view[key]);
  select.replaceChildren(select.options[0]);
  for (const value of values) select.add(new Option(named(value), value));
  select.value = view[key];
  choicesChanged[key] = false;
}

// Write a text only when it changed: an unchanged count costs the page nothing.
const textOf = new Map(); // element id -> the text written there
function writeText(id, text) {
  if (textOf.get(id) !== text) {
    textOf.set(id, text);
    $(id).textContent = text;
  }
}

function showCounts() {
  for (const key of CATEGORIES) {
    writeText(`count-${key}`, String(counts[key]));
    writeText(`said-${key}`, say(`fleet.count_${key}`, { count: counts[key] }));
  }
  writeText("shown", say("fleet.shown", { shown: shownTables().length, total: tables.size }));
}

// --- filter and sort -------------------------------------------------------------------
function visible(table) {
  const row = table.row;
  if (view.find && !table.name.toLowerCase().includes(view.find.toLowerCase())) return false;
  if (view.site && (row.site || "") !== view.site) return false;
  if (view.game && row.game !== view.game) return false;
  if (view.show === "alerts") return table.alerting;
  return !view.show || table.category === view.show;
}

const byName = (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true });
const SORTS = {
  table: byName,
  site: (a, b) => (a.row.site || "").localeCompare(b.row.site || "") || byName(a, b),
  game: (a, b) => gameName(a.row.game).localeCompare(gameName(b.row.game)) || byName(a, b),
  moves: (a, b) => (b.row.plies || 0) - (a.row.plies || 0) || byName(a, b),
  time: (a, b) => (a.row.started || Infinity) - (b.row.started || Infinity) || byName(a, b),
  alerts: (a, b) => Number(b.alerting) - Number(a.alerting) || Number(b.category === "offline") - Number(a.category === "offline") || byName(a, b),
};
const SORTED_BY = { table: [], site: ["site"], game: ["game"], moves: ["plies"], time: ["started"], alerts: ["alerts", "status"] };

function resort() {
  order = [...tables.values()].sort(SORTS[view.sort]);
  for (const table of order) table.visible = visible(table);
  shown = null;
  render();
  for (const header of headers) {
    header.setAttribute("aria-sort", header.dataset.sort === view.sort ? "ascending" : "none");
  }
}

// Put one table where the sort wants it: a binary search.
function place(table) {
  const at = order.indexOf(table);
  if (at >= 0) order.splice(at, 1);
  const compare = SORTS[view.sort];
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compare(order[middle], table) < 0) low = middle + 1;
    else high = middle;
  }
  order.splice(low, 0, table);
  shown = null;
}

function shownTables() {
  if (shown === null) shown = order.filter((table) => table.visible);
  return shown;
}

// Only the rows in view (and a few beyond) are in the document; the rows above and
// below are the rowgroup's padding, so the page scrolls as if every row were there.
function render() {
  const list = shownTables();
  if (!rowHeight && list.length) {
    // Rows of a new height (a phone turned, the page just open): the view keeps the row
    // it had at its top, or stays at the end if it was there (or was flicked there since).
    const toTheEnd = atTheEnd || (scrollY > 0 && scrollY >= scrollRoom() - 1);
    body.replaceChildren(list[0].line);
    rowHeight = list[0].line.getBoundingClientRect().height;
    inDocument = [list[0]];
    body.style.paddingTop = "0px";
    body.style.paddingBottom = `${(list.length - 1) * rowHeight}px`;
    const listTop = body.getBoundingClientRect().top + scrollY;
    if (toTheEnd) scrollTo(0, scrollRoom());
    else if (topRow > 0) scrollTo(0, Math.round(listTop + topRow * rowHeight));
  }
  const height = rowHeight || 1;
  const top = body.getBoundingClientRect().top; // where the first shown row would be
  topRow = Math.max(0, -top) / height;
  atTheEnd = scrollY > 0 && scrollY >= scrollRoom() - 1;
  const first = Math.min(list.length, Math.max(0, Math.floor(-top / height) - BEYOND_VIEW));
  const last = Math.min(list.length, Math.ceil((innerHeight - top) / height) + BEYOND_VIEW);
  const wanted = list.slice(first, last);
  if (wanted.length !== inDocument.length || wanted.some((table, i) => table !== inDocument[i])) {
    wanted.forEach((table, i) => table.line.setAttribute("aria-rowindex", String(first + i + 2)));
    body.replaceChildren(...wanted.map((table) => table.line));
    inDocument = wanted;
  }
  body.style.paddingTop = `${first * rowHeight}px`;
  body.style.paddingBottom = `${(list.length - last) * rowHeight}px`;
  $("tables").setAttribute("aria-rowcount", String(list.length + 1));
}

/** How far the page can scroll, in px. */
function scrollRoom() {
  return document.documentElement.scrollHeight - innerHeight;
}

function askFrame() {
  if (!frameAsked) {
    frameAsked = true;
    requestAnimationFrame(apply);
  }
}

function changeView() {
  for (const key of Object.keys(view)) view[key] = field(key).value;
  const query = new URLSearchParams(Object.entries(view).filter(([key, value]) => value && !(key === "sort" && value === "table")));
  history.replaceState(null, "", query.size ? `?${query}` : location.pathname);
  resort();
  showCounts();
}

// --- the messages ----------------------------------------------------------------------
function receive(message) {
  clockOffset = message.now - Date.now() / 1000;
  if (message.whole) {
    for (const name of tables.keys()) if (!(name in message.rows)) waiting.set(name, null);
  }
  for (const [name, fields] of Object.entries(message.rows)) {
    const before = waiting.get(name);
    waiting.set(name, before ? Object.assign(before, fields) : { ...fields });
  }
  askFrame();
}

// Everything received since the last frame, applied to the tables it changed.
function apply() {
  frameAsked = false;
  const sortKeys = SORTED_BY[view.sort];
  const first = tables.size === 0;
  for (const [name, fields] of waiting) {
    let table = tables.get(name);
    if (fields === null) {
      if (table) {
        count(table, -1);
        tables.delete(name);
        order.splice(order.indexOf(table), 1);
        shown = null;
      }
      continue;
    }
    const fresh = !table;
    if (fresh) tables.set(name, (table = newTable(name)));
    else count(table, -1);
    Object.assign(table.row, fields);
    paint(table);
    table.category = category(table.row);
    table.alerting = alertsOf(table.row).length > 0;
    count(table, +1);
    const seen = visible(table);
    if (table.visible !== seen) {
      table.visible = seen;
      shown = null;
    }
    if (!first && (fresh || sortKeys.some((key) => key in fields))) place(table);
  }
  waiting.clear();
  if (first) resort();
  for (const key of ["site", "game"]) if (choicesChanged[key]) fillChoices(key);
  render();
  showCounts();
}

// Time in game moves on by itself; only the rows whose minute turned are written.
function tick() {
  for (const table of tables.values()) if (table.row.started) write(table, "time", minutesIn(table.row));
}

for (const key of Object.keys(view)) field(key).value = view[key];
$("view").addEventListener("input", changeView);
$("view").addEventListener("submit", (event) => event.preventDefault());
for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-show]"))) {
  button.addEventListener("click", () => {
    field("show").value = field("show").value === button.dataset.show ? "" : button.dataset.show;
    changeView();
  });
}
for (const header of headers) {
  header.addEventListener("click", () => {
    field("sort").value = header.dataset.sort;
    changeView();
  });
}
addEventListener("scroll", askFrame, { passive: true });
addEventListener("resize", () => {
  rowHeight = 0; // a phone turned: rows of another height
  askFrame();
});
setInterval(tick, 1000);
connect("/ws", receive, (open) => {
  $("broker").textContent = open ? "" : say("fleet.disconnected");
}, sayIn);
