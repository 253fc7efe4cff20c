export const BUILD_PACKAGES: string[];
export const REFERENCE_PACKAGES: string[];
export const BROWSER_PACKAGES: string[];
export const RUNTIME_PACKAGES: string[];
export function ensureDebianPackages(root: string, groups: string[][]): void;
export function ensureNpmPackages(root: string): void;
