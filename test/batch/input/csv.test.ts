import t from 'tap';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvRecords, detectDelimiter } from '../../../server/batch/input/csv.js';
import { BatchFileError } from '../../../server/batch/input/errors.js';
import { readRows } from '../../../server/batch/input/readers.js';
import { firstInvalidUtf8, utf8Chunks } from '../../../server/batch/input/text.js';
import { collect, tempDir, thrown } from './helpers.js';

async function* chunked(text: string, cuts: readonly number[]): AsyncGenerator<string> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= from || cut >= text.length) continue;
    yield text.slice(from, cut);
    from = cut;
  }
  yield text.slice(from);
}

async function records(text: string, cuts: readonly number[] = []): Promise<{ fields: readonly string[]; line: number }[]> {
  return (await collect(csvRecords(chunked(text, cuts)))).flat();
}

t.test('delimiter: the most frequent of comma, semicolon, tab in the header line, outside quotes', async (t) => {
  t.equal(detectDelimiter('name,dob,country\n'), ',');
  t.equal(detectDelimiter('\ufeffname;dob;country\r\na,b;c'), ';');
  t.equal(detectDelimiter('name\tdob\tcountry\n'), '\t');
  t.equal(detectDelimiter('"Name, full";dob\n'), ';', 'a comma inside quotes does not count');
  t.equal(detectDelimiter('name\n'), ',', 'one column: comma');
  t.equal(detectDelimiter('\n\nname;dob'), ';', 'leading blank lines');
});

t.test('records: quotes, embedded line breaks, CRLF, blank lines, line numbers', async (t) => {
  const text = 'name,dob\r\n"Smith, John",1970\r\n\r\n"Multi\r\nline ""quoted""",\r\nO"Brien,1971\r\nlast,1972';
  const expected = [
    { fields: ['name', 'dob'], line: 1 },
    { fields: ['Smith, John', '1970'], line: 2 },
    { fields: ['Multi\r\nline "quoted"', ''], line: 4 },
    { fields: ['O"Brien', '1971'], line: 6 },
    { fields: ['last', '1972'], line: 7 },
  ];
  t.same(await records(text), expected);
  for (let cut = 1; cut < text.length; cut++) t.same(await records(text, [cut]), expected, `cut at ${cut}`);
});

t.test('records: broken quoting is a file error at the line of the record', async (t) => {
  const unclosed = await thrown(() => records('name,dob\nok,1\n"Smith, John,1970\nnext,1\n'));
  t.ok(unclosed instanceof BatchFileError);
  t.match(unclosed, { code: 'malformed', line: 3, detail: /^line 3: a quoted value is not closed/u });
  const after = await thrown(() => records('name,dob\n"Smith" Jr,1970\n'));
  t.match(after, { code: 'malformed', line: 2, detail: /^line 2: unexpected text after a closing quote/u });
});

/** CSV text of records, quoting where needed (and sometimes where not). */
function serialise(rows: readonly (readonly string[])[], delimiter: string, eol: string, quoteAll: boolean): string {
  return rows
    .map((r) => r.map((v) => (quoteAll || v === '' || v.includes(delimiter) || /["\r\n]/u.test(v) ? `"${v.replace(/"/gu, '""')}"` : v)).join(delimiter))
    .join(eol);
}

t.test('property: any records, any delimiter, any chunking, read back as written', async () => {
  const value = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', ';', '\t', '"', '\n', '\r\n', 'é', '名', '😀'), maxLength: 8 });
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }).chain((width) => fc.array(fc.array(value, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 12 })),
      fc.constantFrom(',', ';', '\t'),
      fc.constantFrom('\n', '\r\n'),
      fc.boolean(),
      fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
      async (rows, delimiter, eol, quoteAll, cuts) => {
        // A record of one empty value is a blank line, which the reader skips: quote it.
        const text = serialise(rows, delimiter, eol, quoteAll) + eol;
        const read = (await collect(csvRecords(chunked(text, cuts), delimiter))).flat().map((r) => r.fields);
        const expected = rows.map((r) => r.map((v) => v));
        if (JSON.stringify(read) !== JSON.stringify(expected)) throw new Error(`read ${JSON.stringify(read)} from ${JSON.stringify(text)}`);
      },
    ),
    { numRuns: 300 },
  );
});

t.test('UTF-8 only: a BOM is dropped, Windows-1252 and UTF-16 are file errors with the line', async (t) => {
  const dir = tempDir('batch-utf8');
  const bom = join(dir, 'bom.csv');
  writeFileSync(bom, '\ufeffname;country\r\nLaia García;ES\r\n');
  t.same((await collect(readRows(bom, 'csv'))).map((r) => r.subject), [{ name: 'Laia García', country: 'ES' }]);

  const latin1 = join(dir, 'latin1.csv');
  writeFileSync(latin1, Buffer.from('name,country\nEmilia Muller,DE\nLaia Garc\xeda,ES\n', 'latin1'));
  const err = await thrown(() => collect(readRows(latin1, 'csv')));
  t.ok(err instanceof BatchFileError);
  t.match(err, { code: 'not_utf8', line: 3, detail: /^line 3: not UTF-8 text \(byte 0xED at offset 39\)/u });

  const utf16 = join(dir, 'utf16.csv');
  writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name\nx\n', 'utf16le')]));
  t.match(await thrown(() => collect(readRows(utf16, 'csv'))), { code: 'not_utf8', detail: /UTF-16/u });

  const cut = join(dir, 'cut.csv');
  writeFileSync(cut, Buffer.concat([Buffer.from('name\nAoi Sat'), Buffer.from('ō').subarray(0, 1)]));
  t.match(await thrown(() => collect(readRows(cut, 'csv'))), { code: 'not_utf8', line: 2 });

  t.equal(firstInvalidUtf8(Buffer.from('abc')), 3);
  t.equal(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80])), 1, 'overlong');
  t.equal(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80])), 1, 'surrogate');
  t.equal(firstInvalidUtf8(Buffer.from('名😀')), 7);
});

t.test('utf8Chunks: characters cut by chunk boundaries survive', async (t) => {
  const dir = tempDir('batch-chunks');
  const file = join(dir, 'big.txt');
  const text = '名😀é,'.repeat(200_000); // > 1 chunk, every boundary lands somewhere inside a character
  writeFileSync(file, text);
  const chunks = await collect(utf8Chunks(file));
  t.ok(chunks.length > 1, `${chunks.length} chunks`);
  t.equal(chunks.join(''), text);
});
