/* The game viewer: replays one record (protocol.md §12) frame by frame from data/records/chunk-K.js. */
"use strict";
let SUMMARY = null;
const RECORDS = {};
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const PLACES = { 2: ["south", "north"], 3: ["south", "west", "east"], 4: ["south", "west", "north", "east"] };
const NAP_BIDS = { one: "One", two: "Two", three: "Three", misere: "Misère", four: "Four", nap: "Nap",
  wellington: "Wellington", bluecher: "Blücher" };
const INDIVIDUAL = new Set(["nap", "five-hand", "call-ace", "seven-hand"]); // each for himself at any table
const viewer = { n: 0, record: null, frames: [], at: 0, show: false };
window.arenaViewer = viewer;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cardText(card) {
  if (card === "JK") return "Joker";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cardEl(card, faceUp = true) {
  const e = el("span", "card");
  if (!faceUp) {
    e.classList.add("back");
    e.title = "hidden";
    return e;
  }
  e.dataset.card = card;
  if (card === "JK") {
    e.classList.add("joker");
    e.append(el("span", "rank", "JK"), el("span", "suit", "★"));
    return e;
  }
  if (card[1] === "H" || card[1] === "D") e.classList.add("red");
  e.append(el("span", "rank", card[0] === "T" ? "10" : card[0]), el("span", "suit", SUITS[card[1]]));
  e.title = cardText(card);
  return e;
}

/* The scoring side of a seat: partners share one in four-hand and six-hand, everyone else plays for himself. */
function sideOf(record, seat) {
  if (INDIVIDUAL.has(record.variant)) return seat;
  const sides = record.options && record.options.sides; // six-hand's teams (stated in its records alone)
  if (sides !== undefined) return seat % (sides === "three_teams_of_two" ? 3 : 2);
  return record.players.length === 4 ? seat % 2 : seat;
}

/* Tables of five to seven: the seats round an ellipse, clockwise from seat 0 at the bottom. */
function ringPlace(box, s, seats, across, down) {
  const angle = Math.PI / 2 + (2 * Math.PI * s) / seats;
  box.classList.add("ring");
  box.style.left = `${50 + across * Math.cos(angle)}%`;
  box.style.top = `${50 + down * Math.sin(angle)}%`;
}

/* Every frame of the game: a snapshot of what the table shows after one more event. */
function buildFrames(record) {
  const frames = [];
  const seats = record.players.length;
  const name = (s) => `${record.players[s]} (seat ${s})`;
  const rubberGames = record.rubber ? record.rubber.games : [];
  let scores = new Array(seats).fill(0);
  const gamePoints = new Array(seats).fill(0);
  record.hands.forEach((hand, h) => {
    if (rubberGames.some((g) => g.first_hand === h)) scores = new Array(seats).fill(0);
    const res = hand.result;
    const hands = hand.deal.hands.map((cards) => cards.slice());
    const state = {
      hand: h, dealer: hand.dealer, hands, upcard: hand.deal.upcard, upcardShown: hand.deal.upcard !== null,
      kitty: hand.deal.kitty,
      // Hasenpfeffer: the widow lies face down until the high bidder takes it (or all hand, when it is unused)
      widow: hand.deal.upcard === null && record.variant !== "nap" ? hand.deal.kitty[0] : null,
      trump: null, maker: null, alone: false, sittingOut: [], defender: null, table: [], trickWinner: null,
      tricks: [], scores: scores.slice(), gamePoints: gamePoints.slice(), kind: "deal", text: "",
    };
    const push = (kind, text, extra = {}) => {
      frames.push({ ...state, hands: state.hands.map((c) => c.slice()), table: state.table.slice(),
        tricks: state.tricks.slice(), scores: state.scores.slice(), gamePoints: state.gamePoints.slice(), kind, text,
        ...extra });
    };
    const nap = record.variant === "nap";
    push("deal", nap  // Nap: five cards each, the rest of the pack set aside unseen
      ? `Hand ${h + 1}: ${name(hand.dealer)} deals five cards each; the rest of the pack is set aside.`
      : hand.deal.upcard === null  // Hasenpfeffer: six cards each, the widow face down
      ? `Hand ${h + 1}: ${name(hand.dealer)} deals six cards each; the widow lies face down.`
      : `Hand ${h + 1}: ${name(hand.dealer)} deals; the upcard is ${cardText(hand.deal.upcard)}.`);
    let trick = 0;
    let bidding = true;
    let passes = 0;
    let given = false; // Railroad: a card was passed on a call for best (a discard after it is the caller's)
    const take = (seat, card) => {
      const i = state.hands[seat].indexOf(card);
      if (i >= 0) state.hands[seat].splice(i, 1);
    };
    const endBidding = () => {
      if (!bidding) return;
      bidding = false;
      state.trump = res.trump;
      state.maker = res.maker;
      state.alone = res.alone;
      state.defender = res.defender_alone;
      if (res.alone && seats === 4 && res.maker !== null) state.sittingOut = [(res.maker + 2) % 4];
    };
    for (const action of hand.actions) {
      const who = name(action.seat);
      const alone = action.alone ? " and goes alone" : "";
      if (action.type === "pass") {
        passes += 1;
        if (passes === seats && state.upcardShown) {
          state.upcardShown = false;
          push("bid", `${who} passes; the upcard ${cardText(hand.deal.upcard)} is turned down.`);
        } else {
          push("bid", `${who} passes.`);
        }
      } else if (action.type === "order_up") {
        endBidding();
        push("bid", `${who} orders up ${cardText(hand.deal.upcard)}${alone}.`);
      } else if (action.type === "call") {
        state.upcardShown = false;
        endBidding();
        push("bid", `${who} calls ${SUIT_NAMES[action.suit]} ${SUITS[action.suit]}${alone}.`);
      } else if (action.type === "name_trump") {
        endBidding();
        push("bid", `${who} names ${SUIT_NAMES[action.suit]} ${SUITS[action.suit]} trump.`);
      } else if (action.type === "defend_alone") {
        state.defender = action.seat;
        if (seats === 4) state.sittingOut = [...state.sittingOut, (action.seat + 2) % 4]; // his partner too
        push("bid", `${who} defends alone.`);
      } else if (action.type === "call_partner") {
        push("bid", `${who} calls ${action.cards.map(cardText).join(" and ")}: its holder is his secret partner.`);
      } else if (action.type === "go_alone") {
        state.alone = true;
        push("bid", `${who} calls no partner and plays alone.`);
      } else if (action.type === "bid") {
        push("bid", `${who} bids ${action.tricks}.`);
      } else if (action.type === "nap_bid") {
        push("bid", `${who} bids ${NAP_BIDS[action.contract] || action.contract}.`);
      } else if (action.type === "declare") {
        const widow = hand.deal.kitty[0];
        state.widow = null;
        state.hands[action.seat].push(widow);
        take(action.seat, action.discard);
        endBidding();
        push("exchange", `${who} takes the widow ${cardText(widow)} (he alone sees it), names ` +
          `${SUIT_NAMES[action.suit]} ${SUITS[action.suit]} trump and puts away ${cardText(action.discard)}.`);
      } else if (action.type === "call_for_best") {
        if (action.card) take(action.seat, action.card);
        const away = action.card ? `, putting away ${cardText(action.card)} (he alone sees it)` : "";
        push("exchange", `${who} calls for his partner's best${away}.`);
      } else if (action.type === "give_best") {
        const receiver = (action.seat + 2) % 4;
        take(action.seat, action.card); // (or the upcard, given by a dealer who sat out: it leaves the table)
        if (action.card === hand.deal.upcard) state.upcardShown = false;
        state.hands[receiver].push(action.card);
        given = true;
        push("exchange", `${who} passes ${cardText(action.card)} to ${name(receiver)} (only the two of them see it).`);
      } else if (action.type === "discard" && given) {
        take(action.seat, action.card);
        push("exchange", `${who} puts away ${cardText(action.card)} (he alone sees it).`);
      } else if (action.type === "discard") {
        const cards = state.hands[action.seat];
        let text = `${who} discards ${cardText(action.card)}.`;
        if (state.upcardShown && !cards.includes(hand.deal.upcard)) {
          cards.push(hand.deal.upcard);
          text = `${who} picks up ${cardText(hand.deal.upcard)} and discards ${cardText(action.card)}.`;
        }
        const i = cards.indexOf(action.card);
        if (i >= 0) cards.splice(i, 1);
        state.upcardShown = false;
        push("exchange", text);
      } else if (action.type === "play") {
        endBidding();
        state.upcardShown = false;
        if (state.trickWinner !== null) {
          state.table = [];
          state.trickWinner = null;
        }
        const cards = state.hands[action.seat];
        const i = cards.indexOf(action.card);
        if (i >= 0) cards.splice(i, 1);
        state.table.push({ seat: action.seat, card: action.card });
        if (action.trump) state.trump = action.trump; // Nap: the joker led names trump
        const t = res.tricks[trick];
        if (t && state.table.length === t.cards.length) {
          state.trickWinner = t.winner;
          state.tricks.push({ winner: t.winner, cards: state.table.slice() });
          trick += 1;
          push("trick", `${who} plays ${cardText(action.card)}: trick ${trick} to ${name(t.winner)}.`);
        } else {
          push("play", `${who} plays ${cardText(action.card)}.`);
        }
      } else {
        push("other", `${who}: ${action.type}.`);
      }
    }
    state.table = [];
    state.trickWinner = null;
    state.scores = res.scores_after.slice();
    scores = res.scores_after.slice();
    let text;
    if (res.passed_out) {
      text = `Hand ${h + 1}: everyone passed; no points.`;
    } else {
      const makers = res.partners ? [res.maker, ...res.partners] : null; // call-partner: the maker and his partners
      const taken = state.tricks.filter((t) => (makers ? makers.includes(t.winner)
        : sideOf(record, t.winner) === sideOf(record, res.maker))).length;
      const pts = res.points.map((p, s) => (p ? `${record.players[s]} (seat ${s}) ${p > 0 ? "+" : ""}${p}` : null))
        .filter(Boolean);
      const who = nap ? "the declarer" : "the makers";
      text = `Hand ${h + 1}: ${who} took ${taken} of ${state.tricks.length} tricks; ${pts.join(", ") || "no points"}.`;
    }
    const game = rubberGames.find((g) => g.last_hand === h);
    if (game) game.winners.forEach((s) => { gamePoints[s] += game.game_points; });
    state.gamePoints = gamePoints.slice();
    if (game) text += ` Rubber game ${rubberGames.indexOf(game) + 1} ends ${game.final_scores.join("–")}; ` +
      `${game.winners.map((s) => record.players[s]).join(", ")} score ${game.game_points} game points.`;
    push("hand-end", text);
  });
  const last = frames.length ? frames[frames.length - 1] : null;
  const end = {
    hand: record.hands.length, dealer: null, hands: [], upcard: null, upcardShown: false, kitty: [], widow: null,
    trump: null,
    maker: null, alone: false, sittingOut: [], defender: null, table: [], trickWinner: null,
    tricks: last ? last.tricks : [], scores: record.final_scores.slice(), kind: "game-end",
    gamePoints: record.rubber ? record.rubber.game_points.slice() : gamePoints,
  };
  const lines = [];
  if (record.forfeit) {
    const f = record.forfeit;
    lines.push(`${name(f.seat)} forfeits in hand ${f.hand_number + 1}` +
      `${f.kind ? ` (${f.kind}${f.detail ? ": " + f.detail : ""})` : ""} after ${f.actions.length} actions` +
      `${f.actions.length ? ": " + f.actions.map((a) => `${a.seat} ${a.type}${a.card ? " " + a.card : ""}`).join(", ") : ""}.`);
  }
  if (record.drawn) lines.push(`Drawn at the hand limit after ${record.drawn.hand_number} hands.`);
  const winners = [...new Set(record.winners.map((s) => record.players[s]))];
  lines.push(`Final score ${record.final_scores.join("–")}; ${winners.length ? "won by " + winners.join(" and ") : "no winner"}.`);
  if (record.rubber) lines.push(`Rubber game points ${record.rubber.game_points.join("–")}, points ${record.rubber.points.join("–")}.`);
  frames.push({ ...end, text: lines.join(" ") });
  return frames;
}

function renderTable(record, f) {
  const table = document.getElementById("table");
  table.replaceChildren();
  const seats = record.players.length;
  table.className = `seats-${seats}`;
  const places = PLACES[seats] || [];
  for (let s = 0; s < seats; s++) {
    const box = el("div", `seat ${places[s] || ""}`);
    if (!places[s]) ringPlace(box, s, seats, 36, 40);
    box.dataset.seat = s;
    if (f.sittingOut.includes(s)) box.classList.add("out");
    const label = el("div", "who");
    label.append(el("b", "", record.players[s]), el("span", "", ` seat ${s}`));
    if (f.dealer === s) label.append(el("span", "tag", "dealer"));
    if (f.maker === s) label.append(el("span", "tag maker", f.alone ? "maker, alone" : "maker"));
    if (f.defender === s) label.append(el("span", "tag", "defends alone"));
    if (f.sittingOut.includes(s)) label.append(el("span", "tag", "sits out"));
    box.append(label);
    const cards = el("div", "cards");
    for (const c of f.hands[s] || []) cards.append(cardEl(c, viewer.show));
    box.append(cards);
    table.append(box);
  }
  const centre = el("div", "centre");
  if (f.upcardShown && f.upcard) {
    const up = el("div", "upcard");
    up.append(el("small", "", "upcard"), cardEl(f.upcard));
    if (viewer.show && f.kitty.length) {
      const kitty = el("div", "kitty");
      kitty.append(el("small", "", "kitty"));
      f.kitty.forEach((c) => kitty.append(cardEl(c)));
      up.append(kitty);
    }
    centre.append(up);
  }
  if (f.widow) { // face down, as at the table, but when every hand is shown
    const widow = el("div", "upcard widow");
    widow.append(el("small", "", "widow"), cardEl(f.widow, viewer.show));
    centre.append(widow);
  }
  const played = el("div", "played");
  for (const p of f.table) {
    const slot = el("div", `slot ${places[p.seat] || ""}`);
    if (!places[p.seat]) ringPlace(slot, p.seat, seats, 38, 36);
    const c = cardEl(p.card);
    if (f.trickWinner === p.seat) c.classList.add("winner");
    slot.append(c);
    played.append(slot);
  }
  centre.append(played);
  if (f.trump) centre.append(el("div", "trump", `trump ${SUITS[f.trump] || f.trump}`));
  table.append(centre);
}

function render() {
  const record = viewer.record;
  if (!record) return;
  const f = viewer.frames[viewer.at];
  renderTable(record, f);
  const scores = document.getElementById("scores");
  scores.replaceChildren();
  record.players.forEach((p, s) => {
    const tr = el("tr");
    tr.append(el("td", "", `${p} (${s})`));
    const td = el("td", "num score", String(f.scores[s]));
    td.dataset.seat = s;
    tr.append(td);
    if (record.rubber) {
      const gp = el("td", "num game-points", String(f.gamePoints[s]));
      gp.title = "rubber game points";
      tr.append(gp);
    }
    scores.append(tr);
  });
  if (record.rubber) {
    const head = el("tr");
    head.append(el("th", "", "seat"), el("th", "", "score"), el("th", "", "game pts"));
    scores.prepend(head);
  }
  const info = document.getElementById("hand-info");
  info.textContent = f.kind === "game-end" ? "Game over" : `Hand ${f.hand + 1} of ${record.hands.length}` +
    (f.trump ? ` · trump ${SUIT_NAMES[f.trump] || f.trump}` : "");
  const tricks = document.getElementById("tricks");
  tricks.replaceChildren();
  f.tricks.forEach((t, i) => {
    const li = el("li", "", `${record.players[t.winner]} (seat ${t.winner}): `);
    for (const p of t.cards) {
      const c = el("span", p.seat === t.winner ? "mini won" : "mini", cardText(p.card));
      if (p.card[1] === "H" || p.card[1] === "D") c.classList.add("red");
      c.title = `seat ${p.seat}`;
      li.append(c);
    }
    li.dataset.winner = t.winner;
    li.dataset.trick = i;
    tricks.append(li);
  });
  const box = document.getElementById("violations");
  box.replaceChildren();
  const vs = record.violations || [];
  if (vs.length) {
    box.append(el("h3", "", `Violations (${vs.length})`));
    const ul = el("ul");
    for (const v of vs) {
      const li = el("li", v.hand_number === f.hand ? "now" : "", `hand ${v.hand_number + 1}, ${record.players[v.seat]} (seat ${v.seat}): ${v.kind} — ${v.detail}`);
      li.dataset.kind = v.kind;
      if (v.excerpt) li.append(el("code", "", v.excerpt));
      ul.append(li);
    }
    box.append(ul);
  }
  const event = document.getElementById("event");
  event.textContent = f.text;
  event.dataset.kind = f.kind;
  document.getElementById("step-label").textContent = `step ${viewer.at + 1} / ${viewer.frames.length}`;
  const log = document.getElementById("log");
  log.replaceChildren();
  viewer.frames.forEach((g, i) => {
    if (g.hand === f.hand && i <= viewer.at) log.append(el("li", i === viewer.at ? "now" : "", g.text));
  });
  const root = document.getElementById("viewer");
  root.dataset.frame = viewer.at;
  root.dataset.frames = viewer.frames.length;
  root.dataset.n = viewer.n;
  document.getElementById("back").disabled = viewer.at === 0;
  document.getElementById("forward").disabled = viewer.at === viewer.frames.length - 1;
  document.getElementById("prev-game").disabled = viewer.n <= 0;
  document.getElementById("next-game").disabled = viewer.n >= SUMMARY.games - 1;
}

function go(at) {
  viewer.at = Math.max(0, Math.min(at, viewer.frames.length - 1));
  render();
}

function handStart(dir) {
  const f = viewer.frames;
  let i = viewer.at + dir;
  while (i > 0 && i < f.length - 1 && f[i].kind !== "deal") i += dir;
  go(i);
}

function arenaRecords(list) {
  for (const item of list) RECORDS[item.n] = item;
  if (RECORDS[viewer.n] && !viewer.record) openGame(viewer.n);
}

function openGame(n) {
  viewer.n = n;
  const item = RECORDS[n];
  if (!item) {
    viewer.record = null;
    document.getElementById("game-title").textContent = "loading…";
    const s = document.createElement("script");
    s.src = `data/records/chunk-${Math.floor(n / SUMMARY.chunkSize)}.js`;
    document.head.appendChild(s);
    return;
  }
  viewer.record = item.record;
  viewer.frames = buildFrames(item.record);
  viewer.at = 0;
  const r = item.record;
  document.getElementById("game-title").textContent =
    `Game ${item.id} (${item.key}) · ${r.variant} · ${r.players.join(" · ")} · seed ${r.seed}`;
  document.title = `Game ${item.id} · Euchre Arena`;
  history.replaceState(null, "", `${location.pathname}?n=${n}`);
  render();
  document.body.dataset.ready = "1";
}

function arenaSummary(summary) {
  SUMMARY = summary;
  const n = parseInt(new URLSearchParams(location.search).get("n"), 10) || 0;
  const bind = (id, f) => document.getElementById(id).addEventListener("click", f);
  bind("first", () => go(0));
  bind("last", () => go(viewer.frames.length - 1));
  bind("back", () => go(viewer.at - 1));
  bind("forward", () => go(viewer.at + 1));
  bind("prev-hand", () => handStart(-1));
  bind("next-hand", () => handStart(1));
  bind("prev-game", () => { document.body.dataset.ready = ""; openGame(viewer.n - 1); });
  bind("next-game", () => { document.body.dataset.ready = ""; openGame(viewer.n + 1); });
  const toggle = document.getElementById("show-hands");
  toggle.addEventListener("change", () => { viewer.show = toggle.checked; render(); });
  document.addEventListener("keydown", (e) => {
    if (!viewer.record || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: () => go(viewer.at + 1), ArrowLeft: () => go(viewer.at - 1), Home: () => go(0),
      End: () => go(viewer.frames.length - 1), PageDown: () => handStart(1), PageUp: () => handStart(-1),
      h: () => toggle.click(), H: () => toggle.click(),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  openGame(Math.max(0, Math.min(n, summary.games - 1)));
}
