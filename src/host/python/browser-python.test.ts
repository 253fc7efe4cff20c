// The page's Python port (browser-python.ts) and the kernel's end of it
// (src/kernel/python/browser-launcher.ts), over a real MessageChannel: the page answers only a
// `need`, once, and again only after a failure; the kernel asks once and shares the answer.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageAssetsLink } from '../../kernel/python/browser-launcher.js';
import { isPythonPortMessage, type PythonPortMessage } from '../../protocol/python-assets.js';
import { BrowserPython } from './browser-python.js';

/** A stand-in for the kernel Worker: keeps what the page posts to it. */
function fakeWorker(): { worker: Worker; posted: unknown[] } {
  const posted: unknown[] = [];
  const worker = { postMessage: (message: unknown) => posted.push(message) } as unknown as Worker;
  return { worker, posted };
}

/** The next message on `port`, however long it takes. */
function nextMessage(port: MessagePort): Promise<unknown> {
  return new Promise((resolve) => {
    port.onmessage = (event) => resolve(event.data);
  });
}

/** Messages that arrive on `port` in the next moment (a negative check: late ones only make it pass). */
async function messagesSoon(port: MessagePort): Promise<unknown[]> {
  const seen: unknown[] = [];
  port.onmessage = (event) => seen.push(event.data);
  await new Promise((resolve) => setTimeout(resolve, 100));
  return seen;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the page side of the Python port', () => {
  it('answers a need once, says why it failed, and answers again after a failure', async () => {
    const fetches: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.stubGlobal('fetch', async (url: URL) => {
      fetches.push(url.pathname);
      await released;
      return new Response('missing', { status: 404 });
    });
    const python = new BrowserPython({ baseUrl: 'http://app.test/pyodide/' });
    const { worker, posted } = fakeWorker();
    python.attach(worker);
    expect(posted).toHaveLength(1);
    expect(isPythonPortMessage(posted[0])).toBe(true);
    const port = (posted[0] as PythonPortMessage).airlockPythonPort;

    port.postMessage({ op: 'something else' });
    expect(await messagesSoon(port)).toEqual([]);

    // Two requests while the download is under way: one answer. (Both are delivered before
    // the check phases below: a port's messages arrive in the poll phase.)
    port.postMessage({ op: 'need' });
    port.postMessage({ op: 'need' });
    for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(await messagesSoon(port)).toEqual([]);
    release();
    const first = await nextMessage(port);
    expect(first).toMatchObject({ op: 'unavailable', reason: expect.stringContaining('HTTP 404') });
    expect(await messagesSoon(port)).toEqual([]);

    port.postMessage({ op: 'need' });
    expect(await nextMessage(port)).toMatchObject({ op: 'unavailable' });
    expect(fetches.filter((path) => path.endsWith('pyodide.asm.wasm'))).toHaveLength(2);
    port.close();
  });
});

describe('the kernel side of the Python port', () => {
  it('asks only when Python is first needed, once, and shares the answer', async () => {
    const channel = new MessageChannel();
    const link = new PageAssetsLink();
    link.attach(channel.port1);
    expect(await messagesSoon(channel.port2)).toEqual([]);

    const asked = nextMessage(channel.port2);
    const first = link.get();
    const second = link.get();
    expect(await asked).toEqual({ op: 'need' });
    expect(await messagesSoon(channel.port2)).toEqual([]);
    const assets = { op: 'assets', module: {} as WebAssembly.Module, stdlib: new Uint8Array([1]), script: 'http://app.test/pyodide/pyodide.asm.mjs' };
    channel.port2.postMessage(assets);
    expect((await first).script).toBe(assets.script);
    expect(await second).toEqual(await first);
    channel.port1.close();
  });

  it('rejects with the page reason, then asks again on the next use', async () => {
    const channel = new MessageChannel();
    const link = new PageAssetsLink();
    link.attach(channel.port1);
    const asked = nextMessage(channel.port2);
    const first = link.get();
    expect(await asked).toEqual({ op: 'need' });
    channel.port2.postMessage({ op: 'unavailable', reason: 'cannot load /pyodide/pyodide.asm.wasm: HTTP 404' });
    await expect(first).rejects.toThrow('HTTP 404');
    const askedAgain = nextMessage(channel.port2);
    void link.get().catch(() => undefined);
    expect(await askedAgain).toEqual({ op: 'need' });
    channel.port1.close();
  });
});
