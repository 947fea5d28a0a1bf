#!/usr/bin/env node
// firstcard: a cribbage bot in JavaScript (Node.js) that speaks cribsim's player protocol
// (docs/protocol.md). It plays standard cribbage only (no variant modules) and says so in its
// hello: it keeps the cards that make the most fifteens and plays its first legal card.
'use strict';
const readline = require('readline');

const rank = (c) => Math.floor(c / 4) + 1;          // card = rank * 4 + suit; ace 1 .. king 13
const value = (c) => Math.min(rank(c), 10);

function fifteens(cards) {
  let n = 0;
  for (let mask = 1; mask < (1 << cards.length); mask++) {
    let sum = 0;
    for (let i = 0; i < cards.length; i++) if (mask & (1 << i)) sum += value(cards[i]);
    if (sum === 15) n++;
  }
  return n;
}

function discard(obs) {
  const hand = obs.hand, k = obs.discards;
  let best = null, bestScore = -1;
  const pick = (start, chosen) => {                   // every way to choose k cards to throw
    if (chosen.length === k) {
      const kept = hand.filter((c) => !chosen.includes(c));
      const score = fifteens(kept);
      if (score > bestScore) { bestScore = score; best = chosen.slice(); }
      return;
    }
    for (let i = start; i < hand.length; i++) pick(i + 1, chosen.concat([hand[i]]));
  };
  pick(0, []);
  return best;
}

function answer(msg) {
  switch (msg.kind) {
    case 'hello':
      return { kind: 'capabilities', protocol: 3, name: 'firstcard', decisions: ['discard', 'play'],
               understands: [], games: ['cribbage'], variants: [] };
    case 'decide':
      return { kind: 'reply', answer: msg.decision === 'discard' ? discard(msg.obs) : msg.obs.legal[0] };
    default:                                          // match, seed, result
      return { kind: 'ok' };
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const msg = JSON.parse(line);                      // every reply carries its request's id
  process.stdout.write(JSON.stringify({ id: msg.id, ...answer(msg) }) + '\n');
});
