/**
 * The command-line plumbing the benches share: progress lines on standard error, options read from
 * argv with their checks, the JSON result file, and the entry point that turns a failure into exit
 * status 1. Each bench keeps only what it measures.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A progress line on standard error (standard output stays free for the printed table). */
export const log = (m: string): void => void process.stderr.write(`${m}\n`);

export interface ArgReader {
  /** the word after `name`, if given */
  value(name: string): string | undefined;
  /** `name` is present */
  has(name: string): boolean;
  /** a number > 0, `dflt` when absent */
  positive(name: string, dflt: number): number;
  /** a number >= `min`, `dflt` when absent */
  atLeast(name: string, dflt: number, min: number): number;
  /** an integer > 0, `dflt` when absent */
  positiveInteger(name: string, dflt: number): number;
}

export function argReader(argv: readonly string[]): ArgReader {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const checked = (name: string, dflt: number, ok: (n: number) => boolean, what: string): number => {
    const v = value(name);
    const n = v === undefined ? dflt : Number(v);
    if (!ok(n)) throw new Error(`${name} needs ${what}, got ${v}`);
    return n;
  };
  return {
    value,
    has: (name) => argv.includes(name),
    positive: (name, dflt) => checked(name, dflt, (n) => Number.isFinite(n) && n > 0, 'a positive number'),
    atLeast: (name, dflt, min) => checked(name, dflt, (n) => Number.isFinite(n) && n >= min, `a number >= ${min}`),
    positiveInteger: (name, dflt) => checked(name, dflt, (n) => Number.isInteger(n) && n > 0, 'a positive integer'),
  };
}

/** Writes a bench's result as indented JSON, creating its folder. */
export function writeResultJson(file: string, result: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  log(`wrote ${path.relative(process.cwd(), file) || file}`);
}

/** Runs a bench's main and exits: 0 when it finished, 1 with the error on standard error. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      log(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    },
  );
}

/**
 * The last lines of a service bench's report: the service's warnings and errors (the last five
 * kept), how the service exited, and how long the bench took.
 */
export function serviceEndLines(serviceLog: readonly string[], exit: string, startedMs: number): string[] {
  const out: string[] = [];
  const warnings = serviceLog.filter((l) => /"level":(40|50|60)|error|warn/i.test(l));
  if (warnings.length > 0) out.push('', `service log (warn and above), last ${Math.min(5, warnings.length)} of ${warnings.length} kept:`, ...warnings.slice(-5));
  out.push('', `service exit: ${exit}; bench took ${((performance.now() - startedMs) / 1000).toFixed(0)} s`);
  return out;
}
