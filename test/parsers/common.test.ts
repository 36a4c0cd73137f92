import t from 'tap';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectScript } from '../../engine/script.js';
import { ListParseError } from '../../index-builder/parsed-list.js';
import { readSourceFile } from '../../index-builder/source-file.js';
import {
  NameList,
  decodeText,
  dmySlashDate,
  naturalOrder,
  normalizeIsoDate,
  parseCsvRows,
  parseEnglishDate,
} from '../../index-builder/parsers/common.js';
import { tempDir } from './fixtures/helpers.js';

t.test('naturalOrder puts the surname last', async (t) => {
  t.equal(naturalOrder('AL ZAWAHIRI, Dr. Ayman'), 'Dr. Ayman AL ZAWAHIRI');
  t.equal(naturalOrder('AL-ZAWAHIRI, Ayman'), 'Ayman AL-ZAWAHIRI');
  t.equal(naturalOrder('DELOS REYES, Feliciano Semborio, Jr.'), 'Feliciano Semborio DELOS REYES Jr.');
  t.equal(naturalOrder('HIZBALLAH'), 'HIZBALLAH');
  t.equal(naturalOrder('  SMITH ,  John  '), 'John SMITH');
});

t.test('NameList: trims, drops empties and exact duplicates, keeps the primary first', async (t) => {
  const names = new NameList();
  names.add('  Ayman   AL-ZAWAHIRI ', 'alias');
  names.add('', 'alias');
  names.add('Ayman AL-ZAWAHIRI', 'alias');
  names.add('Ayman AL-ZAWAHIRI', 'weak_alias');
  names.add('Dr. Ayman AL ZAWAHIRI', 'primary');
  names.add('Another Primary', 'primary');
  names.add('أيمن الظواهري', 'alias');
  t.same(
    names.toArray().map((n) => [n.full, n.kind, n.script]),
    [
      ['Dr. Ayman AL ZAWAHIRI', 'primary', 'Latn'],
      ['Ayman AL-ZAWAHIRI', 'alias', 'Latn'],
      ['Ayman AL-ZAWAHIRI', 'weak_alias', 'Latn'],
      ['Another Primary', 'alias', 'Latn'],
      ['أيمن الظواهري', 'alias', 'Arab'],
    ],
  );
  const noPrimary = new NameList();
  noPrimary.add('weak', 'weak_alias');
  noPrimary.add('strong', 'alias');
  t.same(noPrimary.toArray().map((n) => [n.full, n.kind]), [['strong', 'primary'], ['weak', 'weak_alias']], 'first strong alias promoted');
});

t.test('date helpers', async (t) => {
  t.equal(parseEnglishDate('19 Jun 1951'), '1951-06-19');
  t.equal(parseEnglishDate('Jun 1951'), '1951-06');
  t.equal(parseEnglishDate('1951'), '1951');
  t.equal(parseEnglishDate('circa 1960'), '1960');
  t.equal(parseEnglishDate('1955 to 1957'), '1955/1957');
  t.equal(parseEnglishDate('01 Jan 1960 to 31 Dec 1962'), '1960/1962');
  t.equal(parseEnglishDate('01 Jan 1960 to 31 Dec 1960'), '1960', 'a range inside one year is that year');
  t.equal(parseEnglishDate('01 Mar 1960 to 31 Mar 1960'), '1960-03', 'a range inside one month is that month');
  t.equal(parseEnglishDate('circa 1960-1962'), '1960/1962');
  t.equal(parseEnglishDate('Nov. 1973'), '1973-11');
  t.equal(parseEnglishDate('31 Feb 1960'), undefined, 'invalid calendar date');
  t.equal(parseEnglishDate('30-35 years old'), undefined);
  t.equal(dmySlashDate('00/00/1980'), '1980');
  t.equal(dmySlashDate('00/05/1980'), '1980-05');
  t.equal(dmySlashDate('24/11/1968'), '1968-11-24');
  t.equal(dmySlashDate('1951'), '1951');
  t.equal(dmySlashDate('05/1973'), '1973-05');
  t.equal(dmySlashDate('32/01/1980'), undefined);
  t.equal(normalizeIsoDate('2012-02-30'), undefined);
  t.equal(normalizeIsoDate(' 2012-02 '), '2012-02');
});

