// What the agent loop says to a model and hears back, whatever the provider: a conversation
// of user text, assistant text with tool calls, and tool results; and the providers the
// model string names (`anthropic/…`, `openai/…`, `openrouter/<vendor>/<model>`). Each
// provider's wire format lives in providers/, behind ModelClient.

export const PROVIDER_NAMES = ['anthropic', 'openai', 'openrouter'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ProviderSpec {
  /** Where the relay forwards this provider's requests (the real API). */
  upstream: string;
  /** The host environment variable holding its key (read by the relay only). */
  keyEnv: string;
  /** Its wire format. */
  wire: 'anthropic' | 'openai';
}

export const PROVIDERS: Readonly<Record<ProviderName, ProviderSpec>> = {
  anthropic: { upstream: 'https://api.anthropic.com', keyEnv: 'ANTHROPIC_API_KEY', wire: 'anthropic' },
  openai: { upstream: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', wire: 'openai' },
  openrouter: { upstream: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY', wire: 'openai' },
};

export interface ModelRef {
  provider: ProviderName;
  /** The model as the provider names it (`claude-sonnet-4-6`, `anthropic/claude-sonnet-4-6` on OpenRouter). */
  model: string;
}

/** `anthropic/claude-sonnet-4-6` → { provider: 'anthropic', model: 'claude-sonnet-4-6' }. */
export function parseModel(spec: string): ModelRef {
  const slash = spec.indexOf('/');
  const provider = spec.slice(0, slash);
  const model = spec.slice(slash + 1);
  if (slash <= 0 || model === '' || !(PROVIDER_NAMES as readonly string[]).includes(provider)) {
    throw new Error(`model ${JSON.stringify(spec)}: write it as provider/model with provider one of ${PROVIDER_NAMES.join(', ')} (e.g. anthropic/claude-sonnet-4-6, openrouter/openai/gpt-5)`);
  }
  if (provider === 'openrouter' && !model.includes('/')) throw new Error(`model ${JSON.stringify(spec)}: OpenRouter models are openrouter/<vendor>/<model>`);
  return { provider: provider as ProviderName, model };
}

export interface ToolCall {
  id: string;
  name: string;
  /** The parsed arguments, or undefined when the model sent arguments that are not a JSON object. */
  input: Record<string, unknown> | undefined;
  /** The arguments as the model sent them (kept for the transcript and the malformed-call error). */
  rawInput: string;
}

export interface ToolResult {
  id: string;
  name: string;
  output: string;
  isError: boolean;
}

export type Message =
  | { role: 'user'; text: string }
  /** `raw`: the provider's own content blocks, replayed as they were (thinking blocks carry signatures). */
  | { role: 'assistant'; text: string; toolCalls: ToolCall[]; raw?: unknown }
  | { role: 'tool'; results: ToolResult[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cacheTokens: number;
}

export interface TurnReply {
  text: string;
  toolCalls: ToolCall[];
  raw?: unknown;
  usage: Usage;
  /** The provider's reason, normalised: end_turn, tool_use, max_tokens, or the provider's own word. */
  stopReason: string;
}

export interface TurnRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
}

/** One provider's wire format. */
export interface ModelClient {
  turn(request: TurnRequest): Promise<TurnReply>;
}

/** Reasoning effort (the config's `variant`). */
export type Variant = 'off' | 'low' | 'medium' | 'high';

/** Prices in US dollars per million tokens. */
export interface Pricing {
  input: number;
  output: number;
  cacheRead?: number;
}

/** Published prices of a few models (USD per million tokens); cost is null for others unless the config gives one. */
const KNOWN_PRICES: Readonly<Record<string, Pricing>> = {
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3 },
  'claude-opus-4-6': { input: 15, output: 75, cacheRead: 1.5 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
};

export function pricingOf(ref: ModelRef): Pricing | undefined {
  const bare = ref.provider === 'openrouter' ? ref.model.slice(ref.model.indexOf('/') + 1) : ref.model;
  return KNOWN_PRICES[bare];
}

/** Cost of some usage; cached input is billed at the cache price (or the input price). */
export function costOf(usage: Usage, pricing: Pricing | undefined): number | null {
  if (pricing === undefined) return null;
  const fresh = Math.max(0, usage.inputTokens - usage.cacheTokens);
  return (fresh * pricing.input + usage.cacheTokens * (pricing.cacheRead ?? pricing.input) + usage.outputTokens * pricing.output) / 1_000_000;
}
