// The programs the kernel provides itself, in TypeScript over the syscall core (like Python,
// external programs): they need the process table or the terminal's raw mode more than a
// wasm build — ps and top, the pagers less and more, man and apropos.

import type { ExternalProgram } from '../sys/external-program.js';
import { man } from './man.js';
import { less, more } from './pager.js';
import { ps } from './ps.js';
import { top } from './top.js';

export const KERNEL_PROGRAMS: ReadonlyArray<{ tools: string[]; program: ExternalProgram }> = [
  { tools: ['ps'], program: ps },
  { tools: ['top'], program: top },
  { tools: ['less'], program: less },
  { tools: ['more'], program: more },
  { tools: ['man', 'apropos'], program: man },
];
