#!/usr/bin/env node
// A bot written from protocol.md and docs/rules.md alone, by an outside check of Railroad Euchre and Hasenpfeffer
// (issue 43) that read no code; kept as a test (tests/system/test_languages.py) that the documents still tell a
// stranger enough: stdio transport, no SDK, simple play from its view.
// Arguments: --track (keep its hand from the events and compare it with the view at every request: a line
//   "TRACKMISMATCH" or "TRACK:" in its log is a disagreement), --noview, --bold (defends alone more readily),
//   --passall, --nocall, --dump (every line to stderr), --only-two-hand (a hello listing two-hand only),
//   --hostile KIND [--repeat] (one, or every, hostile answer of that kind). It logs a SUMMARY line at match_end.
"use strict";
const readline = require("readline");

const args = process.argv.slice(2);
const hostileIdx = args.indexOf("--hostile");
let hostile = hostileIdx >= 0 ? args[hostileIdx + 1] : null;
let hostileDone = false;
const bold = args.includes("--bold");
const dump = args.includes("--dump");
const passall = args.includes("--passall");
const nocall = args.includes("--nocall");

const say = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const fs = require("fs");
const log = (...a) => { try { fs.writeSync(2, a.join(" ") + "\n"); } catch (e) {} };

const helloMsg = { type: "hello", protocol: 1, token: process.env.ARENA_TOKEN, name: "outside43", version: "1.0" };
if (process.argv.includes("--only-two-hand")) helloMsg.variants = ["two-hand"];
if (process.argv.includes("--noview")) helloMsg.view = false;
say(helloMsg);

// ---------------------------------------------------------------- state
let options = {};
let variant = null;
const counts = {}; // per variant, per phase: decisions
let violations = 0;
let lastView = null;

// ---------------------------------------------------------------- cards
const RANKS = "23456789TJQKA";
const SUITS = "CDHS";
const PARTNER_SUIT = { C: "S", S: "C", D: "H", H: "D" };
const rankIdx = (c) => RANKS.indexOf(c[0]);
const suitOf = (c) => (c === "JK" ? null : c[1]);
const isJoker = (c) => c === "JK";
const isRight = (c, t) => t && c[0] === "J" && c[1] === t;
const isLeft = (c, t) => t && c[0] === "J" && c[1] === PARTNER_SUIT[t];
function effSuit(c, t) {
  if (isJoker(c)) return t || null;
  if (isLeft(c, t)) return t;
  return c[1];
}
function isTrump(c, t) {
  return t != null && effSuit(c, t) === t;
}
// strength within its effective suit, trump above everything
function trumpPower(c, t) {
  if (isJoker(c)) return 100;
  if (isRight(c, t)) return 99;
  if (isLeft(c, t)) return 98;
  return 50 + rankIdx(c);
}
function power(c, t, led) {
  if (isTrump(c, t)) return trumpPower(c, t);
  if (led && effSuit(c, t) === led) return rankIdx(c);
  return -1;
}
function deckCards() {
  const d = Number(options.deck || 24);
  const low = d >= 32 ? "7" : "9";
  const out = [];
  for (const s of SUITS) for (const r of RANKS.slice(RANKS.indexOf(low))) out.push(r + s);
  if (d % 2 === 1) out.push("JK");
  return out;
}

