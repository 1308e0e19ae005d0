// Kept in step with package.json by scripts/generate.ts --check.
export const VERSION = '0.1.0';
