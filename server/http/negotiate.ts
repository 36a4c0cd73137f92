/**
 * Content negotiation (contract part 2): responses as application/json, text/json or text/plain,
 * all carrying the same JSON; request bodies as application/json, text/json or application/*+json.
 */
export const RESPONSE_TYPES = ['application/json', 'text/json', 'text/plain'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

interface Range {
  type: string;
  q: number;
  order: number;
}

function parseAccept(header: string): Range[] {
  return header
    .split(',')
    .map((part, order) => {
      const [type = '', ...params] = part.trim().split(';');
      let q = 1;
      for (const p of params) {
        const [k, v] = p.trim().split('=');
        if (k === 'q' && v !== undefined) q = Number(v);
      }
      return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((r) => r.type !== '' && r.q > 0);
}

function matches(range: string, type: string): boolean {
  if (range === '*/*') return true;
  if (range.endsWith('/*')) return type.startsWith(range.slice(0, -1));
  return range === type;
}

/** The response type for an Accept header; undefined when none of ours is acceptable (406). */
export function negotiate(accept: string | undefined): ResponseType | undefined {
  if (!accept || accept.trim() === '') return 'application/json';
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return undefined;
  let best: { type: ResponseType; q: number; specificity: number; order: number } | undefined;
  for (const type of RESPONSE_TYPES) {
    for (const r of ranges) {
      if (!matches(r.type, type)) continue;
      const specificity = r.type === type ? 2 : r.type === '*/*' ? 0 : 1;
      const better =
        !best ||
        r.q > best.q ||
        (r.q === best.q && specificity > best.specificity) ||
        (r.q === best.q && specificity === best.specificity && r.order < best.order);
      if (better) best = { type, q: r.q, specificity, order: r.order };
    }
  }
  return best?.type;
}

/** True for application/json, text/json and application/<anything>+json (parameters ignored). */
export function isJsonBody(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
