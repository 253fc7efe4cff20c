export function buildNode(root: string): Promise<void>;
