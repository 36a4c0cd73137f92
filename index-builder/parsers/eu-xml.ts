/**
 * EU list from one or more XML files in either format (global.xml or Financial Sanctions Files
 * 1.1), told apart by their root element. Files are given oldest first; each later file
 * overlays the earlier ones by logical id (mergeEuLists).
 */
import { ListParseError, type ParsedList } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { euFsfFromXml, mergeEuLists } from './eu-fsf-xml.js';
import { euGlobalFromXml, type EuOptions } from './eu-global-xml.js';

export type { EuOptions };

/** The format of an EU XML text from its root element, or undefined when it is neither. */
export function euXmlFormat(xml: string): 'global' | 'fsf' | undefined {
  const head = xml.slice(0, 4096).replace(/<!--[\s\S]*?-->/gu, '').replace(/<\?[\s\S]*?\?>/gu, '');
  const root = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/u.exec(head)?.[2];
  if (root === 'WHOLE') return 'global';
  if (root === 'export') return 'fsf';
  return undefined;
}

export async function parseEuXml(paths: readonly string[], opts: EuOptions): Promise<ParsedList> {
  let merged: ParsedList | undefined;
  for (const path of paths) {
    const { bytes, info } = await readSourceFile(path, 'xml');
    const xml = bytes.toString('utf8');
    const format = euXmlFormat(xml);
    if (format === undefined) throw new ListParseError(path, undefined, 'not an EU sanctions XML (root is neither WHOLE nor export)');
    const parsed = format === 'fsf' ? euFsfFromXml(xml, path, info, opts) : euGlobalFromXml(xml, path, info, opts);
    merged = merged === undefined ? parsed : mergeEuLists(merged, parsed);
  }
  if (merged === undefined) throw new Error('parseEuXml needs at least one file');
  return merged;
}
