/**
 * The file formats of a batch upload and how an upload is recognised: the file name's extension
 * first, then the declared content type, then the first bytes. Content overrides the name only
 * where it is unambiguous: a zip is read as XLSX whatever it is called (a renamed workbook), and a
 * ".json" file whose first value is an object rather than an array is JSON Lines.
 */

export const BATCH_FORMATS = ['csv', 'json', 'jsonl', 'xlsx'] as const;
export type BatchFormat = (typeof BATCH_FORMATS)[number];

const EXTENSIONS: Readonly<Record<string, BatchFormat>> = Object.freeze({
  csv: 'csv',
  tsv: 'csv',
  json: 'json',
  jsonl: 'jsonl',
  ndjson: 'jsonl',
  xlsx: 'xlsx',
});

const CONTENT_TYPES: Readonly<Record<string, BatchFormat>> = Object.freeze({
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'jsonl',
  'application/ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/x-jsonlines': 'jsonl',
  'application/jsonlines': 'jsonl',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
});

/** How many bytes of the file detectFormat wants to see (fewer work; this is plenty). */
export const FORMAT_HEAD_BYTES = 4096;

function isZip(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The first character of the text after a UTF-8 BOM and whitespace, or undefined. */
function firstSignificant(head: Buffer): number | undefined {
  let i = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  for (; i < head.length; i++) {
    const c = head[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c;
  }
  return undefined;
}

/** Text (not binary): no NUL byte, and a UTF-16 BOM counts as text (the CSV reader explains it). */
function looksLikeText(head: Buffer): boolean {
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return true;
  return head.length > 0 && !head.includes(0);
}

export function detectFormat(fileName: string | undefined, contentType: string | undefined, head: Buffer): BatchFormat | undefined {
  if (isZip(head)) return 'xlsx';
  const first = firstSignificant(head);
  const dot = fileName === undefined ? -1 : fileName.lastIndexOf('.');
  const ext = fileName !== undefined && dot !== -1 ? EXTENSIONS[fileName.slice(dot + 1).toLowerCase()] : undefined;
  const type = contentType === undefined ? undefined : CONTENT_TYPES[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  const declared = ext ?? type;
  if (declared === 'json' && first === 0x7b /* { */) return 'jsonl';
  if (declared !== undefined) return declared;
  if (first === 0x5b /* [ */) return 'json';
  if (first === 0x7b /* { */) return 'jsonl';
  if (first !== undefined && looksLikeText(head)) return 'csv';
  return undefined;
}
