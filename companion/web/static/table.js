// The table's page: draws what /api/events pushes. What is game-specific is drawn by the game's own script
// (/games/NAME.js, supplied by its kind), which registers itself in companion.games[NAME] = {draw(main, data, t)}.
"use strict";
window.companion = { games: {}, svg, el };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

let latest = null;
const loading = {};

function loadGame(name) {
  if (!loading[name]) {
    loading[name] = true;
    const script = el("script", { src: `/games/${name}.js` });
    script.onload = () => latest && render(latest);
    document.head.append(script);
  }
}

function render(data) {
  latest = data;
  const t = (key) => data.texts[key] ?? key;
  document.documentElement.lang = data.language;
  document.getElementById("title").textContent = data.title;
  document.getElementById("turn").textContent = data.turn ? `${t("turn")}: ${data.turn}` : t("over");
  document.getElementById("pending").textContent = data.pending ? `${t("pending")}: ${data.pending.action}` : "";
  document.getElementById("messages-head").textContent = t("messages");
  const list = document.getElementById("messages");
  list.replaceChildren(
    ...data.messages
      .slice()
      .reverse()
      .map((m) => el("li", { class: m.kind }, m.title, m.todo ? el("span", { class: "todo" }, m.todo) : null)),
  );
  const game = window.companion.games[data.game];
  const main = document.getElementById("game");
  main.dataset.game = data.game;
  if (game) game.draw(main, data, t);
  else loadGame(data.game);
}

function connect() {
  const link = document.getElementById("link");
  const events = new EventSource("/api/events");
  events.onopen = () => (link.textContent = "");
  events.onmessage = (event) => render(JSON.parse(event.data));
  events.onerror = () => (link.textContent = latest ? latest.texts.offline : "…");
}

connect();
