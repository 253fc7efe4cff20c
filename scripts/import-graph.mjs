#!/usr/bin/env node
// The import graph of the TypeScript tree, read with TypeScript's own pre-processor (type
// imports count: a cycle of types is still two files that cannot be read apart). Used by
// tests/architecture (no cycles, the kernel's layer order, the trust boundary) and on the
// command line to measure:
//
//   node scripts/import-graph.mjs [dir ...]    prints every import cycle (default: src workers)

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx` in source). */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * Files under `dirs` (relative to the repository; missing ones are skipped) and the files each imports:
 * `Map<file, file[]>`, paths relative to the repository root.
 */
export function importGraph(dirs = ['src', 'workers']) {
  const graph = new Map();
  for (const dir of dirs.filter((name) => existsSync(join(root, name)))) {
    for (const file of sourceFiles(join(root, dir))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = [...info.importedFiles, ...info.referencedFiles]
        .map((ref) => resolveSpecifier(file, ref.fileName))
        .filter((target) => target !== undefined)
        .map((target) => relative(root, target));
      graph.set(relative(root, file), [...new Set(targets)]);
    }
  }
  return graph;
}

/** Every elementary cycle's strongly connected component with more than one file (Tarjan). */
export function importCycles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indexOf.get(next)));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = component.length === 1 && (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indexOf.has(node)) visit(node);
  return components;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.slice(2);
  const graph = importGraph(dirs.length > 0 ? dirs : undefined);
  const cycles = importCycles(graph);
  console.log(`${graph.size} files, ${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}`);
  for (const cycle of cycles) console.log(`  ${cycle.join(' <-> ')}`);
  process.exitCode = cycles.length > 0 ? 1 : 0;
}
