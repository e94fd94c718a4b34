import type { BenchContext } from './context';
export async function benchVerification(_ctx: BenchContext): Promise<unknown> { return undefined; }