// ---------------------------------------------------------------- hand evaluation
// expected tricks of a hand (5 or 6 cards) with trump t, as the maker's seat
function evalHand(hand, t) {
  let e = 0;
  let nTrump = 0;
  const suitCount = { C: 0, D: 0, H: 0, S: 0 };
  for (const c of hand) {
    if (isTrump(c, t)) {
      nTrump++;
      if (isJoker(c)) e += 1.0;
      else if (isRight(c, t)) e += 0.95;
      else if (isLeft(c, t)) e += 0.8;
      else if (c[0] === "A") e += 0.7;
      else if (c[0] === "K") e += 0.55;
      else if (c[0] === "Q") e += 0.45;
      else e += 0.35;
    } else {
      suitCount[c[1]]++;
    }
  }
  for (const c of hand) {
    if (isTrump(c, t)) continue;
    const s = c[1];
    if (c[0] === "A") e += suitCount[s] <= 3 ? 0.65 : 0.45;
    else if (c[0] === "K") {
      const hasA = hand.some((x) => x === "A" + s);
      e += hasA ? 0.4 : 0.15;
    }
  }
  if (nTrump >= 2) for (const s of SUITS) if (s !== t && suitCount[s] === 0) e += 0.25;
  return e;
}
// the least worth keeping (for discards): trumps high, aces next, singletons low
function keepValue(c, t, hand) {
  if (t && isTrump(c, t)) return 200 + trumpPower(c, t);
  if (isJoker(c)) return 300;
  let v = rankIdx(c) * 2;
  if (c[0] === "A") v += 40;
  if (t) {
    const same = hand.filter((x) => !isTrump(x, t) && x[1] === c[1]).length;
    if (same === 1 && c[0] !== "A") v -= 5; // discarding makes a void
    if (c[0] === "K" && hand.includes("A" + c[1])) v += 10;
  }
  return v;
}
function worstCard(cards, t, hand) {
  let best = null;
  let bv = Infinity;
  for (const c of cards) {
    const v = keepValue(c, t, hand);
    if (v < bv) { bv = v; best = c; }
  }
  return best;
}
function bestCard(cards, t, hand) {
  let best = null;
  let bv = -Infinity;
  for (const c of cards) {
    const v = keepValue(c, t, hand);
    if (v > bv) { bv = v; best = c; }
  }
  return best;
}

// ---------------------------------------------------------------- decisions
function partnerOf(seat, players) {
  return players === 4 ? (seat + 2) % 4 : null;
}
function round1Suit(view) {
  if (view.upcard === "JK") return options.joker_suit || "H";
  return view.upcard ? view.upcard[1] : null;
}

function decideBid1(view, legal) {
  const t = round1Suit(view);
  const me = view.seat;
  let hand = view.hand.slice();
  let e;
  if (me === view.dealer) {
    // I would take the upcard and throw away my worst card
    const six = hand.concat([view.upcard]);
    const w = worstCard(hand, t, six);
    e = evalHand(six.filter((c) => c !== w), t);
  } else {
    e = evalHand(hand, t);
    const upVal = view.upcard === "JK" ? 0.9 : isRight(view.upcard, t) ? 0.8 : 0.35;
    if (partnerOf(me, view.players) === view.dealer) e += upVal * 0.6;
    else e -= upVal * 0.6;
  }
  return chooseBid(view, legal, e, (a) => a.type === "order_up");
}
function decideBid2(view, legal) {
  let bestSuit = null;
  let bestE = -1;
  for (const a of legal) {
    if (a.type !== "call") continue;
    const e = evalHand(view.hand, a.suit);
    if (e > bestE) { bestE = e; bestSuit = a.suit; }
  }
  return chooseBid(view, legal, bestE, (a) => a.type === "call" && a.suit === bestSuit);
}
function hasTop(hand, t) {
  return hand.some((c) => isJoker(c) || isRight(c, t));
}
function chooseBid(view, legal, e, match) {
  const cands = legal.filter(match);
  const pass = legal.find((a) => a.type === "pass");
  const players = view.players;
  const need = players === 4 ? 2.2 : players === 3 ? 3.0 : 2.6;
  const aloneNeed = options.call_for_best ? 3.3 : 3.8;
  if (cands.length === 0) return pass || legal[0];
  const alone = cands.find((a) => a.alone === true);
  const notAlone = cands.find((a) => !a.alone);
  const t = cands[0].type === "call" ? cands[0].suit : round1Suit(view);
  if (alone && e >= aloneNeed && hasTop(view.hand.concat(view.seat === view.dealer ? [view.upcard] : []), t)) return alone;
  if (e >= need || !pass) return notAlone || cands[0];
  return pass;
}

function decideDiscard(view, legal) {
  const t = view.trump;
  const cards = legal.map((a) => a.card);
  const w = worstCard(cards, t, view.hand);
  return legal.find((a) => a.card === w);
}

