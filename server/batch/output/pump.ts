/**
 * Turning a writer that writes into a stream (exceljs, pdfkit) into a lazy pull-based body: nothing
 * is produced before the first pull, the producer waits while the consumer is behind, and a consumer
 * that stops early (client gone) stops the producer.
 */
import { PassThrough, type Writable } from 'node:stream';

const OUT_HIGH_WATER_MARK = 64 * 1024;

/**
 * The chunks `produce` writes into `out`. `produce` must end `out` (directly or by a pipe) when it
 * is done, should `await drained(out)` between pieces of work, and should stop when `out.destroyed`.
 * An error thrown by `produce` ends the iteration with that error.
 */
export async function* pumped(produce: (out: PassThrough) => Promise<void>): AsyncGenerator<Buffer, void, undefined> {
  const out = new PassThrough({ highWaterMark: OUT_HIGH_WATER_MARK });
  const done = produce(out).catch((err: unknown) => {
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  try {
    for await (const chunk of out as AsyncIterable<Buffer>) yield chunk;
  } finally {
    // Normal end: out has ended. Early end (the consumer returned or threw): destroying out
    // releases a producer waiting in drained(), which then sees out.destroyed and returns. Not
    // awaited: a writer cut off mid-file (exceljs' commit) may never settle, and the consumer's
    // return must not wait for it; `done` never rejects.
    if (!out.destroyed) out.destroy();
    void done;
  }
}

/**
 * Resolves once the event loop has run a turn (so the compressor and the pipes behind `out` make
 * progress: a source that answers from memory, or from LMDB's synchronous reads, would otherwise
 * keep the producer in microtasks and everything it writes would pile up in front of the zip
 * stream), then when `out` can take more (at once unless a write was refused), or is destroyed.
 */
export async function drained(out: Writable): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (out.destroyed || !out.writableNeedDrain) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}
