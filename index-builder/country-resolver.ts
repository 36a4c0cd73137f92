/**
 * Loads the country resolver from the data folder (data/names/rigour/territories.jsonl.gz, or the
 * uncompressed file when that is what the folder holds).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CountryResolver } from '../engine/countries.js';
import { ListParseError } from './parsed-list.js';
import { readSourceFile } from './source-file.js';

export const TERRITORIES_PATH = join('names', 'rigour', 'territories.jsonl');

export async function loadCountryResolver(dataDir: string): Promise<CountryResolver> {
  const plain = join(dataDir, TERRITORIES_PATH);
  const path = existsSync(plain) ? plain : `${plain}.gz`;
  const { bytes } = await readSourceFile(path, 'territories');
  try {
    return CountryResolver.fromJsonl(bytes.toString('utf8'));
  } catch (err) {
    throw new ListParseError(path, undefined, (err as Error).message);
  }
}
