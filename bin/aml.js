#!/usr/bin/env node
// Thin launcher: the command line is TypeScript compiled to dist/ (npm run build).
import { main } from '../dist/cli/main.js';
process.exitCode = await main(process.argv.slice(2));
