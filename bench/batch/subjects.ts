/**
 * Real-looking customer files for batch tests and benchmarks: names drawn from the shipped common
 * forename and surname lists (each with its country), and a chosen share of names that are on the
 * OFAC SDN list (the 2024 file), so a screen of the file finds real matches. Deterministic for a
 * seed, streamed (a million rows never sit in memory).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { SHIPPED_DATA_DIR } from '../../index-builder/locations.js';

export interface SubjectRow {
  readonly userReference: string;
  readonly name: string;
  readonly entityType: 'person' | 'organization';
  readonly dob: string | null;
  readonly country: string | null;
  /** true when the name was taken from the SDN list */
  readonly listed: boolean;
}

interface Pools {
  readonly forenames: readonly { country: string; name: string }[];
  readonly surnames: Readonly<Record<string, readonly string[]>>;
  readonly listed: readonly { name: string; type: 'person' | 'organization' }[];
}

let pools: Pools | undefined;

export function readCsvGz(rel: string): string[][] {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(SHIPPED_DATA_DIR, rel))).toString('utf8').replace(/^\uFEFF/, '');
  return parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
}

/** "MUROV, Evgeniy Alekseyevich" → "Evgeniy Alekseyevich MUROV": how a bank's file would write it. */
export function naturalOrder(sdnName: string): string {
  const comma = sdnName.indexOf(', ');
  return comma < 0 ? sdnName : `${sdnName.slice(comma + 2)} ${sdnName.slice(0, comma)}`;
}

export function namePools(): Pools {
  if (pools) return pools;
  const forenames = readCsvGz('names/common-forenames-by-country.csv.gz')
    .slice(1)
    .filter((r) => /^[\p{L}' .-]+$/u.test(r[11] ?? ''))
    .map((r) => ({ country: r[0]!, name: r[11]! }));
  const surnames: Record<string, string[]> = {};
  for (const r of readCsvGz('names/common-surnames-by-country.csv.gz').slice(1)) {
    const name = r[5] ?? '';
    if (!/^[\p{L}' .-]+$/u.test(name)) continue;
    (surnames[r[0]!] ??= []).push(name);
  }
  const listed = readCsvGz('lists/ofac/2024/sdn.csv.gz')
    .filter((r) => r[2]?.trim() === 'individual' || r[2]?.trim() === '-0-')
    .map((r) => ({ name: r[2]!.trim() === 'individual' ? naturalOrder(r[1]!) : r[1]!, type: r[2]!.trim() === 'individual' ? ('person' as const) : ('organization' as const) }));
  pools = { forenames: forenames.filter((f) => surnames[f.country]), surnames, listed };
  return pools;
}

/** mulberry32: a small, fast, seedable generator (the same file for the same seed). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function* subjectRows(count: number, opts: { listedShare?: number; seed?: number } = {}): Generator<SubjectRow> {
  const p = namePools();
  const rnd = random(opts.seed ?? 1);
  const share = opts.listedShare ?? 0.02;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  for (let i = 1; i <= count; i++) {
    const userReference = `CUST-${String(i).padStart(7, '0')}`;
    const year = 1940 + Math.floor(rnd() * 65);
    const dob = rnd() < 0.7 ? `${year}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}` : null;
    if (rnd() < share) {
      const l = pick(p.listed);
      yield { userReference, name: l.name, entityType: l.type, dob: l.type === 'person' ? dob : null, country: null, listed: true };
      continue;
    }
    const f = pick(p.forenames);
    const surname = pick(p.surnames[f.country]!);
    yield { userReference, name: `${f.name} ${surname}`, entityType: 'person', dob, country: f.country, listed: false };
  }
}

function csvCell(v: string | null): string {
  if (v === null) return '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Writes `rows` as a CSV file with a header (name, dob, country, entityType, userReference); returns the row count. */
export async function writeSubjectsCsv(file: string, rows: Iterable<SubjectRow>): Promise<number> {
  const out = fs.createWriteStream(file);
  let n = 0;
  let buf = 'userReference,name,entityType,dob,country\n';
  for (const r of rows) {
    buf += `${r.userReference},${csvCell(r.name)},${r.entityType},${r.dob ?? ''},${r.country ?? ''}\n`;
    n++;
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
  return n;
}
