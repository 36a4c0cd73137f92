/**
 * The PDF report of a batch job (pdfkit): a summary of a few pages — the job's facts, its totals by
 * decision, risk band and source list (job.tallies), its screening options — and a table of the
 * first PDF_MAX_MATCHED_ROWS matched rows, with a note of how many more there are: the CSV and XLSX
 * reports carry every one.
 *
 * It uses the standard Helvetica font (nothing to ship or load), which shows Windows-1252 text
 * only; runs of other characters (Arabic, Cyrillic, Chinese names) are transliterated with
 * any-ascii, and the report says so when that happened.
 */
import anyAscii from 'any-ascii';
import PDFDocument from 'pdfkit';
import type { PassThrough } from 'node:stream';
import type { BatchJobRecord, BatchRowRecord } from '../../state/records.js';
import { REPORT_CONTENT_TYPES, reportFileName, type Download } from './formats.js';
import { drained, pumped } from './pump.js';
import { REPORT_TITLE, reportFacts, reportOptions, reportTotals } from './report-summary.js';
import { ROW_READ_SIZE, readPages, type RowSource } from './rows.js';

/** Matched rows printed at most; the CSV and XLSX reports carry all of them. */
export const PDF_MAX_MATCHED_ROWS = 1000;

export interface PdfReportOptions {
  /** the report's generation time (default: now) */
  readonly now?: Date;
  /** deflate the page contents (default true; tests read the text back with false) */
  readonly compress?: boolean;
  /** matched rows printed at most (default PDF_MAX_MATCHED_ROWS) */
  readonly maxMatchedRows?: number;
}

export function reportPdf(job: BatchJobRecord, source: RowSource, options: PdfReportOptions = {}): Download {
  const now = options.now ?? new Date();
  const compress = options.compress ?? true;
  const maxRows = options.maxMatchedRows ?? PDF_MAX_MATCHED_ROWS;
  if (!Number.isSafeInteger(maxRows) || maxRows < 0) throw new RangeError('maxMatchedRows must be a non-negative integer');
  return {
    stream: pumped((out) => writePdf(job, source, out, { now, compress, maxRows })),
    contentType: REPORT_CONTENT_TYPES.pdf,
    fileName: reportFileName(job.id, 'pdf'),
  };
}

/** Characters the standard fonts can show (WinAnsiEncoding): printable ASCII, Latin-1, and the Windows-1252 extras. */
const NOT_WIN_ANSI = /[^\x20-\x7E\xA0-\xFF€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]+/gu;
const CONTROL = /[\x00-\x1F\x7F-\x9F]/g;

/** Text the standard font can show: control characters become spaces, other scripts are transliterated. */
export function pdfText(s: string): { readonly text: string; readonly transliterated: boolean } {
  let transliterated = false;
  const text = s.replace(CONTROL, ' ').replace(NOT_WIN_ANSI, (run) => {
    transliterated = true;
    return anyAscii(run);
  });
  return { text, transliterated };
}

interface Column {
  readonly header: string;
  readonly width: number;
  readonly align?: 'left' | 'right';
}

const FONT = 'Helvetica';
const FONT_BOLD = 'Helvetica-Bold';
const FONT_ITALIC = 'Helvetica-Oblique';
const GREY = '#555555';
const HEADER_FILL = '#dde3ea';
const STRIPE_FILL = '#f3f5f8';
const CELL_PAD = 2.5;
const TABLE_FONT_SIZE = 8;
const MATCHED_FONT_SIZE = 7.5;

/** A page cursor over a pdfkit document: text blocks and tables that move to a new page when they do not fit. */
class Layout {
  y: number;
  transliterated = false;

  constructor(readonly doc: PDFKit.PDFDocument) {
    this.y = doc.page.margins.top;
  }

  get left(): number {
    return this.doc.page.margins.left;
  }

  get width(): number {
    return this.doc.page.width - this.doc.page.margins.left - this.doc.page.margins.right;
  }

