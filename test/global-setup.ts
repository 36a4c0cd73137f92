// tap's "before" script: builds the index the server tests share, once per run.
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_ROOT, sharedIndexRoot } from './helpers/shared-index.js';

// A fresh build per run, so the tests never screen against an index of older code.
fs.rmSync(path.dirname(SHARED_ROOT), { recursive: true, force: true });
await sharedIndexRoot();
