// The café dashboard: one row per table, pushed live over the WebSocket. It shows;
// it never sends a table anything.
"use strict";

function minutes(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, "0")}`;
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text ?? "";
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

function render(tables) {
  const body = document.querySelector("#tables tbody");
  body.replaceChildren();
  for (const table of tables) {
    const state = table.state || {};
    const row = document.createElement("tr");
    row.dataset.table = table.table;
    row.dataset.status = table.status;
    const name = cell(row, "");
    const link = document.createElement("a");
    link.textContent = table.table;
    if (state.panel_url) link.href = `${state.panel_url}/watch`;
    name.appendChild(link);
    cell(row, state.game);
    cell(row, state.players);
    cell(row, state.winner ? `won: ${state.winner}` : state.seat_name || state.phase);
    cell(row, state.plies);
    cell(row, minutes(table.seconds_in_game));
    const alerts = [...(state.alerts || [])];
    if (table.status === "offline") alerts.unshift("table offline");
    cell(row, alerts.join("; "), alerts.length ? "alert" : "");
    body.appendChild(row);
  }
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket.onmessage = (message) => render(JSON.parse(message.data));
  socket.onopen = () => { document.getElementById("broker").textContent = ""; };
  socket.onclose = () => {
    document.getElementById("broker").textContent = "dashboard disconnected; retrying";
    setTimeout(connect, 1000);
  };
}

connect();
