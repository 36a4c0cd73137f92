/**
 * alignNames with a plain pair-similarity oracle (a table of similarities between token texts),
 * so that the properties test the alignment alone, whatever the token metric is tuned to.
 * Constants are read from NAME_SCORE, never written here.
 */
import t from 'tap';
import fc from 'fast-check';
import { alignNames, NAME_SCORE, type AlignSide, type Alignment, type TextSimilarity } from '../../engine/match/align.js';
import { compareTokens, type TokenMatch, type TokenRule } from '../../engine/match/token-similarity.js';
import { DEFAULT_MATCH_OPTIONS } from '../../engine/options.js';
import { holds, realNameTables } from './fixtures/helpers.js';

const NONE: TokenMatch = { similarity: 0, rule: 'fuzzy' };
const EQUAL: TokenMatch = { similarity: 1, rule: 'exact' };

/** Similarities between token texts, symmetric; equal texts are equal. */
class Oracle {
  private readonly table = new Map<string, TokenMatch>();
  set(a: string, b: string, m: TokenMatch): void {
    this.table.set(`${a}|${b}`, m);
    this.table.set(`${b}|${a}`, m);
  }
  get(a: string, b: string): TokenMatch {
    if (a === b) return EQUAL;
    return this.table.get(`${a}|${b}`) ?? NONE;
  }
  text: TextSimilarity = (a, b) => this.get(a, b);
}

function align(q: AlignSide, c: AlignSide, oracle: Oracle): Alignment {
  return alignNames(q, c, (i, j) => oracle.get(q.texts[i]!, c.texts[j]!), oracle.text);
}

function side(texts: readonly string[], weights: readonly number[], known?: readonly boolean[]): AlignSide {
  return { texts, weights, abjad: texts.map(() => false), ...(known ? { known } : {}) };
}

function contributionSum(a: Alignment): number {
  let s = 0;
  for (const f of a.factors) s += f.contribution;
  return s;
}

const RULES: readonly TokenRule[] = ['fuzzy', 'phonetic', 'spelling', 'nickname', 'initial', 'transliteration', 'synonym'];

/**
 * A random alignment problem: query tokens q0.., candidate tokens c0.., distinct weights and
 * distinct non-zero similarities (no ties, so the greedy pairing is fully determined by the values).
 */
const problem = fc
  .record({
    n: fc.integer({ min: 1, max: 5 }),
    m: fc.integer({ min: 1, max: 5 }),
    weights: fc.uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 10, maxLength: 10 }),
    sims: fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { minLength: 25, maxLength: 25 }),
    present: fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
    rules: fc.array(fc.constantFrom(...RULES), { minLength: 25, maxLength: 25 }),
    exact: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
    known: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  })
  .map(({ n, m, weights, sims, present, rules, exact, known }) => {
    const oracle = new Oracle();
    const qTexts = Array.from({ length: n }, (_, i) => `q${i}`);
    const cTexts = Array.from({ length: m }, (_, j) => `c${j}`);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        const k = i * 5 + j;
        if (present[k]) oracle.set(qTexts[i]!, cTexts[j]!, { similarity: sims[k]! / 1000, rule: rules[k]! });
      }
    }
    // Some query tokens also appear, equal, in the candidate.
    const c = [...cTexts];
    for (const e of exact) if (e < n && e < m) c[e] = qTexts[e]!;
    return {
      oracle,
      q: side(qTexts, weights.slice(0, n).map((w) => w / 100), known.slice(0, n)),
      c: side(c, weights.slice(5, 5 + m).map((w) => w / 100)),
    };
  });

function permute<T>(xs: readonly T[], order: readonly number[]): T[] {
  return order.map((k) => xs[k]!);
}

t.test('score in [0, 1]; contributions sum to the score', async (t) => {
  fc.assert(
    fc.property(problem, ({ q, c, oracle }) => {
      const a = align(q, c, oracle);
      if (!(a.score >= 0 && a.score <= 1)) return false;
      const sum = contributionSum(a);
      // The score is clamped at 0; above that the factors explain it exactly.
      return sum >= 0 ? Math.abs(sum - a.score) < 1e-9 : a.score === 0;
    }),
    { numRuns: 2000 },
  );
  t.pass();
});

