/**
 * Retrieval keys of one normalised token (DESIGN.md, "Matching" step 2). The same functions build
 * the index and expand a query, so both sides always derive identical keys.
 */
import { phoneticCodes } from '../metrics/double-metaphone.js';
import { consonantSkeletons, vowelSkeleton, vowelSkeletons, writtenSkeletons } from '../metrics/consonant-skeleton.js';
import { memoByString } from '../memo.js';
import { cyrillicReadings, MIN_CYRILLIC_SPELLING } from '../metrics/cyrillic-spelling.js';

/** Tokens shorter than this get no deletion variants: one deletion of "li" matches half the index. */
export const MIN_DELETION_TOKEN = 4;
/** Tokens shorter than this get no trigram key: deletion variants already cover their typos. */
export const MIN_TRIGRAM_TOKEN = 5;
/**
 * Skeleton keys are indexed from two consonants: an abjad word that short (گل gl, جانان jnn) is
 * found only by its skeleton. Latin query words look up from three: a two-consonant skeleton is
 * shared by too many words to be worth the walk for a spelling that other keys already reach.
 */
export const MIN_SKELETON = 2;
export const MIN_LATIN_SKELETON = 3;

/** Phonetic codes, kept per token: a worker sees the same given names and surnames over and over. */
export const tokenPhoneticCodes: (token: string) => readonly string[] = memoByString(phoneticCodes, 200_000);

/**
 * The token with one character deleted, for every position (symmetric deletion, as in Garbe's
 * SymSpell): two tokens within one substitution, insertion, deletion or adjacent transposition of
 * each other share the token itself or one of these variants.
 */
export function deletionVariants(token: string): string[] {
  if (token.length < MIN_DELETION_TOKEN) return [];
  const out: string[] = [];
  for (let i = 0; i < token.length; i++) {
    if (i > 0 && token[i] === token[i - 1]) continue; // same variant as the previous position
    out.push(token.slice(0, i) + token.slice(i + 1));
  }
  return out;
}

/** Character trigrams with start and end markers: "ali" -> ^al, ali, li$ (distinct, in order). */
export function tokenTrigrams(token: string): string[] {
  if (token.length < MIN_TRIGRAM_TOKEN) return [];
  const padded = `^${token}$`;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return [...out];
}

/** The token's consonant skeletons (both readings of a consonant before h) of at least `min` consonants. */
export function tokenSkeletons(token: string, min = MIN_SKELETON): readonly string[] {
  if (!/[a-z]/.test(token)) return [];
  return consonantSkeletons(token).filter((s) => s.length >= min);
}

/** A skeleton needs this many consonants to have one-consonant neighbours worth a key. */
export const MIN_SKELETON_NEIGHBOUR = 4;

/**
 * Keys of the skeletons within one consonant of the token's (symmetric deletion over consonant
 * skeletons, marked "~" apart from the skeletons themselves): Nureldine (NRLDN) and Nourredine
 * (NRDN), Pejman (PJMN) and Pezhman (PZMN), Sajirun and Sahiron share one, where no letter key
 * reaches across two or three letters changed. Skeletons of MIN_SKELETON_NEIGHBOUR consonants or
 * more: the neighbours of a shorter one are shared by too many words.
 */
export function skeletonNeighbourKeys(token: string): readonly string[] {
  const out = new Set<string>();
  for (const s of tokenSkeletons(token, MIN_SKELETON_NEIGHBOUR)) {
    out.add(`~${s}`);
    for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[i - 1]) out.add(`~${s.slice(0, i)}${s.slice(i + 1)}`);
  }
  return [...out];
}

/**
 * The key of a word whose consonant skeleton is too short to be one (fewer than MIN_SKELETON
 * consonants, because w and y are read as the long vowels they write): its skeleton with the long
 * vowels (vowelSkeleton), marked "^". ولی (wly) and Wali are both U-L-I, which the token rules pair
 * (a romanisation may add only short vowels) and no other key reaches.
 */
export function shortWordKeys(token: string): readonly string[] {
  if (!/[a-z]/.test(token) || writtenSkeletons(token).some((s) => s.length >= MIN_SKELETON)) return [];
  const v = vowelSkeleton(token);
  return v.length >= 2 ? [`^${v}`] : [];
}

/**
 * The short-word keys an abjad-script query word looks up: one per reading of its consonants
 * (vowelSkeletons) when some reading leaves fewer than MIN_SKELETON consonants. ضیا (dhy) has a
 * skeleton of two in one reading (d, h) and so no key of its own, but read with dh as one letter it
 * is Z-I, the key of Zia.
 */
export function shortWordQueryKeys(token: string): readonly string[] {
  if (!/[a-z]/.test(token) || !writtenSkeletons(token).some((s) => s.length < MIN_SKELETON)) return [];
  return vowelSkeletons(token)
    .filter((v) => v.length >= 2)
    .map((v) => `^${v}`);
}

/**
 * The keys of the Cyrillic letters a word can spell, one per reading (cyrillic-spelling.ts), marked
 * "=": Jurij and Yuri, Ihor and Igor, Radzkou and Radkov share no letter, sound or skeleton key.
 * Filed for every word, looked up for every query word; the token rules pair the two only for names
 * romanised from Cyrillic.
 */
export function cyrillicReadingKeys(token: string): readonly string[] {
  return cyrillicReadings(token)
    .filter((reading) => reading.length >= MIN_CYRILLIC_SPELLING)
    .map((reading) => `=${reading}`);
}

/** The retrieval keys the index holds for one dictionary token, by key family. */
export interface IndexedTokenKeys {
  readonly deletion: readonly string[];
  readonly phonetic: readonly string[];
  readonly trigram: readonly string[];
  readonly skeleton: readonly string[];
}

/**
 * Every key the index builder files a token under: the one list of key families, read by the
 * builder and by the check that an index holds the keys today's engine looks up
 * (engine/index/index-drift.ts). A token seen only as two name words written together (not
 * `real`) gets no sound, trigram or skeleton keys: they would let "victorpetrovich" pass for a
 * misspelling of "victorovich"; one typo of it is still found.
 */
export function indexedTokenKeys(token: string, real: boolean): IndexedTokenKeys {
  const deletion = [token, ...deletionVariants(token)];
  if (!real) return { deletion, phonetic: [], trigram: [], skeleton: [] };
  return {
    deletion,
    phonetic: tokenPhoneticCodes(token),
    trigram: tokenTrigrams(token),
    skeleton: [...tokenSkeletons(token), ...skeletonNeighbourKeys(token), ...shortWordKeys(token), ...cyrillicReadingKeys(token)],
  };
}
