#!/usr/bin/env node
// An example Euchre Arena bot in Node.js (20+, no npm packages) for the "stdio" transport.
//
// Every message is one line of compact JSON: the bot writes hello, then reads referee messages from stdin and
// answers each `act` with one element of its `legal` list on stdout. Diagnostics go to stderr (the bot's log).
// The strategy is a small rule set: bid on counted trump strength, pull trump as maker, win tricks cheaply,
// throw the least useful card. It is deterministic and reads everything it needs from each request's `view`.
//
// Run: node bots/node/euchre_bot.js   (the referee sets ARENA_TRANSPORT=stdio and ARENA_TOKEN)
"use strict";

const readline = require("readline");

const RANKS = "789TJQKA"; // rank index 0..7; 7 and 8 exist only in the 32-card deck
const SUITS = "CDHS"; // suit index 0..3; C/S and D/H are the same colour, so the other jack of trump's colour is 3 - t
const JACK = 4;
const ACE = 7;

// ---- cards: "9C", "TD", "JH", "AS" and "JK" (the joker, the Benny) ----

const rank = (c) => (c === "JK" ? 8 : RANKS.indexOf(c[0]));
const suit = (c) => (c === "JK" ? -1 : SUITS.indexOf(c[1]));
const cardId = (c) => (c === "JK" ? 32 : rank(c) * 4 + suit(c)); // the protocol's sort order

// The suit a card belongs to once trump is known: the Benny and the left bower are trump.
function effSuit(c, trump) {
  if (c === "JK") return trump;
  if (rank(c) === JACK && suit(c) === 3 - trump) return trump;
  return suit(c);
}

// Strength among trumps (Benny 100, right bower 99, left bower 98, then 50 + rank), -1 for a non-trump.
function trumpPower(c, trump) {
  if (c === "JK") return 100;
  if (rank(c) === JACK && suit(c) === trump) return 99;
  if (rank(c) === JACK && suit(c) === 3 - trump) return 98;
  return suit(c) === trump ? 50 + rank(c) : -1;
}

// How strongly a card competes in a trick led in suit `led`; -1 when it cannot win it.
function power(c, trump, led) {
  const p = trumpPower(c, trump);
  if (p >= 0) return p;
  return effSuit(c, trump) === led ? rank(c) : -1;
}

function deck(size) {
  const cards = [];
  for (let r = size === 32 ? 0 : 2; r < 8; r++) for (const s of SUITS) cards.push(RANKS[r] + s);
  if (size === 25) cards.push("JK");
  return cards;
}

// ---- hand evaluation ----

const TOP_TRUMP = { 100: 1.0, 99: 1.0, 98: 0.85, 57: 0.75, 56: 0.6, 55: 0.5 }; // expected tricks per trump
const NEEDED = { 2: 2.0, 3: 3.0, 4: 2.2 }; // tricks a maker wants from his own hand (a partner adds some)
const ALONE = 3.5;
const DEFEND_ALONE = 3.0;

const trumpValue = (c, trump) => TOP_TRUMP[trumpPower(c, trump)] ?? 0.4;

// Expected tricks of a hand with `trump` as trump: trump honours and length, off-suit aces, voids to ruff with.
function strength(hand, trump) {
  const trumps = hand.filter((c) => effSuit(c, trump) === trump);
  let total = trumps.reduce((sum, c) => sum + trumpValue(c, trump), 0) + 0.2 * Math.max(0, trumps.length - 2);
  for (let s = 0; s < 4; s++) {
    if (s === trump) continue;
    const held = hand.filter((c) => effSuit(c, trump) === s);
    if (held.length === 0 && trumps.length >= 2) total += 0.3;
    else if (held.some((c) => rank(c) === ACE)) total += held.length <= 2 ? 0.7 : 0.5;
  }
  return total;
}

// How much a card is worth keeping (lower is thrown first): trumps, then aces, then cards of long suits.
function keepValue(c, trump, hand) {
  const s = effSuit(c, trump);
  if (s === trump) return 1000 + trumpPower(c, trump);
  const length = hand.filter((x) => effSuit(x, trump) === s).length;
  return (rank(c) === ACE ? 100 : 0) + (length > 1 ? 10 : 0) + rank(c);
}

