// The settings page: pairs this phone with the code the table's screen shows, then changes the table through
// POSTs the referee takes as it takes the menu's choices. Refusals (403: not paired) are shown as the table words them.
"use strict";

let settings = null; // what /api/settings said last
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function say(text, kind) {
  const said = $("said");
  said.textContent = text;
  said.className = kind;
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    say(answer.error, "refused");
    return null;
  }
  say(settings.texts.done, "done");
  await load(true);
  return answer;
}

function options(select, items, chosen) {
  select.replaceChildren(...items.map((item) => el("option", { value: item.value }, item.label)));
  select.value = String(chosen);
  if (select.selectedIndex < 0) select.selectedIndex = 0;
}

// Only playable combinations: the decks of the chosen game, the player counts of the chosen deck.
function fillGame(chosen) {
  const game = settings.games.find((g) => g.name === chosen.game) || settings.games[0];
  options($("game"), settings.games.map((g) => ({ value: g.name, label: g.label })), game.name);
  const deck = game.decks.find((d) => d.name === chosen.deck) || game.decks[0];
  options($("deck"), game.decks.map((d) => ({ value: d.name, label: d.label })), deck.name);
  options($("players"), deck.players.map((p) => ({ value: p.n, label: p.label })), chosen.players);
}

// The games this table's zones cannot play are not offered: say why each is missing.
function fillMissing() {
  const said = (game) => settings.texts.missing.replace("{game}", game.label).replace("{why}", game.why);
  $("missing-games").replaceChildren(...settings.missing.map((game) => el("li", { "data-game": game.name }, said(game))));
}

function chosenGame() {
  return { game: $("game").value, deck: $("deck").value, players: Number($("players").value), language: $("language").value };
}

function fillSeats() {
  const seats = settings.seats;
  const form = $("seats-form");
  $("seats-note").textContent = seats.named ? settings.texts.seats_note : settings.texts.seats_unnamed;
  if (!seats.named) return form.replaceChildren();
  const inputs = Array.from({ length: seats.players }, (_, i) =>
    el("input", { name: "seat", maxlength: "20", value: seats.names[i] || "", "aria-label": `${i + 1}` }),
  );
  form.replaceChildren(...inputs, el("button", { id: "save-seats" }, settings.texts.save));
}

// The enrollment: the card to lay, how far the deck is, and each read (enrolled, or refused and why).
function fillEnrollment() {
  const enrolling = settings.enrollment;
  const t = settings.texts;
  document.body.classList.toggle("enrolling", !!enrolling?.on);
  $("enrolling").hidden = !enrolling;
  if (!enrolling) return;
  $("progress").textContent = `${enrolling.deck}: ${enrolling.done}/${enrolling.total}`;
  $("card").textContent = enrolling.failed || (enrolling.card ? `${t.lay}: ${enrolling.card.name}` : t.all_enrolled);
  $("card").dataset.card = enrolling.card ? enrolling.card.id : "";
  $("reads").replaceChildren(
    ...enrolling.reads
      .slice()
      .reverse()
      .map((read) =>
        el(
          "li",
          { class: read.refused ? "refused" : "accepted", "data-card": read.card },
          read.refused ? `${read.zone}: ${read.refused}` : `${read.zone}: ${read.name} — ${t.bound}`,
        ),
      ),
  );
}

async function load(refill) {
  const response = await fetch("/api/settings");
  settings = await response.json();
  const t = settings.texts;
  document.documentElement.lang = settings.language;
  document.body.classList.toggle("paired", settings.paired);
  document.querySelectorAll("[data-text]").forEach((node) => (node.textContent = t[node.dataset.text]));
  sure($("start").dataset.sure === "yes");
  $("settings-head").textContent = t.settings;
  $("table-link").textContent = t.table;
  if (refill) {
    fillGame(settings.game);
    options($("language"), settings.languages.map((l) => ({ value: l.name, label: l.label })), settings.game.language);
    fillSeats();
  }
  $("voice").hidden = !settings.speech; // a table with no voice offers none
  if (settings.speech) {
    options($("speech"), settings.speech.levels.map((l) => ({ value: l.name, label: l.label })), settings.speech.level);
    $("mute").textContent = settings.speech.mute ?? ""; // a voice switched on that cannot sound: what to do
    $("mute").hidden = !settings.speech.mute || settings.speech.level === "off";
  }
  fillMissing();
  fillEnrollment();
  document.body.dataset.ready = "yes";
}

$("pair-form").onsubmit = async (event) => {
  event.preventDefault();
  if (await post("/api/pair", { code: $("code").value })) say(settings.texts.paired, "done");
};
// «Start» ends the game being played: the first tap asks, a second one starts the new game (as the menu's second
// OK); changing a choice takes the question back.
function sure(asking) {
  $("start").dataset.sure = asking ? "yes" : "";
  $("start").textContent = asking ? settings.texts.start_sure : settings.texts.start;
}
$("game").onchange = () => (sure(false), fillGame(chosenGame()));
$("deck").onchange = () => (sure(false), fillGame(chosenGame()));
$("players").onchange = $("language").onchange = () => sure(false);
$("game-form").onsubmit = (event) => {
  event.preventDefault();
  const asked = $("start").dataset.sure === "yes";
  sure(!asked);
  if (asked) post("/api/game", chosenGame());
};
$("seats-form").onsubmit = (event) => {
  event.preventDefault();
  post("/api/seats", { names: [...$("seats-form").querySelectorAll("input")].map((input) => input.value) });
};
$("speech").onchange = () => post("/api/speech", { level: $("speech").value });
$("enroll").onclick = () => post("/api/enroll", {});
$("stop-enrolling").onclick = () => post("/api/enroll/stop", {});

// Whatever changes at the table (a read, a new game) is pushed as the table's page gets it: read the settings again.
new EventSource("/api/events").onmessage = () => settings && load(false);

load(true);
