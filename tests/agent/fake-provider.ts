// A scripted model provider on loopback speaking the real wire formats with streaming: the
// Anthropic Messages API (POST /v1/messages, SSE events) and OpenAI Chat Completions (POST
// /v1/chat/completions, SSE chunks, also what OpenRouter speaks). Each request takes the
// next step of the script: a turn (text and tool calls, with usage) or an error status.
// Every request is recorded (headers and body) for the test to inspect.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedCall {
  name: string;
  /** The arguments; or `raw`, sent as they are (to script a malformed call). */
  input?: Record<string, unknown>;
  raw?: string;
}

export type Step =
  | { text?: string; calls?: ScriptedCall[]; usage?: { input: number; output: number; cached?: number }; stop?: 'end' | 'max_tokens' }
  | { status: number; retryAfter?: string; message?: string };

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  at: number;
}

export interface FakeProvider {
  /** `http://127.0.0.1:PORT/v1` (OpenAI, OpenRouter) — Anthropic's base is `root`. */
  url: string;
  root: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function sse(event: string | undefined, data: unknown): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

// Arguments streamed in two pieces, as providers do.
function halves(text: string): [string, string] {
  const mid = Math.floor(text.length / 2);
  return [text.slice(0, mid), text.slice(mid)];
}

function anthropicStream(step: Extract<Step, { calls?: ScriptedCall[] }>, n: number): string {
  const usage = step.usage ?? { input: 10, output: 5 };
  let out = sse('message_start', { type: 'message_start', message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: 'fake', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input - (usage.cached ?? 0), output_tokens: 1, cache_read_input_tokens: usage.cached ?? 0, cache_creation_input_tokens: 0 } } });
  let index = 0;
  if (step.text !== undefined) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const part of halves(step.text)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  for (const [i, call] of (step.calls ?? []).entries()) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: {} } });
    for (const part of halves(call.raw ?? JSON.stringify(call.input ?? {}))) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  const stop = step.stop === 'max_tokens' ? 'max_tokens' : (step.calls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

function openaiStream(step: Extract<Step, { calls?: ScriptedCall[] }>, n: number): string {
  const usage = step.usage ?? { input: 10, output: 5 };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string => sse(undefined, { id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 0, model: 'fake', choices, ...extra });
  let out = chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (step.text !== undefined) for (const part of halves(step.text)) out += chunk([{ index: 0, delta: { content: part }, finish_reason: null }]);
  for (const [i, call] of (step.calls ?? []).entries()) {
    const [a, b] = halves(call.raw ?? JSON.stringify(call.input ?? {}));
    out += chunk([{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${n}_${i}`, type: 'function', function: { name: call.name, arguments: a } }] }, finish_reason: null }]);
    out += chunk([{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: b } }] }, finish_reason: null }]);
  }
  const finish = step.stop === 'max_tokens' ? 'length' : (step.calls ?? []).length > 0 ? 'tool_calls' : 'stop';
  out += chunk([{ index: 0, delta: {}, finish_reason: finish }]);
  out += chunk([], { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output, prompt_tokens_details: { cached_tokens: usage.cached ?? 0 } } });
  return `${out}data: [DONE]\n\n`;
}

export async function startFakeProvider(script: Step[] | ((request: RecordedRequest, n: number) => Step)): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const recorded = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      requests.push(recorded);
      const n = requests.length - 1;
      const step = typeof script === 'function' ? script(recorded, n) : script[n];
      if (step === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'script', message: `the script has no step ${n}` } }));
        return;
      }
      if ('status' in step) {
        res.writeHead(step.status, { 'content-type': 'application/json', ...(step.retryAfter === undefined ? {} : { 'retry-after': step.retryAfter }) });
        res.end(JSON.stringify({ type: 'error', error: { type: step.status === 429 ? 'rate_limit_error' : 'api_error', message: step.message ?? `scripted ${step.status}` } }));
        return;
      }
      const anthropic = req.url?.startsWith('/v1/messages') === true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(anthropic ? anthropicStream(step, n) : openaiStream(step, n));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    root: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