// The card of `cards` least worth keeping, ties broken by card order.
function cheapest(cards, trump, hand) {
  const key = (c) => keepValue(c, trump, hand) * 64 + cardId(c);
  return cards.reduce((best, c) => (key(c) < key(best) ? c : best));
}

// ---- the table as the view shows it ----

function sameSide(a, b, view) {
  if (a === b) return true;
  if (view.players === 4) return (a + b) % 2 === 0;
  if (view.players === 3 && view.maker !== null) return a !== view.maker && b !== view.maker; // the defenders
  return false;
}

function playedCards(view) {
  const cards = view.trick.map((p) => p.card);
  for (const t of view.tricks) for (const p of t.cards) cards.push(p.card);
  return cards;
}

// Cards that may still be in another active seat's hand.
function outstanding(view, deckSize) {
  const gone = new Set([...view.hand, ...playedCards(view)]);
  if (view.upcard_taken !== true) gone.add(view.upcard); // turned down or declined: it lies in the kitty
  if (view.discarded) gone.add(view.discarded);
  return deck(deckSize).filter((c) => !gone.has(c));
}

// Whether no card still out there beats `c` in its own effective suit.
function isBoss(c, view, deckSize) {
  const t = view.trump;
  const s = effSuit(c, t);
  return !outstanding(view, deckSize).some((x) => effSuit(x, t) === s && power(x, t, s) > power(c, t, s));
}

// voids[seat] = the effective suits a seat has shown out of this hand.
function voids(view) {
  const result = Array.from({ length: view.players }, () => new Set());
  for (const trick of [...view.tricks.map((t) => t.cards), view.trick]) {
    if (trick.length === 0) continue;
    const led = effSuit(trick[0].card, view.trump);
    for (const p of trick) if (effSuit(p.card, view.trump) !== led) result[p.seat].add(led);
  }
  return result;
}

function activeSeats(view) {
  const seats = [];
  for (let s = 0; s < view.players; s++) if (!view.sitting_out.includes(s)) seats.push(s);
  return seats;
}

// ---- decisions: each returns an element of `legal` ----

function bid(view, legal) {
  const hand = [...view.hand];
  const options = []; // [score, suit, action]
  if (view.phase === "bid1") {
    const trump = suit(view.upcard);
    let score;
    if (view.dealer === view.seat) {
      hand.push(view.upcard); // the dealer takes the upcard and throws his worst other card
      hand.splice(hand.indexOf(cheapest(view.hand, trump, hand)), 1);
      score = strength(hand, trump);
    } else {
      const gift = trumpValue(view.upcard, trump); // the dealer will hold the upcard
      score = strength(hand, trump) + (sameSide(view.dealer, view.seat, view) ? gift : -gift);
    }
    for (const a of legal) if (a.type === "order_up") options.push([score, trump, a]);
  } else {
    for (const a of legal) if (a.type === "call") options.push([strength(hand, SUITS.indexOf(a.suit)), SUITS.indexOf(a.suit), a]);
  }
  const pass = legal.find((a) => a.type === "pass");
  if (options.length === 0) return legal[0];
  const [score, trump] = options.reduce((b, o) => (o[0] > b[0] || (o[0] === b[0] && o[1] < b[1]) ? o : b));
  if (score < NEEDED[view.players] && pass) return pass;
  const lone = score >= ALONE && hand.some((c) => trumpPower(c, trump) >= 99);
  const mine = options.filter((o) => o[1] === trump).map((o) => o[2]);
  return mine.find((a) => a.alone === lone) ?? mine[0];
}

