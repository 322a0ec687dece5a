// Seises on the table's page: the four rows of cards as pictures, each named by its suit in the table's words
// (data.suits), the pot, the reserve, and each seat's cards left and score, with the mano and whose turn. Cards
// are drawn from the deck's data (suit and rank).
"use strict";
(() => {
  const { el, svg } = window.companion;
  const SUITS = { O: "#c99a06", C: "#c0392b", E: "#2a5aa8", B: "#2e7d32" };
  const SYMBOL = {
    O: (c) => svg("circle", { cx: 23, cy: 36, r: 11, fill: "none", stroke: c, "stroke-width": 5 }),
    C: (c) => svg("path", { d: "M12 26h22c0 10-5 14-11 14s-11-4-11-14zM21 40h4v8h5v4H16v-4h5z", fill: c }),
    E: (c) => svg("path", { d: "M21 18h4v26h-4zM14 44h18v4H14zM21 48h4v6h-4z", fill: c }),
    B: (c) => svg("path", { d: "M18 20q5-4 10 0l-2 34h-6z", fill: c }),
  };

  function picture(card) {
    const colour = SUITS[card.suit];
    return svg(
      "svg",
      { class: "card", viewBox: "0 0 46 64", "data-card": card.id, role: "img", "aria-label": card.id },
      svg("rect", { x: 1, y: 1, width: 44, height: 62, rx: 5, fill: "#fffdf6", stroke: "#333" }),
      svg("text", { x: 5, y: 15, "font-size": 13, "font-weight": "bold", fill: colour }, String(card.rank)),
      SYMBOL[card.suit](colour),
    );
  }

  function row(suit, name, span, cards) {
    const laid = span
      ? Object.values(cards)
          .filter((c) => c.suit === suit && c.rank >= span[0] && c.rank <= span[1])
          .sort((a, b) => a.rank - b.rank)
          .map(picture)
      : [];
    return el("div", { class: "row", "data-row": suit }, el("span", {}, name), el("div", { class: "cards" }, ...laid));
  }

  function draw(main, data, t) {
    const s = data.state;
    const seats = s.scores.map((score, i) =>
      el(
        "tr",
        { class: s.turn === i + 1 ? "now" : "" },
        el("td", {}, data.seats[i] ?? `${i + 1}`, s.mano === i + 1 ? ` (${t("mano")})` : ""),
        el("td", {}, String(s.hand_sizes[i])),
        el("td", {}, String(score)),
        el("td", {}, s.owed[i] ? String(s.owed[i]) : ""),
      ),
    );
    main.replaceChildren(
      el(
        "div",
        { class: "facts" },
        el("span", {}, `${t("pot")} `, el("b", { id: "pot" }, String(s.pot))),
        el("span", {}, `${t("reserve")} `, el("b", { id: "reserve" }, String(s.reserve))),
        el("span", {}, `${t("hand")} `, el("b", {}, String(s.hand))),
      ),
      ...Object.entries(s.rows).map(([suit, span]) => row(suit, data.suits[suit] ?? suit, span, data.cards)),
      el(
        "table",
        { id: "seats" },
        el("tr", {}, ...[t("seat"), t("cards_left"), t("score"), t("owed")].map((h) => el("th", {}, h))),
        ...seats,
      ),
    );
  }

  window.companion.games.seises = { draw, picture };
})();