function decideDefend(view, legal) {
  // a lone maker against me: defend alone only with a very strong hand in trump
  const t = view.trump;
  const myTrump = view.hand.filter((c) => isTrump(c, t));
  const e = evalHand(view.hand, t);
  const da = legal.find((a) => a.type === "defend_alone");
  if (da && myTrump.length >= 3 && hasTop(view.hand, t) && e >= 2.8) return da;
  if (da && bold && myTrump.length >= 2 && e >= 1.6) return da;
  return legal.find((a) => a.type === "pass") || legal[0];
}

function decideNameTrump(view, legal) {
  if (view.hand.length === 0) {
    // Benny turned up: blind. Any suit.
    return legal[(view.hand_number + view.seat) % legal.length];
  }
  let best = legal[0];
  let be = -1;
  for (const a of legal) {
    const e = evalHand(view.hand, a.suit);
    if (e > be) { be = e; best = a; }
  }
  return best;
}

function decideCallBest(view, legal) {
  if (nocall) return legal.find((a) => a.type === "pass") || legal[0];
  const t = view.trump;
  const calls = legal.filter((a) => a.type === "call_for_best");
  if (calls.length === 0) return legal[0];
  // six-hand "each" etc. not handled specially: take first call with the worst card
  const withCard = calls.filter((a) => typeof a.card === "string");
  if (withCard.length === 0) return calls[0];
  const w = worstCard(withCard.map((a) => a.card), t, view.hand);
  return withCard.find((a) => a.card === w);
}

function decideGiveBest(view, legal) {
  const t = view.trump;
  const cards = legal.map((a) => a.card);
  const b = bestCard(cards, t, cards);
  return legal.find((a) => a.card === b);
}

// ---------------------------------------------------------------- Hasenpfeffer
function bestSuitEval(hand) {
  let be = -1;
  let bs = null;
  for (const s of SUITS) {
    const e = evalHand(hand, s);
    if (e > be) { be = e; bs = s; }
  }
  return [bs, be];
}
function decideHBid(view, legal) {
  if (passall) { const p = legal.find((a) => a.type === "pass"); if (p) return p; }
  const [, e] = bestSuitEval(view.hand);
  const widow = (options.widow || "bidder_takes") === "bidder_takes" ? 0.3 : 0;
  const est = Math.floor(e + 1.0 + widow); // my tricks, my partner's, the widow's help
  const bids = legal.filter((a) => a.type === "bid").sort((a, b) => a.tricks - b.tricks);
  const pass = legal.find((a) => a.type === "pass");
  if (bids.length === 0) return pass || legal[0];
  // do not outbid my partner needlessly
  const me = view.seat;
  const partner = partnerOf(me, view.players);
  const bidsSoFar = (view.bids || []).filter((b) => b.type === "bid");
  const high = bidsSoFar.length ? bidsSoFar[bidsSoFar.length - 1] : null;
  if (pass && high && high.seat === partner && high.tricks >= est - 1) return pass;
  if (!pass) return bids[0]; // stuck: the lowest
  const lowest = bids[0];
  if (lowest.tricks <= est) return lowest;
  return pass;
}
function decideDeclare(view, legal) {
  let best = legal[0];
  let be = -Infinity;
  for (const a of legal) {
    const hand = view.hand.filter((c) => c !== a.discard);
    const e = evalHand(hand, a.suit) - keepValue(a.discard, a.suit, view.hand) / 1000;
    if (e > be) { be = e; best = a; }
  }
  return best;
}

