export function importGraph(dirs?: string[]): Map<string, string[]>;
export function importCycles(graph: Map<string, string[]>): string[][];
