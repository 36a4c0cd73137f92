/**
 * Dominant writing system of a name, as an ISO 15924 code (https://unicode.org/iso15924/),
 * decided from the Unicode Script property of its letters (UAX #24). Digits, punctuation,
 * combining marks and letters of the Common script (e.g. the Katakana length mark) do not vote.
 * Japanese names are reported by their kana (Hira or Kana) or, when written only in kanji, Hani:
 * ISO 15924's "Jpan" is a union code that a per-letter count cannot produce.
 */

const SCRIPTS: readonly (readonly [code: string, pattern: RegExp])[] = [
  ['Latn', /\p{Script=Latin}/u],
  ['Cyrl', /\p{Script=Cyrillic}/u],
  ['Arab', /\p{Script=Arabic}/u],
  ['Hani', /\p{Script=Han}/u],
  ['Grek', /\p{Script=Greek}/u],
  ['Hang', /\p{Script=Hangul}/u],
  ['Hebr', /\p{Script=Hebrew}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Geor', /\p{Script=Georgian}/u],
  ['Armn', /\p{Script=Armenian}/u],
  ['Deva', /\p{Script=Devanagari}/u],
  ['Hira', /\p{Script=Hiragana}/u],
  ['Kana', /\p{Script=Katakana}/u],
  ['Ethi', /\p{Script=Ethiopic}/u],
  ['Beng', /\p{Script=Bengali}/u],
  ['Guru', /\p{Script=Gurmukhi}/u],
  ['Gujr', /\p{Script=Gujarati}/u],
  ['Orya', /\p{Script=Oriya}/u],
  ['Taml', /\p{Script=Tamil}/u],
  ['Telu', /\p{Script=Telugu}/u],
  ['Knda', /\p{Script=Kannada}/u],
  ['Mlym', /\p{Script=Malayalam}/u],
  ['Sinh', /\p{Script=Sinhala}/u],
  ['Mymr', /\p{Script=Myanmar}/u],
  ['Khmr', /\p{Script=Khmer}/u],
  ['Laoo', /\p{Script=Lao}/u],
  ['Tibt', /\p{Script=Tibetan}/u],
  ['Mong', /\p{Script=Mongolian}/u],
  ['Syrc', /\p{Script=Syriac}/u],
  ['Thaa', /\p{Script=Thaana}/u],
  ['Tfng', /\p{Script=Tifinagh}/u],
  ['Cher', /\p{Script=Cherokee}/u],
  ['Bopo', /\p{Script=Bopomofo}/u],
  ['Yiii', /\p{Script=Yi}/u],
];

const LETTER = /\p{L}/u;
const COMMON_OR_INHERITED = /[\p{Script=Common}\p{Script=Inherited}]/u;

/** Script of one letter, or undefined for Common/Inherited letters. */
function scriptOfLetter(ch: string, code: number): string | undefined {
  // Fast path: ASCII and Latin-1/Latin Extended letters are the bulk of every list.
  if (code < 0x250) return 'Latn';
  // Blocks whose letters all belong to one script, before the regex table.
  if (code >= 0x400 && code <= 0x52f) return 'Cyrl';
  if (code >= 0x600 && code <= 0x6ff) return 'Arab';
  if (code >= 0x4e00 && code <= 0x9fff) return 'Hani';
  if (code >= 0xac00 && code <= 0xd7a3) return 'Hang';
  for (const [name, pattern] of SCRIPTS) if (pattern.test(ch)) return name;
  return COMMON_OR_INHERITED.test(ch) ? undefined : 'Zzzz';
}

/**
 * The ISO 15924 code of the script most letters of `text` belong to; ties go to the script seen
 * first. 'Zyyy' (Common) when the text has no letters, 'Zzzz' when the letters are of a script
 * not in the table above.
 */
export function detectScript(text: string): string {
  const counts = new Map<string, number>();
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x80) {
      if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) counts.set('Latn', (counts.get('Latn') ?? 0) + 1);
      continue;
    }
    if (!LETTER.test(ch)) continue;
    const script = scriptOfLetter(ch, code);
    if (script !== undefined) counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  let best = 'Zyyy';
  let bestCount = 0;
  for (const [script, count] of counts) {
    if (count > bestCount) {
      best = script;
      bestCount = count;
    }
  }
  return best;
}