// ---------------------------------------------------------------- play
function playedCards(view) {
  const s = new Set();
  for (const tr of view.tricks || []) for (const x of tr.cards) s.add(x.card);
  for (const x of view.trick || []) s.add(x.card);
  return s;
}
function isBoss(c, view, played) {
  const t = view.trump;
  const es = effSuit(c, t);
  const p = power(c, t, es);
  for (const d of deckCards()) {
    if (d === c || played.has(d) || view.hand.includes(d)) continue;
    if (effSuit(d, t) !== es) continue;
    if (power(d, t, es) > p) return false;
  }
  return true;
}
function cheapest(cards, t, hand) {
  return worstCard(cards, t, hand);
}
function decidePlay(view, legal) {
  const t = view.trump;
  const cards = legal.map((a) => a.card);
  const pick = (c) => legal.find((a) => a.card === c);
  if (cards.length === 1) return legal[0];
  const me = view.seat;
  const players = view.players;
  const partner = partnerOf(me, players);
  const partnerActive = partner != null && !(view.sitting_out || []).includes(partner);
  const makerSide = view.maker === me || (partner != null && view.maker === partner);
  const played = playedCards(view);
  const trick = view.trick || [];
  const trumps = cards.filter((c) => isTrump(c, t));
  if (trick.length === 0) {
    // lead
    if (makerSide && trumps.length > 0 && (view.maker === me || trumps.length >= 2)) {
      const hi = trumps.reduce((a, b) => (trumpPower(a, t) > trumpPower(b, t) ? a : b));
      if (isBoss(hi, view, played) || trumps.length >= 2) return pick(hi);
    }
    const bosses = cards.filter((c) => !isTrump(c, t) && isBoss(c, view, played));
    if (bosses.length) return pick(bosses.reduce((a, b) => (rankIdx(a) > rankIdx(b) ? a : b)));
    const off = cards.filter((c) => !isTrump(c, t));
    if (off.length) return pick(cheapest(off, t, view.hand));
    return pick(trumps.reduce((a, b) => (trumpPower(a, t) < trumpPower(b, t) ? a : b)));
  }
  const led = effSuit(trick[0].card, t);
  let winSeat = trick[0].seat;
  let winPow = power(trick[0].card, t, led);
  for (const x of trick) {
    const p = power(x.card, t, led);
    if (p > winPow) { winPow = p; winSeat = x.seat; }
  }
  const active = [];
  for (let s = 0; s < players; s++) if (!(view.sitting_out || []).includes(s)) active.push(s);
  const remaining = active.length - trick.length - 1; // players after me
  const winCard = trick.find((x) => x.seat === winSeat).card;
  const partnerWinning = partnerActive && winSeat === partner;
  if (partnerWinning && (remaining === 0 || isBoss(winCard, view, played) || winPow >= 60)) {
    return pick(cheapest(cards, t, view.hand));
  }
  const winners = cards.filter((c) => power(c, t, led) > winPow);
  if (winners.length) {
    if (remaining === 0) return pick(winners.reduce((a, b) => (power(a, t, led) < power(b, t, led) ? a : b)));
    const bossWinners = winners.filter((c) => isBoss(c, view, played));
    if (bossWinners.length) return pick(bossWinners.reduce((a, b) => (power(a, t, led) < power(b, t, led) ? a : b)));
    if (partnerWinning) return pick(cheapest(cards, t, view.hand));
    return pick(winners.reduce((a, b) => (power(a, t, led) < power(b, t, led) ? a : b)));
  }
  return pick(cheapest(cards, t, view.hand));
}


// ---------------------------------------------------------------- own state from events (checked against the view)
const track = args.includes("--track");
let T = null; // {seat, hand, upcard, dealer, maker, alone}
let mySeat = null;
let trackMismatches = 0, trackChecks = 0;
const cardId = (c) => (c === "JK" ? 1000 : RANKS.indexOf(c[0]) * 4 + SUITS.indexOf(c[1]));
const sortCards = (a) => a.slice().sort((x, y) => cardId(x) - cardId(y));
function removeCard(c) { const i = T.hand.indexOf(c); if (i >= 0) T.hand.splice(i, 1); else log("TRACK: remove of card not held", c, JSON.stringify(T.hand)); }
function foldEvent(e) {
  if (e.type === "hand_start") { T = { hand: e.hand.slice(), upcard: e.upcard, dealer: e.dealer }; return; }
  if (!T) return;
  switch (e.type) {
    case "action": {
      const a = e.action;
      if (a.type === "order_up" && T.dealer === mySeat) {
        const sitsOut = a.alone && (e.seat + 2) % 4 === mySeat;
        if (!sitsOut) T.hand.push(T.upcard);
      }
      if (a.type === "play" && e.seat === mySeat) removeCard(a.card);
      break;
    }
    case "cards": T.hand = e.hand.slice(); break;
    case "exchange": if (e.seat === mySeat && e.discard) removeCard(e.discard); break;
    case "call_for_best": if (e.seat === mySeat && e.discard) removeCard(e.discard); break;
    case "give_best":
      if (e.seat === mySeat && e.card) { if (T.hand.includes(e.card)) removeCard(e.card); }
      if (e.receiver === mySeat && e.card) T.hand.push(e.card);
      break;
    case "best_discard": if (e.seat === mySeat && e.card) removeCard(e.card); break;
    case "widow": T.hand.push(e.card); break;
    case "declare": if (e.seat === mySeat && e.discard) removeCard(e.discard); break;
  }
}
function trackCheck(msg) {
  for (const e of msg.events || []) foldEvent(e);
  if (!msg.view || !T) return;
  trackChecks++;
  const mine = JSON.stringify(sortCards(T.hand));
  const theirs = JSON.stringify(msg.view.hand);
  if (mine !== theirs) { trackMismatches++; if (trackMismatches < 6) log("TRACKMISMATCH phase", msg.view.phase, "mine", mine, "view", theirs, "events", JSON.stringify(msg.events).slice(0, 600)); T.hand = msg.view.hand.slice(); }
}

