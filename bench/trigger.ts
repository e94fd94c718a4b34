import type { BenchContext } from './context';
export async function benchTrigger(_ctx: BenchContext): Promise<unknown> { return undefined; }