t.test('reordering the query tokens does not change the score', async (t) => {
  fc.assert(
    fc.property(
      problem.chain((p) => fc.tuple(fc.constant(p), fc.shuffledSubarray([...p.q.texts.keys()], { minLength: p.q.texts.length, maxLength: p.q.texts.length }))),
      ([{ q, c, oracle }, order]) => {
        const shuffled: AlignSide = {
          texts: permute(q.texts, order),
          weights: permute(q.weights, order),
          abjad: permute(q.abjad, order),
          known: permute(q.known!, order),
        };
        return Math.abs(align(q, c, oracle).score - align(shuffled, c, oracle).score) < 1e-9;
      },
    ),
    { numRuns: 2000 },
  );
  t.pass();
});

t.test('an identical name scores 1, with no weak_evidence factor', async (t) => {
  const words = fc.array(fc.constantFrom('ali', 'hassan', 'mohammed', 'al', 'co', 'x', 'zawahiri', 'bank'), { minLength: 1, maxLength: 8 });
  fc.assert(
    fc.property(words, fc.array(fc.double({ min: 0.01, max: 12, noNaN: true }), { minLength: 8, maxLength: 8 }), (texts, ws) => {
      const oracle = new Oracle();
      oracle.set('ali', 'al', { similarity: 0.8, rule: 'fuzzy' });
      oracle.set('mohammed', 'hassan', { similarity: 0.76, rule: 'phonetic' });
      const s = side(texts, ws.slice(0, texts.length));
      const a = align(s, s, oracle);
      return a.score === 1 && !a.factors.some((f) => f.rule === 'weak_evidence' || f.rule.startsWith('unmatched'));
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

t.test('an unrelated token on either side never raises the score', async (t) => {
  const grow = (p: { q: AlignSide; c: AlignSide; oracle: Oracle }, w: number, at: number, querySide: boolean) => {
    const target = querySide ? p.q : p.c;
    const k = at % (target.texts.length + 1);
    const insert = <T>(xs: readonly T[], x: T): T[] => [...xs.slice(0, k), x, ...xs.slice(k)];
    const grown: AlignSide = {
      texts: insert(target.texts, 'ZZZ'),
      weights: insert(target.weights, w),
      abjad: insert(target.abjad, false),
      ...(target.known ? { known: insert(target.known, false) } : {}),
    };
    return querySide ? align(grown, p.c, p.oracle).score : align(p.q, grown, p.oracle).score;
  };
  const args = [problem, fc.double({ min: 0.01, max: 20, noNaN: true }), fc.nat(), fc.boolean()] as const;
  // Where the evidence rule cannot relax (the alignment already leaves a token unpaired, or pairs
  // every token equally), an unpaired token only adds cost.
  holds(
    t,
    'never raises the score of a partial or perfect alignment',
    fc.property(...args, (p, w, at, querySide) => {
      const base = align(p.q, p.c, p.oracle);
      const partial = base.factors.some((f) => f.rule.startsWith('unmatched'));
      const perfect = base.score === 1;
      fc.pre(partial || perfect);
      return grow(p, w, at, querySide) <= base.score + 1e-12;
    }),
    { numRuns: 2000 },
  );
  holds(
    t,
    'never raises the score of any alignment',
    fc.property(...args, (p, w, at, querySide) => grow(p, w, at, querySide) <= align(p.q, p.c, p.oracle).score + 1e-12),
    { numRuns: 2000 },
  );
});

t.test('joined tokens pair with the two tokens written apart', async (t) => {
  const tables = await realNameTables();
  const cmp: TextSimilarity = (a, b, abjad) => compareTokens(a, b, abjad, DEFAULT_MATCH_OPTIONS, tables);
  const run = (a: readonly string[], b: readonly string[]): Alignment => {
    const qa = side(a, a.map(() => 5));
    const cb = side(b, b.map(() => 5));
    return alignNames(qa, cb, (i, j) => cmp(a[i]!, b[j]!, false), cmp);
  };
  const apart = run(['abdulrahman', 'ali'], ['abdul', 'rahman', 'ali']);
  const joined = apart.factors.find((f) => f.rule === 'joined');
  t.ok(joined, 'a joined factor');
  t.equal(joined?.query, 'abdulrahman');
  t.equal(joined?.candidate, 'abdul rahman');
  t.equal(apart.score, 1, 'nothing left unpaired, every pairing equal');
  t.notOk(apart.factors.some((f) => f.rule.startsWith('unmatched')));

  const reverse = run(['abdul', 'rahman', 'ali'], ['abdulrahman', 'ali']);
  t.same(
    reverse.factors.filter((f) => f.rule === 'joined').map((f) => [f.query, f.candidate]),
    [['abdul rahman', 'abdulrahman']],
  );
  t.equal(reverse.score, 1);
  // Written apart in the other order they are not the same word.
  t.notOk(run(['rahman', 'abdul'], ['abdulrahman']).factors.some((f) => f.rule === 'joined'));
});

t.test('an abjad compound joins past an unwritten initial vowel or a th read s', async (t) => {
  const tables = await realNameTables();
  const cmp: TextSimilarity = (a, b, abjad) => compareTokens(a, b, abjad, DEFAULT_MATCH_OPTIONS, tables);
  const run = (a: readonly string[], b: readonly string[], abjad: boolean): Alignment => {
    const qa: AlignSide = { texts: a, weights: a.map(() => 5), abjad: a.map(() => abjad) };
    return alignNames(qa, side(b, b.map(() => 5)), (i, j) => cmp(a[i]!, b[j]!, abjad), cmp);
  };
  const joinedOf = (a: Alignment): string | undefined => a.factors.find((f) => f.rule === 'joined')?.candidate;
  t.equal(joinedOf(run(['tyq', 'allah'], ['attiqullah'], true)), 'attiqullah', 'عتیق الله: the initial ayn is unwritten');
  t.equal(joinedOf(run(['thn', 'allah'], ['sanaullah'], true)), 'sanaullah', 'ثناء الله: th read s');
  t.equal(joinedOf(run(['obyd', 'allah'], ['ubaidullah'], true)), 'ubaidullah', 'one initial vowel for another');
  t.equal(joinedOf(run(['tyq', 'allah'], ['attiqullah'], false)), undefined, 'Latin words keep their first letter');
  t.equal(joinedOf(run(['demir'], ['awadh', 'omar'], true)), undefined, 'a vowel then another consonant is not an unwritten vowel');
});

t.test('a join needs agreement by spelling', async (t) => {
  const oracle = new Oracle();
  oracle.set('abdulrahman', 'abdulrahmen', { similarity: 0.99, rule: 'fuzzy' });
  oracle.set('abdulrahman', 'abdoulrahman', { similarity: 0.99, rule: 'phonetic' });
  const w = (xs: readonly string[]) => side(xs, xs.map(() => 3));
  t.ok(align(w(['abdulrahman']), w(['abdul', 'rahmen']), oracle).factors.some((f) => f.rule === 'joined'), 'a fuzzy join');
  t.notOk(align(w(['abdulrahman']), w(['abdoul', 'rahman']), oracle).factors.some((f) => f.rule === 'joined'), 'no phonetic join');
  const below = new Oracle();
  below.set('abdulrahman', 'abdulrahmen', { similarity: NAME_SCORE.joinFloor - 0.01, rule: 'fuzzy' });
  t.notOk(align(w(['abdulrahman']), w(['abdul', 'rahmen']), below).factors.some((f) => f.rule === 'joined'), 'below the join floor');
});

t.test('an unpaired token costs, and a weakly evidenced match is penalised', async (t) => {
  const oracle = new Oracle();
  const q = side(['maria', 'garcia'], [1, 1]);
  const c = side(['maria', 'garcia', 'lopez'], [1, 1, 1]);
  const a = align(q, c, oracle);
  t.ok(a.score < 1);
  t.ok(a.factors.some((f) => f.rule === 'unmatched_candidate_token' && f.candidate === 'lopez'));
  const rare = align(side(['laurent', 'nkunda'], [20, 20]), side(['laurent', 'nkunda', 'mihigo'], [20, 20, 1]), oracle);
  t.ok(rare.score > a.score, 'rare names carry more evidence than common ones');
  t.equal(align(side([], []), c, oracle).score, 0, 'empty query');
  t.equal(align(q, side(['x'], [0]), oracle).score, 0, 'zero candidate weight');
  const none = align(side(['a'], [1]), side(['b'], [1]), oracle);
  t.equal(none.score, 0);
  t.same(
    none.factors.map((f) => f.rule),
    ['unmatched_query_token', 'unmatched_candidate_token'],
  );
});

t.test('a shorter form of a listed name, every word equal, needs less evidence than one met by likeness', async (t) => {
  const oracle = new Oracle();
  oracle.set('garsia', 'garcia', { similarity: 0.95, rule: 'fuzzy' });
  const weak = (a: Alignment): boolean => a.factors.some((f) => f.rule === 'weak_evidence');
  const listed = side(['maria', 'garcia', 'lopez'], [6, 6, 6]);
  // 12 units of evidence: enough for a query whose words are the listed name's (partialEvidenceFull),
  t.ok(NAME_SCORE.partialEvidenceFull <= 12 && NAME_SCORE.inexactEvidenceFull > 12);
  t.notOk(weak(align(side(['maria', 'garcia'], [6, 6]), listed, oracle)), 'Maria Garcia / Maria Garcia Lopez: no penalty');
  // not for one whose words are only like them, with a word of the listed name left over.
  t.ok(weak(align(side(['maria', 'garsia'], [6, 6]), listed, oracle)), 'Maria Garsia / Maria Garcia Lopez: weak evidence');
  t.ok(weak(align(side(['maria', 'garcia'], [3, 3]), listed, oracle)), 'two common words (6 units) are not enough');
});

t.test('a listed name\'s words between the ends the query meets cost less (middleCost)', async (t) => {
  const oracle = new Oracle();
  oracle.set('fawwaz', 'fawaz', { similarity: 0.9, rule: 'fuzzy' });
  oracle.set('kahlid', 'khalid', { similarity: 0.9, rule: 'fuzzy' });
  t.ok(NAME_SCORE.middleCost < NAME_SCORE.unmatchedCost);
  const listed = side(['khalid', 'abdul', 'rahman', 'hamd', 'al', 'fawaz'], [8, 3, 5, 9, 1, 11]);
  const expected = (paired: number, agreement: number, cost: number): number => agreement / (paired + cost * (3 + 5 + 9));
  // Khalid Al-Fawwaz: first and last met, Khalid equal: the name's middle words (abdul rahman hamd) at middleCost.
  const middle = align(side(['khalid', 'al', 'fawwaz'], [8, 1, 11]), listed, oracle);
  t.ok(Math.abs(middle.score - expected(40, 16 + 2 + 0.9 * 22, NAME_SCORE.middleCost)) < 1e-9, `${middle.score}`);
  t.equal(align(side(['fawwaz', 'al', 'khalid'], [11, 1, 8]), listed, oracle).score, middle.score, 'in any order');
  // Khalid Hamd: the listed name's last word is left out too, not only its middle.
  const open = align(side(['khalid', 'hamd'], [8, 9]), listed, oracle);
  t.ok(Math.abs(open.score - (16 + 18) / (34 + NAME_SCORE.unmatchedCost * (3 + 5 + 1 + 11))) < 1e-9, `${open.score}`);
  // Neither end equal: a name that is only like the listed one's ends pays the full cost.
  const likeOnly = align(side(['kahlid', 'al', 'fawwaz'], [8, 1, 11]), listed, oracle);
  t.ok(Math.abs(likeOnly.score - expected(40, 0.9 * 16 + 2 + 0.9 * 22, NAME_SCORE.unmatchedCost)) < 1e-9, `${likeOnly.score}`);
  // An end met by a recorded spelling of the same name counts as met equal (Khaled / Khalid).
  oracle.set('khaled', 'khalid', { similarity: 0.92, rule: 'spelling' });
  const spelt = align(side(['khaled', 'al', 'fawwaz'], [8, 1, 11]), listed, oracle);
  t.ok(Math.abs(spelt.score - expected(40, 0.92 * 16 + 2 + 0.9 * 22, NAME_SCORE.middleCost)) < 1e-9, `${spelt.score}`);
});

t.test('a hyphenated given name is met whole or counts as half its evidence', async (t) => {
  const oracle = new Oracle();
  // Weights of Chinese syllables in the real index: each about as common as the others.
  const w = (texts: readonly string[]): number[] => texts.map(() => 6);
  const withCompound = (texts: readonly string[], compound: readonly number[]): AlignSide => ({ ...side(texts, w(texts)), compound });
  const scores = (q: readonly string[], compound: readonly number[], c: readonly string[]): [number, number] => [
    align(withCompound(q, compound), side(c, w(c)), oracle).score,
    align(side(q, w(q)), side(c, w(c)), oracle).score,
  ];
  const [partly, plain] = scores(['wen', 'hsiung', 'wu'], [0, 0, -1], ['nan', 'hsiung', 'wu']);
  t.ok(partly < plain, `one syllable of Wen-hsiung met (${partly} < ${plain})`);
  t.ok(align(withCompound(['wen', 'hsiung', 'wu'], [0, 0, -1]), side(['nan', 'hsiung', 'wu'], [6, 6, 6]), oracle).factors.some((f) => f.rule === 'weak_evidence'), 'the loss is shown as weak evidence');
  const [apart, apartPlain] = scores(['shu', 'chen', 'li'], [0, 0, -1], ['shu', 'sheng', 'chen']);
  t.ok(apart < apartPlain, 'syllables met by words that are not side by side');
  const [swapped, swappedPlain] = scores(['shu', 'chen', 'li'], [0, 0, -1], ['chen', 'shu', 'li']);
  t.ok(swapped < swappedPlain, 'syllables met in the other order');
  const [covering, coveringPlain] = scores(['li', 'hua', 'lim'], [0, 0, -1], ['li', 'hua']);
  t.ok(covering < coveringPlain, "the given name is all of the other name: its family name met a given name's syllable");
  t.same(scores(['jong', 'un', 'kim'], [0, 0, -1], ['kim', 'jong', 'un']), [1, 1], 'met whole, in order: nothing changes');
  t.same(scores(['li', 'hua'], [0, 0], ['li', 'hua']), [1, 1], 'a name that is only the given name, against itself');
  oracle.set('shuchen', 'shucheng', { similarity: 0.96, rule: 'fuzzy' });
  const joined = align(withCompound(['shu', 'chen', 'wang'], [0, 0, -1]), side(['wang', 'shucheng'], [6, 6]), oracle);
  t.ok(joined.factors.some((f) => f.rule === 'joined') && !joined.factors.some((f) => f.rule === 'weak_evidence'), 'met whole as one word written together');
});

t.test('findings of the first review, now fixed', async (t) => {
  // 1. Joins are skipped when every query token has an equal somewhere; one unrelated query token
  //    turns them back on, and the score rises.
  const oracle = new Oracle();
  const q = side(['abdul', 'rahman'], [1, 1]);
  const c = side(['abdul', 'rahman', 'abdulrahman'], [1, 1, 10]);
  const before = align(q, c, oracle).score;
  const after = align(side(['abdul', 'rahman', 'zz'], [1, 1, 0.1]), c, oracle).score;
  t.ok(after <= before, `adding an unrelated query token: ${before.toFixed(3)} -> ${after.toFixed(3)}`);
  // 2. The score is clamped at 0 while the factors still sum below it.
  const clamped = align(side(['j'], [3]), side(['john', 'smith', 'williams', 'brown', 'jones', 'taylor'], [3, 8, 8, 8, 8, 8]), (() => {
    const o = new Oracle();
    o.set('j', 'john', { similarity: 0.75, rule: 'initial' });
    return o;
  })());
  t.equal(clamped.score, 0);
  t.ok(Math.abs(contributionSum(clamped) - clamped.score) < 1e-9, `factors sum to ${contributionSum(clamped).toFixed(4)}`);
});
