// The table's page: draws what /api/events pushes. What is game-specific is drawn by the game's own script
// (/games/NAME.js, supplied by its kind), which registers itself in companion.games[NAME] = {draw, picture}.
// At a virtual table (/api/virtual says so) the page is also a hand: it lays cards from the hand on a zone, lifts
// them and presses the buttons, through POSTs that reach the simulated readers and mock pins, never the referee.
// The OLED is mirrored: each frame its driver was sent comes as an "oled" event, its bits drawn on a canvas.
// The phone speaks: what the table's voice says of each event comes as a "speech" event, which the browser's speech
// synthesis says once a tap switched it on (browsers speak only after one).
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
  document.getElementById("turn").textContent = headline(data, t);
  document.getElementById("pending").textContent = data.pending ? `${t("pending")}: ${data.pending.said}` : "";
  document.getElementById("settings-link").textContent = t("settings");
  document.getElementById("messages-head").textContent = t("messages");
  drawVoice(t);
  drawAlert(data);
  document.getElementById("oled").setAttribute("aria-label", t("oled"));
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
  virtual = data.virtual ?? null;
  if (!game) return loadGame(data.game); // drawn once it is loaded: the cards are its pictures
  game.draw(main, data, t);
  drawPlays(data, t);
  drawVirtual();
}

// Whose turn; once over, the winner and the rule that named them (a draw: "Over"); after a part of the game that
// did not end it (a 6º SET set, a Seises hand: a milestone), its result and that the game goes on.
function headline(data, t) {
  if (!data.turn) {
    if (!data.result) return t("over");
    return `${t(data.winner === null ? "over" : "winner")}: ${data.result}`;
  }
  const turn = `${t("turn")}: ${data.turn}`;
  return data.message?.milestone ? `${data.message.title}, ${t("goes_on")}. ${turn}` : turn;
}

// A refusal (a red or amber zone) said at the top, where a phone shows it; at a virtual table it is beside the
// zone itself.
const REFUSED = ["illegal", "unknown"];
function refusal(data) {
  const m = data.message;
  const lit = Object.values(data.lights).some((light) => REFUSED.includes(light));
  return m && lit ? [m.title, m.todo ? el("span", { class: "todo" }, m.todo) : null] : null;
}

function drawAlert(data) {
  const said = virtual ? null : refusal(data);
  document.getElementById("alert").replaceChildren(...(said ?? []));
}

// The OLED's frame: its bits, a row after another, 8 pixels a byte, the leftmost the highest bit.
function drawOled(frame) {
  const canvas = document.getElementById("oled");
  canvas.width = frame.width;
  canvas.height = frame.height;
  const bits = Uint8Array.from(atob(frame.bits), (c) => c.charCodeAt(0));
  const image = new ImageData(frame.width, frame.height);
  const stride = Math.ceil(frame.width / 8);
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0; x < frame.width; x++) {
      const lit = (bits[y * stride + (x >> 3)] >> (7 - (x & 7))) & 1;
      const at = (y * frame.width + x) * 4;
      image.data.set(lit ? [255, 255, 255, 255] : [0, 0, 0, 255], at);
    }
  }
  canvas.getContext("2d").putImageData(image, 0, 0);
  canvas.hidden = false;
}

// A card's picture, as its game draws it.
function picture(id) {
  return window.companion.games[latest.game].picture(latest.cards[id]);
}

// The game's history: its last plays, newest first, numbered from the first, each with who made it.
function drawPlays(data, t) {
  document.getElementById("plays-head").textContent = `${t("plays")} (${data.play_count})`;
  const first = data.play_count - data.plays.length + 1;
  const items = data.plays.map((play, i) => {
    const words = play.split(" ");
    const what = words[0] === "play" ? picture(words[words.length - 1]) : el("span", {}, t(words[0]));
    return el("li", { value: first + i, "data-play": play }, el("span", { class: "who" }, data.players[i]), what);
  });
  document.getElementById("plays").replaceChildren(...items.reverse());
}

// ---- the virtual table ------------------------------------------------------------------------------------------

let virtual = null; // the hand, the zones and the cards lying on them (/api/virtual), pushed with every change
let chosen = null; // the zone the hand lays on
let drawn = ""; // what the hand and the pads were last drawn from: a tap must not lose its card to a redraw

