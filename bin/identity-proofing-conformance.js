#!/usr/bin/env node
// The product's one command. In a clone it runs the TypeScript sources (through tsx); in the installed package, what
// was compiled from them when it was packed (dist/).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const source = new URL('../scripts/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else await import('../dist/scripts/main.js');
