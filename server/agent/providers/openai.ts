// OpenAI Chat Completions, streamed, through the official SDK pointed at the relay (its
// retries honour retry-after on 429 and 5xx); OpenRouter speaks the same format at its own
// base URL. Tool-call deltas are assembled by index here; arguments that are not a JSON
// object make a malformed call the loop answers with an error.

import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions/completions.js';
import type { Message, ModelClient, ToolCall, TurnReply, TurnRequest, Variant } from '../model.js';
import { parseArguments } from './arguments.js';

function toWire(system: string, messages: readonly Message[]): ChatCompletionMessageParam[] {
  const wire: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'user') wire.push({ role: 'user', content: message.text });
    else if (message.role === 'tool') for (const r of message.results) wire.push({ role: 'tool', tool_call_id: r.id, content: r.isError ? `error: ${r.output}` : r.output });
    else {
      wire.push({
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(message.toolCalls.length === 0 ? {} : { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.rawInput } })) }),
      });
    }
  }
  return wire;
}

const STOP_REASONS: Readonly<Record<string, string>> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };

export function openaiClient(options: { baseURL: string; apiKey: string; model: string; variant?: Variant; maxRetries: number }): ModelClient {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: options.maxRetries });
  const effort = options.variant === undefined || options.variant === 'off' ? undefined : options.variant;
  return {
    async turn(request: TurnRequest): Promise<TurnReply> {
      const stream = await client.chat.completions.create(
        {
          model: options.model,
          messages: toWire(request.system, request.messages),
          tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: { type: 'object', ...t.parameters } } })),
          stream: true,
          stream_options: { include_usage: true },
          ...(effort === undefined ? {} : { reasoning_effort: effort }),
        },
        { signal: request.signal },
      );
      let text = '';
      let finish = 'stop';
      const calls: Array<{ id: string; name: string; args: string }> = [];
      let usage = { inputTokens: 0, outputTokens: 0, cacheTokens: 0 };
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens, cacheTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0 };
        const choice = chunk.choices[0];
        if (choice === undefined) continue;
        if (typeof choice.delta.content === 'string') text += choice.delta.content;
        for (const delta of choice.delta.tool_calls ?? []) {
          const call = (calls[delta.index] ??= { id: '', name: '', args: '' });
          if (delta.id !== undefined) call.id = delta.id;
          if (delta.function?.name !== undefined) call.name += delta.function.name;
          if (delta.function?.arguments !== undefined) call.args += delta.function.arguments;
        }
        if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason;
      }
      const toolCalls: ToolCall[] = calls.filter((c) => c !== undefined).map((c, i) => ({ id: c.id === '' ? `call_${i}` : c.id, name: c.name, input: parseArguments(c.args), rawInput: c.args }));
      return { text, toolCalls, usage, stopReason: STOP_REASONS[finish] ?? finish };
    },
  };
}