  private get bottom(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  /** true when a new page was started to fit `height` */
  ensure(height: number): boolean {
    if (this.y + height <= this.bottom) return false;
    this.doc.addPage();
    this.y = this.doc.page.margins.top;
    return true;
  }

  show(s: string): string {
    const t = pdfText(s);
    if (t.transliterated) this.transliterated = true;
    return t.text;
  }

  paragraph(text: string, opts: { font?: string; size?: number; color?: string; gapAfter?: number; keepWith?: number } = {}): void {
    const doc = this.doc.font(opts.font ?? FONT).fontSize(opts.size ?? 9);
    const shown = this.show(text);
    const height = doc.heightOfString(shown, { width: this.width });
    this.ensure(height + (opts.keepWith ?? 0));
    doc.fillColor(opts.color ?? 'black').text(shown, this.left, this.y, { width: this.width });
    doc.fillColor('black');
    this.y += height + (opts.gapAfter ?? 4);
  }

  heading(text: string, keepWith: number): void {
    this.y += 6;
    this.paragraph(text, { font: FONT_BOLD, size: 11, gapAfter: 4, keepWith });
  }

  /** A table whose header is repeated on every page it runs onto. */
  table(columns: readonly Column[], fontSize: number): { row(cells: readonly string[]): void; end(): void } {
    const doc = this.doc;
    const rowHeight = doc.font(FONT).fontSize(fontSize).currentLineHeight() + 2 * CELL_PAD;
    let striped = false;
    const draw = (cells: readonly string[], font: string, fill: string | null): void => {
      if (fill !== null) doc.rect(this.left, this.y, this.width, rowHeight).fill(fill);
      doc.fillColor('black').font(font).fontSize(fontSize);
      let x = this.left;
      columns.forEach((c, i) => {
        const shown = this.show(cells[i] ?? '');
        if (shown !== '') {
          doc.text(shown, x + CELL_PAD, this.y + CELL_PAD, {
            width: c.width - 2 * CELL_PAD,
            height: rowHeight - 2 * CELL_PAD,
            ellipsis: true,
            align: c.align ?? 'left',
          });
        }
        x += c.width;
      });
      this.y += rowHeight;
    };
    const header = (): void => draw(columns.map((c) => c.header), FONT_BOLD, HEADER_FILL);
    this.ensure(2 * rowHeight);
    header();
    return {
      row: (cells) => {
        if (this.ensure(rowHeight)) {
          header();
          striped = false;
        }
        draw(cells, FONT, striped ? STRIPE_FILL : null);
        striped = !striped;
      },
      end: () => {
        this.y += 6;
      },
    };
  }
}

/** Widths that fill `total`: the given ones, the last column taking what is left. */
function fill(total: number, widths: readonly number[]): number[] {
  const used = widths.slice(0, -1).reduce((a, b) => a + b, 0);
  return [...widths.slice(0, -1), total - used];
}

function share(count: number, outOf: number): string {
  return outOf > 0 ? `${((100 * count) / outOf).toFixed(1)}%` : '';
}

function score(n: number): string {
  return n.toFixed(2);
}

function matchedCells(r: BatchRowRecord): string[] {
  const top = r.topMatches[0];
  return [
    String(r.row),
    r.userReference ?? '',
    r.name ?? '',
    r.decision ?? '',
    r.riskBand ?? '',
    score(r.score),
    r.sourceLists.join(', '),
    top ? `${top.name} [${top.list}] ${score(top.score)}` : '',
  ];
}

async function writePdf(
  job: BatchJobRecord,
  source: RowSource,
  out: PassThrough,
  opts: { readonly now: Date; readonly compress: boolean; readonly maxRows: number },
): Promise<void> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 40,
    compress: opts.compress,
    bufferPages: true,
    // job id only: the file name and the rows stay out of the metadata
    info: { Title: REPORT_TITLE, Subject: `Batch job ${job.id}`, Creator: 'aml-screening', CreationDate: opts.now },
  });
  doc.on('error', (err: Error) => out.destroy(err));
  doc.pipe(out);
  const p = new Layout(doc);

  p.paragraph(REPORT_TITLE, { font: FONT_BOLD, size: 18, gapAfter: 2 });
  p.paragraph(`${job.file.name} · job ${job.id} · generated ${opts.now.toISOString()}`, { size: 9, color: GREY, gapAfter: 8 });

  p.heading('Job', 40);
  const facts = p.table(
    fill(p.width, [130, 0]).map((width, i) => ({ header: i === 0 ? 'Fact' : 'Value', width })),
    TABLE_FONT_SIZE,
  );
  for (const f of reportFacts(job, opts.now)) facts.row([f.label, String(f.value)]);
  facts.end();

  for (const t of reportTotals(job)) {
    p.heading(t.title, 40);
    const widths = [150, 70, 70];
    const table = p.table(
      [
        { header: t.keyLabel, width: widths[0] ?? 0 },
        { header: 'Rows', width: widths[1] ?? 0, align: 'right' },
        { header: 'Share', width: widths[2] ?? 0, align: 'right' },
      ],
      TABLE_FONT_SIZE,
    );
    for (const [key, count] of t.rows) table.row([key, String(count), share(count, t.outOf)]);
    if (t.rows.length === 0) table.row(['none', '', '']);
    table.end();
    p.paragraph(t.note, { font: FONT_ITALIC, size: 8, color: GREY });
  }

  if (job.rowsFailed > 0) {
    p.heading('Rows not screened', 20);
    p.paragraph(
      `${job.rowsFailed} rows could not be screened. Each one's reason is in the error column of the results export ` +
        '(format csv or jsonl) and in the Errors sheet of the XLSX report.',
    );
  }

  const options = reportOptions(job);
  if (options.length > 0) {
    p.heading('Screening options', 40);
    const table = p.table(
      fill(p.width, [130, 0]).map((width, i) => ({ header: i === 0 ? 'Option' : 'Value', width })),
      TABLE_FONT_SIZE,
    );
    for (const o of options) table.row([o.label, String(o.value)]);
    table.end();
  }

  doc.addPage();
  p.y = doc.page.margins.top;
  p.heading('Matched rows', 30);
  let printed = 0;
  if (opts.maxRows > 0) {
    const widths = fill(p.width, [34, 62, 118, 44, 44, 32, 60, 0]);
    const headers = ['Row', 'Reference', 'Name', 'Decision', 'Risk band', 'Score', 'Lists', 'Top match'];
    const table = p.table(
      headers.map((header, i) => ({ header, width: widths[i] ?? 0, ...(i === 0 || i === 5 ? { align: 'right' as const } : {}) })),
      MATCHED_FONT_SIZE,
    );
    pages: for await (const rows of readPages(source, 'matched', 1, Math.min(ROW_READ_SIZE, opts.maxRows))) {
      for (const r of rows) {
        table.row(matchedCells(r));
        if (++printed >= opts.maxRows) break pages;
      }
      await drained(out);
      if (out.destroyed) return;
    }
    table.end();
  }
  const more = job.rowsMatched - printed;
  if (printed === 0 && job.rowsMatched === 0) p.paragraph('No row matched.');
  else if (more > 0) {
    p.paragraph(
      `Showing ${printed === 0 ? 'none' : `the first ${printed}`} of ${job.rowsMatched} matched rows (${more} more). ` +
        'The CSV and XLSX reports carry every matched row.',
      { font: FONT_ITALIC, size: 8, color: GREY },
    );
  }
  if (p.transliterated) {
    p.paragraph(
      'Text in scripts this report\'s font cannot show is transliterated to Latin letters; the CSV and XLSX reports carry it exactly as in the file.',
      { font: FONT_ITALIC, size: 8, color: GREY },
    );
  }

  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing in the margin must not start a page
    doc
      .font(FONT)
      .fontSize(7)
      .fillColor(GREY)
      .text(`Batch job ${job.id} · page ${i - range.start + 1} of ${range.count}`, p.left, doc.page.height - 28, {
        width: p.width,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
}
