import { describeContract } from '../contract-suite.js';
import { WasmSandboxClient } from './wasm-client.js';

describeContract('wasm', () => new WasmSandboxClient(), {
  skipReason: async () => null,
  workPath: '/home/user/work',
  shortBudgetSeconds: 2,
});
