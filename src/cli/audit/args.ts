// Parsing of `airlock audit`'s arguments. Returns a value or a usage error; never exits.

import { parseSince, type EventFilter } from '../../host/audit/filter.js';
import { ArgCursor, parsing, UsageError, type Parsed } from '../command.js';

export type AuditCommand =
  | { kind: 'verify'; files: string[]; key?: string; json: boolean; schema: boolean }
  | { kind: 'tail'; file: string; follow: boolean; lines: number; json: boolean; filter: EventFilter }
  | { kind: 'query'; files: string[]; json: boolean; limit?: number; filter: EventFilter }
  | { kind: 'repair'; file: string; key?: string }
  | { kind: 'keygen'; out?: string; name?: string }
  | { kind: 'help' };

export type ParseResult = Parsed<AuditCommand>;

export const AUDIT_USAGE = `Usage: airlock audit COMMAND [OPTIONS] FILE...

Checks and reads audit logs: hash-chained JSONL files of audit events (docs/audit.md).
A log FILE's rotated segments (FILE.1, FILE.2, …) and checkpoints (FILE.checkpoints) are
found beside it.

Commands:
  verify FILE...        check each log's chain, events and signed checkpoints; exit 0 when
                        all hold, 1 naming the first broken line and why
      --key KEY         the verifier key (name+id+key) or a key file whose signatures count
                        (default: the key at $AIRLOCK_AUDIT_KEY or ~/.config/airlock/audit.key)
      --schema          also check every event against the schema (docs/audit.md): no
                        unknown type or field, every field of its kind and within bounds
      --json            print the reports as JSON
  tail [-f] [-n N] FILE print the last N events (default 10); -f: then follow new ones
  query FILE...         print the events that match:
      --type TYPE       a type (run.ended) or a prefix (sandbox.*); repeatable
      --session ID      one session's events
      --since WHEN      events since an ISO time or a duration ago (30s, 10m, 2h, 7d)
      --until WHEN      events before an ISO time or a duration ago
      --limit N         at most N events
      --json            one event per line as JSON (tail too)
  repair FILE           remove a torn last line (a write cut off by a crash), appending an
                        audit.repaired event that says what was removed; refuses any other
                        damage
      --key KEY         the signer key file for the new checkpoint (default: as for verify)
  keygen [--out FILE] [--name NAME]
                        make a signing key (default: the default key path; refuses to
                        overwrite) and print its verifier key
  -h, --help            show this help
`;

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Parses the arguments after `audit`. */
export function parseAuditArgs(argv: string[]): ParseResult {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') return { ok: true, command: { kind: 'help' } };
  if (!['verify', 'tail', 'query', 'repair', 'keygen'].includes(sub)) return { ok: false, error: `unknown command '${sub}' (verify, tail, query, repair, keygen)` };
  const files: string[] = [];
  const filter: EventFilter = {};
  let json = false;
  let schema = false;
  let follow = false;
  let lines = 10;
  let limit: number | undefined;
  let key: string | undefined;
  let out: string | undefined;
  let name: string | undefined;
  const options = parsing(() => {
    const args = new ArgCursor(rest);
    const allowed = (...subs: string[]): boolean => subs.includes(sub);
    /** The value of an option only `subs` take: `error` when it is missing or not theirs. */
    const valueFor = (subs: string[], error: string): string => {
      const value = args.next();
      if (value === undefined || !allowed(...subs)) throw new UsageError(error);
      return value;
    };
    for (let arg = args.next(); arg !== undefined; arg = args.next()) {
      switch (arg) {
        case '-h':
        case '--help':
          return 'help';
        case '--json':
          if (!allowed('verify', 'tail', 'query')) throw new UsageError(`${sub}: unknown option '--json'`);
          json = true;
          break;
        case '--schema':
          if (!allowed('verify')) throw new UsageError(`${sub}: unknown option '--schema'`);
          schema = true;
          break;
        case '-f':
        case '--follow':
          if (!allowed('tail')) throw new UsageError(`${sub}: unknown option '${arg}'`);
          follow = true;
          break;
        case '-n':
        case '--lines': {
          const n = Number(args.next());
          if (!allowed('tail') || !Number.isInteger(n) || n < 0) throw new UsageError(`${arg} needs a number of lines`);
          lines = n;
          break;
        }
        case '--type':
          (filter.types ??= []).push(args.value('--type needs an event type'));
          break;
        case '--session':
          filter.sessionId = args.value('--session needs a session id');
          break;
        case '--since':
        case '--until': {
          const v = args.next();
          const time = v === undefined ? undefined : parseSince(v);
          if (time === undefined) throw new UsageError(`${arg} needs an ISO time or a duration like 10m (got ${JSON.stringify(v ?? '')})`);
          if (arg === '--since') filter.since = time;
          else filter.until = time;
          break;
        }
        case '--limit':
          limit = positiveInteger(args.next());
          if (limit === undefined) throw new UsageError('--limit needs a positive number');
          break;
        case '--key':
          key = valueFor(['verify', 'repair'], `${sub}: --key needs a key or key file`);
          break;
        case '--out':
          out = valueFor(['keygen'], `${sub}: --out needs a file`);
          break;
        case '--name':
          name = valueFor(['keygen'], `${sub}: --name needs a key name`);
          break;
        default:
          if (arg.startsWith('-') && arg !== '-') throw new UsageError(`${sub}: unknown option '${arg}'`);
          files.push(arg);
      }
    }
    return 'read';
  });
  if (!options.ok) return options;
  if (options.command === 'help') return { ok: true, command: { kind: 'help' } };
  const hasFilter = filter.types !== undefined || filter.sessionId !== undefined || filter.since !== undefined || filter.until !== undefined;
  switch (sub) {
    case 'verify':
      if (files.length === 0) return { ok: false, error: 'verify: give at least one log FILE' };
      return { ok: true, command: { kind: 'verify', files, key, json, schema } };
    case 'tail':
      if (files.length !== 1) return { ok: false, error: 'tail: give one log FILE' };
      return { ok: true, command: { kind: 'tail', file: files[0] as string, follow, lines, json, filter } };
    case 'query':
      if (files.length === 0) return { ok: false, error: 'query: give at least one log FILE' };
      return { ok: true, command: { kind: 'query', files, json, limit, filter } };
    case 'repair':
      if (files.length !== 1 || hasFilter) return { ok: false, error: 'repair: give one log FILE' };
      return { ok: true, command: { kind: 'repair', file: files[0] as string, key } };
    default:
      if (files.length > 0) return { ok: false, error: `keygen: unexpected argument '${files[0]}'` };
      return { ok: true, command: { kind: 'keygen', out, name } };
  }
}
