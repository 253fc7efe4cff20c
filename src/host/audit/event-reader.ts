// Reading events back from an audit log's files, in chain order, with the filters of
// `airlock audit query` and the server's query API. Lines that are not chain lines are
// skipped here (verify is the place that reports them).

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { matchesFilter, type EventFilter } from './filter.js';

export type { EventFilter } from './filter.js';

export interface LoggedEvent {
  n: number;
  event: AuditEvent;
}

/** The events of `files` (oldest first) that match `filter`. */
export async function* readEvents(files: string[], filter: EventFilter = {}): AsyncGenerator<LoggedEvent> {
  for (const file of files) {
    const lines = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
    for await (const line of lines) {
      let entry: { n?: unknown; event?: unknown };
      try {
        entry = JSON.parse(line) as { n?: unknown; event?: unknown };
      } catch {
        continue;
      }
      if (typeof entry.n !== 'number' || typeof entry.event !== 'object' || entry.event === null) continue;
      const event = entry.event as AuditEvent;
      if (matchesFilter(event, filter)) yield { n: entry.n, event };
    }
  }
}
