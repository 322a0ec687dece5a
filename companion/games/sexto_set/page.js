// 6º SET on the table's page: the 8 lines, each headed by its master card, with the cards placed on it, who
// leads it and each pair's count; the draw pile, the cards each pair holds, the master cards each leads in the set
// and has won over the match, and the sets won (the figures the screen's footer and history give).
// Cards are drawn from the deck's data: dots and colours of a card's two ends (a master card: its own dots).
"use strict";
(() => {
  const { el, svg } = window.companion;
  const COLOURS = { R: "#c0392b", B: "#222" };

  function dots(end, y) {
    const count = Number(end.slice(0, -1)) || 0;
    const colour = COLOURS[end.slice(-1)];
    const shapes = [];
    for (let i = 0; i < count; i++) {
      shapes.push(svg("circle", { cx: 8 + (i % 2) * 30, cy: y + Math.floor(i / 2) * 10, r: 4, fill: colour }));
    }
    return shapes;
  }

  function picture(card) {
    const face = [svg("rect", { x: 1, y: 1, width: 44, height: 62, rx: 5, fill: "#fffdf6", stroke: "#333" })];
    if (card.kind === "master") {
      const end = `${card.dots}${card.color === "red" ? "R" : "B"}`;
      face.push(svg("rect", { x: 5, y: 5, width: 36, height: 54, rx: 3, fill: "none", stroke: COLOURS[end.slice(-1)], "stroke-width": 3 }));
      face.push(...dots(end, 22));
    } else if (card.ends) {
      face.push(svg("line", { x1: 4, y1: 32, x2: 42, y2: 32, stroke: "#bbb" }));
      face.push(...dots(card.ends[0], 9), ...dots(card.ends[1], 42));
    } else {
      face.push(svg("text", { x: 23, y: 37, "font-size": 10, "text-anchor": "middle", fill: "#666" }, card.id));
    }
    return svg("svg", { class: "card", viewBox: "0 0 46 64", "data-card": card.id, role: "img", "aria-label": card.id }, ...face);
  }

  function draw(main, data, t) {
    const s = data.state;
    const lines = Object.entries(s.lines).map(([master, placed]) => {
      const count = (pair) => placed.filter((p) => p.pair === pair).length;
      const leader = s.masters[master];
      return el(
        "div",
        { class: "row", "data-line": master },
        picture(data.cards[master]),
        el("span", {}, leader ? `${t("leader")} ${leader}` : "", el("br"), `A ${count("A")} · B ${count("B")}`),
        el("div", { class: "cards" }, ...placed.map((p) => picture(data.cards[p.card]))),
      );
    });
    const pairs = ["A", "B"].map((pair) =>
      el(
        "tr",
        { class: s.turn === pair ? "now" : "" },
        el("td", {}, pair),
        el("td", {}, String(s.held[pair])),
        el("td", {}, String(s.masters_won[pair])),
        el("td", {}, String(s.match.master_cards[pair])),
        el("td", {}, String(s.match.sets[pair])),
      ),
    );
    main.replaceChildren(
      el("div", { class: "facts" }, el("span", {}, `${t("draw_pile")} `, el("b", { id: "draw-pile" }, String(s.draw_pile)))),
      ...lines,
      el(
        "table",
        { id: "pairs" },
        el("tr", {}, ...["", t("held"), t("masters"), t("match_masters"), t("sets")].map((h) => el("th", {}, h))),
        ...pairs,
      ),
    );
  }

  window.companion.games["sexto-set"] = { draw, picture };
})();
