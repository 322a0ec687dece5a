// The room's board: draws what /api/events pushes (companion/club/room.py): every table's latest game, then the
// standings of each game. It names no game: a table's sides and points come as the club computed them.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

let latest = null;

function fill(text, fields) {
  return text.replace(/\{(\w+)\}/g, (_, key) => fields[key] ?? "");
}

function drawTable(table, t) {
  const head = el("h3", {}, table.table, " ", el("span", { class: `status ${table.status}` }, t[table.status] ?? ""));
  const card = el("article", { class: "table", "data-table": table.table }, head);
  if (!table.game) return card;
  const about = [table.title, fill(t.game, { number: table.number })];
  if (table.waiting) about.push(fill(t.waiting, { event: table.waiting }));
  card.append(el("p", { class: "about" }, about.join(" · ")));
  if (table.missing) card.append(el("p", { class: "missing" }, fill(t.missing, { games: table.missing })));
  const rows = table.sides.map((side) =>
    el("tr", { class: side.won ? "won" : "" }, el("td", {}, side.player), el("td", {}, String(side.points))),
  );
  card.append(el("table", {}, ...rows));
  const over = table.result ? `${t.over}: ${table.result}` : t.over; // the winner and the rule, as the table says
  card.append(el("p", { class: "turn" }, table.over ? over : table.turn ? `${t.turn}: ${table.turn}` : ""));
  return card;
}

function drawStandings(game, t) {
  const head = el("tr", {}, ...["player", "played", "won", "points", "renuncios"].map((key) => el("th", {}, t[key])));
  const rows = game.rows.map((row) =>
    el("tr", {}, ...[row.player, row.played, row.won, row.points, row.renuncios].map((v) => el("td", {}, String(v)))),
  );
  return el("div", { class: "standings", "data-game": game.game }, el("h3", {}, game.title), el("table", {}, head, ...rows));
}

function render(data) {
  latest = data;
  const t = data.texts;
  document.documentElement.lang = data.language;
  document.title = t.title;
  document.getElementById("title").textContent = t.title;
  document.getElementById("csv").textContent = t.csv;
  document.getElementById("tables-head").textContent = t.tables;
  document.getElementById("standings-head").textContent = t.standings;
  const tables = data.tables.map((table) => drawTable(table, t));
  document.getElementById("tables").replaceChildren(...(tables.length ? tables : [el("p", {}, t.no_tables)]));
  document.getElementById("standings").replaceChildren(...data.standings.map((game) => drawStandings(game, t)));
}

function connect() {
  const link = document.getElementById("link");
  const events = new EventSource("/api/events");
  events.onopen = () => (link.textContent = "");
  events.onmessage = (event) => render(JSON.parse(event.data));
  events.onerror = () => (link.textContent = latest ? latest.texts.lost : "…");
}

connect();
