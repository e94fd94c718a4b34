export function summarize(_results: Record<string, unknown>): Array<{ name: string; met: boolean; detail: string }> { return []; }
export function compareWithPrevious(_a: Record<string, unknown>, _b: Record<string, unknown>): string[] { return []; }
