// Examples open as workspaces of their own (?ws=<new id>&example=<id>), so opening one never
// touches the workspace in use.

export function exampleUrl(id: string): string {
  const url = new URL(location.href);
  url.search = '';
  url.searchParams.set('ws', `${id}-${Date.now().toString(36)}`);
  url.searchParams.set('example', id);
  return url.href;
}
