// A server-hosted extension module (docs/extensions.md): its default export is the handler.
export default async function shout({ args, stdin }) {
  const text = args.length > 0 ? `${args.join(' ')}\n` : await stdin.text();
  if (text.trim() === 'fail') throw new Error('shout refuses to shout fail');
  return { stdout: text.toUpperCase() };
}
