import type { BenchContext } from './context';
export async function benchListing(_ctx: BenchContext): Promise<unknown> { return undefined; }
