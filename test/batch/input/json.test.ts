import t from 'tap';
import fc from 'fast-check';
import { jsonArrayElements, jsonLines, parseArrayElement } from '../../../server/batch/input/json.js';
import { BatchFileError } from '../../../server/batch/input/errors.js';
import { collect, thrown } from './helpers.js';

async function* chunked(text: string, cuts: readonly number[]): AsyncGenerator<string> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= from || cut >= text.length) continue;
    yield text.slice(from, cut);
    from = cut;
  }
  yield text.slice(from);
}

async function elements(text: string, cuts: readonly number[] = []): Promise<unknown[]> {
  return (await collect(jsonArrayElements(chunked(text, cuts)))).flat().map(parseArrayElement);
}

async function failure(text: string): Promise<unknown> {
  return thrown(() => elements(text));
}

t.test('property: any array, compact or pretty, any chunking, read element by element', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }),
      fc.constantFrom(undefined, 2, '\t'),
      fc.array(fc.nat({ max: 600 }), { maxLength: 6 }),
      async (values, indent, cuts) => {
        const text = JSON.stringify(values, null, indent);
        const read = await elements(text, cuts);
        const expected = JSON.parse(text) as unknown[];
        if (JSON.stringify(read) !== JSON.stringify(expected)) throw new Error(`read ${JSON.stringify(read)} from ${text}`);
      },
    ),
    { numRuns: 300 },
  );
});

t.test('element positions', async (t) => {
  const text = '[\n  {"name": "A"},\n  {"name": "B"\n  }, 3\n]\n';
  const els = (await collect(jsonArrayElements(chunked(text, [])))).flat();
  t.same(
    els.map((e) => [e.line, e.column]),
    [
      [2, 3],
      [3, 3],
      [4, 6],
    ],
  );
});

t.test('syntax errors are file errors with line and column', async (t) => {
  const cases: [string, string][] = [
    ['[\n {"name": "A"},\n {"name": "B",}\n]', 'line 3: column 15: Expected double-quoted property name'],
    ['[\n {"name": "A"}\n {"name": "B"}\n]', "line 3: column 2: expected ',' or ']' after an array element"],
    ['[{"name": "A"},]', "line 1: column 16: a comma before ']' (trailing comma)"],
    ['[{"name": "A"}', "line 1: the file ends before the array is closed (a missing ']'?)"],
    ['[{"name": "A"', "line 1: column 2: the file ends inside this object (a missing }?)"],
    ['[{"name": "A}\n,{"name": "B"}]', 'line 1: column 11: a string is not closed on its line (a missing "?)'],
    ['{"name": "A"}', 'line 1: column 1: expected a JSON array ([...]); one object per line is JSON Lines (.jsonl)'],
    ['[{"name": "A"}] x', "line 1: column 17: unexpected text after the closing ']'"],
    ['[{"name": tru}]', "line 1: column 2: Unexpected token '}'"],
  ];
  for (const [text, detail] of cases) {
    const err = await failure(text);
    t.ok(err instanceof BatchFileError, text);
    t.match(err, { code: 'malformed', detail }, text);
  }
  t.match(await failure('  \n '), { code: 'empty' });
});

t.test('JSON Lines: blank lines skipped, line numbers kept, CRLF', async (t) => {
  const text = '{"name":"A"}\r\n\r\n  \n{"name":"B"}\n{"name":"C"}';
  for (const cuts of [[], [3], [13, 14, 15], [20, 30]]) {
    const lines = (await collect(jsonLines(chunked(text, cuts)))).flat();
    t.same(
      lines.map((l) => [l.line, l.text]),
      [
        [1, '{"name":"A"}'],
        [4, '{"name":"B"}'],
        [5, '{"name":"C"}'],
      ],
      `cuts ${cuts.join(',')}`,
    );
  }
});