async function act(what, body) {
  const answer = await fetch(`/api/virtual/${what}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  document.getElementById("refused").textContent = answer.ok ? "" : await answer.text();
  if (answer.ok) {
    virtual = await answer.json(); // at once; the table's answer follows through /api/events
    drawVirtual();
  }
}

function drawVirtual() {
  const box = document.getElementById("virtual");
  box.hidden = !(virtual && latest && window.companion.games[latest.game]);
  if (box.hidden) return;
  const t = (key) => latest.texts[key] ?? key;
  const zones = Object.keys(virtual.zones);
  if (!zones.includes(chosen)) chosen = zones[0];
  const now = JSON.stringify([virtual, chosen, latest.lights, latest.message, latest.language]);
  if (now === drawn) return;
  drawn = now;
  document.getElementById("seat").textContent = virtual.wait ?? t("your_turn");
  box.classList.toggle("waiting", virtual.wait !== null);
  const lift = (id) => {
    const card = picture(id);
    card.addEventListener("click", (event) => {
      event.stopPropagation();
      act("lift", { card: id });
    });
    return card;
  };
  const why = refusal(latest); // beside the zone that turned red
  document.getElementById("zones").replaceChildren(
    ...zones.map((zone) => {
      const head = latest.cards[virtual.heads[zone]] ? virtual.heads[zone] : null; // a card heads it, not a role
      const light = latest.lights[zone] ?? "off";
      const pad = el(
        "div",
        { class: zone === chosen ? "zone chosen" : "zone", "data-zone": zone, "data-light": light },
        el("span", {}, zone, head ? el("br") : null, head ? picture(head) : null),
        el("div", { class: "cards" }, ...virtual.zones[zone].map(lift)),
        why && REFUSED.includes(light) ? el("p", { class: "why" }, ...why) : null,
      );
      pad.addEventListener("click", () => {
        chosen = zone;
        drawVirtual();
      });
      return pad;
    }),
  );
  document.getElementById("hand-head").textContent = t("your_hand");
  document.getElementById("hand").replaceChildren(
    ...virtual.hand.map((id) => {
      const card = picture(id);
      card.addEventListener("click", () => act("lay", { card: id, zone: chosen }));
      return card;
    }),
  );
  for (const button of document.querySelectorAll("#buttons button")) {
    button.textContent = t(`btn_${button.dataset.button}${button.dataset.long ? "_long" : ""}`);
    button.onclick = () => act("press", { button: button.dataset.button, long: !!button.dataset.long });
  }
  document.getElementById("how").textContent = t("how");
}

// ---- the phone's voice -----------------------------------------------------------------------------------------

// Off until a tap; each tap moves to the next level, as the table's menu lists them: "rulings" says the refusals
// and the results, "all" the turns and the notices too. Which is said next is chosen as the table's voice chooses
// (companion/speech/queue.py): the newest ruling first, a newer refusal replacing an older one, a turn or a notice
// dropped once anything newer comes, and one being said cut short by a ruling.
const LEVELS = ["off", "rulings", "all"];
const RULINGS = ["refusal", "result"];
let level = "off";
let speaking = null; // the sentence being said
let rulings = []; // waiting, in the order they came: the newest is said first
let chatter = []; // the turns and the notices waiting, oldest first

function drawVoice(t) {
  const button = document.getElementById("voice");
  button.hidden = !("speechSynthesis" in window);
  button.textContent = `${t("speech")}: ${t(level)}`;
  button.setAttribute("aria-pressed", String(level !== "off"));
}

function switchVoice() {
  level = LEVELS[(LEVELS.indexOf(level) + 1) % LEVELS.length];
  if (level === "off") hush();
  if (latest) drawVoice((key) => latest.texts[key] ?? key);
}

function hush() {
  rulings = [];
  chatter = [];
  speaking = null;
  speechSynthesis.cancel();
}

function hear(said) {
  if (level === "off") return; // nothing is said before the tap
  for (const item of said) {
    if (level === "rulings" && !RULINGS.includes(item.weight)) continue;
    if (RULINGS.includes(item.weight)) {
      chatter = []; // said before the ruling, it is stale after it
      if (item.weight === "refusal") rulings = rulings.filter((waiting) => waiting.weight !== "refusal");
      rulings.push(item);
      if (speaking && !RULINGS.includes(speaking.weight)) {
        speaking = null; // a turn being said is cut short: the ruling is newer
        speechSynthesis.cancel();
      }
    } else {
      if (item.weight === "turn") chatter = chatter.filter((waiting) => waiting.weight !== "turn");
      chatter.push(item);
    }
  }
  if (!speaking) sayNext();
}

function sayNext() {
  const item = rulings.pop() ?? chatter.shift() ?? null;
  speaking = item;
  if (!item) return;
  const utterance = new SpeechSynthesisUtterance(item.text);
  utterance.lang = item.lang; // the table's language: the browser takes a voice of it
  const voice = speechSynthesis.getVoices().find((v) => v.lang.split("-")[0] === item.lang);
  if (voice) utterance.voice = voice;
  utterance.onend = utterance.onerror = () => speaking === item && sayNext();
  speechSynthesis.speak(utterance);
}

function connect() {
  const link = document.getElementById("link");
  const events = new EventSource("/api/events");
  events.onopen = () => (link.textContent = "");
  events.onmessage = (event) => render(JSON.parse(event.data));
  events.addEventListener("oled", (event) => drawOled(JSON.parse(event.data)));
  events.addEventListener("speech", (event) => hear(JSON.parse(event.data)));
  events.onerror = () => (link.textContent = latest ? latest.texts.offline : "…");
}

document.getElementById("voice").addEventListener("click", switchVoice);
connect();
