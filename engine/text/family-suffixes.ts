/**
 * Family-name and patronymic endings that make a surname of a root: Abdullah -> Abdullaev,
 * Jafari -> Jafarov, Hasan -> Hasanović, Bondar -> Bondarenko, Popov -> Popovski. Two surnames on
 * one root with different endings are different family names (often of different countries), not
 * two spellings of one, however alike their letters look; the spellings of one ending (-ov, -off,
 * -ow; -ović, -ovich, -ovych; -ski, -sky, -skiy) are one class, so Ivanov / Ivanoff or Kozlovski /
 * Kozlovsky still compare by their letters.
 *
 * The endings are those of the Slavic, Baltic-Caucasian, Turkic and Persian surname systems as
 * romanised on the sanctions lists and in Wikidata; the longest ending that leaves a root of at
 * least `MIN_ROOT` letters wins.
 */
const CLASSES: Readonly<Record<string, readonly string[]>> = {
  ov: ['ov', 'ova', 'ev', 'eva', 'yev', 'yeva', 'iev', 'ieva', 'off', 'ow', 'owa', 'ew'],
  ovic: ['ovic', 'ovich', 'ovitch', 'ovych', 'evic', 'evich', 'evych', 'ovna', 'evna', 'ivna'],
  ic: ['ic', 'ich', 'icz', 'itch', 'ych'],
  ski: ['ski', 'sky', 'skiy', 'skyi', 'skij', 'skii', 'ska', 'skaya', 'skaja'],
  enko: ['enko'],
  uk: ['yuk', 'iuk', 'chuk'],
  yan: ['yan', 'ian', 'yants'],
  zade: ['zade', 'zadeh'],
  oglu: ['oglu', 'oglou', 'ogly'],
  nisba: ['i', 'y', 'iy', 'ee', 'ie'],
};

/** A root shorter than this is a short name, not a root with an ending (Ali, Eva, Lev). */
export const MIN_ROOT = 3;

const ENDINGS: readonly (readonly [string, string])[] = Object.entries(CLASSES)
  .flatMap(([cls, endings]) => endings.map((e) => [e, cls] as const))
  .sort((a, b) => b[0].length - a[0].length);

/** The class of the token's family-name ending, or undefined when it has none. */
export function familySuffixOf(token: string): string | undefined {
  for (const [ending, cls] of ENDINGS) {
    if (token.length - ending.length >= MIN_ROOT && token.endsWith(ending)) return cls;
  }
  return undefined;
}