t.test('parseCsvRows', async (t) => {
  const text = 'a,"b, with comma","say ""hi"""\r\n\r\n1,"two\nlines",3\r\nx,y,z\r\n\x1a';
  const rows = parseCsvRows(text, 'f.csv', { expectedFields: 3 });
  t.same(rows.map((r) => r.fields), [['a', 'b, with comma', 'say "hi"'], ['1', 'two\nlines', '3'], ['x', 'y', 'z']]);
  t.same(rows.map((r) => r.line), [1, 3, 5], 'start lines count blank lines and newlines inside quotes');
  t.same(parseCsvRows('\ufeffh1,h2\n1,2', 'f').map((r) => r.fields), [['h1', 'h2'], ['1', '2']], 'BOM dropped');
  t.same(parseCsvRows('a,,\n', 'f')[0]?.fields, ['a', '', ''], 'empty fields kept');

  t.throws(() => parseCsvRows('1,2,3\n4,5\n', 'f.csv', { expectedFields: 3 }), { name: 'ListParseError', file: 'f.csv', line: 2 });
  t.throws(() => parseCsvRows('1,2,3\n4,5,"six\nseven', 'cut.csv', { expectedFields: 3 }), { name: 'ListParseError', file: 'cut.csv', line: 2 }, 'unterminated quote: line where the record starts');
  t.throws(() => parseCsvRows('1,"2"x,3\n', 'f.csv'), { name: 'ListParseError', line: 1 });
});

t.test('decodeText: UTF-8 with or without BOM, else Windows-1252', async (t) => {
  t.same(decodeText(Buffer.from('\ufeffLéonard', 'utf8')), { text: 'Léonard', encoding: 'utf-8' });
  t.same(decodeText(Buffer.from('Léonard', 'utf8')), { text: 'Léonard', encoding: 'utf-8' });
  // 0xE9 é, 0x92 right single quote, 0x96 en dash, 0x80 euro sign in Windows-1252
  t.same(decodeText(Buffer.from([0x4c, 0xe9, 0x92, 0x96, 0x80])), { text: 'Lé’–€', encoding: 'windows-1252' });
});

t.test('detectScript', async (t) => {
  t.equal(detectScript('Vladimir Putin'), 'Latn');
  t.equal(detectScript('Владимир Путин'), 'Cyrl');
  t.equal(detectScript('صنایع شیمیایی پارچین'), 'Arab');
  t.equal(detectScript('金正恩'), 'Hani');
  t.equal(detectScript('김정은'), 'Hang');
  t.equal(detectScript('Αλέξης Τσίπρας'), 'Grek');
  t.equal(detectScript('בנימין נתניהו'), 'Hebr');
  t.equal(detectScript('ประยุทธ์ จันทร์โอชา'), 'Thai');
  t.equal(detectScript('მიხეილ სააკაშვილი'), 'Geor');
  t.equal(detectScript('Նիկոլ Փաշինյան'), 'Armn');
  t.equal(detectScript('नरेन्द्र मोदी'), 'Deva');
  t.equal(detectScript('ひらがな'), 'Hira');
  t.equal(detectScript('カタカナー'), 'Kana', 'the length mark (Common) does not vote');
  t.equal(detectScript('ዐቢይ አሕመድ'), 'Ethi');
  t.equal(detectScript('1234 -- ()'), 'Zyyy');
  t.equal(detectScript(''), 'Zyyy');
  t.equal(detectScript('ЗАДАЧИН Андрей A.'), 'Cyrl', 'dominant script wins');
});

t.test('readSourceFile', async (t) => {
  const dir = tempDir('source-file');
  const plain = join(dir, 'list.csv');
  writeFileSync(plain, 'a,b\n');
  const read = await readSourceFile(plain, 'csv');
  t.equal(read.bytes.toString(), 'a,b\n');
  t.same(read.info, { role: 'csv', name: 'list.csv', sha256: createHash('sha256').update('a,b\n').digest('hex'), bytes: 4 });

  const gz = join(dir, 'list.csv.gz');
  const compressed = gzipSync(Buffer.from('x,y\n'.repeat(1000)));
  writeFileSync(gz, compressed);
  const unzipped = await readSourceFile(gz, 'csv');
  t.equal(unzipped.bytes.length, 4000, 'decompressed');
  t.equal(unzipped.info.bytes, compressed.length, 'info describes the stored (compressed) bytes');

  const cut = join(dir, 'cut.csv.gz');
  writeFileSync(cut, compressed.subarray(0, Math.floor(compressed.length / 2)));
  await t.rejects(readSourceFile(cut, 'csv'), { name: 'ListParseError', file: cut, line: undefined, message: /truncated gzip/ });

  const missing = join(dir, 'missing.csv');
  await t.rejects(readSourceFile(missing, 'csv'), new ListParseError(missing, undefined, 'file not found'));
});
