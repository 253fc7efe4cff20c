export function buildNodeKernel(root: string): Promise<void>;
