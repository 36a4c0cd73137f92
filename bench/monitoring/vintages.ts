/**
 * What the monitoring bench publishes: the full shipped snapshot with the OFAC list replaced by an
 * older vintage of data/lists/ofac (2019, then 2021: the vintages of the index-swap tests,
 * test/index-swap/swap-fixtures.ts ofacSpec), built once each under
 * `<root>/monitoring-bench/ofac-<vintage>` and reused; and the names the 2021 SDN file designates
 * that the 2019 one does not, the subjects whose outcome a switch from 2019 to 2021 changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FORMAT_VERSION } from '../../engine/index/index-data.js';
import { readIndexMeta } from '../../engine/index/open-index.js';
import { buildIndex, parseSnapshot, type ParsedSnapshot } from '../../index-builder/build.js';
import { SHIPPED_SPEC } from '../../index-builder/locations.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { loadSnapshotSpec, withLists, type SnapshotSpec } from '../../index-builder/snapshot-spec.js';
import { ofacSpec, type Vintage } from '../../test/index-swap/swap-fixtures.js';
import { EVAL_AS_OF } from '../eval/run-eval.js';
import { naturalOrder, readCsvGz, type SubjectRow } from '../batch/subjects.js';

export const VINTAGES: readonly Vintage[] = ['2019', '2021'];

/** The shipped snapshot with OFAC from `vintage` (its sdn, alt and add files). */
export function fullSpecWithOfac(vintage: Vintage): SnapshotSpec {
  const shipped = loadSnapshotSpec(SHIPPED_SPEC);
  const ofac = ofacSpec(vintage).lists.OFAC;
  if (!ofac) throw new Error('ofacSpec gave no OFAC list');
  return withLists(shipped, { ...shipped.lists, OFAC: ofac });
}

export interface VintageIndexes {
  /** published version directory per vintage (each in its own index root) */
  readonly dirs: Readonly<Record<Vintage, string>>;
  /** null when reused */
  readonly builtMillis: number | null;
}

async function usable(dir: string | undefined): Promise<boolean> {
  if (!dir) return false;
  try {
    return (await readIndexMeta(dir)).formatVersion === INDEX_FORMAT_VERSION;
  } catch {
    return false;
  }
}

/**
 * The two versions, built when absent, of another index format, or when `fresh`. The rest of the
 * snapshot is parsed once; the 2021 OFAC files are parsed on their own and put in its place.
 */
export async function prepareVintageIndexes(root: string, fresh: boolean, log: (m: string) => void): Promise<VintageIndexes> {
  const base = path.join(root, 'monitoring-bench');
  const rootOf = (v: Vintage): string => path.join(base, `ofac-${v}`);
  const existing = Object.fromEntries(VINTAGES.map((v) => [v, fresh ? undefined : currentVersionDir(rootOf(v))])) as Record<Vintage, string | undefined>;
  if ((await usable(existing['2019'])) && (await usable(existing['2021']))) return { dirs: { '2019': existing['2019']!, '2021': existing['2021']! }, builtMillis: null };

  log(`building the full snapshot with OFAC 2019 and with OFAC 2021 under ${base} (reused by later runs; --fresh-index rebuilds them)`);
  const t0 = Date.now();
  fs.rmSync(base, { recursive: true, force: true });
  const p2019 = await parseSnapshot(fullSpecWithOfac('2019'), EVAL_AS_OF, log);
  const ofac2021 = await parseSnapshot(ofacSpec('2021'), EVAL_AS_OF, log);
  const p2021: ParsedSnapshot = { ...p2019, lists: p2019.lists.map((l) => (l.list === 'OFAC' ? ofac2021.lists.find((x) => x.list === 'OFAC')! : l)) };
  // 2019 first: version names start with the build time, so the older vintage sorts first.
  const dirs = {} as Record<Vintage, string>;
  for (const [v, parsed] of [['2019', p2019], ['2021', p2021]] as const) {
    const report = await buildIndex({ indexRoot: rootOf(v), spec: fullSpecWithOfac(v), parsed, asOf: EVAL_AS_OF, log });
    dirs[v] = report.dir;
  }
  return { dirs, builtMillis: Date.now() - t0 };
}

interface SdnRow {
  readonly entNum: string;
  readonly name: string;
  readonly type: 'person' | 'organization' | 'other';
}

function sdnRows(vintage: Vintage): SdnRow[] {
  return readCsvGz(`lists/ofac/${vintage}/sdn.csv.gz`)
    .filter((r) => r[0] && r[1])
    .map((r) => {
      const t = r[2]?.trim();
      return { entNum: r[0]!.trim(), name: r[1]!.trim(), type: t === 'individual' ? 'person' : t === '-0-' ? 'organization' : 'other' };
    });
}

/**
 * Persons and organisations on the `to` SDN file whose entry number and name are both absent from
 * the `from` file, as a bank's file would write them (persons 'First LAST'), in entry-number
 * order. Vessels and aircraft are left out.
 */
export function newlyDesignated(from: Vintage, to: Vintage): { name: string; entityType: 'person' | 'organization' }[] {
  const before = sdnRows(from);
  const nums = new Set(before.map((r) => r.entNum));
  const names = new Set(before.map((r) => r.name.toUpperCase()));
  return sdnRows(to)
    .filter((r) => r.type !== 'other' && !nums.has(r.entNum) && !names.has(r.name.toUpperCase()))
    .sort((a, b) => Number(a.entNum) - Number(b.entNum))
    .map((r) => ({ name: r.type === 'person' ? naturalOrder(r.name) : r.name, entityType: r.type as 'person' | 'organization' }));
}

/**
 * `count` of `names` taken evenly over the list, spliced into `rows` at evenly spaced places (the
 * generated rows they replace are dropped, so the total stays `rows`' length). Their references
 * are `NEW2021-<n>`.
 */
export function* withNewNames(rows: Iterable<SubjectRow>, total: number, names: readonly { name: string; entityType: 'person' | 'organization' }[], count: number): Generator<SubjectRow> {
  const k = Math.min(count, names.length, total);
  const picks = Array.from({ length: k }, (_, i) => names[Math.floor((i * names.length) / k)]!);
  const every = k > 0 ? total / k : Infinity;
  let i = 0;
  let next = 0;
  for (const r of rows) {
    if (next < k && i >= Math.floor(next * every + every / 2)) {
      const p = picks[next]!;
      next++;
      yield { userReference: `NEW2021-${String(next).padStart(5, '0')}`, name: p.name, entityType: p.entityType, dob: null, country: null, listed: true };
    } else {
      yield r;
    }
    i++;
  }
}
