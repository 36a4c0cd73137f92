// The error catalogue (server/http/errors.ts) and its documentation (docs/errors.md) stay in sync
// both ways: every code is documented with its status, every documented code exists.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ERRORS } from '../../server/http/errors.js';
import { REPO_ROOT } from '../../index-builder/locations.js';

const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
const sections = new Map<string, string>();
for (const m of doc.matchAll(/^## (\w+)\n([^\n]+)/gm)) sections.set(m[1]!, m[2]!);

t.test('every code in the catalogue is documented with its status', async (t) => {
  for (const [code, { status }] of Object.entries(ERRORS)) {
    const first = sections.get(code);
    t.ok(first, `docs/errors.md has a section for ${code}`);
    t.match(first ?? '', new RegExp(`^${status}\\b`), `${code}: the section starts with its status ${status}`);
  }
});

t.test('every documented code exists in the catalogue', async (t) => {
  for (const code of sections.keys()) t.ok(code in ERRORS, `${code} is in server/http/errors.ts`);
});