// ---------------------------------------------------------------- dispatch
function decide(view, legal) {
  switch (view.phase) {
    case "bid1": return decideBid1(view, legal);
    case "bid2": return decideBid2(view, legal);
    case "discard": return decideDiscard(view, legal);
    case "defend": return decideDefend(view, legal);
    case "name_trump": return decideNameTrump(view, legal);
    case "call_best": return decideCallBest(view, legal);
    case "give_best": return decideGiveBest(view, legal);
    case "best_discard": return decideDiscard(view, legal);
    case "bid": return decideHBid(view, legal);
    case "declare": return decideDeclare(view, legal);
    case "play": return decidePlay(view, legal);
    default:
      log("unknown phase", view.phase);
      return legal[0];
  }
}

// hostile actions: return a replacement message (object or raw string) or null
function hostileAction(msg, view) {
  if (!hostile || hostileDone) return null;
  const ph = view.phase;
  const h = view.hand;
  const notMine = deckCards().find((c) => !h.includes(c) && c !== "JK" && c !== view.upcard);
  let out = null;
  switch (hostile) {
    case "bid7": if (ph === "bid") out = { type: "bid", tricks: 7 }; break;
    case "bid0": if (ph === "bid") out = { type: "bid", tricks: 0 }; break;
    case "bidstr": if (ph === "bid") out = { type: "bid", tricks: "3" }; break;
    case "bidlow": { // a bid not above the highest so far (or below min_bid)
      const bids = (view.bids || []).filter((b) => b.type === "bid");
      if (ph === "bid" && bids.length) out = { type: "bid", tricks: bids[bids.length - 1].tricks };
      break;
    }
    case "bidbelowmin": if (ph === "bid" && (view.bids || []).length === 0) out = { type: "bid", tricks: 1 }; break;
    case "declare_notinhand": if (ph === "declare") out = { type: "declare", suit: "H", discard: notMine }; break;
    case "declare_badsuit": if (ph === "declare") out = { type: "declare", suit: "X", discard: h[0] }; break;
    case "declare_extra": if (ph === "declare") out = { type: "declare", suit: "H", discard: h[0], alone: true }; break;
    case "cfb_not_offered": if (ph === "play" || ph === "bid1") out = { type: "call_for_best", card: h[0] }; break;
    case "cfb_notinhand": if (ph === "call_best") out = { type: "call_for_best", card: notMine }; break;
    case "cfb_nocard": if (ph === "call_best" && msg.legal.some((a) => a.card)) out = { type: "call_for_best" }; break;
    case "give_notmine": if (ph === "give_best") out = { type: "give_best", card: notMine }; break;
    case "give_joker_not_mine": if (ph === "give_best" && !h.includes("JK")) out = { type: "give_best", card: "JK" }; break;
    case "give_upcard": if (ph === "give_best" && view.upcard && !msg.legal.some((a) => a.card === view.upcard)) out = { type: "give_best", card: view.upcard }; break;
    case "cfb_partner": if (ph === "call_best" && msg.legal.some((a) => a.card)) out = { type: "call_for_best", card: h[0], partner: (view.seat + 2) % 4 }; break;
    case "cfb_null": if (ph === "call_best") out = { type: "call_for_best", card: null }; break;
    case "cfb_card_recv": if (ph === "call_best" && !msg.legal.some((a) => a.card)) out = { type: "call_for_best", card: h[0] }; break;
    case "bestdiscard_notmine": if (ph === "best_discard") out = { type: "discard", card: notMine }; break;
    case "declare_twocards": if (ph === "declare") out = { type: "declare", suit: "H", discard: [h[0], h[1]] }; break;
    case "bid_float": if (ph === "bid") out = { type: "bid", tricks: 3.0 }; break;
    case "malformed": out = "this is not json {"; break;
    case "bid_float_raw": if (ph === "bid") out = '{"type":"action","request_id":' + msg.request_id + ',"action":{"type":"bid","tricks":3.0}}'; break;
    case "dupkey": if (ph === "bid") out = '{"type":"action","request_id":' + msg.request_id + ',"action":{"type":"pass"},"action":{"type":"pass"}}'; break;
    case "noaction": out = { type: "action", request_id: msg.request_id }; break;
    case "wrongid": out = { type: "action", request_id: msg.request_id + 100000, action: msg.legal[0] }; break;
    case "play_in_bid": if (ph === "bid" ) out = { type: "play", card: h[0] }; break;
    case "pass_in_declare": if (ph === "declare") out = { type: "pass" }; break;
    case "pass_in_give": if (ph === "give_best") out = { type: "pass" }; break;
    case "defend_in_bid1": if (ph === "bid1") out = { type: "defend_alone" }; break;
  }
  if (out === null) return null;
  if (!args.includes("--repeat")) hostileDone = true;
  if (typeof out === "string") return out;
  if (out.type === "action") return out;
  return { type: "action", request_id: msg.request_id, action: out };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch (e) { log("bad line from referee", line); return; }
  if (dump) log("RECV", line);
  switch (msg.type) {
    case "game_start":
      options = msg.options || {};
      mySeat = msg.seat;
      variant = msg.variant;
      break;
    case "violation":
      violations++;
      log("VIOLATION", JSON.stringify(msg));
      break;
    case "events":
      if (args.includes("--tick") && !global.ticking) { global.ticking = true; const t0 = Date.now(); setInterval(() => log("TICK", Date.now() - t0), 20); }
      break;
    case "game_end":
      if (args.includes("--tick")) log("GAME_END", msg.game, Date.now());
      break;
    case "match_end":
      log("SUMMARY", JSON.stringify({ counts, violations, reason: msg.reason, trackChecks, trackMismatches }));
      process.exit(0);
      break;
    case "act": {
      if (track) trackCheck(msg);
      if (!msg.view && process.argv.includes("--noview")) {
        counts["noview"] = (counts["noview"] || 0) + 1;
        // the hand tracked from events must hold every card offered to play/give/discard
        if (T) for (const a of msg.legal) if (a.card && !T.hand.includes(a.card) && a.card !== T.upcard) log("NOVIEW: legal card not in tracked hand", JSON.stringify(a), JSON.stringify(T.hand));
        say({ type: "action", request_id: msg.request_id, action: msg.legal[0] });
        break;
      }
      if (msg.view) counts["withview"] = (counts["withview"] || 0) + 1;
      const view = msg.view || lastView;
      lastView = view;
      const key = variant + ":" + view.phase;
      counts[key] = (counts[key] || 0) + 1;
      const h = hostileAction(msg, view);
      if (h !== null) {
        log("HOSTILE", hostile, typeof h === "string" ? h : JSON.stringify(h), "hand", JSON.stringify(view.hand), "phase", view.phase, "hn", view.hand_number, "seat", view.seat);
        if (typeof h === "string") process.stdout.write(h + "\n");
        else say(h);
        break;
      }
      let action;
      try {
        action = decide(view, msg.legal);
      } catch (e) {
        log("ERROR", e.stack);
        action = null;
      }
      if (!action || !msg.legal.some((a) => JSON.stringify(a) === JSON.stringify(action))) {
        log("BUG: action not in legal", JSON.stringify(action), "phase", view.phase);
        action = msg.legal[0];
      }
      say({ type: "action", request_id: msg.request_id, action });
      break;
    }
    default:
      break;
  }
});
