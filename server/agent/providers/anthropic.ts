// The Anthropic Messages API, streamed, through the official SDK pointed at the relay (its
// retries honour retry-after on 429 and 5xx). The SDK's raw events are assembled here, so a
// tool call whose arguments are not JSON reaches the loop as a malformed call, not a crash.

import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages.js';
import type { Message, ModelClient, ToolCall, TurnReply, TurnRequest, Variant } from '../model.js';
import { parseArguments } from './arguments.js';

const MAX_TOKENS = 16_384;
const THINKING_BUDGET: Readonly<Record<Exclude<Variant, 'off'>, number>> = { low: 2_048, medium: 8_192, high: 12_288 };

function toWire(messages: readonly Message[]): MessageParam[] {
  return messages.map((message): MessageParam => {
    if (message.role === 'user') return { role: 'user', content: message.text };
    if (message.role === 'tool') {
      return { role: 'user', content: message.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.output, is_error: r.isError })) };
    }
    if (Array.isArray(message.raw)) return { role: 'assistant', content: message.raw as ContentBlockParam[] };
    const content: ContentBlockParam[] = [];
    if (message.text !== '') content.push({ type: 'text', text: message.text });
    for (const call of message.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} });
    return { role: 'assistant', content };
  });
}

interface Block {
  type: string;
  text: string;
  json: string;
  id: string;
  name: string;
  signature: string;
  data: string;
}

export function anthropicClient(options: { baseURL: string; apiKey: string; model: string; variant?: Variant; maxRetries: number }): ModelClient {
  const client = new Anthropic({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: options.maxRetries });
  const thinking = options.variant === undefined || options.variant === 'off' ? undefined : THINKING_BUDGET[options.variant];
  return {
    async turn(request: TurnRequest): Promise<TurnReply> {
      const stream = await client.messages.create(
        {
          model: options.model,
          max_tokens: MAX_TOKENS,
          system: request.system,
          messages: toWire(request.messages),
          tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { type: 'object' as const, ...t.parameters } })),
          ...(thinking === undefined ? {} : { thinking: { type: 'enabled' as const, budget_tokens: thinking } }),
          stream: true,
        },
        { signal: request.signal },
      );
      const blocks: Block[] = [];
      let stopReason = 'end_turn';
      let input = 0;
      let cacheRead = 0;
      let cacheWrite = 0;
      let output = 0;
      for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
        switch (event.type) {
          case 'message_start': {
            const usage = event.message.usage;
            input = usage.input_tokens;
            cacheRead = usage.cache_read_input_tokens ?? 0;
            cacheWrite = usage.cache_creation_input_tokens ?? 0;
            output = usage.output_tokens;
            break;
          }
          case 'content_block_start': {
            const b = event.content_block;
            blocks[event.index] = {
              type: b.type,
              text: b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : '',
              json: '',
              id: b.type === 'tool_use' ? b.id : '',
              name: b.type === 'tool_use' ? b.name : '',
              signature: b.type === 'thinking' ? b.signature : '',
              data: b.type === 'redacted_thinking' ? b.data : '',
            };
            break;
          }
          case 'content_block_delta': {
            const block = blocks[event.index];
            if (block === undefined) break;
            const d = event.delta;
            if (d.type === 'text_delta') block.text += d.text;
            else if (d.type === 'input_json_delta') block.json += d.partial_json;
            else if (d.type === 'thinking_delta') block.text += d.thinking;
            else if (d.type === 'signature_delta') block.signature += d.signature;
            break;
          }
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            output = event.usage.output_tokens ?? output;
            break;
          default:
            break;
        }
      }
      const toolCalls: ToolCall[] = [];
      const raw: ContentBlockParam[] = [];
      let text = '';
      for (const block of blocks) {
        if (block === undefined) continue;
        if (block.type === 'text') {
          text += block.text;
          raw.push({ type: 'text', text: block.text });
        } else if (block.type === 'tool_use') {
          const rawInput = block.json === '' ? '{}' : block.json;
          const parsed = parseArguments(rawInput);
          toolCalls.push({ id: block.id, name: block.name, input: parsed, rawInput });
          raw.push({ type: 'tool_use', id: block.id, name: block.name, input: parsed ?? {} });
        } else if (block.type === 'thinking') raw.push({ type: 'thinking', thinking: block.text, signature: block.signature });
        else if (block.type === 'redacted_thinking') raw.push({ type: 'redacted_thinking', data: block.data });
      }
      return { text, toolCalls, raw, stopReason, usage: { inputTokens: input + cacheRead + cacheWrite, outputTokens: output, cacheTokens: cacheRead } };
    },
  };
}
