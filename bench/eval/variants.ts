/**
 * Realistic name variants of a listed name, as they reach a screening system from payment and
 * onboarding data: typing errors, another word order, a dropped middle name, a nickname, another
 * spelling of the same given name, words joined or split, and noise in case and punctuation.
 * Each generator returns undefined when it does not apply to the name.
 */
import type { Prng } from './prng.js';

export const VARIANT_KINDS = ['typo', 'typo2', 'reorder', 'drop_middle', 'nickname', 'spelling', 'join_split', 'noise'] as const;
export type VariantKind = (typeof VARIANT_KINDS)[number];

const KEYBOARD: Readonly<Record<string, string>> = {
  a: 'qwsz', b: 'vghn', c: 'xdfv', d: 'serfcx', e: 'wsdr', f: 'drtgvc', g: 'ftyhbv', h: 'gyujnb', i: 'ujko', j: 'huikmn',
  k: 'jiolm', l: 'kop', m: 'njk', n: 'bhjm', o: 'iklp', p: 'ol', q: 'wa', r: 'edft', s: 'awedxz', t: 'rfgy', u: 'yhji',
  v: 'cfgb', w: 'qase', x: 'zsdc', y: 'tghu', z: 'asx',
};

function words(name: string): string[] {
  return name.split(/\s+/).filter(Boolean);
}

function typoIn(word: string, rng: Prng): string {
  // Position 0 is kept: first letters are rarely mistyped, and a different first letter is a different name.
  const i = 1 + rng.int(word.length - 1);
  const c = word[i]!.toLowerCase();
  const upper = word[i] !== c;
  const kind = rng.int(4);
  const near = KEYBOARD[c] ? rng.pick([...KEYBOARD[c]!]) : 'e';
  const n = upper ? near.toUpperCase() : near;
  if (kind === 0) return word.slice(0, i) + n + word.slice(i + 1); // substitution
  if (kind === 1) return word.slice(0, i) + word.slice(i + 1); // deletion
  if (kind === 2) return word.slice(0, i) + n + word.slice(i); // insertion
  if (i + 1 < word.length) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2); // transposition
  return word.slice(0, i) + n;
}

function letters(w: string): number {
  return (w.match(/\p{L}/gu) ?? []).length;
}

export function typo(name: string, rng: Prng): string | undefined {
  const ws = words(name);
  const idx = ws.map((w, i) => (letters(w) >= 4 ? i : -1)).filter((i) => i >= 0);
  if (idx.length === 0) return undefined;
  const i = rng.pick(idx);
  ws[i] = typoIn(ws[i]!, rng);
  return ws.join(' ');
}

export function typo2(name: string, rng: Prng): string | undefined {
  const ws = words(name);
  const idx = ws.map((w, i) => (letters(w) >= 5 ? i : -1)).filter((i) => i >= 0);
  if (idx.length < 2) return undefined;
  rng.shuffle(idx);
  for (const i of idx.slice(0, 2)) ws[i] = typoIn(ws[i]!, rng);
  return ws.join(' ');
}

export function reorder(name: string): string | undefined {
  const ws = words(name);
  if (ws.length < 2) return undefined;
  return [ws[ws.length - 1]!, ...ws.slice(0, -1)].join(' ');
}

export function dropMiddle(name: string, rng: Prng): string | undefined {
  const ws = words(name);
  if (ws.length < 3) return undefined;
  const i = 1 + rng.int(ws.length - 2);
  return [...ws.slice(0, i), ...ws.slice(i + 1)].join(' ');
}

/** Replaces a word (the first, or any) by one of its alternatives (nicknames, other spellings). */
export function alternative(name: string, alternativesOf: (word: string) => readonly string[], rng: Prng, anyWord: boolean): string | undefined {
  const ws = words(name);
  const positions = anyWord ? ws.map((_, i) => i) : [0];
  rng.shuffle(positions);
  for (const i of positions) {
    const w = ws[i]!.toLowerCase();
    const options = alternativesOf(w).filter((x) => x !== w);
    if (options.length === 0) continue;
    const pick = rng.pick(options);
    ws[i] = pick.charAt(0).toUpperCase() + pick.slice(1);
    return ws.join(' ');
  }
  return undefined;
}

export function joinSplit(name: string, rng: Prng): string | undefined {
  if (/-/.test(name)) return name.replace('-', rng.next() < 0.5 ? '' : ' ');
  const ws = words(name);
  if (ws.length < 2) return undefined;
  const short = ws.map((w, i) => (i + 1 < ws.length && (letters(w) <= 4 || letters(ws[i + 1]!) <= 4) ? i : -1)).filter((i) => i >= 0);
  if (short.length === 0) return undefined;
  const i = rng.pick(short);
  return [...ws.slice(0, i), ws[i]! + ws[i + 1]!.toLowerCase(), ...ws.slice(i + 2)].join(' ');
}

export function noise(name: string, rng: Prng): string | undefined {
  const ws = words(name.replace(/[.,]/g, ''));
  if (ws.length === 0) return undefined;
  const cased = ws.map((w) => (rng.next() < 0.5 ? w.toLowerCase() : w.toUpperCase()));
  if (cased.length >= 2 && rng.next() < 0.5) return `${cased[cased.length - 1]}, ${cased.slice(0, -1).join(' ')}`;
  return cased.join('  ');
}
