/**
 * XML reading for the list parsers: validate first (fast-xml-parser's validator reports the line
 * of the first error), then parse into plain objects with typed accessors, so the parsers never
 * handle the parser's untyped output directly.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ListParseError } from '../parsed-list.js';

/** An element: attributes under "@_name", child elements by tag name, text under "#text". */
export type XmlNode = { readonly [key: string]: unknown };

export function parseXml(text: string, file: string, arrayTags: ReadonlySet<string>): XmlNode {
  const verdict = XMLValidator.validate(text);
  if (verdict !== true) {
    throw new ListParseError(file, verdict.err.line, `malformed XML: ${verdict.err.msg} (column ${verdict.err.col})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    // Keep every value a string: document numbers such as "0018061" must keep their zeros.
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // The lists escape "&" in every URL; the default cap on expanded characters is for DOCTYPE
    // entity bombs and would reject a full EU file.
    processEntities: { enabled: true, maxTotalExpansions: Number.MAX_SAFE_INTEGER, maxExpandedLength: Number.MAX_SAFE_INTEGER },
    isArray: (tagName) => arrayTags.has(tagName),
  });
  let root: unknown;
  try {
    root = parser.parse(text);
  } catch (err) {
    throw new ListParseError(file, undefined, `malformed XML: ${(err as Error).message}`);
  }
  if (!isNode(root)) throw new ListParseError(file, undefined, 'empty XML document');
  return root;
}

export function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Child elements with this tag (an empty list when absent). */
export function children(node: XmlNode | undefined, tag: string): XmlNode[] {
  if (node === undefined) return [];
  const value = node[tag];
  const list = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
  // An empty element (<X/>) parses as "", which has no children but still counts as present.
  return list.map((v) => (isNode(v) ? v : { '#text': typeof v === 'string' ? v : '' }));
}

export function child(node: XmlNode | undefined, tag: string): XmlNode | undefined {
  return children(node, tag)[0];
}

/** Text of a child element, or of the node itself when `tag` is omitted; '' when absent. */
export function text(node: XmlNode | undefined, tag?: string): string {
  if (node === undefined) return '';
  const value = tag === undefined ? node : node[tag];
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first === 'string') return first;
  if (typeof first === 'number') return String(first);
  if (isNode(first)) {
    const inner = first['#text'];
    return typeof inner === 'string' ? inner : typeof inner === 'number' ? String(inner) : '';
  }
  return '';
}

/** All texts of repeated child elements (e.g. <VALUE> under <NATIONALITY>). */
export function texts(node: XmlNode | undefined, tag: string): string[] {
  if (node === undefined) return [];
  const value = node[tag];
  const list = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
  return list.map((v) => text({ v }, 'v'));
}

export function attr(node: XmlNode | undefined, name: string): string {
  if (node === undefined) return '';
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}