function lead(view, cards, deckSize) {
  const t = view.trump;
  const trumps = cards.filter((c) => effSuit(c, t) === t).sort((a, b) => trumpPower(a, t) - trumpPower(b, t));
  const plain = cards.filter((c) => effSuit(c, t) !== t);
  const ours = view.maker !== null && sameSide(view.maker, view.seat, view);
  const enemyTrumps = outstanding(view, deckSize).some((c) => effSuit(c, t) === t);
  if (ours && trumps.length > 0 && enemyTrumps) {
    const top = trumps[trumps.length - 1];
    if (isBoss(top, view, deckSize)) return top; // pull trump with the best one
    if (view.maker === view.seat && trumps.length >= 3) return trumps[0];
  }
  const voided = voids(view);
  const opponents = activeSeats(view).filter((s) => !sameSide(s, view.seat, view));
  const winners = plain.filter(
    (c) => isBoss(c, view, deckSize) && !opponents.some((s) => voided[s].has(effSuit(c, t)))
  );
  if (winners.length > 0) return winners.reduce((b, c) => (cardId(c) > cardId(b) ? c : b)); // cash the highest sure winner
  if (plain.length > 0) return cheapest(plain, t, cards);
  const top = trumps[trumps.length - 1];
  return isBoss(top, view, deckSize) ? top : trumps[0];
}

function follow(view, cards, deckSize) {
  const t = view.trump;
  const led = effSuit(view.trick[0].card, t);
  let best = view.trick[0];
  for (const p of view.trick) if (power(p.card, t, led) > power(best.card, t, led)) best = p;
  const throwAway = cheapest(cards, t, cards);
  if (sameSide(best.seat, view.seat, view)) return throwAway; // partner is winning: let it be
  const beat = power(best.card, t, led);
  const winners = cards.filter((c) => power(c, t, led) > beat).sort((a, b) => power(a, t, led) - power(b, t, led));
  if (winners.length === 0) return throwAway;
  // Second or third to play, following suit: take it with the boss of the suit if nobody behind can ruff.
  const behind = activeSeats(view).filter((s) => !view.trick.some((p) => p.seat === s) && s !== view.seat);
  const voided = voids(view);
  const ruffRisk = behind.some((s) => !sameSide(s, view.seat, view) && voided[s].has(led));
  if (behind.length > 0 && led !== t && effSuit(winners[0], t) === led && !ruffRisk) {
    const boss = winners.find((c) => effSuit(c, t) === led && isBoss(c, view, deckSize));
    if (boss) return boss;
  }
  return winners[0]; // the cheapest card that wins
}

function choose(view, legal, deckSize) {
  const byCard = (c) => legal.find((a) => a.card === c);
  switch (view.phase) {
    case "play": {
      const cards = legal.map((a) => a.card);
      return byCard(view.trick.length === 0 ? lead(view, cards, deckSize) : follow(view, cards, deckSize));
    }
    case "discard":
      return byCard(cheapest(legal.map((a) => a.card), view.trump, view.hand));
    case "defend":
      return legal.find((a) => a.type === (strength(view.hand, view.trump) >= DEFEND_ALONE ? "defend_alone" : "pass"));
    case "bid1":
    case "bid2":
      return bid(view, legal);
    default:
      return legal[0]; // name_trump on the Benny is named blind: any suit will do
  }
}

// ---- the protocol loop ----

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n"); // synchronous on a pipe (Linux): no buffering to flush
}

function main() {
  let deckSize = 24;
  // The variants this bot plays: its rules know no call for best (Railroad), so a match of another is refused.
  const variants = ["two-hand", "three-hand", "four-hand", "four-hand-32", "british"];
  send({ type: "hello", protocol: 1, token: process.env.ARENA_TOKEN || "", name: "node-example", version: "1.0", variants });
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on("line", (line) => {
    if (line.trim() === "") return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      console.error("not JSON:", line.slice(0, 200));
      return;
    }
    switch (msg.type) {
      case "game_start":
        deckSize = msg.options.deck;
        break;
      case "act": {
        let action;
        try {
          // Trump as a suit index (or null): every strategy function works on indices.
          const view = { ...msg.view, trump: msg.view.trump === null ? null : SUITS.indexOf(msg.view.trump) };
          action = choose(view, msg.legal, deckSize);
        } catch (err) {
          console.error("strategy failed:", err && err.stack);
        }
        send({ type: "action", request_id: msg.request_id, action: action ?? msg.legal[0] });
        break;
      }
      case "violation":
        console.error("violation:", line);
        break;
      case "match_end":
        process.exit(0);
      // welcome, events, game_end and unknown types: nothing to do
    }
  });
  input.on("close", () => process.exit(0)); // stdin at EOF: the referee is gone
}

main();
