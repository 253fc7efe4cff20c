#!/usr/bin/env node
// `npm start`: the main job. Installs the npm packages, builds the web app and the server
// (the wasm is committed, so no Rust toolchain is needed), and serves the playground on
// 127.0.0.1, printing its URL. Options after `npm start --` go to the server (--help).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureNpmPackages } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
ensureNpmPackages(root);
execFileSync('node', ['scripts/build-node.mjs'], { cwd: root, stdio: 'inherit' });
execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
const server = await import(new URL('../dist/server/main.mjs', import.meta.url).href);
const status = await server.main(['--web', `${root}dist/web`, ...process.argv.slice(2)]);
if (status !== 0) process.exit(status);
