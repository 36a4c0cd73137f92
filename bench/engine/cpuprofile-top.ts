/**
 * Top self-time functions of a V8 CPU profile (node --cpu-prof), and self time per source file:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof dist/bench/engine/bench-engine.js --only engine
 *   node dist/bench/engine/cpuprofile-top.js /tmp/prof/<file>.cpuprofile [top=25]
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface SelfTime {
  readonly name: string;
  readonly where: string;
  readonly micros: number;
  readonly share: number;
}

function shortUrl(url: string): string {
  if (!url) return '(native)';
  const p = url.replace(/^file:\/\//, '');
  const i = p.indexOf('/dist/');
  if (i >= 0) return p.slice(i + 6);
  const n = p.indexOf('/node_modules/');
  return n >= 0 ? p.slice(n + 1) : p.startsWith('node:') ? p : path.basename(p);
}

export function selfTimes(profile: CpuProfile): { functions: SelfTime[]; files: SelfTime[]; totalMicros: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, { name: string; where: string; micros: number }>();
  const file = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    total += dt;
    const cf = node.callFrame;
    const where = `${shortUrl(cf.url)}:${cf.lineNumber + 1}`;
    const name = cf.functionName || '(anonymous)';
    const key = `${name} ${where}`;
    const e = fn.get(key) ?? { name, where, micros: 0 };
    e.micros += dt;
    fn.set(key, e);
    const f = shortUrl(cf.url) || name;
    file.set(f, (file.get(f) ?? 0) + dt);
  });
  const share = (x: number): number => (total > 0 ? x / total : 0);
  return {
    functions: [...fn.values()].sort((a, b) => b.micros - a.micros).map((e) => ({ ...e, share: share(e.micros) })),
    files: [...file.entries()].sort((a, b) => b[1] - a[1]).map(([where, micros]) => ({ name: where, where, micros, share: share(micros) })),
    totalMicros: total,
  };
}

function main(): void {
  const file = process.argv[2];
  const top = Number(process.argv[3] ?? 25);
  if (!file) throw new Error('usage: cpuprofile-top.js <file.cpuprofile> [top]');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const { functions, files, totalMicros } = selfTimes(profile);
  const line = (s: SelfTime, label: string): string => `${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.micros / 1000).toFixed(0).padStart(7)} ms  ${label}`;
  const out = [`total sampled: ${(totalMicros / 1e6).toFixed(1)} s`, '', 'top self time by function'];
  for (const s of functions.slice(0, top)) out.push(line(s, `${s.name}  ${s.where}`));
  out.push('', 'self time by file');
  for (const s of files.slice(0, Math.min(top, 15))) out.push(line(s, s.name));
  process.stdout.write(out.join('\n') + '\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) main();
